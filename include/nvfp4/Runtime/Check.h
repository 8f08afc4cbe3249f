//===- Check.h - float64 references and output metrics ----------*- C++ -*-===//
//
// What nvfp4-run's MLIR-input mode compares with: float64 reference
// computations (by name, so that a kernel's nvfp4.harness attribute can
// name one) and the metrics of an output against its reference. Plain C++.
// The attention reference (attentionReference, the exact semantics of
// nvfp4.attention in docs/Attention.md) is a function of its own and also
// the registry entry "attention", whose options (softmax_scale, causal,
// window) come with the harness.
//
//   cos      cosine similarity of out and ref (1 when both are zero)
//   rel_l2   ||out - ref||_2 / ||ref||_2 (||out - ref||_2 when ref is 0)
//   max_abs  max_i |out_i - ref_i| over the finite outputs
//   nan      elements where out or ref is NaN or +-Inf and out is not the
//            same infinity as ref (each one fails the check); an output
//            equal to an infinite reference (-inf = -inf) matches and is
//            left out of the norms
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_CHECK_H
#define NVFP4_RUNTIME_CHECK_H

#include "nvfp4/Runtime/Error.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nvfp4::rt {

/// Element types of checked tensors.
enum class ElemType { F32, BF16, F16, I32, U8 };
const char *stringify(ElemType t);
/// "f32", "bf16", "f16", "i32", "u8"; anything else is an error listing
/// them.
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
  /// Infinite references matched by the same infinity (not failures).
  uint64_t equalInfinities = 0;
  uint64_t count = 0;
};

/// Computes the metrics; `out` and `ref` must have the same size.
Metrics compare(const std::vector<double> &out, const std::vector<double> &ref);

/// The PASS thresholds of one output.
struct Tolerance {
  double relL2 = 1e-4;          ///< rel_l2 <= relL2
  std::optional<double> minCos; ///< cos >= minCos
  std::optional<double> maxAbs; ///< max_abs <= maxAbs
};

/// PASS when nan = 0 and rel_l2 <= relL2Tolerance.
bool passes(const Metrics &m, double relL2Tolerance);
/// PASS when nan = 0 and every threshold of `t` holds.
bool passes(const Metrics &m, const Tolerance &t);

/// The final line: "PASS cos=0.99999999 rel_l2=1.2e-07 max_abs=3.1e-06
/// nan=0" (or FAIL ...).
std::string verdictLine(const Metrics &m, double relL2Tolerance);
std::string verdictLine(const Metrics &m, const Tolerance &t);
/// "cos >= 0.99999, rel_l2 <= 0.005" (the thresholds that apply).
std::string describe(const Tolerance &t);

