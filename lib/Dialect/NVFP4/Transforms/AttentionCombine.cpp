//===- AttentionCombine.cpp - merge an attention's partial results --------===//
//
// The second kernel of a split-KV attention (docs/AttentionLowering.md,
// "Combine"), launched programmatically after the attention kernel (it
// waits for that grid first). A CTA of four warps merges rows of one unit
// (128 or 64 columns of Dv): one row with all its threads when rows are
// few, a row a warp when they are many; a unit that the main kernel
// processed whole (its record says one piece) is skipped, and with a plan
// made at compile time the grid covers only the units it splits. For
// each row, with the n partial results (o_k, lse_k) (base 2, no sink) and
// the sink s (base 2) when there is one:
//
//   m = max(max_k lse_k, s),  Z = sum_k 2^(lse_k - m) + 2^(s - m)
//   O = sum_k 2^(lse_k - m) / Z * o_k,  LSE = (m + log2 Z) ln 2
//
// (docs/Attention.md, "Merging partial results"); a row whose parts are all
// empty and has no sink gets O = 0 and LSE = -inf. Every sum has a fixed
// order (each thread's pieces in order, then the threads or groups in
// order), so the result does not depend on which CTA finished first.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"
#include "BlockQuantizer.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::attn;

namespace {
constexpr int64_t kCombineThreads = 128;
constexpr int32_t kCombineRegs = 64;
/// The most rows one combine CTA merges (one after another).
constexpr int64_t kMaxRowsPerCta = 16;

/// Stores the two columns `v` (vector<2xf32>) at `col` of row (batch,
/// query, head) of an NVFP4 O: a block of 16 columns is 8 consecutive
/// lanes, so its amax is a 3-step xor shuffle; each lane writes its byte of
/// codes and the block's first lane the scale factor.
void storeNvfp4Pair(IR &ir, const AttentionProblemShape &p,
                    const BlockQuantizer &quant, Value lane, Value col,
                    Value v, Value outO, Value outSf, Value batch, Value query,
                    Value head) {
  ImplicitLocOpBuilder &b = ir.b;
  Value x0 = vector::ExtractOp::create(b, v, ArrayRef<int64_t>{0});
  Value x1 = vector::ExtractOp::create(b, v, ArrayRef<int64_t>{1});
  Value amax = BlockQuantizer::amax(ir, NanPolicy::propagate, {x0, x1});
  for (int32_t off = 1; off < 8; off *= 2) {
    Value other = gpu::ShuffleOp::create(b, amax, off, int32_t(32),
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    amax = arith::MaximumFOp::create(b, amax, other);
  }
  auto [code, mult] = quant.scale(amax);
  memref::StoreOp::create(
      b, quant.pack(x0, x1, mult), outO,
      ValueRange{batch, query, head, ir.divu(col, ir.idx(2))});
  ir.ifThen(ir.eq(ir.remu(lane, ir.idx(8)), ir.idx(0)), [&] {
    memref::StoreOp::create(
        b, code, outSf,
        ValueRange{oScaleOffset(ir, p, batch, query, head, col)});
  });
}

/// The exponent base of a merge from the max `mx` of its parts' LSEs (and
/// the sink): mx, or 0 when every part is empty and there is no sink (no
/// -inf - -inf).
Value mergeBase(IR &ir, Value mx) {
  return ir.select(
      arith::CmpFOp::create(ir.b, arith::CmpFPredicate::OEQ, mx, ir.negInf()),
      ir.f32(0.0), mx);
}

/// The merged row's natural-log LSE, (base + log2 z) ln 2, and the scale
/// 1 / z of its parts' weights (0 when z is 0: every part empty, no sink).
std::pair<Value, Value> mergeLseAndScale(IR &ir, Value base, Value z) {
  ImplicitLocOpBuilder &b = ir.b;
  Value lse =
      arith::MulFOp::create(b, arith::AddFOp::create(b, base, ir.lg2(z)),
                            ir.f32(0.69314718055994530942));
  Value positive =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, z, ir.f32(0.0));
  Value inv = ir.select(positive, arith::DivFOp::create(b, ir.f32(1.0), z),
                        ir.f32(0.0));
  return {lse, inv};
}
} // namespace

