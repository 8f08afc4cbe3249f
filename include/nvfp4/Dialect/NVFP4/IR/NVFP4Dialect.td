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
  let useDefaultAttributePrinterParser = 1;
}

class NVFP4_Op<string mnemonic, list<Trait> traits = []>
    : Op<NVFP4_Dialect, mnemonic, traits>;

def NVFP4_KvCacheAttr : AttrDef<NVFP4_Dialect, "KvCache"> {
  let mnemonic = "kv_cache";
  let summary = "a quantized KV cache: a byte layout and its page size";
  let description = [{
    Names the byte layout of a quantized KV cache (a table entry of
    `nvfp4/Support/KvCacheFormat.h`, docs/Attention.md "Quantized caches")
    and the tokens per page. The cache operand is then
    `tensor<NumPages x PageBytes x i8>`, PageBytes the layout's bytes per
    page (padding included). Layouts: `"deepseek_v4_fp8"` (DeepSeek-V4
    MODEL1: 448 e4m3 + 64 bf16 values per 576-byte row, 7 UE8M0 scales per
    token after the page's rows, pages padded to 576 bytes; D = Dv = 512)
    and `"deepseek_v32_fp8"` (DeepSeek-V3.2: 512 e4m3 | 4 f32 scales | 64
    bf16 per 656-byte token; D = 576, Dv = 512).

    ```mlir
    #nvfp4.kv_cache<"deepseek_v4_fp8", page_size = 256>
    ```
  }];
  let parameters = (ins StringRefParameter<"the layout's name">:$format,
                        "int64_t":$page_size);
  let assemblyFormat = "`<` $format `,` `page_size` `=` $page_size `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout (null only for an attribute that failed verify()).
    const ::nvfp4::KvCacheFormat *getLayout() const;
  }];
}

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD
