//===- AttentionEpilogue.cpp - what an attention piece writes -------------===//
//
// The epilogue of docs/AttentionLowering.md. A whole unit writes O (rounded
// to O's type) and the natural-log LSE with the sink folded in. A piece of a
// split unit writes a partial result instead: its normalised O in f32 and
// its base-2 LSE without the sink, into a workspace slot, and the unit's
// first piece records where the combine kernel finds the pieces
// (AttentionCombine.cpp).
//
//===----------------------------------------------------------------------===//

#include "AttentionKernel.h"
#include "BlockQuantizer.h"

#include "nvfp4/Dialect/SM100/IR/SM100Dialect.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::attn;

namespace {

/// Alignment of each 32-element row chunk of O the epilogue stores: Dv and
/// the chunk offsets are multiples of 32 elements, so with a 64-byte-aligned
/// O buffer (any CUDA allocation) every chunk is 64-byte aligned; saying so
/// lets LLVM emit 16-byte vector stores instead of one st.global.b16 per
/// element.
const llvm::Align kOutAlign(64);

} // namespace

void nvfp4::attn::appendOutputTypes(const AttentionProblemShape &p,
                                    Builder &b, SmallVector<Type> &types) {
  Type f32 = b.getF32Type(), i8 = b.getI8Type();
  if (p.nvfp4Out)
    types.push_back(
        MemRefType::get({p.batch, p.seqQ, p.headsQ, p.headDimV / 2}, i8));
  else
    types.push_back(MemRefType::get({p.batch, p.seqQ, p.headsQ, p.headDimV},
                                    p.outElement));
  types.push_back(MemRefType::get({p.batch, p.headsQ, p.seqQ}, f32));
  if (p.nvfp4Out) {
    types.push_back(MemRefType::get({p.sfRows * p.sfCols}, i8));
    types.push_back(MemRefType::get({1}, f32));
  }
}

void nvfp4::attn::appendOutputHarnessArgs(const AttentionProblemShape &p,
                                          Builder &b,
                                          SmallVector<Attribute> &args) {
  args.push_back(harnessBuffer(b, "o"));
  args.push_back(harnessBuffer(b, "lse"));
  if (p.nvfp4Out) {
    args.push_back(harnessBuffer(b, "o_sf"));
    args.push_back(harnessBuffer(b, "o_scale"));
  }
}

Value nvfp4::attn::oScaleOffset(IR &ir, const AttentionProblemShape &p,
                                Value batch, Value query, Value head,
                                Value col) {
  Value token = ir.add(ir.mul(batch, ir.idx(p.seqQ)), query);
  Value kb = ir.add(ir.mul(head, ir.idx(p.headDimV / 16)),
                    ir.divu(col, ir.idx(16)));
  return swizzledSfOffset(ir, token, kb, p.sfCols);
}

void Epilogue::appendArgTypes(SmallVector<Type> &types) const {
  const AttentionProblemShape &p = env.p;
  const AttentionSchedule &s = env.s;
  Type f32 = env.b.getF32Type();
  appendOutputTypes(p, env.b, types);
  if (!s.splitKv())
    return;
  types.push_back(
      MemRefType::get({s.workspaceSlots(), s.usedRows(), p.headDimV}, f32));
  types.push_back(MemRefType::get({s.workspaceSlots(), s.usedRows()}, f32));
  types.push_back(MemRefType::get({s.units, 4}, env.b.getI32Type()));
}

void Epilogue::bindArgs(gpu::GPUFuncOp func, unsigned &a) {
  outO = func.getArgument(a++);
  outLse = func.getArgument(a++);
  if (env.p.nvfp4Out) {
    outSf = func.getArgument(a++);
    outScale = func.getArgument(a++);
  }
  if (!env.s.splitKv())
    return;
  partialO = func.getArgument(a++);
  partialLse = func.getArgument(a++);
  unitRecords = func.getArgument(a++);
}

void Epilogue::appendHarnessArgs(Builder &b,
                                 SmallVector<Attribute> &args) const {
  appendOutputHarnessArgs(env.p, b, args);
  if (!env.s.splitKv())
    return;
  args.push_back(harnessBuffer(b, "partial_o"));
  args.push_back(harnessBuffer(b, "partial_lse"));
  args.push_back(harnessBuffer(b, "unit_records"));
}

OSource Epilogue::tmemO(Value oAcc, Value oDone, Value lastPhase) {
  OSource o;
  o.width = 32;
  o.read = [this, oAcc, oDone,
            lastPhase](function_ref<void(Value oc, Value acc)> use) {
    IR &ir = env.ir;
    ImplicitLocOpBuilder &b = env.b;
    auto vf32 = VectorType::get({32}, b.getF32Type());
    ir.wait(oDone, ir.idx(0), ir.parityOf(lastPhase), "epilogue: wait o_done");
    ir.named(sm100::FenceOp::create(b, sm100::FenceKind::after_thread_sync),
             "epilogue: fence after o_done");
    ir.forLoop(ir.idx(0), ir.idx(env.s.dvPerCta()), ir.idx(32), [&](Value oc) {
      Value ov = sm100::TmemLoadOp::create(
          b, vf32, oAcc, oc, sm100::LdStShape::shape_32x32b, 32, false,
          IntegerAttr(), IntegerAttr());
      use(oc, ov);
    });
  };
  o.columns = [this](function_ref<void(Value oc)> f) {
    IR &ir = env.ir;
    ir.forLoop(ir.idx(0), ir.idx(env.s.dvPerCta()), ir.idx(32), f);
  };
  return o;
}

