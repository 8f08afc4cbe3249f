// Differential corpus: scalar arithmetic, comparisons and conversions
// (docs/Differential.md). One thread per element; the k-th OP* of a kernel
// writes out[k * n + i]. Inputs are files that differential.py generates
// (edge values crossed with each other, then seeded random bit patterns).
//
// scalar.ptx is generated from this file by test/Differential/regen_ptx.sh.

#include "ops.h"

#define ELEMENT                                          \
  int i = blockIdx.x * blockDim.x + threadIdx.x;         \
  if (i >= n) return;                                    \
  int k = 0;                                             \
  (void)k;

// f32 arithmetic that is meant to be bit-exact: every rounding mode, ftz,
// sat, NaN handling, min/max, comparisons, classification.
extern "C" __global__ void f32_exact(const uint32_t *a, const uint32_t *b,
                                     const uint32_t *c, uint32_t *out, int n) {
  ELEMENT
  float fa = __uint_as_float(a[i]), fb = __uint_as_float(b[i]),
        fc = __uint_as_float(c[i]);
  // BEGIN OPS f32_exact
  OP2F("add.rn.f32"); OP2F("add.rz.f32"); OP2F("add.rm.f32"); OP2F("add.rp.f32");
  OP2F("add.rn.ftz.f32"); OP2F("add.rn.sat.f32"); OP2F("add.rz.ftz.sat.f32");
  OP2F("sub.rn.f32"); OP2F("sub.rm.ftz.f32");
  OP2F("mul.rn.f32"); OP2F("mul.rz.f32"); OP2F("mul.rm.f32"); OP2F("mul.rp.f32");
  OP2F("mul.rn.ftz.f32"); OP2F("mul.rn.sat.f32");
  OP3F("fma.rn.f32"); OP3F("fma.rz.f32"); OP3F("fma.rm.f32"); OP3F("fma.rp.f32");
  OP3F("fma.rn.ftz.f32"); OP3F("fma.rn.sat.f32"); OP3F("fma.rp.ftz.sat.f32");
  OP3F("mad.rn.f32");
  OP2F("div.rn.f32"); OP2F("div.rz.f32"); OP2F("div.rm.f32"); OP2F("div.rp.f32");
  OP2F("div.rn.ftz.f32");
  OP1F("sqrt.rn.f32"); OP1F("sqrt.rz.f32"); OP1F("sqrt.rm.f32"); OP1F("sqrt.rp.f32");
  OP1F("sqrt.rn.ftz.f32");
  OP1F("rcp.rn.f32"); OP1F("rcp.rz.f32"); OP1F("rcp.rm.f32"); OP1F("rcp.rp.f32");
  OP1F("rcp.rn.ftz.f32");
  OP2F("min.f32"); OP2F("max.f32"); OP2F("min.ftz.f32"); OP2F("max.ftz.f32");
  OP2F("min.NaN.f32"); OP2F("max.NaN.f32");
  OP2F("min.xorsign.abs.f32"); OP2F("max.xorsign.abs.f32");
  OP1F("abs.f32"); OP1F("neg.f32"); OP1F("abs.ftz.f32"); OP1F("neg.ftz.f32");
  OP2F("copysign.f32");
  OP1F("mov.f32");
  OP1F("cvt.rni.f32.f32"); OP1F("cvt.rzi.f32.f32"); OP1F("cvt.rmi.f32.f32"); OP1F("cvt.rpi.f32.f32");
  OP1F("cvt.rni.ftz.f32.f32"); OP1F("cvt.sat.f32.f32"); OP1F("cvt.ftz.sat.f32.f32");
  OPP1F("testp.finite.f32"); OPP1F("testp.infinite.f32"); OPP1F("testp.number.f32");
  OPP1F("testp.notanumber.f32"); OPP1F("testp.normal.f32"); OPP1F("testp.subnormal.f32");
  OPP2F("setp.eq.f32"); OPP2F("setp.ne.f32"); OPP2F("setp.lt.f32"); OPP2F("setp.le.f32");
  OPP2F("setp.gt.f32"); OPP2F("setp.ge.f32"); OPP2F("setp.equ.f32"); OPP2F("setp.neu.f32");
  OPP2F("setp.ltu.f32"); OPP2F("setp.leu.f32"); OPP2F("setp.gtu.f32"); OPP2F("setp.geu.f32");
  OPP2F("setp.num.f32"); OPP2F("setp.nan.f32"); OPP2F("setp.lt.ftz.f32");
  OPS2F("set.lt.u32.f32"); OPS2F("set.gtu.s32.f32");
  // END OPS
}

