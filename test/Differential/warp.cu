// Differential corpus: warp collectives, CTA barrier reductions and
// atomics (docs/Differential.md). Element-wise layout as in scalar.cu:
// the k-th OP*/OPNAME of a kernel writes out[k * n + i].
//
// warp.ptx is generated from this file by test/Differential/regen_ptx.sh.

#include "ops.h"

// Full-warp collectives with data-dependent lanes, clamps and predicates.
extern "C" __global__ void warp_full(const uint32_t *a, const uint32_t *b,
                                     const uint32_t *c, uint32_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = 0;
  uint32_t ua = a[i], ub = b[i], uc = c[i];
  uint32_t lane = ub & 31, clampc = uc & 0x1f1f, q = ua & 1;
  // BEGIN OPS warp_full
#define SHFL(mode)                                                              \
  { uint32_t d_, p_; asm volatile("{ .reg .pred p; shfl.sync." mode ".b32 %0|p, %2, %3, %4, 0xffffffff; selp.u32 %1, 1, 0, p; }" \
      : "=r"(d_), "=r"(p_) : "r"(ua), "r"(lane), "r"(clampc)); KOUT(d_); KOUT(p_); }
  SHFL("idx") // OPNAME("shfl.sync.idx.b32 d") OPNAME("shfl.sync.idx.b32 p")
  SHFL("up") // OPNAME("shfl.sync.up.b32 d") OPNAME("shfl.sync.up.b32 p")
  SHFL("down") // OPNAME("shfl.sync.down.b32 d") OPNAME("shfl.sync.down.b32 p")
  SHFL("bfly") // OPNAME("shfl.sync.bfly.b32 d") OPNAME("shfl.sync.bfly.b32 p")
  { uint32_t d_; asm volatile("shfl.sync.up.b32 %0, %1, 1, 0, 0xffffffff;" : "=r"(d_) : "r"(ua)); KOUT(d_); } // OPNAME("shfl.sync.up.b32 imm 1, 0")
  { uint32_t d_; asm volatile("shfl.sync.down.b32 %0, %1, 3, 0x1f, 0xffffffff;" : "=r"(d_) : "r"(ua)); KOUT(d_); } // OPNAME("shfl.sync.down.b32 imm 3, 0x1f")
  { uint32_t d_; asm volatile("shfl.sync.bfly.b32 %0, %1, 5, 0x0c1f, 0xffffffff;" : "=r"(d_) : "r"(ua)); KOUT(d_); } // OPNAME("shfl.sync.bfly.b32 imm 5, 0x0c1f (segments of 16)")
  { uint32_t d_; asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x181f, 0xffffffff;" : "=r"(d_) : "r"(ua), "r"(lane)); KOUT(d_); } // OPNAME("shfl.sync.idx.b32 segments of 8")
#define VOTE(mode)                                                              \
  { uint32_t d_; asm volatile("{ .reg .pred p, q; setp.ne.u32 q, %1, 0; vote.sync." mode ".pred p, q, 0xffffffff; selp.u32 %0, 1, 0, p; }" : "=r"(d_) : "r"(q)); KOUT(d_); }
  VOTE("all") // OPNAME("vote.sync.all.pred")
  VOTE("any") // OPNAME("vote.sync.any.pred")
  VOTE("uni") // OPNAME("vote.sync.uni.pred")
  { uint32_t d_; asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; }" : "=r"(d_) : "r"(q)); KOUT(d_); } // OPNAME("vote.sync.ballot.b32")
  { uint32_t d_; asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, !q, 0xffffffff; }" : "=r"(d_) : "r"(q)); KOUT(d_); } // OPNAME("vote.sync.ballot.b32 !q")
  { uint32_t d_, p_; asm volatile("{ .reg .pred p; elect.sync %0|p, 0xffffffff; selp.u32 %1, 1, 0, p; }" : "=r"(d_), "=r"(p_)); KOUT(d_); KOUT(p_); } // OPNAME("elect.sync d") OPNAME("elect.sync p")
  { uint32_t d_, p_; asm volatile("{ .reg .pred p; elect.sync %0|p, %2; selp.u32 %1, 1, 0, p; }" : "=r"(d_), "=r"(p_) : "r"(__shfl_sync(0xffffffff, uc | 1u << 31, 0))); KOUT(d_); KOUT(p_); } // OPNAME("elect.sync mask d") OPNAME("elect.sync mask p")
  { uint32_t d_; asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(d_) : "r"(ua & 3)); KOUT(d_); } // OPNAME("match.any.sync.b32")
  { uint32_t d_, p_; asm volatile("{ .reg .pred p; match.all.sync.b32 %0|p, %2, 0xffffffff; selp.u32 %1, 1, 0, p; }" : "=r"(d_), "=r"(p_) : "r"((ua & 0x7) == 0 ? 1u : (blockIdx.x & 1))); KOUT(d_); KOUT(p_); } // OPNAME("match.all.sync.b32 d") OPNAME("match.all.sync.b32 p")
  { uint32_t d_; asm volatile("match.any.sync.b64 %0, %1, 0xffffffff;" : "=r"(d_) : "l"(((uint64_t)(ua & 1) << 40) | (ub & 1))); KOUT(d_); } // OPNAME("match.any.sync.b64")
#define REDUX(op, v)                                                            \
  { uint32_t d_; asm volatile("redux.sync." op " %0, %1, 0xffffffff;" : "=r"(d_) : "r"(v)); KOUT(d_); }
  REDUX("add.u32", ua) // OPNAME("redux.sync.add.u32")
  REDUX("add.s32", ub) // OPNAME("redux.sync.add.s32")
  REDUX("min.u32", ua) // OPNAME("redux.sync.min.u32")
  REDUX("min.s32", ub) // OPNAME("redux.sync.min.s32")
  REDUX("max.u32", ua) // OPNAME("redux.sync.max.u32")
  REDUX("max.s32", ub) // OPNAME("redux.sync.max.s32")
  REDUX("and.b32", ua | ub) // OPNAME("redux.sync.and.b32")
  REDUX("or.b32", ua & ub) // OPNAME("redux.sync.or.b32")
  REDUX("xor.b32", ua) // OPNAME("redux.sync.xor.b32")
  { uint32_t d_; asm volatile("activemask.b32 %0;" : "=r"(d_)); KOUT(d_); } // OPNAME("activemask.b32")
  { uint32_t d_; asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; bar.red.popc.u32 %0, 0, q; }" : "=r"(d_) : "r"(q)); KOUT(d_); } // OPNAME("bar.red.popc.u32")
  { uint32_t d_; asm volatile("{ .reg .pred p, q; setp.ne.u32 q, %1, 0; bar.red.and.pred p, 1, q; selp.u32 %0, 1, 0, p; }" : "=r"(d_) : "r"((uint32_t)((ua & 0xff) != 0))); KOUT(d_); } // OPNAME("bar.red.and.pred")
  { uint32_t d_; asm volatile("{ .reg .pred p, q; setp.ne.u32 q, %1, 0; bar.red.or.pred p, 2, q; selp.u32 %0, 1, 0, p; }" : "=r"(d_) : "r"((uint32_t)((ua & 0xff) == 0))); KOUT(d_); } // OPNAME("bar.red.or.pred")
  // END OPS
}

