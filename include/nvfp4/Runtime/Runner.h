//===- Runner.h - Run an external kernel on a Device ------------*- C++ -*-===//
//
// nvfp4-run's external-kernel mode in two steps:
//  1. prepareRun (host only, no device): read the image, find the kernel,
//     check the arguments against its PTX signature, read buffer files and
//     make the seeded/zero/poison contents. Failures are bad input (exit 2).
//  2. executeRun: allocate and fill the buffers, load the module, encode the
//     tensor maps, launch, report the timing and write `out=` files.
//     Failures are the device's (exit 1).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_RUNNER_H
#define NVFP4_RUNTIME_RUNNER_H

#include "nvfp4/Runtime/Device.h"
#include "nvfp4/Runtime/Error.h"
#include "nvfp4/Runtime/KernelImage.h"
#include "nvfp4/Runtime/RunOptions.h"

#include <ostream>
#include <vector>

namespace nvfp4::rt {

/// Everything a launch needs that the host can make by itself.
struct RunPlan {
  RunOptions options;
  KernelImage image;
  /// The kernel to launch (the --kernel name, or the PTX's only entry).
  std::string kernel;
  /// The PTX signature of the kernel (null for cubin/fatbin).
  const PtxEntry *entry() const { return image.findEntry(kernel); }
  /// Initial contents of options.buffers, index for index.
  std::vector<std::vector<uint8_t>> initialContents;
};

/// Step 1. Reads the input and buffer files and checks the arguments
/// against the kernel's parameters (count and sizes) where the image has
/// them.
Expected<RunPlan> prepareRun(RunOptions options);

/// Prints what a run would do (image, kernel, launch shape, arguments).
void printPlan(const RunPlan &plan, std::ostream &os);

/// Step 2. Runs the plan on `device`, printing what it launched and the
/// timing to `os`, and writes the `out=`/`dump-init=` files.
Error executeRun(const RunPlan &plan, Device &device, std::ostream &os);

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_RUNNER_H
