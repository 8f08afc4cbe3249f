# The runtime's sources, listed once for the project build
# (lib/Runtime/CMakeLists.txt) and the GPU machine's standalone build
# (scripts/device/CMakeLists.txt). Plain C++17: no LLVM, no CUDA library
# (cuda.h for types only; the driver is loaded with dlopen).
# TensorMap.cpp forwards to lib/Support/TensorMap.cpp (shared with the
# emulator); the project build takes that from NVFP4Support instead, and
# keeps it in this list for the standalone builds (scripts/device).
# EmulatorDevice.cpp needs the emulator (lib/Emulator, plain C++ as well):
# the project build links NVFP4Emulator, the standalone builds compile
# lib/Emulator/*.cpp and lib/Support/*.cpp next to these.
set(NVFP4_RUNTIME_SOURCES
  Check.cpp
  CudaDevice.cpp
  Device.cpp
  EmulatorDevice.cpp
  Fill.cpp
  Harness.cpp
  HarnessJson.cpp
  Json.cpp
  KernelImage.cpp
  Nvfp4Reference.cpp
  RunOptions.cpp
  Runner.cpp
  TensorMap.cpp
)
