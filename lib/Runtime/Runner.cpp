//===- Runner.cpp - Run an external kernel on a Device --------------------===//

#include "nvfp4/Runtime/Runner.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <sstream>

using namespace nvfp4::rt;

namespace {

std::string describeScalar(const KernelArg &a) {
  std::ostringstream os;
  os << KernelArg::stringify(a.kind()) << " ";
  const void *p = a.data();
  auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (a.kind()) {
  case KernelArg::Kind::U8:
    os << unsigned(get(uint8_t()));
    break;
  case KernelArg::Kind::U16:
    os << get(uint16_t());
    break;
  case KernelArg::Kind::U32:
    os << get(uint32_t());
    break;
  case KernelArg::Kind::U64:
    os << get(uint64_t());
    break;
  case KernelArg::Kind::I8:
    os << int(get(int8_t()));
    break;
  case KernelArg::Kind::I16:
    os << get(int16_t());
    break;
  case KernelArg::Kind::I32:
    os << get(int32_t());
    break;
  case KernelArg::Kind::I64:
    os << get(int64_t());
    break;
  case KernelArg::Kind::F32:
    os << std::setprecision(9) << get(float());
    break;
  case KernelArg::Kind::F64:
    os << std::setprecision(17) << get(double());
    break;
  case KernelArg::Kind::Pointer:
    os << "0x" << std::hex << get(uint64_t());
    break;
  case KernelArg::Kind::TensorMap:
    os << "(128 bytes)";
    break;
  }
  return os.str();
}

std::string describeBuffer(const BufferSpec &b) {
  std::ostringstream os;
  os << b.name << ": " << b.bytes << " bytes, ";
  switch (b.init) {
  case BufferInit::File:
    os << "file=" << b.file;
    break;
  case BufferInit::Seed:
    os << "seed=" << b.seed << ":" << stringify(b.seedType);
    break;
  case BufferInit::Zero:
    os << "zero";
    break;
  case BufferInit::Poison:
    os << "poison";
    break;
  }
  if (!b.dumpInitPath.empty())
    os << ", dump-init=" << b.dumpInitPath;
  if (!b.outPath.empty())
    os << ", out=" << b.outPath;
  return os.str();
}

std::string describeArg(const RunOptions &o, const ArgSpec &a) {
  switch (a.kind) {
  case ArgSpec::Kind::Buffer:
    return "buf " + describeBuffer(o.buffers[a.bufferIndex]);
  case ArgSpec::Kind::Pointer:
    return "ptr " + a.pointerBuffer +
           (a.pointerOffset ? "+" + std::to_string(a.pointerOffset) : "");
  case ArgSpec::Kind::Scalar:
    return describeScalar(a.scalar);
  case ArgSpec::Kind::TensorMap: {
    std::string s = "tmap " + a.tmap.buffer;
    if (a.tmap.offset)
      s += "+" + std::to_string(a.tmap.offset);
    return s + ": " + describe(a.tmap.desc) +
           (a.tmap.byPointer ? ", by pointer" : ", by value");
  }
  }
  return "?";
}

Error readFile(const std::string &path, const BufferSpec &b,
               std::vector<uint8_t> &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return makeError("cannot open '", path, "' for buffer '", b.name,
                     "': ", std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad())
    return makeError("cannot read '", path, "' for buffer '", b.name, "'");
  if (bytes.size() < b.bytes)
    return makeError("file '", path, "' for buffer '", b.name,
                     "' is short: ", bytes.size(), " bytes, expected ",
                     b.bytes);
  if (bytes.size() > b.bytes)
    return makeError("file '", path, "' for buffer '", b.name, "' is ",
                     bytes.size(), " bytes, longer than the buffer's ",
                     b.bytes);
  out = std::move(bytes);
  return Error::success();
}

Error writeFile(const std::string &path, const std::vector<uint8_t> &data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return makeError("cannot write '", path, "': ", std::strerror(errno));
  out.write(reinterpret_cast<const char *>(data.data()),
            static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out)
    return makeError("cannot write '", path, "': ", std::strerror(errno));
  return Error::success();
}

std::string listNames(const std::vector<PtxEntry> &entries) {
  std::string names;
  for (const PtxEntry &e : entries)
    names += (names.empty() ? "" : ", ") + e.name;
  return names;
}

/// Checks the arguments against a kernel's parameter sizes.
Error checkParams(const RunOptions &o, const std::string &kernel,
                  const std::vector<uint64_t> &sizes,
                  const std::vector<std::string> &names) {
  if (sizes.size() != o.args.size())
    return makeError("kernel '", kernel, "' takes ", sizes.size(),
                     " parameters but ", o.args.size(), " --arg ",
                     o.args.size() == 1 ? "was" : "were", " given");
  for (size_t i = 0; i < sizes.size(); ++i) {
    uint64_t have = o.args[i].paramBytes();
    if (have != sizes[i])
      return makeError("--arg=", o.args[i].text, " (argument ", i, ") is ",
                       have, " bytes but parameter ", i, " of '", kernel, "'",
                       names.empty() || names[i].empty()
                           ? std::string()
                           : " (" + names[i] + ")",
                       " is ", sizes[i], " bytes");
  }
  return Error::success();
}

} // namespace

