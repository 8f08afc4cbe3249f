//===- UMMADescriptorsTest.cpp - Tests for the UMMA descriptor encoders ---===//
//
// Every expected descriptor below is a literal derived by hand from the PTX
// ISA tables (the derivation is in the comment beside it), never recomputed
// with the code under test.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Support/UMMADescriptors.h"

#include "gtest/gtest.h"

#include <vector>

using namespace nvfp4::umma;

namespace {

/// Asserts that `result` failed with a message containing `substring`.
template <typename T>
void expectError(const std::optional<T> &result, const std::string &error,
                 const std::string &substring) {
  EXPECT_FALSE(result.has_value());
  EXPECT_NE(error.find(substring), std::string::npos)
      << "error was: \"" << error << "\"\nexpected to contain: \"" << substring
      << "\"";
}

void expectVerifyError(const InstrDescFields &f, const std::string &substring) {
  std::optional<std::string> msg = verifyInstrDesc(f);
  ASSERT_TRUE(msg.has_value()) << "expected \"" << substring << "\"";
  EXPECT_NE(msg->find(substring), std::string::npos)
      << "error was: \"" << *msg << "\"\nexpected to contain: \"" << substring
      << "\"";
  std::string error;
  EXPECT_FALSE(encodeInstrDesc(f, &error).has_value());
  EXPECT_EQ(error, *msg);
}

SmemLayout layout(Major major, Swizzle swizzle, ElemType elem, uint32_t mn,
                  uint32_t k, uint8_t storageBits = 0) {
  SmemLayout l;
  l.major = major;
  l.swizzle = swizzle;
  l.elem = elem;
  l.mn = mn;
  l.k = k;
  l.storageBits = storageBits;
  return l;
}

/// The descriptor of K slice `kStep` of `l` at `base`; fails the test if the
/// library rejects it.
uint64_t descFor(const SmemLayout &l, uint32_t base, uint32_t kPerMma,
                 uint32_t kStep) {
  std::string error;
  auto fields = makeSmemDescFields(l, base, kPerMma, kStep, &error);
  EXPECT_TRUE(fields.has_value()) << error;
  if (!fields)
    return 0;
  auto desc = encodeSmemDesc(*fields, &error);
  EXPECT_TRUE(desc.has_value()) << error;
  return desc.value_or(0);
}

InstrDescFields dense(MmaKind kind, ElemType a, ElemType b, ElemType d,
                      uint32_t m, uint32_t n, unsigned ctaGroup = 1) {
  InstrDescFields f;
  f.kind = kind;
  f.a = a;
  f.b = b;
  f.d = d;
  f.m = m;
  f.n = n;
  f.ctaGroup = ctaGroup;
  return f;
}

InstrDescFields scaled(MmaKind kind, ElemType a, ElemType b, ScaleType st,
                       uint32_t m, uint32_t n, unsigned ctaGroup = 1) {
  InstrDescFields f = dense(kind, a, b, ElemType::F32, m, n, ctaGroup);
  f.scaleType = st;
  return f;
}

uint32_t encodeOk(const InstrDescFields &f) {
  std::string error;
  auto desc = encodeInstrDesc(f, &error);
  EXPECT_TRUE(desc.has_value()) << error;
  return desc.value_or(0xFFFFFFFFu);
}

//===----------------------------------------------------------------------===//
// Shared-memory descriptor: raw fields (PTX Table 40)
//===----------------------------------------------------------------------===//

TEST(SmemDescTest, EncodeFieldMasksTo18BitsAndDropsFourLsbs) {
  EXPECT_EQ(encodeSmemField(0x0), 0u);
  EXPECT_EQ(encodeSmemField(0x10), 1u);
  EXPECT_EQ(encodeSmemField(0x3FFF0), 0x3FFFu);
  // Bit 18 and above are masked off by (x & 0x3FFFF).
  EXPECT_EQ(encodeSmemField(0x40010), 1u);
}

TEST(SmemDescTest, EveryFieldLandsAtItsTable40Position) {
  // start 0x10 -> 1 at bit 0; LBO 0x20 -> 2 at bit 16; SBO 0x30 -> 3 at bit
  // 32; fixed 0b001 at 46; base offset 5 at 49; LBO mode 1 at 52; swizzle
  // 64B = 4 at 61:
  //   1 | 0x20000 | 0x3'0000'0000 | 0x4000'0000'0000 | 0xA'0000'0000'0000
  //     | 0x10'0000'0000'0000 | 0x8000'0000'0000'0000 = 0x801A400300020001.
  SmemDescFields f;
  f.startAddress = 0x10;
  f.lboBytes = 0x20;
  f.sboBytes = 0x30;
  f.baseOffset = 5;
  f.lboAbsolute = true;
  f.swizzle = Swizzle::B64;
  std::string error;
  auto desc = encodeSmemDesc(f, &error);
  ASSERT_TRUE(desc.has_value()) << error;
  EXPECT_EQ(*desc, 0x801A400300020001ull);
}

TEST(SmemDescTest, SwizzleCodesAreTable40Values) {
  // Only the swizzle field differs from 0x0000400000000000 (bit 46).
  const std::pair<Swizzle, uint64_t> cases[] = {
      {Swizzle::None, 0x0000400000000000ull},
      {Swizzle::B128Base32B, 0x2000400000000000ull}, // 1 << 61
      {Swizzle::B128, 0x4000400000000000ull},        // 2 << 61
      {Swizzle::B64, 0x8000400000000000ull},         // 4 << 61
      {Swizzle::B32, 0xC000400000000000ull},         // 6 << 61
  };
  for (auto [swizzle, expected] : cases) {
    SmemDescFields f;
    f.swizzle = swizzle;
    EXPECT_EQ(encodeSmemDesc(f).value_or(0), expected) << stringify(swizzle);
  }
}

TEST(SmemDescTest, HighPartLeavesStartAddressZero) {
  // The K-major SW128 bf16 worked example without its address.
  SmemDescFields f;
  f.startAddress = 0x2408; // ignored, even though misaligned
  f.lboBytes = 16;
  f.sboBytes = 1024;
  f.swizzle = Swizzle::B128;
  std::string error;
  auto high = encodeSmemDescHigh(f, &error);
  ASSERT_TRUE(high.has_value()) << error;
  EXPECT_EQ(*high, 0x4000404000010000ull);
  // The other fields are still checked.
  f.sboBytes = 1000;
  expectError(encodeSmemDescHigh(f, &error), error,
              "expected stride byte offset (SBO) to be 16-byte aligned, got "
              "1000");
}

// The sm_90 descriptor: the same 14-bit fields, the layout type in bits
// 62-63 (1 = 128-byte swizzle), no fixed 0b001 at 46-48. The attention
// kernel's K-major Q / K operand at 0x400: LBO 16, SBO 1024 (8 rows of
// 128 bytes); its MN-major V: LBO 16384 (the next 64-column box of a
// 128-key tile), SBO 1024.
TEST(GmmaDescTest, FieldsAndLayoutType) {
  EXPECT_EQ(*encodeGmmaDesc(0x400, 16, 1024, Swizzle::B128),
            0x4000004000010040ull);
  EXPECT_EQ(*encodeGmmaDesc(0, 16384, 1024, Swizzle::B128),
            0x4000004004000000ull);
  EXPECT_EQ(*encodeGmmaDesc(0x10, 32, 256, Swizzle::None),
            0x0000001000020001ull);
  EXPECT_EQ(*encodeGmmaDesc(0, 0, 0, Swizzle::B64), 0x8000000000000000ull);
  EXPECT_EQ(*encodeGmmaDesc(0, 0, 0, Swizzle::B32), 0xC000000000000000ull);
  EXPECT_FALSE(encodeGmmaDesc(0, 16, 1024, Swizzle::B128Base32B));
}

TEST(SmemDescTest, EncodeRejectsMisalignedAndOutOfRangeFields) {
  std::string error;
  SmemDescFields f;
  f.startAddress = 0x408;
  expectError(encodeSmemDesc(f, &error), error,
              "expected start address to be 16-byte aligned, got 0x408");
  f.startAddress = 0x40000;
  expectError(encodeSmemDesc(f, &error), error,
              "expected start address below 0x40000 (18 bits), got 0x40000");
  f = {};
  f.lboBytes = 24;
  expectError(encodeSmemDesc(f, &error), error,
              "expected leading byte offset (LBO) to be 16-byte aligned, got "
              "24");
  f = {};
  f.sboBytes = 1u << 18;
  expectError(encodeSmemDesc(f, &error), error,
              "expected stride byte offset (SBO) below 262144 (18 bits), got "
              "262144");
  f = {};
  f.baseOffset = 8;
  expectError(encodeSmemDesc(f, &error), error,
              "expected base offset in [0, 7], got 8");
  f = {};
  f.swizzle = static_cast<Swizzle>(3);
  expectError(encodeSmemDesc(f, &error), error,
              "expected swizzle code in {0, 1, 2, 4, 6}, got 3");
}

TEST(SmemDescTest, DecodeInvertsEncode) {
  const Swizzle swizzles[] = {Swizzle::None, Swizzle::B128Base32B,
                              Swizzle::B128, Swizzle::B64, Swizzle::B32};
  unsigned cases = 0;
  for (Swizzle swizzle : swizzles)
    for (uint32_t start : {0u, 0x10u, 0x2400u, 0x3FFF0u})
      for (uint32_t lbo : {0u, 16u, 2048u, 0x3FFF0u})
        for (uint32_t sbo : {0u, 128u, 1024u, 0x3FFF0u})
          for (uint8_t baseOffset : {0, 3, 7})
            for (bool absolute : {false, true}) {
              SmemDescFields f;
              f.startAddress = start;
              f.lboBytes = lbo;
              f.sboBytes = sbo;
              f.baseOffset = baseOffset;
              f.lboAbsolute = absolute;
              f.swizzle = swizzle;
              std::string error;
              auto desc = encodeSmemDesc(f, &error);
              ASSERT_TRUE(desc.has_value()) << error;
              auto back = decodeSmemDesc(*desc, &error);
              ASSERT_TRUE(back.has_value()) << error;
              EXPECT_EQ(back->startAddress, start);
              EXPECT_EQ(back->lboBytes, lbo);
              EXPECT_EQ(back->sboBytes, sbo);
              EXPECT_EQ(back->baseOffset, baseOffset);
              EXPECT_EQ(back->lboAbsolute, absolute);
              EXPECT_EQ(back->swizzle, swizzle);
              ++cases;
            }
  EXPECT_EQ(cases, 5u * 4 * 4 * 4 * 3 * 2);
}

TEST(SmemDescTest, DecodeWorkedExample) {
  // 0x4000404000010240: start 0x240 << 4 = 0x2400, LBO 1 << 4 = 16,
  // SBO 0x40 << 4 = 1024, swizzle 2 = 128B.
  std::string error;
  auto f = decodeSmemDesc(0x4000404000010240ull, &error);
  ASSERT_TRUE(f.has_value()) << error;
  EXPECT_EQ(f->startAddress, 0x2400u);
  EXPECT_EQ(f->lboBytes, 16u);
  EXPECT_EQ(f->sboBytes, 1024u);
  EXPECT_EQ(f->baseOffset, 0u);
  EXPECT_FALSE(f->lboAbsolute);
  EXPECT_EQ(f->swizzle, Swizzle::B128);
}

TEST(SmemDescTest, DecodeRejectsBadFixedBitsAndSwizzleCodes) {
  std::string error;
  // Bit 46 clear (a Hopper-style descriptor).
  expectError(decodeSmemDesc(0x4000004000010240ull, &error), error,
              "expected bits 46-48 of the shared memory descriptor to be "
              "0b001, got 0b000");
  // Bits 46-48 = 0b011.
  expectError(decodeSmemDesc(0x4000C04000010240ull, &error), error,
              "to be 0b001, got 0b011");
  // Bit 53 set.
  expectError(decodeSmemDesc(0x4020404000010240ull, &error), error,
              "expected bits 53-60 of the shared memory descriptor to be "
              "zero, got 0x1");
  // Bit 60 set.
  expectError(decodeSmemDesc(0x5000404000010240ull, &error), error,
              "bits 53-60 of the shared memory descriptor to be zero, got "
              "0x80");
  // Bit 14 set.
  expectError(decodeSmemDesc(0x4000404000014240ull, &error), error,
              "expected bits 14-15 and bits 30-31 of the shared memory "
              "descriptor to be zero");
  // Swizzle codes 3, 5, 7.
  expectError(decodeSmemDesc(0x6000400000000000ull, &error), error,
              "expected swizzle code in {0, 1, 2, 4, 6}, got 3");
  expectError(decodeSmemDesc(0xA000400000000000ull, &error), error,
              "expected swizzle code in {0, 1, 2, 4, 6}, got 5");
  expectError(decodeSmemDesc(0xE000400000000000ull, &error), error,
              "expected swizzle code in {0, 1, 2, 4, 6}, got 7");
}

//===----------------------------------------------------------------------===//
// Canonical layouts: one hand-derived case per swizzle mode and major-ness
//===----------------------------------------------------------------------===//

TEST(CanonicalLayoutTest, WorkedExampleKMajorSW128Bf16) {
  // The reference's worked example: K-major SW128 bf16 128x64 at a
  // 1024-aligned addr is 0x4000404000010000 | (addr >> 4).
  SmemLayout l = layout(Major::K, Swizzle::B128, ElemType::BF16, 128, 64);
  EXPECT_EQ(descFor(l, 0x0, 16, 0), 0x4000404000010000ull);
  EXPECT_EQ(descFor(l, 0x400, 16, 0), 0x4000404000010040ull);
  EXPECT_EQ(descFor(l, 0x2400, 16, 0), 0x4000404000010240ull);
  EXPECT_EQ(descFor(l, 0x3C000, 16, 0), 0x4000404000013C00ull);
}

struct LayoutCase {
  const char *name;
  SmemLayout layout;
  uint32_t base;
  uint32_t lbo, sbo;
  uint64_t desc;
};

TEST(CanonicalLayoutTest, EverySwizzleAndMajorMatchesHandDerivation) {
  const LayoutCase cases[] = {
      // K-major, none, bf16 128x64 at 0x1000. Core matrices 8 x 16 B stacked
      // MN-first: SBO = 128 (enc 8), LBO = 128/8 * 128 = 2048 (enc 128).
      //   0x100 | 128 << 16 | 8 << 32 | 1 << 46 = 0x0000400800800100.
      {"k none bf16", layout(Major::K, Swizzle::None, ElemType::BF16, 128, 64),
       0x1000, 2048, 128, 0x0000400800800100ull},
      // K-major, SW32, bf16 64x16 (K = 32 B = one atom) at 0x2000.
      // SBO = 8 * 32 = 256 (enc 16), LBO = 16 (enc 1), swizzle 6:
      //   0x200 | 1 << 16 | 16 << 32 | 1 << 46 | 6 << 61
      //   = 0xC000401000010200.
      {"k sw32 bf16", layout(Major::K, Swizzle::B32, ElemType::BF16, 64, 16),
       0x2000, 16, 256, 0xC000401000010200ull},
      // K-major, SW64, e4m3 128x128 (K = 128 B = two atoms) at 0x4000.
      // SBO = 8 * 64 = 512 (enc 32), LBO = 16 (enc 1), swizzle 4:
      //   0x400 | 1 << 16 | 32 << 32 | 1 << 46 | 4 << 61
      //   = 0x8000402000010400.
      {"k sw64 e4m3", layout(Major::K, Swizzle::B64, ElemType::E4M3, 128, 128),
       0x4000, 16, 512, 0x8000402000010400ull},
      // K-major, SW128, tf32 128x32 (K = 128 B) at 0x8000.
      // SBO = 1024 (enc 64), LBO = 16 (enc 1), swizzle 2:
      //   0x800 | 1 << 16 | 64 << 32 | 1 << 46 | 2 << 61
      //   = 0x4000404000010800.
      {"k sw128 tf32", layout(Major::K, Swizzle::B128, ElemType::TF32, 128, 32),
       0x8000, 16, 1024, 0x4000404000010800ull},
      // MN-major, none, bf16 mn=64 (128 B) x k=16 at 0x3000. Core matrices
      // (16 B of MN x 8 K rows) MN-first: SBO = 128 (enc 8), LBO = 128/16 *
      // 128 = 1024 (enc 64).
      //   0x300 | 64 << 16 | 8 << 32 | 1 << 46 = 0x0000400800400300.
      {"mn none bf16", layout(Major::MN, Swizzle::None, ElemType::BF16, 64, 16),
       0x3000, 1024, 128, 0x0000400800400300ull},
      // MN-major, SW32, bf16 mn=64 (128 B = 4 atoms) x k=16 at 0x2000.
      // atom = 32 B x 8 rows = 256 B: LBO = 256 (enc 16), SBO = 4 * 256 =
      // 1024 (enc 64):
      //   0x200 | 16 << 16 | 64 << 32 | 1 << 46 | 6 << 61
      //   = 0xC000404000100200.
      {"mn sw32 bf16", layout(Major::MN, Swizzle::B32, ElemType::BF16, 64, 16),
       0x2000, 256, 1024, 0xC000404000100200ull},
      // MN-major, SW64, e4m3 mn=128 (128 B = 2 atoms) x k=64 at 0x4000.
      // atom = 64 B x 8 = 512 B: LBO = 512 (enc 32), SBO = 2 * 512 = 1024
      // (enc 64):
      //   0x400 | 32 << 16 | 64 << 32 | 1 << 46 | 4 << 61
      //   = 0x8000404000200400.
      {"mn sw64 e4m3", layout(Major::MN, Swizzle::B64, ElemType::E4M3, 128, 64),
       0x4000, 512, 1024, 0x8000404000200400ull},
      // MN-major, SW128, bf16 mn=128 (256 B = 2 atoms) x k=64 at 0x8000.
      // atom = 128 B x 8 = 1024 B: LBO = 1024 (enc 64), SBO = 2 * 1024 =
      // 2048 (enc 128):
      //   0x800 | 64 << 16 | 128 << 32 | 1 << 46 | 2 << 61
      //   = 0x4000408000400800.
      {"mn sw128 bf16",
       layout(Major::MN, Swizzle::B128, ElemType::BF16, 128, 64), 0x8000, 1024,
       2048, 0x4000408000400800ull},
      // MN-major, 128B with 32B atomicity, tf32 mn=64 (256 B = 2 atoms) x
      // k=32 at 0x8000. atom = 128 B x 4 K rows = 512 B (PTX Table 55 "8x4"):
      // LBO = 512 (enc 32), SBO = 2 * 512 = 1024 (enc 64), swizzle 1:
      //   0x800 | 32 << 16 | 64 << 32 | 1 << 46 | 1 << 61
      //   = 0x2000404000200800.
      {"mn sw128_32b tf32",
       layout(Major::MN, Swizzle::B128Base32B, ElemType::TF32, 64, 32), 0x8000,
       512, 1024, 0x2000404000200800ull},
  };
  for (const LayoutCase &c : cases) {
    SCOPED_TRACE(c.name);
    std::string error;
    auto strides = deriveCanonicalStrides(c.layout, &error);
    ASSERT_TRUE(strides.has_value()) << error;
    EXPECT_EQ(strides->lboBytes, c.lbo);
    EXPECT_EQ(strides->sboBytes, c.sbo);
    EXPECT_EQ(descFor(c.layout, c.base, mmaK(MmaKind::F16), 0), c.desc);
  }
}

TEST(CanonicalLayoutTest, PtxIsaExamplesHaveTheirStrides) {
  // PTX 9.7.16.3.3 examples (strides in elements there, bytes here).
  std::string error;
  {
    // MN-major SW128 bf16, 256 x 64, atoms K-first (four 64-column TMA
    // boxes of 64 rows, 8 KiB apart): LBO = the MN-atom stride = 64 / 8
    // atoms x 1 KiB, SBO = the 8-row K-group stride = one atom; K slice 1
    // (elements 16..31) starts two K groups in.
    SmemLayout l = layout(Major::MN, Swizzle::B128, ElemType::BF16, 256, 64);
    l.kFirst = true;
    auto kf = deriveCanonicalStrides(l, &error);
    ASSERT_TRUE(kf.has_value()) << error;
    EXPECT_EQ(kf->lboBytes, 8192u);
    EXPECT_EQ(kf->sboBytes, 1024u);
    EXPECT_EQ(kSliceOffsetBytes(l, 16, 1), 2048u);
    EXPECT_EQ(tileBytes(l), 256u * 64 * 2);
    l.kFirst = false; // MN-first: LBO = one atom, SBO = 4 atoms
    kf = deriveCanonicalStrides(l, &error);
    ASSERT_TRUE(kf.has_value()) << error;
    EXPECT_EQ(kf->lboBytes, 1024u);
    EXPECT_EQ(kf->sboBytes, 4096u);
    SmemLayout bad = layout(Major::K, Swizzle::B128, ElemType::BF16, 128, 64);
    bad.kFirst = true;
    EXPECT_FALSE(deriveCanonicalStrides(bad, &error).has_value());
    EXPECT_EQ(error, "expected an mn-major swizzled layout for the k-first "
                     "atom order, got a k-major 128b-swizzled bf16 tile");
  }
  // K-major no-swizzle tf32 ((8,2),(4,4)):((4,32),(1,64)): LBO = 64 * 4,
  // SBO = 32 * 4.
  auto s = deriveCanonicalStrides(
      layout(Major::K, Swizzle::None, ElemType::TF32, 16, 16), &error);
  ASSERT_TRUE(s.has_value()) << error;
  EXPECT_EQ(s->lboBytes, 256u);
  EXPECT_EQ(s->sboBytes, 128u);
  // MN-major no-swizzle bf16 ((8,1,2),(8,2)):((1,8,64),(8,128)): LBO =
  // 128 * 2, SBO = 64 * 2.
  s = deriveCanonicalStrides(
      layout(Major::MN, Swizzle::None, ElemType::BF16, 16, 16), &error);
  ASSERT_TRUE(s.has_value()) << error;
  EXPECT_EQ(s->lboBytes, 256u);
  EXPECT_EQ(s->sboBytes, 128u);
  // MN-major SW32 bf16 ((8,2,2),(8,2)):((1,8,128),(16,256)): LBO = 256 B,
  // SBO = 512 B.
  s = deriveCanonicalStrides(
      layout(Major::MN, Swizzle::B32, ElemType::BF16, 32, 16), &error);
  ASSERT_TRUE(s.has_value()) << error;
  EXPECT_EQ(s->lboBytes, 256u);
  EXPECT_EQ(s->sboBytes, 512u);
  // MN-major SW64 bf16 ((8,4,2),(8,2)):((1,8,256),(32,512)): LBO = 512 B,
  // SBO = 1024 B.
  s = deriveCanonicalStrides(
      layout(Major::MN, Swizzle::B64, ElemType::BF16, 64, 16), &error);
  ASSERT_TRUE(s.has_value()) << error;
  EXPECT_EQ(s->lboBytes, 512u);
  EXPECT_EQ(s->sboBytes, 1024u);
}

TEST(CanonicalLayoutTest, SubByteOperands) {
  std::string error;
  // NVFP4 (mxf4nvf4, packed e2m1): K-major SW128 128x256, one 128 B row of
  // K. SBO = 1024, LBO = 16: same descriptor shape as the bf16 example.
  SmemLayout nvfp4 = layout(Major::K, Swizzle::B128, ElemType::E2M1, 128, 256,
                            smemElemBits(ElemType::E2M1, MmaKind::MXF4NVF4));
  EXPECT_EQ(descFor(nvfp4, 0x8000, 64, 0), 0x4000404000010800ull);
  EXPECT_EQ(tileBytes(nvfp4), 16384u);
  // kind::f8f6f4 pads e2m1/e2m3 to a byte: 128x128 is one 128 B row.
  EXPECT_EQ(smemElemBits(ElemType::E2M1, MmaKind::F8F6F4), 8u);
  EXPECT_EQ(smemElemBits(ElemType::E3M2, MmaKind::MXF8F6F4), 8u);
  EXPECT_EQ(smemElemBits(ElemType::E2M1, MmaKind::MXF4), 4u);
  EXPECT_EQ(smemElemBits(ElemType::BF16, MmaKind::F16), 16u);
  SmemLayout fp6 = layout(Major::K, Swizzle::B128, ElemType::E2M3, 128, 128,
                          smemElemBits(ElemType::E2M3, MmaKind::F8F6F4));
  EXPECT_EQ(descFor(fp6, 0x0, 32, 0), 0x4000404000010000ull);
  EXPECT_EQ(tileBytes(fp6), 16384u);
  // Without the padding a 6-bit element has no canonical layout.
  SmemLayout packed6 =
      layout(Major::K, Swizzle::B128, ElemType::E2M3, 128, 128);
  expectError(deriveCanonicalStrides(packed6, &error), error,
              "expected a shared memory element width of 4, 8, 16 or 32 bits, "
              "got 6 for e2m3");
  // storageBits may pad, never truncate.
  SmemLayout narrow =
      layout(Major::K, Swizzle::B128, ElemType::BF16, 128, 64, /*bits=*/8);
  expectError(deriveCanonicalStrides(narrow, &error), error,
              "expected storageBits of at least 16 for bf16, got 8");
}

TEST(CanonicalLayoutTest, TileBytes) {
  EXPECT_EQ(tileBytes(layout(Major::K, Swizzle::B128, ElemType::BF16, 128, 64)),
            16384u);
  EXPECT_EQ(tileBytes(layout(Major::MN, Swizzle::B128Base32B, ElemType::TF32,
                             64, 32)),
            8192u);
  EXPECT_EQ(
      tileBytes(layout(Major::K, Swizzle::None, ElemType::E4M3, 256, 128)),
      32768u);
}

TEST(CanonicalLayoutTest, SwizzleGeometry) {
  EXPECT_EQ(swizzleBytes(Swizzle::None), 16u);
  EXPECT_EQ(swizzleBytes(Swizzle::B32), 32u);
  EXPECT_EQ(swizzleBytes(Swizzle::B64), 64u);
  EXPECT_EQ(swizzleBytes(Swizzle::B128), 128u);
  EXPECT_EQ(swizzleBytes(Swizzle::B128Base32B), 128u);
  // PTX Table 41.
  EXPECT_EQ(swizzleAlignment(Swizzle::None), 16u);
  EXPECT_EQ(swizzleAlignment(Swizzle::B32), 256u);
  EXPECT_EQ(swizzleAlignment(Swizzle::B64), 512u);
  EXPECT_EQ(swizzleAlignment(Swizzle::B128), 1024u);
  EXPECT_EQ(swizzleAlignment(Swizzle::B128Base32B), 1024u);
  EXPECT_EQ(swizzleAtomRows(Swizzle::B128Base32B, Major::MN), 4u);
  EXPECT_EQ(swizzleAtomRows(Swizzle::B128, Major::MN), 8u);
  EXPECT_EQ(swizzleAtomRows(Swizzle::None, Major::K), 8u);
}

TEST(CanonicalLayoutTest, RejectsNonCanonicalTiles) {
  std::string error;
  expectError(
      deriveCanonicalStrides(
          layout(Major::K, Swizzle::B128Base32B, ElemType::TF32, 128, 32),
          &error),
      error,
      "expected an mn-major layout for swizzle 128b_base32b, got k-major");
  expectError(
      deriveCanonicalStrides(
          layout(Major::MN, Swizzle::B128Base32B, ElemType::BF16, 64, 16),
          &error),
      error,
      "expected 32-bit (tf32) elements for swizzle 128b_base32b, got 16-bit "
      "bf16");
  expectError(
      deriveCanonicalStrides(
          layout(Major::MN, Swizzle::B128, ElemType::TF32, 64, 16), &error),
      error,
      "expected swizzle 128b_base32b for an mn-major 32-bit tile, got "
      "128b");
  expectError(
      deriveCanonicalStrides(
          layout(Major::K, Swizzle::B128, ElemType::BF16, 12, 64), &error),
      error,
      "expected the mn extent of a k-major 128b-swizzled bf16 tile to "
      "be a multiple of 8 rows, got 12");
  expectError(
      deriveCanonicalStrides(
          layout(Major::K, Swizzle::B128, ElemType::BF16, 128, 32), &error),
      error,
      "expected the k extent of a k-major 128b-swizzled bf16 tile to "
      "be a multiple of 128 bytes (64 elements), got 32 elements");
  expectError(
      deriveCanonicalStrides(
          layout(Major::K, Swizzle::None, ElemType::BF16, 128, 4), &error),
      error,
      "expected the k extent of a k-major unswizzled bf16 tile to be "
      "a multiple of 16 bytes (8 elements), got 4 elements");
  expectError(
      deriveCanonicalStrides(
          layout(Major::MN, Swizzle::B64, ElemType::BF16, 16, 16), &error),
      error,
      "expected the mn extent of an mn-major 64b-swizzled bf16 tile "
      "to be a multiple of 64 bytes (32 elements), got 16 elements");
  expectError(
      deriveCanonicalStrides(
          layout(Major::MN, Swizzle::B128, ElemType::BF16, 64, 12), &error),
      error,
      "expected the k extent of an mn-major 128b-swizzled bf16 tile "
      "to be a multiple of 8 rows, got 12");
  expectError(
      deriveCanonicalStrides(
          layout(Major::MN, Swizzle::B128Base32B, ElemType::TF32, 32, 6),
          &error),
      error,
      "expected the k extent of an mn-major 128b_base32b-swizzled tf32 tile "
      "to be a multiple of 4 rows, got 6");
  expectError(
      deriveCanonicalStrides(
          layout(Major::K, Swizzle::B128, ElemType::BF16, 0, 64), &error),
      error, "expected a non-empty tile, got 0 x 64");
  // K-major none: LBO = 16384 / 8 * 128 = 262144 does not fit 18 bits.
  expectError(
      deriveCanonicalStrides(
          layout(Major::K, Swizzle::None, ElemType::BF16, 16384, 8), &error),
      error,
      "expected the leading byte offset (LBO) of a k-major unswizzled "
      "bf16 tile below 262144 bytes, got 262144 for mn = 16384");
}

//===----------------------------------------------------------------------===//
// K slices
//===----------------------------------------------------------------------===//

TEST(KSliceTest, KMajorSwizzledAdvancesInsideTheAtom) {
  // DeepGEMM advance_umma_desc_lo: +32 B (= +2 in the descriptor) per bf16
  // K = 16 step inside a SW128 atom, base offset unchanged.
  SmemLayout l = layout(Major::K, Swizzle::B128, ElemType::BF16, 128, 64);
  EXPECT_EQ(kSliceOffsetBytes(l, 16, 0), 0u);
  EXPECT_EQ(kSliceOffsetBytes(l, 16, 1), 32u);
  EXPECT_EQ(kSliceOffsetBytes(l, 16, 2), 64u);
  EXPECT_EQ(kSliceOffsetBytes(l, 16, 3), 96u);
  EXPECT_EQ(descFor(l, 0x2400, 16, 1), 0x4000404000010242ull);
  EXPECT_EQ(descFor(l, 0x2400, 16, 3), 0x4000404000010246ull);
}

TEST(KSliceTest, KMajorSwizzledCrossesIntoTheNextAtomColumn) {
  // bf16 128x128 SW128: two atom columns along K, each an MN stack of
  // 128/8 atoms of 1024 B, so column 1 starts at 16 * 1024 = 16384.
  SmemLayout l = layout(Major::K, Swizzle::B128, ElemType::BF16, 128, 128);
  EXPECT_EQ(kSliceOffsetBytes(l, 16, 3), 96u);
  EXPECT_EQ(kSliceOffsetBytes(l, 16, 4), 16384u);
  EXPECT_EQ(kSliceOffsetBytes(l, 16, 5), 16416u);
  // tf32 64x16 SW32: a row holds 8 tf32 (one MMA); column 1 starts at
  // 64/8 * 256 = 2048.
  SmemLayout t = layout(Major::K, Swizzle::B32, ElemType::TF32, 64, 16);
  EXPECT_EQ(kSliceOffsetBytes(t, 8, 1), 2048u);
  // NVFP4 128x256 SW128: K = 64 e2m1 per MMA is 32 B.
  SmemLayout f4 = layout(Major::K, Swizzle::B128, ElemType::E2M1, 128, 256);
  EXPECT_EQ(kSliceOffsetBytes(f4, 64, 1), 32u);
  EXPECT_EQ(kSliceOffsetBytes(f4, 64, 3), 96u);
}

TEST(KSliceTest, KMajorNoneStepsByLbo) {
  // bf16 128x64: LBO = 2048; K = 16 bf16 = 32 B = 2 core matrices.
  SmemLayout l = layout(Major::K, Swizzle::None, ElemType::BF16, 128, 64);
  EXPECT_EQ(kSliceOffsetBytes(l, 16, 1), 4096u);
  EXPECT_EQ(kSliceOffsetBytes(l, 16, 3), 12288u);
  // 0x1000 + 4096 = 0x2000 -> start field 0x200.
  EXPECT_EQ(descFor(l, 0x1000, 16, 1), 0x0000400800800200ull);
}

TEST(KSliceTest, MnMajorStepsBySbo) {
  // SW128 bf16 mn=128, k=64: SBO = 2048 per 8 K rows; K = 16 is 2 groups.
  SmemLayout sw = layout(Major::MN, Swizzle::B128, ElemType::BF16, 128, 64);
  EXPECT_EQ(kSliceOffsetBytes(sw, 16, 1), 4096u);
  EXPECT_EQ(kSliceOffsetBytes(sw, 16, 3), 12288u);
  // None bf16 mn=64, k=32: the K-direction stride is LBO = 1024.
  SmemLayout none = layout(Major::MN, Swizzle::None, ElemType::BF16, 64, 32);
  EXPECT_EQ(kSliceOffsetBytes(none, 16, 1), 2048u);
  // 128B/32B-atom tf32 mn=64, k=32: SBO = 1024 per 4 K rows; K = 8 is 2.
  SmemLayout tf =
      layout(Major::MN, Swizzle::B128Base32B, ElemType::TF32, 64, 32);
  EXPECT_EQ(kSliceOffsetBytes(tf, 8, 1), 2048u);
  EXPECT_EQ(kSliceOffsetBytes(tf, 8, 3), 6144u);
}

TEST(KSliceTest, MakeFieldsRejectsBadBasesAndSlices) {
  std::string error;
  SmemLayout l = layout(Major::K, Swizzle::B128, ElemType::BF16, 128, 64);
  expectError(makeSmemDescFields(l, 0x2200, 16, 0, &error), error,
              "expected the tile base address to be 1024-byte aligned for "
              "swizzle 128b, got 0x2200");
  SmemLayout sw64 = layout(Major::K, Swizzle::B64, ElemType::BF16, 64, 32);
  expectError(makeSmemDescFields(sw64, 0x100, 16, 0, &error), error,
              "expected the tile base address to be 512-byte aligned for "
              "swizzle 64b, got 0x100");
  expectError(makeSmemDescFields(l, 0x2400, 16, 4, &error), error,
              "expected k slice 4 of 16 elements to lie within the tile's k "
              "extent of 64, got elements [64, 80)");
  expectError(makeSmemDescFields(l, 0x2400, 0, 0, &error), error,
              "expected a non-zero k slice width, got 0");
  SmemLayout sw32 = layout(Major::K, Swizzle::B32, ElemType::BF16, 64, 32);
  expectError(makeSmemDescFields(sw32, 0x100, 24, 0, &error), error,
              "expected the k slice of a k-major 32b-swizzled bf16 tile to "
              "divide the 32-byte swizzle width, got 24 elements (384 bits)");
  SmemLayout none = layout(Major::K, Swizzle::None, ElemType::BF16, 64, 32);
  expectError(makeSmemDescFields(none, 0x100, 4, 0, &error), error,
              "expected the k slice of a k-major unswizzled bf16 tile to be a "
              "multiple of 16 bytes, got 4 elements (64 bits)");
  SmemLayout mn = layout(Major::MN, Swizzle::B128, ElemType::BF16, 64, 32);
  expectError(makeSmemDescFields(mn, 0x400, 4, 0, &error), error,
              "expected the k slice of an mn-major 128b-swizzled bf16 tile to "
              "be a multiple of 8 rows, got 4");
  // Layout errors come through unchanged.
  SmemLayout bad = layout(Major::K, Swizzle::B128, ElemType::BF16, 12, 64);
  expectError(makeSmemDescFields(bad, 0x400, 16, 0, &error), error,
              "to be a multiple of 8 rows, got 12");
  // 0x3FC00 + 16384 runs past the 18-bit window.
  SmemLayout wide = layout(Major::K, Swizzle::B128, ElemType::BF16, 128, 128);
  expectError(makeSmemDescFields(wide, 0x3FC00, 16, 4, &error), error,
              "expected start address below 0x40000 (18 bits), got 0x43c00");
  // Unswizzled tiles only need 16-byte alignment.
  EXPECT_TRUE(makeSmemDescFields(none, 0x10, 8, 1, &error).has_value())
      << error;
}

//===----------------------------------------------------------------------===//
// Instruction descriptor (PTX Tables 42-44)
//===----------------------------------------------------------------------===//

TEST(InstrDescTest, WorkedExampleBf16) {
  // (1<<4) | (1<<7) | (1<<10) | (32<<17) | (8<<24) = 0x08400490.
  InstrDescFields f = dense(MmaKind::F16, ElemType::BF16, ElemType::BF16,
                            ElemType::F32, 128, 256);
  EXPECT_EQ(encodeOk(f), 0x08400490u);
}

TEST(InstrDescTest, WorkedExampleNvfp4) {
  // (1<<7) | (1<<10) | (32<<17) | (1<<27) = 0x08400480; scale type bit 23 = 0
  // for ue4m3.
  InstrDescFields f = scaled(MmaKind::MXF4NVF4, ElemType::E2M1, ElemType::E2M1,
                             ScaleType::UE4M3, 128, 256);
  EXPECT_EQ(encodeOk(f), 0x08400480u);
  f.scaleVecSize = 16;
  EXPECT_EQ(encodeOk(f), 0x08400480u);
}

struct IdescCase {
  const char *name;
  InstrDescFields fields;
  uint32_t expected;
};

std::vector<IdescCase> legalIdescCases() {
  std::vector<IdescCase> cases;
  auto add = [&](const char *name, InstrDescFields f, uint32_t expected) {
    cases.push_back({name, f, expected});
  };
  // f16 x f16 -> f16, M=64 N=8: D 0, A 0, B 0, N 1 << 17, M 4 << 24.
  add("f16 m64 n8 d=f16",
      dense(MmaKind::F16, ElemType::F16, ElemType::F16, ElemType::F16, 64, 8),
      0x04020000u);
  // bf16 M=256 N=256 cta_group::2, both MN-major: 0x10 | 0x80 | 0x400 |
  // 1<<15 | 1<<16 | 32<<17 | 16<<24.
  {
    InstrDescFields f = dense(MmaKind::F16, ElemType::BF16, ElemType::BF16,
                              ElemType::F32, 256, 256, 2);
    f.aMajor = Major::MN;
    f.bMajor = Major::MN;
    add("bf16 m256 cta2 mn-major", f, 0x10418490u);
  }
  // bf16 M=128 N=128 cta_group::2, A MN-major only: 0x10 | 0x80 | 0x400 |
  // 1<<15 | 16<<17 | 8<<24.
  {
    InstrDescFields f = dense(MmaKind::F16, ElemType::BF16, ElemType::BF16,
                              ElemType::F32, 128, 128, 2);
    f.aMajor = Major::MN;
    add("bf16 m128 cta2 a mn-major", f, 0x08208490u);
  }
  // Negate A and B, bf16 M=128 N=128: 0x10 | 0x80 | 0x400 | 1<<13 | 1<<14 |
  // 16<<17 | 8<<24.
  {
    InstrDescFields f = dense(MmaKind::F16, ElemType::BF16, ElemType::BF16,
                              ElemType::F32, 128, 128);
    f.negateA = true;
    f.negateB = true;
    add("bf16 negate", f, 0x08206490u);
  }
  // tf32 M=128 N=64: D 1<<4, A 2<<7, B 2<<10, N 8<<17, M 8<<24.
  add("tf32 m128 n64",
      dense(MmaKind::TF32, ElemType::TF32, ElemType::TF32, ElemType::F32, 128,
            64),
      0x08100910u);
  // f8f6f4 e4m3 x e4m3 -> f32, M=128 N=128: 1<<4 | 16<<17 | 8<<24.
  add("f8f6f4 e4m3",
      dense(MmaKind::F8F6F4, ElemType::E4M3, ElemType::E4M3, ElemType::F32, 128,
            128),
      0x08200010u);
  // f8f6f4 e4m3 x e2m1 -> f16, M=64 N=32: B 5<<10 | 4<<17 | 4<<24.
  add("f8f6f4 e4m3 x e2m1",
      dense(MmaKind::F8F6F4, ElemType::E4M3, ElemType::E2M1, ElemType::F16, 64,
            32),
      0x04081400u);
  // f8f6f4 e5m2 x e3m2 -> f32 M=128 N=16: A 1<<7, B 4<<10, D 1<<4, N 2<<17.
  add("f8f6f4 e5m2 x e3m2",
      dense(MmaKind::F8F6F4, ElemType::E5M2, ElemType::E3M2, ElemType::F32, 128,
            16),
      0x08041090u);
  // i8 s8 x s8 -> s32 saturate, M=128 N=256: 1<<3 | 2<<4 | 1<<7 | 1<<10 |
  // 32<<17 | 8<<24.
  {
    InstrDescFields f =
        dense(MmaKind::I8, ElemType::S8, ElemType::S8, ElemType::S32, 128, 256);
    f.saturate = true;
    add("i8 s8 saturate", f, 0x084004A8u);
  }
  // i8 u8 x s8 -> s32, M=64 N=48: 2<<4 | 0<<7 | 1<<10 | 6<<17 | 4<<24.
  add("i8 u8 x s8",
      dense(MmaKind::I8, ElemType::U8, ElemType::S8, ElemType::S32, 64, 48),
      0x040C0420u);
  // .ws f16 M=32 N=64 max shift 16 (code 2): 1<<4 | 8<<17 | 2<<24 | 2<<30.
  {
    InstrDescFields f = dense(MmaKind::F16, ElemType::F16, ElemType::F16,
                              ElemType::F32, 32, 64);
    f.weightStationary = true;
    f.maxShift = 2;
    add("ws f16 m32 shift16", f, 0x82100010u);
  }
  // mxf8f6f4 e4m3 x e2m1, M=128 N=128, ue8m0, A id 1, B id 3: B id 3<<4 |
  // B 5<<10 | 16<<17 | 1<<23 | M 1<<27 | A id 1<<29.
  {
    InstrDescFields f = scaled(MmaKind::MXF8F6F4, ElemType::E4M3,
                               ElemType::E2M1, ScaleType::UE8M0, 128, 128);
    f.aScaleId = 1;
    f.bScaleId = 3;
    add("mxf8f6f4 ids", f, 0x28A01430u);
  }
  // mxf4 (ue8m0, block32) M=256 N=256 cta_group::2, ids 2: 2<<4 | 1<<7 |
  // 1<<10 | 32<<17 | 1<<23 | 2<<27 | 2<<29.
  {
    InstrDescFields f = scaled(MmaKind::MXF4, ElemType::E2M1, ElemType::E2M1,
                               ScaleType::UE8M0, 256, 256, 2);
    f.aScaleId = 2;
    f.bScaleId = 2;
    add("mxf4 m256 ids", f, 0x50C004A0u);
  }
  // mxf4nvf4 ue8m0 block16, M=128 N=8: 1<<7 | 1<<10 | 1<<17 | 1<<23 | 1<<27.
  add("mxf4nvf4 ue8m0 n8",
      scaled(MmaKind::MXF4NVF4, ElemType::E2M1, ElemType::E2M1,
             ScaleType::UE8M0, 128, 8),
      0x08820480u);
  // mxf4nvf4 ue4m3, negate A, M=128 N=128 cta_group::2: 1<<7 | 1<<10 |
  // 1<<13 | 16<<17 | 1<<27.
  {
    InstrDescFields f = scaled(MmaKind::MXF4NVF4, ElemType::E2M1,
                               ElemType::E2M1, ScaleType::UE4M3, 128, 128, 2);
    f.negateA = true;
    add("mxf4nvf4 ue4m3 cta2 negate", f, 0x08202480u);
  }
  return cases;
}

TEST(InstrDescTest, LegalDescriptorsMatchHandEncodings) {
  for (const IdescCase &c : legalIdescCases()) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(verifyInstrDesc(c.fields), std::nullopt);
    EXPECT_EQ(encodeOk(c.fields), c.expected);
  }
}

