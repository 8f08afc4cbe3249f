//===- Ex2Poly.h - 2^x on the FMA pipe, as inline PTX -----------*- C++ -*-===//
//
// The PTX the sm_90a attention kernel uses for a share of P's exponentials
// instead of the SFU's ex2.approx (AttentionSchedule::polyExp2;
// docs/Hopper.md, "Exponentials on the FMA pipe"), with $1 the input and
// $0 the f32 result (LLVM inline-asm operands). Kept here so that the unit
// test runs the very text the kernel emits (unittests/Emulator/
// Ex2PolyTest.cpp).
//
// For x <= 0: x clamped to -127; t = x + 1.5 2^23 rounded down holds
// floor(x) in its low mantissa bits, j = t - 1.5 2^23 = floor(x) exactly,
// f = x - j in [0, 1) exactly; 2^f by a cubic with c0 = 1 and c1..c3 fitted
// (by iteratively reweighted least squares on 4,000 points) for the least
// largest relative error on [0, 1), 8.6e-5 after rounding to f32 (bf16 P
// keeps 2^-9); floor(x) shifted into the exponent field and added as an
// integer. x <= -127 (and -inf, a masked logit) gives +0 exactly: f = 0,
// the cubic's exact 1.0 (0x3f800000) plus -127 << 23 is 0. 5 FMA-pipe and
// 3 integer instructions against one SFU instruction: the SFU does 16
// exponentials a clock an SM, the FMA pipe 128 instructions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_SUPPORT_EX2POLY_H
#define NVFP4_SUPPORT_EX2POLY_H

#include <cstdint>

namespace nvfp4 {

inline constexpr const char *kEx2PolyPtx =
    "{ .reg .b32 x, t, j, f, p, e; "
    "max.f32 x, $1, 0fC2FE0000; "
    "add.rm.f32 t, x, 0f4B400000; "
    "sub.rn.f32 j, t, 0f4B400000; "
    "sub.rn.f32 f, x, j; "
    "fma.rn.f32 p, f, 0f3D9DD3B3, 0f3E691CA8; "
    "fma.rn.f32 p, p, f, 0f3F31F320; "
    "fma.rn.f32 p, p, f, 0f3F800000; "
    "shl.b32 e, t, 23; "
    "add.s32 e, p, e; "
    "mov.b32 $0, e; }";

/// poly-exp2's range (nvfp4-lower-attention, the pipelines, the C API,
/// nvfp4-run): 0 to kPolyExp2Max of every 8 of P's exponentials, or
/// kPolyExp2Auto for the default rule.
inline constexpr int64_t kPolyExp2Max = 8;
inline constexpr int64_t kPolyExp2Auto = -1;

/// The largest relative error of kEx2PolyPtx against 2^x for x in
/// [-126, 0] (checked on 2^14 points of (-1, 0] and integer shifts by
/// unittests/Emulator/Ex2PolyTest.cpp).
inline constexpr double kEx2PolyMaxRelError = 8.6e-5;

} // namespace nvfp4

#endif // NVFP4_SUPPORT_EX2POLY_H
