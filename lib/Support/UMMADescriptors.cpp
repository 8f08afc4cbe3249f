//===- UMMADescriptors.cpp - SM100 UMMA descriptor encoders ---------------===//
//
// Encoders, decoders and verifiers for the tcgen05.mma shared-memory
// descriptor (PTX Table 40) and instruction descriptor (PTX Tables 42-44),
// and the canonical shared-memory layouts (PTX 9.7.16.3.3) they describe.
// Every bit position comes from the constants in UMMADescriptors.h.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Support/UMMADescriptors.h"

#include <cstdio>

using namespace nvfp4;
using namespace nvfp4::umma;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

constexpr uint64_t mask(unsigned width) { return (uint64_t(1) << width) - 1; }

/// Writes `value` (which must fit) into `width` bits at `pos`.
template <typename Word>
void setField(Word &word, unsigned pos, unsigned width, uint64_t value) {
  word |= static_cast<Word>((value & mask(width)) << pos);
}

template <typename Word>
uint64_t getField(Word word, unsigned pos, unsigned width) {
  return (uint64_t(word) >> pos) & mask(width);
}

/// Stores `message` in `*error` (when given) and returns std::nullopt.
template <typename T>
std::optional<T> fail(std::string *error, std::string message) {
  if (error)
    *error = std::move(message);
  return std::nullopt;
}

std::string hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%llx",
                static_cast<unsigned long long>(value));
  return buffer;
}

std::string str(uint64_t value) { return std::to_string(value); }

/// "bits P-Q" (or "bit P") for a field of `width` bits at `pos`.
std::string bitRange(unsigned pos, unsigned width) {
  if (width == 1)
    return "bit " + str(pos);
  return "bits " + str(pos) + "-" + str(pos + width - 1);
}

/// Bits of a byte address that matrix-descriptor-encode keeps (4 dropped).
constexpr unsigned kSmemFieldBits = smem_desc_bits::kAddrFieldWidth + 4;

std::string kindName(MmaKind kind) {
  return std::string("kind::") + stringify(kind);
}

std::string ctaGroupName(unsigned ctaGroup) {
  return "cta_group::" + str(ctaGroup);
}

/// `value` as a `width`-digit binary literal, e.g. "0b001".
std::string bin(uint64_t value, unsigned width) {
  std::string s = "0b";
  for (unsigned i = width; i-- > 0;)
    s += ((value >> i) & 1) ? '1' : '0';
  return s;
}

