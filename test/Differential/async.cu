// Differential corpus: mbarrier phases and transaction counts, TMA tensor
// loads (1-5 D, every swizzle, out of bounds, multicast) and stores,
// cp.async.bulk and clusters with distributed shared memory
// (docs/Differential.md).
//
// async.ptx is generated from this file by test/Differential/regen_ptx.sh.

#include <cuda.h>

#include <cstdint>

namespace {

__device__ uint32_t smem(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ uint32_t testWait(uint32_t bar, uint32_t parity) {
  uint32_t r;
  asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(r) : "r"(bar), "r"(parity) : "memory");
  return r;
}

__device__ void waitParity(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}

__device__ void clusterSync() {
  asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;" ::: "memory");
}

} // namespace

// One thread walks an mbarrier through phases: arrival counts, expect_tx /
// complete_tx (also a negative tx-count), arrive_drop, pending_count of the
// returned state, test_wait / try_wait with parities and states, inval and
// re-init. Then all 128 threads arrive on a second barrier, twice.
// out[0..63]: the observations in program order.
extern "C" __global__ void mbarrier_phases(uint32_t *out) {
  __shared__ alignas(8) uint64_t b[2];
  uint32_t bar = smem(&b[0]), bar2 = smem(&b[1]);
  int k = 0;
  if (threadIdx.x == 0) {
    uint64_t st;
    uint32_t pc;
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"(bar) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 128;" :: "r"(bar2) : "memory");
    out[k++] = testWait(bar, 0);                                   // 0: phase 0 open
    out[k++] = testWait(bar, 1);                                   // 1: "phase -1" done
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(bar) : "memory");
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pc) : "l"(st));
    out[k++] = pc;                                                 // 2
    { uint32_t r; asm volatile("{ .reg .pred p; mbarrier.test_wait.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "r"(bar), "l"(st) : "memory"); out[k++] = r; } // 3
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], 64;" :: "r"(bar) : "memory");
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(bar) : "memory");
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pc) : "l"(st));
    out[k++] = pc;                                                 // 4
    out[k++] = testWait(bar, 0);                                   // 5: waits for 64 bytes
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 32;" :: "r"(bar) : "memory");
    out[k++] = testWait(bar, 0);                                   // 6
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 32;" :: "r"(bar) : "memory");
    out[k++] = testWait(bar, 0);                                   // 7: phase 0 done
    out[k++] = testWait(bar, 1);                                   // 8: phase 1 open
    { uint32_t r; asm volatile("{ .reg .pred p; mbarrier.test_wait.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "r"(bar), "l"(st) : "memory"); out[k++] = r; } // 9: old state
    // Phase 1: bytes complete before they are expected.
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 16;" :: "r"(bar) : "memory");
    out[k++] = testWait(bar, 1);                                   // 10
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], 16;" : "=l"(st) : "r"(bar) : "memory");
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pc) : "l"(st));
    out[k++] = pc;                                                 // 11
    out[k++] = testWait(bar, 1);                                   // 12: one arrival left
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], 1;" : "=l"(st) : "r"(bar) : "memory");
    out[k++] = testWait(bar, 1);                                   // 13: done
    // Phase 2: arrive_drop lowers the expected count to 1 for later phases.
    asm volatile("mbarrier.arrive_drop.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(bar) : "memory");
    out[k++] = testWait(bar, 0);                                   // 14
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(bar) : "memory");
    out[k++] = testWait(bar, 0);                                   // 15: phase 2 done
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(bar) : "memory");
    out[k++] = testWait(bar, 1);                                   // 16: phase 3 done with 1 arrival
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pc) : "l"(st));
    out[k++] = pc;                                                 // 17
    // Phase 4: one arrive with count 1 plus expect_tx of 1000 completed in
    // three pieces.
    asm volatile("mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 _, [%0], 1000;" :: "r"(bar) : "memory");
    out[k++] = testWait(bar, 0);                                   // 18
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 500;" :: "r"(bar) : "memory");
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 499;" :: "r"(bar) : "memory");
    out[k++] = testWait(bar, 0);                                   // 19
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    out[k++] = testWait(bar, 0);                                   // 20
    // try_wait on a completed phase returns true at once.
    { uint32_t r; asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "r"(bar) : "memory"); out[k++] = r; } // 21
    // inval and init with another count.
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(bar) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 3;" :: "r"(bar) : "memory");
    out[k++] = testWait(bar, 0);                                   // 22
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], 2;" : "=l"(st) : "r"(bar) : "memory");
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pc) : "l"(st));
    out[k++] = pc;                                                 // 23
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(bar) : "memory");
    out[k++] = testWait(bar, 0);                                   // 24
  }
  __syncthreads();
  // 128 arrivals complete bar2's phase 0, then phase 1.
  for (int ph = 0; ph < 2; ++ph) {
    uint64_t st;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(bar2) : "memory");
    waitParity(bar2, ph);
    __syncthreads();
    if (threadIdx.x == 0) {
      out[32 + ph * 2] = testWait(bar2, ph);
      out[33 + ph * 2] = testWait(bar2, ph ^ 1);
    }
    __syncthreads();
  }
}