TEST(InstrDescTest, DecodeInvertsEncode) {
  for (const IdescCase &c : legalIdescCases()) {
    SCOPED_TRACE(c.name);
    std::string error;
    auto f = decodeInstrDesc(c.expected, c.fields.kind, &error);
    ASSERT_TRUE(f.has_value()) << error;
    EXPECT_EQ(f->kind, c.fields.kind);
    EXPECT_EQ(f->a, c.fields.a);
    EXPECT_EQ(f->b, c.fields.b);
    EXPECT_EQ(f->d, isBlockScaled(c.fields.kind) ? ElemType::F32 : c.fields.d);
    EXPECT_EQ(f->m, c.fields.m);
    EXPECT_EQ(f->n, c.fields.n);
    EXPECT_EQ(f->aMajor, c.fields.aMajor);
    EXPECT_EQ(f->bMajor, c.fields.bMajor);
    EXPECT_EQ(f->negateA, c.fields.negateA);
    EXPECT_EQ(f->negateB, c.fields.negateB);
    EXPECT_EQ(f->saturate, c.fields.saturate);
    EXPECT_EQ(f->maxShift, c.fields.maxShift);
    EXPECT_EQ(f->weightStationary, c.fields.weightStationary);
    EXPECT_EQ(f->aScaleId, c.fields.aScaleId);
    EXPECT_EQ(f->bScaleId, c.fields.bScaleId);
    if (isBlockScaled(c.fields.kind)) {
      EXPECT_EQ(f->scaleType, c.fields.scaleType);
    }
    // Re-encoding the decoded fields reproduces the bits.
    EXPECT_EQ(encodeOk(*f), c.expected);
  }
}

