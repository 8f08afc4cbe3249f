// Decode-sized dense nvfp4.scaled_matmul (test/Runtime/nvfp4-matmul.test):
// at most 64 rows of A, so the operands swap (docs/NVFP4.md, "Block-scaled
// matmul"): the MMA's 128 rows are B's (weights, 300 of them: 3 tiles, the
// last 44 deep) and its N the tokens (13 rounded up to 16; 40 to 48), D
// stored transposed. K = 2080: 9 K steps, the last 32 deep.
func.func @mm_decode13(%a: tensor<13x2080xf4E2M1FN>, %sfa: tensor<128x132xf8E4M3FN>, %gsa: tensor<f32>,
                       %b: tensor<300x2080xf4E2M1FN>, %sfb: tensor<384x132xf8E4M3FN>, %gsb: tensor<f32>) -> tensor<13x300xf32> {
  %d = nvfp4.scaled_matmul %a, %sfa, %gsa, %b, %sfb, %gsb
      : (tensor<13x2080xf4E2M1FN>, tensor<128x132xf8E4M3FN>, tensor<f32>,
         tensor<300x2080xf4E2M1FN>, tensor<384x132xf8E4M3FN>, tensor<f32>) -> tensor<13x300xf32>
  return %d : tensor<13x300xf32>
}

func.func @mm_decode40(%a: tensor<40x512xf4E2M1FN>, %sfa: tensor<128x32xf8E4M3FN>, %gsa: tensor<f32>,
                       %b: tensor<300x512xf4E2M1FN>, %sfb: tensor<384x32xf8E4M3FN>, %gsb: tensor<f32>) -> tensor<40x300xbf16> {
  %d = nvfp4.scaled_matmul %a, %sfa, %gsa, %b, %sfb, %gsb
      : (tensor<40x512xf4E2M1FN>, tensor<128x32xf8E4M3FN>, tensor<f32>,
         tensor<300x512xf4E2M1FN>, tensor<384x32xf8E4M3FN>, tensor<f32>) -> tensor<40x300xbf16>
  return %d : tensor<40x300xbf16>
}
