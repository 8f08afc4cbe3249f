//===- RunOptions.h - nvfp4-run's command line ------------------*- C++ -*-===//
//
// The command line of nvfp4-run's external-kernel mode, parsed into a
// checked model: backend, kernel, launch shape, buffers and the kernel's
// arguments in parameter order. Parsing does no I/O; every failure is a
// usage error (nvfp4-run exits 2) whose message names the option and says
// what was expected. docs/Runtime.md documents the syntax.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_RUNOPTIONS_H
#define NVFP4_RUNTIME_RUNOPTIONS_H

#include "nvfp4/Emulator/Machine.h"
#include "nvfp4/Runtime/Device.h"
#include "nvfp4/Runtime/Error.h"
#include "nvfp4/Runtime/Fill.h"
#include "nvfp4/Runtime/TensorMap.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nvfp4::rt {

/// How a buffer's initial contents are made.
enum class BufferInit {
  File,   ///< file=PATH: raw bytes, exactly the buffer's size
  Seed,   ///< seed=N:TYPE: random, never zero (Fill.h)
  Zero,   ///< zero
  Poison, ///< poison: 0xFF bytes
};

/// A device buffer: `--arg=buf:NAME:BYTES:INIT[:out=PATH][:dump-init=PATH]`
/// (a kernel parameter) or `--buf=NAME:BYTES:INIT[...]` (only named by
/// tensor maps and ptr: arguments).
struct BufferSpec {
  std::string name;
  uint64_t bytes = 0;
  BufferInit init = BufferInit::Zero;
  std::string file;                  ///< BufferInit::File
  uint64_t seed = 0;                 ///< BufferInit::Seed
  FillType seedType = FillType::F32; ///< BufferInit::Seed
  /// Write the buffer to this file after the launch.
  std::string outPath;
  /// Write the buffer's initial contents to this file before the launch.
  std::string dumpInitPath;
  /// The option text, for messages.
  std::string text;
};

/// A tensor map over a buffer:
/// `tmap:BUF:dtype=T:dims=..:strides=..:box=..[:elemstrides=..][:swizzle=S]
/// [:interleave=I][:oob=zero|nan][:l2=P][:offset=BYTES][:by=value|pointer]`.
struct TensorMapSpec {
  std::string buffer;
  /// Byte offset of element 0 in the buffer.
  uint64_t offset = 0;
  /// Everything but the global address, which is the buffer's + offset.
  TensorMapDesc desc;
  /// Pass a pointer to a device copy of the map instead of the map itself.
  bool byPointer = false;
};

/// One kernel argument, in parameter order.
struct ArgSpec {
  enum class Kind {
    Buffer,    ///< buf:...   the address of a buffer it declares
    Pointer,   ///< ptr:NAME[+OFFSET]  the address of a declared buffer
    Scalar,    ///< u8: .. f64:
    TensorMap, ///< tmap:...
  };
  Kind kind = Kind::Scalar;
  /// The option's value, for messages ("buf:x:4096:seed=1:f32").
  std::string text;
  /// Buffer: index into RunOptions::buffers. Pointer: the buffer's name.
  size_t bufferIndex = 0;
  std::string pointerBuffer;
  uint64_t pointerOffset = 0;
  /// Scalar value.
  KernelArg scalar = KernelArg::u32(0);
  /// TensorMap.
  TensorMapSpec tmap;
  /// Bytes this argument occupies as a kernel parameter.
  uint64_t paramBytes() const;
};

/// The whole command line.
struct RunOptions {
  bool help = false;
  /// The input file (PTX, cubin or fatbinary; `.mlir` is the compiler mode).
  std::string input;
  BackendKind backend = BackendKind::Cuda;
  /// Empty: the image's only kernel.
  std::string kernel;
  LaunchConfig launch;
  unsigned deviceOrdinal = 0;
  /// Check and print everything, touch no device.
  bool dryRun = false;
  std::vector<BufferSpec> buffers;
  std::vector<ArgSpec> args;

