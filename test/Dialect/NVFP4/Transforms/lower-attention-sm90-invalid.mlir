// RUN: nvfp4-opt %s --nvfp4-lower-attention="chip=sm_90a" -split-input-file -verify-diagnostics

// What the sm_90a kernel does not take (docs/Hopper.md), once each: the
// pass names it at the op and fails instead of building an SM100 kernel
// or a wrong one.

func.func @nvfp4_out(%q: tensor<1x1x8x64xbf16>, %k: tensor<1x128x1x64xbf16>, %v: tensor<1x128x1x64xbf16>, %gs: tensor<f32>) -> (tensor<1x1x8x64xf4E2M1FN>, tensor<1x8x1xf32>, tensor<128x32xf8E4M3FN>) {
  // expected-error @below {{cannot be lowered for sm_90a: an NVFP4 O (o_scale) needs sm_100a's e2m1 conversion (cvt.rn.satfinite.e2m1x2.f32)}}
  %o, %lse, %sf = nvfp4.attention %q, %k, %v o_scale(%gs) softmax_scale(0.125)
      : (tensor<1x1x8x64xbf16>, tensor<1x128x1x64xbf16>, tensor<1x128x1x64xbf16>, tensor<f32>) -> (tensor<1x1x8x64xf4E2M1FN>, tensor<1x8x1xf32>, tensor<128x32xf8E4M3FN>)
  return %o, %lse, %sf : tensor<1x1x8x64xf4E2M1FN>, tensor<1x8x1xf32>, tensor<128x32xf8E4M3FN>
}

// -----

func.func @one_stage(%q: tensor<1x1x16x512xbf16>, %k: tensor<1x300x1x512xbf16>, %v: tensor<1x300x1x512xbf16>) -> (tensor<1x1x16x512xbf16>, tensor<1x16x1xf32>) {
  // expected-error @below {{cannot be lowered for sm_90a: Q (65536 bytes), two K/V stages of 64 keys (131072 bytes each) and 8960 bytes of hand-over and key masks exceed the shared-memory budget of 230400 bytes (with D > 256, make V a prefix of K as MLA does)}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.0441941738)
      : (tensor<1x1x16x512xbf16>, tensor<1x300x1x512xbf16>, tensor<1x300x1x512xbf16>) -> (tensor<1x1x16x512xbf16>, tensor<1x16x1xf32>)
  return %o, %lse : tensor<1x1x16x512xbf16>, tensor<1x16x1xf32>
}

// -----

func.func @heads_96_dv_512(%q: tensor<1x1x96x512xbf16>, %k: tensor<1x300x1x512xbf16>) -> (tensor<1x1x96x512xbf16>, tensor<1x96x1xf32>) {
  // expected-error @below {{cannot be lowered for sm_90a yet: with Dv > 256 a CTA holds 64 rows, so the query heads per KV head must be at most 64 or a multiple of 64, got Hq / Hkv = 96}}
  %o, %lse = nvfp4.attention %q, %k, %k softmax_scale(0.0441941738)
      : (tensor<1x1x96x512xbf16>, tensor<1x300x1x512xbf16>, tensor<1x300x1x512xbf16>) -> (tensor<1x1x96x512xbf16>, tensor<1x96x1xf32>)
  return %o, %lse : tensor<1x1x96x512xbf16>, tensor<1x96x1xf32>
}
