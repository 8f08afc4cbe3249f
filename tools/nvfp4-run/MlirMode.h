//===- MlirMode.h - nvfp4-run's MLIR-input mode -----------------*- C++ -*-===//
//
// The place of nvfp4-run's second mode: compile an MLIR input (the GEMM
// examples, attention later) with the nvfp4 pipeline, make inputs from a
// seed, poison the outputs, launch on the chosen backend and compare with a
// float64 reference, ending with `PASS` or `FAIL cos=... rel_l2=...
// max_abs=... nan=...`. A later increment implements it; until then it
// says so. This mode will link MLIR; the external-kernel mode must keep
// building without it (scripts/device builds nvfp4-run on the GPU machine,
// which has no MLIR), so keep the MLIR code behind this interface.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_TOOLS_NVFP4_RUN_MLIRMODE_H
#define NVFP4_TOOLS_NVFP4_RUN_MLIRMODE_H

#include "nvfp4/Runtime/RunOptions.h"

#include <string>

namespace nvfp4::run {

/// True for an input this mode handles (a `.mlir` file).
bool isMlirInput(const std::string &path);

/// Runs the MLIR-input mode; returns the exit status.
int runMlirMode(const rt::RunOptions &options);

} // namespace nvfp4::run

#endif // NVFP4_TOOLS_NVFP4_RUN_MLIRMODE_H
