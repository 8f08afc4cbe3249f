//===- EmulatorDevice.cpp - The PTX emulator backend ----------------------===//

#include "nvfp4/Runtime/EmulatorDevice.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <sstream>

using namespace nvfp4;
using namespace nvfp4::rt;

namespace {

/// The emulator's Error into the runtime's (same convention, other type).
Error fromEmu(const emu::Error &e) {
  if (!e)
    return Error::success();
  return Error::failure(e.message());
}

emu::Dim3 toEmu(const Dim3 &d) { return emu::Dim3(d.x, d.y, d.z); }

std::string listKernels(const emu::LoadedModule &m) {
  std::string names;
  for (const auto &k : m.kernels())
    names += (names.empty() ? "" : ", ") + k->name();
  return names.empty() ? std::string("it has no .entry") : "kernels: " + names;
}

} // namespace

EmulatorDevice::EmulatorDevice(EmulatorOptions options) : options_(options) {}

EmulatorDevice::~EmulatorDevice() = default;

std::string EmulatorDevice::name() const {
  return "nvfp4 PTX emulator (functional sm_100a, runs on the host)";
}

Expected<DevicePtr> EmulatorDevice::allocate(uint64_t bytes) {
  if (bytes == 0)
    return makeError("cannot allocate 0 bytes");
  emu::Expected<uint64_t> p = machine_.allocate(bytes);
  if (!p)
    return Error::failure(p.message())
        .withContext("allocating " + std::to_string(bytes) + " bytes");
  allocations_[*p] = bytes;
  return static_cast<DevicePtr>(*p);
}

Error EmulatorDevice::free(DevicePtr ptr) {
  auto it = allocations_.find(ptr);
  if (it == allocations_.end())
    return makeError("free of 0x", std::hex, ptr,
                     ", which this device did not allocate");
  allocations_.erase(it);
  return fromEmu(machine_.free(ptr));
}

Error EmulatorDevice::copyToDevice(DevicePtr dst, const void *src,
                                   uint64_t bytes) {
  return fromEmu(machine_.write(dst, src, bytes))
      .withContext("copy to the device");
}

Error EmulatorDevice::copyToHost(void *dst, DevicePtr src, uint64_t bytes) {
  return fromEmu(machine_.read(src, dst, bytes)).withContext("copy to the host");
}

Expected<ModuleHandle> EmulatorDevice::loadModule(const KernelImage &image) {
  if (image.kind != ImageKind::Ptx)
    return makeError(
        "the emulator runs PTX, but ", image.origin, " is a ",
        stringify(image.kind),
        image.target ? " (" + image.target->str() + ")" : std::string(),
        "; give the PTX instead (nvfp4-opt --nvfp4-sm100-to-cubin="
        "\"ptx-file=FILE\" or nvfp4-run --emit-ptx=FILE write it for an MLIR "
        "kernel, nvcc -ptx for CUDA C++)");
  std::string_view text(reinterpret_cast<const char *>(image.bytes.data()),
                        image.bytes.size());
  auto module = machine_.loadPTX(text, image.origin);
  if (!module)
    return Error::failure(module.message())
        .withContext("the emulator cannot load " + image.origin);
  modules_.push_back(std::move(*module));
  return ModuleHandle{modules_.size()};
}

Expected<FunctionHandle>
EmulatorDevice::getFunction(ModuleHandle module, const std::string &name) {
  if (module.value == 0 || module.value > modules_.size())
    return makeError("unknown module handle ", module.value);
  const emu::LoadedModule &m = *modules_[module.value - 1];
  for (const auto &k : m.kernels())
    if (k->name() == name) {
      functions_.push_back(k.get());
      return FunctionHandle{functions_.size()};
    }
  return makeError("no kernel named '", name, "' in the module (",
                   listKernels(m), ")");
}

Expected<const emu::Kernel *>
EmulatorDevice::kernelOf(FunctionHandle f) const {
  if (f.value == 0 || f.value > functions_.size())
    return makeError("unknown function handle ", f.value);
  return functions_[f.value - 1];
}

Expected<std::optional<std::vector<KernelParamInfo>>>
EmulatorDevice::getParams(FunctionHandle function) {
  auto k = kernelOf(function);
  if (!k)
    return k.takeError();
  std::vector<KernelParamInfo> params;
  for (const emu::ParamInfo &p : (*k)->params())
    params.push_back({p.offset, p.size});
  return std::optional<std::vector<KernelParamInfo>>(std::move(params));
}

