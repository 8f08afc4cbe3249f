//===- ScalarBench.cpp - Emulator throughput on a scalar-heavy kernel -----===//
//
// Not a test: measures thread-instructions per second (the sum over executed
// warp instructions of their active lanes) on a kernel of integer, float,
// conversion, compare and branch instructions with no memory traffic in its
// loop, on one host core. Prints the median of several runs.
//
//   EmulatorScalarBench [--ctas N] [--threads N] [--iters N] [--reps N]
//                       [--sanitize 1|0]
//
// The design target (issue 3) is at least 50 million thread-instructions per
// second. docs/Emulator.md records measured figures.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Emulator/Machine.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace nvfp4::emu;

namespace {

const char *kKernel = R"(
.version 8.8
.target sm_100a
.address_size 64
.visible .entry scalar(.param .u64 out, .param .u32 iters)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r5, [iters];
  mov.u32 %r0, %tid.x;
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %ntid.x;
  mad.lo.u32 %r8, %r6, %r7, %r0;
  mov.u32 %r1, 0;
  mov.u32 %r2, %r8;
  mov.u32 %r3, 0;
  mov.f32 %f2, 0f00000000;
LOOP:
  mad.lo.u32 %r2, %r2, 1664525, 1013904223;
  xor.b32 %r3, %r3, %r2;
  shr.u32 %r4, %r2, 9;
  add.u32 %r3, %r3, %r4;
  cvt.rn.f32.u32 %f1, %r4;
  fma.rn.f32 %f2, %f1, 0f33800000, %f2;
  mul.f32 %f3, %f2, 0f3F7FF000;
  min.f32 %f2, %f3, 0f4B000000;
  and.b32 %r9, %r3, 255;
  setp.lt.u32 %p2, %r9, 128;
  selp.u32 %r10, 3, 5, %p2;
  add.u32 %r3, %r3, %r10;
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, %r5;
  @%p1 bra LOOP;
  cvt.rzi.u32.f32 %r11, %f2;
  add.u32 %r3, %r3, %r11;
  mul.wide.u32 %rd2, %r8, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";

uint32_t arg(int argc, char **argv, const char *name, uint32_t dflt) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0)
      return static_cast<uint32_t>(std::strtoul(argv[i + 1], nullptr, 0));
  return dflt;
}

} // namespace

int main(int argc, char **argv) {
  uint32_t ctas = arg(argc, argv, "--ctas", 64);
  uint32_t threads = arg(argc, argv, "--threads", 256);
  uint32_t iters = arg(argc, argv, "--iters", 500);
  uint32_t reps = arg(argc, argv, "--reps", 5);
  uint32_t sanitize = arg(argc, argv, "--sanitize", 1);

  Machine m;
  auto mod = m.loadPTX(kKernel, "scalar.ptx");
  if (!mod) {
    std::fprintf(stderr, "%s\n", mod.message().c_str());
    return 1;
  }
  const Kernel *k = *(*mod)->kernel("scalar");
  uint64_t out = *m.allocate(uint64_t(ctas) * threads * 4);
  ParamBuilder p(*k);
  (void)p.addU64(out);
  (void)p.addU32(iters);
  LaunchConfig cfg;
  cfg.grid = Dim3(ctas);
  cfg.block = Dim3(threads);
  cfg.params = *p.take();
  cfg.sanitize = sanitize != 0;

  std::vector<double> rates, seconds;
  uint64_t instrs = 0;
  for (uint32_t r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    if (Error e = m.launch(*k, cfg)) {
      std::fprintf(stderr, "%s\n", e.message().c_str());
      return 1;
    }
    double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    instrs = m.lastStats().threadInstructions;
    seconds.push_back(s);
    rates.push_back(double(instrs) / s);
  }
  std::sort(rates.begin(), rates.end());
  std::sort(seconds.begin(), seconds.end());
  std::printf("scalar kernel: %u CTAs x %u threads x %u iterations: %llu "
              "thread-instructions (%llu warp-instructions)\n",
              ctas, threads, iters, static_cast<unsigned long long>(instrs),
              static_cast<unsigned long long>(m.lastStats().warpInstructions));
  std::printf("median of %u runs: %.3f s, %.1f M thread-instructions/s "
              "(min %.1f, max %.1f)\n",
              reps, seconds[seconds.size() / 2], rates[rates.size() / 2] / 1e6,
              rates.front() / 1e6, rates.back() / 1e6);
  return 0;
}
