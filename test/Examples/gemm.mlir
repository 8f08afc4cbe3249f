// REQUIRES: ptxas
// The M = 128 GEMM example through the whole pipeline; ptxas must accept the
// PTX for sm_100a, and the PTX must hold the instructions the kernel needs.
//
// RUN: nvfp4-opt %nvfp4_src/examples/gemm.mlir --nvfp4-sm100-to-cubin="ptx-file=%t.ptx cubin-file=%t.cubin" -o %t.mlir
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.ptxas.cubin
// RUN: test -s %t.cubin
// RUN: FileCheck %s --check-prefix=BIN --input-file=%t.mlir

// CHECK: .target sm_100a
// Dynamic shared memory follows the static variables (not a 1-byte static).
// CHECK: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// CHECK: .entry gemm_m128_n256(
// CHECK: .maxnreg 128
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tmem_slot]
// CHECK: setmaxnreg.inc.sync.aligned.u32 152;
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK: setmaxnreg.dec.sync.aligned.u32 96;
// CHECK: elect.sync
// CHECK: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, {{.*}}, %r{{[0-9]+}};
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: setmaxnreg.dec.sync.aligned.u32 96;
// CHECK: elect.sync
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: tcgen05.fence::after_thread_sync;
// K-major SW128 bf16 smem descriptor: 0x4000404000010000 | (addr >> 4).
// CHECK: or.b64 {{.*}}, 4611756662049538048;
// bf16 x bf16 -> f32, M = 128, N = 256, K-major: idesc 0x08400490.
// CHECK: mov.b32 {{.*}}, 138413200;
// CHECK-COUNT-4: tcgen05.mma.cta_group::1.kind::f16
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{.*}};

// BIN: gpu.binary @gemm [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">
