// REQUIRES: ptxas
// The M = 64 GEMM example (half-datapath accumulator layout).
//
// RUN: nvfp4-opt %nvfp4_src/examples/gemm_m64.mlir --nvfp4-sm100-to-cubin="ptx-file=%t.ptx cubin-file=%t.cubin" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.ptxas.cubin
// RUN: test -s %t.cubin

// CHECK: .target sm_100a
// CHECK: .entry gemm_m64_n256(
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// M = 64 in the instruction descriptor: 0x04400490.
// CHECK: mov.b32 {{.*}}, 71304336;
// CHECK-COUNT-4: tcgen05.mma.cta_group::1.kind::f16
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32
