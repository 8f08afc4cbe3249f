//===- Harness.h - Run a kernel and check it against a reference -*- C++ -*-===//
//
// The plain-C++ half of nvfp4-run's MLIR-input mode: a HarnessSpec says what
// a kernel computes (a reference of Check.h), with which element types, how
// it is launched and what each of its parameters is (a tensor map over a
// tensor, a tensor's buffer, a scalar computed from the problem sizes).
// runHarness makes the inputs from a seed, poisons the outputs, launches on
// a Device, compares every output with the float64 reference (each with its
// own thresholds) and prints `PASS|FAIL cos=... rel_l2=... max_abs=...
// nan=...` as its last line: PASS only when every output passes.
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
#include <functional>
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
  /// Inputs: filled by fillLengths with lengths in [1, this size] (the
  /// reference's ReferenceOperand::lengthsOf) instead of random values.
  std::string lengthsOf;
  /// Outputs: the thresholds (the reference's default with the attribute's
  /// changes); without one, HarnessSpec::relL2Tolerance alone.
  std::optional<Tolerance> tolerance;
  /// Inputs the reference marks optional: the kernel has no such operand;
  /// nothing is allocated and the reference sees an empty array.
  bool absent = false;
  /// Inputs: a copy of this earlier input's values (same type and element
  /// count) instead of fresh ones, for a kernel that reads one buffer as
  /// both (nvfp4.attention with K and V the same value).
  std::string sameAs;
  /// Inputs: the leading columns of this earlier input's rows instead of
  /// fresh values (same type; the same number of rows, where a row is the
  /// innermost dimension, at most as wide here), for a kernel that reads V
  /// as a prefix of K's rows (absorbed MLA).
  std::string sliceOf;
  /// Inputs: log-sum-exps, some -inf (ReferenceOperand::lse; fillLse).
  bool lse = false;
  /// Inputs: a block table (the reference's ReferenceOperand::pagesOf):
  /// filled by fillPages with distinct pages in [0, this size).
  std::string pagesOf;
  /// Inputs: sparse top-k indices (ReferenceOperand::slotsOf): filled by
  /// fillIndices with slots in [0, the product of these sizes) or -1.
  std::vector<std::string> slotsOf;
  /// Inputs: a quantized KV cache in this layout (the reference's
  /// ReferenceOperand::cacheFormat), filled by KvCacheFormat::fill.
  std::string cacheFormat;
  std::string pageSizeOf = "ps"; ///< the size naming its tokens per page
  /// Inputs: a named fill (ReferenceOperand::fill, fillOf).
  std::string fill, fillOf;
  /// Outputs: partly written (ReferenceOperand::inout).
  bool inout = false;
  /// Not an operand of the reference: scratch memory the kernels share
  /// (partial results of a split-KV attention), of shape `dims`; allocated
  /// and poisoned like an output, never compared. Workspace tensors follow
  /// the reference's operands.
  bool workspace = false;
  std::vector<uint64_t> dims;
};

/// One kernel parameter.
struct HarnessArg {
  enum class Kind {
    TensorMap, ///< a TMA map over a tensor (row-major, dims innermost first)
    Buffer,    ///< the device address of a tensor
    Scalar,    ///< a number computed from the sizes (and options)
  };
  Kind kind = Kind::Scalar;
  std::string tensor;         ///< TensorMap, Buffer
  /// TensorMap, Buffer: the tensor seen with fewer dimensions, outermost
  /// first, each the product of consecutive dimensions of its shape
  /// ("b*sq*hq", "d"); empty: the shape itself.
  std::vector<std::string> view;
  std::vector<uint32_t> box;  ///< TensorMap: box, innermost first
  TmaSwizzle swizzle = TmaSwizzle::None;
  bool byPointer = true;      ///< TensorMap: pass a device copy's address
  /// Scalar: I32, U32, I64, U64 (evalScalar) or F32, F64 (evalFloat).
  KernelArg::Kind scalarType = KernelArg::Kind::I64;
  std::string value;          ///< Scalar: "7", "k", "k/64", "scale*log2e"
};

