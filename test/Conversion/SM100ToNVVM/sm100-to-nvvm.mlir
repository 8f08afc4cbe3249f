// Each sm100 op's lowering to nvvm.tcgen05.* and llvm, with the descriptor
// constants the encoder library folds (hand-computed beside each check).
// Single-thread issue regions are written as the scf.if on nvvm.elect.sync
// that sm100-lower-warp-roles produces, so this file runs only the
// conversion.

// RUN: nvfp4-opt %s --convert-sm100-to-nvvm | FileCheck %s

!slot = memref<1xi32, #gpu.address_space<workgroup>>
!acc = !sm100.tmem<128x256xf32, acc>
!ring = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
!bars = memref<4xi64, #gpu.address_space<workgroup>>
!tileA = memref<128x64xbf16, #gpu.address_space<workgroup>>
!tileB = memref<256x64xbf16, #gpu.address_space<workgroup>>

// A TMEM value is a 32-bit TMEM address in address space 6.
// CHECK-LABEL: func.func @tmem_type
// CHECK-SAME: (%[[T:.+]]: !sm100.tmem<128x256xf32, acc>)
// CHECK: %[[P:.+]] = builtin.unrealized_conversion_cast %[[T]] : !sm100.tmem<128x256xf32, acc> to !llvm.ptr<6>
// CHECK: nvvm.tcgen05.dealloc %[[P]], %{{.+}} : !llvm.ptr<6>, i32
func.func @tmem_type(%t: !acc) {
  sm100.tmem_dealloc %t, 256 : !acc
  return
}

// CHECK-LABEL: func.func @alloc_base_slice_dealloc
func.func @alloc_base_slice_dealloc(%slot: !slot) {
  // The slot's address is its aligned pointer (field 1 of the descriptor).
  // CHECK: %[[DESC:.+]] = builtin.unrealized_conversion_cast %{{.+}} : memref<1xi32, #gpu.address_space<workgroup>> to !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
  // CHECK: %[[ALIGNED:.+]] = llvm.extractvalue %[[DESC]][1]
  // CHECK: %[[SLOT:.+]] = llvm.getelementptr %[[ALIGNED]][%{{.+}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i32
  // CHECK: %[[N256:.+]] = llvm.mlir.constant(256 : i32) : i32
  // CHECK: nvvm.tcgen05.alloc %[[SLOT]], %[[N256]] : !llvm.ptr<3>, i32
  // CHECK-NOT: group
  sm100.tmem_alloc %slot, 256 : !slot
  // CHECK: %[[N64:.+]] = llvm.mlir.constant(64 : i32) : i32
  // CHECK: nvvm.tcgen05.alloc %{{.+}}, %[[N64]] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
  sm100.tmem_alloc %slot, 64 cta_group 2 : !slot
  // tmem_base: load the 32-bit address from the slot, then inttoptr.
  // CHECK: %[[BSLOT:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i32
  // CHECK: %[[ADDR:.+]] = llvm.load %[[BSLOT]] {alignment = 4 : i64} : !llvm.ptr<3> -> i32
  // CHECK: %[[BASE:.+]] = llvm.inttoptr %[[ADDR]] : i32 to !llvm.ptr<6>
  %acc = sm100.tmem_base %slot : !slot -> !acc
  // tmem_slice [128]: base + 128 columns (the column is the low half).
  // CHECK: %[[C128:.+]] = llvm.mlir.constant(128 : i32) : i32
  // CHECK: %[[BI:.+]] = llvm.ptrtoint %[[BASE]] : !llvm.ptr<6> to i32
  // CHECK: %[[SI:.+]] = llvm.add %[[BI]], %[[C128]] : i32
  // CHECK: %[[SLICE:.+]] = llvm.inttoptr %[[SI]] : i32 to !llvm.ptr<6>
  %s = sm100.tmem_slice %acc[128] : !acc -> !sm100.tmem<128x128xf32, acc>
  // tmem_slice [0] is the base itself: no arithmetic.
  %s0 = sm100.tmem_slice %acc[0] : !acc -> !sm100.tmem<128x128xf32, acc>
  // CHECK: %[[D128:.+]] = llvm.mlir.constant(128 : i32) : i32
  // CHECK: nvvm.tcgen05.dealloc %[[SLICE]], %[[D128]] : !llvm.ptr<6>, i32
  sm100.tmem_dealloc %s, 128 : !sm100.tmem<128x128xf32, acc>
  // CHECK-NOT: llvm.ptrtoint
  // CHECK: nvvm.tcgen05.dealloc %[[BASE]], %{{.+}} {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
  sm100.tmem_dealloc %s0, 128 cta_group 2 : !sm100.tmem<128x128xf32, acc>
  // CHECK: nvvm.tcgen05.relinquish_alloc_permit{{$}}
  sm100.tmem_relinquish
  // CHECK: nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
  sm100.tmem_relinquish cta_group 2
  return
}

