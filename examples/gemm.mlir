// One CTA computes D[128x256] (fp32, accumulated in tensor memory) =
// A[128xK] * B[256xK]^T with bf16 inputs, K = 64 * k_tiles.
//
// - TMA loads 128x64 (A) and 256x64 (B) bf16 tiles, K-major with the 128-byte
//   swizzle, into a 4-stage ring in dynamic shared memory; `full[s]` counts
//   the bytes in, `empty[s]` is released by the MMAs that read stage s.
// - One thread of the `mma` warp issues four K=16 UMMAs per tile
//   (sm100.umma_desc derives both descriptors, #sm100.idesc the instruction
//   descriptor) and commits each stage to `empty[s]`, the last to `done`.
// - The four `epilogue` warps (one per TMEM lane quadrant) move the
//   accumulator TMEM -> registers -> global, 32 columns at a time.
//
// Global operands: A is row-major [M, K], B is row-major [N, K] (both K
// contiguous), D is row-major [128, 256]. Launch: grid 1, block 256 threads,
// 197632 bytes of dynamic shared memory; the tensor maps are encoded on the
// host (element bf16, box 64 x rows, 128-byte swizzle) and passed by pointer.
//
// RUN: nvfp4-opt %s --nvfp4-sm100-to-cubin="ptx-file=%t.ptx cubin-file=%t.cubin" -o /dev/null

!smem = memref<?xi8, #gpu.address_space<workgroup>>
!tileA = memref<128x64xbf16, #gpu.address_space<workgroup>>
!tileB = memref<256x64xbf16, #gpu.address_space<workgroup>>
!tmapA = !nvgpu.tensormap.descriptor<tensor = !tileA, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!tmapB = !nvgpu.tensormap.descriptor<tensor = !tileB, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!ring = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
!one = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!acc = !sm100.tmem<128x256xf32, acc>
!slot = memref<1xi32, #gpu.address_space<workgroup>>

#layoutA = #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64>
#layoutB = #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 256, k = 64>
#idesc = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256>