/// A kernel launched after the first one, on the same tensors (the combine
/// kernel of a split-KV attention): in the same module.
struct HarnessLaunch {
  std::string kernel;
  std::vector<HarnessArg> args;
  LaunchConfig launch;
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
  /// The reference's options (Reference::options).
  ReferenceOptions options;
  /// The reference's operands, in its order.
  std::vector<HarnessTensor> tensors;
  std::vector<HarnessArg> args;
  LaunchConfig launch;
  /// Kernels launched after `kernel`, in order; the outputs are compared
  /// after the last.
  std::vector<HarnessLaunch> then;
  /// The tensors the lowered op's operands and results are, in the op's
  /// order (the harness's `operands` and `results`; empty when the
  /// lowering does not describe them): the host lowering names the buffers
  /// of nvfp4.launch with them.
  std::vector<std::string> opOperands, opResults;
  /// rel_l2 threshold of outputs without their own (the command line's
  /// --rel-l2-tol overrides every output's).
  double relL2Tolerance = 1e-4;
};

/// Checks a spec against its reference: the reference exists, the tensors
/// are its operands with shapes over declared sizes, the options are the
/// reference's (the required ones present), every argument names a tensor,
/// views regroup its shape, scalar values parse, tensor maps have one box
/// entry per dimension. Messages name the field.
Error verify(const HarnessSpec &spec);

/// The argument checks of verify for one launch's `args` (`launch` prefixes
/// the messages).
Error verifyArgs(const HarnessSpec &spec, const std::vector<HarnessArg> &args,
                 const std::string &launch);

/// The dimensions, outermost first, of tensor `t` seen through `view`
/// (HarnessArg::view; empty: t's shape): each entry is NAME or
/// NAME*NAME*..., and together they must list t's shape in order.
Expected<std::vector<uint64_t>>
viewDims(const HarnessTensor &t, const std::vector<std::string> &view,
         const std::map<std::string, uint64_t> &sizes);

/// The thresholds of output `t`: its own, else the spec's rel_l2; a
/// command-line rel_l2 replaces the rel_l2 of every output.
Tolerance toleranceOf(const HarnessSpec &spec, const HarnessTensor &t,
                      std::optional<double> relL2Override);

/// Lengths in [1, bound] from `seed` (SplitMix64): with n >= 2, element 0
/// is `bound` and element n-1 is 1; with n >= 3 and bound >= 4, element 1
/// is odd and in (bound/2, bound) (several tiles and a partial one, for any
/// tile size that is a power of two below bound/2); the others uniform in
/// [1, bound].
/// The row counts of `groups` groups of a grouped matmul (MoE experts)
/// from `seed`, uneven and with empty groups: masked (each in [0, bound]):
/// group g % 4 == 0 has 0 rows, g % 4 == 1 has `bound`, g % 4 == 2 has 1,
/// the rest are uniform in [1, bound]; contiguous (the groups' 128-aligned
/// rows share `bound` rows): the same pattern, each group at most what is
/// left, the last one taking the rest.
std::vector<int32_t> fillGroupSizes(size_t groups, uint64_t bound, bool masked,
                                    uint64_t seed);

std::vector<int32_t> fillLengths(size_t n, uint64_t bound, uint64_t seed);

/// A block table of n entries from `seed`: a shuffled permutation of the
/// pages [0, pages) taken in order (so the entries are distinct while
/// n <= pages, and a sequence's pages are neither contiguous nor ordered),
/// repeating when n > pages.
std::vector<int32_t> fillPages(size_t n, uint64_t pages, uint64_t seed);

