//===- NVFP4Ops.cpp - nvfp4 operation verifiers ---------------------------===//
//
// Each rule checked here is numbered in the op's description in NVFP4Ops.td
// and broken by one case in test/Dialect/NVFP4/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

#include "nvfp4/Support/Nvfp4Format.h"

#include <cmath>
#include <string>

using namespace mlir;
using namespace nvfp4;

#define GET_OP_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Ops.cpp.inc"

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

namespace {

/// Dimension names of the 4-D operands, by dim.
constexpr const char *kQueryDims[] = {"batch", "query length", "head count",
                                      "head dim"};
constexpr const char *kKeyDims[] = {"batch", "key length", "head count",
                                    "head dim"};
/// Dimension names of the LSE, by dim.
constexpr const char *kLseDims[] = {"batch", "head count", "query length"};

std::string sizeStr(int64_t size) {
  return ShapedType::isDynamic(size) ? "?" : std::to_string(size);
}

bool isAttentionElemType(Type t) { return t.isBF16() || t.isF16(); }

/// A tensor of the op as the diagnostics name it ("Q", "K", ...).
struct Named {
  const char *name;
  RankedTensorType type;
  const char *const *dims;
};

/// Checks that dim `dim` of `t` equals `expected`, which is dim `refDim` of
/// `ref`. With `dynamicAgrees`, a dynamic size on either side agrees with
/// anything; without it, the sizes must be equal (a dynamic one prints "?").
LogicalResult expectDim(AttentionOp op, const Named &t, unsigned dim,
                        const Named &ref, unsigned refDim, bool dynamicAgrees) {
  int64_t found = t.type.getDimSize(dim);
  int64_t expected = ref.type.getDimSize(refDim);
  if (dynamicAgrees &&
      (ShapedType::isDynamic(found) || ShapedType::isDynamic(expected)))
    return success();
  if (found == expected)
    return success();
  return op.emitOpError("expects ")
         << t.name << "'s " << t.dims[dim] << " (dim " << dim << ") to equal "
         << ref.name << "'s (" << sizeStr(expected) << "), found "
         << sizeStr(found);
}

LogicalResult expectRank(AttentionOp op, const Named &t, int64_t rank,
                         StringRef shape) {
  if (t.type.getRank() == rank)
    return success();
  return op.emitOpError("expects ")
         << t.name << " to be a " << rank << "-D tensor " << shape << ", found "
         << t.type;
}

LogicalResult expectStatic(AttentionOp op, const Named &t, unsigned dim) {
  if (!t.type.isDynamicDim(dim))
    return success();
  return op.emitOpError("expects ")
         << t.name << "'s " << t.dims[dim] << " (dim " << dim
         << ") to be static, found a dynamic size";
}

/// A tensor<B x i32> of per-sequence lengths (a dynamic size agrees with
/// any).
bool isPerSequenceI32(RankedTensorType type, int64_t batch) {
  return type.getRank() == 1 && type.getElementType().isSignlessInteger(32) &&
         (ShapedType::isDynamic(batch) || type.isDynamicDim(0) ||
          type.getDimSize(0) == batch);
}

LogicalResult expectHeadDim(AttentionOp op, const Named &t) {
  int64_t d = t.type.getDimSize(3);
  if (d >= 1)
    return success();
  return op.emitOpError("expects ")
         << t.name << "'s head dim (dim 3) to be positive, found " << d;
}

LogicalResult verifyTensorScale(Operation *op, StringRef what, Type t);

/// Rule 22 of nvfp4.attention: with o_scale, O is f4E2M1FN with Dv a
/// multiple of 16 and o_scales is the swizzled [round_up(B * Sq, 128),
/// round_up(Hq * Dv / 16, 4)] f8E4M3FN; without it, no o_scales.
LogicalResult verifyNvfp4Output(AttentionOp op, RankedTensorType o) {
  Value gs = op.getOScale();
  Value sf = op.getOScales();
  if (!gs) {
    if (sf)
      return op.emitOpError("expects no third result (o_scales) without "
                            "o_scale(%gs), found ")
             << sf.getType();
    return success();
  }
  if (failed(verifyTensorScale(op, "o_scale", gs.getType())))
    return failure();
  if (!isa<Float4E2M1FNType>(o.getElementType()))
    return op.emitOpError("expects O's element type to be f4E2M1FN with "
                          "o_scale (an NVFP4 output), found ")
           << o.getElementType();
  int64_t dv = o.getDimSize(3);
  if (dv % fp4::kBlock != 0)
    return op.emitOpError("expects O's head dim (dim 3) to be a multiple of "
                          "16 with o_scale (one e4m3 scale per 16 values of "
                          "a head), found ")
           << dv;
  if (!sf)
    return op.emitOpError("expects a third result (o_scales, O's scale "
                          "factors) with o_scale");
  auto sfType = cast<RankedTensorType>(sf.getType());
  if (!isa<Float8E4M3FNType>(sfType.getElementType()) ||
      sfType.getRank() != 2)
    return op.emitOpError("expects o_scales to be a 2-D f8E4M3FN tensor "
                          "[round_up(B * Sq, 128), round_up(Hq * Dv / 16, "
                          "4)], found ")
           << sfType;
  int64_t b = o.getDimSize(0), sq = o.getDimSize(1), hq = o.getDimSize(2);
  int64_t rows = ShapedType::isDynamic(b) || ShapedType::isDynamic(sq)
                     ? ShapedType::kDynamic
                     : fp4::sfRows(fp4::SfLayout::Swizzled, b * sq);
  int64_t cols = fp4::sfCols(fp4::SfLayout::Swizzled, hq * dv);
  for (auto [d, want, what] :
       {std::tuple(0, rows, "B * Sq rounded up to 128"),
        std::tuple(1, cols, "Hq * Dv / 16 rounded up to 4")}) {
    int64_t found = sfType.getDimSize(d);
    if (ShapedType::isDynamic(found) || ShapedType::isDynamic(want) ||
        found == want)
      continue;
    return op.emitOpError("expects o_scales' dim ")
           << d << " to be " << want << " (" << what << "), found " << found;
  }
  return success();
}

} // namespace

