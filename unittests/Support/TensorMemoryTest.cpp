//===- TensorMemoryTest.cpp - Tests for the tensor memory tables ----------===//
//
// Expected values are literals from the PTX ISA (allocation rules, Table 49)
// and from the CUTLASS Copy_Traits<SM100_TMEM_LOAD_*> layouts worked out by
// hand in the comments.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Support/TensorMemory.h"

#include "gtest/gtest.h"

#include <set>
#include <utility>

using namespace nvfp4::tmem;

namespace {

//===----------------------------------------------------------------------===//
// Geometry and addressing
//===----------------------------------------------------------------------===//

TEST(TensorMemoryTest, Geometry) {
  EXPECT_EQ(kLanes, 128u);
  EXPECT_EQ(kColumns, 512u);
  EXPECT_EQ(kMinAllocColumns, 32u);
  EXPECT_EQ(kLanesPerWarp, 32u);
}

TEST(TensorMemoryTest, AddressPacksLaneHighColumnLow) {
  // PTX 9.7.16.1.1: lane in bits 31-16, column in bits 15-0.
  EXPECT_EQ(makeAddress(0, 0), 0u);
  EXPECT_EQ(makeAddress(32, 64), 0x00200040u);
  EXPECT_EQ(makeAddress(127, 511), 0x007F01FFu);
  EXPECT_EQ(addressLane(0x00600010u), 96u);
  EXPECT_EQ(addressColumn(0x00600010u), 16u);
}

TEST(TensorMemoryTest, LaneQuadrants) {
  // PTX 9.7.16.8.1: warp w reaches lanes 32 * (w % 4) .. + 31.
  EXPECT_EQ(laneQuadrantBase(0), 0u);
  EXPECT_EQ(laneQuadrantBase(3), 96u);
  EXPECT_EQ(laneQuadrantBase(4), 0u);
  EXPECT_EQ(laneQuadrantBase(6), 64u);
}

//===----------------------------------------------------------------------===//
// Allocation (PTX 9.7.16.7.1)
//===----------------------------------------------------------------------===//

TEST(TensorMemoryTest, AllocColumnsMustBePowersOfTwoIn32To512) {
  for (int64_t ok : {32, 64, 128, 256, 512})
    EXPECT_EQ(verifyAllocColumns(ok), std::nullopt) << ok;
  const std::pair<int64_t, const char *> bad[] = {
      {0, "expected a power of two in [32, 512] columns, got 0"},
      {16, "expected a power of two in [32, 512] columns, got 16"},
      {48, "expected a power of two in [32, 512] columns, got 48"},
      {33, "expected a power of two in [32, 512] columns, got 33"},
      {1024, "expected a power of two in [32, 512] columns, got 1024"},
      {-32, "expected a power of two in [32, 512] columns, got -32"},
  };
  for (auto [columns, message] : bad) {
    auto error = verifyAllocColumns(columns);
    ASSERT_TRUE(error.has_value()) << columns;
    EXPECT_EQ(*error, message);
  }
}

TEST(TensorMemoryTest, RoundUpAllocColumns) {
  const std::pair<uint64_t, unsigned> cases[] = {
      {0, 32},    {1, 32},    {32, 32},   {33, 64},  {64, 64},
      {100, 128}, {200, 256}, {257, 512}, {512, 512}};
  for (auto [columns, expected] : cases)
    EXPECT_EQ(roundUpAllocColumns(columns), std::optional<unsigned>(expected))
        << columns;
  EXPECT_EQ(roundUpAllocColumns(513), std::nullopt);
  EXPECT_EQ(roundUpAllocColumns(1ull << 40), std::nullopt);
}

//===----------------------------------------------------------------------===//
// tcgen05.ld/st shapes (PTX 9.7.16.8.3, Table 49)
//===----------------------------------------------------------------------===//

TEST(TensorMemoryTest, ShapeNames) {
  EXPECT_STREQ(stringify(LdStShape::S16x64b), "16x64b");
  EXPECT_STREQ(stringify(LdStShape::S16x128b), "16x128b");
  EXPECT_STREQ(stringify(LdStShape::S16x256b), "16x256b");
  EXPECT_STREQ(stringify(LdStShape::S32x32b), "32x32b");
  EXPECT_STREQ(stringify(LdStShape::S16x32bx2), "16x32bx2");
}

struct RegCase {
  LdStShape shape;
  unsigned num;
  std::optional<unsigned> regs;
};

TEST(TensorMemoryTest, RegistersPerThreadFollowTable49) {
  const RegCase cases[] = {
      // .16x32bx2 / .16x64b / .32x32b: num registers, up to .x128.
      {LdStShape::S32x32b, 1, 1},
      {LdStShape::S32x32b, 2, 2},
      {LdStShape::S32x32b, 128, 128},
      {LdStShape::S16x64b, 1, 1},
      {LdStShape::S16x64b, 128, 128},
      {LdStShape::S16x32bx2, 16, 16},
      {LdStShape::S16x32bx2, 128, 128},
      // .16x128b: 2 * num, "NA" for .x128.
      {LdStShape::S16x128b, 1, 2},
      {LdStShape::S16x128b, 8, 16},
      {LdStShape::S16x128b, 64, 128},
      {LdStShape::S16x128b, 128, std::nullopt},
      // .16x256b: 4 * num, "NA" for .x64 and .x128.
      {LdStShape::S16x256b, 1, 4},
      {LdStShape::S16x256b, 4, 16},
      {LdStShape::S16x256b, 32, 128},
      {LdStShape::S16x256b, 64, std::nullopt},
      {LdStShape::S16x256b, 128, std::nullopt},
      // .num must be one of .x1, .x2, ..., .x128.
      {LdStShape::S32x32b, 0, std::nullopt},
      {LdStShape::S32x32b, 3, std::nullopt},
      {LdStShape::S32x32b, 256, std::nullopt},
      {LdStShape::S16x64b, 6, std::nullopt},
      {LdStShape::S16x32bx2, 0, std::nullopt},
  };
  for (const RegCase &c : cases)
    EXPECT_EQ(registersPerThread(c.shape, c.num), c.regs)
        << stringify(c.shape) << ".x" << c.num;
}

TEST(TensorMemoryTest, ShapeLanesAndColumns) {
  EXPECT_EQ(shapeLanes(LdStShape::S32x32b), 32u);
  EXPECT_EQ(shapeLanes(LdStShape::S16x64b), 16u);
  EXPECT_EQ(shapeLanes(LdStShape::S16x128b), 16u);
  EXPECT_EQ(shapeLanes(LdStShape::S16x256b), 16u);
  EXPECT_EQ(shapeLanes(LdStShape::S16x32bx2), 16u);
  // Bits per lane / 32 per repetition.
  EXPECT_EQ(shapeColumns(LdStShape::S32x32b, 4), 4u);
  EXPECT_EQ(shapeColumns(LdStShape::S16x64b, 4), 8u);
  EXPECT_EQ(shapeColumns(LdStShape::S16x128b, 4), 16u);
  EXPECT_EQ(shapeColumns(LdStShape::S16x256b, 4), 32u);
  EXPECT_EQ(shapeColumns(LdStShape::S16x32bx2, 4), 4u);
  EXPECT_EQ(shapeColumns(LdStShape::S32x32b, 128), 128u);
  EXPECT_EQ(shapeColumns(LdStShape::S16x256b, 32), 256u);
}

//===----------------------------------------------------------------------===//
// Thread mapping (CUTLASS Copy_Traits<SM100_TMEM_LOAD_*> DstLayouts)
//===----------------------------------------------------------------------===//

void expectAt(LdStShape shape, unsigned num, unsigned t, unsigned r,
              unsigned lane, unsigned column) {
  LaneColumn lc = threadRegisterToTmem(shape, num, t, r);
  EXPECT_EQ(lc.lane, lane) << stringify(shape) << ".x" << num << " t=" << t
                           << " r=" << r;
  EXPECT_EQ(lc.column, column)
      << stringify(shape) << ".x" << num << " t=" << t << " r=" << r;
}

TEST(ThreadMappingTest, Shape32x32b) {
  // 32dp32b2x: ((32),(64)):((64),(1)) bits -> lane t, bit r*32 -> column r.
  expectAt(LdStShape::S32x32b, 1, 0, 0, 0, 0);
  expectAt(LdStShape::S32x32b, 2, 5, 1, 5, 1);
  expectAt(LdStShape::S32x32b, 8, 31, 7, 31, 7);
}

TEST(ThreadMappingTest, Shape16x64b) {
  // 16dp64b1x: ((2,2,8),32):((512,32,64),1) over 64-bit lanes: lane =
  // 8*(t%2) + t/4, column = (t/2)%2.
  expectAt(LdStShape::S16x64b, 1, 0, 0, 0, 0);
  expectAt(LdStShape::S16x64b, 1, 1, 0, 8, 0);
  expectAt(LdStShape::S16x64b, 1, 2, 0, 0, 1);
  expectAt(LdStShape::S16x64b, 1, 3, 0, 8, 1);
  expectAt(LdStShape::S16x64b, 1, 4, 0, 1, 0);
  expectAt(LdStShape::S16x64b, 1, 31, 0, 15, 1);
  // 16dp64b2x: ((2,2,8),(32,2)):((1024,32,128),(1,64)) over 128-bit lanes:
  // register 1 is 2 columns further.
  expectAt(LdStShape::S16x64b, 2, 6, 1, 1, 3);
  expectAt(LdStShape::S16x64b, 4, 9, 3, 10, 6);
}

TEST(ThreadMappingTest, Shape16x128b) {
  // 16dp128b1x: ((4,8),(32,2)):((32,128),(1,1024)) over 128-bit lanes:
  // lane t/4 (+8 for r = 1), column t%4.
  expectAt(LdStShape::S16x128b, 1, 0, 0, 0, 0);
  expectAt(LdStShape::S16x128b, 1, 0, 1, 8, 0);
  expectAt(LdStShape::S16x128b, 1, 7, 0, 1, 3);
  expectAt(LdStShape::S16x128b, 1, 31, 1, 15, 3);
  // 16dp128b2x: ((4,8),(32,2,2)):((32,256),(1,2048,128)): registers 2-3
  // are the second 4-column repetition.
  expectAt(LdStShape::S16x128b, 2, 5, 2, 1, 5);
  expectAt(LdStShape::S16x128b, 2, 5, 3, 9, 5);
}

TEST(ThreadMappingTest, Shape16x256b) {
  // 16dp256b1x: ((4,8),(64,2)):((64,256),(1,2048)) over 256-bit lanes:
  // lane t/4 (+8 for r >= 2), columns 2*(t%4) and 2*(t%4)+1.
  expectAt(LdStShape::S16x256b, 1, 0, 0, 0, 0);
  expectAt(LdStShape::S16x256b, 1, 0, 1, 0, 1);
  expectAt(LdStShape::S16x256b, 1, 0, 2, 8, 0);
  expectAt(LdStShape::S16x256b, 1, 0, 3, 8, 1);
  expectAt(LdStShape::S16x256b, 1, 13, 0, 3, 2);
  expectAt(LdStShape::S16x256b, 1, 13, 1, 3, 3);
  expectAt(LdStShape::S16x256b, 1, 13, 2, 11, 2);
  expectAt(LdStShape::S16x256b, 1, 13, 3, 11, 3);
  // 16dp256b2x: ((4,8),(64,2,2)):((64,512),(1,4096,256)): registers 4-7
  // are the second 8-column repetition.
  expectAt(LdStShape::S16x256b, 2, 13, 5, 3, 11);
  expectAt(LdStShape::S16x256b, 2, 31, 7, 15, 15);
}

TEST(ThreadMappingTest, Shape16x32bx2) {
  // 16dp32b4x: ((16,2),128):((256,128),1) over 256-bit lanes: lane t%16,
  // threads 16-31 start 4 columns (= num, CUTLASS's immHalfSplitoff) on.
  expectAt(LdStShape::S16x32bx2, 4, 3, 2, 3, 2);
  expectAt(LdStShape::S16x32bx2, 4, 19, 2, 3, 6);
  expectAt(LdStShape::S16x32bx2, 1, 16, 0, 0, 1);
  // An explicit immHalfSplitoff of 16 columns.
  LaneColumn lc = threadRegisterToTmem(LdStShape::S16x32bx2, 4, 19, 2, 16);
  EXPECT_EQ(lc.lane, 3u);
  EXPECT_EQ(lc.column, 18u);
  // The split offset does not affect other shapes.
  lc = threadRegisterToTmem(LdStShape::S16x256b, 1, 13, 2, 16);
  EXPECT_EQ(lc.lane, 11u);
  EXPECT_EQ(lc.column, 2u);
}

TEST(ThreadMappingTest, EveryAccessCoversItsFootprintExactlyOnce) {
  // 32 threads x registersPerThread cells, no two alike, filling
  // shapeLanes x shapeColumns (two halves for 16x32bx2).
  const LdStShape shapes[] = {LdStShape::S32x32b, LdStShape::S16x64b,
                              LdStShape::S16x128b, LdStShape::S16x256b,
                              LdStShape::S16x32bx2};
  for (LdStShape shape : shapes)
    for (unsigned num : {1u, 2u, 4u, 16u}) {
      SCOPED_TRACE(std::string(stringify(shape)) + ".x" + std::to_string(num));
      unsigned regs = registersPerThread(shape, num).value();
      unsigned lanes = shapeLanes(shape);
      unsigned columns =
          shapeColumns(shape, num) * (shape == LdStShape::S16x32bx2 ? 2 : 1);
      std::set<std::pair<unsigned, unsigned>> seen;
      for (unsigned t = 0; t < 32; ++t)
        for (unsigned r = 0; r < regs; ++r) {
          LaneColumn lc = threadRegisterToTmem(shape, num, t, r);
          EXPECT_LT(lc.lane, lanes);
          EXPECT_LT(lc.column, columns);
          seen.insert({lc.lane, lc.column});
        }
      EXPECT_EQ(seen.size(), size_t(32) * regs);
      EXPECT_EQ(seen.size(), size_t(lanes) * columns);
    }
}

} // namespace