TEST(InstrDescTest, DecodeInfersCtaGroupFromM) {
  std::string error;
  auto f = decodeInstrDesc(0x10418490u, MmaKind::F16, &error);
  ASSERT_TRUE(f.has_value()) << error;
  EXPECT_EQ(f->ctaGroup, 2u);
  f = decodeInstrDesc(0x08400490u, MmaKind::F16, &error);
  ASSERT_TRUE(f.has_value()) << error;
  EXPECT_EQ(f->ctaGroup, 1u);
}

TEST(InstrDescTest, DecodeRejectsBadBits) {
  std::string error;
  // Bit 2: sparse.
  expectError(decodeInstrDesc(0x08400494u, MmaKind::F16, &error), error,
              "expected a dense instruction descriptor (bit 2 clear), got "
              "0x8400494");
  // Bits 0-1 without sparsity.
  expectError(decodeInstrDesc(0x08400491u, MmaKind::F16, &error), error,
              "expected sparsity selector bits 0-1 to be zero");
  // Reserved bit 6, 23 and 29 of Table 42.
  expectError(decodeInstrDesc(0x084004D0u, MmaKind::F16, &error), error,
              "expected reserved bit 6 of a kind::f16 instruction descriptor "
              "to be zero");
  expectError(decodeInstrDesc(0x08C00490u, MmaKind::F16, &error), error,
              "expected reserved bit 23 of a kind::f16");
  expectError(decodeInstrDesc(0x28400490u, MmaKind::F16, &error), error,
              "expected reserved bit 29 of a kind::f16");
  // D format 3 does not exist.
  expectError(decodeInstrDesc(0x084004B0u, MmaKind::F16, &error), error,
              "expected a valid D format code for kind::f16, got 3");
  // A format 2 (tf32) is not a kind::f16 type.
  expectError(decodeInstrDesc(0x08400510u, MmaKind::F16, &error), error,
              "expected a valid A format code for kind::f16, got 2");
  // f8f6f4 code 2 is unassigned.
  expectError(decodeInstrDesc(0x08200810u, MmaKind::F8F6F4, &error), error,
              "expected a valid B format code for kind::f8f6f4, got 2");
  // Block-scaled: reserved 24-26, bit 31, bit 12 of mxf4.
  expectError(decodeInstrDesc(0x09400480u, MmaKind::MXF4NVF4, &error), error,
              "expected reserved bits 24-26 of a kind::mxf4nvf4");
  expectError(decodeInstrDesc(0x88400480u, MmaKind::MXF4NVF4, &error), error,
              "expected bit 31 (k = 96, sm_103a only) to be zero");
  expectError(decodeInstrDesc(0x88400480u, MmaKind::MXF8F6F4, &error), error,
              "expected reserved bit 31 of a kind::mxf8f6f4");
  expectError(decodeInstrDesc(0x08401480u, MmaKind::MXF4NVF4, &error), error,
              "expected reserved bit 12 of a kind::mxf4nvf4");
  // Decoded fields are verified: M = 48 (3 << 24) is no shape.
  expectError(decodeInstrDesc(0x03400490u, MmaKind::F16, &error), error,
              "expected M in {64, 128} for kind::f16 with cta_group::1, got "
              "48");
  // ue4m3 with a scale id of 2 needs block32, which ue4m3 cannot use.
  expectError(decodeInstrDesc(0x48400480u, MmaKind::MXF4NVF4, &error), error,
              "expected A scale-factor id 0 with scale vector size 16, got 2");
}

