//===- Executor.cpp - Runs one kernel launch ------------------------------===//
//
// Scheduling, divergence, barriers and the instruction semantics of the
// scalar core. Each XOp is executed for the lanes of the active group whose
// guard predicate holds, in a loop over those lanes (a plain 0..31 loop when
// all lanes take part, which the compiler vectorizes for simple operations).
//
// Operand conventions per XOp are those set by Decoder.cpp:
//  - dst / dst2: register row or predicate index (kNone: none or `_`);
//  - src[i]: encoded row (register or constant pool), or a predicate index
//    for predicate sources (negated when bit i of srcNeg is set);
//  - imm: address offset (memory), LUT (lop3), call site (call), function
//    index (ret), register count (setmaxnreg).
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "nvfp4/Emulator/FloatFormats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <type_traits>

using namespace nvfp4::emu;
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

std::string hex(uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string dimStr(const Dim3 &d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," +
         std::to_string(d.z) + ")";
}

const char *spaceStr(XSpace s) {
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

fp::Round toRound(uint8_t r) {
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

const fp::Format *formatOf(Type t) {
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

//===----------------------------------------------------------------------===//
// Setup and the launch loop
//===----------------------------------------------------------------------===//

Executor::Executor(Machine::GlobalMemory &mem, const Kernel &kernel,
                   const LaunchConfig &config, Fault &fault, LaunchStats &stats)
    : mem_(mem), kernel_(kernel), prog_(*kernel.program_), cfg_(config),
      fault_(fault), stats_(stats) {
  explore_ = config.scheduleSeed != 0;
  rng_ = config.scheduleSeed;
}

Executor::~Executor() = default;

uint64_t Executor::nextRandom() {
  uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Error Executor::validate() {
  auto bad = [&](const std::string &msg) {
    fault_ = Fault();
    fault_.kind = Fault::Kind::Launch;
    fault_.message = "launch of '" + kernel_.name() + "': " + msg;
    return Error::failure(fault_.message);
  };
  if (!prog_.layoutError.empty())
    return bad(prog_.layoutError);
  const Dim3 &b = cfg_.block, &g = cfg_.grid;
  if (b.x == 0 || b.y == 0 || b.z == 0)
    return bad("block dimensions must be positive, got " + dimStr(b));
  if (b.x > 1024 || b.y > 1024 || b.z > 64 || b.count() > 1024)
    return bad("block " + dimStr(b) +
               " exceeds 1024 threads (x, y <= 1024, "
               "z <= 64)");
  if (g.x == 0 || g.y == 0 || g.z == 0)
    return bad("grid dimensions must be positive, got " + dimStr(g));
  if (g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
    return bad("grid " + dimStr(g) + " is too large");
  const ptx::FunctionDirectives &d = kernel_.directives();
  if (d.reqntid[0]) {
    Dim3 want(d.reqntid[0], d.reqntid[1] ? d.reqntid[1] : 1,
              d.reqntid[2] ? d.reqntid[2] : 1);
    if (want.x != b.x || want.y != b.y || want.z != b.z)
      return bad("the kernel requires block " + dimStr(want) +
                 " (.reqntid), "
                 "got " +
                 dimStr(b));
  }
  if (d.maxntid[0]) {
    uint64_t lim = uint64_t(d.maxntid[0]) * (d.maxntid[1] ? d.maxntid[1] : 1) *
                   (d.maxntid[2] ? d.maxntid[2] : 1);
    if (b.count() > lim)
      return bad("block " + dimStr(b) + " has more than the " +
                 std::to_string(lim) + " threads .maxntid allows");
  }
  Dim3 c = cfg_.cluster;
  if (c.x == 0 || c.y == 0 || c.z == 0)
    return bad("cluster dimensions must be positive, got " + dimStr(c));
  if (d.reqnctapercluster[0]) {
    Dim3 want(d.reqnctapercluster[0],
              d.reqnctapercluster[1] ? d.reqnctapercluster[1] : 1,
              d.reqnctapercluster[2] ? d.reqnctapercluster[2] : 1);
    if (c.count() == 1)
      c = want;
    else if (want.x != c.x || want.y != c.y || want.z != c.z)
      return bad("the kernel requires clusters of " + dimStr(want) +
                 " (.reqnctapercluster), got " + dimStr(c));
  }
  if (c.count() > 16)
    return bad("cluster " + dimStr(c) + " has more than 16 CTAs");
  if (g.x % c.x || g.y % c.y || g.z % c.z)
    return bad("grid " + dimStr(g) + " is not a multiple of the cluster " +
               dimStr(c));
  if (cfg_.params.size() != kernel_.paramBytes())
    return bad("parameter buffer has " + std::to_string(cfg_.params.size()) +
               " bytes; the kernel's parameters take " +
               std::to_string(kernel_.paramBytes()));
  // Dynamic shared memory starts after the static variables, at the
  // alignment of the extern declarations.
  uint64_t shared =
      cfg_.dynamicSharedBytes
          ? uint64_t(prog_.externSharedOffset) + cfg_.dynamicSharedBytes
          : prog_.staticShared;
  if (shared > Machine::kMaxSharedBytesPerCta)
    return bad(std::to_string(prog_.staticShared) + " bytes of static and " +
               std::to_string(cfg_.dynamicSharedBytes) +
               " bytes of dynamic shared memory exceed the " +
               std::to_string(Machine::kMaxSharedBytesPerCta) +
               " bytes a CTA may use");
  if (cfg_.quantum == 0)
    return bad("the scheduling quantum must be positive");
  sharedBytes_ = static_cast<uint32_t>(shared);
  threadsPerCta_ = static_cast<uint32_t>(b.count());
  warpsPerCta_ = (threadsPerCta_ + 31) / 32;
  clusterDims_ = c;
  clusterSize_ = static_cast<uint32_t>(c.count());
  explicitCluster_ =
      c.count() > 1 || d.explicitCluster || d.reqnctapercluster[0] != 0;
  return Error::success();
}

Error Executor::run() {
  fault_ = Fault();
  stats_ = LaunchStats();
  if (Error e = validate())
    return e;
  stats_.perCta.assign(size_t(cfg_.grid.x) * cfg_.grid.y * cfg_.grid.z,
                       LaunchStats::Cta());
  budgetLeft_ =
      cfg_.maxWarpInstructions ? cfg_.maxWarpInstructions : ~uint64_t(0);
  const Dim3 &g = cfg_.grid;
  Dim3 nc(g.x / clusterDims_.x, g.y / clusterDims_.y, g.z / clusterDims_.z);
  for (uint32_t z = 0; z < nc.z; ++z)
    for (uint32_t y = 0; y < nc.y; ++y)
      for (uint32_t x = 0; x < nc.x; ++x)
        if (Error e = runCluster(Dim3(x, y, z)))
          return e;
  return Error::success();
}

void Executor::initWarp(Cta &cta, Warp &w, uint32_t warpIndex) {
  w.cta = &cta;
  w.id = warpIndex;
  w.rows = cta.rows.data() + size_t(warpIndex) * prog_.numRows * 32;
  w.consts = cta.consts.data();
  w.preds = cta.preds.data() + size_t(warpIndex) * prog_.numPreds;
  uint32_t first = warpIndex * 32;
  uint32_t n = std::min<uint32_t>(32, threadsPerCta_ - first);
  w.valid = n == 32 ? 0xffffffffu : ((1u << n) - 1);
  w.pc = 0;
  w.active = w.valid;
  w.exited = ~w.valid;
  w.parked = w.collWait = w.blocked = 0;
  w.minParkedPc = 0xffffffffu;
  w.wait = Warp::Wait::None;
  w.barLanes = 0;
  w.clusterArrived = false;
  w.clusterPhase = 0;
  w.mbBlocked = 0;
  w.preds[prog_.predTrue] = 0xffffffffu;
  w.preds[prog_.predFalse] = 0;
  if (prog_.localBytes)
    w.local.assign(size_t(prog_.localBytes) * 32, 0);
  else
    w.local.clear();
  w.pendingLd.clear();
  w.pendingSt.clear();
  w.bulkStores.clear();
  w.wgmma.clear();
  w.wgmmaGroups = 0;
  w.wgmmaIssued = 0;
  w.wgmmaFenced = false;
  std::fill(std::begin(w.bulkGroups), std::end(w.bulkGroups), 0u);
  const Dim3 &b = cfg_.block, &g = cfg_.grid;
  Dim3 nclusters(g.x / clusterDims_.x, g.y / clusterDims_.y,
                 g.z / clusterDims_.z);
  for (const SpecialRow &s : prog_.specials) {
    uint64_t *r = row(w, s.row);
    for (uint32_t l = 0; l < 32; ++l) {
      uint32_t t = first + l;
      Dim3 tid(t % b.x, (t / b.x) % b.y, t / (b.x * b.y));
      auto comp = [&](const Dim3 &d) {
        return s.comp == 0 ? d.x : s.comp == 1 ? d.y : d.z;
      };
      uint64_t v = 0;
      switch (s.reg) {
      case ptx::SpecialReg::Tid:
        v = comp(tid);
        break;
      case ptx::SpecialReg::Ntid:
        v = comp(b);
        break;
      case ptx::SpecialReg::Laneid:
        v = l;
        break;
      case ptx::SpecialReg::Warpid:
        v = warpIndex;
        break;
      case ptx::SpecialReg::Nwarpid:
        v = 64;
        break;
      case ptx::SpecialReg::Ctaid:
        v = comp(cta.id);
        break;
      case ptx::SpecialReg::Nctaid:
        v = comp(g);
        break;
      case ptx::SpecialReg::Smid:
        v = cta.linear % 148;
        break;
      case ptx::SpecialReg::Nsmid:
        v = 148;
        break;
      case ptx::SpecialReg::Gridid:
        v = 1;
        break;
      case ptx::SpecialReg::IsExplicitCluster:
        v = explicitCluster_;
        break;
      case ptx::SpecialReg::Clusterid:
        v = comp(clusterId_);
        break;
      case ptx::SpecialReg::Nclusterid:
        v = comp(nclusters);
        break;
      case ptx::SpecialReg::ClusterCtaid:
        v = comp(cta.clusterCtaid);
        break;
      case ptx::SpecialReg::ClusterNctaid:
        v = comp(clusterDims_);
        break;
      case ptx::SpecialReg::ClusterCtarank:
        v = cta.rank;
        break;
      case ptx::SpecialReg::ClusterNctarank:
        v = clusterSize_;
        break;
      case ptx::SpecialReg::LanemaskEq:
        v = 1u << l;
        break;
      case ptx::SpecialReg::LanemaskLe:
        v = static_cast<uint32_t>((uint64_t(2) << l) - 1);
        break;
      case ptx::SpecialReg::LanemaskLt:
        v = (1u << l) - 1;
        break;
      case ptx::SpecialReg::LanemaskGe:
        v = ~((1u << l) - 1);
        break;
      case ptx::SpecialReg::LanemaskGt:
        v = ~static_cast<uint32_t>((uint64_t(2) << l) - 1);
        break;
      case ptx::SpecialReg::DynamicSmemSize:
        v = cfg_.dynamicSharedBytes;
        break;
      case ptx::SpecialReg::TotalSmemSize:
      case ptx::SpecialReg::AggrSmemSize:
        v = sharedBytes_;
        break;
      default:
        v = 0;
        break;
      }
      r[l] = v;
    }
  }
}

Error Executor::runCluster(const Dim3 &clusterId) {
  clusterId_ = clusterId;
  clearTma(); // copies a finished cluster left in flight are dropped
  clearTensorUnit();
  if (ctas_.size() != clusterSize_) {
    ctas_.clear();
    for (uint32_t i = 0; i < clusterSize_; ++i)
      ctas_.push_back(std::make_unique<Cta>());
  }
  const Dim3 &c = clusterDims_, &g = cfg_.grid;
  std::vector<Warp *> warps;
  for (uint32_t r = 0; r < clusterSize_; ++r) {
    Cta &cta = *ctas_[r];
    Dim3 local(r % c.x, (r / c.x) % c.y, r / (c.x * c.y));
    cta.clusterCtaid = local;
    cta.id = Dim3(clusterId.x * c.x + local.x, clusterId.y * c.y + local.y,
                  clusterId.z * c.z + local.z);
    cta.linear =
        cta.id.x + uint64_t(g.x) * (cta.id.y + uint64_t(g.y) * cta.id.z);
    cta.rank = r;
    cta.shared.assign(sharedBytes_, cfg_.sharedFill);
    cta.rows.assign(size_t(warpsPerCta_) * prog_.numRows * 32, 0);
    cta.consts = prog_.constPool;
    for (uint32_t row : prog_.sharedSymbolRows)
      for (uint32_t l = 0; l < 32; ++l)
        cta.consts[size_t(row) * 32 + l] +=
            addrspace::sharedAddress(r, 0);
    cta.preds.assign(size_t(warpsPerCta_) * prog_.numPreds, 0);
    cta.warps.resize(warpsPerCta_);
    for (Barrier &b : cta.bars)
      b = Barrier();
    cta.tmem.clear();
    cta.tmemWritten.clear();
    cta.tmemStPending.clear();
    cta.tmemAllocs.clear();
    cta.tmaSwizzle.assign((sharedBytes_ + 127) / 128, 0xff);
    cta.tmemRelinquished = false;
    cta.wgmmaIssues.clear();
    cta.wgmmaPending = 0;
    cta.liveWarps = warpsPerCta_;
    for (uint32_t wi = 0; wi < warpsPerCta_; ++wi) {
      initWarp(cta, cta.warps[wi], wi);
      warps.push_back(&cta.warps[wi]);
    }
  }
  clusterArrived_ = 0;
  clusterPhase_ = 0;
  if (cfg_.sanitize) {
    if (!san_)
      san_ = std::make_unique<Sanitizer>();
    san_->begin(clusterSize_, warpsPerCta_, sharedBytes_,
                [this](uint32_t warp, uint32_t line) {
                  const Cta &c = *ctas_[warp / warpsPerCta_];
                  std::string s = "CTA " + dimStr(c.id) + " warp " +
                                  std::to_string(warp % warpsPerCta_) +
                                  " at line " + std::to_string(line);
                  std::string text = prog_.module->lineText(line);
                  return text.empty() ? s : s + ": " + text;
                });
  }

  while (true) {
    bool anyLive = false, progress = false;
    if (explore_) // a new warp order every round
      for (size_t i = warps.size(); i > 1; --i)
        std::swap(warps[i - 1], warps[randomBelow(static_cast<uint32_t>(i))]);
    for (Warp *w : warps) {
      if (w->done())
        continue;
      anyLive = true;
      if (w->active == 0 && !selectGroup(*w))
        continue;
      bool failed = false;
      uint32_t slice =
          explore_ ? 1 + randomBelow(2 * std::max(1u, cfg_.quantum))
                   : cfg_.quantum;
      uint64_t n = runWarp(*w, slice, failed);
      if (failed)
        return Error::failure(fault_.message);
      if (n)
        progress = true;
      if (budgetLeft_ == 0) {
        fault_ = Fault();
        fault_.kind = Fault::Kind::Limit;
        fault_.cta = w->cta->id;
        fault_.warp = w->id;
        fault_.line = prog_.code[w->pc].line;
        fault_.message = "stopped after " +
                         std::to_string(cfg_.maxWarpInstructions) +
                         " warp instructions (maxWarpInstructions); CTA " +
                         dimStr(w->cta->id) + " warp " + std::to_string(w->id) +
                         " was at line " + std::to_string(fault_.line);
        return Error::failure(fault_.message);
      }
    }
    roundProgress_ = progress;
    for (auto &u : async_) {
      Error err;
      if (u->step(*this, err))
        progress = true;
      if (err)
        return err;
    }
    if (!anyLive)
      break;
    bool asyncBusy = false;
    for (auto &u : async_)
      asyncBusy |= !u->idle();
    if (!progress && !asyncBusy) {
      fault_ = Fault();
      fault_.kind = Fault::Kind::Deadlock;
      std::string msg = "deadlock: no warp of cluster " + dimStr(clusterId) +
                        " can make progress";
      bool first = true;
      for (Warp *w : warps) {
        if (w->done())
          continue;
        if (first) {
          fault_.cta = w->cta->id;
          fault_.warp = w->id;
          uint32_t l = firstLane(w->blocked     ? w->blocked
                                 : w->mbBlocked ? w->mbBlocked
                                                : w->parked);
          fault_.lane = l;
          fault_.line = w->blocked ? prog_.code[w->barPc].line
                                   : prog_.code[w->lanePc[l]].line;
          first = false;
        }
        msg += "\n  CTA " + dimStr(w->cta->id) + " warp " +
               std::to_string(w->id) + ": " + describeWarpState(*w);
      }
      msg += deadlockHints(warps);
      fault_.message = msg;
      return Error::failure(msg);
    }
  }
  return checkTmemLeaks();
}

//===----------------------------------------------------------------------===//
// Lane groups
//===----------------------------------------------------------------------===//

void Executor::recomputeMinParked(Warp &w) {
  uint32_t m = w.parked & ~w.collWait;
  uint32_t best = 0xffffffffu;
  while (m) {
    uint32_t l = firstLane(m);
    m &= m - 1;
    best = std::min(best, w.lanePc[l]);
  }
  w.minParkedPc = best;
}

bool Executor::selectGroup(Warp &w) {
  uint32_t cand = w.parked;
  while (cand) {
    uint32_t pcMin = 0xffffffffu;
    for (uint32_t m = cand; m; m &= m - 1)
      pcMin = std::min(pcMin, w.lanePc[firstLane(m)]);
    uint32_t g = 0;
    for (uint32_t m = cand; m; m &= m - 1) {
      uint32_t l = firstLane(m);
      if (w.lanePc[l] == pcMin)
        g |= 1u << l;
    }
    if ((g & ~w.collWait) == 0) {
      // Only lanes waiting at a warp-synchronous instruction: they may go
      // once the lanes they wait for have exited.
      const XInst &I = prog_.code[pcMin];
      uint32_t mm =
          I.maskSlot != 0xff
              ? static_cast<uint32_t>(src(w, I.src[I.maskSlot])[firstLane(g)])
              : w.live();
      if ((mm & w.live() & ~g) != 0) {
        cand &= ~g;
        continue;
      }
    }
    w.active = g;
    w.parked &= ~g;
    w.collWait &= ~g;
    w.pc = pcMin;
    recomputeMinParked(w);
    return true;
  }
  w.active = 0;
  return false;
}

void Executor::parkGroup(Warp &w, uint32_t lanes, uint32_t pc) {
  for (uint32_t m = lanes; m; m &= m - 1)
    w.lanePc[firstLane(m)] = pc;
  w.parked |= lanes;
}

void Executor::reschedule(Warp &w) {
  parkGroup(w, w.active, w.pc);
  w.active = 0;
  selectGroup(w);
}

static inline void advanceImpl(Executor::Warp &w, bool &needResched) {
  ++w.pc;
  needResched = w.parked != w.collWait && w.pc >= w.minParkedPc;
}

std::string Executor::describeGroups(const Warp &w) const {
  // Lanes grouped by pc, for divergence diagnostics.
  std::string s;
  uint32_t todo = w.live();
  while (todo) {
    uint32_t l0 = firstLane(todo);
    uint32_t pc = (w.active >> l0) & 1 ? w.pc : w.lanePc[l0];
    bool isBlocked = (w.blocked >> l0) & 1;
    uint32_t g = 0;
    for (uint32_t m = todo; m; m &= m - 1) {
      uint32_t l = firstLane(m);
      uint32_t p = (w.active >> l) & 1 ? w.pc : w.lanePc[l];
      if (p == pc && ((w.blocked >> l) & 1) == isBlocked)
        g |= 1u << l;
    }
    todo &= ~g;
    if (!s.empty())
      s += "; ";
    uint32_t at = isBlocked && pc > 0 ? pc - 1 : pc;
    s += "lanes " + hex(g) + (isBlocked ? " wait at line " : " at line ") +
         std::to_string(
             prog_.code[std::min<size_t>(at, prog_.code.size() - 1)].line);
  }
  return s;
}

std::string Executor::describeWarpState(const Warp &w) const {
  std::string s;
  if (w.blocked) {
    if (w.wait == Warp::Wait::Barrier) {
      const Barrier &b = w.cta->bars[w.barId];
      uint32_t target =
          b.expectedThreads ? b.expectedThreads / 32 : w.cta->liveWarps;
      s += "lanes " + hex(w.blocked) + " wait at barrier " +
           std::to_string(w.barId) + " (line " +
           std::to_string(prog_.code[w.barPc].line) + "), " +
           std::to_string(b.arrived) + " of " + std::to_string(target) +
           " warps arrived";
    } else if (w.wait == Warp::Wait::ClusterBarrier) {
      s += "lanes " + hex(w.blocked) + " wait at barrier.cluster.wait (line " +
           std::to_string(prog_.code[w.barPc].line) + "), " +
           std::to_string(clusterArrived_) + " warps of the cluster arrived";
    } else {
      s += "lanes " + hex(w.blocked) + " are blocked";
    }
  }
  if (w.collWait) {
    if (!s.empty())
      s += "; ";
    uint32_t l = firstLane(w.collWait);
    s += "lanes " + hex(w.collWait) +
         " wait for the other lanes of their member mask (or, at an .aligned instruction, of the warp) at line " +
         std::to_string(prog_.code[w.lanePc[l]].line);
  }
  // mbarrier waits, grouped by instruction, barrier and parity.
  for (uint32_t todo = w.mbBlocked; todo;) {
    uint32_t l0 = firstLane(todo);
    uint32_t g = 0;
    for (uint32_t m = todo; m; m &= m - 1) {
      uint32_t l = firstLane(m);
      if (w.lanePc[l] == w.lanePc[l0] && w.mbAddr[l] == w.mbAddr[l0] &&
          w.mbParity[l] == w.mbParity[l0])
        g |= 1u << l;
    }
    todo &= ~g;
    if (!s.empty())
      s += "; ";
    s += "lanes " + hex(g) + " wait in mbarrier.try_wait (line " +
         std::to_string(prog_.code[w.lanePc[l0]].line) +
         ") for the phase with parity " + std::to_string(w.mbParity[l0]) +
         " of " + describeMbarrier(*w.cta, w.mbAddr[l0]);
  }
  uint32_t others = w.parked & ~w.collWait;
  if (others) {
    if (!s.empty())
      s += "; ";
    s += "lanes " + hex(others) + " are runnable";
  }
  if (s.empty())
    s = "no runnable lanes";
  return s;
}

//===----------------------------------------------------------------------===//
// Faults
//===----------------------------------------------------------------------===//

std::string Executor::location(const Warp &w, uint32_t lane,
                               uint32_t line) const {
  uint32_t t = w.id * 32 + lane;
  const Dim3 &b = cfg_.block;
  Dim3 tid(t % b.x, (t / b.x) % b.y, t / (b.x * b.y));
  std::string s = "CTA " + dimStr(w.cta->id) + " warp " + std::to_string(w.id) +
                  " lane " + std::to_string(lane) + " (thread " + dimStr(tid) +
                  ") at line " + std::to_string(line);
  std::string text = prog_.module->lineText(line);
  if (!text.empty())
    s += ": " + text;
  return s;
}

bool Executor::sanFault(const Warp &w, uint32_t lane, const XInst &I,
                        const std::string &msg) {
  fault_ = Fault();
  fault_.kind = Fault::Kind::Invalid;
  fault_.cta = w.cta->id;
  fault_.warp = w.id;
  fault_.lane = lane;
  fault_.line = I.line;
  fault_.message = msg;
  return false;
}

bool Executor::sanShared(Warp &w, uint32_t lane, const XInst &I,
                         const uint8_t *p, uint32_t bytes, bool write,
                         const char *what) {
  for (auto &c : ctas_) {
    const uint8_t *b = c->shared.data();
    if (p >= b && p < b + c->shared.size()) {
      std::string e = san_->shared(
          sanWarp(w), c->rank, static_cast<uint32_t>(p - b), bytes, write,
          I.line, what, std::string_view(what) == "atom");
      return e.empty() || sanFault(w, lane, I, e);
    }
  }
  return true;
}

bool Executor::sanTmem(Warp &w, uint32_t lane, const XInst &I, uint32_t rank,
                       uint32_t lane0, uint32_t lane1, uint32_t col0,
                       uint32_t col1, bool write, const char *what,
                       bool async) {
  std::string e = san_->tmem(sanWarp(w), rank, lane0, lane1, col0, col1, write,
                             I.line, what, async);
  return e.empty() || sanFault(w, lane, I, e);
}

bool Executor::fault(Fault::Kind kind, const Warp &w, uint32_t lane,
                     const XInst &I, const std::string &msg) {
  fault_ = Fault();
  fault_.kind = kind;
  fault_.cta = w.cta->id;
  fault_.warp = w.id;
  fault_.lane = lane;
  fault_.line = I.line;
  fault_.message = msg + " in " + location(w, lane, I.line);
  return false;
}

//===----------------------------------------------------------------------===//
// The warp loop
//===----------------------------------------------------------------------===//

uint64_t Executor::runWarp(Warp &w, uint32_t budget, bool &failed) {
  uint64_t n = 0;
  const XInst *code = prog_.code.data();
  uint64_t threadInstrs = 0;
  if (budget > budgetLeft_)
    budget = static_cast<uint32_t>(budgetLeft_);
  while (n < budget) {
    if (w.active == 0 && !selectGroup(w))
      break;
    const XInst &I = code[w.pc];
    if ((I.flags & XF_Aligned) && w.active != w.live()) {
      // An aligned instruction waits for the warp's other live lanes (they
      // may still be in a loop, e.g. the elected lane polling an mbarrier).
      if (!gatherAligned(w, I)) {
        failed = true;
        break;
      }
      if (w.active == 0)
        continue; // parked; run the other lanes
    }
    uint32_t mask = w.active;
    if (I.guard >= 0) {
      uint32_t p = w.preds[I.guard];
      mask &= I.guardNeg ? ~p : p;
    }
    ++n;
    threadInstrs += popcount(mask);
    bool yield = false;
    if (!exec(w, I, mask, yield)) {
      failed = true;
      break;
    }
    if (yield)
      break;
  }
  stats_.warpInstructions += n;
  stats_.threadInstructions += threadInstrs;
  budgetLeft_ -= std::min(budgetLeft_, n);
  return n;
}

bool Executor::gatherAligned(Warp &w, const XInst &I) {
  // Lanes already waiting at this instruction join the group.
  uint32_t here = 0;
  for (uint32_t m = w.collWait; m; m &= m - 1) {
    uint32_t l = firstLane(m);
    if (w.lanePc[l] == w.pc)
      here |= 1u << l;
  }
  uint32_t group = w.active | here;
  if (group == w.live()) {
    w.collWait &= ~here;
    w.parked &= ~here;
    w.active = group;
    recomputeMinParked(w);
    return true;
  }
  // Lanes waiting at a different aligned instruction can never meet these:
  // the warp has diverged across two aligned instructions.
  for (uint32_t m = w.collWait & ~here; m; m &= m - 1) {
    uint32_t l = firstLane(m);
    const XInst &J = prog_.code[w.lanePc[l]];
    if (J.flags & XF_Aligned) {
      std::string a = I.inst ? I.inst->mnemonic : "instruction";
      std::string b = J.inst ? J.inst->mnemonic : "instruction";
      return fault(Fault::Kind::Divergence, w, firstLane(w.active), I,
                   "'" + a +
                       "' requires all non-exited lanes of the warp to "
                       "execute it together (.aligned), but lanes " +
                       hex(w.collWait & ~here) + " wait at '" + b +
                       "' (line " + std::to_string(J.line) + ") and lanes " +
                       hex(group) + " reached this one");
    }
  }
  parkGroup(w, w.active, w.pc);
  w.collWait |= w.active;
  w.active = 0;
  recomputeMinParked(w);
  return true;
}

bool Executor::checkAligned(Warp &w, const XInst &I, uint32_t mask) {
  if (w.active == w.live() && (mask == w.active))
    return true;
  std::string name = I.inst ? I.inst->mnemonic : "instruction";
  std::string why;
  if (w.active != w.live())
    why = "the warp is diverged (" + describeGroups(w) + ")";
  else
    why = "its guard predicate is true only for lanes " + hex(mask) + " of " +
          hex(w.active);
  return fault(Fault::Kind::Divergence, w, firstLane(w.active), I,
               "'" + name +
                   "' requires all non-exited lanes of the warp to "
                   "execute it together (.aligned), but " +
                   why);
}

bool Executor::collectiveReady(Warp &w, const XInst &I, uint32_t &mask,
                               bool &yield) {
  uint32_t waitHere = 0;
  for (uint32_t m = w.collWait; m; m &= m - 1) {
    uint32_t l = firstLane(m);
    if (w.lanePc[l] == w.pc)
      waitHere |= 1u << l;
  }
  uint32_t group = w.active | waitHere;
  uint32_t mm =
      static_cast<uint32_t>(src(w, I.src[I.maskSlot])[firstLane(group)]);
  uint32_t need = mm & w.live();
  if ((need & ~group) == 0) {
    w.collWait &= ~waitHere;
    w.parked &= ~waitHere;
    w.active = group;
    mask = group;
    if (I.guard >= 0) {
      uint32_t p = w.preds[I.guard];
      mask &= I.guardNeg ? ~p : p;
    }
    recomputeMinParked(w);
    return true;
  }
  parkGroup(w, w.active, w.pc);
  w.collWait |= w.active;
  w.active = 0;
  recomputeMinParked(w);
  yield = true;
  return false;
}

bool Executor::exec(Warp &w, const XInst &I, uint32_t mask, bool &yield) {
  bool resched = false;
  switch (I.op) {
  case XOp::Bra: {
    uint32_t taken = mask, notTaken = w.active & ~mask;
    if (notTaken == 0) {
      w.pc = I.target;
      if (w.parked != w.collWait && w.pc >= w.minParkedPc)
        reschedule(w);
      return true;
    }
    if (taken == 0) {
      advanceImpl(w, resched);
      if (resched)
        reschedule(w);
      return true;
    }
    // Divergence: park both sides and run the lowest pc.
    parkGroup(w, taken, I.target);
    parkGroup(w, notTaken, w.pc + 1);
    w.active = 0;
    selectGroup(w);
    return true;
  }
  case XOp::Exit:
    if (mask) {
      laneExit(w, mask);
      // Lanes waiting at an aligned instruction for the lanes that just
      // exited will never be joined by them.
      for (uint32_t m = w.collWait; m; m &= m - 1) {
        uint32_t l = firstLane(m);
        const XInst &J = prog_.code[w.lanePc[l]];
        if ((J.flags & XF_Aligned) && J.maskSlot == 0xff) {
          uint32_t waiting = 0;
          for (uint32_t n = w.collWait; n; n &= n - 1)
            if (w.lanePc[firstLane(n)] == w.lanePc[l])
              waiting |= 1u << firstLane(n);
          std::string name = J.inst ? J.inst->mnemonic : "instruction";
          return fault(Fault::Kind::Divergence, w, l, J,
                       "'" + name +
                           "' requires all non-exited lanes of the warp to "
                           "execute it together (.aligned), but lanes " +
                           hex(mask) + " exited (line " +
                           std::to_string(I.line) + ") while lanes " +
                           hex(waiting) + " waited at it");
        }
      }
      if (w.active == 0) {
        selectGroup(w);
        yield = true;
        return true;
      }
    }
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  case XOp::Ret:
    if (mask)
      return execRet(w, I, mask);
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  case XOp::Call:
    if (mask)
      return execCall(w, I, mask);
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  case XOp::Vprintf:
    if (mask && !execVprintf(w, I, mask))
      return false;
    break;
  case XOp::NotImplemented:
  case XOp::Invalid:
    if (!mask)
      break;
    return fault(I.op == XOp::NotImplemented ? Fault::Kind::NotImplemented
                                             : Fault::Kind::Invalid,
                 w, firstLane(mask), I, prog_.messages[I.msg]);
  case XOp::Trap:
    if (!mask)
      break;
    return fault(Fault::Kind::Trap, w, firstLane(mask), I,
                 prog_.messages[I.msg]);
  case XOp::BarSync:
  case XOp::BarArrive:
  case XOp::BarRed:
    return execBarrier(w, I, mask, yield);
  case XOp::ClusterArrive:
  case XOp::ClusterWait:
    return execCluster(w, I, mask, yield);
  case XOp::MbarInit:
  case XOp::MbarArrive:
  case XOp::MbarExpectTx:
  case XOp::MbarCompleteTx:
  case XOp::MbarTestWait:
  case XOp::MbarTryWait:
  case XOp::MbarInval:
    return execMbarrier(w, I, mask, yield);
  case XOp::TmaLoad:
  case XOp::TmaPrefetch:
  case XOp::TmaStore:
    if (mask && !execTma(w, I, mask))
      return false;
    break;
  case XOp::BulkCopy:
  case XOp::BulkCommit:
  case XOp::BulkWait:
    if (mask && !execBulk(w, I, mask))
      return false;
    break;
  case XOp::TmemAlloc:
  case XOp::TmemDealloc:
  case XOp::TmemRelinquish:
  case XOp::TmemLd:
  case XOp::TmemSt:
  case XOp::TmemWait:
  case XOp::TmemFence:
    if (mask && !execTmem(w, I, mask))
      return false;
    break;
  case XOp::TmemMma:
  case XOp::TmemCommit:
  case XOp::TmemCp:
  case XOp::TmemShift:
    if (mask && !execMma(w, I, mask))
      return false;
    break;
  case XOp::WgmmaMma:
  case XOp::WgmmaFence:
  case XOp::WgmmaCommit:
  case XOp::WgmmaWait:
    if (mask && !execWgmma(w, I, mask))
      return false;
    break;
  case XOp::MbarPendingCount:
    if (mask) {
      uint64_t *d = row(w, I.dst);
      const uint64_t *a = src(w, I.src[1]);
      NVFP4_FOR_LANES(mask, d[l] = canon(I, a[l] & 0xfffffu));
    }
    break;
  case XOp::Nop:
    break;
  case XOp::Fence:
    if (mask) {
      ++stats_.fences;
      if (san_ && I.sub == 1)
        san_->fenceMbarrierInit(sanWarp(w));
      if (san_ && I.sub == 2)
        san_->fenceProxyAsync(sanWarp(w));
    }
    break;
  case XOp::Setmaxnreg:
    if (mask) {
      if (!checkAligned(w, I, mask))
        return false;
      ++stats_.setmaxnreg;
      stats_.lastSetmaxnreg = static_cast<uint32_t>(I.imm);
    }
    break;
  case XOp::Mov: {
    if (!mask)
      break;
    uint64_t *d = row(w, I.dst);
    const uint64_t *a = src(w, I.src[0]);
    NVFP4_FOR_LANES(mask, d[l] = canon(I, a[l]));
    break;
  }
  case XOp::MovPred:
    if (mask)
      writePred(w, I.dst, mask, predMask(w, I, 0));
    break;
  case XOp::MovPack: {
    if (!mask)
      break;
    uint64_t *d = row(w, I.dst);
    unsigned eb = ptx::typeBits(I.type) / I.listCount;
    const uint32_t *lst = prog_.lists.data() + I.listBegin;
    uint64_t em = lowMask(eb);
    NVFP4_FOR_LANES(mask, {
      uint64_t v = 0;
      for (uint32_t e = 0; e < I.listCount; ++e)
        v |= (src(w, lst[e])[l] & em) << (e * eb);
      d[l] = canon(I, v);
    });
    break;
  }
  case XOp::MovUnpack: {
    if (!mask)
      break;
    const uint64_t *a = src(w, I.src[0]);
    unsigned eb = ptx::typeBits(I.type) / I.listCount;
    const uint32_t *lst = prog_.lists.data() + I.listBegin;
    uint64_t em = lowMask(eb);
    // Read all lanes first: a destination may be the source.
    uint64_t tmp[32];
    NVFP4_FOR_LANES(mask, tmp[l] = a[l]);
    for (uint32_t e = 0; e < I.listCount; ++e) {
      if (lst[e] == kNone)
        continue;
      uint64_t *d = row(w, lst[e]);
      NVFP4_FOR_LANES(mask, d[l] = (tmp[l] >> (e * eb)) & em & I.dstRegMask);
    }
    break;
  }
  case XOp::ReadClock: {
    if (!mask)
      break;
    uint64_t *d = row(w, I.dst);
    uint64_t t = stats_.warpInstructions;
    uint64_t v = I.sub == 0   ? (t & 0xffffffffu)
                 : I.sub == 1 ? (t >> 32)
                 : I.sub == 2 ? t
                 : I.sub == 3 ? t
                 : I.sub == 4 ? (t & 0xffffffffu)
                              : (t >> 32);
    NVFP4_FOR_LANES(mask, d[l] = canon(I, v));
    break;
  }
  case XOp::PAnd:
  case XOp::POr:
  case XOp::PXor: {
    if (!mask)
      break;
    uint32_t a = predMask(w, I, 0), b = predMask(w, I, 1);
    uint32_t v = I.op == XOp::PAnd  ? (a & b)
                 : I.op == XOp::POr ? (a | b)
                                    : (a ^ b);
    writePred(w, I.dst, mask, v);
    break;
  }
  case XOp::PNot:
    if (mask)
      writePred(w, I.dst, mask, ~predMask(w, I, 0));
    break;
  case XOp::Setp:
  case XOp::Set:
  case XOp::Selp:
  case XOp::Slct:
    if (mask && !execSetp(w, I, mask))
      return false;
    break;
  case XOp::Cvt:
    if (mask && !execCvt(w, I, mask))
      return false;
    break;
  case XOp::FAdd:
  case XOp::FSub:
  case XOp::FMul:
  case XOp::FFma:
  case XOp::FDiv:
  case XOp::FRcp:
  case XOp::FSqrt:
  case XOp::FRsqrt:
  case XOp::FMin:
  case XOp::FMax:
  case XOp::FAbs:
  case XOp::FNeg:
  case XOp::FEx2:
  case XOp::FLg2:
  case XOp::FSin:
  case XOp::FCos:
  case XOp::FTanh:
  case XOp::FCopysign:
  case XOp::FTestp:
    if (mask && !execFloat(w, I, mask))
      return false;
    break;
  case XOp::Ld:
  case XOp::St:
  case XOp::Cvta:
  case XOp::Mapa:
  case XOp::Isspacep:
    if (mask && !execMemory(w, I, mask))
      return false;
    break;
  case XOp::Atom:
    if (mask && !execAtom(w, I, mask))
      return false;
    break;
  case XOp::Activemask:
    if (mask) {
      uint64_t *d = row(w, I.dst);
      uint32_t am = w.active;
      NVFP4_FOR_LANES(mask, d[l] = am);
    }
    break;
  case XOp::Shfl:
  case XOp::Vote:
  case XOp::Elect:
  case XOp::BarWarpSync:
  case XOp::Match:
  case XOp::Redux:
    if (!mask)
      break;
    if (!collectiveReady(w, I, mask, yield)) {
      if (yield)
        return true;
      return false;
    }
    if (mask && !execWarpOp(w, I, mask))
      return false;
    break;
  default:
    if (mask && !execInt(w, I, mask))
      return false;
    break;
  }
  advanceImpl(w, resched);
  if (resched)
    reschedule(w);
  return true;
}

//===----------------------------------------------------------------------===//
// Exit, calls
//===----------------------------------------------------------------------===//

void Executor::laneExit(Warp &w, uint32_t lanes) {
  // Bulk stores of exiting threads still land.
  if (!w.bulkStores.empty())
    completeBulkStores(w, lanes, [](const Warp::BulkStore &) { return true; });
  w.exited |= lanes;
  w.active &= ~lanes;
  // A warp whose remaining lanes all wait at a non-aligned barrier arrives.
  if (w.barLanes && w.barLanes == w.live() && w.wait == Warp::Wait::Barrier) {
    Barrier &b = w.cta->bars[w.barId];
    ++b.arrived;
    b.waiters.push_back(&w);
    w.barLanes = 0;
    if (checkBarrier(*w.cta, w.barId))
      releaseBarrier(*w.cta, w.barId);
  }
  if (w.done())
    warpDone(w);
}

void Executor::warpDone(Warp &w) {
  Cta &cta = *w.cta;
  // wgmma results the warp never waited for are dropped.
  cta.wgmmaPending -= static_cast<uint32_t>(w.wgmma.size());
  w.wgmma.clear();
  --cta.liveWarps;
  for (uint32_t id = 0; id < 16; ++id)
    if (cta.bars[id].arrived && checkBarrier(cta, id))
      releaseBarrier(cta, id);
  // The cluster barrier waits for fewer warps now.
  if (w.clusterArrived)
    --clusterArrived_;
  uint32_t live = 0;
  for (auto &c : ctas_)
    live += c->liveWarps;
  if (clusterArrived_ && clusterArrived_ >= live) {
    ++clusterPhase_;
    clusterArrived_ = 0;
    for (auto &c : ctas_)
      for (Warp &o : c->warps)
        if (o.wait == Warp::Wait::ClusterBarrier) {
          o.parked |= o.blocked;
          o.blocked = 0;
          o.wait = Warp::Wait::None;
          o.clusterArrived = false;
          recomputeMinParked(o);
        }
  }
}

bool Executor::execCall(Warp &w, const XInst &I, uint32_t mask) {
  const CallSite &cs = prog_.calls[static_cast<size_t>(I.imm)];
  const XFunction &callee = prog_.functions[cs.callee];
  uint64_t *ret = row(w, callee.retPcRow);
  uint32_t lb = prog_.localBytes;
  NVFP4_FOR_LANES(mask, {
    uint8_t *base = w.local.data() + size_t(l) * lb;
    for (size_t a = 0; a < cs.argSrc.size(); ++a)
      std::memmove(base + cs.argDst[a], base + cs.argSrc[a], cs.argBytes[a]);
    ret[l] = w.pc;
  });
  uint32_t notCalling = w.active & ~mask;
  if (notCalling) {
    parkGroup(w, notCalling, w.pc + 1);
    parkGroup(w, mask, I.target);
    w.active = 0;
    selectGroup(w);
    return true;
  }
  w.pc = I.target;
  if (w.parked != w.collWait && w.pc >= w.minParkedPc)
    reschedule(w);
  return true;
}

bool Executor::execVprintf(Warp &w, const XInst &I, uint32_t mask) {
  const CallSite &cs = prog_.calls[static_cast<size_t>(I.imm)];
  uint32_t lb = prog_.localBytes;
  NVFP4_FOR_LANES(mask, {
    uint8_t *base = w.local.data() + size_t(l) * lb;
    uint64_t fmtAddr = 0, argAddr = 0;
    std::memcpy(&fmtAddr, base + cs.argSrc[0], 8);
    std::memcpy(&argAddr, base + cs.argSrc[1], 8);
    // A NUL-terminated string at a generic address (at most 4 KiB).
    auto readString = [&](uint64_t addr, std::string &out) {
      for (unsigned n = 0; n < 4096; ++n) {
        const uint8_t *c =
            resolve(w, l, XSpace::Generic, addr + n, 1, false, I);
        if (!c)
          return false;
        if (*c == 0)
          return true;
        out.push_back(char(*c));
      }
      out += "...";
      return true;
    };
    std::string fmt, text;
    if (!readString(fmtAddr, fmt))
      return false;
    // The argument buffer: each argument aligned to its size (CUDA's
    // vprintf layout: 4-byte ints, 8-byte longs, doubles and pointers).
    uint64_t at = argAddr;
    int32_t converted = 0;
    auto arg = [&](unsigned bytes, uint64_t &v) {
      at = (at + bytes - 1) / bytes * bytes;
      const uint8_t *p = resolve(w, l, XSpace::Generic, at, bytes, false, I);
      if (!p)
        return false;
      v = 0;
      std::memcpy(&v, p, bytes);
      at += bytes;
      ++converted;
      return true;
    };
    for (size_t i = 0; i < fmt.size(); ++i) {
      if (fmt[i] != '%') {
        text.push_back(fmt[i]);
        continue;
      }
      size_t j = i + 1;
      while (j < fmt.size() && std::strchr("-+ #0123456789.", fmt[j]))
        ++j;
      unsigned longs = 0;
      while (j < fmt.size() && (fmt[j] == 'l' || fmt[j] == 'h' ||
                                fmt[j] == 'z' || fmt[j] == 'j')) {
        longs += fmt[j] == 'l' || fmt[j] == 'z' || fmt[j] == 'j';
        ++j;
      }
      if (j >= fmt.size())
        break;
      char conv = fmt[j];
      std::string spec = fmt.substr(i, j - i);
      // The length modifiers go; the host formats 64-bit values.
      std::string flags;
      for (char c : spec)
        if (c != 'l' && c != 'h' && c != 'z' && c != 'j')
          flags.push_back(c);
      char buf[512];
      uint64_t v = 0;
      switch (conv) {
      case '%':
        text.push_back('%');
        break;
      case 'd':
      case 'i': {
        if (!arg(longs ? 8 : 4, v))
          return false;
        long long x = longs ? (long long)int64_t(v) : (long long)int32_t(v);
        std::snprintf(buf, sizeof buf, (flags + "lld").c_str(), x);
        text += buf;
        break;
      }
      case 'u':
      case 'x':
      case 'X':
      case 'o': {
        if (!arg(longs ? 8 : 4, v))
          return false;
        std::snprintf(buf, sizeof buf, (flags + "ll" + conv).c_str(),
                      (unsigned long long)v);
        text += buf;
        break;
      }
      case 'c': {
        if (!arg(4, v))
          return false;
        text.push_back(char(v));
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        if (!arg(8, v))
          return false;
        double d;
        std::memcpy(&d, &v, 8);
        std::snprintf(buf, sizeof buf, (flags + conv).c_str(), d);
        text += buf;
        break;
      }
      case 'p': {
        if (!arg(8, v))
          return false;
        std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
        text += buf;
        break;
      }
      case 's': {
        if (!arg(8, v))
          return false;
        if (!readString(v, text))
          return false;
        break;
      }
      default:
        text += spec + conv;
        break;
      }
      i = j;
    }
    stats_.printfOutput += text;
    if (!cs.retDst.empty())
      std::memcpy(base + cs.retDst[0], &converted, cs.retBytes[0]);
  });
  return true;
}

bool Executor::execRet(Warp &w, const XInst &I, uint32_t mask) {
  const XFunction &f = prog_.functions[static_cast<size_t>(I.imm)];
  const uint64_t *ret = row(w, f.retPcRow);
  uint32_t lb = prog_.localBytes;
  // Copy return values and send each lane back after its call site.
  NVFP4_FOR_LANES(mask, {
    uint32_t callPc = static_cast<uint32_t>(ret[l]);
    const XInst &C = prog_.code[callPc];
    const CallSite &cs = prog_.calls[static_cast<size_t>(C.imm)];
    uint8_t *base = w.local.data() + size_t(l) * lb;
    for (size_t r = 0; r < cs.retSrc.size(); ++r)
      std::memmove(base + cs.retDst[r], base + cs.retSrc[r], cs.retBytes[r]);
    w.lanePc[l] = callPc + 1;
  });
  uint32_t rest = w.active & ~mask;
  if (rest)
    parkGroup(w, rest, w.pc + 1);
  w.parked |= mask;
  w.active = 0;
  selectGroup(w);
  return true;
}

//===----------------------------------------------------------------------===//
// Barriers
//===----------------------------------------------------------------------===//

bool Executor::checkBarrier(Cta &cta, uint32_t id) {
  Barrier &b = cta.bars[id];
  if (!b.arrived)
    return false;
  uint32_t target = b.expectedThreads ? b.expectedThreads / 32 : cta.liveWarps;
  return b.arrived >= target;
}

void Executor::releaseBarrier(Cta &cta, uint32_t id) {
  Barrier &b = cta.bars[id];
  for (Warp *w : b.waiters) {
    if (b.isRed) {
      const XInst &I = prog_.code[w->barPc];
      if (I.op == XOp::BarRed) {
        if (I.sub2 == XB_Popc) {
          uint64_t *d = row(*w, I.dst);
          NVFP4_FOR_LANES(w->blocked, d[l] = canon(I, b.popc));
        } else {
          bool v = I.sub2 == XB_And ? b.all : b.any;
          writePred(*w, I.dst, w->blocked, v ? ~0u : 0u);
        }
      }
    }
    if (san_)
      san_->acquire(sanWarp(*w), san_->barrier(cta.rank, id),
                    prog_.code[w->barPc].line);
    w->parked |= w->blocked;
    w->blocked = 0;
    w->wait = Warp::Wait::None;
    recomputeMinParked(*w);
  }
  if (san_)
    san_->barrier(cta.rank, id).clear();
  b = Barrier();
  ++stats_.barriers;
}

bool Executor::execBarrier(Warp &w, const XInst &I, uint32_t mask,
                           bool &yield) {
  bool resched = false;
  if (!mask) {
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  }
  if ((I.flags & XF_Aligned) && !checkAligned(w, I, mask))
    return false;
  uint32_t l0 = firstLane(mask);
  uint64_t id = src(w, I.src[0])[l0];
  if (id >= 16)
    return fault(Fault::Kind::Invalid, w, l0, I,
                 "barrier " + std::to_string(id) + " does not exist (0..15)");
  uint32_t count = 0;
  if (I.src[1] != kNone) {
    uint64_t c = src(w, I.src[1])[l0];
    if (c == 0 || c % 32 != 0 || c > 1024)
      return fault(Fault::Kind::Invalid, w, l0, I,
                   "barrier thread count " + std::to_string(c) +
                       " is not a positive multiple of 32 up to 1024");
    if (c > uint64_t(warpsPerCta_) * 32)
      return fault(Fault::Kind::Invalid, w, l0, I,
                   "barrier thread count " + std::to_string(c) +
                       " exceeds the CTA's " +
                       std::to_string(warpsPerCta_ * 32) + " threads");
    count = static_cast<uint32_t>(c);
  } else if (I.op == XOp::BarArrive) {
    return fault(Fault::Kind::Invalid, w, l0, I,
                 "bar.arrive needs a thread count");
  }
  Cta &cta = *w.cta;
  Barrier &b = cta.bars[id];
  if (b.haveExpected && b.expectedThreads != count)
    return fault(Fault::Kind::Invalid, w, l0, I,
                 "barrier " + std::to_string(id) +
                     " is used with thread "
                     "counts " +
                     (b.expectedThreads ? std::to_string(b.expectedThreads)
                                        : std::string("all")) +
                     " and " +
                     (count ? std::to_string(count) : std::string("all")) +
                     " at the same time");
  b.haveExpected = true;
  b.expectedThreads = count;
  if (I.op == XOp::BarRed) {
    b.isRed = true;
    uint32_t c = predMask(w, I, 2) & mask;
    b.popc += popcount(c);
    b.all = b.all && c == mask;
    b.any = b.any || c != 0;
  }
  if (w.barLanes && w.barId != id)
    return fault(Fault::Kind::Invalid, w, l0, I,
                 "lanes of this warp wait at barriers " +
                     std::to_string(w.barId) + " and " + std::to_string(id) +
                     " at the same time");
  w.barId = static_cast<uint8_t>(id);
  w.barLanes |= mask;
  bool arrives = w.barLanes == w.live();
  bool waits = I.op != XOp::BarArrive;
  if (waits) {
    // These lanes stop here and resume after the barrier.
    for (uint32_t m = mask; m; m &= m - 1)
      w.lanePc[firstLane(m)] = w.pc + 1;
    w.blocked |= mask;
    w.active &= ~mask;
    w.wait = Warp::Wait::Barrier;
    w.barPc = w.pc;
  }
  if (arrives) {
    if (san_)
      san_->release(sanWarp(w), san_->barrier(cta.rank, id), I.line);
    ++b.arrived;
    if (waits)
      b.waiters.push_back(&w);
    w.barLanes = 0;
    if (checkBarrier(cta, static_cast<uint32_t>(id)))
      releaseBarrier(cta, static_cast<uint32_t>(id));
  } else if (!waits) {
    // bar.arrive from part of a warp: remember which lanes arrived.
  }
  if (w.active) {
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  }
  selectGroup(w);
  yield = true;
  return true;
}

bool Executor::execCluster(Warp &w, const XInst &I, uint32_t mask,
                           bool &yield) {
  bool resched = false;
  if (!mask) {
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  }
  if (!(I.flags & XF_Aligned) && (w.active != w.live() || mask != w.active))
    return fault(Fault::Kind::NotImplemented, w, firstLane(mask), I,
                 "not implemented yet: barrier.cluster without .aligned in a "
                 "diverged warp");
  if (!checkAligned(w, I, mask))
    return false;
  uint32_t live = 0;
  for (auto &c : ctas_)
    live += c->liveWarps;
  if (I.op == XOp::ClusterArrive) {
    if (w.clusterArrived)
      return fault(Fault::Kind::Invalid, w, firstLane(mask), I,
                   "barrier.cluster.arrive executed twice without a "
                   "barrier.cluster.wait in between");
    w.clusterArrived = true;
    w.clusterPhase = clusterPhase_;
    if (san_)
      san_->release(sanWarp(w), san_->clusterCurrent(), I.line);
    if (++clusterArrived_ >= live) {
      ++clusterPhase_;
      clusterArrived_ = 0;
      if (san_)
        san_->clusterComplete();
      for (auto &c : ctas_)
        for (Warp &o : c->warps)
          if (o.wait == Warp::Wait::ClusterBarrier) {
            if (san_)
              san_->acquire(sanWarp(o), san_->clusterLast(),
                            prog_.code[o.barPc].line);
            o.parked |= o.blocked;
            o.blocked = 0;
            o.wait = Warp::Wait::None;
            o.clusterArrived = false;
            recomputeMinParked(o);
          }
    }
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  }
  // wait
  if (!w.clusterArrived)
    return fault(Fault::Kind::Invalid, w, firstLane(mask), I,
                 "barrier.cluster.wait without a preceding "
                 "barrier.cluster.arrive");
  if (clusterPhase_ > w.clusterPhase) {
    if (san_)
      san_->acquire(sanWarp(w), san_->clusterLast(), I.line);
    w.clusterArrived = false;
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  }
  for (uint32_t m = mask; m; m &= m - 1)
    w.lanePc[firstLane(m)] = w.pc + 1;
  w.blocked |= mask;
  w.active = 0;
  w.wait = Warp::Wait::ClusterBarrier;
  w.barPc = w.pc;
  yield = true;
  return true;
}

//===----------------------------------------------------------------------===//
// mbarrier objects
//===----------------------------------------------------------------------===//
//
// Operands (Decoder.cpp): src[0] + imm is the object's address in I.space
// (shared::cta, shared::cluster or generic). MbarInit, MbarExpectTx,
// MbarCompleteTx: src[1] is the count / tx-count. MbarArrive: dst is the
// state (kNone for `_`), src[1] the count, or the tx-count with XM_ExpectTx
// (kNone: count 1). Waits: dst is the predicate, src[1] the state or, with
// XM_Parity, the phase parity; src[2] the suspend-time hint (ignored).
//
// The object is kept in its own 8 bytes of shared memory, so it is part of
// the CTA's state like any other shared data:
//   bits  0..19  pending arrival count of the current phase
//   bits 20..39  expected arrival count (reloaded when a phase completes)
//   bits 40..60  tx-count, 21-bit two's complement, |tx| <= 2^20 - 1
//   bit  61      0
//   bit  62      parity of the current phase
//   bit  63      valid: set by mbarrier.init, cleared by mbarrier.inval
// Shared memory starts zeroed, so an object never initialized is invalid.
// The state an arrive returns is the object before the arrive; a wait on a
// state waits for the phase whose parity is bit 62 of it.

namespace {

constexpr uint64_t kMbValid = uint64_t(1) << 63;
constexpr uint64_t kMbUnused = uint64_t(1) << 61;
constexpr uint32_t kMbMaxCount = (1u << 20) - 1;
constexpr int64_t kMbMaxTx = (int64_t(1) << 20) - 1;

struct MbState {
  uint32_t pending = 0, expected = 0;
  int64_t tx = 0;
  uint32_t parity = 0;
  bool valid = false;
};

MbState mbDecode(uint64_t v) {
  MbState s;
  s.pending = static_cast<uint32_t>(v & 0xfffffu);
  s.expected = static_cast<uint32_t>((v >> 20) & 0xfffffu);
  int64_t tx = static_cast<int64_t>((v >> 40) & 0x1fffffu);
  if (tx & (int64_t(1) << 20))
    tx -= int64_t(1) << 21;
  s.tx = tx;
  s.parity = static_cast<uint32_t>((v >> 62) & 1);
  // Valid: bit 63 set and bit 61 (unused) clear, so that neither zeroed nor
  // 0xff-filled shared memory (LaunchConfig::sharedFill) reads as an
  // initialized barrier.
  s.valid = (v & (kMbValid | kMbUnused)) == kMbValid;
  return s;
}

uint64_t mbEncode(const MbState &s) {
  return (uint64_t(s.pending) & 0xfffffu) |
         ((uint64_t(s.expected) & 0xfffffu) << 20) |
         ((static_cast<uint64_t>(s.tx) & 0x1fffffu) << 40) |
         (uint64_t(s.parity & 1) << 62) | (s.valid ? kMbValid : 0);
}

uint64_t mbLoad(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

void mbStore(uint8_t *p, uint64_t v) { std::memcpy(p, &v, 8); }

} // namespace

uint32_t Executor::mbarrierParity(const Cta &cta, uint32_t off) const {
  if (off > cta.shared.size() || cta.shared.size() - off < 8)
    return 0;
  return mbDecode(mbLoad(cta.shared.data() + off)).parity;
}

std::string
Executor::deadlockHints(const std::vector<Warp *> &warps) const {
  // Every copy has landed (the async units are idle): an mbarrier a warp
  // waits on with a non-zero tx-count was told a wrong byte count.
  std::string msg;
  std::vector<std::pair<const Cta *, uint32_t>> seen;
  for (Warp *w : warps)
    for (uint32_t m = w->mbBlocked; m; m &= m - 1) {
      std::pair<const Cta *, uint32_t> key(w->cta, w->mbAddr[firstLane(m)]);
      if (std::find(seen.begin(), seen.end(), key) != seen.end())
        continue;
      seen.push_back(key);
      MbState st = mbDecode(mbLoad(key.first->shared.data() + key.second));
      if (st.valid && st.tx > 0)
        msg += "\n  " + describeMbarrier(*key.first, key.second) +
               " still expects " + std::to_string(st.tx) +
               " transaction bytes, but every TMA load and bulk copy has "
               "completed: an expect_tx larger than the bytes its copies "
               "deliver?";
      else if (st.valid && st.tx < 0)
        msg += "\n  " + describeMbarrier(*key.first, key.second) +
               " received " + std::to_string(-st.tx) +
               " transaction bytes more than its expect_tx announced: an "
               "expect_tx smaller than the bytes its copies deliver?";
    }
  return msg;
}

std::string Executor::describeMbarrier(const Cta &cta, uint32_t off) const {
  std::string s =
      "the mbarrier at shared " + hex(off) + " of CTA " + dimStr(cta.id);
  if (off > cta.shared.size() || cta.shared.size() - off < 8)
    return s;
  MbState st = mbDecode(mbLoad(cta.shared.data() + off));
  if (!st.valid)
    return s + " (not initialized)";
  return s + " (current phase parity " + std::to_string(st.parity) + ", " +
         std::to_string(st.pending) + " of " + std::to_string(st.expected) +
         " arrivals pending, tx-count " + std::to_string(st.tx) + ")";
}

bool Executor::mbarAddress(Warp &w, uint32_t lane, const XInst &I,
                           bool ownCtaOnly, Cta *&cta, uint32_t &off) {
  uint64_t addr = src(w, I.src[0])[lane] + static_cast<uint64_t>(I.imm);
  XSpace space = I.space;
  if (space == XSpace::Generic) {
    if (addr < addrspace::kSharedWindow ||
        addr >= addrspace::kSharedWindow + addrspace::kWindowSize)
      return fault(Fault::Kind::Memory, w, lane, I,
                   "mbarrier address " + hex(addr) +
                       " is not a generic address of shared memory");
    addr -= addrspace::kSharedWindow;
    space = XSpace::SharedCluster;
  }
  if (addr % 8 != 0)
    return fault(Fault::Kind::Memory, w, lane, I,
                 "misaligned mbarrier object at " +
                     std::string(spaceStr(space)) + " address " + hex(addr) +
                     " (needs 8-byte alignment)");
  uint8_t *p = resolve(w, lane, space, addr, 8, /*write=*/true, I);
  if (!p)
    return false;
  cta = ctas_[addrspace::sharedRank(addr)].get();
  off = static_cast<uint32_t>(p - cta->shared.data());
  if (ownCtaOnly && cta != w.cta)
    return fault(Fault::Kind::Invalid, w, lane, I,
                 "'" + (I.inst ? I.inst->mnemonic : std::string("mbarrier")) +
                     "' needs an mbarrier of the executing CTA, but " +
                     hex(addr) + " is in CTA rank " +
                     std::to_string(cta->rank));
  return true;
}

std::string Executor::mbarrierUpdate(Cta &cta, uint32_t off, uint32_t arrivals,
                                     int64_t txDelta, uint8_t flags,
                                     uint64_t *old) {
  uint8_t *p = cta.shared.data() + off;
  uint64_t v = mbLoad(p);
  if (old)
    *old = v;
  MbState st = mbDecode(v);
  if (!st.valid)
    return "mbarrier operation on " + describeMbarrier(cta, off) +
           ": it was never initialized with mbarrier.init (or was "
           "invalidated)";
  int64_t tx = st.tx + txDelta;
  if (tx > kMbMaxTx || tx < -kMbMaxTx)
    return "the tx-count of " + describeMbarrier(cta, off) + " would become " +
           std::to_string(tx) + ", outside [-(2^20-1), 2^20-1]";
  if (arrivals > st.pending)
    return std::to_string(arrivals) + " arrival" + (arrivals == 1 ? "" : "s") +
           " on " + describeMbarrier(cta, off) +
           ": more arrivals than the current phase expects";
  st.tx = tx;
  st.pending -= arrivals;
  if (flags & MB_Drop)
    st.expected -= arrivals;
  bool completes = st.pending == 0 && st.tx == 0;
  if (completes && (flags & MB_NoComplete))
    return "mbarrier.arrive.noComplete would complete the current phase of " +
           describeMbarrier(cta, off);
  if (completes) {
    st.parity ^= 1;
    st.pending = st.expected;
    ++stats_.mbarrierPhases;
  }
  uint64_t nv = mbEncode(st);
  mbStore(p, nv);
  if (completes && san_)
    san_->mbarComplete(cta.rank, off);
  if (completes)
    wakeMbarrierWaiters(cta, off, nv);
  return std::string();
}

void Executor::wakeMbarrierWaiters(Cta &cta, uint32_t off, uint64_t word) {
  uint32_t parity = static_cast<uint32_t>((word >> 62) & 1);
  for (Warp &o : cta.warps) {
    uint32_t rel = 0;
    for (uint32_t m = o.mbBlocked; m; m &= m - 1) {
      uint32_t l = firstLane(m);
      if (o.mbAddr[l] == off && o.mbParity[l] != parity)
        rel |= 1u << l;
    }
    if (!rel)
      continue;
    if (san_)
      san_->mbarAcquire(sanWarp(o), cta.rank, off,
                        prog_.code[o.lanePc[firstLane(rel)]].line);
    // try_wait returns true and the lanes continue after it.
    for (uint32_t m = rel; m; m &= m - 1) {
      uint32_t l = firstLane(m);
      writePred(o, prog_.code[o.lanePc[l]].dst, 1u << l, ~0u);
      ++o.lanePc[l];
    }
    o.mbBlocked &= ~rel;
    o.parked |= rel;
    recomputeMinParked(o);
  }
}

bool Executor::execMbarrier(Warp &w, const XInst &I, uint32_t mask,
                            bool &yield) {
  bool ownCta = I.op == XOp::MbarInit || I.op == XOp::MbarInval ||
                I.op == XOp::MbarTestWait || I.op == XOp::MbarTryWait;
  uint32_t block = 0;
  // Lane by lane in lane order, like atomics.
  for (uint32_t m = mask; m; m &= m - 1) {
    uint32_t l = firstLane(m);
    Cta *cta = nullptr;
    uint32_t off = 0;
    if (!mbarAddress(w, l, I, ownCta, cta, off))
      return false;
    uint8_t *p = cta->shared.data() + off;
    switch (I.op) {
    case XOp::MbarInit: {
      uint64_t c = src(w, I.src[1])[l] & 0xffffffffu;
      if (c == 0 || c > kMbMaxCount)
        return fault(Fault::Kind::Invalid, w, l, I,
                     "mbarrier.init count " + std::to_string(c) +
                         " is outside [1, 2^20-1]");
      MbState st;
      st.pending = st.expected = static_cast<uint32_t>(c);
      st.valid = true;
      mbStore(p, mbEncode(st));
      if (san_) {
        san_->mbarCurrent(cta->rank, off).clear();
        san_->mbarComplete(cta->rank, off);
        san_->mbarInit(sanWarp(w), cta->rank, off, I.line);
      }
      break;
    }
    case XOp::MbarInval:
      mbStore(p, 0);
      break;
    case XOp::MbarArrive:
    case XOp::MbarExpectTx:
    case XOp::MbarCompleteTx: {
      uint32_t arrivals = 0;
      int64_t tx = 0;
      uint8_t flags = 0;
      if (I.op == XOp::MbarArrive) {
        arrivals = 1;
        if (I.src[1] != kNone) {
          uint64_t v = src(w, I.src[1])[l] & 0xffffffffu;
          if (I.sub & XM_ExpectTx)
            tx = static_cast<int64_t>(v);
          else
            arrivals = static_cast<uint32_t>(v);
        }
        if (arrivals == 0 || arrivals > kMbMaxCount)
          return fault(Fault::Kind::Invalid, w, l, I,
                       "mbarrier arrival count " + std::to_string(arrivals) +
                           " is outside [1, 2^20-1]");
        if (I.sub & XM_Drop)
          flags |= MB_Drop;
        if (I.sub & XM_NoComplete)
          flags |= MB_NoComplete;
      } else {
        tx = static_cast<int64_t>(src(w, I.src[1])[l] & 0xffffffffu);
      }
      if (tx > kMbMaxTx)
        return fault(Fault::Kind::Invalid, w, l, I,
                     "mbarrier tx-count " + std::to_string(tx) +
                         " is outside [0, 2^20-1]");
      if (I.op == XOp::MbarCompleteTx)
        tx = -tx;
      uint64_t old = 0;
      if (san_ && cta != w.cta) {
        std::string e = san_->mbarRemoteUse(sanWarp(w), cta->rank, off,
                                            I.line, "the remote arrive");
        if (!e.empty())
          return sanFault(w, l, I, e);
      }
      if (san_ && I.op == XOp::MbarArrive)
        san_->release(sanWarp(w), san_->mbarCurrent(cta->rank, off),
                      I.line);
      std::string err = mbarrierUpdate(*cta, off, arrivals, tx, flags, &old);
      if (!err.empty())
        return fault(Fault::Kind::Invalid, w, l, I, err);
      if (I.op == XOp::MbarArrive && I.dst != kNone)
        row(w, I.dst)[l] = canon(I, old);
      break;
    }
    case XOp::MbarTestWait:
    case XOp::MbarTryWait: {
      MbState st = mbDecode(mbLoad(p));
      if (!st.valid)
        return fault(Fault::Kind::Invalid, w, l, I,
                     "wait on " + describeMbarrier(*cta, off) +
                         ", which was never initialized with mbarrier.init "
                         "(or was invalidated)");
      uint32_t want;
      if (I.sub & XM_Parity) {
        want = static_cast<uint32_t>(src(w, I.src[1])[l] & 1);
      } else {
        uint64_t state = src(w, I.src[1])[l];
        if (!(state & kMbValid))
          return fault(Fault::Kind::Invalid, w, l, I,
                       "the state operand " + hex(state) +
                           " was not returned by mbarrier.arrive");
        want = static_cast<uint32_t>((state >> 62) & 1);
      }
      if (st.parity != want) {
        writePred(w, I.dst, 1u << l, ~0u);
        if (san_)
          san_->mbarAcquire(sanWarp(w), cta->rank, off, I.line);
      } else if (I.op == XOp::MbarTestWait) {
        writePred(w, I.dst, 1u << l, 0u);
      } else {
        // The phase has not completed: block instead of returning false.
        block |= 1u << l;
        w.mbAddr[l] = off;
        w.mbParity[l] = static_cast<uint8_t>(want);
      }
      break;
    }
    default:
      break;
    }
  }
  if (block) {
    for (uint32_t m = block; m; m &= m - 1)
      w.lanePc[firstLane(m)] = w.pc;
    w.mbBlocked |= block;
    w.active &= ~block;
  }
  if (w.active) {
    bool resched = false;
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  }
  selectGroup(w);
  yield = true;
  return true;
}

//===----------------------------------------------------------------------===//
// Integer operations
//===----------------------------------------------------------------------===//

bool Executor::execInt(Warp &w, const XInst &I, uint32_t mask) {
  uint64_t *d = I.dst != kNone ? row(w, I.dst) : nullptr;
  const uint64_t *a = I.src[0] != kNone ? src(w, I.src[0]) : nullptr;
  const uint64_t *b = I.src[1] != kNone ? src(w, I.src[1]) : nullptr;
  const uint64_t *c = I.src[2] != kNone ? src(w, I.src[2]) : nullptr;
  uint64_t *cc = prog_.ccRow != kNone ? row(w, prog_.ccRow) : nullptr;
  unsigned bits = ptx::typeBits(I.type);
  switch (I.op) {
  case XOp::IAdd:
    if (I.flags & XF_Sat) {
      NVFP4_FOR_LANES(mask, {
        int64_t r = int64_t(int32_t(a[l])) + int64_t(int32_t(b[l]));
        r = std::min<int64_t>(std::max<int64_t>(r, INT32_MIN), INT32_MAX);
        d[l] = canon(I, uint64_t(r));
      });
    } else {
      NVFP4_FOR_LANES(mask, d[l] = canon(I, a[l] + b[l]));
    }
    return true;
  case XOp::ISub:
    if (I.flags & XF_Sat) {
      NVFP4_FOR_LANES(mask, {
        int64_t r = int64_t(int32_t(a[l])) - int64_t(int32_t(b[l]));
        r = std::min<int64_t>(std::max<int64_t>(r, INT32_MIN), INT32_MAX);
        d[l] = canon(I, uint64_t(r));
      });
    } else {
      NVFP4_FOR_LANES(mask, d[l] = canon(I, a[l] - b[l]));
    }
    return true;
  case XOp::IAddCC:
  case XOp::IAddC:
  case XOp::ISubCC:
  case XOp::ISubC: {
    bool isSub = I.op == XOp::ISubCC || I.op == XOp::ISubC;
    bool carryIn = I.op == XOp::IAddC || I.op == XOp::ISubC;
    bool carryOut = I.sub != 0;
    uint64_t m = lowMask(bits);
    NVFP4_FOR_LANES(mask, {
      unsigned __int128 x = a[l] & m, y = b[l] & m;
      unsigned __int128 ci = carryIn ? (cc[l] & 1) : 0;
      unsigned __int128 r;
      uint64_t co;
      if (isSub) {
        r = x - y - ci;
        co = (y + ci) > x; // borrow
      } else {
        r = x + y + ci;
        co = static_cast<uint64_t>(r >> bits) & 1;
      }
      d[l] = canon(I, static_cast<uint64_t>(r));
      if (carryOut)
        cc[l] = co;
    });
    return true;
  }
  case XOp::IMul:
  case XOp::IMad:
  case XOp::IMadCC:
  case XOp::IMadC: {
    bool mad = I.op != XOp::IMul;
    NVFP4_INT_DISPATCH(I.type, {
      if (I.op == XOp::IMadCC || I.op == XOp::IMadC) {
        bool carryIn = I.op == XOp::IMadC;
        bool carryOut = I.sub2 != 0;
        uint64_t m = lowMask(bits);
        NVFP4_FOR_LANES(mask, {
          uint64_t p = I.sub == XS_Hi ? mulHi<T>(T(a[l]), T(b[l]))
                                      : mulLo<T>(T(a[l]), T(b[l]));
          unsigned __int128 r = (unsigned __int128)(p & m) + (c[l] & m) +
                                (carryIn ? (cc[l] & 1) : 0);
          d[l] = canon(I, static_cast<uint64_t>(r));
          if (carryOut)
            cc[l] = static_cast<uint64_t>(r >> bits) & 1;
        });
      } else if (I.sub == XS_Wide) {
        NVFP4_FOR_LANES(mask, {
          uint64_t p = mulWide<T>(T(a[l]), T(b[l]));
          d[l] = canon(I, mad ? p + c[l] : p);
        });
      } else if (I.sub == XS_Hi) {
        if (I.flags & XF_Sat) {
          NVFP4_FOR_LANES(mask, {
            int64_t r =
                sext(mulHi<T>(T(a[l]), T(b[l])), 32) + int64_t(int32_t(c[l]));
            r = std::min<int64_t>(std::max<int64_t>(r, INT32_MIN), INT32_MAX);
            d[l] = canon(I, uint64_t(r));
          });
        } else {
          NVFP4_FOR_LANES(mask, {
            uint64_t p = mulHi<T>(T(a[l]), T(b[l]));
            d[l] = canon(I, mad ? p + c[l] : p);
          });
        }
      } else {
        NVFP4_FOR_LANES(mask, {
          uint64_t p = mulLo<T>(T(a[l]), T(b[l]));
          d[l] = canon(I, mad ? p + c[l] : p);
        });
      }
    });
    return true;
  }
  case XOp::IMul24:
  case XOp::IMad24: {
    bool s = I.type == Type::S32;
    bool mad = I.op == XOp::IMad24;
    NVFP4_FOR_LANES(mask, {
      int64_t x = s ? sext(a[l], 24) : int64_t(a[l] & 0xffffff);
      int64_t y = s ? sext(b[l], 24) : int64_t(b[l] & 0xffffff);
      uint64_t p = static_cast<uint64_t>(x * y);
      uint64_t r = I.sub == XS_Hi ? (p >> 16) : p;
      d[l] = canon(I, mad ? r + c[l] : r);
    });
    return true;
  }
  case XOp::ISad:
    NVFP4_INT_DISPATCH(I.type, {
      NVFP4_FOR_LANES(mask, {
        T x = T(a[l]), y = T(b[l]);
        uint64_t diff = x > y ? uint64_t(UnsignedOf<T>(x) - UnsignedOf<T>(y))
                              : uint64_t(UnsignedOf<T>(y) - UnsignedOf<T>(x));
        d[l] = canon(I, c[l] + diff);
      });
    });
    return true;
  case XOp::IDiv:
  case XOp::IRem: {
    bool isDiv = I.op == XOp::IDiv;
    NVFP4_INT_DISPATCH(I.type, {
      NVFP4_FOR_LANES(mask, {
        T x = T(a[l]), y = T(b[l]);
        uint64_t r;
        if (y == 0) {
          // Machine-specific in PTX; all ones for both division and
          // remainder, as the H200 gives (corpus cases int_ops, int64_ops).
          r = ~uint64_t(0);
        } else if (std::is_signed_v<T> && y == T(-1)) {
          r = isDiv ? uint64_t(UnsignedOf<T>(0) - UnsignedOf<T>(x)) : 0;
        } else {
          r = uint64_t(UnsignedOf<T>(isDiv ? T(x / y) : T(x % y)));
        }
        d[l] = canon(I, r);
      });
    });
    return true;
  }
  case XOp::IAbs:
    NVFP4_INT_DISPATCH(I.type, {
      NVFP4_FOR_LANES(mask, {
        T x = T(a[l]);
        d[l] = canon(I, isNegative(x)
                            ? uint64_t(UnsignedOf<T>(0) - UnsignedOf<T>(x))
                            : uint64_t(UnsignedOf<T>(x)));
      });
    });
    return true;
  case XOp::INeg:
    NVFP4_FOR_LANES(mask, d[l] = canon(I, uint64_t(0) - a[l]));
    return true;
  case XOp::IMin:
  case XOp::IMax: {
    bool isMax = I.op == XOp::IMax;
    bool relu = I.flags & XF_Relu;
    NVFP4_INT_DISPATCH(I.type, {
      NVFP4_FOR_LANES(mask, {
        T x = T(a[l]), y = T(b[l]);
        T r = isMax ? (x > y ? x : y) : (x < y ? x : y);
        if (relu && isNegative(r))
          r = T(0);
        d[l] = canon(I, uint64_t(UnsignedOf<T>(r)));
      });
    });
    return true;
  }
  case XOp::IPopc: {
    uint64_t m = lowMask(bits);
    NVFP4_FOR_LANES(mask,
                    d[l] = canon(I, uint64_t(__builtin_popcountll(a[l] & m))));
    return true;
  }
  case XOp::IClz: {
    uint64_t m = lowMask(bits);
    NVFP4_FOR_LANES(mask, {
      uint64_t x = a[l] & m;
      d[l] = canon(I, x ? uint64_t(__builtin_clzll(x) - (64 - bits)) : bits);
    });
    return true;
  }
  case XOp::IBrev: {
    NVFP4_FOR_LANES(mask, {
      uint64_t x = a[l], r = 0;
      for (unsigned i = 0; i < bits; ++i)
        r |= ((x >> i) & 1) << (bits - 1 - i);
      d[l] = canon(I, r);
    });
    return true;
  }
  case XOp::IBfind: {
    bool s = ptx::isSigned(I.type);
    bool shiftamt = I.sub != 0;
    uint64_t m = lowMask(bits);
    NVFP4_FOR_LANES(mask, {
      uint64_t x = a[l] & m;
      if (s && ((x >> (bits - 1)) & 1))
        x = ~x & m;
      uint64_t r = 0xffffffffu;
      if (x) {
        r = 63 - __builtin_clzll(x);
        if (shiftamt)
          r = (bits - 1) - r;
      }
      d[l] = canon(I, r);
    });
    return true;
  }
  case XOp::IBfe: {
    bool s = ptx::isSigned(I.type);
    unsigned msb = bits - 1;
    NVFP4_FOR_LANES(mask, {
      uint64_t x = a[l];
      uint32_t pos = uint32_t(b[l]) & 0xff, len = uint32_t(c[l]) & 0xff;
      uint64_t sbit = 0;
      if (s && len != 0)
        sbit = (x >> std::min<uint32_t>(pos + len - 1, msb)) & 1;
      uint64_t r = 0;
      for (unsigned i = 0; i <= msb; ++i) {
        uint64_t bit =
            (i < len && pos + i <= msb) ? ((x >> (pos + i)) & 1) : sbit;
        r |= bit << i;
      }
      d[l] = canon(I, r);
    });
    return true;
  }
  case XOp::IBfi: {
    const uint64_t *e = src(w, I.src[3]);
    unsigned msb = bits - 1;
    NVFP4_FOR_LANES(mask, {
      uint64_t x = a[l], r = b[l];
      uint32_t pos = uint32_t(c[l]) & 0xff, len = uint32_t(e[l]) & 0xff;
      for (uint32_t i = 0; i < len && pos + i <= msb; ++i)
        r = (r & ~(uint64_t(1) << (pos + i))) | (((x >> i) & 1) << (pos + i));
      d[l] = canon(I, r);
    });
    return true;
  }
  case XOp::IPrmt: {
    static const uint8_t kModes[7][4][4] = {
        {},
        {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, // f4e
        {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}, // b4e
        {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // rc8
        {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}, // ecl
        {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, // ecr
        {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}, // rc16
    };
    uint8_t mode = I.sub;
    NVFP4_FOR_LANES(mask, {
      uint64_t src64 = (uint64_t(uint32_t(b[l])) << 32) | uint32_t(a[l]);
      uint32_t ctl = uint32_t(c[l]);
      uint32_t r = 0;
      for (unsigned k = 0; k < 4; ++k) {
        uint32_t byte;
        if (mode == 0) {
          uint32_t sel = (ctl >> (4 * k)) & 0xf;
          byte = (src64 >> ((sel & 7) * 8)) & 0xff;
          if (sel & 8)
            byte = (byte & 0x80) ? 0xff : 0;
        } else {
          byte = (src64 >> (kModes[mode][ctl & 3][k] * 8)) & 0xff;
        }
        r |= byte << (8 * k);
      }
      d[l] = canon(I, r);
    });
    return true;
  }
  case XOp::ILop3: {
    uint32_t lut = static_cast<uint32_t>(I.imm);
    uint32_t pv = 0;
    NVFP4_FOR_LANES(mask, {
      uint32_t x = uint32_t(a[l]), y = uint32_t(b[l]), z = uint32_t(c[l]);
      uint32_t r = 0;
      for (unsigned k = 0; k < 8; ++k)
        if ((lut >> k) & 1)
          r |= ((k & 4) ? x : ~x) & ((k & 2) ? y : ~y) & ((k & 1) ? z : ~z);
      if (d)
        d[l] = canon(I, r);
      if (r)
        pv |= 1u << l;
    });
    if (I.dst2 != kNone) {
      uint32_t q = predMask(w, I, 3);
      uint32_t p = I.sub2 == XB_And ? (pv & q) : (pv | q);
      writePred(w, I.dst2, mask, p);
    }
    return true;
  }
  case XOp::IShf: {
    bool right = I.sub & 1, clamp = I.sub & 2;
    NVFP4_FOR_LANES(mask, {
      uint32_t n = uint32_t(c[l]);
      n = clamp ? std::min<uint32_t>(n, 32) : (n & 31);
      uint64_t cat = (uint64_t(uint32_t(b[l])) << 32) | uint32_t(a[l]);
      uint32_t r = right ? uint32_t(cat >> n) : uint32_t((cat << n) >> 32);
      d[l] = canon(I, r);
    });
    return true;
  }
  case XOp::IShl:
    NVFP4_FOR_LANES(mask, {
      uint32_t n = uint32_t(b[l]);
      d[l] = canon(I, n >= bits ? 0 : (a[l] << n));
    });
    return true;
  case XOp::IShr: {
    bool s = ptx::isSigned(I.type);
    uint64_t m = lowMask(bits);
    NVFP4_FOR_LANES(mask, {
      uint32_t n = uint32_t(b[l]);
      uint64_t x = a[l] & m;
      uint64_t r;
      if (s) {
        int64_t v = sext(x, bits);
        r = uint64_t(v >> std::min<uint32_t>(n, 63));
      } else {
        r = n >= bits ? 0 : (x >> n);
      }
      d[l] = canon(I, r);
    });
    return true;
  }
  case XOp::IAnd:
    NVFP4_FOR_LANES(mask, d[l] = canon(I, a[l] & b[l]));
    return true;
  case XOp::IOr:
    NVFP4_FOR_LANES(mask, d[l] = canon(I, a[l] | b[l]));
    return true;
  case XOp::IXor:
    NVFP4_FOR_LANES(mask, d[l] = canon(I, a[l] ^ b[l]));
    return true;
  case XOp::INot:
    NVFP4_FOR_LANES(mask, d[l] = canon(I, ~a[l]));
    return true;
  case XOp::ICnot: {
    uint64_t m = lowMask(bits);
    NVFP4_FOR_LANES(mask, d[l] = canon(I, (a[l] & m) == 0 ? 1 : 0));
    return true;
  }
  case XOp::ISzext: {
    bool s = I.type == Type::S32, clamp = I.sub != 0;
    NVFP4_FOR_LANES(mask, {
      uint32_t x = uint32_t(a[l]), n = uint32_t(b[l]);
      uint32_t b1 = n & 31;
      bool tooLarge = n >= 32 && clamp;
      uint32_t msk = tooLarge ? 0 : (~0u << b1);
      bool sign = !(b1 == 0 || tooLarge || !s) && ((x >> ((b1 - 1) & 31)) & 1);
      uint32_t r = (x & ~msk) | (sign ? msk : 0);
      if (!tooLarge && b1 == 0)
        r = 0;
      d[l] = canon(I, r);
    });
    return true;
  }
  case XOp::IBmsk: {
    bool clamp = I.sub != 0;
    NVFP4_FOR_LANES(mask, {
      uint32_t av = uint32_t(a[l]), bv = uint32_t(b[l]);
      uint32_t a1 = av & 31, b1 = bv & 31;
      uint32_t mask0 = ~0u << a1;
      uint32_t sum = a1 + b1;
      uint32_t mask1 = sum >= 32 ? 0 : (~0u << sum);
      bool overflow = sum >= 32;
      if (clamp) {
        if (av >= 32) {
          overflow = true;
          mask0 = 0;
        }
        if (bv >= 32)
          overflow = true;
      }
      if (overflow)
        mask1 = 0;
      else if (b1 == 0)
        mask1 = ~0u;
      d[l] = canon(I, mask0 & ~mask1);
    });
    return true;
  }
  case XOp::IDp4a:
  case XOp::IDp2a: {
    bool as = ptx::isSigned(I.type), bs = ptx::isSigned(I.type2);
    bool four = I.op == XOp::IDp4a;
    bool hi = I.sub != 0;
    NVFP4_FOR_LANES(mask, {
      uint32_t x = uint32_t(a[l]), y = uint32_t(b[l]);
      int64_t acc = int64_t(int32_t(c[l]));
      if (!as && !bs)
        acc = int64_t(uint32_t(c[l]));
      if (four) {
        for (unsigned k = 0; k < 4; ++k) {
          int64_t xa =
              as ? sext(x >> (8 * k), 8) : int64_t((x >> (8 * k)) & 0xff);
          int64_t yb =
              bs ? sext(y >> (8 * k), 8) : int64_t((y >> (8 * k)) & 0xff);
          acc += xa * yb;
        }
      } else {
        for (unsigned k = 0; k < 2; ++k) {
          int64_t xa =
              as ? sext(x >> (16 * k), 16) : int64_t((x >> (16 * k)) & 0xffff);
          unsigned byte = (hi ? 2 : 0) + k;
          int64_t yb =
              bs ? sext(y >> (8 * byte), 8) : int64_t((y >> (8 * byte)) & 0xff);
          acc += xa * yb;
        }
      }
      d[l] = canon(I, uint64_t(acc));
    });
    return true;
  }
  default:
    return fault(Fault::Kind::Invalid, w, firstLane(mask), I,
                 "internal error: unexpected operation");
  }
}

//===----------------------------------------------------------------------===//
// Compare and select
//===----------------------------------------------------------------------===//

namespace {

/// Compares doubles with PTX's ordered / unordered semantics.
inline bool cmpFloat(uint8_t op, double x, double y) {
  bool un = std::isnan(x) || std::isnan(y);
  switch (op) {
  case XS_Eq:
    return !un && x == y;
  case XS_Ne:
    return !un && x != y;
  case XS_Lt:
    return !un && x < y;
  case XS_Le:
    return !un && x <= y;
  case XS_Gt:
    return !un && x > y;
  case XS_Ge:
    return !un && x >= y;
  case XS_Equ:
    return un || x == y;
  case XS_Neu:
    return un || x != y;
  case XS_Ltu:
    return un || x < y;
  case XS_Leu:
    return un || x <= y;
  case XS_Gtu:
    return un || x > y;
  case XS_Geu:
    return un || x >= y;
  case XS_Num:
    return !un;
  case XS_Nan:
    return un;
  }
  return false;
}

/// A float operand of type t as a double (exact), with f32 ftz.
inline double floatValue(Type t, uint64_t bits, bool ftz) {
  switch (t) {
  case Type::F32: {
    uint32_t b = uint32_t(bits);
    if (ftz)
      b = flushF32(b);
    return f32Of(b);
  }
  case Type::F64:
    return f64Of(bits);
  case Type::F16:
    return fp::toDouble(fp::kF16, bits & 0xffff);
  case Type::BF16:
    return fp::toDouble(fp::kBF16, bits & 0xffff);
  default:
    return 0;
  }
}

} // namespace

bool Executor::execSetp(Warp &w, const XInst &I, uint32_t mask) {
  const uint64_t *a = src(w, I.src[0]);
  const uint64_t *b = src(w, I.src[1]);
  switch (I.op) {
  case XOp::Setp:
  case XOp::Set: {
    uint32_t res = 0;
    Type st = I.type2;
    bool ftz = I.flags & XF_Ftz;
    if (ptx::isFloat(st)) {
      NVFP4_FOR_LANES(mask, {
        if (cmpFloat(I.sub, floatValue(st, a[l], ftz),
                     floatValue(st, b[l], ftz)))
          res |= 1u << l;
      });
    } else {
      NVFP4_INT_DISPATCH(st, {
        switch (I.sub) {
        case XS_Eq:
          NVFP4_FOR_LANES(mask, res |= uint32_t(T(a[l]) == T(b[l])) << l);
          break;
        case XS_Ne:
          NVFP4_FOR_LANES(mask, res |= uint32_t(T(a[l]) != T(b[l])) << l);
          break;
        case XS_Lt:
          NVFP4_FOR_LANES(mask, res |= uint32_t(T(a[l]) < T(b[l])) << l);
          break;
        case XS_Le:
          NVFP4_FOR_LANES(mask, res |= uint32_t(T(a[l]) <= T(b[l])) << l);
          break;
        case XS_Gt:
          NVFP4_FOR_LANES(mask, res |= uint32_t(T(a[l]) > T(b[l])) << l);
          break;
        case XS_Ge:
          NVFP4_FOR_LANES(mask, res |= uint32_t(T(a[l]) >= T(b[l])) << l);
          break;
        default:
          break;
        }
      });
    }
    uint32_t p = res, q = ~res;
    if (I.sub2 != XB_None) {
      uint32_t c = predMask(w, I, 2);
      if (I.sub2 == XB_And) {
        p &= c;
        q &= c;
      } else if (I.sub2 == XB_Or) {
        p |= c;
        q |= c;
      } else {
        p ^= c;
        q ^= c;
      }
    }
    if (I.op == XOp::Setp) {
      writePred(w, I.dst, mask, p);
      writePred(w, I.dst2, mask, q);
    } else {
      uint64_t *d = row(w, I.dst);
      uint64_t one = I.type == Type::F32 ? 0x3f800000u : 0xffffffffu;
      NVFP4_FOR_LANES(mask, d[l] = canon(I, (p >> l) & 1 ? one : 0));
    }
    return true;
  }
  case XOp::Selp: {
    uint64_t *d = row(w, I.dst);
    uint32_t c = predMask(w, I, 2);
    NVFP4_FOR_LANES(mask, d[l] = canon(I, (c >> l) & 1 ? a[l] : b[l]));
    return true;
  }
  case XOp::Slct: {
    uint64_t *d = row(w, I.dst);
    const uint64_t *c = src(w, I.src[2]);
    bool ftz = I.flags & XF_Ftz;
    if (I.type2 == Type::S32) {
      NVFP4_FOR_LANES(mask, d[l] = canon(I, int32_t(c[l]) >= 0 ? a[l] : b[l]));
    } else {
      NVFP4_FOR_LANES(mask, {
        uint32_t cb = uint32_t(c[l]);
        if (ftz)
          cb = flushF32(cb);
        d[l] = canon(I, f32Of(cb) >= 0.0f ? a[l] : b[l]);
      });
    }
    return true;
  }
  default:
    return fault(Fault::Kind::Invalid, w, firstLane(mask), I,
                 "internal error: unexpected compare");
  }
}

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
    case XOp::FRsqrt:
    case XOp::FEx2:
    case XOp::FLg2:
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

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

uint8_t *Executor::resolve(Warp &w, uint32_t lane, XSpace space, uint64_t addr,
                           uint32_t bytes, bool write, const XInst &I,
                           uint32_t align) {
  if (align == 0)
    align = bytes;
  const char *kind = write ? "store" : "load";
  if (I.op == XOp::Atom)
    kind = "atomic";
  auto fail = [&](const std::string &why) -> uint8_t * {
    fault(Fault::Kind::Memory, w, lane, I,
          std::string(why.empty() ? "" : "") + why);
    return nullptr;
  };
  std::string what = std::string(spaceStr(space)) + " " + kind + " of " +
                     std::to_string(bytes) + " bytes at ";
  if (addr % align != 0)
    return fail("misaligned " + what + hex(addr) + " (needs " +
                std::to_string(align) + "-byte alignment)");
  // Generic addresses: find the window.
  if (space == XSpace::Generic) {
    if (addr >= addrspace::kSharedWindow &&
        addr < addrspace::kSharedWindow + addrspace::kWindowSize) {
      space = XSpace::SharedCluster;
      addr -= addrspace::kSharedWindow;
    } else if (addr >= addrspace::kLocalWindow &&
               addr < addrspace::kLocalWindow + addrspace::kWindowSize) {
      space = XSpace::Local;
      addr -= addrspace::kLocalWindow;
    } else if (addr >= addrspace::kParamWindow &&
               addr < addrspace::kParamWindow + addrspace::kWindowSize) {
      space = XSpace::ParamKernel;
      addr -= addrspace::kParamWindow;
    } else if (addr >= addrspace::kConstWindow &&
               addr < addrspace::kConstWindow + addrspace::kWindowSize) {
      space = XSpace::Const;
      addr -= addrspace::kConstWindow;
    } else {
      space = XSpace::Global;
    }
  }
  switch (space) {
  case XSpace::Global: {
    uint8_t *p = mem_.translate(addr, bytes);
    if (!p)
      return fail("out-of-bounds " + what + hex(addr) + " (" +
                  mem_.describe(addr, bytes) + ")");
    if (!write && I.op == XOp::Ld)
      globalLoadAddrs_.push_back(addr);
    return p;
  }
  case XSpace::Shared:
  case XSpace::SharedCluster: {
    // A shared address is (CTA rank << 24) | offset (docs/Emulator.md,
    // "Shared memory addresses"; measured on an H200).
    uint64_t rank = addrspace::sharedRank(addr);
    uint64_t off = addrspace::sharedOffset(addr);
    Cta *cta = w.cta;
    if (space == XSpace::Shared && rank != w.cta->rank)
      return fail("shared::cta " + std::string(kind) + " of " +
                  std::to_string(bytes) + " bytes at " + hex(addr) +
                  ", an address of CTA rank " + std::to_string(rank) +
                  " while the executing CTA has rank " +
                  std::to_string(w.cta->rank) +
                  " (another CTA's shared memory needs a shared::cluster "
                  "access; hardware raises an illegal-instruction error)");
    if (space == XSpace::SharedCluster) {
      if (rank >= ctas_.size())
        return fail("out-of-bounds " + what + hex(addr) +
                    " (shared::cluster address of CTA rank " +
                    std::to_string(rank) + "; the cluster has " +
                    std::to_string(ctas_.size()) + " CTAs)");
      cta = ctas_[rank].get();
      if (cta != w.cta && cta->liveWarps == 0)
        return fail(std::string(kind) + " of " + std::to_string(bytes) +
                    " bytes at " + hex(addr) + " in the shared memory of CTA "
                    "rank " + std::to_string(rank) + ", which has exited "
                    "(its shared memory is gone; a cluster barrier before "
                    "the exit keeps a CTA alive while its peers access it)");
    }
    if (off > cta->shared.size() || bytes > cta->shared.size() - off)
      return fail(
          "out-of-bounds " + what + "shared address " + hex(off) +
          " (the CTA has " + std::to_string(cta->shared.size()) +
          " bytes of shared memory: " + std::to_string(prog_.staticShared) +
          " static, " + std::to_string(cfg_.dynamicSharedBytes) + " dynamic)");
    if (write && tensor_)
      if (const std::string *origin = mmaReadsShared(*cta, off, bytes))
        return fail("race: " + what + "shared address " + hex(off) +
                    " of CTA rank " + std::to_string(cta->rank) +
                    " overwrites an operand of the tcgen05.mma issued in " +
                    *origin +
                    " (not complete; wait on the mbarrier of its "
                    "tcgen05.commit first)");
    if (write && cta->wgmmaPending)
      if (const std::string *origin = wgmmaReadsShared(*cta, off, bytes))
        return fail("race: " + what + "shared address " + hex(off) +
                    " of CTA rank " + std::to_string(cta->rank) +
                    " overwrites an operand of the wgmma.mma_async issued "
                    "in " +
                    *origin + " (not retired; wgmma.wait_group first)");
    if (tma_ && cfg_.checkTmaRaces)
      if (const std::string *origin = tmaInFlight(*cta, off, bytes))
        return fail("race: " + what + "shared address " + hex(off) +
                    " of CTA rank " + std::to_string(cta->rank) +
                    " touches bytes that the TMA load issued in " + *origin +
                    " is still writing (wait on its mbarrier first)");
    return cta->shared.data() + off;
  }
  case XSpace::Local: {
    uint32_t lb = prog_.localBytes;
    if (addr > lb || bytes > lb - addr)
      return fail("out-of-bounds " + what + "local address " + hex(addr) +
                  " (" + std::to_string(lb) +
                  " bytes of local memory per thread)");
    return w.local.data() + size_t(lane) * lb + addr;
  }
  case XSpace::ParamKernel: {
    if (write)
      return fail("store to the read-only kernel parameter space at " +
                  hex(addr));
    size_t n = cfg_.params.size();
    if (addr > n || bytes > n - addr)
      return fail("out-of-bounds " + what + "param offset " + hex(addr) +
                  " (the kernel has " + std::to_string(n) +
                  " bytes of parameters)");
    return const_cast<uint8_t *>(cfg_.params.data()) + addr;
  }
  case XSpace::Const: {
    if (write)
      return fail("store to the read-only constant space at " + hex(addr));
    const std::vector<uint8_t> &cd = *prog_.constData;
    if (addr > cd.size() || bytes > cd.size() - addr)
      return fail("out-of-bounds " + what + "const offset " + hex(addr) +
                  " (the module has " + std::to_string(cd.size()) +
                  " bytes of constants)");
    return const_cast<uint8_t *>(cd.data()) + addr;
  }
  case XSpace::Generic:
    break;
  }
  return fail("bad address space");
}

bool Executor::execMemory(Warp &w, const XInst &I, uint32_t mask) {
  switch (I.op) {
  case XOp::Ld:
  case XOp::St: {
    bool isLoad = I.op == XOp::Ld;
    unsigned eb = ptx::typeBits(I.type) / 8;
    unsigned total = eb * I.vec;
    const uint64_t *base = src(w, I.src[0]);
    const uint32_t *lst =
        I.vec > 1 ? prog_.lists.data() + I.listBegin : nullptr;
    if (isLoad) {
      // Loads complete for every lane before registers change (a
      // destination may be the address register).
      uint64_t vals[8][32];
      globalLoadAddrs_.clear();
      NVFP4_FOR_LANES(mask, {
        uint64_t addr = base[l] + static_cast<uint64_t>(I.imm);
        uint8_t *p = resolve(w, l, I.space, addr, total, false, I);
        if (!p || (san_ && !sanShared(w, l, I, p, total, false, "ld")))
          return false;
        for (unsigned e = 0; e < I.vec; ++e) {
          uint64_t v = 0;
          std::memcpy(&v, p + e * eb, eb);
          vals[e][l] = v;
        }
      });
      // Bytes read from global memory: lanes that read the same address
      // (a broadcast) count once, as one transaction serves them.
      if (!globalLoadAddrs_.empty()) {
        std::sort(globalLoadAddrs_.begin(), globalLoadAddrs_.end());
        size_t distinct =
            std::unique(globalLoadAddrs_.begin(), globalLoadAddrs_.end()) -
            globalLoadAddrs_.begin();
        stats_.globalLoadBytes += distinct * total;
      }
      for (unsigned e = 0; e < I.vec; ++e) {
        uint32_t dstRow = lst ? lst[e] : I.dst;
        if (dstRow == kNone)
          continue;
        uint64_t *d = row(w, dstRow);
        NVFP4_FOR_LANES(mask, d[l] = canon(I, vals[e][l]));
      }
      return true;
    }
    NVFP4_FOR_LANES(mask, {
      uint64_t addr = base[l] + static_cast<uint64_t>(I.imm);
      uint8_t *p = resolve(w, l, I.space, addr, total, true, I);
      if (!p || (san_ && !sanShared(w, l, I, p, total, true, "st")))
        return false;
      for (unsigned e = 0; e < I.vec; ++e) {
        const uint64_t *s = src(w, lst ? lst[e] : I.src[1]);
        uint64_t v = s[l];
        std::memcpy(p + e * eb, &v, eb);
      }
    });
    return true;
  }
  case XOp::Cvta: {
    uint64_t *d = row(w, I.dst);
    const uint64_t *a = src(w, I.src[0]);
    uint64_t window = 0;
    switch (I.space) {
    case XSpace::Shared:
    case XSpace::SharedCluster:
      window = addrspace::kSharedWindow;
      break;
    case XSpace::Local:
      window = addrspace::kLocalWindow;
      break;
    case XSpace::ParamKernel:
      window = addrspace::kParamWindow;
      break;
    case XSpace::Const:
      window = addrspace::kConstWindow;
      break;
    default:
      break;
    }
    bool toSpace = I.sub != 0;
    NVFP4_FOR_LANES(mask, {
      uint64_t v = a[l];
      if (!toSpace) {
        d[l] = canon(I, window + v);
      } else if (window) {
        if (v < window || v >= window + addrspace::kWindowSize)
          return fault(Fault::Kind::Memory, w, l, I,
                       "cvta.to." + std::string(spaceStr(I.space)) +
                           " of generic address " + hex(v) +
                           ", which is not in the " + spaceStr(I.space) +
                           " window");
        d[l] = canon(I, v - window);
      } else {
        bool inWindow = v >= addrspace::kSharedWindow &&
                        v < addrspace::kConstWindow + addrspace::kWindowSize;
        if (inWindow)
          return fault(Fault::Kind::Memory, w, l, I,
                       "cvta.to.global of generic address " + hex(v) +
                           ", which is a shared, local, param or const "
                           "address");
        d[l] = canon(I, v);
      }
    });
    return true;
  }
  case XOp::Mapa: {
    // The rank field of a shared address (docs/Emulator.md, "Shared memory
    // addresses") is replaced by the target rank.
    uint64_t *d = row(w, I.dst);
    const uint64_t *a = src(w, I.src[0]);
    const uint64_t *b = src(w, I.src[1]);
    uint64_t window =
        I.space == XSpace::Generic ? addrspace::kSharedWindow : 0;
    NVFP4_FOR_LANES(mask, {
      uint64_t v = a[l], r = b[l] & 0xffffffffu;
      if (v < window || v - window >= addrspace::kWindowSize)
        return fault(Fault::Kind::Memory, w, l, I,
                     "mapa of generic address " + hex(v) +
                         ", which is not a shared-memory address");
      if (r >= ctas_.size())
        return fault(Fault::Kind::Invalid, w, l, I,
                     "mapa to CTA rank " + std::to_string(r) +
                         ", but the cluster has " +
                         std::to_string(ctas_.size()) + " CTAs");
      d[l] = canon(I, window + addrspace::sharedAddress(
                                   r, addrspace::sharedOffset(v - window)));
    });
    return true;
  }
  case XOp::Isspacep: {
    const uint64_t *a = src(w, I.src[0]);
    uint32_t res = 0;
    NVFP4_FOR_LANES(mask, {
      uint64_t v = a[l];
      bool in;
      switch (I.space) {
      case XSpace::Shared:
      case XSpace::SharedCluster:
        in = v >= addrspace::kSharedWindow &&
             v < addrspace::kSharedWindow + addrspace::kWindowSize;
        break;
      case XSpace::Local:
        in = v >= addrspace::kLocalWindow &&
             v < addrspace::kLocalWindow + addrspace::kWindowSize;
        break;
      case XSpace::ParamKernel:
        in = v >= addrspace::kParamWindow &&
             v < addrspace::kParamWindow + addrspace::kWindowSize;
        break;
      case XSpace::Const:
        in = v >= addrspace::kConstWindow &&
             v < addrspace::kConstWindow + addrspace::kWindowSize;
        break;
      default:
        in = v < addrspace::kGlobalEnd;
        break;
      }
      if (in)
        res |= 1u << l;
    });
    writePred(w, I.dst, mask, res);
    return true;
  }
  default:
    return fault(Fault::Kind::Invalid, w, firstLane(mask), I,
                 "internal error: unexpected memory operation");
  }
}

bool Executor::execAtom(Warp &w, const XInst &I, uint32_t mask) {
  Type t = I.type;
  unsigned bytes = ptx::typeBits(t) / 8;
  const uint64_t *base = src(w, I.src[0]);
  const uint64_t *b = src(w, I.src[1]);
  const uint64_t *c = I.src[2] != kNone ? src(w, I.src[2]) : nullptr;
  uint64_t *d = I.dst != kNone ? row(w, I.dst) : nullptr;
  uint64_t m = lowMask(bytes * 8);
  // Lanes perform their atomics one after another, in lane order.
  uint64_t old[32];
  NVFP4_FOR_LANES(mask, {
    uint64_t addr = base[l] + static_cast<uint64_t>(I.imm);
    uint8_t *p = resolve(w, l, I.space, addr, bytes, true, I);
    if (!p || (san_ && !sanShared(w, l, I, p, bytes, true, "atom")))
      return false;
    bool isGlobal =
        I.space == XSpace::Global ||
        (I.space == XSpace::Generic &&
         !(addr >= addrspace::kSharedWindow &&
           addr < addrspace::kSharedWindow + addrspace::kWindowSize));
    uint64_t cur = 0;
    std::memcpy(&cur, p, bytes);
    uint64_t x = b[l] & m, r = cur;
    switch (I.sub) {
    case XA_Add:
      if (t == Type::F32) {
        uint32_t u = uint32_t(cur), v = uint32_t(x);
        if (isGlobal) {
          u = flushF32(u);
          v = flushF32(v);
        }
        uint32_t s = canonNanF32(f32Bits(f32Of(u) + f32Of(v)));
        r = isGlobal ? flushF32(s) : s;
      } else if (t == Type::F64) {
        r = canonNanF64(f64Bits(f64Of(cur) + f64Of(x)));
      } else if (t == Type::F16 || t == Type::BF16 || t == Type::F16x2 ||
                 t == Type::BF16x2) {
        const fp::Format &f =
            (t == Type::F16 || t == Type::F16x2) ? fp::kF16 : fp::kBF16;
        unsigned halves = bytes / 2;
        r = 0;
        for (unsigned h = 0; h < halves; ++h)
          r |=
              (fp::addFormat(f, (cur >> (16 * h)) & 0xffff,
                             (x >> (16 * h)) & 0xffff, fp::Round::NearestEven) &
               0xffff)
              << (16 * h);
      } else {
        r = cur + x;
      }
      break;
    case XA_Min:
    case XA_Max: {
      bool isMax = I.sub == XA_Max;
      if (ptx::isSigned(t)) {
        int64_t u = sext(cur, bytes * 8), v = sext(x, bytes * 8);
        r = uint64_t(isMax ? std::max(u, v) : std::min(u, v));
      } else {
        r = isMax ? std::max(cur, x) : std::min(cur, x);
      }
      break;
    }
    case XA_Inc:
      r = cur >= x ? 0 : cur + 1;
      break;
    case XA_Dec:
      r = (cur == 0 || cur > x) ? x : cur - 1;
      break;
    case XA_And:
      r = cur & x;
      break;
    case XA_Or:
      r = cur | x;
      break;
    case XA_Xor:
      r = cur ^ x;
      break;
    case XA_Exch:
      r = x;
      break;
    case XA_Cas:
      r = cur == x ? (c[l] & m) : cur;
      break;
    }
    r &= m;
    std::memcpy(p, &r, bytes);
    old[l] = cur;
  });
  if (d)
    NVFP4_FOR_LANES(mask, d[l] = canon(I, old[l]));
  return true;
}

//===----------------------------------------------------------------------===//
// Warp-synchronous operations
//===----------------------------------------------------------------------===//

bool Executor::execWarpOp(Warp &w, const XInst &I, uint32_t mask) {
  uint32_t group = w.active;
  switch (I.op) {
  case XOp::Shfl: {
    const uint64_t *a = src(w, I.src[0]);
    const uint64_t *bv = src(w, I.src[1]);
    const uint64_t *cv = src(w, I.src[2]);
    uint64_t vals[32];
    for (uint32_t l = 0; l < 32; ++l)
      vals[l] = a[l];
    uint64_t *d = I.dst != kNone ? row(w, I.dst) : nullptr;
    uint32_t pv = 0;
    NVFP4_FOR_LANES(mask, {
      uint32_t bb = uint32_t(bv[l]) & 31, c = uint32_t(cv[l]);
      uint32_t cval = c & 31, seg = (c >> 8) & 31;
      uint32_t maxLane = (l & seg) | (cval & ~seg);
      uint32_t minLane = l & seg;
      int32_t j = 0;
      bool ok = false;
      switch (I.sub) {
      case 0: // up
        j = int32_t(l) - int32_t(bb);
        ok = j >= int32_t(maxLane);
        break;
      case 1: // down
        j = int32_t(l + bb);
        ok = uint32_t(j) <= maxLane;
        break;
      case 2: // bfly
        j = int32_t(l ^ bb);
        ok = uint32_t(j) <= maxLane;
        break;
      default: // idx
        j = int32_t(minLane | (bb & ~seg));
        ok = uint32_t(j) <= maxLane;
        break;
      }
      if (!ok)
        j = int32_t(l);
      if (d)
        d[l] = canon(I, vals[j & 31]);
      if (ok)
        pv |= 1u << l;
    });
    writePred(w, I.dst2, mask, pv);
    return true;
  }
  case XOp::Vote: {
    uint32_t mm = uint32_t(src(w, I.src[1])[firstLane(mask)]);
    uint32_t p = predMask(w, I, 0);
    uint32_t part = mask & mm;
    uint32_t ballot = p & part;
    if (I.sub == 3) {
      uint64_t *d = row(w, I.dst);
      NVFP4_FOR_LANES(mask, d[l] = canon(I, ballot));
      return true;
    }
    bool v = I.sub == 0   ? ballot == part
             : I.sub == 1 ? ballot != 0
                          : (ballot == part || ballot == 0);
    writePred(w, I.dst, mask, v ? ~0u : 0u);
    return true;
  }
  case XOp::Elect: {
    // The leader is the lowest executing lane. Executing lanes outside the
    // member mask (undefined in the ISA) take part: the H200 elects lane 0
    // of a full warp for member mask 0xb9d0eaa4 (corpus case warp_full).
    uint32_t cand = mask;
    uint32_t leader = firstLane(cand);
    if (I.dst != kNone) {
      uint64_t *d = row(w, I.dst);
      NVFP4_FOR_LANES(mask, d[l] = canon(I, cand ? leader : 0xffffffffu));
    }
    writePred(w, I.dst2, mask, cand ? (1u << leader) : 0u);
    return true;
  }
  case XOp::BarWarpSync:
    return true;
  case XOp::Match: {
    const uint64_t *a = src(w, I.src[0]);
    uint32_t mm = uint32_t(src(w, I.src[1])[firstLane(mask)]);
    uint32_t part = mask & mm;
    uint64_t m = lowMask(ptx::typeBits(I.type));
    uint64_t *d = row(w, I.dst);
    if (I.sub == 0) {
      NVFP4_FOR_LANES(mask, {
        uint32_t same = 0;
        for (uint32_t k = part; k; k &= k - 1) {
          uint32_t o = firstLane(k);
          if ((a[o] & m) == (a[l] & m))
            same |= 1u << o;
        }
        d[l] = canon(I, same);
      });
      return true;
    }
    bool all = true;
    uint64_t v0 = a[firstLane(part)] & m;
    for (uint32_t k = part; k; k &= k - 1)
      all &= (a[firstLane(k)] & m) == v0;
    NVFP4_FOR_LANES(mask, d[l] = canon(I, all ? part : 0));
    writePred(w, I.dst2, mask, all ? ~0u : 0u);
    return true;
  }
  case XOp::Redux: {
    const uint64_t *a = src(w, I.src[0]);
    uint32_t mm = uint32_t(src(w, I.src[1])[firstLane(mask)]);
    uint32_t part = mask & mm;
    bool s = I.type == Type::S32;
    int64_t acc = 0;
    bool first = true;
    for (uint32_t k = part; k; k &= k - 1) {
      uint32_t o = firstLane(k);
      int64_t v = s ? int64_t(int32_t(a[o])) : int64_t(uint32_t(a[o]));
      if (first) {
        acc = v;
        first = false;
        continue;
      }
      switch (I.sub) {
      case XA_Add:
        acc += v;
        break;
      case XA_Min:
        acc = std::min(acc, v);
        break;
      case XA_Max:
        acc = std::max(acc, v);
        break;
      case XA_And:
        acc &= v;
        break;
      case XA_Or:
        acc |= v;
        break;
      case XA_Xor:
        acc ^= v;
        break;
      }
    }
    uint64_t *d = row(w, I.dst);
    NVFP4_FOR_LANES(mask, d[l] = canon(I, uint64_t(acc)));
    return true;
  }
  default:
    (void)group;
    return fault(Fault::Kind::Invalid, w, firstLane(mask), I,
                 "internal error: unexpected warp operation");
  }
}