// TMA tensor loads: one box of up to 16 KiB into a 1024-byte-aligned tile,
// completing on an mbarrier; the tile is copied out byte for byte.
// Coordinates c0..c4 (unused ones ignored), bytes = the box's bytes.
namespace {
template <int R>
__device__ void tmaLoad(const CUtensorMap *map, uint8_t *out, int c0, int c1,
                        int c2, int c3, int c4, uint32_t bytes) {
  __shared__ alignas(1024) uint8_t tile[16384];
  __shared__ alignas(8) uint64_t barrier;
  uint32_t bar = smem(&barrier), dst = smem(tile);
  for (uint32_t j = threadIdx.x; j < 16384; j += blockDim.x) tile[j] = 0xA5;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
    if (R == 1)
      asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                   :: "r"(dst), "l"(map), "r"(c0), "r"(bar) : "memory");
    if (R == 2)
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                   :: "r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar) : "memory");
    if (R == 3)
      asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                   :: "r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(bar) : "memory");
    if (R == 4)
      asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                   :: "r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar) : "memory");
    if (R == 5)
      asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
                   :: "r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(bar) : "memory");
  }
  waitParity(bar, 0);
  for (uint32_t j = threadIdx.x; j < bytes; j += blockDim.x) out[j] = tile[j];
}
} // namespace

#define TMA_KERNEL(R)                                                            \
  extern "C" __global__ void tma_load_##R##d(const __grid_constant__ CUtensorMap map, \
      uint8_t *out, int c0, int c1, int c2, int c3, int c4, uint32_t bytes) {   \
    tmaLoad<R>(&map, out, c0, c1, c2, c3, c4, bytes);                           \
  }
TMA_KERNEL(1)
TMA_KERNEL(2)
TMA_KERNEL(3)
TMA_KERNEL(4)
TMA_KERNEL(5)

// TMA tensor stores: the 1024-byte-aligned tile is filled with the first
// 16 KiB of src as they are (so the global tensor receives them with the
// map's swizzle un-applied), one thread stores the box at c0..c4 (unused
// coordinates ignored) and commits it; after wait_group.read it zeroes the
// tile (allowed: the store has read it), then waits for the writes.
namespace {
template <int R>
__device__ void tmaStore(const CUtensorMap *map, const uint8_t *src, int c0,
                         int c1, int c2, int c3, int c4) {
  __shared__ alignas(1024) uint8_t tile[16384];
  for (uint32_t j = threadIdx.x * 16; j < 16384; j += blockDim.x * 16)
    *reinterpret_cast<uint4 *>(&tile[j]) = *reinterpret_cast<const uint4 *>(&src[j]);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t s = smem(tile);
    if (R == 1)
      asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%1}], [%2];"
                   :: "l"(map), "r"(c0), "r"(s) : "memory");
    if (R == 2)
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                   :: "l"(map), "r"(c0), "r"(c1), "r"(s) : "memory");
    if (R == 3)
      asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];"
                   :: "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(s) : "memory");
    if (R == 4)
      asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4}], [%5];"
                   :: "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(s) : "memory");
    if (R == 5)
      asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4, %5}], [%6];"
                   :: "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(s) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    for (uint32_t j = 0; j < 16384; j += 16)
      *reinterpret_cast<uint4 *>(&tile[j]) = make_uint4(0, 0, 0, 0);
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}
} // namespace

#define TMA_STORE_KERNEL(R)                                                      \
  extern "C" __global__ void tma_store_##R##d(const __grid_constant__ CUtensorMap map, \
      const uint8_t *src, int c0, int c1, int c2, int c3, int c4) {             \
    tmaStore<R>(&map, src, c0, c1, c2, c3, c4);                                 \
  }
TMA_STORE_KERNEL(1)
TMA_STORE_KERNEL(2)
TMA_STORE_KERNEL(3)
TMA_STORE_KERNEL(4)
TMA_STORE_KERNEL(5)

// A 2-D box multicast by CTA rank 0 to every CTA of a cluster of 2; each
// CTA copies its tile to out + rank * bytes.
extern "C" __global__ void tma_multicast_2d(const __grid_constant__ CUtensorMap map,
                                            uint8_t *out, int c0, int c1,
                                            uint32_t bytes) {
  __shared__ alignas(1024) uint8_t tile[8192];
  __shared__ alignas(8) uint64_t barrier;
  uint32_t bar = smem(&barrier), dst = smem(tile), rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
  }
  clusterSync();
  if (rank == 0 && threadIdx.x == 0)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;"
                 :: "r"(dst), "l"(&map), "r"(c0), "r"(c1), "r"(bar), "h"((uint16_t)3) : "memory");
  waitParity(bar, 0);
  for (uint32_t j = threadIdx.x; j < bytes; j += blockDim.x) out[rank * bytes + j] = tile[j];
  clusterSync();
}

