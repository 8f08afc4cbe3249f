//===- SM100Attrs.td - sm100 enums and attributes ----------*- tablegen -*-===//
//
// Enumerations and attributes of the sm100 dialect. Enum values are the
// hardware codes where one exists (see include/nvfp4/Support/*.h, which
// holds every bit position and names the PTX ISA table it comes from).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_SM100_IR_SM100ATTRS_TD
#define NVFP4_DIALECT_SM100_IR_SM100ATTRS_TD

include "nvfp4/Dialect/SM100/IR/SM100Dialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

def SM100_MajorK : I32EnumAttrCase<"k", 0>;
def SM100_MajorMN : I32EnumAttrCase<"mn", 1>;
def SM100_Major : I32EnumAttr<"Major",
    "which dimension of an operand is contiguous in shared memory",
    [SM100_MajorK, SM100_MajorMN]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::nvfp4::sm100";
}

// Values are the descriptor's 3-bit swizzle codes (PTX ISA Table 40).
def SM100_SwizzleNone : I32EnumAttrCase<"none", 0>;
def SM100_Swizzle128Base32 : I32EnumAttrCase<"sw128_base32", 1>;
def SM100_Swizzle128 : I32EnumAttrCase<"sw128", 2>;
def SM100_Swizzle64 : I32EnumAttrCase<"sw64", 4>;
def SM100_Swizzle32 : I32EnumAttrCase<"sw32", 6>;
def SM100_Swizzle : I32EnumAttr<"Swizzle",
    "shared-memory swizzle mode of a UMMA operand",
    [SM100_SwizzleNone, SM100_Swizzle128Base32, SM100_Swizzle128,
     SM100_Swizzle64, SM100_Swizzle32]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::nvfp4::sm100";
}

def SM100_KindF16 : I32EnumAttrCase<"f16", 0>;
def SM100_KindTF32 : I32EnumAttrCase<"tf32", 1>;
def SM100_KindF8F6F4 : I32EnumAttrCase<"f8f6f4", 2>;
def SM100_KindI8 : I32EnumAttrCase<"i8", 3>;
def SM100_KindMXF8F6F4 : I32EnumAttrCase<"mxf8f6f4", 4>;
def SM100_KindMXF4 : I32EnumAttrCase<"mxf4", 5>;
def SM100_KindMXF4NVF4 : I32EnumAttrCase<"mxf4nvf4", 6>;
def SM100_MmaKind : I32EnumAttr<"MmaKind", "the .kind of a tcgen05.mma",
    [SM100_KindF16, SM100_KindTF32, SM100_KindF8F6F4, SM100_KindI8,
     SM100_KindMXF8F6F4, SM100_KindMXF4, SM100_KindMXF4NVF4]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::nvfp4::sm100";
}

def SM100_ScaleUE4M3 : I32EnumAttrCase<"ue4m3", 0>;
def SM100_ScaleUE8M0 : I32EnumAttrCase<"ue8m0", 1>;
def SM100_ScaleType : I32EnumAttr<"ScaleType",
    "scale-factor element type of a block-scaled tcgen05.mma",
    [SM100_ScaleUE4M3, SM100_ScaleUE8M0]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::nvfp4::sm100";
}

def SM100_Shape16x64b : I32EnumAttrCase<"shape_16x64b", 0>;
def SM100_Shape16x128b : I32EnumAttrCase<"shape_16x128b", 1>;
def SM100_Shape16x256b : I32EnumAttrCase<"shape_16x256b", 2>;
def SM100_Shape32x32b : I32EnumAttrCase<"shape_32x32b", 3>;
def SM100_Shape16x32bx2 : I32EnumAttrCase<"shape_16x32bx2", 4>;
def SM100_LdStShape : I32EnumAttr<"LdStShape",
    "data-movement shape of tcgen05.ld / tcgen05.st",
    [SM100_Shape16x64b, SM100_Shape16x128b, SM100_Shape16x256b,
     SM100_Shape32x32b, SM100_Shape16x32bx2]> {
  let cppNamespace = "::nvfp4::sm100";
}

def SM100_LayoutAcc : I32EnumAttrCase<"acc", 0>;
def SM100_LayoutAccM64 : I32EnumAttrCase<"acc_m64", 1>;
def SM100_LayoutOperandA : I32EnumAttrCase<"operand_a", 2>;
def SM100_LayoutScales : I32EnumAttrCase<"scales", 3>;
def SM100_TmemLayout : I32EnumAttr<"TmemLayout",
    "how a matrix is laid out across TMEM lanes and columns",
    [SM100_LayoutAcc, SM100_LayoutAccM64, SM100_LayoutOperandA,
     SM100_LayoutScales]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::nvfp4::sm100";
}

def SM100_WaitLoad : I32EnumAttrCase<"load", 0>;
def SM100_WaitStore : I32EnumAttrCase<"store", 1>;
def SM100_WaitKind : I32EnumAttr<"WaitKind",
    "which tcgen05 data movements tcgen05.wait waits for",
    [SM100_WaitLoad, SM100_WaitStore]> {
  let cppNamespace = "::nvfp4::sm100";
}

