//===- LowerQuantize.cpp - nvfp4.quantize / dequantize to kernels ---------===//
//
// Builds, for every nvfp4.quantize and nvfp4.dequantize, an SM100 kernel
// that reads each input byte once (docs/NVFP4.md, "Kernels"). A thread owns
// one row's group of four 16-element blocks (64 elements: the four scale
// factors of one 32-bit word of the swizzled layout), threads of a warp
// take consecutive groups of a row. The recipe is the one of
// nvfp4/Support/Nvfp4Format.h, instruction for instruction: max.f32 or
// max.NaN.f32 for the block amax, rcp.approx.ftz.f32 (fast) or div.rn.f32
// (exact), cvt.rn.satfinite.e4m3x2.f32 for the scale factor and
// cvt.rn.satfinite.e2m1x2.f32 with the odd element first for the values.
// Without a scale operand, a first kernel writes each CTA's amax to a
// workspace and the quantize kernel reduces it before it starts.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"

#include "AttentionKernel.h"
#include "BlockQuantizer.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Support/Nvfp4Format.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <algorithm>
#include <cfloat>

namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4LOWERQUANTIZE
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::attn;

namespace {

/// Threads per CTA of the amax kernel, and the most of the others.
constexpr int64_t kThreads = 256;
/// SMs of a B200: small tensors get smaller CTAs so that the grid still
/// covers every SM.
constexpr int64_t kSms = 148;
/// CTAs of the amax kernel (each loops over its share of the groups).
constexpr int64_t kAmaxCtas = 592;
/// Blocks per thread: one 32-bit word of swizzled scale factors.
constexpr int64_t kBlocksPerGroup = 4;

/// The sizes of one quantize or dequantize op, or a diagnostic.
struct QuantShape {
  int64_t batch, m, k;
  Type elem; ///< the unquantized type (input of quantize, result of dequantize)
  SfLayout layout;
  int64_t sfRows, sfCols;
  int64_t groups; ///< groups of 4 blocks per row
  int64_t threads; ///< per CTA of the quantize / dequantize kernel
  int64_t units() const { return batch * sfRows * groups; }
  int64_t ctas() const { return (units() + threads - 1) / threads; }
};

FailureOr<QuantShape> shapeOf(Operation *op, RankedTensorType full,
                              Type elem, SfLayout layout) {
  for (Value v : op->getOperands())
    if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
      return op->emitOpError("cannot be lowered yet: expected static shapes, "
                             "got ")
             << v.getType();
  QuantShape s;
  s.batch = full.getRank() == 3 ? full.getDimSize(0) : 1;
  s.m = full.getDimSize(full.getRank() - 2);
  s.k = full.getDimSize(full.getRank() - 1);
  s.elem = elem;
  s.layout = layout;
  fp4::SfLayout l = layout == SfLayout::swizzled ? fp4::SfLayout::Swizzled
                                                 : fp4::SfLayout::RowMajor;
  s.sfRows = fp4::sfRows(l, s.m);
  s.sfCols = fp4::sfCols(l, s.k);
  s.groups = (s.k / fp4::kBlock + kBlocksPerGroup - 1) / kBlocksPerGroup;
  // 256 threads per CTA, fewer (whole warps) when the grid would not
  // cover the SMs.
  s.threads = std::clamp<int64_t>(s.units() / kSms / 32 * 32, 32, kThreads);
  if (s.batch == 0 || s.m == 0 || s.k == 0)
    return op->emitOpError("cannot be lowered: expected a non-empty tensor, "
                           "got ")
           << full;
  if (s.ctas() > INT32_MAX)
    return op->emitOpError("cannot be lowered: the tensor needs more than "
                           "2^31 CTAs of 256 threads, got ")
           << full;
  return s;
}

/// Kernel-building state shared by the quantize and dequantize kernels.
struct Builder {
  ImplicitLocOpBuilder &b;
  IR ir;
  const QuantShape &s;
  Type f32, i8;

  Builder(ImplicitLocOpBuilder &b, const QuantShape &s)
      : b(b), ir(b), s(s), f32(b.getF32Type()), i8(b.getI8Type()) {}

  MemRefType fullType(Type e, int64_t cols) {
    return MemRefType::get({s.batch, s.m, cols}, e);
  }
  MemRefType sfType() {
    return MemRefType::get({s.batch * s.sfRows * s.sfCols}, i8);
  }

  gpu::GPUFuncOp kernel(gpu::GPUModuleOp module, StringRef name,
                        ArrayRef<Type> args, int64_t threads) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    auto func = gpu::GPUFuncOp::create(b, name, b.getFunctionType(args, {}));
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
    return func;
  }

  /// The global thread index.
  Value threadIndex() {
    Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
    Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    return ir.add(ir.mul(bx, ir.idx(s.threads)), tid);
  }

  /// Splits a unit index into (batch, scale-factor row, group).
  std::tuple<Value, Value, Value> unitOf(Value u) {
    Value g = ir.remu(u, ir.idx(s.groups));
    Value rest = ir.divu(u, ir.idx(s.groups));
    return {ir.divu(rest, ir.idx(s.sfRows)), ir.remu(rest, ir.idx(s.sfRows)),
            g};
  }

