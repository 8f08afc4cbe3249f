//===- NVFP4Dialect.td - the nvfp4 dialect definition ------*- tablegen -*-===//
//
// The ops users write: tensor semantics, no hardware in them.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD
#define NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD

include "mlir/IR/OpBase.td"

def NVFP4_Dialect : Dialect {
  let name = "nvfp4";
  let cppNamespace = "::nvfp4";
  let summary = "tensor-level attention, NVFP4 quantization and block-scaled matmul";
  let description = [{
    The `nvfp4` dialect holds the operations a user of nvfp4 writes: whole
    computations on ranked tensors, with exact numerical semantics and no
    hardware in them (no tiles, no tensor memory, no warps). The compiler
    picks a kernel schedule from the shapes and lowers them to the `sm100`
    dialect. The first operation is `nvfp4.attention`, whose semantics are
    written out as formulas in docs/Attention.md.
  }];
}

class NVFP4_Op<string mnemonic, list<Trait> traits = []>
    : Op<NVFP4_Dialect, mnemonic, traits>;

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD
