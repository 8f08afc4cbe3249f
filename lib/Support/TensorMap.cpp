//===- TensorMap.cpp - TMA tensor-map descriptors -------------------------===//
//
// Validation rules quoted from the CUDA 13.0 driver API documentation of
// cuTensorMapEncodeTiled (cuda.h); each check cites the rule it implements.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Support/TensorMap.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>

using namespace nvfp4::rt;

namespace {

std::string lower(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

template <typename Enum, size_t N>
Expected<Enum> parseEnum(const std::string &text, const char *what,
                         const Enum (&values)[N]) {
  std::string key = lower(text);
  for (Enum v : values)
    if (key == lower(stringify(v)))
      return v;
  std::string accepted;
  for (size_t i = 0; i < N; ++i)
    accepted += std::string(i ? ", " : "") + stringify(values[i]);
  return makeError("unknown ", what, " '", text, "' (expected one of ",
                   accepted, ")");
}

bool isPacked16B(TmaDataType t) {
  return t == TmaDataType::U4x16Align16B || t == TmaDataType::U6x16Align16B;
}
bool isPacked(TmaDataType t) {
  return isPacked16B(t) || t == TmaDataType::U4x16Align8B;
}

/// Bytes of `elements` consecutive elements of `t` (rounded up for the
/// packed sub-byte types).
uint64_t bytesOf(uint64_t elements, TmaDataType t) {
  return (elements * elementBits(t) + 7) / 8;
}

template <typename T> std::string list(const T &values, unsigned n) {
  std::ostringstream os;
  os << "[";
  for (unsigned i = 0; i < n; ++i)
    os << (i ? "," : "") << values[i];
  os << "]";
  return os.str();
}

constexpr uint8_t kPortableMagic[4] = {'N', 'V', 'T', 'M'};
constexpr uint8_t kPortableVersion = 1;

void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}

} // namespace

unsigned nvfp4::rt::elementBits(TmaDataType t) {
  switch (t) {
  case TmaDataType::U8:
    return 8;
  case TmaDataType::U16:
  case TmaDataType::F16:
  case TmaDataType::BF16:
    return 16;
  case TmaDataType::U32:
  case TmaDataType::I32:
  case TmaDataType::F32:
  case TmaDataType::F32Ftz:
  case TmaDataType::TF32:
  case TmaDataType::TF32Ftz:
    return 32;
  case TmaDataType::U64:
  case TmaDataType::I64:
  case TmaDataType::F64:
    return 64;
  case TmaDataType::U4x16Align8B:
  case TmaDataType::U4x16Align16B:
    return 4;
  case TmaDataType::U6x16Align16B:
    return 6;
  }
  return 0;
}

bool nvfp4::rt::isFloat(TmaDataType t) {
  switch (t) {
  case TmaDataType::F16:
  case TmaDataType::F32:
  case TmaDataType::F64:
  case TmaDataType::BF16:
  case TmaDataType::F32Ftz:
  case TmaDataType::TF32:
  case TmaDataType::TF32Ftz:
    return true;
  default:
    return false;
  }
}

const char *nvfp4::rt::stringify(TmaDataType t) {
  switch (t) {
  case TmaDataType::U8:
    return "u8";
  case TmaDataType::U16:
    return "u16";
  case TmaDataType::U32:
    return "u32";
  case TmaDataType::I32:
    return "i32";
  case TmaDataType::U64:
    return "u64";
  case TmaDataType::I64:
    return "i64";
  case TmaDataType::F16:
    return "f16";
  case TmaDataType::F32:
    return "f32";
  case TmaDataType::F64:
    return "f64";
  case TmaDataType::BF16:
    return "bf16";
  case TmaDataType::F32Ftz:
    return "f32_ftz";
  case TmaDataType::TF32:
    return "tf32";
  case TmaDataType::TF32Ftz:
    return "tf32_ftz";
  case TmaDataType::U4x16Align8B:
    return "u4x16_align8b";
  case TmaDataType::U4x16Align16B:
    return "u4x16_align16b";
  case TmaDataType::U6x16Align16B:
    return "u6x16_align16b";
  }
  return "?";
}

const char *nvfp4::rt::stringify(TmaInterleave i) {
  switch (i) {
  case TmaInterleave::None:
    return "none";
  case TmaInterleave::B16:
    return "16B";
  case TmaInterleave::B32:
    return "32B";
  }
  return "?";
}

const char *nvfp4::rt::stringify(TmaSwizzle s) {
  switch (s) {
  case TmaSwizzle::None:
    return "none";
  case TmaSwizzle::B32:
    return "32B";
  case TmaSwizzle::B64:
    return "64B";
  case TmaSwizzle::B128:
    return "128B";
  case TmaSwizzle::B128Atom32B:
    return "128B_atom_32B";
  case TmaSwizzle::B128Atom32BFlip8B:
    return "128B_atom_32B_flip_8B";
  case TmaSwizzle::B128Atom64B:
    return "128B_atom_64B";
  }
  return "?";
}

const char *nvfp4::rt::stringify(TmaL2Promotion p) {
  switch (p) {
  case TmaL2Promotion::None:
    return "none";
  case TmaL2Promotion::B64:
    return "64B";
  case TmaL2Promotion::B128:
    return "128B";
  case TmaL2Promotion::B256:
    return "256B";
  }
  return "?";
}

const char *nvfp4::rt::stringify(TmaOobFill f) {
  switch (f) {
  case TmaOobFill::None:
    return "none";
  case TmaOobFill::NaN:
    return "nan";
  }
  return "?";
}

Expected<TmaDataType> nvfp4::rt::parseTmaDataType(const std::string &s) {
  static const TmaDataType values[] = {TmaDataType::U8,
                                       TmaDataType::U16,
                                       TmaDataType::U32,
                                       TmaDataType::I32,
                                       TmaDataType::U64,
                                       TmaDataType::I64,
                                       TmaDataType::F16,
                                       TmaDataType::F32,
                                       TmaDataType::F64,
                                       TmaDataType::BF16,
                                       TmaDataType::F32Ftz,
                                       TmaDataType::TF32,
                                       TmaDataType::TF32Ftz,
                                       TmaDataType::U4x16Align8B,
                                       TmaDataType::U4x16Align16B,
                                       TmaDataType::U6x16Align16B};
  return parseEnum(s, "tensor-map element type", values);
}

Expected<TmaInterleave> nvfp4::rt::parseTmaInterleave(const std::string &s) {
  static const TmaInterleave values[] = {
      TmaInterleave::None, TmaInterleave::B16, TmaInterleave::B32};
  return parseEnum(s, "interleave", values);
}

Expected<TmaSwizzle> nvfp4::rt::parseTmaSwizzle(const std::string &s) {
  static const TmaSwizzle values[] = {
      TmaSwizzle::None,        TmaSwizzle::B32,
      TmaSwizzle::B64,         TmaSwizzle::B128,
      TmaSwizzle::B128Atom32B, TmaSwizzle::B128Atom32BFlip8B,
      TmaSwizzle::B128Atom64B};
  return parseEnum(s, "swizzle", values);
}

Expected<TmaL2Promotion> nvfp4::rt::parseTmaL2Promotion(const std::string &s) {
  static const TmaL2Promotion values[] = {
      TmaL2Promotion::None, TmaL2Promotion::B64, TmaL2Promotion::B128,
      TmaL2Promotion::B256};
  return parseEnum(s, "L2 promotion", values);
}

Expected<TmaOobFill> nvfp4::rt::parseTmaOobFill(const std::string &s) {
  if (lower(s) == "zero")
    return TmaOobFill::None;
  static const TmaOobFill values[] = {TmaOobFill::None, TmaOobFill::NaN};
  auto result = parseEnum(s, "OOB fill", values);
  if (!result)
    return makeError("unknown OOB fill '", s,
                     "' (expected one of zero, none, nan)");
  return result;
}

