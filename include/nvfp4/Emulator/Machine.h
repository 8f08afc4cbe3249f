//===- Machine.h - The emulated SM100 device ---------------------*- C++
//-*-===//
//
// A Machine owns global memory and runs kernels of loaded PTX modules:
//
//   Machine m;
//   auto mod = m.loadModule(std::move(parsedModule));   // or loadPTX(text)
//   const Kernel *k = (*mod)->kernel("vecAdd");
//   uint64_t a = *m.allocate(bytes);  m.write(a, host, bytes);
//   ParamBuilder p(*k);  p.addU64(a); ...
//   LaunchConfig cfg; cfg.grid = {4}; cfg.block = {128}; cfg.params = p.take();
//   if (Error e = m.launch(*k, cfg)) ... e.message()
//
// Address spaces (see docs/Emulator.md): global addresses are generic
// addresses (identity cvta); shared, local, param and const state-space
// addresses are offsets that cvta maps into the windows below.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_EMULATOR_MACHINE_H
#define NVFP4_EMULATOR_MACHINE_H

#include "nvfp4/Emulator/Error.h"
#include "nvfp4/Emulator/PTX.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nvfp4::emu {

/// Generic address windows. A generic address in [kXWindow, kXWindow +
/// kWindowSize) is the state-space address (addr - kXWindow) of space X.
namespace addrspace {
/// First global allocation; 32-bit truncated pointers never land in memory.
inline constexpr uint64_t kGlobalBase = 0x0000'0001'0000'0000ull;
inline constexpr uint64_t kGlobalEnd = 0x0000'7000'0000'0000ull;
inline constexpr uint64_t kSharedWindow = 0x0000'7100'0000'0000ull;
inline constexpr uint64_t kLocalWindow = 0x0000'7200'0000'0000ull;
inline constexpr uint64_t kParamWindow = 0x0000'7300'0000'0000ull;
inline constexpr uint64_t kConstWindow = 0x0000'7400'0000'0000ull;
inline constexpr uint64_t kWindowSize = 0x0000'0001'0000'0000ull;
/// A shared address (shared::cta and shared::cluster alike) of CTA rank r
/// is (r << kClusterRankShift) | offset, as measured on an H200
/// (scripts/device/cluster_addresses.sh): symbols and cvta.to.shared carry
/// the executing CTA's rank; a shared::cta access must use the executing
/// CTA's rank; mapa replaces the rank field. Generic shared addresses are
/// kSharedWindow + the shared address.
inline constexpr unsigned kClusterRankShift = 24;
/// The CTA rank and the offset of a shared address, and the address of
/// offset `off` in CTA rank `rank`.
constexpr uint64_t sharedRank(uint64_t addr) {
  return addr >> kClusterRankShift;
}
constexpr uint64_t sharedOffset(uint64_t addr) {
  return addr & ((uint64_t(1) << kClusterRankShift) - 1);
}
constexpr uint64_t sharedAddress(uint64_t rank, uint64_t off) {
  return (rank << kClusterRankShift) | off;
}
} // namespace addrspace

/// Grid, block and cluster extents.
struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(uint32_t x, uint32_t y = 1, uint32_t z = 1) : x(x), y(y), z(z) {}
  uint64_t count() const { return uint64_t(x) * y * z; }
};

/// Layout of one kernel parameter in the parameter buffer.
struct ParamInfo {
  std::string name;
  ptx::Type type = ptx::Type::None;
  uint32_t offset = 0;
  uint32_t size = 0;
  uint32_t align = 1;
};

class Program;

