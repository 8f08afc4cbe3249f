// RUN: nvfp4-opt %s --nvfp4-lower-attention="chip=sm_90a" | FileCheck %s
// RUN: not nvfp4-opt %s --nvfp4-lower-attention="chip=sm_90" 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not nvfp4-opt %s --nvfp4-lower-attention="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: nvfp4-opt %s --nvfp4-sm100-to-cubin="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX
// RUN: nvfp4-opt %s --nvfp4-lower-attention="chip=sm_90a poly-exp2=2" | FileCheck %s --check-prefix=POLY
// RUN: nvfp4-opt %s --nvfp4-lower-attention="chip=sm_90a poly-exp2=8" | FileCheck %s --check-prefix=POLY8
// RUN: nvfp4-opt %s --nvfp4-lower-attention="chip=sm_90a p-shared=1" | FileCheck %s --check-prefix=PSH
// RUN: not nvfp4-opt %s --nvfp4-lower-attention="chip=sm_90a p-shared=2" 2>&1 | FileCheck %s --check-prefix=PSH2

// The sm_90a kernel of a GQA decode (8 query heads per KV head: one
// consumer warpgroup), of a prefill (128 rows: two) and of an MLA decode
// (Dv split across two), docs/Hopper.md.

// CHECK-LABEL: gpu.module @gqa_decode_attention
// No TMEM on Hopper.
// CHECK-NOT: tmem_slot
// CHECK: gpu.func @gqa_decode_attention(
// CHECK-SAME: nvfp4.schedule = {box_keys = 128 : i64, chip = "sm_90a", consumers = 1 : i64{{.*}}overlap_softmax = 1 : i64
// The V stages are zeroed and fenced for the TMA before the roles start.
// CHECK: vector.store
// CHECK: nvvm.fence.proxy
// CHECK: gpu.barrier
// CHECK: sm100.warp_roles 8 {
// CHECK: sm100.role "consumer" warps[0, 4) regs 240 {
// Tile 0 before the loop: q_full, kv_full, S = Q K^T as D / 16 = 8 wgmma
// from shared memory (two descriptors), the first without the accumulator
// (scale-d 0), waited for; its softmax: masks only when some row of the
// warp does not see the whole tile (a warp vote), row maxima across the
// four threads of a row. Each wait is followed by a compiler fence (an
// empty asm with a memory clobber: upstream's wait is inline PTX without
// one, and LLVM would move loads across it).
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "", "~{memory}"
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "", "~{memory}"
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: setp.ne.b32 p, 0, 0; wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, $128, $129, p, 1, 1, 0, 0; }
// CHECK-COUNT-7: setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, $128, $129, p, 1, 1, 0, 0; }
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.vote.sync all
// CHECK: scf.if
// CHECK: gpu.shuffle xor
// The loop (overlap_softmax): S(n) and O += P(n-1) V(n-1) issued
// together, P from four registers and V read transposed (imm-trans-b 1);
// S(n) waited for alone (wait_group 1), its softmax, then P V (wait_group
// 0), then each consumer warp releases tile n-1's stage.
// CHECK: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, $128, $129, p, 1, 1, 0, 0; }
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {$128, $129, $130, $131}, $132, p, 1, 1, 1; }
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: gpu.shuffle xor
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvgpu.mbarrier.arrive
// The last tile's P V after the loop; then its stage and Q are released.
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {$128, $129, $130, $131}, $132, p, 1, 1, 1; }
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvgpu.mbarrier.arrive
// CHECK: nvgpu.mbarrier.arrive
// CHECK: sm100.role "load" warps[4, 5) regs 240 {
// CHECK: nvgpu.tma.async.load
// CHECK: sm100.role "idle" warps[5, 8) regs 240 {
func.func @gqa_decode(%q: tensor<2x1x8x128xbf16>, %k: tensor<2x400x1x128xbf16>,
                      %v: tensor<2x400x1x128xbf16>, %l: tensor<2xi32>)
    -> (tensor<2x1x8x128xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v kv_lens(%l) softmax_scale(0.0883883476)
      : (tensor<2x1x8x128xbf16>, tensor<2x400x1x128xbf16>, tensor<2x400x1x128xbf16>, tensor<2xi32>)
      -> (tensor<2x1x8x128xbf16>, tensor<2x8x1xf32>)
  return %o, %lse : tensor<2x1x8x128xbf16>, tensor<2x8x1xf32>
}

