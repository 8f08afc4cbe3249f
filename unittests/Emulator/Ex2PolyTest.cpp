//===- Ex2PolyTest.cpp - the attention kernel's 2^x on the FMA pipe -------===//
//
// Runs the PTX of nvfp4/Support/Ex2Poly.h (the text the sm_90a attention
// kernel emits for AttentionSchedule::polyExp2 of P's exponentials) on the
// emulator: 2^14 points of (-1, 0] and shifts of it by integers
// against 2^x in double within kEx2PolyMaxRelError; exact powers of two at
// integers; +0 at and below -127 and for -inf (a masked logit). These
// instructions (max, add.rm, sub, fma, shl, add) are exact IEEE / integer
// arithmetic, so the GPU computes the same bits (docs/Hopper.md,
// "Exponentials on the FMA pipe").
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Support/Ex2Poly.h"
#include "TestUtil.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;

namespace {

/// The kernel's PTX with $1 = %f10 (input a) and $0 = %f20, result in %r20.
std::string body() {
  std::string ptx = nvfp4::kEx2PolyPtx;
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"$1", "%f10"}, {"$0", "%f20"}}) {
    size_t at = ptx.find(from);
    EXPECT_NE(at, std::string::npos);
    ptx.replace(at, from.size(), to);
  }
  return ptx + "\n  mov.b32 %r20, %f20;" + kStore32;
}

std::vector<float> run(const std::vector<float> &xs) {
  std::vector<Lane> in;
  for (float x : xs)
    in.push_back(Lane{f32(x)});
  std::string err;
  std::vector<uint64_t> r = runBody(body(), in, &err, "sm_90a");
  EXPECT_EQ(err, "");
  std::vector<float> out;
  for (uint64_t v : r) {
    uint32_t u = uint32_t(v);
    float f;
    std::memcpy(&f, &u, 4);
    out.push_back(f);
  }
  return out;
}

TEST(Ex2Poly, RelativeErrorOverBinades) {
  // x = -k 2^-14: 16,384 points of (-1, 0], shifted by -s for s = 0, 1,
  // 20, 125 (x + s keeps the same fraction); 1,024 threads a launch.
  double worst = 0;
  for (int shift : {0, 1, 20, 125}) {
    for (int part = 0; part < 16; ++part) {
      std::vector<float> xs;
      for (int k = 0; k < 1024; ++k) {
        float frac = std::ldexp(float(part * 1024 + k), -14);
        xs.push_back(-float(shift) - frac);
      }
      std::vector<float> r = run(xs);
      ASSERT_EQ(r.size(), xs.size());
      for (size_t i = 0; i < xs.size(); ++i) {
        double want = std::exp2(double(xs[i]));
        double rel = std::fabs(double(r[i]) / want - 1);
        worst = std::max(worst, rel);
        ASSERT_LE(rel, nvfp4::kEx2PolyMaxRelError)
            << "x = " << xs[i] << ": " << r[i] << " against " << want;
      }
    }
  }
  // The bound is tight: the fit's own worst case is within 1% of it.
  EXPECT_GT(worst, 0.9 * nvfp4::kEx2PolyMaxRelError);
}

TEST(Ex2Poly, IntegersArePowersOfTwo) {
  std::vector<float> xs;
  for (int k = 0; k <= 126; ++k)
    xs.push_back(-float(k));
  std::vector<float> r = run(xs);
  ASSERT_EQ(r.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    EXPECT_EQ(r[i], std::ldexp(1.0f, -int(i))) << "x = " << xs[i];
}

TEST(Ex2Poly, MaskedAndTinyGiveZero) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> r = run({-inf, -127.0f, -128.5f, -1000.0f, -1e30f});
  for (float v : r) {
    EXPECT_EQ(v, 0.0f);
    EXPECT_FALSE(std::signbit(v));
  }
  // Between -127 and -126 the result is below 2^-126 and not negative
  // (the SFU's ftz form flushes these to 0; either is nothing beside the
  // row maximum's 1).
  std::vector<float> mid = run({-126.25f, -126.5f, -126.99f});
  for (float v : mid) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, std::ldexp(1.0f, -126));
  }
}

TEST(Ex2Poly, SlightlyPositiveInputs) {
  // fma(s, scale, -m) can exceed 0 by rounding: the result stays ~1.
  std::vector<float> r = run({0.0f, 1e-7f, 1e-5f});
  EXPECT_EQ(r[0], 1.0f);
  for (float v : r)
    EXPECT_NEAR(v, 1.0f, 2e-4);
}

} // namespace
