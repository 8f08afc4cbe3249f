//===- BufferizableOpInterfaceImpl.h - nvfp4 ops in bufferization -*- C++ -*-===//
//
// One-shot bufferization of the nvfp4 ops whose kernel is built: each
// becomes an nvfp4.launch of its kernel on the buffers of its operands and on
// new buffers for its results (docs/Host.md).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define NVFP4_DIALECT_NVFP4_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace nvfp4 {
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);
} // namespace nvfp4

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
