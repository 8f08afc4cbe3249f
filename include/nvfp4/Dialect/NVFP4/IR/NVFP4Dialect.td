//===- NVFP4Dialect.td - the nvfp4 dialect definition ------*- tablegen -*-===//
//
// The ops users write: tensor semantics, no hardware in them.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD
#define NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def NVFP4_Dialect : Dialect {
  let name = "nvfp4";
  let cppNamespace = "::nvfp4";
  let summary = "tensor-level attention, NVFP4 quantization and block-scaled matmul";
  let description = [{
    The `nvfp4` dialect holds the operations a user of nvfp4 writes: whole
    computations on ranked tensors, with exact numerical semantics and no
    hardware in them (no tiles, no tensor memory, no warps). The compiler
    picks a kernel schedule from the shapes and lowers them to the `sm100`
    dialect. `nvfp4.attention` (and `nvfp4.attention_merge`) have their
    semantics written out as formulas in docs/Attention.md; the NVFP4 ops
    (`nvfp4.quantize`, `nvfp4.dequantize`, `nvfp4.scaled_matmul`,
    `nvfp4.grouped_scaled_matmul`) in docs/NVFP4.md.
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

//===----------------------------------------------------------------------===//
// NVFP4 quantization choices (docs/NVFP4.md; nvfp4/Support/Nvfp4Format.h).
//===----------------------------------------------------------------------===//

def NVFP4_SfLayoutSwizzled : I32EnumAttrCase<"swizzled", 0>;
def NVFP4_SfLayoutRowMajor : I32EnumAttrCase<"row_major", 1>;
def NVFP4_SfLayoutEnum : I32EnumAttr<"SfLayout",
    "where the e4m3 scale factors of an NVFP4 tensor are stored",
    [NVFP4_SfLayoutSwizzled, NVFP4_SfLayoutRowMajor]> {
  let cppNamespace = "::nvfp4";
  let genSpecializedAttr = 0;
}
def NVFP4_SfLayoutAttr : EnumAttr<NVFP4_Dialect, NVFP4_SfLayoutEnum, "sf_layout"> {
  let assemblyFormat = "`<` $value `>`";
  let description = [{
    `swizzled` (the default): `[round_up(M, 128), round_up(K / 16, 4)]`
    bytes in 512-byte atoms of 128 rows x 4 blocks, the layout tcgen05 and
    the engines' GEMMs read (docs/NVFP4.md gives the offset formula);
    `row_major`: `[M, K / 16]`.
  }];
}

def NVFP4_RecipeFast : I32EnumAttrCase<"fast", 0>;
def NVFP4_RecipeExact : I32EnumAttrCase<"exact", 1>;
def NVFP4_RecipeEnum : I32EnumAttr<"QuantRecipe",
    "how NVFP4 block scales and multipliers are computed",
    [NVFP4_RecipeFast, NVFP4_RecipeExact]> {
  let cppNamespace = "::nvfp4";
  let genSpecializedAttr = 0;
}
def NVFP4_RecipeAttr : EnumAttr<NVFP4_Dialect, NVFP4_RecipeEnum, "recipe"> {
  let assemblyFormat = "`<` $value `>`";
  let description = [{
    `fast` (the default): TensorRT-LLM / FlashInfer / vLLM, with
    `rcp.approx.ftz.f32`; `exact`: Transformer Engine's IEEE divisions.
  }];
}

def NVFP4_NanPropagate : I32EnumAttrCase<"propagate", 0>;
def NVFP4_NanIgnore : I32EnumAttrCase<"ignore", 1>;
def NVFP4_NanPolicyEnum : I32EnumAttr<"NanPolicy",
    "what a NaN input does to its NVFP4 block",
    [NVFP4_NanPropagate, NVFP4_NanIgnore]> {
  let cppNamespace = "::nvfp4";
  let genSpecializedAttr = 0;
}
def NVFP4_NanPolicyAttr : EnumAttr<NVFP4_Dialect, NVFP4_NanPolicyEnum, "nan"> {
  let assemblyFormat = "`<` $value `>`";
  let description = [{
    `propagate` (the default): the block's scale factor becomes NaN (0x7F),
    so the block dequantizes to NaN; `ignore`: NaN is left out of the block
    amax and converts to +6 (TensorRT-LLM's bytes).
  }];
}

def NVFP4_GroupContiguous : I32EnumAttrCase<"contiguous", 0>;
def NVFP4_GroupMasked : I32EnumAttrCase<"masked", 1>;
def NVFP4_GroupLayoutEnum : I32EnumAttr<"GroupLayout",
    "how the rows of a grouped (MoE) matmul's groups are laid out",
    [NVFP4_GroupContiguous, NVFP4_GroupMasked]> {
  let cppNamespace = "::nvfp4";
  let genSpecializedAttr = 0;
}
def NVFP4_GroupLayoutAttr : EnumAttr<NVFP4_Dialect, NVFP4_GroupLayoutEnum,
                                     "group_layout"> {
  let assemblyFormat = "`<` $value `>`";
  let description = [{
    `contiguous`: the groups' rows one after another in one `[M, K]`
    tensor, each group starting on a multiple of 128 rows (DeepGEMM's
    contiguous / psum layouts, the engines' per-expert padding to 128);
    `masked`: `[E, max_m, K]`, group g's rows are the first `sizes[g]`.
  }];
}

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_TD
