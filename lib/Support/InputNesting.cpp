//===- InputNesting.cpp - Bound the bracket nesting of MLIR input ---------===//

#include "nvfp4/Support/InputNesting.h"

namespace nvfp4 {

namespace {

/// From the opening quote at `i`: to the unescaped closing quote, counting
/// the lines inside.
void skipString(std::string_view text, size_t &i, size_t &line,
                size_t &lineStart) {
  for (++i; i < text.size() && text[i] != '"'; ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == '\n') {
      ++line;
      lineStart = i + 1;
    }
  }
}

} // namespace

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
      skipString(text, i, line, lineStart);
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

std::optional<InputHazard> findInputHazard(std::string_view text) {
  if (auto deep = findExcessiveNesting(text))
    return InputHazard{deep->line, deep->column, deep->message()};
  auto ident = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
  };
  auto skipSpace = [&](size_t i) {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' ||
            text[i] == '\r'))
      ++i;
    return i;
  };
  size_t line = 1, lineStart = 0;
  for (size_t i = 0, n = text.size(); i < n; ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    } else if (c == '"') {
      skipString(text, i, line, lineStart);
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i + 1 < n && text[i + 1] != '\n')
        ++i;
    } else if (text.substr(i, 5) == "array" && (i == 0 || !ident(text[i - 1]))) {
      size_t j = skipSpace(i + 5);
      if (j < n && text[j] == '<') {
        j = skipSpace(j + 1);
        if (text.substr(j, 5) == "index" && (j + 5 >= n || !ident(text[j + 5])))
          return InputHazard{line, i - lineStart + 1,
                             "a dense array of index elements "
                             "(array<index: ...>), which MLIR's parser "
                             "crashes on; nvfp4's tools reject it (use "
                             "array<i64: ...>)"};
      }
      i += 4;
    }
  }
  return std::nullopt;
}

} // namespace nvfp4
