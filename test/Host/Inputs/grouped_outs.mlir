// The grouped NVFP4 matmul (MoE experts, masked layout) in its `outs` form:
// D's rows outside the groups come from %d0, and the kernel writes the
// groups' rows into %d0's buffer (test/Host/grouped.test, docs/Host.md).
func.func @grouped(%a: tensor<4x40x256xf4E2M1FN>, %sfa: tensor<4x128x16xf8E4M3FN>,
                   %gsa: tensor<4xf32>, %b: tensor<4x200x256xf4E2M1FN>,
                   %sfb: tensor<4x256x16xf8E4M3FN>, %gsb: tensor<4xf32>,
                   %sizes: tensor<4xi32>, %d0: tensor<4x40x200xf32>)
    -> tensor<4x40x200xf32> {
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %gsa, %b, %sfb, %gsb, %sizes
      outs(%d0) {layout = #nvfp4.group_layout<masked>}
      : (tensor<4x40x256xf4E2M1FN>, tensor<4x128x16xf8E4M3FN>, tensor<4xf32>,
         tensor<4x200x256xf4E2M1FN>, tensor<4x256x16xf8E4M3FN>, tensor<4xf32>,
         tensor<4xi32>, tensor<4x40x200xf32>) -> tensor<4x40x200xf32>
  return %d : tensor<4x40x200xf32>
}