Expected<FunctionInfo> EmulatorDevice::getFunctionInfo(FunctionHandle function) {
  auto k = kernelOf(function);
  if (!k)
    return k.takeError();
  FunctionInfo info;
  info.staticSmemBytes = (*k)->staticSharedBytes();
  const emu::ptx::FunctionDirectives &d = (*k)->directives();
  uint64_t limit = 1024;
  for (const auto *dims : {&d.reqntid, &d.maxntid})
    if ((*dims)[0]) {
      uint64_t n = uint64_t((*dims)[0]) * ((*dims)[1] ? (*dims)[1] : 1) *
                   ((*dims)[2] ? (*dims)[2] : 1);
      limit = std::min(limit, n);
    }
  info.maxThreadsPerBlock = static_cast<uint32_t>(limit);
  return info;
}

Expected<TensorMapBlob>
EmulatorDevice::encodeTensorMap(const TensorMapDesc &desc) {
  if (Error e = validate(desc))
    return std::move(e);
  if (!desc.globalAddress)
    return makeError("tensor map: globalAddress is null");
  return encodePortable(desc);
}

Expected<LaunchTiming>
EmulatorDevice::launch(FunctionHandle function, const LaunchConfig &config,
                       const std::vector<KernelArg> &args) {
  auto k = kernelOf(function);
  if (!k)
    return k.takeError();
  const emu::Kernel &kernel = **k;
  const auto &params = kernel.params();
  if (args.size() != params.size())
    return makeError("kernel '", kernel.name(), "' takes ", params.size(),
                     " parameters but ", args.size(), " argument",
                     args.size() == 1 ? " was" : "s were", " given");
  emu::ParamBuilder builder(kernel);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].size() != params[i].size)
      return makeError("argument ", i, " of '", kernel.name(), "' is a ",
                       KernelArg::stringify(args[i].kind()), " (",
                       args[i].size(), " bytes) but parameter ", i, " (",
                       params[i].name, ") is ", params[i].size, " bytes");
    if (emu::Error e =
            builder.add(args[i].data(), static_cast<uint32_t>(args[i].size())))
      return fromEmu(e);
  }
  auto buffer = builder.take();
  if (!buffer)
    return Error::failure(buffer.message());

  emu::LaunchConfig cfg;
  cfg.grid = toEmu(config.grid);
  cfg.block = toEmu(config.block);
  cfg.cluster = toEmu(config.cluster);
  cfg.dynamicSharedBytes = config.dynamicSmemBytes;
  cfg.programmatic = config.programmatic;
  cfg.params = std::move(*buffer);
  cfg.maxWarpInstructions = options_.maxWarpInstructions;
  cfg.checkTmaRaces = options_.checkTmaRaces;
  cfg.scheduleSeed = options_.scheduleSeed;
  cfg.sanitize = options_.sanitize;
  cfg.mmaNumerics = options_.mmaNumerics;
  cfg.approxNumerics = options_.approxNumerics;

  launched_ = false;
  auto start = std::chrono::steady_clock::now();
  emu::Error e = machine_.launch(kernel, cfg);
  auto end = std::chrono::steady_clock::now();
  // What the kernel printed (device printf) before it failed belongs to the
  // error: a kernel's own check names what went wrong there.
  const std::string &printed = machine_.lastStats().printfOutput;
  if (e)
    return Error::failure(e.message() +
                          (printed.empty()
                               ? std::string()
                               : "\nthe kernel printed:\n" + printed))
        .withContext("the kernel failed on the emulator");
  LaunchTiming timing;
  timing.wallMs =
      std::chrono::duration<double, std::milli>(end - start).count();
  lastWallMs_ = timing.wallMs;
  launched_ = true;
  return timing;
}

std::string EmulatorDevice::lastLaunchReport() const {
  if (!launched_)
    return {};
  const emu::LaunchStats &s = machine_.lastStats();
  std::ostringstream os;
  os << "emulator: " << s.warpInstructions << " warp instructions, "
     << s.threadInstructions << " thread instructions, " << s.barriers
     << " barriers, " << s.mbarrierPhases << " mbarrier phases, " << s.mmas
     << " MMAs, " << s.tmaLoadBytes << " TMA bytes loaded, "
     << s.globalLoadBytes << " bytes loaded by ld, " << s.globalStoreBytes
     << " bytes stored by st in "
     << std::fixed << std::setprecision(3) << lastWallMs_ << " ms wall";
  if (lastWallMs_ > 0)
    os << " (" << std::setprecision(1)
       << double(s.threadInstructions) / (lastWallMs_ * 1e3)
       << " M thread-instructions/s)";
  if (!s.printfOutput.empty())
    os << "\nnvfp4-run: the kernel printed:\n" << s.printfOutput;
  return os.str();
}

Expected<std::unique_ptr<Device>>
nvfp4::rt::createEmulatorDevice(const DeviceOptions &,
                                EmulatorOptions emulatorOptions) {
  return std::unique_ptr<Device>(new EmulatorDevice(emulatorOptions));
}
