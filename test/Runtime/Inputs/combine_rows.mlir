// Split units whose rows outnumber the SMs: an MQA decode of 64 heads,
// D 128 (one 128-column slice), B 2 x 1,024 keys;
// combine.test plans it over 4 SMs, so each unit is two pieces and each
// combine CTA merges 4 rows one after the other (its shared memory reused
// from row to row).
func.func @rows(%q: tensor<2x1x64x128xbf16>, %k: tensor<2x1024x1x128xbf16>,
                %v: tensor<2x1024x1x128xbf16>)
    -> (tensor<2x1x64x128xbf16>, tensor<2x64x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.0883883476)
      : (tensor<2x1x64x128xbf16>, tensor<2x1024x1x128xbf16>,
         tensor<2x1024x1x128xbf16>)
      -> (tensor<2x1x64x128xbf16>, tensor<2x64x1xf32>)
  return %o, %lse : tensor<2x1x64x128xbf16>, tensor<2x64x1xf32>
}
