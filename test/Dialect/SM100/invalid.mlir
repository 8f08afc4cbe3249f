// Every verifier rule of the sm100 dialect, broken once: the ops' numbered
// rules (SM100Ops.td), the !sm100.tmem type verifier and parser, and the
// failure classes of #sm100.smem_layout and #sm100.idesc (the encoder
// library's checks, include/nvfp4/Support/UMMADescriptors.h). Each case
// breaks exactly the rule named in the comment above it. A rule whose
// verifier has several diagnostics gets one case per diagnostic; checks that
// the verifiers make without a numbered rule are marked "(unnumbered)", and
// ODS type constraints of the dialect's own operand types "Constraint:".

// RUN: nvfp4-opt %s -split-input-file -verify-diagnostics

!slot = memref<1xi32, #gpu.address_space<workgroup>>

//===----------------------------------------------------------------------===//
// !sm100.tmem: parser
//===----------------------------------------------------------------------===//

// Rule: !sm100.tmem parser — the shape is 2-D
// expected-error @+1 {{expected a 2-D shape (rows x columns), got 3 dimensions}}
func.func private @tmem_3d(!sm100.tmem<128x32x2xf32, acc>)

// -----

// Rule: !sm100.tmem parser — the layout is one of acc, acc_m64, operand_a, scales
// expected-error @+1 {{expected a TMEM layout (acc, acc_m64, operand_a, scales), got 'accum'}}
func.func private @tmem_bad_layout(!sm100.tmem<128x32xf32, accum>)

// -----

//===----------------------------------------------------------------------===//
// !sm100.tmem: type verifier
//===----------------------------------------------------------------------===//

// Rule: !sm100.tmem verifier — the shape is positive
// expected-error @+1 {{expected a positive TMEM shape, got 128x0}}
func.func private @tmem_empty(!sm100.tmem<128x0xf32, acc>)

// -----

// Rule: !sm100.tmem verifier — the element type is an integer or float
// expected-error @+1 {{expected an integer or float element type, got 'index'}}
func.func private @tmem_index(!sm100.tmem<128x32xindex, acc>)

// -----

// Rule: !sm100.tmem verifier — rows match the layout (128, or 64 for acc_m64)
// expected-error @+1 {{expected 64 rows for layout 'acc_m64', got 128}}
func.func private @tmem_rows(!sm100.tmem<128x32xf32, acc_m64>)

// -----

// Rule: !sm100.tmem verifier — an accumulator element is 16 or 32 bits
// expected-error @+1 {{expected a 16- or 32-bit accumulator element type, got 'i8'}}
func.func private @tmem_acc_i8(!sm100.tmem<128x32xi8, acc>)

// -----

// Rule: !sm100.tmem verifier — a scale element is 8 bits
// expected-error @+1 {{expected an 8-bit scale element type, got 'f16'}}
func.func private @tmem_scales_f16(!sm100.tmem<128x32xf16, scales>)

// -----

// Rule: !sm100.tmem verifier — packed elements fill whole 32-bit columns
// expected-error @+1 {{expected 33 columns of 16-bit elements to fill whole 32-bit TMEM columns}}
func.func private @tmem_partial_column(!sm100.tmem<128x33xbf16, operand_a>)

// -----

// Rule: !sm100.tmem verifier — at most 512 columns
// expected-error @+1 {{expected at most 512 TMEM columns, got 1024}}
func.func private @tmem_too_wide(!sm100.tmem<128x1024xf32, acc>)

// -----

//===----------------------------------------------------------------------===//
// #sm100.smem_layout
//===----------------------------------------------------------------------===//