// Without lane_base the address is tile + (32 * ((tid.x >> 5) & 3)) << 16
// + column; the result registers are bit-cast to f32.
// CHECK-LABEL: func.func @load_dynamic_lane
// CHECK-SAME: (%[[T:[^:]+]]: !sm100.tmem<128x256xf32, acc>, %[[COL:[^:]+]]: index)
func.func @load_dynamic_lane(%acc: !acc, %col: index) -> vector<32xf32> {
  // CHECK-DAG: %[[COL64:.+]] = builtin.unrealized_conversion_cast %[[COL]] : index to i64
  // CHECK-DAG: %[[P:.+]] = builtin.unrealized_conversion_cast %[[T]] : !sm100.tmem<128x256xf32, acc> to !llvm.ptr<6>
  // CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: %[[C5:.+]] = llvm.mlir.constant(5 : i32) : i32
  // CHECK: %[[WARP:.+]] = llvm.lshr %[[TID]], %[[C5]] : i32
  // CHECK: %[[C3:.+]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK: %[[QUAD:.+]] = llvm.and %[[WARP]], %[[C3]] : i32
  // CHECK: %[[C32:.+]] = llvm.mlir.constant(32 : i32) : i32
  // CHECK: %[[LANE:.+]] = llvm.mul %[[QUAD]], %[[C32]] : i32
  // CHECK: %[[COL32:.+]] = llvm.trunc %[[COL64]] : i64 to i32
  // CHECK: %[[PI:.+]] = llvm.ptrtoint %[[P]] : !llvm.ptr<6> to i32
  // CHECK: %[[C16:.+]] = llvm.mlir.constant(16 : i32) : i32
  // CHECK: %[[LANEHI:.+]] = llvm.shl %[[LANE]], %[[C16]] : i32
  // CHECK: %[[A1:.+]] = llvm.add %[[PI]], %[[LANEHI]] : i32
  // CHECK: %[[A2:.+]] = llvm.add %[[A1]], %[[COL32]] : i32
  // CHECK: %[[ADDR:.+]] = llvm.inttoptr %[[A2]] : i32 to !llvm.ptr<6>
  // CHECK: %[[R:.+]] = nvvm.tcgen05.ld %[[ADDR]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
  // The registers are defined by an inline-asm tcgen05.wait::ld with tied
  // operands, so no use is scheduled before the wait.
  // CHECK: %[[E0:.+]] = llvm.extractelement %[[R]]
  // CHECK: %[[W:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "tcgen05.wait::ld.sync.aligned;", "=r,=r,{{.*}},=r,0,1,{{.*}},31" %[[E0]], {{.*}} -> !llvm.struct<(i32, {{.*}})>
  // CHECK: %[[X0:.+]] = llvm.extractvalue %[[W]][0]
  // CHECK: %[[V0:.+]] = llvm.insertelement %[[X0]]
  // CHECK: %[[X31:.+]] = llvm.extractvalue %[[W]][31]
  // CHECK: %[[V31:.+]] = llvm.insertelement %[[X31]]
  // CHECK: %[[F:.+]] = llvm.bitcast %[[V31]] : vector<32xi32> to vector<32xf32>
  // CHECK: return %[[F]] : vector<32xf32>
  %v = sm100.tmem_load %acc[%col] shape_32x32b x 32 : !acc -> vector<32xf32>
  return %v : vector<32xf32>
}