void nvfp4::attn::emitRowMerge(IR &ir, const RowMerge &m) {
  ImplicitLocOpBuilder &b = ir.b;
  Type f32 = b.getF32Type();
  Value ninf = ir.negInf(), zero = ir.f32(0.0);
  // Three passes over the parts (their max, the sum of their weights, O),
  // unrolled: each part's LSE is read once and its exponential taken once
  // (the cluster merge reads them from another CTA's shared memory).
  SmallVector<Value> lses, weights;
  for (int64_t k = 0; k < m.parts; ++k)
    lses.push_back(m.lse2(ir.idx(k)));
  // m = max(max_k lse_k, s); exponents against 0 when every part is empty
  // and there is no sink (no -inf - -inf).
  Value mx = m.sinkL ? m.sinkL : ninf;
  for (Value lse : lses)
    mx = arith::MaximumFOp::create(b, mx, lse);
  Value mS = mergeBase(ir, mx);
  Value z = m.sinkL ? ir.ex2(arith::SubFOp::create(b, m.sinkL, mS)) : zero;
  for (Value lse : lses) {
    weights.push_back(ir.ex2(arith::SubFOp::create(b, lse, mS)));
    z = arith::AddFOp::create(b, z, weights.back());
  }
  auto [lse, inv] = mergeLseAndScale(ir, mS, z);
  Value lane0 = ir.eq(m.lane, ir.idx(0));
  ir.ifThen(m.writesLse ? ir.andi(lane0, m.writesLse) : lane0,
            [&] { m.storeLse(lse); });
  // O: lane owns columns colBase + width * lane + 32 * width * c.
  auto vw = VectorType::get({m.width}, f32);
  const int64_t per = m.columns / (32 * m.width);
  Value zeroW = arith::ConstantOp::create(
      b, DenseElementsAttr::get(vw, FloatAttr::get(f32, 0.0)));
  SmallVector<Value> acc(per, zeroW);
  Value base = m.colBase ? m.colBase : ir.idx(0);
  auto col = [&](int64_t c) {
    return ir.add(base, ir.add(ir.mul(m.lane, ir.idx(m.width)),
                               ir.idx(32 * m.width * c)));
  };
  for (int64_t k = 0; k < m.parts; ++k) {
    Value w = arith::MulFOp::create(b, weights[k], inv);
    Value wv = vector::BroadcastOp::create(b, vw, w);
    for (int64_t c = 0; c < per; ++c)
      acc[c] = vector::FMAOp::create(b, m.load(ir.idx(k), col(c)), wv, acc[c]);
  }
  for (int64_t c = 0; c < per; ++c)
    m.storeO(col(c), acc[c]);
}

