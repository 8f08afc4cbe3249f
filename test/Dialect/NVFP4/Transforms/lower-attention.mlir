// RUN: nvfp4-opt %s --nvfp4-lower-attention -split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-lower-attention --nvfp4-lower-attention -split-input-file | FileCheck %s --check-prefix=TWICE
// RUN: nvfp4-opt %s --nvfp4-sm100-to-cubin="stop-after=attention" -split-input-file | FileCheck %s

// MQA decode (DeepSeek-like, head dim 128): 128 query heads of one token in
// the MMA's M, one CTA per sequence, three K/V stages, K and V separate.

// CHECK-LABEL: func.func @mqa
// CHECK: nvfp4.attention {{.*}} {nvfp4.kernel = @mqa_attention::@mqa_attention}
// CHECK: gpu.module @mqa_attention
// CHECK: memref.global "private" @tmem_slot : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.func @mqa_attention(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<4x1x128x128xbf16>, %{{.*}}: memref<4x128x1xf32>, %{{.*}}: memref<4xi32>, %{{.*}}: memref<128xf32>, %{{.*}}: f32) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: nvfp4.harness = {args = [{box = array<i64: 64, 128, 1>, swizzle = "128B", tmap = "q", view = ["b*sq", "hq", "d"]}, {box = array<i64: 64, 1, 128>, swizzle = "128B", tmap = "k", view = ["b*skv", "hkv", "d"]}, {box = array<i64: 64, 1, 128>, swizzle = "128B", tmap = "v", view = ["b*skv", "hkv", "dv"]}, {box = array<i64: 64, 1, 16>, swizzle = "128B", tmap = "k", view = ["b*skv", "hkv", "d"]}, {box = array<i64: 64, 1, 16>, swizzle = "128B", tmap = "v", view = ["b*skv", "hkv", "dv"]}, {buffer = "o"}, {buffer = "lse"}, {buffer = "kv_lens"}, {buffer = "sink"}, {scalar = "f32", value = "softmax_scale*log2e"}]
// CHECK-SAME: dynamic_smem = 230400
// CHECK-SAME: grid = array<i32: 4, 1, 1>
// CHECK-SAME: reference = "attention"
// CHECK-SAME: nvfp4.schedule = {box_keys = 128 : i64, dv_split = 1 : i64, exchange_s = 0 : i64, group = 128 : i64, kv_tile = 128 : i64, max_regs = 232 : i64, mmas_per_tile = 16 : i64, other_regs = 160 : i64, partitions = 4 : i64, queries_per_cta = 1 : i64, row_blocks = 1 : i64, s_buffers = 2 : i64, smem_bytes = 230400 : i64, softmax_regs = 232 : i64, split = "whole", stages = 3 : i64, tmem_columns = 512 : i64, tmem_o = 256 : i64, tmem_p = 0 : i64, tmem_s = 0 : i64, units = 4 : i64, x_rounds = 1 : i64}
// CHECK-SAME: nvvm.maxnreg = 232 : i32
// The Q box: (64 columns, 128 heads, 1 query); K/V boxes: (64, 1 head, 128 keys).
// CHECK: !nvgpu.tensormap.descriptor<tensor = memref<1x128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: !nvgpu.tensormap.descriptor<tensor = memref<128x1x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK: sm100.tmem_alloc %{{.*}}, 512
// CHECK: sm100.warp_roles 8
// CHECK: sm100.role "softmax" warps[0, 4) regs 232
// Two S buffers of 128 columns; P over the first half of its tile's buffer.
// CHECK: sm100.tmem_load %{{.*}} shape_32x32b x 32 : <128x256xf32, acc> -> vector<32xf32>
// CHECK: math.exp2 %{{.*}} fastmath<afn> : vector<32xf32>
// CHECK: sm100.tmem_store %{{.*}} shape_32x32b x 32 : vector<32xi32>, <128x512xbf16, operand_a>
// CHECK: nvgpu.mbarrier.arrive
// CHECK: lg2.approx.ftz.f32
// CHECK: sm100.role "load" warps[4, 5) regs 160
// CHECK-COUNT-2: nvgpu.tma.async.load
// CHECK: scf.for
// CHECK-COUNT-4: nvgpu.tma.async.load
// CHECK: sm100.role "mma" warps[5, 6) regs 160
// S = Q K^T: 8 MMAs of K = 16 (N = 128), then P V: 8 K-slices of N = 128,
// V read as an MN-major operand whose atoms are K-first (the two 64-column
// boxes, 16 KiB apart).
// The warp runs a tile ahead: step n of tileCount + 1 issues S(n) into
// buffer n mod 2 (n < tileCount) once the P V that read that buffer's P
// (tile n - 2) completed, then P V of tile n - 1 (n >= 1). (The outer loop
// walks the CTA's pieces.)
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.cmpi ult
// CHECK-NEXT: scf.if
// CHECK: nvgpu.mbarrier.try_wait.parity
// The o_done wait before S: for the last P V issued (g - 1 at a piece's
// first tile, else g - sBuffers), never an older phase.
// CHECK: arith.cmpi eq
// CHECK: arith.cmpi uge
// CHECK: arith.cmpi uge
// CHECK-NEXT: %[[NEED:.*]] = arith.select
// CHECK: scf.if %[[NEED]]
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK-NEXT: }
// CHECK: scf.if
// CHECK-COUNT-8: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 128>
// CHECK: sm100.commit
// CHECK: } else {
// CHECK-COUNT-8: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 128>
// CHECK: sm100.commit
// CHECK: sm100.umma_desc #sm100.smem_layout<major = mn, swizzle = sw128, element = bf16, mn = 128, k = 128, k_first = true> %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-8: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 128, b_major = mn>
// CHECK: } else {
// CHECK-COUNT-8: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 128, b_major = mn>
// CHECK: sm100.commit
// CHECK: sm100.commit
// CHECK-NOT: sm100.mma
// CHECK: sm100.role "spare" warps[6, 8) regs 160
// CHECK: sm100.tmem_dealloc %{{.*}}, 512

