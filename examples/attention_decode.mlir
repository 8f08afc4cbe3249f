// MQA decode attention, hand-written in the sm100 dialect: the schedule the
// `nvfp4.attention` lowering will generate (issue 5). One CTA per sequence:
// the 128 query heads of the one token (query length 1) are the MMA's
// M = 128 rows and share the single KV head; head dim 128 (qk and v); KV
// tiles of 128 keys; a per-head sink logit; per-sequence KV lengths.
//
// Per KV tile t (a serial schedule, one stage: correctness first):
// - load warp: TMA loads K_t and V_t (two 64-wide boxes each, 128-byte
//   swizzle) after the previous tile's MMAs released the stage (kv_empty).
// - mma warp (one thread): S = Q K_t^T (8 UMMAs, K = 16, N = 128, both
//   operands in shared memory) -> commit s_full; after the softmax wrote P
//   (p_full): O += P V_t with P in tensor memory in the A-operand layout
//   (the `ts` form) and V MN-major, as two N = 64 halves -> commit
//   kv_empty and o_done.
// - softmax warps 0-3 (thread = query head = TMEM lane): read the S row,
//   mask keys >= kv_len, scale by softmax_scale * log2(e), running max m and
//   sum l in base 2 (exp2 via ex2.approx), rescale O by exp2(m_old - m_new)
//   once the previous PV finished, write P (bf16 pairs) to TMEM, arrive
//   p_full.
// - epilogue (same warps): fold the sink into the denominator, O / l ->
//   bf16 -> global, LSE = ln(sum exp(s) + exp(sink)) (natural log).
//
// Global operands: Q [B*128, 128] bf16 (row b*128 + h = head h of sequence
// b), K and V [B*S, 128] bf16 (row b*S + j = key j of sequence b), O
// [B, 128, 128] bf16, LSE [B, 128] f32, kv_lens [B] i32 (1 <= kv_len <= S),
// sink [128] f32, scale_log2 = softmax_scale * log2(e). Launch: grid B,
// block 256, 99328 bytes of dynamic shared memory.
//
// RUN: nvfp4-opt %s --nvfp4-sm100-to-cubin="ptx-file=%t.ptx cubin-file=%t.cubin" -o /dev/null

!smem = memref<?xi8, #gpu.address_space<workgroup>>
!box = memref<128x64xbf16, #gpu.address_space<workgroup>>
!tile = memref<128x128xbf16, #gpu.address_space<workgroup>>
!tmap = !nvgpu.tensormap.descriptor<tensor = !box, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!one = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!all = !sm100.tmem<128x512xf32, acc>
!s_t = !sm100.tmem<128x128xf32, acc>
!o_t = !sm100.tmem<128x128xf32, acc>
!o_h = !sm100.tmem<128x64xf32, acc>
!p_t = !sm100.tmem<128x128xbf16, operand_a>
!p_k = !sm100.tmem<128x16xbf16, operand_a>
!slot = memref<1xi32, #gpu.address_space<workgroup>>

#lay_qk = #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 128>
#lay_v = #sm100.smem_layout<major = mn, swizzle = sw128, element = bf16, mn = 64, k = 128>
#idesc_s = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 128>
#idesc_o = #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 64, b_major = mn>

module attributes {gpu.container_module} {
  gpu.module @attention {
    memref.global "private" @tmem_slot : !slot

    // scale_log2 * s for keys kb + i < len, -inf beyond (the KV length).
    func.func @masked_logits(%s: vector<32xf32>, %kb: index, %len: index,
                             %scale_log2: f32) -> vector<32xf32> {
      %step = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]> : vector<32xi32>
      %kb_i = arith.index_cast %kb : index to i32
      %len_i = arith.index_cast %len : index to i32
      %kbv = vector.broadcast %kb_i : i32 to vector<32xi32>
      %keys = arith.addi %step, %kbv : vector<32xi32>
      %lenv = vector.broadcast %len_i : i32 to vector<32xi32>
      %ok = arith.cmpi ult, %keys, %lenv : vector<32xi32>
      %scv = vector.broadcast %scale_log2 : f32 to vector<32xf32>
      %x = arith.mulf %s, %scv : vector<32xf32>
      %ninf = arith.constant dense<0xFF800000> : vector<32xf32>
      %r = arith.select %ok, %x, %ninf : vector<32xi1>, vector<32xf32>
      return %r : vector<32xf32>
    }

