// NVFP4 data through the host path (test/Host/nvfp4.test): quantize and
// dequantize alone (an f4E2M1FN result, an f4E2M1FN argument) and chained
// in one function (the packed data passed from one kernel to the next and
// returned). f4E2M1FN memrefs hold packed bytes, two e2m1 values a byte
// (docs/Host.md).
func.func @quantize(%x: tensor<128x256xbf16>, %gs: tensor<f32>)
    -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>) {
  %d, %s = nvfp4.quantize %x scale(%gs) : (tensor<128x256xbf16>,
      tensor<f32>) -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>)
  return %d, %s : tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>
}

func.func @dequantize(%d: tensor<128x256xf4E2M1FN>,
                      %s: tensor<128x16xf8E4M3FN>, %gs: tensor<f32>)
    -> tensor<128x256xbf16> {
  %y = nvfp4.dequantize %d, %s scale(%gs) : (tensor<128x256xf4E2M1FN>,
      tensor<128x16xf8E4M3FN>, tensor<f32>) -> tensor<128x256xbf16>
  return %y : tensor<128x256xbf16>
}

func.func @roundtrip(%x: tensor<128x256xbf16>, %gs: tensor<f32>)
    -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>,
        tensor<128x256xbf16>) {
  %d, %s = nvfp4.quantize %x scale(%gs) : (tensor<128x256xbf16>,
      tensor<f32>) -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>)
  %y = nvfp4.dequantize %d, %s scale(%gs) : (tensor<128x256xf4E2M1FN>,
      tensor<128x16xf8E4M3FN>, tensor<f32>) -> tensor<128x256xbf16>
  return %d, %s, %y : tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>,
      tensor<128x256xbf16>
}

// The packed data copied into the caller's buffer (a copy of f4E2M1FN
// memrefs: 16384 bytes here, not one a value).
func.func @quantize_into(%x: tensor<128x256xbf16>, %gs: tensor<f32>,
                         %into: tensor<128x256xf4E2M1FN>)
    -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>) {
  %d, %s = nvfp4.quantize %x scale(%gs) : (tensor<128x256xbf16>,
      tensor<f32>) -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>)
  %r = bufferization.materialize_in_destination %d in %into
      : (tensor<128x256xf4E2M1FN>, tensor<128x256xf4E2M1FN>)
      -> tensor<128x256xf4E2M1FN>
  return %r, %s : tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>
}