// A static lane_base replaces the quadrant computation; one register is a
// plain i32.
// CHECK-LABEL: func.func @load_static_lane
func.func @load_static_lane(%acc: !acc) -> vector<1xi32> {
  // CHECK: %[[P:.+]] = builtin.unrealized_conversion_cast
  // CHECK-NOT: nvvm.read.ptx.sreg.tid.x
  // CHECK: %[[L64:.+]] = llvm.mlir.constant(64 : i32) : i32
  // CHECK: %[[PI:.+]] = llvm.ptrtoint %[[P]] : !llvm.ptr<6> to i32
  // CHECK: %[[C16:.+]] = llvm.mlir.constant(16 : i32) : i32
  // CHECK: %[[LANEHI:.+]] = llvm.shl %[[L64]], %[[C16]] : i32
  // CHECK: %[[A:.+]] = llvm.add %[[PI]], %[[LANEHI]] : i32
  // CHECK: %[[ADDR:.+]] = llvm.inttoptr %[[A]] : i32 to !llvm.ptr<6>
  // CHECK: %[[R:.+]] = nvvm.tcgen05.ld %[[ADDR]] {shape = #nvvm.tcgen05_ldst_shape<shape_16x64b>} : i32
  // CHECK: %[[W:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "tcgen05.wait::ld.sync.aligned;", "=r,0" %[[R]] : (i32) -> i32
  // CHECK: llvm.bitcast %[[W]] : i32 to vector<1xi32>
  %w = sm100.tmem_load %acc shape_16x64b x 1 {lane_base = 64 : i32} : !acc -> vector<1xi32>
  return %w : vector<1xi32>
}

// pack / unpack, 16x256b (4 registers per repetition), wait.
// CHECK-LABEL: func.func @pack_unpack
func.func @pack_unpack(%p: !sm100.tmem<128x128xbf16, operand_a>) {
  // CHECK: %[[R:.+]] = nvvm.tcgen05.ld %{{.+}} pack {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<8xi32>
  %x = sm100.tmem_load %p shape_16x256b x 2 pack : !sm100.tmem<128x128xbf16, operand_a> -> vector<8xi32>
  // CHECK: nvvm.tcgen05.wait <load>
  sm100.wait load
  // CHECK: nvvm.tcgen05.st %{{.+}}, %{{.+}} unpack {shape = #nvvm.tcgen05_ldst_shape<shape_16x256b>} : vector<8xi32>
  sm100.tmem_store %x, %p shape_16x256b x 2 unpack : vector<8xi32>, !sm100.tmem<128x128xbf16, operand_a>
  // CHECK: nvvm.tcgen05.wait <store>
  sm100.wait store
  return
}

// 16x32bx2: the second 16x32b access starts half_split_offset columns on;
// the offset is the i64 immHalfSplitoff operand.
// CHECK-LABEL: func.func @half_split
func.func @half_split(%acc: !acc, %v: vector<32xi32>) -> vector<8xi32> {
  // CHECK: %[[ADDR:.+]] = llvm.inttoptr %{{.+}} : i32 to !llvm.ptr<6>
  // CHECK: %[[OFF:.+]] = llvm.mlir.constant(16 : i64) : i64
  // CHECK: %[[R:.+]] = nvvm.tcgen05.ld %[[ADDR]], %[[OFF]] {shape = #nvvm.tcgen05_ldst_shape<shape_16x32bx2>} : vector<8xi32>
  %d = sm100.tmem_load %acc shape_16x32bx2 x 8 {half_split_offset = 16 : i32} : !acc -> vector<8xi32>
  // CHECK: %[[SADDR:.+]] = llvm.inttoptr %{{.+}} : i32 to !llvm.ptr<6>
  // CHECK: %[[REGS:.+]] = llvm.bitcast %{{.+}} : vector<32xi32> to vector<32xi32>
  // CHECK: %[[SOFF:.+]] = llvm.mlir.constant(32 : i64) : i64
  // CHECK: nvvm.tcgen05.st %[[SADDR]], %[[REGS]], %[[SOFF]] {shape = #nvvm.tcgen05_ldst_shape<shape_16x32bx2>} : vector<32xi32>
  sm100.tmem_store %v, %acc shape_16x32bx2 x 32 {half_split_offset = 32 : i32} : vector<32xi32>, !acc
  return %d : vector<8xi32>
}

