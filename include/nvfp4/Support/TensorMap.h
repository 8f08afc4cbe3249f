//===- TensorMap.h - TMA tensor-map descriptors -----------------*- C++ -*-===//
//
// A backend-neutral description of a tiled TMA tensor map (what
// cuTensorMapEncodeTiled takes), its validation against the driver's
// documented rules, and a portable 128-byte encoding for backends that are
// not the CUDA driver (the emulator).
//
// Source of every rule and enum value: CUDA 13.0 driver API,
// cuTensorMapEncodeTiled and the CUtensorMap* enums in cuda.h. The enum
// values below equal the driver's; CudaDevice.cpp static_asserts that.
//
// Lives in Support (plain C++, header-only Error types from
// nvfp4/Runtime/Error.h) so that the runtime and the emulator share one
// decoder; nvfp4/Runtime/TensorMap.h forwards here.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_SUPPORT_TENSORMAP_H
#define NVFP4_SUPPORT_TENSORMAP_H

#include "nvfp4/Runtime/Error.h"

#include <array>
#include <cstdint>
#include <string>

namespace nvfp4::rt {

/// Element type of a tensor map (values = CUtensorMapDataType).
enum class TmaDataType : uint8_t {
  U8 = 0,
  U16 = 1,
  U32 = 2,
  I32 = 3,
  U64 = 4,
  I64 = 5,
  F16 = 6,
  F32 = 7,
  F64 = 8,
  BF16 = 9,
  F32Ftz = 10,
  TF32 = 11,
  TF32Ftz = 12,
  U4x16Align8B = 13,  ///< 16 packed 4-bit values per 8 bytes (SM100)
  U4x16Align16B = 14, ///< 16 packed 4-bit values, 8-byte gaps (SM100)
  U6x16Align16B = 15, ///< 16 packed 6-bit values, 4-byte gaps (SM100)
};

/// Interleaved layout (values = CUtensorMapInterleave).
enum class TmaInterleave : uint8_t { None = 0, B16 = 1, B32 = 2 };

/// Shared-memory swizzle (values = CUtensorMapSwizzle).
enum class TmaSwizzle : uint8_t {
  None = 0,
  B32 = 1,               ///< 16-byte chunks within a 32-byte span
  B64 = 2,               ///< 16-byte chunks within a 64-byte span
  B128 = 3,              ///< 16-byte chunks within a 128-byte span
  B128Atom32B = 4,       ///< 32-byte chunks within a 128-byte span
  B128Atom32BFlip8B = 5, ///< as B128Atom32B, 8-byte halves swapped on odd rows
  B128Atom64B = 6,       ///< 64-byte chunks within a 128-byte span
};

/// L2 promotion (values = CUtensorMapL2promotion).
enum class TmaL2Promotion : uint8_t { None = 0, B64 = 1, B128 = 2, B256 = 3 };

/// Out-of-bounds fill (values = CUtensorMapFloatOOBfill): None fills zeros;
/// NaN fills a special NaN ("NAN_REQUEST_ZERO_FMA"), floating types only.
enum class TmaOobFill : uint8_t { None = 0, NaN = 1 };

/// Maximum rank of a tiled tensor map.
inline constexpr unsigned kTmaMaxRank = 5;
/// Size and alignment in bytes of an encoded tensor map (CUtensorMap).
inline constexpr unsigned kTensorMapBytes = 128;
inline constexpr unsigned kTensorMapAlign = 64;

/// The arguments of cuTensorMapEncodeTiled. Arrays hold `rank` meaningful
/// entries, innermost dimension first.
struct TensorMapDesc {
  TmaDataType dataType = TmaDataType::U8;
  unsigned rank = 0;
  /// Device address of element (0, ..., 0).
  uint64_t globalAddress = 0;
  /// Elements in each dimension.
  std::array<uint64_t, kTmaMaxRank> globalDims{};
  /// Byte strides of dimensions 1 .. rank-1 (dimension 0 is contiguous).
  std::array<uint64_t, kTmaMaxRank - 1> globalStrides{};
  /// Box (tile) size in elements in each dimension.
  std::array<uint32_t, kTmaMaxRank> boxDims{};
  /// Traversal stride in elements in each dimension (1 = dense).
  std::array<uint32_t, kTmaMaxRank> elementStrides{1, 1, 1, 1, 1};
  TmaInterleave interleave = TmaInterleave::None;
  TmaSwizzle swizzle = TmaSwizzle::None;
  TmaL2Promotion l2Promotion = TmaL2Promotion::None;
  TmaOobFill oobFill = TmaOobFill::None;
};

/// An encoded tensor map: 128 opaque bytes, 64-byte aligned, passed to a
/// kernel by value (a `.param .align 64 .b8 [128]`, CUDA's
/// `const __grid_constant__ CUtensorMap`) or copied to device memory and
/// passed by pointer.
struct alignas(kTensorMapAlign) TensorMapBlob {
  std::array<uint8_t, kTensorMapBytes> bytes{};
};

/// Bits of one element of `t`: 8..64, or 4/6 for the packed types.
unsigned elementBits(TmaDataType t);
/// True for the floating-point types (the only ones OOB NaN fill accepts).
bool isFloat(TmaDataType t);
/// Names: "u8", "bf16", "tf32_ftz", "u4x16_align8b", ... (as the CLI spells
/// them); "none", "16B"/"32B" interleave; "none", "32B", "64B", "128B",
/// "128B_atom_32B", "128B_atom_32B_flip_8B", "128B_atom_64B" swizzle; "none",
/// "64B", "128B", "256B" L2 promotion; "none" (zeros) and "nan" OOB fill.
const char *stringify(TmaDataType t);
const char *stringify(TmaInterleave i);
const char *stringify(TmaSwizzle s);
const char *stringify(TmaL2Promotion p);
const char *stringify(TmaOobFill f);
/// Inverse of stringify (case-insensitive); failures list the accepted names.
/// parseTmaOobFill also accepts "zero" for None.
Expected<TmaDataType> parseTmaDataType(const std::string &s);
Expected<TmaInterleave> parseTmaInterleave(const std::string &s);
Expected<TmaSwizzle> parseTmaSwizzle(const std::string &s);
Expected<TmaL2Promotion> parseTmaL2Promotion(const std::string &s);
Expected<TmaOobFill> parseTmaOobFill(const std::string &s);

/// The span in bytes of a swizzle pattern's row (32, 64 or 128), 0 for None.
unsigned swizzleSpanBytes(TmaSwizzle s);

/// Checks every rule cuTensorMapEncodeTiled documents (rank, alignment,
/// dimension, stride, box, element-stride, interleave, swizzle and OOB-fill
/// constraints). The message names the field and index, the rule and the
/// value found.
Error validate(const TensorMapDesc &desc);

/// Bytes from globalAddress to one past the last element the tensor map can
/// address: sum_i (globalDims[i] - 1) * stride_i + the bytes of one row of
/// dimension 0. The caller checks that a buffer holds this many.
uint64_t footprintBytes(const TensorMapDesc &desc);

/// One line describing `desc`: "bf16 dims=[64,128] strides=[128] box=[64,128]
/// swizzle=128B ...".
std::string describe(const TensorMapDesc &desc);

//===----------------------------------------------------------------------===//
// Portable encoding (backends other than the CUDA driver)
//===----------------------------------------------------------------------===//

/// The CUDA driver's encoding is opaque. Backends that execute PTX
/// themselves (the emulator) encode a tensor map with this portable format
/// instead, so that a kernel reading the map from param or global memory
/// finds it there, and decode it when a cp.async.bulk.tensor names it.
///
/// Layout (little endian): bytes 0-3 magic "NVTM"; 4 version (1); 5 data
/// type; 6 rank; 7 interleave; 8 swizzle; 9 L2 promotion; 10 OOB fill;
/// 11-15 zero; 16-23 global address; 24-63 globalDims[5] (u64); 64-95
/// globalStrides[4] (u64); 96-100 boxDims[i] - 1 (u8); 101-105
/// elementStrides[i] (u8); 106-127 zero.
TensorMapBlob encodePortable(const TensorMapDesc &desc);
/// Decodes a blob made by encodePortable; fails on a wrong magic or version
/// (a blob the driver encoded, or memory that is not a tensor map) and on a
/// descriptor that `validate` rejects.
Expected<TensorMapDesc> decodePortable(const TensorMapBlob &blob);

} // namespace nvfp4::rt

#endif // NVFP4_SUPPORT_TENSORMAP_H