// The same collectives after some lanes exited (those whose input has its
// low three bits zero): member masks from activemask.
extern "C" __global__ void warp_partial(const uint32_t *a, const uint32_t *b,
                                        const uint32_t *c, uint32_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = 0;
  uint32_t ua = a[i], ub = b[i], uc = c[i];
  if ((ua & 7) == 0) return;
  uint32_t m = __activemask(), lane = ub & 31, q = ua & 16;
  // BEGIN OPS warp_partial
  { uint32_t d_; asm volatile("activemask.b32 %0;" : "=r"(d_)); KOUT(d_); } // OPNAME("activemask.b32")
  { uint32_t d_, p_; asm volatile("{ .reg .pred p; shfl.sync.idx.b32 %0|p, %2, %3, 0x1f, %4; selp.u32 %1, 1, 0, p; }" : "=r"(d_), "=r"(p_) : "r"(uc), "r"(lane), "r"(m)); KOUT(d_); KOUT(p_); } // OPNAME("shfl.sync.idx.b32 partial d") OPNAME("shfl.sync.idx.b32 partial p")
  { uint32_t d_, p_; asm volatile("{ .reg .pred p; shfl.sync.down.b32 %0|p, %2, 1, 0x1f, %3; selp.u32 %1, 1, 0, p; }" : "=r"(d_), "=r"(p_) : "r"(uc), "r"(m)); KOUT(d_); KOUT(p_); } // OPNAME("shfl.sync.down.b32 partial d") OPNAME("shfl.sync.down.b32 partial p")
  { uint32_t d_; asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, %2; }" : "=r"(d_) : "r"(q), "r"(m)); KOUT(d_); } // OPNAME("vote.sync.ballot.b32 partial")
  { uint32_t d_; asm volatile("{ .reg .pred p, q; setp.ne.u32 q, %1, 0; vote.sync.all.pred p, q, %2; selp.u32 %0, 1, 0, p; }" : "=r"(d_) : "r"(q), "r"(m)); KOUT(d_); } // OPNAME("vote.sync.all.pred partial")
  { uint32_t d_, p_; asm volatile("{ .reg .pred p; elect.sync %0|p, %2; selp.u32 %1, 1, 0, p; }" : "=r"(d_), "=r"(p_) : "r"(m)); KOUT(d_); KOUT(p_); } // OPNAME("elect.sync partial d") OPNAME("elect.sync partial p")
  { uint32_t d_; asm volatile("redux.sync.add.u32 %0, %1, %2;" : "=r"(d_) : "r"(ub), "r"(m)); KOUT(d_); } // OPNAME("redux.sync.add.u32 partial")
  { uint32_t d_; asm volatile("redux.sync.max.s32 %0, %1, %2;" : "=r"(d_) : "r"(uc), "r"(m)); KOUT(d_); } // OPNAME("redux.sync.max.s32 partial")
  { uint32_t d_; asm volatile("match.any.sync.b32 %0, %1, %2;" : "=r"(d_) : "r"(ub & 1), "r"(m)); KOUT(d_); } // OPNAME("match.any.sync.b32 partial")
  // END OPS
}