  /// Byte offset of scale factor (batch, row, kb) in the flat SF buffer.
  Value sfOffset(Value batch, Value row, Value kb) {
    Value base = ir.mul(batch, ir.idx(s.sfRows * s.sfCols));
    if (s.layout == SfLayout::row_major)
      return ir.add(base, ir.add(ir.mul(row, ir.idx(s.sfCols)), kb));
    return ir.add(base, swizzledSfOffset(ir, row, kb, s.sfCols));
  }

  /// The 16 elements of block kb of row (batch, row) as f32 scalars.
  SmallVector<Value> loadBlock(Value x, Value batch, Value row, Value kb) {
    return toF32(rawBlock(x, batch, row, kb));
  }

  /// The 16-byte vectors of one block as loaded: 2 x vector<8 x 16-bit>
  /// or 4 x vector<4xf32> (what the resident kernel keeps in registers).
  VectorType rawType() {
    return VectorType::get({s.elem.isF32() ? 4 : 8}, s.elem);
  }
  SmallVector<Value> rawBlock(Value x, Value batch, Value row, Value kb) {
    VectorType vt = rawType();
    SmallVector<Value> out;
    Value col0 = ir.mul(kb, ir.idx(fp4::kBlock));
    for (int64_t c = 0; c < fp4::kBlock; c += vt.getNumElements()) {
      auto load = vector::LoadOp::create(
          b, vt, x, ValueRange{batch, row, ir.add(col0, ir.idx(c))});
      load.setAlignment(16);
      out.push_back(load);
    }
    return out;
  }
  /// A block's 16 values as f32 scalars.
  SmallVector<Value> toF32(ArrayRef<Value> raw) {
    SmallVector<Value> out;
    for (Value v : raw)
      for (int64_t i = 0; i < cast<VectorType>(v.getType()).getNumElements();
           ++i) {
        Value e = vector::ExtractOp::create(b, v, ArrayRef<int64_t>{i});
        out.push_back(s.elem.isF32() ? e : arith::ExtFOp::create(b, f32, e));
      }
    return out;
  }

  /// The encode scale from the tensor's amax: min(2688 / amax, FLT_MAX), 1
  /// for an amax of 0 or inf (fp4::encodeScaleFromAmax).
  Value encodeScale(Value amax) {
    Value quotient = arith::MinNumFOp::create(
        b,
        arith::DivFOp::create(b, ir.f32(fp4::kE4M3Max * fp4::kE2M1Max), amax),
        ir.f32(FLT_MAX));
    Value degenerate = ir.ori(
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, amax, ir.f32(0.0)),
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, quotient,
                              ir.f32(0.0)));
    return ir.select(degenerate, ir.f32(1.0), quotient);
  }

};

/// Reduces `v` (f32, >= 0 or NaN-free by construction) over the CTA of
/// `threads` with max.f32: warp shuffles, then one word per warp in
/// `smem`; every thread gets the result.
Value ctaMax(Builder &q, Value v, Value smem, int64_t threads) {
  return q.ir.ctaReduce(v, smem, 0, threads, [&](Value x, Value y) -> Value {
    return arith::MaxNumFOp::create(q.b, x, y);
  });
}

/// Where a unit's block values come from: block j (0..3) of the unit at
/// (batch, row, kb) as 16 f32 values; called only for valid blocks.
using BlockSource = function_ref<SmallVector<Value>(int64_t j, Value batch,
                                                    Value row, Value kb)>;

