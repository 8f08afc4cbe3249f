//===- WgmmaNumericsValues.h - element values of the wgmma probe -*- C++ -*-===//
//
// Shared by WgmmaNumericsTest.cpp and the WgmmaNumericsFit tool: an
// element's value from its bits in a probe format (through the emulator's
// float formats) and the f32 bit conversions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_UNITTESTS_EMULATOR_WGMMANUMERICSVALUES_H
#define NVFP4_UNITTESTS_EMULATOR_WGMMANUMERICSVALUES_H

#include "nvfp4/Emulator/FloatFormats.h"
#include "wgmma_numerics_gen.h"

#include <cstdint>
#include <cstring>

namespace wgmma_numerics {

inline double value(Format f, uint32_t bits) {
  namespace fp = nvfp4::emu::fp;
  switch (f) {
  case Format::BF16: return fp::toDouble(fp::kBF16, bits);
  case Format::F16: return fp::toDouble(fp::kF16, bits);
  case Format::E4M3: return fp::toDouble(fp::kE4M3, bits);
  case Format::E5M2: return fp::toDouble(fp::kE5M2, bits);
  }
  return 0;
}

/// The f32 whose bits are B, as a double.
inline double f32Value(uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}

/// The bits of D rounded to f32.
inline uint32_t f32BitsOf(double d) {
  float f = static_cast<float>(d);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

} // namespace wgmma_numerics

#endif
