// A small examples/dsv3_mla_decode.mlir for CI: the same op (128 heads,
// D = 576 with V = K's first 512 columns, a paged cache of 64-key pages),
// batch 4 and lengths up to 2048 keys (test/Examples/mla-decode.test).
func.func @dsv3_mla_decode(%q: tensor<4x1x128x576xbf16>,
                           %kv: tensor<140x64x1x576xbf16>,
                           %lens: tensor<4xi32>,
                           %table: tensor<4x32xi32>)
    -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>) {
  %v = tensor.extract_slice %kv[0, 0, 0, 0] [140, 64, 1, 512] [1, 1, 1, 1]
      : tensor<140x64x1x576xbf16> to tensor<140x64x1x512xbf16>
  %o, %lse = nvfp4.attention %q, %kv, %v kv_lens(%lens) block_table(%table)
      softmax_scale(0.0416666679)
      : (tensor<4x1x128x576xbf16>, tensor<140x64x1x576xbf16>,
         tensor<140x64x1x512xbf16>, tensor<4xi32>, tensor<4x32xi32>)
      -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
  return %o, %lse : tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
}
