// sm100-lower-warp-roles: each sm100.role becomes an scf.if on the warp
// index (tid.x >> 5) lying in [begin, end), entered with setmaxnreg when the
// role's budget differs from the function's nvvm.maxnreg; each
// sm100.elect_one becomes an scf.if on nvvm.elect.sync.

// RUN: nvfp4-opt %s --sm100-lower-warp-roles | FileCheck %s

// The two comparisons of a role are created as arguments of one call, so
// their order is the compiler's; they are matched with CHECK-DAG.

!acc = !sm100.tmem<128x256xf32, acc>

// maxnreg 168 over 12 warps: warpgroup 0 rises to 232, warpgroup 1 keeps
// 168 (no setmaxnreg), warpgroup 2 drops to 104 (4 x 64 registers moved).
// CHECK-LABEL: func.func @roles
// CHECK-SAME: (%[[ACC:[^:]+]]: !sm100.tmem<128x256xf32, acc>, %[[RING:[^:]+]]: !nvgpu.mbarrier.group<{{.+}}>, %[[I:[^:]+]]: index)
func.func @roles(%acc: !acc, %ring: !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>, %i: index) attributes {nvvm.maxnreg = 168 : i32} {
  // CHECK-NOT: sm100.warp_roles
  // CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: %[[C5:.+]] = arith.constant 5 : i32
  // CHECK: %[[WARP:.+]] = arith.shrui %[[TID]], %[[C5]] : i32
  sm100.warp_roles 12 {
    // CHECK: %[[LO0:.+]] = arith.constant 0 : i32
    // CHECK: %[[HI0:.+]] = arith.constant 4 : i32
    // CHECK-DAG: %[[GE0:.+]] = arith.cmpi uge, %[[WARP]], %[[LO0]] : i32
    // CHECK-DAG: %[[LT0:.+]] = arith.cmpi ult, %[[WARP]], %[[HI0]] : i32
    // CHECK: %[[IN0:.+]] = arith.andi %[[GE0]], %[[LT0]] : i1
    // CHECK: scf.if %[[IN0]] {
    // CHECK-NEXT: nvvm.setmaxregister increase 232
    // CHECK-NEXT: %{{.+}} = sm100.tmem_load %[[ACC]]
    // CHECK-NEXT: }
    sm100.role "epilogue" warps [0, 4) regs 232 {
      %v = sm100.tmem_load %acc shape_32x32b x 32 : !acc -> vector<32xf32>
    }
    // CHECK: %[[LO1:.+]] = arith.constant 4 : i32
    // CHECK: %[[HI1:.+]] = arith.constant 8 : i32
    // CHECK-DAG: %[[GE1:.+]] = arith.cmpi uge, %[[WARP]], %[[LO1]] : i32
    // CHECK-DAG: %[[LT1:.+]] = arith.cmpi ult, %[[WARP]], %[[HI1]] : i32
    // CHECK: %[[IN1:.+]] = arith.andi %[[GE1]], %[[LT1]] : i1
    // CHECK: scf.if %[[IN1]] {
    // CHECK-NEXT: sm100.fence after_thread_sync
    // CHECK-NEXT: }
    sm100.role "softmax" warps [4, 8) regs 168 {
      sm100.fence after_thread_sync
    }
    // CHECK: %[[LO2:.+]] = arith.constant 8 : i32
    // CHECK: %[[HI2:.+]] = arith.constant 12 : i32
    // CHECK-DAG: %[[GE2:.+]] = arith.cmpi uge, %[[WARP]], %[[LO2]] : i32
    // CHECK-DAG: %[[LT2:.+]] = arith.cmpi ult, %[[WARP]], %[[HI2]] : i32
    // CHECK: %[[IN2:.+]] = arith.andi %[[GE2]], %[[LT2]] : i1
    // CHECK: scf.if %[[IN2]] {
    // CHECK-NEXT: nvvm.setmaxregister decrease 104
    // CHECK-NEXT: %[[E:.+]] = nvvm.elect.sync -> i1
    // CHECK-NEXT: scf.if %[[E]] {
    // CHECK-NEXT: sm100.fence before_thread_sync
    // CHECK-NEXT: }
    // CHECK-NEXT: }
    sm100.role "producer" warps [8, 12) regs 104 {
      sm100.elect_one {
        sm100.fence before_thread_sync
      }
    }
  }
  // CHECK-NOT: sm100.role
  // CHECK: return
  return
}

