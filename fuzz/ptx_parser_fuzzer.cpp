//===- ptx_parser_fuzzer.cpp - libFuzzer target for the PTX front end -----===//
//
// Feeds arbitrary bytes to the PTX parser. When they parse, the module is
// also decoded (Machine::loadModule) and its first kernel launched on one
// warp with a small instruction budget (pointer parameters point to a valid
// buffer), so the decoder and the executor see the same hostile inputs. Every
// stage must either succeed or return an Error: crashes, sanitizer reports,
// hangs and runaway memory are bugs.
//
// Build and run with scripts/fuzz-ptx-parser.sh.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Emulator/Machine.h"
#include "nvfp4/Emulator/Parser.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

using namespace nvfp4::emu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  ParseLimits limits;
  // Keep single inputs cheap: the defaults allow real kernels, these allow
  // anything the fuzzer can reach in a few kilobytes.
  limits.maxRegistersPerFunction = 1u << 14;
  limits.maxRegistersPerModule = 1u << 16;
  limits.maxVariableBytes = uint64_t(1) << 24;
  auto parsed = parseModule(text, "fuzz.ptx", limits);
  if (!parsed) {
    // Every diagnostic names a position.
    if (parsed.message().rfind("fuzz.ptx:", 0) != 0)
      __builtin_trap();
    return 0;
  }
  Machine machine;
  auto loaded = machine.loadModule(
      std::shared_ptr<const ptx::Module>(std::move(*parsed)));
  if (!loaded)
    return 0;
  // Pointer parameters point into one 64 KiB buffer and 32-bit parameters
  // are 64, so kernels like the seeds' vecAdd run past their first load.
  auto buffer = machine.allocate(1 << 16, "fuzz");
  if (!buffer)
    return 0;
  for (const auto &kernel : (*loaded)->kernels()) {
    LaunchConfig cfg;
    cfg.grid = Dim3(1);
    cfg.block = Dim3(32);
    cfg.params.assign(kernel->paramBytes(), 0);
    for (const ParamInfo &p : kernel->params()) {
      uint64_t v = p.size == 8 ? *buffer : 64;
      if (p.size == 8 || p.size == 4)
        std::memcpy(cfg.params.data() + p.offset, &v, p.size);
    }
    cfg.maxWarpInstructions = 2000;
    cfg.dynamicSharedBytes = 256;
    (void)machine.launch(*kernel, cfg);
    break; // one launch per input keeps the rate up
  }
  return 0;
}