// Two consumer warpgroups of 64 rows each and the producer warpgroup:
// 384 threads; setmaxnreg moves registers to the consumers (224 / 56);
// D = 256 takes 64-key tiles (S: m64n64), and O (128 registers a thread)
// leaves none for the overlap: S, softmax, P V in sequence. The two
// warpgroups ping-pong: each issues its S and its P V on its turn (wait
// on named barrier 3 + w, pass with an arrival on 4 - w); warpgroup 1
// passes the first turn, warpgroup 0 takes the last. The softmax: one
// fma and one ex2.approx.ftz a logit.
// CHECK-LABEL: gpu.module @prefill_attention
// CHECK: gpu.func @prefill_attention(
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK-SAME: nvfp4.schedule = {box_keys = 64 : i64, chip = "sm_90a", consumers = 2 : i64{{.*}}kv_tile = 64{{.*}}overlap_softmax = 0 : i64, p_shared = 0 : i64, partitions = {{[0-9]+}} : i64, ping_pong = 1 : i64{{.*}}poly_exp2 = 0 : i64
// CHECK-SAME: nvvm.maxnreg = 168
// CHECK: sm100.warp_roles 12 {
// CHECK: sm100.role "consumer" warps[0, 8) regs 224 {
// CHECK: nvvm.inline_ptx "bar.arrive $0, 256;"
// CHECK: scf.for
// CHECK: nvvm.inline_ptx "bar.sync $0, 256;"
// CHECK-COUNT-16: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: nvvm.inline_ptx "bar.arrive $0, 256;"
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: math.fma
// CHECK-NEXT: nvvm.inline_ptx "ex2.approx.ftz.f32 $0, $1;"
// CHECK: nvvm.inline_ptx "bar.sync $0, 256;"
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK: nvvm.inline_ptx "bar.arrive $0, 256;"
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.inline_ptx "bar.sync $0, 256;"
// CHECK: sm100.role "load" warps[8, 9) regs 56 {
// CHECK: sm100.role "idle" warps[9, 12) regs 56 {
func.func @prefill(%q: tensor<1x200x1x256xf16>, %k: tensor<1x330x1x256xf16>)
    -> (tensor<1x200x1x256xf16>, tensor<1x1x200xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %k softmax_scale(0.0625) causal
      : (tensor<1x200x1x256xf16>, tensor<1x330x1x256xf16>, tensor<1x330x1x256xf16>)
      -> (tensor<1x200x1x256xf16>, tensor<1x1x200xf32>)
  return %o, %lse : tensor<1x200x1x256xf16>, tensor<1x1x200xf32>
}

// An MLA decode (D 576, V = K's first 512 columns, 128 heads): Dv > 256
// is split across the two consumer warpgroups, which share 64 rows (two
// head blocks per query); "consumer" computes S, the softmax and O's
// first 256 columns, and hands P and alpha to "consumer_dv" through shared
// memory (named barriers 1 and 2, 256 threads), which computes the other
// 256 with A = P from shared memory; setmaxnreg 240 / 208 / 56.
// CHECK-LABEL: gpu.module @mla_decode_attention
// CHECK: gpu.func @mla_decode_attention(
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK-SAME: consumers = 2 : i64, dv_group_regs = 208 : i64, dv_groups = 2 : i64
// CHECK-SAME: head_blocks = 2 : i64, kv_tile = 64 : i64
// CHECK-SAME: row_blocks = 2 : i64
// CHECK-SAME: stages = 2 : i64
// CHECK: sm100.role "consumer" warps[0, 4) regs 240 {
// CHECK: scf.for
// CHECK-COUNT-36: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "bar.sync 2, 256;", "{{[rl,]*}}~{memory}"
// CHECK-COUNT-16: memref.store {{.*}} : memref<2048xi32, #gpu.address_space<workgroup>>
// CHECK: memref.store {{.*}} : memref<192xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "bar.arrive 1, 256;", "{{[rl,]*}}~{memory}"
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, {$256, $257, $258, $259}, $260, p, 1, 1, 1; }
// After the pieces: m and l handed over, then the last hand-over taken.
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "bar.sync 2, 256;", "{{[rl,]*}}~{memory}"
// CHECK: memref.store {{.*}} : memref<192xf32, #gpu.address_space<workgroup>>
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "bar.arrive 1, 256;", "{{[rl,]*}}~{memory}"
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "bar.sync 2, 256;", "{{[rl,]*}}~{memory}"
// CHECK: sm100.role "consumer_dv" warps[4, 8) regs 208 {
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "bar.arrive 2, 256;", "{{[rl,]*}}~{memory}"
// CHECK: scf.for
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "bar.sync 1, 256;", "{{[rl,]*}}~{memory}"
// CHECK: memref.load {{.*}} : memref<192xf32, #gpu.address_space<workgroup>>
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, $256, $257, p, 1, 1, 0, 1; }
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "bar.arrive 2, 256;", "{{[rl,]*}}~{memory}"
// CHECK: sm100.role "load" warps[8, 9) regs 56 {
func.func @mla_decode(%q: tensor<1x1x128x576xbf16>, %k: tensor<1x300x1x576xbf16>)
    -> (tensor<1x1x128x512xbf16>, tensor<1x128x1xf32>) {
  %v = tensor.extract_slice %k[0, 0, 0, 0] [1, 300, 1, 512] [1, 1, 1, 1]
      : tensor<1x300x1x576xbf16> to tensor<1x300x1x512xbf16>
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.0416666667)
      : (tensor<1x1x128x576xbf16>, tensor<1x300x1x576xbf16>, tensor<1x300x1x512xbf16>)
      -> (tensor<1x1x128x512xbf16>, tensor<1x128x1xf32>)
  return %o, %lse : tensor<1x1x128x512xbf16>, tensor<1x128x1xf32>
}

