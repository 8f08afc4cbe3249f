// RUN: nvfp4-opt %s -nvfp4-lower-quantize -split-input-file -verify-diagnostics

func.func @dynamic(%x: tensor<?x64xbf16>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.quantize' op cannot be lowered yet: expected static shapes, got 'tensor<?x64xbf16>'}}
  %q, %sf = nvfp4.quantize %x scale(%gs) : (tensor<?x64xbf16>, tensor<f32>) -> (tensor<?x64xf4E2M1FN>, tensor<?x4xf8E4M3FN>)
  return
}

// -----

func.func @empty(%q: tensor<0x64xf4E2M1FN>, %sf: tensor<0x4xf8E4M3FN>, %gs: tensor<f32>) {
  // expected-error @+1 {{'nvfp4.dequantize' op cannot be lowered: expected a non-empty tensor, got 'tensor<0x64xbf16>'}}
  %x = nvfp4.dequantize %q, %sf scale(%gs) : (tensor<0x64xf4E2M1FN>, tensor<0x4xf8E4M3FN>, tensor<f32>) -> tensor<0x64xbf16>
  return
}
