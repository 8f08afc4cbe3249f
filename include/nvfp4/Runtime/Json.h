//===- Json.h - A small JSON reader and writer for the runtime --*- C++ -*-===//
//
// The runtime is plain C++ (it builds where there is no LLVM), so it cannot
// use llvm::json. Kernel artifacts (KernelArtifact.h) are JSON; this is
// their reader: RFC 8259 text to a tree, with every failure a message that
// names the line and column, and bounds on nesting so that hostile input
// cannot exhaust the stack.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_JSON_H
#define NVFP4_RUNTIME_JSON_H

#include "nvfp4/Runtime/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nvfp4::rt::json {

struct Value {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  /// Number: the literal as written (so integers keep all 64 bits);
  /// String: the decoded text (UTF-8).
  std::string text;
  std::vector<Value> items;                           ///< Array
  std::vector<std::pair<std::string, Value>> members; ///< Object, in order

  /// Object: the member named `key` (the last of duplicates), else null.
  const Value *get(const std::string &key) const;
};

/// "null", "bool", "number", "string", "array", "object".
const char *stringify(Value::Kind k);

/// Parses one JSON text (whitespace around it allowed, nothing after it).
/// Nesting deeper than 64 levels is refused.
Expected<Value> parse(const std::string &text);

/// `s` as a JSON string literal, quotes included (control characters
/// escaped; other bytes as they are).
std::string quote(const std::string &s);

/// A double as a JSON value: the shortest text that reads back exactly;
/// inf, -inf and nan, which JSON lacks, as the strings "inf", "-inf" and
/// "nan" (asDouble reads them back).
std::string number(double v);

/// Checked conversions; `path` names the value in the messages
/// ("harness.tensors[2].shape").
Expected<uint64_t> asU64(const Value &v, const std::string &path);
Expected<double> asDouble(const Value &v, const std::string &path);
Expected<std::string> asString(const Value &v, const std::string &path);
Expected<bool> asBool(const Value &v, const std::string &path);

} // namespace nvfp4::rt::json

#endif // NVFP4_RUNTIME_JSON_H
