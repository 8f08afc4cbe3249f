//===- Passes.h - sm100 transformation passes -------------------*- C++ -*-===//

#ifndef NVFP4_DIALECT_SM100_TRANSFORMS_PASSES_H
#define NVFP4_DIALECT_SM100_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace nvfp4::sm100 {
#define GEN_PASS_DECL
#include "nvfp4/Dialect/SM100/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nvfp4/Dialect/SM100/Transforms/Passes.h.inc"
} // namespace nvfp4::sm100

#endif // NVFP4_DIALECT_SM100_TRANSFORMS_PASSES_H
