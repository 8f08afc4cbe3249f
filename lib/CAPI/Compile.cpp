//===- Compile.cpp - The nvfp4 C API: compiling MLIR to a kernel ----------===//
//
// nvfp4_compile and nvfp4_compile_file (include/nvfp4-c/nvfp4.h): parse the
// function, lower its one nvfp4 op in-process (the op's lowering, then the
// device pipeline to PTX and, with cubin=1, ptxas), read the kernel's
// harness and match the function's arguments and results to its tensors.
// libnvfp4_runtime.so has NoCompiler.cpp instead. docs/CAPI.md.
//
//===----------------------------------------------------------------------===//

#include "CAPIInternal.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Transforms/HarnessAttr.h"
#include "nvfp4/InitAll.h"
#include "nvfp4/Pipelines/Pipelines.h"
#include "nvfp4/Support/Ex2Poly.h"
#include "nvfp4/Support/InputNesting.h"
#include "nvfp4/Support/SplitKvPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

#include <cstring>
#include <sstream>

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::capi;

namespace {

std::optional<int32_t> dtypeOf(Type t) {
  if (t.isF32())
    return NVFP4_F32;
  if (t.isBF16())
    return NVFP4_BF16;
  if (t.isF16())
    return NVFP4_F16;
  if (t.isSignlessInteger(32) || t.isSignedInteger(32))
    return NVFP4_I32;
  if (t.isUnsignedInteger(8))
    return NVFP4_U8;
  if (t.isSignlessInteger(8) || t.isSignedInteger(8))
    return NVFP4_I8;
  return std::nullopt;
}

/// Parses `name=value` options.
nvfp4_status parseOptions(const char *text, NVFP4ToLLVMOptions &pipeline,
                          std::string &function, bool &cubin) {
  if (!text)
    return NVFP4_OK;
  std::istringstream in(text);
  std::string item, passOptions;
  while (in >> item) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                  "options: expected NAME=VALUE, got '" + item + "'");
    std::string name = item.substr(0, eq);
    if (name == "function") {
      function = item.substr(eq + 1);
      continue;
    }
    if (name == "cubin") {
      std::string v = item.substr(eq + 1);
      if (v != "0" && v != "1")
        return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                    "options: cubin must be 0 or 1, got '" + v + "'");
      cubin = v == "1";
      continue;
    }
    if (name != "num-sms" && name != "min-piece-keys" && name != "chip" &&
        name != "features" && name != "cta-group" && name != "opt-level" &&
        name != "poly-exp2" && name != "cluster-merge" && name != "p-shared")
      return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                  "options: unknown option '" + name +
                      "' (expected num-sms, min-piece-keys, poly-exp2, "
                      "cluster-merge, p-shared, chip, features, cta-group, "
                      "opt-level, cubin or function)");
    passOptions += item + " ";
  }
  std::string errors;
  llvm::raw_string_ostream es(errors);
  if (failed(pipeline.parseFromString(passOptions, es)))
    return fail(NVFP4_ERROR_INVALID_ARGUMENT, "options: " + errors);
  if (auto e = validateNVVMTarget(pipeline.chip, pipeline.features,
                                  pipeline.optLevel))
    return fail(NVFP4_ERROR_INVALID_ARGUMENT, "options: " + *e);
  if (pipeline.numSms < 1)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "options: num-sms must be at least 1");
  if (pipeline.minPieceKeys < 0 ||
      pipeline.minPieceKeys > nvfp4::plan::kMaxMinPieceKeys)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "options: min-piece-keys must be in [0, 2^30]");
  if (pipeline.polyExp2 < nvfp4::kPolyExp2Auto ||
      pipeline.polyExp2 > nvfp4::kPolyExp2Max)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "options: poly-exp2 must be in [0, " +
                    std::to_string(nvfp4::kPolyExp2Max) + "] or " +
                    std::to_string(nvfp4::kPolyExp2Auto) + ", got " +
                    std::to_string(pipeline.polyExp2));
  if (pipeline.clusterMerge < 0 ||
      pipeline.clusterMerge > nvfp4::plan::kMaxClusterMerge)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "options: cluster-merge must be in [0, " +
                    std::to_string(nvfp4::plan::kMaxClusterMerge) + "], got " +
                    std::to_string(pipeline.clusterMerge));
  if (pipeline.pShared < -1 || pipeline.pShared > 1)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "options: p-shared must be 0, 1 or -1, got " +
                    std::to_string(pipeline.pShared));
  return NVFP4_OK;
}

