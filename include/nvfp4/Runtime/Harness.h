//===- Harness.h - Run a kernel and check it against a reference -*- C++ -*-===//
//
// The plain-C++ half of nvfp4-run's MLIR-input mode: a HarnessSpec says what
// a kernel computes (a reference of Check.h), with which element types, how
// it is launched and what each of its parameters is (a tensor map over a
// tensor, a tensor's buffer, a scalar computed from the problem sizes).
// runHarness makes the inputs from a seed, poisons the outputs, launches on
// a Device, compares every output with the float64 reference and prints
// `PASS|FAIL cos=... rel_l2=... max_abs=... nan=...` as its last line.
//
// tools/nvfp4-run/MlirMode.cpp fills a HarnessSpec from the kernel's
// `nvfp4.harness` attribute (docs/Runtime.md has its syntax).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_HARNESS_H
#define NVFP4_RUNTIME_HARNESS_H

#include "nvfp4/Runtime/Check.h"
#include "nvfp4/Runtime/Device.h"
#include "nvfp4/Runtime/KernelImage.h"

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace nvfp4::rt {

/// One operand of the reference, with the element type the kernel uses.
struct HarnessTensor {
  std::string name;
  ElemType type = ElemType::F32;
  std::vector<std::string> shape; ///< size names, outermost first
  bool output = false;
};

/// One kernel parameter.
struct HarnessArg {
  enum class Kind {
    TensorMap, ///< a TMA map over a tensor (row-major, dims innermost first)
    Buffer,    ///< the device address of a tensor
    Scalar,    ///< an integer computed from the sizes
  };
  Kind kind = Kind::Scalar;
  std::string tensor;         ///< TensorMap, Buffer
  std::vector<uint32_t> box;  ///< TensorMap: box, innermost first
  TmaSwizzle swizzle = TmaSwizzle::None;
  bool byPointer = true;      ///< TensorMap: pass a device copy's address
  KernelArg::Kind scalarType = KernelArg::Kind::I64; ///< Scalar
  std::string value;          ///< Scalar: "7", "k", "k/64"
};

struct HarnessSpec {
  std::string kernel;
  std::string reference;
  /// Problem sizes with their default values.
  std::map<std::string, uint64_t> sizes;
  /// Sizes the command line may change (--k=N, --size=NAME=N).
  std::set<std::string> settable;
  /// Sizes that must be a multiple of a tile.
  std::map<std::string, uint64_t> multipleOf;
  /// The reference's operands, in its order.
  std::vector<HarnessTensor> tensors;
  std::vector<HarnessArg> args;
  LaunchConfig launch;
  /// rel_l2 threshold (the command line's --rel-l2-tol overrides it).
  double relL2Tolerance = 1e-4;
};

/// Checks a spec against its reference: the reference exists, the tensors
/// are its operands with shapes over declared sizes, every argument names a
/// tensor, scalar values parse, tensor maps have one box entry per
/// dimension. Messages name the field.
Error verify(const HarnessSpec &spec);

/// The sizes of a run: the spec's defaults with `overrides` applied; an
/// override of a size the kernel fixes, or a value that is not a positive
/// multiple of its tile, is an error.
Expected<std::map<std::string, uint64_t>>
resolveSizes(const HarnessSpec &spec,
             const std::map<std::string, uint64_t> &overrides);

/// Evaluates a scalar argument: an integer, a size name, or NAME/INT
/// (exact division).
Expected<uint64_t> evalScalar(const std::string &value,
                              const std::map<std::string, uint64_t> &sizes);

struct HarnessRunOptions {
  std::map<std::string, uint64_t> sizes; ///< resolved (resolveSizes)
  uint64_t seed = 1;
  std::optional<double> relL2Tolerance; ///< overrides the spec's
  std::string origin;                   ///< the input file, for the report
};

/// The 32-bit pattern poisoned f32 outputs start with (a quiet NaN), and the
/// 16-bit one for bf16/f16 outputs (NaN in both).
inline constexpr uint32_t kPoison32 = 0x7fc0dead;
inline constexpr uint16_t kPoison16 = 0x7fff;

/// Prints what runHarness would run.
void printHarnessPlan(const HarnessSpec &spec, const HarnessRunOptions &o,
                      std::ostream &os);

/// Runs the kernel `spec.kernel` of `image` on `device` and checks it. The
/// result is true for PASS; an Error when the run itself failed (load,
/// launch, a fault on the emulator).
Expected<bool> runHarness(const HarnessSpec &spec, const KernelImage &image,
                          Device &device, const HarnessRunOptions &o,
                          std::ostream &os);

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_HARNESS_H
