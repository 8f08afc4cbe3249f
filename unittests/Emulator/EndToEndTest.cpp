//===- EndToEndTest.cpp - nvcc and nvfp4 PTX on the emulator --------------===//
//
// test/Emulator/Inputs/vecadd_reduce.ptx is nvcc 13's sm_90a output for
// vecadd_reduce.cu (the command is at the top of the .cu). Its kernels run
// on random inputs (fixed seed, never zero) and are compared with CPU
// references that follow the same operation order, so the results must be
// bit-identical. The PTX our compiler emits for the three GEMM examples runs
// and matches a float64 reference.
//
//===----------------------------------------------------------------------===//

#include "GemmRunner.h"
#include "TestUtil.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;

namespace {

class VecAddReduce : public ::testing::Test {
protected:
  void SetUp() override {
    auto mod = m.loadPTX(readInput("vecadd_reduce.ptx"), "vecadd_reduce.ptx");
    ASSERT_TRUE(static_cast<bool>(mod)) << mod.message();
    module = *mod;
    for (const auto &k : module->kernels())
      EXPECT_TRUE(k->unsupported().empty()) << k->name();
  }

  /// Random floats in [-2, -0.25] U [0.25, 2] (never zero).
  std::vector<float> randomFloats(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> mag(0.25f, 2.0f);
    std::vector<float> v(n);
    for (float &x : v)
      x = (rng() & 1) ? mag(rng) : -mag(rng);
    return v;
  }

  uint64_t upload(const std::vector<float> &v) {
    uint64_t a = *m.allocate(v.size() * 4);
    EXPECT_FALSE(static_cast<bool>(m.write(a, v.data(), v.size() * 4)));
    return a;
  }