// A store of f32 registers bit-casts them to i32 first.
// CHECK-LABEL: func.func @store_f32
// CHECK-SAME: %[[V:[^:]+]]: vector<32xf32>
func.func @store_f32(%acc: !acc, %v: vector<32xf32>, %col: index) {
  // CHECK: %[[L96:.+]] = llvm.mlir.constant(96 : i32) : i32
  // CHECK: %[[COL:.+]] = llvm.trunc %{{.+}} : i64 to i32
  // CHECK: %[[PI:.+]] = llvm.ptrtoint
  // CHECK: %[[LANEHI:.+]] = llvm.shl %[[L96]], %{{.+}} : i32
  // CHECK: %[[A1:.+]] = llvm.add %[[PI]], %[[LANEHI]] : i32
  // CHECK: %[[A2:.+]] = llvm.add %[[A1]], %[[COL]] : i32
  // CHECK: %[[ADDR:.+]] = llvm.inttoptr %[[A2]] : i32 to !llvm.ptr<6>
  // CHECK: %[[I:.+]] = llvm.bitcast %[[V]] : vector<32xf32> to vector<32xi32>
  // CHECK: nvvm.tcgen05.st %[[ADDR]], %[[I]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
  sm100.tmem_store %v, %acc[%col] shape_32x32b x 32 {lane_base = 96 : i32} : vector<32xf32>, !acc
  return
}

// CHECK-LABEL: func.func @fences
func.func @fences() {
  // CHECK: nvvm.tcgen05.fence <before>
  sm100.fence before_thread_sync
  // CHECK-NEXT: nvvm.tcgen05.fence <after>
  sm100.fence after_thread_sync
  return
}

// Shared-memory descriptors: encode(addr) = (addr & 0x3FFFF) >> 4, ORed
// with the constant high part derived from the layout.
// CHECK-LABEL: func.func @umma_desc
func.func @umma_desc(%a: !tileA, %b: !tileB) -> (i64, i64) {
  %c0 = arith.constant 0 : index
  // K-major SW128 bf16: swizzle 2 << 61 | 0b001 << 46 | SBO 1024 B (64) << 32
  // | LBO 16 B (1) << 16 = 0x4000404000010000.
  // CHECK: %[[PA:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, bf16
  // CHECK: %[[IA:.+]] = llvm.ptrtoint %[[PA]] : !llvm.ptr<3> to i64
  // CHECK: %[[C4:.+]] = llvm.mlir.constant(4 : i64) : i64
  // CHECK: %[[MASK:.+]] = llvm.mlir.constant(262143 : i64) : i64
  // CHECK: %[[MA:.+]] = llvm.and %[[IA]], %[[MASK]] : i64
  // CHECK: %[[SA:.+]] = llvm.lshr %[[MA]], %[[C4]] : i64
  // CHECK: %[[HIA:.+]] = llvm.mlir.constant(4611756662049538048 : i64) : i64
  // CHECK: %[[DA:.+]] = llvm.or %[[SA]], %[[HIA]] : i64
  %da = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64> %a[%c0, %c0] : !tileA
  // k_slice 1 of a K-major SW128 bf16 tile starts 32 bytes (16 x bf16) in.
  // CHECK: %[[IB:.+]] = llvm.ptrtoint %{{.+}} : !llvm.ptr<3> to i64
  // CHECK: %[[K32:.+]] = llvm.mlir.constant(32 : i64) : i64
  // CHECK: %[[AB:.+]] = llvm.add %[[IB]], %[[K32]] : i64
  // CHECK: %[[MB:.+]] = llvm.and %[[AB]], %{{.+}} : i64
  // CHECK: %[[SB:.+]] = llvm.lshr %[[MB]], %{{.+}} : i64
  // CHECK: %[[HIB:.+]] = llvm.mlir.constant(4611756662049538048 : i64) : i64
  // CHECK: %[[DB:.+]] = llvm.or %[[SB]], %[[HIB]] : i64
  // CHECK: return %[[DA]], %[[DB]]
  %db = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 256, k = 64> %b[%c0, %c0] k_slice 1 : !tileB
  return %da, %db : i64, i64
}

