//===- ExecFloat.cpp - Floating point and conversions ---------------------===//
//
// The executor's floating-point family: f32 / f64 arithmetic with every
// rounding mode, .ftz / .sat, the approximate functions, f16 / bf16 and
// packed forms, and cvt between every pair of types.
//
//===----------------------------------------------------------------------===//

#include "ExecHelpers.h"
#include "Sfu.h"

using namespace nvfp4::emu;
using ptx::Type;

//===----------------------------------------------------------------------===//
// Floating point
//===----------------------------------------------------------------------===//

namespace {

/// min/max of two f32 / f64 values per PTX (-0 < +0, NaN handling).
template <typename F>
inline F fminmax(F x, F y, bool isMax, bool nanProp, bool &isNan) {
  bool xn = std::isnan(x), yn = std::isnan(y);
  isNan = false;
  if (xn || yn) {
    if (nanProp || (xn && yn)) {
      isNan = true;
      return x;
    }
    return xn ? y : x;
  }
  if (x == y && x == 0) {
    bool xs = std::signbit(x), ys = std::signbit(y);
    if (isMax)
      return xs && !ys ? y : x;
    return !xs && ys ? y : x;
  }
  return isMax ? (x > y ? x : y) : (x < y ? x : y);
}

/// Transcendental approximations, computed in double and rounded once.
inline float approxF32(XOp op, float x) {
  double d = x;
  switch (op) {
  case XOp::FEx2:
    return static_cast<float>(std::exp2(d));
  case XOp::FLg2:
    return static_cast<float>(std::log2(d));
  case XOp::FSin:
    return static_cast<float>(std::sin(d));
  case XOp::FCos:
    return static_cast<float>(std::cos(d));
  case XOp::FTanh:
    return static_cast<float>(std::tanh(d));
  case XOp::FRsqrt:
    return static_cast<float>(1.0 / std::sqrt(d));
  default:
    return x;
  }
}

} // namespace

/// add/sub/mul/fma .f32x2 (sm_100): two independent f32 operations on the
/// low and high halves of .b64 registers, with the f32 rules.
bool Executor::execF32x2(Warp &w, const XInst &I, uint32_t mask) {
  if (I.op != XOp::FAdd && I.op != XOp::FSub && I.op != XOp::FMul &&
      I.op != XOp::FFma)
    return fault(Fault::Kind::NotImplemented, w, firstLane(mask), I,
                 "not implemented yet: '" +
                     (I.inst ? I.inst->mnemonic : std::string("f32x2")) +
                     "' (f32x2 supports add, sub, mul and fma)");
  uint64_t *d = row(w, I.dst);
  const uint64_t *a = src(w, I.src[0]);
  const uint64_t *b = src(w, I.src[1]);
  const uint64_t *c = I.src[2] != kNone ? src(w, I.src[2]) : nullptr;
  bool ftz = I.flags & XF_Ftz, sat = I.flags & XF_Sat;
  fp::Round r = toRound(I.rnd);
  auto in = [&](uint64_t v, unsigned h) {
    uint32_t x = uint32_t(v >> (32 * h));
    return ftz ? flushF32(x) : x;
  };
  NVFP4_FOR_LANES(mask, {
    uint64_t res = 0;
    for (unsigned h = 0; h < 2; ++h) {
      uint32_t x = in(a[l], h), y = in(b[l], h), v;
      switch (I.op) {
      case XOp::FAdd:
        v = fp::addF32(x, y, r);
        break;
      case XOp::FSub:
        v = fp::addF32(x, y ^ 0x80000000u, r);
        break;
      case XOp::FMul:
        v = fp::mulF32(x, y, r);
        break;
      default:
        v = fp::fmaF32(x, y, in(c[l], h), r);
        break;
      }
      v = canonNanF32(v);
      if (ftz)
        v = flushF32(v);
      if (sat)
        v = satF32(v);
      res |= uint64_t(v) << (32 * h);
    }
    d[l] = res;
  });
  return true;
}

