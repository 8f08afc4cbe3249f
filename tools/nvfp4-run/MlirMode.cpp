//===- MlirMode.cpp - nvfp4-run's MLIR-input mode -------------------------===//
//
// With NVFP4_RUN_HAVE_MLIR (the project build): parse the .mlir input, read
// the kernel's `nvfp4.harness` attribute into an rt::HarnessSpec, compile the
// module in-process with the nvfp4-sm100-to-cubin pipeline to sm_100a PTX
// (format=isa: no ptxas), then rt::runHarness. Without it (the standalone
// LLVM-free build on the GPU machine), an .mlir input is a clear error.
//
//===----------------------------------------------------------------------===//

#include "MlirMode.h"

#include "nvfp4/Runtime/EmulatorDevice.h"
#include "nvfp4/Runtime/Harness.h"

#include <iostream>

using namespace nvfp4;

bool run::isMlirInput(const std::string &path) {
  static const std::string suffix = ".mlir";
  return path.size() >= suffix.size() &&
         path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

#ifndef NVFP4_RUN_HAVE_MLIR

int run::runMlirMode(const rt::RunOptions &options) {
  std::cerr << "nvfp4-run: error: MLIR input (" << options.input
            << ") needs the nvfp4-run of the project build (this one was "
               "built without LLVM/MLIR); compile there with nvfp4-run "
               "--emit-ptx=FILE or nvfp4-opt --nvfp4-sm100-to-cubin="
               "\"ptx-file=FILE\" and run the PTX here\n";
  return 2;
}

#else

#include "nvfp4/Dialect/NVFP4/Transforms/HarnessAttr.h"
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"
#include "nvfp4/InitAll.h"
#include "nvfp4/Pipelines/Pipelines.h"
#include "nvfp4/Support/InputNesting.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <iterator>

using namespace mlir;

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

int usageError(const std::string &message) {
  std::cout.flush();
  std::cerr << "nvfp4-run: error: " << message << "\n";
  return kExitUsage;
}

} // namespace

