// RUN: nvfp4-opt %s -nvfp4-lower-quantize -nvfp4-lower-scaled-matmul -split-input-file -verify-diagnostics

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

// -----

func.func @matmul_k16(%a: tensor<128x48xf4E2M1FN>, %sfa: tensor<128x4xf8E4M3FN>, %g: tensor<f32>, %b: tensor<64x48xf4E2M1FN>, %sfb: tensor<128x4xf8E4M3FN>) {
  // expected-error @+1 {{'nvfp4.scaled_matmul' op cannot be lowered: expected K to be a multiple of 32 (TMA needs rows of a multiple of 16 bytes of packed e2m1), got 48}}
  %d = nvfp4.scaled_matmul %a, %sfa, %g, %b, %sfb, %g : (tensor<128x48xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>, tensor<64x48xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<128x64xf32>
  return
}

// -----

func.func @matmul_dynamic(%a: tensor<?x64xf4E2M1FN>, %sfa: tensor<?x4xf8E4M3FN>, %g: tensor<f32>, %b: tensor<64x64xf4E2M1FN>, %sfb: tensor<128x4xf8E4M3FN>) {
  // expected-error @+1 {{'nvfp4.scaled_matmul' op cannot be lowered yet: expected static shapes, got 'tensor<?x64xf4E2M1FN>'}}
  %d = nvfp4.scaled_matmul %a, %sfa, %g, %b, %sfb, %g : (tensor<?x64xf4E2M1FN>, tensor<?x4xf8E4M3FN>, tensor<f32>, tensor<64x64xf4E2M1FN>, tensor<128x4xf8E4M3FN>, tensor<f32>) -> tensor<?x64xf32>
  return
}