TEST(InstrDescTest, ShapeLegalityCounts) {
  // Count legal N over [0, 512] rather than restating the rule.
  auto countLegalN = [](InstrDescFields f) {
    unsigned count = 0;
    for (uint32_t n = 0; n <= 512; ++n) {
      f.n = n;
      if (!verifyInstrDesc(f))
        ++count;
    }
    return count;
  };
  auto bf16 = [](uint32_t m, unsigned cta) {
    return dense(MmaKind::F16, ElemType::BF16, ElemType::BF16, ElemType::F32, m,
                 0, cta);
  };
  auto i8 = [](uint32_t m, unsigned cta) {
    return dense(MmaKind::I8, ElemType::S8, ElemType::S8, ElemType::S32, m, 0,
                 cta);
  };
  EXPECT_EQ(countLegalN(bf16(64, 1)), 32u);  // 8..256 step 8
  EXPECT_EQ(countLegalN(bf16(128, 1)), 32u); // 8..256 step 8
  EXPECT_EQ(countLegalN(bf16(128, 2)), 16u); // 16..256 step 16
  EXPECT_EQ(countLegalN(bf16(256, 2)), 16u);
  EXPECT_EQ(countLegalN(i8(128, 1)), 18u); // 8,16,24,32 + 48..256 step 16
  EXPECT_EQ(countLegalN(i8(256, 2)), 8u);  // 32..256 step 32
  InstrDescFields ws = bf16(64, 1);
  ws.weightStationary = true;
  EXPECT_EQ(countLegalN(ws), 3u); // 64, 128, 256
  EXPECT_EQ(countLegalN(scaled(MmaKind::MXF4NVF4, ElemType::E2M1,
                               ElemType::E2M1, ScaleType::UE4M3, 128, 0, 1)),
            32u);
  EXPECT_EQ(countLegalN(scaled(MmaKind::MXF4NVF4, ElemType::E2M1,
                               ElemType::E2M1, ScaleType::UE4M3, 256, 0, 2)),
            16u);
  // The N field holds N >> 3 at bits 17-22: N = 8 and N = 256.
  InstrDescFields f = bf16(128, 1);
  f.n = 8;
  EXPECT_EQ(encodeOk(f), 0x08020490u);
  f.n = 248;
  EXPECT_EQ(encodeOk(f), 0x083E0490u);
}

