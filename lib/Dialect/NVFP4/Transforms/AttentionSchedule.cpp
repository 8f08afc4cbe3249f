//===- AttentionSchedule.cpp - choose an attention kernel's schedule ------===//
//
// docs/AttentionLowering.md explains each choice; every constraint that no
// schedule meets is a diagnostic at the op that names it.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/AttentionSchedule.h"

#include "nvfp4/Support/Nvfp4Format.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <tuple>

using namespace mlir;
using namespace nvfp4;

namespace {

/// V's rows are the first Dv columns of K's rows: the same value, or
/// tensor.extract_slice %k[0, 0, 0, 0] [B, Skv, Hkv, Dv] [1, 1, 1, 1]
/// (no copy: the kernel reads V from K's tiles).
bool vIsPrefixOfK(AttentionOp op) {
  if (op.getK() == op.getV())
    return true;
  auto slice = op.getV().getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || slice.getSource() != op.getK())
    return false;
  auto src = cast<RankedTensorType>(op.getK().getType());
  auto dst = cast<RankedTensorType>(op.getV().getType());
  if (slice.getResultType().getRank() != 4 ||
      !llvm::all_of(slice.getStaticOffsets(),
                    [](int64_t o) { return o == 0; }) ||
      !llvm::all_of(slice.getStaticStrides(),
                    [](int64_t s) { return s == 1; }))
    return false;
  for (int64_t d = 0; d < 3; ++d)
    if (slice.getStaticSizes()[d] != src.getDimSize(d) ||
        ShapedType::isDynamic(src.getDimSize(d)))
      return false;
  return slice.getStaticSizes()[3] == dst.getDimSize(3);
}

int64_t nextPowerOfTwo(int64_t v) {
  int64_t p = 32;
  while (p < v)
    p *= 2;
  return p;
}

} // namespace

FailureOr<AttentionChip> nvfp4::parseAttentionChip(StringRef chip,
                                                   std::string &message) {
  if (chip == "sm_90a")
    return AttentionChip::SM90;
  StringRef digits = chip;
  unsigned cc = 0;
  if (digits.consume_front("sm_")) {
    digits = digits.take_while([](char c) { return c >= '0' && c <= '9'; });
    if (!digits.getAsInteger(10, cc) && cc >= 100)
      return AttentionChip::SM100;
  }
  message = "expected chip sm_90a (Hopper: wgmma) or a chip of compute "
            "capability 10.0 or newer such as sm_100a (tcgen05), got '" +
            chip.str() + "'";
  if (chip == "sm_90")
    message += " (wgmma and setmaxnreg need the architecture-specific "
               "sm_90a)";
  return failure();
}

namespace {
/// The pieces a unit is cut into for the cluster merge
/// (AttentionSchedule::clusterMerge; docs/Hopper.md, "The cluster merge"),
/// or none: sm_90a, a balanced plan made at compile time that splits
/// units, or one sequence with kv_lens (its units alike at any length),
/// every unit `unitTiles` tiles (T; for Skv keys with kv_lens), no Dv
/// split across CTAs, a dense or paged bf16 / f16 cache, an O in bf16 /
/// f16. N = min(most, SMs / (2 units), T) >= 2: pieces of a tile or more,
/// min-piece-keys being the combine's floor, not this merge's (one-tile
/// pieces measured 1.16x faster than two-tile ones at B 1 KV 1K,
/// docs/Hopper.md "Fewer pieces a unit"); what an H100 measured faster
/// than the combine (docs/Hopper.md "The cluster merge"): the N x units
/// CTAs on at most half of the SMs, each
/// piece's K/V at most kClusterMergePieceBytes, each CTA's share of the
/// merge (used rows x Dv in f32) at most kClusterMergeRowBytes; and the
/// merge buffer within the K/V stages.
std::optional<int64_t> clusterMergePieces(const AttentionSchedule &s,
                                          ArrayRef<int64_t> unitTiles,
                                          int64_t most) {
  const AttentionProblemShape &p = s.problem;
  // A static plan that splits no unit needs no merge.
  if (!s.hopper() || most < 2 || s.split != WorkSplit::Balanced ||
      (s.staticPlan && s.staticSplitUnits.empty()) || unitTiles.empty() ||
      s.dvSplit != 1 || p.sparse() || p.cache || p.nvfp4Out)
    return std::nullopt;
  const int64_t tiles = unitTiles.front();
  if (llvm::any_of(unitTiles, [&](int64_t t) { return t != tiles; }))
    return std::nullopt;
  // At most half of the SMs: fewer pieces a unit where more units would
  // not fit (B = 2 GQA decodes: 4 pieces, not none).
  int64_t n = std::min({std::min(most, plan::kMaxClusterMerge),
                        s.numSms / (2 * s.units), tiles});
  if (n < 2)
    return std::nullopt;
  const int64_t keyBytes = (p.headDim + (p.kvSame ? 0 : p.headDimV)) *
                           (p.element.getIntOrFloatBitWidth() / 8);
  if (llvm::divideCeil(tiles, n) * s.kvTile * keyBytes >
          AttentionSchedule::kClusterMergePieceBytes ||
      s.usedRows() * p.headDimV * 4 >
          AttentionSchedule::kClusterMergeRowBytes ||
      s.mergeBytes() > s.stages * s.stageBytes())
    return std::nullopt;
  return n;
}
} // namespace

