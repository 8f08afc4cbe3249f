//===- Passes.td - nvfp4 conversion passes -----------------*- tablegen -*-===//

#ifndef NVFP4_CONVERSION_PASSES_TD
#define NVFP4_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSM100ToNVVM : Pass<"convert-sm100-to-nvvm"> {
  let summary = "convert sm100 operations to the nvvm and llvm dialects";
  let description = [{
    Lowers the sm100 tensor-memory, UMMA and commit operations to upstream
    `nvvm.tcgen05.*` and `llvm` operations: `!sm100.tmem` becomes
    `!llvm.ptr<6>`, descriptors are computed from their attributes by the
    encoder library (only the start address is combined at run time), and
    the lane quadrant of a warp is `32 * ((tid.x / 32) % 4)`.
    Run `sm100-lower-warp-roles` first; other dialects are left alone (the
    conversion is partial), and unrealized casts between memref / nvgpu
    types and their LLVM forms are reconciled after the upstream
    conversions run.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

#endif // NVFP4_CONVERSION_PASSES_TD
