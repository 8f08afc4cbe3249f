// The 2-CTA variant of gemm.mlir: a cluster of two CTAs computes
// D[256x256] (fp32, in tensor memory) = A[256xK] * B[256xK]^T with bf16
// inputs, K = 64 * k_tiles, with cta_group::2 UMMAs of M = 256, N = 256.
//
// - CTA r of the pair loads rows [128r, 128r+128) of A and of B (its half of
//   N) into the same shared-memory offsets of its own 4-stage ring. Both
//   CTAs' TMA transfers complete on the *leader's* (CTA 0's) `full[s]`
//   barrier: with `.cta_group::2` the mbarrier address may name the peer,
//   and clearing bit 24 of a shared::cluster address names the leader
//   (CTA ranks of a pair differ in that bit). The leader expects the bytes
//   of both CTAs.
// - One thread of the leader's `mma` warp issues the UMMAs (they read A and B
//   from both CTAs) and commits with a multicast to the `empty[s]` / `done`
//   barriers of both CTAs.
// - Each CTA's epilogue reads its own 128 accumulator rows (PTX layout A,
//   M = 256: CTA r holds rows 128r..128r+127) and stores them to D.
//
// mbarriers are plain shared-memory i64 arrays driven by nvvm ops here,
// because the transaction must target the peer CTA's barrier, which nvgpu's
// TMA op cannot express. Launch: grid (2, 1, 1), cluster (2, 1, 1), block
// 256 threads, 132096 bytes of dynamic shared memory.
//
// RUN: nvfp4-opt %s --nvfp4-sm100-to-cubin="ptx-file=%t.ptx cubin-file=%t.cubin" -o /dev/null

!smem = memref<?xi8, #gpu.address_space<workgroup>>
!tile = memref<128x64xbf16, #gpu.address_space<workgroup>>
!bars = memref<4xi64, #gpu.address_space<workgroup>>
!bar1 = memref<1xi64, #gpu.address_space<workgroup>>
!acc = !sm100.tmem<128x256xf32, acc>
!slot = memref<1xi32, #gpu.address_space<workgroup>>

#layout = #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64>
#idesc = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 256, n = 256, cta_group = 2>

