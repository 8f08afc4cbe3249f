// Round trip of every sm100 op, type and attribute, in the custom and in the
// generic form.

// RUN: nvfp4-opt %s | nvfp4-opt | FileCheck %s
// RUN: nvfp4-opt %s --mlir-print-op-generic | nvfp4-opt | FileCheck %s

// The declarative formats print an operand's !sm100.tmem type without its
// dialect prefix (`: <128x256xf32, acc>`); both spellings parse, so the
// checks accept either: {{(!sm100.tmem)?}}<...>.

!slot = memref<1xi32, #gpu.address_space<workgroup>>
!ring = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
!bars = memref<4xi64, #gpu.address_space<workgroup>>
!acc = !sm100.tmem<128x256xf32, acc>
!tileA = memref<128x64xbf16, #gpu.address_space<workgroup>>
!tileB = memref<256x64xbf16, #gpu.address_space<workgroup>>

//===----------------------------------------------------------------------===//
// Types and attributes
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @tmem_types
// CHECK-SAME: !sm100.tmem<128x256xf32, acc>
// CHECK-SAME: !sm100.tmem<128x512xf16, acc>
// CHECK-SAME: !sm100.tmem<64x64xf32, acc_m64>
// CHECK-SAME: !sm100.tmem<128x64xbf16, operand_a>
// CHECK-SAME: !sm100.tmem<128x128xf8E4M3FN, operand_a>
// CHECK-SAME: !sm100.tmem<128x16xf8E4M3FN, scales>
// CHECK-SAME: !sm100.tmem<128x32xi8, scales>
func.func @tmem_types(%a: !sm100.tmem<128x256xf32, acc>,
                      %b: !sm100.tmem<128x512xf16, acc>,
                      %c: !sm100.tmem<64x64xf32, acc_m64>,
                      %d: !sm100.tmem<128x64xbf16, operand_a>,
                      %e: !sm100.tmem<128x128xf8E4M3FN, operand_a>,
                      %f: !sm100.tmem<128x16xf8E4M3FN, scales>,
                      // The layout may also be written as a string.
                      %g: !sm100.tmem<128x32xi8, "scales">) {
  return
}

