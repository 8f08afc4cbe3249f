//===- nvfp4-opt.cpp - The nvfp4 optimizer driver -------------------------===//
//
// An `mlir-opt` with the nvfp4 dialects and passes added: it parses a module,
// runs the passes or pipelines named on the command line and prints the
// result. It registers everything upstream as well (dialects, extensions,
// passes, and the NVVM target with the translations to LLVM IR), so that the
// whole path from `nvfp4` ops to PTX and cubin, including upstream
// `gpu-module-to-binary`, runs in this one tool and can stop after any step.
// Input nested deeper than nvfp4::kMaxInputNesting is rejected before it
// reaches MLIR's recursive parser (which would overflow the stack).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"
#include "nvfp4/Support/InputNesting.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  // Passes and pipelines go into the global registry that the command line
  // parser reads.
  mlir::registerAllPasses();
  nvfp4::registerAllPasses();

  mlir::DialectRegistry registry;
  nvfp4::registerCompilerDialects(registry);

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "nvfp4 optimizer driver (SM100 tensor-core lowering)\n",
      registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // What reads no input is upstream's.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, inputFilename, outputFilename, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(inputFilename, &error);
  if (!file) {
    llvm::errs() << "nvfp4-opt: " << error << "\n";
    return 1;
  }
  if (auto bad = nvfp4::findInputHazard(file->getBuffer())) {
    llvm::errs() << file->getBufferIdentifier() << ":" << bad->line << ":"
                 << bad->column << ": error: " << bad->message << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "nvfp4-opt: " << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(file), registry, config)))
    return 1;
  output->keep();
  return 0;
}
