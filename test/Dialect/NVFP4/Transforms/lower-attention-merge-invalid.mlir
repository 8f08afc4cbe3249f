// RUN: nvfp4-opt %s --nvfp4-lower-attention-merge -split-input-file -verify-diagnostics

// Every constraint of the merge lowering, broken once.

func.func @dynamic(%o1: tensor<?x1x8x64xbf16>, %l1: tensor<?x8x1xf32>)
    -> (tensor<?x1x8x64xbf16>, tensor<?x8x1xf32>) {
  // expected-error @below {{cannot be lowered yet: expected static shapes, got 'tensor<?x1x8x64xbf16>'}}
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o1, %l1
      : (tensor<?x1x8x64xbf16>, tensor<?x8x1xf32>, tensor<?x1x8x64xbf16>, tensor<?x8x1xf32>)
      -> (tensor<?x1x8x64xbf16>, tensor<?x8x1xf32>)
  return %o, %lse : tensor<?x1x8x64xbf16>, tensor<?x8x1xf32>
}

// -----

func.func @dv_48(%o1: tensor<1x1x8x48xbf16>, %l1: tensor<1x8x1xf32>)
    -> (tensor<1x1x8x48xbf16>, tensor<1x8x1xf32>) {
  // expected-error @below {{cannot be lowered: expected Dv to be a multiple of 32 (the lanes of a warp), got 48}}
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o1, %l1
      : (tensor<1x1x8x48xbf16>, tensor<1x8x1xf32>, tensor<1x1x8x48xbf16>, tensor<1x8x1xf32>)
      -> (tensor<1x1x8x48xbf16>, tensor<1x8x1xf32>)
  return %o, %lse : tensor<1x1x8x48xbf16>, tensor<1x8x1xf32>
}

// -----

func.func @no_rows(%o1: tensor<0x1x8x64xbf16>, %l1: tensor<0x8x1xf32>)
    -> (tensor<0x1x8x64xbf16>, tensor<0x8x1xf32>) {
  // expected-error @below {{cannot be lowered: expected between 1 and 2^35 rows (B x Sq x Hq), got 0}}
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o1, %l1
      : (tensor<0x1x8x64xbf16>, tensor<0x8x1xf32>, tensor<0x1x8x64xbf16>, tensor<0x8x1xf32>)
      -> (tensor<0x1x8x64xbf16>, tensor<0x8x1xf32>)
  return %o, %lse : tensor<0x1x8x64xbf16>, tensor<0x8x1xf32>
}
