//===- AttentionWork.cpp - which pieces an attention CTA processes --------===//
//
// The work split of docs/AttentionLowering.md. A unit is one (sequence, KV
// head, row block), u = (b * Hkv + h) * rowBlocks + r, or in the orders of
// "Unit order" (unitIndex: head block first; a static plan's own
// unit_order table); a piece is the tiles
// [t0, t1) of one unit that one CTA (pair) processes. Whole: CTA u
// processes unit u. Uniform: CTA u * N + k the k-th of N near-equal parts.
// Balanced: plan::balancedPlan over the SMs, from a table computed at
// compile time (no kv_lens) or computed by every CTA from kv_lens in its
// prologue (the same formulas as SplitKvPlan.cpp, in parallel over 256
// threads: per-thread sums of unit costs, a CTA-wide scan, then each
// thread checks its units against the CTA's slot range).
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"

#include <limits>

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::attn;

namespace {

constexpr const char *kPlanWords = "plan_words";
constexpr const char *kPlanTable = "plan_table";
constexpr const char *kUnitOrderTable = "unit_order";
/// Shared words of a device plan: uFirst and uLast (words 0 and 2), b0First
/// and b1Last (words 4 and 5), then per warp a partial sum of tiles, of
/// blocks, of empty units and of units whose tiles or blocks differ from
/// unit 0's (plan::wholeUnitsShare). b0First / b1Last sit in another 16-byte
/// group than uFirst / uLast: LLVM reads words 0 and 2 as one 16-byte vector,
/// and one thread writes the b words while the other warps still read the u
/// words (the emulator's sanitizer reports that as a race).
/// Each of the five per-warp groups holds one word per warp of the CTA
/// (8 on SM100, 12 on sm_90a with two consumer warpgroups).
constexpr int64_t kWordUFirst = 0, kWordULast = 2, kWordT0 = 4, kWordT1 = 5,
                  kWordWarps = 8;
int64_t warpWords(const AttentionSchedule &s) { return s.threads / 32; }
int64_t wordWarpsFine(const AttentionSchedule &s) {
  return kWordWarps + warpWords(s);
}
int64_t wordWarpsEmpty(const AttentionSchedule &s) {
  return kWordWarps + 2 * warpWords(s);
}
int64_t wordWarpsUneven(const AttentionSchedule &s) {
  return kWordWarps + 3 * warpWords(s);
}
int64_t wordWarpsUnevenFine(const AttentionSchedule &s) {
  return kWordWarps + 4 * warpWords(s);
}
int64_t wordsOf(const AttentionSchedule &s) {
  return kWordWarps + 5 * warpWords(s);
}
/// A row of the static plan table: uFirst, b0First, uLast, b1Last, S.
constexpr int64_t kTableUFirst = 0, kTableT0 = 1, kTableULast = 2,
                  kTableT1 = 3, kTableS = 4, kTableWords = 5;

gpu::GPUModuleOp moduleOf(ImplicitLocOpBuilder &b) {
  return b.getInsertionBlock()
      ->getParentOp()
      ->getParentOfType<gpu::GPUModuleOp>();
}

} // namespace

Value nvfp4::attn::constantTable(ImplicitLocOpBuilder &b,
                                 gpu::GPUModuleOp module, StringRef name,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<int32_t> data) {
  auto type = MemRefType::get(shape, b.getI32Type());
  // A table asked for again (the unit order, read wherever a unit is
  // decoded) is declared once; later requests may pass no data.
  if (auto old = module.lookupSymbol<memref::GlobalOp>(name)) {
    assert(old.getType() == type && "one table name, two shapes");
    (void)old;
  } else {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(module.getBody());
    memref::GlobalOp::create(
        b, name, b.getStringAttr("private"), type,
        DenseElementsAttr::get(RankedTensorType::get(shape, b.getI32Type()),
                               data),
        /*constant=*/true, b.getI64IntegerAttr(16));
  }
  return memref::GetGlobalOp::create(b, type, name);
}

