//===- UMMADescriptors.h - SM100 UMMA descriptor encoders -------*- C++ -*-===//
//
// The 64-bit shared-memory matrix descriptor and the 32-bit instruction
// descriptor consumed by `tcgen05.mma`, with every bit position in one place.
//
// Sources (see ../shared/reference/sm100-encodings.md):
//  - PTX ISA 9.1, section 9.7.16.4.1 "Shared memory descriptor", Table 40.
//  - PTX ISA 9.1, section 9.7.16.4.2 "Instruction descriptor", Tables 42-44.
//  - PTX ISA 9.1, section 9.7.16.3.3 "Canonical layouts" (LBO/SBO meaning).
//  - PTX ISA 9.1, section 9.7.16.2.1 "Matrix shape", Table 39.
//
// This library depends on nothing but the C++ standard library so that the
// dialect, the lowering and the emulator share one implementation.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_SUPPORT_UMMADESCRIPTORS_H
#define NVFP4_SUPPORT_UMMADESCRIPTORS_H

#include <cstdint>
#include <optional>
#include <string>

namespace nvfp4::umma {

//===----------------------------------------------------------------------===//
// Enumerations (values are the hardware codes where one exists)
//===----------------------------------------------------------------------===//

/// Which dimension is contiguous in shared memory. Values match the
/// instruction descriptor's transpose bits (PTX Table 42, bits 15/16).
enum class Major : uint8_t { K = 0, MN = 1 };

/// Swizzle mode. Values are the 3-bit codes of descriptor bits 61-63
/// (PTX Table 40): 3, 5 and 7 are invalid.
enum class Swizzle : uint8_t {
  None = 0,
  B128Base32B = 1,
  B128 = 2,
  B64 = 4,
  B32 = 6,
};

/// The `.kind` of a tcgen05.mma (PTX 9.7.16.10.x).
enum class MmaKind : uint8_t {
  F16,      ///< f16/bf16 inputs, f16/f32 accumulator
  TF32,     ///< tf32 inputs, f32 accumulator
  F8F6F4,   ///< e4m3/e5m2/e2m3/e3m2/e2m1 inputs, f16/f32 accumulator
  I8,       ///< s8/u8 inputs, s32 accumulator
  MXF8F6F4, ///< block-scaled f8/f6/f4 with ue8m0 scales
  MXF4,     ///< block-scaled e2m1 with ue8m0 scales
  MXF4NVF4, ///< block-scaled e2m1 with ue8m0 or ue4m3 scales
};

/// Element types that can appear in an instruction descriptor.
enum class ElemType : uint8_t {
  F16,
  BF16,
  TF32,
  F32,
  S32,
  S8,
  U8,
  E4M3,
  E5M2,
  E2M3,
  E3M2,
  E2M1,
};

/// Scale-factor element type for block-scaled kinds (idesc bit 23).
enum class ScaleType : uint8_t { UE4M3 = 0, UE8M0 = 1 };

/// Returns the storage width in bits of `t` in shared memory (e2m1 = 4,
/// e2m3/e3m2 = 6 packed; tf32 = 32).
unsigned elemBits(ElemType t);
/// Returns the lowercase PTX-style name of `t` ("bf16", "e4m3", ...).
const char *stringify(ElemType t);
/// Returns the PTX `.kind` name without the prefix ("f16", "mxf4nvf4", ...).
const char *stringify(MmaKind k);
/// Returns "none", "128b_base32b", "128b", "64b" or "32b"; "invalid" for a
/// code that is not a swizzle mode.
const char *stringify(Swizzle s);
/// Returns "k" or "mn".
const char *stringify(Major m);
/// Returns "ue4m3" or "ue8m0".
const char *stringify(ScaleType s);

//===----------------------------------------------------------------------===//
// Shared-memory descriptor (PTX Table 40)
//===----------------------------------------------------------------------===//

/// Bit positions of the 64-bit shared-memory descriptor (PTX Table 40).
namespace smem_desc_bits {
inline constexpr unsigned kStartAddr = 0;   // 14 bits, encode(addr)
inline constexpr unsigned kLBO = 16;        // 14 bits, encode(LBO)
inline constexpr unsigned kSBO = 32;        // 14 bits, encode(SBO)
inline constexpr unsigned kFixed001 = 46;   // 3 bits, must be 0b001 on SM100
inline constexpr unsigned kBaseOffset = 49; // 3 bits
inline constexpr unsigned kLBOMode = 52;    // 1 bit, 0 = relative
inline constexpr unsigned kSwizzle = 61;    // 3 bits

/// Width of each encoded address/offset field (start, LBO, SBO).
inline constexpr unsigned kAddrFieldWidth = 14;
/// Width of the fixed-constant field at kFixed001 and the value it must hold.
inline constexpr unsigned kFixed001Width = 3;
inline constexpr uint64_t kFixed001Value = 0b001;
/// Width of the base-offset field.
inline constexpr unsigned kBaseOffsetWidth = 3;
/// Bits 53-60: "fixed constant value of 0b00000000" (the PTX text's
/// "0xb00000000" is a typo for binary zero; CUTLASS and MLIR leave it zero).
inline constexpr unsigned kFixedZero = 53;
inline constexpr unsigned kFixedZeroWidth = 8;
/// Width of the swizzle-mode field.
inline constexpr unsigned kSwizzleWidth = 3;
/// Bits 14-15 and 30-31 are not listed in Table 40 and are kept zero.
inline constexpr unsigned kReservedLow = 14;
inline constexpr unsigned kReservedMid = 30;
inline constexpr unsigned kReservedWidth = 2;
} // namespace smem_desc_bits

/// The fields of a shared-memory descriptor, in bytes (not yet encoded).
struct SmemDescFields {
  uint32_t startAddress = 0; ///< shared-window byte address, 16 B aligned
  uint32_t lboBytes = 0;     ///< leading-dimension byte offset, 16 B aligned
  uint32_t sboBytes = 0;     ///< stride-dimension byte offset, 16 B aligned
  uint8_t baseOffset = 0;    ///< 3 bits
  bool lboAbsolute = false;  ///< bit 52 (sm_103a only)
  Swizzle swizzle = Swizzle::None;
};

/// Exclusive upper bound of a byte address or offset that
/// matrix-descriptor-encode can represent: (x & 0x3FFFF) keeps 18 bits.
inline constexpr uint32_t kSmemFieldLimit = 1u << 18;
/// Granularity of every byte address or offset in the descriptor.
inline constexpr uint32_t kSmemFieldAlign = 16;

/// encode(x) = (x & 0x3FFFF) >> 4 (PTX 9.7.16.4.1).
constexpr uint64_t encodeSmemField(uint32_t bytes) {
  return (uint64_t(bytes) & (kSmemFieldLimit - 1)) >> 4;
}

/// Packs `f` into the 64-bit descriptor. Returns std::nullopt and sets
/// `*error` (if non-null) when a field is out of range or misaligned.
std::optional<uint64_t> encodeSmemDesc(const SmemDescFields &f,
                                       std::string *error = nullptr);

/// The constant part of a descriptor: everything except the start address
/// (bits 0-13 zero). Lowering ORs `(addr >> 4) & 0x3FFF` into it at run time.
/// `f.startAddress` is ignored; every other field is checked as in
/// encodeSmemDesc.
std::optional<uint64_t> encodeSmemDescHigh(const SmemDescFields &f,
                                           std::string *error = nullptr);

/// Unpacks a 64-bit descriptor. Byte fields are decoded (<< 4).
/// Returns std::nullopt (and sets `*error`) when the fixed bits 46-48 are not
/// 0b001, bits 53-60 are not zero, the unlisted bits 14-15 / 30-31 are not
/// zero, or the swizzle code is 3, 5 or 7.
std::optional<SmemDescFields> decodeSmemDesc(uint64_t desc,
                                             std::string *error = nullptr);

/// The sm_90 matrix descriptor of wgmma.mma_async (PTX ISA, "Matrix
/// Descriptor Format" of the asynchronous warpgroup-level matrix
/// instructions): encode(start) in bits 0-13, encode(LBO) in 16-29,
/// encode(SBO) in 32-45, base offset 0, the layout type in bits 62-63 (0
/// none, 1 128-byte, 2 64-byte, 3 32-byte swizzle); no version bits.
/// std::nullopt for Swizzle::B128Base32B, which sm_90 lacks. With `start`
/// 0 it is the constant part the kernel ORs the address into.
inline std::optional<uint64_t> encodeGmmaDesc(uint32_t start, uint32_t lbo,
                                              uint32_t sbo, Swizzle swizzle) {
  uint64_t layout = 0;
  switch (swizzle) {
  case Swizzle::None:
    layout = 0;
    break;
  case Swizzle::B128:
    layout = 1;
    break;
  case Swizzle::B64:
    layout = 2;
    break;
  case Swizzle::B32:
    layout = 3;
    break;
  case Swizzle::B128Base32B:
    return std::nullopt;
  }
  return encodeSmemField(start) | encodeSmemField(lbo) << 16 |
         encodeSmemField(sbo) << 32 | layout << 62;
}

//===----------------------------------------------------------------------===//
// Canonical shared-memory layouts (PTX 9.7.16.3.3)
//===----------------------------------------------------------------------===//

/// A tile of `mn` x `k` elements stored in shared memory in one of the
/// canonical UMMA layouts. Tiling convention (the same as CUTLASS's
/// tile_to_shape of its swizzle atoms): a swizzle atom is 8 rows of
/// `swizzleBytes` (K-major: rows along MN, swizzle width along K; MN-major:
/// rows along K, swizzle width along MN); atoms are laid out MN-first, then K.
/// For Swizzle::None the atom is a core matrix of 8 rows x 16 bytes, core
/// matrices again MN-first, then K. Swizzle::B128Base32B exists only for
/// MN-major 32-bit (tf32) operands; its atom is 128 bytes along MN by 4 rows
/// along K (PTX Table 55, "8x4" in 128-bit elements).
///
/// The layouts are dense: the tile occupies exactly mn * k * bits / 8 bytes.
struct SmemLayout {
  Major major = Major::K;
  Swizzle swizzle = Swizzle::B128;
  ElemType elem = ElemType::BF16;
  uint32_t mn = 0; ///< rows (M for A, N for B)
  uint32_t k = 0;  ///< reduction extent, in elements
  /// Bits each element occupies in shared memory; 0 means elemBits(elem).
  /// kind::f8f6f4 and kind::mxf8f6f4 store 4- and 6-bit operands padded to
  /// 8 bits (PTX 9.7.16.10.4.4): pass smemElemBits(elem, kind) here.
  uint8_t storageBits = 0;
  /// MN-major swizzled tiles only: atoms laid out K-first, then MN (each
  /// column of atoms one swizzle width along MN and all of K), which is what
  /// a TMA box of one swizzle width along MN produces: LBO = k / 8 x
  /// atomBytes (the MN-atom stride), SBO = atomBytes (the 8-row K-group
  /// stride) instead of the MN-first tiling's LBO = atomBytes, SBO = mn /
  /// swizzle width x atomBytes. The canonical layout takes both strides as
  /// parameters (PTX 9.7.16.3.3), so both tilings are valid descriptors.
  bool kFirst = false;
};

/// Bits one element of `t` occupies in shared memory as an operand of
/// `kind`: 8 for e2m1/e2m3/e3m2 under kind::f8f6f4 and kind::mxf8f6f4 (the
/// padded formats of PTX 9.7.16.10.4.4), elemBits(t) otherwise (kind::mxf4
/// and kind::mxf4nvf4 pack two e2m1 per byte, PTX 9.7.16.10.4.6).
unsigned smemElemBits(ElemType t, MmaKind kind);

/// Width in bytes of the swizzle pattern (128, 64, 32, or 16 for None;
/// 128 for B128Base32B).
unsigned swizzleBytes(Swizzle s);
/// Alignment in bytes the tile's base must have (1024/512/256 for
/// SW128/SW64/SW32, 16 for None) so that the base offset is 0 (PTX Table 41).
/// B128Base32B is not in Table 41; it gets the 128-byte modes' 1024.
unsigned swizzleAlignment(Swizzle s);
/// Rows (8-row groups for K-major, K rows for MN-major) in one swizzle atom:
/// 4 for MN-major B128Base32B, 8 otherwise (PTX Table 55).
unsigned swizzleAtomRows(Swizzle s, Major major);

/// LBO/SBO in bytes for `layout`, with the meaning PTX gives them for its
/// major-ness and swizzle (LBO = 16 for swizzled K-major, where it is unused).
/// With the MN-first tiling above (see UMMADescriptors.cpp for the
/// derivation from the PTX canonical layouts):
///
///   K-major,  None:     SBO = 128,                  LBO = (mn / 8) * 128
///   K-major,  swizzled: SBO = 8 * swizzleBytes,     LBO = 16 (unused)
///   MN-major, None:     SBO = 128,                  LBO = mnBytes / 16 * 128
///   MN-major, swizzled: SBO = mnBytes / swizzleBytes * atomBytes,
///                       LBO = atomBytes (= rows * swizzleBytes)
///   MN-major, swizzled, kFirst: SBO = atomBytes,
///                       LBO = k / rows * atomBytes
struct CanonicalStrides {
  uint32_t lboBytes = 0;
  uint32_t sboBytes = 0;
};

/// Checks `layout` (extents are multiples of the atom, MN-major swizzled
/// needs mn*elemBits/8 to be a multiple of the swizzle width, etc.) and
/// derives its strides. On failure returns std::nullopt and sets `*error`
/// to a lowercase message naming what was expected and what was found.
std::optional<CanonicalStrides>
deriveCanonicalStrides(const SmemLayout &layout, std::string *error = nullptr);

/// Size in bytes of the whole tile described by `layout`.
uint64_t tileBytes(const SmemLayout &layout);

/// The byte offset, from the tile base, at which the descriptor for the
/// `kStep`-th K slice of width `kPerMma` elements starts (the K-advance that
/// DeepGEMM/CUTLASS apply to the start-address field). Precondition:
/// deriveCanonicalStrides(layout) succeeds and kStep*kPerMma < layout.k.
uint32_t kSliceOffsetBytes(const SmemLayout &layout, uint32_t kPerMma,
                           uint32_t kStep);

/// The full descriptor fields for the K slice `kStep` of a tile at
/// `tileBaseAddress` (shared-window byte address). The base must be aligned
/// to swizzleAlignment(layout.swizzle) (the base offset is then 0), the
/// slice must lie inside the tile and must not straddle a swizzle atom.
std::optional<SmemDescFields> makeSmemDescFields(const SmemLayout &layout,
                                                 uint32_t tileBaseAddress,
                                                 uint32_t kPerMma,
                                                 uint32_t kStep,
                                                 std::string *error = nullptr);

//===----------------------------------------------------------------------===//
// Instruction descriptor (PTX Tables 42-44)
//===----------------------------------------------------------------------===//

/// Bit positions and widths of the 32-bit instruction descriptor for the
/// dense kinds tf32, f16, f8f6f4 and i8 (PTX ISA 9.1, Table 42). Bits 6, 23
/// and 29 are reserved (zero).
namespace idesc_bits {
inline constexpr unsigned kSparsitySelector = 0; // 2 bits, sparse only
inline constexpr unsigned kSparsitySelectorWidth = 2;
inline constexpr unsigned kSparse = 2;   // 1 bit, 0 = dense
inline constexpr unsigned kSaturate = 3; // 1 bit, i8 only
inline constexpr unsigned kDFormat = 4;  // 2 bits
inline constexpr unsigned kDFormatWidth = 2;
inline constexpr unsigned kReserved6 = 6;
inline constexpr unsigned kAFormat = 7;  // 3 bits
inline constexpr unsigned kBFormat = 10; // 3 bits
inline constexpr unsigned kFormatWidth = 3;
inline constexpr unsigned kNegateA = 13;
inline constexpr unsigned kNegateB = 14;
inline constexpr unsigned kTransposeA = 15; // 1 = MN-major A
inline constexpr unsigned kTransposeB = 16; // 1 = MN-major B
inline constexpr unsigned kN = 17;          // 6 bits, N >> 3
inline constexpr unsigned kNWidth = 6;
inline constexpr unsigned kNShift = 3;
inline constexpr unsigned kReserved23 = 23;
inline constexpr unsigned kM = 24; // 5 bits, M >> 4
inline constexpr unsigned kMWidth = 5;
inline constexpr unsigned kMShift = 4;
inline constexpr unsigned kReserved29 = 29;
inline constexpr unsigned kMaxShift = 30; // 2 bits, .ws only
inline constexpr unsigned kMaxShiftWidth = 2;
} // namespace idesc_bits

/// Bit positions and widths of the instruction descriptor for the
/// block-scaled kinds: mxf8f6f4 (PTX Table 43), mxf4 and mxf4nvf4 (PTX
/// Table 44). Bits 0-1, 3, 6 and 24-26 are reserved; sparse, A/B format,
/// negate, transpose and N sit where Table 42 puts them (idesc_bits).
namespace idesc_bs_bits {
inline constexpr unsigned kBScaleId = 4; // 2 bits
inline constexpr unsigned kScaleIdWidth = 2;
/// mxf4/mxf4nvf4 B format is 2 bits (10-11); bit 12 is reserved.
inline constexpr unsigned kMxf4BFormatWidth = 2;
inline constexpr unsigned kMxf4Reserved12 = 12;
inline constexpr unsigned kScaleType = 23;  // 1 bit, ScaleType
inline constexpr unsigned kReserved24 = 24; // 3 bits
inline constexpr unsigned kReserved24Width = 3;
inline constexpr unsigned kM = 27; // 2 bits, M >> 7
inline constexpr unsigned kMWidth = 2;
inline constexpr unsigned kMShift = 7;
inline constexpr unsigned kAScaleId = 29; // 2 bits
/// mxf4/mxf4nvf4: 0 = dense K 64 (sparse 128), 1 = dense K 96 (sm_103a).
/// Reserved for mxf8f6f4. Always 0 here.
inline constexpr unsigned kK96 = 31;
} // namespace idesc_bs_bits

/// Format codes of the instruction descriptor (PTX Tables 42-44).
namespace idesc_codes {
// D format, Table 42 bits 4-5.
inline constexpr unsigned kDF16 = 0;
inline constexpr unsigned kDF32 = 1;
inline constexpr unsigned kDS32 = 2;
// A/B format, kind::f16 and kind::tf32.
inline constexpr unsigned kF16 = 0;
inline constexpr unsigned kBF16 = 1;
inline constexpr unsigned kTF32 = 2;
// A/B format, kind::f8f6f4 and kind::mxf8f6f4.
inline constexpr unsigned kE4M3 = 0;
inline constexpr unsigned kE5M2 = 1;
inline constexpr unsigned kE2M3 = 3;
inline constexpr unsigned kE3M2 = 4;
inline constexpr unsigned kE2M1 = 5;
// A/B format, kind::i8.
inline constexpr unsigned kU8 = 0;
inline constexpr unsigned kS8 = 1;
// A/B format, kind::mxf4 and kind::mxf4nvf4.
inline constexpr unsigned kMxf4E2M1 = 1;
} // namespace idesc_codes

/// Inputs of a dense or block-scaled instruction descriptor.
struct InstrDescFields {
  MmaKind kind = MmaKind::F16;
  ElemType a = ElemType::BF16;
  ElemType b = ElemType::BF16;
  ElemType d = ElemType::F32; ///< ignored for block-scaled kinds (always f32)
  uint32_t m = 128;
  uint32_t n = 256;
  Major aMajor = Major::K;
  Major bMajor = Major::K;
  bool negateA = false;
  bool negateB = false;
  bool saturate = false; ///< i8 only
  uint8_t maxShift = 0;  ///< .ws only: 0 none, 1 = 8, 2 = 16, 3 = 32
  unsigned ctaGroup = 1; ///< 1 or 2
  bool weightStationary = false;
  // Block-scaled kinds only.
  ScaleType scaleType = ScaleType::UE8M0;
  /// Elements sharing one scale: 0 = default for the kind (32 for mxf8f6f4
  /// and mxf4, 16 for mxf4nvf4); else 16 (.block16 / scale_vec::4X) or 32
  /// (.block32 / scale_vec::1X or 2X). Not encoded in the descriptor.
  uint8_t scaleVecSize = 0;
  uint8_t aScaleId = 0; ///< bits 29-30
  uint8_t bScaleId = 0; ///< bits 4-5
};

/// The scale vector size `f` resolves to (16 or 32), applying the kind's
/// default when f.scaleVecSize is 0; 0 for dense kinds.
unsigned effectiveScaleVecSize(const InstrDescFields &f);

/// The K extent (elements) of one MMA of `kind` with `a` (dense): 16 for
/// f16, 8 for tf32, 32 for f8f6f4/i8/mxf8f6f4, 64 for mxf4/mxf4nvf4.
unsigned mmaK(MmaKind kind);
/// True for the block-scaled kinds.
bool isBlockScaled(MmaKind kind);

/// Checks kind/type compatibility, M/N legality for the kind and cta_group
/// (PTX Table 39 and 9.7.16.10.1), major-ness restrictions (mxf4 and
/// mxf4nvf4 are K-major only) and scale settings. On failure returns a
/// lowercase message naming the constraint, the expected and the found value.
///
/// Rules (PTX ISA 9.1):
///  - Table 39: M/N per kind, cta_group and .ws; .ws only with cta_group::1
///    and not for block-scaled kinds; kind::i8 has its own N steps.
///  - Table 42: D type per kind; saturate only for i8; max_shift only .ws.
///  - Table 51: no negate for i8; no transpose for mxf4/mxf4nvf4.
///  - Table 52: an MN-major 8-bit B needs N % 16 (cta_group::1) or N % 32
///    (cta_group::2).
///  - Tables 43, 44, 57: scale type, scale vector size and scale-factor ids.
std::optional<std::string> verifyInstrDesc(const InstrDescFields &f);

/// Encodes the 32-bit instruction descriptor. Returns std::nullopt and sets
/// `*error` when verifyInstrDesc fails.
std::optional<uint32_t> encodeInstrDesc(const InstrDescFields &f,
                                        std::string *error = nullptr);

/// Decodes a dense (bit 2 clear) instruction descriptor of `kind`; the kind
/// is not part of the bits. Rejects set reserved bits, unknown format codes
/// and sparse descriptors, then runs verifyInstrDesc. Fields the bits do not
/// hold are inferred as the least restrictive consistent choice:
/// ctaGroup = 2 only for M = 256, weightStationary when M = 32 or a max shift
/// is set, d = f32 for block-scaled kinds, and scaleVecSize = 0 (the kind's
/// default) except 32 for mxf4nvf4 with a non-zero scale-factor id.
std::optional<InstrDescFields> decodeInstrDesc(uint32_t idesc, MmaKind kind,
                                               std::string *error = nullptr);

//===----------------------------------------------------------------------===//
// Zero-column mask descriptor (PTX 9.7.16.4.3, Table 45)
//===----------------------------------------------------------------------===//

/// Bit positions of the 64-bit zero-column mask descriptor, the optional
/// last operand of tcgen05.mma.ws. Bits 36-38 are reserved; bits 62-63 are
/// not listed and are kept zero.
namespace zcm_bits {
inline constexpr unsigned kStartCount = 0; // 4 x 8 bits, sc0..sc3
inline constexpr unsigned kFirstSpan = 32; // 4 x 1 bit, fs0..fs3
inline constexpr unsigned kReserved36 = 36;
inline constexpr unsigned kReserved36Width = 3;
inline constexpr unsigned kNonZero = 39;
inline constexpr unsigned kSkipSpan = 40;    // 8 bits
inline constexpr unsigned kUseSpan = 48;     // 8 bits
inline constexpr unsigned kColumnShift = 56; // 6 bits
inline constexpr unsigned kColumnShiftWidth = 6;
inline constexpr unsigned kUnlisted62 = 62;
} // namespace zcm_bits

/// The fields of a zero-column mask descriptor.
struct ZeroColumnMaskFields {
  uint8_t startCount[4] = {}; ///< sc_i: leading bits of sub-mask i skipped
  bool firstSpan[4] = {};     ///< fs_i: the value of sub-mask i's first run
  bool nonZero = false;       ///< false: the mask is all zeros
  uint8_t skipSpan = 0;       ///< run length of 1-bits (zeroed columns) - 1
  uint8_t useSpan = 0;        ///< run length of 0-bits (used columns) - 1
  uint8_t columnShift = 0;    ///< B columns used start at this column
};

/// Unpacks a zero-column mask descriptor. Returns std::nullopt (and sets
/// `*error`) when the reserved bits 36-38 or the unlisted bits 62-63 are set.
std::optional<ZeroColumnMaskFields>
decodeZeroColumnMask(uint64_t desc, std::string *error = nullptr);

/// The N-bit mask that `f` generates for an M x N tcgen05.mma.ws (M = 32,
/// 64 or 128, N <= 256): bit n (of word n / 64) set means column n of B is
/// replaced by zeros. The mask is made of 128 / M sub-masks, sub-mask i
/// covering columns [i N M / 128, (i + 1) N M / 128). Bit j of sub-mask i is
/// element j + sc_i of the periodic pattern that starts with a run of fs_i
/// (runs of 1-bits are skipSpan + 1 long, runs of 0-bits useSpan + 1 long),
/// as the four examples of the PTX ISA section show; the table's prose has
/// the two span lengths the other way round, the examples and the field
/// names agree with this reading.
void zeroColumnMask(const ZeroColumnMaskFields &f, uint32_t m, uint32_t n,
                    uint64_t (&mask)[4]);

} // namespace nvfp4::umma

#endif // NVFP4_SUPPORT_UMMADESCRIPTORS_H
