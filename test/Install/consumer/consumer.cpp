//===- consumer.cpp - a client of the installed nvfp4 package -------------===//
//
// Uses the installed headers and libraries as an engine or compiler would:
// parses a function with an nvfp4.quantize op, runs nvfp4-lower-quantize,
// reads the kernel's launch from its nvfp4.harness attribute, compiles the
// module to PTX with the nvfp4-sm100-to-cubin pipeline, runs the kernel on
// the emulator through the runtime's Device, and checks every byte against
// the reference quantizer. Prints PASS and exits 0, or says what failed.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"
#include "nvfp4/Runtime/EmulatorDevice.h"
#include "nvfp4/Runtime/KernelImage.h"
#include "nvfp4/Support/Nvfp4Format.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace rt = nvfp4::rt;

static const char *kInput = R"mlir(
func.func @q(%x: tensor<64x64xbf16>, %gs: tensor<f32>)
    -> (tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>) {
  %q, %sf = nvfp4.quantize %x scale(%gs)
      : (tensor<64x64xbf16>, tensor<f32>)
      -> (tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>)
  return %q, %sf : tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>
}
)mlir";

static int fail(const std::string &what) {
  std::fprintf(stderr, "consumer: FAIL: %s\n", what.c_str());
  return 1;
}

static uint16_t bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return uint16_t(bits >> 16); // the values below are exact in bf16
}

int main(int argc, char **argv) {
  if (argc != 2)
    return fail("usage: consumer <scratch directory>");
  std::string ptxPath = std::string(argv[1]) + "/q.ptx";

  // The compiler side: dialects, passes, the pipeline.
  mlir::DialectRegistry registry;
  nvfp4::registerCompilerDialects(registry);
  nvfp4::registerAllPasses();
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kInput, &context);
  if (!module)
    return fail("the input does not parse");
  // `pipeline`: the passes of a pass manager anchored on the module.
  auto run = [&](const std::string &pipeline) {
    mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
    return mlir::succeeded(mlir::parsePassPipeline(pipeline, pm)) &&
           mlir::succeeded(pm.run(*module));
  };
  if (!run("nvfp4-lower-quantize"))
    return fail("nvfp4-lower-quantize");
  // The launch, from the kernel's harness attribute.
  int32_t grid = 0, block = 0;
  std::string kernel;
  module->walk([&](mlir::gpu::GPUFuncOp f) {
    auto h = f->getAttrOfType<mlir::DictionaryAttr>("nvfp4.harness");
    if (!h)
      return;
    kernel = f.getName().str();
    grid = h.getAs<mlir::DenseI32ArrayAttr>("grid")[0];
    block = h.getAs<mlir::DenseI32ArrayAttr>("block")[0];
  });
  if (kernel.empty() || grid <= 0 || block <= 0)
    return fail("no kernel with a harness attribute");
  if (!run("nvfp4-sm100-to-cubin{format=isa ptx-file=" + ptxPath + "}"))
    return fail("nvfp4-sm100-to-cubin");
  std::printf("consumer: compiled %s, grid %d x %d threads\n", kernel.c_str(),
              grid, block);

  // The runtime side: the emulator backend.
  auto device = rt::createEmulatorDevice(rt::DeviceOptions{});
  if (!device)
    return fail(device.takeError().message());
  auto image = rt::KernelImage::fromFile(ptxPath);
  if (!image)
    return fail(image.takeError().message());
  auto mod = (*device)->loadModule(*image);
  if (!mod)
    return fail(mod.takeError().message());
  auto fn = (*device)->getFunction(*mod, kernel);
  if (!fn)
    return fail(fn.takeError().message());
  // x: full-mantissa-free values in [-6, 6] times a per-row magnitude.
  const int M = 64, K = 64, sfBytes = 128 * 4;
  std::vector<float> x(M * K);
  std::vector<uint16_t> xb(M * K);
  for (int i = 0; i < M * K; ++i) {
    x[i] = float(((i * 37) % 97) - 48) / 8.0f * std::ldexp(1.0f, i / K % 7 - 3);
    xb[i] = bf16(x[i]);
  }
  float gs = 448.0f * 6.0f / 48.0f;
  auto alloc = [&](uint64_t bytes) { return (*device)->allocate(bytes); };
  auto dX = alloc(xb.size() * 2), dGs = alloc(4), dData = alloc(M * K / 2),
       dSf = alloc(sfBytes);
  if (!dX || !dGs || !dData || !dSf)
    return fail("allocate");
  if ((*device)->copyToDevice(*dX, xb.data(), xb.size() * 2) ||
      (*device)->copyToDevice(*dGs, &gs, 4))
    return fail("copy to the device");
  rt::LaunchConfig launch;
  launch.grid = rt::Dim3{uint32_t(grid), 1, 1};
  launch.block = rt::Dim3{uint32_t(block), 1, 1};
  auto timing = (*device)->launch(
      *fn, launch,
      {rt::KernelArg::pointer(*dX), rt::KernelArg::pointer(*dGs),
       rt::KernelArg::pointer(*dData), rt::KernelArg::pointer(*dSf)});
  if (!timing)
    return fail(timing.takeError().message());
  std::vector<uint8_t> data(M * K / 2), sf(sfBytes);
  if ((*device)->copyToHost(data.data(), *dData, data.size()) ||
      (*device)->copyToHost(sf.data(), *dSf, sf.size()))
    return fail("copy to the host");

  // Every byte against the reference quantizer.
  int wrong = 0;
  for (int r = 0; r < M; ++r)
    for (int kb = 0; kb < K / 16; ++kb) {
      float block16[16];
      for (int i = 0; i < 16; ++i)
        block16[i] = x[r * K + kb * 16 + i];
      nvfp4::fp4::Block want = nvfp4::fp4::quantizeBlock(
          block16, gs, nvfp4::fp4::Recipe::Fast,
          nvfp4::fp4::NanPolicy::Propagate);
      int64_t at = nvfp4::fp4::sfOffset(nvfp4::fp4::SfLayout::Swizzled, r, kb,
                                        K);
      wrong += sf[at] != want.sf;
      for (int i = 0; i < 8; ++i)
        wrong += data[r * K / 2 + kb * 8 + i] !=
                 uint8_t(want.codes[2 * i] | want.codes[2 * i + 1] << 4);
    }
  if (wrong)
    return fail(std::to_string(wrong) + " bytes differ from the reference");
  std::printf("consumer: %d data bytes and %d scale factors as the reference "
              "quantizer's\nPASS\n",
              M * K / 2, M * K / 16);
  return 0;
}
