// nvfp4.attention with an NVFP4 O (o_scale; docs/NVFP4.md, "NVFP4 attention
// output"): GQA decode with MTP, 3 sequences x 2 queries, 16 query heads
// over 2 KV heads of 128, 450 keys (4 tiles), a sink, kv_lens and causal
// masking. @whole quantizes in the attention epilogue (num_splits(1));
// @split splits every sequence's keys in 3 and quantizes in the combine
// kernel.
func.func @whole(%q: tensor<3x2x16x128xbf16>, %k: tensor<3x450x2x128xbf16>,
                 %v: tensor<3x450x2x128xbf16>, %s: tensor<16xf32>,
                 %l: tensor<3xi32>, %gs: tensor<f32>)
    -> (tensor<3x2x16x128xf4E2M1FN>, tensor<3x16x2xf32>,
        tensor<128x128xf8E4M3FN>) {
  %o, %lse, %sf = nvfp4.attention %q, %k, %v sink(%s) kv_lens(%l)
      o_scale(%gs) softmax_scale(0.0883883476) causal num_splits(1)
      : (tensor<3x2x16x128xbf16>, tensor<3x450x2x128xbf16>,
         tensor<3x450x2x128xbf16>, tensor<16xf32>, tensor<3xi32>, tensor<f32>)
      -> (tensor<3x2x16x128xf4E2M1FN>, tensor<3x16x2xf32>,
          tensor<128x128xf8E4M3FN>)
  return %o, %lse, %sf : tensor<3x2x16x128xf4E2M1FN>, tensor<3x16x2xf32>,
      tensor<128x128xf8E4M3FN>
}

func.func @split(%q: tensor<3x2x16x128xbf16>, %k: tensor<3x450x2x128xbf16>,
                 %v: tensor<3x450x2x128xbf16>, %s: tensor<16xf32>,
                 %l: tensor<3xi32>, %gs: tensor<f32>)
    -> (tensor<3x2x16x128xf4E2M1FN>, tensor<3x16x2xf32>,
        tensor<128x128xf8E4M3FN>) {
  %o, %lse, %sf = nvfp4.attention %q, %k, %v sink(%s) kv_lens(%l)
      o_scale(%gs) softmax_scale(0.0883883476) causal num_splits(3)
      : (tensor<3x2x16x128xbf16>, tensor<3x450x2x128xbf16>,
         tensor<3x450x2x128xbf16>, tensor<16xf32>, tensor<3xi32>, tensor<f32>)
      -> (tensor<3x2x16x128xf4E2M1FN>, tensor<3x16x2xf32>,
          tensor<128x128xf8E4M3FN>)
  return %o, %lse, %sf : tensor<3x2x16x128xf4E2M1FN>, tensor<3x16x2xf32>,
      tensor<128x128xf8E4M3FN>
}