// Rule: #sm100.smem_layout — the element type is a UMMA operand type
// expected-error @+1 {{expected a UMMA operand element type (f16, bf16, tf32, f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN, f4E2M1FN, si8, ui8), got 'f32'}}
func.func private @smem_f32() attributes {l = #sm100.smem_layout<major = k, swizzle = sw128, element = f32, mn = 128, k = 32>}

// -----

// Rule: #sm100.smem_layout — the tile shape is positive
// expected-error @+1 {{expected a positive tile shape, got mn = 0, k = 64}}
func.func private @smem_empty() attributes {l = #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 0, k = 64>}

// -----

// Rule: #sm100.smem_layout — the element is stored in 4, 8, 16 or 32 bits
// expected-error @+1 {{expected a shared memory element width of 4, 8, 16 or 32 bits, got 6 for e2m3}}
func.func private @smem_f6() attributes {l = #sm100.smem_layout<major = k, swizzle = sw128, element = f6E2M3FN, mn = 128, k = 128>}

// -----

// Rule: #sm100.smem_layout — the k-first atom order is for MN-major swizzled tiles
// expected-error @+1 {{expected an mn-major swizzled layout for the k-first atom order, got a k-major 128b-swizzled bf16 tile}}
func.func private @smem_k_first_k_major() attributes {l = #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64, k_first = true>}

// -----

// Rule: #sm100.smem_layout — sw128_base32 is MN-major only
// expected-error @+1 {{expected an mn-major layout for swizzle 128b_base32b, got k-major}}
func.func private @smem_k_base32() attributes {l = #sm100.smem_layout<major = k, swizzle = sw128_base32, element = tf32, mn = 128, k = 32>}

// -----

// Rule: #sm100.smem_layout — sw128_base32 is for 32-bit elements only
// expected-error @+1 {{expected 32-bit (tf32) elements for swizzle 128b_base32b, got 16-bit bf16}}
func.func private @smem_base32_bf16() attributes {l = #sm100.smem_layout<major = mn, swizzle = sw128_base32, element = bf16, mn = 64, k = 16>}

// -----

// Rule: #sm100.smem_layout — an MN-major 32-bit tile uses sw128_base32
// expected-error @+1 {{expected swizzle 128b_base32b for an mn-major 32-bit tile, got 128b}}
func.func private @smem_mn_tf32_sw128() attributes {l = #sm100.smem_layout<major = mn, swizzle = sw128, element = tf32, mn = 64, k = 8>}

// -----

// Rule: #sm100.smem_layout — K-major: mn is a multiple of 8 rows
// expected-error @+1 {{expected the mn extent of a k-major 128b-swizzled bf16 tile to be a multiple of 8 rows, got 100}}
func.func private @smem_k_mn() attributes {l = #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 100, k = 64>}

// -----

// Rule: #sm100.smem_layout — K-major: k is a multiple of the swizzle width
// expected-error @+1 {{expected the k extent of a k-major 128b-swizzled bf16 tile to be a multiple of 128 bytes (64 elements), got 32 elements}}
func.func private @smem_k_k() attributes {l = #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 32>}

// -----

// Rule: #sm100.smem_layout — MN-major: mn is a multiple of the swizzle width
// expected-error @+1 {{expected the mn extent of an mn-major 64b-swizzled f16 tile to be a multiple of 64 bytes (32 elements), got 48 elements}}
func.func private @smem_mn_mn() attributes {l = #sm100.smem_layout<major = mn, swizzle = sw64, element = f16, mn = 48, k = 16>}

// -----

// Rule: #sm100.smem_layout — MN-major: k is a multiple of the atom's rows
// expected-error @+1 {{expected the k extent of an mn-major unswizzled e4m3 tile to be a multiple of 8 rows, got 12}}
func.func private @smem_mn_k() attributes {l = #sm100.smem_layout<major = mn, swizzle = none, element = f8E4M3FN, mn = 64, k = 12>}

// -----

// Rule: #sm100.smem_layout — the tile fits in shared memory (this check comes
// before the 14-bit LBO field's limit, which unittests/Support pins)
// expected-error @+1 {{expected the tile to fit in shared memory (232448 bytes), got 262144 bytes}}
func.func private @smem_lbo() attributes {l = #sm100.smem_layout<major = k, swizzle = none, element = bf16, mn = 16384, k = 8>}

// -----

// Rule: #sm100.smem_layout — the tile fits in shared memory, MN-major
// expected-error @+1 {{expected the tile to fit in shared memory (232448 bytes), got 262144 bytes}}
func.func private @smem_sbo() attributes {l = #sm100.smem_layout<major = mn, swizzle = sw128, element = bf16, mn = 16384, k = 8>}

// -----

//===----------------------------------------------------------------------===//
// #sm100.idesc
//===----------------------------------------------------------------------===//

// Rule: #sm100.idesc — operand types have a UMMA encoding
// expected-error @+1 {{expected a UMMA element type for a, got 'i16'}}
func.func private @idesc_i16() attributes {i = #sm100.idesc<kind = f16, a = i16, b = f16, d = f32, m = 128, n = 256>}

// -----

// Rule: #sm100.idesc — the MMA shape is positive
// expected-error @+1 {{expected M and N in [1, 1024], got M = 0, N = 256}}
func.func private @idesc_m0() attributes {i = #sm100.idesc<kind = f16, a = f16, b = f16, d = f32, m = 0, n = 256>}

// -----

// Rule: #sm100.idesc — cta_group is 1 or 2
// expected-error @+1 {{expected cta_group 1 or 2, got 3}}
func.func private @idesc_cta3() attributes {i = #sm100.idesc<kind = f16, a = f16, b = f16, d = f32, m = 128, n = 256, cta_group = 3>}

// -----

// Rule: #sm100.idesc — the A type belongs to the kind
// expected-error @+1 {{expected A type in {f16, bf16} for kind::f16, got e4m3}}
func.func private @idesc_f16_e4m3() attributes {i = #sm100.idesc<kind = f16, a = f8E4M3FN, b = f16, d = f32, m = 128, n = 256>}

// -----

// Rule: #sm100.idesc — the B type belongs to the kind (tf32 with a bf16 operand)
// expected-error @+1 {{expected B type in tf32 for kind::tf32, got bf16}}
func.func private @idesc_tf32_bf16() attributes {i = #sm100.idesc<kind = tf32, a = tf32, b = bf16, d = f32, m = 128, n = 256>}

// -----

// Rule: #sm100.idesc — kind::f16 takes A and B of one type
// expected-error @+1 {{expected A and B of the same type for kind::f16, got A = f16, B = bf16}}
func.func private @idesc_f16_mixed() attributes {i = #sm100.idesc<kind = f16, a = f16, b = bf16, d = f32, m = 128, n = 256>}

// -----

// Rule: #sm100.idesc — kind::f16 accumulates in f16 or f32
// expected-error @+1 {{expected D type in {f16, f32} for kind::f16, got s32}}
func.func private @idesc_f16_d_i32() attributes {i = #sm100.idesc<kind = f16, a = f16, b = f16, d = i32, m = 128, n = 256>}

// -----

// Rule: #sm100.idesc — bf16 inputs accumulate in f32
// expected-error @+1 {{expected D type f32 for bf16 inputs of kind::f16, got f16}}
func.func private @idesc_bf16_d_f16() attributes {i = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f16, m = 128, n = 256>}

// -----

// Rule: #sm100.idesc — kind::tf32 accumulates in f32
// expected-error @+1 {{expected D type f32 for kind::tf32, got f16}}
func.func private @idesc_tf32_d_f16() attributes {i = #sm100.idesc<kind = tf32, a = tf32, b = tf32, d = f16, m = 128, n = 256>}

// -----

// Rule: #sm100.idesc — kind::f8f6f4 accumulates in f16 or f32
// expected-error @+1 {{expected D type in {f16, f32} for kind::f8f6f4, got s32}}
func.func private @idesc_f8_d_i32() attributes {i = #sm100.idesc<kind = f8f6f4, a = f8E4M3FN, b = f8E4M3FN, d = i32, m = 128, n = 256>}

// -----

// Rule: #sm100.idesc — kind::i8 accumulates in s32
// expected-error @+1 {{expected D type s32 for kind::i8, got f32}}
func.func private @idesc_i8_d_f32() attributes {i = #sm100.idesc<kind = i8, a = si8, b = si8, d = f32, m = 128, n = 256>}

// -----

// Rule: #sm100.idesc — M for a dense kind with cta_group 1 is 64 or 128
// expected-error @+1 {{expected M in {64, 128} for kind::f16 with cta_group::1, got 256}}
func.func private @idesc_f16_m256_cta1() attributes {i = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 256, n = 256>}

// -----

// Rule: #sm100.idesc — M with cta_group 2 is 128 or 256
// expected-error @+1 {{expected M in {128, 256} for kind::f16 with cta_group::2, got 64}}
func.func private @idesc_f16_m64_cta2() attributes {i = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 64, n = 256, cta_group = 2>}

// -----

// Rule: #sm100.idesc — M for a block-scaled kind with cta_group 1 is 128
// expected-error @+1 {{expected M = 128 for kind::mxf4nvf4 with cta_group::1, got 64}}
func.func private @idesc_nvf4_m64() attributes {i = #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 64, n = 256, scale_type = ue4m3>}

// -----

// Rule: #sm100.idesc — N is at most 256
// expected-error @+1 {{expected N in [8, 256] for kind::f16 with cta_group::1, got 264}}
func.func private @idesc_n264() attributes {i = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 264>}

// -----

// Rule: #sm100.idesc — N steps by 8 with cta_group 1
// expected-error @+1 {{expected N to be a multiple of 8 for kind::f16 with cta_group::1, got 100}}
func.func private @idesc_n100() attributes {i = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 100>}

// -----

// Rule: #sm100.idesc — N steps by 16 with cta_group 2
// expected-error @+1 {{expected N to be a multiple of 16 for kind::f16 with cta_group::2, got 200}}
func.func private @idesc_n200_cta2() attributes {i = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 256, n = 200, cta_group = 2>}

// -----

// Rule: #sm100.idesc — kind::i8 N with cta_group 1 is 8, 16, 24, 32 or a multiple of 16
// expected-error @+1 {{expected N in {8, 16, 24, 32} or a multiple of 16 in [48, 256] for kind::i8 with cta_group::1, got 40}}
func.func private @idesc_i8_n40() attributes {i = #sm100.idesc<kind = i8, a = si8, b = si8, d = i32, m = 128, n = 40>}

// -----

// Rule: #sm100.idesc — kind::mxf4 has no transpose: A is K-major
// expected-error @+1 {{expected k-major A for kind::mxf4 (transpose is not supported), got mn-major}}
func.func private @idesc_mxf4_mn_a() attributes {i = #sm100.idesc<kind = mxf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, a_major = mn>}

// -----

// Rule: #sm100.idesc — kind::mxf4nvf4 has no transpose: B is K-major
// expected-error @+1 {{expected k-major B for kind::mxf4nvf4 (transpose is not supported), got mn-major}}
func.func private @idesc_nvf4_mn_b() attributes {i = #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, b_major = mn>}

// -----

// Rule: #sm100.idesc — kind::i8 has no negation
// expected-error @+1 {{expected no negation for kind::i8, got negate A}}
func.func private @idesc_i8_negate() attributes {i = #sm100.idesc<kind = i8, a = si8, b = si8, d = i32, m = 128, n = 256, negate_a = true>}

// -----

// Rule: #sm100.idesc — an MN-major 8-bit B needs N to be a multiple of 16 (cta_group 1)
// expected-error @+1 {{expected N to be a multiple of 16 in [16, 256] for an mn-major 8-bit B with cta_group::1, got 24}}
func.func private @idesc_f8_mn_b_n24() attributes {i = #sm100.idesc<kind = f8f6f4, a = f8E4M3FN, b = f8E4M3FN, d = f32, m = 128, n = 24, b_major = mn>}

// -----

// Rule: #sm100.idesc — ue4m3 scales are for kind::mxf4nvf4 only
// expected-error @+1 {{expected scale type ue8m0 for kind::mxf4, got ue4m3}}
func.func private @idesc_mxf4_ue4m3() attributes {i = #sm100.idesc<kind = mxf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3>}

// -----

//===----------------------------------------------------------------------===//
// sm100.tmem_alloc
//===----------------------------------------------------------------------===//

!slot = memref<1xi32, #gpu.address_space<workgroup>>
func.func @alloc_columns(%slot: !slot) {
  // Rule: sm100.tmem_alloc 1 — columns is a power of two in [32, 512]
  // expected-error @+1 {{'sm100.tmem_alloc' op expected a power of two in [32, 512] columns, got 48}}
  sm100.tmem_alloc %slot, 48 : !slot
  return
}

// -----

!slot = memref<1xi32, #gpu.address_space<workgroup>>
func.func @alloc_cta_group(%slot: !slot) {
  // Rule: sm100.tmem_alloc 2 — cta_group is 1 or 2
  // expected-error @+1 {{'sm100.tmem_alloc' op expected cta_group 1 or 2, got 3}}
  sm100.tmem_alloc %slot, 32 cta_group 3 : !slot
  return
}

// -----

!slot = memref<1xi32, #gpu.address_space<workgroup>>
func.func @alloc_elected(%slot: !slot) {
  sm100.elect_one {
    // Rule: sm100.tmem_alloc 3 — not inside sm100.elect_one
    // expected-error @+1 {{'sm100.tmem_alloc' op is warp-collective and must not be inside 'sm100.elect_one'}}
    sm100.tmem_alloc %slot, 32 : !slot
  }
  return
}

// -----

func.func @alloc_global_slot(%slot: memref<1xi32>) {
  // Constraint: sm100.tmem_alloc — the slot is a 1-D i32 memref in shared memory
  // expected-error @+1 {{'sm100.tmem_alloc' op operand #0 must be 1-D i32 memref in shared memory (workgroup address space), but got 'memref<1xi32>'}}
  sm100.tmem_alloc %slot, 32 : memref<1xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// sm100.tmem_dealloc, sm100.tmem_relinquish
//===----------------------------------------------------------------------===//

func.func @dealloc_columns(%t: !sm100.tmem<128x32xf32, acc>) {
  // Rule: sm100.tmem_dealloc 1 — columns is a power of two in [32, 512]
  // expected-error @+1 {{'sm100.tmem_dealloc' op expected a power of two in [32, 512] columns, got 1024}}
  sm100.tmem_dealloc %t, 1024 : !sm100.tmem<128x32xf32, acc>
  return
}

// -----

func.func @dealloc_covers(%t: !sm100.tmem<128x256xf32, acc>) {
  // Rule: sm100.tmem_dealloc 2 — columns covers the matrix type
  // expected-error @+1 {{'sm100.tmem_dealloc' op expected columns to cover the 256 columns of '!sm100.tmem<128x256xf32, acc>', got 128}}
  sm100.tmem_dealloc %t, 128 : !sm100.tmem<128x256xf32, acc>
  return
}

// -----

func.func @dealloc_elected(%t: !sm100.tmem<128x32xf32, acc>) {
  sm100.elect_one {
    // Rule: sm100.tmem_dealloc 3 — not inside sm100.elect_one
    // expected-error @+1 {{'sm100.tmem_dealloc' op is warp-collective and must not be inside 'sm100.elect_one'}}
    sm100.tmem_dealloc %t, 32 : !sm100.tmem<128x32xf32, acc>
  }
  return
}

// -----

func.func @dealloc_cta_group(%t: !sm100.tmem<128x32xf32, acc>) {
  // Rule: sm100.tmem_dealloc 4 — cta_group is 1 or 2
  // expected-error @+1 {{'sm100.tmem_dealloc' op expected cta_group 1 or 2, got 3}}
  sm100.tmem_dealloc %t, 32 cta_group 3 : !sm100.tmem<128x32xf32, acc>
  return
}

// -----

func.func @relinquish_cta_group() {
  // Rule: sm100.tmem_relinquish 1 — cta_group is 1 or 2
  // expected-error @+1 {{'sm100.tmem_relinquish' op expected cta_group 1 or 2, got 0}}
  sm100.tmem_relinquish cta_group 0
  return
}

// -----

//===----------------------------------------------------------------------===//
// sm100.tmem_slice
//===----------------------------------------------------------------------===//

func.func @slice_fits(%t: !sm100.tmem<128x256xf32, acc>) {
  // Rule: sm100.tmem_slice 1 — column + columns(result) <= columns(source)
  // expected-error @+1 {{'sm100.tmem_slice' op expected the slice [200, 328) to lie within the 256 columns of the source}}
  %s = sm100.tmem_slice %t[200] : !sm100.tmem<128x256xf32, acc> -> !sm100.tmem<128x128xf32, acc>
  return
}

// -----

func.func @slice_rows(%t: !sm100.tmem<64x256xf32, acc_m64>) {
  // Rule: sm100.tmem_slice 2 — no more rows than the source
  // expected-error @+1 {{'sm100.tmem_slice' op expected at most 64 rows, got 128}}
  %s = sm100.tmem_slice %t[0] : !sm100.tmem<64x256xf32, acc_m64> -> !sm100.tmem<128x32xf32, acc>
  return
}

// -----

//===----------------------------------------------------------------------===//
// sm100.tmem_load
//===----------------------------------------------------------------------===//

func.func @load_num(%t: !sm100.tmem<128x512xf32, acc>) {
  // Rule: sm100.tmem_load 1 — num is a legal repetition for the shape
  // expected-error @+1 {{'sm100.tmem_load' op expected a legal repetition for shape_16x256b (a power of two in [1, 128], at most 64 for shape_16x128b and 32 for shape_16x256b), got x64}}
  %r = sm100.tmem_load %t shape_16x256b x 64 : !sm100.tmem<128x512xf32, acc> -> vector<256xf32>
  return
}

// -----

func.func @load_registers(%t: !sm100.tmem<128x256xf32, acc>) {
  // Rule: sm100.tmem_load 1 — the result has the shape's register count (16x128b: 2 num)
  // expected-error @+1 {{'sm100.tmem_load' op expected 16 registers per thread for shape_16x128b x8, got 'vector<8xf32>'}}
  %r = sm100.tmem_load %t shape_16x128b x 8 : !sm100.tmem<128x256xf32, acc> -> vector<8xf32>
  return
}

// -----

func.func @load_columns(%t: !sm100.tmem<128x256xf32, acc>) {
  %c240 = arith.constant 240 : index
  // Rule: sm100.tmem_load 2 — a static column + the columns accessed fit in the matrix
  // expected-error @+1 {{'sm100.tmem_load' op expected the accessed columns [240, 272) to lie within the 256 columns of '!sm100.tmem<128x256xf32, acc>'}}
  %r = sm100.tmem_load %t[%c240] shape_32x32b x 32 : !sm100.tmem<128x256xf32, acc> -> vector<32xf32>
  return
}

// -----

func.func @load_quadrant(%t: !sm100.tmem<128x256xf32, acc>) {
  // Rule: sm100.tmem_load 3 — lane_base keeps the access in one lane quadrant
  // expected-error @+1 {{'sm100.tmem_load' op expected lanes [16, 48) to lie in one 32-lane quadrant}}
  %r = sm100.tmem_load %t shape_32x32b x 1 {lane_base = 16 : i32} : !sm100.tmem<128x256xf32, acc> -> vector<1xf32>
  return
}

// -----

func.func @load_role_quadrant(%t: !sm100.tmem<128x256xf32, acc>) {
  sm100.warp_roles 4 {
    sm100.role "epilogue" warps [1, 3) {
      // Rule: sm100.tmem_load 3 — inside a role, lane_base is in the quadrant of every warp of the role
      // expected-error @+1 {{'sm100.tmem_load' op accesses lanes [32, 64) but warp 2 of role 'epilogue' may only access lanes [64, 96)}}
      %r = sm100.tmem_load %t shape_32x32b x 1 {lane_base = 32 : i32} : !sm100.tmem<128x256xf32, acc> -> vector<1xf32>
    }
  }
  return
}

// -----

func.func @load_elected(%t: !sm100.tmem<128x256xf32, acc>) {
  sm100.elect_one {
    // Rule: sm100.tmem_load 4 — not inside sm100.elect_one
    // expected-error @+1 {{'sm100.tmem_load' op is warp-collective and must not be inside 'sm100.elect_one'}}
    %r = sm100.tmem_load %t shape_32x32b x 1 : !sm100.tmem<128x256xf32, acc> -> vector<1xf32>
  }
  return
}

// -----

func.func @load_half_split(%t: !sm100.tmem<128x256xf32, acc>) {
  // Rule: sm100.tmem_load 5 — shape_16x32bx2 takes half_split_offset
  // expected-error @+1 {{'sm100.tmem_load' op expected half_split_offset for shape_16x32bx2}}
  %r = sm100.tmem_load %t shape_16x32bx2 x 4 : !sm100.tmem<128x256xf32, acc> -> vector<4xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// sm100.tmem_store
//===----------------------------------------------------------------------===//

func.func @store_registers(%t: !sm100.tmem<128x256xf32, acc>, %v: vector<4xi32>) {
  // Rule: sm100.tmem_store 1 — the value has the shape's register count (16x256b: 4 num)
  // expected-error @+1 {{'sm100.tmem_store' op expected 8 registers per thread for shape_16x256b x2, got 'vector<4xi32>'}}
  sm100.tmem_store %v, %t shape_16x256b x 2 : vector<4xi32>, !sm100.tmem<128x256xf32, acc>
  return
}

// -----

func.func @store_columns(%t: !sm100.tmem<128x128xbf16, operand_a>, %v: vector<64xi32>) {
  // Rule: sm100.tmem_store 2 — the columns accessed fit in the matrix (unpack doubles them)
  // expected-error @+1 {{'sm100.tmem_store' op expected the accessed columns [0, 128) to lie within the 64 columns of '!sm100.tmem<128x128xbf16, operand_a>'}}
  sm100.tmem_store %v, %t shape_32x32b x 64 unpack : vector<64xi32>, !sm100.tmem<128x128xbf16, operand_a>
  return
}

// -----

func.func @store_quadrant(%t: !sm100.tmem<128x256xf32, acc>, %v: vector<1xi32>) {
  // Rule: sm100.tmem_store 3 — lane_base keeps the access inside the 128 lanes and one quadrant
  // expected-error @+1 {{'sm100.tmem_store' op expected lanes [120, 136) to lie in one 32-lane quadrant}}
  sm100.tmem_store %v, %t shape_16x64b x 1 {lane_base = 120 : i32} : vector<1xi32>, !sm100.tmem<128x256xf32, acc>
  return
}

// -----

func.func @store_elected(%t: !sm100.tmem<128x256xf32, acc>, %v: vector<1xi32>) {
  sm100.elect_one {
    // Rule: sm100.tmem_store 4 — not inside sm100.elect_one
    // expected-error @+1 {{'sm100.tmem_store' op is warp-collective and must not be inside 'sm100.elect_one'}}
    sm100.tmem_store %v, %t shape_32x32b x 1 : vector<1xi32>, !sm100.tmem<128x256xf32, acc>
  }
  return
}

// -----

func.func @store_half_split(%t: !sm100.tmem<128x256xf32, acc>, %v: vector<4xi32>) {
  // Rule: sm100.tmem_store 5 — only shape_16x32bx2 takes half_split_offset
  // expected-error @+1 {{'sm100.tmem_store' op expected no half_split_offset for shape_32x32b}}
  sm100.tmem_store %v, %t shape_32x32b x 4 {half_split_offset = 4 : i32} : vector<4xi32>, !sm100.tmem<128x256xf32, acc>
  return
}

// -----

//===----------------------------------------------------------------------===//
// sm100.wait
//===----------------------------------------------------------------------===//

func.func @wait_elected() {
  sm100.elect_one {
    // Rule: sm100.wait 1 — not inside sm100.elect_one
    // expected-error @+1 {{'sm100.wait' op is warp-collective and must not be inside 'sm100.elect_one'}}
    sm100.wait load
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// sm100.umma_desc
//===----------------------------------------------------------------------===//

func.func @desc_global(%a: memref<128x64xbf16>) {
  %c0 = arith.constant 0 : index
  // Rule: sm100.umma_desc 1 — the buffer lives in shared memory
  // expected-error @+1 {{'sm100.umma_desc' op operand #0 must be memref in shared memory (workgroup address space), but got 'memref<128x64xbf16>'}}
  %d = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64> %a[%c0, %c0] : memref<128x64xbf16>
  return
}

// -----

func.func @desc_indices(%a: memref<128x64xbf16, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // Rule: sm100.umma_desc 2 — one index per dimension of the buffer
  // expected-error @+1 {{'sm100.umma_desc' op expected 2 indices for 'memref<128x64xbf16, #gpu.address_space<workgroup>>', got 1}}
  %d = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64> %a[%c0] : memref<128x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @desc_k_slice(%a: memref<128x64xbf16, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // Rule: sm100.umma_desc 3 — k_slice < k * bits(element) / 256
  // expected-error @+1 {{'sm100.umma_desc' op expected k_slice in [0, 4) for a tile of k = 64 'bf16' (16 elements per MMA), got 4}}
  %d = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64> %a[%c0, %c0] k_slice 4 : memref<128x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @desc_shape(%a: memref<64x128xbf16, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // Rule: sm100.umma_desc 4 — a 2-D buffer of the element type has the layout's shape
  // expected-error @+1 {{'sm100.umma_desc' op expected a buffer of shape 128x64 for a k-major layout, got 'memref<64x128xbf16, #gpu.address_space<workgroup>>'}}
  %d = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64> %a[%c0, %c0] : memref<64x128xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// sm100.mma
//===----------------------------------------------------------------------===//

func.func @mma_acc(%d: !sm100.tmem<128x128xf32, acc>, %a: i64, %b: i64, %acc: i1) {
  sm100.elect_one {
    // Rule: sm100.mma 1 — d is the accumulator idesc describes
    // expected-error @+1 {{'sm100.mma' op expected the accumulator to be '!sm100.tmem<128x256xf32, acc>' for #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256>, got '!sm100.tmem<128x128xf32, acc>'}}
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %d, %a, %b, %acc : !sm100.tmem<128x128xf32, acc>, i64
  }
  return
}

// -----

func.func @mma_tmem_a(%d: !sm100.tmem<128x256xf32, acc>, %a: !sm100.tmem<128x64xf16, operand_a>, %b: i64, %acc: i1) {
  sm100.elect_one {
    // Rule: sm100.mma 2 — a TMEM A is operand_a with the A type of idesc
    // expected-error @+1 {{'sm100.mma' op expected A in TMEM to be '!sm100.tmem<128x16xbf16, operand_a>' or wider (K >= 16), got '!sm100.tmem<128x64xf16, operand_a>'}}
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %d, %a, %b, %acc : !sm100.tmem<128x256xf32, acc>, !sm100.tmem<128x64xf16, operand_a>
  }
  return
}

// -----

func.func @mma_tmem_a_major(%d: !sm100.tmem<128x256xf32, acc>, %a: !sm100.tmem<128x64xbf16, operand_a>, %b: i64, %acc: i1) {
  sm100.elect_one {
    // Rule: sm100.mma 2 — a TMEM A is K-major
    // expected-error @+1 {{'sm100.mma' op expected a K-major A when A is in tensor memory}}
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256, a_major = mn> %d, %a, %b, %acc : !sm100.tmem<128x256xf32, acc>, !sm100.tmem<128x64xbf16, operand_a>
  }
  return
}

// -----

func.func @mma_not_elected(%d: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %acc: i1) {
  // Rule: sm100.mma 3 — issued inside sm100.elect_one
  // expected-error @+1 {{'sm100.mma' op expected to be inside 'sm100.elect_one' (it is issued by a single thread)}}
  sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %d, %a, %b, %acc : !sm100.tmem<128x256xf32, acc>, i64
  return
}

// -----

func.func @mma_wide_role(%d: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %acc: i1) {
  sm100.warp_roles 4 {
    sm100.role "mma" warps [0, 2) {
      sm100.elect_one {
        // Rule: sm100.mma 3 — inside a role, the role has exactly one warp
        // expected-error @+1 {{'sm100.mma' op expected to be issued from a one-warp role, but role 'mma' has 2 warps}}
        sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %d, %a, %b, %acc : !sm100.tmem<128x256xf32, acc>, i64
      }
    }
  }
  return
}

// -----

func.func @mma_cta2_m128(%d: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %acc: i1) {
  sm100.elect_one {
    // Rule: sm100.mma 4 — cta_group 2 only with M = 256
    // expected-error @+1 {{'sm100.mma' op supports cta_group 2 only with M = 256, got M = 128}}
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256, cta_group = 2> %d, %a, %b, %acc : !sm100.tmem<128x256xf32, acc>, i64
  }
  return
}

// -----

func.func @mma_block_scaled(%d: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %acc: i1) {
  sm100.elect_one {
    // Rule: sm100.mma 5 — the kind is dense
    // expected-error @+1 {{'sm100.mma' op expected a dense kind (f16, tf32, f8f6f4, i8); the block-scaled kind mxf4nvf4 needs scale-factor operands, which sm100.mma does not take}}
    sm100.mma #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3> %d, %a, %b, %acc : !sm100.tmem<128x256xf32, acc>, i64
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// sm100.mma_block_scale
//===----------------------------------------------------------------------===//

func.func @mma_block_scale_1(%d: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %acc: i1, %sa: !sm100.tmem<128x16xf8E4M3FN, scales>, %sb: !sm100.tmem<128x32xf8E4M3FN, scales>) {
  // Rule: sm100.mma_block_scale 1 — the kind is block-scaled
  sm100.elect_one {
      // expected-error @+1 {{'sm100.mma_block_scale' op expected a block-scaled kind (mxf8f6f4, mxf4, mxf4nvf4), got f16; dense kinds use sm100.mma}}
    sm100.mma_block_scale #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %d, %a, %b, %acc scales(%sa, %sb) : !sm100.tmem<128x256xf32, acc>, !sm100.tmem<128x16xf8E4M3FN, scales>, !sm100.tmem<128x32xf8E4M3FN, scales>
  }
  return
}

// -----

func.func @mma_block_scale_2(%d: !sm100.tmem<128x128xf32, acc>, %a: i64, %b: i64, %acc: i1, %sa: !sm100.tmem<128x16xf8E4M3FN, scales>, %sb: !sm100.tmem<128x32xf8E4M3FN, scales>) {
  // Rule: sm100.mma_block_scale 2 — an f32 accumulator of M x N
  sm100.elect_one {
      // expected-error @+1 {{'sm100.mma_block_scale' op expected the accumulator to be '!sm100.tmem<128x256xf32, acc>' for #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3>, got '!sm100.tmem<128x128xf32, acc>'}}
    sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3> %d, %a, %b, %acc scales(%sa, %sb) : !sm100.tmem<128x128xf32, acc>, !sm100.tmem<128x16xf8E4M3FN, scales>, !sm100.tmem<128x32xf8E4M3FN, scales>
  }
  return
}

// -----

func.func @mma_block_scale_3(%d: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %acc: i1, %sa: !sm100.tmem<128x16xf8E4M3FN, scales>, %sb: !sm100.tmem<128x32xf8E4M3FN, scales>) {
  // Rule: sm100.mma_block_scale 3 — FP4 operands are K-major
  sm100.elect_one {
      // (checked by the #sm100.idesc attribute)
    // expected-error @+1 {{expected k-major B for kind::mxf4nvf4 (transpose is not supported), got mn-major}}
    sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, b_major = mn, scale_type = ue4m3> %d, %a, %b, %acc scales(%sa, %sb) : !sm100.tmem<128x256xf32, acc>, !sm100.tmem<128x16xf8E4M3FN, scales>, !sm100.tmem<128x32xf8E4M3FN, scales>
  }
  return
}

// -----

func.func @mma_block_scale_4(%d: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %acc: i1, %sa: !sm100.tmem<128x16xf8E4M3FN, scales>, %sb: !sm100.tmem<128x32xf8E4M3FN, scales>) {
  // Rule: sm100.mma_block_scale 4 — ue4m3 only with mxf4nvf4
  sm100.elect_one {
      // (checked by the #sm100.idesc attribute)
    // expected-error @+1 {{expected scale type ue8m0 for kind::mxf8f6f4, got ue4m3}}
    sm100.mma_block_scale #sm100.idesc<kind = mxf8f6f4, a = f8E4M3FN, b = f8E4M3FN, d = f32, m = 128, n = 256, scale_type = ue4m3> %d, %a, %b, %acc scales(%sa, %sb) : !sm100.tmem<128x256xf32, acc>, !sm100.tmem<128x16xf8E4M3FN, scales>, !sm100.tmem<128x32xf8E4M3FN, scales>
  }
  return
}

// -----

func.func @mma_block_scale_5(%d: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %acc: i1, %sa: !sm100.tmem<128x8xf8E4M3FN, scales>, %sb: !sm100.tmem<128x32xf8E4M3FN, scales>) {
  // Rule: sm100.mma_block_scale 5 — scale_a spans 4 columns
  sm100.elect_one {
      // expected-error @+1 {{'sm100.mma_block_scale' op expected scale_a to be a `scales` matrix of 'f8E4M3FN' at least 4 TMEM columns wide ('!sm100.tmem<128x16xf8E4M3FN, scales>' or wider), got '!sm100.tmem<128x8xf8E4M3FN, scales>'}}
    sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3> %d, %a, %b, %acc scales(%sa, %sb) : !sm100.tmem<128x256xf32, acc>, !sm100.tmem<128x8xf8E4M3FN, scales>, !sm100.tmem<128x32xf8E4M3FN, scales>
  }
  return
}

// -----

func.func @mma_block_scale_5(%d: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %acc: i1, %sa: !sm100.tmem<128x16xf8E4M3FN, scales>, %sb: !sm100.tmem<128x32xf8E8M0FNU, scales>) {
  // Rule: sm100.mma_block_scale 5 — scale_b spans ceil(N/32) columns of the scale type
  sm100.elect_one {
      // expected-error @+1 {{'sm100.mma_block_scale' op expected scale_b to be a `scales` matrix of 'f8E4M3FN' at least 8 TMEM columns wide ('!sm100.tmem<128x32xf8E4M3FN, scales>' or wider), got '!sm100.tmem<128x32xf8E8M0FNU, scales>'}}
    sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3> %d, %a, %b, %acc scales(%sa, %sb) : !sm100.tmem<128x256xf32, acc>, !sm100.tmem<128x16xf8E4M3FN, scales>, !sm100.tmem<128x32xf8E8M0FNU, scales>
  }
  return
}

// -----

func.func @mma_block_scale_6(%d: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %acc: i1, %sa: !sm100.tmem<128x16xf8E4M3FN, scales>, %sb: !sm100.tmem<128x32xf8E4M3FN, scales>) {
  // Rule: sm100.mma_block_scale 6 — issued by a single thread
    // expected-error @+1 {{'sm100.mma_block_scale' op expected to be inside 'sm100.elect_one' (it is issued by a single thread)}}
    sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3> %d, %a, %b, %acc scales(%sa, %sb) : !sm100.tmem<128x256xf32, acc>, !sm100.tmem<128x16xf8E4M3FN, scales>, !sm100.tmem<128x32xf8E4M3FN, scales>
  return
}

// -----

func.func @mma_block_scale_7(%d: !sm100.tmem<64x256xf32, acc_m64>, %a: i64, %b: i64, %acc: i1, %sa: !sm100.tmem<128x16xf8E4M3FN, scales>, %sb: !sm100.tmem<128x32xf8E4M3FN, scales>) {
  // Rule: sm100.mma_block_scale 7 — cta_group 2 needs M = 256
  sm100.elect_one {
      // expected-error @+1 {{'sm100.mma_block_scale' op supports cta_group 2 only with M = 256, got M = 128}}
    sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, cta_group = 2, scale_type = ue4m3> %d, %a, %b, %acc scales(%sa, %sb) : !sm100.tmem<64x256xf32, acc_m64>, !sm100.tmem<128x16xf8E4M3FN, scales>, !sm100.tmem<128x32xf8E4M3FN, scales>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// sm100.tmem_copy
//===----------------------------------------------------------------------===//

func.func @tmem_copy_narrow(%t: !sm100.tmem<128x16xf8E4M3FN, scales>, %desc: i64) {
  sm100.elect_one {
    // Rule: sm100.tmem_copy 1 — the destination is wide enough
    // expected-error @+1 {{'sm100.tmem_copy' op expected a 128-row destination at least 8 TMEM columns wide for shape_128x256b, got '!sm100.tmem<128x16xf8E4M3FN, scales>'}}
    sm100.tmem_copy shape_128x256b %t, %desc : !sm100.tmem<128x16xf8E4M3FN, scales>
  }
  return
}

// -----

func.func @tmem_copy_not_elected(%t: !sm100.tmem<128x16xf8E4M3FN, scales>, %desc: i64) {
  // Rule: sm100.tmem_copy 2 — issued by a single thread
  // expected-error @+1 {{'sm100.tmem_copy' op expected to be inside 'sm100.elect_one' (it is issued by a single thread)}}
  sm100.tmem_copy shape_32x128b_warpx4 %t, %desc : !sm100.tmem<128x16xf8E4M3FN, scales>
  return
}

// -----

func.func @tmem_copy_group(%t: !sm100.tmem<128x16xf8E4M3FN, scales>, %desc: i64) {
  sm100.elect_one {
    // Rule: sm100.tmem_copy 3 — cta_group 1 or 2
    // expected-error @+1 {{'sm100.tmem_copy' op expected cta_group 1 or 2, got 3}}
    sm100.tmem_copy shape_32x128b_warpx4 %t, %desc {cta_group = 3} : !sm100.tmem<128x16xf8E4M3FN, scales>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// sm100.commit
//===----------------------------------------------------------------------===//

!ring = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
func.func @commit_not_elected(%ring: !ring, %i: index) {
  // Rule: sm100.commit 1 — issued inside sm100.elect_one
  // expected-error @+1 {{'sm100.commit' op expected to be inside 'sm100.elect_one' (it is issued by a single thread)}}
  sm100.commit %ring[%i] : !ring
  return
}

// -----

!ring = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
func.func @commit_cta_group(%ring: !ring, %i: index) {
  sm100.elect_one {
    // Rule: sm100.commit 2 — cta_group is 1 or 2
    // expected-error @+1 {{'sm100.commit' op expected cta_group 1 or 2, got 4}}
    sm100.commit %ring[%i] cta_group 4 : !ring
  }
  return
}

// -----

func.func @commit_barrier_type(%bars: memref<4xi64>, %i: index) {
  sm100.elect_one {
    // Constraint: sm100.commit — barriers are an nvgpu group or an i64 memref in shared memory
    // expected-error @+1 {{'sm100.commit' op operand #0 must be nvgpu mbarrier group or 1-D i64 memref of mbarriers in shared memory, but got 'memref<4xi64>'}}
    sm100.commit %bars[%i] : memref<4xi64>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// sm100.warp_roles, sm100.role
//===----------------------------------------------------------------------===//

func.func @roles_body_op() {
  sm100.warp_roles 4 {
    // Rule: sm100.warp_roles 1 — the body holds only sm100.role ops
    // expected-error @+1 {{'arith.constant' op is not allowed directly in 'sm100.warp_roles' (expected only 'sm100.role')}}
    %c0 = arith.constant 0 : index
    sm100.role "a" warps [0, 4) {
    }
  }
  return
}

// -----

func.func @roles_empty() {
  // Rule: sm100.warp_roles 1 — at least one sm100.role
  // expected-error @+1 {{'sm100.warp_roles' op expected at least one 'sm100.role'}}
  sm100.warp_roles 4 {
  }
  return
}

// -----

func.func @roles_duplicate_name() {
  sm100.warp_roles 4 {
    sm100.role "a" warps [0, 1) {
    }
    // Rule: sm100.warp_roles 2 — role names are unique
    // expected-error @+1 {{'sm100.role' op duplicates the role name 'a'}}
    sm100.role "a" warps [1, 2) {
    }
  }
  return
}

// -----

func.func @roles_overlap() {
  sm100.warp_roles 4 {
    sm100.role "a" warps [0, 2) {
    }
    // Rule: sm100.warp_roles 2 — warp ranges are disjoint
    // expected-error @+1 {{'sm100.role' op overlaps role 'a' at warp 1}}
    sm100.role "b" warps [1, 3) {
    }
  }
  return
}

// -----

func.func @roles_out_of_range() {
  sm100.warp_roles 4 {
    // Rule: sm100.warp_roles 2 — warp ranges lie in [0, num_warps)
    // expected-error @+1 {{'sm100.role' op expected warps within [0, 4), got [2, 5)}}
    sm100.role "a" warps [2, 5) {
    }
  }
  return
}

// -----

func.func @role_empty_range() {
  sm100.warp_roles 4 {
    // Rule: sm100.warp_roles 2 — a role's warp range is non-empty
    // expected-error @+1 {{'sm100.role' op expected a non-empty warp range [begin, end), got [2, 2)}}
    sm100.role "a" warps [2, 2) {
    }
  }
  return
}

// -----

func.func @roles_warpgroup_regs() attributes {nvvm.maxnreg = 128 : i32} {
  sm100.warp_roles 8 {
    // Rule: sm100.warp_roles 3 — a warpgroup sets one register budget
    // expected-error @+1 {{'sm100.role' op sets regs 152, so every warp of its warpgroup must set the same (setmaxnreg is warpgroup-wide), but warp 2 is in role 'mma' with regs 104}}
    sm100.role "epilogue" warps [0, 2) regs 152 {
    }
    sm100.role "mma" warps [2, 4) regs 104 {
    }
  }
  return
}

// -----

func.func @roles_regs_value() attributes {nvvm.maxnreg = 128 : i32} {
  sm100.warp_roles 4 {
    // Rule: sm100.warp_roles 4 — regs is a multiple of 8 in [24, 256]
    // expected-error @+1 {{'sm100.role' op expected regs to be a multiple of 8 in [24, 256], got 100}}
    sm100.role "all" warps [0, 4) regs 100 {
    }
  }
  return
}

// -----

func.func @roles_no_maxnreg() {
  // Rule: sm100.warp_roles 5 — regs needs nvvm.maxnreg on the function
  // expected-error @+1 {{'sm100.warp_roles' op sets role registers, so the enclosing function needs 'nvvm.maxnreg' (setmaxnreg requires a register cap at launch)}}
  sm100.warp_roles 4 {
    sm100.role "all" warps [0, 4) regs 104 {
    }
  }
  return
}

// -----

func.func @roles_register_file() attributes {nvvm.maxnreg = 200 : i32} {
  // Rule: sm100.warp_roles 5 — maxnreg x threads fits the register file
  // expected-error @+1 {{'sm100.warp_roles' op expected nvvm.maxnreg x threads to fit the register file of 65536, got 200 x 512}}
  sm100.warp_roles 16 {
    sm100.role "all" warps [0, 16) regs 128 {
    }
  }
  return
}

// -----

func.func @roles_pool() attributes {nvvm.maxnreg = 128 : i32} {
  // Rule: sm100.warp_roles 5 — the roles' registers fit the launch pool
  // expected-error @+1 {{'sm100.warp_roles' op role registers exceed the launch pool: roles hold 41984 registers but maxnreg 128 x 256 threads reserves 32768}}
  sm100.warp_roles 8 {
    sm100.role "epilogue" warps [0, 4) regs 232 {
    }
    sm100.role "rest" warps [4, 8) regs 96 {
    }
  }
  return
}

// -----

func.func @roles_num_warps() {
  // Rule: sm100.warp_roles 6 — num_warps is in [1, 32]
  // expected-error @+1 {{'sm100.warp_roles' op expected num_warps in [1, 32], got 33}}
  sm100.warp_roles 33 {
    sm100.role "a" warps [0, 1) {
    }
  }
  return
}

// -----

gpu.module @kernels {
  gpu.func @roles_block(%arg0: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    // Rule: sm100.warp_roles 6 — num_warps matches gpu.known_block_size
    // expected-error @+1 {{'sm100.warp_roles' op expected a one-dimensional block of 256 threads (known_block_size), got [128, 1, 1]}}
    sm100.warp_roles 8 {
      sm100.role "a" warps [0, 8) {
      }
    }
    gpu.return
  }
}

// -----

func.func @role_outside() {
  // Constraint: sm100.role — nested directly in sm100.warp_roles
  // expected-error @+1 {{'sm100.role' op expects parent op 'sm100.warp_roles'}}
  sm100.role "a" warps [0, 1) {
  }
  return
}

// -----

func.func @lane_base_negative(%t: !sm100.tmem<128x256xf32, acc>) {
  // Rule: sm100.tmem_load 3 — a negative lane_base is outside the 128 lanes
  // expected-error @+1 {{'sm100.tmem_load' op expected lanes [-32, 0) to lie in one 32-lane quadrant}}
  %r = sm100.tmem_load %t shape_32x32b x 1 {lane_base = -32 : i32} : !sm100.tmem<128x256xf32, acc> -> vector<1xf32>
  return
}

// -----

// Verifier: #sm100.idesc — block-scaled kinds accumulate in f32
// expected-error @+1 {{expected d = f32 for the block-scaled kind mxf4nvf4, got 'i32'}}
func.func @block_scaled_d() attributes {d = #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = i32, m = 128, n = 256, scale_type = ue4m3>} {
  return
}

// -----

func.func @mma_else_branch(%acc: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %en: i1) {
  %e = nvvm.elect.sync -> i1
  scf.if %e {
  } else {
    // Rule: sm100.mma 3 — the else branch of an scf.if on nvvm.elect.sync is not single-thread
    // expected-error @+1 {{'sm100.mma' op expected to be inside 'sm100.elect_one' (it is issued by a single thread)}}
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %acc, %a, %b, %en : !sm100.tmem<128x256xf32, acc>, i64
  }
  return
}

// -----

func.func @commit_multi_warp_role(%ring: !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>, %i: index) {
  sm100.warp_roles 4 {
    sm100.role "producer" warps [0, 4) {
      sm100.elect_one {
        // Rule: sm100.commit 3 — a role of several warps would arrive once per warp
        // expected-error @+1 {{'sm100.commit' op expected to be issued from a one-warp role, but role 'producer' has 4 warps}}
        sm100.commit %ring[%i] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
      }
    }
  }
  return
}

// -----

func.func @alloc_multi_warp_role(%slot: memref<1xi32, #gpu.address_space<workgroup>>) {
  sm100.warp_roles 4 {
    sm100.role "epilogue" warps [0, 4) {
      // Rule: sm100.tmem_alloc 4 — every warp of the role would allocate
      // expected-error @+1 {{'sm100.tmem_alloc' op expected to be issued from a one-warp role, but role 'epilogue' has 4 warps}}
      sm100.tmem_alloc %slot, 128 : memref<1xi32, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

func.func @dealloc_multi_warp_role(%t: !sm100.tmem<128x128xf32, acc>) {
  sm100.warp_roles 4 {
    sm100.role "epilogue" warps [0, 4) {
      // Rule: sm100.tmem_dealloc 5 — every warp of the role would free
      // expected-error @+1 {{'sm100.tmem_dealloc' op expected to be issued from a one-warp role, but role 'epilogue' has 4 warps}}
      sm100.tmem_dealloc %t, 128 : !sm100.tmem<128x128xf32, acc>
    }
  }
  return
}

// -----

func.func @tmem_load_in_else_is_fine(%t: !sm100.tmem<128x256xf32, acc>) {
  %e = nvvm.elect.sync -> i1
  scf.if %e {
  } else {
    // Not an error: the else branch is not single-thread. The next op is the
    // error this case checks.
    %r = sm100.tmem_load %t shape_32x32b x 1 : !sm100.tmem<128x256xf32, acc> -> vector<1xf32>
    // Rule: sm100.tmem_load 5 — half_split_offset only with shape_16x32bx2
    // expected-error @+1 {{'sm100.tmem_load' op expected no half_split_offset for shape_32x32b}}
    %s = sm100.tmem_load %t shape_32x32b x 1 {half_split_offset = 4 : i32} : !sm100.tmem<128x256xf32, acc> -> vector<1xf32>
  }
  return
}

// -----

// Constraint: sm100.role — required attributes are checked before
// sm100.warp_roles reads them (generic form without `begin`).
"sm100.warp_roles"() <{num_warps = 1 : i32}> ({
  // expected-error @+1 {{'sm100.role' op requires attribute 'begin'}}
  "sm100.role"() <{end = 1 : i32, role_name = "a"}> ({
  ^bb0:
  }) : () -> ()
}) : () -> ()

// -----

func.func @elect_one_block_argument() {
  // Constraint: sm100.elect_one — its region has no arguments
  // expected-error @+1 {{'sm100.elect_one' op region should have no arguments}}
  sm100.elect_one {
  ^bb0(%x: i32):
    %y = arith.addi %x, %x : i32
  }
  return
}

// -----

func.func @slice_cycle() {
  builtin.module {
    // Rule: sm100.tmem_slice 3 — a slice cannot be its own source (graph regions)
    // expected-error @+1 {{'sm100.tmem_slice' op is its own source (a cycle of sm100.tmem_slice)}}
    %a = sm100.tmem_slice %a[0] : !sm100.tmem<128x32xf32, acc> -> !sm100.tmem<128x32xf32, acc>
  }
  return
}

// -----

func.func @maxnreg_range() attributes {nvvm.maxnreg = -1 : i32} {
  // Rule: sm100.warp_roles 5 — nvvm.maxnreg is a register count
  // expected-error @+1 {{'sm100.warp_roles' op expected nvvm.maxnreg in [1, 255], got -1 : i32}}
  sm100.warp_roles 4 {
    sm100.role "a" warps [0, 4) regs 96 {
    }
  }
  return
}

// -----

func.func @commit_index(%ring: !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>) {
  %c4 = arith.constant 4 : index
  sm100.elect_one {
    // Rule: sm100.commit 4 — a constant index names one of the barriers
    // expected-error @+1 {{'sm100.commit' op expected a barrier index in [0, 4), got 4}}
    sm100.commit %ring[%c4] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
  }
  return
}

// -----

func.func @commit_global(%ring: !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<global>, num_barriers = 4>, %i: index) {
  sm100.elect_one {
    // Rule: sm100.commit 4 — mbarriers live in shared memory
    // expected-error @+1 {{'sm100.commit' op expected mbarriers in shared memory (#gpu.address_space<workgroup>)}}
    sm100.commit %ring[%i] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<global>, num_barriers = 4>
  }
  return
}

// -----

// Verifier: !sm100.tmem — element widths the tensor cores use
// expected-error @+1 {{expected a 4-, 6-, 8-, 16- or 32-bit element type, got 'f128'}}
func.func @tmem_f128(%t: !sm100.tmem<128x64xf128, operand_a>) {
  return
}

// -----

// Verifier: !sm100.tmem — huge column counts are rejected before any overflow
// expected-error @+1 {{expected at most 512 TMEM columns, got 4611686018427387904 columns of 32-bit elements}}
func.func @tmem_huge(%t: !sm100.tmem<128x4611686018427387904xi32, operand_a>) {
  return
}

// -----

// Verifier: #sm100.smem_layout — the tile fits in shared memory
// expected-error @+1 {{expected the tile to fit in shared memory (232448 bytes), got 8589934592 bytes}}
func.func @tile_too_large() attributes {l = #sm100.smem_layout<major = k, swizzle = none, element = f16, mn = 268435456, k = 16>} {
  return
}

// -----

func.func @umma_desc_vector_memref(%a: memref<128x64xvector<2xbf16>, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  // Rule: sm100.umma_desc 1 — the buffer holds scalar elements
  // expected-error @+1 {{'sm100.umma_desc' op expected a buffer of integer or float elements, got 'memref<128x64xvector<2xbf16>, #gpu.address_space<workgroup>>'}}
  %d = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64> %a[%c0, %c0] : memref<128x64xvector<2xbf16>, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @empty_slot(%slot: memref<0xi32, #gpu.address_space<workgroup>>) {
  // Rule: sm100.tmem_alloc 5 — the slot holds one i32
  // expected-error @+1 {{'sm100.tmem_alloc' op expected a slot with room for one i32, got 'memref<0xi32, #gpu.address_space<workgroup>>'}}
  sm100.tmem_alloc %slot, 32 : memref<0xi32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @negative_num(%t: !sm100.tmem<128x256xf32, acc>) {
  // Rule: sm100.tmem_load 1 — negative repetitions print as negative
  // expected-error @+1 {{got x-1}}
  %r = sm100.tmem_load %t shape_32x32b x -1 : !sm100.tmem<128x256xf32, acc> -> vector<1xf32>
  return
}