LogicalResult AttentionOp::verify() {
  Named q{"Q", getQ().getType(), kQueryDims};
  Named k{"K", getK().getType(), kKeyDims};
  Named v{"V", getV().getType(), kKeyDims};
  // A quantized cache (rule 20) replaces the K/V rules with the layout's.
  KvCacheAttr cache = getKvCacheAttr();
  const KvCacheFormat *layout = cache ? cache.getLayout() : nullptr;

  // Rule 1: Q, K and V are 4-D.
  if (failed(expectRank(*this, q, 4, "[B, Sq, Hq, D]")))
    return failure();
  if (!cache && (failed(expectRank(*this, k, 4, "[B, Skv, Hkv, D]")) ||
                 failed(expectRank(*this, v, 4, "[B, Skv, Hkv, Dv]"))))
    return failure();

  // Rule 2: Q is bf16 or f16.
  Type elem = q.type.getElementType();
  if (!isAttentionElemType(elem))
    return emitOpError("expects Q's element type to be bf16 or f16, found ")
           << elem;

  // Rule 20: a quantized cache is K = V, [NumPages, PageBytes] i8 in its
  // layout, read through indices, with a bf16 Q of the layout's D.
  if (cache) {
    if (getK() != getV())
      return emitOpError("expects K and V to be the same value with "
                         "kv_cache (V is the first Dv values of a token)");
    int64_t pageBytes = layout->pageBytes(cache.getPageSize());
    if (k.type.getRank() != 2 || !k.type.getElementType().isInteger(8) ||
        !k.type.hasStaticShape() || k.type.getDimSize(1) != pageBytes)
      return emitOpError("expects K to be a static tensor<NumPages x ")
             << pageBytes << " x i8> (" << cache.getFormat()
             << " pages of " << cache.getPageSize() << " tokens), found "
             << k.type;
    if (!getIndices())
      return emitOpError("expects indices with kv_cache (the keys are "
                         "slots of the cache)");
    if (!elem.isBF16())
      return emitOpError("expects Q's element type to be bf16 with "
                         "kv_cache (keys dequantize to bf16), found ")
             << elem;
  }

  // Rule 3: K and V have Q's element type.
  for (const Named *t : {&k, &v})
    if (!cache && t->type.getElementType() != elem)
      return emitOpError("expects ")
             << t->name << "'s element type to equal Q's (" << elem
             << "), found " << t->type.getElementType();

  // Rule 4: head counts and head dims are static.
  for (const Named *t : {&q, &k, &v})
    for (unsigned dim : {2u, 3u})
      if ((t == &q || !cache) && failed(expectStatic(*this, *t, dim)))
        return failure();

  // Rule 5: D and Dv are positive (what a kernel supports is the
  // lowering's to say).
  if (failed(expectHeadDim(*this, q)) ||
      (!cache && failed(expectHeadDim(*this, v))))
    return failure();
  if (cache && q.type.getDimSize(3) != layout->headDim)
    return emitOpError("expects Q's head dim (dim 3) to be ")
           << layout->headDim << " (the " << cache.getFormat()
           << " layout's D), found " << q.type.getDimSize(3);

  // Rule 6: K's head dim equals Q's, and so does its batch when it is not a
  // cache of pages.
  if (!cache &&
      ((!getBlockTable() && !getIndices() &&
        failed(expectDim(*this, k, 0, q, 0, /*dynamicAgrees=*/true))) ||
       failed(expectDim(*this, k, 3, q, 3, /*dynamicAgrees=*/false))))
    return failure();

  // Rule 7: V's batch, key length and head count equal K's.
  if (!cache &&
      (failed(expectDim(*this, v, 0, k, 0, /*dynamicAgrees=*/true)) ||
       failed(expectDim(*this, v, 1, k, 1, /*dynamicAgrees=*/true)) ||
       failed(expectDim(*this, v, 2, k, 2, /*dynamicAgrees=*/false))))
    return failure();

  // Rule 8: Hkv > 0 and Hq is a positive multiple of Hkv.
  int64_t hq = q.type.getDimSize(2), hkv = cache ? 1 : k.type.getDimSize(2);
  if (hkv <= 0)
    return emitOpError("expects K's head count (dim 2) to be positive, found ")
           << hkv;
  if (hq <= 0 || hq % hkv != 0)
    return emitOpError("expects Q's head count (dim 2) to be a positive "
                       "multiple of K's (")
           << hkv << "), found " << hq;

  // Rule 9: sink is tensor<Hq x f32>.
  Builder b(getContext());
  if (Value sink = getSink()) {
    auto type = cast<RankedTensorType>(sink.getType());
    auto expected = RankedTensorType::get({hq}, b.getF32Type());
    if (type != expected)
      return emitOpError("expects sink to be ")
             << expected << " (one f32 logit per query head), found " << type;
  }

  // Rule 10: kv_lens is tensor<B x i32>.
  int64_t batch = q.type.getDimSize(0);
  if (Value lens = getKvLens()) {
    auto type = cast<RankedTensorType>(lens.getType());
    auto expected = RankedTensorType::get({batch}, b.getI32Type());
    if (!isPerSequenceI32(type, batch))
      return emitOpError("expects kv_lens to be ")
             << expected << " (one i32 length per sequence), found " << type;
  }

  // Rule 11: O is [B, Sq, Hq, Dv].
  Named o{"O", getO().getType(), kQueryDims};
  if (failed(expectRank(*this, o, 4, "[B, Sq, Hq, Dv]")) ||
      failed(expectDim(*this, o, 0, q, 0, /*dynamicAgrees=*/true)) ||
      failed(expectDim(*this, o, 1, q, 1, /*dynamicAgrees=*/true)) ||
      failed(expectDim(*this, o, 2, q, 2, /*dynamicAgrees=*/false)) ||
      (!cache && failed(expectDim(*this, o, 3, v, 3, /*dynamicAgrees=*/false))))
    return failure();
  if (cache && o.type.getDimSize(3) != layout->headDimV)
    return emitOpError("expects O's head dim (dim 3) to be ")
           << layout->headDimV << " (the " << cache.getFormat()
           << " layout's Dv), found " << sizeStr(o.type.getDimSize(3));

  // Rule 12: O is bf16 or f16 (NVFP4 with o_scale: rule 22).
  if (!getOScale() && !isAttentionElemType(o.type.getElementType()))
    return emitOpError("expects O's element type to be bf16 or f16, found ")
           << o.type.getElementType()
           << (isa<Float4E2M1FNType>(o.type.getElementType())
                   ? " (an NVFP4 O needs o_scale(%gs))"
                   : "");

  // Rule 13: LSE is [B, Hq, Sq].
  Named lse{"LSE", getLse().getType(), kLseDims};
  if (failed(expectRank(*this, lse, 3, "[B, Hq, Sq]")) ||
      failed(expectDim(*this, lse, 0, q, 0, /*dynamicAgrees=*/true)) ||
      failed(expectDim(*this, lse, 1, q, 2, /*dynamicAgrees=*/false)) ||
      failed(expectDim(*this, lse, 2, q, 1, /*dynamicAgrees=*/true)))
    return failure();

  // Rule 14: LSE is f32.
  if (!lse.type.getElementType().isF32())
    return emitOpError("expects LSE's element type to be f32, found ")
           << lse.type.getElementType();

  // Rule 15: softmax_scale is finite and positive.
  APFloat scale = getSoftmaxScaleAttr().getValue();
  if (!scale.isFinite() || scale.isNegative() || scale.isZero())
    return emitOpError("expects softmax_scale to be finite and positive, "
                       "found ")
           << getSoftmaxScaleAttr();

  // Rule 16: window >= 1.
  if (std::optional<int64_t> window = getWindow(); window && *window < 1)
    return emitOpError("expects window to be at least 1, found ") << *window;

  // Rule 17: block_table is [B, MaxPages] i32 and the page size is one of
  // the supported ones.
  if (Value table = getBlockTable()) {
    auto type = cast<RankedTensorType>(table.getType());
    if (type.getRank() != 2 || !type.getElementType().isSignlessInteger(32))
      return emitOpError("expects block_table to be a 2-D i32 tensor "
                         "[B, MaxPages], found ")
             << type;
    if (!ShapedType::isDynamic(batch) && !type.isDynamicDim(0) &&
        type.getDimSize(0) != batch)
      return emitOpError("expects block_table's batch (dim 0) to equal Q's (")
             << batch << "), found " << type.getDimSize(0);
    int64_t page = k.type.getDimSize(1);
    if (page != 16 && page != 64 && page != 128 && page != 256)
      return emitOpError("expects K's page size (dim 1) to be 16, 64, 128 "
                         "or 256 with a block table, found ")
             << sizeStr(page);
  }

  // Rule 18: num_splits >= 1.
  if (std::optional<int64_t> n = getNumSplits(); n && *n < 1)
    return emitOpError("expects num_splits to be at least 1, found ") << *n;

  // Rule 19: indices is [B, Sq, TopK] i32, without a block table, causal
  // or window.
  if (Value indices = getIndices()) {
    auto type = cast<RankedTensorType>(indices.getType());
    if (type.getRank() != 3 || !type.getElementType().isSignlessInteger(32))
      return emitOpError("expects indices to be a 3-D i32 tensor "
                         "[B, Sq, TopK], found ")
             << type;
    int64_t sq = q.type.getDimSize(1);
    for (auto [dim, want, what] :
         {std::tuple(0u, batch, "batch"), std::tuple(1u, sq, "query length")})
      if (!ShapedType::isDynamic(want) && !type.isDynamicDim(dim) &&
          type.getDimSize(dim) != want)
        return emitOpError("expects indices' ")
               << what << " (dim " << dim << ") to equal Q's (" << want
               << "), found " << type.getDimSize(dim);
    if (getBlockTable())
      return emitOpError("expects no block_table with indices (an index is "
                         "already a slot: page * PageSize + offset)");
    if (getCausal() || getWindow())
      return emitOpError("expects no causal or window with indices (the "
                         "index rows choose each query's keys)");
  }

  // Rule 21: a second key set (extra) over a second cache of the same
  // layout, through its own indices.
  if (getExtraLens() && !getExtraK())
    return emitOpError("expects extra_lens only with extra");
  if (getExtraKvCacheAttr() && !getExtraK())
    return emitOpError("expects extra_kv_cache only with extra");
  if (Value kv2 = getExtraK()) {
    KvCacheAttr cache2 = getExtraKvCacheAttr();
    if (!getIndices() || !cache || !cache2)
      return emitOpError("expects indices, kv_cache and extra_kv_cache with "
                         "extra (a second quantized cache read through "
                         "indices)");
    if (cache2.getFormat() != cache.getFormat())
      return emitOpError("expects extra_kv_cache's layout to be kv_cache's (")
             << cache.getFormat() << "), found " << cache2.getFormat();
    auto t2 = cast<RankedTensorType>(kv2.getType());
    int64_t bytes2 = layout->pageBytes(cache2.getPageSize());
    if (t2.getRank() != 2 || !t2.getElementType().isInteger(8) ||
        !t2.hasStaticShape() || t2.getDimSize(1) != bytes2)
      return emitOpError("expects extra's cache to be a static "
                         "tensor<NumPages x ")
             << bytes2 << " x i8> (" << cache2.getFormat() << " pages of "
             << cache2.getPageSize() << " tokens), found " << t2;
    auto i2 = cast<RankedTensorType>(getExtraIndices().getType());
    int64_t sq = q.type.getDimSize(1);
    if (i2.getRank() != 3 || !i2.getElementType().isSignlessInteger(32) ||
        (!ShapedType::isDynamic(batch) && !i2.isDynamicDim(0) &&
         i2.getDimSize(0) != batch) ||
        (!ShapedType::isDynamic(sq) && !i2.isDynamicDim(1) &&
         i2.getDimSize(1) != sq))
      return emitOpError("expects extra's indices to be a 3-D i32 tensor "
                         "[B, Sq, TopK2] with Q's B and Sq, found ")
             << i2;
    if (Value l2 = getExtraLens()) {
      auto type = cast<RankedTensorType>(l2.getType());
      if (!isPerSequenceI32(type, batch))
        return emitOpError("expects extra_lens to be ")
               << RankedTensorType::get({batch}, b.getI32Type())
               << " (one i32 top-k length per sequence), found " << type;
    }
  }

  // Rule 22: an NVFP4 O (o_scale) and its scale factors.
  return verifyNvfp4Output(*this, o.type);
}

