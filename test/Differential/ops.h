// Shared by the differential-corpus kernels (docs/Differential.md).
//
// Each element-wise kernel runs one thread per input element i and writes
// the result of its k-th operation to out[k * n + i]. The operations are
// written as OP*("<instruction>") macros in straight-line code: the corpus
// driver (differential.py) reads the instruction strings from the source,
// in order, to name the output slices and to pick each slice's comparison
// (bit for bit, or the documented tolerance of an .approx instruction).
// Keep every OP* call unconditional and outside loops.
#pragma once
#include <cstdint>

#define KOUT(v) (out[(k++) * n + i] = (v))

// f32: operands fa, fb, fc (floats holding the input bits).
#define OP1F(ins) { float r_; asm volatile(ins " %0, %1;" : "=f"(r_) : "f"(fa)); KOUT(__float_as_uint(r_)); }
#define OP2F(ins) { float r_; asm volatile(ins " %0, %1, %2;" : "=f"(r_) : "f"(fa), "f"(fb)); KOUT(__float_as_uint(r_)); }
#define OP3F(ins) { float r_; asm volatile(ins " %0, %1, %2, %3;" : "=f"(r_) : "f"(fa), "f"(fb), "f"(fc)); KOUT(__float_as_uint(r_)); }
// f32 predicate results (testp, setp), as 0/1.
#define OPP1F(ins) { uint32_t r_; asm volatile("{ .reg .pred p; " ins " p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(r_) : "f"(fa)); KOUT(r_); }
#define OPP2F(ins) { uint32_t r_; asm volatile("{ .reg .pred p; " ins " p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r_) : "f"(fa), "f"(fb)); KOUT(r_); }
// set: a 32-bit destination.
#define OPS2F(ins) { uint32_t r_; asm volatile(ins " %0, %1, %2;" : "=r"(r_) : "f"(fa), "f"(fb)); KOUT(r_); }
// f32 source, 32-bit integer destination (cvt to integers, packs).
#define OPCVT1F(ins) { uint32_t r_; asm volatile(ins " %0, %1;" : "=r"(r_) : "f"(fa)); KOUT(r_); }
#define OPCVT2F(ins) { uint32_t r_; asm volatile(ins " %0, %1, %2;" : "=r"(r_) : "f"(fa), "f"(fb)); KOUT(r_); }
// f32 source, 16-bit destination (zero-extended into the output word).
#define OPCVTH1F(ins) { uint16_t r_; asm volatile(ins " %0, %1;" : "=h"(r_) : "f"(fa)); KOUT((uint32_t)r_); }
// f32 source, 64-bit destination: the low word then the high word.
#define OPCVTL1F(ins) { uint64_t r_; asm volatile(ins " %0, %1;" : "=l"(r_) : "f"(fa)); KOUT((uint32_t)r_); KOUT((uint32_t)(r_ >> 32)); }

// 32-bit integer operands ua, ub, uc (register type b32).
#define OP1U(ins) { uint32_t r_; asm volatile(ins " %0, %1;" : "=r"(r_) : "r"(ua)); KOUT(r_); }
#define OP2U(ins) { uint32_t r_; asm volatile(ins " %0, %1, %2;" : "=r"(r_) : "r"(ua), "r"(ub)); KOUT(r_); }
#define OP3U(ins) { uint32_t r_; asm volatile(ins " %0, %1, %2, %3;" : "=r"(r_) : "r"(ua), "r"(ub), "r"(uc)); KOUT(r_); }
// ...with an immediate last operand (the macro's second argument).
#define OP2UI(ins, imm) { uint32_t r_; asm volatile(ins " %0, %1, " #imm ";" : "=r"(r_) : "r"(ua)); KOUT(r_); }
#define OP3UI(ins, imm) { uint32_t r_; asm volatile(ins " %0, %1, %2, " #imm ";" : "=r"(r_) : "r"(ua), "r"(ub)); KOUT(r_); }
#define OP4UI(ins, imm) { uint32_t r_; asm volatile(ins " %0, %1, %2, %3, " #imm ";" : "=r"(r_) : "r"(ua), "r"(ub), "r"(uc)); KOUT(r_); }
// 32-bit sources, 64-bit result (mul.wide): low then high word.
#define OP2UW(ins) { uint64_t r_; asm volatile(ins " %0, %1, %2;" : "=l"(r_) : "r"(ua), "r"(ub)); KOUT((uint32_t)r_); KOUT((uint32_t)(r_ >> 32)); }
// 32-bit integer source, f32 destination (cvt from integers).
#define OPCVT1UF(ins) { float r_; asm volatile(ins " %0, %1;" : "=f"(r_) : "r"(ua)); KOUT(__float_as_uint(r_)); }
// 32-bit integer predicate results.
#define OPP2U(ins) { uint32_t r_; asm volatile("{ .reg .pred p; " ins " p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r_) : "r"(ua), "r"(ub)); KOUT(r_); }