module attributes {gpu.container_module} {
  gpu.module @gemm {
    memref.global "private" @tmem_slot : !slot

    gpu.func @gemm_m128_n256(%tmap_a: !llvm.ptr, %tmap_b: !llvm.ptr,
                             %d: memref<128x256xf32>, %k_tiles: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
                    nvvm.maxnreg = 128 : i32,
                    nvfp4.harness = {reference = "gemm_abt",
                      types = {a = "bf16", b = "bf16", d = "f32"},
                      sizes = {m = 128 : i64, n = 256 : i64, k = 512 : i64},
                      settable = ["k"], multiple_of = {k = 64 : i64},
                      grid = array<i32: 1, 1, 1>, block = array<i32: 256, 1, 1>,
                      cluster = array<i32: 1, 1, 1>, dynamic_smem = 197632 : i64,
                      args = [{tmap = "a", box = array<i64: 64, 128>, swizzle = "128B"},
                              {tmap = "b", box = array<i64: 64, 256>, swizzle = "128B"},
                              {buffer = "d"},
                              {scalar = "i64", value = "k/64"}]}} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %c256 = arith.constant 256 : index
      %c64 = arith.constant 64 : index
      %c1023 = arith.constant 1023 : index
      %c_mask = arith.constant -1024 : index
      %c_stage = arith.constant 49152 : index
      %c_b_off = arith.constant 16384 : index
      %tx_bytes = arith.constant 49152 : index
      %ticks = arith.constant 10000000 : index
      %false = arith.constant false
      %true = arith.constant true

      // Tensor maps arrive as pointers to CUtensorMap objects in global
      // memory (what the driver's cuTensorMapEncodeTiled fills).
      %tma_a = builtin.unrealized_conversion_cast %tmap_a : !llvm.ptr to !tmapA
      %tma_b = builtin.unrealized_conversion_cast %tmap_b : !llvm.ptr to !tmapB

      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index

      // Dynamic shared memory, rounded up to the 1024-byte alignment that
      // the 128-byte swizzle needs (the launch adds 1024 bytes of slack).
      %smem = gpu.dynamic_shared_memory : !smem
      %base = memref.extract_aligned_pointer_as_index %smem : !smem -> index
      %base_up = arith.addi %base, %c1023 : index
      %aligned = arith.andi %base_up, %c_mask : index
      %offset = arith.subi %aligned, %base : index

      %full = nvgpu.mbarrier.create -> !ring
      %empty = nvgpu.mbarrier.create -> !ring
      %done = nvgpu.mbarrier.create -> !one
      %slot = memref.get_global @tmem_slot : !slot

      %is_t0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is_t0 {
        scf.for %s = %c0 to %c4 step %c1 {
          nvgpu.mbarrier.init %full[%s], %c1 : !ring
          nvgpu.mbarrier.init %empty[%s], %c1 : !ring
        }
        nvgpu.mbarrier.init %done[%c0], %c1 : !one
        nvgpu.tma.prefetch.descriptor %tma_a : !tmapA
        nvgpu.tma.prefetch.descriptor %tma_b : !tmapB
      }
      // Warp 0 allocates the accumulator's 256 columns.
      %is_w0 = arith.cmpi eq, %warp, %c0 : index
      scf.if %is_w0 {
        sm100.tmem_alloc %slot, 256 : !slot
      }
      sm100.fence before_thread_sync
      gpu.barrier
      sm100.fence after_thread_sync
      %acc = sm100.tmem_base %slot : !slot -> !acc

      sm100.warp_roles 8 {
        sm100.role "epilogue" warps [0, 4) regs 152 {
          nvgpu.mbarrier.try_wait.parity %done[%c0], %false, %ticks : !one
          sm100.fence after_thread_sync
          // Warp w reads lanes 32w..32w+31: thread tid holds row tid.
          scf.for %col = %c0 to %c256 step %c32 {
            %v = sm100.tmem_load %acc[%col] shape_32x32b x 32 : !acc -> vector<32xf32>
            sm100.wait load
            vector.store %v, %d[%tid, %col] : memref<128x256xf32>, vector<32xf32>
          }
        }
        sm100.role "load" warps [4, 5) regs 96 {
          sm100.elect_one {
            scf.for %kt = %c0 to %k_tiles step %c1 {
              %s = arith.remui %kt, %c4 : index
              %round = arith.divui %kt, %c4 : index
              %round_odd = arith.remui %round, %c2 : index
              %even = arith.cmpi eq, %round_odd, %c0 : index
              // The first pass over the ring does not wait (parity trick).
              nvgpu.mbarrier.try_wait.parity %empty[%s], %even, %ticks : !ring
              %stage_off = arith.muli %s, %c_stage : index
              %a_off = arith.addi %offset, %stage_off : index
              %b_off = arith.addi %a_off, %c_b_off : index
              %a_tile = memref.view %smem[%a_off][] : !smem to !tileA
              %b_tile = memref.view %smem[%b_off][] : !smem to !tileB
              %k0 = arith.muli %kt, %c64 : index
              nvgpu.mbarrier.arrive.expect_tx %full[%s], %tx_bytes : !ring
              nvgpu.tma.async.load %tma_a[%k0, %c0], %full[%s] to %a_tile : !tmapA, !ring -> !tileA
              nvgpu.tma.async.load %tma_b[%k0, %c0], %full[%s] to %b_tile : !tmapB, !ring -> !tileB
            }
          }
        }
        sm100.role "mma" warps [5, 6) regs 96 {
          sm100.elect_one {
            scf.for %kt = %c0 to %k_tiles step %c1 {
              %s = arith.remui %kt, %c4 : index
              %round = arith.divui %kt, %c4 : index
              %round_odd = arith.remui %round, %c2 : index
              %odd = arith.cmpi ne, %round_odd, %c0 : index
              nvgpu.mbarrier.try_wait.parity %full[%s], %odd, %ticks : !ring
              sm100.fence after_thread_sync
              %stage_off = arith.muli %s, %c_stage : index
              %a_off = arith.addi %offset, %stage_off : index
              %b_off = arith.addi %a_off, %c_b_off : index
              %a_tile = memref.view %smem[%a_off][] : !smem to !tileA
              %b_tile = memref.view %smem[%b_off][] : !smem to !tileB
              %not_first = arith.cmpi ne, %kt, %c0 : index
              %a0 = sm100.umma_desc #layoutA %a_tile[%c0, %c0] k_slice 0 : !tileA
              %b0 = sm100.umma_desc #layoutB %b_tile[%c0, %c0] k_slice 0 : !tileB
              sm100.mma #idesc %acc, %a0, %b0, %not_first : !acc, i64
              %a1 = sm100.umma_desc #layoutA %a_tile[%c0, %c0] k_slice 1 : !tileA
              %b1 = sm100.umma_desc #layoutB %b_tile[%c0, %c0] k_slice 1 : !tileB
              sm100.mma #idesc %acc, %a1, %b1, %true : !acc, i64
              %a2 = sm100.umma_desc #layoutA %a_tile[%c0, %c0] k_slice 2 : !tileA
              %b2 = sm100.umma_desc #layoutB %b_tile[%c0, %c0] k_slice 2 : !tileB
              sm100.mma #idesc %acc, %a2, %b2, %true : !acc, i64
              %a3 = sm100.umma_desc #layoutA %a_tile[%c0, %c0] k_slice 3 : !tileA
              %b3 = sm100.umma_desc #layoutB %b_tile[%c0, %c0] k_slice 3 : !tileB
              sm100.mma #idesc %acc, %a3, %b3, %true : !acc, i64
              // Stage s is free once these MMAs have read it.
              sm100.commit %empty[%s] : !ring
            }
            sm100.commit %done[%c0] : !one
          }
        }
        sm100.role "spare" warps [6, 8) regs 96 {
        }
      }

      sm100.fence before_thread_sync
      gpu.barrier
      sm100.fence after_thread_sync
      scf.if %is_w0 {
        sm100.tmem_dealloc %acc, 256 : !acc
      }
      gpu.return
    }
  }
}