TEST(InstrDescTest, IllegalShapesPerKind) {
  auto bf16 = [](uint32_t m, uint32_t n, unsigned cta) {
    return dense(MmaKind::F16, ElemType::BF16, ElemType::BF16, ElemType::F32, m,
                 n, cta);
  };
  expectVerifyError(bf16(256, 128, 1),
                    "expected M in {64, 128} for kind::f16 with cta_group::1, "
                    "got 256");
  expectVerifyError(bf16(64, 128, 2),
                    "expected M in {128, 256} for kind::f16 with "
                    "cta_group::2, got 64");
  expectVerifyError(bf16(128, 12, 1),
                    "expected N to be a multiple of 8 for kind::f16 with "
                    "cta_group::1, got 12");
  expectVerifyError(bf16(128, 264, 1),
                    "expected N in [8, 256] for kind::f16 with cta_group::1, "
                    "got 264");
  expectVerifyError(bf16(128, 136, 2),
                    "expected N to be a multiple of 16 for kind::f16 with "
                    "cta_group::2, got 136");
  expectVerifyError(bf16(256, 8, 2),
                    "expected N in [16, 256] for kind::f16 with cta_group::2, "
                    "got 8");
  expectVerifyError(bf16(128, 128, 3), "expected cta_group 1 or 2, got 3");
  // tf32 and f8f6f4 follow the f16 table.
  expectVerifyError(dense(MmaKind::TF32, ElemType::TF32, ElemType::TF32,
                          ElemType::F32, 32, 64),
                    "expected M in {64, 128} for kind::tf32 with "
                    "cta_group::1, got 32");
  expectVerifyError(dense(MmaKind::F8F6F4, ElemType::E4M3, ElemType::E4M3,
                          ElemType::F32, 256, 40, 2),
                    "expected N to be a multiple of 16 for kind::f8f6f4 with "
                    "cta_group::2, got 40");
  // i8 (Table 39): steps of 16 above 32 for ::1, steps of 32 for ::2.
  expectVerifyError(
      dense(MmaKind::I8, ElemType::S8, ElemType::S8, ElemType::S32, 128, 40),
      "expected N in {8, 16, 24, 32} or a multiple of 16 in "
      "[48, 256] for kind::i8 with cta_group::1, got 40");
  expectVerifyError(
      dense(MmaKind::I8, ElemType::S8, ElemType::S8, ElemType::S32, 256, 48, 2),
      "expected N to be a multiple of 32 for kind::i8 with "
      "cta_group::2, got 48");
  // .ws.
  InstrDescFields ws = bf16(32, 96, 1);
  ws.weightStationary = true;
  expectVerifyError(ws, "expected N in {64, 128, 256} for kind::f16 with .ws, "
                        "got 96");
  ws.n = 64;
  ws.m = 256;
  expectVerifyError(ws, "expected M in {32, 64, 128} for kind::f16 with .ws, "
                        "got 256");
  ws.m = 128;
  ws.ctaGroup = 2;
  expectVerifyError(ws, "expected cta_group::1 with .ws, got cta_group::2");
  // Block-scaled.
  expectVerifyError(scaled(MmaKind::MXF4NVF4, ElemType::E2M1, ElemType::E2M1,
                           ScaleType::UE4M3, 64, 128),
                    "expected M = 128 for kind::mxf4nvf4 with cta_group::1, "
                    "got 64");
  expectVerifyError(scaled(MmaKind::MXF8F6F4, ElemType::E4M3, ElemType::E4M3,
                           ScaleType::UE8M0, 256, 128, 1),
                    "expected M = 128 for kind::mxf8f6f4 with cta_group::1, "
                    "got 256");
  expectVerifyError(scaled(MmaKind::MXF4, ElemType::E2M1, ElemType::E2M1,
                           ScaleType::UE8M0, 256, 24, 2),
                    "expected N to be a multiple of 16 for kind::mxf4 with "
                    "cta_group::2, got 24");
  InstrDescFields bsws = scaled(MmaKind::MXF4NVF4, ElemType::E2M1,
                                ElemType::E2M1, ScaleType::UE4M3, 128, 128);
  bsws.weightStationary = true;
  expectVerifyError(bsws, "expected no .ws for kind::mxf4nvf4 (block-scaled "
                          "kinds have no .ws form)");
}

