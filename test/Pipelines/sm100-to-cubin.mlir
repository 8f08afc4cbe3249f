// The whole nvfp4-sm100-to-cubin pipeline (no stop-after) on the kernel of
// stop-after.mlir: the PTX file targets sm_100a and holds the tcgen05
// instructions with the folded descriptors, and ptxas produced a non-empty
// cubin (an ELF object), also embedded in the gpu.binary.

// REQUIRES: ptxas
// RUN: rm -f %t.ptx %t.cubin
// RUN: nvfp4-opt %S/stop-after.mlir --nvfp4-sm100-to-cubin="ptx-file=%t.ptx cubin-file=%t.cubin" | FileCheck %s --check-prefix=BIN
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: test -s %t.cubin
// RUN: head -c 4 %t.cubin | od -An -c | FileCheck %s --check-prefix=ELF

// BIN: gpu.binary @kernels
// BIN-SAME: #nvvm.target<{{.*}}chip = "sm_100a"
// BIN-SAME: bin = "\7FELF

// PTX: .target sm_100a
// PTX: .visible .entry mma_m128_n64(
// PTX: .maxnreg 128
// PTX: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// PTX: setmaxnreg.inc.sync.aligned.u32 {{.*}}232;
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX: tcgen05.wait::ld.sync.aligned;
// PTX: setmaxnreg.dec.sync.aligned.u32 {{.*}}24;
// PTX-NOT: setmaxnreg
// PTX: elect.sync
// PTX: tcgen05.mma.cta_group::1.kind::f16
// PTX: tcgen05.commit.cta_group::1.mbarrier::arrive::one
// PTX: tcgen05.dealloc.cta_group::1.sync.aligned.b32

// ELF: 177 E L F