  /// MLIR-input mode only (docs/Runtime.md): problem sizes (--k=N,
  /// --size=NAME=N), the input seed, a file to write the compiled PTX to,
  /// and the rel_l2 threshold overriding the kernel's.
  std::map<std::string, uint64_t> sizes;
  uint64_t seed = 1;
  std::string emitPtx;
  std::optional<double> relL2Tolerance;
  /// Emulator: stop a launch after this many warp instructions (0: none).
  uint64_t maxWarpInstructions = 0;
  /// Emulator: the schedule seed (LaunchConfig::scheduleSeed; 0: the
  /// deterministic schedule) and, MLIR-input mode, how many schedules to
  /// run (seeds scheduleSeed, scheduleSeed + 1, ...; each run checked).
  uint64_t scheduleSeed = 0;
  uint64_t schedules = 1;
  /// Emulator: the sanitizer (happens-before and tcgen05 fence checks;
  /// --no-sanitize turns it off).
  bool sanitize = true;
  /// Emulator: how MMAs round (--mma-numerics=auto|exact|hardware).
  emu::MmaNumerics mmaNumerics = emu::MmaNumerics::Auto;
  /// Emulator: how ex2.approx and lg2.approx round
  /// (--approx-numerics=auto|exact|hardware).
  emu::ApproxNumerics approxNumerics = emu::ApproxNumerics::Auto;
  /// MLIR-input mode: run this PTX file instead of the compiled one (the
  /// harness still comes from the MLIR), e.g. a mutated copy of the PTX
  /// --emit-ptx wrote.
  std::string replacePtx;
  /// MLIR-input mode: the SM count nvfp4-lower-attention plans split-KV
  /// for (its num-sms option; 0: the pass's default, 148).
  uint64_t numSms = 0;
  /// nvfp4.attention: the balanced plan's fewest keys a CTA (unset: the
  /// pass's default).
  std::optional<uint64_t> minPieceKeys;
  /// nvfp4.attention on sm_90a: exponentials of every 8 on the FMA pipe
  /// (unset: the pass's rule).
  std::optional<uint64_t> polyExp2;
  /// nvfp4.attention on sm_90a: the most pieces a cluster merges
  /// (nvfp4-lower-attention's cluster-merge).
  std::optional<uint64_t> clusterMerge;
  /// nvfp4.attention on sm_90a: P through shared memory (true) or registers
  /// (nvfp4-lower-attention's p-shared; unset: the pass's rule).
  std::optional<bool> pShared;
  /// --cta-group=N: nvfp4-lower-scaled-matmul's cta-group (0: by shape).
  uint64_t ctaGroup = 0;
  /// MLIR input: the chip the kernels are built for (nvfp4-sm100-to-cubin's
  /// chip): sm_100a (default) or sm_90a (docs/Hopper.md).
  std::string chip = "sm_100a";
  /// MLIR-input mode: input elements to set after the fill
  /// (--set-input=NAME[INDEX]=VALUE), and whether the reference's input
  /// checks run before the launch (--no-input-checks turns them off).
  struct InputSet {
    std::string tensor;
    uint64_t index = 0;
    double value = 0;
  };
  std::vector<InputSet> inputSets;
  bool checkInputs = true;
  /// Emulator: write each launch's per-CTA counters (tcgen05.mma with A in
  /// shared / tensor memory, TMA bytes) to this CSV file.
  std::string ctaStats;

  /// The buffer named `name`, or null.
  const BufferSpec *findBuffer(const std::string &name) const;
};

/// Parses nvfp4-run's arguments (without argv[0]). Accepts `--opt=value`
/// and `--opt value`. Checks everything that needs no file and no device:
/// syntax, ranges, launch limits (block <= 1024 threads, cluster dividing
/// the grid, at most 16 CTAs a cluster), unique buffer names, references to
/// declared buffers, and each tensor map (TensorMap.h's validate, and that
/// it fits in its buffer).
Expected<RunOptions> parseRunOptions(const std::vector<std::string> &args);

/// "X[,Y,Z]" of positive integers; `what` names the option in messages.
Expected<Dim3> parseDim3(const std::string &text, const std::string &what);
/// One --arg value; buffers it declares are appended to `buffers`.
Expected<ArgSpec> parseArgSpec(const std::string &text,
                               std::vector<BufferSpec> &buffers);
/// One --buf value ("NAME:BYTES:INIT[...]", a leading "buf:" is allowed).
Expected<BufferSpec> parseBufferSpec(const std::string &text);

/// The usage text for --help.
std::string runUsage();

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_RUNOPTIONS_H
