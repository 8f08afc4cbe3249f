//===- InitAll.h - register nvfp4 dialects and passes -----------*- C++ -*-===//

#ifndef NVFP4_INITALL_H
#define NVFP4_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace nvfp4 {
/// Adds the nvfp4 dialects (nvfp4, sm100) to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Registers every nvfp4 pass and the named pipelines.
void registerAllPasses();
} // namespace nvfp4

#endif // NVFP4_INITALL_H
