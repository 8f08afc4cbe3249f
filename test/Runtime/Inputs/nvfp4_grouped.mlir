// nvfp4.grouped_scaled_matmul in both layouts (test/Runtime/nvfp4-grouped.test):
// uneven groups, empty ones included (rt::fillGroupSizes), N and K not
// multiples of the tile; D starts random and the rows no group owns must
// keep their values.

// Contiguous: 6 experts share 700 rows, each starting on a 128-row boundary.
func.func @contiguous(%a: tensor<700x512xf4E2M1FN>, %sfa: tensor<768x32xf8E4M3FN>, %gsa: tensor<6xf32>,
                      %b: tensor<6x200x512xf4E2M1FN>, %sfb: tensor<6x256x32xf8E4M3FN>, %gsb: tensor<6xf32>,
                      %sizes: tensor<6xi32>) -> tensor<700x200xf32> {
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %gsa, %b, %sfb, %gsb, %sizes
      : (tensor<700x512xf4E2M1FN>, tensor<768x32xf8E4M3FN>, tensor<6xf32>,
         tensor<6x200x512xf4E2M1FN>, tensor<6x256x32xf8E4M3FN>, tensor<6xf32>,
         tensor<6xi32>) -> tensor<700x200xf32>
  return %d : tensor<700x200xf32>
}

// Masked: 5 experts of at most 130 rows, bf16 output.
func.func @masked(%a: tensor<5x130x256xf4E2M1FN>, %sfa: tensor<5x256x16xf8E4M3FN>, %gsa: tensor<5xf32>,
                  %b: tensor<5x96x256xf4E2M1FN>, %sfb: tensor<5x128x16xf8E4M3FN>, %gsb: tensor<5xf32>,
                  %sizes: tensor<5xi32>) -> tensor<5x130x96xbf16> {
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %gsa, %b, %sfb, %gsb, %sizes {layout = #nvfp4.group_layout<masked>}
      : (tensor<5x130x256xf4E2M1FN>, tensor<5x256x16xf8E4M3FN>, tensor<5xf32>,
         tensor<5x96x256xf4E2M1FN>, tensor<5x128x16xf8E4M3FN>, tensor<5xf32>,
         tensor<5xi32>) -> tensor<5x130x96xbf16>
  return %d : tensor<5x130x96xbf16>
}

// Masked, decode-sized (max_m = 40 <= 64): the swapped schedule, weights
// as the MMA's A (128 of N's rows per tile, the second 72 deep) and the
// tokens as its B (N of the MMA = 48), D stored transposed.
func.func @masked_small(%a: tensor<4x40x256xf4E2M1FN>, %sfa: tensor<4x128x16xf8E4M3FN>, %gsa: tensor<4xf32>,
                        %b: tensor<4x200x256xf4E2M1FN>, %sfb: tensor<4x256x16xf8E4M3FN>, %gsb: tensor<4xf32>,
                        %sizes: tensor<4xi32>) -> tensor<4x40x200xf32> {
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %gsa, %b, %sfb, %gsb, %sizes {layout = #nvfp4.group_layout<masked>}
      : (tensor<4x40x256xf4E2M1FN>, tensor<4x128x16xf8E4M3FN>, tensor<4xf32>,
         tensor<4x200x256xf4E2M1FN>, tensor<4x256x16xf8E4M3FN>, tensor<4xf32>,
         tensor<4xi32>) -> tensor<4x40x200xf32>
  return %d : tensor<4x40x200xf32>
}