// Running the pass again builds nothing new.
// TWICE: gpu.module @mqa_attention
// TWICE-NOT: gpu.module @mqa_attention
// TWICE: gpu.module @gqa_prefill_attention
// TWICE-NOT: gpu.module @gqa_prefill_attention
// TWICE: gpu.module @dsv4_attention
// TWICE-NOT: gpu.module
func.func @mqa(%q: tensor<4x1x128x128xbf16>, %k: tensor<4x512x1x128xbf16>,
               %v: tensor<4x512x1x128xbf16>, %sink: tensor<128xf32>,
               %lens: tensor<4xi32>)
    -> (tensor<4x1x128x128xbf16>, tensor<4x128x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v sink(%sink) kv_lens(%lens)
      softmax_scale(0.0883883476) num_splits(1)
      : (tensor<4x1x128x128xbf16>, tensor<4x512x1x128xbf16>,
         tensor<4x512x1x128xbf16>, tensor<128xf32>, tensor<4xi32>)
      -> (tensor<4x1x128x128xbf16>, tensor<4x128x1xf32>)
  return %o, %lse : tensor<4x1x128x128xbf16>, tensor<4x128x1xf32>
}

// -----

// GQA prefill, head dim 256 with K = V, no sink and no kv_lens: the kernel
// has one K/V map, no length or sink buffer, and the harness says so;
// 4 query heads per KV head x 32 queries per CTA; two stages of 64 KiB.
// Without kv_lens every length is static, so the balanced split-KV plan is
// computed at compile time: a constant table with one row (uFirst, t0,
// uLast, t1, S) per partition; the kernel writes partial results and unit
// records into the workspace and a combine kernel follows. Causal with 100
// queries in blocks of 32: each head's first block holds the 28 padding
// rows (query_shift). The plan splits unit 0 of the 8 and leaves the
// others whole, so the combine's grid covers only it, through its own
// constant table (1 unit x 128 rows x 2 slices of 128 columns = 256 CTAs
// of a row each).

