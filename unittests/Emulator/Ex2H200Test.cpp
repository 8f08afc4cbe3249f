//===- Ex2H200Test.cpp - ex2.approx as the H200 computes it ---------------===//
//
// The emulator's model of the H200's ex2.approx.ftz.f32 (lib/Emulator/Sfu.h:
// two measured tables over the fraction of |x|, exact scaling by 2^i)
// against what the H200 printed in scripts/device/ex2_lg2_probe.sh's run of
// 2026-12-04 (docs/Hopper.md, "Increment 3 started"). The grid counts check
// that the tables were packed and are read entry for entry; the shifted and
// the random inputs are separate measurements of the GPU that the tables
// alone do not contain, so they test the model (the exact 2^i scaling of
// |x|'s integer part, the truncation of finer fractions).
//
//===----------------------------------------------------------------------===//

#include "SfuProbeCounts.h"
#include "TestUtil.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;

namespace {

uint32_t model(float x) { return ex2ApproxFtzH200(bitsOf(x)); }
uint32_t nearest(float x) { return bitsOf(float(std::exp2(double(x)))); }

/// x = i + m 2^-23 over the grid, the exactly representable ones.
Counts shifted(int i) {
  Counts c;
  for (int m = 0; m < (1 << 23); ++m) {
    float g = std::ldexp(float(m), -23);
    float x = float(i) + g;
    if (double(x) != double(i) + double(g))
      continue;
    c.add(ulps(model(x), nearest(x)));
  }
  return c;
}

} // namespace

TEST(Ex2H200, GridTablesAsMeasured) {
  Counts pos, neg;
  for (int m = 0; m < (1 << 23); ++m) {
    float g = std::ldexp(float(m), -23);
    pos.add(ulps(model(g), nearest(g)));
    if (m > 0)
      neg.add(ulps(model(-g), nearest(-g)));
  }
  EXPECT_EQ(pos, (Counts{5125875, 3259640, 3093, 0}));
  EXPECT_EQ(neg, (Counts{3342934, 75, 4959061, 86537}));
}

TEST(Ex2H200, ShiftedInputsAsMeasured) {
  // The probe's "ex2, x = i + f vs RN" lines.
  EXPECT_EQ(shifted(-120), (Counts{48874, 0, 80319, 1879}));
  EXPECT_EQ(shifted(-20), (Counts{199691, 4, 317894, 6699}));
  EXPECT_EQ(shifted(7), (Counts{1264598, 831972, 582, 0}));
  EXPECT_EQ(shifted(20), (Counts{311007, 213188, 93, 0}));
  EXPECT_EQ(shifted(100), (Counts{76016, 55039, 17, 0}));
}

TEST(Ex2H200, FinerInputsAsMeasured) {
  // The probe's "random x in [0, 1) (finer than 2^-23)": the same
  // generator and draws.
  std::mt19937_64 rng(5);
  Counts c;
  for (int m = 0; m < (1 << 23); ++m) {
    float v;
    do {
      v = std::ldexp(float(rng() >> 40), -24);
    } while (v >= 1.0f);
    v = v * std::ldexp(1.0f, -int(rng() % 8));
    c.add(ulps(model(v), nearest(v)));
  }
  EXPECT_EQ(c, (Counts{6417028, 1337186, 634394, 0}));
}

TEST(Ex2H200, EdgesAsMeasured) {
  // The probe's edge lines (bits the H200 returned).
  EXPECT_EQ(model(-0.0f), 0x3f800000u);
  EXPECT_EQ(model(-125.5f), 0x00b504f2u);
  EXPECT_EQ(model(-126.0f), 0x00800000u);
  for (float x : {-126.5f, -127.0f, -127.5f, -149.0f, -150.0f, -1000.0f})
    EXPECT_EQ(model(x), 0u) << x;
  EXPECT_EQ(model(127.0f), 0x7f000000u);
  EXPECT_EQ(model(127.5f), 0x7f3504f3u);
  EXPECT_EQ(model(127.99999f), 0x7f7fffa8u);
  EXPECT_EQ(model(128.0f), 0x7f800000u);
  EXPECT_EQ(model(200.0f), 0x7f800000u);
  EXPECT_EQ(model(INFINITY), 0x7f800000u);
  EXPECT_EQ(model(-INFINITY), 0u);
  EXPECT_EQ(model(NAN), 0x7fffffffu);
}

TEST(Ex2H200, ByTargetAndOption) {
  // 0x3dcccccf (0.100000016) is an input the H200 rounds away from the
  // nearest float (checked below), so the modes differ there.
  float x;
  uint32_t xBits = 0x3dcccccf;
  std::memcpy(&x, &xBits, 4);
  ASSERT_NE(model(x), nearest(x));
  const std::string body =
      std::string("ex2.approx.ftz.f32 %f20, %f10;") + kStoreF32;
  auto run = [&](const char *target, ApproxNumerics a) {
    std::string err;
    std::vector<uint64_t> r = runBody(body, {Lane{f32(x)}}, &err, target, a);
    EXPECT_EQ(err, "");
    return r.empty() ? 0u : uint32_t(r[0]);
  };
  EXPECT_EQ(run("sm_90a", ApproxNumerics::Auto), model(x));
  EXPECT_EQ(run("sm_100a", ApproxNumerics::Auto), nearest(x));
  EXPECT_EQ(run("sm_100a", ApproxNumerics::Hardware), model(x));
  EXPECT_EQ(run("sm_90a", ApproxNumerics::Exact), nearest(x));
  // Without .ftz a result below 2^-126 stays the nearest float (not
  // measured); above, the tables.
  const std::string plain =
      std::string("ex2.approx.f32 %f20, %f10;") + kStoreF32;
  std::string err;
  std::vector<uint64_t> r = runBody(plain, {Lane{f32(-130.5f)}, Lane{f32(x)}},
                                    &err, "sm_90a", ApproxNumerics::Auto);
  ASSERT_EQ(r.size(), 2u) << err;
  EXPECT_EQ(uint32_t(r[0]), nearest(-130.5f));
  EXPECT_EQ(uint32_t(r[1]), model(x));
}