// An elect_one inside a one-warp role: the mma ends up under both scf.ifs.
// CHECK-LABEL: func.func @mma_role
// CHECK-SAME: (%[[ACC:[^:]+]]: !sm100.tmem<128x256xf32, acc>, %[[A:[^:]+]]: i64, %[[B:[^:]+]]: i64, %[[EN:[^:]+]]: i1)
func.func @mma_role(%acc: !acc, %a: i64, %b: i64, %en: i1) {
  // CHECK: %[[WARP:.+]] = arith.shrui
  // CHECK: %[[LO:.+]] = arith.constant 1 : i32
  // CHECK: %[[HI:.+]] = arith.constant 2 : i32
  // CHECK-DAG: %[[GE:.+]] = arith.cmpi uge, %[[WARP]], %[[LO]] : i32
  // CHECK-DAG: %[[LT:.+]] = arith.cmpi ult, %[[WARP]], %[[HI]] : i32
  // CHECK: %[[IN:.+]] = arith.andi %[[GE]], %[[LT]] : i1
  // CHECK: scf.if %[[IN]] {
  // CHECK-NEXT: %[[E:.+]] = nvvm.elect.sync -> i1
  // CHECK-NEXT: scf.if %[[E]] {
  // CHECK-NEXT: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %[[ACC]], %[[A]], %[[B]], %[[EN]]
  // CHECK-NEXT: }
  // CHECK-NEXT: }
  // CHECK-NEXT: return
  sm100.warp_roles 2 {
    sm100.role "mma" warps [1, 2) {
      sm100.elect_one {
        sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %acc, %a, %b, %en : !acc, i64
      }
    }
  }
  return
}

// Roles without regs get no setmaxnreg, with or without nvvm.maxnreg; a
// warp in no role skips every branch.
// CHECK-LABEL: func.func @roles_without_regs
func.func @roles_without_regs() {
  // CHECK: %[[WARP:.+]] = arith.shrui
  sm100.warp_roles 4 {
    // CHECK: %[[LO:.+]] = arith.constant 1 : i32
    // CHECK: %[[HI:.+]] = arith.constant 3 : i32
    // CHECK-DAG: arith.cmpi uge, %[[WARP]], %[[LO]] : i32
    // CHECK-DAG: arith.cmpi ult, %[[WARP]], %[[HI]] : i32
    // CHECK: scf.if
    // CHECK-NOT: nvvm.setmaxregister
    // CHECK: sm100.fence before_thread_sync
    sm100.role "producer" warps [1, 3) {
      sm100.fence before_thread_sync
    }
  }
  // CHECK: return
  return
}

// An elect_one outside any role; two in sequence each get their own
// elect.sync.
// CHECK-LABEL: func.func @elect_one
// CHECK-SAME: %[[RING:[^:]+]]: !nvgpu.mbarrier.group
// CHECK-SAME: %[[I:[^:]+]]: index
func.func @elect_one(%ring: !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>, %i: index) {
  // CHECK-NOT: sm100.elect_one
  // CHECK: %[[E0:.+]] = nvvm.elect.sync -> i1
  // CHECK-NEXT: scf.if %[[E0]] {
  // CHECK-NEXT: sm100.commit %[[RING]][%[[I]]]
  // CHECK-NEXT: }
  sm100.elect_one {
    sm100.commit %ring[%i] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
  }
  // CHECK-NEXT: %[[E1:.+]] = nvvm.elect.sync -> i1
  // CHECK-NEXT: scf.if %[[E1]] {
  // CHECK-NEXT: sm100.tmem_relinquish
  // CHECK-NEXT: }
  sm100.elect_one {
    sm100.tmem_relinquish
  }
  // CHECK-NEXT: return
  return
}
