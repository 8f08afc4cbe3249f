// RUN: nvfp4-opt %s --nvfp4-lower-attention -split-input-file | FileCheck %s

// An NVFP4 O (o_scale; docs/NVFP4.md, "NVFP4 attention output"). Whole
// units: the kernel takes O as e2m1 bytes [B, Sq, Hq, Dv / 2], the LSE,
// the flat swizzled scale factors and the encode scale; the epilogue loads
// the scale once, builds the fast recipe's constants (rcp(6), rcp(gs)) and
// for each 32-column chunk quantizes two blocks: e4m3 scale factors, e2m1
// codes with the odd element first, 16 code bytes in one store and the two
// adjacent scale factors in another. The harness names the reference
// attention_nvfp4_out with O's packed width and the scale factors' size.

// CHECK-LABEL: gpu.func @whole_attention
// CHECK-SAME: %{{.*}}: memref<3x2x16x64xi8>, %{{.*}}: memref<3x16x2xf32>, %{{.*}}: memref<16384xi8>, %[[GS:.*]]: memref<1xf32>
// CHECK-SAME: {buffer = "o"}, {buffer = "lse"}, {buffer = "o_sf"}, {buffer = "o_scale"}
// CHECK-SAME: reference = "attention_nvfp4_out"
// CHECK-SAME: sizes = {b = 3 : i64, d = 128 : i64, dv = 128 : i64, dvh = 64 : i64, hkv = 2 : i64, hq = 16 : i64, one = 1 : i64, sfn = 16384 : i64, skv = 450 : i64, sq = 2 : i64}
// CHECK-SAME: types = {k = "bf16", kv_lens = "i32", lse = "f32", o = "u8", o_scale = "f32", o_sf = "u8", q = "bf16", sink = "f32", v = "bf16"}
// CHECK: memref.load %[[GS]][%{{.*}}] : memref<1xf32>
// CHECK: nvvm.inline_ptx "rcp.approx.ftz.f32 $0, $1;"
// CHECK: nvvm.inline_ptx "rcp.approx.ftz.f32 $0, $1;"
// CHECK: sm100.tmem_load
// CHECK: arith.maximumf
// CHECK: nvvm.convert.f32x2.to.f8x2 {{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK-COUNT-8: nvvm.convert.f32x2.to.f4x2
// CHECK: nvvm.convert.f32x2.to.f8x2
// CHECK-COUNT-8: nvvm.convert.f32x2.to.f4x2
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<3x2x16x64xi8>, vector<16xi8>
// CHECK: vector.store %{{.*}} {alignment = 2 : i64} : memref<16384xi8>, vector<2xi8>
func.func @whole(%q: tensor<3x2x16x128xbf16>, %k: tensor<3x450x2x128xbf16>,
                 %v: tensor<3x450x2x128xbf16>, %s: tensor<16xf32>,
                 %l: tensor<3xi32>, %gs: tensor<f32>)
    -> (tensor<3x2x16x128xf4E2M1FN>, tensor<3x16x2xf32>,
        tensor<128x128xf8E4M3FN>) {
  %o, %lse, %sf = nvfp4.attention %q, %k, %v sink(%s) kv_lens(%l)
      o_scale(%gs) softmax_scale(0.0883883476) causal num_splits(1)
      : (tensor<3x2x16x128xbf16>, tensor<3x450x2x128xbf16>,
         tensor<3x450x2x128xbf16>, tensor<16xf32>, tensor<3xi32>, tensor<f32>)
      -> (tensor<3x2x16x128xf4E2M1FN>, tensor<3x16x2xf32>,
          tensor<128x128xf8E4M3FN>)
  return %o, %lse, %sf : tensor<3x2x16x128xf4E2M1FN>, tensor<3x16x2xf32>,
      tensor<128x128xf8E4M3FN>
}

// -----

// Split-KV: partial results stay f32; the combine kernel takes the same
// four outputs and quantizes as it merges: a block of 16 columns is 8
// lanes of 2 columns, so the block amax is a 3-step xor shuffle; each lane
// stores its code byte and the block's first lane the scale factor.

// CHECK-LABEL: gpu.func @split_attention_combine
// CHECK-SAME: (%[[O:.*]]: memref<3x2x16x64xi8>, %{{.*}}: memref<3x16x2xf32>, %[[SF:.*]]: memref<16384xi8>, %[[GS:.*]]: memref<1xf32>, %{{.*}}: memref<{{.*}}xf32>
// CHECK: memref.load %[[GS]]
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32
// CHECK: nvvm.convert.f32x2.to.f8x2
// CHECK: nvvm.convert.f32x2.to.f4x2
// CHECK: memref.store %{{.*}}, %[[O]][{{.*}}] : memref<3x2x16x64xi8>
// CHECK: memref.store %{{.*}}, %[[SF]][{{.*}}] : memref<16384xi8>
func.func @split(%q: tensor<3x2x16x128xbf16>, %k: tensor<3x450x2x128xbf16>,
                 %v: tensor<3x450x2x128xbf16>, %s: tensor<16xf32>,
                 %l: tensor<3xi32>, %gs: tensor<f32>)
    -> (tensor<3x2x16x128xf4E2M1FN>, tensor<3x16x2xf32>,
        tensor<128x128xf8E4M3FN>) {
  %o, %lse, %sf = nvfp4.attention %q, %k, %v sink(%s) kv_lens(%l)
      o_scale(%gs) softmax_scale(0.0883883476) causal num_splits(3)
      : (tensor<3x2x16x128xbf16>, tensor<3x450x2x128xbf16>,
         tensor<3x450x2x128xbf16>, tensor<16xf32>, tensor<3xi32>, tensor<f32>)
      -> (tensor<3x2x16x128xf4E2M1FN>, tensor<3x16x2xf32>,
          tensor<128x128xf8E4M3FN>)
  return %o, %lse, %sf : tensor<3x2x16x128xf4E2M1FN>, tensor<3x16x2xf32>,
      tensor<128x128xf8E4M3FN>
}
