// nvfp4.attention as a user writes it: DeepSeek-style sliding-window decode
// with grouped heads — 4 sequences, 1 new token each, 64 query heads over 4
// KV heads (16 per KV head), head dim 128, up to 1000 cached keys, a per-head
// sink, per-sequence lengths, causal with a window of 256. The lowering
// (docs/AttentionLowering.md) builds the kernel; nvfp4-run lowers, compiles,
// runs and checks it against float64:
//
//   build/bin/nvfp4-run --backend=emulator examples/attention_op.mlir
//   build/bin/nvfp4-opt examples/attention_op.mlir --nvfp4-lower-attention
//   build/bin/nvfp4-opt examples/attention_op.mlir \
//       --nvfp4-sm100-to-cubin="ptx-file=a.ptx cubin-file=a.cubin"
func.func @swa_decode(%q: tensor<4x1x64x128xbf16>,
                      %k: tensor<4x1000x4x128xbf16>,
                      %v: tensor<4x1000x4x128xbf16>,
                      %sink: tensor<64xf32>, %lens: tensor<4xi32>)
    -> (tensor<4x1x64x128xbf16>, tensor<4x64x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v sink(%sink) kv_lens(%lens)
      softmax_scale(0.0883883476) causal window(256)
      : (tensor<4x1x64x128xbf16>, tensor<4x1000x4x128xbf16>,
         tensor<4x1000x4x128xbf16>, tensor<64xf32>, tensor<4xi32>)
      -> (tensor<4x1x64x128xbf16>, tensor<4x64x1xf32>)
  return %o, %lse : tensor<4x1x64x128xbf16>, tensor<4x64x1xf32>
}