// Default-valued idesc parameters are elided when printed; the others are
// kept. The attribute dictionary prints sorted by name.
// CHECK-LABEL: func.func @attributes
// CHECK-SAME: idesc_bf16 = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256>
// CHECK-SAME: idesc_defaults = #sm100.idesc<kind = f16, a = f16, b = f16, d = f16, m = 64, n = 8>
// CHECK-SAME: idesc_f8 = #sm100.idesc<kind = f8f6f4, a = f8E4M3FN, b = f8E5M2, d = f32, m = 128, n = 128, a_major = mn, b_major = mn, negate_a = true, negate_b = true>
// CHECK-SAME: idesc_i8 = #sm100.idesc<kind = i8, a = si8, b = ui8, d = i32, m = 256, n = 256, cta_group = 2>
// CHECK-SAME: idesc_mxf4 = #sm100.idesc<kind = mxf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 256, n = 256, cta_group = 2>
// CHECK-SAME: idesc_mxf8 = #sm100.idesc<kind = mxf8f6f4, a = f6E2M3FN, b = f6E3M2FN, d = f32, m = 128, n = 64>
// CHECK-SAME: idesc_nvf4 = #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3>
// CHECK-SAME: idesc_tf32 = #sm100.idesc<kind = tf32, a = tf32, b = tf32, d = f32, m = 64, n = 16>
// CHECK-SAME: smem_k_none = #sm100.smem_layout<major = k, swizzle = none, element = f16, mn = 64, k = 16>
// CHECK-SAME: smem_k_sw128 = #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64>
// CHECK-SAME: smem_k_sw32_e2m1 = #sm100.smem_layout<major = k, swizzle = sw32, element = f4E2M1FN, mn = 128, k = 64>
// CHECK-SAME: smem_k_sw64_i8 = #sm100.smem_layout<major = k, swizzle = sw64, element = si8, mn = 16, k = 64>
// CHECK-SAME: smem_mn_k_first = #sm100.smem_layout<major = mn, swizzle = sw128, element = bf16, mn = 256, k = 64, k_first = true>
// CHECK-SAME: smem_mn_sw128 = #sm100.smem_layout<major = mn, swizzle = sw128, element = f8E4M3FN, mn = 128, k = 32>
// CHECK-SAME: smem_mn_tf32 = #sm100.smem_layout<major = mn, swizzle = sw128_base32, element = tf32, mn = 64, k = 8>
func.func @attributes() attributes {
    idesc_bf16 = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256>,
    idesc_defaults = #sm100.idesc<kind = f16, a = f16, b = f16, d = f16, m = 64, n = 8, a_major = k, b_major = k, negate_a = false, negate_b = false, cta_group = 1, scale_type = ue8m0>,
    idesc_f8 = #sm100.idesc<kind = f8f6f4, a = f8E4M3FN, b = f8E5M2, d = f32, m = 128, n = 128, a_major = mn, b_major = mn, negate_a = true, negate_b = true>,
    idesc_i8 = #sm100.idesc<kind = i8, a = si8, b = ui8, d = i32, m = 256, n = 256, cta_group = 2>,
    idesc_mxf8 = #sm100.idesc<kind = mxf8f6f4, a = f6E2M3FN, b = f6E3M2FN, d = f32, m = 128, n = 64>,
    idesc_mxf4 = #sm100.idesc<kind = mxf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 256, n = 256, cta_group = 2, scale_type = ue8m0>,
    idesc_nvf4 = #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3>,
    idesc_tf32 = #sm100.idesc<kind = tf32, a = tf32, b = tf32, d = f32, m = 64, n = 16>,
    smem_k_none = #sm100.smem_layout<major = k, swizzle = none, element = f16, mn = 64, k = 16>,
    smem_k_sw128 = #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64>,
    smem_k_sw32_e2m1 = #sm100.smem_layout<major = k, swizzle = sw32, element = f4E2M1FN, mn = 128, k = 64>,
    smem_k_sw64_i8 = #sm100.smem_layout<major = k, swizzle = sw64, element = si8, mn = 16, k = 64>,
    smem_mn_k_first = #sm100.smem_layout<major = mn, swizzle = sw128, element = bf16, mn = 256, k = 64, k_first = true>,
    smem_mn_sw128 = #sm100.smem_layout<major = mn, swizzle = sw128, element = f8E4M3FN, mn = 128, k = 32, k_first = false>,
    smem_mn_tf32 = #sm100.smem_layout<major = mn, swizzle = sw128_base32, element = tf32, mn = 64, k = 8>} {
  return
}

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @tmem_lifecycle
// CHECK-SAME: (%[[SLOT:.+]]: memref<1xi32, #gpu.address_space<workgroup>>)
func.func @tmem_lifecycle(%slot: !slot) {
  // CHECK: sm100.tmem_alloc %[[SLOT]], 256 : memref<1xi32, #gpu.address_space<workgroup>>
  sm100.tmem_alloc %slot, 256 : !slot
  // CHECK: sm100.tmem_alloc %[[SLOT]], 32 cta_group 2 : memref<1xi32, #gpu.address_space<workgroup>>
  sm100.tmem_alloc %slot, 32 cta_group 2 : !slot
  // CHECK: %[[ACC:.+]] = sm100.tmem_base %[[SLOT]] : memref<1xi32, #gpu.address_space<workgroup>> -> {{(!sm100.tmem)?}}<128x256xf32, acc>
  %acc = sm100.tmem_base %slot : !slot -> !acc
  // CHECK: %[[P:.+]] = sm100.tmem_slice %[[ACC]][0] : {{(!sm100.tmem)?}}<128x256xf32, acc> -> {{(!sm100.tmem)?}}<128x128xbf16, operand_a>
  %p = sm100.tmem_slice %acc[0] : !acc -> !sm100.tmem<128x128xbf16, operand_a>
  // CHECK: sm100.tmem_slice %[[ACC]][128] : {{(!sm100.tmem)?}}<128x256xf32, acc> -> {{(!sm100.tmem)?}}<128x128xf32, acc>
  %o = sm100.tmem_slice %acc[128] : !acc -> !sm100.tmem<128x128xf32, acc>
  // CHECK: sm100.tmem_slice %[[ACC]][64] : {{(!sm100.tmem)?}}<128x256xf32, acc> -> {{(!sm100.tmem)?}}<64x32xf32, acc_m64>
  %m64 = sm100.tmem_slice %acc[64] : !acc -> !sm100.tmem<64x32xf32, acc_m64>
  // CHECK: sm100.tmem_dealloc %[[ACC]], 256 : {{(!sm100.tmem)?}}<128x256xf32, acc>
  sm100.tmem_dealloc %acc, 256 : !acc
  // CHECK: sm100.tmem_dealloc %[[P]], 64 cta_group 2 : {{(!sm100.tmem)?}}<128x128xbf16, operand_a>
  sm100.tmem_dealloc %p, 64 cta_group 2 : !sm100.tmem<128x128xbf16, operand_a>
  // CHECK: sm100.tmem_relinquish{{$}}
  sm100.tmem_relinquish
  // CHECK: sm100.tmem_relinquish cta_group 2{{$}}
  sm100.tmem_relinquish cta_group 2
  return
}

