//===- BufferizableOpInterfaceImpl.cpp - nvfp4 ops in bufferization -------===//
//
// An nvfp4 op on tensors reads its operands and writes new tensors: in
// one-shot bufferization its operands are read-only uses (never written, so
// never copied) and each result is a new allocation, except for the
// matmuls' `outs(%init)`: the result is written into init's buffer (in
// place when one-shot allows; the grouped matmul reads it too, for the
// rows outside its groups, and needs it). Bufferizing replaces
// the op by `nvfp4.launch` of the kernel its lowering built (the
// `nvfp4.kernel` attribute), so the lowering must run first: an op without
// a kernel is an error that names the pass.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/BufferizableOpInterfaceImpl.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace nvfp4;

namespace {

/// The pass that builds the kernel of `op`.
StringRef lowering(Operation *op) {
  if (isa<AttentionOp>(op))
    return "nvfp4-lower-attention";
  if (isa<AttentionMergeOp>(op))
    return "nvfp4-lower-attention-merge";
  if (isa<QuantizeOp, DequantizeOp>(op))
    return "nvfp4-lower-quantize";
  return "nvfp4-lower-scaled-matmul";
}

/// The operand the result is written over (`outs(%init)`), if any.
OpOperand *initOperand(Operation *op) {
  std::optional<MutableOperandRange> init;
  if (auto dense = dyn_cast<ScaledMatmulOp>(op))
    init = dense.getInitMutable();
  else if (auto grouped = dyn_cast<GroupedScaledMatmulOp>(op))
    init = grouped.getInitMutable();
  return init && !init->empty() ? &(*init)[0] : nullptr;
}

template <typename OpTy>
struct KernelOpInterface
    : public BufferizableOpInterface::ExternalModel<KernelOpInterface<OpTy>,
                                                    OpTy> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    // A dense matmul overwrites all of init; the grouped one keeps the
    // rows outside its groups.
    return &operand != initOperand(op) || isa<GroupedScaledMatmulOp>(op);
  }
  bool bufferizesToMemoryWrite(Operation *op, OpOperand &operand,
                               const AnalysisState &) const {
    return &operand == initOperand(op);
  }
  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    if (&operand != initOperand(op))
      return {};
    return {{op->getResult(0), BufferRelation::Equivalent}};
  }
  bool bufferizesToAllocation(Operation *op, Value) const {
    return !initOperand(op);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto kernel = op->getAttrOfType<SymbolRefAttr>("nvfp4.kernel");
    if (!kernel)
      return op->emitOpError("has no kernel to launch: run ")
             << lowering(op) << " before bufferization";
    auto func = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(op,
                                                                     kernel);
    auto harness =
        func ? func->getAttrOfType<DictionaryAttr>("nvfp4.harness")
             : DictionaryAttr();
    if (!harness || !harness.get("operands") || !harness.get("results"))
      return op->emitOpError("cannot be bufferized yet: its kernel ")
             << kernel
             << " does not name the op's operands and results (the "
                "nvfp4.harness entries 'operands' and 'results'); "
                "docs/Host.md lists the ops the host path supports";

    OpOperand *init = initOperand(op);
    if (!init && isa<GroupedScaledMatmulOp>(op))
      return op->emitOpError(
          "needs outs(%init) to bufferize: its kernel writes D only in the "
          "groups' rows, so a new buffer would leave the others undefined");
    SmallVector<Value> inputs;
    for (OpOperand &operand : op->getOpOperands()) {
      if (&operand == init)
        continue;
      FailureOr<Value> buffer =
          getBuffer(rewriter, operand.get(), options, state);
      if (failed(buffer))
        return failure();
      inputs.push_back(*buffer);
    }
    SmallVector<Value> outputs;
    if (init) {
      FailureOr<Value> buffer = getBuffer(rewriter, init->get(), options, state);
      if (failed(buffer))
        return failure();
      outputs.push_back(*buffer);
    }
    for (Value result : op->getResults()) {
      if (init)
        break;
      auto tensor = cast<RankedTensorType>(result.getType());
      if (!tensor.hasStaticShape())
        return op->emitOpError("expects results of static shape to "
                               "bufferize, found ")
               << tensor;
      std::optional<Attribute> space = options.defaultMemorySpaceFn(tensor);
      if (!space)
        return op->emitOpError("has no default memory space for ") << tensor;
      auto type = cast<MemRefType>(
          getMemRefTypeWithStaticIdentityLayout(tensor, *space));
      FailureOr<Value> alloc =
          options.createAlloc(rewriter, op->getLoc(), type, {});
      if (failed(alloc))
        return failure();
      outputs.push_back(*alloc);
    }
    LaunchOp::create(rewriter, op->getLoc(), kernel, inputs, outputs);
    replaceOpWithBufferizedValues(rewriter, op, outputs);
    return success();
  }
};

} // namespace

void nvfp4::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NVFP4Dialect *) {
    AttentionOp::attachInterface<KernelOpInterface<AttentionOp>>(*ctx);
    AttentionMergeOp::attachInterface<KernelOpInterface<AttentionMergeOp>>(
        *ctx);
    QuantizeOp::attachInterface<KernelOpInterface<QuantizeOp>>(*ctx);
    DequantizeOp::attachInterface<KernelOpInterface<DequantizeOp>>(*ctx);
    ScaledMatmulOp::attachInterface<KernelOpInterface<ScaledMatmulOp>>(*ctx);
    GroupedScaledMatmulOp::attachInterface<
        KernelOpInterface<GroupedScaledMatmulOp>>(*ctx);
  });
}