// 64-bit operands la, lb, lc (f64 as bits, or 64-bit integers): results as
// low word then high word.
#define OP1D(ins) { double r_; asm volatile(ins " %0, %1;" : "=d"(r_) : "d"(da)); uint64_t b_ = __double_as_longlong(r_); KOUT((uint32_t)b_); KOUT((uint32_t)(b_ >> 32)); }
#define OP2D(ins) { double r_; asm volatile(ins " %0, %1, %2;" : "=d"(r_) : "d"(da), "d"(db)); uint64_t b_ = __double_as_longlong(r_); KOUT((uint32_t)b_); KOUT((uint32_t)(b_ >> 32)); }
#define OP3D(ins) { double r_; asm volatile(ins " %0, %1, %2, %3;" : "=d"(r_) : "d"(da), "d"(db), "d"(dc)); uint64_t b_ = __double_as_longlong(r_); KOUT((uint32_t)b_); KOUT((uint32_t)(b_ >> 32)); }
#define OPCVTFD(ins) { float r_; asm volatile(ins " %0, %1;" : "=f"(r_) : "d"(da)); KOUT(__float_as_uint(r_)); }
#define OPCVTDF(ins) { double r_; asm volatile(ins " %0, %1;" : "=d"(r_) : "f"(fa)); uint64_t b_ = __double_as_longlong(r_); KOUT((uint32_t)b_); KOUT((uint32_t)(b_ >> 32)); }
#define OPCVTUD(ins) { uint32_t r_; asm volatile(ins " %0, %1;" : "=r"(r_) : "d"(da)); KOUT(r_); }
#define OPCVTLD(ins) { uint64_t r_; asm volatile(ins " %0, %1;" : "=l"(r_) : "d"(da)); KOUT((uint32_t)r_); KOUT((uint32_t)(r_ >> 32)); }
#define OPCVTDL(ins) { double r_; asm volatile(ins " %0, %1;" : "=d"(r_) : "l"(la)); uint64_t b_ = __double_as_longlong(r_); KOUT((uint32_t)b_); KOUT((uint32_t)(b_ >> 32)); }
#define OP2L(ins) { uint64_t r_; asm volatile(ins " %0, %1, %2;" : "=l"(r_) : "l"(la), "l"(lb)); KOUT((uint32_t)r_); KOUT((uint32_t)(r_ >> 32)); }
#define OP1L(ins) { uint64_t r_; asm volatile(ins " %0, %1;" : "=l"(r_) : "l"(la)); KOUT((uint32_t)r_); KOUT((uint32_t)(r_ >> 32)); }
#define OP2LU(ins) { uint64_t r_; asm volatile(ins " %0, %1, %2;" : "=l"(r_) : "l"(la), "r"(ub & 127)); KOUT((uint32_t)r_); KOUT((uint32_t)(r_ >> 32)); }
#define OP1LU(ins) { uint32_t r_; asm volatile(ins " %0, %1;" : "=r"(r_) : "l"(la)); KOUT(r_); }

// 16-bit operands ha, hb, hc (f16 or bf16 bits) and their packed pairs
// ua, ub, uc (x2 forms).
#define OP1H(ins) { uint16_t r_; asm volatile(ins " %0, %1;" : "=h"(r_) : "h"(ha)); KOUT((uint32_t)r_); }
#define OP2H(ins) { uint16_t r_; asm volatile(ins " %0, %1, %2;" : "=h"(r_) : "h"(ha), "h"(hb)); KOUT((uint32_t)r_); }
#define OP3H(ins) { uint16_t r_; asm volatile(ins " %0, %1, %2, %3;" : "=h"(r_) : "h"(ha), "h"(hb), "h"(hc)); KOUT((uint32_t)r_); }
#define OPCVTFH(ins) { float r_; asm volatile(ins " %0, %1;" : "=f"(r_) : "h"(ha)); KOUT(__float_as_uint(r_)); }
#define OPCVTHH(ins) { uint16_t r_; asm volatile(ins " %0, %1;" : "=h"(r_) : "h"(ha)); KOUT((uint32_t)r_); }
#define OPCVTUH(ins) { uint32_t r_; asm volatile(ins " %0, %1;" : "=r"(r_) : "h"(ha)); KOUT(r_); }
// Two f32 sources, 16-bit destination (fp8x2 packs).
#define OPCVTH2F(ins) { uint16_t r_; asm volatile(ins " %0, %1, %2;" : "=h"(r_) : "f"(fa), "f"(fb)); KOUT((uint32_t)r_); }
