// RUN: nvfp4-opt %s -nvfp4-lower-scaled-matmul="num-sms=6" | FileCheck %s
// RUN: nvfp4-opt %s -nvfp4-lower-scaled-matmul="cta-group=2" | FileCheck %s --check-prefix=FORCED
// RUN: nvfp4-opt %s -nvfp4-lower-scaled-matmul | FileCheck %s --check-prefix=SINGLE
// RUN: nvfp4-opt %s -nvfp4-lower-scaled-matmul="num-sms=6 cta-group=1" | FileCheck %s --check-prefix=SINGLE

// CTA pairs (docs/NVFP4.md, "CTA pairs"): on 6 SMs, 600 x 520 is 9 tiles
// of 256 x 256, three per pair, as much MMA work for the busiest SM as 15
// single-CTA tiles of 128 x 256 on 6 SMs, for fewer bytes: the pair kernel, a
// cluster of 2, cta_group::2 allocation, each CTA's loads (A and B boxes
// of 128 rows, its A scale-factor tile, both B tiles) completing on the
// leader's full barrier (mapa to rank 0, .cta_group::2), which expects both
// CTAs' bytes (2 x 38912); the leader alone issues tcgen05.cp and the M =
// 256 MMAs with cta_group 2 and commits to both CTAs' barriers; acc_empty
// counts both CTAs' 256 epilogue threads, the peer's arriving through the
// cluster, the leader waiting with cluster-scope acquire. On 148 SMs the
// same GEMM is 1-CTA (9 pair tiles for 74 pairs: 45 tiles of 128 x 64
// finish four times sooner).

// CHECK-LABEL: gpu.func @mm_matmul
// CHECK-SAME: cluster = array<i32: 2, 1, 1>
// CHECK-SAME: grid = array<i32: 6, 1, 1>
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: nvgpu.mbarrier.init %{{.+}}[%{{.+}}], %c256
// CHECK: sm100.tmem_alloc %{{.+}}, 512 cta_group 2
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.cluster.arrive
// CHECK: nvvm.cluster.wait
// CHECK: sm100.role "epilogue"
// CHECK: sm100.tmem_load
// CHECK: mapa.shared::cluster.u32 ra, $0, $1; mbarrier.arrive.release.cluster.shared::cluster.b64
// CHECK: sm100.role "load"
// CHECK: nvgpu.mbarrier.arrive.expect_tx %{{.+}}[%{{.+}}], %c77824
// CHECK: "mapa.shared::cluster.u32 $0, $1, $2;"
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {group = #nvvm.cta_group<cta_2>
// CHECK: sm100.role "mma"
// CHECK: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64
// CHECK: sm100.tmem_copy shape_32x128b_warpx4 %{{.+}}, %{{.+}} {cta_group = 2 : i64}
// CHECK: sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 256, n = 256, cta_group = 2, scale_type = ue4m3>
// CHECK: sm100.commit %{{.+}}[%{{.+}}] multicast %{{.+}} cta_group 2
// CHECK: sm100.commit %{{.+}}[%{{.+}}] multicast %{{.+}} cta_group 2
// CHECK: nvvm.cluster.arrive
// CHECK: nvvm.cluster.wait
// CHECK: sm100.tmem_dealloc %{{.+}}, 512 cta_group 2

// FORCED: cluster = array<i32: 2, 1, 1>
// FORCED-SAME: grid = array<i32: 18, 1, 1>

// SINGLE-NOT: cluster
// SINGLE: sm100.tmem_alloc %{{.+}}, {{[0-9]+}}
// SINGLE-NOT: cta_group 2
func.func @mm(%a: tensor<600x1056xf4E2M1FN>, %sfa: tensor<640x68xf8E4M3FN>, %gsa: tensor<f32>,
              %b: tensor<520x1056xf4E2M1FN>, %sfb: tensor<640x68xf8E4M3FN>, %gsb: tensor<f32>) -> tensor<600x520xf32> {
  %d = nvfp4.scaled_matmul %a, %sfa, %gsa, %b, %sfb, %gsb
      : (tensor<600x1056xf4E2M1FN>, tensor<640x68xf8E4M3FN>, tensor<f32>,
         tensor<520x1056xf4E2M1FN>, tensor<640x68xf8E4M3FN>, tensor<f32>) -> tensor<600x520xf32>
  return %d : tensor<600x520xf32>
}
