//===- Error.h - Errors as values for the PTX emulator ----------*- C++ -*-===//
//
// The project builds with -fno-exceptions, so every fallible emulator
// function returns an `Error` (success or a message) or an `Expected<T>`
// (a value or an `Error`). Both are cheap to move and carry a human-readable
// message that already names where the problem is (PTX line and column, or
// CTA / warp / lane and line at run time).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_EMULATOR_ERROR_H
#define NVFP4_EMULATOR_ERROR_H

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace nvfp4::emu {

/// Success, or a failure with a message. Test with `if (err)`: true means
/// failure. The message is the complete diagnostic (no "error: " prefix).
class [[nodiscard]] Error {
public:
  /// The success value.
  Error() = default;
  /// Returns a failure carrying `message`.
  static Error failure(std::string message) {
    Error e;
    e.message_ = std::make_unique<std::string>(std::move(message));
    return e;
  }
  /// Returns the success value (for symmetry with failure()).
  static Error success() { return Error(); }

  Error(Error &&) = default;
  Error &operator=(Error &&) = default;

  /// True on failure.
  explicit operator bool() const { return message_ != nullptr; }
  /// The failure message; empty on success.
  const std::string &message() const {
    static const std::string empty;
    return message_ ? *message_ : empty;
  }

private:
  std::unique_ptr<std::string> message_;
};

/// A value of type T, or an Error. Test with `if (!x)` for failure; then
/// `x.takeError()`. On success `*x` / `x->` give the value.
template <typename T> class [[nodiscard]] Expected {
public:
  /// A success holding `value`.
  Expected(T value) : value_(std::move(value)) {}
  /// A failure. `error` must be a failure.
  Expected(Error error) : error_(std::move(error)) {
    assert(error_ && "Expected constructed from a success Error");
  }

  Expected(Expected &&) = default;
  Expected &operator=(Expected &&) = default;

  /// True on success.
  explicit operator bool() const { return value_.has_value(); }
  /// The value; only valid on success.
  T &operator*() {
    assert(value_);
    return *value_;
  }
  const T &operator*() const {
    assert(value_);
    return *value_;
  }
  T *operator->() {
    assert(value_);
    return &*value_;
  }
  const T *operator->() const {
    assert(value_);
    return &*value_;
  }
  /// Moves the error out; only valid on failure.
  Error takeError() {
    assert(!value_);
    return std::move(error_);
  }
  /// The failure message (empty on success).
  const std::string &message() const { return error_.message(); }

private:
  std::optional<T> value_;
  Error error_;
};

} // namespace nvfp4::emu

#endif // NVFP4_EMULATOR_ERROR_H
