//===- nvfp4-run.cpp - Run a kernel on a GPU or the emulator --------------===//
//
// Two modes, chosen by the input file:
//  - external kernel (PTX, cubin, fatbinary): run one kernel once with
//    buffers, scalars and tensor maps from the command line (lib/Runtime's
//    RunOptions and Runner); docs/Runtime.md documents it.
//  - MLIR input (.mlir): compile, run with seeded inputs and check against
//    a float64 reference (MlirMode.cpp; docs/Runtime.md).
//
// Exit status: 0 success, 1 the run failed, 2 bad arguments or input files.
//
//===----------------------------------------------------------------------===//

#include "MlirMode.h"

#include "nvfp4/Runtime/Device.h"
#include "nvfp4/Runtime/EmulatorDevice.h"
#include "nvfp4/Runtime/RunOptions.h"
#include "nvfp4/Runtime/Runner.h"

#include <iostream>
#include <string>
#include <vector>

using namespace nvfp4::rt;

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

int report(const Error &e, int status) {
  std::cout.flush();
  std::cerr << "nvfp4-run: error: " << e.message() << "\n";
  return status;
}

int runExternalKernel(const RunOptions &options) {
  auto plan = prepareRun(options);
  if (!plan)
    return report(plan.takeError(), kExitUsage);
  if (options.dryRun) {
    printPlan(*plan, std::cout);
    std::cout << "nvfp4-run: dry run: nothing launched\n";
    return 0;
  }
  DeviceOptions deviceOptions;
  deviceOptions.ordinal = options.deviceOrdinal;
  EmulatorOptions emulatorOptions;
  emulatorOptions.maxWarpInstructions = options.maxWarpInstructions;
  emulatorOptions.scheduleSeed = options.scheduleSeed;
  emulatorOptions.sanitize = options.sanitize;
  emulatorOptions.mmaNumerics = options.mmaNumerics;
  emulatorOptions.approxNumerics = options.approxNumerics;
  auto device = options.backend == BackendKind::Emulator
                    ? createEmulatorDevice(deviceOptions, emulatorOptions)
                    : createDevice(options.backend, deviceOptions);
  if (!device)
    return report(device.takeError(), kExitFailure);
  if (Error e = executeRun(*plan, **device, std::cout))
    return report(e, kExitFailure);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto options = parseRunOptions(args);
  if (!options) {
    Error e = options.takeError();
    std::cerr << "nvfp4-run: error: " << e.message()
              << "\n(run nvfp4-run --help for the syntax)\n";
    return kExitUsage;
  }
  if (options->help) {
    std::cout << runUsage();
    return 0;
  }
  if (nvfp4::run::isMlirInput(options->input))
    return nvfp4::run::runMlirMode(*options);
  return runExternalKernel(*options);
}