FailureOr<AttentionSchedule> nvfp4::chooseAttentionSchedule(
    AttentionOp op, int64_t numSms, AttentionChip chip, int64_t minPieceKeys,
    int64_t polyExp2, int64_t clusterMerge, int64_t pShared) {
  auto q = cast<RankedTensorType>(op.getQ().getType());
  auto k = cast<RankedTensorType>(op.getK().getType());
  auto v = cast<RankedTensorType>(op.getV().getType());
  auto o = cast<RankedTensorType>(op.getO().getType());

  RankedTensorType table, indices;
  if (Value t = op.getBlockTable())
    table = cast<RankedTensorType>(t.getType());
  if (Value t = op.getIndices())
    indices = cast<RankedTensorType>(t.getType());
  SmallVector<std::pair<const char *, RankedTensorType>> all = {
      {"q", q}, {"k", k}, {"v", v}, {"o", o}};
  if (table)
    all.push_back({"block_table", table});
  if (indices)
    all.push_back({"indices", indices});
  for (auto [name, t] : all)
    if (!t.hasStaticShape())
      return op.emitOpError("cannot be lowered yet: expected static shapes, "
                            "got ")
             << name << " : " << t
             << " (dynamic B, Sq and Skv are not supported by the lowering)";

  AttentionSchedule s;
  AttentionProblemShape &p = s.problem;
  p.batch = q.getDimSize(0);
  p.seqQ = q.getDimSize(1);
  p.headsQ = q.getDimSize(2);
  p.headDim = q.getDimSize(3);
  KvCacheAttr cache = op.getKvCacheAttr();
  p.seqKv = cache ? 1 : k.getDimSize(1);
  if (table) {
    p.pageSize = k.getDimSize(1);
    p.numPages = k.getDimSize(0);
    p.maxPages = table.getDimSize(1);
    p.seqKv = p.maxPages * p.pageSize;
  }
  if (indices) {
    p.topk = indices.getDimSize(2);
    p.slotPageSize = cache ? cache.getPageSize() : k.getDimSize(1);
    p.slots = k.getDimSize(0) * p.slotPageSize;
    p.seqKv = p.topk;
  }
  if (cache) {
    p.cache = cache.getLayout();
    p.cachePageBytes = k.getDimSize(1);
  }
  if (Value kv2 = op.getExtraK()) {
    auto t2 = cast<RankedTensorType>(kv2.getType());
    auto i2 = cast<RankedTensorType>(op.getExtraIndices().getType());
    if (!t2.hasStaticShape() || !i2.hasStaticShape())
      return op.emitOpError("cannot be lowered yet: expected static shapes "
                            "for extra's cache and indices");
    KvCacheAttr cache2 = op.getExtraKvCacheAttr();
    p.extraTopk = i2.getDimSize(2);
    p.extraPageSize = cache2.getPageSize();
    p.extraSlots = t2.getDimSize(0) * p.extraPageSize;
    p.extraPageBytes = t2.getDimSize(1);
    p.hasExtraLens = static_cast<bool>(op.getExtraLens());
    p.extraOffset = (p.topk + 127) / 128 * 128;
    p.seqKv = p.extraOffset + p.extraTopk;
    if (p.extraSlots < 1 || p.extraTopk < 1)
      return op.emitOpError("cannot be lowered: expected extra's cache and "
                            "index rows to be non-empty");
  }
  p.headsKv = cache ? 1 : k.getDimSize(2);
  p.headDimV = cache ? o.getDimSize(3) : v.getDimSize(3);
  p.element = q.getElementType();
  p.outElement = o.getElementType();
  if (op.getOScale()) {
    p.nvfp4Out = true;
    p.sfRows = fp4::sfRows(fp4::SfLayout::Swizzled, p.batch * p.seqQ);
    p.sfCols = fp4::sfCols(fp4::SfLayout::Swizzled, p.headsQ * p.headDimV);
  }
  p.kvSame = vIsPrefixOfK(op);
  p.hasSink = static_cast<bool>(op.getSink());
  p.hasLens = static_cast<bool>(op.getKvLens());
  p.causal = op.getCausal();
  if (std::optional<uint64_t> w = op.getWindow())
    p.window = int64_t(*w);
  p.softmaxScale = op.getSoftmaxScale().convertToFloat();
  if (std::optional<uint64_t> n = op.getNumSplits())
    p.numSplits = int64_t(*n);

  if (p.batch < 1 || p.seqQ < 1 || p.seqKv < 1)
    return op.emitOpError("cannot be lowered: expected B, Sq and Skv >= 1, "
                          "got B = ")
           << p.batch << ", Sq = " << p.seqQ << ", Skv = " << p.seqKv;
  if (indices && p.slots < 1)
    return op.emitOpError("cannot be lowered: expected at least one slot in "
                          "the cache, got K : ")
           << k;
  if (p.paged() && p.numPages < 1)
    return op.emitOpError("cannot be lowered: expected at least one page in "
                          "the cache, got ")
           << p.numPages;

  // Head dims: whole 64-column (128-byte) TMA boxes; O (Dv f32 TMEM
  // columns) fits one CTA up to 256 and a CTA pair (each half a whole
  // number of boxes) up to 512; D up to 576, DeepSeek-V3's absorbed MLA.
  if (p.headDim % 64 != 0 || p.headDim > AttentionSchedule::kMaxHeadDim)
    return op.emitOpError("cannot be lowered: expected Q's head dim D to be "
                          "a multiple of 64 and at most ")
           << AttentionSchedule::kMaxHeadDim << ", got " << p.headDim;
  if (p.headDimV % 64 != 0 || p.headDimV > 512 ||
      (p.headDimV > 256 && p.headDimV % 128 != 0))
    return op.emitOpError("cannot be lowered: expected V's head dim Dv to be "
                          "a multiple of 64 up to 256, or 384 or 512 (split "
                          "over two CTAs), got ")
           << p.headDimV;

  // sm_90a (docs/Hopper.md): dense and paged bf16/f16 caches with D and
  // Dv up to 256 so far; what needs SM100 is refused by name.
  s.chip = chip;
  if (s.hopper()) {
    if (p.nvfp4Out)
      return op.emitOpError("cannot be lowered for sm_90a: an NVFP4 O "
                            "(o_scale) needs sm_100a's e2m1 conversion "
                            "(cvt.rn.satfinite.e2m1x2.f32)");
    // Dv > 256: two consumer warpgroups share 64 rows, each with half of
    // O (FlashMLA's split).
    if (p.headDimV > 256)
      s.dvGroups = 2;
  }

  s.group = p.headsQ / p.headsKv;
  if (s.group > AttentionSchedule::kRows)
    return op.emitOpError("cannot be lowered yet: expected at most ")
           << AttentionSchedule::kRows
           << " query heads per KV head (the MMA's M), got Hq / Hkv = "
           << s.group;
  // A CTA's rows: 128 (the MMA's M on SM100, two consumer warpgroups on
  // sm_90a), or 64 under sm_90a's Dv split, where a larger group is cut
  // into head blocks of 64.
  int64_t rowCap = s.dvGroups > 1 ? AttentionSchedule::kWarpgroupRows
                                  : AttentionSchedule::kRows;
  // sm_90a, D and Dv <= 64 (FlashAttention-3's D 64 tile): up to 192 rows,
  // three consumer warpgroups, so that each warpgroup's softmax has two
  // other warpgroups' GEMMs to hide behind (docs/Hopper.md, "D 64 with
  // three consumer warpgroups"). Not with more than 4 of every 8
  // exponentials on the FMA pipe: at 8 the polynomial's registers made
  // ptxas spill at the consumers' 160 (prefill_causal_window_lens).
  if (s.hopper() && s.dvGroups == 1 && p.headDim <= 64 && p.headDimV <= 64 &&
      !p.sparse() && !p.cache && polyExp2 <= 4)
    rowCap = AttentionSchedule::kMaxHopperRows;
  s.headsPerCta = std::min(s.group, rowCap);
  if (s.group % s.headsPerCta != 0)
    return op.emitOpError("cannot be lowered for sm_90a yet: with Dv > 256 "
                          "a CTA holds 64 rows, so the query heads per KV "
                          "head must be at most 64 or a multiple of 64, got "
                          "Hq / Hkv = ")
           << s.group;
  s.headBlocks = s.group / s.headsPerCta;
  // Sparse: each query has its own index row, so a CTA's rows are the
  // heads of one query (rows past G are padding).
  s.queriesPerCta =
      p.sparse()
          ? 1
          : std::max<int64_t>(1, std::min(rowCap / s.headsPerCta, p.seqQ));
  s.rowBlocks = (p.seqQ + s.queriesPerCta - 1) / s.queriesPerCta * s.headBlocks;
  // Causal: the padding rows in the first query block, which sees the
  // fewest keys (queryShift).
  s.queryShift =
      p.causal && !p.sparse()
          ? (s.queriesPerCta - p.seqQ % s.queriesPerCta) % s.queriesPerCta
          : 0;
  // TMA: a box dimension is at most 256 elements.
  if (s.queriesPerCta > 256)
    return op.emitOpError("internal error: a Q box of ")
           << s.queriesPerCta << " queries";
  // Kernel-side offsets are 32-bit where the tensor maps take coordinates
  // (and the plan counts units and tiles in i32).
  int64_t kvRows = p.cache     ? k.getDimSize(0) * p.cachePageBytes /
                                     p.cache->rowBytes
                   : p.sparse() ? p.slots * p.headsKv
                   : p.paged() ? p.numPages * p.pageSize
                               : p.batch * p.seqKv;
  if (kvRows > INT32_MAX || p.batch * p.seqQ > INT32_MAX)
    return op.emitOpError("cannot be lowered: the K/V rows (")
           << kvRows << ") and B x Sq (" << p.batch * p.seqQ
           << ") must fit in 32 bits (TMA coordinates)";

  // Dv > 256: O (Dv f32 columns) does not fit beside S in one CTA's TMEM,
  // so two CTAs share the row block, each computing O for half of Dv.
  // (sm_90a splits Dv across warpgroups instead: dvGroups.)
  s.dvSplit = p.headDimV > 256 && !s.hopper() ? 2 : 1;
  // ... and D too when each gets at least one box: the partial S tiles are
  // added through distributed shared memory instead of both CTAs computing
  // all of Q K^T. When V is K's prefix, CTA j's boxes are its V columns
  // (so it loads them once, for S and for O) and the columns beyond Dv go
  // to CTA 0; otherwise CTA 0 takes the larger half.
  const int64_t nb = p.headDim / 64;
  s.exchangeS = s.dvSplit == 2 && nb >= 2;
  for (int64_t j = 0; j < 2; ++j)
    s.dBoxes[j].clear();
  if (!s.exchangeS) {
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t i = 0; i < nb; ++i)
        s.dBoxes[j].push_back(i);
  } else if (p.kvSame) {
    const int64_t vb = p.headDimV / 2 / 64;
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t i = 0; i < vb; ++i)
        s.dBoxes[j].push_back(j * vb + i);
    for (int64_t i = 2 * vb; i < nb; ++i)
      s.dBoxes[0].push_back(i);
  } else {
    const int64_t half = (nb + 1) / 2;
    for (int64_t i = 0; i < nb; ++i)
      s.dBoxes[i < half ? 0 : 1].push_back(i);
  }
  // sm_90a, P through shared memory when asked (the default rule keeps it
  // in registers): two buffers a consumer warpgroup after the stages
  // (pSharedGroups), where the consumers overlap the softmax and take
  // turns (Dv <= 128, two or three consumer warpgroups of one Dv group;
  // docs/Hopper.md, "P through shared memory").
  s.pSharedGroups = 0;
  if (s.hopper() && s.dvGroups == 1 && p.headDimV <= 128 && pShared == 1) {
    const int64_t groups =
        (s.usedRows() + AttentionSchedule::kWarpgroupRows - 1) /
        AttentionSchedule::kWarpgroupRows;
    if (groups >= 2)
      s.pSharedGroups = groups;
  }
  // Shared memory: Q once, then `stages` K/V tiles (for this CTA's V
  // columns); a 64-key tile when a 128-key one does not fit beside Q.
  constexpr int64_t cols = AttentionSchedule::kBoxCols;
  s.qBytes = (s.dPerCta() / cols) * s.qBoxStride();
  // A quantized cache: the e4m3 boxes' raw bytes beside each stage's K
  // tile (the CTA's box i at raw box i).
  // (None on sm_90a, whose gather role dequantizes in registers.)
  int64_t rawBoxes = 0;
  if (p.cache && !s.hopper())
    for (int64_t j = 0; j < 2; ++j)
      for (size_t i = 0; i < s.dBoxes[j].size(); ++i)
        if (s.quantBox(s.dBoxes[j][i]))
          rawBoxes = std::max<int64_t>(rawBoxes, int64_t(i) + 1);
  auto sizeFor = [&](int64_t tile, int64_t rounds) {
    s.kvTile = tile;
    s.xRounds = rounds;
    s.rawBoxes = rawBoxes;
    s.rawBytes = rawBoxes * tile * 64;
    s.kBytes = (s.dPerCta() / cols) * s.kvBoxBytes();
    // With K = V and both D and Dv split, the CTA's V columns are its K
    // columns.
    bool vInK = p.kvSame && (s.dvSplit == 1 || s.exchangeS);
    s.vBytes = vInK ? 0 : (s.dvPerCta() / cols) * s.kvBoxBytes();
    return (AttentionSchedule::kSmemBudget - s.qBytes - s.xBytes() -
            AttentionSchedule::kMaxStages * s.maskBytesPerStage()) /
           s.stageBytes();
  };
  // Candidates, best first: 128-key tiles (fewer, wider S MMAs) before 64,
  // the partial S exchanged in one round before two (half the buffer, twice
  // the cluster round trips). The first that fits two stages wins (a single
  // stage cannot overlap the next tile's load with this tile's MMAs), else
  // the first that fits one.
  SmallVector<std::pair<int64_t, int64_t>> candidates = {{128, 1}, {64, 1}};
  // sm_90a: S (64 x tile f32) and O (64 x Dv f32) are registers of each
  // consumer thread, tile / 2 + Dv / 2 of them: 128-key tiles up to D and
  // Dv 128, 64-key tiles beyond (docs/Hopper.md).
  if (s.hopper())
    candidates = {
        {p.headDim <= 128 && p.headDimV <= 128 ? 128 : 64, 1}};
  if (s.exchangeS)
    candidates = {{128, 1}, {128, 2}, {64, 1}, {64, 2}};
  auto pick = [&] {
    std::optional<std::pair<int64_t, int64_t>> one;
    int64_t fit = 0;
    for (auto [tile, rounds] : candidates) {
      int64_t n = sizeFor(tile, rounds);
      if (n >= 2) {
        fit = n;
        one.reset();
        break;
      }
      if (n == 1 && !one)
        one = std::make_pair(tile, rounds);
    }
    if (one)
      fit = sizeFor(one->first, one->second);
    return fit;
  };
  int64_t fit = pick();
  // P's buffers never cost the second stage: without room for both, P
  // stays in registers.
  if (s.pShared() && fit < 2) {
    s.pSharedGroups = 0;
    fit = pick();
  }
  s.stages = std::min(AttentionSchedule::kMaxStages, fit);
  if (s.stages < 1)
    return op.emitOpError("cannot be lowered: Q (")
           << s.qBytes << " bytes) and one K/V stage of 64 keys ("
           << s.stageBytes() << " bytes) exceed the shared-memory budget of "
           << AttentionSchedule::kSmemBudget << " bytes";
  // sm_90a: one stage cannot overlap a tile's load with the previous
  // tile's wgmma, and ptxas spills the consumers of such kernels (their K
  // and V addresses are loop-invariant); refused rather than built slow.
  if (s.hopper() && s.stages < 2)
    return op.emitOpError("cannot be lowered for sm_90a: Q (")
           << s.qBytes << " bytes), two K/V stages of " << s.kvTile << " keys ("
           << s.stageBytes() << " bytes each) and "
           << s.xBytes() + 2 * s.maskBytesPerStage()
           << " bytes of hand-over and key masks exceed the shared-memory "
              "budget of "
           << AttentionSchedule::kSmemBudget << " bytes"
           << (p.kvSame ? ""
                        : " (with D > 256, make V a prefix of K as MLA does)");
  s.dynamicSmem = 1024 + s.qBytes + s.stages * s.stageBytes() + s.xBytes() +
                  s.stages * s.maskBytesPerStage();
  // sm_90a, a quantized sparse cache: the gather warps' copy buffers when
  // they fit beside the stages (DeepSeek-V4's D 512; not V3.2's D 576),
  // with one key set (the V4 layers' two box loops then spilled 96-120
  // bytes of the gather's 56 registers).
  s.gatherStaging = s.hopper() && p.sparse() && p.cache && !p.extra() &&
                    s.dynamicSmem + AttentionSchedule::kStagingBytes <=
                        AttentionSchedule::kSmemBudget + 1024;
  s.dynamicSmem += s.stagingBytes();

  // Tensor memory: S (kvTile f32 columns per buffer; P written over the
  // first half of its buffer), then O (this CTA's Dv columns), allocated
  // as one power of two. Two S buffers whenever two K/V stages let the MMA
  // warp run a tile ahead (they always fit: 2 x 128 + 256 = 512).
  s.sBuffers = s.stages >= 2 ? 2 : 1;
  s.tmemS = 0;
  s.tmemP = s.tmemS;
  s.tmemO = s.sBuffers * s.kvTile;
  s.tmemColumns = nextPowerOfTwo(s.tmemO + s.dvPerCta());
  if (s.hopper()) {
    // No TMEM. Consumer warpgroups of 64 rows each (one when the rows fit
    // 64, three for 192 rows), or two sharing 64 rows with a Dv split,
    // then the producer warpgroup; setmaxnreg moves the producer's
    // registers to the consumers (FlashAttention-3's 24 / 240).
    s.sBuffers = 1;
    s.tmemS = s.tmemP = s.tmemO = s.tmemColumns = 0;
    s.consumers = s.dvGroups > 1
                      ? 2
                      : (s.usedRows() + AttentionSchedule::kWarpgroupRows - 1) /
                            AttentionSchedule::kWarpgroupRows;
    s.threads = 128 * (s.consumers + 1);

    // With one consumer warpgroup (256 threads) every warp may hold 240
    // registers; with two, 2 x 128 consumer threads and 128 producer
    // threads share 64,512 (168 x 384): the consumers take 224, the
    // producer 56, the split with which ptxas spills in none of the shapes
    // of scripts/attention_matrix.py --chip=sm_90a (240 / 24 spills in the
    // loader, 216 / 72 in D 256's consumers; docs/Hopper.md).
    s.overlapSoftmax = p.headDimV <= 128;
    s.pingPong = s.consumers >= 2 && s.dvGroups == 1;
    // Exponentials on the FMA pipe: by default none (measured choice in
    // docs/Hopper.md, "Exponentials on the FMA pipe").
    s.polyExp2 = polyExp2 == kPolyExp2Auto ? 0 : polyExp2;
    // Launch cap / consumers / producer by consumer count. Three (512
    // threads, 128 registers each at launch): 160 for the consumers and 32
    // for the producer (FlashAttention-3's split for three; ptxas spills
    // neither at D 64).
    std::tie(s.maxRegs, s.softmaxRegs, s.otherRegs) =
        s.consumers == 3   ? std::make_tuple(128, 160, 32)
        : s.consumers == 2 ? std::make_tuple(168, 224, 56)
                           : std::make_tuple(240, 240, 240);
    // A Dv split: warpgroup 0 holds S, P and half of O (64 x 256 f32, 128
    // registers) and spills below 240; warpgroup 1 holds only its half of
    // O and takes the rest (240 + 208 + 56 = 3 x 168). Sparse (the key
    // mask besides): 256 / 192 / 56, the split with which none of the
    // matrix's sparse and fp8 kernels spills (248 / 200 / 56 spilled 20
    // bytes in one, 248 / 176 / 80 in two; docs/Hopper.md).
    if (s.dvGroups > 1) {
      s.softmaxRegs = p.sparse() ? 256 : 240;
      s.dvGroupRegs = p.sparse() ? 192 : 208;
    }
  }
  if (s.tmemColumns > 512)
    return op.emitOpError("internal error: the TMEM plan needs ")
           << s.tmemColumns << " columns";

  // K/V boxes: a whole tile is one box per 64 columns, or one per page when
  // pages hold fewer keys than a tile (the pages of a tile need not be
  // adjacent).
  s.boxKeys = p.paged() ? std::min(s.kvTile, p.pageSize) : s.kvTile;
  s.planKeys = std::min<int64_t>(64, s.kvTile);

  // The work split (docs/AttentionLowering.md, "Work split").
  s.numSms = numSms;
  s.minPieceKeys = minPieceKeys;
  s.units = p.batch * p.headsKv * s.rowBlocks;
  // A piece costs its blocks plus the Q it loads and the partial result it
  // writes; in blocks of K/V bytes, rounded, at least 1 (DeepSeek-V4: 128
  // KiB of Q and 256 KiB of partial O against 64 KiB blocks: 6; a GQA
  // decode with 4 heads: 1).
  {
    const int64_t eb = 2;
    int64_t qUnit = s.usedRows() * p.headDim * eb;
    int64_t partialUnit = s.usedRows() * p.headDimV * 4;
    int64_t keyBytes = (p.headDim + (p.kvSame ? 0 : p.headDimV)) * eb;
    // A quantized cache: a key's e4m3 and bf16 bytes and its scales.
    if (p.cache)
      keyBytes = p.cache->quantDims + 2 * p.cache->ropeDims +
                 p.cache->scalesPerToken() * p.cache->scaleBytes();
    auto inUnits = [&](int64_t keys) {
      int64_t bytes = keys * keyBytes;
      return std::max<int64_t>(1, (qUnit + partialUnit + bytes / 2) / bytes);
    };
    s.overheadBlocks = inUnits(s.planKeys);
    s.overheadTiles = inUnits(s.kvTile);
  }
  // The tiles of each unit when the balanced plan is made at compile time.
  std::vector<int64_t> unitTiles;
  if (p.numSplits && *p.numSplits == 1) {
    s.split = WorkSplit::Whole;
    s.partitions = s.units;
  } else if (p.numSplits) {
    s.split = WorkSplit::Uniform;
    s.splitsPerUnit = *p.numSplits;
    s.partitions = s.units * s.splitsPerUnit;
  } else {
    s.split = WorkSplit::Balanced;
    s.partitions = std::max<int64_t>(1, numSms / s.dvSplit);
    plan::UnitShape shape;
    shape.seqQ = p.seqQ;
    shape.queriesPerCta = s.queriesPerCta;
    shape.rowBlocks = s.rowBlocks;
    shape.headBlocks = s.headBlocks;
    shape.queryShift = s.queryShift;
    // The kernel numbers units head block first (attn::unitIndex).
    shape.headBlockMajor = s.headBlocks > 1;
    shape.headsKv = p.headsKv;
    shape.causal = p.causal;
    shape.window = p.window;
    std::vector<int64_t> lens(size_t(p.batch), p.seqKv);
    shape.blockKeys = s.kvTile;
    // One sequence whose length kv_lens gives: its units are alike at any
    // length, so the cluster merge's choice is made for Skv keys.
    if (p.hasLens && !p.hasExtraLens && p.batch == 1)
      unitTiles = plan::unitTileCounts(shape, lens);
    if (!p.hasLens && !p.hasExtraLens) {
      std::vector<int64_t> coarse = plan::unitTileCounts(shape, lens);
      unitTiles = coarse;
      shape.blockKeys = s.planKeys;
      std::vector<int64_t> fine = plan::unitTileCounts(shape, lens);
      // Head blocks: head block 0's units over its share of the partitions
      // (plan::mirroredPlan).
      const int64_t copies = s.planCopies();
      const int64_t blockUnits = s.units / copies;
      const int64_t blockPartitions = s.partitions / copies;
      coarse.resize(size_t(blockUnits));
      fine.resize(size_t(blockUnits));
      auto sum = [](const std::vector<int64_t> &v) {
        int64_t n = 0;
        for (int64_t x : v)
          n += x;
        return n;
      };
      bool useFine =
          s.planKeys < s.kvTile &&
          plan::preferFineGranule(sum(coarse), sum(fine), blockPartitions);
      s.staticPlanKeys = useFine ? s.planKeys : s.kvTile;
      s.staticPlan = plan::mirroredPlan(
          plan::balancedPlan(
              useFine ? fine : coarse,
              useFine ? s.overheadBlocks : s.overheadTiles, blockPartitions,
              plan::minPieceSlots(s.minPieceKeys, s.staticPlanKeys)),
          copies, blockUnits);
      s.staticSplitUnits = plan::splitUnits(*s.staticPlan);
      // Several row blocks share each sequence-head's keys (a prefill; not
      // a sparse decode, whose queries each have keys of their own, nor a
      // Dv split, whose consumers spilled 32 bytes beside the table's
      // read in a 128-head D 576 kernel with three queries):
      // whole units in the order of plan::localOrder when that is as
      // balanced (at most 1/64 more slots on the busiest partition), so
      // that the row blocks of a few sequence-heads run at the same time
      // and their keys are read from the L2 rather than once per row block
      // from DRAM (docs/AttentionLowering.md, "Unit order").
      const int64_t qBlocks = s.rowBlocks / s.headBlocks;
      if (qBlocks > 1 && !p.sparse() && s.dvGroups == 1 && copies == 1 &&
          s.units >= 4 * s.partitions &&
          s.units <= AttentionSchedule::kMaxOrderedUnits) {
        int64_t kvBytes = p.seqKv * (p.headDim + (p.kvSame ? 0 : p.headDimV)) *
                          (p.element.getIntOrFloatBitWidth() / 8);
        int64_t group =
            std::max<int64_t>(1, AttentionSchedule::kLocalOrderBytes /
                                     std::max<int64_t>(1, kvBytes));
        std::vector<int64_t> kvOf(size_t(s.units));
        for (int64_t u = 0; u < s.units; ++u) {
          plan::UnitIndex at = plan::unitOrder(shape, p.batch, u);
          kvOf[size_t(u)] = at.batch * p.headsKv + at.kvHead;
        }
        int64_t o =
            plan::effectiveOverhead(s.overheadTiles, sum(coarse), s.partitions);
        plan::LocalOrder local =
            plan::localOrder(coarse, kvOf, group, o, s.partitions);
        // The balanced plan's share in tiles (it may have chosen blocks).
        int64_t share =
            plan::balancedPlan(coarse, s.overheadTiles, s.partitions,
                               plan::minPieceSlots(s.minPieceKeys, s.kvTile))
                .perPartition;
        if (local.busiest <= share + share / 64) {
          s.staticPlanKeys = s.kvTile;
          s.staticPlan = plan::localPlan(local, coarse, o);
          s.staticSplitUnits.clear();
          s.unitOrder = std::move(local.order);
        }
      }
    }
  }
  if (auto n = clusterMergePieces(s, unitTiles, clusterMerge)) {
    s.split = WorkSplit::Uniform;
    s.splitsPerUnit = s.clusterMerge = *n;
    s.partitions = s.units * *n;
    s.staticPlan.reset();
    s.staticSplitUnits.clear();
    s.unitOrder.clear();
  }
  // sm_90a: V's stages need zeros only where a piece loads a tile in part
  // (keys past the sequence, the mask's or another piece's: rows of
  // stale or never written shared memory that P = 0 multiplies).
  s.zeroV = !(s.hopper() && !p.hasLens && !p.hasExtraLens && !p.sparse() &&
              !p.cache && !p.causal && !p.window &&
              p.seqKv % s.kvTile == 0 &&
              (s.split != WorkSplit::Balanced ||
               (s.staticPlan && s.staticPlanKeys == s.kvTile)));
  // A plan made on the device (kv_lens) keeps the staged gather's L2
  // prefetch and carried slot only with 8 more registers for the gather
  // warps (at 56 they spilled 148 bytes), from the Dv split's second
  // warpgroup: 256 / 184 / 64.
  if (s.gatherStaging && s.split == WorkSplit::Balanced && !s.staticPlan &&
      s.dvGroups > 1) {
    s.dvGroupRegs -= 8;
    s.otherRegs += 8;
  }
  if (s.partitions * s.dvSplit > INT32_MAX)
    return op.emitOpError("cannot be lowered: the grid needs ")
           << s.partitions * s.dvSplit << " CTAs, more than 2^31 - 1";
  return s;
}