/// n sparse top-k indices from `seed` (rows of `row` entries): slots
/// uniform in [0, slots) (so a row spans many pages), about 1 in 8 of them
/// -1 (no key), about 1 in 8 a repeat of an earlier slot of the row; the
/// last entry of every other row is -1 (engines pad rows with -1) and, with
/// at least two rows, row 1 is all -1 (a query that sees no key).
std::vector<int32_t> fillIndices(size_t n, uint64_t row, uint64_t slots,
                                 uint64_t seed);

/// n log-sum-exps from `seed`: uniform in [-4, 4], and -inf for about a
/// quarter of them (independently per seed, so two such operands have rows
/// where both, one or neither is -inf); element 0 is always -inf.
std::vector<float> fillLse(size_t n, uint64_t seed);

/// The element count of tensor `t` at `sizes` (a workspace: its dims).
uint64_t tensorElements(const HarnessTensor &t,
                        const std::map<std::string, uint64_t> &sizes);

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

/// Evaluates a floating-point scalar argument: factors joined by '*' or '/'
/// (left to right), each a decimal number, `log2e` (log2(e)), `ln2`, an
/// option or a size name, e.g. "softmax_scale*log2e"; in float64.
Expected<double> evalFloat(const std::string &value,
                           const std::map<std::string, uint64_t> &sizes,
                           const ReferenceOptions &options);

/// One input element set after the inputs are made (nvfp4-run
/// --set-input), to run a kernel on a value the fill never produces.
struct InputOverride {
  std::string tensor;
  uint64_t index = 0; ///< flat, row-major
  double value = 0;
};

struct HarnessRunOptions {
  std::map<std::string, uint64_t> sizes; ///< resolved (resolveSizes)
  uint64_t seed = 1;
  std::optional<double> relL2Tolerance; ///< overrides the spec's
  std::string origin;                   ///< the input file, for the report
  std::vector<InputOverride> overrides;
  /// Run the reference's input checks (Reference::validate) before the
  /// launch; off, the kernel sees what the checks would refuse.
  bool checkInputs = true;
  /// Called after each launch with the kernel's name (nvfp4-run's
  /// --cta-stats reads the emulator's counters there).
  std::function<void(const std::string &kernel)> afterLaunch;
};

/// The 32-bit pattern poisoned f32 (and i32) outputs start with (a quiet
/// NaN), and the 16-bit one for bf16/f16 outputs (NaN in both).
inline constexpr uint32_t kPoison32 = 0x7fc0dead;
inline constexpr uint16_t kPoison16 = 0x7fff;

/// Prints the arguments of one launch (part of printHarnessPlan).
void printArgs(const HarnessSpec &spec, const std::vector<HarnessArg> &args,
               const HarnessRunOptions &o, std::ostream &os);

/// Prints what runHarness would run.
void printHarnessPlan(const HarnessSpec &spec, const HarnessRunOptions &o,
                      std::ostream &os);

/// What a device keeps of the tensor maps of earlier launches, so that a
/// launch on the same tensors as an earlier one neither encodes nor copies
/// a map again (the C API's launches, the host runtime).
struct TensorMapCache {
  /// Device copies of the maps passed by pointer, by their bytes.
  std::map<std::vector<uint8_t>, DevicePtr> copies;
  /// The device blocks the copies live in, kSlabMaps slots each: one
  /// allocation for kSlabMaps new maps, not one a map. The last block's
  /// first `slabUsed` slots are taken. Freed with the device's context.
  std::vector<DevicePtr> slabs;
  size_t slabUsed = 0;
  /// Slots taken whose bytes are not written yet (tensorMapCopy with
  /// `defer`), by address: flushTensorMapCopies writes adjacent ones with
  /// one copy, so a launch's new maps cost one blocking copy, not one each
  /// (docs/Hopper.md, "The first call on new tensors").
  std::map<DevicePtr, std::vector<uint8_t>> pending;
  /// Encoded maps, by their descriptor (tensorMapKey); emptied when it
  /// reaches kMaxEncoded (host memory only: a launch's arguments hold
  /// copies of the maps).
  std::map<std::vector<uint8_t>, TensorMapBlob> encoded;
  static constexpr size_t kMaxEncoded = 4096;
  static constexpr size_t kSlabMaps = 64;
};