std::pair<Value, Value> nvfp4::attn::rowBlockStart(IR &ir,
                                                   const AttentionSchedule &s,
                                                   Value rowBlock,
                                                   Value kvHead) {
  // Query block q from q x queriesPerCta - queryShift (negative for the
  // first block's padding rows).
  auto first = [&](Value qb) {
    Value q = ir.mul(qb, ir.idx(s.queriesPerCta));
    return s.queryShift ? ir.sub(q, ir.idx(s.queryShift)) : q;
  };
  if (s.headBlocks == 1)
    return {first(rowBlock), ir.mul(kvHead, ir.idx(s.group))};
  Value qb = ir.divu(rowBlock, ir.idx(s.headBlocks));
  Value hb = ir.remu(rowBlock, ir.idx(s.headBlocks));
  return {first(qb), ir.add(ir.mul(kvHead, ir.idx(s.group)),
                            ir.mul(hb, ir.idx(s.headsPerCta)))};
}

UnitIndex nvfp4::attn::unitIndex(IR &ir, const AttentionSchedule &s,
                                 const AttentionProblemShape &p, Value u) {
  UnitIndex at;
  // A static plan's own unit order (plan::localOrder): plan position u is
  // unit unitOrder[u] of the order below.
  if (!s.unitOrder.empty()) {
    // The table's data only for its first declaration in the module.
    gpu::GPUModuleOp module = moduleOf(ir.b);
    SmallVector<int32_t> order;
    if (!module.lookupSymbol(kUnitOrderTable))
      order.assign(s.unitOrder.begin(), s.unitOrder.end());
    Value table = constantTable(ir.b, module, kUnitOrderTable,
                                {int64_t(s.unitOrder.size())}, order);
    u = ir.toIndex(memref::LoadOp::create(ir.b, table, ValueRange{u}));
  }
  // With several head blocks, head block first (plan::unitOrder).
  if (s.headBlocks > 1) {
    int64_t qBlocks = s.rowBlocks / s.headBlocks;
    Value perBlock = ir.idx(p.batch * p.headsKv * qBlocks);
    Value hb = ir.divu(u, perBlock), rest = ir.remu(u, perBlock);
    at.rowBlock = ir.add(
        ir.mul(ir.remu(rest, ir.idx(qBlocks)), ir.idx(s.headBlocks)), hb);
    Value bh = ir.divu(rest, ir.idx(qBlocks));
    at.kvHead = ir.remu(bh, ir.idx(p.headsKv));
    at.batch = ir.divu(bh, ir.idx(p.headsKv));
    return at;
  }
  at.rowBlock = ir.remu(u, ir.idx(s.rowBlocks));
  Value bh = ir.divu(u, ir.idx(s.rowBlocks));
  at.kvHead = ir.remu(bh, ir.idx(p.headsKv));
  at.batch = ir.divu(bh, ir.idx(p.headsKv));
  return at;
}

