//===- LowerAttentionMerge.cpp - nvfp4.attention_merge to a kernel --------===//
//
// Builds, for every nvfp4.attention_merge, a kernel that merges the two
// results row by row with the LSE formula of docs/Attention.md ("Merging
// partial results"): the same row merge as the split-KV combine kernel
// (emitRowMerge, AttentionCombine.cpp), here over two parts read from the
// op's tensors. One CTA of four warps takes 16 rows (row = (b, query,
// head)); a warp merges one row at a time, its lanes over Dv.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"

#include "AttentionKernel.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4LOWERATTENTIONMERGE
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::attn;

namespace {

constexpr int64_t kWarps = 4, kRowsPerWarp = 4;
constexpr int64_t kRowsPerCta = kWarps * kRowsPerWarp;

/// The merge's sizes, or a diagnostic at the op.
struct MergeShape {
  int64_t batch, seqQ, heads, dv;
  Type in, out;
  bool sink;
};

FailureOr<MergeShape> shapeOf(AttentionMergeOp op) {
  for (Value v : op->getOperands())
    if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
      return op.emitOpError("cannot be lowered yet: expected static shapes, "
                            "got ")
             << v.getType();
  for (Value v : op->getResults())
    if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
      return op.emitOpError("cannot be lowered yet: expected static shapes, "
                            "got ")
             << v.getType();
  auto o1 = cast<RankedTensorType>(op.getO1().getType());
  MergeShape m{o1.getDimSize(0),
               o1.getDimSize(1),
               o1.getDimSize(2),
               o1.getDimSize(3),
               o1.getElementType(),
               cast<RankedTensorType>(op.getO().getType()).getElementType(),
               static_cast<bool>(op.getSink())};
  if (m.dv % 32 != 0)
    return op.emitOpError("cannot be lowered: expected Dv to be a multiple "
                          "of 32 (the lanes of a warp), got ")
           << m.dv;
  int64_t rows = m.batch * m.seqQ * m.heads;
  if (rows == 0 || (rows + kRowsPerCta - 1) / kRowsPerCta > INT32_MAX)
    return op.emitOpError("cannot be lowered: expected between 1 and 2^35 "
                          "rows (B x Sq x Hq), got ")
           << rows;
  return m;
}

/// Builds the merge kernel; returns its harness attribute.
DictionaryAttr buildMerge(const MergeShape &m, ImplicitLocOpBuilder &b,
                          gpu::GPUModuleOp module, StringRef name) {
  IR ir(b);
  Type f32 = b.getF32Type();
  auto oType = [&](Type e) {
    return MemRefType::get({m.batch, m.seqQ, m.heads, m.dv}, e);
  };
  auto lseType = MemRefType::get({m.batch, m.heads, m.seqQ}, f32);
  SmallVector<Type> args = {oType(m.in), lseType, oType(m.in), lseType};
  if (m.sink)
    args.push_back(MemRefType::get({m.heads}, f32));
  args.push_back(oType(m.out));
  args.push_back(lseType);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto func = gpu::GPUFuncOp::create(b, name, b.getFunctionType(args, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(kWarps * 32), 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  unsigned a = 0;
  Value o1 = func.getArgument(a++), lse1 = func.getArgument(a++);
  Value o2 = func.getArgument(a++), lse2 = func.getArgument(a++);
  Value sink = m.sink ? func.getArgument(a++) : Value();
  Value outO = func.getArgument(a++), outLse = func.getArgument(a++);

  Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value warp = ir.divu(tid, ir.idx(32));
  Value lane = ir.remu(tid, ir.idx(32));
  const int64_t rows = m.batch * m.seqQ * m.heads;
  const int64_t width = m.dv % 64 == 0 ? 2 : 1;
  auto vIn = VectorType::get({width}, m.in);
  auto vF32 = VectorType::get({width}, f32);
  ir.forLoop(ir.idx(0), ir.idx(kRowsPerWarp), ir.idx(1), [&](Value j) {
    Value r = ir.add(ir.mul(bx, ir.idx(kRowsPerCta)),
                     ir.add(ir.mul(warp, ir.idx(kRowsPerWarp)), j));
    ir.ifThen(ir.cmp(arith::CmpIPredicate::ult, r, ir.idx(rows)), [&] {
      Value head = ir.remu(r, ir.idx(m.heads));
      Value query = ir.remu(ir.divu(r, ir.idx(m.heads)), ir.idx(m.seqQ));
      Value batch = ir.divu(r, ir.idx(m.heads * m.seqQ));
      Value log2e = ir.f32(1.4426950408889634);
      RowMerge rm;
      rm.lane = lane;
      rm.columns = m.dv;
      rm.width = width;
      rm.parts = 2;
      if (sink)
        rm.sinkL = arith::MulFOp::create(
            b, memref::LoadOp::create(b, sink, ValueRange{head}), log2e);
      rm.lse2 = [&](Value k) -> Value {
        ValueRange at{batch, head, query};
        Value l =
            ir.select(ir.eq(k, ir.idx(0)), memref::LoadOp::create(b, lse1, at),
                      memref::LoadOp::create(b, lse2, at));
        return arith::MulFOp::create(b, l, log2e);
      };
      rm.load = [&](Value k, Value col) -> Value {
        ValueRange at{batch, query, head, col};
        Value v = ir.select(ir.eq(k, ir.idx(0)),
                            vector::LoadOp::create(b, vIn, o1, at),
                            vector::LoadOp::create(b, vIn, o2, at));
        return m.in.isF32() ? v : arith::ExtFOp::create(b, vF32, v);
      };
      rm.storeLse = [&](Value lse) {
        memref::StoreOp::create(b, lse, outLse, ValueRange{batch, head, query});
      };
      rm.storeO = [&](Value col, Value v) {
        if (!m.out.isF32())
          v = arith::TruncFOp::create(b, VectorType::get({width}, m.out), v);
        vector::StoreOp::create(b, v, outO,
                                ValueRange{batch, query, head, col});
      };
      emitRowMerge(ir, rm);
    });
  });
  gpu::ReturnOp::create(b);

  // The harness.
  auto str = [&](StringRef v) { return b.getStringAttr(v); };
  auto named = [&](StringRef n, Attribute v) { return b.getNamedAttr(n, v); };
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  SmallVector<NamedAttribute> types = {
      named("o1", str(harnessTypeName(m.in))), named("lse1", str("f32")),
      named("o2", str(harnessTypeName(m.in))), named("lse2", str("f32")),
      named("o", str(harnessTypeName(m.out))), named("lse", str("f32"))};
  if (m.sink)
    types.push_back(named("sink", str("f32")));
  SmallVector<Attribute> hargs = {
      harnessBuffer(b, "o1"), harnessBuffer(b, "lse1"), harnessBuffer(b, "o2"),
      harnessBuffer(b, "lse2")};
  if (m.sink)
    hargs.push_back(harnessBuffer(b, "sink"));
  hargs.push_back(harnessBuffer(b, "o"));
  hargs.push_back(harnessBuffer(b, "lse"));
  SmallVector<NamedAttribute> h = {
      named("reference", str("attention_merge")),
      named("types", b.getDictionaryAttr(types)),
      named("sizes", b.getDictionaryAttr(
                         {named("b", i64(m.batch)), named("sq", i64(m.seqQ)),
                          named("hq", i64(m.heads)), named("dv", i64(m.dv))})),
      named("grid",
            b.getDenseI32ArrayAttr(
                {int32_t((rows + kRowsPerCta - 1) / kRowsPerCta), 1, 1})),
      named("block", b.getDenseI32ArrayAttr({int32_t(kWarps * 32), 1, 1})),
      named("args", b.getArrayAttr(hargs))};
  if (!m.sink)
    h.push_back(named("absent", b.getArrayAttr({str("sink")})));
  // The op's operands and results as the tensors above (docs/Host.md).
  SmallVector<Attribute> operands = {str("o1"), str("lse1"), str("o2"),
                                     str("lse2")};
  if (m.sink)
    operands.push_back(str("sink"));
  h.push_back(named("operands", b.getArrayAttr(operands)));
  h.push_back(named("results", b.getArrayAttr({str("o"), str("lse")})));
  DictionaryAttr harness = b.getDictionaryAttr(h);
  func->setAttr("nvfp4.harness", harness);
  return harness;
}

struct NVFP4LowerAttentionMergePass
    : nvfp4::impl::NVFP4LowerAttentionMergeBase<NVFP4LowerAttentionMergePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops = opsToLower<AttentionMergeOp>(module);
    if (ops.empty())
      return;
    SymbolTable symbols(module);
    for (Operation *generic : ops) {
      auto op = cast<AttentionMergeOp>(generic);
      FailureOr<MergeShape> m = shapeOf(op);
      if (failed(m))
        return signalPassFailure();
      ImplicitLocOpBuilder b(op.getLoc(), module.getContext());
      auto gpuModule = createKernelModule(b, module, symbols, op, "_merge");
      std::string name = gpuModule.getName().str();
      buildMerge(*m, b, gpuModule, name);
      recordKernel(op, gpuModule, name);
      ++numKernels;
    }
  }
};

} // namespace
