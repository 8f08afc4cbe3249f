// Extra seeds for scripts/fuzz-opt.py (not a lit test: Inputs/ is excluded).
// Each chunk is valid input; the fuzzer mutates it. They reach corners the
// examples do not: generic-form ops (inherent attributes as properties),
// graph regions, every ld/st shape, TMEM A operands, m64 and cta_group 2,
// barrier memrefs with multicast, role register budgets.

// Generic form of warp roles, elect_one and mma.
func.func @generic(%acc: !sm100.tmem<128x256xf32, acc>, %a: i64, %b: i64, %p: i1) attributes {nvvm.maxnreg = 128 : i32} {
  "sm100.warp_roles"() <{num_warps = 8 : i32}> ({
    "sm100.role"() <{begin = 0 : i32, end = 1 : i32, role_name = "mma"}> ({
      "sm100.elect_one"() ({
        "sm100.mma"(%acc, %a, %b, %p) <{idesc = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256>}> : (!sm100.tmem<128x256xf32, acc>, i64, i64, i1) -> ()
      }) : () -> ()
    }) : () -> ()
    "sm100.role"() <{begin = 1 : i32, end = 2 : i32, role_name = "epilogue"}> ({
      %v = "sm100.tmem_load"(%acc) <{num = 32 : i32, shape = 3 : i32}> : (!sm100.tmem<128x256xf32, acc>) -> vector<32xf32>
      "sm100.wait"() <{kind = 0 : i32}> : () -> ()
    }) : () -> ()
    "sm100.role"() <{begin = 4 : i32, end = 8 : i32, regs = 96 : i32, role_name = "idle"}> ({
    ^bb0:
    }) : () -> ()
  }) : () -> ()
  return
}

// -----

// Tensor-memory ops inside a graph region (use before definition is legal).
func.func @graph() {
  builtin.module {
    sm100.tmem_alloc %slot, 256 : memref<1xi32, 3>
    sm100.tmem_dealloc %b, 256 : !sm100.tmem<128x256xf32, acc>
    %b = sm100.tmem_slice %a[0] : !sm100.tmem<128x256xf32, acc> -> !sm100.tmem<128x256xf32, acc>
    %a = sm100.tmem_base %slot : memref<1xi32, 3> -> !sm100.tmem<128x256xf32, acc>
    %slot = memref.alloca() : memref<1xi32, 3>
  }
  return
}

// -----

!slot = memref<1xi32, #gpu.address_space<workgroup>>
!acc = !sm100.tmem<128x256xf32, acc>
!bars = memref<4xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  gpu.module @k {
    memref.global "private" @slot : !slot
    gpu.func @kern(%out: memref<128x256xf32>, %col: index, %mask: i16,
                   %b: i64, %p: i1) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
                    nvvm.maxnreg = 128 : i32} {
      %c0 = arith.constant 0 : index
      %slot = memref.get_global @slot : !slot
      %bars = memref.alloca() : !bars
      sm100.tmem_alloc %slot, 512 : !slot
      sm100.fence before_thread_sync
      gpu.barrier
      sm100.fence after_thread_sync
      %acc = sm100.tmem_base %slot : !slot -> !sm100.tmem<128x512xf32, acc>
      %d = sm100.tmem_slice %acc[0] : !sm100.tmem<128x512xf32, acc> -> !acc
      %pa = sm100.tmem_slice %acc[256] : !sm100.tmem<128x512xf32, acc> -> !sm100.tmem<128x128xbf16, operand_a>
      %y = sm100.tmem_load %d shape_16x256b x 1 {lane_base = 16 : i32} : !acc -> vector<4xf32>
      sm100.warp_roles 8 {
        sm100.role "epilogue" warps [0, 4) regs 152 {
          %v = sm100.tmem_load %d[%col] shape_32x32b x 32 : !acc -> vector<32xf32>
          %w = sm100.tmem_load %d shape_16x64b x 4 : !acc -> vector<4xi32>
          %x = sm100.tmem_load %d shape_16x128b x 2 : !acc -> vector<4xi32>
          %z = sm100.tmem_load %d shape_16x32bx2 x 8 {half_split_offset = 8 : i32} : !acc -> vector<8xi32>
          %pk = sm100.tmem_load %pa shape_32x32b x 16 pack : !sm100.tmem<128x128xbf16, operand_a> -> vector<16xi32>
          sm100.wait load
          sm100.tmem_store %pk, %pa shape_32x32b x 16 unpack : vector<16xi32>, !sm100.tmem<128x128xbf16, operand_a>
          sm100.tmem_store %v, %d[%col] shape_32x32b x 32 : vector<32xf32>, !acc
          sm100.wait store
          vector.store %v, %out[%c0, %col] : memref<128x256xf32>, vector<32xf32>
        }
        sm100.role "mma" warps [4, 5) regs 96 {
          sm100.elect_one {
            sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %d, %pa, %b, %p : !acc, !sm100.tmem<128x128xbf16, operand_a>
            sm100.commit %bars[%c0] multicast %mask : !bars
          }
        }
        sm100.role "spare" warps [5, 8) regs 96 {
        }
      }
      sm100.tmem_dealloc %acc, 512 : !sm100.tmem<128x512xf32, acc>
      sm100.tmem_relinquish
      gpu.return
    }
  }
}

