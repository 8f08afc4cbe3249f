// One-shot bufferization of an nvfp4 op needs its kernel (docs/Host.md).

// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries"

func.func @no_kernel(%q: tensor<2x128x8x128xbf16>, %k: tensor<2x256x2x128xbf16>)
    -> (tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>) {
  // expected-error @+2 {{'nvfp4.attention' op has no kernel to launch: run nvfp4-lower-attention before bufferization}}
  // expected-error @+1 {{failed to bufferize op}}
  %o, %lse = nvfp4.attention %q, %k, %k softmax_scale(0.125)
      : (tensor<2x128x8x128xbf16>, tensor<2x256x2x128xbf16>,
         tensor<2x256x2x128xbf16>)
      -> (tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>)
  return %o, %lse : tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>
}

// -----

func.func @no_kernel_quantize(%x: tensor<128x64xbf16>, %gs: tensor<f32>)
    -> (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>) {
  // expected-error @+2 {{'nvfp4.quantize' op has no kernel to launch: run nvfp4-lower-quantize before bufferization}}
  // expected-error @+1 {{failed to bufferize op}}
  %d, %s = nvfp4.quantize %x scale(%gs) : (tensor<128x64xbf16>, tensor<f32>) -> (tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>)
  return %d, %s : tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>
}

// -----

// The kernel's harness must name the op's operands (a kernel built by a
// lowering that does not yet): the op and the kernel are named.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel attributes {nvfp4.harness = {reference = "attention"}} {
      gpu.return
    }
  }
  func.func @undescribed(%q: tensor<2x128x8x128xbf16>, %k: tensor<2x256x2x128xbf16>)
      -> (tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>) {
    // expected-error @+2 {{'nvfp4.attention' op cannot be bufferized yet: its kernel @m::@k does not name the op's operands and results (the nvfp4.harness entries 'operands' and 'results'); docs/Host.md lists the ops the host path supports}}
    // expected-error @+1 {{failed to bufferize op}}
    %o, %lse = nvfp4.attention %q, %k, %k softmax_scale(0.125) {nvfp4.kernel = @m::@k}
        : (tensor<2x128x8x128xbf16>, tensor<2x256x2x128xbf16>,
           tensor<2x256x2x128xbf16>)
        -> (tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>)
    return %o, %lse : tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>
  }
}

// -----

// The grouped matmul writes D only in its groups' rows: without outs(...)
// a new buffer would leave the others undefined.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel attributes {nvfp4.harness = {
        reference = "nvfp4_grouped_matmul_contiguous",
        operands = ["a", "sfa", "gsa", "b", "sfb", "gsb", "sizes"],
        results = ["d"]}} {
      gpu.return
    }
  }
  func.func @grouped_without_outs(%a: tensor<256x64xf4E2M1FN>, %sfa: tensor<256x4xf8E4M3FN>, %g: tensor<4xf32>, %b: tensor<4x64x64xf4E2M1FN>, %sfb: tensor<4x128x4xf8E4M3FN>, %n: tensor<4xi32>) -> tensor<256x64xf32> {
    // expected-error @+2 {{'nvfp4.grouped_scaled_matmul' op needs outs(%init) to bufferize: its kernel writes D only in the groups' rows, so a new buffer would leave the others undefined}}
    // expected-error @+1 {{failed to bufferize op}}
    %d = nvfp4.grouped_scaled_matmul %a, %sfa, %g, %b, %sfb, %g, %n {nvfp4.kernel = @m::@k} : (tensor<256x64xf4E2M1FN>, tensor<256x4xf8E4M3FN>, tensor<4xf32>, tensor<4x64x64xf4E2M1FN>, tensor<4x128x4xf8E4M3FN>, tensor<4xf32>, tensor<4xi32>) -> tensor<256x64xf32>
    return %d : tensor<256x64xf32>
  }
}
