//===- SM100Dialect.td - the sm100 dialect definition ------*- tablegen -*-===//
//
// The Blackwell (SM100, sm_100a) tensor-core programming model as IR.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_SM100_IR_SM100DIALECT_TD
#define NVFP4_DIALECT_SM100_IR_SM100DIALECT_TD

include "mlir/IR/OpBase.td"

def SM100_Dialect : Dialect {
  let name = "sm100";
  let cppNamespace = "::nvfp4::sm100";
  let summary = "Blackwell (SM100) tensor memory, UMMA descriptors and warp roles";
  let description = [{
    The `sm100` dialect models the programming model of the fifth-generation
    tensor cores of NVIDIA Blackwell data-centre GPUs (B200/GB200, `sm_100a`)
    so that the mistakes that make hand-written kernels hang or silently
    compute garbage become verifier errors:

    - **Tensor memory (TMEM)** is a typed value `!sm100.tmem<RxCxT, layout>`.
      Allocations are checked (power of two in [32, 512] columns), loads and
      stores carry their data-movement shape and repetition and are checked
      against the register count and the lane quadrant a warp may access.
    - **UMMA descriptors** are derived, never written by hand: a shared-memory
      layout attribute `#sm100.smem_layout` yields the 64-bit matrix
      descriptor and an instruction-descriptor attribute `#sm100.idesc` yields
      the 32-bit instruction descriptor, with shape legality per kind and
      `cta_group`.
    - **Warp roles** split a CTA's warps into named roles with register
      budgets (`setmaxnreg`), and `sm100.elect_one` marks the single-thread
      issue regions in which `tcgen05.mma` and `tcgen05.commit` must sit.

    The dialect lowers to upstream `nvvm` (`tcgen05.*`, `setmaxnreg`,
    `elect.sync`) with `convert-sm100-to-nvvm`. mbarriers and TMA are taken
    from the upstream `nvgpu` dialect.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::gpu::GPUDialect",
  ];
}

class SM100_Op<string mnemonic, list<Trait> traits = []>
    : Op<SM100_Dialect, mnemonic, traits>;

#endif // NVFP4_DIALECT_SM100_IR_SM100DIALECT_TD