UnitGeom nvfp4::attn::unitGeometry(KernelEnv &env, Value u, Value granule) {
  IR &ir = env.ir;
  const AttentionSchedule &s = env.s;
  const AttentionProblemShape &p = env.p;
  UnitGeom g;
  g.u = u;
  UnitIndex at = unitIndex(ir, s, p, u);
  g.rowBlock = at.rowBlock;
  g.kvHead = at.kvHead;
  g.batch = at.batch;
  std::tie(g.firstQuery, g.firstHead) =
      rowBlockStart(ir, s, g.rowBlock, g.kvHead);
  if (env.lens)
    g.len = ir.toIndex(
        memref::LoadOp::create(env.b, env.lens, ValueRange{g.batch}));
  else
    g.len = ir.idx(p.extra() ? p.topk : p.seqKv);
  g.mainLen = g.len;
  // A second key set: its keys follow at extraOffset.
  if (p.extra()) {
    Value l2 = env.extraLens
                   ? ir.toIndex(memref::LoadOp::create(env.b, env.extraLens,
                                                       ValueRange{g.batch}))
                   : ir.idx(p.extraTopk);
    g.len = ir.add(ir.idx(p.extraOffset), l2);
  }
  // plan::unitTiles: queries [iFirst, iEnd) sit at len - Sq + i.
  Value iFirst = g.firstQuery;
  Value iEnd = ir.mins(ir.add(iFirst, ir.idx(s.queriesPerCta)), ir.idx(p.seqQ));
  Value base = ir.sub(g.len, ir.idx(p.seqQ));
  g.keyHi = g.len;
  if (p.causal)
    g.keyHi = ir.mins(g.len, ir.add(base, iEnd));
  g.keyLo = ir.idx(0);
  // The first real query's window (a shifted first block's padding rows,
  // below query 0, need no keys; AttentionSchedule::queryShift).
  if (p.window)
    g.keyLo = ir.maxs(
        ir.idx(0),
        ir.sub(ir.add(base, s.queryShift ? ir.maxs(iFirst, ir.idx(0)) : iFirst),
               ir.idx(*p.window - 1)));
  g.keyHi = ir.maxs(g.keyHi, g.keyLo);
  g.blockLo = ir.divu(g.keyLo, granule);
  g.blockCount = ir.sub(ir.ceilDivu(g.keyHi, granule), g.blockLo);
  return g;
}

Epilogue::Row nvfp4::attn::unitRow(KernelEnv &env, const UnitGeom &u,
                                   Value r, Value iLocal, Value hh) {
  IR &ir = env.ir;
  const AttentionSchedule &s = env.s;
  Epilogue::Row row;
  row.r = r;
  row.query = ir.add(u.firstQuery, iLocal);
  row.head = ir.add(u.firstHead, hh);
  row.valid = ir.andi(
      ir.cmp(arith::CmpIPredicate::ult, r, ir.idx(s.usedRows())),
      ir.cmp(arith::CmpIPredicate::ult, row.query, ir.idx(env.p.seqQ)));
  return row;
}

std::pair<Value, Value> nvfp4::attn::visibleKeys(KernelEnv &env,
                                                 const Piece &piece,
                                                 Value query) {
  IR &ir = env.ir;
  const AttentionProblemShape &p = env.p;
  const UnitGeom &u = piece.unit;
  Value posI = ir.toI32(ir.add(ir.sub(u.len, ir.idx(p.seqQ)), query));
  Value lenI = ir.toI32(u.len);
  Value hi = lenI;
  if (p.causal)
    hi = ir.mins(lenI, ir.add(posI, ir.i32(1)));
  Value lo = ir.i32(std::numeric_limits<int32_t>::min());
  if (p.window)
    lo = ir.sub(posI, ir.i32(*p.window - 1));
  return {ir.maxs(lo, ir.toI32(piece.kLo)), ir.mins(hi, ir.toI32(piece.kHi))};
}

void WorkPlan::initShared() {
  if (env.s.split != WorkSplit::Balanced || env.s.staticPlan)
    return;
  IR &ir = env.ir;
  gpu::GPUModuleOp module = moduleOf(env.b);
  if (!module.lookupSymbol(kPlanWords)) {
    OpBuilder::InsertionGuard g(env.b);
    env.b.setInsertionPointToStart(module.getBody());
    // 16-byte aligned: LLVM loads the warp sums as vectors (and a demoted
    // shared global keeps only what it is declared with).
    memref::GlobalOp::create(env.b, kPlanWords, env.b.getStringAttr("private"),
                             ir.smemMemref({wordsOf(env.s)}, env.b.getI32Type()),
                             Attribute(), /*constant=*/false,
                             env.b.getI64IntegerAttr(16));
  }
  planWords = memref::GetGlobalOp::create(
      env.b, ir.smemMemref({wordsOf(env.s)}, env.b.getI32Type()), kPlanWords);
  // No unit yet: uFirst = INT32_MAX, uLast = -1 (an empty range).
  ir.ifThen(ir.eq(env.tid, ir.idx(0)), [&] {
    memref::StoreOp::create(env.b, ir.i32(INT32_MAX), planWords,
                            ValueRange{ir.idx(kWordUFirst)});
    memref::StoreOp::create(env.b, ir.i32(-1), planWords,
                            ValueRange{ir.idx(kWordULast)});
  });
}

