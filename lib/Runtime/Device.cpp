//===- Device.cpp - The runtime's device interface ------------------------===//

#include "nvfp4/Runtime/Device.h"
#include "nvfp4/Runtime/CudaDevice.h"
#include "nvfp4/Runtime/EmulatorDevice.h"

#include <iomanip>

using namespace nvfp4::rt;

Device::~Device() = default;

std::string Dim3::str() const {
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," +
         std::to_string(z) + ")";
}

const char *KernelArg::stringify(Kind k) {
  switch (k) {
  case Kind::Pointer:
    return "pointer";
  case Kind::U8:
    return "u8";
  case Kind::U16:
    return "u16";
  case Kind::U32:
    return "u32";
  case Kind::U64:
    return "u64";
  case Kind::I8:
    return "i8";
  case Kind::I16:
    return "i16";
  case Kind::I32:
    return "i32";
  case Kind::I64:
    return "i64";
  case Kind::F32:
    return "f32";
  case Kind::F64:
    return "f64";
  case Kind::TensorMap:
    return "tensor map";
  }
  return "?";
}

Error nvfp4::rt::copyOnDevice(Device &device, DevicePtr dst, DevicePtr src,
                              uint64_t bytes) {
  if (device.kind() == BackendKind::Cuda)
    return device.copyUnified(dst, src, bytes);
  std::vector<uint8_t> bounce(bytes);
  if (Error e = device.copyToHost(bounce.data(), src, bytes))
    return e;
  return device.copyToDevice(dst, bounce.data(), bytes);
}

const char *nvfp4::rt::stringify(BackendKind k) {
  switch (k) {
  case BackendKind::Cuda:
    return "cuda";
  case BackendKind::Emulator:
    return "emulator";
  }
  return "?";
}

Expected<BackendKind> nvfp4::rt::parseBackendKind(const std::string &s) {
  if (s == "cuda")
    return BackendKind::Cuda;
  if (s == "emulator")
    return BackendKind::Emulator;
  return makeError("unknown backend '", s, "' (expected cuda or emulator)");
}

Expected<std::unique_ptr<Device>>
nvfp4::rt::createDevice(BackendKind kind, const DeviceOptions &options) {
  switch (kind) {
  case BackendKind::Cuda:
    return createCudaDevice(options);
  case BackendKind::Emulator:
    return createEmulatorDevice(options);
  }
  return makeError("unknown backend");
}

void nvfp4::rt::printLaunch(std::ostream &os, const std::string &kernel,
                            const LaunchTiming &timing, const Device &device) {
  os << "nvfp4-run: " << kernel << " finished: " << std::fixed
     << std::setprecision(3);
  if (timing.deviceMs)
    os << *timing.deviceMs << " ms on the device, ";
  os << timing.wallMs << " ms wall clock\n";
  os.unsetf(std::ios::fixed);
  std::string report = device.lastLaunchReport();
  if (!report.empty())
    os << "nvfp4-run: " << report << "\n";
}
