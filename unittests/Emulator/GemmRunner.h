//===- GemmRunner.h - The GEMM examples on the emulator ---------*- C++ -*-===//
//
// Shared by EndToEndTest.cpp (CompilerPTXTest) and GemmBench.cpp: the three
// GEMM examples, compiled to PTX by our pipeline at build time, run with
// K = 64 * kTiles on random bf16 inputs (never zero) into a poisoned D, and
// a float64 reference.
//
// runGemm() does everything in one call. The bench uses the pieces, so that
// it can prepare the host inputs before measuring memory and time only
// Machine::launch:
//
//   GemmInputs in = makeGemmInputs(c, kTiles, seed);   // host vectors
//   Machine m;
//   GemmLaunch l;
//   std::string err = prepareGemm(m, c, text, in, l);   // load, allocate, write
//   Error e = m.launch(*l.kernel, l.cfg);
//   std::vector<float> d = readGemmD(m, c, l);
//   double e = relL2(d, gemmReference(c, in));
//
// Header-only and free of gtest so that the bench links only NVFP4Emulator.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_UNITTESTS_EMULATOR_GEMMRUNNER_H
#define NVFP4_UNITTESTS_EMULATOR_GEMMRUNNER_H

#include "nvfp4/Emulator/Machine.h"
#include "nvfp4/Support/TensorMap.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace nvfp4::emu::test {

/// One GEMM example and the launch it needs.
struct GemmCase {
  const char *file;
  const char *kernel;
  uint32_t m, n;       ///< whole problem
  uint32_t clusterX;   ///< CTAs (cluster of this size)
  uint32_t boxA, boxB; ///< rows per TMA box of A and B
  uint32_t smem;       ///< dynamic shared memory
};

/// examples/gemm.mlir, gemm_m64.mlir, gemm_2cta.mlir (PTX generated into
/// build/unittests/Emulator/Inputs by unittests/Emulator/CMakeLists.txt).
inline const GemmCase kGemms[] = {
    {"gemm_m128_n256_sm100a.ptx", "gemm_m128_n256", 128, 256, 1, 128, 256,
     4 * 49152 + 1024},
    {"gemm_m64_sm100a.ptx", "gemm_m64_n256", 64, 256, 1, 64, 256, 164864},
    {"gemm_2cta_sm100a.ptx", "gemm_2cta_m256_n256", 256, 256, 2, 128, 128,
     132096},
};