    gpu.func @attention_decode_h128_d128(
        %tmap_q: !llvm.ptr, %tmap_k: !llvm.ptr, %tmap_v: !llvm.ptr,
        %o: memref<4x128x128xbf16>, %lse: memref<4x128xf32>,
        %kv_lens: memref<4xi32>, %sink: memref<128xf32>, %seq: index,
        %scale_log2: f32) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
                    nvvm.maxnreg = 128 : i32,
                    nvfp4.harness = {reference = "attention",
                      types = {q = "bf16", k = "bf16", v = "bf16",
                               sink = "f32", kv_lens = "i32",
                               o = "bf16", lse = "f32"},
                      sizes = {b = 4 : i64, sq = 1 : i64, hq = 128 : i64,
                               skv = 512 : i64, hkv = 1 : i64,
                               d = 128 : i64, dv = 128 : i64},
                      settable = ["skv"], multiple_of = {skv = 128 : i64},
                      options = {softmax_scale = 0.0883883476 : f32,
                                 causal = false},
                      tolerances = {o = {cos = 0.99999 : f64,
                                         rel_l2 = 5.0e-3 : f64},
                                    lse = {rel_l2 = 1.0e-4 : f64}},
                      grid = array<i32: 4, 1, 1>,
                      block = array<i32: 256, 1, 1>,
                      dynamic_smem = 99328 : i64,
                      args = [{tmap = "q", view = ["b*sq*hq", "d"],
                               box = array<i64: 64, 128>, swizzle = "128B"},
                              {tmap = "k", view = ["b*skv*hkv", "d"],
                               box = array<i64: 64, 128>, swizzle = "128B"},
                              {tmap = "v", view = ["b*skv*hkv", "dv"],
                               box = array<i64: 64, 128>, swizzle = "128B"},
                              {buffer = "o", view = ["b", "sq*hq", "dv"]},
                              {buffer = "lse", view = ["b", "hq*sq"]},
                              {buffer = "kv_lens"},
                              {buffer = "sink"},
                              {scalar = "i64", value = "skv"},
                              {scalar = "f32",
                               value = "softmax_scale*log2e"}]}} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %c1023 = arith.constant 1023 : index
      %c_mask = arith.constant -1024 : index
      %c_box = arith.constant 16384 : index
      %c_k = arith.constant 32768 : index
      %c_v = arith.constant 65536 : index
      %q_bytes = arith.constant 32768 : index
      %kv_bytes = arith.constant 65536 : index
      %ticks = arith.constant 10000000 : index
      %false = arith.constant false
      %true = arith.constant true
      %ninf = arith.constant 0xFF800000 : f32
      %zero = arith.constant 0.0 : f32
      %one_f = arith.constant 1.0 : f32
      %log2e = arith.constant 1.44269504088896340736 : f32
      %ln2 = arith.constant 0.69314718055994530942 : f32
      %i16 = arith.constant 16 : i32
      %c1_i32 = arith.constant 1 : i32

      %tma_q = builtin.unrealized_conversion_cast %tmap_q : !llvm.ptr to !tmap
      %tma_k = builtin.unrealized_conversion_cast %tmap_k : !llvm.ptr to !tmap
      %tma_v = builtin.unrealized_conversion_cast %tmap_v : !llvm.ptr to !tmap

      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %b = gpu.block_id x
      %len_i = memref.load %kv_lens[%b] : memref<4xi32>
      %len = arith.index_cast %len_i : i32 to index
      %len_up = arith.addi %len, %c127 : index
      %tiles = arith.divui %len_up, %c128 : index

      // Dynamic shared memory, 1024-aligned: Q | K | V (each two boxes).
      %smem = gpu.dynamic_shared_memory : !smem
      %base = memref.extract_aligned_pointer_as_index %smem : !smem -> index
      %base_up = arith.addi %base, %c1023 : index
      %aligned = arith.andi %base_up, %c_mask : index
      %q_off = arith.subi %aligned, %base : index
      %k_off = arith.addi %q_off, %c_k : index
      %v_off = arith.addi %q_off, %c_v : index
      %q_off1 = arith.addi %q_off, %c_box : index
      %k_off1 = arith.addi %k_off, %c_box : index
      %v_off1 = arith.addi %v_off, %c_box : index
      %q_tile = memref.view %smem[%q_off][] : !smem to !tile
      %k_tile = memref.view %smem[%k_off][] : !smem to !tile
      %q_box0 = memref.view %smem[%q_off][] : !smem to !box
      %q_box1 = memref.view %smem[%q_off1][] : !smem to !box
      %k_box0 = memref.view %smem[%k_off][] : !smem to !box
      %k_box1 = memref.view %smem[%k_off1][] : !smem to !box
      %v_box0 = memref.view %smem[%v_off][] : !smem to !box
      %v_box1 = memref.view %smem[%v_off1][] : !smem to !box

      %q_full = nvgpu.mbarrier.create -> !one
      %kv_full = nvgpu.mbarrier.create -> !one
      %kv_empty = nvgpu.mbarrier.create -> !one
      %s_full = nvgpu.mbarrier.create -> !one
      %p_full = nvgpu.mbarrier.create -> !one
      %o_done = nvgpu.mbarrier.create -> !one
      %slot = memref.get_global @tmem_slot : !slot

      %is_t0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is_t0 {
        nvgpu.mbarrier.init %q_full[%c0], %c1 : !one
        nvgpu.mbarrier.init %kv_full[%c0], %c1 : !one
        nvgpu.mbarrier.init %kv_empty[%c0], %c1 : !one
        nvgpu.mbarrier.init %s_full[%c0], %c1 : !one
        nvgpu.mbarrier.init %p_full[%c0], %c128 : !one
        nvgpu.mbarrier.init %o_done[%c0], %c1 : !one
      }
      // TMEM: S in columns 0-127, O in 128-255, P (bf16 pairs) in 256-319.
      %is_w0 = arith.cmpi eq, %warp, %c0 : index
      scf.if %is_w0 {
        sm100.tmem_alloc %slot, 512 : !slot
      }
      sm100.fence before_thread_sync
      gpu.barrier
      sm100.fence after_thread_sync
      %all = sm100.tmem_base %slot : !slot -> !all
      %s_acc = sm100.tmem_slice %all[0] : !all -> !s_t
      %o_acc = sm100.tmem_slice %all[128] : !all -> !o_t
      %o_h0 = sm100.tmem_slice %all[128] : !all -> !o_h
      %o_h1 = sm100.tmem_slice %all[192] : !all -> !o_h
      %p_tm = sm100.tmem_slice %all[256] : !all -> !p_t

      sm100.warp_roles 8 {
        sm100.role "softmax" warps [0, 4) regs 152 {
          // Thread tid owns query head tid (TMEM lane tid).
          %res:2 = scf.for %t = %c0 to %tiles step %c1
              iter_args(%m = %ninf, %l = %zero) -> (f32, f32) {
            %t_i = arith.index_cast %t : index to i32
            %par_i = arith.andi %t_i, %c1_i32 : i32
            %par = arith.trunci %par_i : i32 to i1
            nvgpu.mbarrier.try_wait.parity %s_full[%c0], %par, %ticks : !one
            sm100.fence after_thread_sync
            %key0 = arith.muli %t, %c128 : index
            // Pass 1: the tile's max of the scaled, masked logits (vector
            // ops on 32 columns at a time; no dynamic indexing).
            %mt = scf.for %ch = %c0 to %c128 step %c32
                iter_args(%acc = %ninf) -> (f32) {
              %sv = sm100.tmem_load %s_acc[%ch] shape_32x32b x 32 : !s_t -> vector<32xf32>
              %kb = arith.addi %key0, %ch : index
              %x = func.call @masked_logits(%sv, %kb, %len, %scale_log2) : (vector<32xf32>, index, index, f32) -> vector<32xf32>
              %r = vector.reduction <maximumf>, %x, %acc : vector<32xf32> into f32
              scf.yield %r : f32
            }
            %m_new = arith.maximumf %m, %mt : f32
            %dm = arith.subf %m, %m_new : f32
            %alpha = nvvm.inline_ptx "ex2.approx.ftz.f32 $0, $1;" ro(%dm : f32) -> f32
            // Pass 2: P = exp2(x - m_new) as bf16 pairs, and the row sum.
            // P and O may be touched only after the previous PV finished.
            %not_first = arith.cmpi ne, %t, %c0 : index
            scf.if %not_first {
              %tp = arith.subi %t, %c1 : index
              %tp_i = arith.index_cast %tp : index to i32
              %pp_i = arith.andi %tp_i, %c1_i32 : i32
              %pp = arith.trunci %pp_i : i32 to i1
              nvgpu.mbarrier.try_wait.parity %o_done[%c0], %pp, %ticks : !one
              sm100.fence after_thread_sync
              // Rescale O by alpha.
              scf.for %oc = %c0 to %c128 step %c32 {
                %ov = sm100.tmem_load %o_acc[%oc] shape_32x32b x 32 : !o_t -> vector<32xf32>
                %av = vector.broadcast %alpha : f32 to vector<32xf32>
                %ns = arith.mulf %ov, %av : vector<32xf32>
                sm100.tmem_store %ns, %o_acc[%oc] shape_32x32b x 32 : vector<32xf32>, !o_t
              }
            }
            %lsum = scf.for %pc = %c0 to %c2 step %c1 iter_args(%ls = %zero) -> (f32) {
              // 64 keys -> 32 registers of bf16 pairs (key 2j low, 2j+1
              // high: the ts A-operand packing).
              %ch0 = arith.muli %pc, %c64 : index
              %ch1 = arith.addi %ch0, %c32 : index
              %sv0 = sm100.tmem_load %s_acc[%ch0] shape_32x32b x 32 : !s_t -> vector<32xf32>
              %sv1 = sm100.tmem_load %s_acc[%ch1] shape_32x32b x 32 : !s_t -> vector<32xf32>
              %kb0 = arith.addi %key0, %ch0 : index
              %kb1 = arith.addi %key0, %ch1 : index
              %x0 = func.call @masked_logits(%sv0, %kb0, %len, %scale_log2) : (vector<32xf32>, index, index, f32) -> vector<32xf32>
              %x1 = func.call @masked_logits(%sv1, %kb1, %len, %scale_log2) : (vector<32xf32>, index, index, f32) -> vector<32xf32>
              %mv = vector.broadcast %m_new : f32 to vector<32xf32>
              %d0 = arith.subf %x0, %mv : vector<32xf32>
              %d1 = arith.subf %x1, %mv : vector<32xf32>
              %e0 = math.exp2 %d0 fastmath<afn> : vector<32xf32>
              %e1 = math.exp2 %d1 fastmath<afn> : vector<32xf32>
              // The row sum of the f32 probabilities (the MMA multiplies
              // their bf16 roundings).
              %s0 = vector.reduction <add>, %e0, %ls : vector<32xf32> into f32
              %s1 = vector.reduction <add>, %e1, %s0 : vector<32xf32> into f32
              %b0 = arith.truncf %e0 : vector<32xf32> to vector<32xbf16>
              %b1 = arith.truncf %e1 : vector<32xf32> to vector<32xbf16>
              %cat = vector.shuffle %b0, %b1 [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63] : vector<32xbf16>, vector<32xbf16>
              %packed = vector.bitcast %cat : vector<64xbf16> to vector<32xi32>
              %pcol = arith.muli %pc, %c32 : index
              sm100.tmem_store %packed, %p_tm[%pcol] shape_32x32b x 32 : vector<32xi32>, !p_t
              scf.yield %s1 : f32
            }
            sm100.wait store
            sm100.fence before_thread_sync
            %tok = nvgpu.mbarrier.arrive %p_full[%c0] : !one -> !nvgpu.mbarrier.token
            %la = arith.mulf %l, %alpha : f32
            %l_new = arith.addf %la, %lsum : f32
            scf.yield %m_new, %l_new : f32, f32
          }
          // Epilogue: the sink joins the denominator.
          %sk = memref.load %sink[%tid] : memref<128xf32>
          %skl = arith.mulf %sk, %log2e : f32
          %m_f = arith.maximumf %res#0, %skl : f32
          %d1 = arith.subf %res#0, %m_f : f32
          %e1 = nvvm.inline_ptx "ex2.approx.ftz.f32 $0, $1;" ro(%d1 : f32) -> f32
          %d2 = arith.subf %skl, %m_f : f32
          %e2 = nvvm.inline_ptx "ex2.approx.ftz.f32 $0, $1;" ro(%d2 : f32) -> f32
          %lm = arith.mulf %res#1, %e1 : f32
          %l_f = arith.addf %lm, %e2 : f32
          %lg = nvvm.inline_ptx "lg2.approx.ftz.f32 $0, $1;" ro(%l_f : f32) -> f32
          %lse2 = arith.addf %m_f, %lg : f32
          %lse_v = arith.mulf %lse2, %ln2 : f32
          memref.store %lse_v, %lse[%b, %tid] : memref<4x128xf32>
          %inv = arith.divf %e1, %l_f : f32
          %any = arith.cmpi ne, %tiles, %c0 : index
          scf.if %any {
            %tl = arith.subi %tiles, %c1 : index
            %tl_i = arith.index_cast %tl : index to i32
            %lp_i = arith.andi %tl_i, %c1_i32 : i32
            %lp = arith.trunci %lp_i : i32 to i1
            nvgpu.mbarrier.try_wait.parity %o_done[%c0], %lp, %ticks : !one
            sm100.fence after_thread_sync
            scf.for %oc = %c0 to %c128 step %c32 {
              %ov = sm100.tmem_load %o_acc[%oc] shape_32x32b x 32 : !o_t -> vector<32xf32>
              %iv = vector.broadcast %inv : f32 to vector<32xf32>
              %on = arith.mulf %ov, %iv : vector<32xf32>
              %ob = arith.truncf %on : vector<32xf32> to vector<32xbf16>
              vector.store %ob, %o[%b, %tid, %oc] : memref<4x128x128xbf16>, vector<32xbf16>
            }
          } else {
            %zb = arith.constant dense<0.0> : vector<32xbf16>
            scf.for %oc = %c0 to %c128 step %c32 {
              vector.store %zb, %o[%b, %tid, %oc] : memref<4x128x128xbf16>, vector<32xbf16>
            }
          }
        }
        sm100.role "load" warps [4, 5) regs 96 {
          sm100.elect_one {
            %row_q = arith.muli %b, %c128 : index
            nvgpu.mbarrier.arrive.expect_tx %q_full[%c0], %q_bytes : !one
            nvgpu.tma.async.load %tma_q[%c0, %row_q], %q_full[%c0] to %q_box0 : !tmap, !one -> !box
            nvgpu.tma.async.load %tma_q[%c64, %row_q], %q_full[%c0] to %q_box1 : !tmap, !one -> !box
            %row_b = arith.muli %b, %seq : index
            scf.for %t = %c0 to %tiles step %c1 {
              // The first wait passes at once (parity trick, as in gemm).
              %t_i = arith.index_cast %t : index to i32
              %par_i = arith.andi %t_i, %c1_i32 : i32
              %odd = arith.trunci %par_i : i32 to i1
              %even = arith.xori %odd, %true : i1
              nvgpu.mbarrier.try_wait.parity %kv_empty[%c0], %even, %ticks : !one
              %key0 = arith.muli %t, %c128 : index
              %row = arith.addi %row_b, %key0 : index
              nvgpu.mbarrier.arrive.expect_tx %kv_full[%c0], %kv_bytes : !one
              nvgpu.tma.async.load %tma_k[%c0, %row], %kv_full[%c0] to %k_box0 : !tmap, !one -> !box
              nvgpu.tma.async.load %tma_k[%c64, %row], %kv_full[%c0] to %k_box1 : !tmap, !one -> !box
              nvgpu.tma.async.load %tma_v[%c0, %row], %kv_full[%c0] to %v_box0 : !tmap, !one -> !box
              nvgpu.tma.async.load %tma_v[%c64, %row], %kv_full[%c0] to %v_box1 : !tmap, !one -> !box
            }
          }
        }
        sm100.role "mma" warps [5, 6) regs 96 {
          sm100.elect_one {
            nvgpu.mbarrier.try_wait.parity %q_full[%c0], %false, %ticks : !one
            scf.for %t = %c0 to %tiles step %c1 {
              %t_i = arith.index_cast %t : index to i32
              %par_i = arith.andi %t_i, %c1_i32 : i32
              %par = arith.trunci %par_i : i32 to i1
              nvgpu.mbarrier.try_wait.parity %kv_full[%c0], %par, %ticks : !one
              sm100.fence after_thread_sync
              // S = Q K^T over head dim 128: 8 K slices of 16.
              %qa0 = sm100.umma_desc #lay_qk %q_tile[%c0, %c0] k_slice 0 : !tile
              %kb0 = sm100.umma_desc #lay_qk %k_tile[%c0, %c0] k_slice 0 : !tile
              sm100.mma #idesc_s %s_acc, %qa0, %kb0, %false : !s_t, i64
              %qa1 = sm100.umma_desc #lay_qk %q_tile[%c0, %c0] k_slice 1 : !tile
              %kb1 = sm100.umma_desc #lay_qk %k_tile[%c0, %c0] k_slice 1 : !tile
              sm100.mma #idesc_s %s_acc, %qa1, %kb1, %true : !s_t, i64
              %qa2 = sm100.umma_desc #lay_qk %q_tile[%c0, %c0] k_slice 2 : !tile
              %kb2 = sm100.umma_desc #lay_qk %k_tile[%c0, %c0] k_slice 2 : !tile
              sm100.mma #idesc_s %s_acc, %qa2, %kb2, %true : !s_t, i64
              %qa3 = sm100.umma_desc #lay_qk %q_tile[%c0, %c0] k_slice 3 : !tile
              %kb3 = sm100.umma_desc #lay_qk %k_tile[%c0, %c0] k_slice 3 : !tile
              sm100.mma #idesc_s %s_acc, %qa3, %kb3, %true : !s_t, i64
              %qa4 = sm100.umma_desc #lay_qk %q_tile[%c0, %c0] k_slice 4 : !tile
              %kb4 = sm100.umma_desc #lay_qk %k_tile[%c0, %c0] k_slice 4 : !tile
              sm100.mma #idesc_s %s_acc, %qa4, %kb4, %true : !s_t, i64
              %qa5 = sm100.umma_desc #lay_qk %q_tile[%c0, %c0] k_slice 5 : !tile
              %kb5 = sm100.umma_desc #lay_qk %k_tile[%c0, %c0] k_slice 5 : !tile
              sm100.mma #idesc_s %s_acc, %qa5, %kb5, %true : !s_t, i64
              %qa6 = sm100.umma_desc #lay_qk %q_tile[%c0, %c0] k_slice 6 : !tile
              %kb6 = sm100.umma_desc #lay_qk %k_tile[%c0, %c0] k_slice 6 : !tile
              sm100.mma #idesc_s %s_acc, %qa6, %kb6, %true : !s_t, i64
              %qa7 = sm100.umma_desc #lay_qk %q_tile[%c0, %c0] k_slice 7 : !tile
              %kb7 = sm100.umma_desc #lay_qk %k_tile[%c0, %c0] k_slice 7 : !tile
              sm100.mma #idesc_s %s_acc, %qa7, %kb7, %true : !s_t, i64
              sm100.commit %s_full[%c0] : !one
              // O += P V once the softmax wrote P.
              nvgpu.mbarrier.try_wait.parity %p_full[%c0], %par, %ticks : !one
              sm100.fence after_thread_sync
              %not_first = arith.cmpi ne, %t, %c0 : index
              %v0_0 = sm100.umma_desc #lay_v %v_box0[%c0, %c0] k_slice 0 : !box
              %v1_0 = sm100.umma_desc #lay_v %v_box1[%c0, %c0] k_slice 0 : !box
              %p_0 = sm100.tmem_slice %p_tm[0] : !p_t -> !p_k
              sm100.mma #idesc_o %o_h0, %p_0, %v0_0, %not_first : !o_h, !p_k
              sm100.mma #idesc_o %o_h1, %p_0, %v1_0, %not_first : !o_h, !p_k
              %v0_1 = sm100.umma_desc #lay_v %v_box0[%c0, %c0] k_slice 1 : !box
              %v1_1 = sm100.umma_desc #lay_v %v_box1[%c0, %c0] k_slice 1 : !box
              %p_1 = sm100.tmem_slice %p_tm[8] : !p_t -> !p_k
              sm100.mma #idesc_o %o_h0, %p_1, %v0_1, %true : !o_h, !p_k
              sm100.mma #idesc_o %o_h1, %p_1, %v1_1, %true : !o_h, !p_k
              %v0_2 = sm100.umma_desc #lay_v %v_box0[%c0, %c0] k_slice 2 : !box
              %v1_2 = sm100.umma_desc #lay_v %v_box1[%c0, %c0] k_slice 2 : !box
              %p_2 = sm100.tmem_slice %p_tm[16] : !p_t -> !p_k
              sm100.mma #idesc_o %o_h0, %p_2, %v0_2, %true : !o_h, !p_k
              sm100.mma #idesc_o %o_h1, %p_2, %v1_2, %true : !o_h, !p_k
              %v0_3 = sm100.umma_desc #lay_v %v_box0[%c0, %c0] k_slice 3 : !box
              %v1_3 = sm100.umma_desc #lay_v %v_box1[%c0, %c0] k_slice 3 : !box
              %p_3 = sm100.tmem_slice %p_tm[24] : !p_t -> !p_k
              sm100.mma #idesc_o %o_h0, %p_3, %v0_3, %true : !o_h, !p_k
              sm100.mma #idesc_o %o_h1, %p_3, %v1_3, %true : !o_h, !p_k
              %v0_4 = sm100.umma_desc #lay_v %v_box0[%c0, %c0] k_slice 4 : !box
              %v1_4 = sm100.umma_desc #lay_v %v_box1[%c0, %c0] k_slice 4 : !box
              %p_4 = sm100.tmem_slice %p_tm[32] : !p_t -> !p_k
              sm100.mma #idesc_o %o_h0, %p_4, %v0_4, %true : !o_h, !p_k
              sm100.mma #idesc_o %o_h1, %p_4, %v1_4, %true : !o_h, !p_k
              %v0_5 = sm100.umma_desc #lay_v %v_box0[%c0, %c0] k_slice 5 : !box
              %v1_5 = sm100.umma_desc #lay_v %v_box1[%c0, %c0] k_slice 5 : !box
              %p_5 = sm100.tmem_slice %p_tm[40] : !p_t -> !p_k
              sm100.mma #idesc_o %o_h0, %p_5, %v0_5, %true : !o_h, !p_k
              sm100.mma #idesc_o %o_h1, %p_5, %v1_5, %true : !o_h, !p_k
              %v0_6 = sm100.umma_desc #lay_v %v_box0[%c0, %c0] k_slice 6 : !box
              %v1_6 = sm100.umma_desc #lay_v %v_box1[%c0, %c0] k_slice 6 : !box
              %p_6 = sm100.tmem_slice %p_tm[48] : !p_t -> !p_k
              sm100.mma #idesc_o %o_h0, %p_6, %v0_6, %true : !o_h, !p_k
              sm100.mma #idesc_o %o_h1, %p_6, %v1_6, %true : !o_h, !p_k
              %v0_7 = sm100.umma_desc #lay_v %v_box0[%c0, %c0] k_slice 7 : !box
              %v1_7 = sm100.umma_desc #lay_v %v_box1[%c0, %c0] k_slice 7 : !box
              %p_7 = sm100.tmem_slice %p_tm[56] : !p_t -> !p_k
              sm100.mma #idesc_o %o_h0, %p_7, %v0_7, %true : !o_h, !p_k
              sm100.mma #idesc_o %o_h1, %p_7, %v1_7, %true : !o_h, !p_k
              sm100.commit %kv_empty[%c0] : !one
              sm100.commit %o_done[%c0] : !one
            }
          }
        }
        sm100.role "spare" warps [6, 8) regs 96 {
        }
      }

      sm100.fence before_thread_sync
      gpu.barrier
      sm100.fence after_thread_sync
      scf.if %is_w0 {
        sm100.tmem_dealloc %all, 512 : !all
      }
      gpu.return
    }
  }
}