// cp.async.bulk: global -> shared (mbarrier), shared -> global (bulk
// group), global -> shared::cluster multicast and shared::cta -> peer
// shared::cluster, in a cluster of 2. in: 4096 bytes; out: 4 x 4096 bytes.
// Pieces of s0, s1 and 4096 - s0 - s1 bytes; CTA rank r reads from
// in + r * shift.
extern "C" __global__ void bulk_copies(const uint8_t *in, uint8_t *out,
                                       uint32_t s0, uint32_t s1, uint32_t shift) {
  __shared__ alignas(128) uint8_t a[4096];
  __shared__ alignas(128) uint8_t m[4096];
  __shared__ alignas(128) uint8_t p[4096];
  __shared__ alignas(8) uint64_t bars[3];
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  uint32_t b0 = smem(&bars[0]), b1 = smem(&bars[1]), b2 = smem(&bars[2]);
  if (threadIdx.x == 0) {
    for (int j = 0; j < 3; ++j)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bars[j])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  clusterSync();
  if (threadIdx.x == 0) {
    // 1. global -> own shared, 3 pieces of odd multiples of 16 bytes.
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" ::"r"(b0) : "memory");
    const uint8_t *src = in + rank * shift;
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %3, [%2];"
                 :: "r"(smem(a)), "l"(src), "r"(b0), "r"(s0) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %3, [%2];"
                 :: "r"(smem(a) + s0), "l"(src + s0), "r"(b0), "r"(s1) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %3, [%2];"
                 :: "r"(smem(a) + s0 + s1), "l"(src + s0 + s1), "r"(b0), "r"(4096 - s0 - s1) : "memory");
    // 2. multicast: rank 1 sends 2048 bytes to both CTAs.
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 2048;" ::"r"(b1) : "memory");
  }
  clusterSync();
  if (threadIdx.x == 0 && rank == 1)
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], 2048, [%2], %3;"
                 :: "r"(smem(m)), "l"(in + 2048), "r"(b1), "h"((uint16_t)3) : "memory");
  waitParity(b0, 0);
  waitParity(b1, 0);
  // 3. shared::cta -> the peer's shared::cluster, completing on the
  // peer's barrier: each CTA sends its tile a (as loaded) to the other.
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" ::"r"(b2) : "memory");
  }
  clusterSync();
  if (threadIdx.x == 0) {
    uint32_t peerP, peerBar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peerP) : "r"(smem(p)), "r"(rank ^ 1));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peerBar) : "r"(b2), "r"(rank ^ 1));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], 4096, [%2];"
                 :: "r"(peerP), "r"(smem(a)), "r"(peerBar) : "memory");
  }
  waitParity(b2, 0);
  // 4. shared -> global with bulk groups: a, m (first 2048 bytes) and p.
  if (threadIdx.x == 0) {
    uint8_t *o = out + rank * 3 * 4096;
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 4096;" :: "l"(o), "r"(smem(a)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 2048;" :: "l"(o + 4096), "r"(smem(m)) : "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 4096;" :: "l"(o + 8192), "r"(smem(p)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
  clusterSync();
}

// st.async into the peer CTA of a cluster of 2, completing on the peer's
// mbarrier: thread t stores words of `in` (rank r reads from in + r * 1664
// words) as .b32, .v2.b32, .v4.b32, .b64 and .v2.b64 into five regions of
// the peer's buffer (6656 bytes); each CTA waits on its own barrier and
// writes what arrived to out + rank * 6656 bytes.
extern "C" __global__ void st_async_peer(const uint32_t *in, uint8_t *out) {
  __shared__ alignas(128) uint8_t buf[6656];
  __shared__ alignas(8) uint64_t bar;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const uint32_t t = threadIdx.x, b = smem(&bar);
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  clusterSync();
  if (t == 0)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 6656;" ::"r"(b) : "memory");
  clusterSync();
  uint32_t peer, peerBar;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer) : "r"(smem(buf)), "r"(rank ^ 1));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peerBar) : "r"(b), "r"(rank ^ 1));
  const uint32_t *w = in + rank * 1664 + t * 13;
  uint64_t d0 = (uint64_t(w[6]) << 32) | w[5];
  uint64_t d1 = (uint64_t(w[8]) << 32) | w[7];
  uint64_t d2 = (uint64_t(w[10]) << 32) | w[9];
  // OP("st.async.b32")
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
               :: "r"(peer + 4 * t), "r"(w[0]), "r"(peerBar) : "memory");
  // OP("st.async.v2.b32")
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];"
               :: "r"(peer + 512 + 8 * t), "r"(w[1]), "r"(w[2]), "r"(peerBar) : "memory");
  // OP("st.async.v4.b32")
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
               :: "r"(peer + 1536 + 16 * t), "r"(w[3]), "r"(w[4]), "r"(w[11]), "r"(w[12]), "r"(peerBar) : "memory");
  // OP("st.async.b64")
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];"
               :: "r"(peer + 3584 + 8 * t), "l"(d0), "r"(peerBar) : "memory");
  // OP("st.async.v2.b64")
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [%0], {%1, %2}, [%3];"
               :: "r"(peer + 4608 + 16 * t), "l"(d1), "l"(d2), "r"(peerBar) : "memory");
  waitParity(b, 0);
  for (uint32_t i = t; i < 6656 / 4; i += blockDim.x)
    reinterpret_cast<uint32_t *>(out + rank * 6656)[i] =
        reinterpret_cast<const uint32_t *>(buf)[i];
  clusterSync();
}