/// The bytes of every field of `desc`: equal keys, equal maps.
std::vector<uint8_t> tensorMapKey(const TensorMapDesc &desc);

/// `desc` encoded by `device`, or the map `cache` holds for an equal
/// descriptor (kept there when new).
Expected<TensorMapBlob> encodeTensorMapCached(Device &device,
                                              const TensorMapDesc &desc,
                                              TensorMapCache *cache);

/// A device copy of `blob`, for a kernel that takes its tensor map by
/// pointer: the one `cache` holds for the same bytes, else a new one (kept
/// in `cache` when given, in a slot of its blocks; otherwise its own
/// allocation, which the caller frees). With `defer` (and a cache) a new
/// copy's bytes are written only by flushTensorMapCopies, which must
/// succeed before a kernel reads it.
Expected<DevicePtr> tensorMapCopy(Device &device, const TensorMapBlob &blob,
                                  TensorMapCache *cache, bool defer = false);

/// Writes the copies `cache` has pending, one copy a run of adjacent
/// slots. On failure forgets them (a later launch makes them again).
Error flushTensorMapCopies(Device &device, TensorMapCache &cache);

/// Launches the kernel `spec.kernel` of the loaded `module`, then the
/// kernels of `spec.then`, on the tensors at `tensors` (device addresses by
/// tensor name, workspace included; absent tensors left out): buffers,
/// scalars at `sizes`, tensor maps encoded for each launch. Their device
/// copies are freed after the last launch, or kept in `cache` (reused for
/// the same map; the caller frees them) when given. With `stream` the
/// launches are enqueued there (Device::launchOn) and the call returns
/// without waiting; a stream needs a cache (the copies outlive the call).
/// Prints each launch's lines to `os` when given (not with a stream).
Error launchHarness(const HarnessSpec &spec, Device &device,
                    ModuleHandle module,
                    const std::map<std::string, DevicePtr> &tensors,
                    const std::map<std::string, uint64_t> &sizes,
                    std::ostream *os,
                    const std::function<void(const std::string &)>
                        &afterLaunch = {},
                    void *stream = nullptr, TensorMapCache *cache = nullptr);

/// The bytes of every tensor of a run from `seed`, index for index with
/// spec.tensors: inputs made as the reference needs them (tensor i from
/// seed + i: random values, lengths, block tables, sparse indices, fp8
/// caches with their scales, LSEs, named fills; copies and slices of other
/// inputs), outputs and workspace poisoned, absent tensors empty.
Expected<std::vector<std::vector<uint8_t>>>
makeInputs(const HarnessSpec &spec,
           const std::map<std::string, uint64_t> &sizes, uint64_t seed);

/// Compares a kernel's outputs with the float64 reference: `operands` are
/// the reference's operands in its order with the inputs decoded as the
/// kernel read them (outputs ignored, but inout ones hold their initial
/// values), `outputs` the outputs' bytes after the kernel, index for index
/// with spec.tensors (other entries ignored). Prints one line per output and
/// the final PASS|FAIL line to `os`; true for PASS.
Expected<bool> checkOutputs(const HarnessSpec &spec,
                            const std::map<std::string, uint64_t> &sizes,
                            std::vector<std::vector<double>> operands,
                            const std::vector<std::vector<uint8_t>> &outputs,
                            std::optional<double> relL2Override,
                            std::ostream &os);

/// Runs the kernel `spec.kernel` of `image` on `device` and checks it. The
/// result is true for PASS; an Error when the run itself failed (load,
/// launch, a fault on the emulator).
Expected<bool> runHarness(const HarnessSpec &spec, const KernelImage &image,
                          Device &device, const HarnessRunOptions &o,
                          std::ostream &os);

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_HARNESS_H
