//===- PlanTmem.cpp - check and record the tensor-memory plan --------------===//
//
// Per kernel: total columns <= 512, allocation sizes non-increasing, every
// allocation deallocated with its size, every view of an allocation inside
// it, one cta_group (PTX ISA 9.7.16.7.1).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/SM100/IR/SM100Dialect.h"
#include "nvfp4/Dialect/SM100/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace nvfp4::sm100 {
#define GEN_PASS_DEF_SM100PLANTMEM
#include "nvfp4/Dialect/SM100/Transforms/Passes.h.inc"
} // namespace nvfp4::sm100

using namespace mlir;
using namespace nvfp4;
using namespace nvfp4::sm100;

namespace {

/// Identifies an allocation slot: the global's name for memref.get_global,
/// otherwise the SSA value itself.
using SlotKey = std::pair<StringRef, void *>;

SlotKey slotKey(Value slot) {
  if (auto global = slot.getDefiningOp<memref::GetGlobalOp>())
    return {global.getName(), nullptr};
  return {StringRef(), slot.getAsOpaquePointer()};
}

/// Follows tmem_slice ops back to the tmem_base that produced `tmem`; null
/// when there is none (or the slices form a cycle, which the verifier
/// rejects).
TmemBaseOp findBase(Value tmem) {
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (auto slice = tmem.getDefiningOp<TmemSliceOp>()) {
    if (!seen.insert(slice).second)
      return nullptr;
    tmem = slice.getSource();
  }
  return tmem.getDefiningOp<TmemBaseOp>();
}

struct Allocation {
  TmemAllocOp alloc;
  SmallVector<TmemDeallocOp> deallocs;
};

struct SM100PlanTmemPass
    : nvfp4::sm100::impl::SM100PlanTmemBase<SM100PlanTmemPass> {
  void runOnOperation() override {
    getOperation()->walk([&](FunctionOpInterface func) {
      if (failed(planKernel(func)))
        signalPassFailure();
    });
  }

  LogicalResult planKernel(FunctionOpInterface func) {
    llvm::MapVector<SlotKey, Allocation> allocations;
    int64_t total = 0;
    std::optional<int64_t> previousColumns;
    std::optional<std::pair<int64_t, Operation *>> ctaGroup;

    auto checkGroup = [&](Operation *op, int64_t group) -> LogicalResult {
      if (!ctaGroup) {
        ctaGroup = {group, op};
        return success();
      }
      if (ctaGroup->first == group)
        return success();
      InFlightDiagnostic diag =
          op->emitOpError("uses cta_group ")
          << group << " but the kernel already uses cta_group "
          << ctaGroup->first << " (all tcgen05 operations of a kernel must "
          << "use one cta_group)";
      diag.attachNote(ctaGroup->second->getLoc()) << "first use here";
      return failure();
    };

    WalkResult result = func->walk([&](Operation *op) -> WalkResult {
      if (auto alloc = dyn_cast<TmemAllocOp>(op)) {
        int64_t cols = alloc.getColumns();
        if (previousColumns && cols > *previousColumns)
          return alloc.emitOpError("allocates ")
                 << cols << " columns after an allocation of "
                 << *previousColumns
                 << ": allocation sizes must not increase (PTX ISA "
                    "9.7.16.7.1)";
        previousColumns = cols;
        total += cols;
        if (total > tmem::kColumns) {
          InFlightDiagnostic diag =
              alloc.emitOpError("brings the kernel's tensor memory to ")
              << total << " columns, more than the " << tmem::kColumns
              << " a CTA has";
          for (auto &entry : allocations)
            diag.attachNote(entry.second.alloc.getLoc())
                << "earlier allocation of " << entry.second.alloc.getColumns()
                << " columns";
          return diag;
        }
        auto [it, inserted] =
            allocations.insert({slotKey(alloc.getSlot()), Allocation{alloc, {}}});
        if (!inserted)
          return alloc.emitOpError(
              "allocates into a slot that an earlier sm100.tmem_alloc "
              "already uses");
        return WalkResult(checkGroup(op, alloc.getCtaGroup()));
      }
      if (auto dealloc = dyn_cast<TmemDeallocOp>(op)) {
        if (failed(checkGroup(op, dealloc.getCtaGroup())))
          return WalkResult::interrupt();
        TmemBaseOp base = findBase(dealloc.getTmem());
        if (!base)
          return WalkResult::advance();
        auto *it = allocations.find(slotKey(base.getSlot()));
        if (it == allocations.end())
          return dealloc.emitOpError(
              "frees tensor memory that no sm100.tmem_alloc of this kernel "
              "allocated before it");
        if (dealloc.getColumns() != it->second.alloc.getColumns()) {
          InFlightDiagnostic diag =
              dealloc.emitOpError("frees ")
              << dealloc.getColumns() << " columns of an allocation of "
              << it->second.alloc.getColumns();
          diag.attachNote(it->second.alloc.getLoc()) << "allocated here";
          return diag;
        }
        it->second.deallocs.push_back(dealloc);
        return WalkResult::advance();
      }
      if (auto base = dyn_cast<TmemBaseOp>(op)) {
        auto *it = allocations.find(slotKey(base.getSlot()));
        if (it != allocations.end() &&
            base.getType().getNumColumns() > it->second.alloc.getColumns())
          return base.emitOpError("views ")
                 << base.getType().getNumColumns()
                 << " columns of an allocation of "
                 << it->second.alloc.getColumns();
        return WalkResult::advance();
      }
      if (auto relinquish = dyn_cast<TmemRelinquishOp>(op))
        return WalkResult(checkGroup(op, relinquish.getCtaGroup()));
      if (auto commit = dyn_cast<CommitOp>(op))
        return WalkResult(checkGroup(op, commit.getCtaGroup()));
      if (auto mma = dyn_cast<MmaOp>(op))
        return WalkResult(checkGroup(op, mma.getIdesc().getCtaGroup()));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();

    for (auto &entry : allocations)
      if (entry.second.deallocs.empty())
        return entry.second.alloc.emitOpError(
            "has no matching sm100.tmem_dealloc (tensor memory must be freed "
            "before the kernel exits)");

    if (allocations.empty())
      return success();
    func->setAttr("sm100.tmem_columns",
                  Builder(func.getContext()).getI32IntegerAttr(total));
    ++numKernels;
    numColumns += total;
    return success();
  }
};

} // namespace
