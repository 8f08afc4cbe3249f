//===- GemmBench.cpp - The GEMM examples on the emulator: time and memory -===//
//
// Not a test: runs the PTX our pipeline emits for examples/gemm.mlir (M =
// 128, N = 256), gemm_m64.mlir (M = 64) and gemm_2cta.mlir (M = 256 on a
// cluster of 2) with K = --k on random bf16 inputs, on one host core, and
// prints per case:
//
//   - the median, min and max wall time of Machine::launch over --reps runs
//     (the same Machine, D poisoned again before each run);
//   - thread instructions and tcgen05.mma count of one launch;
//   - rel_l2 of D against a float64 reference (exits 1 if above 1e-4 or if a
//     launch fails);
//   - the emulated state (bytes), the growth of the process's peak RSS
//     during the first run, and their ratio (see docs/Emulator.md).
//
//   EmulatorGemmBench [--k 4096] [--reps 5] [--case gemm|gemm_m64|gemm_2cta|all]
//                     [--sanitize 1|0]  (the sanitizer, LaunchConfig::sanitize)
//                     [--seed 1]
//
// Emulated state = the global memory allocated for the launch
// (Machine::allocatedBytes(): A, B, D, the two tensor maps) + per CTA:
// shared memory (static + dynamic) + tensor memory (128 lanes x 512 columns
// x 4 bytes) + the register file (warps x register rows x 32 lanes x 8
// bytes; rows as the decoder lays them out: the kernel's declared non-
// predicate registers, one per special register/component read, one for
// the carry flag if used; predicates are not counted).
//
// Peak-RSS growth = VmHWM after the first launch minus VmRSS just before the
// emu::Machine is created (PTX text and host inputs already prepared; the
// peak is reset there by writing 5 to /proc/self/clear_refs). It covers
// parsing and decoding the PTX, the global allocations and the launch. This
// binary links only NVFP4Emulator (no MLIR), and `--case all` runs each
// case in a fresh process (this binary again) so that one case's freed heap
// does not hide the next case's growth.
//
// The PTX is the build's generated copy (build/unittests/Emulator/Inputs,
// target EmulatorGemmPTX), read before the measurement starts.
//
//===----------------------------------------------------------------------===//

#include "GemmRunner.h"
#include "TestUtil.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;

