//===- ExecHelpers.h - Shared helpers of the executor's files ---*- C++ -*-===//
//
// The lane loop, NaN / flush / saturation helpers, integer helpers and the
// type dispatch the executor's instruction families share (Executor.cpp,
// ExecSync.cpp, ExecInt.cpp, ExecFloat.cpp, ExecMemory.cpp). Internal to
// lib/Emulator; each including file gets its own copy (anonymous
// namespace, inline).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EMULATOR_EXECHELPERS_H
#define NVFP4_LIB_EMULATOR_EXECHELPERS_H

#include "Executor.h"

#include "nvfp4/Emulator/FloatFormats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace nvfp4::emu {
using ptx::Type;
namespace {

#define NVFP4_FOR_LANES(maskExpr, ...)                                         \
  do {                                                                         \
    uint32_t m__ = (maskExpr);                                                 \
    if (m__ == 0xffffffffu) {                                                  \
      for (uint32_t l = 0; l < 32; ++l) {                                      \
        __VA_ARGS__;                                                           \
      }                                                                        \
    } else {                                                                   \
      while (m__) {                                                            \
        uint32_t l = static_cast<uint32_t>(__builtin_ctz(m__));                \
        m__ &= m__ - 1;                                                        \
        __VA_ARGS__;                                                           \
      }                                                                        \
    }                                                                          \
  } while (0)

inline uint32_t firstLane(uint32_t m) {
  return m ? static_cast<uint32_t>(__builtin_ctz(m)) : 0;
}
inline uint32_t popcount(uint32_t m) {
  return static_cast<uint32_t>(__builtin_popcount(m));
}

/// Truncates `v` to the instruction's result width and extends it to the
/// destination register's width.
inline uint64_t canon(const XInst &I, uint64_t v) {
  if (I.dstSextShift)
    return static_cast<uint64_t>(static_cast<int64_t>(v << I.dstSextShift) >>
                                 I.dstSextShift) &
           I.dstRegMask;
  return v & I.dstTypeMask;
}

inline std::string hex(uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

inline std::string dimStr(const Dim3 &d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," +
         std::to_string(d.z) + ")";
}

inline const char *spaceStr(XSpace s) {
  switch (s) {
  case XSpace::Generic:
    return "generic";
  case XSpace::Global:
    return "global";
  case XSpace::Shared:
    return "shared";
  case XSpace::SharedCluster:
    return "shared::cluster";
  case XSpace::Local:
    return "local";
  case XSpace::ParamKernel:
    return "param";
  case XSpace::Const:
    return "const";
  }
  return "?";
}

inline fp::Round toRound(uint8_t r) {
  switch (r) {
  case XR_Rna:
    return fp::Round::NearestAway;
  case XR_Rz:
  case XR_Rzi:
    return fp::Round::TowardZero;
  case XR_Rm:
  case XR_Rmi:
    return fp::Round::Down;
  case XR_Rp:
  case XR_Rpi:
    return fp::Round::Up;
  default:
    return fp::Round::NearestEven;
  }
}

inline uint32_t f32Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float f32Of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint64_t f64Bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
inline double f64Of(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

constexpr uint32_t kNanF32 = 0x7fffffffu;
constexpr uint64_t kNanF64 = 0x7fffffffffffffffull;

inline uint32_t canonNanF32(uint32_t b) {
  return (b & 0x7fffffffu) > 0x7f800000u ? kNanF32 : b;
}
inline uint64_t canonNanF64(uint64_t b) {
  return (b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull ? kNanF64 : b;
}

// f64 NaN results, measured on an H200 (docs/Emulator.md "Semantic choices
// where the ISA leaves room", corpus case f64_ops): an operation with NaN
// operands returns the last NaN operand in operand order (b over a, c over
// both; div.f64 the first: a over b), quieted (bit 51 set) with its sign
// and payload; an operation that generates a NaN from non-NaN operands
// (Inf - Inf, 0 * Inf, sqrt of a negative number) returns
// 0xfff8000000000000.
constexpr uint64_t kDefaultNanF64 = 0xfff8000000000000ull;

inline bool isNanF64(uint64_t b) {
  return (b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}
inline uint64_t quietF64(uint64_t b) { return b | 0x0008000000000000ull; }
/// The NaN an f64 operation with operands x, y, z returns, or 0 when none
/// of them is a NaN (pass 0, a number, for missing operands).
inline uint64_t nanOperandF64(uint64_t x, uint64_t y = 0, uint64_t z = 0) {
  if (isNanF64(z))
    return quietF64(z);
  if (isNanF64(y))
    return quietF64(y);
  if (isNanF64(x))
    return quietF64(x);
  return 0;
}
/// A computed f64 result with generated NaNs replaced by the default NaN.
inline uint64_t defaultNanF64(uint64_t b) {
  return isNanF64(b) ? kDefaultNanF64 : b;
}
/// cvt between f32 and f64 of a NaN: quieted, sign kept, payload shifted
/// (the low 29 bits dropped / zero-filled).
inline uint32_t nanF64ToF32(uint64_t b) {
  return uint32_t(b >> 32 & 0x80000000u) | 0x7fc00000u |
         uint32_t(b >> 29 & 0x7fffffu);
}
inline uint64_t nanF32ToF64(uint32_t b) {
  return uint64_t(b & 0x80000000u) << 32 | 0x7ff8000000000000ull |
         uint64_t(b & 0x7fffffu) << 29;
}
/// Flushes an f32 subnormal to a zero of the same sign.
inline uint32_t flushF32(uint32_t b) {
  return (b & 0x7f800000u) == 0 ? (b & 0x80000000u) : b;
}
/// .ftz of mul.f32 flushes a result whose exact (unrounded) magnitude is
/// below 2^-126, even when it rounds up to 2^-126 (H200, corpus case
/// f32_exact: 0x00800000 * 0x3f7fffff -> +0). `v` is the rounded result,
/// `towardZero` computes it rounded toward zero, which is below 2^-126
/// exactly when the exact value is.
template <typename Fn>
inline uint32_t ftzBeforeRounding(uint32_t v, Fn towardZero) {
  if ((v & 0x7f800000u) > 0x00800000u)
    return v;
  return (towardZero() & 0x7f800000u) == 0 ? (v & 0x80000000u) : v;
}
/// .sat for f32: clamp to [0, 1]; NaN -> +0.
inline uint32_t satF32(uint32_t b) {
  if ((b & 0x7fffffffu) > 0x7f800000u)
    return 0;
  if (b & 0x80000000u)
    return 0;
  if (b > 0x3f800000u)
    return 0x3f800000u;
  return b;
}
inline uint64_t satF64(uint64_t b) {
  if ((b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
    return 0;
  if (b & 0x8000000000000000ull)
    return 0;
  if (b > 0x3ff0000000000000ull)
    return 0x3ff0000000000000ull;
  return b;
}

template <typename T> using UnsignedOf = std::make_unsigned_t<T>;

template <typename T> inline bool isNegative(T x) {
  if constexpr (std::is_signed_v<T>)
    return x < 0;
  else
    return false;
}

/// High half of the full product of a and b.
template <typename T> uint64_t mulHi(T a, T b) {
  constexpr unsigned bits = sizeof(T) * 8;
  if constexpr (bits <= 32) {
    if constexpr (std::is_signed_v<T>)
      return static_cast<uint64_t>(static_cast<int64_t>(a) *
                                   static_cast<int64_t>(b)) >>
             bits;
    else
      return (static_cast<uint64_t>(a) * static_cast<uint64_t>(b)) >> bits;
  } else {
    if constexpr (std::is_signed_v<T>)
      return static_cast<uint64_t>(
          static_cast<unsigned __int128>(static_cast<__int128>(a) *
                                         static_cast<__int128>(b)) >>
          64);
    else
      return static_cast<uint64_t>((static_cast<unsigned __int128>(a) *
                                    static_cast<unsigned __int128>(b)) >>
                                   64);
  }
}

/// The full product of 16- or 32-bit a and b (as a 64-bit pattern).
template <typename T> uint64_t mulWide(T a, T b) {
  if constexpr (std::is_signed_v<T>)
    return static_cast<uint64_t>(static_cast<int64_t>(a) *
                                 static_cast<int64_t>(b));
  else
    return static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
}

template <typename T> uint64_t mulLo(T a, T b) {
  return static_cast<uint64_t>(static_cast<uint64_t>(UnsignedOf<T>(a)) *
                               static_cast<uint64_t>(UnsignedOf<T>(b)));
}

/// Sign-extends the low `bits` of v.
inline int64_t sext(uint64_t v, unsigned bits) {
  if (bits >= 64)
    return static_cast<int64_t>(v);
  unsigned s = 64 - bits;
  return static_cast<int64_t>(v << s) >> s;
}

inline uint64_t lowMask(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

inline const fp::Format *formatOf(Type t) {
  switch (t) {
  case Type::F16:
  case Type::F16x2:
    return &fp::kF16;
  case Type::BF16:
  case Type::BF16x2:
    return &fp::kBF16;
  case Type::F32:
    return &fp::kF32;
  case Type::F64:
    return &fp::kF64;
  case Type::E4M3:
  case Type::E4M3x2:
    return &fp::kE4M3;
  case Type::E5M2:
  case Type::E5M2x2:
    return &fp::kE5M2;
  case Type::E2M3:
  case Type::E2M3x2:
    return &fp::kE2M3;
  case Type::E3M2:
  case Type::E3M2x2:
    return &fp::kE3M2;
  case Type::E2M1:
  case Type::E2M1x2:
    return &fp::kE2M1;
  case Type::UE8M0:
  case Type::UE8M0x2:
    return &fp::kUE8M0;
  default:
    return nullptr;
  }
}

} // namespace

#define NVFP4_INT_DISPATCH(ty, ...)                                            \
  switch (ty) {                                                                \
  case Type::B8:                                                               \
  case Type::U8: {                                                             \
    using T = uint8_t;                                                         \
    __VA_ARGS__;                                                               \
    break;                                                                     \
  }                                                                            \
  case Type::S8: {                                                             \
    using T = int8_t;                                                          \
    __VA_ARGS__;                                                               \
    break;                                                                     \
  }                                                                            \
  case Type::B16:                                                              \
  case Type::U16: {                                                            \
    using T = uint16_t;                                                        \
    __VA_ARGS__;                                                               \
    break;                                                                     \
  }                                                                            \
  case Type::S16: {                                                            \
    using T = int16_t;                                                         \
    __VA_ARGS__;                                                               \
    break;                                                                     \
  }                                                                            \
  case Type::B32:                                                              \
  case Type::U32: {                                                            \
    using T = uint32_t;                                                        \
    __VA_ARGS__;                                                               \
    break;                                                                     \
  }                                                                            \
  case Type::S32: {                                                            \
    using T = int32_t;                                                         \
    __VA_ARGS__;                                                               \
    break;                                                                     \
  }                                                                            \
  case Type::B64:                                                              \
  case Type::U64: {                                                            \
    using T = uint64_t;                                                        \
    __VA_ARGS__;                                                               \
    break;                                                                     \
  }                                                                            \
  case Type::S64: {                                                            \
    using T = int64_t;                                                         \
    __VA_ARGS__;                                                               \
    break;                                                                     \
  }                                                                            \
  default:                                                                     \
    return fault(Fault::Kind::Invalid, w, firstLane(mask), I,                  \
                 std::string("unsupported type .") + ptx::typeName(ty));       \
  }

/// The warp moves past an instruction; reschedule when a parked group's pc
/// is reached.
inline void advanceImpl(Executor::Warp &w, bool &needResched) {
  ++w.pc;
  needResched = w.parked != w.collWait && w.pc >= w.minParkedPc;
}

} // namespace nvfp4::emu

#endif // NVFP4_LIB_EMULATOR_EXECHELPERS_H
