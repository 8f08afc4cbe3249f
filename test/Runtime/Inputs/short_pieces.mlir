// A GQA decode with little work for many SMs (one sequence of 1,024 keys,
// 2 KV heads of 4 query heads each, D 64): 16 KV tiles of 128 keys in all.
// min-piece-keys.test plans it over 16 SMs with and without the shortest
// piece.
func.func @short(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x1024x2x64xbf16>,
                 %v: tensor<1x1024x2x64xbf16>)
    -> (tensor<1x1x8x64xbf16>, tensor<1x8x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<1x1x8x64xbf16>, tensor<1x1024x2x64xbf16>, tensor<1x1024x2x64xbf16>)
      -> (tensor<1x1x8x64xbf16>, tensor<1x8x1xf32>)
  return %o, %lse : tensor<1x1x8x64xbf16>, tensor<1x8x1xf32>
}
