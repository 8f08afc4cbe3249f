//===- Passes.h - nvfp4 transformation passes -------------------*- C++ -*-===//

#ifndef NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_H
#define NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "nvfp4/Dialect/SM100/IR/SM100Dialect.h"
#include "nvfp4/Support/SplitKvPlan.h"

namespace nvfp4 {
#define GEN_PASS_DECL
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_H
