//===- CheckTest.cpp - References, metrics and the harness's sizes --------===//

#include "nvfp4/Runtime/Check.h"
#include "nvfp4/Runtime/Harness.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace nvfp4::rt;

namespace {

TEST(CheckTest, GemmReferenceAgainstAHandComputedCase) {
  auto ref = findReference("gemm_abt");
  ASSERT_TRUE(ref);
  // A = [[1, 2], [3, 4]] (m = 2, k = 2), B = [[5, 6], [7, 8], [9, 10]]
  // (n = 3): D = A B^T = [[17, 23, 29], [39, 53, 67]].
  std::vector<std::vector<double>> ops = {
      {1, 2, 3, 4}, {5, 6, 7, 8, 9, 10}, std::vector<double>(6, 0)};
  EXPECT_FALSE((*ref)->compute({{"m", 2}, {"n", 3}, {"k", 2}}, {}, ops));
  EXPECT_EQ(ops[2], (std::vector<double>{17, 23, 29, 39, 53, 67}));
  auto bad = findReference("conv");
  ASSERT_FALSE(bad);
  // The message lists every reference by name.
  std::string msg = bad.takeError().message();
  EXPECT_EQ(msg.rfind("unknown reference 'conv' (known: gemm_abt, "
                      "attention, attention_paged, attention_sparse, ",
                      0),
            0u)
      << msg;
  for (const Reference &r : references())
    EXPECT_NE(msg.find(r.name), std::string::npos) << r.name;
}

TEST(CheckTest, MetricsAndVerdicts) {
  std::vector<double> ref = {1, 2, 3, 4};
  Metrics same = compare(ref, ref);
  EXPECT_DOUBLE_EQ(same.cos, 1);
  EXPECT_EQ(same.relL2, 0);
  EXPECT_EQ(same.nonFinite, 0u);
  EXPECT_EQ(verdictLine(same, 1e-4),
            "PASS cos=1.00000000 rel_l2=0 max_abs=0 nan=0");

  // A deliberately wrong output: off by 0.5 in one element.
  std::vector<double> wrong = {1, 2, 3.5, 4};
  Metrics m = compare(wrong, ref);
  EXPECT_NEAR(m.relL2, 0.5 / std::sqrt(30.0), 1e-15);
  EXPECT_EQ(m.maxAbs, 0.5);
  EXPECT_FALSE(passes(m, 1e-4));
  EXPECT_TRUE(passes(m, 0.1));
  EXPECT_EQ(verdictLine(m, 1e-4).substr(0, 5), "FAIL ");

  // NaN and Inf outputs are counted and always fail.
  std::vector<double> nan = {1, std::nan(""), INFINITY, 4};
  Metrics n = compare(nan, ref);
  EXPECT_EQ(n.nonFinite, 2u);
  EXPECT_FALSE(passes(n, 1e9));
  EXPECT_EQ(verdictLine(n, 1e9), "FAIL cos=nan rel_l2=nan max_abs=0 nan=2");

  // Opposite sign: cos = -1, rel_l2 = 2.
  std::vector<double> neg = {-1, -2, -3, -4};
  Metrics o = compare(neg, ref);
  EXPECT_DOUBLE_EQ(o.cos, -1);
  EXPECT_DOUBLE_EQ(o.relL2, 2);
}

TEST(CheckTest, DecodesEveryElementType) {
  uint8_t f32[4], bf16[2] = {0x80, 0x3f}, f16[2] = {0x00, 0x3c};
  float v = -2.5f;
  std::memcpy(f32, &v, 4);
  EXPECT_EQ(decode(f32, 1, ElemType::F32)[0], -2.5);
  EXPECT_EQ(decode(bf16, 1, ElemType::BF16)[0], 1.0);
  EXPECT_EQ(decode(f16, 1, ElemType::F16)[0], 1.0);
  uint8_t poison[4];
  std::memcpy(poison, &kPoison32, 4);
  EXPECT_TRUE(std::isnan(decode(poison, 1, ElemType::F32)[0]));
  uint8_t p16[2];
  std::memcpy(p16, &kPoison16, 2);
  EXPECT_TRUE(std::isnan(decode(p16, 1, ElemType::BF16)[0]));
  EXPECT_TRUE(std::isnan(decode(p16, 1, ElemType::F16)[0]));
}

HarnessSpec gemmSpec() {
  HarnessSpec s;
  s.kernel = "g";
  s.reference = "gemm_abt";
  s.sizes = {{"m", 128}, {"n", 256}, {"k", 512}};
  s.settable = {"k"};
  s.multipleOf = {{"k", 64}};
  s.tensors = {{"a", ElemType::BF16, {"m", "k"}, false},
               {"b", ElemType::BF16, {"n", "k"}, false},
               {"d", ElemType::F32, {"m", "n"}, true}};
  HarnessArg k;
  k.value = "k/64";
  HarnessArg d;
  d.kind = HarnessArg::Kind::Buffer;
  d.tensor = "d";
  s.args = {d, k};
  return s;
}

TEST(CheckTest, HarnessSizesAndScalars) {
  HarnessSpec s = gemmSpec();
  EXPECT_FALSE(verify(s));
  auto sizes = resolveSizes(s, {{"k", 1024}});
  ASSERT_TRUE(sizes);
  EXPECT_EQ(sizes->at("k"), 1024u);
  EXPECT_EQ(*evalScalar("k/64", *sizes), 16u);
  EXPECT_EQ(*evalScalar("7", *sizes), 7u);
  EXPECT_EQ(resolveSizes(s, {{"k", 100}}).takeError().message(),
            "k = 100 is not a multiple of 64 (kernel 'g' works in tiles of "
            "64)");
  EXPECT_EQ(resolveSizes(s, {{"m", 64}}).takeError().message(),
            "--m=64: kernel 'g' fixes m = 128");
  EXPECT_EQ(resolveSizes(s, {{"q", 64}}).takeError().message(),
            "--q: kernel 'g' has no size 'q'");
  EXPECT_EQ(evalScalar("n/3", *sizes).takeError().message(),
            "scalar value 'n/3' = 256/3 is not an integer");

  s.tensors[2].name = "out";
  EXPECT_EQ(verify(s).message(),
            "operand 2 of reference 'gemm_abt' is 'd', found 'out'");
  s = gemmSpec();
  s.args[0].kind = HarnessArg::Kind::TensorMap;
  s.args[0].box = {64, 128};
  EXPECT_EQ(verify(s).message(),
            "argument 0: a tensor map over output 'd' (TMA loads only read "
            "inputs)");
}

} // namespace
