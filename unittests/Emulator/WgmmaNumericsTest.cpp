//===- WgmmaNumericsTest.cpp - the MMA accumulation model ------------------===//
//
// The H200's outputs of the accumulation probe (scripts/device/
// wgmma_numerics.sh, the first CTAs of each set committed under
// test/Differential/h200/numerics/) against the model the emulator's wgmma
// uses (MmaNumerics.h, hopperModel): bit for bit, bf16, f16, e4m3 and e5m2,
// designed and random full-mantissa problems, one and eight chained
// instructions. The exact model must miss on every random set (the data can
// tell the models apart), and hand-worked cases pin each model parameter.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Emulator/MmaNumerics.h"
#include "WgmmaNumericsValues.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

using namespace wgmma_numerics;
namespace num = nvfp4::emu::numerics;

namespace {

uint32_t f32Bits(double d) { return f32BitsOf(d); }

// D[cta][m][n] of SET under MODEL.
uint32_t predict(const num::Model &model, const Set &st, unsigned cta,
                 unsigned m, unsigned n) {
  const unsigned K = st.k();
  double c = f32Value(st.c[st.cIndex(cta, m, n)]);
  std::vector<double> a(K), b(K);
  for (unsigned s = 0; s < st.steps; ++s) {
    for (unsigned k = 0; k < K; ++k) {
      a[k] = value(st.format, st.a[st.aIndex(cta, s, m, k)]);
      b[k] = value(st.format, st.b[st.bIndex(cta, s, n, k)]);
    }
    c = num::accumulate(model, c, a.data(), b.data(), K);
  }
  return f32Bits(c);
}

TEST(WgmmaNumerics, H200ProbeBitExact) {
  size_t checked = 0;
  for (const Set &st : probeSets()) {
    SCOPED_TRACE(st.name);
    std::ifstream in(std::string(NVFP4_H200_NUMERICS) + "/" + st.name +
                         ".d.bin",
                     std::ios::binary);
    ASSERT_TRUE(in) << "missing H200 capture of " << st.name;
    std::vector<char> raw((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
    const unsigned ctas = unsigned(raw.size() / (64 * 8 * 4));
    ASSERT_GE(ctas, 4u);
    const num::Model hopper = num::hopperModel(elemBytes(st.format) * 8);
    size_t wrong = 0, exactWrong = 0;
    for (unsigned cta = 0; cta < ctas; ++cta)
      for (unsigned m = 0; m < 64; ++m)
        for (unsigned n = 0; n < 8; ++n) {
          uint32_t got;
          std::memcpy(&got, raw.data() + 4 * st.cIndex(cta, m, n), 4);
          uint32_t want = predict(hopper, st, cta, m, n);
          if (want != got && ++wrong <= 3)
            ADD_FAILURE() << "CTA " << cta << " D[" << m << "][" << n
                          << "]: H200 " << std::hexfloat << f32Value(got)
                          << ", model " << f32Value(want);
          exactWrong += predict(num::Model{}, st, cta, m, n) != got;
          ++checked;
        }
    EXPECT_EQ(wrong, 0u);
    if (st.name.find("designed") == std::string::npos) {
      EXPECT_GT(exactWrong, 0u) << "the exact model reproduces every output: "
                                   "this set cannot tell the models apart";
    }
  }
  EXPECT_GE(checked, 36864u);
}

// Worked cases, one per parameter of the model.
TEST(WgmmaNumerics, ModelParameters) {
  const num::Model bf = num::hopperModel(16), f8 = num::hopperModel(8);
  // bf16 products 1 * 1 and 2^-24 * 1: a product's exponent is ea + eb
  // (here 0), 25 fraction bits below it are kept, so 2^-24 survives the cut
  // and the normalization toward zero to 24 bits drops it (1 + 2^-24 is not
  // an f32).
  {
    double a[2] = {1.0, std::ldexp(1.0, -24)}, b[2] = {1.0, 1.0};
    EXPECT_EQ(num::accumulate(bf, 0.0, a, b, 2), 1.0);
    // With C = 2^-23 the sum is 1 + 2^-23 + 2^-24, cut to 1 + 2^-23.
    EXPECT_EQ(num::accumulate(bf, std::ldexp(1.0, -23), a, b, 2),
              1.0 + std::ldexp(1.0, -23));
  }
  // The cut is toward zero per term: -2^-26 below a product of exponent 0
  // vanishes (not -2^-25 as a floor would make it).
  {
    double a[2] = {1.5, -std::ldexp(1.0, -26)}, b[2] = {1.0, 1.0};
    EXPECT_EQ(num::accumulate(bf, 0.0, a, b, 2), 1.5);
  }
  // exp = ea + eb: 1.5 * 1.5 = 2.25 has exponent 1 but ea + eb = 0, so the
  // unit of the cut stays 2^-25 and a term of 2^-25 survives the
  // cancellation of +-2.25; with the exact exponent it would be cut.
  {
    double a[3] = {1.5, -1.5, std::ldexp(1.0, -25)}, b[3] = {1.5, 1.5, 1.0};
    EXPECT_EQ(num::accumulate(bf, 0.0, a, b, 3), std::ldexp(1.0, -25));
    num::Model exactExp = bf;
    exactExp.expFromSum = false;
    EXPECT_EQ(num::accumulate(exactExp, 0.0, a, b, 3), 0.0);
  }
  // 8-bit operands: 13 fraction bits below the largest exponent, and the
  // normalized sum keeps 13 fraction bits (14-bit significands).
  {
    double a[2] = {1.0, std::ldexp(1.0, -13)}, b[2] = {1.0, 1.0};
    EXPECT_EQ(num::accumulate(f8, 0.0, a, b, 2), 1.0 + std::ldexp(1.0, -13));
    double a2[2] = {1.0, std::ldexp(1.0, -14)};
    EXPECT_EQ(num::accumulate(f8, 0.0, a2, b, 2), 1.0);
    // 1.75 + 0.5 + 2^-12 = 2.25 + 2^-12: the terms keep 2^-12, the
    // normalized sum (exponent 1) keeps only down to 2^-12 as well.
    double a3[3] = {1.75, 0.5, std::ldexp(1.0, -12)}, b3[3] = {1, 1, 1};
    EXPECT_EQ(num::accumulate(f8, 0.0, a3, b3, 3),
              2.25 + std::ldexp(1.0, -12));
    // ... but an f32 C with more bits is cut too.
    EXPECT_EQ(num::accumulate(f8, 1.0 + std::ldexp(1.0, -20), a2, b, 2), 2.0);
  }
  // Groups: 16 products per alignment for 16-bit operands, so a tiny term
  // in the second group of 16 is aligned against C alone (here 0, after
  // the first group cancelled); in one group of 32 it would be cut.
  {
    double a[32] = {}, b[32];
    for (double &x : b)
      x = 1.0;
    a[0] = 1.0;
    a[1] = -1.0;
    a[16] = std::ldexp(1.0, -30);
    EXPECT_EQ(num::accumulate(bf, 0.0, a, b, 32), std::ldexp(1.0, -30));
    num::Model one = bf;
    one.group = 32;
    EXPECT_EQ(num::accumulate(one, 0.0, a, b, 32), 0.0);
  }
  // The exact model rounds once, to nearest.
  {
    double a[2] = {1.0, std::ldexp(3.0, -25)}, b[2] = {1.0, 1.0};
    EXPECT_EQ(num::accumulate(num::Model{}, 0.0, a, b, 2),
              1.0 + std::ldexp(1.0, -23));
    EXPECT_EQ(num::accumulate(bf, 0.0, a, b, 2), 1.0);
  }
  // Non-finite: IEEE arithmetic.
  {
    double a[2] = {INFINITY, 1.0}, b[2] = {1.0, 1.0};
    EXPECT_TRUE(std::isinf(num::accumulate(bf, 0.0, a, b, 2)));
    double n[2] = {INFINITY, -INFINITY};
    EXPECT_TRUE(std::isnan(num::accumulate(bf, 0.0, n, b, 2)));
  }
}

} // namespace

// A sum whose every term is zero keeps C, but a zero C becomes +0, the
// sign of an exact zero sum: the H100 gives +0 for a -0 O plus zero
// products (the fp8 attention kernels, docs/Emulator.md "MMA
// accumulation"), whatever the products' signs.
TEST(WgmmaNumerics, ZeroTermsAndSignedZeroC) {
  using nvfp4::emu::numerics::accumulate;
  auto m = nvfp4::emu::numerics::hopperModel(16);
  double a[16], b[16];
  for (int k = 0; k < 16; ++k) {
    a[k] = 0.0;
    b[k] = k % 2 ? -1.5 : 2.0; // products -0 and +0
  }
  EXPECT_FALSE(std::signbit(accumulate(m, -0.0, a, b, 16)));
  for (int k = 0; k < 16; ++k)
    b[k] = -1.5; // every product -0
  EXPECT_FALSE(std::signbit(accumulate(m, -0.0, a, b, 16)));
  // A nonzero C is kept as it is.
  EXPECT_EQ(accumulate(m, 0.75, a, b, 16), 0.75);
  EXPECT_EQ(accumulate(m, -0.75, a, b, 16), -0.75);
}