// Other canonical layouts: unswizzled K-major, and MN-major SW128 with its
// K advance of one SBO per 8 K rows.
// CHECK-LABEL: func.func @umma_desc_layouts
func.func @umma_desc_layouts(%a: memref<64x16xf16, #gpu.address_space<workgroup>>,
                             %b: memref<64x128xbf16, #gpu.address_space<workgroup>>) -> (i64, i64) {
  %c0 = arith.constant 0 : index
  // K-major, no swizzle, f16, mn = 64: SBO 128 B (8) << 32 | LBO
  // 64 / 8 * 128 B = 1024 B (64) << 16 | 0b001 << 46 = 0x0000400800400000.
  // CHECK: %[[HI0:.+]] = llvm.mlir.constant(70403108110336 : i64) : i64
  // CHECK: llvm.or %{{.+}}, %[[HI0]] : i64
  %d0 = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = none, element = f16, mn = 64, k = 16> %a[%c0, %c0] : memref<64x16xf16, #gpu.address_space<workgroup>>
  // MN-major SW128 bf16, mn = 128 (256 B = 2 atoms), k = 64: LBO = atom
  // 1024 B (64) << 16, SBO = 2 atoms = 2048 B (128) << 32, swizzle 2 << 61,
  // 0b001 << 46 = 0x4000408000400000. k_slice 1 = K rows 16..31 = 2 SBO =
  // 4096 B further.
  // CHECK: %[[K4096:.+]] = llvm.mlir.constant(4096 : i64) : i64
  // CHECK: llvm.add %{{.+}}, %[[K4096]] : i64
  // CHECK: %[[HI1:.+]] = llvm.mlir.constant(4611756936931573760 : i64) : i64
  // CHECK: llvm.or %{{.+}}, %[[HI1]] : i64
  %d1 = sm100.umma_desc #sm100.smem_layout<major = mn, swizzle = sw128, element = bf16, mn = 128, k = 64> %b[%c0, %c0] k_slice 1 : memref<64x128xbf16, #gpu.address_space<workgroup>>
  return %d0, %d1 : i64, i64
}