bool Executor::execFloat(Warp &w, const XInst &I, uint32_t mask) {
  Type t = I.type;
  if (t == Type::F32x2)
    return execF32x2(w, I, mask);
  if (t != Type::F32 && t != Type::F64)
    return execHalf(w, I, mask);
  uint64_t *d = I.dst != kNone ? row(w, I.dst) : nullptr;
  const uint64_t *a = src(w, I.src[0]);
  const uint64_t *b = I.src[1] != kNone ? src(w, I.src[1]) : nullptr;
  const uint64_t *c = I.src[2] != kNone ? src(w, I.src[2]) : nullptr;
  bool ftz = I.flags & XF_Ftz, sat = I.flags & XF_Sat;
  bool directed = I.rnd == XR_Rz || I.rnd == XR_Rm || I.rnd == XR_Rp;
  fp::Round r = toRound(I.rnd);

  if (t == Type::F32) {
    auto in = [&](const uint64_t *p, uint32_t l) {
      uint32_t v = uint32_t(p[l]);
      return ftz ? flushF32(v) : v;
    };
    auto out = [&](uint32_t v) {
      v = canonNanF32(v);
      if (ftz)
        v = flushF32(v);
      if (sat)
        v = satF32(v);
      return uint64_t(v);
    };
    switch (I.op) {
    case XOp::FAdd:
    case XOp::FSub: {
      bool sub = I.op == XOp::FSub;
      if (!directed && !ftz && !sat) {
        NVFP4_FOR_LANES(mask, {
          float x = f32Of(uint32_t(a[l])), y = f32Of(uint32_t(b[l]));
          d[l] = canonNanF32(f32Bits(sub ? x - y : x + y));
        });
      } else {
        NVFP4_FOR_LANES(mask, {
          uint32_t y = in(b, l);
          if (sub)
            y ^= 0x80000000u;
          d[l] = out(fp::addF32(in(a, l), y, r));
        });
      }
      return true;
    }
    case XOp::FMul:
      if (!directed && !ftz && !sat) {
        NVFP4_FOR_LANES(mask,
                        d[l] = canonNanF32(f32Bits(f32Of(uint32_t(a[l])) *
                                                   f32Of(uint32_t(b[l])))));
      } else {
        NVFP4_FOR_LANES(mask, {
          uint32_t x = in(a, l), y = in(b, l);
          uint32_t v = fp::mulF32(x, y, r);
          if (ftz)
            v = ftzBeforeRounding(
                v, [&] { return fp::mulF32(x, y, fp::Round::TowardZero); });
          d[l] = out(v);
        });
      }
      return true;
    case XOp::FFma:
      NVFP4_FOR_LANES(mask, {
        uint32_t x = in(a, l), y = in(b, l), z = in(c, l);
        // fma.ftz flushes after rounding: 2^-126 * 2^-126 - 2^-126 gives
        // -2^-126 on the H200 (corpus case f32_exact), unlike mul.ftz.
        uint32_t v = !directed ? f32Bits(std::fma(f32Of(x), f32Of(y), f32Of(z)))
                               : fp::fmaF32(x, y, z, r);
        d[l] = out(v);
      });
      if (I.flags & XF_Relu) {
        NVFP4_FOR_LANES(mask, {
          uint32_t v = uint32_t(d[l]);
          if ((v & 0x80000000u) && (v & 0x7fffffffu) <= 0x7f800000u)
            d[l] = 0;
        });
      }
      return true;
    case XOp::FDiv:
      if (I.sub == 1) {
        // div.approx: a * (1/b); |b| in (2^126, 2^128) gives 0 (NaN for an
        // infinite a), as the PTX ISA specifies.
        NVFP4_FOR_LANES(mask, {
          uint32_t x = in(a, l), y = in(b, l);
          float fy = f32Of(y);
          float res;
          if (std::isfinite(fy) && std::fabs(fy) > 0x1p126f)
            res = std::isinf(f32Of(x)) ? NAN : 0.0f * f32Of(x) * fy;
          else if (fp::isSubnormal(fp::kF32, y))
            // A subnormal divisor (no .ftz) is scaled into the normal range
            // first: 0 / b = 0, a / b exact where representable (H200,
            // corpus case f32_approx: 0x1 / 0x1 = 1, 0x00400000 / 0x1 =
            // 2^22); the ISA leaves this range open.
            res = static_cast<float>(double(f32Of(x)) *
                                     double(1.0f / (fy * 0x1p24f)) * 0x1p24);
          else
            res = f32Of(x) * (1.0f / fy);
          d[l] = out(f32Bits(res));
        });
      } else if (!directed) {
        NVFP4_FOR_LANES(mask,
                        d[l] = out(f32Bits(f32Of(in(a, l)) / f32Of(in(b, l)))));
      } else {
        NVFP4_FOR_LANES(mask, d[l] = out(fp::divF32(in(a, l), in(b, l), r)));
      }
      return true;
    case XOp::FRcp:
      if (!directed) {
        NVFP4_FOR_LANES(mask, d[l] = out(f32Bits(1.0f / f32Of(in(a, l)))));
      } else {
        NVFP4_FOR_LANES(mask, d[l] = out(fp::divF32(0x3f800000u, in(a, l), r)));
      }
      return true;
    case XOp::FSqrt:
      if (!directed) {
        NVFP4_FOR_LANES(mask, d[l] = out(f32Bits(std::sqrt(f32Of(in(a, l))))));
      } else {
        NVFP4_FOR_LANES(mask, d[l] = out(fp::sqrtF32(in(a, l), r)));
      }
      return true;
    case XOp::FEx2:
      if (sm90Approx_) {
        // The H200's tables (Sfu.h); without .ftz a result below 2^-126
        // stays the nearest float (that path is not measured).
        NVFP4_FOR_LANES(mask, {
          uint32_t x = in(a, l);
          uint32_t e = ex2ApproxFtzH200(x);
          if (!ftz && (e & 0x7f800000) == 0 && (x & 0x7fffffff) != 0 &&
              (x >> 31))
            e = f32Bits(approxF32(I.op, f32Of(x)));
          d[l] = out(e);
        });
        return true;
      }
      [[fallthrough]];
    case XOp::FLg2:
      // (ex2 falls through here only without sm90Approx_.)
      if (sm90Approx_) {
        // sm_90's lg2 (Sfu.h); a subnormal x without .ftz is not measured:
        // the nearest float.
        NVFP4_FOR_LANES(mask, {
          uint32_t x = in(a, l);
          d[l] = out(!ftz && (x & 0x7f800000) == 0 && (x & 0x7fffff) != 0
                         ? f32Bits(approxF32(I.op, f32Of(x)))
                         : lg2ApproxFtzSm90(x));
        });
        return true;
      }
      [[fallthrough]];
    case XOp::FRsqrt:
    case XOp::FSin:
    case XOp::FCos:
    case XOp::FTanh:
      NVFP4_FOR_LANES(mask,
                      d[l] = out(f32Bits(approxF32(I.op, f32Of(in(a, l))))));
      return true;
    case XOp::FMin:
    case XOp::FMax: {
      bool isMax = I.op == XOp::FMax, nanProp = I.flags & XF_NaN;
      bool absF = I.flags & XF_Abs, xs = I.flags & XF_XorSign;
      NVFP4_FOR_LANES(mask, {
        uint32_t x = in(a, l), y = in(b, l);
        uint32_t sign = (x ^ y) & 0x80000000u;
        if (absF) {
          x &= 0x7fffffffu;
          y &= 0x7fffffffu;
        }
        bool isNan;
        float res = fminmax(f32Of(x), f32Of(y), isMax, nanProp, isNan);
        if (c && !isNan) {
          uint32_t z = in(c, l);
          if (absF)
            z &= 0x7fffffffu;
          res = fminmax(res, f32Of(z), isMax, nanProp, isNan);
        }
        uint32_t v = isNan ? kNanF32 : f32Bits(res);
        if (xs && !isNan)
          v = (v & 0x7fffffffu) | sign;
        if (ftz)
          v = flushF32(v);
        d[l] = v;
      });
      return true;
    }
    // abs and neg of a NaN give the canonical NaN (measured on an H200).
    case XOp::FAbs:
      NVFP4_FOR_LANES(mask, d[l] = canonNanF32(in(a, l) & 0x7fffffffu));
      return true;
    case XOp::FNeg:
      NVFP4_FOR_LANES(mask, d[l] = canonNanF32(in(a, l) ^ 0x80000000u));
      return true;
    case XOp::FCopysign:
      NVFP4_FOR_LANES(mask, d[l] = (uint32_t(b[l]) & 0x7fffffffu) |
                                   (uint32_t(a[l]) & 0x80000000u));
      return true;
    case XOp::FTestp: {
      uint32_t res = 0;
      NVFP4_FOR_LANES(mask, {
        float x = f32Of(uint32_t(a[l]));
        bool v = false;
        switch (I.sub) {
        case 0:
          v = std::isfinite(x);
          break;
        case 1:
          v = std::isinf(x);
          break;
        case 2:
          v = !std::isnan(x);
          break;
        case 3:
          v = std::isnan(x);
          break;
        case 4:
          // testp.normal.f32 is true for +-0 too (H200, corpus case
          // f32_exact); false for subnormals, Inf and NaN.
          v = std::isnormal(x) || x == 0.0f;
          break;
        case 5:
          v = std::fpclassify(x) == FP_SUBNORMAL;
          break;
        }
        if (v)
          res |= 1u << l;
      });
      writePred(w, I.dst, mask, res);
      return true;
    }
    default:
      break;
    }
    return fault(Fault::Kind::Invalid, w, firstLane(mask), I,
                 "internal error: unexpected f32 operation");
  }

  // f64. NaN operands propagate (nanOperandF64), generated NaNs are
  // kDefaultNanF64. The .approx.ftz forms (rcp, rsqrt) flush subnormal
  // operands and results to signed zeros and return 0x7fffffff00000000 for
  // every NaN result (H200, corpus case f64_approx).
  bool approxFtz = ftz && (I.op == XOp::FRcp || I.op == XOp::FRsqrt);
  auto flushF64 = [](uint64_t v) {
    return (v & 0x7ff0000000000000ull) == 0 ? (v & 0x8000000000000000ull) : v;
  };
  // div (a subroutine on the hardware) prefers its first NaN operand.
  auto nanIn = [&](uint32_t l) -> uint64_t {
    if (I.op == XOp::FDiv)
      return nanOperandF64(b[l], a[l]);
    return nanOperandF64(a[l], b ? b[l] : 0, c ? c[l] : 0);
  };
  auto out = [&](uint64_t v) {
    v = defaultNanF64(v);
    if (sat)
      v = satF64(v);
    return v;
  };
  // Runs `compute` for lanes without NaN operands; the others get the NaN.
  auto each = [&](auto compute) {
    NVFP4_FOR_LANES(mask, {
      uint64_t n = nanIn(l);
      d[l] = n ? (sat ? 0 : n) : out(compute(l));
    });
  };
  switch (I.op) {
  case XOp::FAdd:
  case XOp::FSub: {
    bool sub = I.op == XOp::FSub;
    if (!directed) {
      each([&](uint32_t l) {
        double x = f64Of(a[l]), y = f64Of(b[l]);
        return f64Bits(sub ? x - y : x + y);
      });
    } else {
      each([&](uint32_t l) {
        return fp::addF64(a[l], sub ? b[l] ^ 0x8000000000000000ull : b[l], r);
      });
    }
    return true;
  }
  case XOp::FMul:
    if (!directed) {
      each([&](uint32_t l) { return f64Bits(f64Of(a[l]) * f64Of(b[l])); });
    } else {
      each([&](uint32_t l) { return fp::mulF64(a[l], b[l], r); });
    }
    return true;
  case XOp::FFma:
    if (!directed) {
      each([&](uint32_t l) {
        return f64Bits(std::fma(f64Of(a[l]), f64Of(b[l]), f64Of(c[l])));
      });
    } else {
      each([&](uint32_t l) { return fp::fmaF64(a[l], b[l], c[l], r); });
    }
    return true;
  case XOp::FDiv:
    if (!directed) {
      each([&](uint32_t l) { return f64Bits(f64Of(a[l]) / f64Of(b[l])); });
    } else {
      each([&](uint32_t l) { return fp::divF64(a[l], b[l], r); });
    }
    return true;
  case XOp::FRcp:
  case XOp::FRsqrt:
    if (approxFtz) {
      bool rs = I.op == XOp::FRsqrt;
      NVFP4_FOR_LANES(mask, {
        double x = f64Of(flushF64(a[l]));
        double res = rs ? 1.0 / std::sqrt(x) : 1.0 / x;
        d[l] = std::isnan(res) ? 0x7fffffff00000000ull
                               : flushF64(f64Bits(res));
      });
    } else if (I.op == XOp::FRsqrt) {
      each([&](uint32_t l) { return f64Bits(1.0 / std::sqrt(f64Of(a[l]))); });
    } else if (!directed) {
      each([&](uint32_t l) { return f64Bits(1.0 / f64Of(a[l])); });
    } else {
      each([&](uint32_t l) {
        return fp::divF64(0x3ff0000000000000ull, a[l], r);
      });
    }
    return true;
  case XOp::FSqrt:
    if (!directed) {
      each([&](uint32_t l) { return f64Bits(std::sqrt(f64Of(a[l]))); });
    } else {
      each([&](uint32_t l) { return fp::sqrtF64(a[l], r); });
    }
    return true;
  case XOp::FMin:
  case XOp::FMax: {
    bool isMax = I.op == XOp::FMax, nanProp = I.flags & XF_NaN;
    NVFP4_FOR_LANES(mask, {
      bool isNan;
      double res = fminmax(f64Of(a[l]), f64Of(b[l]), isMax, nanProp, isNan);
      if (c && !isNan)
        res = fminmax(res, f64Of(c[l]), isMax, nanProp, isNan);
      d[l] = isNan ? nanIn(l) : f64Bits(res);
    });
    return true;
  }
  // abs and neg of a NaN return the NaN quieted, sign unchanged (H200).
  case XOp::FAbs:
    NVFP4_FOR_LANES(mask, d[l] = isNanF64(a[l]) ? quietF64(a[l])
                                                : a[l] & 0x7fffffffffffffffull);
    return true;
  case XOp::FNeg:
    NVFP4_FOR_LANES(mask, d[l] = isNanF64(a[l]) ? quietF64(a[l])
                                                : a[l] ^ 0x8000000000000000ull);
    return true;
  case XOp::FCopysign:
    NVFP4_FOR_LANES(mask, d[l] = (b[l] & 0x7fffffffffffffffull) |
                                 (a[l] & 0x8000000000000000ull));
    return true;
  case XOp::FTestp: {
    uint32_t res = 0;
    NVFP4_FOR_LANES(mask, {
      double x = f64Of(a[l]);
      bool v = false;
      switch (I.sub) {
      case 0:
        v = std::isfinite(x);
        break;
      case 1:
        v = std::isinf(x);
        break;
      case 2:
        v = !std::isnan(x);
        break;
      case 3:
        v = std::isnan(x);
        break;
      case 4:
        v = std::isnormal(x);
        break;
      case 5:
        v = std::fpclassify(x) == FP_SUBNORMAL;
        break;
      }
      if (v)
        res |= 1u << l;
    });
    writePred(w, I.dst, mask, res);
    return true;
  }
  default:
    break;
  }
  return fault(Fault::Kind::Invalid, w, firstLane(mask), I,
               "internal error: unexpected f64 operation");
}