/// A named reference computation: its operands in order (each with a shape
/// over named sizes, outermost first), which of them are outputs, and the
/// float64 computation of the outputs from the inputs.
struct ReferenceOperand {
  std::string name;
  std::vector<std::string> shape; ///< size names, outermost first
  bool output = false;
  /// Inputs: when not empty, the operand holds lengths in [1, size
  /// `lengthsOf`] (Harness.h's fillLengths) instead of random values.
  std::string lengthsOf;
  /// Outputs: the default thresholds (the harness attribute may change
  /// them); without one, the harness's rel_l2 alone.
  std::optional<Tolerance> tolerance;
  /// Inputs: the computation accepts the operand's absence (an empty
  /// array), as nvfp4.attention accepts a missing sink or kv_lens.
  bool optional = false;
  /// Inputs: when not empty, the operand is a block table: distinct page
  /// numbers in [0, size `pagesOf`), shuffled (Harness.h's fillPages).
  std::string pagesOf;
  /// Inputs (f32): log-sum-exps of attention rows, some of them -inf (rows
  /// without a visible key; Harness.h's fillLse) instead of random values.
  bool lse = false;
  /// Inputs: when not empty, the operand holds sparse top-k indices: slots
  /// in [0, the product of these sizes) or -1, some repeated (Harness.h's
  /// fillIndices).
  std::vector<std::string> slotsOf;
  /// Inputs (u8): when not empty, the operand is a quantized KV cache in
  /// this layout (nvfp4/Support/KvCacheFormat.h), filled by
  /// KvCacheFormat::fill: its dim 0 counts the pages, of `pageSizeOf`
  /// tokens each.
  std::string cacheFormat;
  std::string pageSizeOf = "ps";
  /// Inputs: a named fill of Fill.h instead of random values:
  /// "nvfp4_input" (fillNvfp4Input: blocks of 16 along the innermost
  /// dimension built to hit every rounding boundary, zero blocks, NaN,
  /// inf), "encode_scale" (one f32, fillEncodeScale of the input named by
  /// fillOf, or a random positive scale without one), "e4m3_scales" (u8
  /// e4m3 codes in [0, 0x7E]: finite and non-negative),
  /// "attention_o_scale" (one f32: 448 * 6 / the largest |value| of the V
  /// operand named by fillOf, 896 for a quantized cache, times [0.5, 1)).
  std::string fill;
  std::string fillOf;
  /// Outputs: the kernel writes only part of it (the rows of a grouped
  /// matmul's groups); it starts as random values (seed N + i) instead of
  /// poison, and the computation receives those initial values instead of
  /// zeros, so what the op leaves alone must keep them.
  bool inout = false;
};

/// Options of a reference beyond sizes, by name: numbers, booleans as 0/1.
using ReferenceOptions = std::map<std::string, double>;

/// One line of a reference's own output check (Reference::check):
/// "nvfp4-run: output NAME: DETAIL" then the verdict.
struct OutputCheck {
  std::string name;
  std::string detail;
  bool pass = false;
  /// The verdict text ("PASS cos=... rel_l2=..." or "FAIL ...").
  std::string verdict;
  /// How close a passing check came to its threshold (0..1), to pick the
  /// final line.
  double score = 0;
};
struct ReferenceOption {
  std::string name;
  bool required = false;
  std::string description;
};

struct Reference {
  std::string name;
  std::string description;
  std::vector<ReferenceOperand> operands;
  /// Computes every output from the inputs (all operands are row-major
  /// float64 arrays of their shapes; outputs arrive sized and zeroed), with
  /// `options` (only names of `options` below); fails, naming the field, on
  /// values the computation excludes.
  std::function<Error(const std::map<std::string, uint64_t> &sizes,
                      const ReferenceOptions &options,
                      std::vector<std::vector<double>> &operands)>
      compute;
  /// The options the computation reads.
  std::vector<ReferenceOption> options;
  /// Optional: checks the inputs before a kernel sees them (the values a
  /// kernel would read out of bounds with, such as a block-table entry
  /// outside the cache), naming the element; the same operands as compute.
  std::function<Error(const std::map<std::string, uint64_t> &sizes,
                      const std::vector<std::vector<double>> &operands)>
      validate;
  /// Optional: checks the kernel's outputs itself instead of comparing
  /// each with compute's values element by element (an NVFP4 output is
  /// judged after decoding, with its scale factors). The harness then calls
  /// it instead of compute: `operands` holds the inputs (outputs zeroed),
  /// `kernel` the kernel's outputs decoded (empty at inputs); one
  /// OutputCheck per line it reports.
  std::function<Expected<std::vector<OutputCheck>>(
      const std::map<std::string, uint64_t> &sizes,
      const ReferenceOptions &options,
      const std::vector<std::vector<double>> &operands,
      const std::vector<std::vector<double>> &kernel)>
      check;
};

/// Appends the NVFP4 references (lib/Runtime/Nvfp4Reference.cpp):
/// nvfp4_quantize, nvfp4_quantize_amax and nvfp4_dequantize, bit for bit
/// with nvfp4/Support/Nvfp4Format.h; the matmuls; and, for every attention
/// reference already in `refs`, NAME_nvfp4_out: the same attention with O
/// returned as NVFP4 (docs/NVFP4.md, "NVFP4 attention output").
void appendNvfp4References(std::vector<Reference> &refs);

