//===- Pipelines.cpp - the nvfp4-sm100-to-cubin pipeline -------------------===//
//
// One function lists every step from the sm100 level to PTX and cubin, in
// order; `stop-after` cuts the list after a named step.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Pipelines/Pipelines.h"

#include "nvfp4/Conversion/Passes.h"
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"
#include "nvfp4/Dialect/SM100/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"

#include <functional>

using namespace mlir;

std::optional<nvfp4::PipelineStep>
nvfp4::parsePipelineStep(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<PipelineStep>>(name)
      .Case("attention", PipelineStep::Attention)
      .Case("plan", PipelineStep::Plan)
      .Case("roles", PipelineStep::Roles)
      .Case("sm100", PipelineStep::SM100)
      .Case("nvvm", PipelineStep::NVVM)
      .Case("binary", PipelineStep::Binary)
      .Default(std::nullopt);
}

std::optional<unsigned> nvfp4::ptxVersionOf(llvm::StringRef features) {
  std::optional<unsigned> ptx;
  llvm::SmallVector<llvm::StringRef> items;
  features.split(items, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    llvm::StringRef name = item.trim();
    unsigned version;
    if (name.consume_front("+ptx") && !name.getAsInteger(10, version))
      ptx = std::max(ptx.value_or(0), version);
  }
  return ptx;
}

std::optional<std::string> nvfp4::validateNVVMTarget(llvm::StringRef chip,
                                                     llvm::StringRef features,
                                                     int64_t optLevel) {
  llvm::StringRef digits = chip;
  unsigned capability = 0;
  if (!digits.consume_front("sm_") || digits.empty())
    return "expected chip to be sm_<digits>[a|f] (e.g. sm_100a), got '" +
           chip.str() + "'";
  if (digits.back() == 'a' || digits.back() == 'f')
    digits = digits.drop_back();
  if (digits.getAsInteger(10, capability))
    return "expected chip to be sm_<digits>[a|f] (e.g. sm_100a), got '" +
           chip.str() + "'";
  unsigned ptx = 0;
  llvm::SmallVector<llvm::StringRef> items;
  features.split(items, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    llvm::StringRef name = item.trim();
    if (!name.consume_front("+") && !name.consume_front("-"))
      return "expected features to be a comma-separated list of +name or "
             "-name, got '" +
             features.str() + "'";
    unsigned version;
    if (item.trim().starts_with("+ptx") &&
        !name.drop_front(3).getAsInteger(10, version)) {
      // LLVM ignores a PTX version it does not know (with a warning) and
      // falls back to the chip's default, which then cannot select newer
      // instructions (a crash in instruction selection): refuse it here.
      if (version > kMaxKnownPtx)
        return "PTX ISA " + std::to_string(version / 10) + "." +
               std::to_string(version % 10) +
               " is not known to the LLVM 22 NVPTX back end: expected "
               "+ptx" + std::to_string(kMaxKnownPtx) +
               " or older in features, got '" + features.str() + "'";
      ptx = std::max(ptx, version);
    }
  }
  // PTX ISA release notes: sm_100a needs PTX ISA 8.6.
  if (capability >= 100 && ptx < 86)
    return "chip " + chip.str() + " needs PTX ISA 8.6 or newer: expected " +
           "+ptx86 or newer in features, got '" + features.str() + "'";
  if (optLevel < 0 || optLevel > 3)
    return "expected opt-level in [0, 3], got " + std::to_string(optLevel);
  return std::nullopt;
}