// CHECK-LABEL: func.func @gqa_prefill
// CHECK: gpu.module @gqa_prefill_attention
// CHECK: memref.global "private" constant @gqa_prefill_attention_combine_units : memref<1xi32> = dense<0>
// CHECK: memref.global "private" constant @plan_table : memref<148x5xi32> = dense<
// CHECK: gpu.func @gqa_prefill_attention(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: memref<1x100x8x256xf16>, %{{.*}}: memref<1x8x100xf32>, %{{.*}}: memref<296x128x256xf32>, %{{.*}}: memref<296x128xf32>, %{{.*}}: memref<8x4xi32>, %{{.*}}: f32) kernel
// CHECK-SAME: absent = ["sink", "kv_lens"]
// CHECK-SAME: args = [{box = array<i64: 64, 4, 32>, swizzle = "128B", tmap = "q", view = ["b*sq", "hq", "d"]}, {box = array<i64: 64, 1, 128>, swizzle = "128B", tmap = "k", view = ["b*skv", "hkv", "d"]}, {box = array<i64: 64, 1, 16>, swizzle = "128B", tmap = "k", view = ["b*skv", "hkv", "d"]}, {buffer = "o"}, {buffer = "lse"}, {buffer = "partial_o"}, {buffer = "partial_lse"}, {buffer = "unit_records"}, {scalar = "f32", value = "softmax_scale*log2e"}]
// CHECK-SAME: grid = array<i32: 148, 1, 1>
// CHECK-SAME: options = {causal = true, softmax_scale = 6.250000e-02 : f32, window = 64 : i64}
// CHECK-SAME: same = {v = "k"}
// CHECK-SAME: then = [{args = [{buffer = "o"}, {buffer = "lse"}, {buffer = "partial_o"}, {buffer = "partial_lse"}, {buffer = "unit_records"}], block = array<i32: 128, 1, 1>, grid = array<i32: 256, 1, 1>, kernel = "gqa_prefill_attention_combine", programmatic = true}]
// CHECK-SAME: workspace = [{name = "partial_o", shape = array<i64: 296, 128, 256>, type = "f32"}, {name = "partial_lse", shape = array<i64: 296, 128>, type = "f32"}, {name = "unit_records", shape = array<i64: 8, 4>, type = "i32"}]
// CHECK-SAME: group = 4 : i64
// CHECK-SAME: partitions = 148 : i64, plan = "static", plan_keys = 64 : i64, queries_per_cta = 32 : i64, query_shift = 28 : i64, row_blocks = 4 : i64, s_buffers = 2 : i64
// CHECK-SAME: split = "balanced", stages = 2 : i64, static_plan_keys = 128 : i64, tmem_columns = 512 : i64, tmem_o = 256 : i64, tmem_p = 0 : i64, tmem_s = 0 : i64, units = 8 : i64
// The combine may be scheduled as each CTA starts (programmatic launch);
// it waits for the attention grid before anything else.
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// CHECK: memref.get_global @plan_table : memref<148x5xi32>
// CHECK: sm100.mma #sm100.idesc<kind = f16, a = f16, b = f16, d = f32, m = 128, n = 128>
// CHECK: gpu.func @gqa_prefill_attention_combine(%{{.*}}: memref<1x100x8x256xf16>, %{{.*}}: memref<1x8x100xf32>, %{{.*}}: memref<296x128x256xf32>, %{{.*}}: memref<296x128xf32>, %{{.*}}: memref<8x4xi32>) workgroup(%{{.*}}) kernel
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK: memref.get_global @gqa_prefill_attention_combine_units : memref<1xi32>
func.func @gqa_prefill(%q: tensor<1x100x8x256xf16>, %kv: tensor<1x700x2x256xf16>)
    -> (tensor<1x100x8x256xf16>, tensor<1x8x100xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv softmax_scale(0.0625) causal
      window(64)
      : (tensor<1x100x8x256xf16>, tensor<1x700x2x256xf16>,
         tensor<1x700x2x256xf16>) -> (tensor<1x100x8x256xf16>, tensor<1x8x100xf32>)
  return %o, %lse : tensor<1x100x8x256xf16>, tensor<1x8x100xf32>
}

// -----

// Head dim 512 (DeepSeek-V4 decode, K = V), split-KV balanced over the 74
// CTA pairs of 148 SMs with the plan computed from kv_lens on the device: a
// cluster of two CTAs per partition splits both D and Dv: each CTA loads its 256 columns
// of Q and of the 128-key K tile (which, K being V, are also its V columns),
// computes S over its half of D (16 MMAs of N = 128), adds the peer's
// partial S through distributed shared memory (mapa + ld.shared::cluster,
// two cluster-scope barriers), and computes O for its 256 columns (8 MMAs of
// N = 256). Only the first CTA of the pair writes the LSE.