/// One nvfp4.attention problem (docs/Attention.md): sizes, inputs and
/// options. Tensors are row-major with the op's shapes: q [B, Sq, Hq, D],
/// k [B, Skv, Hkv, D], v [B, Skv, Hkv, Dv] (k and v may point to the same
/// bytes), sink [Hq], kvLens [B].
struct AttentionProblem {
  uint64_t batch = 1;             ///< B
  uint64_t seqQ = 1;              ///< Sq
  uint64_t seqKv = 1;             ///< Skv
  uint64_t headsQ = 1;            ///< Hq
  uint64_t headsKv = 1;           ///< Hkv; Hq must be a multiple of it
  uint64_t headDim = 64;          ///< D
  uint64_t headDimV = 64;         ///< Dv
  ElemType type = ElemType::BF16; ///< of q, k and v: bf16 or f16
  const uint8_t *q = nullptr;
  const uint8_t *k = nullptr;
  const uint8_t *v = nullptr;
  const float *sink = nullptr;     ///< optional: one logit per query head
  const int32_t *kvLens = nullptr; ///< optional: valid keys per sequence
  double softmaxScale = 1;         ///< finite and > 0
  bool causal = false;
  /// Optional: the number of most recent keys a query sees, itself
  /// included (>= 1).
  std::optional<int64_t> window;
};

/// A paged cache's inputs (docs/Attention.md, "Paged KV"): every sequence's
/// length fits its row of the block table (kv_lens[b] <= MaxPages x
/// PageSize) and every entry it uses (the first ceil(kv_lens[b] /
/// PageSize)) is a page of the cache, in [0, NumPages). `kvLens` may be
/// null (every sequence MaxPages x PageSize long). The error names the
/// sequence and the entry.
Error checkPagedInputs(uint64_t batch, uint64_t numPages, uint64_t pageSize,
                       uint64_t maxPages, const int32_t *kvLens,
                       const int32_t *blockTable);

/// Sparse top-k indices (docs/Attention.md, "Sparse top-k"): every entry
/// a sequence uses (positions t < kv_lens[b] of its rows; all TopK without
/// kv_lens) is -1 or a slot of the cache, in [0, slots), and kv_lens[b] <=
/// TopK. The error names the sequence, query and position.
Error checkSparseInputs(uint64_t batch, uint64_t seqQ, uint64_t topk,
                        uint64_t slots, const int32_t *kvLens,
                        const int32_t *indices);

/// The float64 outputs of nvfp4.attention: o [B, Sq, Hq, Dv] and the
/// natural-log lse [B, Hq, Sq]. A row with no visible key has o = 0 and
/// lse = -inf (sink_h with a sink).
struct AttentionResult {
  std::vector<double> o;
  std::vector<double> lse;
  /// sqrt(sum_j (p_j v_j)^2) / Z per element of O: the scale of O's
  /// rounding error in a kernel that rounds each p_j independently (the
  /// NVFP4-output check's "rounding distance", docs/NVFP4.md).
  std::vector<double> oRms;
};

/// Computes nvfp4.attention in float64 from the exact input values, with
/// every option, following docs/Attention.md formula by formula. Any
/// positive D and Dv are accepted (the op allows 64, 128, 256 and 512 only;
/// small ones make hand-computed tests possible). Fails, naming the field,
/// on what the op excludes otherwise (an input type other than bf16/f16, Hq
/// not a positive multiple of Hkv, a scale that is not finite and > 0, a
/// window below 1) and on a kv_lens value outside [0, Skv].
Expected<AttentionResult> attentionReference(const AttentionProblem &p);

/// The reference named `name`, or an error listing the known ones.
Expected<const Reference *> findReference(const std::string &name);
/// All references ("gemm_abt", "attention").
const std::vector<Reference> &references();

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_CHECK_H