/// The quantize kernel's body for unit `u` (default: this thread's): its
/// blocks from `source` (default: loaded from `x`), quantized by `quant`.
void emitQuantizeUnit(Builder &q, const BlockQuantizer &quant, Value x,
                      Value data, Value sf, Value u = Value(),
                      BlockSource source = nullptr) {
  IR &ir = q.ir;
  ImplicitLocOpBuilder &b = q.b;
  const QuantShape &s = q.s;
  if (!u)
    u = q.threadIndex();
  ir.ifThen(ir.cmp(arith::CmpIPredicate::ult, u, ir.idx(s.units())), [&] {
    auto [batch, row, g] = q.unitOf(u);
    const int64_t blocks = s.k / fp4::kBlock;
    Value rowValid = ir.cmp(arith::CmpIPredicate::ult, row, ir.idx(s.m));
    SmallVector<Value> codes; // one SF byte per block of the group
    for (int64_t j = 0; j < kBlocksPerGroup; ++j) {
      Value kb = ir.add(ir.mul(g, ir.idx(kBlocksPerGroup)), ir.idx(j));
      Value valid =
          ir.andi(rowValid, ir.cmp(arith::CmpIPredicate::ult, kb,
                                   ir.idx(blocks)));
      auto ifOp = scf::IfOp::create(b, TypeRange{q.i8}, valid,
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        SmallVector<Value> xs = source ? source(j, batch, row, kb)
                                       : q.loadBlock(x, batch, row, kb);
        auto [sfCode, packed] = quant.block(xs);
        auto store = vector::StoreOp::create(
            b, packed, data,
            ValueRange{batch, row, ir.mul(kb, ir.idx(fp4::kBlock / 2))});
        store.setAlignment(8);
        scf::YieldOp::create(b, sfCode);
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(
            b, ValueRange{arith::ConstantIntOp::create(b, q.i8, 0)});
      }
      codes.push_back(ifOp.getResult(0));
    }
    Value kb0 = ir.mul(g, ir.idx(kBlocksPerGroup));
    if (s.layout == SfLayout::swizzled) {
      // The group's four scale factors are one aligned word.
      Value word = vector::FromElementsOp::create(
          b, VectorType::get({kBlocksPerGroup}, q.i8), codes);
      auto store = vector::StoreOp::create(
          b, word, sf, ValueRange{q.sfOffset(batch, row, kb0)});
      store.setAlignment(4);
    } else {
      for (int64_t j = 0; j < kBlocksPerGroup; ++j) {
        Value kb = ir.add(kb0, ir.idx(j));
        ir.ifThen(ir.andi(rowValid, ir.cmp(arith::CmpIPredicate::ult, kb,
                                           ir.idx(s.k / fp4::kBlock))),
                  [&] {
                    memref::StoreOp::create(
                        b, codes[j], sf,
                        ValueRange{q.sfOffset(batch, row, kb)});
                  });
      }
    }
  });
}

/// The dequantize kernel's body for the unit of this thread.
void emitDequantizeUnit(Builder &q, Value data, Value sf, Value gs,
                        Value out) {
  IR &ir = q.ir;
  ImplicitLocOpBuilder &b = q.b;
  const QuantShape &s = q.s;
  Value u = q.threadIndex();
  auto v2f16 = VectorType::get({2}, b.getF16Type());
  ir.ifThen(ir.cmp(arith::CmpIPredicate::ult, u, ir.idx(s.units())), [&] {
    auto [batch, row, g] = q.unitOf(u);
    Value valid0 = ir.cmp(arith::CmpIPredicate::ult, row, ir.idx(s.m));
    for (int64_t j = 0; j < kBlocksPerGroup; ++j) {
      Value kb = ir.add(ir.mul(g, ir.idx(kBlocksPerGroup)), ir.idx(j));
      Value valid = ir.andi(valid0, ir.cmp(arith::CmpIPredicate::ult, kb,
                                           ir.idx(s.k / fp4::kBlock)));
      ir.ifThen(valid, [&] {
        Value code = memref::LoadOp::create(
            b, sf, ValueRange{q.sfOffset(batch, row, kb)});
        Value scale = BlockQuantizer::fromE4M3(ir, code);
        auto load = vector::LoadOp::create(
            b, VectorType::get({8}, q.i8), data,
            ValueRange{batch, row, ir.mul(kb, ir.idx(fp4::kBlock / 2))});
        load.setAlignment(8);
        SmallVector<Value> ys;
        for (int64_t i = 0; i < 8; ++i) {
          Value byte = vector::ExtractOp::create(b, load, ArrayRef<int64_t>{i});
          // cvt.rn.f16x2.e2m1x2: the low nibble (element 2i) in the low
          // half.
          Value h = NVVM::ConvertF4x2ToF16x2Op::create(
              b, Type(v2f16), byte, /*relu=*/false,
              Type(Float4E2M1FNType::get(b.getContext())));
          for (int64_t half = 0; half < 2; ++half) {
            Value e = arith::ExtFOp::create(
                b, q.f32,
                Value(vector::ExtractOp::create(b, h,
                                                ArrayRef<int64_t>{half})));
            Value y = arith::DivFOp::create(
                b, arith::MulFOp::create(b, e, scale), gs);
            ys.push_back(s.elem.isF32()
                             ? y
                             : Value(arith::TruncFOp::create(b, s.elem, y)));
          }
        }
        int64_t width = s.elem.isF32() ? 4 : 8;
        Value col0 = ir.mul(kb, ir.idx(fp4::kBlock));
        for (int64_t c = 0; c < fp4::kBlock; c += width) {
          Value v = vector::FromElementsOp::create(
              b, VectorType::get({width}, s.elem),
              ArrayRef<Value>(ys).slice(c, width));
          auto st = vector::StoreOp::create(
              b, v, out, ValueRange{batch, row, ir.add(col0, ir.idx(c))});
          st.setAlignment(16);
        }
      });
    }
  });
}

NamedAttribute named(Builder &q, StringRef n, Attribute v) {
  return q.b.getNamedAttr(n, v);
}

/// Sizes every quantize/dequantize harness shares.
DictionaryAttr harnessSizes(Builder &q) {
  auto i64 = [&](int64_t v) { return q.b.getI64IntegerAttr(v); };
  return q.b.getDictionaryAttr(
      {named(q, "b", i64(q.s.batch)), named(q, "m", i64(q.s.m)),
       named(q, "k", i64(q.s.k)), named(q, "kh", i64(q.s.k / 2)),
       named(q, "sfn", i64(q.s.batch * q.s.sfRows * q.s.sfCols)),
       named(q, "one", i64(1))});
}

