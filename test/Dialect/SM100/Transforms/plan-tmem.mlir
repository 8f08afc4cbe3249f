// sm100-plan-tmem: each kernel that allocates tensor memory gets its column
// total as `sm100.tmem_columns`; each error of PlanTmem.cpp is raised once
// below.

// RUN: nvfp4-opt %s -split-input-file -verify-diagnostics --sm100-plan-tmem | FileCheck %s

!slot = memref<1xi32, #gpu.address_space<workgroup>>

// Two allocations (256 then 128 columns, two slots): 384 columns. A
// deallocation may go through a slice of the allocation.
// CHECK-LABEL: func.func @two_allocations
// CHECK-SAME: attributes {sm100.tmem_columns = 384 : i32}
func.func @two_allocations(%s0: !slot, %s1: !slot) {
  sm100.tmem_alloc %s0, 256 : !slot
  sm100.tmem_alloc %s1, 128 : !slot
  %a = sm100.tmem_base %s0 : !slot -> !sm100.tmem<128x256xf32, acc>
  %b = sm100.tmem_base %s1 : !slot -> !sm100.tmem<128x128xf32, acc>
  %p = sm100.tmem_slice %a[128] : !sm100.tmem<128x256xf32, acc> -> !sm100.tmem<128x128xbf16, operand_a>
  sm100.tmem_dealloc %p, 256 : !sm100.tmem<128x128xbf16, operand_a>
  sm100.tmem_dealloc %b, 128 : !sm100.tmem<128x128xf32, acc>
  return
}

// A function without tensor memory gets no attribute.
// CHECK-LABEL: func.func @no_tmem()
// CHECK-NOT: sm100.tmem_columns
// CHECK: return
func.func @no_tmem() {
  return
}

// -----

// A kernel whose slot is a memref.global: every memref.get_global of it is
// the same slot, and allocations under scf.if count.
// CHECK-LABEL: gpu.func @kernel
// CHECK-SAME: sm100.tmem_columns = 512 : i32
gpu.module @kernels {
  memref.global "private" @slot : memref<1xi32, #gpu.address_space<workgroup>>
  gpu.func @kernel(%w0: i1) kernel {
    %s = memref.get_global @slot : memref<1xi32, #gpu.address_space<workgroup>>
    scf.if %w0 {
      sm100.tmem_alloc %s, 512 : memref<1xi32, #gpu.address_space<workgroup>>
    }
    %s2 = memref.get_global @slot : memref<1xi32, #gpu.address_space<workgroup>>
    %t = sm100.tmem_base %s2 : memref<1xi32, #gpu.address_space<workgroup>> -> !sm100.tmem<128x512xf32, acc>
    scf.if %w0 {
      sm100.tmem_dealloc %t, 512 : !sm100.tmem<128x512xf32, acc>
    }
    gpu.return
  }
}

// -----

!slot = memref<1xi32, #gpu.address_space<workgroup>>
func.func @too_many_columns(%s0: !slot, %s1: !slot, %s2: !slot) {
  // expected-note @+1 {{earlier allocation of 256 columns}}
  sm100.tmem_alloc %s0, 256 : !slot
  // expected-note @+1 {{earlier allocation of 256 columns}}
  sm100.tmem_alloc %s1, 256 : !slot
  // Error: more than 512 columns in one kernel.
  // expected-error @+1 {{'sm100.tmem_alloc' op brings the kernel's tensor memory to 544 columns, more than the 512 a CTA has}}
  sm100.tmem_alloc %s2, 32 : !slot
  return
}

// -----

!slot = memref<1xi32, #gpu.address_space<workgroup>>
func.func @increasing(%s0: !slot, %s1: !slot) {
  sm100.tmem_alloc %s0, 128 : !slot
  // Error: allocation sizes must not increase.
  // expected-error @+1 {{'sm100.tmem_alloc' op allocates 256 columns after an allocation of 128: allocation sizes must not increase (PTX ISA 9.7.16.7.1)}}
  sm100.tmem_alloc %s1, 256 : !slot
  return
}

