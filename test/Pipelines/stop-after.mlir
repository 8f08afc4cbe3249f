// The nvfp4-sm100-to-cubin pipeline on a small kernel: one M=128 N=64 bf16
// UMMA into tensor memory, committed to an mbarrier and read back by four
// epilogue warps (9 warps in all). `stop-after` cuts the pipeline after each named step.

// RUN: nvfp4-opt %s --nvfp4-sm100-to-cubin="stop-after=plan" | FileCheck %s --check-prefix=PLAN
// RUN: nvfp4-opt %s --nvfp4-sm100-to-cubin="stop-after=roles" | FileCheck %s --check-prefix=ROLES
// RUN: nvfp4-opt %s --nvfp4-sm100-to-cubin="stop-after=sm100" | FileCheck %s --check-prefix=SM100
// RUN: nvfp4-opt %s --nvfp4-sm100-to-cubin="stop-after=nvvm" | FileCheck %s --check-prefix=NVVM
// RUN: not nvfp4-opt %s --nvfp4-sm100-to-cubin="stop-after=bogus" 2>&1 | FileCheck %s --check-prefix=BOGUS

!slot = memref<1xi32, #gpu.address_space<workgroup>>
!tileA = memref<128x64xbf16, #gpu.address_space<workgroup>>
!tileB = memref<64x64xbf16, #gpu.address_space<workgroup>>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!acc = !sm100.tmem<128x64xf32, acc>

// plan: only the TMEM plan is recorded; warp roles and sm100 ops remain.
// PLAN-LABEL: gpu.func @mma_m128_n64
// PLAN-SAME: sm100.tmem_columns = 64 : i32
// PLAN-NOT: nvvm.
// PLAN: sm100.tmem_alloc
// PLAN: sm100.warp_roles 9
// PLAN: sm100.elect_one
// PLAN: sm100.mma
// PLAN-NOT: nvvm.

// roles: warp roles and elect_one are gone, the other sm100 ops remain.
// ROLES-LABEL: gpu.func @mma_m128_n64
// ROLES-NOT: sm100.warp_roles
// ROLES-NOT: sm100.role
// ROLES-NOT: sm100.elect_one
// ROLES: nvvm.setmaxregister increase 232
// ROLES: nvvm.setmaxregister decrease 24
// ROLES-NOT: nvvm.setmaxregister
// ROLES: nvvm.elect.sync
// ROLES: sm100.mma
// ROLES: sm100.commit

// sm100: no sm100 op, type or attribute is left (the kernel keeps its
// sm100.tmem_columns attribute); the tcgen05 ops are nvvm ops, nvgpu is not
// lowered yet.
// SM100-NOT: {{sm100\.[a-z_]+ [^=]}}
// SM100-NOT: {{[!#]sm100\.}}
// SM100: nvvm.tcgen05.alloc
// SM100: nvvm.tcgen05.fence <before>
// SM100: nvgpu.mbarrier.try_wait.parity
// SM100: nvvm.tcgen05.ld
// SM100: nvvm.tcgen05.wait <load>
// SM100: nvvm.elect.sync
// SM100: nvvm.tcgen05.mma
// SM100: nvvm.tcgen05.commit
// SM100: nvvm.tcgen05.dealloc
// SM100-NOT: {{sm100\.[a-z_]+ [^=]}}
// SM100-NOT: {{[!#]sm100\.}}

// nvvm: the gpu.module holds an llvm.func kernel in nvvm + llvm only, with
// its sm_100a target attached.
// NVVM: gpu.module @kernels [#nvvm.target<{{.*}}chip = "sm_100a"
// NVVM: llvm.func @mma_m128_n64
// NVVM-SAME: nvvm.kernel
// NVVM-NOT: {{sm100\.[a-z_]+ [^=]}}
// NVVM-NOT: {{[!#]sm100\.}}
// NVVM-NOT: nvgpu.
// NVVM-NOT: scf.
// NVVM-NOT: gpu.func
// NVVM: nvvm.tcgen05.alloc
// NVVM: mbarrier.try_wait.parity.shared.b64
// NVVM: nvvm.tcgen05.ld
// NVVM: nvvm.tcgen05.mma
// NVVM: nvvm.tcgen05.commit
// NVVM: nvvm.tcgen05.dealloc
// NVVM: llvm.return

// BOGUS: nvfp4-sm100-to-cubin: unknown stop-after step 'bogus' (expected attention, plan, roles, sm100, nvvm or binary)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @tmem_slot : !slot
    memref.global "private" @tile_a : !tileA {alignment = 1024 : i64}
    memref.global "private" @tile_b : !tileB {alignment = 1024 : i64}

    gpu.func @mma_m128_n64(%d: memref<128x64xf32>) kernel
        attributes {known_block_size = array<i32: 288, 1, 1>,
                    nvvm.maxnreg = 128 : i32} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %false = arith.constant false
      %ticks = arith.constant 10000000 : index
      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %a = memref.get_global @tile_a : !tileA
      %b = memref.get_global @tile_b : !tileB
      %done = nvgpu.mbarrier.create -> !bar
      %slot = memref.get_global @tmem_slot : !slot

      %is_t0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is_t0 {
        nvgpu.mbarrier.init %done[%c0], %c1 : !bar
      }
      %is_w0 = arith.cmpi eq, %warp, %c0 : index
      scf.if %is_w0 {
        sm100.tmem_alloc %slot, 64 : !slot
      }
      sm100.fence before_thread_sync
      gpu.barrier
      sm100.fence after_thread_sync
      %acc = sm100.tmem_base %slot : !slot -> !acc

      // Register budgets are set per whole warpgroup: warpgroup 0 (epilogue)
      // rises to 232, warpgroup 1 (idle) drops to 24, and the one-warp mma
      // role in warpgroup 2 keeps maxnreg.
      sm100.warp_roles 9 {
        sm100.role "epilogue" warps [0, 4) regs 232 {
          nvgpu.mbarrier.try_wait.parity %done[%c0], %false, %ticks : !bar
          sm100.fence after_thread_sync
          %v = sm100.tmem_load %acc shape_32x32b x 32 : !acc -> vector<32xf32>
          sm100.wait load
          vector.store %v, %d[%tid, %c0] : memref<128x64xf32>, vector<32xf32>
        }
        sm100.role "idle" warps [4, 8) regs 24 {
        }
        sm100.role "mma" warps [8, 9) {
          sm100.elect_one {
            %da = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64> %a[%c0, %c0] : !tileA
            %db = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 64, k = 64> %b[%c0, %c0] : !tileB
            sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 64> %acc, %da, %db, %false : !acc, i64
            sm100.commit %done[%c0] : !bar
          }
        }
      }

      sm100.fence before_thread_sync
      gpu.barrier
      sm100.fence after_thread_sync
      scf.if %is_w0 {
        sm100.tmem_dealloc %acc, 64 : !acc
      }
      gpu.return
    }
  }
}
