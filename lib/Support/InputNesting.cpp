//===- InputNesting.cpp - Bound the bracket nesting of MLIR input ---------===//

#include "nvfp4/Support/InputNesting.h"

namespace nvfp4 {

std::string NestingError::message() const {
  return "brackets nested deeper than " + std::to_string(limit) +
         " (MLIR's recursive-descent parser would overflow the stack); "
         "nvfp4's tools reject such input";
}

std::optional<NestingError> findExcessiveNesting(std::string_view text,
                                                 unsigned limit) {
  unsigned depth = 0;
  size_t line = 1, lineStart = 0;
  for (size_t i = 0, n = text.size(); i < n; ++i) {
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      break;
    case '"': // a string literal: up to the unescaped closing quote
      for (++i; i < n && text[i] != '"'; ++i) {
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n') {
          ++line;
          lineStart = i + 1;
        }
      }
      break;
    case '/':
      if (i + 1 < n && text[i + 1] == '/')
        while (i + 1 < n && text[i + 1] != '\n')
          ++i;
      break;
    case '-':
      if (i + 1 < n && text[i + 1] == '>')
        ++i; // `->` closes nothing
      break;
    case '<':
      if (i + 1 < n && text[i + 1] == '=') {
        ++i; // `<=` opens nothing
        break;
      }
      [[fallthrough]];
    case '(':
    case '[':
    case '{':
      if (++depth > limit)
        return NestingError{line, i - lineStart + 1, limit};
      break;
    case ')':
    case ']':
    case '}':
    case '>':
      if (c == '>' && i + 1 < n && text[i + 1] == '=') {
        ++i; // `>=` of an integer set closes nothing
        break;
      }
      // A stray closer can only make the count lower than the parser's
      // depth, and the parser stops at what it cannot parse.
      if (depth)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

} // namespace nvfp4