/// A kernel (.entry) of a loaded module, decoded and ready to launch.
class Kernel {
public:
  /// The .entry name.
  const std::string &name() const { return name_; }
  /// Parameters in order, with their offsets in the parameter buffer.
  const std::vector<ParamInfo> &params() const { return params_; }
  /// Size of the parameter buffer launch() expects.
  uint32_t paramBytes() const { return paramBytes_; }
  /// Bytes of statically declared shared memory.
  uint32_t staticSharedBytes() const { return staticShared_; }
  /// Bytes of local memory per thread (local variables and call frames).
  uint32_t localBytesPerThread() const { return localBytes_; }
  /// The kernel's directives (.reqntid, .reqnctapercluster, ...).
  const ptx::FunctionDirectives &directives() const { return *directives_; }
  /// Instructions that would fail if executed (not implemented yet, unknown
  /// opcode or modifier, malformed operands), one message each.
  const std::vector<std::string> &unsupported() const { return unsupported_; }

private:
  friend class Machine;
  friend class LoadedModule;
  friend class Decoder;
  friend class Executor;
  std::string name_;
  std::vector<ParamInfo> params_;
  uint32_t paramBytes_ = 0;
  uint32_t staticShared_ = 0;
  uint32_t dynamicSharedAlign_ = 16;
  uint32_t localBytes_ = 0;
  const ptx::FunctionDirectives *directives_ = nullptr;
  std::vector<std::string> unsupported_;
  std::shared_ptr<Program> program_;
};

/// Builds a parameter buffer following a kernel's parameter layout.
class ParamBuilder {
public:
  explicit ParamBuilder(const Kernel &k) : kernel_(&k) {
    bytes_.resize(k.paramBytes());
  }
  /// Sets the next parameter from `size` raw bytes. The size must equal the
  /// parameter's declared size.
  Error add(const void *data, uint32_t size);
  Error addU64(uint64_t v) { return add(&v, 8); }
  Error addU32(uint32_t v) { return add(&v, 4); }
  Error addF32(float v) { return add(&v, 4); }
  /// The buffer; fails if not every parameter was set.
  Expected<std::vector<uint8_t>> take();

private:
  const Kernel *kernel_;
  std::vector<uint8_t> bytes_;
  size_t next_ = 0;
};

/// A loaded module: its global variables live in the Machine's memory.
class LoadedModule {
public:
  /// The kernel named `name`, or an error listing the kernels.
  Expected<const Kernel *> kernel(const std::string &name) const;
  /// All kernels, in declaration order.
  const std::vector<std::unique_ptr<Kernel>> &kernels() const {
    return kernels_;
  }
  /// Device address of module-scope .global variable `name` (0 if none).
  uint64_t globalAddress(const std::string &name) const;
  /// The parsed module.
  const ptx::Module &module() const { return *module_; }

private:
  friend class Machine;
  friend class Decoder;
  std::shared_ptr<const ptx::Module> module_;
  std::vector<std::unique_ptr<Kernel>> kernels_;
  std::vector<uint64_t> globalAddr_;  ///< per Module::globals entry
  std::vector<uint32_t> constOffset_; ///< per Module::globals entry
  std::vector<uint8_t> constData_;
};

/// Launch parameters.
/// How MMAs round their dot products (docs/Emulator.md, "MMA accumulation").
enum class MmaNumerics {
  /// wgmma as the H200 measures (fused adder with alignment cuts),
  /// tcgen05.mma exact (products summed exactly, rounded once).
  Auto,
  /// Every MMA exact.
  Exact,
  /// Every MMA hardware-like: wgmma as measured, tcgen05.mma under the
  /// assumed model (the Hopper model of the same operand width).
  Hardware,
};