DenseI32ArrayAttr gridOf(Builder &q) {
  return q.b.getDenseI32ArrayAttr({int32_t(q.s.ctas()), 1, 1});
}

DenseI32ArrayAttr blockOf(Builder &q, int64_t threads) {
  return q.b.getDenseI32ArrayAttr({int32_t(threads), 1, 1});
}

int64_t layoutOption(SfLayout l) { return l == SfLayout::swizzled ? 0 : 1; }

/// The harness entries every quantize kernel shares: reference, types,
/// sizes and options (recipe, NaN policy, layout), then `grid`, `block`
/// and `args`.
SmallVector<NamedAttribute> quantizeHarness(Builder &q, QuantizeOp op,
                                            StringRef reference, int64_t grid,
                                            int64_t threads,
                                            ArrayRef<Attribute> args) {
  ImplicitLocOpBuilder &b = q.b;
  auto str = [&](StringRef v) { return b.getStringAttr(v); };
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  return {
      named(q, "reference", str(reference)),
      named(q, "types",
            b.getDictionaryAttr({named(q, "x", str(harnessTypeName(q.s.elem))),
                                 named(q, "gs", str("f32")),
                                 named(q, "data", str("u8")),
                                 named(q, "sf", str("u8"))})),
      named(q, "sizes", harnessSizes(q)),
      named(q, "options",
            b.getDictionaryAttr(
                {named(q, "recipe",
                       i64(op.getRecipe() == QuantRecipe::fast ? 0 : 1)),
                 named(q, "nan",
                       i64(op.getNan() == NanPolicy::propagate ? 0 : 1)),
                 named(q, "sf_layout", i64(layoutOption(q.s.layout)))})),
      named(q, "grid", b.getDenseI32ArrayAttr({int32_t(grid), 1, 1})),
      named(q, "block", blockOf(q, threads)),
      named(q, "args", b.getArrayAttr(args)),
      // The op's operands and results as tensors (docs/Host.md): a given
      // scale is an input, a computed one the third result.
      named(q, "operands",
            op.getScale() ? b.getArrayAttr({str("x"), str("gs")})
                          : b.getArrayAttr({str("x")})),
      named(q, "results",
            op.getScale()
                ? b.getArrayAttr({str("data"), str("sf")})
                : b.getArrayAttr({str("data"), str("sf"), str("gs")}))};
}

/// Units (groups of four blocks) per thread of the resident kernel: their
/// loaded vectors stay in registers across the amax reduction (32 registers
/// per unit of a 16-bit input, kept packed two per register as i32; 64 of
/// f32: 128 per thread either way).
int64_t residentUnits(Type elem) { return elem.isF32() ? 2 : 4; }
/// CTAs of the resident kernel's cluster at most: 16, the non-portable
/// cluster size of SM90 / SM100 (nvfp4-run's CUDA backend sets the
/// non-portable attribute for clusters above 8; an engine launching the
/// kernel must too).
constexpr int64_t kResidentCtas = 16;

/// Units of a tensor's rows (without the swizzled layout's padding rows).
int64_t dataUnits(const QuantShape &s) { return s.batch * s.m * s.groups; }

/// Whether a quantize with a computed scale fits the resident kernel: one
/// cluster holds the whole tensor in its threads' registers.
bool fitsResident(const QuantShape &s) {
  return dataUnits(s) <= kResidentCtas * kThreads * residentUnits(s.elem);
}

