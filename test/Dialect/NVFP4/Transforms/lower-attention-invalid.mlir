// RUN: nvfp4-opt %s --nvfp4-lower-attention -split-input-file -verify-diagnostics

// Every constraint of chooseAttentionSchedule that no schedule meets yet,
// broken once each: the pass names it at the op and fails.

func.func @dynamic(%q: tensor<?x1x8x64xbf16>, %k: tensor<?x256x8x64xbf16>, %v: tensor<?x256x8x64xbf16>)
    -> (tensor<?x1x8x64xbf16>, tensor<?x8x1xf32>) {
  // expected-error @below {{cannot be lowered yet: expected static shapes, got q : 'tensor<?x1x8x64xbf16>' (dynamic B, Sq and Skv are not supported by the lowering)}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<?x1x8x64xbf16>, tensor<?x256x8x64xbf16>, tensor<?x256x8x64xbf16>)
      -> (tensor<?x1x8x64xbf16>, tensor<?x8x1xf32>)
  return %o, %lse : tensor<?x1x8x64xbf16>, tensor<?x8x1xf32>
}

// -----

func.func @too_many_heads_per_kv_head(%q: tensor<1x1x256x64xbf16>, %k: tensor<1x256x1x64xbf16>)
    -> (tensor<1x1x256x64xbf16>, tensor<1x256x1xf32>) {
  // expected-error @below {{cannot be lowered yet: expected at most 128 query heads per KV head (the MMA's M), got Hq / Hkv = 256}}
  %o, %lse = nvfp4.attention %q, %k, %k softmax_scale(0.125)
      : (tensor<1x1x256x64xbf16>, tensor<1x256x1x64xbf16>, tensor<1x256x1x64xbf16>)
      -> (tensor<1x1x256x64xbf16>, tensor<1x256x1xf32>)
  return %o, %lse : tensor<1x1x256x64xbf16>, tensor<1x256x1xf32>
}

// -----

func.func @rows_beyond_i32(%q: tensor<70000x1x1x64xbf16>, %k: tensor<70000x40000x1x64xbf16>)
    -> (tensor<70000x1x1x64xbf16>, tensor<70000x1x1xf32>) {
  // expected-error @below {{cannot be lowered: the K/V rows (2800000000) and B x Sq (70000) must fit in 32 bits (TMA coordinates)}}
  %o, %lse = nvfp4.attention %q, %k, %k softmax_scale(0.125)
      : (tensor<70000x1x1x64xbf16>, tensor<70000x40000x1x64xbf16>, tensor<70000x40000x1x64xbf16>)
      -> (tensor<70000x1x1x64xbf16>, tensor<70000x1x1xf32>)
  return %o, %lse : tensor<70000x1x1x64xbf16>, tensor<70000x1x1xf32>
}

// -----

func.func @no_pages(%q: tensor<1x1x1x64xbf16>, %k: tensor<0x64x1x64xbf16>, %t: tensor<1x4xi32>)
    -> (tensor<1x1x1x64xbf16>, tensor<1x1x1xf32>) {
  // expected-error @below {{cannot be lowered: expected at least one page in the cache, got 0}}
  %o, %lse = nvfp4.attention %q, %k, %k block_table(%t) softmax_scale(0.125)
      : (tensor<1x1x1x64xbf16>, tensor<0x64x1x64xbf16>, tensor<0x64x1x64xbf16>, tensor<1x4xi32>)
      -> (tensor<1x1x1x64xbf16>, tensor<1x1x1xf32>)
  return %o, %lse : tensor<1x1x1x64xbf16>, tensor<1x1x1xf32>
}

// -----

func.func @dynamic_block_table(%q: tensor<1x1x1x64xbf16>, %k: tensor<8x64x1x64xbf16>, %t: tensor<1x?xi32>)
    -> (tensor<1x1x1x64xbf16>, tensor<1x1x1xf32>) {
  // expected-error @below {{cannot be lowered yet: expected static shapes, got block_table : 'tensor<1x?xi32>' (dynamic B, Sq and Skv are not supported by the lowering)}}
  %o, %lse = nvfp4.attention %q, %k, %k block_table(%t) softmax_scale(0.125)
      : (tensor<1x1x1x64xbf16>, tensor<8x64x1x64xbf16>, tensor<8x64x1x64xbf16>, tensor<1x?xi32>)
      -> (tensor<1x1x1x64xbf16>, tensor<1x1x1xf32>)
  return %o, %lse : tensor<1x1x1x64xbf16>, tensor<1x1x1xf32>
}

// -----

func.func @head_dim_96(%q: tensor<1x1x8x96xbf16>, %k: tensor<1x256x8x96xbf16>)
    -> (tensor<1x1x8x96xbf16>, tensor<1x8x1xf32>) {
  // expected-error @below {{cannot be lowered: expected Q's head dim D to be a multiple of 64 and at most 576, got 96}}
  %o, %lse = nvfp4.attention %q, %k, %k softmax_scale(0.125)
      : (tensor<1x1x8x96xbf16>, tensor<1x256x8x96xbf16>, tensor<1x256x8x96xbf16>)
      -> (tensor<1x1x8x96xbf16>, tensor<1x8x1xf32>)
  return %o, %lse : tensor<1x1x8x96xbf16>, tensor<1x8x1xf32>
}

// -----

func.func @head_dim_640(%q: tensor<1x1x8x640xbf16>, %k: tensor<1x256x8x640xbf16>, %v: tensor<1x256x8x512xbf16>)
    -> (tensor<1x1x8x512xbf16>, tensor<1x8x1xf32>) {
  // expected-error @below {{cannot be lowered: expected Q's head dim D to be a multiple of 64 and at most 576, got 640}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<1x1x8x640xbf16>, tensor<1x256x8x640xbf16>, tensor<1x256x8x512xbf16>)
      -> (tensor<1x1x8x512xbf16>, tensor<1x8x1xf32>)
  return %o, %lse : tensor<1x1x8x512xbf16>, tensor<1x8x1xf32>
}

// -----

func.func @value_dim_320(%q: tensor<1x1x8x128xbf16>, %k: tensor<1x256x8x128xbf16>, %v: tensor<1x256x8x320xbf16>)
    -> (tensor<1x1x8x320xbf16>, tensor<1x8x1xf32>) {
  // expected-error @below {{cannot be lowered: expected V's head dim Dv to be a multiple of 64 up to 256, or 384 or 512 (split over two CTAs), got 320}}
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<1x1x8x128xbf16>, tensor<1x256x8x128xbf16>, tensor<1x256x8x320xbf16>)
      -> (tensor<1x1x8x320xbf16>, tensor<1x8x1xf32>)
  return %o, %lse : tensor<1x1x8x320xbf16>, tensor<1x8x1xf32>
}