// CHECK-LABEL: func.func @tmem_load_store
// CHECK-SAME: (%[[ACC:[^:]+]]: !sm100.tmem<128x256xf32, acc>, %[[P:[^:]+]]: !sm100.tmem<128x128xbf16, operand_a>, %[[COL:[^:]+]]: index)
func.func @tmem_load_store(%acc: !acc, %p: !sm100.tmem<128x128xbf16, operand_a>,
                           %col: index) {
  // CHECK: %[[V:.+]] = sm100.tmem_load %[[ACC]][%[[COL]]] shape_32x32b x 32 : {{(!sm100.tmem)?}}<128x256xf32, acc> -> vector<32xf32>
  %v = sm100.tmem_load %acc[%col] shape_32x32b x 32 : !acc -> vector<32xf32>
  // CHECK: sm100.tmem_load %[[ACC]] shape_16x64b x 4 : {{(!sm100.tmem)?}}<128x256xf32, acc> -> vector<4xi32>
  %a = sm100.tmem_load %acc shape_16x64b x 4 : !acc -> vector<4xi32>
  // CHECK: sm100.tmem_load %[[ACC]] shape_16x128b x 2 : {{(!sm100.tmem)?}}<128x256xf32, acc> -> vector<4xi32>
  %b = sm100.tmem_load %acc shape_16x128b x 2 : !acc -> vector<4xi32>
  // CHECK: sm100.tmem_load %[[ACC]] shape_16x256b x 1 {lane_base = 16 : i32} : {{(!sm100.tmem)?}}<128x256xf32, acc> -> vector<4xf32>
  %c = sm100.tmem_load %acc shape_16x256b x 1 {lane_base = 16 : i32} : !acc -> vector<4xf32>
  // CHECK: sm100.tmem_load %[[ACC]] shape_16x32bx2 x 8 {half_split_offset = 16 : i32} : {{(!sm100.tmem)?}}<128x256xf32, acc> -> vector<8xi32>
  %d = sm100.tmem_load %acc shape_16x32bx2 x 8 {half_split_offset = 16 : i32} : !acc -> vector<8xi32>
  // CHECK: %[[PK:.+]] = sm100.tmem_load %[[P]] shape_32x32b x 16 pack : {{(!sm100.tmem)?}}<128x128xbf16, operand_a> -> vector<16xi32>
  %pk = sm100.tmem_load %p shape_32x32b x 16 pack : !sm100.tmem<128x128xbf16, operand_a> -> vector<16xi32>
  // CHECK: sm100.wait load{{$}}
  sm100.wait load
  // CHECK: sm100.tmem_store %[[V]], %[[ACC]][%[[COL]]] shape_32x32b x 32 : vector<32xf32>, {{(!sm100.tmem)?}}<128x256xf32, acc>
  sm100.tmem_store %v, %acc[%col] shape_32x32b x 32 : vector<32xf32>, !acc
  // CHECK: sm100.tmem_store %[[PK]], %[[P]] shape_32x32b x 16 unpack {lane_base = 64 : i32} : vector<16xi32>, {{(!sm100.tmem)?}}<128x128xbf16, operand_a>
  sm100.tmem_store %pk, %p shape_32x32b x 16 unpack {lane_base = 64 : i32} : vector<16xi32>, !sm100.tmem<128x128xbf16, operand_a>
  // CHECK: sm100.tmem_store %[[V]], %[[ACC]] shape_16x32bx2 x 32 {half_split_offset = 32 : i32} : vector<32xf32>, {{(!sm100.tmem)?}}<128x256xf32, acc>
  sm100.tmem_store %v, %acc shape_16x32bx2 x 32 {half_split_offset = 32 : i32} : vector<32xf32>, !acc
  // CHECK: sm100.wait store{{$}}
  sm100.wait store
  // CHECK: sm100.fence before_thread_sync{{$}}
  sm100.fence before_thread_sync
  // CHECK: sm100.fence after_thread_sync{{$}}
  sm100.fence after_thread_sync
  return
}

