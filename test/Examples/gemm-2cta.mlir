// REQUIRES: ptxas
// The 2-CTA GEMM example: cluster of 2, cta_group::2, M = 256.
//
// RUN: nvfp4-opt %nvfp4_src/examples/gemm_2cta.mlir --nvfp4-sm100-to-cubin="ptx-file=%t.ptx cubin-file=%t.cubin" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.ptxas.cubin
// RUN: test -s %t.cubin

// CHECK: .target sm_100a
// CHECK: .entry gemm_2cta_m256_n256(
// CHECK: .explicitcluster
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32
// CHECK: barrier.cluster.arrive.aligned;
// CHECK: barrier.cluster.wait.aligned;
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2
// M = 256 in the instruction descriptor: 0x10400490.
// CHECK: mov.b32 {{.*}}, 272630928;
// CHECK-COUNT-4: tcgen05.mma.cta_group::2.kind::f16
// CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
// CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
// CHECK: tcgen05.dealloc.cta_group::2.sync.aligned.b32
