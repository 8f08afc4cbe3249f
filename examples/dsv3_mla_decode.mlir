// DeepSeek-V3-class absorbed-MLA decode (V3, R1, V3.2 dense, Kimi K2;
// shared/reference/dsv4-kv-cache.md): 32 sequences, one new token each,
// 128 query heads over one latent KV head of 576 columns (512 latent + 64
// RoPE), V = the first 512 columns of every K row (a slice of K: nothing is
// copied), a paged cache of 64-key pages (vLLM's and FlashMLA's MLA page)
// through a block table, per-sequence lengths up to 32K keys.
//
// The lowering (docs/AttentionLowering.md) balances all sequences' keys
// over the 74 CTA pairs of a 148-SM B200 (the plan from kv_lens, on the
// device), and each pair splits D as 320 + 256 columns (each CTA's V
// columns, plus the RoPE columns on the first) and Dv as 256 + 256, with
// 64-key tiles in two stages; a combine kernel merges the split sequences.
// The cache holds 2100 pages; the harness fills each sequence's block-table
// row from a shuffled permutation of them (pages repeat across sequences,
// as a shared prefix would; within one sequence they are distinct).
//
//   build/bin/nvfp4-opt examples/dsv3_mla_decode.mlir \
//       --nvfp4-sm100-to-cubin="ptx-file=mla.ptx cubin-file=mla.cubin"
//   build/bin/nvfp4-run --backend=emulator examples/dsv3_mla_decode.mlir
//
// The emulator run takes about 5 minutes on one core (0.5 M keys x 128
// heads, and the float64 reference over the same); CI compiles this file
// and runs test/Examples/Inputs/mla_decode_small.mlir, the same op at batch
// 4 (test/Examples/mla-decode.test).
func.func @dsv3_mla_decode(%q: tensor<32x1x128x576xbf16>,
                           %kv: tensor<2100x64x1x576xbf16>,
                           %lens: tensor<32xi32>,
                           %table: tensor<32x512xi32>)
    -> (tensor<32x1x128x512xbf16>, tensor<32x128x1xf32>) {
  %v = tensor.extract_slice %kv[0, 0, 0, 0] [2100, 64, 1, 512] [1, 1, 1, 1]
      : tensor<2100x64x1x576xbf16> to tensor<2100x64x1x512xbf16>
  %o, %lse = nvfp4.attention %q, %kv, %v kv_lens(%lens) block_table(%table)
      softmax_scale(0.0416666679)
      : (tensor<32x1x128x576xbf16>, tensor<2100x64x1x576xbf16>,
         tensor<2100x64x1x512xbf16>, tensor<32xi32>, tensor<32x512xi32>)
      -> (tensor<32x1x128x512xbf16>, tensor<32x128x1xf32>)
  return %o, %lse : tensor<32x1x128x512xbf16>, tensor<32x128x1xf32>
}