//===----------------------------------------------------------------------===//
// AttentionMergeOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionMergeOp::verify() {
  auto shaped = [](Value v) { return cast<RankedTensorType>(v.getType()); };
  struct T {
    const char *name;
    RankedTensorType type;
  };
  T outs[] = {{"O1", shaped(getO1())}, {"O2", shaped(getO2())},
              {"O", shaped(getO())}};
  T lses[] = {{"LSE1", shaped(getLse1())}, {"LSE2", shaped(getLse2())},
              {"LSE", shaped(getLse())}};

  // Rule 1: ranks.
  for (const T &t : outs)
    if (t.type.getRank() != 4)
      return emitOpError("expects ")
             << t.name << " to be a 4-D tensor [B, Sq, Hq, Dv], found "
             << t.type;
  for (const T &t : lses)
    if (t.type.getRank() != 3)
      return emitOpError("expects ")
             << t.name << " to be a 3-D tensor [B, Hq, Sq], found " << t.type;

  // Rule 2: shapes agree (a dynamic size agrees with anything).
  auto agree = [](int64_t a, int64_t b) {
    return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
  };
  RankedTensorType o1 = outs[0].type;
  for (const T &t : {outs[1], outs[2]})
    for (int64_t d = 0; d < 4; ++d)
      if (!agree(t.type.getDimSize(d), o1.getDimSize(d)))
        return emitOpError("expects ")
               << t.name << "'s dim " << d << " to equal O1's ("
               << sizeStr(o1.getDimSize(d)) << "), found "
               << sizeStr(t.type.getDimSize(d));
  // LSE dims [B, Hq, Sq] are O1's dims 0, 2, 1.
  const int64_t fromO[] = {0, 2, 1};
  for (const T &t : lses)
    for (int64_t d = 0; d < 3; ++d)
      if (!agree(t.type.getDimSize(d), o1.getDimSize(fromO[d])))
        return emitOpError("expects ")
               << t.name << "'s dim " << d << " to equal O1's dim "
               << fromO[d] << " (" << sizeStr(o1.getDimSize(fromO[d]))
               << "), found " << sizeStr(t.type.getDimSize(d));

  // Rule 3: O element types.
  auto isOut = [](Type t) { return t.isBF16() || t.isF16() || t.isF32(); };
  Type e = o1.getElementType();
  if (!isOut(e))
    return emitOpError("expects O1's element type to be bf16, f16 or f32, "
                       "found ")
           << e;
  if (outs[1].type.getElementType() != e)
    return emitOpError("expects O2's element type to equal O1's (")
           << e << "), found " << outs[1].type.getElementType();
  if (!isOut(outs[2].type.getElementType()))
    return emitOpError("expects O's element type to be bf16, f16 or f32, "
                       "found ")
           << outs[2].type.getElementType();

  // Rule 4: LSE element types.
  for (const T &t : lses)
    if (!t.type.getElementType().isF32())
      return emitOpError("expects ")
             << t.name << "'s element type to be f32, found "
             << t.type.getElementType();

  // Rule 5: sink is [Hq] f32.
  if (Value sink = getSink()) {
    RankedTensorType type = shaped(sink);
    if (type.getRank() != 1 || !type.getElementType().isF32() ||
        !agree(type.getDimSize(0), o1.getDimSize(2)))
      return emitOpError("expects sink to be tensor<")
             << sizeStr(o1.getDimSize(2))
             << "xf32> (one f32 logit per query head), found " << type;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeOp, DequantizeOp
//===----------------------------------------------------------------------===//

namespace {

fp4::SfLayout toSupport(SfLayout l) {
  return l == SfLayout::swizzled ? fp4::SfLayout::Swizzled
                                 : fp4::SfLayout::RowMajor;
}

/// Rule "K is a multiple of 16" and the rank rule shared by both ops: `t`
/// (named `name`) is [B x] M x K.
LogicalResult verifyNvfp4Shape(Operation *op, StringRef name,
                               RankedTensorType t) {
  if (t.getRank() != 2 && t.getRank() != 3)
    return op->emitOpError("expects ")
           << name << " to be a 2-D [M, K] or 3-D [B, M, K] tensor, found "
           << t;
  int64_t k = t.getDimSize(t.getRank() - 1);
  if (!ShapedType::isDynamic(k) && k % fp4::kBlock != 0)
    return op->emitOpError("expects ")
           << name << "'s K (dim " << t.getRank() - 1
           << ") to be a multiple of 16 (one e4m3 scale per 16 elements), "
              "found "
           << k;
  return success();
}

/// `scales` has f8E4M3FN elements and the shape `layout` gives for data of
/// shape `data`.
LogicalResult verifyScaleFactors(Operation *op, RankedTensorType data,
                                 RankedTensorType scales, SfLayout layout) {
  if (!isa<Float8E4M3FNType>(scales.getElementType()))
    return op->emitOpError("expects the scale factors' element type to be "
                           "f8E4M3FN, found ")
           << scales.getElementType();
  int64_t rank = data.getRank();
  if (scales.getRank() != rank)
    return op->emitOpError("expects the scale factors to have rank ")
           << rank << " (the data's), found " << scales;
  SmallVector<int64_t> want(data.getShape());
  int64_t m = want[rank - 2], k = want[rank - 1];
  if (!ShapedType::isDynamic(m))
    want[rank - 2] = fp4::sfRows(toSupport(layout), m);
  if (!ShapedType::isDynamic(k))
    want[rank - 1] = fp4::sfCols(toSupport(layout), k);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t found = scales.getDimSize(d);
    if (ShapedType::isDynamic(found) || ShapedType::isDynamic(want[d]) ||
        found == want[d])
      continue;
    return op->emitOpError("expects the scale factors' dim ")
           << d << " to be " << want[d] << " ("
           << (layout == SfLayout::swizzled
                   ? (d == rank - 2   ? "M rounded up to 128"
                      : d == rank - 1 ? "K / 16 rounded up to 4"
                                      : "the batch")
                   : (d == rank - 2   ? "M"
                      : d == rank - 1 ? "K / 16"
                                      : "the batch"))
           << ", sf_layout " << stringifySfLayout(layout) << "), found "
           << found;
  }
  return success();
}

/// Both matmul operands' swizzled scale factors.
LogicalResult verifyOperandScales(Operation *op, RankedTensorType a,
                                  Value aScales, RankedTensorType b,
                                  Value bScales) {
  if (failed(verifyScaleFactors(op, a,
                                cast<RankedTensorType>(aScales.getType()),
                                SfLayout::swizzled)))
    return failure();
  return verifyScaleFactors(op, b, cast<RankedTensorType>(bScales.getType()),
                            SfLayout::swizzled);
}

LogicalResult verifyTensorScale(Operation *op, StringRef what, Type t) {
  auto type = dyn_cast<RankedTensorType>(t);
  if (!type || type.getRank() != 0 || !type.getElementType().isF32())
    return op->emitOpError("expects ")
           << what << " to be tensor<f32> (one f32 encode scale), found " << t;
  return success();
}

} // namespace

