//===- ExternDynamicSharedMemory.cpp - extern .shared for dynamic smem -----===//
//
// gpu.dynamic_shared_memory lowers to an internal zero-sized global, which
// ptxas allocates as a one-byte static variable; give it external linkage
// (and a useful alignment) so that it is the `.extern .shared []` array whose
// storage starts after every static shared variable.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/MathExtras.h"

namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4EXTERNDYNAMICSHAREDMEMORY
#include "nvfp4/Pipelines/Passes.h.inc"
} // namespace nvfp4

using namespace mlir;

namespace {

/// The globals upstream creates for gpu.dynamic_shared_memory: zero-sized
/// arrays in the shared address space.
bool isDynamicSharedMemory(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return global.getAddrSpace() ==
             static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) &&
         array && array.getNumElements() == 0 &&
         global.getInitializerRegion().empty() &&
         !global.getValueOrNull();
}

struct ExternDynamicSharedMemoryPass
    : nvfp4::impl::NVFP4ExternDynamicSharedMemoryBase<
          ExternDynamicSharedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!llvm::isPowerOf2_32(alignment)) {
      getOperation().emitError(
          "nvfp4-extern-dynamic-shared-memory: expected a power-of-two "
          "alignment, got ")
          << static_cast<uint64_t>(alignment);
      return signalPassFailure();
    }
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      if (!isDynamicSharedMemory(global))
        continue;
      global.setLinkage(LLVM::Linkage::External);
      uint64_t current = global.getAlignment().value_or(1);
      global.setAlignment(std::max<uint64_t>(current, alignment));
      ++numGlobals;
    }
  }
};

} // namespace