def SM100_CpShape32x128bWarpx4 : I32EnumAttrCase<"shape_32x128b_warpx4", 0>;
def SM100_CpShape128x128b : I32EnumAttrCase<"shape_128x128b", 1>;
def SM100_CpShape128x256b : I32EnumAttrCase<"shape_128x256b", 2>;
def SM100_CpShape : I32EnumAttr<"CpShape",
    "the shape (and multicast) of a tcgen05.cp",
    [SM100_CpShape32x128bWarpx4, SM100_CpShape128x128b, SM100_CpShape128x256b]> {
  let cppNamespace = "::nvfp4::sm100";
}

def SM100_FenceBefore : I32EnumAttrCase<"before_thread_sync", 0>;
def SM100_FenceAfter : I32EnumAttrCase<"after_thread_sync", 1>;
def SM100_FenceKind : I32EnumAttr<"FenceKind",
    "ordering of tcgen05 operations around a thread synchronisation",
    [SM100_FenceBefore, SM100_FenceAfter]> {
  let cppNamespace = "::nvfp4::sm100";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

class SM100_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<SM100_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def SM100_SmemLayoutAttr : SM100_Attr<"SmemLayout", "smem_layout"> {
  let summary = "a UMMA operand tile in a canonical shared-memory layout";
  let description = [{
    A tile of `mn` x `k` elements of type `element` stored in shared memory
    in one of the canonical layouts the tensor cores read (PTX ISA 9.7.16.3.3
    "Canonical layouts"). `major` says which dimension is contiguous,
    `swizzle` the swizzle mode. Swizzle atoms (8 rows of the swizzle width,
    or 8 x 16 B core matrices without swizzle) are tiled MN-first, then K.
    The 64-bit shared-memory descriptor (PTX ISA Table 40), including the
    leading- and stride-dimension byte offsets, is derived from this
    attribute; nothing about it is written by hand.

    `k_first = true` (MN-major swizzled tiles only) lays the atoms out
    K-first instead: each column of atoms is one swizzle width along MN and
    all of K, which is what TMA boxes of one swizzle width along MN produce
    (a 64-column bf16 box per 128-byte swizzle). It changes the
    descriptor's strides (LBO = k / 8 atoms, SBO = one atom), so one MMA can
    read an operand N > 64 wide from such boxes.

    Example:

    ```mlir
    #sm100.smem_layout<major = k, swizzle = sw128, element = bf16, mn = 128, k = 64>
    ```
  }];
  let parameters = (ins
    EnumParameter<SM100_Major>:$major,
    EnumParameter<SM100_Swizzle>:$swizzle,
    "::mlir::Type":$element,
    "int64_t":$mn,
    "int64_t":$k,
    DefaultValuedParameter<"bool", "false">:$k_first);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout in the encoder library's terms. Only valid after verify().
    ::nvfp4::umma::SmemLayout toUMMA() const;
    /// Bytes of the whole tile.
    uint64_t getTileBytes() const;
    /// Elements along K covered by one MMA (always 32 bytes of K).
    int64_t getKPerMma() const;
    /// Number of K slices one MMA each.
    int64_t getNumKSlices() const;
  }];
}

def SM100_IDescAttr : SM100_Attr<"IDesc", "idesc"> {
  let summary = "a tcgen05.mma instruction descriptor";
  let description = [{
    The 32-bit instruction descriptor of a `tcgen05.mma` (PTX ISA 9.7.16.4.2,
    Tables 42-44), derived from the kind, the operand and accumulator types,
    the shape, the operands' major-ness and negation, and (for block-scaled
    kinds) the scale type. The verifier checks type/kind compatibility and
    shape legality for the kind and `cta_group` (PTX ISA Table 39).

    Element types: `f16`, `bf16`, `tf32`, `f32`, `i32` (s32), `si8`, `ui8`,
    `f8E4M3FN`, `f8E5M2`, `f6E2M3FN`, `f6E3M2FN`, `f4E2M1FN`.

    Example (bf16 x bf16 -> f32, M = 128, N = 256, both K-major;
    encodes to 0x08400490):

    ```mlir
    #sm100.idesc<kind = f16, a = bf16, b = bf16, d = f32, m = 128, n = 256>
    ```
  }];
  let parameters = (ins
    EnumParameter<SM100_MmaKind>:$kind,
    "::mlir::Type":$a,
    "::mlir::Type":$b,
    "::mlir::Type":$d,
    "int64_t":$m,
    "int64_t":$n,
    DefaultValuedParameter<"::nvfp4::sm100::Major", "::nvfp4::sm100::Major::k">:$a_major,
    DefaultValuedParameter<"::nvfp4::sm100::Major", "::nvfp4::sm100::Major::k">:$b_major,
    DefaultValuedParameter<"bool", "false">:$negate_a,
    DefaultValuedParameter<"bool", "false">:$negate_b,
    DefaultValuedParameter<"int64_t", "1">:$cta_group,
    DefaultValuedParameter<"::nvfp4::sm100::ScaleType", "::nvfp4::sm100::ScaleType::ue8m0">:$scale_type);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The fields in the encoder library's terms.
    ::nvfp4::umma::InstrDescFields toFields() const;
    /// The encoded 32-bit descriptor. Only valid after verify().
    uint32_t getEncoding() const;
    /// K elements per MMA for this kind.
    int64_t getK() const;
  }];
}

#endif // NVFP4_DIALECT_SM100_IR_SM100ATTRS_TD