LogicalResult QuantizeOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  // Rule 1.
  if (failed(verifyNvfp4Shape(*this, "the input", in)))
    return failure();
  Type e = in.getElementType();
  if (!e.isBF16() && !e.isF16() && !e.isF32())
    return emitOpError("expects the input's element type to be bf16, f16 or "
                       "f32, found ")
           << e;
  // Rule 3.
  auto data = cast<RankedTensorType>(getData().getType());
  if (data.getShape() != in.getShape() ||
      !isa<Float4E2M1FNType>(data.getElementType()))
    return emitOpError("expects the data result to be ")
           << RankedTensorType::get(in.getShape(),
                                    Float4E2M1FNType::get(getContext()))
           << " (the input's shape, f4E2M1FN), found " << data;
  // Rule 4.
  if (failed(verifyScaleFactors(*this, in,
                                cast<RankedTensorType>(getScales().getType()),
                                getSfLayout())))
    return failure();
  // Rule 5.
  if (getScale() && getComputedScale())
    return emitOpError("expects either a scale operand or a computed_scale "
                       "result, found both");
  if (!getScale() && !getComputedScale())
    return emitOpError("expects a scale operand (scale(%gs)) or a third "
                       "result for the computed tensor scale, found neither");
  if (Value s = getScale())
    return verifyTensorScale(*this, "the scale operand", s.getType());
  return verifyTensorScale(*this, "the computed_scale result",
                           getComputedScale().getType());
}

