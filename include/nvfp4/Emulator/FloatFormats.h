//===- FloatFormats.h - Bit-exact float formats and rounding ----*- C++ -*-===//
//
// Encoding and decoding of every floating-point format the emulator meets
// (f64, f32, tf32, f16, bf16, e4m3, e5m2, e2m3, e3m2, e2m1, ue8m0), with the
// PTX rounding modes (.rn .rna .rz .rm .rp) and the .satfinite / .relu rules
// of `cvt` (PTX ISA 9.7.9.21), plus correctly rounded f32 arithmetic in every
// rounding mode.
//
// Values travel between formats as exact `Unpacked` numbers (sign, integer
// significand, binary exponent), so a conversion rounds exactly once. The
// one-sided `sticky` of Unpacked lets a caller describe a value that lies
// strictly between two representable doubles (the exact result of an f32
// operation computed as a double sum plus its error), which keeps directed
// rounding exact.
//
// NaN results are the canonical NaN of the destination format (all exponent
// and mantissa bits set, sign clear: 0x7fffffff for f32, 0x7fff for f16 and
// bf16, 0x7f for e4m3 and e5m2, 0xff for ue8m0). Formats without NaN (e2m1,
// e2m3, e3m2) turn NaN into +MAX_NORM, as .satfinite specifies.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_EMULATOR_FLOATFORMATS_H
#define NVFP4_EMULATOR_FLOATFORMATS_H

#include <cstdint>

namespace nvfp4::emu::fp {

/// IEEE-style rounding directions (PTX .rn, .rna, .rz, .rm, .rp).
enum class Round : uint8_t {
  NearestEven, ///< .rn
  NearestAway, ///< .rna
  TowardZero,  ///< .rz
  Down,        ///< .rm (toward negative infinity)
  Up,          ///< .rp (toward positive infinity)
};

/// How a format spells NaN.
enum class NanStyle : uint8_t {
  IEEE,    ///< exponent all ones and mantissa non-zero (Inf: mantissa zero)
  AllOnes, ///< only exponent and mantissa all ones (e4m3: S.1111.111)
  None,    ///< no NaN and no Inf (e2m1, e2m3, e3m2)
};

/// A binary floating-point format.
struct Format {
  uint8_t expBits;
  uint8_t mantBits;
  int16_t bias;
  bool hasSign;
  bool hasInf;
  NanStyle nan;
  bool hasZero; ///< false for ue8m0 (code 0 is 2^-127)
  const char *name;

  unsigned totalBits() const {
    return (hasSign ? 1u : 0u) + expBits + mantBits;
  }
};

/// The formats, with their PTX names.
extern const Format kF64, kF32, kTF32, kF16, kBF16, kE4M3, kE5M2, kE2M3, kE3M2,
    kE2M1, kUE8M0;

/// An exact number: (-1)^sign * mant * 2^exp, plus a possible "sticky"
/// amount of less than one unit of mant's last place in the direction given
/// by stickySign (+1 away from zero, -1 toward zero, 0 none).
struct Unpacked {
  enum Kind : uint8_t { Zero, Finite, Inf, NaN };
  Kind kind = Zero;
  bool sign = false;
  int32_t exp = 0;
  uint64_t mant = 0;
  int8_t stickySign = 0;
};

/// Splits `bits` of format `f` into an exact Unpacked value.
Unpacked unpack(const Format &f, uint64_t bits);
/// An exact Unpacked from a double.
Unpacked unpackDouble(double d);
/// An exact Unpacked from an integer (signed when `isSigned`).
Unpacked unpackInteger(uint64_t v, bool isSigned);

/// Options of one conversion.
struct EncodeOptions {
  Round round = Round::NearestEven;
  bool satFinite = false;      ///< |x| > MAX_NORM (incl. Inf) -> +-MAX_NORM
  bool relu = false;           ///< negative results -> +0 (NaN stays NaN)
  bool flushSubnormal = false; ///< subnormal results -> signed zero (.ftz)
};

/// Rounds `v` into format `f` and returns its bits (in the low bits).
uint64_t encode(const Format &f, const Unpacked &v, const EncodeOptions &o);

/// The canonical NaN of `f` (for formats without NaN: +MAX_NORM).
uint64_t canonicalNaN(const Format &f);
/// The largest finite value of `f` with sign `negative`.
uint64_t maxFinite(const Format &f, bool negative);
/// The value of `bits` in format `f` as a double (exact for every format
/// here; NaN for NaN codes).
double toDouble(const Format &f, uint64_t bits);
/// True when `bits` in `f` is a subnormal (non-zero with exponent field 0).
bool isSubnormal(const Format &f, uint64_t bits);

//===----------------------------------------------------------------------===//
// Convenience wrappers
//===----------------------------------------------------------------------===//

/// Bits of a float / double and back.
uint32_t bitsOf(float f);
uint64_t bitsOf(double d);
float f32FromBits(uint32_t b);
double f64FromBits(uint64_t b);

/// Rounds the exact value `hi + lo` (with |lo| at most half an ulp of hi,
/// as TwoSum produces) to f32 with `o`. Used for correctly rounded f32
/// arithmetic in every rounding mode.
uint32_t roundToF32(double hi, double lo, const EncodeOptions &o);

/// Correctly rounded f32 arithmetic in rounding mode `r` (no flushing; NaN
/// results are canonical). These are the reference operations of the
/// executor's add/sub/mul/fma/div/sqrt/rcp.f32 with .rn/.rz/.rm/.rp.
uint32_t addF32(uint32_t a, uint32_t b, Round r);
uint32_t mulF32(uint32_t a, uint32_t b, Round r);
uint32_t fmaF32(uint32_t a, uint32_t b, uint32_t c, Round r);
uint32_t divF32(uint32_t a, uint32_t b, Round r);
uint32_t sqrtF32(uint32_t a, Round r);

/// Correctly rounded addition, multiplication and fused multiply-add in a
/// format no wider than f32 (f32, f16, bf16), NaN results canonical.
uint64_t addFormat(const Format &f, uint64_t a, uint64_t b, Round r);
uint64_t mulFormat(const Format &f, uint64_t a, uint64_t b, Round r);
uint64_t fmaFormat(const Format &f, uint64_t a, uint64_t b, uint64_t c,
                   Round r);

/// Correctly rounded f64 arithmetic in rounding mode `r` (NaN canonical).
uint64_t addF64(uint64_t a, uint64_t b, Round r);
uint64_t mulF64(uint64_t a, uint64_t b, Round r);
uint64_t fmaF64(uint64_t a, uint64_t b, uint64_t c, Round r);
uint64_t divF64(uint64_t a, uint64_t b, Round r);
uint64_t sqrtF64(uint64_t a, Round r);

} // namespace nvfp4::emu::fp

#endif // NVFP4_EMULATOR_FLOATFORMATS_H