void WorkPlan::computePartition() {
  IR &ir = env.ir;
  const AttentionSchedule &s = env.s;
  ImplicitLocOpBuilder &b = env.b;
  Value p = env.partition;
  granule = ir.idx(s.kvTile);
  switch (s.split) {
  case WorkSplit::Whole:
    uFirst = uLast = p;
    return;
  case WorkSplit::Uniform:
    uFirst = uLast = ir.divu(p, ir.idx(s.splitsPerUnit));
    return;
  case WorkSplit::Balanced:
    break;
  }

  if (s.staticPlan) {
    // The plan computed at compile time: one row of five words per
    // partition in a constant table.
    const plan::BalancedPlan &pl = *s.staticPlan;
    SmallVector<int32_t> words;
    for (const plan::Partition &part : pl.parts) {
      words.push_back(int32_t(part.empty() ? INT32_MAX : part.uFirst));
      words.push_back(int32_t(part.t0));
      words.push_back(int32_t(part.empty() ? -1 : part.uLast));
      words.push_back(int32_t(part.t1));
      words.push_back(int32_t(pl.perPartition));
    }
    static_assert(kTableWords == 5, "the rows pushed above");
    Value table = constantTable(b, moduleOf(b), kPlanTable,
                                {s.partitions, kTableWords}, words);
    staticTable = table;
    auto word = [&](int64_t w) {
      return ir.toIndex(
          memref::LoadOp::create(b, table, ValueRange{p, ir.idx(w)}));
    };
    uFirst = word(kTableUFirst);
    b0First = word(kTableT0);
    uLast = word(kTableULast);
    b1Last = word(kTableT1);
    perPartition = word(kTableS);
    granule = ir.idx(s.staticPlanKeys);
    return;
  }

  // The plan from kv_lens, by all 256 threads (plan::balancedPlan). Thread
  // t counts the tiles, the blocks and the empty units of units
  // [t * per, min(U, (t + 1) * per)); a CTA-wide exclusive scan of the
  // three gives the totals, the granule (blocks when they fill the SMs
  // better: plan::preferFineGranule), the overhead o = min(overhead,
  // ceil(T / P) / 8) and the first slot of each thread's first unit:
  // x_u = granules before u + u o (+ the empty units before u when o = 0,
  // each taking one slot). With head blocks (planCopies() > 1), the plan
  // of head block 0's units over P' = P / copies partitions, partition
  // c P' + p' taking what p' takes, in head block c (plan::mirroredPlan).
  const int64_t copies = s.planCopies();
  const int64_t units = s.units / copies;
  const int64_t partitions = s.partitions / copies;
  // Head block `copy`'s units are those of head block 0 plus `shift`.
  Value shift;
  if (copies > 1) {
    shift = ir.mul(ir.divu(p, ir.idx(partitions)), ir.idx(units));
    p = ir.remu(p, ir.idx(partitions));
  }
  auto unitOf = [&](const UnitGeom &g) {
    return shift ? ir.add(g.u, shift) : g.u;
  };
  const int64_t threads = s.threads;
  const int64_t per = (units + threads - 1) / threads;
  Value begin = ir.mins(ir.mul(env.tid, ir.idx(per)), ir.idx(units));
  Value end = ir.mins(ir.add(begin, ir.idx(per)), ir.idx(units));
  Value tileKeys = ir.idx(s.kvTile), blockKeys = ir.idx(s.planKeys);
  auto blocksOf = [&](const UnitGeom &g) {
    return ir.sub(ir.ceilDivu(g.keyHi, blockKeys), ir.divu(g.keyLo, blockKeys));
  };
  // Unit 0's tiles and blocks: a unit with other counts (in the granule
  // chosen below) makes the units uneven (plan::wholeUnitsShare).
  UnitGeom g0 = unitGeometry(env, ir.idx(0), tileKeys);
  Value tiles0 = g0.blockCount, blocks0 = blocksOf(g0);
  SmallVector<Value> mine = ir.forLoop(
      begin, end, ir.idx(1),
      ValueRange{ir.idx(0), ir.idx(0), ir.idx(0), ir.idx(0), ir.idx(0)},
      [&](Value u, ValueRange acc) -> SmallVector<Value> {
        UnitGeom g = unitGeometry(env, u, tileKeys);
        Value blocks = blocksOf(g);
        Value empty =
            ir.select(ir.eq(g.blockCount, ir.idx(0)), ir.idx(1), ir.idx(0));
        auto other = [&](Value n, Value n0) {
          return ir.select(ir.eq(n, n0), ir.idx(0), ir.idx(1));
        };
        return {ir.add(acc[0], g.blockCount), ir.add(acc[1], blocks),
                ir.add(acc[2], empty),
                ir.add(acc[3], other(g.blockCount, tiles0)),
                ir.add(acc[4], other(blocks, blocks0))};
      });
  // A CTA-wide exclusive scan: within the warp by shuffles, then over the
  // eight warp sums in shared memory.
  Value lane = ir.remu(env.tid, ir.idx(32));
  auto scan = [&](Value v, int64_t word) {
    Value incl = ir.toI32(v);
    for (int64_t d = 1; d < 32; d *= 2) {
      auto sh = gpu::ShuffleOp::create(b, incl, ir.i32(d), ir.i32(32),
                                       gpu::ShuffleMode::UP);
      Value take = ir.cmp(arith::CmpIPredicate::uge, lane, ir.idx(d));
      incl = ir.select(take, ir.add(incl, sh.getShuffleResult()), incl);
    }
    ir.ifThen(ir.eq(lane, ir.idx(31)), [&] {
      memref::StoreOp::create(b, incl, planWords,
                              ValueRange{ir.add(env.warp, ir.idx(word))});
    });
    return incl;
  };
  Value inclTiles = scan(mine[0], kWordWarps);
  Value inclBlocks = scan(mine[1], wordWarpsFine(s));
  Value inclEmpty = scan(mine[2], wordWarpsEmpty(s));
  Value inclUneven = scan(mine[3], wordWarpsUneven(s));
  Value inclUnevenFine = scan(mine[4], wordWarpsUnevenFine(s));
  ir.named(gpu::BarrierOp::create(b), "plan: barrier after the warp sums");
  auto finish = [&](Value incl, Value v, int64_t word, Value &before,
                    Value &total) {
    Value warpBase = ir.i32(0), sum = ir.i32(0);
    for (int64_t w = 0; w < threads / 32; ++w) {
      Value part =
          memref::LoadOp::create(b, planWords, ValueRange{ir.idx(word + w)});
      warpBase =
          ir.select(ir.cmp(arith::CmpIPredicate::ult, ir.idx(w), env.warp),
                    ir.add(warpBase, part), warpBase);
      sum = ir.add(sum, part);
    }
    before = ir.toIndex(ir.sub(ir.add(warpBase, incl), ir.toI32(v)));
    total = ir.toIndex(sum);
  };
  Value tilesBefore, blocksBefore, emptyBefore, unevenBefore, Tc, Tf, E0,
      unevenTiles, unevenBlocks;
  finish(inclTiles, mine[0], kWordWarps, tilesBefore, Tc);
  finish(inclBlocks, mine[1], wordWarpsFine(s), blocksBefore, Tf);
  finish(inclEmpty, mine[2], wordWarpsEmpty(s), emptyBefore, E0);
  finish(inclUneven, mine[3], wordWarpsUneven(s), unevenBefore, unevenTiles);
  finish(inclUnevenFine, mine[4], wordWarpsUnevenFine(s), unevenBefore,
         unevenBlocks);
  // plan::preferFineGranule: 16 Tf cc >= 16 Tc cf + P cf cc.
  Value P = ir.idx(partitions);
  Value cf = ir.maxs(ir.idx(1), ir.ceilDivu(Tf, P));
  Value cc = ir.maxs(ir.idx(1), ir.ceilDivu(Tc, P));
  Value fine = ir.i1(false);
  if (s.planKeys < s.kvTile)
    fine = ir.cmp(arith::CmpIPredicate::sge,
                  ir.mul(ir.idx(16), ir.mul(Tf, cc)),
                  ir.add(ir.mul(ir.idx(16), ir.mul(Tc, cf)),
                         ir.mul(P, ir.mul(cf, cc))));
  granule = ir.select(fine, blockKeys, tileKeys);
  Value T = ir.select(fine, Tf, Tc);
  Value before = ir.select(fine, blocksBefore, tilesBefore);
  Value o = ir.mins(
      ir.select(fine, ir.idx(s.overheadBlocks), ir.idx(s.overheadTiles)),
      ir.divu(ir.ceilDivu(T, P), ir.idx(8)));
  Value noOverhead = ir.eq(o, ir.idx(0));
  Value total = ir.add(ir.add(T, ir.mul(ir.idx(units), o)),
                       ir.select(noOverhead, E0, ir.idx(0)));
  Value x0 = ir.add(ir.add(before, ir.mul(begin, o)),
                    ir.select(noOverhead, emptyBefore, ir.idx(0)));
  // plan::minPieceSlots in the chosen granule: no share below it.
  Value minSlots =
      ir.select(fine, ir.idx(plan::minPieceSlots(s.minPieceKeys, s.planKeys)),
                ir.idx(plan::minPieceSlots(s.minPieceKeys, s.kvTile)));
  Value S = ir.maxs(minSlots, ir.ceilDivu(total, P));
  // plan::wholeUnitsShare: with units of equal slots u, k = ceil(U / P)
  // whole units a partition when that costs at most min(slack, S / 8)
  // slots more.
  {
    Value unit =
        ir.maxs(ir.idx(1), ir.add(ir.select(fine, blocks0, tiles0), o));
    Value whole = ir.mul(ir.idx((units + partitions - 1) / partitions), unit);
    Value slack =
        ir.mins(ir.idx(plan::kWholeUnitsSlack), ir.divu(S, ir.idx(8)));
    Value take = ir.andi(
        ir.eq(ir.select(fine, unevenBlocks, unevenTiles), ir.idx(0)),
        ir.andi(ir.cmp(arith::CmpIPredicate::sge, whole, S),
                ir.cmp(arith::CmpIPredicate::sle, whole, ir.add(S, slack))));
    S = ir.select(take, whole, S);
  }
  Value A = ir.mul(p, S);
  Value E = ir.mins(ir.add(A, S), total);
  // Which of this thread's units the partition processes (it owns one of
  // their tile slots, or the first slot of a unit without tiles).
  auto walk = [&](function_ref<void(const UnitGeom &, Value x, Value t,
                                    Value processed)>
                      f) {
    ir.forLoop(begin, end, ir.idx(1), ValueRange{x0},
               [&](Value u, ValueRange xs) -> SmallVector<Value> {
                 UnitGeom g = unitGeometry(env, u, granule);
                 Value x = xs[0];
                 Value t = ir.add(x, o);
                 Value hasTiles = ir.ne(g.blockCount, ir.idx(0));
                 Value ownsTile =
                     ir.cmp(arith::CmpIPredicate::slt, ir.maxs(A, t),
                            ir.mins(E, ir.add(t, g.blockCount)));
                 Value ownsSlot =
                     ir.andi(ir.cmp(arith::CmpIPredicate::sle, A, x),
                             ir.cmp(arith::CmpIPredicate::slt, x, E));
                 f(g, x, t, ir.select(hasTiles, ownsTile, ownsSlot));
                 // plan::unitSlots: max(1, tiles + o).
                 return {ir.add(x, ir.maxs(ir.idx(1), ir.add(g.blockCount, o)))};
               });
  };
  walk([&](const UnitGeom &g, Value, Value, Value processed) {
    ir.ifThen(processed, [&] {
      Value u = ir.toI32(unitOf(g));
      memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::mins, u, planWords,
                                  ValueRange{ir.idx(kWordUFirst)});
      memref::AtomicRMWOp::create(b, arith::AtomicRMWKind::maxs, u, planWords,
                                  ValueRange{ir.idx(kWordULast)});
    });
  });
  ir.named(gpu::BarrierOp::create(b), "plan: barrier after the unit range");
  Value first = ir.toIndex(
      memref::LoadOp::create(b, planWords, ValueRange{ir.idx(kWordUFirst)}));
  Value last = ir.toIndex(
      memref::LoadOp::create(b, planWords, ValueRange{ir.idx(kWordULast)}));
  walk([&](const UnitGeom &g, Value, Value t, Value) {
    Value zero = ir.idx(0);
    ir.ifThen(ir.eq(unitOf(g), first), [&] {
      memref::StoreOp::create(
          b, ir.toI32(ir.clamp(ir.sub(A, t), zero, g.blockCount)), planWords,
          ValueRange{ir.idx(kWordT0)});
    });
    ir.ifThen(ir.eq(unitOf(g), last), [&] {
      memref::StoreOp::create(
          b, ir.toI32(ir.clamp(ir.sub(E, t), zero, g.blockCount)), planWords,
          ValueRange{ir.idx(kWordT1)});
    });
  });
  ir.named(gpu::BarrierOp::create(b), "plan: barrier after the tile bounds");
  uFirst = first;
  uLast = last;
  b0First = ir.toIndex(
      memref::LoadOp::create(b, planWords, ValueRange{ir.idx(kWordT0)}));
  b1Last = ir.toIndex(
      memref::LoadOp::create(b, planWords, ValueRange{ir.idx(kWordT1)}));
  perPartition = S;
}

