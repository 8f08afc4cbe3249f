//===- nvfp4-plugin.cpp - nvfp4 dialects and passes as mlir-opt plugins ---===//
//
// Loads the nvfp4 dialects and passes into an `mlir-opt` built against the
// same MLIR shared library:
//
//   mlir-opt --load-dialect-plugin=lib/NVFP4Plugin.so ...   (dialects + passes)
//   mlir-opt --load-pass-plugin=lib/NVFP4Plugin.so ...      (passes only)
//
// Either way every nvfp4 pass and pipeline is then also an ordinary flag of
// mlir-opt (`--nvfp4-lower-attention`, `--nvfp4-sm100-to-cubin="..."`),
// given after the plugin option (docs/Pipeline.md, "In upstream mlir-opt").
// mlir-opt builds its pass flags from the registry before it parses the
// command line, so passes a plugin registers while it is parsed have no
// flag; the plugin adds one per pass (an option taking the pass's options
// as its value) that appends `name{options}` to mlir-opt's textual
// `--pass-pipeline`, in the order given.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace {

llvm::cl::OptionCategory &category() {
  static llvm::cl::OptionCategory c(
      "nvfp4 passes (NVFP4Plugin)",
      "Each runs the nvfp4 pass or pipeline of its name; its value, when "
      "given, is the pass's options (--nvfp4-lower-attention=\"num-sms=132\"). "
      "They add to --pass-pipeline in order and cannot be mixed with "
      "mlir-opt's own pass flags.");
  return c;
}

/// The pipeline elements the flags asked for, in order.
std::vector<std::string> &requested() {
  static std::vector<std::string> elements;
  return elements;
}

/// The flag `arg` was given with `value`: mlir-opt's --pass-pipeline
/// becomes builtin.module(every element so far).
void onFlag(const std::string &arg, const std::string &value) {
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find("pass-pipeline");
  if (it == options.end()) {
    llvm::errs() << "NVFP4Plugin: --" << arg
                 << ": this tool has no --pass-pipeline option to add the "
                    "pass to; use nvfp4-opt\n";
    std::exit(1);
  }
  // mlir::PassPipelineCLParser declares the option as
  // llvm::cl::opt<std::string> (mlir/Pass/PassRegistry.h).
  auto *pipeline = static_cast<llvm::cl::opt<std::string> *>(it->second);
  if (requested().empty() && pipeline->getNumOccurrences()) {
    llvm::errs() << "NVFP4Plugin: --" << arg
                 << " cannot be combined with --pass-pipeline; name the "
                    "pass inside the textual pipeline instead\n";
    std::exit(1);
  }
  requested().push_back(value.empty() ? arg : arg + "{" + value + "}");
  std::string text = "builtin.module(";
  for (size_t i = 0; i < requested().size(); ++i)
    text += (i ? "," : "") + requested()[i];
  text += ")";
  if (pipeline->getNumOccurrences() == 0)
    pipeline->addOccurrence(0, "pass-pipeline", text);
  else
    pipeline->setValue(text);
}

/// One flag per nvfp4 pass and pipeline that has none yet.
void addPassFlags() {
  static std::vector<std::unique_ptr<llvm::cl::opt<std::string>>> flags;
  // An option keeps StringRefs to its name and description: `arg` names a
  // string literal (passArguments), the descriptions live here.
  static std::deque<std::string> descriptions;
  for (llvm::StringRef arg : nvfp4::passArguments()) {
    if (llvm::cl::getRegisteredOptions().count(arg))
      continue; // registered by an earlier load, or the tool's own
    std::string &desc = descriptions.emplace_back();
    if (const mlir::PassInfo *info = mlir::PassInfo::lookup(arg))
      desc = info->getPassDescription().str();
    else if (const mlir::PassPipelineInfo *info =
                 mlir::PassPipelineInfo::lookup(arg))
      desc = info->getPassDescription().str();
    std::string name = arg.str();
    flags.push_back(std::make_unique<llvm::cl::opt<std::string>>(
        arg, llvm::cl::desc(desc), llvm::cl::ValueOptional,
        llvm::cl::value_desc("options"), llvm::cl::cat(category()),
        llvm::cl::callback(
            [name](const std::string &value) { onFlag(name, value); })));
  }
}

} // namespace

/// Entry point that `mlir-opt --load-dialect-plugin` looks up. It registers
/// the dialects and, since a dialect is of little use without them, the
/// passes and pipelines too.
extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NVFP4", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            nvfp4::registerAllDialects(*registry);
            nvfp4::registerAllPasses();
            addPassFlags();
          }};
}

/// Entry point that `mlir-opt --load-pass-plugin` looks up.
extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NVFP4Passes", LLVM_VERSION_STRING, []() {
            nvfp4::registerAllPasses();
            addPassFlags();
          }};
}