LogicalResult DequantizeOp::verify() {
  auto data = cast<RankedTensorType>(getData().getType());
  // Rule 1.
  if (failed(verifyNvfp4Shape(*this, "the data", data)))
    return failure();
  if (!isa<Float4E2M1FNType>(data.getElementType()))
    return emitOpError("expects the data's element type to be f4E2M1FN, "
                       "found ")
           << data.getElementType();
  // Rule 2.
  if (failed(verifyScaleFactors(*this, data,
                                cast<RankedTensorType>(getScales().getType()),
                                getSfLayout())))
    return failure();
  // Rule 3.
  if (failed(verifyTensorScale(*this, "the scale operand",
                               getScale().getType())))
    return failure();
  // Rule 4.
  auto out = cast<RankedTensorType>(getResult().getType());
  Type e = out.getElementType();
  if (out.getShape() != data.getShape() ||
      !(e.isBF16() || e.isF16() || e.isF32()))
    return emitOpError("expects the result to have the data's shape and "
                       "element type bf16, f16 or f32, found ")
           << out;
  return success();
}

LogicalResult ScaledMatmulOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  // Rule 1.
  for (auto [t, name] : {std::pair(a, "A"), std::pair(b, "B")}) {
    if (t.getRank() != 2 || !isa<Float4E2M1FNType>(t.getElementType()))
      return emitOpError("expects ")
             << name << " to be a 2-D tensor of f4E2M1FN, found " << t;
  }
  int64_t k = a.getDimSize(1), kb = b.getDimSize(1);
  if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(kb) && k != kb)
    return emitOpError("expects B's K (dim 1) to equal A's (")
           << k << "), found " << kb;
  if (failed(verifyNvfp4Shape(*this, "A", a)) ||
      failed(verifyNvfp4Shape(*this, "B", b)))
    return failure();
  // Rule 2.
  if (failed(verifyOperandScales(*this, a, getAScales(), b, getBScales())))
    return failure();
  // Rule 3.
  if (failed(verifyTensorScale(*this, "a_scale", getAScale().getType())) ||
      failed(verifyTensorScale(*this, "b_scale", getBScale().getType())))
    return failure();
  // Rule 4.
  auto d = cast<RankedTensorType>(getD().getType());
  auto agree = [](int64_t x, int64_t y) {
    return ShapedType::isDynamic(x) || ShapedType::isDynamic(y) || x == y;
  };
  if (d.getRank() != 2 || !agree(d.getDimSize(0), a.getDimSize(0)) ||
      !agree(d.getDimSize(1), b.getDimSize(0)) ||
      !(d.getElementType().isBF16() || d.getElementType().isF32()))
    return emitOpError("expects the result to be [M, N] = [")
           << sizeStr(a.getDimSize(0)) << ", " << sizeStr(b.getDimSize(0))
           << "] of bf16 or f32, found " << d;
  // Rule 5.
  if (getInit() && getInit().getType() != d)
    return emitOpError("expects outs(...) to have the result's type ")
           << d << ", found " << getInit().getType();
  return success();
}

