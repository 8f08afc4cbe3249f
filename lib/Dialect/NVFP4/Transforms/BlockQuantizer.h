//===- BlockQuantizer.h - the NVFP4 block quantizer as IR -------*- C++ -*-===//
//
// The instructions of the NVFP4 block quantizer (docs/NVFP4.md, "Recipes"),
// shared by every kernel that writes NVFP4: nvfp4.quantize's kernel
// (LowerQuantize.cpp) and the attention epilogue and combine kernel when O
// is NVFP4 (AttentionEpilogue.cpp, AttentionCombine.cpp). They follow
// nvfp4/Support/Nvfp4Format.h instruction for instruction, so that every
// kernel writes the bytes the reference quantizer computes. Internal to
// lib/Dialect/NVFP4/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_NVFP4_TRANSFORMS_BLOCKQUANTIZER_H
#define LIB_DIALECT_NVFP4_TRANSFORMS_BLOCKQUANTIZER_H

#include "AttentionIR.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

namespace nvfp4::attn {

/// The block quantizer of one recipe, NaN policy and tensor (encode) scale
/// `gs`; the per-tensor constants (rcp(6), rcp(gs) or 1 / gs) are built at
/// construction, where the builder stands.
class BlockQuantizer {
public:
  BlockQuantizer(IR &ir, QuantRecipe recipe, NanPolicy nan, Value gs);

  /// max(a, |x|) by NaN policy `nan`: max.NaN.f32 (propagate) or max.f32
  /// (ignore); |x| when `a` is null.
  static Value maxAbs(IR &ir, NanPolicy nan, Value a, Value x);
  /// The largest magnitude of `xs` (f32 scalars) by NaN policy `nan`.
  static Value amax(IR &ir, NanPolicy nan, llvm::ArrayRef<Value> xs);
  /// The scale factor's e4m3 code (i8) and the multiplier (f32) of a block
  /// whose amax is `amax`.
  std::pair<Value, Value> scale(Value amax) const;
  /// One byte of codes: e2m1(even * mult) in the low nibble, e2m1(odd *
  /// mult) in the high one (cvt.rn.satfinite.e2m1x2.f32, odd first).
  Value pack(Value even, Value odd, Value mult) const;
  /// A whole block of 16 f32 values: its SF code and its 8 bytes as
  /// vector<8xi8>.
  std::pair<Value, Value> block(llvm::ArrayRef<Value> xs) const;

  /// rcp.approx.ftz.f32.
  static Value rcp(IR &ir, Value v);
  /// The e4m3 code (i8) of f32 `v` (cvt.rn.satfinite.e4m3x2.f32).
  static Value toE4M3(IR &ir, Value v);
  /// The f32 value of e4m3 code `code` (i8; cvt.rn.f16x2.e4m3x2, exact).
  static Value fromE4M3(IR &ir, Value code);

private:
  IR &ir;
  QuantRecipe recipe;
  NanPolicy nan;
  Value gs, r6, rgs;
};

/// The byte offset (index) of scale factor (row, kb) in the swizzled 128x4
/// layout with `sfCols` columns (a multiple of 4): 512-byte atoms of 128
/// rows x 4 columns, row r at (r mod 32) * 16 + ((r / 32) mod 4) * 4
/// (nvfp4/Support/Nvfp4Format.h, sfOffset).
Value swizzledSfOffset(IR &ir, Value row, Value kb, int64_t sfCols);

} // namespace nvfp4::attn

#endif // LIB_DIALECT_NVFP4_TRANSFORMS_BLOCKQUANTIZER_H
