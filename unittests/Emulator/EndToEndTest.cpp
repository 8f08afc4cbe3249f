//===- EndToEndTest.cpp - nvcc and nvfp4 PTX on the emulator --------------===//
//
// test/Emulator/Inputs/vecadd_reduce.ptx is nvcc 13's sm_90a output for
// vecadd_reduce.cu (the command is at the top of the .cu). Its kernels run
// on random inputs (fixed seed, never zero) and are compared with CPU
// references that follow the same operation order, so the results must be
// bit-identical. The PTX our compiler emits for the GEMM examples must load;
// running it stops at the first instruction a later increment implements.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nvfp4/Support/TensorMap.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;
namespace rt = nvfp4::rt;

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

TEST(CompilerPTXTest, GemmLoadsAndStopsAtTheFirstAsyncInstruction) {
  struct Case {
    const char *file;
    const char *kernel;
    uint32_t clusterX;
  };
  for (const Case &c : {Case{"gemm_m128_n256_sm100a.ptx", "gemm_m128_n256", 1},
                        Case{"gemm_2cta_sm100a.ptx", "gemm_2cta_m256_n256", 2},
                        Case{"gemm_m64_sm100a.ptx", "gemm_m64_n256", 1}}) {
    SCOPED_TRACE(c.file);
    std::string text = readInput(c.file);
    Machine m;
    auto mod = m.loadPTX(text, c.file);
    ASSERT_TRUE(static_cast<bool>(mod)) << mod.message();
    auto k = (*mod)->kernel(c.kernel);
    ASSERT_TRUE(static_cast<bool>(k)) << k.message();
    // Everything the executor does not run yet is a later increment's
    // instruction; all of it is listed before running.
    ASSERT_FALSE((*k)->unsupported().empty());
    for (const std::string &u : (*k)->unsupported()) {
      // mbarrier.* is implemented: nothing of it may be listed.
      bool later =
          u.find("not implemented yet: tcgen05.") != std::string::npos ||
          u.find("not implemented yet: cp.async.bulk.") != std::string::npos;
      EXPECT_TRUE(later) << u;
    }
    // The line of the first mbarrier.init in the text: the mbarriers are
    // initialized (they run now), and the launch stops later, at the first
    // tcgen05 or bulk-copy instruction.
    size_t at = text.find("mbarrier.init");
    ASSERT_NE(at, std::string::npos);
    uint32_t line = 1 + static_cast<uint32_t>(
                            std::count(text.begin(), text.begin() + at, '\n'));
    ParamBuilder p(**k);
    for (const ParamInfo &pi : (*k)->params()) {
      uint64_t buf = *m.allocate(1 << 20);
      uint64_t v = pi.size == 8 ? buf : 4;
      // Each pointer may be a tensor map (prefetch.tensormap validates it):
      // a portable map of a bf16 256 x 256 matrix stored after it.
      rt::TensorMapDesc d;
      d.dataType = rt::TmaDataType::BF16;
      d.rank = 2;
      d.globalAddress = buf + 4096;
      d.globalDims = {256, 256, 1, 1, 1};
      d.globalStrides = {512, 0, 0, 0};
      d.boxDims = {64, 64, 0, 0, 0};
      d.swizzle = rt::TmaSwizzle::B128;
      rt::TensorMapBlob blob = rt::encodePortable(d);
      ASSERT_FALSE(static_cast<bool>(m.write(buf, blob.bytes.data(), 128)));
      ASSERT_FALSE(static_cast<bool>(p.add(&v, pi.size)));
    }
    LaunchConfig cfg;
    cfg.grid = Dim3(c.clusterX);
    cfg.cluster = Dim3(c.clusterX);
    cfg.block = Dim3(256);
    cfg.dynamicSharedBytes = 4 * 49152 + 1024;
    cfg.params = *p.take();
    // The dummy parameters do not make a consistent GEMM (its TMA boxes
    // overlap its barriers); without the race check it runs past the
    // tensor-memory setup (tcgen05.alloc, implemented).
    cfg.checkTmaRaces = false;
    Error e = m.launch(**k, cfg);
    ASSERT_TRUE(static_cast<bool>(e));
    // tcgen05.alloc / fence / relinquish run now, so the launch gets past
    // the tensor-memory setup. It then stops either at an instruction of a
    // later increment (tcgen05.mma, ...) or, for the warp whose elected
    // lane waits in the MMA loop while its other lanes reach bar.sync, with
    // the divergence error (TODO: the emulator needs to let those lanes
    // wait at the aligned barrier for the straggler instead).
    EXPECT_EQ(e.message().find("not implemented yet: mbarrier"),
              std::string::npos)
        << e.message();
    EXPECT_EQ(e.message().find("not implemented yet: tcgen05.alloc"),
              std::string::npos)
        << e.message();
    EXPECT_TRUE(m.lastFault().kind == Fault::Kind::NotImplemented ||
                m.lastFault().kind == Fault::Kind::Divergence)
        << e.message();
    size_t allocAt = text.find("tcgen05.alloc");
    ASSERT_NE(allocAt, std::string::npos);
    line = 1 + static_cast<uint32_t>(std::count(
                   text.begin(), text.begin() + allocAt, '\n'));
    EXPECT_GT(m.lastFault().line, line) << e.message();
  }
}

} // namespace
