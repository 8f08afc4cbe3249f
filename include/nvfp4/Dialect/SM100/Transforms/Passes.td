//===- Passes.td - sm100 transformation passes -------------*- tablegen -*-===//

#ifndef NVFP4_DIALECT_SM100_TRANSFORMS_PASSES_TD
#define NVFP4_DIALECT_SM100_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SM100PlanTmem : Pass<"sm100-plan-tmem"> {
  let summary = "check and record each kernel's tensor-memory column plan";
  let description = [{
    For every function (typically a `gpu.func` kernel) that allocates tensor
    memory, checks the allocation plan against PTX ISA 9.7.16.7.1 and
    records it:

    - the columns of all `sm100.tmem_alloc` ops reachable in one kernel add
      up to at most 512 (allocations in different `scf.if` branches or
      loop iterations are counted once each, conservatively);
    - allocation sizes never increase from one allocation to the next
      ("the number of columns allocated should not increase between any two
      allocations");
    - every allocation slot has an `sm100.tmem_dealloc` of the same size;
    - every `sm100.tmem_base` read from an allocation slot fits in it;
    - all tcgen05 operations of the kernel use one `cta_group`.

    The total is attached to the function as `sm100.tmem_columns`.
  }];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels with a tensor-memory plan">,
    Statistic<"numColumns", "columns", "Tensor-memory columns planned (sum over kernels)">,
  ];
}

def SM100LowerWarpRoles : Pass<"sm100-lower-warp-roles"> {
  let summary = "lower sm100.warp_roles and sm100.elect_one to scf and nvvm";
  let description = [{
    Each `sm100.role` becomes an `scf.if` on the warp index
    (`tid.x / 32`, which the block being one-dimensional makes exact).
    A role with `regs` starts with `nvvm.setmaxregister` (`increase` when the
    budget is above the function's `nvvm.maxnreg`, `decrease` when below,
    nothing when equal) inside its branch; the verifier has made all roles
    of a warpgroup agree on the budget (docs/Rationale.md explains why the
    instruction is not hoisted to one per warpgroup). Each `sm100.elect_one` becomes an `scf.if` on
    `nvvm.elect.sync`.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

#endif // NVFP4_DIALECT_SM100_TRANSFORMS_PASSES_TD
