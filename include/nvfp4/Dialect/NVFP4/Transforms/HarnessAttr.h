//===- HarnessAttr.h - Read a kernel's nvfp4.harness attribute --*- C++ -*-===//
//
// Every nvfp4 lowering describes the kernel it builds in an `nvfp4.harness`
// dictionary on the gpu.func (docs/Runtime.md): the reference it computes,
// the problem sizes, its launch and what each parameter is. nvfp4-run checks
// kernels with it, the host lowering (nvfp4-lower-host) launches them with
// it, and the C API reports it as launch metadata.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_TRANSFORMS_HARNESSATTR_H
#define NVFP4_DIALECT_NVFP4_TRANSFORMS_HARNESSATTR_H

#include "nvfp4/Runtime/Harness.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/LLVM.h"

#include <map>
#include <string>
#include <vector>

namespace nvfp4 {

inline constexpr const char *kHarnessAttr = "nvfp4.harness";

/// Reads the nvfp4.harness dictionary of `func` (and of the kernels its
/// `then` entries launch, in the same gpu.module) into `spec`; every problem
/// is an error on `func` naming the field, what was expected and what was
/// found.
mlir::LogicalResult readHarness(mlir::gpu::GPUFuncOp func,
                                rt::HarnessSpec &spec);

/// Checks the static memref shapes of the buffer arguments `args` of `func`
/// against the tensor shapes at the resolved sizes.
mlir::LogicalResult
checkBufferShapes(mlir::gpu::GPUFuncOp func, const rt::HarnessSpec &spec,
                  const std::vector<rt::HarnessArg> &args,
                  const std::map<std::string, uint64_t> &sizes);

} // namespace nvfp4

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_HARNESSATTR_H
