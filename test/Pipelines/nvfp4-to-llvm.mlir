// nvfp4-to-llvm: a function that uses nvfp4 ops, lowered whole (docs/Host.md).
// The kernels are embedded (PTX by default, which the emulator runs; cubin
// with format=bin), the function is in the LLVM dialect with its C
// interface, and every launch is a gpu.launch_func on LLVM values, which
// mlir-translate turns into mgpu* calls.

// RUN: nvfp4-opt %s --nvfp4-to-llvm | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-llvm | mlir-translate --mlir-to-llvmir \
// RUN:   | FileCheck %s --check-prefix=IR

// CHECK: llvm.func @gqa(
// CHECK: llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK: gpu.launch_func <%{{.+}} : !llvm.ptr> @gqa_attention::@gqa_attention blocks in
// CHECK: gpu.launch_func <%{{.+}} : !llvm.ptr> @gqa_attention::@gqa_attention_combine blocks in
// CHECK: llvm.func @_mlir_ciface_gqa(
// CHECK: gpu.binary @gqa_attention [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, {{.*}}assembly = "
// CHECK-NOT: nvfp4.

// IR-DAG: define void @_mlir_ciface_gqa(ptr
// IR-DAG: call ptr @mgpuModuleLoadJIT(
// IR-DAG: call void @mgpuLaunchKernel(
// IR-DAG: call ptr @mgpuMemAlloc(

// A target LLVM cannot build for is refused before it runs.
// RUN: not nvfp4-opt %s --nvfp4-to-llvm="features=+ptx80" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADPTX
// BADPTX: nvfp4-to-llvm: chip sm_100a needs PTX ISA 8.6 or newer

func.func @gqa(%q: tensor<2x128x8x128xbf16>, %k: tensor<2x256x2x128xbf16>,
               %v: tensor<2x256x2x128xbf16>)
    -> (tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125) causal
      : (tensor<2x128x8x128xbf16>, tensor<2x256x2x128xbf16>,
         tensor<2x256x2x128xbf16>)
      -> (tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>)
  return %o, %lse : tensor<2x128x8x128xbf16>, tensor<2x8x128xf32>
}
