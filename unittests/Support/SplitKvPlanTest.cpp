//===- SplitKvPlanTest.cpp - Tests for the split-KV work plan -------------===//
//
// Hand-worked plans (the slot line drawn in the comments) and properties
// over many random problems: every tile is processed by exactly one
// partition, every unit by at least one, a partition's units are
// consecutive, and no partition gets more than S tiles.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Support/SplitKvPlan.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>

using namespace nvfp4::plan;

namespace {

TEST(SplitKvPlanTest, UnitTilesFollowTheMasks) {
  UnitShape s;
  s.blockKeys = 128;
  // Decode, 300 keys: tiles 0..2.
  UnitTiles t = unitTiles(s, 300, 0);
  EXPECT_EQ(t.first, 0);
  EXPECT_EQ(t.count, 3);
  EXPECT_EQ(t.keyHi, 300);
  // An empty sequence has no tile.
  EXPECT_EQ(unitTiles(s, 0, 0).count, 0);
  // A window of 100 over 1000 keys: keys [900, 1000), tiles 7 (896..1023).
  s.window = 100;
  t = unitTiles(s, 1000, 0);
  EXPECT_EQ(t.keyLo, 900);
  EXPECT_EQ(t.first, 7);
  EXPECT_EQ(t.count, 1);
  // Causal prefill, 2 row blocks of 128 queries over 256 keys: the first
  // block sees keys [0, 128), the second [0, 256).
  UnitShape p;
  p.blockKeys = 128;
  p.seqQ = 256;
  p.queriesPerCta = 128;
  p.rowBlocks = 2;
  p.causal = true;
  EXPECT_EQ(unitTiles(p, 256, 0).count, 1);
  EXPECT_EQ(unitTiles(p, 256, 1).count, 2);
  // Two head blocks per query block (sm_90a's Dv split, 128 heads): row
  // blocks 0 and 1 are the first query block's, 2 and 3 the second's.
  p.headBlocks = 2;
  p.rowBlocks = 4;
  EXPECT_EQ(unitTiles(p, 256, 1).count, 1);
  EXPECT_EQ(unitTiles(p, 256, 2).count, 2);
  EXPECT_EQ(unitTiles(p, 256, 3).count, 2);
}

TEST(SplitKvPlanTest, ThePartlyFilledBlockComesFirst) {
  // Causal, Sq = Skv = 400 in blocks of 192 queries: 3 blocks, 176 padding
  // rows. Unshifted, the last block holds queries [384, 400) and sees all
  // 400 keys (4 tiles of 128) for 16 rows.
  UnitShape p;
  p.blockKeys = 128;
  p.seqQ = 400;
  p.queriesPerCta = 192;
  p.rowBlocks = 3;
  p.causal = true;
  EXPECT_EQ(unitTiles(p, 400, 2).count, 4);
  EXPECT_EQ(unitTiles(p, 400, 2).keyHi, 400);
  // Shifted by the 176 padding rows (AttentionSchedule::queryShift): the
  // first block holds queries [-176, 16) and sees keys [0, 16), one tile;
  // the others [16, 208) and [208, 400), whole blocks.
  p.queryShift = 176;
  UnitTiles t = unitTiles(p, 400, 0);
  EXPECT_EQ(t.keyLo, 0);
  EXPECT_EQ(t.keyHi, 16);
  EXPECT_EQ(t.count, 1);
  EXPECT_EQ(unitTiles(p, 400, 1).keyHi, 208);
  EXPECT_EQ(unitTiles(p, 400, 1).count, 2);
  EXPECT_EQ(unitTiles(p, 400, 2).keyHi, 400);
  EXPECT_EQ(unitTiles(p, 400, 2).count, 4);
  // With a window of 64 the first block's keys start at 0 (its first
  // real query is 0), the last block's at 208 - 63 = 145 (tile 1).
  p.window = 64;
  EXPECT_EQ(unitTiles(p, 400, 0).keyLo, 0);
  EXPECT_EQ(unitTiles(p, 400, 2).keyLo, 145);
  EXPECT_EQ(unitTiles(p, 400, 2).first, 1);
  // With 700 keys the queries sit at 300 + i: the first block's window
  // starts at its first real query's, 300 - 63 = 237 (its padding rows,
  // below query 0, need no keys), not at 300 - 176 - 63.
  EXPECT_EQ(unitTiles(p, 700, 0).keyLo, 237);
  EXPECT_EQ(unitTiles(p, 700, 0).keyHi, 316);
}

TEST(SplitKvPlanTest, HeadBlockMajorOrder) {
  // 3 sequences, 2 KV heads, 2 query blocks x 2 head blocks: the default
  // order is sequence, KV head, row block; head-block major puts the 12
  // units of head block 0 first (row blocks 0 and 2), each a bijection.
  UnitShape s;
  s.headsKv = 2;
  s.headBlocks = 2;
  s.rowBlocks = 4;
  UnitIndex a = unitOrder(s, 3, 5);
  EXPECT_EQ(a.batch, 0);
  EXPECT_EQ(a.kvHead, 1);
  EXPECT_EQ(a.rowBlock, 1);
  s.headBlockMajor = true;
  // u 5: head block 0, then sequence 1, KV head 0, query block 1.
  UnitIndex m = unitOrder(s, 3, 5);
  EXPECT_EQ(m.batch, 1);
  EXPECT_EQ(m.kvHead, 0);
  EXPECT_EQ(m.rowBlock, 2);
  // u 12: the first unit of head block 1.
  m = unitOrder(s, 3, 12);
  EXPECT_EQ(m.batch, 0);
  EXPECT_EQ(m.kvHead, 0);
  EXPECT_EQ(m.rowBlock, 1);
  for (bool major : {false, true}) {
    s.headBlockMajor = major;
    std::vector<int> seen(3 * 2 * 4, 0);
    for (int64_t u = 0; u < 24; ++u) {
      UnitIndex x = unitOrder(s, 3, u);
      ++seen[(x.batch * 2 + x.kvHead) * 4 + x.rowBlock];
    }
    for (int n : seen)
      EXPECT_EQ(n, 1);
  }
  // The tile counts follow the order: sequence lengths 128 and 384 in
  // 128-key blocks, one query block, two head blocks.
  UnitShape d;
  d.blockKeys = 128;
  d.headBlocks = 2;
  d.rowBlocks = 2;
  EXPECT_EQ(unitTileCounts(d, {128, 384}), (std::vector<int64_t>{1, 1, 3, 3}));
  d.headBlockMajor = true;
  EXPECT_EQ(unitTileCounts(d, {128, 384}), (std::vector<int64_t>{1, 3, 1, 3}));
}

TEST(SplitKvPlanTest, MirroredPlanPairsTheHeadBlocks) {
  // MLA with 128 heads, B 128 at KV 8K: 256 units of 128 tiles (two head
  // blocks, head block first), overhead 2, 132 partitions. The balanced
  // plan over all units offsets head block 1 by 58 slots against head
  // block 0 (S = 253, 66 x 253 - 128 x 130); mirrored, partitions p and
  // p + 66 take the same tiles of the two head blocks of a sequence.
  std::vector<int64_t> tiles(256, 128);
  BalancedPlan all = balancedPlan(tiles, 2, 132);
  EXPECT_EQ(all.perPartition, 253);
  EXPECT_NE(all.parts[66].t0, all.parts[0].t0);
  std::vector<int64_t> half(tiles.begin(), tiles.begin() + 128);
  BalancedPlan m = mirroredPlan(balancedPlan(half, 2, 66), 2, 128);
  ASSERT_EQ(m.parts.size(), 132u);
  EXPECT_EQ(m.perPartition, all.perPartition);
  EXPECT_EQ(m.total, all.total);
  for (int64_t p = 0; p < 66; ++p) {
    const Partition &a = m.parts[p], &b = m.parts[p + 66];
    EXPECT_EQ(b.uFirst, a.uFirst + 128);
    EXPECT_EQ(b.uLast, a.uLast + 128);
    EXPECT_EQ(b.t0, a.t0);
    EXPECT_EQ(b.t1, a.t1);
  }
  // Every tile once, the busiest partition no busier than before, and the
  // split units in unit order (both halves').
  std::vector<int64_t> perPart = tilesPerPartition(m, tiles);
  int64_t sum = 0;
  for (int64_t n : perPart)
    sum += n;
  EXPECT_EQ(sum, 256 * 128);
  EXPECT_LE(*std::max_element(perPart.begin(), perPart.end()), m.perPartition);
  for (int64_t u = 0; u < 256; ++u) {
    int64_t covered = 0;
    for (int64_t p = 0; p < 132; ++p) {
      auto [t0, t1] = pieceOf(m, tiles, p, u);
      covered += t1 - t0;
    }
    EXPECT_EQ(covered, 128) << "unit " << u;
  }
  std::vector<int64_t> split = splitUnits(m);
  EXPECT_TRUE(std::is_sorted(split.begin(), split.end()));
  std::vector<int64_t> splitHalf = splitUnits(balancedPlan(half, 2, 66));
  EXPECT_EQ(split.size(), 2 * splitHalf.size());
  // An empty partition stays empty in every copy.
  BalancedPlan few = mirroredPlan(balancedPlan({4}, 1, 3, 4), 2, 1);
  ASSERT_EQ(few.parts.size(), 6u);
  EXPECT_FALSE(few.parts[0].empty());
  EXPECT_EQ(few.parts[3].uFirst, 1);
  EXPECT_TRUE(few.parts[2].empty());
  EXPECT_TRUE(few.parts[5].empty());
}

TEST(SplitKvPlanTest, LocalOrderRunsSharedKeysTogether) {
  // A causal prefill of 4 sequence-heads x 8 row blocks (tiles 1..8), 4
  // partitions, overhead 0, 2 key sets a group: group 0 (units 0..15)
  // first, longest first. The first four units placed are the 8-tile row
  // blocks of key sets 0 and 1 and the 7-tile ones of set 0 and 1 go to
  // the four partitions: every partition starts on group 0's keys.
  std::vector<int64_t> tiles, kvOf;
  for (int64_t kv = 0; kv < 4; ++kv)
    for (int64_t r = 0; r < 8; ++r) {
      tiles.push_back(r + 1);
      kvOf.push_back(kv);
    }
  LocalOrder l = localOrder(tiles, kvOf, 2, 0, 4);
  ASSERT_EQ(l.starts.size(), 5u);
  EXPECT_EQ(l.starts.front(), 0);
  EXPECT_EQ(l.starts.back(), 32);
  // 32 units of 144 tiles over 4: 36 each, and LPT reaches it.
  EXPECT_EQ(l.busiest, 36);
  std::vector<int> seen(32, 0);
  for (int64_t u : l.order)
    ++seen[u];
  for (int n : seen)
    EXPECT_EQ(n, 1);
  // Each partition's first unit is an 8- or 7-tile row block of set 0 / 1.
  for (int64_t p = 0; p < 4; ++p) {
    int64_t u = l.order[l.starts[p]];
    EXPECT_LT(kvOf[u], 2);
    EXPECT_GE(tiles[u], 7);
  }
  // As a plan: whole units, partition p's are positions starts[p] ..
  BalancedPlan plan = localPlan(l, tiles, 0);
  ASSERT_EQ(plan.parts.size(), 4u);
  for (int64_t p = 0; p < 4; ++p) {
    EXPECT_EQ(plan.parts[p].uFirst, l.starts[p]);
    EXPECT_EQ(plan.parts[p].uLast, l.starts[p + 1] - 1);
    EXPECT_EQ(plan.parts[p].t0, 0);
    EXPECT_EQ(plan.parts[p].t1, tiles[l.order[plan.parts[p].uLast]]);
  }
  EXPECT_TRUE(splitUnits(plan).empty());
  // The last group merges into the one before when it holds fewer than 2 x
  // partitions units: with 16 partitions, groups of one key set (8 units)
  // all merge into one, so the order is longest first over all units.
  LocalOrder m = localOrder(tiles, kvOf, 1, 0, 16);
  for (int64_t p = 0; p < 4; ++p)
    EXPECT_EQ(tiles[m.order[m.starts[p]]], 8);
}

TEST(SplitKvPlanTest, HandWorkedPlan) {
  // Units with 40, 0 and 16 tiles, overhead 1, 3 partitions: a share is
  // ceil(56 / 3) = 19 tiles, so the overhead stays (min(1, 19 / 8)).
  // Slots: u0 = [o t x 40] (0..40), u1 = [one slot] (41), u2 = [o t x 16]
  // (42..58); total 59, S = 20: p0 = slots 0..19 (u0 tiles 0-18), p1 =
  // 20..39 (u0 tiles 19-38), p2 = 40..58 (u0 tile 39, u1, u2 whole).
  std::vector<int64_t> tiles = {40, 0, 16};
  BalancedPlan plan = balancedPlan(tiles, 1, 3);
  EXPECT_EQ(plan.overhead, 1);
  EXPECT_EQ(plan.total, 59);
  EXPECT_EQ(plan.perPartition, 20);
  ASSERT_EQ(plan.parts.size(), 3u);
  EXPECT_EQ(plan.parts[0].uFirst, 0);
  EXPECT_EQ(plan.parts[0].t0, 0);
  EXPECT_EQ(plan.parts[0].uLast, 0);
  EXPECT_EQ(plan.parts[0].t1, 19);
  EXPECT_EQ(plan.parts[1].uFirst, 0);
  EXPECT_EQ(plan.parts[1].t0, 19);
  EXPECT_EQ(plan.parts[1].uLast, 0);
  EXPECT_EQ(plan.parts[1].t1, 39);
  EXPECT_EQ(plan.parts[2].uFirst, 0);
  EXPECT_EQ(plan.parts[2].t0, 39);
  EXPECT_EQ(plan.parts[2].uLast, 2);
  EXPECT_EQ(plan.parts[2].t1, 16);
  EXPECT_EQ(tilesPerPartition(plan, tiles), (std::vector<int64_t>{19, 20, 17}));
  EXPECT_EQ(piecesOf(plan, tiles, 0), 3);
  EXPECT_EQ(piecesOf(plan, tiles, 1), 1);
  EXPECT_EQ(piecesOf(plan, tiles, 2), 1);
  EXPECT_EQ(splitUnits(plan), (std::vector<int64_t>{0}));
}

TEST(SplitKvPlanTest, OverheadCappedBySmallShares) {
  // A share of ceil(3 / 2) = 2 tiles caps the overhead at 2 / 8 = 0; an
  // empty unit then takes one slot. Slots: u0 = [empty] (0), u1 = [t t t]
  // (1..3), u2 = [empty] (4); total 5, S = 3: p0 = u0 and u1's tiles 0-1,
  // p1 = u1's tile 2 and u2.
  std::vector<int64_t> tiles = {0, 3, 0};
  EXPECT_EQ(effectiveOverhead(4, 3, 2), 0);
  EXPECT_EQ(effectiveOverhead(4, 1000, 2), 4);
  EXPECT_EQ(effectiveOverhead(4, 160, 10), 2);
  BalancedPlan plan = balancedPlan(tiles, 4, 2);
  EXPECT_EQ(plan.overhead, 0);
  EXPECT_EQ(plan.total, 5);
  EXPECT_EQ(plan.perPartition, 3);
  EXPECT_EQ(plan.parts[0].uFirst, 0);
  EXPECT_EQ(plan.parts[0].uLast, 1);
  EXPECT_EQ(plan.parts[0].t1, 2);
  EXPECT_EQ(plan.parts[1].uFirst, 1);
  EXPECT_EQ(plan.parts[1].t0, 2);
  EXPECT_EQ(plan.parts[1].uLast, 2);
  EXPECT_EQ(tilesPerPartition(plan, tiles), (std::vector<int64_t>{2, 1}));
}

TEST(SplitKvPlanTest, MorePartitionsThanSlots) {
  // 2 units of 1 tile over 8 partitions (overhead capped to 0): 2 slots,
  // S = 1, partitions 2..7 are empty.
  BalancedPlan plan = balancedPlan({1, 1}, 1, 8);
  EXPECT_EQ(plan.perPartition, 1);
  EXPECT_EQ(plan.parts[0].uFirst, 0);
  EXPECT_EQ(plan.parts[1].uFirst, 1);
  for (int p = 2; p < 8; ++p)
    EXPECT_TRUE(plan.parts[p].empty()) << p;
}

TEST(SplitKvPlanTest, WholeUnitsWhenCheap) {
  // DeepSeek-V4, 128 heads, B 128, top-k 1024: 256 units of 16 tiles (17
  // slots with the overhead) over 132 SMs. Balanced, S = ceil(4352 / 132)
  // = 33 and almost every unit is split; two whole units are 34 slots, one
  // more (within min(4, 33 / 8)): S = 34, no unit split, 128 partitions
  // busy.
  std::vector<int64_t> tiles(256, 16);
  BalancedPlan plan = balancedPlan(tiles, 1, 132);
  EXPECT_EQ(plan.perPartition, 34);
  EXPECT_TRUE(splitUnits(plan).empty());
  for (int p = 0; p < 132; ++p) {
    if (p >= 128) {
      EXPECT_TRUE(plan.parts[p].empty()) << p;
      continue;
    }
    EXPECT_EQ(plan.parts[p].uFirst, 2 * p) << p;
    EXPECT_EQ(plan.parts[p].uLast, 2 * p + 1) << p;
    EXPECT_EQ(plan.parts[p].t0, 0) << p;
    EXPECT_EQ(plan.parts[p].t1, 16) << p;
  }
  // 64 heads, B 64: 64 units over 132 SMs, S = 9; a whole unit (17) costs
  // 8 more: split as before.
  EXPECT_EQ(balancedPlan(std::vector<int64_t>(64, 16), 1, 132).perPartition, 9);
  // Uneven units are never rounded: one unit of 15 tiles among 16s.
  tiles[7] = 15;
  EXPECT_EQ(balancedPlan(tiles, 1, 132).perPartition, 33);
  // The rule alone: whole = ceil(U / P) x slots within min(4, S / 8).
  EXPECT_EQ(wholeUnitsShare(33, true, 256, 17, 132), 34);
  EXPECT_EQ(wholeUnitsShare(33, false, 256, 17, 132), 33);
  EXPECT_EQ(wholeUnitsShare(994, true, 128, 1025, 132), 994); // 31 > 4
  EXPECT_EQ(wholeUnitsShare(16, true, 128, 18, 132), 18);     // 2 <= 2
  EXPECT_EQ(wholeUnitsShare(16, true, 128, 19, 132), 16);     // 3 > 2
  EXPECT_EQ(wholeUnitsShare(20, true, 100, 19, 132), 20);     // whole < S
}

TEST(SplitKvPlanTest, ShortestPiece) {
  // A GQA decode at B = 1, KV 1K: 8 units of 16 blocks over 132
  // partitions. Without a minimum each partition takes 1 block (128
  // pieces); with 4-block pieces 32 partitions take 4 blocks each, every
  // unit in 4 pieces, and the other 100 are empty.
  std::vector<int64_t> tiles(8, 16);
  BalancedPlan loose = balancedPlan(tiles, 1, 132);
  EXPECT_EQ(loose.perPartition, 1);
  BalancedPlan plan = balancedPlan(tiles, 1, 132, minPieceSlots(256, 64));
  EXPECT_EQ(plan.perPartition, 4);
  std::vector<int64_t> per = tilesPerPartition(plan, tiles);
  for (int p = 0; p < 132; ++p)
    EXPECT_EQ(per[size_t(p)], p < 32 ? 4 : 0) << p;
  for (int64_t u = 0; u < 8; ++u)
    EXPECT_EQ(piecesOf(plan, tiles, u), 4) << u;
  // More work than the minimum: the plan is the one without it.
  std::vector<int64_t> many(8, 1024);
  EXPECT_EQ(balancedPlan(many, 1, 132, 4).perPartition,
            balancedPlan(many, 1, 132).perPartition);
}

TEST(SplitKvPlanTest, MinPieceSlots) {
  EXPECT_EQ(minPieceSlots(256, 64), 4);
  EXPECT_EQ(minPieceSlots(256, 128), 2);
  EXPECT_EQ(minPieceSlots(100, 64), 2);
  EXPECT_EQ(minPieceSlots(0, 64), 1);
}

TEST(SplitKvPlanTest, PropertiesOnRandomProblems) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    size_t units = 1 + rng() % 40;
    std::vector<int64_t> tiles(units);
    for (int64_t &t : tiles)
      t = rng() % 4 == 0 ? 0 : int64_t(rng() % 70);
    int64_t overhead = int64_t(rng() % 5);
    int64_t partitions = 1 + int64_t(rng() % 160);
    int64_t minSlots = rng() % 2 ? 1 : 1 + int64_t(rng() % 8);
    BalancedPlan plan = balancedPlan(tiles, overhead, partitions, minSlots);
    EXPECT_GE(plan.perPartition, minSlots);
    std::vector<int64_t> owner;
    std::vector<std::vector<int>> seen(units);
    for (size_t u = 0; u < units; ++u)
      seen[u].assign(size_t(tiles[u]), 0);
    std::vector<int> processed(units, 0);
    for (int64_t p = 0; p < partitions; ++p) {
      const Partition &part = plan.parts[size_t(p)];
      int64_t n = 0;
      for (int64_t u = part.uFirst; u <= part.uLast; ++u) {
        auto [t0, t1] = pieceOf(plan, tiles, p, u);
        ASSERT_LE(0, t0);
        ASSERT_LE(t0, t1);
        ASSERT_LE(t1, tiles[size_t(u)]);
        // Middle units are whole.
        if (u != part.uFirst && u != part.uLast) {
          EXPECT_EQ(t0, 0);
          EXPECT_EQ(t1, tiles[size_t(u)]);
        }
        for (int64_t t = t0; t < t1; ++t)
          ++seen[size_t(u)][size_t(t)];
        ++processed[size_t(u)];
        n += t1 - t0;
      }
      EXPECT_LE(n, plan.perPartition) << "trial " << trial;
    }
    for (size_t u = 0; u < units; ++u) {
      EXPECT_GE(processed[u], 1) << "trial " << trial << " unit " << u;
      if (tiles[u] == 0) {
        EXPECT_EQ(processed[u], 1) << "trial " << trial << " unit " << u;
      }
      for (int c : seen[u])
        EXPECT_EQ(c, 1) << "trial " << trial << " unit " << u;
      EXPECT_EQ(piecesOf(plan, tiles, int64_t(u)), processed[u]);
    }
    // The combine's units: exactly those processed more than once, in
    // order; and the record the kernel's first piece of a unit writes
    // (1 + ceil(the tiles after it / S) pieces) counts them the same.
    std::vector<int64_t> split;
    for (size_t u = 0; u < units; ++u)
      if (processed[u] > 1)
        split.push_back(int64_t(u));
    EXPECT_EQ(splitUnits(plan), split) << "trial " << trial;
    for (size_t p = 0; p < plan.parts.size(); ++p)
      for (int64_t u = plan.parts[p].uFirst; u <= plan.parts[p].uLast; ++u) {
        auto [t0, t1] = pieceOf(plan, tiles, int64_t(p), u);
        if (t0 != 0)
          continue;
        int64_t rest = tiles[size_t(u)] - t1;
        EXPECT_EQ(1 + (rest + plan.perPartition - 1) / plan.perPartition,
                  processed[size_t(u)])
            << "trial " << trial << " unit " << u;
      }
  }
}

