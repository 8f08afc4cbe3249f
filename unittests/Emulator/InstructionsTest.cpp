//===- InstructionsTest.cpp - Per-instruction semantics -------------------===//
//
// Each test runs a few PTX instructions on the emulator (see TestUtil.h) and
// compares with values computed by hand from the PTX ISA's semantics; the
// arithmetic is written out in the comments.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;

namespace {

void expectRunImpl(int line, const std::string &body, Lane in,
                   uint64_t expected) {
  SCOPED_TRACE("test line " + std::to_string(line));
  std::string err;
  uint64_t got = run1(body, in, &err);
  EXPECT_EQ(err, "");
  EXPECT_EQ(got, expected) << std::hex << "got 0x" << got << " want 0x"
                           << expected;
}
#define EXPECT_RUN(...) expectRunImpl(__LINE__, __VA_ARGS__)

//===----------------------------------------------------------------------===//
// Integer arithmetic
//===----------------------------------------------------------------------===//

TEST(IntegerTest, AddSubWrapAndSaturate) {
  EXPECT_RUN(std::string("add.s32 %r20, %r10, %r11;") + kStore32,
             Lane{0x7fffffff, 1}, 0x80000000u);
  EXPECT_RUN(std::string("add.sat.s32 %r20, %r10, %r11;") + kStore32,
             Lane{0x7fffffff, 1}, 0x7fffffffu);
  EXPECT_RUN(std::string("sub.sat.s32 %r20, %r10, %r11;") + kStore32,
             Lane{0x80000000, 1}, 0x80000000u);
  EXPECT_RUN(std::string("sub.u32 %r20, %r10, %r11;") + kStore32, Lane{0, 1},
             0xffffffffu);
  EXPECT_RUN("add.s64 %rd20, %rd10, -1;", Lane{0}, 0xffffffffffffffffull);
  EXPECT_RUN("add.u16 %h20, %h10, %h11;" + std::string(kStore16),
             Lane{0xffff, 2}, 1);
}

TEST(IntegerTest, Multiply) {
  // (-3) * 7 = -21.
  EXPECT_RUN(std::string("mul.lo.s32 %r20, %r10, %r11;") + kStore32,
             Lane{uint64_t(-3) & 0xffffffff, 7}, 0xffffffebu);
  // 0xffffffff^2 = 0xfffffffe_00000001.
  EXPECT_RUN(std::string("mul.hi.u32 %r20, %r10, %r10;") + kStore32,
             Lane{0xffffffff}, 0xfffffffeu);
  // As s32: (-1) * (-1) = 1, high half 0.
  EXPECT_RUN(std::string("mul.hi.s32 %r20, %r10, %r10;") + kStore32,
             Lane{0xffffffff}, 0u);
  EXPECT_RUN("mul.wide.s32 %rd20, %r10, %r11;",
             Lane{uint64_t(-2) & 0xffffffff, 3}, 0xfffffffffffffffaull);
  EXPECT_RUN("mul.wide.u32 %rd20, %r10, %r11;", Lane{0xffffffff, 0xffffffff},
             0xfffffffe00000001ull);
  EXPECT_RUN(std::string("mul.wide.u16 %r20, %h10, %h11;") + kStore32,
             Lane{0xffff, 0xffff}, 0xfffe0001u);
  EXPECT_RUN("mul.hi.u64 %rd20, %rd10, %rd11;", Lane{~0ull, 2}, 1);
  EXPECT_RUN("mul.hi.s64 %rd20, %rd10, %rd11;", Lane{~0ull, 2}, ~0ull);
  // mad.lo: 5 * 6 + 7; mad.wide.u32; mad.hi.sat.s32 saturates.
  EXPECT_RUN(std::string("mad.lo.s32 %r20, %r10, %r11, %r12;") + kStore32,
             Lane{5, 6, 7}, 37);
  EXPECT_RUN("mad.wide.u32 %rd20, %r10, %r11, %rd12;", Lane{0x80000000, 4, 1},
             0x200000001ull);
  // hi(0x7fffffff * 0x7fffffff) = 0x3fffffff; + 0x7fffffff overflows.
  EXPECT_RUN(std::string("mad.hi.sat.s32 %r20, %r10, %r10, %r11;") + kStore32,
             Lane{0x7fffffff, 0x7fffffff}, 0x7fffffffu);
  // mul24.lo.u32 of 0x1000001 (bit 24 ignored) * 3 = 3.
  EXPECT_RUN(std::string("mul24.lo.u32 %r20, %r10, %r11;") + kStore32,
             Lane{0x1000001, 3}, 3);
}

TEST(IntegerTest, DivRemAbsNegMinMax) {
  EXPECT_RUN(std::string("div.s32 %r20, %r10, %r11;") + kStore32,
             Lane{uint64_t(-7) & 0xffffffff, 2}, 0xfffffffdu); // -3
  EXPECT_RUN(std::string("rem.s32 %r20, %r10, %r11;") + kStore32,
             Lane{uint64_t(-7) & 0xffffffff, 2}, 0xffffffffu); // -1
  EXPECT_RUN(std::string("div.u32 %r20, %r10, %r11;") + kStore32, Lane{7, 0},
             0xffffffffu); // documented machine-specific value
  EXPECT_RUN(std::string("div.s32 %r20, %r10, %r11;") + kStore32,
             Lane{0x80000000, 0xffffffff}, 0x80000000u);
  EXPECT_RUN("div.u64 %rd20, %rd10, %rd11;", Lane{100, 7}, 14);
  EXPECT_RUN("rem.u64 %rd20, %rd10, %rd11;", Lane{100, 7}, 2);
  EXPECT_RUN(std::string("abs.s32 %r20, %r10;") + kStore32,
             Lane{uint64_t(-5) & 0xffffffff}, 5);
  EXPECT_RUN(std::string("abs.s32 %r20, %r10;") + kStore32, Lane{0x80000000},
             0x80000000u);
  EXPECT_RUN(std::string("neg.s32 %r20, %r10;") + kStore32, Lane{1},
             0xffffffffu);
  EXPECT_RUN(std::string("min.s32 %r20, %r10, %r11;") + kStore32,
             Lane{0xffffffff, 1}, 0xffffffffu);
  EXPECT_RUN(std::string("min.u32 %r20, %r10, %r11;") + kStore32,
             Lane{0xffffffff, 1}, 1);
  EXPECT_RUN(std::string("max.s32 %r20, %r10, %r11;") + kStore32,
             Lane{0xffffffff, 1}, 1);
  EXPECT_RUN(std::string("max.relu.s32 %r20, %r10, %r11;") + kStore32,
             Lane{0xfffffff0, 0xffffffff}, 0);
  EXPECT_RUN("max.s64 %rd20, %rd10, %rd11;", Lane{~0ull, 0}, 0);
}

TEST(IntegerTest, ShiftsAndLogic) {
  EXPECT_RUN(std::string("shl.b32 %r20, %r10, %r11;") + kStore32, Lane{1, 33},
             0);
  EXPECT_RUN(std::string("shl.b32 %r20, %r10, 4;") + kStore32, Lane{0x11},
             0x110);
  EXPECT_RUN(std::string("shr.s32 %r20, %r10, %r11;") + kStore32,
             Lane{0xfffffff8, 40}, 0xffffffffu);
  EXPECT_RUN(std::string("shr.u32 %r20, %r10, 31;") + kStore32,
             Lane{0x80000000}, 1);
  EXPECT_RUN(std::string("shr.s32 %r20, %r10, 2;") + kStore32, Lane{0xfffffff8},
             0xfffffffeu);
  EXPECT_RUN("shl.b64 %rd20, %rd10, 63;", Lane{3}, 0x8000000000000000ull);
  EXPECT_RUN(std::string("and.b32 %r20, %r10, %r11;") + kStore32,
             Lane{0xf0f0, 0xff00}, 0xf000);
  EXPECT_RUN(std::string("or.b32 %r20, %r10, %r11;") + kStore32,
             Lane{0xf0f0, 0xff00}, 0xfff0);
  EXPECT_RUN(std::string("xor.b32 %r20, %r10, %r11;") + kStore32,
             Lane{0xf0f0, 0xff00}, 0x0ff0);
  EXPECT_RUN(std::string("not.b32 %r20, %r10;") + kStore32, Lane{0xf0f0},
             0xffff0f0fu);
  EXPECT_RUN(std::string("cnot.b32 %r20, %r10;") + kStore32, Lane{0}, 1);
  EXPECT_RUN(std::string("cnot.b32 %r20, %r10;") + kStore32, Lane{5}, 0);
}

TEST(IntegerTest, BitManipulation) {
  EXPECT_RUN(std::string("popc.b64 %r20, %rd10;") + kStore32,
             Lane{0xf00000000000000full}, 8);
  EXPECT_RUN(std::string("clz.b32 %r20, %r10;") + kStore32, Lane{0}, 32);
  EXPECT_RUN(std::string("clz.b32 %r20, %r10;") + kStore32, Lane{1}, 31);
  EXPECT_RUN(std::string("clz.b64 %r20, %rd10;") + kStore32, Lane{1}, 63);
  EXPECT_RUN(std::string("brev.b32 %r20, %r10;") + kStore32, Lane{1},
             0x80000000u);
  EXPECT_RUN(std::string("bfind.u32 %r20, %r10;") + kStore32, Lane{0x10}, 4);
  EXPECT_RUN(std::string("bfind.u32 %r20, %r10;") + kStore32, Lane{0},
             0xffffffffu);
  // bfind.s32 of -2 (..11110): most significant 0 is bit 0.
  EXPECT_RUN(std::string("bfind.s32 %r20, %r10;") + kStore32, Lane{0xfffffffe},
             0);
  EXPECT_RUN(std::string("bfind.shiftamt.u32 %r20, %r10;") + kStore32,
             Lane{0x10}, 27);
  // bfe: 0x12345678 bits 8..15 = 0x56; signed field 0xff -> -1.
  EXPECT_RUN(std::string("bfe.u32 %r20, %r10, 8, 8;") + kStore32,
             Lane{0x12345678}, 0x56);
  EXPECT_RUN(std::string("bfe.s32 %r20, %r10, 8, 8;") + kStore32,
             Lane{0x0000ff00}, 0xffffffffu);
  // Start beyond the msb: every bit is the sign bit a[31].
  EXPECT_RUN(std::string("bfe.s32 %r20, %r10, 40, 8;") + kStore32,
             Lane{0x80000000}, 0xffffffffu);
  EXPECT_RUN(std::string("bfe.u32 %r20, %r10, 4, 0;") + kStore32,
             Lane{0xffffffff}, 0);
  EXPECT_RUN("bfe.u64 %rd20, %rd10, 4, 14;", Lane{0x123456789ull}, 0x1678);
  EXPECT_RUN(std::string("bfi.b32 %r20, %r10, %r11, 8, 8;") + kStore32,
             Lane{0xff, 0x12345678}, 0x1234ff78u);
  // prmt: bytes of {b,a} = 77 66 55 44 | 33 22 11 00; selectors 0,4,1,5.
  EXPECT_RUN(std::string("prmt.b32 %r20, %r10, %r11, 0x5140;") + kStore32,
             Lane{0x33221100, 0x77665544}, 0x55114400u);
  // Selector 8 replicates the sign of byte 0 (0x80) -> 0xff.
  EXPECT_RUN(std::string("prmt.b32 %r20, %r10, %r11, 0x0008;") + kStore32,
             Lane{0x80, 0}, 0x808080ffu);
  EXPECT_RUN(std::string("prmt.b32.f4e %r20, %r10, %r11, 1;") + kStore32,
             Lane{0x33221100, 0x77665544}, 0x44332211u);
  // lop3 0x96 = a ^ b ^ c; 0xe8 = majority.
  EXPECT_RUN(std::string("lop3.b32 %r20, %r10, %r11, %r12, 0x96;") + kStore32,
             Lane{0xff00ff00, 0xf0f0f0f0, 0xcccccccc}, 0xc33cc33cu);
  EXPECT_RUN(std::string("lop3.b32 %r20, %r10, %r11, %r12, 0xe8;") + kStore32,
             Lane{0xff00ff00, 0xf0f0f0f0, 0xcccccccc}, 0xfcc0fcc0u);
  // shf.l.wrap: (b:a) << 4 high word = (1 << 4) | (0x80000001 >> 28).
  EXPECT_RUN(std::string("shf.l.wrap.b32 %r20, %r10, %r11, 4;") + kStore32,
             Lane{0x80000001, 1}, 0x18);
  EXPECT_RUN(std::string("shf.r.clamp.b32 %r20, %r10, %r11, 40;") + kStore32,
             Lane{0x80000001, 0xabc}, 0xabc);
  EXPECT_RUN(std::string("shf.r.wrap.b32 %r20, %r10, %r11, 36;") + kStore32,
             Lane{0x80000001, 0xabc}, 0xc8000000u);
  // szext / bmsk.
  EXPECT_RUN(std::string("szext.wrap.s32 %r20, %r10, 4;") + kStore32,
             Lane{0x1f8}, 0xfffffff8u);
  EXPECT_RUN(std::string("bmsk.clamp.b32 %r20, %r10, %r11;") + kStore32,
             Lane{4, 8}, 0xff0);
}

TEST(IntegerTest, CarryChains) {
  // 64-bit add from 32-bit halves: 0x00000000_ffffffff + 1.
  EXPECT_RUN(std::string("add.cc.u32 %r20, %r10, %r11;\n"
                         "addc.u32 %r21, %r12, %r13;\n"
                         "mov.b64 %rd20, {%r20, %r21};"),
             (Lane{0xffffffff, 1, 0, 0}), 0x100000000ull);
  // Borrow: 5:0 - 0:1 = 4:0xffffffff.
  EXPECT_RUN(std::string("sub.cc.u32 %r20, %r10, %r11;\n"
                         "subc.u32 %r21, %r12, %r13;\n"
                         "mov.b64 %rd20, {%r20, %r21};"),
             (Lane{0, 1, 5, 0}), 0x4ffffffffull);
}

//===----------------------------------------------------------------------===//
// Compare and select
//===----------------------------------------------------------------------===//

TEST(CompareTest, SetpSelpSlct) {
  const std::string sel =
      "\n  selp.b32 %r20, 1, 0, %p1;" + std::string(kStore32);
  EXPECT_RUN("setp.lt.s32 %p1, %r10, %r11;" + sel, Lane{0xffffffff, 1}, 1);
  EXPECT_RUN("setp.lo.u32 %p1, %r10, %r11;" + sel, Lane{0xffffffff, 1}, 0);
  EXPECT_RUN("setp.hs.u32 %p1, %r10, %r11;" + sel, Lane{0xffffffff, 1}, 1);
  EXPECT_RUN("setp.ne.b64 %p1, %rd10, %rd11;" + sel, Lane{5, 5}, 0);
  EXPECT_RUN("setp.eq.b16 %p1, %h10, %h11;" + sel, Lane{0x10005, 5}, 1);
  const uint64_t nan = 0x7fc00000, one = 0x3f800000;
  EXPECT_RUN("setp.eq.f32 %p1, %f10, %f11;" + sel, Lane{nan, nan}, 0);
  EXPECT_RUN("setp.neu.f32 %p1, %f10, %f11;" + sel, Lane{nan, one}, 1);
  EXPECT_RUN("setp.ne.f32 %p1, %f10, %f11;" + sel, Lane{nan, one}, 0);
  EXPECT_RUN("setp.nan.f32 %p1, %f10, %f11;" + sel, Lane{one, nan}, 1);
  EXPECT_RUN("setp.num.f32 %p1, %f10, %f11;" + sel, Lane{one, one}, 1);
  EXPECT_RUN("setp.lt.f64 %p1, %fd10, %fd11;" + sel, Lane{f64(-0.0), f64(0.0)},
             0); // -0 == +0
  // BoolOp: (a < b) and !p0, where p0 is a > b (false) -> true.
  EXPECT_RUN("setp.gt.s32 %p2, %r10, %r11;\n"
             "  setp.lt.and.s32 %p1, %r10, %r11, !%p2;" +
                 sel,
             Lane{1, 2}, 1);
  // p|q: q is the complement of the comparison (before combining).
  EXPECT_RUN(std::string("setp.lt.s32 %p1|%p2, %r10, %r11;\n"
                         "  selp.b32 %r20, 1, 0, %p2;") +
                 kStore32,
             Lane{1, 2}, 0);
  EXPECT_RUN(std::string("set.lt.u32.s32 %r20, %r10, %r11;") + kStore32,
             Lane{1, 2}, 0xffffffffu);
  EXPECT_RUN(std::string("set.lt.f32.s32 %f20, %r10, %r11;") + kStoreF32,
             Lane{1, 2}, 0x3f800000u);
  EXPECT_RUN(std::string("slct.b32.s32 %r20, %r10, %r11, %r12;") + kStore32,
             Lane{7, 9, 0xffffffff}, 9);
  EXPECT_RUN(std::string("slct.b32.f32 %r20, %r10, %r11, %r12;") + kStore32,
             Lane{7, 9, 0x80000000}, 7); // -0.0 >= 0
  EXPECT_RUN(
      std::string("setp.ne.s32 %p1, %r10, 0;\n  not.pred %p2, %p1;\n"
                  "  and.pred %p3, %p1, %p2;\n  or.pred %p4, %p1, %p2;\n"
                  "  selp.b32 %r20, 1, 0, %p3;\n  selp.b32 %r21, 2, 0, %p4;\n"
                  "  add.s32 %r20, %r20, %r21;") +
          kStore32,
      Lane{3}, 2);
}

//===----------------------------------------------------------------------===//
// Floating point
//===----------------------------------------------------------------------===//

TEST(FloatTest, F32ArithmeticAndRounding) {
  const uint64_t one = 0x3f800000, tiny = 0x30800000; // 1, 2^-30
  EXPECT_RUN(std::string("add.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{one, one}, 0x40000000u);
  EXPECT_RUN(std::string("add.rz.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{one, tiny}, one);
  EXPECT_RUN(std::string("add.rp.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{one, tiny}, 0x3f800001u);
  EXPECT_RUN(std::string("sub.rm.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{one, tiny}, 0x3f7fffffu);
  // .ftz flushes a subnormal input; .sat clamps and turns NaN into 0.
  EXPECT_RUN(std::string("add.ftz.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{0x00000001, 0}, 0);
  EXPECT_RUN(std::string("add.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{0x00000001, 0}, 1);
  EXPECT_RUN(std::string("add.sat.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{f32(0.75f), f32(0.5f)}, one);
  EXPECT_RUN(std::string("mul.sat.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{0x7f800000, 0}, 0);
  EXPECT_RUN(std::string("mul.rn.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{f32(3.0f), f32(0.5f)}, f32(1.5f));
  // NaN results are canonical (0x7fffffff).
  EXPECT_RUN(std::string("mul.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{0x7f800000, 0}, 0x7fffffffu);
  // fma keeps the product exact: (1+2^-23)^2 - (1+2^-22) = 2^-46, while
  // mul then add gives 0.
  EXPECT_RUN(std::string("fma.rn.f32 %f20, %f10, %f10, %f11;") + kStoreF32,
             Lane{0x3f800001, 0xbf800002}, 0x28800000u);
  EXPECT_RUN(std::string("mul.rn.f32 %f21, %f10, %f10;\n"
                         "  add.rn.f32 %f20, %f21, %f11;") +
                 kStoreF32,
             Lane{0x3f800001, 0xbf800002}, 0);
  EXPECT_RUN(std::string("mad.rn.f32 %f20, %f10, %f10, %f11;") + kStoreF32,
             Lane{0x3f800001, 0xbf800002}, 0x28800000u);
  EXPECT_RUN(std::string("div.rn.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{one, f32(3.0f)}, 0x3eaaaaabu);
  EXPECT_RUN(std::string("div.rz.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{one, f32(3.0f)}, 0x3eaaaaaau);
  EXPECT_RUN(std::string("div.full.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{f32(6.0f), f32(3.0f)}, f32(2.0f));
  EXPECT_RUN(std::string("div.approx.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{f32(6.0f), f32(0x1p127f)}, 0);
  EXPECT_RUN(std::string("rcp.rn.f32 %f20, %f10;") + kStoreF32, Lane{f32(3.0f)},
             0x3eaaaaabu);
  EXPECT_RUN(std::string("rcp.approx.ftz.f32 %f20, %f10;") + kStoreF32,
             Lane{f32(4.0f)}, f32(0.25f));
  EXPECT_RUN(std::string("sqrt.rn.f32 %f20, %f10;") + kStoreF32,
             Lane{f32(2.0f)}, 0x3fb504f3u);
  EXPECT_RUN(std::string("sqrt.rp.f32 %f20, %f10;") + kStoreF32,
             Lane{f32(2.0f)}, 0x3fb504f4u);
  EXPECT_RUN(std::string("rsqrt.approx.f32 %f20, %f10;") + kStoreF32,
             Lane{f32(4.0f)}, f32(0.5f));
  EXPECT_RUN(std::string("rsqrt.approx.f32 %f20, %f10;") + kStoreF32,
             Lane{0x80000000}, 0xff800000u); // -0 -> -Inf
}

TEST(FloatTest, F32MinMaxAbsNeg) {
  const uint64_t nan = 0x7fc00000, one = 0x3f800000;
  EXPECT_RUN(std::string("min.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{nan, one}, one);
  EXPECT_RUN(std::string("min.NaN.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{nan, one}, 0x7fffffffu);
  EXPECT_RUN(std::string("min.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{0, 0x80000000}, 0x80000000u);
  EXPECT_RUN(std::string("max.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{0x80000000, 0}, 0);
  EXPECT_RUN(std::string("max.f32 %f20, %f10, %f11, %f12;") + kStoreF32,
             Lane{f32(1.f), f32(3.f), f32(2.f)}, f32(3.f));
  // xorsign.abs: |min(|-2|, |3|)| with sign(-2) ^ sign(3) = -2.
  EXPECT_RUN(std::string("min.xorsign.abs.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{f32(-2.f), f32(3.f)}, f32(-2.f));
  EXPECT_RUN(std::string("abs.f32 %f20, %f10;") + kStoreF32, Lane{f32(-2.f)},
             f32(2.f));
  EXPECT_RUN(std::string("neg.f32 %f20, %f10;") + kStoreF32, Lane{0},
             0x80000000u);
  EXPECT_RUN(std::string("abs.ftz.f32 %f20, %f10;") + kStoreF32,
             Lane{0x80000001}, 0);
  EXPECT_RUN(std::string("copysign.f32 %f20, %f10, %f11;") + kStoreF32,
             Lane{f32(-1.f), f32(5.f)}, f32(-5.f));
  const std::string sel =
      "\n  selp.b32 %r20, 1, 0, %p1;" + std::string(kStore32);
  EXPECT_RUN("testp.subnormal.f32 %p1, %f10;" + sel, Lane{1}, 1);
  EXPECT_RUN("testp.finite.f32 %p1, %f10;" + sel, Lane{0x7f800000}, 0);
  EXPECT_RUN("testp.notanumber.f64 %p1, %fd10;" + sel,
             Lane{0x7ff8000000000000ull}, 1);
}

TEST(FloatTest, TranscendentalApproximations) {
  // ex2/lg2 of exact powers of two are exact.
  EXPECT_RUN(std::string("ex2.approx.ftz.f32 %f20, %f10;") + kStoreF32,
             Lane{f32(3.f)}, f32(8.f));
  EXPECT_RUN(std::string("ex2.approx.f32 %f20, %f10;") + kStoreF32,
             Lane{0xff800000}, 0); // 2^-inf = +0
  EXPECT_RUN(std::string("lg2.approx.f32 %f20, %f10;") + kStoreF32,
             Lane{f32(8.f)}, f32(3.f));
  EXPECT_RUN(std::string("lg2.approx.f32 %f20, %f10;") + kStoreF32, Lane{0},
             0xff800000u); // -Inf
  // Elsewhere: within 2 ulp of the correctly rounded value (the PTX bound
  // for ex2; docs/Emulator.md lists the others).
  for (float x : {0.1f, -3.7f, 10.25f, 1e-3f}) {
    std::string err;
    float got =
        asF32(run1(std::string("ex2.approx.f32 %f20, %f10;") + kStoreF32,
                   Lane{f32(x)}, &err));
    EXPECT_EQ(err, "");
    float want = static_cast<float>(std::exp2(double(x)));
    EXPECT_LE(std::fabs(got - want),
              2 * std::fabs(std::nextafter(want, 1e30f) - want))
        << x;
  }
  for (float x : {0.5f, -2.0f, 3.0f}) {
    std::string err;
    float s = asF32(run1(std::string("sin.approx.f32 %f20, %f10;") + kStoreF32,
                         Lane{f32(x)}, &err));
    float c =
        asF32(run1(std::string("cos.approx.ftz.f32 %f20, %f10;") + kStoreF32,
                   Lane{f32(x)}, &err));
    EXPECT_NEAR(s, std::sin(double(x)), std::ldexp(1.0, -20));
    EXPECT_NEAR(c, std::cos(double(x)), std::ldexp(1.0, -20));
    float t = asF32(run1(std::string("tanh.approx.f32 %f20, %f10;") + kStoreF32,
                         Lane{f32(x)}, &err));
    EXPECT_NEAR(t, std::tanh(double(x)), std::ldexp(1.0, -11));
  }
}

TEST(FloatTest, F64Arithmetic) {
  EXPECT_RUN("add.f64 %fd20, %fd10, %fd11;\n  mov.b64 %rd20, %fd20;",
             Lane{f64(1.5), f64(2.25)}, f64(3.75));
  EXPECT_RUN("div.rn.f64 %fd20, %fd10, %fd11;\n  mov.b64 %rd20, %fd20;",
             Lane{f64(1.0), f64(3.0)}, 0x3fd5555555555555ull);
  EXPECT_RUN("div.rp.f64 %fd20, %fd10, %fd11;\n  mov.b64 %rd20, %fd20;",
             Lane{f64(1.0), f64(3.0)}, 0x3fd5555555555556ull);
  EXPECT_RUN("rcp.rn.f64 %fd20, %fd10;\n  mov.b64 %rd20, %fd20;",
             Lane{f64(4.0)}, f64(0.25));
  EXPECT_RUN("fma.rn.f64 %fd20, %fd10, %fd11, %fd12;\n  mov.b64 %rd20, %fd20;",
             Lane{f64(2.0), f64(3.0), f64(1.0)}, f64(7.0));
  EXPECT_RUN("sqrt.rn.f64 %fd20, %fd10;\n  mov.b64 %rd20, %fd20;",
             Lane{f64(2.0)}, 0x3ff6a09e667f3bcdull);
  EXPECT_RUN("neg.f64 %fd20, %fd10;\n  mov.b64 %rd20, %fd20;", Lane{f64(2.0)},
             f64(-2.0));
  EXPECT_RUN("min.f64 %fd20, %fd10, %fd11;\n  mov.b64 %rd20, %fd20;",
             Lane{0x7ff8000000000000ull, f64(2.0)}, f64(2.0));
  EXPECT_RUN("mov.f64 %fd20, 0d4000000000000000;\n  mov.b64 %rd20, %fd20;",
             Lane{}, f64(2.0));
  EXPECT_RUN("mov.f64 %fd20, 2.5;\n  mov.b64 %rd20, %fd20;", Lane{}, f64(2.5));
}

TEST(FloatTest, HalfPrecision) {
  // f16: 1.0 = 0x3c00, 2.0 = 0x4000, 1.5 = 0x3e00.
  EXPECT_RUN(std::string("add.f16 %h20, %h10, %h11;") + kStore16,
             Lane{0x3c00, 0x3e00}, 0x4100); // 2.5
  EXPECT_RUN(std::string("mul.rn.bf16 %h20, %h10, %h11;") + kStore16,
             Lane{0x4000, 0x3fc0}, 0x4040); // 2 * 1.5 = 3
  EXPECT_RUN(std::string("fma.rn.f16x2 %r20, %r10, %r11, %r12;") + kStore32,
             Lane{0x40003c00, 0x3c004000, 0x3c003c00}, 0x4200u << 16 | 0x4200u);
  EXPECT_RUN(std::string("fma.rn.relu.bf16 %h20, %h10, %h11, %h12;") + kStore16,
             Lane{0x3f80, 0xbf80, 0}, 0); // relu(-1) = 0
  EXPECT_RUN(std::string("neg.bf16x2 %r20, %r10;") + kStore32, Lane{0x3f80bf80},
             0xbf803f80u);
  EXPECT_RUN(std::string("max.f16 %h20, %h10, %h11;") + kStore16,
             Lane{0x3c00, 0x7e00}, 0x3c00);
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

TEST(ConvertTest, FloatToFloat) {
  // bf16 ties to even (see FloatFormatsTest) through the instruction.
  EXPECT_RUN(std::string("cvt.rn.bf16.f32 %h20, %f10;") + kStore16,
             Lane{0x3f808000}, 0x3f80);
  EXPECT_RUN(std::string("cvt.rn.bf16.f32 %h20, %f10;") + kStore16,
             Lane{0x3f818000}, 0x3f82);
  EXPECT_RUN(std::string("cvt.rz.bf16.f32 %h20, %f10;") + kStore16,
             Lane{0x3f81ffff}, 0x3f81);
  EXPECT_RUN(std::string("cvt.rn.satfinite.bf16.f32 %h20, %f10;") + kStore16,
             Lane{0x7f800000}, 0x7f7f);
  EXPECT_RUN(std::string("cvt.f32.bf16 %f20, %h10;") + kStoreF32, Lane{0x3f81},
             0x3f810000u);
  // bf16x2: a goes to the upper half, b to the lower.
  EXPECT_RUN(std::string("cvt.rn.bf16x2.f32 %r20, %f10, %f11;") + kStore32,
             Lane{f32(1.f), f32(-2.f)}, 0x3f80c000u);
  EXPECT_RUN(std::string("cvt.rn.f16x2.f32 %r20, %f10, %f11;") + kStore32,
             Lane{f32(1.f), f32(65520.f)}, 0x3c007c00u);
  EXPECT_RUN(std::string("cvt.rn.f16.f32 %h20, %f10;") + kStore16,
             Lane{f32(0.1f)}, 0x2e66);
  EXPECT_RUN(std::string("cvt.f32.f16 %f20, %h10;") + kStoreF32, Lane{0x2e66},
             0x3dccc000u);
  EXPECT_RUN(std::string("cvt.rn.f32.f64 %f20, %fd10;") + kStoreF32,
             Lane{f64(1.0 / 3)}, 0x3eaaaaabu);
  EXPECT_RUN(std::string("cvt.rz.f32.f64 %f20, %fd10;") + kStoreF32,
             Lane{f64(1.0 / 3)}, 0x3eaaaaaau);
  EXPECT_RUN("cvt.f64.f32 %fd20, %f10;\n  mov.b64 %rd20, %fd20;",
             Lane{f32(0.1f)}, f64(double(0.1f)));
  EXPECT_RUN(std::string("cvt.rni.f32.f32 %f20, %f10;") + kStoreF32,
             Lane{f32(2.5f)}, f32(2.f));
  EXPECT_RUN(std::string("cvt.rmi.f32.f32 %f20, %f10;") + kStoreF32,
             Lane{f32(-2.5f)}, f32(-3.f));
  EXPECT_RUN(std::string("cvt.ftz.f32.f32 %f20, %f10;") + kStoreF32,
             Lane{0x80000003}, 0x80000000u);
  EXPECT_RUN(std::string("cvt.sat.f32.f32 %f20, %f10;") + kStoreF32,
             Lane{f32(7.f)}, f32(1.f));
  EXPECT_RUN(std::string("cvt.rna.tf32.f32 %r20, %f10;") + kStore32,
             Lane{0x3f801000}, 0x3f802000u);
}

TEST(ConvertTest, Fp8Fp6Fp4Packs) {
  // e4m3x2: a (1000 -> saturates to 448 = 0x7e) high, b (1.0 = 0x38) low.
  EXPECT_RUN(std::string("cvt.rn.satfinite.e4m3x2.f32 %h20, %f10, %f11;") +
                 kStore16,
             Lane{f32(1000.f), f32(1.f)}, 0x7e38);
  EXPECT_RUN(std::string("cvt.rn.satfinite.e4m3x2.f32 %h20, %f10, %f11;") +
                 kStore16,
             Lane{0x7fc00000, f32(-448.f)}, 0x7ffe);
  EXPECT_RUN(std::string("cvt.rn.satfinite.e5m2x2.f32 %h20, %f10, %f11;") +
                 kStore16,
             Lane{f32(1.f), f32(1e6f)}, 0x3c7b);
  // e2m1x2: a in the high nibble. 6.0 = 0x7, 0.5 = 0x1, -1.5 = 0xb.
  EXPECT_RUN(std::string("cvt.rn.satfinite.e2m1x2.f32 %h20, %f10, %f11;") +
                 kStore16,
             Lane{f32(6.f), f32(0.5f)}, 0x71);
  EXPECT_RUN(std::string("cvt.rn.satfinite.e2m1x2.f32 %h20, %f10, %f11;") +
                 kStore16,
             Lane{f32(-1.5f), f32(2.9f)}, 0xb5);
  // From a packed f16x2 source: upper half to the upper byte.
  EXPECT_RUN(std::string("cvt.rn.satfinite.e4m3x2.f16x2 %h20, %r10;") +
                 kStore16,
             Lane{0x3c004000}, 0x3840);
  // Up-conversions to f16x2.
  EXPECT_RUN(std::string("cvt.rn.f16x2.e4m3x2 %r20, %h10;") + kStore32,
             Lane{0x7e38}, 0x5f003c00u); // 448 = 0x5f00, 1.0 = 0x3c00
  EXPECT_RUN(std::string("cvt.rn.f16x2.e2m1x2 %r20, %h10;") + kStore32,
             Lane{0x7b}, 0x4600be00u); // 6.0, -1.5
  EXPECT_RUN(std::string("cvt.rz.satfinite.ue8m0x2.f32 %h20, %f10, %f11;") +
                 kStore16,
             Lane{f32(3.f), f32(1.f)}, 0x807f);
  EXPECT_RUN(std::string("cvt.rn.bf16x2.ue8m0x2 %r20, %h10;") + kStore32,
             Lane{0x807f}, 0x40003f80u);
}

TEST(ConvertTest, FloatToInteger) {
  EXPECT_RUN(std::string("cvt.rzi.s32.f32 %r20, %f10;") + kStore32,
             Lane{f32(-2.7f)}, 0xfffffffeu);
  EXPECT_RUN(std::string("cvt.rni.s32.f32 %r20, %f10;") + kStore32,
             Lane{f32(2.5f)}, 2);
  EXPECT_RUN(std::string("cvt.rni.s32.f32 %r20, %f10;") + kStore32,
             Lane{f32(3.5f)}, 4);
  EXPECT_RUN(std::string("cvt.rmi.s32.f32 %r20, %f10;") + kStore32,
             Lane{f32(-0.5f)}, 0xffffffffu);
  EXPECT_RUN(std::string("cvt.rpi.s32.f32 %r20, %f10;") + kStore32,
             Lane{f32(0.1f)}, 1);
  // Out of range clamps; NaN gives 0 (or MIN for f64 / 64-bit targets).
  EXPECT_RUN(std::string("cvt.rzi.s32.f32 %r20, %f10;") + kStore32,
             Lane{f32(1e10f)}, 0x7fffffffu);
  EXPECT_RUN(std::string("cvt.rzi.u32.f32 %r20, %f10;") + kStore32,
             Lane{f32(-5.f)}, 0);
  EXPECT_RUN(std::string("cvt.rzi.s32.f32 %r20, %f10;") + kStore32,
             Lane{0x7fc00000}, 0);
  EXPECT_RUN("cvt.rzi.s64.f64 %rd20, %fd10;", Lane{0x7ff8000000000000ull},
             0x8000000000000000ull);
  EXPECT_RUN(std::string("cvt.rzi.s32.f64 %r20, %fd10;") + kStore32,
             Lane{0x7ff8000000000000ull}, 0x80000000u);
  EXPECT_RUN("cvt.rzi.u64.f32 %rd20, %f10;", Lane{f32(1e20f)}, ~0ull);
  EXPECT_RUN(std::string("cvt.rni.u8.f32 %r20, %f10;") + kStore32,
             Lane{f32(300.f)}, 255);
}

TEST(ConvertTest, IntegerConversions) {
  EXPECT_RUN(std::string("cvt.rn.f32.s32 %f20, %r10;") + kStoreF32,
             Lane{16777217}, 0x4b800000u);
  EXPECT_RUN(std::string("cvt.rz.f32.u32 %f20, %r10;") + kStoreF32,
             Lane{0xffffffff}, 0x4f7fffffu);
  EXPECT_RUN(std::string("cvt.rp.f32.u32 %f20, %r10;") + kStoreF32,
             Lane{0xffffffff}, 0x4f800000u);
  EXPECT_RUN(std::string("cvt.rn.f32.s64 %f20, %rd10;") + kStoreF32,
             Lane{uint64_t(-1)}, f32(-1.f));
  EXPECT_RUN(std::string("cvt.s32.s8 %r20, %r10;") + kStore32, Lane{0x80},
             0xffffff80u);
  EXPECT_RUN(std::string("cvt.u32.u8 %r20, %r10;") + kStore32, Lane{0x1ff},
             0xff);
  EXPECT_RUN(std::string("cvt.u8.u32 %r20, %r10;") + kStore32, Lane{0x1ff},
             0xff);
  EXPECT_RUN(std::string("cvt.sat.u8.s32 %r20, %r10;") + kStore32,
             Lane{uint64_t(-5) & 0xffffffff}, 0);
  EXPECT_RUN(std::string("cvt.sat.s8.s32 %r20, %r10;") + kStore32, Lane{200},
             0x7f);
  EXPECT_RUN(std::string("cvt.sat.s32.u32 %r20, %r10;") + kStore32,
             Lane{0x80000000}, 0x7fffffffu);
  EXPECT_RUN("cvt.s64.s32 %rd20, %r10;", Lane{0xfffffffe},
             0xfffffffffffffffeull);
  EXPECT_RUN("cvt.u64.u32 %rd20, %r10;", Lane{0xfffffffe}, 0xfffffffeull);
  // s16 -> s32 into a 32-bit register sign-extends (chop then extend).
  EXPECT_RUN(std::string("cvt.s32.s16 %r20, %h10;") + kStore32, Lane{0x8001},
             0xffff8001u);
}

//===----------------------------------------------------------------------===//
// Moves
//===----------------------------------------------------------------------===//

TEST(MoveTest, VectorPackAndUnpack) {
  EXPECT_RUN("mov.b64 %rd20, {%r10, %r11};", Lane{0x11111111, 0x22222222},
             0x2222222211111111ull);
  EXPECT_RUN(std::string("mov.b64 {%r20, %r21}, %rd10;\n"
                         "  add.s32 %r20, %r20, %r21;") +
                 kStore32,
             Lane{0x0000000500000003ull}, 8);
  EXPECT_RUN(std::string("mov.b32 %r20, {%h10, %h11};") + kStore32,
             Lane{0x1234, 0xabcd}, 0xabcd1234u);
  EXPECT_RUN(std::string("mov.b32 {_, %h20}, %r10;") + kStore16,
             Lane{0xabcd1234}, 0xabcd);
  EXPECT_RUN(std::string("mov.u32 %r20, %laneid;") + kStore32, Lane{}, 0);
  EXPECT_RUN(std::string("mov.u32 %r20, %lanemask_lt;") + kStore32, Lane{}, 0);
  EXPECT_RUN(std::string("mov.u32 %r20, %ntid.x;") + kStore32, Lane{}, 1);
  EXPECT_RUN(std::string("mov.pred %p1, 1;\n  selp.u32 %r20, 7, 9, %p1;") +
                 kStore32,
             Lane{}, 7);
}

} // namespace
