// short_pieces.mlir with kv_lens (two sequences; nvfp4-run draws 1,024 and
// 1 keys), so that each CTA computes the plan: min-piece-keys.test.
func.func @short_lens(%q: tensor<2x1x8x64xbf16>, %k: tensor<2x1024x2x64xbf16>,
                      %v: tensor<2x1024x2x64xbf16>, %l: tensor<2xi32>)
    -> (tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v kv_lens(%l) softmax_scale(0.125)
      : (tensor<2x1x8x64xbf16>, tensor<2x1024x2x64xbf16>, tensor<2x1024x2x64xbf16>, tensor<2xi32>)
      -> (tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>)
  return %o, %lse : tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>
}
