//===- run_args_fuzzer.cpp - libFuzzer target for nvfp4-run's arguments --===//
//
// Feeds fuzzed argument vectors to nvfp4-run's command-line parser
// (parseRunOptions in lib/Runtime/RunOptions.cpp, which nvfp4-run's main
// calls first; it does no I/O). The input is split at '\n' into arguments
// (argv[1..]). Parsing must either succeed or return an error whose message
// is not empty: crashes, sanitizer reports and hangs are bugs. A parsed
// result is also checked for the invariants the rest of nvfp4-run relies on
// (every ptr: and tmap: argument names a declared buffer, every buffer
// argument's index is in range).
//
// Build and run with scripts/fuzz.sh run-args.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/RunOptions.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using namespace nvfp4::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::string> args;
  std::string current;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(char(data[i]));
    }
  }
  if (size)
    args.push_back(current);

  auto options = parseRunOptions(args);
  if (!options) {
    Error e = options.takeError();
    if (e.message().empty())
      __builtin_trap(); // every failure says why
    return 0;
  }
  const RunOptions &o = *options;
  if (o.help)
    return 0;
  uint64_t paramBytes = 0;
  for (const ArgSpec &a : o.args) {
    switch (a.kind) {
    case ArgSpec::Kind::Buffer:
      if (a.bufferIndex >= o.buffers.size())
        __builtin_trap();
      break;
    case ArgSpec::Kind::Pointer:
      if (!o.findBuffer(a.pointerBuffer))
        __builtin_trap();
      break;
    case ArgSpec::Kind::TensorMap:
      if (!o.findBuffer(a.tmap.buffer))
        __builtin_trap();
      break;
    case ArgSpec::Kind::Scalar:
      break;
    }
    paramBytes += a.paramBytes();
  }
  (void)paramBytes;
  return 0;
}
