//===- SplitKvPlan.cpp - which CTA processes which KV tiles ---------------===//
//
// The kernels of nvfp4-lower-attention compute exactly these formulas on the
// device (LowerAttention.cpp, AttentionWork.cpp); a change here is a change
// there.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Support/SplitKvPlan.h"

#include <algorithm>
#include <queue>

using namespace nvfp4::plan;

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
} // namespace

UnitTiles nvfp4::plan::unitTiles(const UnitShape &s, int64_t len,
                                 int64_t rowBlock) {
  // Queries [iFirst, iEnd) of the block sit at positions len - Sq + i (a
  // query block's head blocks see the same keys).
  int64_t iFirst = rowBlock / s.headBlocks * s.queriesPerCta - s.queryShift;
  int64_t iEnd = std::min(iFirst + s.queriesPerCta, s.seqQ);
  int64_t base = len - s.seqQ;
  int64_t hi = len;
  if (s.causal)
    hi = std::min(len, base + iEnd);
  int64_t lo = 0;
  // The first real query's window (padding rows below query 0 see nothing
  // the block must load).
  if (s.window)
    lo = std::max<int64_t>(0, base + std::max<int64_t>(iFirst, 0) -
                                  (*s.window - 1));
  hi = std::max(hi, lo);
  UnitTiles t;
  t.keyLo = lo;
  t.keyHi = hi;
  t.first = lo / s.blockKeys;
  t.count = ceilDiv(hi, s.blockKeys) - t.first;
  return t;
}

std::vector<int64_t>
nvfp4::plan::unitTileCounts(const UnitShape &s,
                            const std::vector<int64_t> &lens) {
  std::vector<int64_t> out;
  int64_t batch = int64_t(lens.size());
  int64_t units = batch * s.headsKv * s.rowBlocks;
  out.reserve(units);
  for (int64_t u = 0; u < units; ++u) {
    UnitIndex at = unitOrder(s, batch, u);
    out.push_back(unitTiles(s, lens[at.batch], at.rowBlock).count);
  }
  return out;
}

nvfp4::plan::UnitIndex nvfp4::plan::unitOrder(const UnitShape &s, int64_t batch,
                                              int64_t u) {
  UnitIndex at;
  if (s.headBlockMajor && s.headBlocks > 1) {
    int64_t qBlocks = s.rowBlocks / s.headBlocks;
    int64_t perBlock = batch * s.headsKv * qBlocks;
    int64_t hb = u / perBlock, rest = u % perBlock;
    at.rowBlock = rest % qBlocks * s.headBlocks + hb;
    at.kvHead = rest / qBlocks % s.headsKv;
    at.batch = rest / qBlocks / s.headsKv;
    return at;
  }
  at.rowBlock = u % s.rowBlocks;
  at.kvHead = u / s.rowBlocks % s.headsKv;
  at.batch = u / s.rowBlocks / s.headsKv;
  return at;
}

int64_t nvfp4::plan::effectiveOverhead(int64_t overhead, int64_t tiles,
                                       int64_t partitions) {
  return std::min(overhead, ceilDiv(tiles, partitions) / 8);
}

int64_t nvfp4::plan::unitSlots(int64_t tiles, int64_t overhead) {
  return std::max<int64_t>(1, tiles + overhead);
}

bool nvfp4::plan::preferFineGranule(int64_t coarseTotal, int64_t fineTotal,
                                    int64_t partitions) {
  // fill(T) = T / (P c) with c = ceil(T / P); fine iff fill(fine) >=
  // fill(coarse) + 1/16, in integers: 16 Tf cc >= 16 Tc cf + P cf cc.
  const int64_t P = partitions;
  int64_t cf = std::max<int64_t>(1, ceilDiv(fineTotal, P));
  int64_t cc = std::max<int64_t>(1, ceilDiv(coarseTotal, P));
  return 16 * fineTotal * cc >= 16 * coarseTotal * cf + P * cf * cc;
}

int64_t nvfp4::plan::wholeUnitsShare(int64_t share, bool even, int64_t units,
                                     int64_t unitSlots, int64_t partitions) {
  if (!even)
    return share;
  int64_t whole = ceilDiv(units, partitions) * unitSlots;
  int64_t slack = std::min<int64_t>(kWholeUnitsSlack, share / 8);
  return whole >= share && whole <= share + slack ? whole : share;
}

