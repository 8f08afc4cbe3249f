// RUN: nvfp4-opt %s --pass-pipeline="builtin.module(gpu.module(nvfp4-extern-dynamic-shared-memory))" | FileCheck %s
// RUN: nvfp4-opt %s --pass-pipeline="builtin.module(gpu.module(nvfp4-extern-dynamic-shared-memory{alignment=128}))" | FileCheck %s --check-prefix=ALIGN128
// RUN: not nvfp4-opt %s --pass-pipeline="builtin.module(gpu.module(nvfp4-extern-dynamic-shared-memory{alignment=100}))" 2>&1 | FileCheck %s --check-prefix=BAD

// The zero-sized shared global that convert-gpu-to-nvvm makes for
// gpu.dynamic_shared_memory becomes extern and 1024-byte aligned; other
// shared globals (static, sized) are left alone.

// CHECK-LABEL: gpu.module @k
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
// CHECK: llvm.mlir.global internal @zero_global() {addr_space = 0 : i32, alignment = 4 : i64} : !llvm.array<0 x i8>

// A larger alignment is kept.
// ALIGN128: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 128 : i64}

// BAD: nvfp4-extern-dynamic-shared-memory: expected a power-of-two alignment, got 100

gpu.module @k {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
  // Not shared memory: untouched.
  llvm.mlir.global internal @zero_global() {alignment = 4 : i64} : !llvm.array<0 x i8>
}