bool Executor::execHalf(Warp &w, const XInst &I, uint32_t mask) {
  Type t = I.type;
  const fp::Format &f =
      (t == Type::F16 || t == Type::F16x2) ? fp::kF16 : fp::kBF16;
  unsigned halves = (t == Type::F16x2 || t == Type::BF16x2) ? 2 : 1;
  uint64_t *d = row(w, I.dst);
  const uint64_t *a = src(w, I.src[0]);
  const uint64_t *b = I.src[1] != kNone ? src(w, I.src[1]) : nullptr;
  const uint64_t *c = I.src[2] != kNone ? src(w, I.src[2]) : nullptr;
  bool ftz = I.flags & XF_Ftz, sat = I.flags & XF_Sat, relu = I.flags & XF_Relu;
  fp::Round r = toRound(I.rnd);
  uint64_t nan = fp::canonicalNaN(f);
  auto flush = [&](uint64_t h) {
    return ftz && fp::isSubnormal(f, h) ? (h & 0x8000) : h;
  };
  auto finish = [&](uint64_t h) {
    h = flush(h);
    // .sat turns a NaN into +0, as for f32 (H200, corpus case half_ops).
    if (fp::unpack(f, h).kind == fp::Unpacked::NaN)
      return sat ? uint64_t(0) : nan;
    if (sat) {
      if (h & 0x8000)
        return uint64_t(0);
      if (fp::toDouble(f, h) > 1.0)
        return fp::encode(f, fp::unpackDouble(1.0), fp::EncodeOptions());
    }
    if (relu && (h & 0x8000))
      return uint64_t(0);
    return h;
  };
  auto one = [&](uint64_t x, uint64_t y, uint64_t z) -> uint64_t {
    x = flush(x);
    y = flush(y);
    z = flush(z);
    switch (I.op) {
    case XOp::FAdd:
      return finish(fp::addFormat(f, x, y, r));
    case XOp::FSub:
      return finish(fp::addFormat(f, x, y ^ 0x8000, r));
    case XOp::FMul:
      return finish(fp::mulFormat(f, x, y, r));
    case XOp::FFma:
      return finish(fp::fmaFormat(f, x, y, z, r));
    // neg and abs of a NaN give the canonical NaN, like f32 (H200).
    case XOp::FNeg:
      return fp::unpack(f, x).kind == fp::Unpacked::NaN ? nan : x ^ 0x8000;
    case XOp::FAbs:
      return fp::unpack(f, x).kind == fp::Unpacked::NaN ? nan : x & 0x7fff;
    case XOp::FMin:
    case XOp::FMax: {
      bool isMax = I.op == XOp::FMax, nanProp = I.flags & XF_NaN;
      uint64_t sign = (x ^ y) & 0x8000;
      if (I.flags & XF_Abs) {
        x &= 0x7fff;
        y &= 0x7fff;
      }
      bool isNan;
      double res = fminmax(fp::toDouble(f, x), fp::toDouble(f, y), isMax,
                           nanProp, isNan);
      if (c && !isNan) {
        uint64_t zz = (I.flags & XF_Abs) ? (z & 0x7fff) : z;
        res = fminmax(res, fp::toDouble(f, zz), isMax, nanProp, isNan);
      }
      if (isNan)
        return nan;
      uint64_t v = fp::encode(f, fp::unpackDouble(res), fp::EncodeOptions());
      if (I.flags & XF_XorSign)
        v = (v & 0x7fff) | sign;
      return flush(v);
    }
    case XOp::FEx2:
    case XOp::FTanh: {
      double v = fp::toDouble(f, x);
      double res = I.op == XOp::FEx2 ? std::exp2(v) : std::tanh(v);
      return finish(fp::encode(f, fp::unpackDouble(res), fp::EncodeOptions()));
    }
    default:
      return nan;
    }
  };
  NVFP4_FOR_LANES(mask, {
    uint64_t res = 0;
    for (unsigned h = 0; h < halves; ++h) {
      unsigned s = 16 * h;
      uint64_t x = (a[l] >> s) & 0xffff;
      uint64_t y = b ? (b[l] >> s) & 0xffff : 0;
      uint64_t z = c ? (c[l] >> s) & 0xffff : 0;
      res |= (one(x, y, z) & 0xffff) << s;
    }
    d[l] = canon(I, res);
  });
  return true;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

namespace {

struct CvtCtx {
  Type dt, st;
  fp::EncodeOptions opts;
  uint8_t rnd;
  bool ftz, sat;
};

/// Integer rounding of a double.
inline double roundInt(double x, uint8_t rnd) {
  switch (rnd) {
  case XR_Rni:
    return std::nearbyint(x);
  case XR_Rzi:
    return std::trunc(x);
  case XR_Rmi:
    return std::floor(x);
  case XR_Rpi:
    return std::ceil(x);
  default:
    return x;
  }
}

/// The value of integer bits `v` of type t, as a signed 128-bit number.
inline __int128 intValue(Type t, uint64_t v) {
  unsigned bits = ptx::typeBits(t);
  if (ptx::isSigned(t))
    return sext(v, bits);
  return static_cast<__int128>(v & lowMask(bits));
}

inline uint64_t floatToInt(const CvtCtx &c, double x, bool srcIsF64) {
  unsigned bits = ptx::typeBits(c.dt);
  bool s = ptx::isSigned(c.dt);
  if (std::isnan(x)) {
    if (!srcIsF64 && bits != 64)
      return 0;
    return uint64_t(1) << (bits - 1);
  }
  double r = roundInt(x, c.rnd);
  double lo = s ? -std::ldexp(1.0, bits - 1) : 0.0;
  double hi = s ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
  if (r < lo)
    return static_cast<uint64_t>(static_cast<int64_t>(lo)) & lowMask(bits);
  if (r >= hi)
    return s ? (lowMask(bits - 1)) : lowMask(bits);
  if (s)
    return static_cast<uint64_t>(static_cast<int64_t>(r)) & lowMask(bits);
  return static_cast<uint64_t>(r);
}

} // namespace

bool Executor::execCvt(Warp &w, const XInst &I, uint32_t mask) {
  uint64_t *d = row(w, I.dst);
  const uint64_t *a = src(w, I.src[0]);
  const uint64_t *b = I.src[1] != kNone ? src(w, I.src[1]) : nullptr;
  CvtCtx c;
  c.dt = I.type;
  c.st = I.type2;
  c.rnd = I.rnd;
  c.ftz = I.flags & XF_Ftz;
  c.sat = I.flags & XF_Sat;
  c.opts.round = toRound(I.rnd);
  c.opts.satFinite = I.flags & XF_SatFinite;
  c.opts.relu = I.flags & XF_Relu;
  Type dt = c.dt, st = c.st;

  // Packed results.
  const fp::Format *df = formatOf(dt);
  switch (dt) {
  case Type::F16x2:
  case Type::BF16x2:
  case Type::E4M3x2:
  case Type::E5M2x2:
  case Type::E2M1x2:
  case Type::E2M3x2:
  case Type::E3M2x2:
  case Type::UE8M0x2: {
    bool upconvert = st != Type::F32 && st != Type::F16x2 && st != Type::BF16x2;
    if (upconvert) {
      // f16x2 <- e4m3x2 / e5m2x2 / e2m3x2 / e3m2x2 / e2m1x2; bf16x2 <- ue8m0x2.
      const fp::Format *sf = formatOf(st);
      unsigned sb = st == Type::E2M1x2 ? 4 : 8;
      NVFP4_FOR_LANES(mask, {
        uint64_t v = 0;
        for (unsigned h = 0; h < 2; ++h) {
          uint64_t code = (a[l] >> (sb * h)) & lowMask(sb);
          if (st == Type::E2M3x2 || st == Type::E3M2x2)
            code &= 0x3f;
          fp::EncodeOptions o;
          o.relu = c.opts.relu;
          uint64_t r = fp::encode(*df, fp::unpack(*sf, code), o);
          v |= (r & 0xffff) << (16 * h);
        }
        d[l] = canon(I, v);
      });
      return true;
    }
    unsigned db = dt == Type::F16x2 || dt == Type::BF16x2 ? 16
                  : dt == Type::E2M1x2                    ? 4
                                                          : 8;
    const fp::Format *sf = st == Type::F32     ? &fp::kF32
                           : st == Type::F16x2 ? &fp::kF16
                                               : &fp::kBF16;
    NVFP4_FOR_LANES(mask, {
      uint64_t hiBits, loBits;
      if (st == Type::F32) {
        hiBits = a[l] & 0xffffffffu;
        loBits = b[l] & 0xffffffffu;
      } else {
        hiBits = (a[l] >> 16) & 0xffff;
        loBits = a[l] & 0xffff;
      }
      fp::Unpacked uh = fp::unpack(*sf, hiBits), ul = fp::unpack(*sf, loBits);
      uint64_t rh = fp::encode(*df, uh, c.opts) & lowMask(db);
      uint64_t rl = fp::encode(*df, ul, c.opts) & lowMask(db);
      d[l] = canon(I, (rh << db) | rl);
    });
    return true;
  }
  case Type::TF32: {
    NVFP4_FOR_LANES(mask, {
      uint32_t x = uint32_t(a[l]);
      if (c.rnd == XR_Rna && (x & 0x7fffffffu) > 0x7f800000u) {
        // .rna of a NaN rounds its bit pattern like a number (add half a
        // tf32 ulp, clear the low 13 bits), which keeps sign and payload;
        // .satfinite then steps an all-ones exponent down by one tf32 ulp,
        // as it does for Inf (H200, corpus case cvt_f32).
        uint32_t v = (x + 0x1000u) & 0xffffe000u;
        if (c.opts.satFinite && (v & 0x7f800000u) == 0x7f800000u)
          v -= 0x2000u;
        d[l] = canon(I, v);
      } else {
        uint64_t r = fp::encode(fp::kTF32, fp::unpack(fp::kF32, x), c.opts);
        d[l] = canon(I, r << 13);
      }
    });
    return true;
  }
  default:
    break;
  }

  bool dF = ptx::isFloat(dt), sF = ptx::isFloat(st);
  const fp::Format *sf = formatOf(st);
  bool plain = !c.sat && !c.opts.satFinite && !c.opts.relu;

  // Fast paths for the common conversions; the host's conversions are
  // correctly rounded to nearest even, like the generic path below.
  if (plain && (c.rnd == XR_Rn || c.rnd == XR_None) && !c.ftz) {
    if (dt == Type::F32 && !sF) {
      unsigned sb = ptx::typeBits(st);
      if (ptx::isSigned(st))
        NVFP4_FOR_LANES(
            mask, d[l] = canon(I, f32Bits(static_cast<float>(sext(a[l], sb)))));
      else
        NVFP4_FOR_LANES(
            mask,
            d[l] = canon(I, f32Bits(static_cast<float>(a[l] & lowMask(sb)))));
      return true;
    }
    if (dt == Type::F64 && !sF) {
      unsigned sb = ptx::typeBits(st);
      if (ptx::isSigned(st))
        NVFP4_FOR_LANES(
            mask,
            d[l] = canon(I, f64Bits(static_cast<double>(sext(a[l], sb)))));
      else
        NVFP4_FOR_LANES(
            mask,
            d[l] = canon(I, f64Bits(static_cast<double>(a[l] & lowMask(sb)))));
      return true;
    }
    if (dt == Type::F32 && st == Type::F64) {
      NVFP4_FOR_LANES(
          mask, d[l] = canon(I, isNanF64(a[l]) ? nanF64ToF32(a[l])
                                               : f32Bits(static_cast<float>(
                                                     f64Of(a[l])))));
      return true;
    }
    if (dt == Type::F64 && st == Type::F32) {
      NVFP4_FOR_LANES(mask, {
        uint32_t x = uint32_t(a[l]);
        d[l] = canon(I, (x & 0x7fffffffu) > 0x7f800000u
                            ? nanF32ToF64(x)
                            : f64Bits(static_cast<double>(f32Of(x))));
      });
      return true;
    }
    if (dt == Type::BF16 && st == Type::F32) {
      NVFP4_FOR_LANES(mask, {
        uint32_t u = uint32_t(a[l]);
        uint32_t r = (u & 0x7fffffffu) > 0x7f800000u
                         ? 0x7fffu
                         : (u + 0x7fffu + ((u >> 16) & 1)) >> 16;
        d[l] = canon(I, r);
      });
      return true;
    }
    if (dt == Type::F32 && st == Type::BF16) {
      // A NaN keeps its bits, signalling or not (H200, corpus cvt.f32.bf16).
      NVFP4_FOR_LANES(mask,
                      d[l] = canon(I, uint32_t(a[l] & 0xffff) << 16));
      return true;
    }
  }
  if (!dF && (st == Type::F32 || st == Type::F64) && c.rnd >= XR_Rni) {
    bool srcF64 = st == Type::F64;
    NVFP4_FOR_LANES(mask, {
      double x;
      if (srcF64) {
        x = f64Of(a[l]);
      } else {
        uint32_t b = uint32_t(a[l]);
        x = f32Of(c.ftz ? flushF32(b) : b);
      }
      d[l] = canon(I, floatToInt(c, x, srcF64));
    });
    return true;
  }
  if (dF && sF) {
    if (dt == st) {
      // Same type: optional integer rounding, .ftz, .sat.
      NVFP4_FOR_LANES(mask, {
        uint64_t x = a[l] & lowMask(ptx::typeBits(st));
        if (c.ftz && st == Type::F32)
          x = flushF32(uint32_t(x));
        fp::Unpacked u = fp::unpack(*sf, x);
        uint64_t res;
        if (u.kind == fp::Unpacked::NaN) {
          // f64 NaNs are quieted with sign and payload kept (H200).
          res = dt == Type::F64 ? quietF64(x) : fp::canonicalNaN(*df);
        } else if (c.rnd >= XR_Rni) {
          double v = roundInt(fp::toDouble(*sf, x), c.rnd);
          res = fp::encode(*df, fp::unpackDouble(v), fp::EncodeOptions());
        } else {
          res = x;
        }
        if (c.sat)
          res = dt == Type::F32   ? satF32(uint32_t(res))
                : dt == Type::F64 ? satF64(res)
                                  : res;
        if (c.sat && (dt == Type::F16 || dt == Type::BF16)) {
          double v = fp::toDouble(*df, res);
          if (std::isnan(v) || v <= 0)
            res = 0;
          else if (v > 1)
            res = fp::encode(*df, fp::unpackDouble(1.0), fp::EncodeOptions());
        }
        if (c.ftz && dt == Type::F32)
          res = flushF32(uint32_t(res));
        d[l] = canon(I, res);
      });
      return true;
    }
    fp::EncodeOptions o = c.opts;
    o.flushSubnormal = c.ftz && dt == Type::F32;
    NVFP4_FOR_LANES(mask, {
      uint64_t x = a[l] & lowMask(ptx::typeBits(st));
      if (c.ftz && st == Type::F32)
        x = flushF32(uint32_t(x));
      uint64_t res = fp::encode(*df, fp::unpack(*sf, x), o);
      // NaNs between f32 and f64 keep sign and payload, quieted; .ftz
      // f32 -> f64 gives the canonical f32 NaN widened (H200).
      if (st == Type::F64 && dt == Type::F32 && isNanF64(x))
        res = nanF64ToF32(x);
      if (st == Type::F32 && dt == Type::F64 && (x & 0x7fffffffu) > 0x7f800000u)
        res = c.ftz ? 0x7fffffffe0000000ull : nanF32ToF64(uint32_t(x));
      if (c.sat) {
        double v = fp::toDouble(*df, res);
        if (std::isnan(v) || v <= 0)
          res = 0;
        else if (v > 1)
          res = fp::encode(*df, fp::unpackDouble(1.0), fp::EncodeOptions());
      }
      d[l] = canon(I, res);
    });
    return true;
  }
  if (dF && !sF) {
    bool s = ptx::isSigned(st);
    unsigned sb = ptx::typeBits(st);
    fp::EncodeOptions o = c.opts;
    o.flushSubnormal = c.ftz && dt == Type::F32;
    NVFP4_FOR_LANES(mask, {
      uint64_t v = a[l] & lowMask(sb);
      if (s)
        v = static_cast<uint64_t>(sext(v, sb));
      uint64_t res = fp::encode(*df, fp::unpackInteger(v, s), o);
      if (c.sat) {
        double fv = fp::toDouble(*df, res);
        if (fv <= 0)
          res = 0;
        else if (fv > 1)
          res = fp::encode(*df, fp::unpackDouble(1.0), fp::EncodeOptions());
      }
      d[l] = canon(I, res);
    });
    return true;
  }
  if (!dF && sF) {
    bool srcF64 = st == Type::F64;
    NVFP4_FOR_LANES(mask, {
      uint64_t x = a[l] & lowMask(ptx::typeBits(st));
      if (c.ftz && st == Type::F32)
        x = flushF32(uint32_t(x));
      d[l] = canon(I, floatToInt(c, fp::toDouble(*sf, x), srcF64));
    });
    return true;
  }
  // Integer to integer.
  unsigned db = ptx::typeBits(dt);
  bool ds = ptx::isSigned(dt);
  __int128 lo = ds ? -(static_cast<__int128>(1) << (db - 1)) : 0;
  __int128 hi = ds ? (static_cast<__int128>(1) << (db - 1)) - 1
                   : (static_cast<__int128>(1) << db) - 1;
  NVFP4_FOR_LANES(mask, {
    __int128 v = intValue(st, a[l]);
    if (c.sat)
      v = v < lo ? lo : v > hi ? hi : v;
    d[l] = canon(I, static_cast<uint64_t>(v));
  });
  return true;
}
