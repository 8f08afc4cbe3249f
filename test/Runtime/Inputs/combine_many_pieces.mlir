// One long sequence cut into more pieces than the combine kernel has
// threads: an MQA decode of 16 heads, D 64, with a sink, 8,320 keys in 130
// blocks of 64; combine.test plans it over 132 SMs without the shortest
// piece, so the unit has 130 pieces (each combine thread reads two LSEs,
// each of its 8 groups 16-17 partial rows).
func.func @many(%q: tensor<1x1x16x64xbf16>, %k: tensor<1x8320x1x64xbf16>,
                %v: tensor<1x8320x1x64xbf16>, %s: tensor<16xf32>)
    -> (tensor<1x1x16x64xbf16>, tensor<1x16x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v sink(%s) softmax_scale(0.125)
      : (tensor<1x1x16x64xbf16>, tensor<1x8320x1x64xbf16>,
         tensor<1x8320x1x64xbf16>, tensor<16xf32>)
      -> (tensor<1x1x16x64xbf16>, tensor<1x16x1xf32>)
  return %o, %lse : tensor<1x1x16x64xbf16>, tensor<1x16x1xf32>
}
