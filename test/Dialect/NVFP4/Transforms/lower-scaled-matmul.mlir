// RUN: nvfp4-opt %s -nvfp4-lower-scaled-matmul | FileCheck %s
// RUN: nvfp4-opt %s -nvfp4-lower-scaled-matmul="num-sms=1 cta-group=1" | FileCheck %s --check-prefix=N256

// The block-scaled GEMM (docs/NVFP4.md, "Block-scaled matmul"): TMA of the
// packed e2m1 rows (SW128, 128-byte boxes) and of the scale-factor atoms
// ([tiles, 4 Kt, 128] bytes, no swizzle); per K step 4 + 4 tcgen05.cp of
// atoms into one of two TMEM buffers, after waiting for the MMAs of two
// steps back, then four block-scaled MMAs; the epilogue multiplies by
// 1 / (gs_A gs_B). A 64-wide N tile (148 SMs for 2 x 5 tiles) picks its
// half of the 128-row scale-factor atom by the tile's parity.

// CHECK-LABEL: gpu.func @mm_matmul(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: memref<1xf32>, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: memref<1xf32>, %{{.+}}: memref<200x300xf32>) kernel
// CHECK-SAME: grid = array<i32: 10, 1, 1>
// CHECK-SAME: reference = "nvfp4_scaled_matmul"
// CHECK: tensormap.descriptor<tensor = memref<128x128xi8, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: tensormap.descriptor<tensor = memref<1x16x128xi8, #gpu.address_space<workgroup>>, swizzle = none
// CHECK: tensormap.descriptor<tensor = memref<64x128xi8, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: sm100.tmem_alloc %{{.+}}, 128
// CHECK: sm100.warp_roles 8
// CHECK: sm100.role "epilogue" warps[0, 4)
// CHECK: %[[P:.+]] = arith.mulf
// CHECK: arith.divf %{{.+}}, %[[P]] : f32
// CHECK: sm100.role "load" warps[4, 5)
// CHECK-COUNT-4: nvgpu.tma.async.load
// CHECK: sm100.role "mma" warps[5, 6)
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: arith.cmpi uge
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: sm100.fence after_thread_sync
// CHECK: sm100.umma_desc #sm100.smem_layout<major = k, swizzle = none, element = f8E4M3FN, mn = 32, k = 32>
// CHECK: sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = f4E2M1FN, mn = 128, k = 256>
// CHECK-COUNT-8: sm100.tmem_copy shape_32x128b_warpx4
// CHECK: sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 64, scale_type = ue4m3>
// CHECK: sm100.commit
// N256: grid = array<i32: 1, 1, 1>
// N256: tensormap.descriptor<tensor = memref<2x16x128xi8
// N256: sm100.tmem_alloc %{{.+}}, 512
// N256-COUNT-12: sm100.tmem_copy shape_32x128b_warpx4
// N256: sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3> {{.+}} : <128x256xf32, acc>, <128x16xf8E4M3FN, scales>, <128x32xf8E4M3FN, scales>
func.func @mm(%a: tensor<200x1056xf4E2M1FN>, %sfa: tensor<256x68xf8E4M3FN>, %gsa: tensor<f32>,
              %b: tensor<300x1056xf4E2M1FN>, %sfb: tensor<384x68xf8E4M3FN>, %gsb: tensor<f32>) -> tensor<200x300xf32> {
  %d = nvfp4.scaled_matmul %a, %sfa, %gsa, %b, %sfb, %gsb
      : (tensor<200x1056xf4E2M1FN>, tensor<256x68xf8E4M3FN>, tensor<f32>, tensor<300x1056xf4E2M1FN>, tensor<384x68xf8E4M3FN>, tensor<f32>) -> tensor<200x300xf32>
  return %d : tensor<200x300xf32>
}

// Grouped, masked: the schedule (first tile, first row and rows of each
// group) in shared memory, written by thread 0, which traps on a bad size;
// every role walks the CTA's tiles (cta, cta + ctas, ...) and finds each
// tile's group with a forward scan; A, B and their scale factors carry a
// group dimension; the accumulator is handed over through acc_full (MMA
// commit) and acc_empty (128 epilogue threads).
// CHECK-LABEL: gpu.module @moe_grouped_matmul
// CHECK: memref.global "private" @schedule : memref<25xi32, #gpu.address_space<workgroup>> {alignment = 16 : i64}
// CHECK: gpu.func @moe_grouped_matmul({{.+}}, %{{.+}}: memref<8x64x2048xbf16>, %{{.+}}: memref<8xi32>) kernel
// CHECK-SAME: options = {layout = 1 : i64, round_to = 1 : i64}, reference = "nvfp4_grouped_matmul_masked"
// max_m = 64: the swapped schedule (the tokens, 64, are the MMA's N).
// CHECK: tensormap.descriptor<tensor = memref<1x64x128xi8
// CHECK: tensormap.descriptor<tensor = memref<1x1x16x128xi8
// CHECK: tensormap.descriptor<tensor = memref<1x128x128xi8
// CHECK: gpu.printf "nvfp4.grouped_scaled_matmul: group %d has %d rows, outside [0, max_m = 64]\0A"
// CHECK: trap;
// CHECK: sm100.role "epilogue"
// CHECK: scf.while
// CHECK: nvgpu.mbarrier.arrive %{{.+}}[%{{.+}}]
// CHECK: sm100.role "load"
// CHECK: scf.while
// CHECK: sm100.role "mma"
// CHECK: scf.while
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 64, scale_type = ue4m3>
// CHECK: sm100.commit
func.func @moe(%a: tensor<8x64x7168xf4E2M1FN>, %sfa: tensor<8x128x448xf8E4M3FN>, %gsa: tensor<8xf32>,
               %w: tensor<8x2048x7168xf4E2M1FN>, %sfw: tensor<8x2048x448xf8E4M3FN>, %gsw: tensor<8xf32>,
               %n: tensor<8xi32>) -> tensor<8x64x2048xbf16> {
  %d = nvfp4.grouped_scaled_matmul %a, %sfa, %gsa, %w, %sfw, %gsw, %n {layout = #nvfp4.group_layout<masked>}
      : (tensor<8x64x7168xf4E2M1FN>, tensor<8x128x448xf8E4M3FN>, tensor<8xf32>,
         tensor<8x2048x7168xf4E2M1FN>, tensor<8x2048x448xf8E4M3FN>, tensor<8xf32>,
         tensor<8xi32>) -> tensor<8x64x2048xbf16>
  return %d : tensor<8x64x2048xbf16>
}
