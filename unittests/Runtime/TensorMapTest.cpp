//===- TensorMapTest.cpp - Tests for tensor-map descriptors ---------------===//
//
// One test per rule of cuTensorMapEncodeTiled (CUDA 13.0 cuda.h), each
// breaking exactly that rule of an otherwise valid descriptor.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/TensorMap.h"

#include "gtest/gtest.h"

using namespace nvfp4::rt;

namespace {

/// A valid 2-D bf16 map: 256 x 96 elements, rows of 512 bytes, a 64 x 32
/// box with the 128-byte swizzle (one 128-byte row per box row).
TensorMapDesc bf16Tile() {
  TensorMapDesc d;
  d.dataType = TmaDataType::BF16;
  d.rank = 2;
  d.globalAddress = 0x10000;
  d.globalDims = {256, 96, 0, 0, 0};
  d.globalStrides = {512, 0, 0, 0};
  d.boxDims = {64, 32, 0, 0, 0};
  d.swizzle = TmaSwizzle::B128;
  return d;
}

std::string failure(const TensorMapDesc &d) {
  Error e = validate(d);
  return e ? e.message() : std::string("<valid>");
}

TEST(TensorMapTest, ValidDescriptorPasses) {
  EXPECT_EQ(failure(bf16Tile()), "<valid>");
}

TEST(TensorMapTest, RankOneToFive) {
  TensorMapDesc d = bf16Tile();
  d.rank = 0;
  EXPECT_EQ(failure(d), "expected a tensor-map rank in [1, 5], got 0");
  d.rank = 6;
  EXPECT_EQ(failure(d), "expected a tensor-map rank in [1, 5], got 6");
}

TEST(TensorMapTest, InterleaveNeedsRankThree) {
  TensorMapDesc d = bf16Tile();
  d.interleave = TmaInterleave::B16;
  d.swizzle = TmaSwizzle::None;
  EXPECT_EQ(failure(d), "interleave 16B needs a rank of at least 3, got 2");
}

TEST(TensorMapTest, AddressAlignedTo16) {
  TensorMapDesc d = bf16Tile();
  d.globalAddress = 0x10008;
  EXPECT_EQ(failure(d),
            "expected the global address to be 16-byte aligned, got 0x10008");
}

TEST(TensorMapTest, AddressAlignedTo32ForInterleave32B) {
  TensorMapDesc d = bf16Tile();
  d.rank = 3;
  d.globalDims = {8, 4, 4, 0, 0};
  d.globalStrides = {32, 128, 0, 0};
  d.boxDims = {8, 4, 4, 0, 0};
  d.interleave = TmaInterleave::B32;
  d.swizzle = TmaSwizzle::B32;
  EXPECT_EQ(failure(d), "<valid>");
  d.globalAddress = 0x10010;
  EXPECT_EQ(failure(d),
            "expected the global address to be 32-byte aligned, got 0x10010");
}

TEST(TensorMapTest, DimsNonZeroAndAtMost2To32) {
  TensorMapDesc d = bf16Tile();
  d.globalDims[1] = 0;
  EXPECT_EQ(failure(d), "expected dims[1] in [1, 2^32], got 0");
  d.globalDims[1] = (uint64_t(1) << 32) + 1;
  EXPECT_EQ(failure(d), "expected dims[1] in [1, 2^32], got 4294967297");
  d.globalDims[1] = uint64_t(1) << 32;
  EXPECT_EQ(failure(d), "<valid>");
}

TEST(TensorMapTest, StridesMultipleOf16Below2To40) {
  TensorMapDesc d = bf16Tile();
  d.globalStrides[0] = 520;
  EXPECT_EQ(failure(d), "expected strides[0] (the byte stride of dim 1) to be "
                        "a multiple of 16 below 2^40, got 520");
  d.globalStrides[0] = uint64_t(1) << 40;
  EXPECT_EQ(failure(d), "expected strides[0] (the byte stride of dim 1) to be "
                        "a multiple of 16 below 2^40, got 1099511627776");
}

TEST(TensorMapTest, BoxInOneTo256) {
  TensorMapDesc d = bf16Tile();
  d.boxDims[1] = 0;
  EXPECT_EQ(failure(d), "expected box[1] in [1, 256], got 0");
  d.boxDims[1] = 257;
  EXPECT_EQ(failure(d), "expected box[1] in [1, 256], got 257");
}

TEST(TensorMapTest, InnerBoxMultipleOf16Bytes) {
  TensorMapDesc d = bf16Tile();
  d.boxDims[0] = 12; // 24 bytes
  EXPECT_EQ(failure(d), "expected the inner box (box[0] = 12 bf16 = 24 bytes) "
                        "to be a multiple of 16 bytes");
}

TEST(TensorMapTest, ElementStridesOneToEight) {
  TensorMapDesc d = bf16Tile();
  d.elementStrides[1] = 9;
  EXPECT_EQ(failure(d), "expected elemstrides[1] in [1, 8], got 9");
  d.elementStrides[1] = 0;
  EXPECT_EQ(failure(d), "expected elemstrides[1] in [1, 8], got 0");
}

TEST(TensorMapTest, InnerBoxFitsTheSwizzleSpan) {
  TensorMapDesc d = bf16Tile();
  d.boxDims[0] = 128; // 256 bytes
  EXPECT_EQ(failure(d), "swizzle 128B needs the inner box to be at most 128 "
                        "bytes, got 256 (box[0] = 128 bf16)");
  d = bf16Tile();
  d.swizzle = TmaSwizzle::B64;
  EXPECT_EQ(failure(d), "swizzle 64B needs the inner box to be at most 64 "
                        "bytes, got 128 (box[0] = 64 bf16)");
  d.boxDims[0] = 32;
  EXPECT_EQ(failure(d), "<valid>");
  d.swizzle = TmaSwizzle::B32;
  EXPECT_EQ(failure(d), "swizzle 32B needs the inner box to be at most 32 "
                        "bytes, got 64 (box[0] = 32 bf16)");
  d.swizzle = TmaSwizzle::None;
  d.boxDims[0] = 256;
  EXPECT_EQ(failure(d), "<valid>");
}

TEST(TensorMapTest, Interleave32BNeedsSwizzle32B) {
  TensorMapDesc d = bf16Tile();
  d.rank = 3;
  d.globalDims = {16, 4, 4, 0, 0};
  d.globalStrides = {32, 128, 0, 0};
  d.boxDims = {16, 4, 4, 0, 0};
  d.interleave = TmaInterleave::B32;
  d.swizzle = TmaSwizzle::None;
  EXPECT_EQ(failure(d), "interleave 32B needs swizzle 32B, got none");
}

TEST(TensorMapTest, PackedTypes) {
  TensorMapDesc d = bf16Tile();
  d.dataType = TmaDataType::U4x16Align16B;
  d.globalDims = {256, 96, 0, 0, 0};
  d.globalStrides = {128, 0, 0, 0};
  d.boxDims = {128, 32, 0, 0, 0};
  d.swizzle = TmaSwizzle::B128;
  EXPECT_EQ(failure(d), "<valid>");
  d.globalDims[0] = 192;
  EXPECT_EQ(failure(d), "element type u4x16_align16b needs dims[0] to be a "
                        "multiple of 128, got 192");
  d.globalDims[0] = 256;
  d.boxDims[0] = 64;
  EXPECT_EQ(failure(d), "element type u4x16_align16b needs box[0] = 128, "
                        "got 64");
  d.boxDims[0] = 128;
  d.swizzle = TmaSwizzle::B64;
  EXPECT_EQ(failure(d), "element type u4x16_align16b supports swizzle none, "
                        "128B or 128B_atom_32B, got 64B");
  d.swizzle = TmaSwizzle::B128;
  d.globalStrides[0] = 144;
  EXPECT_EQ(failure(d), "expected strides[0] (the byte stride of dim 1) to be "
                        "a multiple of 32 below 2^40, got 144");
  d.globalStrides[0] = 128;
  d.globalAddress = 0x10010;
  EXPECT_EQ(failure(d),
            "expected the global address to be 32-byte aligned, got 0x10010");

  TensorMapDesc e = bf16Tile();
  e.dataType = TmaDataType::U4x16Align8B;
  e.globalDims[0] = 255;
  e.boxDims[0] = 64; // 32 bytes
  e.swizzle = TmaSwizzle::None;
  EXPECT_EQ(failure(e), "element type u4x16_align8b needs dims[0] to be a "
                        "multiple of 2, got 255");
}

TEST(TensorMapTest, NaNFillNeedsAFloatType) {
  TensorMapDesc d = bf16Tile();
  d.oobFill = TmaOobFill::NaN;
  EXPECT_EQ(failure(d), "<valid>");
  d.dataType = TmaDataType::U16;
  EXPECT_EQ(failure(d),
            "OOB fill nan needs a floating-point element type, got u16");
}

TEST(TensorMapTest, FootprintCountsEveryDimension) {
  TensorMapDesc d = bf16Tile();
  // 95 rows of 512 bytes, then one row of 256 bf16.
  EXPECT_EQ(footprintBytes(d), 95u * 512 + 512);
  d.rank = 3;
  d.globalDims[2] = 4;
  d.globalStrides[1] = 96 * 512;
  EXPECT_EQ(footprintBytes(d), 3u * 96 * 512 + 95u * 512 + 512);
  d.rank = 1;
  d.dataType = TmaDataType::U4x16Align8B;
  d.globalDims[0] = 33;
  EXPECT_EQ(footprintBytes(d), 17u);
}

TEST(TensorMapTest, NamesRoundTrip) {
  for (unsigned t = 0; t <= 15; ++t) {
    auto parsed = parseTmaDataType(stringify(static_cast<TmaDataType>(t)));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(static_cast<unsigned>(*parsed), t);
  }
  for (unsigned s = 0; s <= 6; ++s) {
    auto parsed = parseTmaSwizzle(stringify(static_cast<TmaSwizzle>(s)));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(static_cast<unsigned>(*parsed), s);
  }
  EXPECT_EQ(*parseTmaSwizzle("128b"), TmaSwizzle::B128);
  EXPECT_EQ(*parseTmaOobFill("zero"), TmaOobFill::None);
  EXPECT_EQ(*parseTmaOobFill("nan"), TmaOobFill::NaN);
  EXPECT_EQ(*parseTmaL2Promotion("256B"), TmaL2Promotion::B256);
  EXPECT_EQ(*parseTmaInterleave("32B"), TmaInterleave::B32);
  EXPECT_EQ(parseTmaSwizzle("96B").takeError().message(),
            "unknown swizzle '96B' (expected one of none, 32B, 64B, 128B, "
            "128B_atom_32B, 128B_atom_32B_flip_8B, 128B_atom_64B)");
  EXPECT_EQ(parseTmaDataType("fp8").takeError().message().substr(0, 46),
            "unknown tensor-map element type 'fp8' (expecte");
  EXPECT_EQ(parseTmaOobFill("inf").takeError().message(),
            "unknown OOB fill 'inf' (expected one of zero, none, nan)");
}

TEST(TensorMapTest, SwizzleSpans) {
  EXPECT_EQ(swizzleSpanBytes(TmaSwizzle::None), 0u);
  EXPECT_EQ(swizzleSpanBytes(TmaSwizzle::B32), 32u);
  EXPECT_EQ(swizzleSpanBytes(TmaSwizzle::B64), 64u);
  EXPECT_EQ(swizzleSpanBytes(TmaSwizzle::B128), 128u);
  EXPECT_EQ(swizzleSpanBytes(TmaSwizzle::B128Atom64B), 128u);
}

TEST(TensorMapTest, Describe) {
  EXPECT_EQ(describe(bf16Tile()),
            "bf16 dims=[256,96] strides=[512] box=[64,32] swizzle=128B "
            "interleave=none l2=none oob=none");
  TensorMapDesc d = bf16Tile();
  d.elementStrides[1] = 2;
  EXPECT_EQ(describe(d),
            "bf16 dims=[256,96] strides=[512] box=[64,32] elemstrides=[1,2] "
            "swizzle=128B interleave=none l2=none oob=none");
}

TEST(TensorMapTest, PortableEncodingRoundTrips) {
  TensorMapDesc d = bf16Tile();
  d.rank = 5;
  d.globalDims = {256, 96, 3, 2, 7};
  d.globalStrides = {512, 512 * 96, 512 * 96 * 3, 512 * 96 * 3 * 2};
  d.boxDims = {64, 256, 1, 2, 7};
  d.elementStrides = {1, 2, 3, 4, 8};
  d.l2Promotion = TmaL2Promotion::B256;
  d.oobFill = TmaOobFill::NaN;
  TensorMapBlob blob = encodePortable(d);
  EXPECT_EQ(std::string(blob.bytes.begin(), blob.bytes.begin() + 4), "NVTM");
  auto back = decodePortable(blob);
  ASSERT_TRUE(back) << back.takeError().message();
  EXPECT_EQ(back->dataType, d.dataType);
  EXPECT_EQ(back->rank, d.rank);
  EXPECT_EQ(back->globalAddress, d.globalAddress);
  EXPECT_EQ(back->globalDims, d.globalDims);
  EXPECT_EQ(back->globalStrides, d.globalStrides);
  EXPECT_EQ(back->boxDims, d.boxDims);
  EXPECT_EQ(back->elementStrides, d.elementStrides);
  EXPECT_EQ(back->swizzle, d.swizzle);
  EXPECT_EQ(back->l2Promotion, d.l2Promotion);
  EXPECT_EQ(back->oobFill, d.oobFill);
}

TEST(TensorMapTest, PortableDecodingRejectsOtherBytes) {
  TensorMapBlob zeros;
  EXPECT_EQ(decodePortable(zeros).takeError().message(),
            "not a portable tensor map (expected the magic 'NVTM')");
  TensorMapBlob blob = encodePortable(bf16Tile());
  blob.bytes[4] = 2;
  EXPECT_EQ(decodePortable(blob).takeError().message(),
            "unsupported portable tensor-map version 2 (expected 1)");
  blob = encodePortable(bf16Tile());
  blob.bytes[6] = 7; // rank
  EXPECT_EQ(decodePortable(blob).takeError().message(),
            "invalid portable tensor map: expected a tensor-map rank in "
            "[1, 5], got 7");
}

} // namespace