TEST(SplitKvPlanTest, FineGranuleWhenItFillsBetter) {
  // 7 tiles (14 blocks) over 6 partitions: bounds 7 / 12 = 0.58 and
  // 14 / 18 = 0.78: blocks.
  EXPECT_TRUE(preferFineGranule(7, 14, 6));
  // 512 tiles (1024 blocks) over 74: 512 / 518 = 0.988 and 1024 / 1036 =
  // 0.988: tiles (no S tile multiplied twice for nothing).
  EXPECT_FALSE(preferFineGranule(512, 1024, 74));
  // 57 tiles (114 blocks) over 74: 0.770 and 0.770: tiles.
  EXPECT_FALSE(preferFineGranule(57, 114, 74));
  // 256 tiles (512 blocks) over 74: 256 / 296 = 0.865 and 512 / 518 =
  // 0.988: blocks (the margin is 1/16).
  EXPECT_TRUE(preferFineGranule(256, 512, 74));
}

TEST(SplitKvPlanTest, SmFill) {
  EXPECT_DOUBLE_EQ(smFill({4, 4, 4, 4}, 4), 1.0);
  EXPECT_DOUBLE_EQ(smFill({4, 2}, 4), 6.0 / 16.0);
  EXPECT_DOUBLE_EQ(smFill({}, 148), 0.0);
}

} // namespace
