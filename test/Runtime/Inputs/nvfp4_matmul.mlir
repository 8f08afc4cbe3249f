// nvfp4.scaled_matmul with M, N and K that are not multiples of the
// 128 x BN x 256 tile (test/Runtime/nvfp4-matmul.test): 2 row tiles (the
// second 72 rows deep), N = 300 (a partial last N tile), K = 2080 (9 K
// steps, the last 32 deep, more steps than ring stages).
func.func @mm_f32(%a: tensor<200x2080xf4E2M1FN>, %sfa: tensor<256x132xf8E4M3FN>, %gsa: tensor<f32>,
                  %b: tensor<300x2080xf4E2M1FN>, %sfb: tensor<384x132xf8E4M3FN>, %gsb: tensor<f32>) -> tensor<200x300xf32> {
  %d = nvfp4.scaled_matmul %a, %sfa, %gsa, %b, %sfb, %gsb
      : (tensor<200x2080xf4E2M1FN>, tensor<256x132xf8E4M3FN>, tensor<f32>,
         tensor<300x2080xf4E2M1FN>, tensor<384x132xf8E4M3FN>, tensor<f32>) -> tensor<200x300xf32>
  return %d : tensor<200x300xf32>
}

// bf16 output, N = 190 (rows of 380 bytes: not 16-byte aligned, so every
// element is stored on its own).
func.func @mm_bf16(%a: tensor<130x512xf4E2M1FN>, %sfa: tensor<256x32xf8E4M3FN>, %gsa: tensor<f32>,
                   %b: tensor<190x512xf4E2M1FN>, %sfb: tensor<256x32xf8E4M3FN>, %gsb: tensor<f32>) -> tensor<130x190xbf16> {
  %d = nvfp4.scaled_matmul %a, %sfa, %gsa, %b, %sfb, %gsb
      : (tensor<130x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<f32>,
         tensor<190x512xf4E2M1FN>, tensor<256x32xf8E4M3FN>, tensor<f32>) -> tensor<130x190xbf16>
  return %d : tensor<130x190xbf16>
}