// Clusters of 4 in a grid of 8: special registers, distributed shared
// memory reads and writes through mapa (shared::cluster and generic),
// remote mbarrier arrivals, cluster-scope atomics.
// in: 8 x 256 words; out: 8 CTAs x 64 words.
extern "C" __global__ void cluster_dsmem(const uint32_t *in, uint32_t *out) {
  __shared__ uint32_t s[256];
  __shared__ uint32_t inbox[256];
  __shared__ uint32_t counter[2];
  __shared__ alignas(8) uint64_t barrier;
  uint32_t rank, nrank, cid, ncid, ctaid, nctaid, expl;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(nrank));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(ncid));
  asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(ctaid));
  asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(nctaid));
  expl = 0;
  uint32_t t = threadIdx.x, g = blockIdx.x;
  uint32_t *o = out + g * 64;
  s[t] = in[g * 256 + t];
  if (t < 2) counter[t] = 0;
  uint32_t bar = smem(&barrier);
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 3;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  clusterSync();
  // Read the next rank's s through shared::cluster and write into the
  // previous rank's inbox.
  uint32_t next = (rank + 1) % nrank, prev = (rank + nrank - 1) % nrank;
  uint32_t ra, wa, v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(ra) : "r"(smem(&s[t ^ 5])), "r"(next));
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(ra) : "memory");
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(wa) : "r"(smem(&inbox[t])), "r"(prev));
  asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(wa), "r"(v + rank) : "memory");
  // Generic mapa: read rank 0's s.
  uint64_t gp;
  asm volatile("mapa.u64 %0, %1, 0;" : "=l"(gp) : "l"((uint64_t)&s[255 - t]));
  uint32_t v0 = *(volatile uint32_t *)gp;
  // Cluster-scope atomics on rank 0's counters.
  uint32_t ca0, ca1;
  asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(ca0) : "r"(smem(&counter[0])));
  asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(ca1) : "r"(smem(&counter[1])));
  asm volatile("red.shared::cluster.add.u32 [%0], %1;" :: "r"(ca0), "r"(s[t] & 0xffff) : "memory");
  { uint32_t old; asm volatile("atom.shared::cluster.max.u32 %0, [%1], %2;" : "=r"(old) : "r"(ca1), "r"(s[t]) : "memory"); (void)old; }
  // Remote arrivals: ranks other than 0 arrive once (thread 0) on rank 0's
  // barrier, which expects nrank - 1 arrivals.
  if (t == 0 && rank != 0) {
    uint32_t rb;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(rb) : "r"(bar));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(rb) : "memory");
  }
  if (rank == 0) waitParity(bar, 0);
  clusterSync();
  if (t < 32) o[t] = inbox[t * 8 + (t & 7)];
  if (t == 0) {
    o[32] = rank; o[33] = nrank; o[34] = cid; o[35] = ncid; o[36] = ctaid;
    o[37] = nctaid; o[38] = expl; o[39] = counter[0]; o[40] = counter[1];
    o[41] = testWait(bar, 0);
  }
  if (t == 7) o[42] = v0;
  if (t == 200) o[43] = v0;
  clusterSync();
}

// %is_explicit_cluster (a predicate special register) in a cluster launch.
extern "C" __global__ void is_explicit_cluster(uint32_t *out) {
  uint32_t expl;
  asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(expl));
  out[blockIdx.x] = expl;
}

// wgmma: see docs/Differential.md, "Not covered yet". The wgmma kernels
// (every smem-descriptor swizzle, both majors, bf16 and fp8) belong in
// wgmma.cu and their cases in manifest.py's WGMMA section.
