//===- Nvfp4Format.h - the NVFP4 format and quantization recipes -*- C++ -*-===//
//
// NVFP4 as the engines use it (docs/NVFP4.md): e2m1 values two per byte
// (element 2i in the low nibble), one e4m3 scale factor (SF) per 16
// consecutive elements along the reduction dimension, one f32 tensor scale
// `gs` (the encode scale, 448 * 6 / amax). This is the independent
// reference the quantize kernels are checked against bit for bit: it is
// written from the recipe (TensorRT-LLM / FlashInfer / vLLM for `Fast`,
// Transformer Engine for `Exact`), and its conversions search the format's
// value tables rather than manipulate bits (the emulator's cvt does the
// latter), so the two do not share a mistake.
//
// Plain C++ (no MLIR): the dialect's verifier, the runtime's reference and
// the unit tests share it.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_SUPPORT_NVFP4FORMAT_H
#define NVFP4_SUPPORT_NVFP4FORMAT_H

#include <cstdint>

namespace nvfp4::fp4 {

/// Elements per scale factor.
constexpr int64_t kBlock = 16;
/// Largest e2m1 and e4m3 magnitudes.
constexpr float kE2M1Max = 6.0f, kE4M3Max = 448.0f;

/// How the block scale and the element multiplier are computed.
enum class Recipe {
  /// TensorRT-LLM / FlashInfer / vLLM: SF = e4m3(gs * (amax * rcp(6))),
  /// multiplier = SF != 0 ? rcp(SF * rcp(gs)) : 0, rcp = rcp.approx.ftz.f32.
  Fast,
  /// Transformer Engine: SF = e4m3(amax * (gs * (1/6))), multiplier =
  /// fminf(1 / (SF * (1 / gs)), FLT_MAX), IEEE divisions.
  Exact,
};

/// What a NaN input does to its block.
enum class NanPolicy {
  /// The block amax is NaN, so SF = 0x7F (e4m3 NaN) and the block
  /// dequantizes to NaN (CUTLASS's epilogue).
  Propagate,
  /// NaN is left out of the block amax (TensorRT-LLM's __hmax2); the NaN
  /// element itself converts to +6 (code 0x7), the others as usual.
  Ignore,
};

/// Where the scale factors of a [M, K] tensor are stored.
enum class SfLayout {
  /// [round_up(M, 128), round_up(K / 16, 4)] bytes in 512-byte atoms of
  /// 128 rows x 4 blocks (the layout tcgen05 and the engines' GEMMs read;
  /// padding is zero). See sfOffset.
  Swizzled,
  /// [M, K / 16] bytes, row-major.
  RowMajor,
};

/// The e2m1 code (4 bits) nearest to x, ties to the even code; |x| > 6
/// gives +-6 (satfinite), NaN gives +6 (0x7, PTX cvt.rn.satfinite.e2m1x2),
/// a negative x that rounds to zero gives -0 (0x8).
uint8_t encodeE2M1(float x);
/// The value of an e2m1 code (bits above 3 ignored).
float decodeE2M1(uint8_t code);
/// The e4m3 (f8E4M3FN) code nearest to x, ties to the even code; |x| >=
/// 448 (and +-inf) gives +-448, NaN gives 0x7F (cvt.rn.satfinite.e4m3x2).
uint8_t encodeE4M3(float x);
/// The value of an e4m3 code (0x7F / 0xFF are NaN).
float decodeE4M3(uint8_t code);

/// rcp.approx.ftz.f32 as this project models it: the correctly rounded
/// reciprocal, with subnormal inputs and results flushed to zero (same
/// sign). The H200 differs from it by one ulp on 13% of mantissas
/// (scripts/device/rcp_approx_probe.sh, docs/NVFP4.md); kernels and the
/// engines issue the same instruction, so on hardware they agree with each
/// other.
float rcpApproxFtz(float x);

/// The tensor scale the op computes from the tensor's amax (Transformer
/// Engine's rule): min(448 * 6 / amax, FLT_MAX), and 1 when amax is 0 or
/// the quotient is 0 (amax = inf).
float encodeScaleFromAmax(float amax);

/// One quantized block of 16 elements.
struct Block {
  uint8_t sf = 0;        ///< the e4m3 scale factor
  uint8_t codes[16] = {}; ///< e2m1 codes, one per element
};

/// Quantizes 16 elements (their exact values) with tensor scale gs.
Block quantizeBlock(const float *x, float gs, Recipe recipe, NanPolicy nan);

/// The dequantized value of a code under scale factor sf and tensor scale
/// gs: (e2m1 * e4m3) / gs, one IEEE division (the product is exact).
float dequantize(uint8_t code, uint8_t sf, float gs);

/// Scale-factor tensor shape for [M, K] data (K a multiple of 16).
int64_t sfRows(SfLayout layout, int64_t m);
int64_t sfCols(SfLayout layout, int64_t k);
/// Byte offset of the scale factor of row m, block kb (= k / 16) in a
/// [M, K] tensor's scale factors. Swizzled: with Kt = ceil(K / 64),
///   (m / 128) * Kt * 512 + (kb / 4) * 512 + (m % 32) * 16
///     + ((m / 32) % 4) * 4 + kb % 4.
int64_t sfOffset(SfLayout layout, int64_t m, int64_t kb, int64_t k);

} // namespace nvfp4::fp4

#endif // NVFP4_SUPPORT_NVFP4FORMAT_H