/// The one-pass quantize with a computed scale (docs/NVFP4.md, "Kernels"):
/// one cluster of C <= 16 CTAs of 256 threads; each thread loads its units'
/// vectors into registers, the CTA reduces its amax (shuffles and shared
/// memory), each CTA publishes it in shared memory, and after a cluster
/// barrier every CTA reads all C of them through distributed shared memory;
/// a second cluster barrier lets no CTA exit while another still reads its
/// word. Then every thread quantizes the values it holds: each input byte
/// is read once.
gpu::GPUFuncOp buildResidentQuantize(QuantizeOp op, QuantShape s,
                                     ImplicitLocOpBuilder &b,
                                     gpu::GPUModuleOp module, StringRef name) {
  s.threads = kThreads;
  const int64_t per = residentUnits(s.elem);
  const int64_t ctas =
      (dataUnits(s) + kThreads * per - 1) / (kThreads * per);
  Builder q(b, s);
  IR &ir = q.ir;
  Type f32 = q.f32;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  // 16-byte aligned: LLVM vectorizes the loads of the warps' words to
  // ld.shared.v4 while declaring 4-byte alignment, which the emulator
  // reports as a misaligned access (and hardware would fault on).
  memref::GlobalOp::create(b, "cta_amax", b.getStringAttr("private"),
                           ir.smemMemref({1}, f32), Attribute(),
                           /*constant=*/false, b.getI64IntegerAttr(16));
  memref::GlobalOp::create(b, "warp_amax", b.getStringAttr("private"),
                           ir.smemMemref({kThreads / 32}, f32), Attribute(),
                           /*constant=*/false, b.getI64IntegerAttr(16));
  gpu::GPUFuncOp func =
      q.kernel(module, name,
               {q.fullType(s.elem, s.k), MemRefType::get({1}, f32),
                q.fullType(q.i8, s.k / 2), q.sfType()},
               kThreads);
  if (ctas > 1)
    func->setAttr("nvvm.cluster_dim",
                  b.getDenseI32ArrayAttr({int32_t(ctas), 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  Value x = func.getArgument(0), gsBuf = func.getArgument(1);
  Value data = func.getArgument(2), sf = func.getArgument(3);
  Value smem = memref::GetGlobalOp::create(
      b, ir.smemMemref({kThreads / 32}, f32), "warp_amax");
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  const int64_t blocks = s.k / fp4::kBlock;
  // 16-bit inputs are held as vector<4xi32> (two values per register:
  // ptxas would give every 16-bit value a register of its own), f32 ones
  // as loaded.
  const bool packed = !s.elem.isF32();
  VectorType vt = packed ? VectorType::get({4}, b.getI32Type()) : q.rawType();
  Value zero = arith::ConstantOp::create(
      b, packed ? DenseElementsAttr::get(vt, b.getI32IntegerAttr(0))
                : DenseElementsAttr::get(vt, FloatAttr::get(s.elem, 0.0)));
  auto unpack = [&](ArrayRef<Value> held) {
    if (!packed)
      return q.toF32(held);
    SmallVector<Value> raw;
    for (Value v : held)
      raw.push_back(vector::BitCastOp::create(b, q.rawType(), v));
    return q.toF32(raw);
  };
  // |x| as bits, 0 for NaN (above the infinity's bits), per 16-bit half.
  const int64_t infBits = s.elem.isBF16() ? 0x7F80 : 0x7C00;
  auto absBits = [&](Value w, int64_t shift) {
    auto splat = [&](int64_t c) {
      return arith::ConstantOp::create(
                 b, DenseElementsAttr::get(vt, b.getI32IntegerAttr(c)))
          .getResult();
    };
    Value h = shift ? Value(arith::ShRUIOp::create(b, w, splat(shift))) : w;
    Value a = arith::AndIOp::create(b, h, splat(0x7FFF));
    Value nan =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, a, splat(infBits));
    return arith::SelectOp::create(b, nan, splat(0), a).getResult();
  };
  // Phase 1: this thread's units of the tensor's rows (data unit v = bx *
  // 256 per + 256 j + tid: batch v / (M G), row (v / G) mod M, group v mod
  // G), their blocks' vectors (zeros outside the tensor), and their amax
  // (NaN left out, as the two-kernel form).
  SmallVector<Value> units; // the same units in the padded numbering
  SmallVector<SmallVector<SmallVector<Value>>> held; // [unit][block][vector]
  // The running max of |x| per vector lane (exact: a max rounds nothing),
  // on the values' bits when packed, so that only the loaded vectors stay
  // live across the reduction (f32 copies of them would not fit).
  Value lanes = zero;
  for (int64_t j = 0; j < per; ++j) {
    Value v = ir.add(ir.mul(bx, ir.idx(kThreads * per)),
                     ir.add(ir.idx(kThreads * j), tid));
    Value rowValid =
        ir.cmp(arith::CmpIPredicate::ult, v, ir.idx(dataUnits(s)));
    Value vc = ir.select(rowValid, v, ir.idx(0));
    Value batch = ir.divu(vc, ir.idx(s.m * s.groups));
    Value row = ir.remu(ir.divu(vc, ir.idx(s.groups)), ir.idx(s.m));
    Value g = ir.remu(vc, ir.idx(s.groups));
    // Past the data: a unit index past every padded one (not quantized).
    units.push_back(ir.select(
        rowValid,
        ir.add(ir.mul(ir.add(ir.mul(batch, ir.idx(s.sfRows)), row),
                      ir.idx(s.groups)),
               g),
        ir.idx(s.units())));
    held.emplace_back();
    for (int64_t blk = 0; blk < kBlocksPerGroup; ++blk) {
      Value kb = ir.add(ir.mul(g, ir.idx(kBlocksPerGroup)), ir.idx(blk));
      Value valid = ir.andi(
          rowValid, ir.cmp(arith::CmpIPredicate::ult, kb, ir.idx(blocks)));
      const int64_t vecs = fp4::kBlock / q.rawType().getNumElements();
      auto ifOp = scf::IfOp::create(b, SmallVector<Type>(vecs, vt), valid,
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        SmallVector<Value> raw = q.rawBlock(x, batch, row, kb);
        if (packed)
          for (Value &r : raw)
            r = vector::BitCastOp::create(b, vt, r);
        scf::YieldOp::create(b, raw);
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b, SmallVector<Value>(vecs, zero));
      }
      held.back().push_back(SmallVector<Value>(ifOp.getResults()));
      for (Value v : held.back().back())
        lanes = packed ? Value(arith::MaxUIOp::create(
                             b, lanes,
                             arith::MaxUIOp::create(b, absBits(v, 0),
                                                    absBits(v, 16))))
                       : Value(arith::MaxNumFOp::create(
                             b, lanes, math::AbsFOp::create(b, v)));
    }
  }
  // The thread's amax: non-negative non-NaN magnitudes order as their bits.
  Value amax;
  if (packed) {
    Value bits = vector::ExtractOp::create(b, lanes, ArrayRef<int64_t>{0});
    for (int64_t i = 1; i < 4; ++i)
      bits = arith::MaxUIOp::create(
          b, bits, vector::ExtractOp::create(b, lanes, ArrayRef<int64_t>{i}));
    Value h = arith::BitcastOp::create(
        b, s.elem, arith::TruncIOp::create(b, b.getI16Type(), bits));
    amax = arith::ExtFOp::create(b, f32, h);
  } else {
    amax = BlockQuantizer::amax(ir, NanPolicy::ignore, q.toF32({lanes}));
  }
  // The CTA's amax, then the cluster's through distributed shared memory.
  Value ctaAmax = ctaMax(q, amax, smem, kThreads);
  Value slot = memref::GetGlobalOp::create(b, ir.smemMemref({1}, f32),
                                           "cta_amax");
  ir.ifThen(ir.eq(tid, ir.idx(0)), [&] {
    memref::StoreOp::create(b, ctaAmax, slot, ValueRange{ir.idx(0)});
  });
  Value total = ctaAmax;
  if (ctas > 1) {
    ir.clusterSync("amax published");
    Value addr = ir.toI32(memref::ExtractAlignedPointerAsIndexOp::create(b, slot));
    for (int64_t r = 0; r < ctas; ++r)
      total = arith::MaxNumFOp::create(
          b, total,
          ir.inlinePtx("{ .reg .b32 ra; mapa.shared::cluster.u32 ra, $1, $2; "
                       "ld.shared::cluster.f32 $0, [ra]; }",
                       f32, ValueRange{addr, ir.i32(r)})[0]);
    // No CTA exits (or reuses its word) while another still reads it.
    ir.clusterSync("amax read");
  }
  Value gs = q.encodeScale(total);
  ir.ifThen(ir.andi(ir.eq(bx, ir.idx(0)), ir.eq(tid, ir.idx(0))), [&] {
    memref::StoreOp::create(b, gs, gsBuf, ValueRange{ir.idx(0)});
  });
  // Phase 2: quantize the values held.
  BlockQuantizer quant(ir, op.getRecipe(), op.getNan(), gs);
  for (int64_t j = 0; j < per; ++j)
    emitQuantizeUnit(q, quant, x, data, sf, units[j],
                     [&](int64_t blk, Value, Value, Value) {
                       return unpack(held[j][blk]);
                     });
  // The swizzled layout's padding rows (M .. round_up(M, 128)) get zero
  // scale factors, one 4-byte word per unit, spread over the cluster.
  if (const int64_t padRows = s.sfRows - s.m) {
    const int64_t padUnits = s.batch * padRows * s.groups;
    Value zeros = arith::ConstantOp::create(
        b, DenseElementsAttr::get(VectorType::get({kBlocksPerGroup}, q.i8),
                                  IntegerAttr::get(q.i8, 0)));
    ir.forLoop(ir.add(ir.mul(bx, ir.idx(kThreads)), tid), ir.idx(padUnits),
               ir.idx(ctas * kThreads), [&](Value pu) {
                 Value batch = ir.divu(pu, ir.idx(padRows * s.groups));
                 Value row = ir.add(
                     ir.idx(s.m),
                     ir.remu(ir.divu(pu, ir.idx(s.groups)), ir.idx(padRows)));
                 Value kb0 = ir.mul(ir.remu(pu, ir.idx(s.groups)),
                                    ir.idx(kBlocksPerGroup));
                 auto st = vector::StoreOp::create(
                     b, zeros, sf, ValueRange{q.sfOffset(batch, row, kb0)});
                 st.setAlignment(4);
               });
  }
  gpu::ReturnOp::create(b);

  // The harness.
  SmallVector<NamedAttribute> h = quantizeHarness(
      q, op, "nvfp4_quantize_amax", ctas, kThreads,
      {harnessBuffer(b, "x"), harnessBuffer(b, "gs"), harnessBuffer(b, "data"),
       harnessBuffer(b, "sf")});
  if (ctas > 1)
    h.push_back(named(q, "cluster",
                      b.getDenseI32ArrayAttr({int32_t(ctas), 1, 1})));
  func->setAttr("nvfp4.harness", b.getDictionaryAttr(h));
  return func;
}

/// Builds the quantize kernel(s) in `module`; returns the first kernel.
gpu::GPUFuncOp buildQuantize(QuantizeOp op, const QuantShape &s,
                             ImplicitLocOpBuilder &b, gpu::GPUModuleOp module,
                             StringRef name) {
  bool computed = !op.getScale();
  if (computed && fitsResident(s))
    return buildResidentQuantize(op, s, b, module, name);
  Builder q(b, s);
  IR &ir = q.ir;
  auto gsType = MemRefType::get({1}, q.f32);
  auto partialType = MemRefType::get({kAmaxCtas}, q.f32);
  std::string amaxName = (name + "_amax").str();

  // Without a scale: the amax kernel (each CTA's amax of |x|, NaN left out,
  // to partial[cta]).
  if (computed) {
    gpu::GPUFuncOp f =
        q.kernel(module, amaxName, {q.fullType(s.elem, s.k), partialType},
                 kThreads);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&f.getBody().front());
    Value x = f.getArgument(0), partial = f.getArgument(1);
    Value smem = f.addWorkgroupAttribution(
        MemRefType::get({kThreads / 32}, q.f32, MemRefLayoutAttrInterface(),
                        ir.workgroup()),
        b.getLoc());
    const int64_t rows = s.batch * s.m, blocks = s.k / fp4::kBlock;
    Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
    Value start = ir.add(ir.mul(bx, ir.idx(kThreads)), tid);
    SmallVector<Value> res = ir.forLoop(
        start, ir.idx(rows * blocks), ir.idx(kThreads * kAmaxCtas),
        ValueRange{ir.f32(0.0)}, [&](Value i, ValueRange acc) {
          Value kb = ir.remu(i, ir.idx(blocks));
          Value r = ir.divu(i, ir.idx(blocks));
          SmallVector<Value> xs = q.loadBlock(x, ir.divu(r, ir.idx(s.m)),
                                              ir.remu(r, ir.idx(s.m)), kb);
          Value m = arith::MaxNumFOp::create(
              b, acc[0], BlockQuantizer::amax(ir, NanPolicy::ignore, xs));
          return SmallVector<Value>{m};
        });
    Value m = ctaMax(q, res[0], smem, kThreads);
    ir.ifThen(ir.eq(tid, ir.idx(0)), [&] {
      memref::StoreOp::create(b, m, partial, ValueRange{bx});
    });
    gpu::ReturnOp::create(b);
  }

  SmallVector<Type> args = {q.fullType(s.elem, s.k), gsType,
                            q.fullType(q.i8, s.k / 2), q.sfType()};
  if (computed)
    args.push_back(partialType);
  gpu::GPUFuncOp func = q.kernel(module, name, args, s.threads);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&func.getBody().front());
    Value x = func.getArgument(0), gsBuf = func.getArgument(1);
    Value data = func.getArgument(2), sf = func.getArgument(3);
    Value gs;
    if (computed) {
      // Every CTA reduces the partial amaxes: gs = min(2688 / amax,
      // FLT_MAX), 1 for amax 0 or inf; CTA 0 writes it out.
      Value partial = func.getArgument(4);
      Value smem = func.addWorkgroupAttribution(
          MemRefType::get({s.threads / 32}, q.f32,
                          MemRefLayoutAttrInterface(), ir.workgroup()),
          b.getLoc());
      Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
      SmallVector<Value> res = ir.forLoop(
          tid, ir.idx(kAmaxCtas), ir.idx(s.threads), ValueRange{ir.f32(0.0)},
          [&](Value i, ValueRange acc) {
            Value p = memref::LoadOp::create(b, partial, ValueRange{i});
            return SmallVector<Value>{
                Value(arith::MaxNumFOp::create(b, acc[0], p))};
          });
      gs = q.encodeScale(ctaMax(q, res[0], smem, s.threads));
      Value bx = gpu::BlockIdOp::create(b, gpu::Dimension::x);
      ir.ifThen(ir.andi(ir.eq(bx, ir.idx(0)), ir.eq(tid, ir.idx(0))), [&] {
        memref::StoreOp::create(b, gs, gsBuf, ValueRange{ir.idx(0)});
      });
    } else {
      gs = memref::LoadOp::create(b, gsBuf, ValueRange{ir.idx(0)});
    }
    emitQuantizeUnit(q, BlockQuantizer(ir, op.getRecipe(), op.getNan(), gs),
                     x, data, sf);
    gpu::ReturnOp::create(b);
  }

  // The harness.
  auto str = [&](StringRef v) { return b.getStringAttr(v); };
  SmallVector<Attribute> hargs = {
      harnessBuffer(b, "x"), harnessBuffer(b, "gs"), harnessBuffer(b, "data"),
      harnessBuffer(b, "sf")};
  if (computed)
    hargs.push_back(harnessBuffer(b, "amax_partial"));
  SmallVector<NamedAttribute> h = quantizeHarness(
      q, op, computed ? "nvfp4_quantize_amax" : "nvfp4_quantize", s.ctas(),
      s.threads, hargs);
  if (computed) {
    h.push_back(named(
        q, "workspace",
        b.getArrayAttr({b.getDictionaryAttr(
            {named(q, "name", str("amax_partial")),
             named(q, "type", str("f32")),
             named(q, "shape", b.getDenseI64ArrayAttr({kAmaxCtas}))})})));
  }
  DictionaryAttr harness = b.getDictionaryAttr(h);
  if (!computed) {
    func->setAttr("nvfp4.harness", harness);
    return func;
  }
  // The amax kernel runs first; the quantize kernel follows it ("then").
  auto amaxFunc = cast<gpu::GPUFuncOp>(
      SymbolTable::lookupSymbolIn(module, b.getStringAttr(amaxName)));
  SmallVector<NamedAttribute> first(harness.getValue());
  for (NamedAttribute &a : first) {
    if (a.getName() == "grid")
      a.setValue(b.getDenseI32ArrayAttr({int32_t(kAmaxCtas), 1, 1}));
    if (a.getName() == "block")
      a.setValue(blockOf(q, kThreads));
    if (a.getName() == "args")
      a.setValue(b.getArrayAttr(
          {harnessBuffer(b, "x"), harnessBuffer(b, "amax_partial")}));
  }
  first.push_back(named(
      q, "then",
      b.getArrayAttr({b.getDictionaryAttr(
          {named(q, "kernel", str(name)), named(q, "grid", gridOf(q)),
           named(q, "block", blockOf(q, s.threads)),
           named(q, "args", b.getArrayAttr(hargs))})})));
  amaxFunc->setAttr("nvfp4.harness", b.getDictionaryAttr(first));
  return amaxFunc;
}