LogicalResult GroupedScaledMatmulOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  bool masked = getLayout() == GroupLayout::masked;
  auto agree = [](int64_t x, int64_t y) {
    return ShapedType::isDynamic(x) || ShapedType::isDynamic(y) || x == y;
  };
  // Rule 1.
  int64_t aRank = masked ? 3 : 2;
  if (a.getRank() != aRank || !isa<Float4E2M1FNType>(a.getElementType()))
    return emitOpError("expects A to be a ")
           << aRank << "-D tensor of f4E2M1FN ("
           << (masked ? "[E, max_m, K] for layout masked"
                      : "[M, K] for layout contiguous")
           << "), found " << a;
  if (b.getRank() != 3 || !isa<Float4E2M1FNType>(b.getElementType()))
    return emitOpError("expects B to be a 3-D [E, N, K] tensor of f4E2M1FN, "
                       "found ")
           << b;
  int64_t k = a.getDimSize(aRank - 1), kb = b.getDimSize(2);
  if (!agree(k, kb))
    return emitOpError("expects B's K (dim 2) to equal A's (")
           << k << "), found " << kb;
  if (!ShapedType::isDynamic(k) && k % fp4::kBlock != 0)
    return emitOpError("expects K to be a multiple of 16 (one e4m3 scale per "
                       "16 elements), found ")
           << k;
  int64_t e = b.getDimSize(0);
  if (masked && !agree(a.getDimSize(0), e))
    return emitOpError("expects A's dim 0 to equal the groups of B (")
           << sizeStr(e) << "), found " << sizeStr(a.getDimSize(0));
  // Rule 2.
  if (failed(verifyOperandScales(*this, a, getAScales(), b, getBScales())))
    return failure();
  // Rule 3.
  for (auto [v, name, isF32] :
       {std::tuple(getAScale(), "a_scale", true),
        std::tuple(getBScale(), "b_scale", true),
        std::tuple(getSizes(), "sizes", false)}) {
    auto t = cast<RankedTensorType>(v.getType());
    bool typeOk = isF32 ? t.getElementType().isF32()
                        : t.getElementType().isInteger(32);
    if (t.getRank() != 1 || !agree(t.getDimSize(0), e) || !typeOk)
      return emitOpError("expects ")
             << name << " to be tensor<" << sizeStr(e) << "x"
             << (isF32 ? "f32" : "i32") << "> (one per group), found " << t;
  }
  // Rule 4.
  auto d = cast<RankedTensorType>(getD().getType());
  bool shapeOk = d.getRank() == aRank;
  for (int64_t i = 0; shapeOk && i < aRank - 1; ++i)
    shapeOk = agree(d.getDimSize(i), a.getDimSize(i));
  shapeOk = shapeOk && agree(d.getDimSize(aRank - 1), b.getDimSize(1));
  if (!shapeOk || !(d.getElementType().isBF16() || d.getElementType().isF32()))
    return emitOpError("expects the result to have A's rows and B's N (")
           << (masked ? "[E, max_m, N]" : "[M, N]")
           << ") of bf16 or f32, found " << d;
  // Rule 5.
  if (getInit() && getInit().getType() != d)
    return emitOpError("expects outs(...) to have the result's type ")
           << d << ", found " << getInit().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// LaunchOp