// Sparse top-k (no .tile::gather4 on sm_90a): the "gather" role (two
// warps of the producer warpgroup) loads each tile, a lane a key: the
// index, the mask word by ballot, the row's bytes on kv_full and one
// single-row TMA load per 64-column box; then bar.warp.sync and one
// kv_full arrive a warp (init count 2). The load warp only loads Q.
// CHECK-LABEL: gpu.module @sparse_decode_attention
// CHECK: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %c2
// CHECK: sm100.role "load" warps[4, 5) regs 240 {
// CHECK-NOT: sm100.role
// CHECK: nvgpu.tma.async.load
// CHECK: sm100.role "gather" warps[5, 7) regs 240 {
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvvm.vote.sync ballot
// CHECK: nvvm.inline_ptx "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [{{.*}}], 128;"
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.bar.warp.sync
// CHECK: nvgpu.mbarrier.arrive
// CHECK: sm100.role "idle" warps[7, 8) regs 240 {
func.func @sparse_decode(%q: tensor<1x1x8x64xbf16>, %k: tensor<4x64x1x64xbf16>,
                         %ix: tensor<1x1x100xi32>)
    -> (tensor<1x1x8x64xbf16>, tensor<1x8x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %k indices(%ix) softmax_scale(0.125)
      : (tensor<1x1x8x64xbf16>, tensor<4x64x1x64xbf16>, tensor<4x64x1x64xbf16>, tensor<1x1x100xi32>)
      -> (tensor<1x1x8x64xbf16>, tensor<1x8x1xf32>)
  return %o, %lse : tensor<1x1x8x64xbf16>, tensor<1x8x1xf32>
}