Value WorkPlan::reread(int64_t tableWord) {
  IR &ir = env.ir;
  return ir.toIndex(memref::LoadOp::create(
      env.b, staticTable,
      ValueRange{ir.opaque(env.partition), ir.idx(tableWord)}));
}

SmallVector<Value> WorkPlan::forEachPiece(
    ValueRange init,
    function_ref<SmallVector<Value>(const Piece &, ValueRange)> body,
    bool lean) {
  IR &ir = env.ir;
  const AttentionSchedule &s = env.s;
  // Each role reads a device plan's bounds again from the shared words
  // (for the first role LLVM merges the loads with the prologue's): held
  // from the prologue, a later role's bounds stayed live across the
  // earlier roles' loops (the roles are a sequence of ifs on the warp
  // index), and ptxas spilled them in one-consumer sm_90a kernels at 240
  // registers (docs/Hopper.md, "Spills of the larger sweep"). Not with
  // the sm_90a ping-pong's two or three consumer warpgroups of 64 rows
  // each, which spilled with the reads added and spill with none: ptxas's
  // choice, measured over the matrix and the sweep.
  Value uFirst0 = uFirst, uLast0 = uLast, b0First0 = b0First, b1Last0 = b1Last;
  if (planWords && !staticTable && s.split == WorkSplit::Balanced &&
      !(s.hopper() && s.pingPong)) {
    auto word = [&](int64_t w) {
      return ir.toIndex(
          memref::LoadOp::create(env.b, planWords, ValueRange{ir.idx(w)}));
    };
    uFirst0 = word(kWordUFirst);
    uLast0 = word(kWordULast);
    b0First0 = word(kWordT0);
    b1Last0 = word(kWordT1);
  }
  // uLast + 1 in i32 arithmetic: an empty device plan has uLast = -1.
  Value end = ir.add(uLast0, ir.idx(1));
  lean = lean && staticTable;
  return ir.forLoop(
      uFirst0, end, ir.idx(1), init,
      [&](Value u, ValueRange args) -> SmallVector<Value> {
        // A lean role re-reads the partition's bounds per piece.
        Value uFirst = uFirst0, uLast = uLast0, b0First = b0First0,
              b1Last = b1Last0;
        if (lean) {
          uFirst = reread(kTableUFirst);
          uLast = reread(kTableULast);
          b0First = reread(kTableT0);
          b1Last = reread(kTableT1);
        }
        Piece piece;
        piece.unit = unitGeometry(env, u, granule);
        Value count = piece.unit.blockCount;
        switch (s.split) {
        case WorkSplit::Whole:
          piece.b0 = ir.idx(0);
          piece.b1 = count;
          piece.whole = ir.i1(true);
          break;
        case WorkSplit::Uniform: {
          Value k = ir.remu(env.partition, ir.idx(s.splitsPerUnit));
          Value n = ir.idx(s.splitsPerUnit);
          piece.b0 = ir.divu(ir.mul(k, count), n);
          piece.b1 = ir.divu(ir.mul(ir.add(k, ir.idx(1)), count), n);
          // Every part is a partial result, even an empty one: the combine
          // always merges N of them.
          piece.whole = ir.i1(false);
          break;
        }
        case WorkSplit::Balanced:
          piece.b0 = ir.select(ir.eq(u, uFirst), b0First, ir.idx(0));
          piece.b1 = ir.select(ir.eq(u, uLast), b1Last, count);
          piece.whole =
              ir.andi(ir.eq(piece.b0, ir.idx(0)), ir.eq(piece.b1, count));
          break;
        }
        piece.first = ir.eq(piece.b0, ir.idx(0));
        if (s.split == WorkSplit::Uniform)
          piece.first =
              ir.eq(ir.remu(env.partition, ir.idx(s.splitsPerUnit)), ir.idx(0));
        // The keys and tiles of the blocks.
        const UnitGeom &g = piece.unit;
        piece.kLo = ir.maxs(
            g.keyLo,
            ir.mul(ir.add(g.blockLo, piece.b0), granule));
        piece.kHi = ir.mins(
            g.keyHi,
            ir.mul(ir.add(g.blockLo, piece.b1), granule));
        piece.any = ir.cmp(arith::CmpIPredicate::ult, piece.b0, piece.b1);
        piece.tLo = ir.divu(piece.kLo, ir.idx(s.kvTile));
        piece.tiles = ir.select(
            piece.any,
            ir.sub(ir.ceilDivu(piece.kHi, ir.idx(s.kvTile)), piece.tLo),
            ir.idx(0));
        return body(piece, args);
      });
}

Value WorkPlan::slot(const Piece &piece) {
  IR &ir = env.ir;
  if (env.s.split == WorkSplit::Uniform)
    return env.partition;
  // Balanced: slot 2p for the partition's first unit, 2p + 1 for its last
  // (a split unit is one of the two).
  Value twoP = ir.mul(env.partition, ir.idx(2));
  return ir.select(ir.eq(piece.unit.u, uFirst), twoP, ir.add(twoP, ir.idx(1)));
}

std::tuple<Value, Value, Value> WorkPlan::unitRecord(const Piece &piece) {
  IR &ir = env.ir;
  if (env.s.split == WorkSplit::Uniform)
    return {env.partition, ir.idx(env.s.splitsPerUnit), env.partition};
  // Balanced: the partitions after this one take S tiles each of the rest.
  Value rest = ir.sub(piece.unit.blockCount, piece.b1);
  Value n = ir.add(ir.idx(1), ir.ceilDivu(rest, perPartition));
  return {slot(piece), n, env.partition};
}
