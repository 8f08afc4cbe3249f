// REQUIRES: ptxas
// The MQA decode attention example (examples/attention_decode.mlir): it
// compiles through the pipeline, ptxas accepts it for sm_100a, and its PTX
// has the schedule's instructions. Its numerics are checked on the emulator
// by unittests/Emulator/AttentionTest.cpp.
//
// RUN: nvfp4-opt %nvfp4_src/examples/attention_decode.mlir --nvfp4-sm100-to-cubin="ptx-file=%t.ptx cubin-file=%t.cubin" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.ptxas.cubin
// RUN: test -s %t.cubin

// CHECK: .target sm_100a
// CHECK: .entry attention_decode_h128_d128(
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// S = Q K^T: M = 128, N = 128, bf16 x bf16 -> f32 (0x08200490), both
// operands from shared-memory descriptors.
// CHECK: mov.b32 {{.*}}, 136316048;
// CHECK-COUNT-8: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}
// O += P V: N = 64, B MN-major (0x08110490), P from tensor memory.
// CHECK: mov.b32 {{.*}}, 135333008;
// CHECK-COUNT-16: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], [%r{{[0-9]+}}], %rd{{[0-9]+}}
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32
