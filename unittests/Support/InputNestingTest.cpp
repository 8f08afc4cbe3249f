//===- InputNestingTest.cpp - findExcessiveNesting ------------------------===//

#include "nvfp4/Support/InputNesting.h"

#include <gtest/gtest.h>

#include <string>

using nvfp4::findExcessiveNesting;

namespace {

std::string nested(char open, char close, int depth) {
  return std::string(depth, open) + std::string(depth, close);
}

TEST(InputNesting, AcceptsUpToTheLimit) {
  EXPECT_FALSE(findExcessiveNesting(nested('[', ']', 4), 4));
  EXPECT_FALSE(findExcessiveNesting("func.func @f() -> (i32) { }", 2));
  // Sequential brackets do not add up.
  EXPECT_FALSE(findExcessiveNesting("[][][][]()(){}{}<><>", 1));
}

TEST(InputNesting, ReportsTheFirstBracketPastTheLimit) {
  for (auto [o, c] : {std::pair{'[', ']'}, {'(', ')'}, {'{', '}'},
                      {'<', '>'}}) {
    auto e = findExcessiveNesting("x\n  " + nested(o, c, 5), 4);
    ASSERT_TRUE(e) << o;
    EXPECT_EQ(e->line, 2u);
    EXPECT_EQ(e->column, 7u); // the fifth opener
    EXPECT_EQ(e->limit, 4u);
  }
  // Mixed kinds count together.
  EXPECT_TRUE(findExcessiveNesting("{([<[", 4));
}

TEST(InputNesting, SkipsStringsCommentsAndArrows) {
  EXPECT_FALSE(findExcessiveNesting("\"[[[[[[\" // ((((((\n[]", 2));
  // An escaped quote does not end the string.
  EXPECT_FALSE(findExcessiveNesting(R"("a\"[[[[[[" [])", 2));
  // `->` and `>=` close nothing, `<=` opens nothing.
  auto e = findExcessiveNesting("((-> ( >= <= (", 3);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->column, 14u);
}

TEST(InputNesting, StrayClosersDoNotGoNegative) {
  EXPECT_TRUE(findExcessiveNesting("]]]]]]" + nested('[', ']', 3), 2));
}

TEST(InputNesting, MessageNamesTheLimit) {
  auto e = findExcessiveNesting(nested('[', ']', 300));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->column, 257u);
  EXPECT_NE(e->message().find("deeper than 256"), std::string::npos);
}

} // namespace

TEST(InputNestingTest, IndexDenseArraysAreHazards) {
  // MLIR 22's parser crashes on a dense array of index elements.
  auto bad = nvfp4::findInputHazard(
      "func.func @f() {\n  %0 = \"m.a\"() <{s = array<index: 0, 0>}> : () -> i1\n}");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->line, 2u);
  EXPECT_EQ(bad->column, 22u);
  EXPECT_NE(bad->message.find("array<index: ...>"), std::string::npos);
  EXPECT_TRUE(nvfp4::findInputHazard("x = array < index >"));
  // Other element types, strings, comments and longer identifiers are fine.
  EXPECT_FALSE(nvfp4::findInputHazard("x = array<i64: 0, 0>"));
  EXPECT_FALSE(nvfp4::findInputHazard("x = \"array<index: 0>\""));
  EXPECT_FALSE(nvfp4::findInputHazard("// array<index: 0>\nx = 1"));
  EXPECT_FALSE(nvfp4::findInputHazard("x = myarray<index>"));
  EXPECT_FALSE(nvfp4::findInputHazard("x = array<indexed>"));
  // Nesting is reported the same way.
  auto deep = nvfp4::findInputHazard(std::string(300, '[') + std::string(300, ']'));
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->column, 257u);
}
