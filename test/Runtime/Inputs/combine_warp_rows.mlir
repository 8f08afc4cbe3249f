// Split units whose rows outnumber the SMs, D 256 (two 128-column slices):
// an MQA decode of 64 heads with a sink, B 2 x 1,024 keys. combine.test
// plans it over 4 SMs, so each unit is two pieces and the combine merges a
// row a warp, two rows a warp one after the other (8 rows a CTA, 32 CTAs).
func.func @wrows(%q: tensor<2x1x64x256xbf16>, %k: tensor<2x1024x1x256xbf16>,
                 %v: tensor<2x1024x1x256xbf16>, %s: tensor<64xf32>)
    -> (tensor<2x1x64x256xbf16>, tensor<2x64x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v sink(%s) softmax_scale(0.0625)
      : (tensor<2x1x64x256xbf16>, tensor<2x1024x1x256xbf16>,
         tensor<2x1024x1x256xbf16>, tensor<64xf32>)
      -> (tensor<2x1x64x256xbf16>, tensor<2x64x1xf32>)
  return %o, %lse : tensor<2x1x64x256xbf16>, tensor<2x64x1xf32>
}
