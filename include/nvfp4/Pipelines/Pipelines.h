//===- Pipelines.h - nvfp4 named pass pipelines -----------------*- C++ -*-===//
//
// The named pipeline from the sm100 level to PTX and cubin. Every step is
// listed in one function, buildSM100ToCubinPipeline, in Pipelines.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_PIPELINES_PIPELINES_H
#define NVFP4_PIPELINES_PIPELINES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"
#include "nvfp4/Support/SplitKvPlan.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace nvfp4 {

#define GEN_PASS_DECL
#include "nvfp4/Pipelines/Passes.h.inc"

/// Options of the `nvfp4-sm100-to-cubin` pipeline.
struct SM100ToCubinOptions
    : public mlir::PassPipelineOptions<SM100ToCubinOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target chip"), llvm::cl::init("sm_100a")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("Target features (sm_100a needs PTX >= 8.6)"),
      llvm::cl::init("+ptx88")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimisation level"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> stopAfter{
      *this, "stop-after",
      llvm::cl::desc("Stop after this step: attention (nvfp4.attention ops "
                     "built into sm100 kernels), plan (TMEM plan checked), "
                     "roles (warp roles lowered), sm100 (sm100 ops lowered "
                     "to nvvm), nvvm (whole device code in nvvm + llvm), "
                     "binary (default: gpu.binary)"),
      llvm::cl::init("binary")};
  PassOptions::Option<std::string> ptxFile{
      *this, "ptx-file", llvm::cl::desc("Write the PTX to this file"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> cubinFile{
      *this, "cubin-file", llvm::cl::desc("Write the cubin to this file"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Format of the final gpu.binary: isa, bin or fatbin"),
      llvm::cl::init("bin")};
  PassOptions::Option<int64_t> numSms{
      *this, "num-sms",
      llvm::cl::desc("SMs the balanced split-KV plan of nvfp4.attention "
                     "spreads the work over (nvfp4-lower-attention's "
                     "num-sms; 148 is a B200)"),
      llvm::cl::init(148)};
  PassOptions::Option<int64_t> minPieceKeys{
      *this, "min-piece-keys",
      llvm::cl::desc("Smallest share in keys the balanced split-KV plan "
                     "gives a CTA (nvfp4-lower-attention's min-piece-keys; "
                     "0: no floor)"),
      llvm::cl::init(nvfp4::plan::kDefaultMinPieceKeys)};
  PassOptions::Option<int64_t> polyExp2{
      *this, "poly-exp2",
      llvm::cl::desc("sm_90a: of every 8 exponentials of P, how many on the "
                     "FMA pipe (nvfp4-lower-attention's poly-exp2; -1: the "
                     "default rule)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> clusterMerge{
      *this, "cluster-merge",
      llvm::cl::desc("sm_90a: the most pieces of a unit a cluster merges "
                     "instead of a combine kernel (nvfp4-lower-attention's "
                     "cluster-merge; 0: never)"),
      llvm::cl::init(nvfp4::plan::kMaxClusterMerge)};
  PassOptions::Option<int64_t> pShared{
      *this, "p-shared",
      llvm::cl::desc("sm_90a: P V reads P from shared memory (1) or "
                     "registers (0) (nvfp4-lower-attention's p-shared; -1: "
                     "the default rule)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> ctaGroup{
      *this, "cta-group",
      llvm::cl::desc("nvfp4.scaled_matmul: 0 chooses single CTAs or CTA "
                     "pairs (cta_group::2) by shape, 1 or 2 forces them "
                     "(nvfp4-lower-scaled-matmul's cta-group)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> ptxasOptions{
      *this, "ptxas-opts", llvm::cl::desc("Extra options for ptxas"),
      llvm::cl::init("")};
};

/// The highest PTX ISA version (x10) the LLVM 22 NVPTX back end knows.
constexpr unsigned kMaxKnownPtx = 90;

/// The largest +ptxNN of a comma-separated feature list, or none.
std::optional<unsigned> ptxVersionOf(llvm::StringRef features);

/// Checks an NVVM target before LLVM sees it (LLVM crashes on an empty chip
/// and aborts on a PTX version the chip does not support): `chip` is
/// `sm_<digits>[a|f]`, `features` a comma-separated list of `+name` /
/// `-name`, and a chip of compute capability 10.0 or newer needs `+ptx86` or
/// newer. Returns a lowercase message, or std::nullopt when valid.
std::optional<std::string> validateNVVMTarget(llvm::StringRef chip,
                                              llvm::StringRef features,
                                              int64_t optLevel);

/// The steps of `stop-after`, in pipeline order.
enum class PipelineStep { Attention, Plan, Roles, SM100, NVVM, Binary };

/// Parses a `stop-after` value; std::nullopt if unknown.
std::optional<PipelineStep> parsePipelineStep(llvm::StringRef name);

/// Adds the whole sm100 -> PTX -> cubin pipeline to `pm` (a pass manager on
/// the top-level module). Returns failure (without a diagnostic) for an
/// unknown `stop-after`; check it with parsePipelineStep first.
mlir::LogicalResult buildSM100ToCubinPipeline(mlir::OpPassManager &pm,
                                              const SM100ToCubinOptions &opts);

/// Registers `nvfp4-sm100-to-cubin`.
void registerSM100ToCubinPipeline();

/// Options of the `nvfp4-to-llvm` pipeline: the device options of
/// nvfp4-sm100-to-cubin (format defaults to isa: PTX, which the driver
/// compiles at load time and the emulator runs).
struct NVFP4ToLLVMOptions
    : public mlir::PassPipelineOptions<NVFP4ToLLVMOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target chip"), llvm::cl::init("sm_100a")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("Target features (sm_100a needs PTX >= 8.6)"),
      llvm::cl::init("+ptx88")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimisation level"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What the object embeds: isa (PTX, default; the "
                     "emulator runs only PTX), bin (cubin) or fatbin"),
      llvm::cl::init("isa")};
  PassOptions::Option<int64_t> numSms{
      *this, "num-sms",
      llvm::cl::desc("SMs of the target device (nvfp4-lower-attention's "
                     "num-sms; 148 is a B200)"),
      llvm::cl::init(148)};
  PassOptions::Option<int64_t> minPieceKeys{
      *this, "min-piece-keys",
      llvm::cl::desc("Smallest share in keys the balanced split-KV plan "
                     "gives a CTA (nvfp4-lower-attention's min-piece-keys)"),
      llvm::cl::init(nvfp4::plan::kDefaultMinPieceKeys)};
  PassOptions::Option<int64_t> polyExp2{
      *this, "poly-exp2",
      llvm::cl::desc("sm_90a: of every 8 exponentials of P, how many on the "
                     "FMA pipe (nvfp4-lower-attention's poly-exp2)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> clusterMerge{
      *this, "cluster-merge",
      llvm::cl::desc("sm_90a: the most pieces of a unit a cluster merges "
                     "(nvfp4-lower-attention's cluster-merge)"),
      llvm::cl::init(nvfp4::plan::kMaxClusterMerge)};
  PassOptions::Option<int64_t> pShared{
      *this, "p-shared",
      llvm::cl::desc("sm_90a: P V reads P from shared memory (1) or "
                     "registers (0) (nvfp4-lower-attention's p-shared)"),
      llvm::cl::init(-1)};
  PassOptions::Option<int64_t> ctaGroup{
      *this, "cta-group",
      llvm::cl::desc("nvfp4.scaled_matmul: 0 chooses by shape, 1 or 2 "
                     "forces single CTAs or CTA pairs"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> ptxasOptions{
      *this, "ptxas-opts", llvm::cl::desc("Extra options for ptxas"),
      llvm::cl::init("")};
};

/// Sets the device options of nvfp4-sm100-to-cubin (chip, features,
/// opt-level, format, num-sms, min-piece-keys, poly-exp2, cluster-merge,
/// p-shared, cta-group, ptxas-opts) from
/// `from`.
void copyDeviceOptions(const NVFP4ToLLVMOptions &from,
                       SM100ToCubinOptions &to);

/// Adds the whole-function pipeline: nvfp4 ops -> kernels, one-shot
/// bufferization (function boundaries, identity layouts), the host side
/// (nvfp4-lower-host), the device pipeline into gpu.binary, and the host
/// lowering to the LLVM dialect (gpu-async-region, gpu-to-llvm with bare
/// kernel pointers, convert-to-llvm). docs/Host.md.
mlir::LogicalResult buildNVFP4ToLLVMPipeline(mlir::OpPassManager &pm,
                                             const NVFP4ToLLVMOptions &opts);

/// The object of `format` (PTX: Assembly, cubin: Binary) that the
/// pipeline's serialization left in the gpu.binary named `gpuModule` of
/// `module`; empty when there is none.
std::string serializedObject(mlir::ModuleOp module, llvm::StringRef gpuModule,
                             mlir::gpu::CompilationTarget format);

/// Registers `nvfp4-to-llvm`.
void registerNVFP4ToLLVMPipeline();

#define GEN_PASS_REGISTRATION
#include "nvfp4/Pipelines/Passes.h.inc"

} // namespace nvfp4

#endif // NVFP4_PIPELINES_PIPELINES_H
