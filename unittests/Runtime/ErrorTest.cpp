//===- ErrorTest.cpp - Tests for the runtime's Error and Expected ---------===//

#include "nvfp4/Runtime/Error.h"

#include "gtest/gtest.h"

#include <memory>

using namespace nvfp4::rt;

namespace {

TEST(ErrorTest, SuccessIsFalse) {
  Error e = Error::success();
  EXPECT_FALSE(e);
  EXPECT_EQ(e.message(), "");
}

TEST(ErrorTest, FailureCarriesItsMessage) {
  Error e = makeError("expected ", 16, " bytes, got ", 12);
  EXPECT_TRUE(e);
  EXPECT_EQ(e.message(), "expected 16 bytes, got 12");
}

TEST(ErrorTest, ContextPrefixesFailuresOnly) {
  EXPECT_EQ(makeError("bad").withContext("buffer 'x'").message(),
            "buffer 'x': bad");
  EXPECT_FALSE(Error::success().withContext("buffer 'x'"));
}

TEST(ErrorTest, ExpectedHoldsAValueOrAFailure) {
  Expected<int> value = 42;
  ASSERT_TRUE(value);
  EXPECT_EQ(*value, 42);
  EXPECT_FALSE(value.takeError());

  Expected<int> failure = makeError("no");
  ASSERT_FALSE(failure);
  Error e = failure.takeError();
  EXPECT_EQ(e.message(), "no");
}

TEST(ErrorTest, ExpectedHoldsMoveOnlyValues) {
  Expected<std::unique_ptr<int>> p = std::make_unique<int>(7);
  ASSERT_TRUE(p);
  std::unique_ptr<int> owned = std::move(*p);
  EXPECT_EQ(*owned, 7);
}

} // namespace
