//===- mlir_fuzzer.cpp - libFuzzer target for nvfp4-opt's input ----------===//
//
// Feeds arbitrary bytes to what nvfp4-opt does with its input: parse them as
// MLIR text in a context with the registrations of tools/nvfp4-opt (every
// upstream dialect and extension, the NVVM target, the LLVM IR translations,
// and the nvfp4 and sm100 dialects), verify, print, and, when the module
// verifies, run the sm100 lowering passes (what scripts/fuzz-opt.py's
// "lower" mode runs):
//   sm100-plan-tmem, sm100-lower-warp-roles, convert-sm100-to-nvvm
// with the verifier after each pass. Each input gets a fresh MLIRContext, so
// inputs cannot influence each other. Diagnostics are dropped. Every stage
// must either succeed or fail with a diagnostic: crashes (including LLVM's
// report_fatal_error and unreachable, which abort), sanitizer reports and
// hangs are bugs.
//
// NVFP4_MLIR_FUZZ_PIPELINE, when set, replaces the pass list (passes on the
// module, comma-separated, as inside `builtin.module(...)`, e.g.
// "nvfp4-lower-attention,sm100-plan-tmem"); set to the empty string it runs
// no passes (parse, verify and print only).
//
// Build and run with scripts/fuzz.sh mlir.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"
#include "nvfp4/Support/InputNesting.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

mlir::DialectRegistry *registry = nullptr;
std::string pipeline =
    "sm100-plan-tmem,sm100-lower-warp-roles,convert-sm100-to-nvvm";

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  nvfp4::registerAllPasses();
  registry = new mlir::DialectRegistry();
  mlir::registerAllDialects(*registry);
  mlir::registerAllExtensions(*registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(*registry);
  mlir::registerAllToLLVMIRTranslations(*registry);
  nvfp4::registerAllDialects(*registry);
  if (const char *p = std::getenv("NVFP4_MLIR_FUZZ_PIPELINE"))
    pipeline = p;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler drop(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });

  // nvfp4-opt and nvfp4-run reject what MLIR's parser cannot take
  // (nvfp4/Support/InputNesting.h); so does the fuzzer.
  if (nvfp4::findInputHazard(
          std::string_view(reinterpret_cast<const char *>(data), size)))
    return 0;

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.mlir"),
      llvm::SMLoc());
  mlir::ParserConfig config(&context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  if (!module)
    return 0;
  if (mlir::failed(mlir::verify(*module)))
    return 0;

  // The printers (custom assembly formats) see what the parser accepted.
  {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
  }

  if (pipeline.empty())
    return 0;
  mlir::PassManager pm(&context);
  if (mlir::failed(mlir::parsePassPipeline(pipeline, pm)))
    __builtin_trap(); // a bad NVFP4_MLIR_FUZZ_PIPELINE
  if (mlir::failed(pm.run(*module)))
    return 0;
  {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
  }
  return 0;
}