// CHECK-LABEL: func.func @mma
// CHECK-SAME: (%[[ACC:[^:]+]]: !sm100.tmem<128x256xf32, acc>, %[[A:[^:]+]]: i64, %[[B:[^:]+]]: i64, %[[PA:[^:]+]]: !sm100.tmem<128x64xbf16, operand_a>, %[[EN:[^:]+]]: i1, %[[ACC64:[^:]+]]: !sm100.tmem<64x64xf16, acc_m64>)
func.func @mma(%acc: !acc, %a: i64, %b: i64,
               %pa: !sm100.tmem<128x64xbf16, operand_a>, %en: i1,
               %acc64: !sm100.tmem<64x64xf16, acc_m64>) {
  // CHECK-DAG: %[[D64:.+]] = builtin.unrealized_conversion_cast %[[ACC64]] : !sm100.tmem<64x64xf16, acc_m64> to !llvm.ptr<6>
  // CHECK-DAG: %[[TA:.+]] = builtin.unrealized_conversion_cast %[[PA]] : !sm100.tmem<128x64xbf16, operand_a> to !llvm.ptr<6>
  // CHECK-DAG: %[[D:.+]] = builtin.unrealized_conversion_cast %[[ACC]] : !sm100.tmem<128x256xf32, acc> to !llvm.ptr<6>
  // CHECK: %[[E:.+]] = nvvm.elect.sync -> i1
  // CHECK: scf.if %[[E]] {
  %e = nvvm.elect.sync -> i1
  scf.if %e {
    // bf16 x bf16 -> f32, K-major, M = 128, N = 256: (1 << 4) | (1 << 7) |
    // (1 << 10) | (32 << 17) | (8 << 24) = 0x08400490.
    // CHECK: %[[I0:.+]] = llvm.mlir.constant(138413200 : i32) : i32
    // CHECK: nvvm.tcgen05.mma %[[D]], %[[A]], %[[B]], %[[I0]], %[[EN]] {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %acc, %a, %b, %en : !acc, i64
    // A in tensor memory (the `ts` form): A is the TMEM pointer.
    // CHECK: %[[I1:.+]] = llvm.mlir.constant(138413200 : i32) : i32
    // CHECK: nvvm.tcgen05.mma %[[D]], %[[TA]], %[[B]], %[[I1]], %[[EN]] {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, !llvm.ptr<6>, i64, i32, i1)
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %acc, %pa, %b, %en : !acc, !sm100.tmem<128x64xbf16, operand_a>
    // cta_group 2, M = 256: (1 << 4) | (1 << 7) | (1 << 10) | (32 << 17) |
    // (16 << 24) = 0x10400490.
    // CHECK: %[[I2:.+]] = llvm.mlir.constant(272630928 : i32) : i32
    // CHECK: nvvm.tcgen05.mma %[[D]], %[[A]], %[[B]], %[[I2]], %[[EN]] {ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.tcgen05_mma_kind<f16>}
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 256, n = 256, cta_group = 2> %acc, %a, %b, %en : !acc, i64
    // f16 x f16 -> f16, M = 64, N = 64: (8 << 17) | (4 << 24) = 0x04100000.
    // CHECK: %[[I3:.+]] = llvm.mlir.constant(68157440 : i32) : i32
    // CHECK: nvvm.tcgen05.mma %[[D64]], %[[A]], %[[B]], %[[I3]], %[[EN]] {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>}
    sm100.mma #sm100.idesc<kind = f16, a = f16, b = f16, d = f16, m = 64, n = 64> %acc64, %a, %b, %en : !sm100.tmem<64x64xf16, acc_m64>, i64
    // e4m3 x e5m2 -> f32, MN-major B, M = 128, N = 128: (1 << 4) | (0 << 7)
    // | (1 << 10) | (1 << 16) | (16 << 17) | (8 << 24) = 0x08210410.
    // CHECK: %[[I4:.+]] = llvm.mlir.constant(136381456 : i32) : i32
    // CHECK: nvvm.tcgen05.mma %{{.+}}, %[[A]], %[[B]], %[[I4]], %[[EN]] {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f8f6f4>}
    %acc128 = sm100.tmem_slice %acc[0] : !acc -> !sm100.tmem<128x128xf32, acc>
    sm100.mma #sm100.idesc<kind = f8f6f4, a = f8E4M3FN, b = f8E5M2, d = f32, m = 128, n = 128, b_major = mn> %acc128, %a, %b, %en : !sm100.tmem<128x128xf32, acc>, i64
  }
  return
}

