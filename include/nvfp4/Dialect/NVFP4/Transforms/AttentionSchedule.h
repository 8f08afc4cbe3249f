//===- AttentionSchedule.h - the schedule of an attention kernel -*- C++ -*-===//
//
// What nvfp4-lower-attention decides before it builds a kernel: how query
// rows map to the MMA's M, the KV tile, the pipeline depth, the shared-memory
// and tensor-memory plans and the launch. docs/AttentionLowering.md gives the
// reasons for each choice.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_TRANSFORMS_ATTENTIONSCHEDULE_H
#define NVFP4_DIALECT_NVFP4_TRANSFORMS_ATTENTIONSCHEDULE_H

#include "nvfp4/Support/Ex2Poly.h"
#include "nvfp4/Support/KvCacheFormat.h"
#include "nvfp4/Support/SplitKvPlan.h"

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace nvfp4 {

class AttentionOp;

/// The shapes and options of one nvfp4.attention (docs/Attention.md).
struct AttentionProblemShape {
  int64_t batch = 0, seqQ = 0, seqKv = 0; ///< B, Sq, Skv
  int64_t headsQ = 0, headsKv = 0;        ///< Hq, Hkv
  int64_t headDim = 0, headDimV = 0;      ///< D, Dv
  mlir::Type element;                     ///< of Q, K, V: bf16 or f16
  mlir::Type outElement;                  ///< of O: bf16, f16 or f4E2M1FN
  /// O is NVFP4 (o_scale): e2m1 bytes [B, Sq, Hq, Dv / 2] and swizzled
  /// e4m3 scale factors [sfRows, sfCols] over rows = tokens (b * Sq +
  /// query) and columns = Hq * Dv / 16 (docs/NVFP4.md, "NVFP4 attention
  /// output").
  bool nvfp4Out = false;
  int64_t sfRows = 0, sfCols = 0;
  /// V's rows are the first Dv columns of K's rows: K and V are one value
  /// (Dv = D), or V is a tensor.extract_slice of K's leading head-dim
  /// columns (absorbed MLA: D = 576, Dv = 512).
  bool kvSame = false;
  bool hasSink = false, hasLens = false, causal = false;
  std::optional<int64_t> window;
  float softmaxScale = 1.0f;
  /// Paged KV (a block table): keys per page, pages in the cache and the
  /// block table's pages per sequence (Skv = maxPages x pageSize); 0 for a
  /// contiguous [B, Skv] cache.
  int64_t pageSize = 0, numPages = 0, maxPages = 0;
  bool paged() const { return pageSize != 0; }
  /// Sparse top-k (indices [B, Sq, TopK]): TopK (= Skv, the key axis is the
  /// index position), the cache's slots (NumPages x PageSize) and its page
  /// size (the kernel sees slots only); 0 for a dense or paged cache.
  int64_t topk = 0, slots = 0, slotPageSize = 0;
  bool sparse() const { return topk != 0; }
  /// A quantized cache (kv_cache): its layout and bytes per page (null for
  /// a bf16/f16 cache). Keys are dequantized to bf16 in shared memory.
  const KvCacheFormat *cache = nullptr;
  int64_t cachePageBytes = 0;
  /// A second key set (extra, the DeepSeek-V4 layer's compressed cache):
  /// its TopK2, cache slots, page size and bytes, and whether extra_lens is
  /// given. On the key axis the extra keys follow the main ones at
  /// extraOffset (TopK rounded up to 128, so that no tile holds both):
  /// Skv = extraOffset + TopK2, and a unit's length is extraOffset + L2.
  int64_t extraTopk = 0, extraSlots = 0, extraPageSize = 0,
          extraPageBytes = 0, extraOffset = 0;
  bool hasExtraLens = false;
  bool extra() const { return extraTopk != 0; }
  /// Whether 64-column box `box` of D holds e4m3 values (dequantized) or
  /// bf16 values (gathered as they are).
  bool quantBox(int64_t box) const {
    return cache && box * 64 < cache->quantDims;
  }
  /// The op's num_splits, when it has one.
  std::optional<int64_t> numSplits;
};

/// How the KV tiles of all units are divided among CTAs
/// (docs/AttentionLowering.md, "Work split").
enum class WorkSplit {
  /// One CTA (pair) per unit, all of its tiles: no partial results.
  Whole,
  /// Every unit's tiles in `splitsPerUnit` near-equal parts, one CTA (pair)
  /// each (num_splits(N) with N > 1); a second kernel merges the parts.
  Uniform,
  /// A balanced plan over `partitions` CTAs (pairs) per SM count
  /// (plan::balancedPlan); a second kernel merges units that were split.
  Balanced,
};

/// The architecture an attention kernel is built for: SM100 (tcgen05, TMEM;
/// docs/AttentionLowering.md) or Hopper, sm_90a (wgmma, accumulators in
/// registers; docs/Hopper.md).
enum class AttentionChip { SM100, SM90 };

/// The AttentionChip of an NVVM chip name: sm_90a is SM90, a chip of
/// compute capability 10.0 or newer (sm_100a, sm_103a, ...) SM100; anything
/// else is refused with a message (wgmma and setmaxnreg need sm_90a, not
/// sm_90; older chips have neither).
llvm::FailureOr<AttentionChip> parseAttentionChip(llvm::StringRef chip,
                                                  std::string &message);

/// The single-CTA schedule (docs/AttentionLowering.md, "The schedule").
struct AttentionSchedule {
  AttentionProblemShape problem;
  AttentionChip chip = AttentionChip::SM100;
  bool hopper() const { return chip == AttentionChip::SM90; }
  /// Threads of the CTA: kThreads on SM100; on sm_90a 128 per consumer
  /// warpgroup plus one producer warpgroup.
  int64_t threads = 256;
  /// sm_90a: consumer warpgroups, each owning 64 of the CTA's rows: one
  /// per 64 used rows (1 for a GQA decode whose rows fit 64, 3 for a D 64
  /// prefill's 192), or 2 sharing 64 rows under a Dv split.
  int64_t consumers = 0;
  /// sm_90a: the prologue zeroes the V tiles of every stage, for tiles
  /// that a piece loads only in part (docs/Hopper.md); false when every
  /// tile is loaded whole: static lengths that are a multiple of the tile,
  /// no causal mask or window, pieces on tile boundaries, dense or paged
  /// bf16 / f16 (docs/Hopper.md, "The cluster merge").
  bool zeroV = true;
  /// sm_90a: each consumer warpgroup computes the softmax of tile n while
  /// the tensor cores run P(n-1) V(n-1) (FlashAttention-3's intra-warpgroup
  /// overlap); off when O (64 x Dv f32, Dv / 2 registers a thread) leaves
  /// too few registers for S and P in flight beside it (Dv > 128).
  bool overlapSoftmax = false;
  /// sm_90a, two or three consumer warpgroups of 64 rows each: they take
  /// turns to issue their wgmma (named barriers), so that one's softmax
  /// runs while another's GEMMs hold the tensor cores (FlashAttention-3's
  /// ping-pong; with three, each softmax has two GEMMs' time).
  bool pingPong = false;
  /// sm_90a: of every 8 exponentials of P, how many are computed on the
  /// FMA and integer pipes (nvfp4/Support/Ex2Poly.h) rather than by the SFU's
  /// ex2.approx: the SFU does 16 a clock an SM, the FMA pipe 128, so with
  /// head dim 64 (as many exponentials as MMA clocks) moving a share off
  /// the SFU shortens the softmax (docs/Hopper.md, "Exponentials on the FMA
  /// pipe"). 0: all on the SFU.
  int64_t polyExp2 = 0;
  /// The p-shared option's default rule (chooseAttentionSchedule): P in
  /// registers, the measured choice until P through shared memory is timed
  /// (docs/Hopper.md, "P through shared memory").
  static constexpr int64_t kPSharedAuto = -1;
  /// sm_90a, overlapped consumers under the ping-pong: P V reads P from
  /// shared memory (an SS wgmma) rather than from registers. Each consumer
  /// warpgroup writes tile n's P into one of its two buffers (n mod 2)
  /// while P(n-1) V(n-1) reads the other, so no register of the softmax is
  /// an operand of a wgmma in flight (docs/Hopper.md, "P through shared
  /// memory"). The number of warpgroups with buffers (0: P in registers).
  int64_t pSharedGroups = 0;
  bool pShared() const { return pSharedGroups > 0; }
  /// Bytes of one P buffer: 64 rows x kvTile bf16 / f16, one
  /// 128-byte-swizzled box per 64 keys.
  int64_t pBufferBytes() const { return kWarpgroupRows * kvTile * 2; }
  /// sm_90a: rows of the wgmma M a consumer warpgroup owns.
  static constexpr int64_t kWarpgroupRows = 64;
  /// sm_90a: the most rows a CTA holds (three consumer warpgroups, with
  /// D and Dv <= 64).
  static constexpr int64_t kMaxHopperRows = 3 * kWarpgroupRows;

  // Hardware and tiling constants.
  static constexpr int64_t kRows = 128;     ///< MMA M: TMEM lanes
  static constexpr int64_t kBoxCols = 64;   ///< elements per 128-byte row
  static constexpr int64_t kBoxBytes = kRows * 128; ///< one 128 x 64 Q box
  static constexpr int64_t kMaxStages = 3;
  /// The largest head dim D the schedule holds (DeepSeek-V3's absorbed
  /// MLA: 512 latent + 64 RoPE columns).
  static constexpr int64_t kMaxHeadDim = 576;
  static constexpr int64_t kSmemBudget = 232448 - 2048; ///< 227 KiB - slack
  static constexpr int64_t kThreads = 256;  ///< SM100: 8 warps, two warpgroups

  /// Query heads per KV head (Hq / Hkv).
  int64_t group = 0;
  /// Query heads of one KV head a CTA holds: the whole group, or 64 when
  /// sm_90a's Dv split caps a CTA at 64 rows (DeepSeek's 128 heads: two
  /// head blocks).
  int64_t headsPerCta = 0;
  /// Head blocks per query block: group / headsPerCta.
  int64_t headBlocks = 1;
  /// Queries per CTA: the M rows hold `queriesPerCta` x `headsPerCta` rows
  /// (query-major, head fastest); rows beyond that are padding.
  int64_t queriesPerCta = 0;
  /// Row blocks per (sequence, KV head): ceil(Sq / queriesPerCta) query
  /// blocks x headBlocks; row block r holds queries from (r / headBlocks)
  /// x queriesPerCta and heads from (r mod headBlocks) x headsPerCta.
  int64_t rowBlocks = 0;
  /// Causal, Sq not a multiple of queriesPerCta: query block q holds the
  /// queries from q x queriesPerCta - queryShift (queryShift = the padding
  /// rows' count), so the partly filled block is the first, whose rows see
  /// the fewest keys, rather than the last, whose rows see them all
  /// (docs/AttentionLowering.md, "The partly filled row block"). Queries
  /// below 0 are padding rows, as those past Sq.
  int64_t queryShift = 0;
  /// sm_90a: consumer warpgroups that share each row, each computing O
  /// for Dv / dvGroups columns (FlashMLA's split of Dv: 2 for Dv > 256,
  /// whose 64 x Dv f32 O does not fit one warpgroup's registers). The
  /// first computes S and the softmax and hands P and the rescale factors
  /// to the other through shared memory (docs/Hopper.md).
  int64_t dvGroups = 1;
  int64_t dvPerGroup() const { return dvPerCta() / dvGroups; }
  /// sm_90a with dvGroups > 1: bytes of the hand-over buffer after the
  /// stages: P (64 rows x kvTile bf16, one 128-byte-swizzled box per 64
  /// keys), then alpha and the final m and l (64 f32 each).
  /// With pShared() instead: two P buffers a consumer warpgroup.
  int64_t handBytes() const {
    if (pShared())
      return pSharedGroups * 2 * pBufferBytes();
    return dvGroups > 1 ? kWarpgroupRows * kvTile * 2 + 3 * kWarpgroupRows * 4
                        : 0;
  }
  /// Bytes between Q's 64-column boxes in shared memory: a 128-row box on
  /// SM100, the 64-row box of a consumer warpgroup on sm_90a when the rows
  /// fit 64, a 192-row box with three consumer warpgroups.
  int64_t qBoxStride() const {
    if (hopper() && usedRows() <= kWarpgroupRows)
      return kWarpgroupRows * 128;
    if (hopper() && usedRows() > kRows)
      return kMaxHopperRows * 128;
    return kBoxBytes;
  }
  /// K/V stages of the TMA ring.
  int64_t stages = 0;
  /// Keys per KV tile (the N of S = Q K^T): 128, or 64 when a 128-key tile
  /// does not fit beside Q (head dim 512).
  int64_t kvTile = 128;
  /// CTAs that share one row block, each computing O for Dv / dvSplit
  /// columns (2 for Dv = 512: O would not fit one CTA's TMEM).
  int64_t dvSplit = 1;
  int64_t dvPerCta() const { return problem.headDimV / dvSplit; }
  /// With a Dv split: the pair also splits D, each CTA computing the part
  /// of S = Q K^T over its D / 2 columns, and the two partial S tiles are
  /// added through distributed shared memory (no Q K^T MMA is done twice).
  /// Needs D / 2 to be a multiple of 64 (whole TMA boxes).
  bool exchangeS = false;
  /// The 64-column boxes of D (Q and K columns 64 i ..) CTA j of the pair
  /// holds: with exchangeS its share (CTA 0 may hold one more, or the
  /// columns beyond Dv when V is a prefix of K), else all of them.
  llvm::SmallVector<int64_t> dBoxes[2];
  /// Columns of D the CTA with the most boxes holds (what shared memory
  /// and the S MMAs are sized for).
  int64_t dPerCta() const {
    return 64 * int64_t(std::max(dBoxes[0].size(), dBoxes[1].size()));
  }
  /// The partial S is exchanged in this many rounds of kvTile / xRounds
  /// columns each (2 when halving the buffer buys another K/V stage).
  int64_t xRounds = 1;
  /// Bytes of the exchange buffer after the stages: the partial S the
  /// peer reads (128 rows x kvTile / xRounds f32), or sm_90a's hand-over
  /// between the warpgroups of a Dv split (handBytes).
  int64_t xBytes() const {
    return exchangeS ? 128 * kvTile * 4 / xRounds : handBytes();
  }
  /// Bytes of one 64-column K or V box of a KV tile.
  int64_t kvBoxBytes() const { return kvTile * 128; }
  /// Keys per chunk of a partly visible KV tile: a tile whose visible keys
  /// do not fill it (the last, or the first under a window) is loaded in
  /// chunks of this many keys, only those holding a visible key, and
  /// O += P V runs over those chunks only (one K = 16 MMA each).
  static constexpr int64_t kChunkKeys = 16;
  int64_t chunksPerTile() const { return kvTile / kChunkKeys; }
  /// Bytes of K and V one chunk brings into a stage.
  int64_t chunkTxBytes() const { return stageTxBytes() / chunksPerTile(); }

  // Shared memory, in bytes from the 1024-aligned base.
  int64_t qBytes = 0;      ///< Q tile: D / 64 boxes
  int64_t kBytes = 0;      ///< one stage's K tile
  int64_t vBytes = 0;      ///< one stage's V columns of this CTA (0 when
                           ///< K and V are one)
  int64_t dynamicSmem = 0; ///< what the launch asks for (incl. alignment)
  /// Sparse: per stage, one bit per key of the tile (the key's index is
  /// not -1 and its position below the top-k length), read by the softmax,
  /// then the tile's slots (i32, -1 for no key), read by the loader's
  /// gathers and the dequant role: written by the loader before it arms
  /// the stage, so the indices are read from global memory once per CTA;
  /// after the partial-S buffer.
  int64_t maskBytesPerStage() const {
    // (sm_90a: the mask only; its gather lanes hold their slots.)
    return problem.sparse() ? kvTile / 8 + (hopper() ? 0 : kvTile * 4) : 0;
  }
  /// sm_90a, a quantized sparse cache whose stages leave room: each of
  /// the four gather warps copies the e4m3 bytes of its keys' next box
  /// with cp.async into a buffer of its own (two of 32 keys x 80 bytes)
  /// while it converts the current one from the other, so that a box's
  /// load latency hides behind the previous box's conversions instead of
  /// being waited for in registers (docs/Hopper.md, "The cluster pair,
  /// the profile and the copies"). After the key masks.
  bool gatherStaging = false;
  /// A lane's 64 bytes every 80 (conflict-free 16-byte reads).
  static constexpr int64_t kStagingRowBytes = 80;
  static constexpr int64_t kStagingBufferBytes = 32 * kStagingRowBytes;
  /// Two buffers for each of the four gather warps.
  static constexpr int64_t kStagingBytes = 4 * 2 * kStagingBufferBytes;
  int64_t stagingBytes() const { return gatherStaging ? kStagingBytes : 0; }

  // Tensor memory columns. S has sBuffers buffers of kvTile columns from
  // tmemS; P (kvTile keys as 16-bit pairs, kvTile / 2 columns) is written
  // over the first half of its tile's S buffer (tmemP == tmemS).
  int64_t tmemS = 0, tmemO = 0, tmemP = 0, tmemColumns = 0;
  /// S buffers: 2 lets the MMA warp compute the next tile's S while the
  /// softmax works on this one (needs two K/V stages), else 1.
  int64_t sBuffers = 1;

  // The work split (docs/AttentionLowering.md, "Work split"). A unit is one
  // (sequence, KV head, row block): u = (b * Hkv + h) * rowBlocks + r, or
  // head block first whenever headBlocks > 1 (plan::unitOrder).
  WorkSplit split = WorkSplit::Whole;
  int64_t units = 0;
  /// CTAs (pairs, with a Dv split) of the main kernel's grid.
  int64_t partitions = 0;
  /// Uniform: parts per unit.
  int64_t splitsPerUnit = 1;
  /// Balanced: the cost of a piece beyond its blocks, in blocks (capped
  /// by plan::effectiveOverhead).
  int64_t overheadBlocks = 1;
  /// The SM count the plan is for.
  int64_t numSms = 148;
  /// Balanced: the fewest keys a partition's share holds, in either
  /// granule (plan::minPieceSlots; nvfp4-lower-attention's
  /// min-piece-keys).
  int64_t minPieceKeys = plan::kDefaultMinPieceKeys;
  /// Balanced without kv_lens: the plan, computed at compile time
  /// (lengths are static); otherwise the kernel computes it from kv_lens.
  std::optional<plan::BalancedPlan> staticPlan;
  /// With a static plan: the units it splits (plan::splitUnits), the only
  /// ones the combine kernel visits.
  std::vector<int64_t> staticSplitUnits;
  /// With a static plan of whole units in an order of its own
  /// (plan::localOrder: units that share keys run at the same time): plan
  /// position u is unit unitOrder[u]; empty for the plain order.
  std::vector<int64_t> unitOrder;
  /// Balanced with head blocks (sm_90a's Dv split with more than 64 query
  /// heads a KV head): the plan of head block 0's units over partitions /
  /// headBlocks partitions, repeated for every head block
  /// (plan::mirroredPlan), so that the CTAs reading the same keys run
  /// side by side; 1 otherwise, or when the partitions do not divide.
  int64_t planCopies() const {
    return split == WorkSplit::Balanced && headBlocks > 1 &&
                   partitions % headBlocks == 0
               ? headBlocks
               : 1;
  }
  /// The working set plan::localOrder aims for: the keys and values of the
  /// sequence-heads one group holds (half of an H100's 50 MiB L2).
  static constexpr int64_t kLocalOrderBytes = int64_t(24) << 20;
  /// The most units a unit-order table lists (256 KiB of i32 in the
  /// cubin); larger problems keep the balanced plan.
  static constexpr int64_t kMaxOrderedUnits = 65536;
  /// sm_90a, a plan made at compile time whose units all have the same
  /// tiles (docs/Hopper.md, "The cluster merge"): every unit is split into
  /// clusterMerge pieces (Uniform), one per CTA of a cluster of that many,
  /// which merge their partial results through distributed shared memory:
  /// no workspace, no combine kernel. 0: a combine kernel merges.
  int64_t clusterMerge = 0;
  /// The cluster merge is chosen only while a piece's K/V bytes stay at
  /// most this (a B = 1 GQA decode at 8K keys: 512 KiB, measured faster
  /// than the combine); longer pieces keep the balanced plan over every
  /// SM (at 64K keys, 4 MiB pieces on 64 CTAs would leave half the SMs
  /// idle).
  static constexpr int64_t kClusterMergePieceBytes = int64_t(512) << 10;
  /// ... and while a CTA's share of the merge, the unit's used rows x Dv
  /// in f32, stays at most this: 8 x 128 (4 KiB, GQA) was faster than the
  /// combine on an H100, 64 x 512 (128 KiB, MLA) slower, as the combine
  /// spreads those rows over many SMs; 48 KiB lets D 64's 192 rows and
  /// MLA with up to 24 heads in, neither measured.
  static constexpr int64_t kClusterMergeRowBytes = int64_t(48) << 10;
  /// The cluster merge's buffer in the K/V stages: each used row's
  /// normalised O in f32 (rows Dv + 4 floats apart: consecutive rows 16
  /// bytes apart in the banks), then each row's base-2 LSE.
  int64_t mergeRowFloats() const { return problem.headDimV + 4; }
  int64_t mergeBytes() const { return usedRows() * (mergeRowFloats() + 1) * 4; }
  /// CTAs of a cluster: the Dv split's pair, or the cluster merge's pieces.
  int64_t clusterCtas() const {
    return dvSplit > 1 ? dvSplit : std::max<int64_t>(1, clusterMerge);
  }
  bool splitKv() const { return split != WorkSplit::Whole && !clusterMerge; }
  /// Partial results the workspace holds: Balanced 2 per partition (a
  /// partition's first and last unit may both be split), Uniform 1.
  int64_t workspaceSlots() const {
    return split == WorkSplit::Balanced ? 2 * partitions : partitions;
  }
  /// Keys of one block, the finer granule of the balanced work split:
  /// pieces start and end at tile boundaries, or at block boundaries (64
  /// keys, FlashMLA's block) when that fills the SMs better
  /// (plan::preferFineGranule); a tile split between two pieces is
  /// multiplied (Q K^T) by both, each loading only its keys. Equal to
  /// kvTile for 64-key tiles.
  int64_t planKeys = 64;
  /// Balanced: the overhead in tiles (the coarse granule).
  int64_t overheadTiles = 1;
  /// Balanced without kv_lens: the granule the static plan chose.
  int64_t staticPlanKeys = 0;
  /// Keys one TMA box of a whole tile brings (a page holds fewer keys than
  /// a tile with 16- and 64-key pages).
  int64_t boxKeys = 128;

  // Register budgets per role (setmaxnreg) and the kernel's cap.
  int64_t maxRegs = 232, softmaxRegs = 232, otherRegs = 160;
  /// sm_90a with a Dv split: warpgroup 1's budget (it holds O's half and
  /// no S; warpgroup 0 takes softmaxRegs).
  int64_t dvGroupRegs = 0;

  /// Rows of the Q box: headsPerCta x queriesPerCta.
  int64_t usedRows() const { return headsPerCta * queriesPerCta; }
  /// Bytes one Q box transfers (what its TMA load counts).
  int64_t qBoxBytes() const { return usedRows() * 128; }
  /// Bytes of K and V one stage receives.
  int64_t stageTxBytes() const { return kBytes + vBytes; }
  int64_t stageBytes() const { return kBytes + vBytes + rawBytes; }
  /// A quantized cache: the raw e4m3 bytes of one stage, after its K tile:
  /// rawBoxes boxes of kvTile rows x 64 bytes (box i of the CTA's D boxes
  /// at i; rawBoxes covers every CTA's last e4m3 box).
  int64_t rawBoxes = 0, rawBytes = 0;
  bool quantBox(int64_t box) const { return problem.quantBox(box); }
  /// Threads (warps 6 and 7) that dequantize a stage's raw bytes.
  static constexpr int64_t kDequantThreads = 64;
  /// tcgen05.mma instructions per KV tile and CTA: S = Q K^T (D / 16) and
  /// O += P V (one N = dvPerCta MMA per K slice).
  int64_t mmasPerTile() const {
    return dPerCta() / 16 + kvTile / 16;
  }
};

/// Chooses the schedule for `op` on a device with `numSms` SMs, or reports
/// at the op why no schedule supports it (and fails). `minPieceKeys`: the
/// balanced plan's shortest share (AttentionSchedule::minPieceKeys);
/// `polyExp2`: AttentionSchedule::polyExp2 on sm_90a, or kPolyExp2Auto
/// (nvfp4/Support/Ex2Poly.h) for the default rule; `clusterMerge`: the
/// most pieces a cluster merges on sm_90a (AttentionSchedule::clusterMerge;
/// 0 or 1: never); `pShared`: P through shared memory on sm_90a where it
/// applies (AttentionSchedule::pSharedGroups; 1 on, 0 off, kPSharedAuto the
/// default rule).
mlir::FailureOr<AttentionSchedule>
chooseAttentionSchedule(AttentionOp op, int64_t numSms,
                        AttentionChip chip = AttentionChip::SM100,
                        int64_t minPieceKeys = plan::kDefaultMinPieceKeys,
                        int64_t polyExp2 = kPolyExp2Auto,
                        int64_t clusterMerge = plan::kMaxClusterMerge,
                        int64_t pShared = AttentionSchedule::kPSharedAuto);

} // namespace nvfp4

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_ATTENTIONSCHEDULE_H