//===----------------------------------------------------------------------===//
// UMMA
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @umma
// CHECK-SAME: (%[[ACC:[^:]+]]: !sm100.tmem<128x256xf32, acc>, %[[A:[^:]+]]: memref<128x64xbf16, #gpu.address_space<workgroup>>, %[[B:[^:]+]]: memref<256x64xbf16, #gpu.address_space<workgroup>>, %[[PA:[^:]+]]: !sm100.tmem<128x64xbf16, operand_a>, %[[RING:[^:]+]]: !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>, %[[BARS:[^:]+]]: memref<4xi64, #gpu.address_space<workgroup>>, %[[I:[^:]+]]: index, %[[MASK:[^:]+]]: i16, %[[ACC2:[^:]+]]: !sm100.tmem<128x256xf32, acc>)
func.func @umma(%acc: !acc, %a: !tileA, %b: !tileB,
                %pa: !sm100.tmem<128x64xbf16, operand_a>, %ring: !ring,
                %bars: !bars, %i: index, %mask: i16,
                %acc2: !sm100.tmem<128x256xf32, acc>) {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  // CHECK: %[[DA:.+]] = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64> %[[A]][%{{.+}}, %{{.+}}] : memref<128x64xbf16, #gpu.address_space<workgroup>>
  %da = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64> %a[%c0, %c0] : !tileA
  // k_slice 0 is the default and is not printed.
  // CHECK-NOT: k_slice 0
  %da0 = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64> %a[%c0, %c0] k_slice 0 : !tileA
  // CHECK: %[[DB:.+]] = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 256, k = 64> %[[B]][%{{.+}}, %{{.+}}] k_slice 3 : memref<256x64xbf16, #gpu.address_space<workgroup>>
  %db = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 256, k = 64> %b[%c0, %c0] k_slice 3 : !tileB
  // CHECK: sm100.elect_one {
  sm100.elect_one {
    // CHECK-NEXT: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %[[ACC]], %[[DA]], %[[DB]], %{{.+}} : {{(!sm100.tmem)?}}<128x256xf32, acc>, i64
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %acc, %da, %db, %true : !acc, i64
    // CHECK-NEXT: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %[[ACC]], %[[PA]], %[[DB]], %{{.+}} : {{(!sm100.tmem)?}}<128x256xf32, acc>, !sm100.tmem<128x64xbf16, operand_a>
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %acc, %pa, %db, %true : !acc, !sm100.tmem<128x64xbf16, operand_a>
    // CHECK-NEXT: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 256, n = 256, cta_group = 2> %[[ACC2]], %[[DA]], %[[DB]], %{{.+}} : {{(!sm100.tmem)?}}<128x256xf32, acc>, i64
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 256, n = 256, cta_group = 2> %acc2, %da, %db, %true : !acc, i64
    // CHECK-NEXT: sm100.commit %[[RING]][%[[I]]] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
    sm100.commit %ring[%i] : !ring
    // CHECK-NEXT: sm100.commit %[[BARS]][%[[I]]] multicast %[[MASK]] cta_group 2 : memref<4xi64, #gpu.address_space<workgroup>>
    sm100.commit %bars[%i] multicast %mask cta_group 2 : !bars
  }
  return
}