void Epilogue::readO(const Piece &piece, const OSource &o,
                     function_ref<void(Value oc, Value acc)> use,
                     function_ref<void(Value oc)> none) {
  env.ir.ifThenElse(
      piece.any, [&] { o.read(use); }, [&] { o.columns(none); });
}

void Epilogue::writeNvfp4(const Piece &piece, const Row &row,
                          const UnitGeom &u, Value inv, const OSource &o,
                          Value dvBase) {
  IR &ir = env.ir;
  ImplicitLocOpBuilder &b = env.b;
  const AttentionProblemShape &p = env.p;
  Type i8 = b.getI8Type();
  auto vf32 = VectorType::get({32}, b.getF32Type());
  // Each 32-column chunk of the thread's row is two blocks of 16: their
  // 16 code bytes are contiguous in O, their two scale factors adjacent in
  // the swizzled layout (the chunk's first block index is even).
  auto store = [&](Value oc, Value bytes, Value sfs) {
    ir.ifThen(row.valid, [&] {
      Value col = ir.add(dvBase, oc);
      vector::StoreOp::create(
          b, bytes, outO,
          ValueRange{u.batch, row.query, row.head, ir.divu(col, ir.idx(2))},
          /*nontemporal=*/false, llvm::Align(16));
      vector::StoreOp::create(
          b, sfs, outSf,
          ValueRange{oScaleOffset(ir, p, u.batch, row.query, row.head, col)},
          /*nontemporal=*/false, llvm::Align(2));
    });
  };
  Value gs = memref::LoadOp::create(b, outScale, ValueRange{ir.idx(0)});
  BlockQuantizer quant(ir, QuantRecipe::fast, NanPolicy::propagate, gs);
  readO(
      piece, o,
      [&](Value oc, Value ov) {
        Value on = arith::MulFOp::create(
            b, ov, vector::BroadcastOp::create(b, vf32, inv));
        SmallVector<Value> xs;
        for (int64_t i = 0; i < 32; ++i)
          xs.push_back(vector::ExtractOp::create(b, on, ArrayRef<int64_t>{i}));
        auto [sf0, bytes0] = quant.block(ArrayRef<Value>(xs).take_front(16));
        auto [sf1, bytes1] = quant.block(ArrayRef<Value>(xs).drop_front(16));
        Value bytes = vector::ShuffleOp::create(
            b, bytes0, bytes1,
            ArrayRef<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                              15});
        store(oc, bytes,
              vector::FromElementsOp::create(b, VectorType::get({2}, i8),
                                             ValueRange{sf0, sf1}));
      },
      [&](Value oc) {
        // No visible key: O = 0, whose blocks quantize to code 0 and scale
        // factor 0.
        Value zeros = arith::ConstantOp::create(
            b, DenseElementsAttr::get(VectorType::get({16}, i8),
                                      IntegerAttr::get(i8, 0)));
        Value zeroSf = arith::ConstantOp::create(
            b, DenseElementsAttr::get(VectorType::get({2}, i8),
                                      IntegerAttr::get(i8, 0)));
        store(oc, zeros, zeroSf);
      });
}

std::pair<Value, Value> nvfp4::attn::partialScaleAndLse(IR &ir, Value m,
                                                        Value l) {
  ImplicitLocOpBuilder &b = ir.b;
  Value zero = ir.f32(0.0);
  Value positive = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, l, zero);
  Value inv =
      ir.select(positive, arith::DivFOp::create(b, ir.f32(1.0), l), zero);
  Value lse2 =
      ir.select(positive, arith::AddFOp::create(b, m, ir.lg2(l)), ir.negInf());
  return {inv, lse2};
}