//===----------------------------------------------------------------------===//

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  // Rule 1.
  auto func = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      *this, getKernelAttr());
  if (!func || !func.isKernel())
    return emitOpError("expects kernel to name a gpu.func kernel, found ")
           << getKernelAttr();
  // Rule 2.
  auto harness = func->getAttrOfType<DictionaryAttr>("nvfp4.harness");
  auto names = [&](StringRef key) -> ArrayAttr {
    auto list = harness ? harness.getAs<ArrayAttr>(key) : ArrayAttr();
    if (list && llvm::all_of(list, [](Attribute a) {
          return isa<StringAttr>(a);
        }))
      return list;
    return {};
  };
  ArrayAttr operands = names("operands"), results = names("results");
  if (!operands || !results)
    return emitOpError("expects kernel ")
           << getKernelAttr()
           << " to have an nvfp4.harness dictionary with arrays of tensor "
              "names 'operands' and 'results' (its lowering does not "
              "describe the op's operands)";
  // Rule 3.
  if (operands.size() != getInputs().size() ||
      results.size() != getOutputs().size())
    return emitOpError("expects ")
           << operands.size() << " inputs and " << results.size()
           << " outputs (the kernel's harness operands and results), found "
           << getInputs().size() << " and " << getOutputs().size();
  return success();
}
