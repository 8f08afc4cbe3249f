//===- Check.h - float64 references and output metrics ----------*- C++ -*-===//
//
// What nvfp4-run's MLIR-input mode compares with: float64 reference
// computations (by name, so that a kernel's nvfp4.harness attribute can
// name one) and the metrics of an output against its reference. Plain C++;
// the attention reference will join the registry here.
//
//   cos      cosine similarity of out and ref (1 when both are zero)
//   rel_l2   ||out - ref||_2 / ||ref||_2 (||out - ref||_2 when ref is 0)
//   max_abs  max_i |out_i - ref_i| over the finite outputs
//   nan      outputs that are NaN or +-Inf (each one fails the check)
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_CHECK_H
#define NVFP4_RUNTIME_CHECK_H

#include "nvfp4/Runtime/Error.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nvfp4::rt {

/// Element types of checked tensors.
enum class ElemType { F32, BF16, F16 };
const char *stringify(ElemType t);
/// "f32", "bf16", "f16"; anything else is an error listing them.
Expected<ElemType> parseElemType(const std::string &s);
unsigned elemBytes(ElemType t);
/// Decodes `count` elements of type `t` at `data` into doubles (exact).
std::vector<double> decode(const uint8_t *data, size_t count, ElemType t);

/// The comparison of an output with its reference.
struct Metrics {
  double cos = 0;
  double relL2 = 0;
  double maxAbs = 0;
  uint64_t nonFinite = 0;
  uint64_t count = 0;
};

/// Computes the metrics; `out` and `ref` must have the same size.
Metrics compare(const std::vector<double> &out, const std::vector<double> &ref);

/// PASS when there is no NaN/Inf and rel_l2 <= relL2Tolerance.
bool passes(const Metrics &m, double relL2Tolerance);

/// The final line: "PASS cos=0.99999999 rel_l2=1.2e-07 max_abs=3.1e-06
/// nan=0" (or FAIL ...).
std::string verdictLine(const Metrics &m, double relL2Tolerance);

/// A named reference computation: its operands in order (each with a shape
/// over named sizes, outermost first), which of them are outputs, and the
/// float64 computation of the outputs from the inputs.
struct ReferenceOperand {
  std::string name;
  std::vector<std::string> shape; ///< size names, outermost first
  bool output = false;
};
struct Reference {
  std::string name;
  std::string description;
  std::vector<ReferenceOperand> operands;
  /// Computes every output from the inputs (all operands are row-major
  /// float64 arrays of their shapes; outputs arrive sized and zeroed).
  void (*compute)(const std::map<std::string, uint64_t> &sizes,
                  std::vector<std::vector<double>> &operands) = nullptr;
};

/// The reference named `name`, or an error listing the known ones.
Expected<const Reference *> findReference(const std::string &name);
/// All references ("gemm_abt", ...).
const std::vector<Reference> &references();

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_CHECK_H
