// With CUDA's ptxas, nvfp4-opt's gpu-module-to-binary produces an sm_100a
// cubin (an ELF object) for the same kernel.

// REQUIRES: ptxas
// RUN: nvfp4-opt %s --gpu-module-to-binary="format=bin toolkit=%cuda_root" \
// RUN:   | FileCheck %s

// CHECK-LABEL: gpu.binary @kernels
// CHECK-SAME: #nvvm.target<chip = "sm_100a"
// CHECK-SAME: bin = "\7FELF
gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  llvm.func @store_tid(%out: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %p = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %tid, %p : i32, !llvm.ptr<1>
    llvm.return
  }
}