// f32 approximate instructions (compared with the tolerance table of
// docs/Differential.md), and div.full.
extern "C" __global__ void f32_approx(const uint32_t *a, const uint32_t *b,
                                      const uint32_t *c, uint32_t *out, int n) {
  ELEMENT
  float fa = __uint_as_float(a[i]), fb = __uint_as_float(b[i]);
  float fc = __uint_as_float(c[i]);
  (void)fc;
  // BEGIN OPS f32_approx
  OP1F("ex2.approx.f32"); OP1F("ex2.approx.ftz.f32");
  OP1F("lg2.approx.f32"); OP1F("lg2.approx.ftz.f32");
  OP1F("rcp.approx.f32"); OP1F("rcp.approx.ftz.f32");
  OP1F("sqrt.approx.f32"); OP1F("sqrt.approx.ftz.f32");
  OP1F("rsqrt.approx.f32"); OP1F("rsqrt.approx.ftz.f32");
  OP1F("sin.approx.f32"); OP1F("cos.approx.f32"); OP1F("sin.approx.ftz.f32");
  OP1F("tanh.approx.f32");
  OP2F("div.approx.f32"); OP2F("div.approx.ftz.f32"); OP2F("div.full.f32"); OP2F("div.full.ftz.f32");
  // END OPS
}

// f64: every rounding mode, min/max, comparisons, conversions from f64.
extern "C" __global__ void f64_ops(const uint64_t *a, const uint64_t *b,
                                   const uint64_t *c, uint32_t *out, int n) {
  ELEMENT
  uint64_t la = a[i];
  double da = __longlong_as_double(a[i]), db = __longlong_as_double(b[i]),
         dc = __longlong_as_double(c[i]);
  // BEGIN OPS f64_ops
  OP2D("add.rn.f64"); OP2D("add.rz.f64"); OP2D("add.rm.f64"); OP2D("add.rp.f64");
  OP2D("sub.rn.f64");
  OP2D("mul.rn.f64"); OP2D("mul.rz.f64"); OP2D("mul.rm.f64"); OP2D("mul.rp.f64");
  OP3D("fma.rn.f64"); OP3D("fma.rz.f64"); OP3D("fma.rm.f64"); OP3D("fma.rp.f64");
  OP2D("div.rn.f64"); OP2D("div.rz.f64"); OP2D("div.rm.f64"); OP2D("div.rp.f64");
  OP1D("sqrt.rn.f64"); OP1D("sqrt.rz.f64"); OP1D("sqrt.rm.f64"); OP1D("sqrt.rp.f64");
  OP1D("rcp.rn.f64"); OP1D("rcp.rz.f64"); OP1D("rcp.rm.f64"); OP1D("rcp.rp.f64");
  OP2D("min.f64"); OP2D("max.f64"); OP1D("abs.f64"); OP1D("neg.f64");
  OP1D("cvt.rni.f64.f64"); OP1D("cvt.rzi.f64.f64"); OP1D("cvt.rmi.f64.f64"); OP1D("cvt.rpi.f64.f64");
  OPCVTFD("cvt.rn.f32.f64"); OPCVTFD("cvt.rz.f32.f64"); OPCVTFD("cvt.rm.f32.f64"); OPCVTFD("cvt.rp.f32.f64");
  OPCVTFD("cvt.rn.ftz.f32.f64"); OPCVTFD("cvt.rn.sat.f32.f64");
  OPCVTUD("cvt.rni.s32.f64"); OPCVTUD("cvt.rzi.s32.f64"); OPCVTUD("cvt.rmi.u32.f64"); OPCVTUD("cvt.rpi.u32.f64");
  OPCVTLD("cvt.rni.s64.f64"); OPCVTLD("cvt.rzi.u64.f64");
  OPCVTDL("cvt.rn.f64.s64"); OPCVTDL("cvt.rz.f64.u64"); OPCVTDL("cvt.rm.f64.s64"); OPCVTDL("cvt.rp.f64.u64");
  // END OPS
}

