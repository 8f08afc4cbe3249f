//===- TestUtil.h - Helpers for the emulator unit tests ---------*- C++ -*-===//
//
// runBody() wraps a few PTX instructions in a kernel that gives every thread
// four 64-bit inputs and one 64-bit output, runs it on the emulator and
// returns the outputs. Inside the body:
//   %rd10..%rd13  the inputs a, b, c, d (64-bit)
//   %r10..%r13    their low 32 bits
//   %f10..%f13    the same bits as .f32
//   %fd10..%fd13  the same bits as .f64
//   %h10..%h13    their low 16 bits
//   %r0           %tid.x
// and the body must leave the result in %rd20 (append kStore32 to store
// %r20 zero-extended instead).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_UNITTESTS_EMULATOR_TESTUTIL_H
#define NVFP4_UNITTESTS_EMULATOR_TESTUTIL_H

#include "nvfp4/Emulator/Machine.h"
#include "nvfp4/Emulator/Parser.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace nvfp4::emu::test {

/// A kernel `k(.param .u64 out)` with %r0 = %tid.x. The body starts on
/// line 11 plus the number of lines in `globals`.
inline std::string kern(const std::string &body,
                        const std::string &globals = "") {
  return ".version 8.8\n.target sm_100a\n.address_size 64\n" + globals +
         ".visible .entry k(.param .u64 out)\n{\n"
         "  .reg .pred %p<8>;\n  .reg .b32 %r<32>;\n  .reg .b64 %rd<16>;\n"
         "  ld.param.u64 %rd1, [out];\n"
         "  mov.u32 %r0, %tid.x;\n" +
         body + "\n}\n";
}

/// Kernel-body prefix that sets %rd3 = &out[%tid.x] (2 lines).
inline const char *const kAddr =
    "  mul.wide.u32 %rd2, %r0, 8;\n  add.s64 %rd3, %rd1, %rd2;\n";


/// One thread's inputs.
struct Lane {
  uint64_t a = 0, b = 0, c = 0, d = 0;
};

/// Moves %r20 into %rd20 (zero-extended).
inline const char *kStore32 = "\n  cvt.u64.u32 %rd20, %r20;\n";
/// Moves %f20 into %rd20.
inline const char *kStoreF32 =
    "\n  mov.b32 %r20, %f20;\n  cvt.u64.u32 %rd20, %r20;\n";
/// Moves %h20 into %rd20.
inline const char *kStore16 = "\n  cvt.u64.u16 %rd20, %h20;\n";

inline std::string bodyKernel(const std::string &body,
                              const std::string &target = "sm_100a") {
  return ".version 8.8\n.target " + target +
         "\n.address_size 64\n"
         ".visible .entry k(.param .u64 pout, .param .u64 pin)\n{\n"
         "  .reg .pred %p<8>;\n  .reg .b16 %h<32>;\n  .reg .b32 %r<32>;\n"
         "  .reg .b64 %rd<32>;\n  .reg .f32 %f<32>;\n  .reg .f64 %fd<32>;\n"
         "  ld.param.u64 %rd0, [pout];\n  ld.param.u64 %rd1, [pin];\n"
         "  mov.u32 %r0, %tid.x;\n  mul.wide.u32 %rd2, %r0, 32;\n"
         "  add.s64 %rd1, %rd1, %rd2;\n  mul.wide.u32 %rd3, %r0, 8;\n"
         "  add.s64 %rd0, %rd0, %rd3;\n"
         "  ld.global.b64 %rd10, [%rd1];\n  ld.global.b64 %rd11, [%rd1+8];\n"
         "  ld.global.b64 %rd12, [%rd1+16];\n"
         "  ld.global.b64 %rd13, [%rd1+24];\n"
         "  cvt.u32.u64 %r10, %rd10;\n  cvt.u32.u64 %r11, %rd11;\n"
         "  cvt.u32.u64 %r12, %rd12;\n  cvt.u32.u64 %r13, %rd13;\n"
         "  mov.b32 %f10, %r10;\n  mov.b32 %f11, %r11;\n"
         "  mov.b32 %f12, %r12;\n  mov.b32 %f13, %r13;\n"
         "  mov.b64 %fd10, %rd10;\n  mov.b64 %fd11, %rd11;\n"
         "  mov.b64 %fd12, %rd12;\n  mov.b64 %fd13, %rd13;\n"
         "  cvt.u16.u64 %h10, %rd10;\n  cvt.u16.u64 %h11, %rd11;\n"
         "  cvt.u16.u64 %h12, %rd12;\n  cvt.u16.u64 %h13, %rd13;\n"
         "  mov.u64 %rd20, 0;\n" +
         body + "\n  st.global.b64 [%rd0], %rd20;\n  ret;\n}\n";
}