unsigned nvfp4::rt::swizzleSpanBytes(TmaSwizzle s) {
  switch (s) {
  case TmaSwizzle::None:
    return 0;
  case TmaSwizzle::B32:
    return 32;
  case TmaSwizzle::B64:
    return 64;
  case TmaSwizzle::B128:
  case TmaSwizzle::B128Atom32B:
  case TmaSwizzle::B128Atom32BFlip8B:
  case TmaSwizzle::B128Atom64B:
    return 128;
  }
  return 0;
}

Error nvfp4::rt::validate(const TensorMapDesc &d) {
  const TmaDataType t = d.dataType;
  const unsigned rank = d.rank;
  if (static_cast<unsigned>(t) >
      static_cast<unsigned>(TmaDataType::U6x16Align16B))
    return makeError("unknown tensor-map element type code ",
                     static_cast<unsigned>(t));
  // "tensorRank must be non-zero and less than or equal to the maximum
  // supported dimensionality of 5."
  if (rank < 1 || rank > kTmaMaxRank)
    return makeError("expected a tensor-map rank in [1, 5], got ", rank);
  // "If interleave is not CU_TENSOR_MAP_INTERLEAVE_NONE, then tensorRank
  // must additionally be greater than or equal to 3."
  if (d.interleave != TmaInterleave::None && rank < 3)
    return makeError("interleave ", stringify(d.interleave),
                     " needs a rank of at least 3, got ", rank);

  // "globalAddress ... must be 16 byte aligned"; 32 with interleave 32B and
  // for the 16-byte-aligned packed types.
  uint64_t addressAlign =
      (d.interleave == TmaInterleave::B32 || isPacked16B(t)) ? 32 : 16;
  if (d.globalAddress % addressAlign != 0)
    return makeError("expected the global address to be ", addressAlign,
                     "-byte aligned, got 0x", std::hex, d.globalAddress);

  // "globalDim ... must be non-zero and less than or equal to 2^32."
  for (unsigned i = 0; i < rank; ++i)
    if (d.globalDims[i] == 0 || d.globalDims[i] > (uint64_t(1) << 32))
      return makeError("expected dims[", i, "] in [1, 2^32], got ",
                       d.globalDims[i]);
  if (isPacked16B(t) && d.globalDims[0] % 128 != 0)
    return makeError("element type ", stringify(t),
                     " needs dims[0] to be a multiple of 128, got ",
                     d.globalDims[0]);
  if (t == TmaDataType::U4x16Align8B && d.globalDims[0] % 2 != 0)
    return makeError("element type ", stringify(t),
                     " needs dims[0] to be a multiple of 2, got ",
                     d.globalDims[0]);

  // "globalStrides ... must be a multiple of 16 and less than 2^40"; a
  // multiple of 32 with interleave 32B and for the 16-byte packed types.
  uint64_t strideMultiple =
      (d.interleave == TmaInterleave::B32 || isPacked16B(t)) ? 32 : 16;
  for (unsigned i = 0; i + 1 < rank; ++i) {
    uint64_t s = d.globalStrides[i];
    if (s % strideMultiple != 0 || s >= (uint64_t(1) << 40))
      return makeError("expected strides[", i, "] (the byte stride of dim ",
                       i + 1, ") to be a multiple of ", strideMultiple,
                       " below 2^40, got ", s);
  }

  // "boxDim ... must be non-zero and less than or equal to 256."
  for (unsigned i = 0; i < rank; ++i)
    if (d.boxDims[i] == 0 || d.boxDims[i] > 256)
      return makeError("expected box[", i, "] in [1, 256], got ", d.boxDims[i]);
  uint64_t innerBoxBytes = bytesOf(d.boxDims[0], t);
  // "When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE, boxDim[0] *
  // elementSizeInBytes(tensorDataType) must be a multiple of 16 bytes."
  if (d.interleave == TmaInterleave::None && innerBoxBytes % 16 != 0)
    return makeError("expected the inner box (box[0] = ", d.boxDims[0], " ",
                     stringify(t), " = ", innerBoxBytes,
                     " bytes) to be a multiple of 16 bytes");
  if (isPacked16B(t) && d.boxDims[0] != 128)
    return makeError("element type ", stringify(t), " needs box[0] = 128, got ",
                     d.boxDims[0]);

  // "elementStrides ... must be non-zero and less than or equal to 8."
  for (unsigned i = 0; i < rank; ++i)
    if (d.elementStrides[i] == 0 || d.elementStrides[i] > 8)
      return makeError("expected elemstrides[", i, "] in [1, 8], got ",
                       d.elementStrides[i]);

  if (static_cast<unsigned>(d.interleave) > 2)
    return makeError("unknown interleave code ",
                     static_cast<unsigned>(d.interleave));
  if (static_cast<unsigned>(d.swizzle) > 6)
    return makeError("unknown swizzle code ", static_cast<unsigned>(d.swizzle));
  if (static_cast<unsigned>(d.l2Promotion) > 3)
    return makeError("unknown L2 promotion code ",
                     static_cast<unsigned>(d.l2Promotion));
  if (static_cast<unsigned>(d.oobFill) > 1)
    return makeError("unknown OOB fill code ",
                     static_cast<unsigned>(d.oobFill));

  // "When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE and swizzle is not
  // CU_TENSOR_MAP_SWIZZLE_NONE, the bounding box inner dimension ... must be
  // less than or equal to the swizzle size."
  if (d.interleave == TmaInterleave::None && d.swizzle != TmaSwizzle::None &&
      innerBoxBytes > swizzleSpanBytes(d.swizzle))
    return makeError("swizzle ", stringify(d.swizzle), " needs the inner box ",
                     "to be at most ", swizzleSpanBytes(d.swizzle),
                     " bytes, got ", innerBoxBytes, " (box[0] = ", d.boxDims[0],
                     " ", stringify(t), ")");
  // "When interleave is CU_TENSOR_MAP_INTERLEAVE_32B, swizzle must be
  // CU_TENSOR_MAP_SWIZZLE_32B."
  if (d.interleave == TmaInterleave::B32 && d.swizzle != TmaSwizzle::B32)
    return makeError("interleave 32B needs swizzle 32B, got ",
                     stringify(d.swizzle));
  // "CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B requires interleave to be
  // CU_TENSOR_MAP_INTERLEAVE_NONE."
  if (t == TmaDataType::U6x16Align16B && d.interleave != TmaInterleave::None)
    return makeError("element type ", stringify(t),
                     " needs interleave none, got ", stringify(d.interleave));
  // The swizzle modes the packed 16-byte types support.
  if (t == TmaDataType::U6x16Align16B &&
      !(d.swizzle == TmaSwizzle::None || d.swizzle == TmaSwizzle::B128 ||
        d.swizzle == TmaSwizzle::B128Atom32B ||
        d.swizzle == TmaSwizzle::B128Atom64B))
    return makeError("element type ", stringify(t),
                     " supports swizzle none, 128B, 128B_atom_32B or "
                     "128B_atom_64B, got ",
                     stringify(d.swizzle));
  if (t == TmaDataType::U4x16Align16B &&
      !(d.swizzle == TmaSwizzle::None || d.swizzle == TmaSwizzle::B128 ||
        d.swizzle == TmaSwizzle::B128Atom32B))
    return makeError("element type ", stringify(t),
                     " supports swizzle none, 128B or 128B_atom_32B, got ",
                     stringify(d.swizzle));
  // "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA can only be used when
  // tensorDataType represents a floating-point data type" (not the packed
  // types).
  if (d.oobFill == TmaOobFill::NaN && (!isFloat(t) || isPacked(t)))
    return makeError("OOB fill nan needs a floating-point element type, got ",
                     stringify(t));
  return Error::success();
}