// f64 approximate instructions.
extern "C" __global__ void f64_approx(const uint64_t *a, const uint64_t *b,
                                      const uint64_t *c, uint32_t *out, int n) {
  ELEMENT
  double da = __longlong_as_double(a[i]);
  // BEGIN OPS f64_approx
  OP1D("rcp.approx.ftz.f64"); OP1D("rsqrt.approx.f64"); OP1D("rsqrt.approx.ftz.f64");
  // END OPS
}

// f16 / bf16 arithmetic on the low halves (ha, hb, hc) and the packed x2
// forms on whole words.
extern "C" __global__ void half_ops(const uint32_t *a, const uint32_t *b,
                                    const uint32_t *c, uint32_t *out, int n) {
  ELEMENT
  uint32_t ua = a[i], ub = b[i], uc = c[i];
  uint16_t ha = (uint16_t)ua, hb = (uint16_t)ub, hc = (uint16_t)uc;
  // BEGIN OPS half_ops
  OP2H("add.rn.f16"); OP2H("add.rn.ftz.f16"); OP2H("add.rn.sat.f16"); OP2H("sub.rn.f16");
  OP2H("mul.rn.f16"); OP2H("mul.rn.ftz.sat.f16");
  OP3H("fma.rn.f16"); OP3H("fma.rn.ftz.f16"); OP3H("fma.rn.sat.f16"); OP3H("fma.rn.relu.f16");
  OP1H("neg.f16"); OP1H("abs.f16"); OP2H("min.f16"); OP2H("max.f16"); OP2H("min.NaN.f16"); OP2H("max.ftz.f16");
  OP2H("add.rn.bf16"); OP2H("sub.rn.bf16"); OP2H("mul.rn.bf16");
  OP3H("fma.rn.bf16"); OP3H("fma.rn.relu.bf16");
  OP1H("neg.bf16"); OP1H("abs.bf16"); OP2H("min.bf16"); OP2H("max.bf16"); OP2H("max.NaN.bf16");
  OP2U("add.rn.f16x2"); OP2U("mul.rn.ftz.f16x2"); OP3U("fma.rn.f16x2"); OP3U("fma.rn.sat.f16x2"); OP3U("fma.rn.relu.f16x2");
  OP2U("min.f16x2"); OP2U("max.NaN.f16x2"); OP1U("neg.f16x2"); OP1U("abs.f16x2");
  OP2U("add.rn.bf16x2"); OP2U("mul.rn.bf16x2"); OP3U("fma.rn.bf16x2"); OP3U("fma.rn.relu.bf16x2");
  OP2U("min.bf16x2"); OP2U("max.bf16x2"); OP1U("neg.bf16x2"); OP1U("abs.bf16x2");
  OPCVTFH("cvt.f32.f16"); OPCVTFH("cvt.f32.bf16");
  OPCVTHH("cvt.rni.f16.f16"); OPCVTHH("cvt.rzi.bf16.bf16");
  OPCVTUH("cvt.rn.f16x2.e4m3x2"); OPCVTUH("cvt.rn.f16x2.e5m2x2");
  // END OPS
}

