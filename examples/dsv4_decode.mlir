// DeepSeek-V4-Pro decode attention (shared/reference/dsv4-attention.md):
// 4 sequences, one new token each, 128 query heads over a single KV head
// (MQA), head dim 512 with K = V (the compressed latent is both), a learned
// sink per head, per-sequence KV lengths up to 4096 keys.
//
// The lowering (docs/AttentionLowering.md) balances the keys of all four
// sequences over the 74 CTA pairs of a 148-SM B200 (split-KV, the plan
// computed from kv_lens on the device; a combine kernel merges the pieces
// of split sequences). Each pair splits D and Dv: each CTA loads its 256
// columns of Q and of every 128-key K (= V) tile, computes its part of
// S = Q K^T, adds the peer's part through distributed shared memory, and
// computes O for its 256 columns (128 x 512 f32 would fill one CTA's tensor
// memory), with two K stages and two S buffers. scripts/demo.sh compiles
// it and checks it on the emulator:
//
//   build/bin/nvfp4-run --backend=emulator examples/dsv4_decode.mlir
//   build/bin/nvfp4-opt examples/dsv4_decode.mlir \
//       --nvfp4-sm100-to-cubin="ptx-file=dsv4.ptx cubin-file=dsv4.cubin"
func.func @dsv4_decode(%q: tensor<4x1x128x512xbf16>,
                       %kv: tensor<4x4096x1x512xbf16>,
                       %sink: tensor<128xf32>, %lens: tensor<4xi32>)
    -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv sink(%sink) kv_lens(%lens)
      softmax_scale(0.0441941738)
      : (tensor<4x1x128x512xbf16>, tensor<4x4096x1x512xbf16>,
         tensor<4x4096x1x512xbf16>, tensor<128xf32>, tensor<4xi32>)
      -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
  return %o, %lse : tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
}