// Sparse top-k over DeepSeek-V4's fp8 cache: all four producer warps
// gather (init count 4), there is no load warp; warp 0 of the role loads
// Q (elected) before each unit's tiles, the first pair writes the mask
// words and loads the bf16 boxes by TMA, both pairs dequantize their half
// of each key's e4m3 boxes into the K tile: each lane reads its key's
// 8-byte UE8M0 scale record once (no byte a box in the loop), copies its
// key's next box with cp.async (four 16-byte copies into its warp's
// buffer) before converting the current one from shared memory
// (wait_group 1);
// with a static plan each lane carries its key's slot from the tile
// before (the tile loop yields an i32; a piece's first slot is read before
// it), and the first pair prefetches the next tile's rows into L2 (five
// 128-byte lines of a 576-byte row, and the line of the token's scales
// after the page's rows); then fence for wgmma and arrive.
// CHECK-LABEL: gpu.module @v4_decode_attention
// CHECK: gpu.func @v4_decode_attention(
// CHECK-SAME: gather_staging = 1
// CHECK: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %c4
// CHECK-NOT: sm100.role "load"
// CHECK: sm100.role "gather" warps[8, 12) regs 56 {
// CHECK: sm100.elect_one
// CHECK: nvgpu.tma.async.load
// CHECK: scf.for {{.*}} -> (i32) {
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvvm.vote.sync ballot
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.cg.shared.global [$0+0], [$1+0], 16; cp.async.cg.shared.global [$0+16], [$1+16], 16; cp.async.cg.shared.global [$0+32], [$1+32], 16; cp.async.cg.shared.global [$0+48], [$1+48], 16; ", "{{[rl,]*}}~{memory}"
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.commit_group;", "{{[rl,]*}}~{memory}"
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<16x65x576xi8>, vector<8xi8>
// CHECK-NEXT: vector.bitcast %{{.*}} : vector<8xi8> to vector<1xi64>
// CHECK: scf.for
// CHECK-NOT: memref.load %{{.*}} : memref<16x65x576xi8>
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.commit_group;", "{{[rl,]*}}~{memory}"
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.wait_group 1;", "{{[rl,]*}}~{memory}"
// CHECK-NOT: memref.load %{{.*}} : memref<16x65x576xi8>
// CHECK: vector.load %{{.*}} : memref<20480xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// CHECK: nvvm.convert.f8x2.to.f16x2
// CHECK: nvvm.inline_ptx "prefetch.global.L2 [$0+0];"
// CHECK: nvvm.inline_ptx "prefetch.global.L2 [$0+512];"
// CHECK: nvvm.inline_ptx "prefetch.global.L2 [$0];"
// CHECK-NOT: prefetch.global.L2
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK: nvvm.bar.warp.sync
// CHECK: nvgpu.mbarrier.arrive
// CHECK-NOT: sm100.role "idle"
// CHECK: gpu.func
func.func @v4_decode(%q: tensor<2x1x64x512xbf16>, %kv: tensor<16x37440xi8>,
                     %s: tensor<64xf32>, %ix: tensor<2x1x200xi32>)
    -> (tensor<2x1x64x512xbf16>, tensor<2x64x1xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv sink(%s) indices(%ix)
      kv_cache(<"deepseek_v4_fp8", page_size = 64>)
      softmax_scale(0.0441941738)
      : (tensor<2x1x64x512xbf16>, tensor<16x37440xi8>, tensor<16x37440xi8>,
         tensor<64xf32>, tensor<2x1x200xi32>)
      -> (tensor<2x1x64x512xbf16>, tensor<2x64x1xf32>)
  return %o, %lse : tensor<2x1x64x512xbf16>, tensor<2x64x1xf32>
}

