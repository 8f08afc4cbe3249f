//===- InitAll.h - register nvfp4 dialects and passes -----------*- C++ -*-===//

#ifndef NVFP4_INITALL_H
#define NVFP4_INITALL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace nvfp4 {
/// Adds the nvfp4 dialects (nvfp4, sm100) to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Adds what a client needs to parse input and run the whole
/// nvfp4-sm100-to-cubin pipeline: every upstream dialect and extension, the
/// `#nvvm.target` interface and the translations to LLVM IR that
/// gpu-module-to-binary uses, and the nvfp4 dialects (nvfp4-opt, nvfp4-run
/// and the installed package's users call it).
void registerCompilerDialects(mlir::DialectRegistry &registry);
/// Registers every nvfp4 pass and the named pipelines.
void registerAllPasses();
/// The command-line names of what registerAllPasses registers, passes then
/// pipelines (NVFP4Plugin makes each an mlir-opt flag; a test checks the
/// list against nvfp4-opt --help).
llvm::ArrayRef<llvm::StringRef> passArguments();
} // namespace nvfp4

#endif // NVFP4_INITALL_H
