//===- AttentionCombine.cpp - merge an attention's partial results --------===//
//
// The second kernel of a split-KV attention (docs/AttentionLowering.md,
// "Combine"). One CTA of four warps per (unit, 16 rows, 128 columns of
// Dv); a unit that the main kernel processed whole (its record says one
// piece) is skipped. For
// each row, with the n partial results (o_k, lse_k) (base 2, no sink) and
// the sink s (base 2) when there is one:
//
//   m = max(max_k lse_k, s),  Z = sum_k 2^(lse_k - m) + 2^(s - m)
//   O = sum_k 2^(lse_k - m) / Z * o_k,  LSE = (m + log2 Z) ln 2
//
// (docs/Attention.md, "Merging partial results"); a row whose parts are all
// empty and has no sink gets O = 0 and LSE = -inf. Lanes split Dv in pairs
// of columns; the sum runs over the pieces in order, so the result does not
// depend on which CTA finished first.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"
#include "BlockQuantizer.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::attn;

namespace {
constexpr int64_t kCombineWarps = 4;
constexpr int64_t kRowsPerWarp = 4;
constexpr int64_t kRowsPerCta = kCombineWarps * kRowsPerWarp;
/// Columns of Dv one combine CTA merges (Dv = 64: all 64).
constexpr int64_t kSliceColumns = 128;

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
} // namespace

