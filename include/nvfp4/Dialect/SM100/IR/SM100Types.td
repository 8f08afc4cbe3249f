//===- SM100Types.td - sm100 types -------------------------*- tablegen -*-===//

#ifndef NVFP4_DIALECT_SM100_IR_SM100TYPES_TD
#define NVFP4_DIALECT_SM100_IR_SM100TYPES_TD

include "nvfp4/Dialect/SM100/IR/SM100Attrs.td"
include "mlir/IR/AttrTypeBase.td"

def SM100_TmemType : TypeDef<SM100_Dialect, "Tmem"> {
  let mnemonic = "tmem";
  let summary = "a matrix held in tensor memory";
  let description = [{
    A `rows` x `cols` matrix of `elementType` in tensor memory (TMEM: 128
    lanes x 512 columns x 32 bit per CTA, PTX ISA 9.7.16.1), laid out as
    `layout` says:

    | layout      | rows | element -> TMEM cell                                  | 32-bit columns |
    |-------------|------|-------------------------------------------------------|----------------|
    | `acc`       | 128  | D[m, n] at lane m, column n (PTX layout D, M = 128)    | cols           |
    | `acc_m64`   | 64   | D[m, n] at lane 32(m/16) + m%16, column n (layout F)   | cols           |
    | `operand_a` | 128  | A[m, k] at lane m, packed 32/bits per column (`ts` A)  | cols*bits/32   |
    | `scales`    | 128  | block scales, bytes packed 4 per column (9.7.16.7)     | cols*bits/32   |

    16-bit accumulators are unpacked (one element per 32-bit cell). A value
    of this type is a TMEM address (lane in bits 31-16, column in 15-0) that
    points at the matrix's first cell; it lowers to `!llvm.ptr<6>`.

    Example:

    ```mlir
    !sm100.tmem<128x256xf32, acc>
    !sm100.tmem<128x128xbf16, operand_a>
    ```
  }];
  let parameters = (ins
    "int64_t":$rows,
    "int64_t":$cols,
    "::mlir::Type":$elementType,
    "::nvfp4::sm100::TmemLayout":$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// 32-bit TMEM columns the matrix occupies.
    int64_t getNumColumns() const;
  }];
}

#endif // NVFP4_DIALECT_SM100_IR_SM100TYPES_TD
