//===- Json.cpp - A small JSON reader and writer for the runtime ----------===//

#include "nvfp4/Runtime/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nvfp4::rt::json {

const Value *Value::get(const std::string &key) const {
  const Value *found = nullptr;
  for (const auto &[k, v] : members)
    if (k == key)
      found = &v;
  return found;
}

const char *stringify(Value::Kind k) {
  switch (k) {
  case Value::Kind::Null:
    return "null";
  case Value::Kind::Bool:
    return "bool";
  case Value::Kind::Number:
    return "number";
  case Value::Kind::String:
    return "string";
  case Value::Kind::Array:
    return "array";
  case Value::Kind::Object:
    return "object";
  }
  return "?";
}

namespace {

constexpr unsigned kMaxDepth = 64;

class Parser {
public:
  explicit Parser(const std::string &text) : s(text) {}

  Expected<Value> document() {
    Value v;
    if (Error e = value(v, 0))
      return std::move(e);
    skipSpace();
    if (pos != s.size())
      return fail("unexpected text after the JSON value");
    return v;
  }

private:
  const std::string &s;
  size_t pos = 0;

  Error fail(const std::string &what) const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos && i < s.size(); ++i) {
      if (s[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return makeError(line, ":", column, ": ", what);
  }

  void skipSpace() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' ||
                              s[pos] == '\n' || s[pos] == '\r'))
      ++pos;
  }

  bool literal(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (s.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }

  Error value(Value &v, unsigned depth) {
    if (depth > kMaxDepth)
      return fail("nesting deeper than 64 levels");
    skipSpace();
    if (pos >= s.size())
      return fail("expected a value, found the end of the text");
    char c = s[pos];
    if (c == '{')
      return object(v, depth);
    if (c == '[')
      return array(v, depth);
    if (c == '"') {
      v.kind = Value::Kind::String;
      return string(v.text);
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return numberValue(v);
    if (literal("true") || literal("false")) {
      v.kind = Value::Kind::Bool;
      v.boolean = c == 't';
      return Error::success();
    }
    if (literal("null")) {
      v.kind = Value::Kind::Null;
      return Error::success();
    }
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "unexpected byte 0x%02x", u);
      return fail(buf);
    }
    return fail(std::string("unexpected character '") + c + "'");
  }

  Error object(Value &v, unsigned depth) {
    v.kind = Value::Kind::Object;
    ++pos; // {
    skipSpace();
    if (pos < s.size() && s[pos] == '}') {
      ++pos;
      return Error::success();
    }
    while (true) {
      skipSpace();
      if (pos >= s.size() || s[pos] != '"')
        return fail("expected a member name (a string)");
      std::string key;
      if (Error e = string(key))
        return e;
      skipSpace();
      if (pos >= s.size() || s[pos] != ':')
        return fail("expected ':' after a member name");
      ++pos;
      Value member;
      if (Error e = value(member, depth + 1))
        return e;
      v.members.emplace_back(std::move(key), std::move(member));
      skipSpace();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == '}') {
        ++pos;
        return Error::success();
      }
      return fail("expected ',' or '}' in an object");
    }
  }

  Error array(Value &v, unsigned depth) {
    v.kind = Value::Kind::Array;
    ++pos; // [
    skipSpace();
    if (pos < s.size() && s[pos] == ']') {
      ++pos;
      return Error::success();
    }
    while (true) {
      Value item;
      if (Error e = value(item, depth + 1))
        return e;
      v.items.push_back(std::move(item));
      skipSpace();
      if (pos < s.size() && s[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < s.size() && s[pos] == ']') {
        ++pos;
        return Error::success();
      }
      return fail("expected ',' or ']' in an array");
    }
  }

  static void appendUtf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xc0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += char(0xe0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3f));
      out += char(0x80 | (cp & 0x3f));
    } else {
      out += char(0xf0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3f));
      out += char(0x80 | ((cp >> 6) & 0x3f));
      out += char(0x80 | (cp & 0x3f));
    }
  }

  Error hex4(uint32_t &out) {
    if (pos + 4 > s.size())
      return fail("a \\u escape needs 4 hex digits");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s[pos++];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f')
        out |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        out |= uint32_t(c - 'A' + 10);
      else
        return fail("a \\u escape needs 4 hex digits");
    }
    return Error::success();
  }

  Error string(std::string &out) {
    ++pos; // "
    while (true) {
      if (pos >= s.size())
        return fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(s[pos]);
      if (c == '"') {
        ++pos;
        return Error::success();
      }
      if (c < 0x20)
        return fail("a control character inside a string");
      if (c != '\\') {
        out += char(c);
        ++pos;
        continue;
      }
      if (++pos >= s.size())
        return fail("unterminated string");
      char e = s[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp;
        if (Error err = hex4(cp))
          return err;
        if (cp >= 0xd800 && cp < 0xdc00) {
          uint32_t low;
          if (!literal("\\u"))
            return fail("a high surrogate without its low half");
          if (Error err = hex4(low))
            return err;
          if (low < 0xdc00 || low >= 0xe000)
            return fail("a high surrogate without its low half");
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        } else if (cp >= 0xdc00 && cp < 0xe000) {
          return fail("a low surrogate without its high half");
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        return fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }

  Error numberValue(Value &v) {
    size_t start = pos;
    auto digits = [&] {
      size_t n = 0;
      while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
        ++pos;
        ++n;
      }
      return n;
    };
    if (s[pos] == '-')
      ++pos;
    if (pos < s.size() && s[pos] == '0') {
      ++pos;
    } else if (!digits()) {
      return fail("a number needs digits");
    }
    if (pos < s.size() && s[pos] == '.') {
      ++pos;
      if (!digits())
        return fail("a number needs digits after '.'");
    }
    if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
      ++pos;
      if (pos < s.size() && (s[pos] == '+' || s[pos] == '-'))
        ++pos;
      if (!digits())
        return fail("a number needs digits in its exponent");
    }
    v.kind = Value::Kind::Number;
    v.text = s.substr(start, pos - start);
    return Error::success();
  }
};

