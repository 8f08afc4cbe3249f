// A small sparse top-k MTP decode (docs/Attention.md, "Sparse top-k"): 3
// sequences x 2 queries, 16 query heads over one KV head of 128, top-k 200
// slots of a cache of 16 pages x 64, a sink and top-k lengths.
func.func @sparse(%q: tensor<3x2x16x128xbf16>, %kv: tensor<16x64x1x128xbf16>,
                  %sink: tensor<16xf32>, %lens: tensor<3xi32>,
                  %idx: tensor<3x2x200xi32>)
    -> (tensor<3x2x16x128xbf16>, tensor<3x16x2xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv sink(%sink) kv_lens(%lens)
      indices(%idx) softmax_scale(0.0883883476)
      : (tensor<3x2x16x128xbf16>, tensor<16x64x1x128xbf16>,
         tensor<16x64x1x128xbf16>, tensor<16xf32>, tensor<3xi32>,
         tensor<3x2x200xi32>)
      -> (tensor<3x2x16x128xbf16>, tensor<3x16x2xf32>)
  return %o, %lse : tensor<3x2x16x128xbf16>, tensor<3x16x2xf32>
}
