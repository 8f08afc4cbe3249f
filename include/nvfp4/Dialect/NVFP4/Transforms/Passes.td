//===- Passes.td - nvfp4 transformation passes -------------*- tablegen -*-===//

#ifndef NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_TD
#define NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NVFP4LowerAttention : Pass<"nvfp4-lower-attention", "::mlir::ModuleOp"> {
  let summary = "build an sm100 attention kernel for every nvfp4.attention";
  let description = [{
    For every `nvfp4.attention` op of the module, chooses a schedule from
    its shapes and attributes (docs/AttentionLowering.md), builds the
    warp-specialized kernel in the `sm100` dialect as a `gpu.func` in a new
    `gpu.module`, and records it on the op as `nvfp4.kernel =
    @module::@kernel`. The kernel carries an `nvfp4.harness` attribute
    (docs/Runtime.md) that describes its arguments and launch, so
    `nvfp4-run` checks it against the float64 reference directly.

    Ops that already carry `nvfp4.kernel` are left alone, so running the
    pass twice builds each kernel once. Shapes, types or attributes that no
    schedule supports are diagnosed at the op, naming the constraint.

    The host side (turning the op's tensors into buffers and tensor maps
    and launching the kernel) is not generated: the op stays in its
    function.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::nvfp4::sm100::SM100Dialect"];
  let options = [
    Option<"numSms", "num-sms", "int64_t", /*default=*/"148",
           "SMs of the target device: the balanced split-KV plan spreads "
           "the KV tiles over this many CTAs (CTA pairs for head dim 512); "
           "148 is a B200">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_100a\"",
           "Target chip: sm_100a (and newer) builds the tcgen05 kernel, "
           "sm_90a the Hopper kernel (wgmma, docs/Hopper.md)">,
    Option<"minPieceKeys", "min-piece-keys", "int64_t",
           /*default=*/"::nvfp4::plan::kDefaultMinPieceKeys",
           "The smallest share, in keys (rounded up to whole 64-key blocks "
           "or KV tiles), the balanced split-KV plan gives a CTA: CTAs "
           "past the work stay idle rather than pay a piece's fixed cost "
           "for a few keys; 0: no floor; at most 2^30 "
           "(docs/AttentionLowering.md, \"The shortest piece\")">,
    Option<"polyExp2", "poly-exp2", "int64_t", /*default=*/"-1",
           "sm_90a: of every 8 exponentials of P, how many are computed by "
           "a cubic on the FMA pipe instead of the SFU's ex2.approx (0-8); "
           "-1: the default rule (docs/Hopper.md, \"Exponentials on the FMA "
           "pipe\")">,
    Option<"clusterMerge", "cluster-merge", "int64_t",
           /*default=*/"::nvfp4::plan::kMaxClusterMerge",
           "sm_90a: the most pieces of a unit merged in a cluster's "
           "distributed shared memory instead of by a combine kernel, for "
           "plans whose units are all alike (static lengths, or one "
           "sequence with kv_lens; 0-8; 0 or 1: always the combine kernel; "
           "docs/Hopper.md, \"The cluster merge\")">,
    Option<"pShared", "p-shared", "int64_t", /*default=*/"-1",
           "sm_90a: P V reads P from shared memory (1: an SS wgmma, two P "
           "buffers a consumer warpgroup) or from registers (0), where "
           "consumer warpgroups take turns with the softmax overlapped (Dv "
           "<= 128, two or three consumers); -1: the default rule, "
           "registers (shared memory measured 8-39% slower on an H100; "
           "docs/Hopper.md, \"P through shared memory\")">,
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Attention kernels built">,
  ];
}

def NVFP4LowerAttentionMerge
    : Pass<"nvfp4-lower-attention-merge", "::mlir::ModuleOp"> {
  let summary = "build a kernel for every nvfp4.attention_merge";
  let description = [{
    For every `nvfp4.attention_merge` of the module, builds a `gpu.func` in
    a new `gpu.module` that merges the two results row by row (one warp per
    (sequence, query, head) row, lanes over Dv; docs/AttentionLowering.md,
    "Combine") and records it on the op as `nvfp4.kernel`. The kernel
    carries an `nvfp4.harness` attribute (reference `attention_merge`), so
    `nvfp4-run` checks it against float64. Static shapes and Dv a multiple
    of 32 are required; anything else is diagnosed at the op. Ops that
    already carry `nvfp4.kernel` are left alone.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numKernels", "kernels", "Merge kernels built">,
  ];
}

def NVFP4LowerQuantize : Pass<"nvfp4-lower-quantize", "::mlir::ModuleOp"> {
  let summary = "build a kernel for every nvfp4.quantize and nvfp4.dequantize";
  let description = [{
    For every `nvfp4.quantize` and `nvfp4.dequantize` of the module, builds
    a `gpu.func` in a new `gpu.module` that reads each input byte once (a
    thread per row and group of four 16-element blocks; docs/NVFP4.md,
    "Kernels") and records it on the op as `nvfp4.kernel`. The recipe is
    `nvfp4/Support/Nvfp4Format.h`'s instruction for instruction
    (`rcp.approx.ftz.f32` or IEEE division, `cvt.rn.satfinite.e4m3x2.f32`,
    `cvt.rn.satfinite.e2m1x2.f32` with the odd element first). A quantize
    without a scale operand gets a first kernel that reduces the amax; the
    quantize kernel follows it. The kernels carry `nvfp4.harness`
    attributes (references `nvfp4_quantize`, `nvfp4_quantize_amax`,
    `nvfp4_dequantize`), checked bit for bit by `nvfp4-run`. Static shapes
    are required. Ops that already carry `nvfp4.kernel` are left alone.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numKernels", "kernels", "Quantize and dequantize kernels built">,
  ];
}

def NVFP4LowerScaledMatmul
    : Pass<"nvfp4-lower-scaled-matmul", "::mlir::ModuleOp"> {
  let summary = "build a block-scaled SM100 GEMM for every nvfp4.scaled_matmul "
                "and nvfp4.grouped_scaled_matmul";
  let description = [{
    For every `nvfp4.scaled_matmul` and `nvfp4.grouped_scaled_matmul` of
    the module, builds a persistent warp-specialized kernel (docs/NVFP4.md,
    "Block-scaled matmul", "Grouped matmul"): TMA
    loads of the e2m1 operands (SW128) and of the swizzled scale-factor
    atoms into a ring of stages, `tcgen05.cp.32x128b.warpx4` of the scale
    factors into tensor memory, `tcgen05.mma.kind::mxf4nvf4.block_scale`
    with f32 accumulation, and an epilogue that applies 1 / (gs_A gs_B).
    128 x BN tiles (BN = 256, 128 or 64, the widest that still gives every
    SM a CTA) spread over min(tiles, SMs) CTAs, or, for a dense GEMM large
    enough to give every pair of SMs a 256 x 256 tile, CTA pairs issuing
    `cta_group::2` MMAs of M = 256 (each CTA loads half of A's and B's
    rows of the tile; `cta-group` forces either); the grouped form's tiles
    are those of its non-empty groups, found from the run-time group sizes
    in the prologue. M, N and K need not be multiples of the tile (K a
    multiple of 32). The kernel carries an `nvfp4.harness` attribute
    (references `nvfp4_scaled_matmul`, `nvfp4_grouped_matmul_contiguous`,
    `nvfp4_grouped_matmul_masked`). Ops that already carry `nvfp4.kernel`
    are left alone.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::nvfp4::sm100::SM100Dialect"];
  let options = [
    Option<"numSms", "num-sms", "int64_t", /*default=*/"148",
           "SMs of the target device: the N tile is the widest (256, 128, "
           "64) whose grid still has a CTA per SM; 148 is a B200">,
    Option<"ctaGroup", "cta-group", "int64_t", /*default=*/"0",
           "0: choose by shape (CTA pairs with cta_group::2 MMAs of 256 x "
           "256 for a dense GEMM of at least 256 rows whose tiles give "
           "every SM pair one); 1: single CTAs; 2: CTA pairs (dense only)">,
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Block-scaled GEMM kernels built">,
  ];
}

def NVFP4LowerHost : Pass<"nvfp4-lower-host", "::mlir::ModuleOp"> {
  let summary = "launch the kernels of nvfp4.launch from the host";
  let description = [{
    Replaces every `nvfp4.launch` (the buffer form one-shot bufferization
    gives an nvfp4 op whose kernel is built) by the host side of its launch,
    read from the kernel's `nvfp4.harness` attribute (docs/Host.md):

    - a tensor map for every `tmap` parameter, encoded on the host by
      upstream `nvgpu.tma.create.descriptor` over the buffer seen with the
      parameter's view (`memref.reinterpret_cast`);
    - the buffer itself for every `buffer` parameter (reinterpreted to the
      parameter's shape);
    - a constant for every `scalar` parameter (`softmax_scale*log2e`);
    - `gpu.alloc` / `gpu.dealloc` around the launches for the scratch
      buffers (`workspace`: split-KV partial results);
    - `gpu.launch_func` of the kernel, with its grid, block, cluster and
      dynamic shared memory, then of every kernel of `then` (the split-KV
      combine).

    The buffers of a function that launches nvfp4 kernels live in device
    memory: its `memref.alloc`, `memref.dealloc` and `memref.copy` become
    `gpu.alloc`, `gpu.dealloc` and `gpu.memcpy`, and it gets
    `llvm.emit_c_interface` (C programs call `_mlir_ciface_NAME`). Run
    `gpu-async-region` afterwards to put the buffers and launches on one
    stream.

    Buffers must be contiguous and row-major (identity layout: bufferize
    function boundaries with `function-boundary-type-conversion=
    identity-layout-map`); tensor maps are encoded for bf16, f16, f32, i32
    and ui8 elements (upstream's encoder takes other types for bf16). Anything
    else is diagnosed at the nvfp4.launch, naming the tensor.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numLaunches", "launches", "Kernel launches generated">,
  ];
}

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_TD