/// Runs `body` (see the file comment) with one thread per entry of `in`,
/// in a module for `target`. On failure returns an empty vector and sets
/// *err.
inline std::vector<uint64_t>
runBody(const std::string &body, const std::vector<Lane> &in,
        std::string *err = nullptr, const std::string &target = "sm_100a",
        ApproxNumerics approx = ApproxNumerics::Auto) {
  Machine m;
  std::string text = bodyKernel(body, target);
  auto mod = m.loadPTX(text, "body.ptx");
  if (!mod) {
    if (err)
      *err = mod.message();
    return {};
  }
  auto k = (*mod)->kernel("k");
  if (!k) {
    if (err)
      *err = k.message();
    return {};
  }
  size_t n = in.size();
  uint64_t din = *m.allocate(n * 32), dout = *m.allocate(n * 8);
  std::vector<uint64_t> words;
  for (const Lane &l : in) {
    words.push_back(l.a);
    words.push_back(l.b);
    words.push_back(l.c);
    words.push_back(l.d);
  }
  (void)m.write(din, words.data(), n * 32);
  ParamBuilder pb(**k);
  (void)pb.addU64(dout);
  (void)pb.addU64(din);
  LaunchConfig cfg;
  cfg.block = Dim3(static_cast<uint32_t>(n));
  cfg.params = *pb.take();
  cfg.approxNumerics = approx;
  if (Error e = m.launch(**k, cfg)) {
    if (err)
      *err = e.message();
    return {};
  }
  std::vector<uint64_t> out(n);
  (void)m.read(dout, out.data(), n * 8);
  return out;
}

/// Runs `body` for a single thread and returns its result.
inline uint64_t run1(const std::string &body, Lane in,
                     std::string *err = nullptr) {
  std::vector<uint64_t> r = runBody(body, {in}, err);
  return r.empty() ? 0xdeadbeefdeadbeefull : r[0];
}

inline uint64_t f32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline uint64_t f64(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
inline float asF32(uint64_t v) {
  uint32_t u = static_cast<uint32_t>(v);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Options of runKernel().
struct KernelOptions {
  Dim3 grid{1};
  Dim3 block{32};
  Dim3 cluster{1};
  uint32_t dynamicShared = 0;
  uint64_t maxWarpInstructions = 0;
};

/// Loads `text`, runs kernel `name` whose only parameter is a .u64 pointer
/// to `out.size()` zeroed 64-bit words, and copies them back. Returns the
/// error message, or "" on success. `fault` receives Machine::lastFault().
inline std::string runKernel(const std::string &text, const std::string &name,
                             const KernelOptions &opts,
                             std::vector<uint64_t> &out,
                             Fault *fault = nullptr) {
  Machine m;
  auto mod = m.loadPTX(text, "k.ptx");
  if (!mod)
    return mod.message();
  auto k = (*mod)->kernel(name);
  if (!k)
    return k.message();
  size_t n = out.empty() ? 1 : out.size();
  uint64_t dout = *m.allocate(n * 8, "out");
  ParamBuilder pb(**k);
  if (Error e = pb.addU64(dout))
    return e.message();
  auto params = pb.take();
  if (!params)
    return params.message();
  LaunchConfig cfg;
  cfg.grid = opts.grid;
  cfg.block = opts.block;
  cfg.cluster = opts.cluster;
  cfg.dynamicSharedBytes = opts.dynamicShared;
  cfg.maxWarpInstructions = opts.maxWarpInstructions;
  cfg.params = std::move(*params);
  Error e = m.launch(**k, cfg);
  if (fault)
    *fault = m.lastFault();
  if (e)
    return e.message();
  if (!out.empty())
    (void)m.read(dout, out.data(), out.size() * 8);
  return "";
}

/// Reads a file from test/Emulator/Inputs.
/// A file of test/Emulator/Inputs, or one the build generated (the PTX of
/// the examples, unittests/Emulator/CMakeLists.txt).
inline std::string readInput(const std::string &name) {
  std::ifstream f(std::string(NVFP4_EMULATOR_GENERATED_INPUTS) + "/" + name);
  if (!f)
    f = std::ifstream(std::string(NVFP4_EMULATOR_INPUTS) + "/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

} // namespace nvfp4::emu::test

#endif // NVFP4_UNITTESTS_EMULATOR_TESTUTIL_H
