// nvfp4-opt carries upstream's NVVM target and LLVM IR translations, so
// gpu-module-to-binary turns an sm_100a gpu.module into PTX.

// RUN: nvfp4-opt %s --gpu-module-to-binary=format=isa | FileCheck %s

// CHECK-LABEL: gpu.binary @kernels
// CHECK-SAME: #nvvm.target<chip = "sm_100a"
// CHECK-SAME: assembly = "
// CHECK-SAME: .target sm_100a
// CHECK-SAME: .visible .entry store_tid(
// CHECK-SAME: st.global.b32
gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx88">] {
  llvm.func @store_tid(%out: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %p = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %tid, %p : i32, !llvm.ptr<1>
    llvm.return
  }
}
