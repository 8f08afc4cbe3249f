//===- SerializeGpuModules.cpp - gpu.module -> binary, plus PTX/cubin files ===//
//
// Calls upstream gpu::transformGpuModulesToBinaries (what gpu-module-to-binary
// runs) with an ISA callback that captures the PTX, then writes the PTX and
// the cubin objects to the requested files.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4SERIALIZEGPUMODULES
#include "nvfp4/Pipelines/Passes.h.inc"
} // namespace nvfp4

using namespace mlir;

#ifndef NVFP4_DEFAULT_CUDA_ROOT
#define NVFP4_DEFAULT_CUDA_ROOT "/usr/local/cuda"
#endif

namespace {

/// `path` for a single module; `stem.<module>.ext` when there are several.
std::string fileFor(StringRef path, StringRef moduleName, bool several) {
  if (!several)
    return path.str();
  StringRef ext = llvm::sys::path::extension(path);
  return (path.drop_back(ext.size()) + "." + moduleName + ext).str();
}

LogicalResult writeFile(Operation *op, StringRef path, StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return op->emitError("cannot write '") << path << "': " << ec.message();
  os << contents;
  os.close();
  if (os.has_error())
    return op->emitError("cannot write '")
           << path << "': " << os.error().message();
  return success();
}

/// Instructions the NVPTX back end can only select for some targets, and
/// would otherwise crash on (LLVM ERROR: Cannot select): the e2m1
/// conversions need an sm_100a-family chip (PTX ISA, cvt), the block16 /
/// block32 block-scaled MMAs PTX ISA 8.8.
LogicalResult checkTargetNeeds(gpu::GPUModuleOp gpuModule) {
  std::optional<ArrayAttr> targets = gpuModule.getTargets();
  if (!targets)
    return success();
  for (Attribute attr : *targets) {
    auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr);
    if (!nvvm)
      continue;
    StringRef chip = nvvm.getChip();
    StringRef digits = chip;
    unsigned capability = 0;
    bool familySpecific = false;
    if (digits.consume_front("sm_") && !digits.empty()) {
      familySpecific = digits.back() == 'a' || digits.back() == 'f';
      if (familySpecific)
        digits = digits.drop_back();
      (void)digits.getAsInteger(10, capability);
    }
    unsigned ptx = nvfp4::ptxVersionOf(nvvm.getFeatures()).value_or(0);
    WalkResult walk = gpuModule.walk([&](Operation *op) {
      if (isa<NVVM::ConvertF32x2ToF4x2Op, NVVM::ConvertF4x2ToF16x2Op>(op) &&
          (capability < 100 || !familySpecific)) {
        op->emitOpError("needs an sm_100a-family chip (cvt with .e2m1x2), "
                        "got ")
            << chip;
        return WalkResult::interrupt();
      }
      if (isa<NVVM::Tcgen05MMABlockScaleOp>(op) && ptx < 88) {
        op->emitOpError("needs PTX ISA 8.8 (the .block16 / .block32 forms): "
                        "expected +ptx88 or newer in features, got '")
            << nvvm.getFeatures() << "'";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return success();
}

struct SerializeGpuModulesPass
    : nvfp4::impl::NVFP4SerializeGpuModulesBase<SerializeGpuModulesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<gpu::CompilationTarget> target =
        llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(format)
            .Cases({"offloading", "llvm"}, gpu::CompilationTarget::Offload)
            .Cases({"assembly", "isa"}, gpu::CompilationTarget::Assembly)
            .Cases({"binary", "bin"}, gpu::CompilationTarget::Binary)
            .Cases({"fatbinary", "fatbin"}, gpu::CompilationTarget::Fatbin)
            .Default(std::nullopt);
    if (!target) {
      module.emitError("nvfp4-serialize-gpu-modules: unknown format '")
          << format << "' (expected offloading, isa, bin or fatbin)";
      return signalPassFailure();
    }
    if (!cubinFile.empty() && *target != gpu::CompilationTarget::Binary) {
      module.emitError("nvfp4-serialize-gpu-modules: cubin-file needs "
                       "format=bin, got format=")
          << format;
      return signalPassFailure();
    }

    std::string toolkit = toolkitPath.empty()
                              ? std::string(NVFP4_DEFAULT_CUDA_ROOT)
                              : std::string(toolkitPath);
    if ((*target == gpu::CompilationTarget::Binary ||
         *target == gpu::CompilationTarget::Fatbin) &&
        !llvm::sys::fs::can_execute(toolkit + "/bin/ptxas")) {
      module.emitError("nvfp4-serialize-gpu-modules: no ptxas at '")
          << toolkit << "/bin/ptxas' (set toolkit= to a CUDA 13 toolkit)";
      return signalPassFailure();
    }

    SmallVector<std::string> names;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      names.push_back(gpuModule.getName().str());
      std::optional<ArrayAttr> targets = gpuModule.getTargets();
      if (!targets || targets->empty()) {
        gpuModule.emitError("nvfp4-serialize-gpu-modules: gpu.module @")
            << gpuModule.getName() << " has no target (run nvvm-attach-target)";
        return signalPassFailure();
      }
      if (!ptxFile.empty() && targets->size() != 1) {
        gpuModule.emitError("nvfp4-serialize-gpu-modules: ptx-file needs "
                            "exactly one target per gpu.module, but @")
            << gpuModule.getName() << " has " << targets->size()
            << " (the nvfp4-sm100-to-cubin pipeline attaches its own "
               "#nvvm.target: leave it off the module)";
        return signalPassFailure();
      }
      for (Attribute attr : *targets) {
        auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr);
        if (!nvvm) {
          gpuModule.emitError("nvfp4-serialize-gpu-modules: expected "
                              "#nvvm.target targets, got ")
              << attr;
          return signalPassFailure();
        }
        std::string features = nvvm.getFeatures().str();
        if (std::optional<std::string> error = nvfp4::validateNVVMTarget(
                nvvm.getChip(), features, nvvm.getO())) {
          gpuModule.emitError("nvfp4-serialize-gpu-modules: ") << *error;
          return signalPassFailure();
        }
      }
    }
    if (names.empty())
      return;

    // Upstream LLVM IR translation crashes (rather than diagnosing) on
    // element types that are not LLVM types and on scalable vectors, which
    // NVPTX cannot select: reject them first.
    auto badType = [](Type type) {
      auto vector = dyn_cast<VectorType>(type);
      return (vector && vector.isScalable()) || !LLVM::isCompatibleType(type);
    };
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      for (Operation &op : gpuModule.getBody()->getOperations()) {
        if (isa<SymbolOpInterface>(op) ||
            isa<LLVM::LLVMDialect>(op.getDialect()))
          continue;
        op.emitOpError("cannot sit directly in a gpu.module that is "
                       "translated to LLVM IR (expected functions and "
                       "globals only)");
        return signalPassFailure();
      }
      WalkResult walk = gpuModule.walk([&](Operation *op) {
        Type type;
        if (auto gep = dyn_cast<LLVM::GEPOp>(op))
          type = gep.getElemType();
        else if (auto global = dyn_cast<LLVM::GlobalOp>(op))
          type = global.getGlobalType();
        for (Type t : op->getResultTypes())
          if (!type && badType(t))
            type = t;
        if (!type || !badType(type))
          return WalkResult::advance();
        op->emitOpError("cannot be translated to LLVM IR for NVPTX: type ")
            << type << " is not an LLVM type (or is a scalable vector)";
        return WalkResult::interrupt();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
      if (failed(checkTargetNeeds(gpuModule)))
        return signalPassFailure();
    }
    bool several = names.size() > 1;

    SmallVector<std::string> ptx;
    // TargetOptions keeps a function_ref to the callback: the lambda must
    // outlive `options`, so it is a named local, not a temporary.
    auto collectPtx = [&](StringRef isa) { ptx.push_back(isa.str()); };
    gpu::TargetOptions options(
        toolkit, /*librariesToLink=*/{}, ptxasOptions, /*elfSection=*/{},
        *target, /*getSymbolTableCallback=*/{}, /*initialLlvmIRCallback=*/{},
        /*linkedLlvmIRCallback=*/{}, /*optimizedLlvmIRCallback=*/{},
        /*isaCallback=*/collectPtx);
    if (failed(gpu::transformGpuModulesToBinaries(module, nullptr, options)))
      return signalPassFailure();

    if (!ptxFile.empty()) {
      if (ptx.size() != names.size()) {
        module.emitError("nvfp4-serialize-gpu-modules: expected PTX for ")
            << names.size() << " gpu.module(s), got " << ptx.size()
            << " (does every gpu.module have exactly one #nvvm.target?)";
        return signalPassFailure();
      }
      for (auto [name, text] : llvm::zip(names, ptx))
        if (failed(writeFile(module, fileFor(ptxFile, name, several), text)))
          return signalPassFailure();
    }
    if (!cubinFile.empty()) {
      for (auto binary : module.getOps<gpu::BinaryOp>()) {
        for (Attribute attr : binary.getObjects()) {
          auto object = cast<gpu::ObjectAttr>(attr);
          if (object.getFormat() != gpu::CompilationTarget::Binary)
            continue;
          if (failed(writeFile(module,
                               fileFor(cubinFile, binary.getName(), several),
                               object.getObject().getValue())))
            return signalPassFailure();
        }
      }
    }
  }
};

} // namespace