/// How the approximate special functions round (docs/Emulator.md,
/// "ex2.approx as the H200", "lg2.approx as measured").
enum class ApproxNumerics {
  /// ex2.approx(.ftz).f32 and lg2.approx(.ftz).f32 as sm_90 measures in
  /// modules for sm_90 and sm_90a, the float nearest the exact result
  /// elsewhere (no other chip has been measured).
  Auto,
  /// Every approximate function: the float nearest the exact result.
  Exact,
  /// ex2.approx and lg2.approx as sm_90 measures, whatever the target.
  Hardware,
};

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  /// CTAs per cluster; every cluster's CTAs run together.
  Dim3 cluster;
  uint32_t dynamicSharedBytes = 0;
  /// Launched programmatically (CUDA's programmatic dependent launch): on
  /// a GPU the CTAs may run beside the previous kernel until they execute
  /// griddepcontrol.wait. Launches here run one after another, so a thread
  /// that accesses global memory before its griddepcontrol.wait is
  /// reported as an error instead (it could race the previous kernel).
  bool programmatic = false;
  /// The parameter buffer (see ParamBuilder); its size must match.
  std::vector<uint8_t> params;
  /// Stop with an error after this many warp instructions (0: no limit);
  /// catches livelocks such as a spin loop that can never succeed.
  uint64_t maxWarpInstructions = 0;
  /// Warp instructions a warp runs before the scheduler moves on.
  uint32_t quantum = 64;
  /// Report a shared-memory load or store of bytes that a TMA load still in
  /// flight writes (a kernel that did not wait on the TMA's mbarrier) as an
  /// error. Off: the access sees the old contents (the copy lands later).
  bool checkTmaRaces = true;
  /// The byte every CTA's shared memory holds when the CTA starts. The
  /// hardware leaves it undefined; 0xff makes every f32/f16/bf16 value read
  /// from a never-written byte a NaN, so a kernel that relies on shared
  /// memory starting as zero fails its numerical check instead of passing
  /// here and failing on a GPU.
  uint8_t sharedFill = 0xff;
  /// Schedule exploration (docs/Emulator.md, "Schedule exploration"). 0:
  /// the deterministic schedule (warps round-robin in index order, TMA
  /// copies complete in issue order one step after the next, MMAs as late
  /// as the warps allow). Any other value seeds a generator that shuffles
  /// the warp order every round, draws each warp's slice length, gives
  /// each TMA copy its own latency (so copies complete out of issue order,
  /// some only when no warp can run), runs queued MMAs at random points
  /// and in half of the clusters starves one CTA or warp (it runs in one
  /// round of 16); the same seed gives the same schedule.
  uint64_t scheduleSeed = 0;
  /// The synchronization checks of docs/Emulator.md "The sanitizer":
  /// happens-before races on shared and tensor memory and the tcgen05
  /// fence discipline, independent of the schedule. Off: only the checks
  /// that see the state at one moment (an access to bytes a TMA still
  /// writes, a TMEM access racing a pending MMA).
  bool sanitize = true;
  /// How MMAs round (MmaNumerics).
  MmaNumerics mmaNumerics = MmaNumerics::Auto;
  /// How ex2.approx and lg2.approx round (ApproxNumerics).
  ApproxNumerics approxNumerics = ApproxNumerics::Auto;
};

/// Where and why execution stopped with an error.
struct Fault {
  enum class Kind : uint8_t {
    None,
    Memory,         ///< out of bounds, misaligned, unmapped, read-only
    Divergence,     ///< .aligned instruction reached by a diverged warp
    NotImplemented, ///< instruction or modifier the emulator lacks
    Invalid,        ///< malformed instruction or operands
    Deadlock,       ///< no warp can run
    Trap,           ///< trap / brkpt
    Limit,          ///< maxWarpInstructions exceeded
    Launch,         ///< bad launch configuration
  };
  Kind kind = Kind::None;
  Dim3 cta;
  uint32_t warp = 0;
  uint32_t lane = 0;
  uint32_t line = 0;
  std::string message;
};