// With kv_lens (a plan made on the device): the copies with the L2
// prefetch and the slot carried from the tile before, the gather at 64
// registers (at 56 they spilled), the Dv split's second warpgroup at 184.
// CHECK-LABEL: gpu.module @v4_decode_lens_attention
// CHECK: gpu.func @v4_decode_lens_attention(
// CHECK-SAME: gather_staging = 1
// CHECK: sm100.role "consumer_dv" warps[4, 8) regs 184 {
// CHECK: sm100.role "gather" warps[8, 12) regs 64 {
// CHECK: scf.for {{.*}} -> (i32) {
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.wait_group 1;", "{{[rl,]*}}~{memory}"
// CHECK: prefetch.global.L2
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
func.func @v4_decode_lens(%q: tensor<2x1x64x512xbf16>, %kv: tensor<16x37440xi8>,
                          %s: tensor<64xf32>, %l: tensor<2xi32>,
                          %ix: tensor<2x1x200xi32>)
    -> (tensor<2x1x64x512xbf16>, tensor<2x64x1xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv sink(%s) kv_lens(%l) indices(%ix)
      kv_cache(<"deepseek_v4_fp8", page_size = 64>)
      softmax_scale(0.0441941738)
      : (tensor<2x1x64x512xbf16>, tensor<16x37440xi8>, tensor<16x37440xi8>,
         tensor<64xf32>, tensor<2xi32>, tensor<2x1x200xi32>)
      -> (tensor<2x1x64x512xbf16>, tensor<2x64x1xf32>)
  return %o, %lse : tensor<2x1x64x512xbf16>, tensor<2x64x1xf32>
}

// DeepSeek-V3.2's fp8 cache (D 576): no room for the copy buffers beside
// two stages, so the gather converts from registers and the first pair
// prefetches the next tile's rows into L2 (six 128-byte lines of a 656-byte
// row).
// CHECK-LABEL: gpu.module @v32_decode_attention
// CHECK: gpu.func @v32_decode_attention(
// CHECK-SAME: gather_staging = 0
// CHECK: sm100.role "gather" warps[8, 12) regs 56 {
// CHECK-NOT: cp.async.cg
// CHECK: nvvm.convert.f8x2.to.f16x2
// CHECK: nvvm.inline_ptx "prefetch.global.L2 [$0+0];"
// CHECK: nvvm.inline_ptx "prefetch.global.L2 [$0+640];"
// CHECK-NOT: prefetch.global.L2
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
func.func @v32_decode(%q: tensor<2x1x64x576xbf16>, %kv: tensor<24x41984xi8>,
                      %s: tensor<64xf32>, %ix: tensor<2x1x260xi32>)
    -> (tensor<2x1x64x512xbf16>, tensor<2x64x1xf32>) {
  %o, %lse = nvfp4.attention %q, %kv, %kv sink(%s) indices(%ix)
      kv_cache(<"deepseek_v32_fp8", page_size = 64>)
      softmax_scale(0.0416666667)
      : (tensor<2x1x64x576xbf16>, tensor<24x41984xi8>, tensor<24x41984xi8>,
         tensor<64xf32>, tensor<2x1x260xi32>)
      -> (tensor<2x1x64x512xbf16>, tensor<2x64x1xf32>)
  return %o, %lse : tensor<2x1x64x512xbf16>, tensor<2x64x1xf32>
}

// SM90: error: nvfp4-lower-attention: expected chip sm_90a (Hopper: wgmma) or a chip of compute capability 10.0 or newer such as sm_100a (tcgen05), got 'sm_90' (wgmma and setmaxnreg need the architecture-specific sm_90a)
// SM80: error: nvfp4-lower-attention: expected chip sm_90a (Hopper: wgmma) or a chip of compute capability 10.0 or newer such as sm_100a (tcgen05), got 'sm_80'

// The whole pipeline to sm_90a PTX (the gpu.binary prints tabs as \09).
// PTX: .target sm_90a
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 {{(\\09)?}}56;
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 {{(\\09)?}}224;
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 {{(\\09)?}}208;
// PTX-DAG: bar.arrive 1, 256;
// PTX-DAG: bar.sync 1, 256;

// poly-exp2=2: of every 8 exponentials of P, 2 by the cubic on the FMA pipe
// (nvfp4/Support/Ex2Poly.h), the rest by the SFU (docs/Hopper.md,
// "Exponentials on the FMA pipe"). By default none.
// CHECK-NOT: add.rm.f32
// POLY-LABEL: gpu.module @prefill_attention
// POLY: ping_pong = 1 : i64{{.*}}poly_exp2 = 2 : i64
// POLY-DAG: add.rm.f32 t, x, 0f4B400000;
// POLY-DAG: ex2.approx.ftz.f32

