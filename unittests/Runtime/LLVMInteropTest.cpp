//===- LLVMInteropTest.cpp - Tests for runtime errors as llvm::Error ------===//

#include "nvfp4/Runtime/LLVMInterop.h"

#include "gtest/gtest.h"

using namespace nvfp4::rt;

namespace {

TEST(LLVMInteropTest, FailureBecomesAStringError) {
  llvm::Error e = toLLVM(makeError("cuInit failed: CUDA_ERROR_NO_DEVICE"));
  ASSERT_TRUE(static_cast<bool>(e));
  EXPECT_EQ(llvm::toString(std::move(e)),
            "cuInit failed: CUDA_ERROR_NO_DEVICE");
}

TEST(LLVMInteropTest, SuccessStaysSuccess) {
  EXPECT_FALSE(static_cast<bool>(toLLVM(Error::success())));
}

TEST(LLVMInteropTest, ExpectedKeepsTheValueOrTheMessage) {
  llvm::Expected<int> v = toLLVM(Expected<int>(5));
  ASSERT_TRUE(static_cast<bool>(v));
  EXPECT_EQ(*v, 5);

  llvm::Expected<int> f = toLLVM(Expected<int>(makeError("no")));
  ASSERT_FALSE(static_cast<bool>(f));
  EXPECT_EQ(llvm::toString(f.takeError()), "no");
}

TEST(LLVMInteropTest, LLVMErrorBecomesARuntimeError) {
  Error e = fromLLVM(
      llvm::createStringError(llvm::inconvertibleErrorCode(), "parse failed"));
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "parse failed");
  EXPECT_FALSE(fromLLVM(llvm::Error::success()));
}

} // namespace
