//===- nvfp4-opt.cpp - The nvfp4 optimizer driver -------------------------===//
//
// An `mlir-opt` with the nvfp4 dialects and passes added: it parses a module,
// runs the passes or pipelines named on the command line and prints the
// result. It registers everything upstream as well (dialects, extensions,
// passes, and the NVVM target with the translations to LLVM IR), so that the
// whole path from `nvfp4` ops to PTX and cubin, including upstream
// `gpu-module-to-binary`, runs in this one tool and can stop after any step.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  // Passes and pipelines go into the global registry that the command line
  // parser reads.
  mlir::registerAllPasses();
  nvfp4::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // `gpu-module-to-binary` needs the `#nvvm.target` attribute interface and
  // the translations of builtin, llvm, gpu and nvvm ops to LLVM IR. The NVVM
  // target initialises the NVPTX backend itself before its first use.
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  nvfp4::registerAllDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "nvfp4 optimizer driver (SM100 tensor-core lowering)\n",
      registry));
}
