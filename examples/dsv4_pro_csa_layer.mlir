// DeepSeek-V4-Pro decode attention, a CSA layer, as one op
// (docs/Attention.md "Sparse top-k", "Quantized caches", "A second key
// set"; shared/reference/dsv4-kv-cache.md):
//
//   - 8 sequences, each decoding 2 tokens (MTP: each query its own index
//     rows), 128 query heads over one KV head, head dim 512 (448 e4m3 +
//     64 bf16 RoPE values; K = V = all 512);
//   - the sliding-window cache in DeepSeek-V4's fp8 MODEL1 layout (584
//     bytes per token, pages of 64 tokens as vLLM's SWA blocks), read
//     through each query's window list of 128 slots (`indices`) with its
//     own lengths (`kv_lens`: fewer than 128 early in a sequence);
//   - the 4x-compressed cache in the same layout, pages of 256 tokens,
//     read through the indexer's top-1024 slots of each query (`extra`,
//     with `extra_lens`: a short sequence has fewer compressed entries);
//   - one softmax over both key sets and the learned per-head sink; the
//     natural-log LSE with the sink included.
//
// nvfp4-lower-attention gathers four tokens per tcgen05-era TMA gather4,
// dequantizes the e4m3 values to bf16 in shared memory (warps 6-7), splits
// D and Dv over a CTA pair, and balances the keys of the 16 query rows
// over the 74 pairs of a B200 (split-KV with a combine kernel).
// scripts/demo.sh compiles it and checks it on the emulator against
// float64 on the dequantized caches:
//
//   build/bin/nvfp4-run --backend=emulator examples/dsv4_pro_csa_layer.mlir
func.func @dsv4_pro_csa_layer(
    %q: tensor<8x2x128x512xbf16>,
    %swa: tensor<40x37440xi8>, %sink: tensor<128xf32>,
    %swa_lens: tensor<8xi32>, %swa_idx: tensor<8x2x128xi32>,
    %comp: tensor<40x149760xi8>, %comp_idx: tensor<8x2x1024xi32>,
    %comp_lens: tensor<8xi32>)
    -> (tensor<8x2x128x512xbf16>, tensor<8x128x2xf32>) {
  %o, %lse = nvfp4.attention %q, %swa, %swa sink(%sink) kv_lens(%swa_lens)
      indices(%swa_idx) kv_cache(<"deepseek_v4_fp8", page_size = 64>)
      extra(%comp, %comp_idx) extra_lens(%comp_lens)
      extra_kv_cache(<"deepseek_v4_fp8", page_size = 256>)
      softmax_scale(0.0441941738)
      : (tensor<8x2x128x512xbf16>, tensor<40x37440xi8>, tensor<40x37440xi8>,
         tensor<128xf32>, tensor<8xi32>, tensor<8x2x128xi32>,
         tensor<40x149760xi8>, tensor<8x2x1024xi32>, tensor<8xi32>)
      -> (tensor<8x2x128x512xbf16>, tensor<8x128x2xf32>)
  return %o, %lse : tensor<8x2x128x512xbf16>, tensor<8x128x2xf32>
}