// 16-bit approximate instructions.
extern "C" __global__ void half_approx(const uint32_t *a, const uint32_t *b,
                                       const uint32_t *c, uint32_t *out, int n) {
  ELEMENT
  uint32_t ua = a[i];
  uint16_t ha = (uint16_t)ua;
  // BEGIN OPS half_approx
  OP1H("ex2.approx.f16"); OP1H("ex2.approx.ftz.bf16"); OP1H("tanh.approx.f16"); OP1H("tanh.approx.bf16");
  OP1U("ex2.approx.f16x2"); OP1U("tanh.approx.f16x2");
  // END OPS
}

// Conversions from f32: to f16/bf16/tf32/fp8 with every rounding mode and
// saturation, to integers, to f64.
extern "C" __global__ void cvt_f32(const uint32_t *a, const uint32_t *b,
                                   const uint32_t *c, uint32_t *out, int n) {
  ELEMENT
  float fa = __uint_as_float(a[i]), fb = __uint_as_float(b[i]);
  // BEGIN OPS cvt_f32
  OPCVTH1F("cvt.rn.f16.f32"); OPCVTH1F("cvt.rz.f16.f32"); OPCVTH1F("cvt.rm.f16.f32"); OPCVTH1F("cvt.rp.f16.f32");
  OPCVTH1F("cvt.rn.ftz.f16.f32"); OPCVTH1F("cvt.rn.sat.f16.f32"); OPCVTH1F("cvt.rn.relu.f16.f32"); OPCVTH1F("cvt.rn.satfinite.f16.f32");
  OPCVTH1F("cvt.rn.bf16.f32"); OPCVTH1F("cvt.rz.bf16.f32"); OPCVTH1F("cvt.rm.bf16.f32"); OPCVTH1F("cvt.rp.bf16.f32");
  OPCVTH1F("cvt.rn.relu.bf16.f32"); OPCVTH1F("cvt.rn.satfinite.bf16.f32");
  OPCVT2F("cvt.rn.f16x2.f32"); OPCVT2F("cvt.rz.f16x2.f32"); OPCVT2F("cvt.rn.relu.f16x2.f32"); OPCVT2F("cvt.rn.satfinite.f16x2.f32");
  OPCVT2F("cvt.rn.bf16x2.f32"); OPCVT2F("cvt.rz.bf16x2.f32"); OPCVT2F("cvt.rn.relu.bf16x2.f32"); OPCVT2F("cvt.rn.satfinite.bf16x2.f32");
  OPCVT1F("cvt.rna.tf32.f32"); OPCVT1F("cvt.rn.tf32.f32"); OPCVT1F("cvt.rz.tf32.f32"); OPCVT1F("cvt.rna.satfinite.tf32.f32");
  OPCVTH2F("cvt.rn.satfinite.e4m3x2.f32"); OPCVTH2F("cvt.rn.satfinite.e5m2x2.f32");
  OPCVTH2F("cvt.rn.satfinite.relu.e4m3x2.f32"); OPCVTH2F("cvt.rn.satfinite.relu.e5m2x2.f32");
  OPCVT1F("cvt.rni.s32.f32"); OPCVT1F("cvt.rzi.s32.f32"); OPCVT1F("cvt.rmi.s32.f32"); OPCVT1F("cvt.rpi.s32.f32");
  OPCVT1F("cvt.rni.u32.f32"); OPCVT1F("cvt.rzi.u32.f32"); OPCVT1F("cvt.rzi.ftz.s32.f32"); OPCVT1F("cvt.rni.sat.s32.f32");
  OPCVTH1F("cvt.rni.s16.f32"); OPCVTH1F("cvt.rzi.u16.f32"); OPCVT1F("cvt.rni.s8.f32"); OPCVT1F("cvt.rzi.u8.f32");
  OPCVTL1F("cvt.rni.s64.f32"); OPCVTL1F("cvt.rzi.u64.f32");
  OPCVTDF("cvt.f64.f32"); OPCVTDF("cvt.ftz.f64.f32");
  // END OPS
}

