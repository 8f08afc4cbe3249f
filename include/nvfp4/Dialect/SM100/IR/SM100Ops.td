//===- SM100Ops.td - sm100 operations ----------------------*- tablegen -*-===//
//
// Operations of the sm100 dialect. Every description names the PTX ISA 9.1
// section it models; every verifier rule has a case in
// test/Dialect/SM100/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_SM100_IR_SM100OPS_TD
#define NVFP4_DIALECT_SM100_IR_SM100OPS_TD

include "nvfp4/Dialect/SM100/IR/SM100Dialect.td"
include "nvfp4/Dialect/SM100/IR/SM100Attrs.td"
include "nvfp4/Dialect/SM100/IR/SM100Types.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

def SM100_Tmem : Type<CPred<"::llvm::isa<::nvfp4::sm100::TmemType>($_self)">,
                      "tensor memory matrix", "::nvfp4::sm100::TmemType">;

def SM100_SmemI32Slot : Type<And<[MemRefRankOf<[I32], [1]>.predicate,
    CPred<"::nvfp4::sm100::isSharedMemory(::llvm::cast<::mlir::MemRefType>($_self))">]>,
    "1-D i32 memref in shared memory (workgroup address space)",
    "::mlir::MemRefType">;

def SM100_SmemBuffer : Type<And<[AnyMemRef.predicate,
    CPred<"::nvfp4::sm100::isSharedMemory(::llvm::cast<::mlir::MemRefType>($_self))">]>,
    "memref in shared memory (workgroup address space)", "::mlir::MemRefType">;

def SM100_SmemBarrierArray : Type<And<[MemRefRankOf<[I64], [1]>.predicate,
    CPred<"::nvfp4::sm100::isSharedMemory(::llvm::cast<::mlir::MemRefType>($_self))">]>,
    "1-D i64 memref of mbarriers in shared memory", "::mlir::MemRefType">;

def SM100_MBarrierGroup : Type<
    CPred<"::llvm::isa<::mlir::nvgpu::MBarrierGroupType>($_self)">,
    "nvgpu mbarrier group", "::mlir::nvgpu::MBarrierGroupType">;

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