LogicalResult
nvfp4::buildSM100ToCubinPipeline(OpPassManager &pm,
                                 const SM100ToCubinOptions &opts) {
  std::optional<PipelineStep> stop = parsePipelineStep(opts.stopAfter);
  if (!stop || validateNVVMTarget(opts.chip, opts.features, opts.optLevel))
    return failure();

  // 0. Every nvfp4.attention becomes a warp-specialized sm100 kernel in a
  //    gpu.module of its own, every nvfp4.attention_merge a merge kernel,
  //    every nvfp4.quantize / dequantize its kernels, every
  //    nvfp4.scaled_matmul a block-scaled GEMM (nothing happens without
  //    such ops).
  NVFP4LowerAttentionOptions attention;
  attention.numSms = opts.numSms;
  attention.minPieceKeys = opts.minPieceKeys;
  attention.polyExp2 = opts.polyExp2;
  attention.clusterMerge = opts.clusterMerge;
  attention.pShared = opts.pShared;
  attention.chip = opts.chip;
  pm.addPass(createNVFP4LowerAttention(attention));
  pm.addPass(createNVFP4LowerAttentionMerge());
  pm.addPass(createNVFP4LowerQuantize());
  NVFP4LowerScaledMatmulOptions matmul;
  matmul.numSms = opts.numSms;
  matmul.ctaGroup = opts.ctaGroup;
  pm.addPass(createNVFP4LowerScaledMatmul(matmul));
  if (*stop == PipelineStep::Attention)
    return success();

  // 1. Check the tensor-memory plan of every kernel and record it.
  pm.addPass(sm100::createSM100PlanTmem());
  if (*stop == PipelineStep::Plan)
    return success();

  // 2. Warp roles and single-thread issue regions become scf.if + nvvm.
  pm.addPass(sm100::createSM100LowerWarpRoles());
  if (*stop == PipelineStep::Roles)
    return success();

  // 3. sm100 ops become nvvm.tcgen05.* and llvm.
  pm.addPass(createConvertSM100ToNVVM());
  if (*stop == PipelineStep::SM100)
    return success();

  // 4. The upstream device lowering (as in GPUToNVVMPipeline.cpp):
  //    nvgpu (mbarrier, TMA) -> nvvm, structured control flow -> cf,
  //    then everything inside gpu.module -> llvm + nvvm.
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = opts.chip;
  target.features = opts.features;
  target.optLevel = opts.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  // Bare pointers for memref kernel arguments: a statically shaped memref
  // becomes one `!llvm.ptr`, which is what a runner (or a CUDA C++ caller)
  // passes.
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.useBarePtrCallConv = true;
  gpuPm.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  gpuPm.addPass(createReconcileUnrealizedCastsPass());
  // Upstream prints dynamic shared memory as a one-byte static variable;
  // make it `.extern .shared .align 1024 ... []` (see the pass).
  gpuPm.addPass(createNVFP4ExternDynamicSharedMemory());
  if (*stop == PipelineStep::NVVM)
    return success();

  // 5. NVPTX -> PTX -> ptxas -> cubin (upstream gpu-module-to-binary),
  //    writing the PTX and cubin files on the way.
  NVFP4SerializeGpuModulesOptions serialize;
  serialize.ptxFile = opts.ptxFile;
  serialize.cubinFile = opts.cubinFile;
  serialize.format = opts.format;
  serialize.ptxasOptions = opts.ptxasOptions;
  pm.addPass(createNVFP4SerializeGpuModules(serialize));
  return success();
}

namespace {
/// Registers pipeline `name` with options `Options` (by hand rather than
/// through PassPipelineRegistration, so that a bad option value is a
/// diagnostic, not a crash): `check` refuses options with a message, the
/// target is validated, then `build` adds the passes.
template <typename Options>
void registerChecked(
    StringRef name, StringRef description,
    std::function<std::optional<std::string>(const Options &)> check,
    LogicalResult (*build)(OpPassManager &, const Options &)) {
  std::string prefix = name.str() + ": ";
  registerPassPipeline(
      name, description,
      [=](OpPassManager &pm, StringRef optionsStr,
          function_ref<LogicalResult(const Twine &)> errorHandler) {
        Options options;
        if (failed(options.parseFromString(optionsStr)))
          return failure();
        if (std::optional<std::string> error = check(options))
          return errorHandler(prefix + *error);
        if (std::optional<std::string> error = nvfp4::validateNVVMTarget(
                options.chip, options.features, options.optLevel))
          return errorHandler(prefix + *error);
        return build(pm, options);
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(Options());
      });
}
} // namespace