TEST(InstrDescTest, TypeCompatibility) {
  expectVerifyError(dense(MmaKind::F16, ElemType::E4M3, ElemType::F16,
                          ElemType::F32, 128, 128),
                    "expected A type in {f16, bf16} for kind::f16, got e4m3");
  expectVerifyError(dense(MmaKind::F16, ElemType::F16, ElemType::BF16,
                          ElemType::F32, 128, 128),
                    "expected A and B of the same type for kind::f16, got A = "
                    "f16, B = bf16");
  expectVerifyError(dense(MmaKind::F16, ElemType::BF16, ElemType::BF16,
                          ElemType::F16, 128, 128),
                    "expected D type f32 for bf16 inputs of kind::f16, got "
                    "f16");
  expectVerifyError(dense(MmaKind::F16, ElemType::F16, ElemType::F16,
                          ElemType::S32, 128, 128),
                    "expected D type in {f16, f32} for kind::f16, got s32");
  expectVerifyError(dense(MmaKind::TF32, ElemType::TF32, ElemType::F16,
                          ElemType::F32, 128, 128),
                    "expected B type in tf32 for kind::tf32, got f16");
  expectVerifyError(dense(MmaKind::TF32, ElemType::TF32, ElemType::TF32,
                          ElemType::F16, 128, 128),
                    "expected D type f32 for kind::tf32, got f16");
  expectVerifyError(dense(MmaKind::F8F6F4, ElemType::S8, ElemType::E4M3,
                          ElemType::F32, 128, 128),
                    "expected A type in {e4m3, e5m2, e2m3, e3m2, e2m1} for "
                    "kind::f8f6f4, got s8");
  expectVerifyError(dense(MmaKind::F8F6F4, ElemType::E4M3, ElemType::E4M3,
                          ElemType::S32, 128, 128),
                    "expected D type in {f16, f32} for kind::f8f6f4, got s32");
  expectVerifyError(
      dense(MmaKind::I8, ElemType::S8, ElemType::S8, ElemType::F32, 128, 128),
      "expected D type s32 for kind::i8, got f32");
  expectVerifyError(
      dense(MmaKind::I8, ElemType::S8, ElemType::E4M3, ElemType::S32, 128, 128),
      "expected B type in {s8, u8} for kind::i8, got e4m3");
  expectVerifyError(scaled(MmaKind::MXF4, ElemType::E4M3, ElemType::E2M1,
                           ScaleType::UE8M0, 128, 128),
                    "expected A type in e2m1 for kind::mxf4, got e4m3");
  expectVerifyError(scaled(MmaKind::MXF8F6F4, ElemType::E4M3, ElemType::BF16,
                           ScaleType::UE8M0, 128, 128),
                    "expected B type in {e4m3, e5m2, e2m3, e3m2, e2m1} for "
                    "kind::mxf8f6f4, got bf16");
}

