//===- SM100ToNVVM.h - sm100 to nvvm conversion -----------------*- C++ -*-===//

#ifndef NVFP4_CONVERSION_SM100TONVVM_SM100TONVVM_H
#define NVFP4_CONVERSION_SM100TONVVM_SM100TONVVM_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;
} // namespace mlir

namespace nvfp4 {
#define GEN_PASS_DECL_CONVERTSM100TONVVM
#include "nvfp4/Conversion/Passes.h.inc"

/// Adds the conversion of `!sm100.tmem` to `!llvm.ptr<6>` to `converter`.
void populateSM100TypeConversions(mlir::LLVMTypeConverter &converter);

/// Patterns lowering sm100 ops (after sm100-lower-warp-roles) to nvvm/llvm.
void populateSM100ToNVVMConversionPatterns(
    const mlir::LLVMTypeConverter &converter,
    mlir::RewritePatternSet &patterns);
} // namespace nvfp4

#endif // NVFP4_CONVERSION_SM100TONVVM_SM100TONVVM_H
