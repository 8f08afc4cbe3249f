//===- JsonTest.cpp - Tests for the runtime's JSON reader and writer ------===//

#include "nvfp4/Runtime/Json.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>

using namespace nvfp4::rt;
using json::Value;

namespace {

std::string errorOf(const std::string &text) {
  auto v = json::parse(text);
  return v ? std::string("(parsed)") : v.takeError().message();
}

TEST(JsonTest, ParsesEveryKind) {
  auto v = json::parse(R"( {"a": [1, -2.5e3, true, false, null],
                            "b": {"c": "d"}} )");
  ASSERT_TRUE(v);
  ASSERT_EQ(v->kind, Value::Kind::Object);
  const Value *a = v->get("a");
  ASSERT_TRUE(a);
  ASSERT_EQ(a->items.size(), 5u);
  EXPECT_EQ(a->items[0].text, "1");
  EXPECT_EQ(a->items[1].text, "-2.5e3");
  EXPECT_TRUE(a->items[2].boolean);
  EXPECT_EQ(a->items[4].kind, Value::Kind::Null);
  EXPECT_EQ(v->get("b")->get("c")->text, "d");
  EXPECT_EQ(v->get("missing"), nullptr);
}

TEST(JsonTest, IntegersKeepAll64Bits) {
  auto v = json::parse("18446744073709551615");
  ASSERT_TRUE(v);
  auto n = json::asU64(*v, "n");
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 18446744073709551615ull);
  auto big = json::parse("18446744073709551616");
  EXPECT_EQ(json::asU64(*big, "n").takeError().message(),
            "n: 18446744073709551616 does not fit in 64 bits");
  auto neg = json::parse("-1");
  EXPECT_EQ(json::asU64(*neg, "n").takeError().message(),
            "n: expected a non-negative integer, found number -1");
  auto frac = json::parse("1.5");
  EXPECT_FALSE(json::asU64(*frac, "n"));
}

TEST(JsonTest, StringsDecodeEscapesAndSurrogates) {
  auto v = json::parse(R"("a\"b\\c\/\n\u00e9\ud83d\ude00")");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->text, "a\"b\\c/\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(errorOf(R"("\ud83d")"),
            "1:8: a high surrogate without its low half");
  EXPECT_EQ(errorOf(R"("\ude00")"),
            "1:8: a low surrogate without its high half");
  EXPECT_EQ(errorOf("\"a\nb\""), "1:3: a control character inside a string");
  EXPECT_EQ(errorOf(R"("\x")"), "1:4: unknown escape '\\x'");
}

TEST(JsonTest, QuoteRoundTrips) {
  std::string s = "tab\t\"quote\" back\\slash \x01 \xc3\xa9";
  auto v = json::parse(json::quote(s));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->text, s);
}

TEST(JsonTest, NumbersRoundTripExactly) {
  for (double d : {0.1, 1e-300, 6.02214076e23, -0.0, 448.0, 1.0 / 3}) {
    auto v = json::parse(json::number(d));
    ASSERT_TRUE(v);
    auto back = json::asDouble(*v, "d");
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, d);
    EXPECT_EQ(std::signbit(*back), std::signbit(d));
  }
  EXPECT_EQ(json::number(INFINITY), "\"inf\"");
  auto inf = json::parse(json::number(-INFINITY));
  EXPECT_EQ(*json::asDouble(*inf, "d"), -INFINITY);
  auto nan = json::parse(json::number(NAN));
  EXPECT_TRUE(std::isnan(*json::asDouble(*nan, "d")));
}

TEST(JsonTest, ErrorsNameLineAndColumn) {
  EXPECT_EQ(errorOf(""), "1:1: expected a value, found the end of the text");
  EXPECT_EQ(errorOf("{\n  \"a\": 1,\n  \"b\" 2}"),
            "3:7: expected ':' after a member name");
  EXPECT_EQ(errorOf("[1 2]"), "1:4: expected ',' or ']' in an array");
  EXPECT_EQ(errorOf("{\"a\": 1} x"), "1:10: unexpected text after the JSON value");
  EXPECT_EQ(errorOf("01"), "1:2: unexpected text after the JSON value");
  EXPECT_EQ(errorOf("1."), "1:3: a number needs digits after '.'");
  EXPECT_EQ(errorOf("tru"), "1:1: unexpected character 't'");
  EXPECT_EQ(errorOf(std::string("\xff")), "1:1: unexpected byte 0xff");
}

TEST(JsonTest, DeepNestingIsRefused) {
  std::string ok(64, '['), okEnd(64, ']');
  EXPECT_TRUE(json::parse(ok + okEnd));
  std::string deep(100000, '[');
  EXPECT_EQ(errorOf(deep), "1:66: nesting deeper than 64 levels");
}

TEST(JsonTest, ConversionsNameThePath) {
  auto v = json::parse("[\"x\"]");
  EXPECT_EQ(json::asBool(v->items[0], "a[0]").takeError().message(),
            "a[0]: expected true or false, found string x");
  EXPECT_EQ(json::asString(*v, "a").takeError().message(),
            "a: expected a string, found array");
}

} // namespace