uint64_t nvfp4::rt::footprintBytes(const TensorMapDesc &d) {
  if (d.rank == 0)
    return 0;
  uint64_t bytes = bytesOf(d.globalDims[0], d.dataType);
  for (unsigned i = 1; i < d.rank && i < kTmaMaxRank; ++i)
    bytes += (d.globalDims[i] - 1) * d.globalStrides[i - 1];
  return bytes;
}

std::string nvfp4::rt::describe(const TensorMapDesc &d) {
  unsigned rank = std::min(d.rank, kTmaMaxRank);
  std::ostringstream os;
  os << stringify(d.dataType) << " dims=" << list(d.globalDims, rank)
     << " strides=" << list(d.globalStrides, rank ? rank - 1 : 0)
     << " box=" << list(d.boxDims, rank);
  bool dense = true;
  for (unsigned i = 0; i < rank; ++i)
    dense &= d.elementStrides[i] == 1;
  if (!dense)
    os << " elemstrides=" << list(d.elementStrides, rank);
  os << " swizzle=" << stringify(d.swizzle)
     << " interleave=" << stringify(d.interleave)
     << " l2=" << stringify(d.l2Promotion) << " oob=" << stringify(d.oobFill);
  return os.str();
}

TensorMapBlob nvfp4::rt::encodePortable(const TensorMapDesc &d) {
  TensorMapBlob blob;
  uint8_t *p = blob.bytes.data();
  std::memcpy(p, kPortableMagic, 4);
  p[4] = kPortableVersion;
  p[5] = static_cast<uint8_t>(d.dataType);
  p[6] = static_cast<uint8_t>(d.rank);
  p[7] = static_cast<uint8_t>(d.interleave);
  p[8] = static_cast<uint8_t>(d.swizzle);
  p[9] = static_cast<uint8_t>(d.l2Promotion);
  p[10] = static_cast<uint8_t>(d.oobFill);
  put64(p + 16, d.globalAddress);
  for (unsigned i = 0; i < kTmaMaxRank; ++i)
    put64(p + 24 + 8 * i, d.globalDims[i]);
  for (unsigned i = 0; i + 1 < kTmaMaxRank; ++i)
    put64(p + 64 + 8 * i, d.globalStrides[i]);
  for (unsigned i = 0; i < kTmaMaxRank; ++i) {
    p[96 + i] = static_cast<uint8_t>(d.boxDims[i] ? d.boxDims[i] - 1 : 0);
    p[101 + i] = static_cast<uint8_t>(d.elementStrides[i]);
  }
  return blob;
}

