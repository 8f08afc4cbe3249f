//===- Machine.cpp - The emulated SM100 device ----------------------------===//
//
// Public entry points: global memory, module loading, parameter buffers and
// launches. The work happens in Decoder.cpp and Executor.cpp.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Emulator/Machine.h"

#include "Executor.h"
#include "Memory.h"
#include "Program.h"

#include "nvfp4/Emulator/Parser.h"

#include <cstring>

using namespace nvfp4::emu;

Machine::Machine() : global_(std::make_unique<GlobalMemory>()) {}
Machine::~Machine() = default;

Expected<uint64_t> Machine::allocate(uint64_t bytes, std::string label) {
  return global_->allocate(bytes, std::move(label));
}

Error Machine::free(uint64_t address) { return global_->free(address); }

Error Machine::write(uint64_t address, const void *data, uint64_t bytes) {
  if (bytes == 0)
    return Error::success();
  uint8_t *p = global_->translate(address, bytes);
  if (!p)
    return Error::failure(
        "write of " + std::to_string(bytes) + " bytes to global address " +
        std::to_string(address) + ": " + global_->describe(address, bytes));
  std::memcpy(p, data, bytes);
  return Error::success();
}

Error Machine::read(uint64_t address, void *data, uint64_t bytes) const {
  if (bytes == 0)
    return Error::success();
  uint8_t *p = global_->translate(address, bytes);
  if (!p)
    return Error::failure(
        "read of " + std::to_string(bytes) + " bytes from global address " +
        std::to_string(address) + ": " + global_->describe(address, bytes));
  std::memcpy(data, p, bytes);
  return Error::success();
}

uint64_t Machine::allocatedBytes() const { return global_->allocatedBytes(); }

Expected<std::shared_ptr<LoadedModule>>
Machine::loadModule(std::shared_ptr<const ptx::Module> module) {
  auto lm = std::make_shared<LoadedModule>();
  std::vector<std::unique_ptr<Kernel>> kernels;
  if (Error e = decodeModule(std::move(module), *global_, *lm, kernels))
    return e;
  lm->kernels_ = std::move(kernels);
  return lm;
}

Expected<std::shared_ptr<LoadedModule>>
Machine::loadPTX(std::string_view text, std::string_view bufferName) {
  Expected<std::unique_ptr<ptx::Module>> m = parseModule(text, bufferName);
  if (!m)
    return m.takeError();
  return loadModule(std::shared_ptr<const ptx::Module>(std::move(*m)));
}

Error Machine::launch(const Kernel &kernel, const LaunchConfig &config) {
  Executor ex(*global_, kernel, config, fault_, stats_);
  return ex.run();
}

Expected<const Kernel *> LoadedModule::kernel(const std::string &name) const {
  std::string names;
  for (const auto &k : kernels_) {
    if (k->name() == name)
      return k.get();
    names += names.empty() ? "" : ", ";
    names += k->name();
  }
  return Error::failure(
      "no kernel named '" + name + "' in " + module_->bufferName +
      (names.empty() ? " (it has no kernels)" : " (kernels: " + names + ")"));
}

uint64_t LoadedModule::globalAddress(const std::string &name) const {
  for (size_t i = 0; i < module_->globals.size(); ++i)
    if (module_->globals[i].name == name)
      return globalAddr_[i];
  return 0;
}

Error ParamBuilder::add(const void *data, uint32_t size) {
  const auto &ps = kernel_->params();
  if (next_ >= ps.size())
    return Error::failure("kernel '" + kernel_->name() + "' has only " +
                          std::to_string(ps.size()) + " parameters");
  const ParamInfo &p = ps[next_];
  if (size != p.size)
    return Error::failure("parameter " + std::to_string(next_) + " ('" +
                          p.name + "') of '" + kernel_->name() + "' has " +
                          std::to_string(p.size) + " bytes, got " +
                          std::to_string(size));
  std::memcpy(bytes_.data() + p.offset, data, size);
  ++next_;
  return Error::success();
}

Expected<std::vector<uint8_t>> ParamBuilder::take() {
  if (next_ != kernel_->params().size())
    return Error::failure("kernel '" + kernel_->name() + "' takes " +
                          std::to_string(kernel_->params().size()) +
                          " parameters, " + std::to_string(next_) +
                          " were given");
  return std::move(bytes_);
}