TEST(InstrDescTest, ModifierRules) {
  // Table 51: no transpose for mxf4 / mxf4nvf4.
  InstrDescFields f = scaled(MmaKind::MXF4NVF4, ElemType::E2M1, ElemType::E2M1,
                             ScaleType::UE4M3, 128, 128);
  f.aMajor = Major::MN;
  expectVerifyError(f, "expected k-major A for kind::mxf4nvf4 (transpose is "
                       "not supported), got mn-major");
  f.aMajor = Major::K;
  f.bMajor = Major::MN;
  expectVerifyError(f, "expected k-major B for kind::mxf4nvf4 (transpose is "
                       "not supported), got mn-major");
  // Table 51: no negate for i8.
  InstrDescFields i8 =
      dense(MmaKind::I8, ElemType::S8, ElemType::S8, ElemType::S32, 128, 128);
  i8.negateB = true;
  expectVerifyError(i8, "expected no negation for kind::i8, got negate B");
  // Table 52: MN-major 8-bit B.
  InstrDescFields f8 = dense(MmaKind::F8F6F4, ElemType::E4M3, ElemType::E4M3,
                             ElemType::F32, 128, 24);
  f8.bMajor = Major::MN;
  expectVerifyError(f8, "expected N to be a multiple of 16 in [16, 256] for an "
                        "mn-major 8-bit B with cta_group::1, got 24");
  f8.n = 32;
  EXPECT_EQ(verifyInstrDesc(f8), std::nullopt);
  f8.ctaGroup = 2;
  f8.n = 48;
  expectVerifyError(f8, "expected N to be a multiple of 32 in [32, 256] for an "
                        "mn-major 8-bit B with cta_group::2, got 48");
  // Saturate: i8 only.
  InstrDescFields bf = dense(MmaKind::F16, ElemType::BF16, ElemType::BF16,
                             ElemType::F32, 128, 128);
  bf.saturate = true;
  expectVerifyError(bf, "expected saturate only with kind::i8, got kind::f16");
  // Max shift: .ws only, 2 bits.
  bf.saturate = false;
  bf.maxShift = 1;
  expectVerifyError(bf, "expected max_shift 0 without .ws, got 1");
  bf.weightStationary = true;
  bf.maxShift = 4;
  expectVerifyError(bf, "expected max_shift in [0, 3], got 4");
}