// D 64 (FlashAttention-3's tile): 192 rows a CTA in three consumer
// warpgroups (512 threads; setmaxnreg 160 / 32), the turn going round the
// three (docs/Hopper.md, "D 64 with three consumer warpgroups"); S is four
// m64n128k16 a tile. With all 8 of P's exponentials on the FMA pipe the
// polynomial's registers do not fit 160: 128 rows, two consumers. Causal
// with 400 queries in blocks of 192: the 176 padding rows are in the first
// block, which sees the fewest keys (query_shift; docs/AttentionLowering.md,
// "The partly filled row block").
// CHECK-LABEL: gpu.module @prefill_d64_attention
// CHECK: gpu.func @prefill_d64_attention(
// CHECK-SAME: known_block_size = array<i32: 512, 1, 1>
// CHECK-SAME: consumers = 3 : i64{{.*}}max_regs = 128 : i64{{.*}}other_regs = 32 : i64{{.*}}overlap_softmax = 1 : i64, p_shared = 0 : i64{{.*}}ping_pong = 1 : i64{{.*}}queries_per_cta = 192 : i64, query_shift = 176 : i64{{.*}}softmax_regs = 160 : i64
// CHECK-SAME: nvvm.maxnreg = 128
// CHECK: sm100.warp_roles 16 {
// CHECK: sm100.role "consumer" warps[0, 12) regs 160 {
// CHECK: nvvm.inline_ptx "bar.arrive $0, 256;"
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// By default P V takes P from registers (RS: four A registers).
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, {$64, $65, $66, $67}, $68, p, 1, 1, 1; }
// CHECK: sm100.role "load" warps[12, 13) regs 32 {
// CHECK: sm100.role "idle" warps[13, 16) regs 32 {
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 {{(\\09)?}}160;
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 {{(\\09)?}}32;
// POLY8-LABEL: gpu.module @prefill_d64_attention
// POLY8: consumers = 2 : i64{{.*}}queries_per_cta = 128 : i64
// p-shared=1 (docs/Hopper.md, "P through shared memory"): each warpgroup
// writes tile n's P (32 words a thread) into its buffer n mod 2 and
// fences it for the async proxy; P V reads it through a descriptor (SS).
// It applies to overlapped consumers that take turns only: not to one
// consumer (the GQA decode) nor to the Dv split (the MLA decode), nor
// without the overlap (the D 256 prefill).
// PSH-LABEL: gpu.module @gqa_decode_attention
// PSH: p_shared = 0 : i64
// PSH-LABEL: gpu.module @prefill_attention
// PSH: p_shared = 0 : i64
// PSH-LABEL: gpu.module @mla_decode_attention
// PSH: p_shared = 0 : i64
// PSH-LABEL: gpu.module @prefill_d64_attention
// PSH: p_shared = 1 : i64
// PSH: sm100.role "consumer" warps[0, 12) regs 160 {
// PSH-COUNT-32: memref.store {{.*}} : memref<4096xi32, #gpu.address_space<workgroup>>
// PSH-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// PSH: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, $64, $65, p, 1, 1, 0, 1; }
// PSH-NOT: {$64, $65, $66, $67}, $68
// PSH: sm100.role "load"
// PSH2: error: nvfp4-lower-attention: p-shared must be 0, 1 or -1 (the default rule), got 2
func.func @prefill_d64(%q: tensor<1x400x2x64xbf16>, %k: tensor<1x400x2x64xbf16>,
                       %v: tensor<1x400x2x64xbf16>)
    -> (tensor<1x400x2x64xbf16>, tensor<1x2x400xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125) causal
      : (tensor<1x400x2x64xbf16>, tensor<1x400x2x64xbf16>, tensor<1x400x2x64xbf16>)
      -> (tensor<1x400x2x64xbf16>, tensor<1x2x400xf32>)
  return %o, %lse : tensor<1x400x2x64xbf16>, tensor<1x2x400xf32>
}