Error typeError(const Value &v, const std::string &path, const char *want) {
  return makeError(path, ": expected ", want, ", found ", stringify(v.kind),
                   v.kind == Value::Kind::Number || v.kind == Value::Kind::String
                       ? " " + v.text
                       : std::string());
}

} // namespace

Expected<Value> parse(const std::string &text) {
  return Parser(text).document();
}

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string number(double v) {
  if (std::isnan(v))
    return "\"nan\"";
  if (std::isinf(v))
    return v > 0 ? "\"inf\"" : "\"-inf\"";
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

Expected<uint64_t> asU64(const Value &v, const std::string &path) {
  if (v.kind != Value::Kind::Number || v.text.empty() || v.text[0] == '-' ||
      v.text.find_first_of(".eE") != std::string::npos)
    return typeError(v, path, "a non-negative integer");
  errno = 0;
  unsigned long long n = std::strtoull(v.text.c_str(), nullptr, 10);
  if (errno == ERANGE)
    return makeError(path, ": ", v.text, " does not fit in 64 bits");
  return uint64_t(n);
}

Expected<double> asDouble(const Value &v, const std::string &path) {
  if (v.kind == Value::Kind::String) {
    if (v.text == "inf")
      return HUGE_VAL;
    if (v.text == "-inf")
      return -HUGE_VAL;
    if (v.text == "nan")
      return std::nan("");
  }
  if (v.kind != Value::Kind::Number)
    return typeError(v, path, "a number");
  return std::strtod(v.text.c_str(), nullptr);
}

Expected<std::string> asString(const Value &v, const std::string &path) {
  if (v.kind != Value::Kind::String)
    return typeError(v, path, "a string");
  return v.text;
}

Expected<bool> asBool(const Value &v, const std::string &path) {
  if (v.kind != Value::Kind::Bool)
    return typeError(v, path, "true or false");
  return v.boolean;
}

} // namespace nvfp4::rt::json