// CHECK-LABEL: func.func @mma_block_scale
// CHECK-SAME: (%[[ACC:[^:]+]]: !sm100.tmem<128x256xf32, acc>, %[[A:[^:]+]]: i64, %[[B:[^:]+]]: i64, %[[EN:[^:]+]]: i1, %[[SA:[^:]+]]: !sm100.tmem<128x16xf8E4M3FN, scales>, %[[SB:[^:]+]]: !sm100.tmem<128x32xf8E4M3FN, scales>, %[[SDESC:[^:]+]]: i64,
func.func @mma_block_scale(%acc: !acc, %a: i64, %b: i64, %en: i1,
                           %sa: !sm100.tmem<128x16xf8E4M3FN, scales>,
                           %sb: !sm100.tmem<128x32xf8E4M3FN, scales>,
                           %sdesc: i64,
                           %ea: !sm100.tmem<128x16xf8E8M0FNU, scales>,
                           %eb: !sm100.tmem<128x32xf8E8M0FNU, scales>) {
  // CHECK-DAG: %[[TSA:.+]] = builtin.unrealized_conversion_cast %[[SA]] : !sm100.tmem<128x16xf8E4M3FN, scales> to !llvm.ptr<6>
  // CHECK-DAG: %[[TSB:.+]] = builtin.unrealized_conversion_cast %[[SB]] : !sm100.tmem<128x32xf8E4M3FN, scales> to !llvm.ptr<6>
  // CHECK-DAG: %[[D:.+]] = builtin.unrealized_conversion_cast %[[ACC]] : !sm100.tmem<128x256xf32, acc> to !llvm.ptr<6>
  %e = nvvm.elect.sync -> i1
  scf.if %e {
    // The scale factors into TMEM: tcgen05.cp.cta_group::1.32x128b.warpx4.
    // CHECK: nvvm.tcgen05.cp %[[TSA]], %[[SDESC]] {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
    sm100.tmem_copy shape_32x128b_warpx4 %sa, %sdesc : !sm100.tmem<128x16xf8E4M3FN, scales>
    // CHECK: nvvm.tcgen05.cp %[[TSB]], %[[SDESC]] {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>}
    sm100.tmem_copy shape_128x256b %sb, %sdesc : !sm100.tmem<128x32xf8E4M3FN, scales>
    // NVFP4, M = 128, N = 256, UE4M3 (sm100-encodings.md's worked example):
    // (1 << 7) | (1 << 10) | (32 << 17) | (1 << 27) = 0x08400480.
    // CHECK: %[[I:.+]] = llvm.mlir.constant(138413184 : i32) : i32
    // CHECK: nvvm.tcgen05.mma.block_scale %[[D]], %[[A]], %[[B]], %[[I]], %[[EN]], %[[TSA]], %[[TSB]] {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4nvf4>}
    sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3> %acc, %a, %b, %en scales(%sa, %sb) : !acc, !sm100.tmem<128x16xf8E4M3FN, scales>, !sm100.tmem<128x32xf8E4M3FN, scales>
    // mxf8f6f4 with ue8m0 scales over 32 elements: .block32.
    // CHECK: nvvm.tcgen05.mma.block_scale {{.+}} {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf8f6f4>}
    sm100.mma_block_scale #sm100.idesc<kind = mxf8f6f4, a = f8E4M3FN, b = f8E4M3FN, d = f32, m = 128, n = 256> %acc, %a, %b, %en scales(%ea, %eb) : !acc, !sm100.tmem<128x16xf8E8M0FNU, scales>, !sm100.tmem<128x32xf8E8M0FNU, scales>
  }
  return
}

// CHECK-LABEL: func.func @commit
// CHECK-SAME: (%[[RING:[^:]+]]: !nvgpu.mbarrier.group<{{.+}}>, %[[BARS:[^:]+]]: memref<4xi64, #gpu.address_space<workgroup>>, %[[I:[^:]+]]: index, %[[MASK:[^:]+]]: i16)
func.func @commit(%ring: !ring, %bars: !bars, %i: index, %mask: i16) {
  // CHECK-DAG: %[[BARSD:.+]] = builtin.unrealized_conversion_cast %[[BARS]] : memref<4xi64, #gpu.address_space<workgroup>> to !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
  // CHECK-DAG: %[[I64:.+]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
  // CHECK-DAG: %[[RINGD:.+]] = builtin.unrealized_conversion_cast %[[RING]] : !nvgpu.mbarrier.group<{{.+}}> to !llvm.struct<(ptr<3>, ptr<3>, i64, array<1 x i64>, array<1 x i64>)>
  %e = nvvm.elect.sync -> i1
  scf.if %e {
    // CHECK: %[[RBASE:.+]] = llvm.extractvalue %[[RINGD]][1]
    // CHECK: %[[RBAR:.+]] = llvm.getelementptr %[[RBASE]][%[[I64]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
    // CHECK: nvvm.tcgen05.commit %[[RBAR]] : !llvm.ptr<3>
    sm100.commit %ring[%i] : !ring
    // CHECK: %[[BBASE:.+]] = llvm.extractvalue %[[BARSD]][1]
    // CHECK: %[[BBAR:.+]] = llvm.getelementptr %[[BBASE]][%[[I64]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
    // CHECK: nvvm.tcgen05.commit %[[BBAR]], multicast_mask = %[[MASK]] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
    sm100.commit %bars[%i] multicast %mask cta_group 2 : !bars
  }
  return
}
