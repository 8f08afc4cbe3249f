// CTA pairs (cta_group::2, 256 x 256 tiles): M = 600 (three row tiles of
// 256, the last 88 deep, so its second CTA's rows are all past M), N = 520
// (a last N tile 8 wide), K = 1056 (5 K steps, the last 32 deep). By shape
// on 148 SMs this is single CTAs (9 pair tiles < 74 pairs); --cta-group=2
// or --num-sms=6 chooses pairs (test/Runtime/nvfp4-matmul.test).
func.func @mm_pair(%a: tensor<600x1056xf4E2M1FN>, %sfa: tensor<640x68xf8E4M3FN>, %gsa: tensor<f32>,
                   %b: tensor<520x1056xf4E2M1FN>, %sfb: tensor<640x68xf8E4M3FN>, %gsb: tensor<f32>) -> tensor<600x520xf32> {
  %d = nvfp4.scaled_matmul %a, %sfa, %gsa, %b, %sfb, %gsb
      : (tensor<600x1056xf4E2M1FN>, tensor<640x68xf8E4M3FN>, tensor<f32>,
         tensor<520x1056xf4E2M1FN>, tensor<640x68xf8E4M3FN>, tensor<f32>) -> tensor<600x520xf32>
  return %d : tensor<600x520xf32>
}
