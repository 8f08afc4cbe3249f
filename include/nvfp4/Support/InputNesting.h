//===- InputNesting.h - Bound the bracket nesting of MLIR input -----------===//
//
// MLIR's parser is recursive descent: every `[`, `(`, `{` or `<` it opens
// is a C++ stack frame, and an input nested a few thousand deep (8 KiB of
// `[`, found by fuzz/mlir_fuzzer.cpp) overflows the stack and kills the
// process. Our tools check the nesting depth of an input before they hand
// it to the parser and reject a deeper one with a diagnostic. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_SUPPORT_INPUTNESTING_H
#define NVFP4_SUPPORT_INPUTNESTING_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace nvfp4 {

/// The deepest nesting the tools accept: far beyond hand-written or
/// generated MLIR (a few tens), far below what overflows an 8 MiB stack
/// (about 8,000 for attributes, fewer for nested regions).
constexpr unsigned kMaxInputNesting = 256;

/// Where an input first nests deeper than the limit.
struct NestingError {
  size_t line = 0, column = 0; // 1-based
  unsigned limit = 0;
  /// "brackets nested deeper than 256 (...)".
  std::string message() const;
};

/// Scans MLIR text for `(`, `[`, `{`, `<` and their closers, skipping
/// string literals ("..." with escapes), `//` comments and the `->` of
/// function types; returns the first place where more than `limit` are
/// open, or nothing.
std::optional<NestingError> findExcessiveNesting(std::string_view text,
                                                 unsigned limit = kMaxInputNesting);

/// Input MLIR 22's parser crashes on, found before it sees it.
struct InputHazard {
  size_t line = 0, column = 0; // 1-based
  std::string message;
};

/// The first hazard in MLIR text: nesting deeper than kMaxInputNesting, or
/// a dense array of `index` elements (`array<index: ...>`, which MLIR 22's
/// parser dereferences as a null element type and crashes on: found by
/// scripts/fuzz-opt.py, upstream mlir-opt-22 crashes alike); strings and
/// `//` comments are skipped.
std::optional<InputHazard> findInputHazard(std::string_view text);

} // namespace nvfp4

#endif // NVFP4_SUPPORT_INPUTNESTING_H
