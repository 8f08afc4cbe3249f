// One sequence, 8 query heads on one KV head, D 64, 300 keys, whole units
// (one CTA): cta-stats.test counts its MMAs per CTA.
func.func @gqa(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x300x1x64xbf16>,
               %v: tensor<1x300x1x64xbf16>)
    -> (tensor<1x1x8x64xbf16>, tensor<1x8x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125) num_splits(1)
      : (tensor<1x1x8x64xbf16>, tensor<1x300x1x64xbf16>, tensor<1x300x1x64xbf16>)
      -> (tensor<1x1x8x64xbf16>, tensor<1x8x1xf32>)
  return %o, %lse : tensor<1x1x8x64xbf16>, tensor<1x8x1xf32>
}