gpu::GPUFuncOp buildDequantize(const QuantShape &s,
                               ImplicitLocOpBuilder &b,
                               gpu::GPUModuleOp module, StringRef name) {
  Builder q(b, s);
  gpu::GPUFuncOp func = q.kernel(
      module, name,
      {q.fullType(q.i8, s.k / 2), q.sfType(), MemRefType::get({1}, q.f32),
       q.fullType(s.elem, s.k)},
      s.threads);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&func.getBody().front());
    Value gs = memref::LoadOp::create(b, func.getArgument(2),
                                      ValueRange{q.ir.idx(0)});
    emitDequantizeUnit(q, func.getArgument(0), func.getArgument(1), gs,
                       func.getArgument(3));
    gpu::ReturnOp::create(b);
  }
  auto str = [&](StringRef v) { return b.getStringAttr(v); };
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  int64_t roundTo = s.elem.isF32() ? 0 : s.elem.isBF16() ? 1 : 2;
  SmallVector<NamedAttribute> h = {
      named(q, "reference", str("nvfp4_dequantize")),
      named(q, "operands",
            b.getArrayAttr({str("data"), str("sf"), str("gs")})),
      named(q, "results", b.getArrayAttr({str("y")})),
      named(q, "types",
            b.getDictionaryAttr({named(q, "data", str("u8")),
                                 named(q, "sf", str("u8")),
                                 named(q, "gs", str("f32")),
                                 named(q, "y", str(harnessTypeName(s.elem)))})),
      named(q, "sizes", harnessSizes(q)),
      named(q, "options",
            b.getDictionaryAttr(
                {named(q, "sf_layout", i64(layoutOption(s.layout))),
                 named(q, "round_to", i64(roundTo))})),
      named(q, "grid", gridOf(q)),
      named(q, "block", blockOf(q, s.threads)),
      named(q, "args",
            b.getArrayAttr({harnessBuffer(b, "data"), harnessBuffer(b, "sf"),
                            harnessBuffer(b, "gs"), harnessBuffer(b, "y")}))};
  func->setAttr("nvfp4.harness", b.getDictionaryAttr(h));
  return func;
}

