//===- LLVMInterop.h - Runtime errors as llvm::Error ------------*- C++ -*-===//
//
// For code that links LLVM (the compiler, nvfp4-run's MLIR-input mode):
// turns the runtime's plain-C++ Error / Expected into llvm::Error /
// llvm::Expected, so that runtime calls sit in LLVM-style code unchanged:
//
//   llvm::Expected<std::unique_ptr<rt::Device>> device =
//       rt::toLLVM(rt::createDevice(rt::BackendKind::Cuda, {}));
//
// Header-only; the runtime library itself does not depend on LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_LLVMINTEROP_H
#define NVFP4_RUNTIME_LLVMINTEROP_H

#include "nvfp4/Runtime/Error.h"

#include "llvm/Support/Error.h"

#include <utility>

namespace nvfp4::rt {

/// A runtime Error as an llvm::Error (a StringError with its message).
inline llvm::Error toLLVM(Error error) {
  if (!error)
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 error.message());
}

/// A runtime Expected as an llvm::Expected.
template <typename T> llvm::Expected<T> toLLVM(Expected<T> value) {
  if (!value)
    return toLLVM(value.takeError());
  return std::move(*value);
}

/// An llvm::Error as a runtime Error (its message, joined by toString).
inline Error fromLLVM(llvm::Error error) {
  if (!error)
    return Error::success();
  return Error::failure(llvm::toString(std::move(error)));
}

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_LLVMINTEROP_H
