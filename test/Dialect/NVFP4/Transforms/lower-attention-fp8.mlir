// RUN: nvfp4-opt %s --nvfp4-lower-attention | FileCheck %s

// A DeepSeek-V4 fp8 cache (docs/AttentionLowering.md, "Quantized caches"):
// the cache viewed as 576-byte rows through two byte maps (e4m3 bytes into
// a raw region, bf16 bytes swizzled into the K tile), the spare warps as
// the dequant role (raw_full -> e4m3 to bf16 -> fence.proxy.async ->
// kv_full counted by 64 threads), the layout's reference.

// CHECK-LABEL: gpu.func @v4_attention
// CHECK-SAME: memref<2x2x200xi32>, %{{.*}}: memref<16x65x576xi8>
// CHECK-SAME: {box = array<i64: 64, 1>, swizzle = "none", tmap = "kv", view = ["np*rpp", "rb"]}, {box = array<i64: 128, 1>, swizzle = "128B", tmap = "kv", view = ["np*rpp", "rb"]}, {buffer = "indices"}, {buffer = "kv"}
// CHECK-SAME: reference = "attention_sparse_deepseek_v4_fp8"
// CHECK-SAME: sizes = {b = 2 : i64, d = 512 : i64, dv = 512 : i64, hkv = 1 : i64, hq = 64 : i64, np = 16 : i64, ps = 64 : i64, rb = 576 : i64, rpp = 65 : i64, skv = 200 : i64, sq = 2 : i64, topk = 200 : i64}
// CHECK-SAME: types = {indices = "i32", kv = "u8", kv_lens = "i32", lse = "f32", o = "bf16", q = "bf16", sink = "f32"}
// CHECK-SAME: kv_tile = 64 : i64
// CHECK: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %c64
// CHECK: sm100.role "load"
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {mode = #nvvm.tma_load_mode<tile_gather4>}
// CHECK: sm100.role "dequant" warps[6, 8)
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>>, vector<8xi8>
// CHECK: nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<{{[0-9]+}}xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvgpu.mbarrier.arrive
func.func @v4(%q: tensor<2x2x64x512xbf16>, %kv: tensor<16x37440xi8>,
              %s: tensor<64xf32>, %l: tensor<2xi32>,
              %ix: tensor<2x2x200xi32>)
    -> (tensor<2x2x64x512xbf16>, tensor<2x64x2xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv sink(%s) kv_lens(%l) indices(%ix)
      kv_cache(<"deepseek_v4_fp8", page_size = 64>)
      softmax_scale(0.0441941738) num_splits(1)
      : (tensor<2x2x64x512xbf16>, tensor<16x37440xi8>, tensor<16x37440xi8>,
         tensor<64xf32>, tensor<2xi32>, tensor<2x2x200xi32>)
      -> (tensor<2x2x64x512xbf16>, tensor<2x64x2xf32>)
  return %o, %lse : tensor<2x2x64x512xbf16>, tensor<2x64x2xf32>
}
