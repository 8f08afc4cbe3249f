//===- TensorMemory.h - SM100 tensor memory facts ---------------*- C++ -*-===//
//
// Tensor memory (TMEM) geometry, allocation rules, addressing and the
// tcgen05.ld/st shape tables, in one place.
//
// Sources (see ../shared/reference/sm100-encodings.md section 4 and 5):
//  - PTX ISA 9.1, 9.7.16.1 "Tensor Memory" (128 lanes x 512 columns x 32 bit).
//  - PTX ISA 9.1, 9.7.16.1.1 "Tensor Memory Addressing" (lane 31-16, col 15-0).
//  - PTX ISA 9.1, 9.7.16.7.1 "tcgen05.alloc" (power of two in [32, 512]).
//  - PTX ISA 9.1, 9.7.16.8.1 "Access restrictions" (warp w%4 -> lanes
//  32*(w%4)).
//  - PTX ISA 9.1, 9.7.16.8.3 "tcgen05.ld / tcgen05.st" (shapes, .num, regs;
//    Table 49 "Various combinations of .num and .shape").
//  - PTX ISA 9.1, 9.7.16.2.3.1 "Matrix fragments" (Figures 183-187). The
//    figures are images; the thread mappings here were read off CUTLASS's
//    Copy_Traits<SM100_TMEM_LOAD_*> layouts (include/cute/atom/
//    copy_traits_sm100.hpp), which encode the same figures.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_SUPPORT_TENSORMEMORY_H
#define NVFP4_SUPPORT_TENSORMEMORY_H

#include <cstdint>
#include <optional>
#include <string>

namespace nvfp4::tmem {

/// Lanes (rows) of tensor memory per CTA.
inline constexpr unsigned kLanes = 128;
/// 32-bit columns of tensor memory per CTA.
inline constexpr unsigned kColumns = 512;
/// Smallest allocation, in columns.
inline constexpr unsigned kMinAllocColumns = 32;
/// Lanes one warp may access (its lane quadrant).
inline constexpr unsigned kLanesPerWarp = 32;
/// Bit position of the lane in a TMEM address (PTX 9.7.16.1.1).
inline constexpr unsigned kLaneShift = 16;

/// Mask of the column field of a TMEM address (bits 15-0).
inline constexpr uint32_t kColumnMask = 0xFFFF;
/// Largest tcgen05.ld/st repetition factor (.x128).
inline constexpr unsigned kMaxLdStNum = 128;

/// Packs a TMEM address from lane and column.
constexpr uint32_t makeAddress(uint32_t lane, uint32_t column) {
  return (lane << kLaneShift) | (column & kColumnMask);
}
/// The lane (bits 31-16) of a TMEM address.
constexpr uint32_t addressLane(uint32_t addr) { return addr >> kLaneShift; }
/// The column (bits 15-0) of a TMEM address.
constexpr uint32_t addressColumn(uint32_t addr) { return addr & kColumnMask; }

/// Returns an error message if `columns` is not a legal tcgen05.alloc size
/// (power of two in [32, 512]).
std::optional<std::string> verifyAllocColumns(int64_t columns);

/// The smallest legal allocation holding `columns` columns (power of two,
/// at least 32); std::nullopt when more than 512 are needed.
std::optional<unsigned> roundUpAllocColumns(uint64_t columns);

/// The first lane warp `warpId` (CTA-wide index) may access.
constexpr unsigned laneQuadrantBase(unsigned warpId) {
  return (warpId % 4) * kLanesPerWarp;
}

/// tcgen05.ld/st data-movement shapes (PTX 9.7.16.2.3 and 9.7.16.8.3).
enum class LdStShape : uint8_t {
  S16x64b,
  S16x128b,
  S16x256b,
  S32x32b,
  S16x32bx2
};

/// Returns the PTX shape name without the dot ("16x64b", "16x32bx2", ...).
const char *stringify(LdStShape s);

/// Lanes covered by one warp's access of `shape`: 32 for 32x32b, 16 for the
/// others (both halves of 16x32bx2 use the same 16 lanes).
unsigned shapeLanes(LdStShape shape);
/// 32-bit columns covered by one access of `shape` with repetition `num`
/// (before packing): num for 32x32b, 2*num for 16x64b, 4*num for 16x128b,
/// 8*num for 16x256b, and num for each half of 16x32bx2 (the second half
/// starts immHalfSplitoff columns after the first).
unsigned shapeColumns(LdStShape shape, unsigned num);

/// 32-bit registers each thread holds for `shape` .x`num`: num for
/// 32x32b/16x64b/16x32bx2, 2*num for 16x128b, 4*num for 16x256b.
/// std::nullopt when the pair is illegal (num not a power of two in
/// [1, 128], 16x128b with num > 64, 16x256b with num > 32).
std::optional<unsigned> registersPerThread(LdStShape shape, unsigned num);

/// A (lane, column) position in tensor memory.
struct LaneColumn {
  unsigned lane;
  unsigned column;
};

/// For thread `lane` (0-31) of a warp and register index `reg`, the
/// (lane offset, column offset) in TMEM it reads or writes for `shape`,
/// relative to the access's base address (no packing). Mapping from the PTX
/// ISA's data-movement figures. With t = lane, each .xN repetition j covers
/// shapeColumns(shape, 1) columns at column offset j * shapeColumns(shape, 1):
///
///   32x32b:   r = j           -> (t, j)
///   16x64b:   r = j           -> (8 * (t % 2) + t / 4, (t / 2) % 2 + 2j)
///   16x128b:  r = 2j + h      -> (t / 4 + 8h, t % 4 + 4j)
///   16x256b:  r = 4j + 2h + c -> (t / 4 + 8h, 2 * (t % 4) + c + 8j)
///   16x32bx2: r = j           -> (t % 16, j + (t / 16) * num)
///
/// For 16x32bx2 this overload assumes immHalfSplitoff = num (the two halves
/// side by side, as CUTLASS issues it). Preconditions: lane < 32 and
/// reg < *registersPerThread(shape, num).
LaneColumn threadRegisterToTmem(LdStShape shape, unsigned num, unsigned lane,
                                unsigned reg);

/// As above, with an explicit immHalfSplitoff (in columns) for 16x32bx2:
/// threads 16-31 access base + halfSplitOff. Ignored for other shapes.
LaneColumn threadRegisterToTmem(LdStShape shape, unsigned num, unsigned lane,
                                unsigned reg, unsigned halfSplitOff);

} // namespace nvfp4::tmem

#endif // NVFP4_SUPPORT_TENSORMEMORY_H
