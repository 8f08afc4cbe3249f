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
