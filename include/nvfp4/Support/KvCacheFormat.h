//===- KvCacheFormat.h - quantized KV-cache layouts, as table entries --------===//
//
// The byte layouts of the quantized KV caches nvfp4.attention reads
// (docs/Attention.md, "Quantized caches"; facts in
// shared/reference/dsv4-kv-cache.md). A cache is pages of `pageSize` tokens;
// each token is a row of `headDim` values: the first `quantDims` stored as
// e4m3 with one scale per `scaleGroup` values, the rest (`ropeDims`) as
// bf16. V is the first `headDimV` values of the row. A new layout is a new
// entry of kvCacheFormats(); the dialect, the lowering, the reference and
// the harness read only this description.
//
// Plain C++ (no MLIR): the dialect, the runtime's reference and the
// emulator-side fill share it.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_SUPPORT_KVCACHEFORMAT_H
#define NVFP4_SUPPORT_KVCACHEFORMAT_H

#include <cstdint>
#include <string>
#include <vector>

namespace nvfp4 {

struct KvCacheFormat {
  enum class Scale { UE8M0, F32 };

  const char *name;        ///< the attribute's spelling
  const char *description; ///< one line for diagnostics and docs
  int64_t headDim;         ///< D: values per token row (K)
  int64_t headDimV;        ///< Dv: V is the first Dv values of the row
  int64_t quantDims;       ///< the first quantDims values are e4m3
  int64_t ropeDims;        ///< then ropeDims bf16 values (quantDims + ropeDims == headDim)
  int64_t rowBytes;        ///< bytes between consecutive tokens' data
  int64_t ropeOffset;      ///< byte offset of the bf16 values within a row
  Scale scale;             ///< the scale type
  int64_t scaleGroup;      ///< e4m3 values per scale
  /// Where a token's scales are: in its row at `scaleOffset` (scalesInRow),
  /// or in a region after the page's pageSize rows, `scaleStride` bytes
  /// per token.
  bool scalesInRow;
  int64_t scaleOffset;
  int64_t scaleStride;
  /// Pages are padded to a multiple of this many bytes.
  int64_t pageAlign;

  int64_t scalesPerToken() const { return quantDims / scaleGroup; }
  int64_t scaleBytes() const { return scale == Scale::F32 ? 4 : 1; }
  /// Bytes of one page of `pageSize` tokens, padding included.
  int64_t pageBytes(int64_t pageSize) const;
  /// Rows of rowBytes in one page (pageBytes / rowBytes; the tensor-map
  /// view of the cache).
  int64_t rowsPerPage(int64_t pageSize) const {
    return pageBytes(pageSize) / rowBytes;
  }
  /// Byte offsets, within its page, of token t's data row and scales.
  int64_t rowOffset(int64_t t) const { return t * rowBytes; }
  int64_t scalesOffset(int64_t pageSize, int64_t t) const {
    return scalesInRow ? t * rowBytes + scaleOffset
                       : pageSize * rowBytes + t * scaleStride + scaleOffset;
  }
  /// Scale s of token t of the page at `page` (its value, exact).
  double scaleOf(const uint8_t *page, int64_t pageSize, int64_t t,
                 int64_t s) const;
  /// The headDim dequantized values of token t of the page at `page`:
  /// e4m3 x its scale, then the bf16 values (exact in double).
  void decodeToken(const uint8_t *page, int64_t pageSize, int64_t t,
                   double *out) const;
  /// Fills a cache of `pages` pages with valid tokens from `seed`: e4m3
  /// values of every finite magnitude (no NaN), power-of-two scales in
  /// [2^-6, 2^1], bf16 values in [-2, 2]; padding and pad bytes 0xff.
  void fill(uint8_t *cache, int64_t pages, int64_t pageSize,
            uint64_t seed) const;
};

/// Every layout, in the order docs/Attention.md lists them.
const std::vector<KvCacheFormat> &kvCacheFormats();
/// The layout named `name`, or null.
const KvCacheFormat *findKvCacheFormat(const std::string &name);
/// "name1, name2, ..." for diagnostics.
std::string kvCacheFormatNames();

/// The value of an e4m3 (fn) byte (NaN for 0x7f / 0xff).
double e4m3ToDouble(uint8_t b);

} // namespace nvfp4

#endif // NVFP4_SUPPORT_KVCACHEFORMAT_H