Expected<RunPlan> nvfp4::rt::prepareRun(RunOptions options) {
  RunPlan plan;
  auto image = KernelImage::fromFile(options.input);
  if (!image)
    return image.takeError();
  plan.image = std::move(*image);

  const KernelImage &img = plan.image;
  if (options.kernel.empty()) {
    if (img.kind != ImageKind::Ptx)
      return makeError("--kernel=NAME is needed for a ", stringify(img.kind),
                       " (", img.origin, ")");
    if (img.entries.size() != 1)
      return makeError(img.origin, " has ", img.entries.size(), " kernels (",
                       listNames(img.entries),
                       "): choose one with --kernel=NAME");
    plan.kernel = img.entries.front().name;
  } else {
    plan.kernel = options.kernel;
    if (img.kind == ImageKind::Ptx && !img.findEntry(plan.kernel))
      return makeError("no kernel named '", plan.kernel, "' in ", img.origin,
                       img.entries.empty()
                           ? std::string(" (it has no .entry)")
                           : " (kernels: " + listNames(img.entries) + ")");
  }
  if (const PtxEntry *entry = img.findEntry(plan.kernel)) {
    std::vector<uint64_t> sizes;
    std::vector<std::string> names;
    for (const PtxParam &p : entry->params) {
      sizes.push_back(p.bytes);
      names.push_back(p.name);
    }
    if (Error e = checkParams(options, plan.kernel, sizes, names))
      return std::move(e);
  }

  for (const BufferSpec &b : options.buffers) {
    std::vector<uint8_t> contents;
    switch (b.init) {
    case BufferInit::File:
      if (Error e = readFile(b.file, b, contents))
        return std::move(e);
      break;
    case BufferInit::Seed:
      contents.resize(b.bytes);
      if (Error e =
              fillRandom(contents.data(), contents.size(), b.seed, b.seedType))
        return std::move(e).withContext("buffer '" + b.name + "'");
      break;
    case BufferInit::Zero:
      contents.assign(b.bytes, 0);
      break;
    case BufferInit::Poison:
      contents.assign(b.bytes, kPoisonByte);
      break;
    }
    plan.initialContents.push_back(std::move(contents));
  }
  plan.options = std::move(options);
  return plan;
}

void nvfp4::rt::printPlan(const RunPlan &plan, std::ostream &os) {
  const RunOptions &o = plan.options;
  const LaunchConfig &l = o.launch;
  os << "nvfp4-run: input " << plan.image.describe() << "\n";
  os << "nvfp4-run: kernel " << plan.kernel << " grid=" << l.grid.str()
     << " block=" << l.block.str() << " cluster=" << l.cluster.str()
     << " smem=" << l.dynamicSmemBytes << "\n";
  for (size_t i = 0; i < o.args.size(); ++i)
    os << "  arg " << i << ": " << describeArg(o, o.args[i]) << "\n";
  std::vector<bool> isParam(o.buffers.size(), false);
  for (const ArgSpec &a : o.args)
    if (a.kind == ArgSpec::Kind::Buffer)
      isParam[a.bufferIndex] = true;
  for (size_t i = 0; i < o.buffers.size(); ++i)
    if (!isParam[i])
      os << "  buffer " << describeBuffer(o.buffers[i]) << "\n";
}