inline uint16_t bf16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
inline double bf16Value(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Host inputs: A (m x K) and B (n x K), K-major bf16, and the poison D is
/// filled with before each launch.
struct GemmInputs {
  uint32_t kTiles = 0, K = 0;
  std::vector<uint16_t> A, B;
  std::vector<uint32_t> poison;
};

inline GemmInputs makeGemmInputs(const GemmCase &c, uint32_t kTiles,
                                 uint32_t seed) {
  GemmInputs in;
  in.kTiles = kTiles;
  in.K = 64 * kTiles;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto fill = [&](std::vector<uint16_t> &v) {
    for (auto &x : v) {
      do
        x = bf16Bits(dist(rng));
      while ((x & 0x7fff) == 0); // never zero
    }
  };
  in.A.resize(size_t(c.m) * in.K);
  in.B.resize(size_t(c.n) * in.K);
  fill(in.A);
  fill(in.B);
  in.poison.assign(size_t(c.m) * c.n, 0x7fc0deadu);
  return in;
}

/// A GEMM ready to launch on a Machine.
struct GemmLaunch {
  std::shared_ptr<LoadedModule> module;
  const Kernel *kernel = nullptr;
  LaunchConfig cfg;
  uint64_t dA = 0, dB = 0, dD = 0;
};

/// Fills D with the poison again (before a repeated launch).
inline void poisonGemmD(Machine &m, const GemmInputs &in,
                        const GemmLaunch &l) {
  (void)m.write(l.dD, in.poison.data(), in.poison.size() * 4);
}

/// Loads `text`, allocates and writes A, B, D (poisoned) and the two tensor
/// maps, and builds the launch. Returns an error message or "".
inline std::string prepareGemm(Machine &m, const GemmCase &c,
                               const std::string &text, const GemmInputs &in,
                               GemmLaunch &l) {
  namespace rt = nvfp4::rt;
  auto mod = m.loadPTX(text, c.file);
  if (!mod)
    return mod.message();
  l.module = *mod;
  auto k = l.module->kernel(c.kernel);
  if (!k)
    return k.message();
  l.kernel = *k;
  const uint32_t K = in.K;
  l.dA = *m.allocate(in.A.size() * 2);
  l.dB = *m.allocate(in.B.size() * 2);
  l.dD = *m.allocate(size_t(c.m) * c.n * 4);
  (void)m.write(l.dA, in.A.data(), in.A.size() * 2);
  (void)m.write(l.dB, in.B.data(), in.B.size() * 2);
  poisonGemmD(m, in, l);
  auto tmap = [&](uint64_t base, uint32_t rows, uint32_t box) {
    rt::TensorMapDesc d;
    d.dataType = rt::TmaDataType::BF16;
    d.rank = 2;
    d.globalAddress = base;
    d.globalDims = {K, rows, 1, 1, 1};
    d.globalStrides = {uint64_t(K) * 2, 0, 0, 0};
    d.boxDims = {64, box, 0, 0, 0};
    d.swizzle = rt::TmaSwizzle::B128;
    rt::TensorMapBlob blob = rt::encodePortable(d);
    uint64_t p = *m.allocate(128);
    (void)m.write(p, blob.bytes.data(), 128);
    return p;
  };
  ParamBuilder p(*l.kernel);
  (void)p.addU64(tmap(l.dA, c.m, c.boxA));
  (void)p.addU64(tmap(l.dB, c.n, c.boxB));
  (void)p.addU64(l.dD);
  (void)p.addU64(in.kTiles);
  l.cfg = LaunchConfig();
  l.cfg.grid = Dim3(c.clusterX);
  l.cfg.cluster = Dim3(c.clusterX);
  l.cfg.block = Dim3(256);
  l.cfg.dynamicSharedBytes = c.smem;
  l.cfg.params = *p.take();
  return "";
}

/// D after a launch.
inline std::vector<float> readGemmD(const Machine &m, const GemmCase &c,
                                    const GemmLaunch &l) {
  std::vector<float> d(size_t(c.m) * c.n);
  (void)m.read(l.dD, d.data(), d.size() * 4);
  return d;
}

/// D = A * B^T in float64.
inline std::vector<double> gemmReference(const GemmCase &c,
                                         const GemmInputs &in) {
  const uint32_t K = in.K;
  std::vector<double> ref(size_t(c.m) * c.n, 0.0);
  std::vector<double> a(K), b(size_t(c.n) * K);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = bf16Value(in.B[i]);
  for (uint32_t i = 0; i < c.m; ++i) {
    for (uint32_t kk = 0; kk < K; ++kk)
      a[kk] = bf16Value(in.A[size_t(i) * K + kk]);
    for (uint32_t j = 0; j < c.n; ++j) {
      double s = 0;
      const double *bj = b.data() + size_t(j) * K;
      for (uint32_t kk = 0; kk < K; ++kk)
        s += a[kk] * bj[kk];
      ref[size_t(i) * c.n + j] = s;
    }
  }
  return ref;
}

/// Relative L2 error of `d` against `ref`.
inline double relL2(const std::vector<float> &d,
                    const std::vector<double> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    double e = double(d[i]) - ref[i];
    num += e * e;
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / den);
}

/// One whole run: the error message ("" on success), D, the reference and
/// the launch counters.
struct GemmRun {
  std::string error;
  std::vector<float> d;
  std::vector<double> ref;
  LaunchStats stats;
};

inline GemmRun runGemm(const GemmCase &c, const std::string &text,
                       uint32_t kTiles, uint32_t seed) {
  GemmRun r;
  GemmInputs in = makeGemmInputs(c, kTiles, seed);
  Machine m;
  GemmLaunch l;
  if (std::string err = prepareGemm(m, c, text, in, l); !err.empty())
    return {err};
  if (Error e = m.launch(*l.kernel, l.cfg))
    return {e.message()};
  r.stats = m.lastStats();
  r.d = readGemmD(m, c, l);
  r.ref = gemmReference(c, in);
  return r;
}

inline double relL2(const GemmRun &r) { return relL2(r.d, r.ref); }

} // namespace nvfp4::emu::test

#endif // NVFP4_UNITTESTS_EMULATOR_GEMMRUNNER_H