int64_t nvfp4::plan::minPieceSlots(int64_t minPieceKeys, int64_t granuleKeys) {
  return std::max<int64_t>(1, ceilDiv(minPieceKeys, granuleKeys));
}

BalancedPlan nvfp4::plan::balancedPlan(const std::vector<int64_t> &tiles,
                                       int64_t overhead, int64_t partitions,
                                       int64_t minSlots) {
  BalancedPlan plan;
  int64_t allTiles = 0;
  for (int64_t t : tiles)
    allTiles += t;
  plan.overhead = effectiveOverhead(overhead, allTiles, partitions);
  std::vector<int64_t> x(tiles.size());
  for (size_t u = 0; u < tiles.size(); ++u) {
    x[u] = plan.total;
    plan.total += unitSlots(tiles[u], plan.overhead);
  }
  plan.perPartition =
      std::max<int64_t>({1, minSlots, ceilDiv(plan.total, partitions)});
  if (!tiles.empty()) {
    bool even = true;
    for (int64_t t : tiles)
      even = even && t == tiles[0];
    plan.perPartition =
        wholeUnitsShare(plan.perPartition, even, int64_t(tiles.size()),
                        unitSlots(tiles[0], plan.overhead), partitions);
  }
  plan.parts.assign(size_t(partitions), Partition());
  const int64_t S = plan.perPartition;
  for (int64_t p = 0; p < partitions; ++p) {
    int64_t a = p * S, e = std::min((p + 1) * S, plan.total);
    Partition &part = plan.parts[size_t(p)];
    for (size_t u = 0; u < tiles.size(); ++u) {
      int64_t t = x[u] + plan.overhead; // slot of the unit's first tile
      bool processed = tiles[u] > 0 ? std::max(a, t) < std::min(e, t + tiles[u])
                                    : (a <= x[u] && x[u] < e);
      if (!processed)
        continue;
      if (part.empty()) {
        part.uFirst = int64_t(u);
        part.t0 = std::clamp<int64_t>(a - t, 0, tiles[u]);
      }
      part.uLast = int64_t(u);
      part.t1 = std::clamp<int64_t>(e - t, 0, tiles[u]);
    }
  }
  return plan;
}

BalancedPlan nvfp4::plan::mirroredPlan(const BalancedPlan &block0,
                                       int64_t copies, int64_t unitsPerCopy) {
  BalancedPlan plan = block0;
  plan.total = block0.total * copies;
  plan.parts.clear();
  for (int64_t c = 0; c < copies; ++c)
    for (Partition part : block0.parts) {
      if (!part.empty()) {
        part.uFirst += c * unitsPerCopy;
        part.uLast += c * unitsPerCopy;
      }
      plan.parts.push_back(part);
    }
  return plan;
}

std::pair<int64_t, int64_t>
nvfp4::plan::pieceOf(const BalancedPlan &plan,
                     const std::vector<int64_t> &tiles, int64_t p, int64_t u) {
  const Partition &part = plan.parts[size_t(p)];
  if (part.empty() || u < part.uFirst || u > part.uLast)
    return {0, 0};
  int64_t t0 = u == part.uFirst ? part.t0 : 0;
  int64_t t1 = u == part.uLast ? part.t1 : tiles[size_t(u)];
  return {t0, t1};
}

std::vector<int64_t>
nvfp4::plan::tilesPerPartition(const BalancedPlan &plan,
                               const std::vector<int64_t> &tiles) {
  std::vector<int64_t> out;
  for (size_t p = 0; p < plan.parts.size(); ++p) {
    const Partition &part = plan.parts[p];
    int64_t n = 0;
    for (int64_t u = part.uFirst; u <= part.uLast; ++u) {
      auto [t0, t1] = pieceOf(plan, tiles, int64_t(p), u);
      n += t1 - t0;
    }
    out.push_back(n);
  }
  return out;
}

int64_t nvfp4::plan::piecesOf(const BalancedPlan &plan,
                              const std::vector<int64_t> &tiles, int64_t u) {
  int64_t n = 0;
  for (size_t p = 0; p < plan.parts.size(); ++p) {
    const Partition &part = plan.parts[p];
    n += !part.empty() && part.uFirst <= u && u <= part.uLast;
  }
  (void)tiles;
  return n;
}

