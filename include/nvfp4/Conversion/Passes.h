//===- Passes.h - nvfp4 conversion passes -----------------------*- C++ -*-===//

#ifndef NVFP4_CONVERSION_PASSES_H
#define NVFP4_CONVERSION_PASSES_H

#include "nvfp4/Conversion/SM100ToNVVM/SM100ToNVVM.h"

namespace nvfp4 {
#define GEN_PASS_REGISTRATION
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4

#endif // NVFP4_CONVERSION_PASSES_H
