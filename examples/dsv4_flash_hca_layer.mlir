// DeepSeek-V4-Flash decode attention, an HCA layer, as one op: 64 query
// heads over one KV head of 512 (fp8 MODEL1 caches), 4 sequences decoding
// 2 tokens each (MTP). The sliding-window cache (pages of 64) through each
// query's 128-slot window list, and the 128x-compressed cache (pages of 64
// compressed entries) through the list of **every** compressed entry up to
// the query's position (HCA attends to all of them; the engine passes the
// list, as vLLM's C128A list does: up to 512 entries for 64K tokens), in
// one softmax with the sink.
//
//   build/bin/nvfp4-run --backend=emulator examples/dsv4_flash_hca_layer.mlir
func.func @dsv4_flash_hca_layer(
    %q: tensor<4x2x64x512xbf16>,
    %swa: tensor<20x37440xi8>, %sink: tensor<64xf32>,
    %swa_lens: tensor<4xi32>, %swa_idx: tensor<4x2x128xi32>,
    %comp: tensor<40x37440xi8>, %comp_idx: tensor<4x2x512xi32>,
    %comp_lens: tensor<4xi32>)
    -> (tensor<4x2x64x512xbf16>, tensor<4x64x2xf32>) {
  %o, %lse = nvfp4.attention %q, %swa, %swa sink(%sink) kv_lens(%swa_lens)
      indices(%swa_idx) kv_cache(<"deepseek_v4_fp8", page_size = 64>)
      extra(%comp, %comp_idx) extra_lens(%comp_lens)
      extra_kv_cache(<"deepseek_v4_fp8", page_size = 64>)
      softmax_scale(0.0441941738)
      : (tensor<4x2x64x512xbf16>, tensor<20x37440xi8>, tensor<20x37440xi8>,
         tensor<64xf32>, tensor<4xi32>, tensor<4x2x128xi32>,
         tensor<40x37440xi8>, tensor<4x2x512xi32>, tensor<4xi32>)
      -> (tensor<4x2x64x512xbf16>, tensor<4x64x2xf32>)
  return %o, %lse : tensor<4x2x64x512xbf16>, tensor<4x64x2xf32>
}
