//===- EmulatorDevice.h - The PTX emulator backend --------------*- C++ -*-===//
//
// The `emulator` backend of Device: lib/Emulator's Machine behind the
// runtime's interface. Device memory is the Machine's global memory, modules
// are PTX text (the emulator interprets PTX; a cubin or fatbinary is refused
// with a message saying how to get PTX), tensor maps use the portable
// encoding of nvfp4/Support/TensorMap.h (the emulator's TMA decodes exactly
// that), and a launch runs the whole grid on the host. A fault in the kernel
// becomes an Error carrying the emulator's full message (CTA, warp, lane, PTX
// line); lastStats() and lastLaunchReport() describe the last launch.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_EMULATORDEVICE_H
#define NVFP4_RUNTIME_EMULATORDEVICE_H

#include "nvfp4/Emulator/Machine.h"
#include "nvfp4/Runtime/Device.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nvfp4::rt {

/// Settings of the emulator backend.
struct EmulatorOptions {
  /// Stop a launch with an error after this many warp instructions (0: no
  /// limit); turns a livelock (a spin loop that can never succeed) into an
  /// error instead of a hang.
  uint64_t maxWarpInstructions = 0;
  /// Report shared-memory accesses racing with a TMA load still in flight.
  bool checkTmaRaces = true;
  /// Schedule exploration: emu::LaunchConfig::scheduleSeed of every launch.
  uint64_t scheduleSeed = 0;
  /// emu::LaunchConfig::sanitize of every launch.
  bool sanitize = true;
  /// emu::LaunchConfig::mmaNumerics of every launch.
  emu::MmaNumerics mmaNumerics = emu::MmaNumerics::Auto;
  /// emu::LaunchConfig::approxNumerics of every launch.
  emu::ApproxNumerics approxNumerics = emu::ApproxNumerics::Auto;
};

class EmulatorDevice final : public Device {
public:
  explicit EmulatorDevice(EmulatorOptions options = {});
  ~EmulatorDevice() override;

  BackendKind kind() const override { return BackendKind::Emulator; }
  std::string name() const override;

  Expected<DevicePtr> allocate(uint64_t bytes) override;
  Error free(DevicePtr ptr) override;
  Error copyToDevice(DevicePtr dst, const void *src, uint64_t bytes) override;
  Error copyToHost(void *dst, DevicePtr src, uint64_t bytes) override;

  Expected<ModuleHandle> loadModule(const KernelImage &image) override;
  Expected<FunctionHandle> getFunction(ModuleHandle module,
                                       const std::string &name) override;
  Expected<std::optional<std::vector<KernelParamInfo>>>
  getParams(FunctionHandle function) override;
  Expected<FunctionInfo> getFunctionInfo(FunctionHandle function) override;
  Expected<TensorMapBlob> encodeTensorMap(const TensorMapDesc &desc) override;
  Expected<LaunchTiming> launch(FunctionHandle function,
                                const LaunchConfig &config,
                                const std::vector<KernelArg> &args) override;
  std::string lastLaunchReport() const override;

  /// Counters of the last launch (zero before the first).
  const emu::LaunchStats &lastStats() const { return machine_.lastStats(); }
  /// The fault of the last failed launch (Kind::None after a success).
  const emu::Fault &lastFault() const { return machine_.lastFault(); }
  /// The machine itself, for tests.
  emu::Machine &machine() { return machine_; }

private:
  Expected<const emu::Kernel *> kernelOf(FunctionHandle f) const;

  EmulatorOptions options_;
  emu::Machine machine_;
  std::map<DevicePtr, uint64_t> allocations_;
  std::vector<std::shared_ptr<emu::LoadedModule>> modules_;
  std::vector<const emu::Kernel *> functions_;
  /// Wall time of the last launch, for lastLaunchReport().
  double lastWallMs_ = 0;
  bool launched_ = false;
};

/// Creates the emulator backend (never fails today; Expected for symmetry
/// with createCudaDevice).
Expected<std::unique_ptr<Device>>
createEmulatorDevice(const DeviceOptions &options,
                     EmulatorOptions emulatorOptions = {});

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_EMULATORDEVICE_H