// -----

// M = 64 and cta_group 2 MMAs, descriptors of every swizzle and major-ness.
module attributes {gpu.container_module} {
  gpu.module @k2 {
    memref.global "private" @slot : memref<1xi32, #gpu.address_space<workgroup>>
    gpu.func @kern2(%p: i1, %i: index) kernel {
      %c0 = arith.constant 0 : index
      %slot = memref.get_global @slot : memref<1xi32, #gpu.address_space<workgroup>>
      %sa = memref.alloca() : memref<64x16xf16, #gpu.address_space<workgroup>>
      %sc = memref.alloca() : memref<8x64xf32, #gpu.address_space<workgroup>>
      %sd = memref.alloca() : memref<128x64xf4E2M1FN, #gpu.address_space<workgroup>>
      %se = memref.alloca() : memref<16x64xsi8, #gpu.address_space<workgroup>>
      %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      sm100.tmem_alloc %slot, 256 : memref<1xi32, #gpu.address_space<workgroup>>
      %t = sm100.tmem_base %slot : memref<1xi32, #gpu.address_space<workgroup>> -> !sm100.tmem<128x256xf32, acc>
      %m64 = sm100.tmem_slice %t[0] : !sm100.tmem<128x256xf32, acc> -> !sm100.tmem<64x64xf32, acc_m64>
      %m64i = sm100.tmem_slice %t[64] : !sm100.tmem<128x256xf32, acc> -> !sm100.tmem<64x64xi32, acc_m64>
      %da = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = none, element = f16, mn = 64, k = 16> %sa[%c0, %c0] : memref<64x16xf16, #gpu.address_space<workgroup>>
      %dc = sm100.umma_desc #sm100.smem_layout<major = mn, swizzle = sw128_base32, element = tf32, mn = 64, k = 8> %sc[%c0, %c0] : memref<8x64xf32, #gpu.address_space<workgroup>>
      %dd = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw32, element = f4E2M1FN, mn = 128, k = 64> %sd[%c0, %c0] k_slice 0 : memref<128x64xf4E2M1FN, #gpu.address_space<workgroup>>
      %de = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw64, element = si8, mn = 16, k = 64> %se[%c0, %i] k_slice 1 : memref<16x64xsi8, #gpu.address_space<workgroup>>
      sm100.elect_one {
        sm100.mma #sm100.idesc<kind = f16, a = f16, b = f16, d = f32, m = 64, n = 64> %m64, %da, %da, %p : !sm100.tmem<64x64xf32, acc_m64>, i64
        sm100.mma #sm100.idesc<kind = tf32, a = tf32, b = tf32, d = f32, m = 64, n = 64, a_major = mn, b_major = mn> %m64, %dc, %dc, %p : !sm100.tmem<64x64xf32, acc_m64>, i64
        sm100.mma #sm100.idesc<kind = i8, a = si8, b = si8, d = i32, m = 64, n = 64> %m64i, %de, %de, %p : !sm100.tmem<64x64xi32, acc_m64>, i64
        sm100.commit %bars[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      }
      sm100.tmem_dealloc %t, 256 : !sm100.tmem<128x256xf32, acc>
      sm100.tmem_relinquish
      gpu.return
    }
    gpu.func @kern2cta(%p: i1) kernel {
      %c0 = arith.constant 0 : index
      %slot = memref.get_global @slot : memref<1xi32, #gpu.address_space<workgroup>>
      %sb = memref.alloca() : memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>
      %bars = memref.alloca() : memref<2xi64, #gpu.address_space<workgroup>>
      sm100.tmem_alloc %slot, 256 cta_group 2 : memref<1xi32, #gpu.address_space<workgroup>>
      %t = sm100.tmem_base %slot : memref<1xi32, #gpu.address_space<workgroup>> -> !sm100.tmem<128x256xf32, acc>
      %db = sm100.umma_desc #sm100.smem_layout<major = mn, swizzle = sw128, element = f8E4M3FN, mn = 128, k = 32> %sb[%c0, %c0] : memref<32x128xf8E4M3FN, #gpu.address_space<workgroup>>
      sm100.elect_one {
        sm100.mma #sm100.idesc<kind = f8f6f4, a = f8E4M3FN, b = f8E4M3FN, d = f32, m = 256, n = 256, b_major = mn, cta_group = 2> %t, %db, %db, %p : !sm100.tmem<128x256xf32, acc>, i64
        sm100.commit %bars[%c0] cta_group 2 : memref<2xi64, #gpu.address_space<workgroup>>
      }
      sm100.tmem_dealloc %t, 256 cta_group 2 : !sm100.tmem<128x256xf32, acc>
      sm100.tmem_relinquish cta_group 2
      gpu.return
    }
  }
}