/// Counters of the last launch.
struct LaunchStats {
  uint64_t warpInstructions = 0;   ///< warp instructions issued
  uint64_t threadInstructions = 0; ///< sum of active lanes over them
  uint64_t fences = 0;             ///< fence / membar executed (no-ops)
  uint64_t barriers = 0;           ///< bar / barrier completions
  uint64_t mbarrierPhases = 0;     ///< mbarrier phase completions
  /// tcgen05.mma issued (per thread) and wgmma.mma_async (per warpgroup).
  uint64_t mmas = 0;
  /// Global bytes read by TMA tensor loads (in-bounds elements only; a
  /// multicast load counts once): what bench/attention.sh compares with
  /// the minimum a kernel must read.
  uint64_t tmaLoadBytes = 0;
  /// Global bytes read by ld instructions (ld.global and generic loads of
  /// global memory); lanes of one instruction that read the same address
  /// count once (a broadcast). With tmaLoadBytes, what a kernel reads.
  uint64_t globalLoadBytes = 0;
  /// Global bytes written by st instructions (every lane's bytes).
  uint64_t globalStoreBytes = 0;
  /// 32-bit TMEM cells read by tcgen05.ld that nothing had written (they
  /// read as the NaN 0x7FBADBAD).
  uint64_t tmemPoisonReads = 0;
  uint64_t setmaxnreg = 0;         ///< setmaxnreg executed (recorded only)
  uint32_t lastSetmaxnreg = 0;     ///< register count of the last one
  /// Per CTA, by linear CTA id (x fastest): the work counters a benchmark
  /// needs to see how evenly a grid's work is spread (bench/attention.py's
  /// SM fill).
  struct Cta {
    uint64_t mmasSmemA = 0; ///< tcgen05.mma with A in shared memory
    uint64_t mmasTmemA = 0; ///< tcgen05.mma with A in tensor memory
    /// wgmma.mma_async per warpgroup (counted once for its four warps),
    /// with A from shared memory or from registers.
    uint64_t wgmmasSmemA = 0, wgmmasRegA = 0;
    uint64_t tmaLoadBytes = 0;
  /// Global bytes read by ld instructions (ld.global and generic loads of
  /// global memory); lanes of one instruction that read the same address
  /// count once (a broadcast). With tmaLoadBytes, what a kernel reads.
  uint64_t globalLoadBytes = 0; ///< as tmaLoadBytes, by the issuing CTA
  };
  std::vector<Cta> perCta;
  /// What the kernel printed with vprintf (CUDA's device printf), in the
  /// order the emulator executed the calls.
  std::string printfOutput;
};

/// One emulated device.
class Machine {
public:
  Machine();
  ~Machine();
  Machine(const Machine &) = delete;
  Machine &operator=(const Machine &) = delete;

  //--- global memory ------------------------------------------------------
  /// Allocates `bytes` (at least 1) of zeroed global memory aligned to 256.
  Expected<uint64_t> allocate(uint64_t bytes, std::string label = "");
  /// Frees an allocation made by allocate().
  Error free(uint64_t address);
  /// Copies host bytes into global memory (the whole range must be inside
  /// one allocation).
  Error write(uint64_t address, const void *data, uint64_t bytes);
  /// Copies global memory to the host.
  Error read(uint64_t address, void *data, uint64_t bytes) const;
  /// Bytes of global memory currently allocated.
  uint64_t allocatedBytes() const;

  //--- modules and launches -----------------------------------------------
  /// Decodes `module` and allocates its global variables.
  Expected<std::shared_ptr<LoadedModule>>
  loadModule(std::shared_ptr<const ptx::Module> module);
  /// Parses and loads PTX text.
  Expected<std::shared_ptr<LoadedModule>>
  loadPTX(std::string_view text, std::string_view bufferName = "<ptx>");

  /// Runs `kernel` to completion. On failure the error message names CTA,
  /// warp, lane and PTX line where they apply; lastFault() has the fields.
  Error launch(const Kernel &kernel, const LaunchConfig &config);
  /// The fault of the last failed launch (Kind::None after a success).
  const Fault &lastFault() const { return fault_; }
  /// Counters of the last launch.
  const LaunchStats &lastStats() const { return stats_; }

  /// Largest shared memory (static + dynamic) per CTA: 227 KiB on SM100.
  static constexpr uint32_t kMaxSharedBytesPerCta = 232448;

  /// Internal: global memory.
  class GlobalMemory;
  GlobalMemory &globalMemory() { return *global_; }

private:
  std::unique_ptr<GlobalMemory> global_;
  Fault fault_;
  LaunchStats stats_;
};

} // namespace nvfp4::emu

#endif // NVFP4_EMULATOR_MACHINE_H