// -----

!slot = memref<1xi32, #gpu.address_space<workgroup>>
func.func @slot_reused(%s0: !slot) {
  sm100.tmem_alloc %s0, 128 : !slot
  // Error: one slot per allocation.
  // expected-error @+1 {{'sm100.tmem_alloc' op allocates into a slot that an earlier sm100.tmem_alloc already uses}}
  sm100.tmem_alloc %s0, 64 : !slot
  return
}

// -----

!slot = memref<1xi32, #gpu.address_space<workgroup>>
func.func @missing_dealloc(%s0: !slot, %s1: !slot) {
  sm100.tmem_alloc %s0, 128 : !slot
  // Error: every allocation is freed.
  // expected-error @+1 {{'sm100.tmem_alloc' op has no matching sm100.tmem_dealloc (tensor memory must be freed before the kernel exits)}}
  sm100.tmem_alloc %s1, 64 : !slot
  %t = sm100.tmem_base %s0 : !slot -> !sm100.tmem<128x128xf32, acc>
  sm100.tmem_dealloc %t, 128 : !sm100.tmem<128x128xf32, acc>
  return
}

// -----

!slot = memref<1xi32, #gpu.address_space<workgroup>>
func.func @dealloc_size(%s0: !slot) {
  // expected-note @+1 {{allocated here}}
  sm100.tmem_alloc %s0, 256 : !slot
  %t = sm100.tmem_base %s0 : !slot -> !sm100.tmem<128x128xf32, acc>
  // Error: the deallocation frees what was allocated.
  // expected-error @+1 {{'sm100.tmem_dealloc' op frees 128 columns of an allocation of 256}}
  sm100.tmem_dealloc %t, 128 : !sm100.tmem<128x128xf32, acc>
  return
}

// -----

!slot = memref<1xi32, #gpu.address_space<workgroup>>
func.func @dealloc_unallocated(%s0: !slot) {
  %t = sm100.tmem_base %s0 : !slot -> !sm100.tmem<128x128xf32, acc>
  // Error: a deallocation frees an earlier allocation of the kernel.
  // expected-error @+1 {{'sm100.tmem_dealloc' op frees tensor memory that no sm100.tmem_alloc of this kernel allocated before it}}
  sm100.tmem_dealloc %t, 128 : !sm100.tmem<128x128xf32, acc>
  return
}

// -----

!slot = memref<1xi32, #gpu.address_space<workgroup>>
func.func @view_too_large(%s0: !slot) {
  sm100.tmem_alloc %s0, 128 : !slot
  // Error: a view of an allocation fits in it.
  // expected-error @+1 {{'sm100.tmem_base' op views 256 columns of an allocation of 128}}
  %t = sm100.tmem_base %s0 : !slot -> !sm100.tmem<128x256xf32, acc>
  sm100.tmem_dealloc %t, 256 : !sm100.tmem<128x256xf32, acc>
  return
}

// -----

!slot = memref<1xi32, #gpu.address_space<workgroup>>
func.func @mixed_cta_group(%s0: !slot, %a: i64, %b: i64, %en: i1) {
  // expected-note @+1 {{first use here}}
  sm100.tmem_alloc %s0, 256 : !slot
  %t = sm100.tmem_base %s0 : !slot -> !sm100.tmem<128x256xf32, acc>
  sm100.elect_one {
    // Error: one cta_group per kernel.
    // expected-error @+1 {{'sm100.mma' op uses cta_group 2 but the kernel already uses cta_group 1 (all tcgen05 operations of a kernel must use one cta_group)}}
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 256, n = 256, cta_group = 2> %t, %a, %b, %en : !sm100.tmem<128x256xf32, acc>, i64
  }
  sm100.tmem_dealloc %t, 256 : !sm100.tmem<128x256xf32, acc>
  return
}