DictionaryAttr nvfp4::attn::buildCombineKernel(const AttentionSchedule &s,
                                               ImplicitLocOpBuilder &b,
                                               gpu::GPUModuleOp module,
                                               StringRef name) {
  const AttentionProblemShape &p = s.problem;
  IR ir(b);
  Type f32 = b.getF32Type();
  SmallVector<Type> args;
  appendOutputTypes(p, b, args);
  const unsigned outputs = args.size();
  args.push_back(
      MemRefType::get({s.workspaceSlots(), s.usedRows(), p.headDimV}, f32));
  args.push_back(MemRefType::get({s.workspaceSlots(), s.usedRows()}, f32));
  args.push_back(MemRefType::get({s.units, 4}, b.getI32Type()));
  if (p.hasSink)
    args.push_back(MemRefType::get({p.headsQ}, f32));

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto func = gpu::GPUFuncOp::create(b, name, b.getFunctionType(args, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(kCombineThreads), 1, 1}));
  // With only .maxntid 128 ptxas aims at 16 CTAs an SM (32 registers) and
  // spilled (h_paged64_d256_window); 64 registers still let 8 CTAs an SM
  // share one.
  func->setAttr("nvvm.maxnreg", b.getI32IntegerAttr(kCombineRegs));
  b.setInsertionPointToStart(&func.getBody().front());
  // Launched programmatically after the attention kernel (its CTAs may be
  // resident before that kernel has finished): nothing before this wait
  // may read what it writes. A no-op when launched normally.
  NVVM::GriddepcontrolOp::create(b, NVVM::GridDepActionKind::wait);
  Value outO = func.getArgument(0), outLse = func.getArgument(1);
  Value outSf = p.nvfp4Out ? func.getArgument(2) : Value();
  Value outScale = p.nvfp4Out ? func.getArgument(3) : Value();
  Value partialO = func.getArgument(outputs);
  Value partialLse = func.getArgument(outputs + 1);
  Value records = func.getArgument(outputs + 2);
  Value sink = p.hasSink ? func.getArgument(outputs + 3) : Value();

  // Two ways to spread rows over threads, by how many rows there are
  // (docs/AttentionLowering.md, "Combine"). Few rows (B = 1: a unit's
  // pieces are many): a CTA merges one row at a time with all its threads,
  // the pieces' LSEs spread over the threads (then a CTA reduction) and the
  // O sum over `groups` groups of threads, each group a float4 of columns a
  // thread and every groups-th piece (then a sum of the groups through
  // shared memory, in group order). Many rows (a unit's pieces are few): a
  // warp a row, no barriers, the LSEs over the lanes (a warp reduction),
  // each lane two columns and every piece in order. Rows per CTA are few
  // enough that the grid fills the SMs eight times over.
  const int64_t sliceColumns = p.headDimV % 128 == 0 ? 128 : 64;
  const int64_t slices = p.headDimV / sliceColumns;
  const int64_t quads = sliceColumns / 4;
  const int64_t groups = kCombineThreads / quads;
  constexpr int64_t warps = kCombineThreads / 32;
  // A plan made at compile time names the units it splits: the grid
  // covers only those (a causal prefill splits one unit in ten or fewer),
  // through a constant table; a plan made on the device, or one that
  // splits every unit, covers them all.
  const bool listed =
      s.staticPlan && int64_t(s.staticSplitUnits.size()) < s.units;
  const int64_t gridUnits =
      listed ? std::max<int64_t>(1, s.staticSplitUnits.size()) : s.units;
  const int64_t fillRows = gridUnits * s.usedRows() * slices / (8 * s.numSms);
  const bool warpRows = fillRows >= 2;
  // Rows a CTA merges, and (warp rows) a warp: a power of two, so that a
  // unit's rows (64 or 128 for MLA and GQA decodes) fill whole CTAs.
  const int64_t rowsPerWarp =
      warpRows ? int64_t(llvm::bit_floor(uint64_t(std::clamp<int64_t>(
                     fillRows / warps, 1, kMaxRowsPerCta / warps))))
               : 1;
  const int64_t rowsPerCta = warpRows ? warps * rowsPerWarp : 1;
  const int64_t rowGroups = (s.usedRows() + rowsPerCta - 1) / rowsPerCta;
  Value red, scratch;
  if (!warpRows) {
    red = func.addWorkgroupAttribution(
        ir.smemMemref({groups * sliceColumns}, f32), b.getLoc());
    scratch = func.addWorkgroupAttribution(ir.smemMemref({2 * warps}, f32),
                                           b.getLoc());
  }

  Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value warp = ir.divu(tid, ir.idx(32));
  Value lane = ir.remu(tid, ir.idx(32));
  Value u = ir.divu(bx, ir.idx(rowGroups * slices));
  if (listed) {
    // No unit is split: one CTA finds unit 0 whole and leaves.
    SmallVector<int32_t> ids(s.staticSplitUnits.begin(),
                             s.staticSplitUnits.end());
    if (ids.empty())
      ids.push_back(0);
    Value table = constantTable(b, module, (name + "_units").str(),
                                {int64_t(ids.size())}, ids);
    u = ir.toIndex(memref::LoadOp::create(b, table, ValueRange{u}));
  }
  Value rg = ir.remu(ir.divu(bx, ir.idx(slices)), ir.idx(rowGroups));
  Value slice = ir.remu(bx, ir.idx(slices));
  Value colBase = ir.mul(slice, ir.idx(sliceColumns));
  auto [batch, kvHead, rowBlock] = unitIndex(ir, s, p, u);
  auto [firstQuery, firstHead] = rowBlockStart(ir, s, rowBlock, kvHead);
  auto word = [&](int64_t w) {
    return ir.toIndex(
        memref::LoadOp::create(b, records, ValueRange{u, ir.idx(w)}));
  };
  Value firstSlot = word(0), pieces = word(1), p0 = word(2);
  // Piece k's slot: the first piece's own, then one per later partition.
  auto slotOf = [&](Value k) {
    Value later = s.split == WorkSplit::Balanced
                      ? ir.mul(ir.add(p0, k), ir.idx(2))
                      : ir.add(p0, k);
    return ir.select(ir.eq(k, ir.idx(0)), firstSlot, later);
  };
  auto maxOp = [&](Value x, Value y) -> Value {
    return arith::MaximumFOp::create(b, x, y);
  };
  auto addOp = [&](Value x, Value y) -> Value {
    return arith::AddFOp::create(b, x, y);
  };
  Value ninf = ir.negInf(), zero = ir.f32(0.0);
  // Stores `sums[c]` (vector<2xf32>), columns 2 lane + 64 c of the slice,
  // of the merged row (query, head): 8 lanes a 16-column block, as the
  // NVFP4 store needs.
  auto storeRow = [&](ArrayRef<Value> sums, Value query, Value head) {
    std::optional<BlockQuantizer> quant;
    if (p.nvfp4Out)
      quant.emplace(ir, QuantRecipe::fast, NanPolicy::propagate,
                    memref::LoadOp::create(b, outScale, ValueRange{ir.idx(0)}));
    for (auto [c, sum] : llvm::enumerate(sums)) {
      Value at = ir.add(
          colBase, ir.add(ir.mul(lane, ir.idx(2)), ir.idx(64 * int64_t(c))));
      if (p.nvfp4Out)
        storeNvfp4Pair(ir, p, *quant, lane, at, sum, outO, outSf, batch, query,
                       head);
      else
        vector::StoreOp::create(
            b,
            arith::TruncFOp::create(b, VectorType::get({2}, p.outElement), sum),
            outO, ValueRange{batch, query, head, at});
    }
  };
  ir.ifThen(ir.cmp(arith::CmpIPredicate::sgt, pieces, ir.idx(1)), [&] {
    ir.forLoop(ir.idx(0), ir.idx(rowsPerWarp), ir.idx(1), [&](Value j) {
      // Warp rows: warp w's rows are w, w + warps, ... of the CTA's.
      Value r = warpRows ? ir.add(ir.mul(rg, ir.idx(rowsPerCta)),
                                  ir.add(ir.mul(j, ir.idx(warps)), warp))
                         : rg;
      Value query = ir.add(firstQuery, ir.divu(r, ir.idx(s.headsPerCta)));
      Value head = ir.add(firstHead, ir.remu(r, ir.idx(s.headsPerCta)));
      // The same for every thread of the CTA (of the warp with warp rows):
      // its barriers are uniform.
      Value valid =
          ir.andi(ir.cmp(arith::CmpIPredicate::ult, r, ir.idx(s.usedRows())),
                  ir.cmp(arith::CmpIPredicate::ult, query, ir.idx(p.seqQ)));
      ir.ifThen(valid, [&] {
        auto lse2 = [&](Value k) -> Value {
          return memref::LoadOp::create(b, partialLse,
                                        ValueRange{slotOf(k), r});
        };
        // The pieces' LSEs over the row's threads: thread t takes pieces
        // t, t + threads, ...
        Value first = warpRows ? lane : tid;
        int64_t threads = warpRows ? 32 : kCombineThreads;
        auto reduce = [&](Value v, int64_t at,
                          function_ref<Value(Value, Value)> op) {
          return warpRows ? ir.warpReduce(v, op)
                          : ir.ctaReduce(v, scratch, at, threads, op);
        };
        // m = max(max_k lse_k, s); exponents against 0 when every part is
        // empty and there is no sink (no -inf - -inf).
        Value mx =
            ir.forLoop(first, pieces, ir.idx(threads), ValueRange{ninf},
                       [&](Value k, ValueRange acc) -> SmallVector<Value> {
                         return {maxOp(acc[0], lse2(k))};
                       })[0];
        mx = reduce(mx, 0, maxOp);
        Value sinkL;
        if (sink) {
          sinkL = arith::MulFOp::create(
              b, memref::LoadOp::create(b, sink, ValueRange{head}),
              ir.f32(1.4426950408889634));
          mx = maxOp(mx, sinkL);
        }
        Value mS = mergeBase(ir, mx);
        Value z = ir.forLoop(
            first, pieces, ir.idx(threads), ValueRange{zero},
            [&](Value k, ValueRange acc) -> SmallVector<Value> {
              return {
                  addOp(acc[0], ir.ex2(arith::SubFOp::create(b, lse2(k), mS)))};
            })[0];
        z = reduce(z, warps, addOp);
        if (sinkL)
          z = addOp(z, ir.ex2(arith::SubFOp::create(b, sinkL, mS)));
        auto [lse, inv] = mergeLseAndScale(ir, mS, z);
        ir.ifThen(ir.andi(ir.eq(first, ir.idx(0)), ir.eq(slice, ir.idx(0))),
                  [&] {
                    memref::StoreOp::create(b, lse, outLse,
                                            ValueRange{batch, head, query});
                  });
        auto weight = [&](Value k) -> Value {
          return arith::MulFOp::create(
              b, ir.ex2(arith::SubFOp::create(b, lse2(k), mS)), inv);
        };
        auto v2 = VectorType::get({2}, f32);
        if (warpRows) {
          // O: lane sums columns 2 lane + 64 c over every piece in order.
          Value zero2 = arith::ConstantOp::create(
              b, DenseElementsAttr::get(v2, FloatAttr::get(f32, 0.0)));
          const int64_t pairs = sliceColumns / 64;
          SmallVector<Value> sums = ir.forLoop(
              ir.idx(0), pieces, ir.idx(1), SmallVector<Value>(pairs, zero2),
              [&](Value k, ValueRange a) -> SmallVector<Value> {
                Value wv = vector::BroadcastOp::create(b, v2, weight(k));
                SmallVector<Value> next;
                for (int64_t c = 0; c < pairs; ++c) {
                  Value col = ir.add(
                      colBase, ir.add(ir.mul(lane, ir.idx(2)), ir.idx(64 * c)));
                  Value o = vector::LoadOp::create(
                      b, v2, partialO, ValueRange{slotOf(k), r, col},
                      /*nontemporal=*/false, llvm::Align(8));
                  next.push_back(vector::FMAOp::create(b, o, wv, a[c]));
                }
                return next;
              });
          storeRow(sums, query, head);
          return;
        }
        // O: thread (group g, quad q) sums columns 4 q .. 4 q + 3 of the
        // slice over pieces g, g + groups, ...
        auto v4 = VectorType::get({4}, f32);
        Value g = ir.divu(tid, ir.idx(quads));
        Value q4 = ir.mul(ir.remu(tid, ir.idx(quads)), ir.idx(4));
        Value zero4 = arith::ConstantOp::create(
            b, DenseElementsAttr::get(v4, FloatAttr::get(f32, 0.0)));
        Value acc = ir.forLoop(
            g, pieces, ir.idx(groups), ValueRange{zero4},
            [&](Value k, ValueRange a) -> SmallVector<Value> {
              Value o = vector::LoadOp::create(
                  b, v4, partialO,
                  ValueRange{slotOf(k), r, ir.add(colBase, q4)},
                  /*nontemporal=*/false, llvm::Align(16));
              return {vector::FMAOp::create(
                  b, o, vector::BroadcastOp::create(b, v4, weight(k)), a[0])};
            })[0];
        vector::StoreOp::create(
            b, acc, red,
            ValueRange{ir.add(ir.mul(g, ir.idx(sliceColumns)), q4)});
        gpu::BarrierOp::create(b);
        // Warp 0 adds the groups' sums in order and stores the row.
        ir.ifThen(ir.eq(warp, ir.idx(0)), [&] {
          SmallVector<Value> sums;
          for (int64_t c = 0; c < sliceColumns / 64; ++c) {
            Value col = ir.add(ir.mul(lane, ir.idx(2)), ir.idx(64 * c));
            Value sum = vector::LoadOp::create(b, v2, red, ValueRange{col});
            for (int64_t gg = 1; gg < groups; ++gg)
              sum = arith::AddFOp::create(
                  b, sum,
                  vector::LoadOp::create(
                      b, v2, red,
                      ValueRange{ir.add(col, ir.idx(gg * sliceColumns))}));
            sums.push_back(sum);
          }
          storeRow(sums, query, head);
        });
      });
    });
  });
  gpu::ReturnOp::create(b);

  // The harness launch entry.
  SmallVector<Attribute> hargs;
  appendOutputHarnessArgs(p, b, hargs);
  for (StringRef n : {"partial_o", "partial_lse", "unit_records"})
    hargs.push_back(harnessBuffer(b, n));
  if (p.hasSink)
    hargs.push_back(harnessBuffer(b, "sink"));
  return b.getDictionaryAttr(
      {b.getNamedAttr("kernel", b.getStringAttr(name)),
       b.getNamedAttr("grid",
                      b.getDenseI32ArrayAttr(
                          {int32_t(gridUnits * rowGroups * slices), 1, 1})),
       b.getNamedAttr("block",
                      b.getDenseI32ArrayAttr({int32_t(kCombineThreads), 1, 1})),
       b.getNamedAttr("args", b.getArrayAttr(hargs)),
       b.getNamedAttr("programmatic", b.getBoolAttr(true))});
}
