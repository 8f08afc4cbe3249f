//===- Error.h - Error and Expected for the plain-C++ runtime ---*- C++ -*-===//
//
// The runtime (lib/Runtime) is plain C++17 with no LLVM dependency, so that it
// builds on the GPU machine (CUDA and a compiler, no LLVM/MLIR packages) and
// links with the plain-C++ emulator (lib/Emulator). Its fallible functions
// return these two types, which follow llvm::Error / llvm::Expected's
// conventions (an Error converts to true when it holds a failure; an Expected
// converts to true when it holds a value), so code written against them reads
// like LLVM code. LLVMInterop.h turns them into llvm::Error / llvm::Expected
// for callers that link LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_ERROR_H
#define NVFP4_RUNTIME_ERROR_H

#include <cassert>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace nvfp4::rt {

/// The result of an operation that returns nothing: success, or a failure
/// with a message. Messages follow the house style: lowercase, no trailing
/// period, saying what was expected and what was found.
class [[nodiscard]] Error {
public:
  /// A success value.
  static Error success() { return Error(); }
  /// A failure carrying `message`.
  static Error failure(std::string message) {
    Error e;
    e.message_ = std::make_unique<std::string>(std::move(message));
    return e;
  }

  Error(Error &&) noexcept = default;
  Error &operator=(Error &&) noexcept = default;

  /// True when this holds a failure (as llvm::Error).
  explicit operator bool() const { return message_ != nullptr; }
  /// The failure's message; empty on success.
  const std::string &message() const {
    static const std::string empty;
    return message_ ? *message_ : empty;
  }
  /// Returns a failure whose message is `prefix + ": " + message()`; success
  /// stays success.
  Error withContext(const std::string &prefix) && {
    if (message_)
      *message_ = prefix + ": " + *message_;
    return std::move(*this);
  }

private:
  Error() = default;
  std::unique_ptr<std::string> message_;
};

/// Builds a failure from the stream-formatted concatenation of `parts`:
/// `makeError("expected ", n, " bytes, got ", m)`.
template <typename... Parts> Error makeError(const Parts &...parts) {
  std::ostringstream os;
  (os << ... << parts);
  return Error::failure(os.str());
}

/// A value of type T, or a failure (as llvm::Expected).
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T &&value) : value_(std::move(value)) {}
  Expected(const T &value) : value_(value) {}
  Expected(Error error) : error_(std::move(error)) {
    assert(error_ && "an Expected made from an Error must hold a failure");
  }

  Expected(Expected &&) noexcept = default;
  Expected &operator=(Expected &&) noexcept = default;

  /// True when this holds a value.
  explicit operator bool() const { return value_.has_value(); }

  T &operator*() {
    assert(value_ && "dereferencing an Expected that holds a failure");
    return *value_;
  }
  const T &operator*() const {
    assert(value_ && "dereferencing an Expected that holds a failure");
    return *value_;
  }
  T *operator->() { return &**this; }
  const T *operator->() const { return &**this; }

  /// Moves the failure out (success when this holds a value).
  Error takeError() {
    if (value_)
      return Error::success();
    return std::move(error_);
  }

private:
  std::optional<T> value_;
  Error error_ = Error::success();
};

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_ERROR_H
