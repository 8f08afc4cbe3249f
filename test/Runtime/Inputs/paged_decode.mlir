// A paged GQA decode (16-key pages, 3 sequences, 19 pages each of 60 in the
// cache) for test/Runtime/paged-bad-input.test.
func.func @paged(%q: tensor<3x1x16x128xbf16>, %k: tensor<60x16x2x128xbf16>, %v: tensor<60x16x2x128xbf16>, %s: tensor<16xf32>, %l: tensor<3xi32>, %bt: tensor<3x19xi32>) -> (tensor<3x1x16x128xbf16>, tensor<3x16x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v sink(%s) kv_lens(%l) block_table(%bt) softmax_scale(0.0883883476)
      : (tensor<3x1x16x128xbf16>, tensor<60x16x2x128xbf16>, tensor<60x16x2x128xbf16>, tensor<16xf32>, tensor<3xi32>, tensor<3x19xi32>) -> (tensor<3x1x16x128xbf16>, tensor<3x16x1xf32>)
  return %o, %lse : tensor<3x1x16x128xbf16>, tensor<3x16x1xf32>
}

