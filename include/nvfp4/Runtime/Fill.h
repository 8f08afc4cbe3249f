//===- Fill.h - Seeded, zero and poison buffer contents ---------*- C++ -*-===//
//
// How nvfp4-run fills device buffers: random values from a seed (never
// zero, so that a kernel that writes nothing or reads the wrong element is
// visible), zeros, or poison (0xFF bytes: NaN in every float format).
//
// The generator is SplitMix64 (Steele, Lea, Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014) started at the seed, one
// 64-bit draw per element; the same seed and type give the same bytes on
// every machine and backend.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_FILL_H
#define NVFP4_RUNTIME_FILL_H

#include "nvfp4/Runtime/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace nvfp4::rt {

/// Element types a seeded fill produces.
enum class FillType { F32, BF16, F16, I32, U8 };

/// "f32", "bf16", "f16", "i32", "u8".
const char *stringify(FillType t);
/// Inverse of stringify; failures list the accepted names.
Expected<FillType> parseFillType(const std::string &s);
/// Bytes of one element of `t`.
unsigned fillTypeBytes(FillType t);

/// Fills `bytes` bytes at `data` with random elements of type `t` from
/// `seed`: floats uniform in magnitude in [2^-10, 1) with a random sign;
/// i32 uniform over all non-zero values; u8 uniform in [1, 255]. `bytes`
/// must be a multiple of the element size.
Error fillRandom(uint8_t *data, size_t bytes, uint64_t seed, FillType t);

/// NVFP4 quantizer inputs (docs/NVFP4.md, "Testing"): `rows` rows of `k`
/// elements (k a multiple of 16) of type `t` (f32, bf16 or f16), each block
/// of 16 one of: random full-mantissa values at a random block magnitude
/// (scale factors from subnormal to saturated), every e2m1 tie point, an
/// amax on an e4m3 tie, a zero block (signed zeros), a block with NaN, an
/// infinity or the type's largest value, tiny (subnormal) values. The ties
/// are exact when the tensor scale is 2^p with p = encodeScaleExponent(
/// seed); fillEncodeScale picks that scale for such seeds.
Error fillNvfp4Input(uint8_t *data, uint64_t rows, uint64_t k, uint64_t seed,
                     FillType t);
/// The tensor (encode) scale for an NVFP4 input filled from `seed`: 2^p
/// (p = encodeScaleExponent(seed)) for two seeds in three, else the
/// engines' 448 * 6 / amax of the finite values of `x` (`n` elements).
float fillEncodeScale(const uint8_t *x, uint64_t n, uint64_t seed, FillType t);
/// The exponent p of fillEncodeScale's 2^p for `seed`, or none (the
/// engines' scale).
bool encodeScaleIsPowerOfTwo(uint64_t seed, int &p);

/// Round-to-nearest-even conversions used by the fills (NaN stays NaN).
uint16_t floatToBF16(float f);
uint16_t floatToF16(float f);

/// The byte a poisoned buffer is filled with.
inline constexpr uint8_t kPoisonByte = 0xFF;

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_FILL_H