// Atomics, each thread on its own word: edge values through the f32/f64/
// f16/bf16 adds and the integer forms; the old value and the memory after.
extern "C" __global__ void atom_own(const uint32_t *a, const uint32_t *b,
                                    const uint32_t *c, uint32_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int k = 0;
  uint32_t ua = a[i], ub = b[i], uc = c[i];
  __shared__ uint32_t sm[256 * 4];
  uint32_t *w = out + (size_t)n * 64 + i * 16;  // scratch after the results
  // BEGIN OPS atom_own
#define ATOM(ins, idx, v)                                                        \
  { w[idx] = ua; uint32_t o_; asm volatile(ins " %0, [%1], %2;" : "=r"(o_) : "l"(w + idx), "r"(v) : "memory"); KOUT(o_); KOUT(w[idx]); }
  ATOM("atom.global.add.f32", 0, ub) // OPNAME("atom.global.add.f32 old") OPNAME("atom.global.add.f32 mem")
  ATOM("atom.global.add.u32", 1, ub) // OPNAME("atom.global.add.u32 old") OPNAME("atom.global.add.u32 mem")
  ATOM("atom.global.inc.u32", 2, ub & 0xff) // OPNAME("atom.global.inc.u32 old") OPNAME("atom.global.inc.u32 mem")
  ATOM("atom.global.dec.u32", 3, ub & 0xff) // OPNAME("atom.global.dec.u32 old") OPNAME("atom.global.dec.u32 mem")
  ATOM("atom.global.min.s32", 4, ub) // OPNAME("atom.global.min.s32 old") OPNAME("atom.global.min.s32 mem")
  ATOM("atom.global.max.u32", 5, ub) // OPNAME("atom.global.max.u32 old") OPNAME("atom.global.max.u32 mem")
  ATOM("atom.global.and.b32", 6, ub) // OPNAME("atom.global.and.b32 old") OPNAME("atom.global.and.b32 mem")
  ATOM("atom.global.xor.b32", 7, ub) // OPNAME("atom.global.xor.b32 old") OPNAME("atom.global.xor.b32 mem")
  ATOM("atom.global.exch.b32", 8, ub) // OPNAME("atom.global.exch.b32 old") OPNAME("atom.global.exch.b32 mem")
  ATOM("atom.global.add.noftz.f16x2", 9, ub) // OPNAME("atom.global.add.noftz.f16x2 old") OPNAME("atom.global.add.noftz.f16x2 mem")
  ATOM("atom.global.add.noftz.bf16x2", 10, ub) // OPNAME("atom.global.add.noftz.bf16x2 old") OPNAME("atom.global.add.noftz.bf16x2 mem")
  { w[11] = ua; uint32_t o_; asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;" : "=r"(o_) : "l"(w + 11), "r"((ub & 1) ? ua : ub), "r"(uc) : "memory"); KOUT(o_); KOUT(w[11]); } // OPNAME("atom.global.cas.b32 old") OPNAME("atom.global.cas.b32 mem")
  { uint16_t h_; w[12] = ua; asm volatile("atom.global.add.noftz.f16 %0, [%1], %2;" : "=h"(h_) : "l"(w + 12), "h"((uint16_t)ub) : "memory"); KOUT(h_); KOUT(w[12]); } // OPNAME("atom.global.add.noftz.f16 old") OPNAME("atom.global.add.noftz.f16 mem")
  { uint64_t *w64 = (uint64_t *)(w + 14); *w64 = ((uint64_t)ua << 32) | ub; double o_; (void)o_; asm volatile("atom.global.add.f64 %0, [%1], %2;" : "=d"(o_) : "l"(w64), "d"(__longlong_as_double(((uint64_t)uc << 32) | ua)) : "memory"); KOUT(w[14]); KOUT(w[15]); } // OPNAME("atom.global.add.f64 mem lo") OPNAME("atom.global.add.f64 mem hi")
  { uint32_t *s = sm + threadIdx.x * 4; s[0] = ua; uint32_t o_; asm volatile("atom.shared.add.f32 %0, [%1], %2;" : "=r"(o_) : "r"((uint32_t)__cvta_generic_to_shared(s)), "r"(ub) : "memory"); KOUT(o_); KOUT(s[0]); } // OPNAME("atom.shared.add.f32 old") OPNAME("atom.shared.add.f32 mem")
  { uint32_t *s = sm + threadIdx.x * 4 + 1; s[0] = ua; asm volatile("red.shared.add.f32 [%0], %1;" :: "r"((uint32_t)__cvta_generic_to_shared(s)), "r"(ub) : "memory"); KOUT(s[0]); } // OPNAME("red.shared.add.f32 mem")
  { w[13] = ua; asm volatile("red.global.add.f32 [%0], %1;" :: "l"(w + 13), "r"(ub) : "memory"); KOUT(w[13]); } // OPNAME("red.global.add.f32 mem")
  { uint32_t *s = sm + threadIdx.x * 4 + 2; s[0] = ua; uint32_t o_; asm volatile("atom.add.f32 %0, [%1], %2;" : "=r"(o_) : "l"(s), "r"(ub) : "memory"); KOUT(o_); KOUT(s[0]); } // OPNAME("atom.add.f32 generic->shared old") OPNAME("atom.add.f32 generic->shared mem")
  // END OPS
}

// Atomics that collide: every thread of the grid updates the same few
// words (results independent of order: exact integer-valued floats).
extern "C" __global__ void atom_shared_word(const uint32_t *a, const uint32_t *b,
                                            const uint32_t *c, uint32_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t ua = a[i], ub = b[i];
  __shared__ uint32_t s[4];
  if (threadIdx.x < 4) s[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(out + 0, ua);
  atomicAdd((float *)out + 1, (float)(int)(ub & 0xfff) - 2000.0f);
  atomicMax((int *)out + 2, (int)ua);
  atomicMin(out + 3, ua);
  atomicXor(out + 4, ub);
  atomicInc(out + 5, 1000u);
  atomicDec(out + 6, 77u);
  atomicOr(out + 7, 1u << (ua & 31));
  atomicAdd(&s[0], ua & 0xff);
  atomicMax(&s[1], ub);
  atomicAdd((float *)&s[2], (float)(ua & 0xff) * 0.25f);
  __syncthreads();
  if (threadIdx.x < 3) atomicAdd(out + 8 + threadIdx.x, s[threadIdx.x]);
}