struct NVFP4LowerQuantizePass
    : nvfp4::impl::NVFP4LowerQuantizeBase<NVFP4LowerQuantizePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops = opsToLower<QuantizeOp, DequantizeOp>(module);
    if (ops.empty())
      return;
    SymbolTable symbols(module);
    for (Operation *op : ops) {
      auto quant = dyn_cast<QuantizeOp>(op);
      auto dequant = dyn_cast<DequantizeOp>(op);
      RankedTensorType full =
          quant ? cast<RankedTensorType>(quant.getInput().getType())
                : cast<RankedTensorType>(dequant.getResult().getType());
      FailureOr<QuantShape> s =
          shapeOf(op, full, full.getElementType(),
                  quant ? quant.getSfLayout() : dequant.getSfLayout());
      if (failed(s))
        return signalPassFailure();
      ImplicitLocOpBuilder b(op->getLoc(), module.getContext());
      auto gpuModule = createKernelModule(
          b, module, symbols, op, quant ? "_quantize" : "_dequantize");
      std::string name = gpuModule.getName().str();
      gpu::GPUFuncOp first =
          quant ? buildQuantize(quant, *s, b, gpuModule, name)
                : buildDequantize(*s, b, gpuModule, name);
      recordKernel(op, gpuModule, first.getName());
      ++numKernels;
    }
  }
};

} // namespace