// Conversions of 16-bit packs to fp8 (the high input half goes to the high
// byte).
extern "C" __global__ void cvt_pack(const uint32_t *a, const uint32_t *b,
                                    const uint32_t *c, uint32_t *out, int n) {
  ELEMENT
  uint32_t ua = a[i];
  // BEGIN OPS cvt_pack
  { uint16_t r_; asm volatile("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(r_) : "r"(ua)); KOUT((uint32_t)r_); } // OPNAME("cvt.rn.satfinite.e4m3x2.f16x2")
  { uint16_t r_; asm volatile("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(r_) : "r"(ua)); KOUT((uint32_t)r_); } // OPNAME("cvt.rn.satfinite.e5m2x2.f16x2")
  { uint16_t r_; asm volatile("cvt.rn.satfinite.relu.e4m3x2.f16x2 %0, %1;" : "=h"(r_) : "r"(ua)); KOUT((uint32_t)r_); } // OPNAME("cvt.rn.satfinite.relu.e4m3x2.f16x2")
  // END OPS
}

// 32-bit integer arithmetic, bit manipulation, comparisons and
// integer <-> integer / integer -> float conversions.
extern "C" __global__ void int_ops(const uint32_t *a, const uint32_t *b,
                                   const uint32_t *c, uint32_t *out, int n) {
  ELEMENT
  uint32_t ua = a[i], ub = b[i], uc = c[i];
  // BEGIN OPS int_ops
  OP2U("add.s32"); OP2U("add.sat.s32"); OP2U("sub.sat.s32");
  OP2U("mul.lo.s32"); OP2U("mul.hi.s32"); OP2U("mul.hi.u32"); OP2UW("mul.wide.s32"); OP2UW("mul.wide.u32");
  OP3U("mad.lo.s32"); OP3U("mad.hi.u32"); OP3U("mad.hi.sat.s32");
  OP2U("mul24.lo.s32"); OP2U("mul24.hi.s32"); OP2U("mul24.hi.u32"); OP3U("mad24.lo.u32");
  OP3U("sad.s32"); OP3U("sad.u32");
  OP2U("div.s32"); OP2U("div.u32"); OP2U("rem.s32"); OP2U("rem.u32");
  OP1U("abs.s32"); OP1U("neg.s32");
  OP2U("min.s32"); OP2U("max.s32"); OP2U("min.u32"); OP2U("max.u32"); OP2U("max.relu.s32"); OP2U("min.relu.s32");
  OP1U("popc.b32"); OP1U("clz.b32"); OP1U("brev.b32"); OP1U("bfind.u32"); OP1U("bfind.s32"); OP1U("bfind.shiftamt.u32");
  OP3U("bfe.u32"); OP3U("bfe.s32"); OP4UI("bfi.b32", 0); { uint32_t r_; asm volatile("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r_) : "r"(ua), "r"(ub), "r"(uc & 63), "r"(uc >> 26)); KOUT(r_); } // OPNAME("bfi.b32 (pos, len small)")
  OP3U("prmt.b32"); OP3U("prmt.b32.f4e"); OP3U("prmt.b32.b4e"); OP3U("prmt.b32.rc8"); OP3U("prmt.b32.ecl"); OP3U("prmt.b32.ecr"); OP3U("prmt.b32.rc16");
  OP4UI("lop3.b32", 0x96); OP4UI("lop3.b32", 0xe8); OP4UI("lop3.b32", 0x1b);
  OP3U("shf.l.wrap.b32"); OP3U("shf.l.clamp.b32"); OP3U("shf.r.wrap.b32"); OP3U("shf.r.clamp.b32");
  OP2U("shl.b32"); OP2U("shr.u32"); OP2U("shr.s32");
  OP2U("and.b32"); OP2U("or.b32"); OP2U("xor.b32"); OP1U("not.b32"); OP1U("cnot.b32");
  OP2U("bmsk.clamp.b32"); OP2U("bmsk.wrap.b32"); OP2U("szext.clamp.s32"); OP2U("szext.wrap.u32");
  OP3U("dp4a.u32.u32"); OP3U("dp4a.s32.s32"); OP3U("dp4a.s32.u32"); OP3U("dp2a.lo.u32.u32"); OP3U("dp2a.hi.s32.s32");
  { uint32_t lo, hi; asm volatile("add.cc.u32 %0, %2, %3; addc.u32 %1, %3, %2;" : "=r"(lo), "=r"(hi) : "r"(ua), "r"(ub)); KOUT(lo); KOUT(hi); } // OPNAME("add.cc.u32") OPNAME("addc.u32")
  { uint32_t lo, hi; asm volatile("sub.cc.u32 %0, %2, %3; subc.cc.u32 %1, %3, %2;" : "=r"(lo), "=r"(hi) : "r"(ua), "r"(ub)); KOUT(lo); KOUT(hi); } // OPNAME("sub.cc.u32") OPNAME("subc.cc.u32")
  { uint32_t lo, hi; asm volatile("mad.lo.cc.u32 %0, %2, %3, %4; madc.hi.u32 %1, %2, %3, %4;" : "=r"(lo), "=r"(hi) : "r"(ua), "r"(ub), "r"(uc)); KOUT(lo); KOUT(hi); } // OPNAME("mad.lo.cc.u32") OPNAME("madc.hi.u32")
  OPP2U("setp.lt.s32"); OPP2U("setp.lo.u32"); OPP2U("setp.hs.u32");
  OP1U("cvt.s8.s32"); OP1U("cvt.u16.u32"); OP1U("cvt.sat.s8.s32"); OP1U("cvt.sat.u8.s32"); OP1U("cvt.sat.s16.u32"); OP1U("cvt.sat.u32.s32");
  OP1U("cvt.s32.s8"); OP1U("cvt.u32.u16");
  OPCVT1UF("cvt.rn.f32.s32"); OPCVT1UF("cvt.rz.f32.s32"); OPCVT1UF("cvt.rm.f32.u32"); OPCVT1UF("cvt.rp.f32.u32");
  { uint16_t r_; asm volatile("cvt.rn.f16.s32 %0, %1;" : "=h"(r_) : "r"(ua)); KOUT((uint32_t)r_); } // OPNAME("cvt.rn.f16.s32")
  { uint16_t r_; asm volatile("cvt.rz.bf16.u32 %0, %1;" : "=h"(r_) : "r"(ua)); KOUT((uint32_t)r_); } // OPNAME("cvt.rz.bf16.u32")
  // END OPS
}

// 64-bit integer operations (operands are consecutive input pairs).
extern "C" __global__ void int64_ops(const uint64_t *a, const uint64_t *b,
                                     const uint32_t *c, uint32_t *out, int n) {
  ELEMENT
  uint64_t la = a[i], lb = b[i];
  uint32_t ub = c[i];
  // BEGIN OPS int64_ops
  OP2L("add.s64"); OP2L("mul.lo.u64"); OP2L("mul.hi.s64"); OP2L("mul.hi.u64");
  OP2L("div.s64"); OP2L("div.u64"); OP2L("rem.s64"); OP2L("rem.u64");
  OP2L("min.s64"); OP2L("max.u64");
  OP2LU("shl.b64"); OP2LU("shr.u64"); OP2LU("shr.s64");
  OP1LU("popc.b64"); OP1LU("clz.b64"); OP1L("brev.b64"); OP1LU("bfind.s64");
  OP1L("abs.s64"); OP1L("neg.s64");
  { float r_; asm volatile("cvt.rn.f32.s64 %0, %1;" : "=f"(r_) : "l"(la)); KOUT(__float_as_uint(r_)); } // OPNAME("cvt.rn.f32.s64")
  { float r_; asm volatile("cvt.rz.f32.u64 %0, %1;" : "=f"(r_) : "l"(la)); KOUT(__float_as_uint(r_)); } // OPNAME("cvt.rz.f32.u64")
  // END OPS
}
