// nvfp4-lower-host refuses what it cannot launch, at the op, naming the
// tensor (docs/Host.md).

// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics \
// RUN:   --nvfp4-lower-attention \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --nvfp4-lower-host

// Function boundaries bufferized with the default (fully dynamic) layout:
// the kernel needs contiguous row-major buffers it can be sure of.
func.func @strided(%q: tensor<2x128x8x128xbf16>, %k: tensor<2x256x2x128xbf16>,
                   %v: tensor<2x256x2x128xbf16>)
    -> (tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>) {
  // expected-error @+1 {{'nvfp4.launch' op expects the buffer of 'q' to be contiguous and row-major (a static shape and the identity layout; bufferize function boundaries with function-boundary-type-conversion=identity-layout-map), found 'memref<2x128x8x128xbf16, strided<[?, ?, ?, ?], offset: ?>>'}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x128x8x128xbf16>, tensor<2x256x2x128xbf16>,
         tensor<2x256x2x128xbf16>)
      -> (tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>)
  return %o, %lse : tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>
}

// -----

// A hand-written nvfp4.launch on an unranked buffer: refused by the op.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%x: memref<4xf32>) kernel attributes {nvfp4.harness = {
        reference = "attention_merge", operands = ["o1"], results = ["o"],
        sizes = {b = 1 : i64, sq = 1 : i64, hq = 1 : i64, dv = 4 : i64},
        types = {o1 = "f32", lse1 = "f32", o2 = "f32", lse2 = "f32", o = "f32", lse = "f32"},
        absent = ["sink"], grid = array<i32: 1>, block = array<i32: 32>,
        args = [{buffer = "o1"}]}} {
      gpu.return
    }
  }
  func.func @unranked(%x: memref<*xf32>, %y: memref<4xf32>) {
    // expected-error @+1 {{'nvfp4.launch' op operand #0 must be variadic of memref of any type values, but got 'memref<*xf32>'}}
    nvfp4.launch @m::@k ins(%x : memref<*xf32>) outs(%y : memref<4xf32>)
    return
  }
}