def SM100_TmemAllocOp : SM100_Op<"tmem_alloc"> {
  let summary = "allocate tensor-memory columns (warp-collective)";
  let description = [{
    Allocates `columns` columns of tensor memory across all 128 lanes and
    writes the address of the allocation to the shared-memory word `slot`
    (PTX ISA 9.7.16.7.1, `tcgen05.alloc.cta_group.sync.aligned.shared::cta.b32`).
    Executed by all threads of one warp (one warp in each CTA of the pair for
    `cta_group = 2`). Read the address with `sm100.tmem_base` after a barrier
    and a `sm100.fence before_thread_sync` / `after_thread_sync` pair.

    - Rule 1: `columns` is a power of two in [32, 512].
    - Rule 2: `cta_group` is 1 or 2.
    - Rule 3: not inside `sm100.elect_one` (the instruction is warp-collective).
    - Rule 4: inside a `sm100.role`, the role has exactly one warp.
    - Rule 5: the slot has room for one `i32` (also checked by
      `sm100.tmem_base`).

    Example:

    ```mlir
    sm100.tmem_alloc %slot, 256 : memref<1xi32, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins SM100_SmemI32Slot:$slot, I32Attr:$columns,
                   DefaultValuedAttr<I32Attr, "1">:$cta_group);
  let assemblyFormat = [{
    $slot `,` $columns (`cta_group` $cta_group^)? attr-dict `:` type($slot)
  }];
  let hasVerifier = 1;
}

def SM100_TmemBaseOp : SM100_Op<"tmem_base"> {
  let summary = "read the address of a tensor-memory allocation";
  let description = [{
    Loads the TMEM address that `sm100.tmem_alloc` wrote into `slot` and
    gives it the type of the matrix it holds (PTX ISA 9.7.16.1.1, address:
    lane in bits 31-16, column in bits 15-0).

    Example:

    ```mlir
    %acc = sm100.tmem_base %slot : memref<1xi32, #gpu.address_space<workgroup>> -> !sm100.tmem<128x256xf32, acc>
    ```
  }];
  let arguments = (ins SM100_SmemI32Slot:$slot);
  let results = (outs SM100_Tmem:$result);
  let assemblyFormat = "$slot attr-dict `:` type($slot) `->` type($result)";
  let hasVerifier = 1;
}

def SM100_TmemDeallocOp : SM100_Op<"tmem_dealloc"> {
  let summary = "free a tensor-memory allocation (warp-collective)";
  let description = [{
    Frees `columns` columns starting at `tmem` (PTX ISA 9.7.16.7.1,
    `tcgen05.dealloc`). Every allocation must be freed before the kernel
    exits; the `sm100-plan-tmem` pass checks that each allocation has one.

    - Rule 1: `columns` is a power of two in [32, 512].
    - Rule 2: `columns` covers the matrix type of `tmem`.
    - Rule 3: not inside `sm100.elect_one`.
    - Rule 4: `cta_group` is 1 or 2.
    - Rule 5: inside a `sm100.role`, the role has exactly one warp.

    Example:

    ```mlir
    sm100.tmem_dealloc %acc, 256 : !sm100.tmem<128x256xf32, acc>
    ```
  }];
  let arguments = (ins SM100_Tmem:$tmem, I32Attr:$columns,
                   DefaultValuedAttr<I32Attr, "1">:$cta_group);
  let assemblyFormat = [{
    $tmem `,` $columns (`cta_group` $cta_group^)? attr-dict `:` type($tmem)
  }];
  let hasVerifier = 1;
}

def SM100_TmemRelinquishOp : SM100_Op<"tmem_relinquish"> {
  let summary = "give up the right to allocate tensor memory";
  let description = [{
    After this, no thread of the CTA may execute `sm100.tmem_alloc`
    (PTX ISA 9.7.16.7.1, `tcgen05.relinquish_alloc_permit`). Lets other CTAs
    on the SM allocate as soon as possible.

    - Rule 1: `cta_group` is 1 or 2.

    Example:

    ```mlir
    sm100.tmem_relinquish
    ```
  }];
  let arguments = (ins DefaultValuedAttr<I32Attr, "1">:$cta_group);
  let assemblyFormat = "(`cta_group` $cta_group^)? attr-dict";
  let hasVerifier = 1;
}

def SM100_TmemSliceOp : SM100_Op<"tmem_slice", [Pure]> {
  let summary = "a matrix inside a tensor-memory allocation";
  let description = [{
    Views the 32-bit TMEM columns [`column`, `column` + N) of `source` as the
    matrix type of the result, which may have another element type and
    layout (this is how P aliases S, or O sits beside S in one allocation).
    Pure address arithmetic (PTX ISA 9.7.16.1.1).

    - Rule 1: the result fits: `column` + columns(result) <= columns(source).
    - Rule 2: the result has no more rows than the source.
    - Rule 3: a slice is not (transitively) its own source, which a graph
      region would allow.

    Example:

    ```mlir
    %p = sm100.tmem_slice %s[0] : !sm100.tmem<128x128xf32, acc> -> !sm100.tmem<128x128xbf16, operand_a>
    ```
  }];
  let arguments = (ins SM100_Tmem:$source, I32Attr:$column);
  let results = (outs SM100_Tmem:$result);
  let assemblyFormat = [{
    $source `[` $column `]` attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def SM100_TmemLoadOp : SM100_Op<"tmem_load"> {
  let summary = "load from tensor memory into registers (warp-collective)";
  let description = [{
    Every thread of the warp loads part of a `shape` x `num` block of tensor
    memory into registers (PTX ISA 9.7.16.8.3, `tcgen05.ld.sync.aligned`).
    The access starts at `tmem` + `column` (in 32-bit columns) and, unless
    `lane_base` is given, at the first lane of the executing warp's lane
    quadrant (`32 * (warp id % 4)`, PTX ISA 9.7.16.8.1): a warp can only
    reach its own quadrant, so this is the form that is correct by
    construction. With `pack`, two 16-bit elements of adjacent columns are
    packed into one register. The result is the registers of one thread,
    as `i32` or (bit-cast) `f32`. The result is usable at once: the
    lowering follows the `tcgen05.ld` with a `tcgen05.wait::ld` that defines
    the result registers (docs/Rationale.md, "`tmem_load` waits"), so no
    `sm100.wait load` is needed for the result.

    - Rule 1: `num` is a legal repetition for `shape` and the result has the
      matching register count (32x32b/16x64b/16x32bx2: num,
      16x128b: 2 num, 16x256b: 4 num).
    - Rule 2: a static `column` + the columns one access covers fit in `tmem`.
    - Rule 3: `lane_base` keeps the access in one lane quadrant, and inside a
      `sm100.role` in the quadrant of every warp of the role.
    - Rule 4: not inside `sm100.elect_one` (the instruction is warp-collective).
    - Rule 5: `half_split_offset` (the column offset of the second 16x32b
      access, `immHalfSplitoff`) is given exactly for shape_16x32bx2.

    Example:

    ```mlir
    %r = sm100.tmem_load %acc[%c0] shape_32x32b x 32 : !sm100.tmem<128x256xf32, acc> -> vector<32xf32>
    ```
  }];
  let arguments = (ins SM100_Tmem:$tmem, Optional<Index>:$column,
                   SM100_LdStShape:$shape, I32Attr:$num, UnitAttr:$pack,
                   OptionalAttr<I32Attr>:$lane_base,
                   OptionalAttr<I32Attr>:$half_split_offset);
  let results = (outs VectorOfRankAndType<[1], [I32, F32]>:$result);
  let assemblyFormat = [{
    $tmem (`[` $column^ `]`)? $shape `x` $num (`pack` $pack^)? attr-dict `:` type($tmem) `->` type($result)
  }];
  let hasVerifier = 1;
}

def SM100_TmemStoreOp : SM100_Op<"tmem_store"> {
  let summary = "store registers to tensor memory (warp-collective)";
  let description = [{
    The inverse of `sm100.tmem_load` (PTX ISA 9.7.16.8.3,
    `tcgen05.st.sync.aligned`): same shapes, repetition, addressing and
    rules; `unpack` splits each register into two 16-bit elements of
    adjacent columns. Asynchronous: `sm100.wait store` before the data is
    read by another tcgen05 operation.

    - Rule 1-5: as for `sm100.tmem_load`.

    Example:

    ```mlir
    sm100.tmem_store %r, %p shape_32x32b x 16 : vector<16xi32>, !sm100.tmem<128x128xbf16, operand_a>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [I32, F32]>:$value,
                   SM100_Tmem:$tmem, Optional<Index>:$column,
                   SM100_LdStShape:$shape, I32Attr:$num,
                   UnitAttr:$unpack, OptionalAttr<I32Attr>:$lane_base,
                   OptionalAttr<I32Attr>:$half_split_offset);
  let assemblyFormat = [{
    $value `,` $tmem (`[` $column^ `]`)? $shape `x` $num (`unpack` $unpack^)? attr-dict `:` type($value) `,` type($tmem)
  }];
  let hasVerifier = 1;
}

def SM100_WaitOp : SM100_Op<"wait"> {
  let summary = "wait for this thread's tensor-memory loads or stores";
  let description = [{
    Blocks until all prior `sm100.tmem_load` (`load`) or `sm100.tmem_store`
    (`store`) of the executing thread have completed (PTX ISA 9.7.16.8.5,
    `tcgen05.wait::ld` / `tcgen05.wait::st`). Warp-collective.

    - Rule 1: not inside `sm100.elect_one`.

    Example:

    ```mlir
    sm100.wait load
    ```
  }];
  let arguments = (ins SM100_WaitKind:$kind);
  let assemblyFormat = "$kind attr-dict";
  let hasVerifier = 1;
}

def SM100_FenceOp : SM100_Op<"fence"> {
  let summary = "order tcgen05 operations around a thread synchronisation";
  let description = [{
    `before_thread_sync` orders prior asynchronous tcgen05 operations before
    a following barrier or mbarrier arrive; `after_thread_sync` orders later
    tcgen05 operations after a preceding barrier or mbarrier wait
    (PTX ISA 9.7.16.6.4, `tcgen05.fence`).

    Example:

    ```mlir
    sm100.fence after_thread_sync
    ```
  }];
  let arguments = (ins SM100_FenceKind:$kind);
  let assemblyFormat = "$kind attr-dict";
}

//===----------------------------------------------------------------------===//
// UMMA
//===----------------------------------------------------------------------===//

def SM100_UmmaDescOp : SM100_Op<"umma_desc", [Pure]> {
  let summary = "the 64-bit shared-memory descriptor of a UMMA operand tile";
  let description = [{
    Builds the shared-memory matrix descriptor (PTX ISA 9.7.16.4.1, Table 40)
    for the `k_slice`-th 32-byte K slice of the tile that starts at
    `buffer[indices]` and is laid out as `layout` says. Start address,
    leading- and stride-dimension byte offsets, the fixed `0b001` at bit 46
    and the swizzle code are all derived from `layout`; only the start
    address is computed at run time.

    - Rule 1: `buffer` lives in shared memory.
    - Rule 2: the number of indices equals the rank of `buffer`.
    - Rule 3: `k_slice` < k * bits(element) / 256.
    - Rule 4: a ranked 2-D `buffer` of the layout's element type has the
      layout's shape ([mn, k] for K-major, [k, mn] for MN-major).

    Example:

    ```mlir
    %da = sm100.umma_desc #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64> %a[%c0, %c0] k_slice 1 : memref<128x64xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins SM100_SmemBuffer:$buffer, Variadic<Index>:$indices,
                   SM100_SmemLayoutAttr:$layout,
                   DefaultValuedAttr<I32Attr, "0">:$k_slice);
  let results = (outs I64:$result);
  let assemblyFormat = [{
    qualified($layout) $buffer `[` $indices `]` (`k_slice` $k_slice^)? attr-dict `:` type($buffer)
  }];
  let hasVerifier = 1;
}

def SM100_MmaOp : SM100_Op<"mma"> {
  let summary = "issue one asynchronous UMMA (single thread)";
  let description = [{
    `d = a * b + (accumulate ? d : 0)` on the fifth-generation tensor cores
    (PTX ISA 9.7.16.10.9, `tcgen05.mma.cta_group.kind`). `a` is a shared-memory
    descriptor (`i64`, from `sm100.umma_desc`) or a TMEM matrix in the
    `operand_a` layout (the `ts` form); `b` is a shared-memory descriptor;
    `d` is a TMEM accumulator. The kind, types, shape, majors and cta_group
    come from the instruction-descriptor attribute `idesc`. Asynchronous:
    completion is observed through `sm100.commit` on an mbarrier.

    - Rule 1: `d` is an accumulator (`acc` for M = 128 per CTA, `acc_m64` for
      M = 64) of idesc.m / cta_group rows, idesc.n columns and the
      accumulator type of idesc.
    - Rule 2: a TMEM `a` has the `operand_a` layout, idesc.m rows per CTA and
      the A type of idesc, and idesc.a_major is `k`.
    - Rule 3: issued inside `sm100.elect_one` (single-thread issue), and inside
      a `sm100.role` of exactly one warp when in one.
    - Rule 4: cta_group 2 supports M = 256 (per-CTA accumulator of 128 rows).
    - Rule 5: the kind is dense (f16, tf32, f8f6f4, i8); block-scaled kinds
      need scale operands and a separate op.

    Example:

    ```mlir
    sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256> %acc, %da, %db, %accumulate : !sm100.tmem<128x256xf32, acc>, i64
    ```
  }];
  let arguments = (ins SM100_Tmem:$d, AnyTypeOf<[I64, SM100_Tmem]>:$a,
                   I64:$b, I1:$accumulate, SM100_IDescAttr:$idesc);
  let assemblyFormat = [{
    qualified($idesc) $d `,` $a `,` $b `,` $accumulate attr-dict `:` type($d) `,` type($a)
  }];
  let hasVerifier = 1;
}

def SM100_MmaBlockScaleOp : SM100_Op<"mma_block_scale"> {
  let summary = "issue one asynchronous block-scaled UMMA (single thread)";
  let description = [{
    `d = (a * sfa) * (b * sfb) + (accumulate ? d : 0)` on the fifth-generation
    tensor cores with per-block scale factors (PTX ISA 9.7.16.10.9,
    `tcgen05.mma.cta_group.kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale`):
    every `block` consecutive K elements of a row of A (column of B) are
    multiplied by one scale factor read from tensor memory. `a` and `b` are
    shared-memory descriptors (`sm100.umma_desc`), `d` a TMEM accumulator,
    `scale_a` and `scale_b` TMEM matrices in the `scales` layout: row m's
    scale factor for K block j is byte j of lane m, column `scale_a` + m/32
    (a 128-row A needs 4 columns); column n's is byte j of lane 32·p + n%32,
    column `scale_b` + n/32 in every lane partition p (copied there by
    `sm100.tmem_copy` with `shape_32x128b_warpx4` from the swizzled 128×4
    scale-factor layout; docs/NVFP4.md). NVFP4 is `kind = mxf4nvf4,
    scale_type = ue4m3` (16 elements per scale, `.block16`).

    - Rule 1: the kind is block-scaled (mxf8f6f4, mxf4, mxf4nvf4).
    - Rule 2: `d` is an f32 accumulator (`acc`) of idesc.m / cta_group rows
      and idesc.n columns.
    - Rule 3: mxf4 and mxf4nvf4 operands are K-major (no transpose for FP4;
      checked by the `#sm100.idesc` attribute's verifier).
    - Rule 4: the scale type fits the kind: ue4m3 only with mxf4nvf4
      (16-element blocks); mxf8f6f4 and mxf4 take ue8m0 (32-element blocks;
      checked by the `#sm100.idesc` attribute's verifier).
    - Rule 5: `scale_a` and `scale_b` are `scales` matrices of the scale
      type's element (f8E4M3FN for ue4m3, f8E8M0FNU for ue8m0); `scale_a`
      spans at least 4 TMEM columns (16 bytes per lane: the 128 rows' scale
      factors sit in columns m/32) and `scale_b` at least ⌈idesc.n / 32⌉
      columns (4·⌈n / 32⌉ bytes per lane).
    - Rule 6: issued inside `sm100.elect_one`, and inside a `sm100.role` of
      exactly one warp when in one.
    - Rule 7: cta_group 2 supports M = 256 only.

    Example (NVFP4 x NVFP4 -> f32, M = 128, N = 256, K = 64 per MMA):

    ```mlir
    sm100.mma_block_scale #sm100.idesc<kind = mxf4nvf4, a = f4E2M1FN, b = f4E2M1FN, d = f32, m = 128, n = 256, scale_type = ue4m3>
        %acc, %da, %db, %accumulate scales(%sfa, %sfb)
        : !sm100.tmem<128x256xf32, acc>, !sm100.tmem<128x16xf8E4M3FN, scales>, !sm100.tmem<128x32xf8E4M3FN, scales>
    ```
  }];
  let arguments = (ins SM100_Tmem:$d, I64:$a, I64:$b, I1:$accumulate,
                   SM100_Tmem:$scale_a, SM100_Tmem:$scale_b,
                   SM100_IDescAttr:$idesc);
  let assemblyFormat = [{
    qualified($idesc) $d `,` $a `,` $b `,` $accumulate
    `scales` `(` $scale_a `,` $scale_b `)` attr-dict
    `:` type($d) `,` type($scale_a) `,` type($scale_b)
  }];
  let hasVerifier = 1;
}

def SM100_TmemCopyOp : SM100_Op<"tmem_copy"> {
  let summary = "copy a shared-memory matrix into tensor memory (single thread)";
  let description = [{
    Asynchronously copies the shared-memory matrix that the descriptor
    `src` (`sm100.umma_desc`, K-major, no swizzle for scale factors)
    describes into tensor memory at `dst` (PTX ISA 9.7.16.9.2,
    `tcgen05.cp.cta_group.shape{.multicast}`). Ordered before the
    tcgen05.mma that this thread issues next; completion is observed with
    `sm100.commit` like an MMA's.

    | shape | copies |
    |-------|--------|
    | `shape_32x128b_warpx4` | 32 rows x 16 bytes, to lanes r, 32 + r, 64 + r, 96 + r of 4 columns (`.32x128b.warpx4`: the scale-factor copy) |
    | `shape_128x128b` | 128 rows x 16 bytes to 128 lanes, 4 columns |
    | `shape_128x256b` | 128 rows x 32 bytes to 128 lanes, 8 columns |

    - Rule 1: `dst` is a 128-row TMEM matrix at least as many 32-bit
      columns wide as the shape writes (4, or 8 for `shape_128x256b`).
    - Rule 2: issued inside `sm100.elect_one`, and inside a `sm100.role` of
      exactly one warp when in one.
    - Rule 3: cta_group is 1 or 2.

    Example (one 512-byte atom of scale factors, 128 rows of A):

    ```mlir
    sm100.tmem_copy shape_32x128b_warpx4 %sfa_k0, %desc : !sm100.tmem<128x16xf8E4M3FN, scales>
    ```
  }];
  let arguments = (ins SM100_Tmem:$dst, I64:$src, SM100_CpShape:$shape,
                   DefaultValuedAttr<I64Attr, "1">:$cta_group);
  let assemblyFormat = [{
    $shape $dst `,` $src attr-dict `:` type($dst)
  }];
  let hasVerifier = 1;
}

def SM100_CommitOp : SM100_Op<"commit"> {
  let summary = "make an mbarrier track this thread's prior UMMAs (single thread)";
  let description = [{
    `barriers` is an `nvgpu` mbarrier group or a 1-D `i64` memref of
    mbarriers in shared memory (the form an nvgpu group lowers to).
    Makes the mbarrier `barriers[index]` track the completion of all prior
    asynchronous tcgen05 operations of the executing thread; when they
    complete it receives one arrive (PTX ISA 9.7.16.12.1,
    `tcgen05.commit.cta_group.mbarrier::arrive::one`). With
    `multicast_mask`, the arrive goes to the barrier at the same offset in
    every CTA of the cluster whose bit (by `%cluster_ctarank`) is set.

    - Rule 1: issued inside `sm100.elect_one`.
    - Rule 2: `cta_group` is 1 or 2.
    - Rule 3: inside a `sm100.role`, the role has exactly one warp (a role of
      several warps would arrive once per warp).
    - Rule 4: an nvgpu group's barriers are in shared memory, there is at
      least one, and a constant `index` names one of them.

    Example:

    ```mlir
    sm100.commit %full[%stage] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
    ```
  }];
  let arguments = (ins AnyTypeOf<[SM100_MBarrierGroup, SM100_SmemBarrierArray]>:$barriers,
                   Index:$index,
                   Optional<I16>:$multicast_mask,
                   DefaultValuedAttr<I32Attr, "1">:$cta_group);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`multicast` $multicast_mask^)? (`cta_group` $cta_group^)? attr-dict `:` type($barriers)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Execution regions: warp roles and single-thread issue
//===----------------------------------------------------------------------===//

// warp_roles and role are not RecursiveMemoryEffects: an empty role still
// assigns its warps (and their register budget), so it must not be erased as
// dead code.
def SM100_WarpRolesOp : SM100_Op<"warp_roles",
    [SingleBlock, NoTerminator, NoRegionArguments]> {
  let summary = "split a CTA's warps into named roles";
  let description = [{
    Splits the `num_warps` warps of a one-dimensional CTA into the roles
    listed in its body (`sm100.role` ops). Each warp runs the body of the
    role that contains it; warps in no role skip the op. A role with a
    register budget sets it with `setmaxnreg` (PTX ISA, Miscellaneous Instructions: setmaxnreg,
    `setmaxnreg.{inc,dec}.sync.aligned.u32`) on entry.

    - Rule 1: the body holds only `sm100.role` ops, at least one.
    - Rule 2: role names are unique and role warp ranges are disjoint and lie
      in [0, num_warps).
    - Rule 3: setmaxnreg is warpgroup-wide: when a role sets `regs`, every
      warp (below num_warps) of each warpgroup it touches belongs to a
      role with the same `regs`.
    - Rule 4: `regs` is a multiple of 8 in [24, 256].
    - Rule 5: with any `regs`, the enclosing function has `nvvm.maxnreg`
      (setmaxnreg needs a register cap at launch) and the registers
      the roles hold fit in the pool the launch reserved:
      sum(regs(role) * 32 * warps(role)) <= maxnreg * 32 * num_warps,
      where a role without `regs` and idle warps keep maxnreg.
    - Rule 6: num_warps is in [1, 32] and, inside a `gpu.func` with
      `gpu.known_block_size`, equals the block's warps.

    Example:

    ```mlir
    sm100.warp_roles 8 {
      sm100.role "load" warps [0, 1) {
        ...
      }
      sm100.role "mma" warps [1, 2) {
        ...
      }
      sm100.role "epilogue" warps [4, 8) regs 232 {
        ...
      }
    }
    ```
  }];
  let arguments = (ins I32Attr:$num_warps);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$num_warps attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def SM100_RoleOp : SM100_Op<"role",
    [SingleBlock, NoTerminator, HasParent<"WarpRolesOp">, NoRegionArguments]> {
  let summary = "the code of one warp role";
  let description = [{
    The body runs on warps [`begin`, `end`) of the enclosing
    `sm100.warp_roles`; with `regs`, each thread's register budget is set to
    `regs` on entry. See `sm100.warp_roles` for the rules.

    Example:

    ```mlir
    sm100.role "softmax" warps [0, 4) regs 192 {
      ...
    }
    ```
  }];
  let arguments = (ins StrAttr:$role_name, I32Attr:$begin, I32Attr:$end,
                   OptionalAttr<I32Attr>:$regs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $role_name `warps` `[` $begin `,` $end `)` (`regs` $regs^)? attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    unsigned getNumWarps() { return getEnd() - getBegin(); }
  }];
}

def SM100_ElectOneOp : SM100_Op<"elect_one",
    [SingleBlock, NoTerminator, NoRegionArguments, RecursiveMemoryEffects]> {
  let summary = "run a region on one elected thread of the warp";
  let description = [{
    The body runs on exactly one thread of the (converged) executing warp,
    chosen with `elect.sync` (PTX ISA, Parallel Synchronization and Communication Instructions: elect.sync). `sm100.mma` and
    `sm100.commit` must be issued from such a region; warp-collective
    tensor-memory operations must not be (they would hang).

    Example:

    ```mlir
    sm100.elect_one {
      sm100.mma #sm100.idesc<...> %acc, %da, %db, %true : !sm100.tmem<128x256xf32, acc>, i64
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
}

#endif // NVFP4_DIALECT_SM100_IR_SM100OPS_TD
