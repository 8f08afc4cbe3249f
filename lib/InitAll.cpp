//===- InitAll.cpp - register nvfp4 dialects and passes -------------------===//

#include "nvfp4/InitAll.h"

#include "nvfp4/Conversion/Passes.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Transforms/BufferizableOpInterfaceImpl.h"
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"
#include "nvfp4/Dialect/SM100/IR/SM100Dialect.h"
#include "nvfp4/Dialect/SM100/Transforms/Passes.h"
#include "nvfp4/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void nvfp4::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<nvfp4::NVFP4Dialect, nvfp4::sm100::SM100Dialect>();
  // One-shot bufferization of the nvfp4 ops (docs/Host.md).
  nvfp4::registerBufferizableOpInterfaceExternalModels(registry);
}

void nvfp4::registerCompilerDialects(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary needs the `#nvvm.target` attribute interface and
  // the translations of builtin, llvm, gpu and nvvm ops to LLVM IR; the NVVM
  // target initialises the NVPTX back end itself before its first use.
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  nvfp4::registerAllDialects(registry);
}

void nvfp4::registerAllPasses() {
  nvfp4::registerNVFP4Passes();
  nvfp4::sm100::registerSM100Passes();
  nvfp4::registerNVFP4ConversionPasses();
  nvfp4::registerNVFP4PipelinePasses();
  nvfp4::registerSM100ToCubinPipeline();
  nvfp4::registerNVFP4ToLLVMPipeline();
}

llvm::ArrayRef<llvm::StringRef> nvfp4::passArguments() {
  static const llvm::StringRef names[] = {
      "nvfp4-lower-attention",       "nvfp4-lower-attention-merge",
      "nvfp4-lower-host",
      "nvfp4-lower-quantize",        "nvfp4-lower-scaled-matmul",
      "sm100-plan-tmem",             "sm100-lower-warp-roles",
      "convert-sm100-to-nvvm",       "nvfp4-extern-dynamic-shared-memory",
      "nvfp4-serialize-gpu-modules", "nvfp4-sm100-to-cubin",
      "nvfp4-to-llvm"};
  return names;
}