/// PTX Table 40: codes 0, 1, 2, 4 and 6; "3, 5 and 7 are invalid".
bool isValidSwizzleCode(uint64_t code) {
  if (code > mask(smem_desc_bits::kSwizzleWidth))
    return false;
  switch (static_cast<Swizzle>(code)) {
  case Swizzle::None:
  case Swizzle::B128Base32B:
  case Swizzle::B128:
  case Swizzle::B64:
  case Swizzle::B32:
    return true;
  }
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

unsigned umma::elemBits(ElemType t) {
  switch (t) {
  case ElemType::F16:
  case ElemType::BF16:
    return 16;
  case ElemType::TF32:
  case ElemType::F32:
  case ElemType::S32:
    return 32;
  case ElemType::S8:
  case ElemType::U8:
  case ElemType::E4M3:
  case ElemType::E5M2:
    return 8;
  case ElemType::E2M3:
  case ElemType::E3M2:
    return 6;
  case ElemType::E2M1:
    return 4;
  }
  return 0;
}

const char *umma::stringify(ElemType t) {
  switch (t) {
  case ElemType::F16:
    return "f16";
  case ElemType::BF16:
    return "bf16";
  case ElemType::TF32:
    return "tf32";
  case ElemType::F32:
    return "f32";
  case ElemType::S32:
    return "s32";
  case ElemType::S8:
    return "s8";
  case ElemType::U8:
    return "u8";
  case ElemType::E4M3:
    return "e4m3";
  case ElemType::E5M2:
    return "e5m2";
  case ElemType::E2M3:
    return "e2m3";
  case ElemType::E3M2:
    return "e3m2";
  case ElemType::E2M1:
    return "e2m1";
  }
  return "invalid";
}

const char *umma::stringify(MmaKind k) {
  switch (k) {
  case MmaKind::F16:
    return "f16";
  case MmaKind::TF32:
    return "tf32";
  case MmaKind::F8F6F4:
    return "f8f6f4";
  case MmaKind::I8:
    return "i8";
  case MmaKind::MXF8F6F4:
    return "mxf8f6f4";
  case MmaKind::MXF4:
    return "mxf4";
  case MmaKind::MXF4NVF4:
    return "mxf4nvf4";
  }
  return "invalid";
}

const char *umma::stringify(Swizzle s) {
  switch (s) {
  case Swizzle::None:
    return "none";
  case Swizzle::B128Base32B:
    return "128b_base32b";
  case Swizzle::B128:
    return "128b";
  case Swizzle::B64:
    return "64b";
  case Swizzle::B32:
    return "32b";
  }
  return "invalid";
}

const char *umma::stringify(Major m) { return m == Major::K ? "k" : "mn"; }

const char *umma::stringify(ScaleType s) {
  return s == ScaleType::UE4M3 ? "ue4m3" : "ue8m0";
}

//===----------------------------------------------------------------------===//
// Shared-memory descriptor (PTX Table 40)
//===----------------------------------------------------------------------===//

namespace {

/// Checks that a byte address/offset can be encoded: 16-byte aligned and
/// below 2^18 (matrix-descriptor-encode keeps bits 4-17).
std::optional<std::string> checkSmemField(const char *what, uint32_t bytes,
                                          bool asAddress) {
  auto show = [&](uint64_t v) { return asAddress ? hex(v) : str(v); };
  if (bytes % kSmemFieldAlign != 0)
    return std::string("expected ") + what + " to be " + str(kSmemFieldAlign) +
           "-byte aligned, got " + show(bytes);
  if (bytes >= kSmemFieldLimit)
    return std::string("expected ") + what + " below " + show(kSmemFieldLimit) +
           " (" + str(kSmemFieldBits) + " bits), got " + show(bytes);
  return std::nullopt;
}

/// Shared by encodeSmemDesc and encodeSmemDescHigh.
std::optional<uint64_t> encodeSmemDescImpl(const SmemDescFields &f,
                                           bool withStart, std::string *error) {
  using namespace smem_desc_bits;
  if (withStart)
    if (auto msg = checkSmemField("start address", f.startAddress, true))
      return fail<uint64_t>(error, *msg);
  if (auto msg = checkSmemField("leading byte offset (LBO)", f.lboBytes,
                                /*asAddress=*/f.lboAbsolute))
    return fail<uint64_t>(error, *msg);
  if (auto msg = checkSmemField("stride byte offset (SBO)", f.sboBytes, false))
    return fail<uint64_t>(error, *msg);
  if (f.baseOffset > mask(kBaseOffsetWidth))
    return fail<uint64_t>(error, "expected base offset in [0, " +
                                     str(mask(kBaseOffsetWidth)) + "], got " +
                                     str(f.baseOffset));
  if (!isValidSwizzleCode(static_cast<uint64_t>(f.swizzle)))
    return fail<uint64_t>(error,
                          "expected swizzle code in {0, 1, 2, 4, 6}, got " +
                              str(static_cast<uint64_t>(f.swizzle)));

  uint64_t desc = 0;
  if (withStart)
    setField(desc, kStartAddr, kAddrFieldWidth,
             encodeSmemField(f.startAddress));
  setField(desc, kLBO, kAddrFieldWidth, encodeSmemField(f.lboBytes));
  setField(desc, kSBO, kAddrFieldWidth, encodeSmemField(f.sboBytes));
  setField(desc, kFixed001, kFixed001Width, kFixed001Value);
  setField(desc, kBaseOffset, kBaseOffsetWidth, f.baseOffset);
  setField(desc, kLBOMode, 1, f.lboAbsolute ? 1 : 0);
  setField(desc, kSwizzle, kSwizzleWidth, static_cast<uint64_t>(f.swizzle));
  return desc;
}

} // namespace

std::optional<uint64_t> umma::encodeSmemDesc(const SmemDescFields &f,
                                             std::string *error) {
  return encodeSmemDescImpl(f, /*withStart=*/true, error);
}

std::optional<uint64_t> umma::encodeSmemDescHigh(const SmemDescFields &f,
                                                 std::string *error) {
  return encodeSmemDescImpl(f, /*withStart=*/false, error);
}

std::optional<SmemDescFields> umma::decodeSmemDesc(uint64_t desc,
                                                   std::string *error) {
  using namespace smem_desc_bits;
  uint64_t fixed = getField(desc, kFixed001, kFixed001Width);
  if (fixed != kFixed001Value)
    return fail<SmemDescFields>(
        error, "expected " + bitRange(kFixed001, kFixed001Width) +
                   " of the shared memory descriptor to be " +
                   bin(kFixed001Value, kFixed001Width) + ", got " +
                   bin(fixed, kFixed001Width));
  if (uint64_t zero = getField(desc, kFixedZero, kFixedZeroWidth))
    return fail<SmemDescFields>(
        error, "expected " + bitRange(kFixedZero, kFixedZeroWidth) +
                   " of the shared memory descriptor to be zero, got " +
                   hex(zero));
  if (getField(desc, kReservedLow, kReservedWidth) ||
      getField(desc, kReservedMid, kReservedWidth))
    return fail<SmemDescFields>(
        error, "expected " + bitRange(kReservedLow, kReservedWidth) + " and " +
                   bitRange(kReservedMid, kReservedWidth) +
                   " of the shared memory descriptor to be zero, got " +
                   hex(desc));
  uint64_t swizzle = getField(desc, kSwizzle, kSwizzleWidth);
  if (!isValidSwizzleCode(swizzle))
    return fail<SmemDescFields>(
        error, "expected swizzle code in {0, 1, 2, 4, 6}, got " + str(swizzle));

  SmemDescFields f;
  f.startAddress =
      static_cast<uint32_t>(getField(desc, kStartAddr, kAddrFieldWidth) << 4);
  f.lboBytes =
      static_cast<uint32_t>(getField(desc, kLBO, kAddrFieldWidth) << 4);
  f.sboBytes =
      static_cast<uint32_t>(getField(desc, kSBO, kAddrFieldWidth) << 4);
  f.baseOffset =
      static_cast<uint8_t>(getField(desc, kBaseOffset, kBaseOffsetWidth));
  f.lboAbsolute = getField(desc, kLBOMode, 1) != 0;
  f.swizzle = static_cast<Swizzle>(swizzle);
  return f;
}

//===----------------------------------------------------------------------===//
// Canonical layouts (PTX 9.7.16.3.3)
//===----------------------------------------------------------------------===//
//
// In units of 16 bytes (T elements, T = 128 / bits), PTX gives
//
//   K-major,  none:     ((8,m),(T,2k)):((1T,SBO),(1,LBO))
//   K-major,  swizzled: ((8,m),(T,2k)):((wT,SBO),(1,T))
//   MN-major, none:     ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
//   MN-major, swizzled: ((T,w,m),(8,k)):((1,T,LBO),(wT,SBO))
//
// with w = swizzle width / 16. Our tiles place atoms MN-first, then K.
//
// K-major, none. The atom is a core matrix: 8 rows of 16 bytes, rows 16 B
// apart (the "1T" stride), 128 B in all. The (8,m) mode walks MN: the next
// 8-row group is the next core matrix, so SBO = 128 B. The (T,2k) mode walks
// K: the next 16 bytes of K are in the core matrix after the whole MN column
// of mn/8 core matrices, so LBO = (mn / 8) * 128 B. (PTX's tf32 example,
// ((8,2),(4,4)):((4,32),(1,64)) in elements, is this with mn = 16: SBO =
// 32 * 4 B = 128 B, LBO = 64 * 4 B = 256 B.)
//
// K-major, swizzled. The atom is 8 rows of w*16 bytes (a row is one
// swizzle-width of K); the (8,m) mode's inner stride wT is that row. Atoms
// stacked along MN are 8 * swizzleBytes apart, so SBO = 8 * swizzleBytes
// (1024 B for SW128). K never leaves the row inside one MMA, so LBO is unused
// ("assumed to be 1"): we write 16 B (encoded 1) as CUTLASS does. A tile
// wider than one swizzle row in K holds several atom columns; the next one
// starts after the MN stack, (mn / 8) * 8 * swizzleBytes = mn * swizzleBytes.
//
// MN-major, none. The atom is again a 128-byte core matrix, but its 16-byte
// rows run along MN (T elements) and its 8 rows are 8 K values (the "1T"
// stride of the (8,k) mode). The (T,1,m) mode's outer stride walks MN from
// core matrix to core matrix: with MN-first tiling the next one is adjacent,
// SBO = 128 B. The (8,k) mode's outer stride jumps 8 K rows, past the whole
// MN column of mnBytes / 16 core matrices: LBO = mnBytes / 16 * 128 B. (PTX's
// bf16 example ((8,1,2),(8,2)):((1,8,64),(8,128)) has mnBytes = 32: SBO =
// 64 * 2 B = 128 B, LBO = 128 * 2 B = 256 B.)
//
// MN-major, swizzled. The atom is swizzleBytes along MN (the (T,w) modes) by
// 8 rows along K (stride wT = one swizzle row), atomBytes = 8 * swizzleBytes.
// The (T,w,m) mode's outer stride goes to the next atom along MN, which with
// MN-first tiling is adjacent: LBO = atomBytes. The (8,k) mode's outer stride
// goes to the next 8 K rows, past all mnBytes / swizzleBytes atoms of the MN
// column: SBO = mnBytes / swizzleBytes * atomBytes = 8 * mnBytes. (PTX's
// bf16 SW32 example ((8,2,2),(8,2)):((1,8,128),(16,256)) has mnBytes = 64:
// LBO = 128 * 2 B = 256 B, SBO = 256 * 2 B = 512 B.) DeepGEMM tiles its
// MN-major SW128 operands K-first, which swaps the roles: its SBO = 1024 B
// is our atom stride and its LBO = BLOCK_K * 128 B our MN stride.
//
// MN-major B128Base32B (PTX Table 55 "8x4"; CUTLASS Layout_MN_SW128_32B_Atom
// and make_umma_desc's ((8,n),(4,k)):((1,LBO),(.,SBO)) in 16-byte units):
// as MN-major swizzled, but an atom has 4 K rows, so atomBytes = 4 * 128 B
// and SBO is the stride between groups of 4 K rows.

unsigned umma::smemElemBits(ElemType t, MmaKind kind) {
  unsigned bits = elemBits(t);
  if ((kind == MmaKind::F8F6F4 || kind == MmaKind::MXF8F6F4) && bits < 8)
    return 8;
  return bits;
}

unsigned umma::swizzleBytes(Swizzle s) {
  switch (s) {
  case Swizzle::None:
    return 16;
  case Swizzle::B32:
    return 32;
  case Swizzle::B64:
    return 64;
  case Swizzle::B128:
  case Swizzle::B128Base32B:
    return 128;
  }
  return 0;
}

unsigned umma::swizzleAlignment(Swizzle s) {
  // PTX Table 41: the repeating pattern starts on 8 rows of the swizzle
  // width. A core matrix only needs the 16-byte field alignment.
  if (s == Swizzle::None)
    return kSmemFieldAlign;
  return 8 * swizzleBytes(s);
}

unsigned umma::swizzleAtomRows(Swizzle s, Major major) {
  return (s == Swizzle::B128Base32B && major == Major::MN) ? 4 : 8;
}

namespace {

/// Bits per element of `layout` in shared memory.
unsigned storageBitsOf(const SmemLayout &layout) {
  return layout.storageBits ? layout.storageBits : elemBits(layout.elem);
}

/// A human-readable description of the layout for error messages, with its
/// article, e.g. "a k-major 128b-swizzled bf16 tile".
std::string describe(const SmemLayout &layout) {
  std::string s = layout.major == Major::K ? "a k-major " : "an mn-major ";
  if (layout.swizzle == Swizzle::None)
    s += "unswizzled ";
  else
    s += std::string(stringify(layout.swizzle)) + "-swizzled ";
  return s + stringify(layout.elem) + " tile";
}

/// Validity of the element width, swizzle and extents; strides not checked.
std::optional<std::string> checkLayoutShape(const SmemLayout &layout) {
  if (!isValidSwizzleCode(static_cast<uint64_t>(layout.swizzle)))
    return "expected swizzle code in {0, 1, 2, 4, 6}, got " +
           str(static_cast<uint64_t>(layout.swizzle));
  unsigned bits = storageBitsOf(layout);
  if (bits != 4 && bits != 8 && bits != 16 && bits != 32)
    return "expected a shared memory element width of 4, 8, 16 or 32 bits, "
           "got " +
           str(bits) + " for " + stringify(layout.elem) +
           " (6-bit operands are stored padded to 8 bits; set storageBits)";
  if (bits < elemBits(layout.elem))
    return "expected storageBits of at least " + str(elemBits(layout.elem)) +
           " for " + stringify(layout.elem) + ", got " + str(bits);
  if (layout.mn == 0 || layout.k == 0)
    return "expected a non-empty tile, got " + str(layout.mn) + " x " +
           str(layout.k);

  // PTX Table 55: 128B swizzling with 32B atomicity has only an M/N-leading
  // atom (CUTLASS: "SWIZZLE_128B_BASE32B is invalid for Major-K"). PTX
  // 9.7.16.10.1 and Table 54: transposed (MN-major) 32-bit operands need it,
  // and no other element width may use it.
  if (layout.swizzle == Swizzle::B128Base32B && layout.major == Major::K)
    return "expected an mn-major layout for swizzle 128b_base32b, got "
           "k-major";
  if (layout.swizzle == Swizzle::B128Base32B && bits != 32)
    return "expected 32-bit (tf32) elements for swizzle 128b_base32b, got " +
           str(bits) + "-bit " + stringify(layout.elem);
  if (layout.major == Major::MN && bits == 32 &&
      layout.swizzle != Swizzle::B128Base32B)
    return "expected swizzle 128b_base32b for an mn-major 32-bit tile, got " +
           std::string(stringify(layout.swizzle));

  const uint64_t sw = swizzleBytes(layout.swizzle);
  if (layout.kFirst &&
      (layout.major != Major::MN || layout.swizzle == Swizzle::None))
    return "expected an mn-major swizzled layout for the k-first atom "
           "order, got " +
           describe(layout);
  if (layout.major == Major::K) {
    if (layout.mn % 8 != 0)
      return "expected the mn extent of " + describe(layout) +
             " to be a multiple of 8 rows, got " + str(layout.mn);
    uint64_t kBits = uint64_t(layout.k) * bits;
    if (kBits % (8 * sw) != 0)
      return "expected the k extent of " + describe(layout) +
             " to be a multiple of " + str(sw) + " bytes (" +
             str(8 * sw / bits) + " elements), got " + str(layout.k) +
             " elements";
  } else {
    uint64_t mnBits = uint64_t(layout.mn) * bits;
    if (mnBits % (8 * sw) != 0)
      return "expected the mn extent of " + describe(layout) +
             " to be a multiple of " + str(sw) + " bytes (" +
             str(8 * sw / bits) + " elements), got " + str(layout.mn) +
             " elements";
    unsigned rows = swizzleAtomRows(layout.swizzle, layout.major);
    if (layout.k % rows != 0)
      return "expected the k extent of " + describe(layout) +
             " to be a multiple of " + str(rows) + " rows, got " +
             str(layout.k);
  }
  return std::nullopt;
}

/// Strides of a layout that passed checkLayoutShape (see the derivation
/// above), in bytes and not yet range-checked.
CanonicalStrides computeStrides(const SmemLayout &layout) {
  const uint64_t sw = swizzleBytes(layout.swizzle);
  const unsigned bits = storageBitsOf(layout);
  constexpr uint64_t coreMatrixBytes = 8 * 16;
  CanonicalStrides s;
  if (layout.major == Major::K) {
    if (layout.swizzle == Swizzle::None) {
      s.sboBytes = coreMatrixBytes;
      s.lboBytes = static_cast<uint32_t>(layout.mn / 8 * coreMatrixBytes);
    } else {
      s.sboBytes = static_cast<uint32_t>(8 * sw);
      s.lboBytes = kSmemFieldAlign; // unused; encoded 1 like CUTLASS
    }
    return s;
  }
  const uint64_t mnBytes = uint64_t(layout.mn) * bits / 8;
  if (layout.swizzle == Swizzle::None) {
    s.sboBytes = coreMatrixBytes;
    s.lboBytes = static_cast<uint32_t>(mnBytes / 16 * coreMatrixBytes);
  } else {
    const uint64_t rows = swizzleAtomRows(layout.swizzle, layout.major);
    const uint64_t atomBytes = rows * sw;
    if (layout.kFirst) {
      s.lboBytes = static_cast<uint32_t>(layout.k / rows * atomBytes);
      s.sboBytes = static_cast<uint32_t>(atomBytes);
    } else {
      s.lboBytes = static_cast<uint32_t>(atomBytes);
      s.sboBytes = static_cast<uint32_t>(mnBytes / sw * atomBytes);
    }
  }
  return s;
}

/// Checks the K slice (kStep, kPerMma) against a valid layout.
std::optional<std::string> checkKSlice(const SmemLayout &layout,
                                       uint32_t kPerMma, uint32_t kStep) {
  if (kPerMma == 0)
    return std::string("expected a non-zero k slice width, got 0");
  if ((uint64_t(kStep) + 1) * kPerMma > layout.k)
    return "expected k slice " + str(kStep) + " of " + str(kPerMma) +
           " elements to lie within the tile's k extent of " + str(layout.k) +
           ", got elements [" + str(uint64_t(kStep) * kPerMma) + ", " +
           str((uint64_t(kStep) + 1) * kPerMma) + ")";
  const unsigned bits = storageBitsOf(layout);
  const uint64_t sw = swizzleBytes(layout.swizzle);
  if (layout.major == Major::K) {
    uint64_t sliceBits = uint64_t(kPerMma) * bits;
    if (layout.swizzle == Swizzle::None) {
      if (sliceBits % (8 * 16) != 0)
        return "expected the k slice of " + describe(layout) +
               " to be a multiple of 16 bytes, got " + str(kPerMma) +
               " elements (" + str(sliceBits) + " bits)";
    } else if (sliceBits % 8 != 0 || (8 * sw) % sliceBits != 0) {
      return "expected the k slice of " + describe(layout) + " to divide the " +
             str(sw) + "-byte swizzle width, got " + str(kPerMma) +
             " elements (" + str(sliceBits) + " bits)";
    }
  } else {
    unsigned rows = swizzleAtomRows(layout.swizzle, layout.major);
    if (kPerMma % rows != 0)
      return "expected the k slice of " + describe(layout) +
             " to be a multiple of " + str(rows) + " rows, got " + str(kPerMma);
  }
  return std::nullopt;
}

} // namespace

std::optional<CanonicalStrides>
umma::deriveCanonicalStrides(const SmemLayout &layout, std::string *error) {
  if (auto msg = checkLayoutShape(layout))
    return fail<CanonicalStrides>(error, *msg);
  CanonicalStrides s = computeStrides(layout);
  if (s.lboBytes >= kSmemFieldLimit)
    return fail<CanonicalStrides>(
        error, "expected the leading byte offset (LBO) of " + describe(layout) +
                   " below " + str(kSmemFieldLimit) + " bytes, got " +
                   str(s.lboBytes) + " for mn = " + str(layout.mn));
  if (s.sboBytes >= kSmemFieldLimit)
    return fail<CanonicalStrides>(
        error, "expected the stride byte offset (SBO) of " + describe(layout) +
                   " below " + str(kSmemFieldLimit) + " bytes, got " +
                   str(s.sboBytes) + " for mn = " + str(layout.mn));
  return s;
}

uint64_t umma::tileBytes(const SmemLayout &layout) {
  return uint64_t(layout.mn) * layout.k * storageBitsOf(layout) / 8;
}

uint32_t umma::kSliceOffsetBytes(const SmemLayout &layout, uint32_t kPerMma,
                                 uint32_t kStep) {
  const unsigned bits = storageBitsOf(layout);
  const uint64_t sw = swizzleBytes(layout.swizzle);
  const CanonicalStrides s = computeStrides(layout);
  const uint64_t kBegin = uint64_t(kStep) * kPerMma; // elements
  if (layout.major == Major::K) {
    const uint64_t kByte = kBegin * bits / 8;
    if (layout.swizzle == Swizzle::None)
      // K advances core matrix by core matrix, LBO apart.
      return static_cast<uint32_t>(kByte / 16 * s.lboBytes);
    // Inside an atom the start address moves along the swizzled row (the
    // hardware applies the swizzle to the computed address, so the base
    // offset stays 0); whole atoms along K sit mn * swizzleBytes apart.
    const uint64_t atomColumn = kByte / sw, inAtom = kByte % sw;
    return static_cast<uint32_t>(atomColumn * layout.mn * sw + inAtom);
  }
  // MN-major: K advances by groups of atom rows, SBO apart (LBO for None).
  const uint64_t rows = swizzleAtomRows(layout.swizzle, layout.major);
  const uint64_t groupStride =
      layout.swizzle == Swizzle::None ? s.lboBytes : s.sboBytes;
  return static_cast<uint32_t>(kBegin / rows * groupStride);
}

std::optional<SmemDescFields>
umma::makeSmemDescFields(const SmemLayout &layout, uint32_t tileBaseAddress,
                         uint32_t kPerMma, uint32_t kStep, std::string *error) {
  auto strides = deriveCanonicalStrides(layout, error);
  if (!strides)
    return std::nullopt;
  const unsigned align = swizzleAlignment(layout.swizzle);
  if (tileBaseAddress % align != 0)
    return fail<SmemDescFields>(
        error, "expected the tile base address to be " + str(align) +
                   "-byte aligned for swizzle " + stringify(layout.swizzle) +
                   ", got " + hex(tileBaseAddress));
  if (auto msg = checkKSlice(layout, kPerMma, kStep))
    return fail<SmemDescFields>(error, *msg);
  uint64_t start =
      uint64_t(tileBaseAddress) + kSliceOffsetBytes(layout, kPerMma, kStep);
  if (start >= kSmemFieldLimit)
    return fail<SmemDescFields>(
        error, "expected start address below " + hex(kSmemFieldLimit) + " (" +
                   str(kSmemFieldBits) + " bits), got " + hex(start));
  SmemDescFields f;
  f.startAddress = static_cast<uint32_t>(start);
  f.lboBytes = strides->lboBytes;
  f.sboBytes = strides->sboBytes;
  f.baseOffset = 0;
  f.lboAbsolute = false;
  f.swizzle = layout.swizzle;
  return f;
}

//===----------------------------------------------------------------------===//
// Instruction descriptor (PTX Tables 42-44)
//===----------------------------------------------------------------------===//

unsigned umma::mmaK(MmaKind kind) {
  // PTX Table 39, dense K.
  switch (kind) {
  case MmaKind::F16:
    return 16;
  case MmaKind::TF32:
    return 8;
  case MmaKind::F8F6F4:
  case MmaKind::I8:
  case MmaKind::MXF8F6F4:
    return 32;
  case MmaKind::MXF4:
  case MmaKind::MXF4NVF4:
    return 64;
  }
  return 0;
}

bool umma::isBlockScaled(MmaKind kind) {
  return kind == MmaKind::MXF8F6F4 || kind == MmaKind::MXF4 ||
         kind == MmaKind::MXF4NVF4;
}

unsigned umma::effectiveScaleVecSize(const InstrDescFields &f) {
  if (!isBlockScaled(f.kind))
    return 0;
  if (f.scaleVecSize != 0)
    return f.scaleVecSize;
  return f.kind == MmaKind::MXF4NVF4 ? 16 : 32;
}

namespace {

/// A/B format code of `t` for `kind`, or std::nullopt if `kind` does not
/// take `t` (PTX Tables 42-44).
std::optional<unsigned> abFormatCode(MmaKind kind, ElemType t) {
  using namespace idesc_codes;
  switch (kind) {
  case MmaKind::F16:
    if (t == ElemType::F16)
      return kF16;
    if (t == ElemType::BF16)
      return kBF16;
    return std::nullopt;
  case MmaKind::TF32:
    if (t == ElemType::TF32)
      return kTF32;
    return std::nullopt;
  case MmaKind::F8F6F4:
  case MmaKind::MXF8F6F4:
    switch (t) {
    case ElemType::E4M3:
      return kE4M3;
    case ElemType::E5M2:
      return kE5M2;
    case ElemType::E2M3:
      return kE2M3;
    case ElemType::E3M2:
      return kE3M2;
    case ElemType::E2M1:
      return kE2M1;
    default:
      return std::nullopt;
    }
  case MmaKind::I8:
    if (t == ElemType::U8)
      return kU8;
    if (t == ElemType::S8)
      return kS8;
    return std::nullopt;
  case MmaKind::MXF4:
  case MmaKind::MXF4NVF4:
    if (t == ElemType::E2M1)
      return kMxf4E2M1;
    return std::nullopt;
  }
  return std::nullopt;
}

/// Inverse of abFormatCode.
std::optional<ElemType> abFormatType(MmaKind kind, uint64_t code) {
  static constexpr ElemType candidates[] = {
      ElemType::F16,  ElemType::BF16, ElemType::TF32, ElemType::S8,
      ElemType::U8,   ElemType::E4M3, ElemType::E5M2, ElemType::E2M3,
      ElemType::E3M2, ElemType::E2M1};
  for (ElemType t : candidates)
    if (auto c = abFormatCode(kind, t); c && *c == code)
      return t;
  return std::nullopt;
}

/// The A/B types `kind` accepts, for messages.
const char *abTypeSet(MmaKind kind) {
  switch (kind) {
  case MmaKind::F16:
    return "{f16, bf16}";
  case MmaKind::TF32:
    return "tf32";
  case MmaKind::F8F6F4:
  case MmaKind::MXF8F6F4:
    return "{e4m3, e5m2, e2m3, e3m2, e2m1}";
  case MmaKind::I8:
    return "{s8, u8}";
  case MmaKind::MXF4:
  case MmaKind::MXF4NVF4:
    return "e2m1";
  }
  return "{}";
}

/// D format code (Table 42 bits 4-5) of the dense kind `kind`.
std::optional<unsigned> dFormatCode(ElemType d) {
  using namespace idesc_codes;
  switch (d) {
  case ElemType::F16:
    return kDF16;
  case ElemType::F32:
    return kDF32;
  case ElemType::S32:
    return kDS32;
  default:
    return std::nullopt;
  }
}

std::optional<std::string> checkTypes(const InstrDescFields &f) {
  const std::string kind = kindName(f.kind);
  if (!abFormatCode(f.kind, f.a))
    return "expected A type in " + std::string(abTypeSet(f.kind)) + " for " +
           kind + ", got " + stringify(f.a);
  if (!abFormatCode(f.kind, f.b))
    return "expected B type in " + std::string(abTypeSet(f.kind)) + " for " +
           kind + ", got " + stringify(f.b);
  switch (f.kind) {
  case MmaKind::F16:
    // Table 39: f16 x f16 -> f16/f32, bf16 x bf16 -> f32.
    if (f.a != f.b)
      return "expected A and B of the same type for " + kind +
             ", got A = " + stringify(f.a) + ", B = " + stringify(f.b);
    if (f.d != ElemType::F16 && f.d != ElemType::F32)
      return "expected D type in {f16, f32} for " + kind + ", got " +
             stringify(f.d);
    if (f.a == ElemType::BF16 && f.d != ElemType::F32)
      return "expected D type f32 for bf16 inputs of " + kind + ", got " +
             stringify(f.d);
    return std::nullopt;
  case MmaKind::TF32:
    if (f.d != ElemType::F32)
      return "expected D type f32 for " + kind + ", got " + stringify(f.d);
    return std::nullopt;
  case MmaKind::F8F6F4:
    if (f.d != ElemType::F16 && f.d != ElemType::F32)
      return "expected D type in {f16, f32} for " + kind + ", got " +
             stringify(f.d);
    return std::nullopt;
  case MmaKind::I8:
    if (f.d != ElemType::S32)
      return "expected D type s32 for " + kind + ", got " + stringify(f.d);
    return std::nullopt;
  case MmaKind::MXF8F6F4:
  case MmaKind::MXF4:
  case MmaKind::MXF4NVF4:
    // D is always f32 and is not encoded (Tables 43/44); `d` is ignored.
    return std::nullopt;
  }
  return std::nullopt;
}

/// `a`..`b` in steps of `step`, e.g. "a multiple of 16 in [16, 256]".
std::optional<std::string> checkN(const InstrDescFields &f, unsigned lo,
                                  unsigned step, const std::string &where) {
  if (f.n < lo || f.n > 256)
    return "expected N in [" + str(lo) + ", 256] for " + where + ", got " +
           str(f.n);
  if (f.n % step != 0)
    return "expected N to be a multiple of " + str(step) + " for " + where +
           ", got " + str(f.n);
  return std::nullopt;
}

std::optional<std::string> checkShape(const InstrDescFields &f) {
  const std::string kind = kindName(f.kind);
  if (f.ctaGroup != 1 && f.ctaGroup != 2)
    return "expected cta_group 1 or 2, got " + str(f.ctaGroup);
  const std::string cta = ctaGroupName(f.ctaGroup);

  if (f.weightStationary) {
    // Table 39: .ws exists for f16, tf32, f8f6f4 and i8, cta_group::1 only.
    if (isBlockScaled(f.kind))
      return "expected no .ws for " + kind +
             " (block-scaled kinds have no .ws form)";
    if (f.ctaGroup != 1)
      return "expected cta_group::1 with .ws, got " + cta;
    const std::string where = kind + " with .ws";
    if (f.m != 32 && f.m != 64 && f.m != 128)
      return "expected M in {32, 64, 128} for " + where + ", got " + str(f.m);
    if (f.n != 64 && f.n != 128 && f.n != 256)
      return "expected N in {64, 128, 256} for " + where + ", got " + str(f.n);
    return std::nullopt;
  }

  const std::string where = kind + " with " + cta;
  // Table 39, M: dense ::1 {64, 128}, ::2 {128, 256}; block-scaled ::1 128.
  if (f.ctaGroup == 1) {
    if (isBlockScaled(f.kind)) {
      if (f.m != 128)
        return "expected M = 128 for " + where + ", got " + str(f.m);
    } else if (f.m != 64 && f.m != 128) {
      return "expected M in {64, 128} for " + where + ", got " + str(f.m);
    }
  } else if (f.m != 128 && f.m != 256) {
    return "expected M in {128, 256} for " + where + ", got " + str(f.m);
  }

  // Table 39, N.
  if (f.kind == MmaKind::I8) {
    if (f.ctaGroup == 1) {
      // N = {8, 16, 24, 32, 48, ... 256}, steps of 16 after N > 32.
      bool ok = (f.n >= 8 && f.n <= 32 && f.n % 8 == 0) ||
                (f.n > 32 && f.n <= 256 && f.n % 16 == 0);
      if (!ok)
        return "expected N in {8, 16, 24, 32} or a multiple of 16 in "
               "[48, 256] for " +
               where + ", got " + str(f.n);
      return std::nullopt;
    }
    return checkN(f, 32, 32, where);
  }
  return f.ctaGroup == 1 ? checkN(f, 8, 8, where) : checkN(f, 16, 16, where);
}

std::optional<std::string> checkMajorAndModifiers(const InstrDescFields &f) {
  const std::string kind = kindName(f.kind);
  // Table 51: no transpose for mxf4 / mxf4nvf4, no negate for i8.
  if (f.kind == MmaKind::MXF4 || f.kind == MmaKind::MXF4NVF4) {
    if (f.aMajor != Major::K)
      return "expected k-major A for " + kind +
             " (transpose is not supported), got mn-major";
    if (f.bMajor != Major::K)
      return "expected k-major B for " + kind +
             " (transpose is not supported), got mn-major";
  }
  if (f.kind == MmaKind::I8 && (f.negateA || f.negateB))
    return "expected no negation for " + kind + ", got negate " +
           std::string(f.negateA ? "A" : "B");
  // Table 52: an MN-major ("transposed") 8-bit B restricts N.
  if (f.bMajor == Major::MN && smemElemBits(f.b, f.kind) == 8) {
    unsigned step = f.ctaGroup == 1 ? 16 : 32;
    if (f.n % step != 0 || f.n < step)
      return "expected N to be a multiple of " + str(step) + " in [" +
             str(step) + ", 256] for an mn-major 8-bit B with " +
             ctaGroupName(f.ctaGroup) + ", got " + str(f.n);
  }
  // Table 42 bit 3: saturate is for integer types only.
  if (f.saturate && f.kind != MmaKind::I8)
    return "expected saturate only with kind::i8, got " + kind;
  // Table 42 bits 30-31: the B-reuse shift exists only for .ws.
  if (f.maxShift > mask(idesc_bits::kMaxShiftWidth))
    return "expected max_shift in [0, " +
           str(mask(idesc_bits::kMaxShiftWidth)) + "], got " + str(f.maxShift);
  if (f.maxShift != 0 && !f.weightStationary)
    return "expected max_shift 0 without .ws, got " + str(f.maxShift);
  return std::nullopt;
}

std::optional<std::string> checkScales(const InstrDescFields &f) {
  const std::string kind = kindName(f.kind);
  if (!isBlockScaled(f.kind)) {
    if (f.scaleVecSize != 0)
      return "expected no scale vector size for " + kind + ", got " +
             str(f.scaleVecSize);
    if (f.aScaleId != 0 || f.bScaleId != 0)
      return "expected scale-factor ids 0 for " + kind +
             ", got A = " + str(f.aScaleId) + ", B = " + str(f.bScaleId);
    return std::nullopt;
  }
  // Table 57.
  const unsigned vec = effectiveScaleVecSize(f);
  if (vec != 16 && vec != 32)
    return "expected scale vector size 16 or 32, got " + str(vec);
  if (f.kind != MmaKind::MXF4NVF4 && vec != 32)
    return "expected scale vector size 32 for " + kind + ", got " + str(vec);
  if (f.scaleType == ScaleType::UE4M3) {
    if (f.kind != MmaKind::MXF4NVF4)
      return "expected scale type ue8m0 for " + kind + ", got ue4m3";
    if (vec != 16)
      return "expected scale vector size 16 (block16) with ue4m3 scales, "
             "got " +
             str(vec);
  }
  // Tables 43/44 and PTX 9.7.16.10.7: ids select the scale sub-columns.
  // 1X (mxf8f6f4): 0-3; 2X (block32 of mxf4/mxf4nvf4): 0 or 2; 4X: 0.
  auto checkId = [&](const char *which,
                     uint8_t id) -> std::optional<std::string> {
    std::string name = std::string(which) + " scale-factor id";
    if (f.kind == MmaKind::MXF8F6F4) {
      if (id > mask(idesc_bs_bits::kScaleIdWidth))
        return "expected " + name + " in [0, " +
               str(mask(idesc_bs_bits::kScaleIdWidth)) + "] for " + kind +
               ", got " + str(id);
    } else if (vec == 16) {
      if (id != 0)
        return "expected " + name + " 0 with scale vector size 16, got " +
               str(id);
    } else if (id != 0 && id != 2) {
      return "expected " + name + " in {0, 2} for " + kind +
             " with scale vector size 32, got " + str(id);
    }
    return std::nullopt;
  };
  if (auto msg = checkId("A", f.aScaleId))
    return msg;
  return checkId("B", f.bScaleId);
}

} // namespace

std::optional<std::string> umma::verifyInstrDesc(const InstrDescFields &f) {
  if (auto msg = checkTypes(f))
    return msg;
  if (auto msg = checkShape(f))
    return msg;
  if (auto msg = checkMajorAndModifiers(f))
    return msg;
  return checkScales(f);
}

std::optional<uint32_t> umma::encodeInstrDesc(const InstrDescFields &f,
                                              std::string *error) {
  if (auto msg = verifyInstrDesc(f))
    return fail<uint32_t>(error, *msg);
  using namespace idesc_bits;
  uint32_t desc = 0;
  // Dense descriptors: bits 0-2 (sparsity) stay zero.
  const bool mxf4 = f.kind == MmaKind::MXF4 || f.kind == MmaKind::MXF4NVF4;
  setField(desc, kAFormat, kFormatWidth, *abFormatCode(f.kind, f.a));
  setField(desc, kBFormat,
           mxf4 ? idesc_bs_bits::kMxf4BFormatWidth : kFormatWidth,
           *abFormatCode(f.kind, f.b));
  setField(desc, kNegateA, 1, f.negateA);
  setField(desc, kNegateB, 1, f.negateB);
  setField(desc, kTransposeA, 1, f.aMajor == Major::MN);
  setField(desc, kTransposeB, 1, f.bMajor == Major::MN);
  setField(desc, kN, kNWidth, f.n >> kNShift);
  if (isBlockScaled(f.kind)) {
    using namespace idesc_bs_bits;
    setField(desc, kBScaleId, kScaleIdWidth, f.bScaleId);
    setField(desc, kScaleType, 1, static_cast<uint64_t>(f.scaleType));
    setField(desc, idesc_bs_bits::kM, idesc_bs_bits::kMWidth,
             f.m >> idesc_bs_bits::kMShift);
    setField(desc, kAScaleId, kScaleIdWidth, f.aScaleId);
    // Bit 31 (K = 96, sm_103a) stays zero.
    return desc;
  }
  setField(desc, kSaturate, 1, f.saturate);
  setField(desc, kDFormat, kDFormatWidth, *dFormatCode(f.d));
  setField(desc, idesc_bits::kM, idesc_bits::kMWidth,
           f.m >> idesc_bits::kMShift);
  setField(desc, kMaxShift, kMaxShiftWidth, f.maxShift);
  return desc;
}

std::optional<InstrDescFields>
umma::decodeInstrDesc(uint32_t idesc, MmaKind kind, std::string *error) {
  using namespace idesc_bits;
  const std::string kindStr = kindName(kind);
  // Fails unless the `width` bits at `pos` are zero.
  auto reserved = [&](unsigned pos, unsigned width) {
    return fail<InstrDescFields>(
        error, "expected reserved " + bitRange(pos, width) + " of a " +
                   kindStr + " instruction descriptor to be zero, got " +
                   hex(idesc));
  };
  if (getField(idesc, kSparse, 1))
    return fail<InstrDescFields>(error, "expected a dense instruction "
                                        "descriptor (" +
                                            bitRange(kSparse, 1) +
                                            " clear), got " + hex(idesc));
  if (getField(idesc, kSparsitySelector, kSparsitySelectorWidth))
    return fail<InstrDescFields>(
        error, "expected sparsity selector " +
                   bitRange(kSparsitySelector, kSparsitySelectorWidth) +
                   " to be zero in a dense instruction descriptor, got " +
                   hex(idesc));
  if (getField(idesc, kReserved6, 1))
    return reserved(kReserved6, 1);

  InstrDescFields f;
  f.kind = kind;
  const bool blockScaled = isBlockScaled(kind);
  const bool mxf4 = kind == MmaKind::MXF4 || kind == MmaKind::MXF4NVF4;

  uint64_t aCode = getField(idesc, kAFormat, kFormatWidth);
  uint64_t bCode = getField(
      idesc, kBFormat, mxf4 ? idesc_bs_bits::kMxf4BFormatWidth : kFormatWidth);
  if (mxf4 && getField(idesc, idesc_bs_bits::kMxf4Reserved12, 1))
    return reserved(idesc_bs_bits::kMxf4Reserved12, 1);
  auto a = abFormatType(kind, aCode);
  if (!a)
    return fail<InstrDescFields>(error, "expected a valid A format code for " +
                                            kindStr + ", got " + str(aCode));
  auto b = abFormatType(kind, bCode);
  if (!b)
    return fail<InstrDescFields>(error, "expected a valid B format code for " +
                                            kindStr + ", got " + str(bCode));
  f.a = *a;
  f.b = *b;
  f.negateA = getField(idesc, kNegateA, 1);
  f.negateB = getField(idesc, kNegateB, 1);
  f.aMajor = getField(idesc, kTransposeA, 1) ? Major::MN : Major::K;
  f.bMajor = getField(idesc, kTransposeB, 1) ? Major::MN : Major::K;
  f.n = static_cast<uint32_t>(getField(idesc, kN, kNWidth) << kNShift);

  if (blockScaled) {
    using namespace idesc_bs_bits;
    if (getField(idesc, kSaturate, 1))
      return reserved(kSaturate, 1);
    if (getField(idesc, kReserved24, kReserved24Width))
      return reserved(kReserved24, kReserved24Width);
    if (getField(idesc, kK96, 1)) {
      if (!mxf4)
        return reserved(kK96, 1);
      return fail<InstrDescFields>(error, "expected " + bitRange(kK96, 1) +
                                              " (k = 96, sm_103a only) to be "
                                              "zero, got " +
                                              hex(idesc));
    }
    f.d = ElemType::F32;
    f.bScaleId =
        static_cast<uint8_t>(getField(idesc, kBScaleId, kScaleIdWidth));
    f.aScaleId =
        static_cast<uint8_t>(getField(idesc, kAScaleId, kScaleIdWidth));
    f.scaleType =
        getField(idesc, kScaleType, 1) ? ScaleType::UE8M0 : ScaleType::UE4M3;
    f.m = static_cast<uint32_t>(
        getField(idesc, idesc_bs_bits::kM, idesc_bs_bits::kMWidth)
        << idesc_bs_bits::kMShift);
    // Non-zero ids only exist with block32 (scale_vec::2X); ue4m3 scales
    // force block16, where verification reports the id instead.
    if (kind == MmaKind::MXF4NVF4 && f.scaleType == ScaleType::UE8M0 &&
        (f.aScaleId != 0 || f.bScaleId != 0))
      f.scaleVecSize = 32;
  } else {
    if (getField(idesc, kReserved23, 1))
      return reserved(kReserved23, 1);
    if (getField(idesc, kReserved29, 1))
      return reserved(kReserved29, 1);
    using namespace idesc_codes;
    uint64_t dCode = getField(idesc, kDFormat, kDFormatWidth);
    switch (dCode) {
    case kDF16:
      f.d = ElemType::F16;
      break;
    case kDF32:
      f.d = ElemType::F32;
      break;
    case kDS32:
      f.d = ElemType::S32;
      break;
    default:
      return fail<InstrDescFields>(error,
                                   "expected a valid D format code for " +
                                       kindStr + ", got " + str(dCode));
    }
    f.saturate = getField(idesc, kSaturate, 1);
    f.m = static_cast<uint32_t>(
        getField(idesc, idesc_bits::kM, idesc_bits::kMWidth)
        << idesc_bits::kMShift);
    f.maxShift =
        static_cast<uint8_t>(getField(idesc, kMaxShift, kMaxShiftWidth));
    f.weightStationary = f.m == 32 || f.maxShift != 0;
  }
  f.ctaGroup = f.m == 256 ? 2 : 1;
  if (auto msg = verifyInstrDesc(f))
    return fail<InstrDescFields>(error, *msg);
  return f;
}

std::optional<ZeroColumnMaskFields>
umma::decodeZeroColumnMask(uint64_t desc, std::string *error) {
  using namespace zcm_bits;
  if (getField(desc, kReserved36, kReserved36Width))
    return fail<ZeroColumnMaskFields>(
        error, "expected reserved " + bitRange(kReserved36, kReserved36Width) +
                   " of the zero-column mask descriptor to be zero, got " +
                   hex(desc));
  if (getField(desc, kUnlisted62, 2))
    return fail<ZeroColumnMaskFields>(
        error, "expected " + bitRange(kUnlisted62, 2) +
                   " of the zero-column mask descriptor to be zero, got " +
                   hex(desc));
  ZeroColumnMaskFields f;
  for (unsigned i = 0; i < 4; ++i) {
    f.startCount[i] =
        static_cast<uint8_t>(getField(desc, kStartCount + 8 * i, 8));
    f.firstSpan[i] = getField(desc, kFirstSpan + i, 1) != 0;
  }
  f.nonZero = getField(desc, kNonZero, 1) != 0;
  f.skipSpan = static_cast<uint8_t>(getField(desc, kSkipSpan, 8));
  f.useSpan = static_cast<uint8_t>(getField(desc, kUseSpan, 8));
  f.columnShift =
      static_cast<uint8_t>(getField(desc, kColumnShift, kColumnShiftWidth));
  return f;
}

void umma::zeroColumnMask(const ZeroColumnMaskFields &f, uint32_t m, uint32_t n,
                          uint64_t (&mask)[4]) {
  for (uint64_t &w : mask)
    w = 0;
  if (!f.nonZero || m == 0 || n == 0)
    return;
  const uint32_t subMasks = m >= 128 ? 1 : 128 / m;
  const uint32_t width = n / subMasks;
  const uint32_t ones = uint32_t(f.skipSpan) + 1,
                 zeros = uint32_t(f.useSpan) + 1;
  for (uint32_t i = 0; i < subMasks && i < 4; ++i) {
    // The pattern starts with a run of fs_i; the first sc_i bits of it are
    // skipped.
    const uint32_t first = f.firstSpan[i] ? ones : zeros;
    const uint32_t period = ones + zeros;
    for (uint32_t j = 0; j < width; ++j) {
      uint32_t p = (j + f.startCount[i]) % period;
      bool bit = p < first ? f.firstSpan[i] : !f.firstSpan[i];
      uint32_t col = i * width + j;
      if (bit && col < 256)
        mask[col / 64] |= uint64_t(1) << (col % 64);
    }
  }
}