module attributes {gpu.container_module} {
  gpu.module @gemm_2cta {
    memref.global "private" @tmem_slot : !slot
    memref.global "private" @full : !bars {alignment = 8 : i64}
    memref.global "private" @empty : !bars {alignment = 8 : i64}
    memref.global "private" @done : !bar1 {alignment = 8 : i64}

    gpu.func @gemm_2cta_m256_n256(%tmap_a: !llvm.ptr, %tmap_b: !llvm.ptr,
                                  %d: memref<256x256xf32>, %k_tiles: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
                    nvvm.cluster_dim = array<i32: 2, 1, 1>,
                    nvvm.maxnreg = 128 : i32,
                    nvfp4.harness = {reference = "gemm_abt",
                      types = {a = "bf16", b = "bf16", d = "f32"},
                      sizes = {m = 256 : i64, n = 256 : i64, k = 512 : i64},
                      settable = ["k"], multiple_of = {k = 64 : i64},
                      grid = array<i32: 2, 1, 1>, block = array<i32: 256, 1, 1>,
                      cluster = array<i32: 2, 1, 1>, dynamic_smem = 132096 : i64,
                      args = [{tmap = "a", box = array<i64: 64, 128>, swizzle = "128B"},
                              {tmap = "b", box = array<i64: 64, 128>, swizzle = "128B"},
                              {buffer = "d"},
                              {scalar = "i64", value = "k/64"}]}} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %c1023 = arith.constant 1023 : index
      %c_mask = arith.constant -1024 : index
      %c_stage = arith.constant 32768 : index
      %c_b_off = arith.constant 16384 : index
      %true = arith.constant true
      %i32_0 = arith.constant 0 : i32
      %i32_1 = arith.constant 1 : i32
      %i32_2 = arith.constant 2 : i32
      %tx_both = arith.constant 65536 : i32
      %ticks = arith.constant 10000000 : i32
      %peer_bit_mask = arith.constant 0xFFFFFFFFFEFFFFFF : i64
      %both_ctas = arith.constant 3 : i16

      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %rank_i32 = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %rank = arith.index_cast %rank_i32 : i32 to index
      %is_leader = arith.cmpi eq, %rank_i32, %i32_0 : i32

      %smem = gpu.dynamic_shared_memory : !smem
      %base = memref.extract_aligned_pointer_as_index %smem : !smem -> index
      %base_up = arith.addi %base, %c1023 : index
      %aligned = arith.andi %base_up, %c_mask : index
      %offset = arith.subi %aligned, %base : index

      %full = memref.get_global @full : !bars
      %empty = memref.get_global @empty : !bars
      %done = memref.get_global @done : !bar1
      %slot = memref.get_global @tmem_slot : !slot
      %full_base = memref.extract_aligned_pointer_as_index %full : !bars -> index
      %empty_base = memref.extract_aligned_pointer_as_index %empty : !bars -> index
      %done_base = memref.extract_aligned_pointer_as_index %done : !bar1 -> index

      %is_t0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is_t0 {
        scf.for %s = %c0 to %c4 step %c1 {
          %s8 = arith.muli %s, %c8 : index
          %f = arith.addi %full_base, %s8 : index
          %e = arith.addi %empty_base, %s8 : index
          %f64 = arith.index_cast %f : index to i64
          %e64 = arith.index_cast %e : index to i64
          %fp = llvm.inttoptr %f64 : i64 to !llvm.ptr<3>
          %ep = llvm.inttoptr %e64 : i64 to !llvm.ptr<3>
          nvvm.mbarrier.init %fp, %i32_1 : !llvm.ptr<3>, i32
          nvvm.mbarrier.init %ep, %i32_1 : !llvm.ptr<3>, i32
        }
        %d64 = arith.index_cast %done_base : index to i64
        %dp = llvm.inttoptr %d64 : i64 to !llvm.ptr<3>
        nvvm.mbarrier.init %dp, %i32_1 : !llvm.ptr<3>, i32
        nvvm.fence.mbarrier.init
      }
      // One warp in each CTA of the pair allocates (cta_group::2).
      %is_w0 = arith.cmpi eq, %warp, %c0 : index
      scf.if %is_w0 {
        sm100.tmem_alloc %slot, 256 cta_group 2 : !slot
      }
      sm100.fence before_thread_sync
      // Barrier initialisation and the allocation must be visible to the
      // peer before any of its transfers target our barriers.
      nvvm.cluster.arrive {aligned}
      nvvm.cluster.wait {aligned}
      sm100.fence after_thread_sync
      %acc = sm100.tmem_base %slot : !slot -> !acc

      sm100.warp_roles 8 {
        sm100.role "epilogue" warps [0, 4) regs 152 {
          %d64 = arith.index_cast %done_base : index to i64
          %dp = llvm.inttoptr %d64 : i64 to !llvm.ptr<3>
          nvvm.mbarrier.try_wait.parity %dp, %i32_0, %ticks : !llvm.ptr<3>, i32, i32
          sm100.fence after_thread_sync
          %row_base = arith.muli %rank, %c128 : index
          %row = arith.addi %row_base, %tid : index
          scf.for %col = %c0 to %c256 step %c32 {
            %v = sm100.tmem_load %acc[%col] shape_32x32b x 32 : !acc -> vector<32xf32>
            sm100.wait load
            vector.store %v, %d[%row, %col] : memref<256x256xf32>, vector<32xf32>
          }
        }
        sm100.role "load" warps [4, 5) regs 96 {
          sm100.elect_one {
            %row0 = arith.muli %rank, %c128 : index
            %row0_i32 = arith.index_cast %row0 : index to i32
            scf.for %kt = %c0 to %k_tiles step %c1 {
              %s = arith.remui %kt, %c4 : index
              %round = arith.divui %kt, %c4 : index
              %round_odd = arith.remui %round, %c2 : index
              %even = arith.cmpi eq, %round_odd, %c0 : index
              %wait_parity = arith.extui %even : i1 to i32
              %s8 = arith.muli %s, %c8 : index
              %e = arith.addi %empty_base, %s8 : index
              %e64 = arith.index_cast %e : index to i64
              %ep = llvm.inttoptr %e64 : i64 to !llvm.ptr<3>
              nvvm.mbarrier.try_wait.parity %ep, %wait_parity, %ticks : !llvm.ptr<3>, i32, i32
              // The leader's full[s]: our own address with the peer bit cleared.
              %f = arith.addi %full_base, %s8 : index
              %f64 = arith.index_cast %f : index to i64
              %leader64 = arith.andi %f64, %peer_bit_mask : i64
              %leader_full = llvm.inttoptr %leader64 : i64 to !llvm.ptr<3>
              scf.if %is_leader {
                %own_full = llvm.inttoptr %f64 : i64 to !llvm.ptr<3>
                nvvm.mbarrier.arrive.expect_tx %own_full, %tx_both : !llvm.ptr<3>, i32
              }
              %stage_off = arith.muli %s, %c_stage : index
              %a_off = arith.addi %offset, %stage_off : index
              %b_off = arith.addi %a_off, %c_b_off : index
              %a_addr = arith.addi %base, %a_off : index
              %b_addr = arith.addi %base, %b_off : index
              %a64 = arith.index_cast %a_addr : index to i64
              %b64 = arith.index_cast %b_addr : index to i64
              %a_cta = llvm.inttoptr %a64 : i64 to !llvm.ptr<3>
              %b_cta = llvm.inttoptr %b64 : i64 to !llvm.ptr<3>
              %a_ptr = llvm.addrspacecast %a_cta : !llvm.ptr<3> to !llvm.ptr<7>
              %b_ptr = llvm.addrspacecast %b_cta : !llvm.ptr<3> to !llvm.ptr<7>
              %k0 = arith.muli %kt, %c64 : index
              %k0_i32 = arith.index_cast %k0 : index to i32
              nvvm.cp.async.bulk.tensor.shared.cluster.global %a_ptr, %tmap_a, %leader_full, box[%k0_i32, %row0_i32] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
              nvvm.cp.async.bulk.tensor.shared.cluster.global %b_ptr, %tmap_b, %leader_full, box[%k0_i32, %row0_i32] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
            }
          }
        }
        sm100.role "mma" warps [5, 6) regs 96 {
          scf.if %is_leader {
            sm100.elect_one {
              scf.for %kt = %c0 to %k_tiles step %c1 {
                %s = arith.remui %kt, %c4 : index
                %round = arith.divui %kt, %c4 : index
                %round_odd = arith.remui %round, %c2 : index
                %parity = arith.index_cast %round_odd : index to i32
                %s8 = arith.muli %s, %c8 : index
                %f = arith.addi %full_base, %s8 : index
                %f64 = arith.index_cast %f : index to i64
                %fp = llvm.inttoptr %f64 : i64 to !llvm.ptr<3>
                nvvm.mbarrier.try_wait.parity %fp, %parity, %ticks : !llvm.ptr<3>, i32, i32
                sm100.fence after_thread_sync
                %stage_off = arith.muli %s, %c_stage : index
                %a_off = arith.addi %offset, %stage_off : index
                %b_off = arith.addi %a_off, %c_b_off : index
                %a_tile = memref.view %smem[%a_off][] : !smem to !tile
                %b_tile = memref.view %smem[%b_off][] : !smem to !tile
                %not_first = arith.cmpi ne, %kt, %c0 : index
                %a0 = sm100.umma_desc #layout %a_tile[%c0, %c0] k_slice 0 : !tile
                %b0 = sm100.umma_desc #layout %b_tile[%c0, %c0] k_slice 0 : !tile
                sm100.mma #idesc %acc, %a0, %b0, %not_first : !acc, i64
                %a1 = sm100.umma_desc #layout %a_tile[%c0, %c0] k_slice 1 : !tile
                %b1 = sm100.umma_desc #layout %b_tile[%c0, %c0] k_slice 1 : !tile
                sm100.mma #idesc %acc, %a1, %b1, %true : !acc, i64
                %a2 = sm100.umma_desc #layout %a_tile[%c0, %c0] k_slice 2 : !tile
                %b2 = sm100.umma_desc #layout %b_tile[%c0, %c0] k_slice 2 : !tile
                sm100.mma #idesc %acc, %a2, %b2, %true : !acc, i64
                %a3 = sm100.umma_desc #layout %a_tile[%c0, %c0] k_slice 3 : !tile
                %b3 = sm100.umma_desc #layout %b_tile[%c0, %c0] k_slice 3 : !tile
                sm100.mma #idesc %acc, %a3, %b3, %true : !acc, i64
                // Frees stage s in both CTAs once these MMAs have read it.
                sm100.commit %empty[%s] multicast %both_ctas cta_group 2 : !bars
              }
              sm100.commit %done[%c0] multicast %both_ctas cta_group 2 : !bar1
            }
          }
        }
        sm100.role "spare" warps [6, 8) regs 96 {
        }
      }

      sm100.fence before_thread_sync
      // Neither CTA may free its tensor memory or exit while the peer's
      // MMAs or transfers can still touch it.
      nvvm.cluster.arrive {aligned}
      nvvm.cluster.wait {aligned}
      sm100.fence after_thread_sync
      scf.if %is_w0 {
        sm100.tmem_dealloc %acc, 256 cta_group 2 : !acc
      }
      gpu.return
    }
  }
}
