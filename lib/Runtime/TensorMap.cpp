//===- TensorMap.cpp - TMA tensor-map descriptors (forwarding) ------------===//
//
// The implementation lives in lib/Support/TensorMap.cpp (shared with the
// emulator). The project build compiles it as part of NVFP4Support and leaves
// this file out; the standalone builds of the runtime (scripts/device: its
// CMakeLists.txt and validate_cuda_backend.sh's direct compile, which both
// take lib/Runtime/Sources.cmake's list) compile it through this file.
//
//===----------------------------------------------------------------------===//

#include "../Support/TensorMap.cpp"