namespace {

struct Options {
  uint32_t k = 4096;
  uint32_t reps = 5;
  uint32_t seed = 1;
  uint32_t sanitize = 1; ///< LaunchConfig::sanitize
  std::string which = "all";
};

const char *const kCaseNames[] = {"gemm", "gemm_m64", "gemm_2cta"};

/// A field of /proc/self/status in bytes (its value is in kB), or 0.
uint64_t statusBytes(const char *field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  size_t n = std::strlen(field);
  while (std::getline(f, line))
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
      return std::strtoull(line.c_str() + n + 1, nullptr, 10) * 1024;
  return 0;
}

/// Resets VmHWM to the current RSS (Linux >= 4.0). Returns false if the
/// kernel refused.
bool resetPeakRss() {
  std::ofstream f("/proc/self/clear_refs");
  if (!f)
    return false;
  f << "5";
  f.flush();
  return static_cast<bool>(f);
}

/// Register rows the decoder gives `fn` (see the file comment).
uint64_t registerRows(const ptx::Function &fn) {
  uint64_t rows = 0;
  for (const ptx::RegisterDecl &r : fn.regs)
    rows += r.type == ptx::Type::Pred ? 0 : 1;
  std::set<std::pair<int, int>> specials;
  bool carry = false;
  auto visit = [&](const ptx::Operand &o, auto &self) -> void {
    if (o.kind == ptx::Operand::Kind::Special)
      specials.insert({static_cast<int>(o.sreg), o.comp});
    for (const ptx::Operand &e : o.elems)
      self(e, self);
  };
  for (const ptx::Instruction &in : fn.body) {
    for (const ptx::Operand &o : in.operands)
      visit(o, visit);
    const std::string &mn = in.mnemonic;
    if (mn.find(".cc") != std::string::npos || mn.rfind("addc", 0) == 0 ||
        mn.rfind("subc", 0) == 0 || mn.rfind("madc", 0) == 0)
      carry = true;
  }
  return rows + specials.size() + (carry ? 1 : 0);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double mib(uint64_t b) { return double(b) / (1024.0 * 1024.0); }

int runCase(const Options &o, size_t index) {
  const GemmCase &c = kGemms[index];
  const char *name = kCaseNames[index];
  if (o.k == 0 || o.k % 64 != 0) {
    std::fprintf(stderr, "error: --k must be a positive multiple of 64\n");
    return 2;
  }
  // Host side first: the PTX text and the inputs.
  std::string text = readInput(c.file);
  if (text.empty()) {
    std::fprintf(stderr,
                 "error: %s not found in %s (build target EmulatorGemmPTX)\n",
                 c.file, NVFP4_EMULATOR_GENERATED_INPUTS);
    return 2;
  }
  GemmInputs in = makeGemmInputs(c, o.k / 64, o.seed);

  bool reset = resetPeakRss();
  uint64_t rss0 = statusBytes("VmRSS");
  uint64_t hwm0 = statusBytes("VmHWM");
  uint64_t file0 = statusBytes("RssFile"), anon0 = statusBytes("RssAnon");
  auto m = std::make_unique<Machine>();
  GemmLaunch l;
  if (std::string err = prepareGemm(*m, c, text, in, l); !err.empty()) {
    std::fprintf(stderr, "%s: %s\n", name, err.c_str());
    return 1;
  }
  l.cfg.sanitize = o.sanitize != 0;
  const uint64_t globalBytes = m->allocatedBytes();
  const uint64_t hwmPrepared = statusBytes("VmHWM");

  std::vector<double> seconds;
  std::vector<double> ref;
  LaunchStats stats;
  double worstErr = 0;
  uint64_t hwm1 = 0, file1 = 0, anon1 = 0;
  for (uint32_t r = 0; r < o.reps; ++r) {
    if (r > 0)
      poisonGemmD(*m, in, l);
    auto t0 = std::chrono::steady_clock::now();
    Error e = m->launch(*l.kernel, l.cfg);
    double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    if (e) {
      std::fprintf(stderr, "%s: %s\n", name, e.message().c_str());
      return 1;
    }
    seconds.push_back(s);
    if (r == 0) {
      hwm1 = statusBytes("VmHWM");
      file1 = statusBytes("RssFile");
      anon1 = statusBytes("RssAnon");
      stats = m->lastStats();
      ref = gemmReference(c, in); // after the memory measurement
    }
    double err = relL2(readGemmD(*m, c, l), ref);
    if (!(err <= worstErr)) // also catches NaN
      worstErr = err;
  }

  // The emulated state.
  const ptx::Function *fn = l.module->module().findFunction(c.kernel);
  const uint64_t ctas = l.cfg.grid.count();
  const uint64_t warps = (l.cfg.block.count() + 31) / 32;
  const uint64_t rows = fn ? registerRows(*fn) : 0;
  const uint64_t shared =
      uint64_t(l.kernel->staticSharedBytes()) + l.cfg.dynamicSharedBytes;
  const uint64_t tmem = 128ull * 512 * 4;
  const uint64_t regs = warps * rows * 32 * 8;
  const uint64_t state = globalBytes + ctas * (shared + tmem + regs);
  const uint64_t growth = hwm1 > rss0 ? hwm1 - rss0 : 0;
  const double ratio = double(growth) / double(state);

  std::printf("%s: %u x %u x %u, %llu CTA(s) x %llu warps, median of %u "
              "launches %.3f s (min %.3f, max %.3f)\n",
              name, c.m, c.n, in.K, (unsigned long long)ctas,
              (unsigned long long)warps, o.reps, median(seconds),
              *std::min_element(seconds.begin(), seconds.end()),
              *std::max_element(seconds.begin(), seconds.end()));
  std::printf("  %llu thread-instructions (%llu warp-instructions, %.1f M "
              "thread-instr/s), %llu MMAs, rel_l2 %.3g (max over runs)\n",
              (unsigned long long)stats.threadInstructions,
              (unsigned long long)stats.warpInstructions,
              double(stats.threadInstructions) / median(seconds) / 1e6,
              (unsigned long long)stats.mmas, worstErr);
  std::printf("  emulated state %.2f MiB = global %.2f MiB + %llu x (shared "
              "%.1f KiB + TMEM %.0f KiB + registers %.1f KiB = %llu warps x %llu "
              "rows x 256 B)\n",
              mib(state), mib(globalBytes), (unsigned long long)ctas,
              shared / 1024.0, tmem / 1024.0, regs / 1024.0,
              (unsigned long long)warps, (unsigned long long)rows);
  std::printf("  peak RSS %.2f MiB -> %.2f MiB: growth %.2f MiB (%.2f MiB "
              "by the end of load + allocate + write), %.2fx the emulated "
              "state%s\n",
              mib(reset ? rss0 : hwm0), mib(hwm1), mib(growth),
              mib(hwmPrepared > rss0 ? hwmPrepared - rss0 : 0), ratio,
              reset ? "" : " (peak RSS could not be reset: an upper bound)");
  std::printf("  after the first launch: RssAnon %+.2f MiB, RssFile %+.2f MiB "
              "(pages of this binary run for the first time)\n",
              (double(anon1) - double(anon0)) / 1048576.0,
              (double(file1) - double(file0)) / 1048576.0);
  std::printf("RESULT case=%s m=%u n=%u k=%u reps=%u median_s=%.4f min_s=%.4f "
              "max_s=%.4f thread_instr=%llu mmas=%llu rel_l2=%.3g "
              "state_bytes=%llu rss_growth_bytes=%llu ratio=%.3f\n",
              name, c.m, c.n, in.K, o.reps, median(seconds),
              *std::min_element(seconds.begin(), seconds.end()),
              *std::max_element(seconds.begin(), seconds.end()),
              (unsigned long long)stats.threadInstructions,
              (unsigned long long)stats.mmas, worstErr,
              (unsigned long long)state, (unsigned long long)growth, ratio);
  std::fflush(stdout);
  if (!(worstErr <= 1e-4)) {
    std::fprintf(stderr, "%s: rel_l2 %.3g exceeds 1e-4\n", name, worstErr);
    return 1;
  }
  return 0;
}

/// Runs `self --case name ...` in a fresh process; returns its exit status.
int spawnCase(const Options &o, const char *name) {
  std::string k = std::to_string(o.k), reps = std::to_string(o.reps),
              seed = std::to_string(o.seed),
              sanitize = std::to_string(o.sanitize);
  std::vector<std::string> args = {"EmulatorGemmBench", "--case", name,
                                   "--k",  k,          "--reps",   reps,
                                   "--seed", seed,     "--sanitize", sanitize};
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(),
                  environ) != 0) {
    std::perror("posix_spawn");
    return 1;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0)
    return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "error: %s needs a value\n", a.c_str());
      return 2;
    }
    const char *v = argv[++i];
    if (a == "--k")
      o.k = static_cast<uint32_t>(std::strtoul(v, nullptr, 0));
    else if (a == "--reps")
      o.reps = std::max(1u, static_cast<uint32_t>(std::strtoul(v, nullptr, 0)));
    else if (a == "--seed")
      o.seed = static_cast<uint32_t>(std::strtoul(v, nullptr, 0));
    else if (a == "--case")
      o.which = v;
    else if (a == "--sanitize")
      o.sanitize = static_cast<uint32_t>(std::strtoul(v, nullptr, 0));
    else {
      std::fprintf(stderr,
                   "usage: EmulatorGemmBench [--k 4096] [--reps 5] [--case "
                   "gemm|gemm_m64|gemm_2cta|all] [--seed 1] [--sanitize "
                   "1|0]\n");
      return 2;
    }
  }
  if (o.which == "all") {
    int rc = 0;
    for (const char *name : kCaseNames)
      rc = std::max(rc, spawnCase(o, name));
    return rc;
  }
  for (size_t i = 0; i < std::size(kCaseNames); ++i)
    if (o.which == kCaseNames[i])
      return runCase(o, i);
  std::fprintf(stderr, "error: unknown --case '%s'\n", o.which.c_str());
  return 2;
}
