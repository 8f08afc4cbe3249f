// Round trip of nvfp4.launch (the buffer form of a lowered nvfp4 op,
// docs/Host.md) in the custom and the generic form, with and without
// inputs.

// RUN: nvfp4-opt %s | nvfp4-opt | FileCheck %s
// RUN: nvfp4-opt %s --mlir-print-op-generic | nvfp4-opt | FileCheck %s

gpu.module @m {
  gpu.func @k() kernel attributes {nvfp4.harness = {operands = ["q", "k", "v"], results = ["o", "lse"]}} {
    gpu.return
  }
  gpu.func @fill() kernel attributes {nvfp4.harness = {operands = [], results = ["o"]}} {
    gpu.return
  }
}

// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.+]]: memref<2x16x8x64xbf16>, %[[KV:.+]]: memref<2x64x2x64xbf16>, %[[O:.+]]: memref<2x16x8x64xbf16>, %[[L:.+]]: memref<2x8x16xf32>)
// CHECK: nvfp4.launch @m::@k ins(%[[Q]], %[[KV]], %[[KV]] : memref<2x16x8x64xbf16>, memref<2x64x2x64xbf16>, memref<2x64x2x64xbf16>) outs(%[[O]], %[[L]] : memref<2x16x8x64xbf16>, memref<2x8x16xf32>)
func.func @attention(%q: memref<2x16x8x64xbf16>, %kv: memref<2x64x2x64xbf16>,
                     %o: memref<2x16x8x64xbf16>, %lse: memref<2x8x16xf32>) {
  nvfp4.launch @m::@k ins(%q, %kv, %kv : memref<2x16x8x64xbf16>, memref<2x64x2x64xbf16>, memref<2x64x2x64xbf16>)
      outs(%o, %lse : memref<2x16x8x64xbf16>, memref<2x8x16xf32>)
  return
}

// CHECK-LABEL: func.func @no_inputs
// CHECK: nvfp4.launch @m::@fill outs(%{{.+}} : memref<4xf32>)
func.func @no_inputs(%o: memref<4xf32>) {
  nvfp4.launch @m::@fill outs(%o : memref<4xf32>)
  return
}
