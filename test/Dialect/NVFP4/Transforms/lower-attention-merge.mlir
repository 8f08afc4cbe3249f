// RUN: nvfp4-opt %s --nvfp4-lower-attention-merge -split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-lower-attention-merge --nvfp4-lower-attention-merge -split-input-file | FileCheck %s --check-prefix=TWICE

// The merge kernel: one warp per (sequence, query, head) row, 16 rows a
// CTA; the sink once in the denominator; lanes over column pairs of Dv.

// CHECK-LABEL: func.func @dsv4_branches
// CHECK: nvfp4.attention_merge {{.*}} {nvfp4.kernel = @dsv4_branches_merge::@dsv4_branches_merge}
// CHECK: gpu.module @dsv4_branches_merge
// CHECK: gpu.func @dsv4_branches_merge(%{{.*}}: memref<4x1x128x512xbf16>, %{{.*}}: memref<4x128x1xf32>, %{{.*}}: memref<4x1x128x512xbf16>, %{{.*}}: memref<4x128x1xf32>, %{{.*}}: memref<128xf32>, %{{.*}}: memref<4x1x128x512xbf16>, %{{.*}}: memref<4x128x1xf32>) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: nvfp4.harness = {args = [{buffer = "o1"}, {buffer = "lse1"}, {buffer = "o2"}, {buffer = "lse2"}, {buffer = "sink"}, {buffer = "o"}, {buffer = "lse"}], block = array<i32: 128, 1, 1>, grid = array<i32: 32, 1, 1>, operands = ["o1", "lse1", "o2", "lse2", "sink"], reference = "attention_merge", results = ["o", "lse"], sizes = {b = 4 : i64, dv = 512 : i64, hq = 128 : i64, sq = 1 : i64}
// The sink in base 2 starts the max. Two parts, a fixed count: the
// merge's passes are unrolled (emitRowMerge), no loop.
// CHECK: memref.load %{{.*}} : memref<128xf32>
// CHECK-NOT: iter_args
// CHECK: arith.maximumf
// CHECK: arith.maximumf
// CHECK-NOT: iter_args
// CHECK: lg2.approx.ftz.f32
// CHECK: memref.store %{{.*}} : memref<4x128x1xf32>
// Eight column pairs per lane (512 / 64), for each of the two parts.
// CHECK-COUNT-16: vector.fma %{{.*}} : vector<2xf32>
// CHECK-NOT: vector.fma
// CHECK-COUNT-8: vector.store %{{.*}} : memref<4x1x128x512xbf16>, vector<2xbf16>

// Running the pass again builds nothing new.
// TWICE: gpu.module @dsv4_branches_merge
// TWICE-NOT: gpu.module @dsv4_branches_merge
func.func @dsv4_branches(%o1: tensor<4x1x128x512xbf16>, %l1: tensor<4x128x1xf32>,
                         %o2: tensor<4x1x128x512xbf16>, %l2: tensor<4x128x1xf32>,
                         %s: tensor<128xf32>)
    -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>) {
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2 sink(%s)
      : (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>,
         tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>, tensor<128xf32>)
      -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
  return %o, %lse : tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
}

// -----

// Without a sink, f32 parts into f16, Dv = 96: one column per lane and
// load (96 is not a multiple of 64), three per lane.

// CHECK-LABEL: func.func @f32_parts
// CHECK: gpu.func @f32_parts_merge(%{{.*}}: memref<2x3x8x96xf32>, %{{.*}}: memref<2x8x3xf32>, %{{.*}}: memref<2x3x8x96xf32>, %{{.*}}: memref<2x8x3xf32>, %{{.*}}: memref<2x3x8x96xf16>, %{{.*}}: memref<2x8x3xf32>) kernel
// CHECK-SAME: absent = ["sink"]
// CHECK-SAME: grid = array<i32: 3, 1, 1>
// CHECK-COUNT-3: vector.fma %{{.*}} : vector<1xf32>
// CHECK-COUNT-3: vector.store %{{.*}} : memref<2x3x8x96xf16>, vector<1xf16>
func.func @f32_parts(%o1: tensor<2x3x8x96xf32>, %l1: tensor<2x8x3xf32>,
                     %o2: tensor<2x3x8x96xf32>, %l2: tensor<2x8x3xf32>)
    -> (tensor<2x3x8x96xf16>, tensor<2x8x3xf32>) {
  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2
      : (tensor<2x3x8x96xf32>, tensor<2x8x3xf32>, tensor<2x3x8x96xf32>,
         tensor<2x8x3xf32>)
      -> (tensor<2x3x8x96xf16>, tensor<2x8x3xf32>)
  return %o, %lse : tensor<2x3x8x96xf16>, tensor<2x8x3xf32>
}
