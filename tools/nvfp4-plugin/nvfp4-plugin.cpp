//===- nvfp4-plugin.cpp - nvfp4 dialects and passes as mlir-opt plugins ---===//
//
// Loads the nvfp4 dialects and passes into an `mlir-opt` built against the
// same MLIR shared library:
//
//   mlir-opt --load-dialect-plugin=lib/NVFP4Plugin.so ...   (dialects + passes)
//   mlir-opt --load-pass-plugin=lib/NVFP4Plugin.so ...      (passes only)
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

/// Entry point that `mlir-opt --load-dialect-plugin` looks up. It registers
/// the dialects and, since a dialect is of little use without them, the
/// passes and pipelines too.
extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NVFP4", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            nvfp4::registerAllDialects(*registry);
            nvfp4::registerAllPasses();
          }};
}

/// Entry point that `mlir-opt --load-pass-plugin` looks up.
extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NVFP4Passes", LLVM_VERSION_STRING,
          []() { nvfp4::registerAllPasses(); }};
}