int run::runMlirMode(const rt::RunOptions &options) {
  DialectRegistry registry;
  nvfp4::registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the source line; the generic form of a whole
  // kernel after them would bury the message.
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context, llvm::errs());
  std::string error;
  auto file = llvm::MemoryBuffer::getFileOrSTDIN(options.input);
  if (!file)
    return usageError("cannot read " + options.input + ": " +
                      file.getError().message());
  // Input MLIR's parser crashes on (too deep, index dense arrays).
  if (auto bad = nvfp4::findInputHazard((*file)->getBuffer()))
    return usageError(options.input + ":" + std::to_string(bad->line) + ":" +
                      std::to_string(bad->column) + ": " + bad->message);
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module) {
    llvm::errs().flush();
    return usageError("cannot parse " + options.input);
  }

  // nvfp4.attention ops become kernels (with their harness attributes)
  // first, so that an input holding only the op can be run.
  {
    PassManager lower(&context);
    nvfp4::NVFP4LowerAttentionOptions lowerOptions;
    if (options.numSms)
      lowerOptions.numSms = int64_t(options.numSms);
    if (options.minPieceKeys)
      lowerOptions.minPieceKeys = int64_t(*options.minPieceKeys);
    if (options.polyExp2)
      lowerOptions.polyExp2 = int64_t(*options.polyExp2);
    if (options.clusterMerge)
      lowerOptions.clusterMerge = int64_t(*options.clusterMerge);
    if (options.pShared)
      lowerOptions.pShared = *options.pShared ? 1 : 0;
    lowerOptions.chip = options.chip;
    lower.addPass(nvfp4::createNVFP4LowerAttention(lowerOptions));
    lower.addPass(nvfp4::createNVFP4LowerAttentionMerge());
    lower.addPass(nvfp4::createNVFP4LowerQuantize());
    nvfp4::NVFP4LowerScaledMatmulOptions matmulOptions;
    if (options.numSms)
      matmulOptions.numSms = int64_t(options.numSms);
    matmulOptions.ctaGroup = int64_t(options.ctaGroup);
    lower.addPass(nvfp4::createNVFP4LowerScaledMatmul(matmulOptions));
    if (failed(lower.run(*module)))
      return usageError("lowering the nvfp4.attention ops of " +
                        options.input + " failed (the diagnostics above)");
  }

  // The kernel: the gpu.func carrying nvfp4.harness (or --kernel's).
  SmallVector<gpu::GPUFuncOp> candidates;
  std::string names;
  module->walk([&](gpu::GPUFuncOp f) {
    if (!f.isKernel())
      return;
    names += (names.empty() ? "" : ", ") + f.getName().str();
    if (options.kernel.empty() ? f->hasAttr(kHarnessAttr)
                               : f.getName() == options.kernel)
      candidates.push_back(f);
  });
  if (candidates.empty())
    return usageError(
        options.kernel.empty()
            ? "no kernel gpu.func in " + options.input + " has an " +
                  kHarnessAttr + " attribute (kernels: " +
                  (names.empty() ? std::string("none") : names) +
                  "); docs/Runtime.md describes it"
            : "no kernel gpu.func named '" + options.kernel + "' in " +
                  options.input + " (kernels: " +
                  (names.empty() ? std::string("none") : names) + ")");
  if (candidates.size() > 1)
    return usageError("several kernels of " + options.input + " have an " +
                      kHarnessAttr + " attribute: choose one with --kernel");
  gpu::GPUFuncOp func = candidates.front();
  rt::HarnessSpec spec;
  if (failed(readHarness(func, spec)))
    return usageError("bad " + std::string(kHarnessAttr) + " attribute on '" +
                      func.getName().str() + "'");
  auto sizes = rt::resolveSizes(spec, options.sizes);
  if (!sizes)
    return usageError(sizes.takeError().message());
  if (failed(checkBufferShapes(func, spec, spec.args, *sizes)))
    return usageError("bad " + std::string(kHarnessAttr) + " attribute on '" +
                      spec.kernel + "'");
  for (const rt::HarnessLaunch &l : spec.then)
    if (failed(checkBufferShapes(
            func->getParentOfType<gpu::GPUModuleOp>()
                .lookupSymbol<gpu::GPUFuncOp>(l.kernel),
            spec, l.args, *sizes)))
      return usageError("bad " + std::string(kHarnessAttr) +
                        " attribute on '" + spec.kernel + "'");

  // Compile: the whole pipeline, ending in PTX (no ptxas).
  nvfp4::SM100ToCubinOptions pipelineOptions;
  pipelineOptions.format = "isa";
  pipelineOptions.chip = options.chip;
  PassManager pm(&context);
  if (failed(nvfp4::buildSM100ToCubinPipeline(pm, pipelineOptions)))
    return usageError("cannot build the nvfp4-sm100-to-cubin pipeline");
  std::string kernelModule =
      func->getParentOfType<gpu::GPUModuleOp>().getName().str();
  if (failed(pm.run(*module)))
    return usageError("compiling " + options.input + " failed (the "
                      "diagnostics above)");
  std::string ptx = nvfp4::serializedObject(
      *module, kernelModule, gpu::CompilationTarget::Assembly);
  if (ptx.empty())
    return usageError("compiling " + options.input +
                      " produced no PTX for gpu.module @" + kernelModule);
  if (!options.emitPtx.empty()) {
    std::ofstream out(options.emitPtx, std::ios::binary | std::ios::trunc);
    out << ptx;
    out.close();
    if (!out)
      return usageError("cannot write '" + options.emitPtx + "'");
  }
  std::string imageName = options.input + " (PTX)";
  if (!options.replacePtx.empty()) {
    std::ifstream in(options.replacePtx, std::ios::binary);
    if (!in)
      return usageError("cannot read '" + options.replacePtx + "'");
    ptx.assign(std::istreambuf_iterator<char>(in),
               std::istreambuf_iterator<char>());
    imageName = options.replacePtx + " (PTX, --replace-ptx)";
  }
  auto image = rt::KernelImage::fromBytes(
      std::vector<uint8_t>(ptx.begin(), ptx.end()), imageName);
  if (!image)
    return usageError(image.takeError().message());

  rt::HarnessRunOptions run;
  run.sizes = *sizes;
  run.seed = options.seed;
  run.relL2Tolerance = options.relL2Tolerance;
  run.origin = options.input;
  run.checkInputs = options.checkInputs;
  for (const rt::RunOptions::InputSet &set : options.inputSets)
    run.overrides.push_back({set.tensor, set.index, set.value});
  std::cout << "nvfp4-run: backend " << rt::stringify(options.backend)
            << ", compiled " << image->describe() << "\n";
  rt::printHarnessPlan(spec, run, std::cout);
  if (!options.emitPtx.empty())
    std::cout << "nvfp4-run: wrote the PTX to " << options.emitPtx << "\n";
  if (options.dryRun) {
    std::cout << "nvfp4-run: dry run: nothing launched\n";
    return 0;
  }

  std::unique_ptr<rt::Device> device;
  std::ofstream ctaStats;
  if (!options.ctaStats.empty()) {
    if (options.backend != rt::BackendKind::Emulator)
      return usageError("--cta-stats needs --backend=emulator");
    ctaStats.open(options.ctaStats, std::ios::trunc);
    if (!ctaStats)
      return usageError("cannot write '" + options.ctaStats + "'");
    ctaStats << "kernel,cta,mmas_smem_a,mmas_tmem_a,tma_bytes,wgmmas_smem_a,"
                "wgmmas_reg_a\n";
  }
  const bool seeded = options.scheduleSeed != 0 || options.schedules > 1;
  if (seeded && options.backend != rt::BackendKind::Emulator)
    return usageError("--schedule-seed and --schedules need "
                      "--backend=emulator (the GPU picks its own schedule)");
  // --schedules=N without a seed starts at seed 1 (0 is the deterministic
  // schedule, which the default run already covers).
  const uint64_t firstSeed =
      options.schedules > 1 && options.scheduleSeed == 0 ? 1
                                                          : options.scheduleSeed;
  if (options.backend == rt::BackendKind::Emulator) {
    rt::EmulatorOptions eo;
    eo.maxWarpInstructions = options.maxWarpInstructions;
    eo.scheduleSeed = firstSeed;
    eo.sanitize = options.sanitize;
    eo.mmaNumerics = options.mmaNumerics;
    eo.approxNumerics = options.approxNumerics;
    auto emulator = std::make_unique<rt::EmulatorDevice>(eo);
    if (ctaStats.is_open()) {
      rt::EmulatorDevice *e = emulator.get();
      run.afterLaunch = [e, &ctaStats](const std::string &kernel) {
        const auto &per = e->lastStats().perCta;
        for (size_t c = 0; c < per.size(); ++c)
          ctaStats << kernel << "," << c << "," << per[c].mmasSmemA << ","
                   << per[c].mmasTmemA << "," << per[c].tmaLoadBytes << ","
                   << per[c].wgmmasSmemA << "," << per[c].wgmmasRegA << "\n";
      };
    }
    device = std::move(emulator);
  } else {
    rt::DeviceOptions deviceOptions;
    deviceOptions.ordinal = options.deviceOrdinal;
    auto d = rt::createDevice(options.backend, deviceOptions);
    if (!d) {
      std::cerr << "nvfp4-run: error: " << d.takeError().message() << "\n";
      return kExitFailure;
    }
    device = std::move(*d);
  }
  if (options.schedules <= 1) {
    if (seeded)
      std::cout << "nvfp4-run: schedule seed " << firstSeed << "\n";
    auto pass = rt::runHarness(spec, *image, *device, run, std::cout);
    if (!pass) {
      std::cout.flush();
      std::cerr << "nvfp4-run: error: " << pass.takeError().message() << "\n";
      return kExitFailure;
    }
    return *pass ? 0 : kExitFailure;
  }
  // Several schedules: one emulator per seed, each run checked; the last
  // line sums them up.
  uint64_t failures = 0, firstFailure = 0;
  for (uint64_t i = 0; i < options.schedules; ++i) {
    rt::EmulatorOptions eo;
    eo.maxWarpInstructions = options.maxWarpInstructions;
    eo.scheduleSeed = firstSeed + i;
    eo.sanitize = options.sanitize;
    eo.mmaNumerics = options.mmaNumerics;
    eo.approxNumerics = options.approxNumerics;
    rt::EmulatorDevice emulator(eo);
    std::cout << "nvfp4-run: schedule seed " << eo.scheduleSeed << "\n";
    auto pass = rt::runHarness(spec, *image, emulator, run, std::cout);
    bool ok = pass && *pass;
    if (!pass) {
      std::cout.flush();
      std::cerr << "nvfp4-run: error (schedule seed " << eo.scheduleSeed
                << "): " << pass.takeError().message() << "\n";
      std::cerr.flush();
    }
    if (!ok && failures++ == 0)
      firstFailure = eo.scheduleSeed;
  }
  if (failures) {
    std::cout << "FAIL " << failures << " of " << options.schedules
              << " schedules (first failing seed " << firstFailure
              << "; rerun with --schedule-seed=" << firstFailure << ")\n";
    return kExitFailure;
  }
  std::cout << "PASS " << options.schedules << " of " << options.schedules
            << " schedules (seeds " << firstSeed << ".."
            << firstSeed + options.schedules - 1 << ")\n";
  return 0;
}

#endif // NVFP4_RUN_HAVE_MLIR