Expected<TensorMapDesc> nvfp4::rt::decodePortable(const TensorMapBlob &blob) {
  const uint8_t *p = blob.bytes.data();
  if (std::memcmp(p, kPortableMagic, 4) != 0)
    return makeError("not a portable tensor map (expected the magic 'NVTM')");
  if (p[4] != kPortableVersion)
    return makeError("unsupported portable tensor-map version ", unsigned(p[4]),
                     " (expected ", unsigned(kPortableVersion), ")");
  TensorMapDesc d;
  d.dataType = static_cast<TmaDataType>(p[5]);
  d.rank = p[6];
  d.interleave = static_cast<TmaInterleave>(p[7]);
  d.swizzle = static_cast<TmaSwizzle>(p[8]);
  d.l2Promotion = static_cast<TmaL2Promotion>(p[9]);
  d.oobFill = static_cast<TmaOobFill>(p[10]);
  d.globalAddress = get64(p + 16);
  for (unsigned i = 0; i < kTmaMaxRank; ++i)
    d.globalDims[i] = get64(p + 24 + 8 * i);
  for (unsigned i = 0; i + 1 < kTmaMaxRank; ++i)
    d.globalStrides[i] = get64(p + 64 + 8 * i);
  for (unsigned i = 0; i < kTmaMaxRank; ++i) {
    d.boxDims[i] = i < d.rank ? uint32_t(p[96 + i]) + 1 : 0;
    d.elementStrides[i] = p[101 + i];
  }
  if (Error e = validate(d))
    return std::move(e).withContext("invalid portable tensor map");
  return d;
}
