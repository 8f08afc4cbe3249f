//===- TensorMap.h - TMA tensor-map descriptors (forwarding) ----*- C++ -*-===//
//
// The tensor-map description, validation and portable encoding live in
// nvfp4/Support/TensorMap.h (shared by the runtime and the emulator).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_TENSORMAP_H
#define NVFP4_RUNTIME_TENSORMAP_H

#include "nvfp4/Support/TensorMap.h"

#endif // NVFP4_RUNTIME_TENSORMAP_H
