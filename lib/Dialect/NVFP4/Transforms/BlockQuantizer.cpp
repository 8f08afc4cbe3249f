//===- BlockQuantizer.cpp - the NVFP4 block quantizer as IR ---------------===//

#include "BlockQuantizer.h"

#include "nvfp4/Support/Nvfp4Format.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cfloat>

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::attn;

BlockQuantizer::BlockQuantizer(IR &ir, QuantRecipe recipe, NanPolicy nan,
                               Value gs)
    : ir(ir), recipe(recipe), nan(nan), gs(gs) {
  if (recipe == QuantRecipe::fast) {
    r6 = rcp(ir, ir.f32(fp4::kE2M1Max));
    rgs = rcp(ir, gs);
  } else {
    rgs = arith::DivFOp::create(ir.b, ir.f32(1.0), gs);
  }
}

Value BlockQuantizer::maxAbs(IR &ir, NanPolicy nan, Value a, Value x) {
  Value ax = math::AbsFOp::create(ir.b, x);
  if (!a)
    return ax;
  return nan == NanPolicy::propagate
             ? Value(arith::MaximumFOp::create(ir.b, a, ax))
             : Value(arith::MaxNumFOp::create(ir.b, a, ax));
}

Value BlockQuantizer::amax(IR &ir, NanPolicy nan, ArrayRef<Value> xs) {
  Value m;
  for (Value x : xs)
    m = maxAbs(ir, nan, m, x);
  return m;
}

std::pair<Value, Value> BlockQuantizer::scale(Value amax) const {
  ImplicitLocOpBuilder &b = ir.b;
  if (recipe == QuantRecipe::fast) {
    // sf = e4m3(gs * (amax * rcp(6))), mult = sf != 0 ? rcp(sf * rcp(gs))
    // : 0.
    Value code = toE4M3(
        ir, arith::MulFOp::create(b, gs, arith::MulFOp::create(b, amax, r6)));
    Value sf = fromE4M3(ir, code);
    Value nonzero =
        arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, sf, ir.f32(0.0));
    Value mult = ir.select(
        nonzero, rcp(ir, arith::MulFOp::create(b, sf, rgs)), ir.f32(0.0));
    return {code, mult};
  }
  // Transformer Engine: sf = e4m3(amax * (gs * (1 / 6))), mult = fminf(1 /
  // (sf * (1 / gs)), FLT_MAX).
  Value code = toE4M3(
      ir, arith::MulFOp::create(
              b, amax, arith::MulFOp::create(b, gs,
                                             ir.f32(1.0f / fp4::kE2M1Max))));
  Value sf = fromE4M3(ir, code);
  Value inv = arith::DivFOp::create(b, ir.f32(1.0),
                                    arith::MulFOp::create(b, sf, rgs));
  return {code, arith::MinNumFOp::create(b, inv, ir.f32(FLT_MAX))};
}

Value BlockQuantizer::pack(Value even, Value odd, Value mult) const {
  ImplicitLocOpBuilder &b = ir.b;
  return NVVM::ConvertF32x2ToF4x2Op::create(
      b, b.getI8Type(), arith::MulFOp::create(b, odd, mult),
      arith::MulFOp::create(b, even, mult), /*relu=*/false,
      Type(Float4E2M1FNType::get(b.getContext())));
}

std::pair<Value, Value> BlockQuantizer::block(ArrayRef<Value> xs) const {
  auto [code, mult] = scale(amax(ir, nan, xs));
  SmallVector<Value> bytes;
  for (size_t i = 0; i + 1 < xs.size(); i += 2)
    bytes.push_back(pack(xs[i], xs[i + 1], mult));
  Value packed = vector::FromElementsOp::create(
      ir.b, VectorType::get({int64_t(bytes.size())}, ir.b.getI8Type()), bytes);
  return {code, packed};
}

Value BlockQuantizer::rcp(IR &ir, Value v) {
  return ir.ptxF32("rcp.approx.ftz.f32 $0, $1;", v);
}

Value BlockQuantizer::toE4M3(IR &ir, Value v) {
  ImplicitLocOpBuilder &b = ir.b;
  Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
      b, Type(b.getI16Type()), ir.f32(0.0), v, NVVM::FPRoundingMode::RN,
      NVVM::SaturationMode::SATFINITE, /*relu=*/false,
      Type(Float8E4M3FNType::get(b.getContext())));
  return arith::TruncIOp::create(b, b.getI8Type(), pair);
}

Value BlockQuantizer::fromE4M3(IR &ir, Value code) {
  ImplicitLocOpBuilder &b = ir.b;
  auto v2i8 = VectorType::get({2}, b.getI8Type());
  Value pair = vector::BroadcastOp::create(b, v2i8, code);
  Value h = NVVM::ConvertF8x2ToF16x2Op::create(
      b, Type(VectorType::get({2}, b.getF16Type())), pair,
      /*relu=*/false, Type(Float8E4M3FNType::get(b.getContext())));
  Value e = vector::ExtractOp::create(b, h, ArrayRef<int64_t>{0});
  return arith::ExtFOp::create(b, b.getF32Type(), e);
}

Value nvfp4::attn::swizzledSfOffset(IR &ir, Value row, Value kb,
                                    int64_t sfCols) {
  int64_t kTiles = sfCols / 4;
  Value off = ir.add(ir.mul(ir.divu(row, ir.idx(128)), ir.idx(kTiles * 512)),
                     ir.mul(ir.divu(kb, ir.idx(4)), ir.idx(512)));
  off = ir.add(off, ir.mul(ir.remu(row, ir.idx(32)), ir.idx(16)));
  off = ir.add(off,
               ir.mul(ir.remu(ir.divu(row, ir.idx(32)), ir.idx(4)), ir.idx(4)));
  return ir.add(off, ir.remu(kb, ir.idx(4)));
}