//===----------------------------------------------------------------------===//
// Warp roles
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @warp_roles
func.func @warp_roles(%acc: !acc) attributes {nvvm.maxnreg = 128 : i32} {
  // CHECK: sm100.warp_roles 8 {
  sm100.warp_roles 8 {
    // CHECK-NEXT: sm100.role "epilogue" warps{{ ?}}[0, 4) regs 152 {
    sm100.role "epilogue" warps [0, 4) regs 152 {
      // CHECK-NEXT: sm100.tmem_load
      %v = sm100.tmem_load %acc shape_32x32b x 1 : !acc -> vector<1xf32>
    }
    // CHECK: sm100.role "mma" warps{{ ?}}[4, 5) regs 104 {
    sm100.role "mma" warps [4, 5) regs 104 {
      // CHECK-NEXT: sm100.elect_one {
      sm100.elect_one {
        // CHECK-NEXT: sm100.tmem_relinquish
        sm100.tmem_relinquish
      }
    }
    // CHECK: sm100.role "spare" warps{{ ?}}[5, 8) regs 104 {
    // CHECK-NEXT: }
    sm100.role "spare" warps [5, 8) regs 104 {
    }
  }
  return
}

// A role without `regs` and a role-level attribute dictionary.
// CHECK-LABEL: func.func @warp_roles_no_regs
// CHECK: sm100.warp_roles 2 attributes {tag} {
// CHECK-NEXT: sm100.role "producer" warps{{ ?}}[1, 2) attributes {note = "x"} {
func.func @warp_roles_no_regs() {
  sm100.warp_roles 2 attributes {tag} {
    sm100.role "producer" warps [1, 2) attributes {note = "x"} {
    }
  }
  return
}

// Block-scaled MMA and the scale-factor copy into TMEM.
// CHECK-LABEL: func.func @block_scaled
// CHECK: sm100.tmem_copy shape_32x128b_warpx4 %{{.+}}, %{{.+}} : <128x16xf8E4M3FN, scales>
// CHECK: sm100.tmem_copy shape_128x128b %{{.+}}, %{{.+}} {cta_group = 2 : i64} : <128x16xf8E4M3FN, scales>
// CHECK: sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3> %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} scales(%{{.+}}, %{{.+}}) : <128x256xf32, acc>, <128x16xf8E4M3FN, scales>, <128x32xf8E4M3FN, scales>
func.func @block_scaled(%acc: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %en: i1,
                        %sa: !sm100.tmem<128x16xf8E4M3FN, scales>,
                        %sb: !sm100.tmem<128x32xf8E4M3FN, scales>, %desc: i64) {
  sm100.elect_one {
    sm100.tmem_copy shape_32x128b_warpx4 %sa, %desc : !sm100.tmem<128x16xf8E4M3FN, scales>
    sm100.tmem_copy shape_128x128b %sa, %desc {cta_group = 2} : !sm100.tmem<128x16xf8E4M3FN, scales>
    sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3> %acc, %a, %b, %en scales(%sa, %sb) : !sm100.tmem<128x256xf32, acc>, !sm100.tmem<128x16xf8E4M3FN, scales>, !sm100.tmem<128x32xf8E4M3FN, scales>
  }
  return
}
