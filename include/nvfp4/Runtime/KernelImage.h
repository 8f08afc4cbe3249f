//===- KernelImage.h - PTX / cubin images and their targets -----*- C++ -*-===//
//
// What a backend loads: PTX text, a cubin (CUDA ELF) or a fatbinary, with
// the target architecture read from it (the PTX `.target` directive; the
// cubin's ELF header and ptxas note), the PTX kernel signatures, and the rule
// that says whether an image can run on a GPU of a given compute capability.
//
// Sources: PTX ISA 9.0 §11.1 (.target, "sm_XYa" arch-specific and "sm_XYf"
// family-specific targets) and CUDA Programming Guide §"Binary
// compatibility" / "Feature availability" (a cubin runs on the same major
// version with an equal or higher minor; PTX JIT-compiles for any newer GPU;
// an `a` target runs only on exactly its compute capability, an `f` target on
// its family: same major, equal or higher minor). Cubin ELF e_flags: LLVM's
// BinaryFormat/ELF.h (EF_CUDA_SM, EF_CUDA_SM_MASK, ELFABIVERSION_CUDA_V2).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_KERNELIMAGE_H
#define NVFP4_RUNTIME_KERNELIMAGE_H

#include "nvfp4/Runtime/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nvfp4::rt {

/// A CUDA SM target such as sm_90, sm_90a or sm_100f.
struct SmTarget {
  unsigned major = 0; ///< 10 for sm_100
  unsigned minor = 0; ///< 0 for sm_100, 3 for sm_103
  /// 0 (portable), 'a' (arch-specific) or 'f' (family-specific).
  char suffix = 0;

  /// "sm_100a".
  std::string str() const;
  /// Parses "sm_90", "sm_90a", "sm_100f", "compute_90a" (as sm_90a).
  static std::optional<SmTarget> parse(const std::string &name);
  bool operator==(const SmTarget &o) const {
    return major == o.major && minor == o.minor && suffix == o.suffix;
  }
};

/// What kind of bytes an image holds.
enum class ImageKind { Ptx, Cubin, Fatbin };
const char *stringify(ImageKind k);

/// One parameter of a PTX `.entry`: its name, size in bytes and alignment.
struct PtxParam {
  std::string name;
  uint64_t bytes = 0;
  uint64_t align = 0;
};

/// A PTX `.entry` and its parameters in order.
struct PtxEntry {
  std::string name;
  std::vector<PtxParam> params;
};

/// A loadable kernel image.
struct KernelImage {
  ImageKind kind = ImageKind::Ptx;
  /// The image; for PTX, the text (without a terminating NUL).
  std::vector<uint8_t> bytes;
  /// Where it came from, for messages ("saxpy.ptx").
  std::string origin;
  /// The target it was built for, when the image says (PTX .target, cubin
  /// ELF header); unknown for a fatbinary (the driver picks from it).
  std::optional<SmTarget> target;
  /// PTX only: the `.version` ("9.0") and the `.entry` kernels with their
  /// signatures. Empty for cubin/fatbin (the driver reports those).
  std::string ptxVersion;
  std::vector<PtxEntry> entries;

  /// Reads `path` and classifies it (see fromBytes).
  static Expected<KernelImage> fromFile(const std::string &path);
  /// Classifies `bytes`: an ELF with machine EM_CUDA (190) is a cubin, the
  /// fatbinary magic 0xBA55ED50 a fatbinary, text with `.version` and
  /// `.target` directives PTX; anything else is an error naming `origin`.
  static Expected<KernelImage> fromBytes(std::vector<uint8_t> bytes,
                                         std::string origin);

  /// The PTX entry named `name`, or null (also for cubin/fatbin).
  const PtxEntry *findEntry(const std::string &name) const;
  /// "saxpy.ptx (PTX 9.0, .target sm_90a)".
  std::string describe() const;
};

/// Reads the first `.target` of PTX text ("sm_90a"), skipping comments.
std::optional<SmTarget> ptxTarget(const std::string &ptx);
/// Lists the `.entry` kernels of PTX text with their parameter sizes. A
/// parameter list this light scanner cannot read is an error naming the
/// entry and line (the emulator's parser is the full one).
Expected<std::vector<PtxEntry>> ptxEntries(const std::string &ptx);
/// Reads the target of a cubin: the SM number from the ELF header's e_flags
/// (bits 0-7 before ELF ABI version 8, bits 8-15 from it on) and the `a`/`f`
/// suffix from ptxas's `-arch sm_XYZa` note when present.
Expected<SmTarget> cubinTarget(const std::vector<uint8_t> &elf);

/// Whether code built for `target` runs on a GPU of compute capability
/// major.minor. PTX (isPtx): a plain target runs on any equal or newer GPU
/// (the driver JIT-compiles it), `a` only on exactly major.minor, `f` on the
/// same major with an equal or higher minor. Cubin: a plain or `f` target
/// runs on the same major with an equal or higher minor, `a` only on exactly
/// major.minor.
bool targetRunsOn(const SmTarget &target, bool isPtx, unsigned ccMajor,
                  unsigned ccMinor);

/// Success if `image` can run on a GPU named `gpuName` of compute capability
/// ccMajor.ccMinor (or when the image's target is unknown); otherwise the
/// failure "this kernel targets sm_100a but the GPU is sm_90 (NVIDIA H200);
/// use --backend=emulator".
Error checkImageRunsOn(const KernelImage &image, unsigned ccMajor,
                       unsigned ccMinor, const std::string &gpuName);

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_KERNELIMAGE_H
