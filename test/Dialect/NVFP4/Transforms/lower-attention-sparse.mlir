// RUN: nvfp4-opt %s --nvfp4-lower-attention | FileCheck %s

// Sparse top-k MTP decode (docs/AttentionLowering.md, "Sparse top-k"): one
// query's heads per CTA (its own index row), the cache viewed as a 2-D map
// of slot rows gathered four at a time, a key mask per stage after the
// stages, the sparse reference.

// CHECK-LABEL: gpu.func @sparse_attention
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<3x2x200xi32>,
// CHECK-SAME: {box = array<i64: 64, 1>, swizzle = "128B", tmap = "k", view = ["np*ps*hkv", "d"]}, {buffer = "indices"}
// CHECK-SAME: dynamic_smem = 133680
// CHECK-SAME: reference = "attention_sparse"
// CHECK-SAME: sizes = {b = 3 : i64, d = 128 : i64, dv = 128 : i64, hkv = 1 : i64, hq = 16 : i64, np = 16 : i64, ps = 64 : i64, skv = 200 : i64, sq = 2 : i64, topk = 200 : i64}
// CHECK-SAME: types = {indices = "i32",
// CHECK-SAME: queries_per_cta = 1 : i64, row_blocks = 2 : i64
// CHECK-SAME: smem_bytes = 133680
// The loader: the key mask, 16 keys (16 index loads) per iteration, each
// slot kept in shared memory, 16 mask bits stored at a time (an index that
// is neither -1 nor a slot traps); then the tile armed, then a loop over
// groups of four keys with one gather4 per 64 columns (two at D = 128).
// CHECK: sm100.role "load"
// CHECK-COUNT-16: memref.load %{{.*}} : memref<3x2x200xi32>
// CHECK: memref.store %{{.*}} : memref<8xi16, #gpu.address_space<workgroup>>
// CHECK: gpu.printf "nvfp4.attention: sequence %d, query %d: indices[%d, %d, %d] = %d is neither -1 nor a slot in [0, %d)\0A"
// CHECK: nvgpu.mbarrier.arrive.expect_tx
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {mode = #nvvm.tma_load_mode<tile_gather4>} : !llvm.ptr<7>, !llvm.ptr
func.func @sparse(%q: tensor<3x2x16x128xbf16>, %kv: tensor<16x64x1x128xbf16>,
                  %sink: tensor<16xf32>, %lens: tensor<3xi32>,
                  %idx: tensor<3x2x200xi32>)
    -> (tensor<3x2x16x128xbf16>, tensor<3x16x2xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv sink(%sink) kv_lens(%lens)
      indices(%idx) softmax_scale(0.0883883476)
      : (tensor<3x2x16x128xbf16>, tensor<16x64x1x128xbf16>,
         tensor<16x64x1x128xbf16>, tensor<16xf32>, tensor<3xi32>,
         tensor<3x2x200xi32>)
      -> (tensor<3x2x16x128xbf16>, tensor<3x16x2xf32>)
  return %o, %lse : tensor<3x2x16x128xbf16>, tensor<3x16x2xf32>
}