nvfp4_status compile(std::unique_ptr<llvm::MemoryBuffer> buffer,
                     const char *options, nvfp4_kernel **out) {
  NVFP4ToLLVMOptions pipeline;
  std::string wanted;
  bool cubin = false;
  if (nvfp4_status s = parseOptions(options, pipeline, wanted, cubin))
    return s;
  if (auto bad = findInputHazard(buffer->getBuffer()))
    return fail(NVFP4_ERROR_COMPILE,
                buffer->getBufferIdentifier().str() + ":" +
                    std::to_string(bad->line) + ":" +
                    std::to_string(bad->column) + ": " + bad->message);

  DialectRegistry registry;
  registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  std::string diagnostics;
  llvm::raw_string_ostream ds(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, ds);
  auto compileError = [&](const std::string &what) {
    return fail(NVFP4_ERROR_COMPILE,
                what + (diagnostics.empty() ? "" : ":\n" + diagnostics));
  };

  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return compileError("cannot parse the MLIR input");

  // The function: the named one, else the only public one.
  func::FuncOp func;
  std::string names;
  for (auto f : module->getOps<func::FuncOp>()) {
    if (f.isExternal() || f.isPrivate())
      continue;
    names += (names.empty() ? "" : ", ") + f.getName().str();
    if (wanted.empty() ? !func : f.getName() == wanted) {
      if (func && wanted.empty())
        return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                    "the input has several public functions (" + names +
                        "...): choose one with function=NAME");
      func = f;
    }
  }
  if (!wanted.empty() && !func)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "no public func.func named '" + wanted + "' (functions: " +
                    (names.empty() ? std::string("none") : names) + ")");
  if (!func)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "the input has no public func.func with a body");
  Block &body = func.getBody().front();
  Operation *op = nullptr;
  // Besides the op: slices of arguments that are its operands (V as the
  // leading columns of K's rows, absorbed MLA); the kernel reads them
  // from their argument (its harness marks them `slice`).
  llvm::SmallPtrSet<Operation *, 2> slices;
  for (Operation &o : body.without_terminator()) {
    if (!op) {
      auto slice = dyn_cast<tensor::ExtractSliceOp>(o);
      if (slice && isa<BlockArgument>(slice.getSource()) &&
          cast<BlockArgument>(slice.getSource()).getOwner() == &body) {
        slices.insert(slice);
        continue;
      }
    }
    if (op || !isa<NVFP4Dialect>(o.getDialect()))
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  "function '" + func.getName().str() +
                      "': the C API compiles a function whose body is one "
                      "nvfp4 op on its arguments, found " +
                      o.getName().getStringRef().str() +
                      (op ? " after an nvfp4 op" : "") +
                      "; nvfp4-to-llvm lowers any function (docs/Host.md)");
    op = &o;
  }
  if (!op)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "function '" + func.getName().str() + "' has no nvfp4 op");
  for (Value v : op->getOperands())
    if ((!isa<BlockArgument>(v) ||
         cast<BlockArgument>(v).getOwner() != &body) &&
        !slices.contains(v.getDefiningOp()))
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  "function '" + func.getName().str() +
                      "': every operand of the nvfp4 op must be an argument "
                      "of the function (or a tensor.extract_slice of one)");
  for (Operation *slice : slices)
    for (Operation *user : slice->getUsers())
      if (user != op)
        return fail(NVFP4_ERROR_UNSUPPORTED,
                    "function '" + func.getName().str() +
                        "': a tensor.extract_slice may only feed its nvfp4 "
                        "op");
  Operation *ret = body.getTerminator();
  for (Value v : ret->getOperands())
    if (v.getDefiningOp() != op)
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  "function '" + func.getName().str() +
                      "' must return results of its nvfp4 op only");
  std::string functionName = func.getName().str();

  // The kernel (and its harness).
  {
    PassManager pm(&context, ModuleOp::getOperationName());
    SM100ToCubinOptions lower;
    lower.stopAfter = "attention";
    lower.numSms = pipeline.numSms;
    lower.minPieceKeys = pipeline.minPieceKeys;
    lower.polyExp2 = pipeline.polyExp2;
    lower.clusterMerge = pipeline.clusterMerge;
    lower.pShared = pipeline.pShared;
    lower.ctaGroup = pipeline.ctaGroup;
    lower.chip = pipeline.chip;
    lower.features = pipeline.features;
    if (failed(buildSM100ToCubinPipeline(pm, lower)) ||
        failed(pm.run(*module)))
      return compileError("lowering " + op->getName().getStringRef().str() +
                          " failed");
  }
  auto kernelRef = op->getAttrOfType<SymbolRefAttr>("nvfp4.kernel");
  auto kernelFunc =
      kernelRef ? SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
                      op, kernelRef)
                : gpu::GPUFuncOp();
  if (!kernelFunc)
    return compileError("the lowering built no kernel");
  auto k = std::make_unique<nvfp4_kernel>();
  k->function = functionName;
  if (failed(readHarness(kernelFunc, k->spec)))
    return compileError("the kernel's nvfp4.harness cannot be read");
  // The op's operands are the harness's `operands`, then (the matmuls'
  // outs(%init)) the results' initial values, named as the results.
  size_t named = k->spec.opOperands.size();
  auto operandName = [&](size_t j) -> const std::string & {
    return j < named ? k->spec.opOperands[j] : k->spec.opResults[j - named];
  };
  if (op->getNumOperands() < named ||
      op->getNumOperands() - named > k->spec.opResults.size() ||
      k->spec.opResults.size() != op->getNumResults())
    return fail(NVFP4_ERROR_UNSUPPORTED,
                op->getName().getStringRef().str() +
                    " is not supported by the C API yet: its lowering does "
                    "not name the op's operands and results (docs/Host.md)");
  auto sizes = rt::resolveSizes(k->spec, {});
  if (!sizes)
    return fail(NVFP4_ERROR_COMPILE, sizes.takeError().message());
  k->sizes = *sizes;

  // The function's arguments and results as kernel tensors.
  auto slot = [&](Value v, const std::string &name, const std::string &what,
                  TensorSlot &s) -> nvfp4_status {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    Type element = type ? type.getElementType() : Type();
    // NVFP4 data and scale factors travel as bytes: e2m1 packed two per
    // byte (the innermost extent halved), e4m3 one per byte.
    bool fp4 = element && isa<Float4E2M1FNType>(element);
    bool fp8 = element && isa<Float8E4M3FNType>(element);
    int32_t dtype = -1;
    if (fp4 || fp8)
      dtype = NVFP4_U8;
    else if (element)
      dtype = dtypeOf(element).value_or(-1);
    if (!type || !type.hasStaticShape() || dtype < 0 ||
        (fp4 && (type.getRank() == 0 || type.getShape().back() % 2)))
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  what + " (" + name +
                      "): the C API takes static tensors of f32, bf16, "
                      "f16, i32, i8, ui8, f8E4M3FN (as u8) or f4E2M1FN (as "
                      "u8, two per byte, an even innermost extent)");
    s.name = name;
    s.dtype = dtype;
    s.shape.assign(type.getShape().begin(), type.getShape().end());
    if (fp4)
      s.shape.back() /= 2;
    return NVFP4_OK;
  };
  for (BlockArgument arg : body.getArguments()) {
    std::string name;
    for (auto [j, operand] : llvm::enumerate(op->getOperands()))
      if (operand == arg) {
        if (name.empty())
          name = operandName(j);
        k->inputOf[operandName(j)] = arg.getArgNumber();
      }
    if (name.empty())
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  "argument " + std::to_string(arg.getArgNumber()) +
                      " of '" + functionName +
                      "' is not an operand of its nvfp4 op");
    TensorSlot s;
    if (nvfp4_status st = slot(arg, name,
                               "argument " +
                                   std::to_string(arg.getArgNumber()),
                               s))
      return st;
    k->inputs.push_back(std::move(s));
  }
  // A slice operand: the kernel must take it from its argument's rows (its
  // harness tensor slices the tensor of the slice's source).
  for (auto [j, operand] : llvm::enumerate(op->getOperands())) {
    auto slice = operand.getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || !slices.contains(slice))
      continue;
    const rt::HarnessTensor *t = nullptr;
    for (const rt::HarnessTensor &h : k->spec.tensors)
      if (h.name == operandName(j))
        t = &h;
    auto source = cast<BlockArgument>(slice.getSource());
    auto from = t ? k->inputOf.find(t->sliceOf) : k->inputOf.end();
    if (!t || t->sliceOf.empty() || from == k->inputOf.end() ||
        from->second != source.getArgNumber())
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  "function '" + functionName + "': operand " +
                      std::to_string(j) + " (" + operandName(j) +
                      ") is a tensor.extract_slice of argument " +
                      std::to_string(source.getArgNumber()) +
                      ", which the kernel does not read from that "
                      "argument's rows (only V as the leading columns of "
                      "K's rows is)");
  }
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    TensorSlot s;
    if (nvfp4_status st =
            slot(v, k->spec.opResults[cast<OpResult>(v).getResultNumber()],
                 "result " + std::to_string(i), s))
      return st;
    k->outputs.push_back(std::move(s));
  }
  if (k->outputs.size() != op->getNumResults())
    return fail(NVFP4_ERROR_UNSUPPORTED,
                "function '" + functionName +
                    "' must return every result of its nvfp4 op, once, in "
                    "order");
  for (auto [i, v] : llvm::enumerate(ret->getOperands()))
    if (cast<OpResult>(v).getResultNumber() != i)
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  "function '" + functionName +
                      "' must return the results of its nvfp4 op in order");

  // The device code: PTX, and with cubin=1 the cubin (ptxas), the PTX then
  // written on the way to a temporary file.
  llvm::SmallString<128> ptxPath;
  if (cubin) {
    int fd;
    if (llvm::sys::fs::createTemporaryFile("nvfp4-capi", "ptx", fd, ptxPath))
      return fail(NVFP4_ERROR_COMPILE, "cannot create a temporary file");
    ::close(fd);
  }
  llvm::scope_exit removePtx([&] {
    if (!ptxPath.empty())
      llvm::sys::fs::remove(ptxPath);
  });
  {
    SM100ToCubinOptions device;
    copyDeviceOptions(pipeline, device);
    device.format = cubin ? "bin" : "isa";
    device.ptxFile = std::string(ptxPath.str());
    PassManager pm(&context, ModuleOp::getOperationName());
    if (failed(buildSM100ToCubinPipeline(pm, device)) ||
        failed(pm.run(*module)))
      return compileError("compiling the kernel failed");
  }
  StringRef kernelModule = kernelRef.getRootReference();
  k->ptx = serializedObject(*module, kernelModule,
                            gpu::CompilationTarget::Assembly);
  if (cubin) {
    if (auto file = llvm::MemoryBuffer::getFile(ptxPath, /*IsText=*/true))
      k->ptx = (*file)->getBuffer().str();
    k->cubin = serializedObject(*module, kernelModule,
                                gpu::CompilationTarget::Binary);
    if (k->cubin.empty())
      return compileError("compiling produced no cubin");
  }
  return finishKernel(std::move(k), out, /*fromArtifact=*/false);
}


} // namespace

extern "C" {

nvfp4_status nvfp4_compile(const char *mlir, size_t size, const char *options,
                           nvfp4_kernel **kernel) {
  if (!mlir || !kernel)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !mlir ? "mlir is null" : "kernel is null");
  *kernel = nullptr;
  if (size == 0)
    size = std::strlen(mlir);
  return compile(llvm::MemoryBuffer::getMemBufferCopy(
                     llvm::StringRef(mlir, size), "<input>"),
                 options, kernel);
}

nvfp4_status nvfp4_compile_file(const char *path, const char *options,
                                nvfp4_kernel **kernel) {
  if (!path || !kernel)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !path ? "path is null" : "kernel is null");
  *kernel = nullptr;
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                std::string("path: cannot read '") + path +
                    "': " + file.getError().message());
  return compile(std::move(*file), options, kernel);
}

} // extern "C"