Error nvfp4::rt::executeRun(const RunPlan &plan, Device &device,
                            std::ostream &os) {
  const RunOptions &o = plan.options;
  os << "nvfp4-run: backend " << stringify(device.kind()) << ": "
     << device.name() << "\n";

  // Buffers, filled.
  std::vector<DevicePtr> addresses;
  std::vector<DevicePtr> owned; // freed at the end, tensor-map copies too
  auto freeAll = [&]() -> Error {
    Error first = Error::success();
    for (DevicePtr p : owned)
      if (Error e = device.free(p))
        if (!first)
          first = std::move(e);
    owned.clear();
    return first;
  };
  auto fail = [&](Error e) -> Error {
    (void)freeAll(); // the first failure is the one to report
    return e;
  };
  for (size_t i = 0; i < o.buffers.size(); ++i) {
    const BufferSpec &b = o.buffers[i];
    auto ptr = device.allocate(b.bytes);
    if (!ptr)
      return fail(
          std::move(ptr.takeError()).withContext("buffer '" + b.name + "'"));
    owned.push_back(*ptr);
    addresses.push_back(*ptr);
    if (Error e =
            device.copyToDevice(*ptr, plan.initialContents[i].data(), b.bytes))
      return fail(std::move(e).withContext("buffer '" + b.name + "'"));
    if (!b.dumpInitPath.empty())
      if (Error e = writeFile(b.dumpInitPath, plan.initialContents[i]))
        return fail(std::move(e));
  }
  auto addressOf = [&](const std::string &name) -> DevicePtr {
    for (size_t i = 0; i < o.buffers.size(); ++i)
      if (o.buffers[i].name == name)
        return addresses[i];
    return 0;
  };

  // The kernel.
  auto module = device.loadModule(plan.image);
  if (!module)
    return fail(module.takeError());
  auto function = device.getFunction(*module, plan.kernel);
  if (!function)
    return fail(function.takeError());
  auto params = device.getParams(*function);
  if (!params)
    return fail(params.takeError());
  if (*params) {
    std::vector<uint64_t> sizes;
    for (const KernelParamInfo &p : **params)
      sizes.push_back(p.bytes);
    if (Error e = checkParams(o, plan.kernel, sizes, {}))
      return fail(std::move(e));
  }
  auto info = device.getFunctionInfo(*function);
  if (!info)
    return fail(info.takeError());

  // Arguments.
  std::vector<KernelArg> args;
  for (const ArgSpec &a : o.args) {
    switch (a.kind) {
    case ArgSpec::Kind::Buffer:
      args.push_back(KernelArg::pointer(addresses[a.bufferIndex]));
      break;
    case ArgSpec::Kind::Pointer:
      args.push_back(
          KernelArg::pointer(addressOf(a.pointerBuffer) + a.pointerOffset));
      break;
    case ArgSpec::Kind::Scalar:
      args.push_back(a.scalar);
      break;
    case ArgSpec::Kind::TensorMap: {
      TensorMapDesc desc = a.tmap.desc;
      desc.globalAddress = addressOf(a.tmap.buffer) + a.tmap.offset;
      auto blob = device.encodeTensorMap(desc);
      if (!blob)
        return fail(std::move(blob.takeError()).withContext("--arg=" + a.text));
      if (!a.tmap.byPointer) {
        args.push_back(KernelArg::tensorMap(*blob));
        break;
      }
      auto copy = device.allocate(kTensorMapBytes);
      if (!copy)
        return fail(copy.takeError());
      owned.push_back(*copy);
      if (Error e =
              device.copyToDevice(*copy, blob->bytes.data(), kTensorMapBytes))
        return fail(std::move(e));
      args.push_back(KernelArg::pointer(*copy));
      break;
    }
    }
  }

  // Launch.
  const LaunchConfig &l = o.launch;
  os << "nvfp4-run: launching " << plan.image.describe() << " kernel "
     << plan.kernel << "\n";
  os << "  grid=" << l.grid.str() << " block=" << l.block.str()
     << " cluster=" << l.cluster.str() << " dynamic smem=" << l.dynamicSmemBytes
     << " bytes";
  if (info->registers)
    os << "; " << *info->registers << " registers";
  if (info->staticSmemBytes)
    os << ", " << *info->staticSmemBytes << " bytes static smem";
  os << "\n";
  for (size_t i = 0; i < o.args.size(); ++i) {
    os << "  arg " << i << ": " << describeArg(o, o.args[i]);
    if (args[i].kind() == KernelArg::Kind::Pointer)
      os << " -> 0x" << std::hex
         << *static_cast<const uint64_t *>(args[i].data()) << std::dec;
    os << "\n";
  }
  auto timing = device.launch(*function, l, args);
  if (!timing)
    return fail(timing.takeError());
  printLaunch(os, plan.kernel, *timing, device);

  // Results.
  for (size_t i = 0; i < o.buffers.size(); ++i) {
    const BufferSpec &b = o.buffers[i];
    if (b.outPath.empty())
      continue;
    std::vector<uint8_t> data(b.bytes);
    if (Error e = device.copyToHost(data.data(), addresses[i], b.bytes))
      return fail(std::move(e).withContext("buffer '" + b.name + "'"));
    if (Error e = writeFile(b.outPath, data))
      return fail(std::move(e));
    os << "nvfp4-run: wrote " << b.name << " (" << b.bytes << " bytes) to "
       << b.outPath << "\n";
  }
  return freeAll();
}
