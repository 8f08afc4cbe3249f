// A causal prefill whose static plan splits some units and not others:
// B 1 x 512 queries and keys, 2 heads, D 64 (8 units of 128 rows with 1-4
// tiles each). combine.test plans it over 6 SMs: the combine's grid covers
// only the split units, through a constant table.
func.func @pf(%q: tensor<1x512x2x64xbf16>, %k: tensor<1x512x2x64xbf16>,
              %v: tensor<1x512x2x64xbf16>)
    -> (tensor<1x512x2x64xbf16>, tensor<1x2x512xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125) causal
      : (tensor<1x512x2x64xbf16>, tensor<1x512x2x64xbf16>,
         tensor<1x512x2x64xbf16>)
      -> (tensor<1x512x2x64xbf16>, tensor<1x2x512xf32>)
  return %o, %lse : tensor<1x512x2x64xbf16>, tensor<1x2x512xf32>
}
