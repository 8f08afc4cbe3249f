// DeepSeek-V4-Pro decode attention (a CSA layer, as
// examples/dsv4_pro_csa_layer.mlir) with O returned as NVFP4 for the
// output projection's block-scaled GEMM (docs/NVFP4.md, "NVFP4 attention
// output"):
//
//   - 8 sequences x 2 tokens (MTP), 128 query heads over one KV head of
//     512, the fp8 MODEL1 sliding-window cache (128-slot window lists)
//     plus the top-1024 of the 4x-compressed cache, one softmax with the
//     sink;
//   - `o_scale(%gs)`: O is quantized from the f32 accumulator where it is
//     normalised (the attention epilogue, or the combine kernel of a
//     split-KV unit), engines' fast recipe: e2m1 values two per byte, one
//     e4m3 scale per 16 values of a head;
//   - the third result is O's scale factors in the swizzled 128x4 layout
//     over rows = tokens (b * 2 + query, 16 of them, padded to 128) and
//     columns = 128 heads * 512 / 16 = 4096: what nvfp4.scaled_matmul reads
//     as A after `tensor.collapse_shape %o [[0, 1], [2, 3]]` to
//     [16, 65536] (K = Hq * Dv).
//
// DeepSeek-V4 applies an inverse RoPE to each head's last 64 output values
// before its grouped `wo_a`; this op does not (docs/NVFP4.md, "Known
// gaps"), so the example shows the fused quantization, not yet that layer's
// exact O.
//
//   build/bin/nvfp4-run --backend=emulator examples/dsv4_decode_nvfp4_out.mlir
func.func @dsv4_decode_nvfp4_out(
    %q: tensor<8x2x128x512xbf16>,
    %swa: tensor<40x37440xi8>, %sink: tensor<128xf32>,
    %swa_lens: tensor<8xi32>, %swa_idx: tensor<8x2x128xi32>,
    %comp: tensor<40x149760xi8>, %comp_idx: tensor<8x2x1024xi32>,
    %comp_lens: tensor<8xi32>, %o_gs: tensor<f32>)
    -> (tensor<8x2x128x512xf4E2M1FN>, tensor<8x128x2xf32>,
        tensor<128x4096xf8E4M3FN>) {
  %o, %lse, %o_sf = nvfp4.attention %q, %swa, %swa sink(%sink)
      kv_lens(%swa_lens) indices(%swa_idx)
      kv_cache(<"deepseek_v4_fp8", page_size = 64>)
      extra(%comp, %comp_idx) extra_lens(%comp_lens)
      extra_kv_cache(<"deepseek_v4_fp8", page_size = 256>)
      o_scale(%o_gs) softmax_scale(0.0441941738)
      : (tensor<8x2x128x512xbf16>, tensor<40x37440xi8>, tensor<40x37440xi8>,
         tensor<128xf32>, tensor<8xi32>, tensor<8x2x128xi32>,
         tensor<40x149760xi8>, tensor<8x2x1024xi32>, tensor<8xi32>,
         tensor<f32>)
      -> (tensor<8x2x128x512xf4E2M1FN>, tensor<8x128x2xf32>,
          tensor<128x4096xf8E4M3FN>)
  return %o, %lse, %o_sf : tensor<8x2x128x512xf4E2M1FN>, tensor<8x128x2xf32>,
      tensor<128x4096xf8E4M3FN>
}