void nvfp4::attn::emitRowMerge(IR &ir, const RowMerge &m) {
  ImplicitLocOpBuilder &b = ir.b;
  Type f32 = b.getF32Type();
  Value ninf = ir.negInf(), zero = ir.f32(0.0);
  // m = max(max_k lse_k, s); exponents against 0 when every part is empty
  // and there is no sink (no -inf - -inf).
  Value init = m.sinkL ? m.sinkL : ninf;
  Value mx =
      ir.forLoop(ir.idx(0), m.parts, ir.idx(1), ValueRange{init},
                 [&](Value k, ValueRange acc) -> SmallVector<Value> {
                   return {arith::MaximumFOp::create(b, acc[0], m.lse2(k))};
                 })[0];
  Value mS = ir.select(
      arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mx, ninf), zero, mx);
  Value z0 = m.sinkL ? ir.ex2(arith::SubFOp::create(b, m.sinkL, mS)) : zero;
  Value z = ir.forLoop(ir.idx(0), m.parts, ir.idx(1), ValueRange{z0},
                       [&](Value k, ValueRange acc) -> SmallVector<Value> {
                         Value e =
                             ir.ex2(arith::SubFOp::create(b, m.lse2(k), mS));
                         return {arith::AddFOp::create(b, acc[0], e)};
                       })[0];
  Value lse = arith::MulFOp::create(b, arith::AddFOp::create(b, mS, ir.lg2(z)),
                                    ir.f32(0.69314718055994530942));
  Value positive = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, z, zero);
  Value inv =
      ir.select(positive, arith::DivFOp::create(b, ir.f32(1.0), z), zero);
  Value lane0 = ir.eq(m.lane, ir.idx(0));
  ir.ifThen(m.writesLse ? ir.andi(lane0, m.writesLse) : lane0,
            [&] { m.storeLse(lse); });
  // O: lane owns columns colBase + width * lane + 32 * width * c.
  auto vw = VectorType::get({m.width}, f32);
  const int64_t per = m.columns / (32 * m.width);
  Value zeroW = arith::ConstantOp::create(
      b, DenseElementsAttr::get(vw, FloatAttr::get(f32, 0.0)));
  SmallVector<Value> init0(per, zeroW);
  Value base = m.colBase ? m.colBase : ir.idx(0);
  auto col = [&](int64_t c) {
    return ir.add(base, ir.add(ir.mul(m.lane, ir.idx(m.width)),
                               ir.idx(32 * m.width * c)));
  };
  SmallVector<Value> acc =
      ir.forLoop(ir.idx(0), m.parts, ir.idx(1), init0,
                 [&](Value k, ValueRange accs) -> SmallVector<Value> {
                   Value w = arith::MulFOp::create(
                       b, ir.ex2(arith::SubFOp::create(b, m.lse2(k), mS)), inv);
                   Value wv = vector::BroadcastOp::create(b, vw, w);
                   SmallVector<Value> next;
                   for (int64_t c = 0; c < per; ++c)
                     next.push_back(vector::FMAOp::create(b, m.load(k, col(c)),
                                                          wv, accs[c]));
                   return next;
                 });
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
  const int64_t threads = kCombineWarps * 32;
  func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  Value outO = func.getArgument(0), outLse = func.getArgument(1);
  Value outSf = p.nvfp4Out ? func.getArgument(2) : Value();
  Value outScale = p.nvfp4Out ? func.getArgument(3) : Value();
  Value partialO = func.getArgument(outputs);
  Value partialLse = func.getArgument(outputs + 1);
  Value records = func.getArgument(outputs + 2);
  Value sink = p.hasSink ? func.getArgument(outputs + 3) : Value();

  // CTAs per unit: row chunks x column slices of Dv (128 columns each), so
  // that a single long sequence's merge still spreads over many SMs.
  const int64_t chunks = (s.usedRows() + kRowsPerCta - 1) / kRowsPerCta;
  const int64_t slices = std::max<int64_t>(1, p.headDimV / kSliceColumns);
  const int64_t sliceColumns = p.headDimV / slices;
  Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value warp = ir.divu(tid, ir.idx(32));
  Value lane = ir.remu(tid, ir.idx(32));
  Value u = ir.divu(bx, ir.idx(chunks * slices));
  Value chunk = ir.remu(ir.divu(bx, ir.idx(slices)), ir.idx(chunks));
  Value slice = ir.remu(bx, ir.idx(slices));
  Value rowBlock = ir.remu(u, ir.idx(s.rowBlocks));
  Value bh = ir.divu(u, ir.idx(s.rowBlocks));
  Value kvHead = ir.remu(bh, ir.idx(p.headsKv));
  Value batch = ir.divu(bh, ir.idx(p.headsKv));
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
  ir.ifThen(ir.cmp(arith::CmpIPredicate::sgt, pieces, ir.idx(1)), [&] {
    ir.forLoop(ir.idx(0), ir.idx(kRowsPerWarp), ir.idx(1), [&](Value j) {
      Value r = ir.add(ir.mul(chunk, ir.idx(kRowsPerCta)),
                       ir.add(ir.mul(warp, ir.idx(kRowsPerWarp)), j));
      Value query = ir.add(firstQuery, ir.divu(r, ir.idx(s.headsPerCta)));
      Value head = ir.add(firstHead, ir.remu(r, ir.idx(s.headsPerCta)));
      Value valid =
          ir.andi(ir.cmp(arith::CmpIPredicate::ult, r, ir.idx(s.usedRows())),
                  ir.cmp(arith::CmpIPredicate::ult, query, ir.idx(p.seqQ)));
      ir.ifThen(valid, [&] {
        Value sinkL;
        if (sink)
          sinkL = arith::MulFOp::create(
              b, memref::LoadOp::create(b, sink, ValueRange{head}),
              ir.f32(1.4426950408889634));
        // An NVFP4 O: the quantizer's per-tensor constants once per row.
        std::optional<BlockQuantizer> quant;
        if (p.nvfp4Out)
          quant.emplace(ir, QuantRecipe::fast, NanPolicy::propagate,
                        memref::LoadOp::create(b, outScale,
                                               ValueRange{ir.idx(0)}));
        RowMerge m;
        m.lane = lane;
        m.columns = sliceColumns;
        m.colBase = ir.mul(slice, ir.idx(sliceColumns));
        m.writesLse = ir.eq(slice, ir.idx(0));
        m.width = 2;
        m.parts = pieces;
        m.sinkL = sinkL;
        m.lse2 = [&](Value k) -> Value {
          return memref::LoadOp::create(b, partialLse,
                                        ValueRange{slotOf(k), r});
        };
        m.load = [&](Value k, Value col) -> Value {
          return vector::LoadOp::create(b, VectorType::get({2}, f32), partialO,
                                        ValueRange{slotOf(k), r, col});
        };
        m.storeLse = [&](Value lse) {
          memref::StoreOp::create(b, lse, outLse,
                                  ValueRange{batch, head, query});
        };
        m.storeO = [&](Value col, Value v) {
          if (p.nvfp4Out) {
            storeNvfp4Pair(ir, p, *quant, lane, col, v, outO, outSf, batch,
                           query, head);
            return;
          }
          vector::StoreOp::create(
              b,
              arith::TruncFOp::create(b, VectorType::get({2}, p.outElement), v),
              outO, ValueRange{batch, query, head, col});
        };
        emitRowMerge(ir, m);
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
       b.getNamedAttr("grid", b.getDenseI32ArrayAttr(
                                  {int32_t(s.units * chunks * slices), 1, 1})),
       b.getNamedAttr("block",
                      b.getDenseI32ArrayAttr({int32_t(threads), 1, 1})),
       b.getNamedAttr("args", b.getArrayAttr(hargs))});
}