void nvfp4::registerSM100ToCubinPipeline() {
  registerChecked<SM100ToCubinOptions>(
      "nvfp4-sm100-to-cubin",
      "Lower sm100-level gpu.modules to PTX and an sm_100a cubin "
      "(attention -> plan -> roles -> sm100 -> nvvm -> binary)",
      [](const SM100ToCubinOptions &options) -> std::optional<std::string> {
        if (nvfp4::parsePipelineStep(options.stopAfter))
          return std::nullopt;
        return "unknown stop-after step '" + options.stopAfter +
               "' (expected attention, plan, roles, sm100, nvvm or binary)";
      },
      buildSM100ToCubinPipeline);
}

void nvfp4::copyDeviceOptions(const NVFP4ToLLVMOptions &from,
                              SM100ToCubinOptions &to) {
  to.chip = from.chip;
  to.features = from.features;
  to.optLevel = from.optLevel;
  to.format = from.format;
  to.numSms = from.numSms;
  to.minPieceKeys = from.minPieceKeys;
  to.polyExp2 = from.polyExp2;
  to.clusterMerge = from.clusterMerge;
  to.pShared = from.pShared;
  to.ctaGroup = from.ctaGroup;
  to.ptxasOptions = from.ptxasOptions;
}

LogicalResult
nvfp4::buildNVFP4ToLLVMPipeline(OpPassManager &pm,
                                const NVFP4ToLLVMOptions &opts) {
  if (validateNVVMTarget(opts.chip, opts.features, opts.optLevel))
    return failure();
  SM100ToCubinOptions device;
  copyDeviceOptions(opts, device);

  // 1. Every nvfp4 op gets its kernel (nvfp4-sm100-to-cubin's step 0).
  device.stopAfter = "attention";
  if (failed(buildSM100ToCubinPipeline(pm, device)))
    return failure();

  // 2. Tensors -> buffers: each nvfp4 op becomes nvfp4.launch; function
  //    arguments and results become contiguous row-major memrefs.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));

  //    Temporaries are freed after their last use (ownership-based
  //    deallocation; without it every call leaks them), and the clones it
  //    makes so that the caller owns every result become alloc + copy.
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  pm.addPass(createConvertBufferizationToMemRefPass());

  // 3. The host side of every launch (tensor maps, scratch, launch_func).
  pm.addPass(createNVFP4LowerHost());

  // 4. The kernels: the device pipeline down to gpu.binary.
  device.stopAfter = "binary";
  if (failed(buildSM100ToCubinPipeline(pm, device)))
    return failure();

  // 5. The host code to the LLVM dialect: one stream per function call,
  //    mgpu* runtime calls (bare pointers for memref kernel arguments, as
  //    the kernels take them), then everything else.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  GpuToLLVMConversionPassOptions toLLVM;
  toLLVM.kernelBarePtrCallConv = true;
  pm.addPass(createGpuToLLVMConversionPass(toLLVM));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  return success();
}

void nvfp4::registerNVFP4ToLLVMPipeline() {
  registerChecked<NVFP4ToLLVMOptions>(
      "nvfp4-to-llvm",
      "Lower functions that use nvfp4 ops to the LLVM dialect: kernels "
      "(embedded as PTX or cubin) and the host code that launches them "
      "through the mgpu* runtime entry points",
      [](const NVFP4ToLLVMOptions &) { return std::optional<std::string>(); },
      buildNVFP4ToLLVMPipeline);
}

std::string nvfp4::serializedObject(ModuleOp module, StringRef gpuModule,
                                    gpu::CompilationTarget format) {
  std::string bytes;
  module->walk([&](gpu::BinaryOp binary) {
    if (binary.getName() != gpuModule)
      return;
    for (Attribute o : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(o))
        if (object.getFormat() == format)
          bytes = object.getObject().getValue().str();
  });
  return bytes;
}