  Machine m;
  std::shared_ptr<LoadedModule> module;
};

TEST_F(VecAddReduce, VecAddGridStride) {
  const uint32_t n = 5000; // not a multiple of the block or the grid
  std::vector<float> a = randomFloats(n, 1), b = randomFloats(n, 2);
  uint64_t da = upload(a), db = upload(b), dc = *m.allocate(n * 4);
  // Poison the output.
  std::vector<float> poison(n, std::nanf(""));
  ASSERT_FALSE(static_cast<bool>(m.write(dc, poison.data(), n * 4)));
  const Kernel *k = *module->kernel("vecAdd");
  ParamBuilder p(*k);
  ASSERT_FALSE(static_cast<bool>(p.addU64(da)));
  ASSERT_FALSE(static_cast<bool>(p.addU64(db)));
  ASSERT_FALSE(static_cast<bool>(p.addU64(dc)));
  ASSERT_FALSE(static_cast<bool>(p.addU32(n)));
  LaunchConfig cfg;
  cfg.grid = Dim3(7);
  cfg.block = Dim3(96);
  cfg.params = *p.take();
  Error e = m.launch(*k, cfg);
  ASSERT_FALSE(static_cast<bool>(e)) << e.message();
  std::vector<float> c(n);
  ASSERT_FALSE(static_cast<bool>(m.read(dc, c.data(), n * 4)));
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << i;
  EXPECT_GT(m.lastStats().threadInstructions, uint64_t(n) * 10);
}

TEST_F(VecAddReduce, DotReduceWithShufflesAndAtomics) {
  const uint32_t n = 3000, block = 256;
  const uint32_t grid = (n + block - 1) / block;
  std::vector<float> a = randomFloats(n, 3), b = randomFloats(n, 4);
  uint64_t da = upload(a), db = upload(b), dout = *m.allocate(4);
  float zero = 0;
  ASSERT_FALSE(static_cast<bool>(m.write(dout, &zero, 4)));
  const Kernel *k = *module->kernel("dotReduce");
  ParamBuilder p(*k);
  ASSERT_FALSE(static_cast<bool>(p.addU64(da)));
  ASSERT_FALSE(static_cast<bool>(p.addU64(db)));
  ASSERT_FALSE(static_cast<bool>(p.addU64(dout)));
  ASSERT_FALSE(static_cast<bool>(p.addU32(n)));
  LaunchConfig cfg;
  cfg.grid = Dim3(grid);
  cfg.block = Dim3(block);
  cfg.params = *p.take();
  Error e = m.launch(*k, cfg);
  ASSERT_FALSE(static_cast<bool>(e)) << e.message();
  float got;
  ASSERT_FALSE(static_cast<bool>(m.read(dout, &got, 4)));

  // The same float operations in the same order: per warp a shfl.down tree
  // (lane l adds lane l + offset while l + offset <= 31, else itself), warp
  // sums in shared memory, a shfl.bfly tree in warp 0, then one atomicAdd
  // per block in block order (the emulator runs CTAs in order).
  float total = 0;
  double exact = 0;
  for (uint32_t blk = 0; blk < grid; ++blk) {
    float partial[32];
    uint32_t warps = block / 32;
    for (uint32_t w = 0; w < warps; ++w) {
      float v[32];
      for (uint32_t l = 0; l < 32; ++l) {
        uint32_t i = blk * block + w * 32 + l;
        v[l] = i < n ? a[i] * b[i] : 0.0f;
        if (i < n)
          exact += double(a[i]) * double(b[i]);
      }
      for (uint32_t off = 16; off > 0; off /= 2) {
        float nv[32];
        for (uint32_t l = 0; l < 32; ++l)
          nv[l] = v[l] + (l + off <= 31 ? v[l + off] : v[l]);
        std::copy(nv, nv + 32, v);
      }
      partial[w] = v[0];
    }
    float v[32];
    for (uint32_t l = 0; l < 32; ++l)
      v[l] = l < warps ? partial[l] : 0.0f;
    for (uint32_t off = 16; off > 0; off /= 2) {
      float nv[32];
      for (uint32_t l = 0; l < 32; ++l)
        nv[l] = v[l] + v[l ^ off];
      std::copy(nv, nv + 32, v);
    }
    total += v[0];
  }
  EXPECT_EQ(got, total);
  EXPECT_NEAR(got, exact, 1e-3 * std::fabs(exact) + 1e-3);
}

TEST_F(VecAddReduce, ScaleToBf16) {
  const uint32_t n = 777;
  std::vector<float> a = randomFloats(n, 5);
  const float s = 1.7182818f;
  uint64_t da = upload(a), dp = *m.allocate(n * 2), db = *m.allocate(n * 4);
  const Kernel *k = *module->kernel("scaleBf16");
  ParamBuilder p(*k);
  ASSERT_FALSE(static_cast<bool>(p.addU64(da)));
  ASSERT_FALSE(static_cast<bool>(p.addF32(s)));
  ASSERT_FALSE(static_cast<bool>(p.addU64(dp)));
  ASSERT_FALSE(static_cast<bool>(p.addU64(db)));
  ASSERT_FALSE(static_cast<bool>(p.addU32(n)));
  LaunchConfig cfg;
  cfg.grid = Dim3((n + 127) / 128);
  cfg.block = Dim3(128);
  cfg.params = *p.take();
  Error e = m.launch(*k, cfg);
  ASSERT_FALSE(static_cast<bool>(e)) << e.message();
  std::vector<uint16_t> packed(n);
  std::vector<float> back(n);
  ASSERT_FALSE(static_cast<bool>(m.read(dp, packed.data(), n * 2)));
  ASSERT_FALSE(static_cast<bool>(m.read(db, back.data(), n * 4)));
  for (uint32_t i = 0; i < n; ++i) {
    float x = a[i] * s;
    uint32_t u;
    std::memcpy(&u, &x, 4);
    // Round to nearest even on the upper 16 bits (x is finite).
    uint16_t want = static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
    ASSERT_EQ(packed[i], want) << i;
    uint32_t wb = uint32_t(want) << 16;
    float wf;
    std::memcpy(&wf, &wb, 4);
    ASSERT_EQ(back[i], wf) << i;
  }
}

TEST(ScalarMixTest, ResultsDoNotDependOnScheduling) {
  // test/Emulator/Inputs/scalar_mix.ptx mixes divergence, collectives,
  // barriers, shared atomics and conversions. Whatever order the warps run
  // in (quantum 1 switches warps after every instruction), the results must
  // be the same.
  std::string text = readInput("scalar_mix.ptx");
  std::vector<std::vector<uint32_t>> results;
  for (uint32_t quantum : {1u, 7u, 64u, 100000u}) {
    Machine m;
    auto mod = m.loadPTX(text, "scalar_mix.ptx");
    ASSERT_TRUE(static_cast<bool>(mod)) << mod.message();
    const Kernel *k = *(*mod)->kernel("scalar_mix");
    EXPECT_TRUE(k->unsupported().empty());
    const uint32_t n = 128;
    uint64_t out = *m.allocate(n * 4);
    ParamBuilder p(*k);
    ASSERT_FALSE(static_cast<bool>(p.addU64(out)));
    ASSERT_FALSE(static_cast<bool>(p.addU32(n)));
    LaunchConfig cfg;
    cfg.block = Dim3(n);
    cfg.quantum = quantum;
    cfg.params = *p.take();
    Error e = m.launch(*k, cfg);
    ASSERT_FALSE(static_cast<bool>(e)) << e.message();
    std::vector<uint32_t> r(n);
    ASSERT_FALSE(static_cast<bool>(m.read(out, r.data(), n * 4)));
    results.push_back(r);
    EXPECT_EQ(m.lastStats().barriers, 2u);
  }
  for (size_t i = 1; i < results.size(); ++i)
    EXPECT_EQ(results[i], results[0]) << i;
}

// The three GEMM examples (GemmRunner.h: kGemms, runGemm, relL2), compiled
// by our pipeline at build time, with K = 64 * kTiles on random bf16
// inputs; D is poisoned first and compared with a float64 reference.
TEST(CompilerPTXTest, GemmsMatchFloat64) {
  for (const GemmCase &c : kGemms) {
    SCOPED_TRACE(c.file);
    std::string text = readInput(c.file);
    GemmRun r = runGemm(c, text, /*kTiles=*/8, /*seed=*/1234);
    ASSERT_EQ(r.error, "");
    size_t nans = 0;
    for (float v : r.d)
      nans += std::isnan(v) ? 1 : 0;
    EXPECT_EQ(nans, 0u);
    EXPECT_LE(relL2(r), 1e-6);
    // 4 UMMAs of K = 16 per 64-wide K tile.
    EXPECT_EQ(r.stats.mmas, 8u * 4u);
  }
}

TEST(CompilerPTXTest, GemmWithoutTheDoneWaitIsCaught) {
  // Remove the epilogue's wait on `done` (the mbarrier the last commit
  // arrives on): the epilogue then reads the accumulator while MMAs are
  // still pending.
  const GemmCase &c = kGemms[0];
  std::string text = readInput(c.file);
  size_t at = text.find("tcgen05.ld.sync.aligned");
  ASSERT_NE(at, std::string::npos);
  // The wait loop is the last mbarrier.try_wait before the first ld.
  size_t wait = text.rfind("mbarrier.try_wait", at);
  ASSERT_NE(wait, std::string::npos);
  size_t bol = text.rfind('\n', wait) + 1, eol = text.find('\n', wait);
  std::string line = text.substr(bol, eol - bol);
  // "mbarrier.try_wait.parity.shared.b64 P1, [..], ..;" ->
  // "setp.eq.u32 P1, 1, 1;" (the wait always succeeds at once).
  size_t ps = line.find("b64") + 3;
  size_t pe = line.find(',', ps);
  std::string pred = line.substr(ps, pe - ps);
  pred.erase(0, pred.find_first_not_of(" \t"));
  text.replace(bol, eol - bol, "\tsetp.eq.u32 " + pred + ", 1, 1;");
  GemmRun r = runGemm(c, text, 8, 99);
  // Either the epilogue reads while MMAs are pending (a race error) or
  // before any was issued (the poison NaN reaches D).
  size_t nans = 0;
  for (float v : r.d)
    nans += std::isnan(v) ? 1 : 0;
  // (The sanitizer names it as an MMA and a tcgen05.ld not ordered by any
  // synchronization, at the ld.)
  EXPECT_TRUE(r.error.find("race: tcgen05.ld of TMEM columns") !=
                  std::string::npos ||
              (r.error.find("race: tcgen05.") != std::string::npos &&
               r.error.find("are not ordered by any synchronization") !=
                   std::string::npos) ||
              (r.error.empty() && nans > 0))
      << r.error << " (" << nans << " NaN)";
}

} // namespace