void Epilogue::write(const Piece &piece, const Row &row, Value m, Value l,
                     Value sinkL, const OSource &o, Value dvBase) {
  IR &ir = env.ir;
  ImplicitLocOpBuilder &b = env.b;
  const AttentionSchedule &s = env.s;
  const AttentionProblemShape &p = env.p;
  const int64_t w = o.width;
  auto vf32 = VectorType::get({w}, b.getF32Type());
  Value ninf = ir.negInf(), zero = ir.f32(0.0);
  Value firstOfPair = ir.eq(env.split, ir.idx(0));
  // The row's scalars are written by one thread of those that share it.
  Value writesRow = row.lead ? ir.andi(firstOfPair, row.lead) : firstOfPair;
  // Chunks of w elements at multiples of w: at most 64-byte aligned (Dv is
  // a multiple of 64 elements and any CUDA allocation 256-byte aligned).
  auto alignOf = [&](Type elem) {
    return llvm::Align(std::min<uint64_t>(
        kOutAlign.value(), uint64_t(w) * elem.getIntOrFloatBitWidth() / 8));
  };
  const UnitGeom &u = piece.unit;

  // O and the LSE with the sink (base 2: sinkL = sink * log2 e) in the
  // denominator: m_f = max(m, sink), Z = l 2^(m - m_f) + 2^(sink - m_f),
  // LSE = (m_f + log2 Z) ln 2, O = acc 2^(m - m_f) / Z; a row without a
  // visible key and without a sink gets O = 0 and LSE = -inf.
  auto final = [&] {
    Value mF = m, e2 = zero;
    if (p.hasSink)
      mF = arith::MaximumFOp::create(b, m, sinkL);
    Value fInf = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mF, ninf);
    Value mS = ir.select(fInf, zero, mF);
    Value e1 = ir.ex2(arith::SubFOp::create(b, m, mS));
    if (p.hasSink)
      e2 = ir.ex2(arith::SubFOp::create(b, sinkL, mS));
    Value z = arith::AddFOp::create(b, arith::MulFOp::create(b, l, e1), e2);
    Value lse =
        arith::MulFOp::create(b, arith::AddFOp::create(b, mS, ir.lg2(z)),
                              ir.f32(0.69314718055994530942));
    Value positive =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, z, zero);
    Value inv = ir.select(positive, arith::DivFOp::create(b, e1, z), zero);
    // The CTAs of a Dv split compute the same LSE; the first writes it.
    ir.ifThen(ir.andi(row.valid, writesRow), [&] {
      memref::StoreOp::create(b, lse, outLse,
                              ValueRange{u.batch, row.head, row.query});
    });
    if (p.nvfp4Out) {
      writeNvfp4(piece, row, u, inv, o, dvBase);
      return;
    }
    auto outVec = VectorType::get({w}, p.outElement);
    auto store = [&](Value oc, Value v) {
      ir.ifThen(row.valid, [&] {
        vector::StoreOp::create(
            b, v, outO,
            ValueRange{u.batch, row.query, row.head, ir.add(dvBase, oc)},
            /*nontemporal=*/false, alignOf(p.outElement));
      });
    };
    readO(
        piece, o,
        [&](Value oc, Value ov) {
          Value on = arith::MulFOp::create(
              b, ov, vector::BroadcastOp::create(b, vf32, inv));
          store(oc, arith::TruncFOp::create(b, outVec, on));
        },
        [&](Value oc) {
          Value zeros = arith::ConstantOp::create(
              b, DenseElementsAttr::get(outVec,
                                        FloatAttr::get(p.outElement, 0.0)));
          store(oc, zeros);
        });
  };

  // A partial result: the normalised O (0 without a visible key) and the
  // base-2 LSE m + log2 l (-inf without one), no sink (the combine adds it
  // once).
  auto partial = [&] {
    Value sl = plan.slot(piece);
    Value inRange =
        ir.cmp(arith::CmpIPredicate::ult, row.r, ir.idx(s.usedRows()));
    Value inv, lse2;
    std::tie(inv, lse2) = partialScaleAndLse(ir, m, l);
    ir.ifThen(ir.andi(inRange, writesRow), [&] {
      memref::StoreOp::create(b, lse2, partialLse, ValueRange{sl, row.r});
    });
    auto store = [&](Value oc, Value v) {
      ir.ifThen(inRange, [&] {
        vector::StoreOp::create(b, v, partialO,
                                ValueRange{sl, row.r, ir.add(dvBase, oc)},
                                /*nontemporal=*/false,
                                alignOf(b.getF32Type()));
      });
    };
    readO(
        piece, o,
        [&](Value oc, Value ov) {
          store(oc, arith::MulFOp::create(
                        b, ov, vector::BroadcastOp::create(b, vf32, inv)));
        },
        [&](Value oc) {
          Value zeros = arith::ConstantOp::create(
              b, DenseElementsAttr::get(vf32,
                                        FloatAttr::get(b.getF32Type(), 0.0)));
          store(oc, zeros);
        });
  };

  // Where the combine finds a unit's pieces, written once per unit (by its
  // first piece; a whole unit records one piece, which the combine skips).
  auto record = [&] {
    auto [firstSlot, pieces, p0] = plan.unitRecord(piece);
    Value writer =
        ir.andi(piece.first, ir.andi(ir.eq(row.r, ir.idx(0)), writesRow));
    ir.ifThen(writer, [&] {
      Value n = ir.select(piece.whole, ir.idx(1), pieces);
      int64_t w = 0;
      for (Value v : {firstSlot, n, p0})
        memref::StoreOp::create(b, ir.toI32(v), unitRecords,
                                ValueRange{u.u, ir.idx(w++)});
    });
  };

  switch (s.split) {
  case WorkSplit::Whole:
    final();
    return;
  case WorkSplit::Uniform:
    partial();
    record();
    return;
  case WorkSplit::Balanced:
    ir.ifThenElse(piece.whole, final, partial);
    record();
    return;
  }
}