// CHECK-LABEL: func.func @dsv4
// CHECK: gpu.func @dsv4_attention
// CHECK-SAME: args = [{box = array<i64: 64, 128, 1>, swizzle = "128B", tmap = "q", view = ["b*sq", "hq", "d"]}, {box = array<i64: 64, 1, 128>, swizzle = "128B", tmap = "k", view = ["b*skv", "hkv", "d"]}, {box = array<i64: 64, 1, 16>, swizzle = "128B", tmap = "k", view = ["b*skv", "hkv", "d"]}, {buffer = "o"}, {buffer = "lse"}, {buffer = "partial_o"}, {buffer = "partial_lse"}, {buffer = "unit_records"}, {buffer = "kv_lens"}, {buffer = "sink"}, {scalar = "f32", value = "softmax_scale*log2e"}]
// CHECK-SAME: cluster = array<i32: 2, 1, 1>
// CHECK-SAME: dynamic_smem = 230400
// CHECK-SAME: grid = array<i32: 148, 1, 1>
// CHECK-SAME: nvfp4.schedule = {box_keys = 128 : i64, dv_split = 2 : i64, exchange_s = 1 : i64, group = 128 : i64, kv_tile = 128 : i64, max_regs = 232 : i64, min_piece_keys = 256 : i64, mmas_per_tile = 24 : i64, num_sms = 148 : i64, other_regs = 160 : i64, overhead_blocks = 6 : i64, overhead_tiles = 3 : i64, partitions = 74 : i64, plan = "device", plan_keys = 64 : i64, queries_per_cta = 1 : i64, row_blocks = 1 : i64, s_buffers = 2 : i64, smem_bytes = 230400 : i64, softmax_regs = 232 : i64, split = "balanced", stages = 2 : i64, tmem_columns = 512 : i64, tmem_o = 256 : i64, tmem_p = 0 : i64, tmem_s = 0 : i64, units = 4 : i64, x_rounds = 2 : i64}
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.read.ptx.sreg.cluster.ctarank
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// The plan from kv_lens: per-thread unit costs, a warp scan by shuffles, the
// warp sums through shared memory, the units the partition processes by
// atomic min / max.
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<4xi32>
// CHECK-COUNT-5: gpu.shuffle  up
// CHECK: gpu.barrier
// CHECK: memref.atomic_rmw mins
// CHECK: memref.atomic_rmw maxs
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: sm100.role "softmax"
// The exchange: our partial S into our buffer, arrive on the peer's barrier,
// wait for its arrivals, read its row, add, back into TMEM.
// Two rounds of 64 columns each (a 32 KiB buffer, so that two K stages fit).
// CHECK: mapa.shared::cluster.u32
// CHECK: vector.store %{{.*}} : memref<2x128x32xf32, #gpu.address_space<workgroup>>, vector<32xf32>
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64
// CHECK: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64
// CHECK: ld.shared::cluster.v4.f32
// CHECK: sm100.tmem_store
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64
// CHECK: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64
// CHECK: vector.store %{{.*}} : memref<2x128x32xf32, #gpu.address_space<workgroup>>, vector<32xf32>
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64
// CHECK: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64
// CHECK: ld.shared::cluster.v4.f32
// CHECK: sm100.tmem_store
// The LSE, by the first CTA of the pair only.
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK: arith.andi %{{.*}}, %[[FIRST]]
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store %{{.*}} : memref<4x128x1xf32>
// O leaves in 64-byte-aligned 32-element chunks (16-byte or wider stores).
// CHECK: vector.store %{{.*}} {alignment = 64 : i64} : memref<4x1x128x512xbf16>, vector<32xbf16>
// A piece of a split unit: its base-2 LSE and normalised O in f32 into a
// workspace slot, and the unit's record for the combine.
// CHECK: } else {
// CHECK: memref.store %{{.*}} : memref<148x128xf32>
// CHECK: vector.store %{{.*}} {alignment = 64 : i64} : memref<148x128x512xf32>, vector<32xf32>
// CHECK-COUNT-3: memref.store %{{.*}} : memref<4x4xi32>
// CHECK: sm100.role "load"
// CHECK-NOT: multicast
// A whole KV tile: four 128-key boxes; a partly visible one: 16-key chunk
// boxes over the visible chunks only.
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.arrive.expect_tx
// CHECK: scf.if
// CHECK-COUNT-4: nvgpu.tma.async.load {{.*}} -> memref<128x1x64xbf16
// CHECK: } else {
// CHECK: scf.for
// CHECK-COUNT-4: nvgpu.tma.async.load {{.*}} -> memref<16x1x64xbf16
// CHECK: sm100.role "mma"
// CHECK: scf.for
// CHECK: arith.cmpi eq
// CHECK: arith.cmpi uge
// CHECK: arith.cmpi uge
// CHECK-NEXT: %[[NEED2:.*]] = arith.select
// CHECK: scf.if %[[NEED2]]
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK-NEXT: }
// CHECK: scf.if
// CHECK-COUNT-16: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 128>
// CHECK: sm100.commit
// CHECK: } else {
// CHECK-COUNT-16: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 128>
// CHECK: sm100.commit
// P V of the previous tile: one MMA per loaded 16-key chunk.
// (Odd tiles: P in S buffer 1, columns 128 + 8 k.)
// CHECK: arith.ori
// CHECK-NEXT: sm100.tmem_slice %{{.*}}[128] : <128x512xbf16, operand_a> -> <128x16xbf16, operand_a>
// CHECK-NEXT: sm100.umma_desc
// CHECK-NEXT: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256, b_major = mn>
// CHECK: arith.ori
// CHECK-NEXT: sm100.tmem_slice %{{.*}}[136] : <128x512xbf16, operand_a> -> <128x16xbf16, operand_a>
// CHECK-NEXT: sm100.umma_desc
// CHECK-NEXT: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256, b_major = mn>
// CHECK: arith.ori
// CHECK-NEXT: sm100.tmem_slice %{{.*}}[144] : <128x512xbf16, operand_a> -> <128x16xbf16, operand_a>
// CHECK-NEXT: sm100.umma_desc
// CHECK-NEXT: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256, b_major = mn>
// CHECK: arith.ori
// CHECK-NEXT: sm100.tmem_slice %{{.*}}[152] : <128x512xbf16, operand_a> -> <128x16xbf16, operand_a>
// CHECK-NEXT: sm100.umma_desc
// CHECK-NEXT: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256, b_major = mn>
// CHECK: arith.ori
// CHECK-NEXT: sm100.tmem_slice %{{.*}}[160] : <128x512xbf16, operand_a> -> <128x16xbf16, operand_a>
// CHECK-NEXT: sm100.umma_desc
// CHECK-NEXT: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256, b_major = mn>
// CHECK: arith.ori
// CHECK-NEXT: sm100.tmem_slice %{{.*}}[168] : <128x512xbf16, operand_a> -> <128x16xbf16, operand_a>
// CHECK-NEXT: sm100.umma_desc
// CHECK-NEXT: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256, b_major = mn>
// CHECK: arith.ori
// CHECK-NEXT: sm100.tmem_slice %{{.*}}[176] : <128x512xbf16, operand_a> -> <128x16xbf16, operand_a>
// CHECK-NEXT: sm100.umma_desc
// CHECK-NEXT: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256, b_major = mn>
// CHECK: arith.ori
// CHECK-NEXT: sm100.tmem_slice %{{.*}}[184] : <128x512xbf16, operand_a> -> <128x16xbf16, operand_a>
// CHECK-NEXT: sm100.umma_desc
// CHECK-NEXT: sm100.mma #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256, b_major = mn>
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// The combine: per (unit, row, 128 columns), the pieces' LSEs reduced over
// the CTA (shuffles, then the four warps' words), the sink, the O rows
// summed by four groups of 32 threads (a float4 each), the groups added in
// order from shared memory.
// CHECK: gpu.func @dsv4_attention_combine(%{{.*}}: memref<4x1x128x512xbf16>, %{{.*}}: memref<4x128x1xf32>, %{{.*}}: memref<148x128x512xf32>, %{{.*}}: memref<148x128xf32>, %{{.*}}: memref<4x4xi32>, %{{.*}}: memref<128xf32>) workgroup(%{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: memref.load %{{.*}} : memref<4x4xi32>
// CHECK: gpu.shuffle xor
// CHECK: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<128xf32>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<148x128x512xf32>, vector<4xf32>
// CHECK: vector.fma
// CHECK: vector.store %{{.*}} : memref<512xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK: vector.store %{{.*}} : memref<4x1x128x512xbf16>, vector<2xbf16>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @dsv4(%q: tensor<4x1x128x512xbf16>, %kv: tensor<4x4096x1x512xbf16>,
                %sink: tensor<128xf32>, %lens: tensor<4xi32>)
    -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv sink(%sink) kv_lens(%lens)
      softmax_scale(0.0441941738)
      : (tensor<4x1x128x512xbf16>, tensor<4x4096x1x512xbf16>,
         tensor<4x4096x1x512xbf16>, tensor<128xf32>, tensor<4xi32>)
      -> (tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>)
  return %o, %lse : tensor<4x1x128x512xbf16>, tensor<4x128x1xf32>
}