TEST(InstrDescTest, ScaleRules) {
  // ue4m3 only with mxf4nvf4 and block16 (Table 57).
  expectVerifyError(scaled(MmaKind::MXF4, ElemType::E2M1, ElemType::E2M1,
                           ScaleType::UE4M3, 128, 128),
                    "expected scale type ue8m0 for kind::mxf4, got ue4m3");
  expectVerifyError(scaled(MmaKind::MXF8F6F4, ElemType::E4M3, ElemType::E4M3,
                           ScaleType::UE4M3, 128, 128),
                    "expected scale type ue8m0 for kind::mxf8f6f4, got ue4m3");
  InstrDescFields nv = scaled(MmaKind::MXF4NVF4, ElemType::E2M1, ElemType::E2M1,
                              ScaleType::UE4M3, 128, 128);
  nv.scaleVecSize = 32;
  expectVerifyError(nv, "expected scale vector size 16 (block16) with ue4m3 "
                        "scales, got 32");
  // Scale vector sizes per kind.
  InstrDescFields mx = scaled(MmaKind::MXF4, ElemType::E2M1, ElemType::E2M1,
                              ScaleType::UE8M0, 128, 128);
  mx.scaleVecSize = 16;
  expectVerifyError(mx, "expected scale vector size 32 for kind::mxf4, got 16");
  mx.scaleVecSize = 8;
  expectVerifyError(mx, "expected scale vector size 16 or 32, got 8");
  // Ids: 4X (block16) needs 0; 2X allows 0 or 2; 1X allows 0-3.
  nv.scaleVecSize = 16;
  nv.bScaleId = 2;
  expectVerifyError(nv, "expected B scale-factor id 0 with scale vector size "
                        "16, got 2");
  InstrDescFields nv32 = scaled(MmaKind::MXF4NVF4, ElemType::E2M1,
                                ElemType::E2M1, ScaleType::UE8M0, 128, 128);
  nv32.scaleVecSize = 32;
  nv32.aScaleId = 2;
  nv32.bScaleId = 2;
  EXPECT_EQ(verifyInstrDesc(nv32), std::nullopt);
  nv32.aScaleId = 1;
  expectVerifyError(nv32, "expected A scale-factor id in {0, 2} for "
                          "kind::mxf4nvf4 with scale vector size 32, got 1");
  InstrDescFields f8 = scaled(MmaKind::MXF8F6F4, ElemType::E4M3, ElemType::E4M3,
                              ScaleType::UE8M0, 128, 128);
  f8.aScaleId = 4;
  expectVerifyError(f8, "expected A scale-factor id in [0, 3] for "
                        "kind::mxf8f6f4, got 4");
  // Dense kinds take no scale settings.
  InstrDescFields bf = dense(MmaKind::F16, ElemType::BF16, ElemType::BF16,
                             ElemType::F32, 128, 128);
  bf.scaleVecSize = 16;
  expectVerifyError(bf, "expected no scale vector size for kind::f16, got 16");
  bf.scaleVecSize = 0;
  bf.aScaleId = 1;
  expectVerifyError(bf, "expected scale-factor ids 0 for kind::f16, got A = 1, "
                        "B = 0");
  // Defaults: 32 for mxf8f6f4 / mxf4, 16 for mxf4nvf4, none for dense.
  mx.scaleVecSize = 0;
  EXPECT_EQ(effectiveScaleVecSize(mx), 32u);
  EXPECT_EQ(
      effectiveScaleVecSize(scaled(MmaKind::MXF4NVF4, ElemType::E2M1,
                                   ElemType::E2M1, ScaleType::UE8M0, 128, 128)),
      16u);
  EXPECT_EQ(effectiveScaleVecSize(bf), 0u);
}

TEST(InstrDescTest, KindTables) {
  EXPECT_EQ(mmaK(MmaKind::F16), 16u);
  EXPECT_EQ(mmaK(MmaKind::TF32), 8u);
  EXPECT_EQ(mmaK(MmaKind::F8F6F4), 32u);
  EXPECT_EQ(mmaK(MmaKind::I8), 32u);
  EXPECT_EQ(mmaK(MmaKind::MXF8F6F4), 32u);
  EXPECT_EQ(mmaK(MmaKind::MXF4), 64u);
  EXPECT_EQ(mmaK(MmaKind::MXF4NVF4), 64u);
  EXPECT_FALSE(isBlockScaled(MmaKind::F8F6F4));
  EXPECT_TRUE(isBlockScaled(MmaKind::MXF8F6F4));
  EXPECT_TRUE(isBlockScaled(MmaKind::MXF4NVF4));
  EXPECT_EQ(elemBits(ElemType::E2M1), 4u);
  EXPECT_EQ(elemBits(ElemType::E3M2), 6u);
  EXPECT_EQ(elemBits(ElemType::E5M2), 8u);
  EXPECT_EQ(elemBits(ElemType::BF16), 16u);
  EXPECT_EQ(elemBits(ElemType::TF32), 32u);
  EXPECT_STREQ(stringify(ElemType::BF16), "bf16");
  EXPECT_STREQ(stringify(ElemType::E2M1), "e2m1");
  EXPECT_STREQ(stringify(MmaKind::MXF4NVF4), "mxf4nvf4");
  EXPECT_STREQ(stringify(Swizzle::B128Base32B), "128b_base32b");
  EXPECT_STREQ(stringify(Swizzle::None), "none");
  EXPECT_STREQ(stringify(Major::MN), "mn");
  EXPECT_STREQ(stringify(ScaleType::UE4M3), "ue4m3");
}

} // namespace
