// Two nvfp4.attention_merge ops for test/Runtime/attention-merge.test: bf16
// parts with a sink (DeepSeek-V4: 16 heads, 2 queries), and f32 parts into
// f16 without a sink at Dv = 96. The harness fills the LSEs with -inf in
// about a quarter of the rows of each part, so rows where both, one or
// neither part is empty all occur.
func.func @merge(%o1: tensor<3x2x16x128xbf16>, %l1: tensor<3x16x2xf32>,
                 %o2: tensor<3x2x16x128xbf16>, %l2: tensor<3x16x2xf32>,
                 %sink: tensor<16xf32>)
    -> (tensor<3x2x16x128xbf16>, tensor<3x16x2xf32>) {
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2 sink(%sink)
      : (tensor<3x2x16x128xbf16>, tensor<3x16x2xf32>,
         tensor<3x2x16x128xbf16>, tensor<3x16x2xf32>, tensor<16xf32>)
      -> (tensor<3x2x16x128xbf16>, tensor<3x16x2xf32>)
  return %o, %lse : tensor<3x2x16x128xbf16>, tensor<3x16x2xf32>
}
func.func @merge_nosink(%o1: tensor<2x1x8x96xf32>, %l1: tensor<2x8x1xf32>,
                 %o2: tensor<2x1x8x96xf32>, %l2: tensor<2x8x1xf32>)
    -> (tensor<2x1x8x96xf16>, tensor<2x8x1xf32>) {
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2
      : (tensor<2x1x8x96xf32>, tensor<2x8x1xf32>,
         tensor<2x1x8x96xf32>, tensor<2x8x1xf32>)
      -> (tensor<2x1x8x96xf16>, tensor<2x8x1xf32>)
  return %o, %lse : tensor<2x1x8x96xf16>, tensor<2x8x1xf32>
}