std::vector<int64_t> nvfp4::plan::splitUnits(const BalancedPlan &plan) {
  // A partition's units are consecutive and partitions are in unit order,
  // so counting each partition's first and last unit finds every unit that
  // two of them share.
  std::vector<int64_t> out;
  int64_t prevLast = -1;
  for (const Partition &part : plan.parts) {
    if (part.empty())
      continue;
    if (part.uFirst == prevLast && (out.empty() || out.back() != prevLast))
      out.push_back(prevLast);
    prevLast = part.uLast;
  }
  return out;
}

nvfp4::plan::LocalOrder
nvfp4::plan::localOrder(const std::vector<int64_t> &tiles,
                        const std::vector<int64_t> &kvOf, int64_t kvsPerGroup,
                        int64_t overhead, int64_t partitions) {
  const int64_t units = int64_t(tiles.size());
  kvsPerGroup = std::max<int64_t>(1, kvsPerGroup);
  partitions = std::max<int64_t>(1, partitions);
  // The last groups merge until the last holds 2 x partitions units: a
  // last group of few long units (one sequence-head of a long prefill)
  // would give each partition one of them at the end, unbalanced.
  int64_t groups = 0;
  for (int64_t u = 0; u < units; ++u)
    groups = std::max(groups, kvOf[u] / kvsPerGroup + 1);
  std::vector<int64_t> inGroup(size_t(std::max<int64_t>(1, groups)), 0);
  for (int64_t u = 0; u < units; ++u)
    ++inGroup[kvOf[u] / kvsPerGroup];
  int64_t last = groups - 1, tail = groups > 0 ? inGroup[last] : 0;
  while (last > 0 && tail < 2 * partitions)
    tail += inGroup[--last];
  auto groupOf = [&](int64_t u) {
    return std::min(kvOf[u] / kvsPerGroup, last);
  };
  std::vector<int64_t> byTime(units);
  for (int64_t u = 0; u < units; ++u)
    byTime[u] = u;
  std::stable_sort(byTime.begin(), byTime.end(), [&](int64_t a, int64_t b) {
    int64_t ga = groupOf(a), gb = groupOf(b);
    if (ga != gb)
      return ga < gb;
    return tiles[a] > tiles[b];
  });
  // The least-loaded partition, lowest index first.
  using Load = std::pair<int64_t, int64_t>;
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> free;
  for (int64_t p = 0; p < partitions; ++p)
    free.push({0, p});
  std::vector<std::vector<int64_t>> lists(partitions);
  LocalOrder out;
  for (int64_t u : byTime) {
    auto [load, p] = free.top();
    free.pop();
    lists[p].push_back(u);
    load += unitSlots(tiles[u], overhead);
    out.busiest = std::max(out.busiest, load);
    free.push({load, p});
  }
  out.order.reserve(units);
  for (const std::vector<int64_t> &l : lists) {
    out.starts.push_back(int64_t(out.order.size()));
    out.order.insert(out.order.end(), l.begin(), l.end());
  }
  out.starts.push_back(units);
  return out;
}

nvfp4::plan::BalancedPlan
nvfp4::plan::localPlan(const LocalOrder &local,
                       const std::vector<int64_t> &tiles, int64_t overhead) {
  BalancedPlan plan;
  plan.overhead = overhead;
  plan.perPartition = std::max<int64_t>(1, local.busiest);
  for (int64_t t : tiles)
    plan.total += unitSlots(t, overhead);
  for (size_t p = 0; p + 1 < local.starts.size(); ++p) {
    Partition part;
    if (local.starts[p] < local.starts[p + 1]) {
      part.uFirst = local.starts[p];
      part.uLast = local.starts[p + 1] - 1;
      part.t0 = 0;
      part.t1 = tiles[local.order[part.uLast]];
    }
    plan.parts.push_back(part);
  }
  return plan;
}

double nvfp4::plan::smFill(const std::vector<int64_t> &perCta, int64_t sms) {
  int64_t total = 0, busiest = 0;
  for (int64_t t : perCta) {
    total += t;
    busiest = std::max(busiest, t);
  }
  if (busiest == 0 || sms <= 0)
    return 0;
  return double(total) / (double(sms) * double(busiest));
}
