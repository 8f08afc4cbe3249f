//===- CudaDeviceTest.cpp - Tests for the cuda backend without a GPU ------===//
//
// The "no driver" paths use library names that do not exist or are not a
// driver; everything else runs the backend against MockCudaDriver.cpp
// (NVFP4_CUDA_DRIVER_LIB=libnvfp4-mock-cuda.so), which checks the launch
// attributes the real driver needs and executes `saxpy` on the host.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/CudaDevice.h"
#include "nvfp4/Runtime/Harness.h"

#include <fstream>
#include <iterator>

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

using namespace nvfp4::rt;

namespace {

std::string input(const char *name) {
  return std::string(NVFP4_RUNTIME_TEST_INPUTS) + "/" + name;
}

KernelImage image(const char *file) {
  auto i = KernelImage::fromFile(input(file));
  EXPECT_TRUE(i) << i.takeError().message();
  return i ? std::move(*i) : KernelImage();
}

KernelImage ptx(const std::string &text) {
  auto i = KernelImage::fromBytes(
      std::vector<uint8_t>(text.begin(), text.end()), "inline.ptx");
  EXPECT_TRUE(i) << i.takeError().message();
  return i ? std::move(*i) : KernelImage();
}

class CudaDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char *v :
         {"NVFP4_MOCK_CC", "NVFP4_MOCK_GPU_NAME", "NVFP4_MOCK_DEVICES",
          "NVFP4_MOCK_FAIL", "NVFP4_MOCK_RECORD"})
      unsetenv(v);
    setenv(kCudaDriverLibEnv, NVFP4_MOCK_CUDA_DRIVER, 1);
  }
  void TearDown() override { unsetenv(kCudaDriverLibEnv); }

  std::unique_ptr<Device> create() {
    auto d = createDevice(BackendKind::Cuda, {});
    EXPECT_TRUE(d) << d.takeError().message();
    return d ? std::move(*d) : nullptr;
  }
  std::string createError() {
    auto d = createDevice(BackendKind::Cuda, {});
    return d ? std::string("<ok>") : d.takeError().message();
  }
  /// Kernel `k` (an empty sm_90a kernel) loaded on `d`.
  std::optional<FunctionHandle> emptyKernel(Device &d) {
    auto m = d.loadModule(ptx(".version 9.0\n.target sm_90a\n"
                              ".entry k() { ret; }\n"));
    EXPECT_TRUE(m) << (m ? "" : m.takeError().message());
    if (!m)
      return std::nullopt;
    auto k = d.getFunction(*m, "k");
    EXPECT_TRUE(k);
    if (!k) {
      (void)k.takeError();
      return std::nullopt;
    }
    return *k;
  }
  /// What the mock driver recorded in `path` (NVFP4_MOCK_RECORD).
  static std::string record(const std::string &path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)),
                       std::istreambuf_iterator<char>());
  }
};

TEST_F(CudaDeviceTest, DriverLibraryName) {
  unsetenv(kCudaDriverLibEnv);
  EXPECT_EQ(cudaDriverLibraryName(), "libcuda.so.1");
  setenv(kCudaDriverLibEnv, "", 1);
  EXPECT_EQ(cudaDriverLibraryName(), "libcuda.so.1");
  setenv(kCudaDriverLibEnv, "/opt/driver/libcuda.so", 1);
  EXPECT_EQ(cudaDriverLibraryName(), "/opt/driver/libcuda.so");
}

TEST_F(CudaDeviceTest, NoDriverIsAClearError) {
  setenv(kCudaDriverLibEnv, "/nonexistent/libcuda.so.1", 1);
  std::string message = createError();
  EXPECT_EQ(message.rfind("no CUDA driver (/nonexistent/libcuda.so.1) on this "
                          "machine: ",
                          0),
            0u)
      << message;
}

TEST_F(CudaDeviceTest, ALibraryThatIsNotADriverIsAClearError) {
  setenv(kCudaDriverLibEnv, "libm.so.6", 1);
  EXPECT_EQ(createError(),
            "libm.so.6 has no cuInit: it is not a CUDA driver, or one older "
            "than CUDA 12 (cuTensorMapEncodeTiled and cuLaunchKernelEx need "
            "12.0)");
}

TEST_F(CudaDeviceTest, EveryEntryPointExistsInTheToolkitStub) {
  // The toolkit's stub libcuda exports the real driver's symbols (and fails
  // every call): loading it proves that each name the backend resolves is
  // one the driver exports, without a GPU.
  std::string stub = NVFP4_CUDA_STUB_DRIVER;
  if (FILE *f = std::fopen(stub.c_str(), "rb"))
    std::fclose(f);
  else
    GTEST_SKIP() << "no CUDA stub library at " << stub;
  setenv(kCudaDriverLibEnv, stub.c_str(), 1);
  EXPECT_EQ(createError(), "cuInit failed: CUDA_ERROR_STUB_LIBRARY (the "
                           "library loaded is the CUDA toolkit's stub, not a "
                           "driver)");
}

TEST_F(CudaDeviceTest, EmulatorNeedsNoDriver) {
  // The emulator backend works where the driver library is missing.
  setenv(kCudaDriverLibEnv, "libnvfp4-no-such-driver.so", 1);
  auto d = createDevice(BackendKind::Emulator, {});
  ASSERT_TRUE(d) << d.takeError().message();
  EXPECT_EQ((*d)->kind(), BackendKind::Emulator);
}

TEST_F(CudaDeviceTest, FailuresNameTheCallAndTheResult) {
  setenv("NVFP4_MOCK_FAIL", "cuInit:100", 1); // CUDA_ERROR_NO_DEVICE
  EXPECT_EQ(createError(), "cuInit failed: CUDA_ERROR_NO_DEVICE (no "
                           "CUDA-capable device is detected)");
  setenv("NVFP4_MOCK_FAIL", "cuDevicePrimaryCtxRetain:2", 1);
  EXPECT_EQ(createError(), "cuDevicePrimaryCtxRetain failed: "
                           "CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  setenv("NVFP4_MOCK_FAIL", "cuDeviceGetAttribute:12345", 1);
  EXPECT_EQ(createError(), "compute capability major: cuDeviceGetAttribute "
                           "failed: CUresult 12345");
  setenv("NVFP4_MOCK_DEVICES", "0", 1);
  unsetenv("NVFP4_MOCK_FAIL");
  EXPECT_EQ(createError(), "the CUDA driver found no GPU");
  setenv("NVFP4_MOCK_DEVICES", "1", 1);
  auto d = createDevice(BackendKind::Cuda, DeviceOptions{3});
  ASSERT_FALSE(d);
  EXPECT_EQ(d.takeError().message(), "no GPU 3: the CUDA driver found 1");
}

TEST_F(CudaDeviceTest, NamesTheGpu) {
  auto d = create();
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind(), BackendKind::Cuda);
  EXPECT_EQ(d->name(), "Mock H200 (sm_90, 132 SMs), driver 13.0");
}

TEST_F(CudaDeviceTest, MemoryRoundTripAndRangeChecks) {
  auto d = create();
  ASSERT_TRUE(d);
  auto p = d->allocate(64);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p % 256, 0u);
  std::vector<uint8_t> in(64), out(64, 0);
  for (size_t i = 0; i < 64; ++i)
    in[i] = uint8_t(i * 3 + 1);
  EXPECT_FALSE(d->copyToDevice(*p, in.data(), 64));
  EXPECT_FALSE(d->copyToHost(out.data(), *p, 64));
  EXPECT_EQ(in, out);
  Error outside = d->copyToDevice(*p + 32, in.data(), 64);
  ASSERT_TRUE(outside);
  EXPECT_NE(outside.message().find("is outside every allocation"),
            std::string::npos);
  EXPECT_EQ(d->allocate(0).takeError().message(), "cannot allocate 0 bytes");
  EXPECT_FALSE(d->free(*p));
  EXPECT_NE(d->free(*p).message().find("which this device did not allocate"),
            std::string::npos);
}

TEST_F(CudaDeviceTest, RefusesSm100aOnHopperAndLoadsItOnBlackwell) {
  auto d = create();
  ASSERT_TRUE(d);
  for (const char *file : {"sm100a_kernel.ptx", "sm100a_kernel.cubin"}) {
    auto m = d->loadModule(image(file));
    ASSERT_FALSE(m) << file;
    EXPECT_EQ(m.takeError().message(),
              "this kernel targets sm_100a but the GPU is sm_90 (Mock H200); "
              "use --backend=emulator");
  }
  setenv("NVFP4_MOCK_CC", "10.0", 1);
  setenv("NVFP4_MOCK_GPU_NAME", "Mock B200", 1);
  auto b200 = create();
  ASSERT_TRUE(b200);
  for (const char *file : {"sm100a_kernel.ptx", "sm100a_kernel.cubin"}) {
    auto m = b200->loadModule(image(file));
    ASSERT_TRUE(m) << m.takeError().message();
    EXPECT_TRUE(b200->getFunction(*m, "sm100a_kernel"));
  }
  // sm_90a PTX is arch-specific too: not on a B200.
  EXPECT_EQ(b200->loadModule(image("saxpy_sm90a.ptx")).takeError().message(),
            "this kernel targets sm_90a but the GPU is sm_100 (Mock B200); "
            "use --backend=emulator");
}

TEST_F(CudaDeviceTest, JitErrorsCarryTheLog) {
  auto d = create();
  ASSERT_TRUE(d);
  auto m = d->loadModule(
      ptx(".version 9.0\n.target sm_90\n// MOCK_JIT_ERROR\n.entry k() { }\n"));
  ASSERT_FALSE(m);
  EXPECT_EQ(m.takeError().message(),
            "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (a PTX JIT "
            "compilation failed) loading inline.ptx (PTX 9.0, .target sm_90)\n"
            "ptxas fatal   : mock JIT error");
}

TEST_F(CudaDeviceTest, UnknownKernelNamesTheModule) {
  auto d = create();
  ASSERT_TRUE(d);
  auto m = d->loadModule(image("saxpy_sm90a.ptx"));
  ASSERT_TRUE(m) << m.takeError().message();
  auto f = d->getFunction(*m, "daxpy");
  ASSERT_FALSE(f);
  std::string message = f.takeError().message();
  EXPECT_EQ(message.substr(0, 24), "no kernel named 'daxpy' ");
  EXPECT_NE(message.find("saxpy_sm90a.ptx (cuModuleGetFunction: "
                         "CUDA_ERROR_NOT_FOUND (named symbol not found))"),
            std::string::npos)
      << message;
}

TEST_F(CudaDeviceTest, LaunchesSaxpy) {
  auto d = create();
  ASSERT_TRUE(d);
  auto m = d->loadModule(image("saxpy_sm90a.ptx"));
  ASSERT_TRUE(m) << m.takeError().message();
  auto f = d->getFunction(*m, "saxpy");
  ASSERT_TRUE(f);
  auto params = d->getParams(*f);
  ASSERT_TRUE(params);
  ASSERT_TRUE(*params);
  ASSERT_EQ((*params)->size(), 4u);
  EXPECT_EQ((**params)[1].offset, 8u);
  EXPECT_EQ((**params)[3].bytes, 4u);
  auto info = d->getFunctionInfo(*f);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->registers, 32u);

  const unsigned n = 100;
  std::vector<float> x(n), y(n);
  for (unsigned i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = 1.0f;
  }
  auto px = d->allocate(n * 4), py = d->allocate(n * 4);
  ASSERT_TRUE(px && py);
  ASSERT_FALSE(d->copyToDevice(*px, x.data(), n * 4));
  ASSERT_FALSE(d->copyToDevice(*py, y.data(), n * 4));
  LaunchConfig config;
  config.grid = {4, 1, 1};
  config.block = {32, 1, 1};
  auto timing = d->launch(*f, config,
                          {KernelArg::f32(2.0f), KernelArg::pointer(*px),
                           KernelArg::pointer(*py), KernelArg::u32(n)});
  ASSERT_TRUE(timing) << timing.takeError().message();
  EXPECT_EQ(timing->deviceMs, 0.25);
  ASSERT_FALSE(d->copyToHost(y.data(), *py, n * 4));
  for (unsigned i = 0; i < n; ++i)
    EXPECT_EQ(y[i], 2.0f * i + 1.0f);
}

// launchOn enqueues on the caller's stream (the C API's nvfp4_launch with
// a stream): the driver sees the stream, and the call does not synchronize.
TEST_F(CudaDeviceTest, LaunchesOnTheCallersStream) {
  std::string path = ::testing::TempDir() + "nvfp4-mock-stream.log";
  std::remove(path.c_str());
  setenv("NVFP4_MOCK_RECORD", path.c_str(), 1);
  auto d = create();
  ASSERT_TRUE(d);
  auto k = emptyKernel(*d);
  ASSERT_TRUE(k);
  LaunchConfig config;
  config.grid = {2, 1, 1};
  config.block = {32, 1, 1};
  EXPECT_FALSE(d->launchOn(*k, config, {}, reinterpret_cast<void *>(0x5a0)));
  EXPECT_TRUE(d->launch(*k, config, {}));
  unsetenv("NVFP4_MOCK_RECORD");
  std::string text = record(path);
  EXPECT_NE(text.find("launch k grid=2,1,1 block=32,1,1 smem=0 cluster=none "
                      "stream=0x5a0\n"),
            std::string::npos)
      << text;
  // The synchronous launch uses the legacy default stream.
  EXPECT_NE(text.find("cluster=none\n"), std::string::npos) << text;
}

// A programmatic launch (the split-KV combine) carries the programmatic
// stream serialization attribute, beside a cluster's; NVFP4_PDL=0 in the
// environment (read when the device is created) leaves it out.
TEST_F(CudaDeviceTest, ProgrammaticLaunch) {
  std::string path = ::testing::TempDir() + "nvfp4-mock-pdl.log";
  for (const char *pdl : {"1", "0"}) {
    std::remove(path.c_str());
    setenv("NVFP4_MOCK_RECORD", path.c_str(), 1);
    setenv("NVFP4_PDL", pdl, 1);
    auto d = create();
    ASSERT_TRUE(d);
    auto k = emptyKernel(*d);
    ASSERT_TRUE(k);
    LaunchConfig config;
    config.grid = {2, 1, 1};
    config.block = {32, 1, 1};
    config.programmatic = true;
    EXPECT_FALSE(d->launchOn(*k, config, {}, reinterpret_cast<void *>(0x5a0)));
    config.grid = {4, 1, 1};
    config.cluster = {2, 1, 1};
    EXPECT_FALSE(d->launchOn(*k, config, {}, reinterpret_cast<void *>(0x5a0)));
    unsetenv("NVFP4_MOCK_RECORD");
    unsetenv("NVFP4_PDL");
    std::string text = record(path);
    std::string flag = std::string(pdl) == "1" ? " programmatic" : "";
    EXPECT_NE(text.find("launch k grid=2,1,1 block=32,1,1 smem=0 "
                        "cluster=none" +
                        flag + " stream=0x5a0\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("launch k grid=4,1,1 block=32,1,1 smem=0 "
                        "cluster=2,1,1" +
                        flag + " stream=0x5a0\n"),
              std::string::npos)
        << text;
  }
}

TEST_F(CudaDeviceTest, LaunchAttributes) {
  auto d = create();
  ASSERT_TRUE(d);
  auto m = d->loadModule(ptx(".version 9.0\n.target sm_90a\n"
                             ".entry k() { ret; }\n.entry fault() { ret; }\n"));
  ASSERT_TRUE(m) << m.takeError().message();
  auto k = d->getFunction(*m, "k");
  ASSERT_TRUE(k);
  LaunchConfig config;
  config.grid = {32, 1, 1};
  config.block = {128, 1, 1};
  // More than 48 KiB of dynamic shared memory: the mock refuses the launch
  // unless the backend raised the kernel's limit first.
  config.dynamicSmemBytes = 200000;
  EXPECT_TRUE(d->launch(*k, config, {}));
  // A cluster of 16 is non-portable: the mock refuses it without the
  // attribute.
  config.cluster = {16, 1, 1};
  EXPECT_TRUE(d->launch(*k, config, {}));
  config.dynamicSmemBytes = 232449;
  EXPECT_EQ(d->launch(*k, config, {}).takeError().message(),
            "232449 bytes of dynamic shared memory (--smem) plus the kernel's "
            "0 static bytes exceed the GPU's limit of 232448 bytes per block");
  config.dynamicSmemBytes = 0;
  config.cluster = {3, 1, 1};
  EXPECT_EQ(d->launch(*k, config, {}).takeError().message(),
            "cuLaunchKernelEx failed: CUDA_ERROR_INVALID_CLUSTER_SIZE "
            "launching grid=(32,1,1) block=(128,1,1) cluster=(3,1,1) smem=0");
  config.cluster = {1, 1, 1};
  auto fault = d->getFunction(*m, "fault");
  ASSERT_TRUE(fault);
  EXPECT_EQ(d->launch(*fault, config, {}).takeError().message(),
            "the kernel failed: cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS "
            "(an illegal memory access was encountered)");
}

// A launch looks its kernel up on every call (the C API, the runner): the
// second lookup, the kernel's attributes and the shared-memory opt-in of a
// size already allowed do not call the driver again (a failure injected
// into those calls goes unseen), and a larger size asks again.
TEST_F(CudaDeviceTest, LooksUpEachKernelOnce) {
  auto d = create();
  ASSERT_TRUE(d);
  auto m = d->loadModule(ptx(".version 9.0\n.target sm_90a\n"
                             ".entry k() { ret; }\n"));
  ASSERT_TRUE(m) << m.takeError().message();
  auto k = d->getFunction(*m, "k");
  ASSERT_TRUE(k);
  LaunchConfig config;
  config.grid = {4, 1, 1};
  config.block = {128, 1, 1};
  config.dynamicSmemBytes = 200000;
  ASSERT_TRUE(d->launch(*k, config, {}));
  setenv("NVFP4_MOCK_FAIL", "cuModuleGetFunction:500", 1);
  auto again = d->getFunction(*m, "k");
  ASSERT_TRUE(again) << again.takeError().message();
  EXPECT_EQ(again->value, k->value);
  setenv("NVFP4_MOCK_FAIL", "cuFuncSetAttribute:1", 1);
  EXPECT_TRUE(d->launch(*again, config, {}));
  setenv("NVFP4_MOCK_FAIL", "cuFuncGetAttribute:1", 1);
  EXPECT_TRUE(d->launch(*again, config, {}));
  setenv("NVFP4_MOCK_FAIL", "cuFuncSetAttribute:1", 1);
  config.dynamicSmemBytes = 210000;
  auto bigger = d->launch(*again, config, {});
  ASSERT_FALSE(bigger);
  EXPECT_NE(bigger.takeError().message().find("cuFuncSetAttribute"),
            std::string::npos);
  unsetenv("NVFP4_MOCK_FAIL");
}

// A 2-D bf16 map of 256 x 96 elements at `address`, boxes of 64 x 32.
TensorMapDesc bf16Map(uint64_t address) {
  TensorMapDesc desc;
  desc.dataType = TmaDataType::BF16;
  desc.rank = 2;
  desc.globalAddress = address;
  desc.globalDims = {256, 96, 0, 0, 0};
  desc.globalStrides = {512, 0, 0, 0};
  desc.boxDims = {64, 32, 0, 0, 0};
  return desc;
}

// A device keeps the maps it encoded (TensorMapCache): the same descriptor
// again calls no driver (a failure injected into the encoder goes unseen),
// another address does; past kMaxEncoded maps the kept ones are dropped.
TEST_F(CudaDeviceTest, KeepsEncodedTensorMaps) {
  auto d = create();
  ASSERT_TRUE(d);
  auto g = d->allocate(1 << 20);
  ASSERT_TRUE(g);
  TensorMapDesc desc = bf16Map(*g);
  TensorMapCache cache;
  auto first = encodeTensorMapCached(*d, desc, &cache);
  ASSERT_TRUE(first) << first.takeError().message();
  setenv("NVFP4_MOCK_FAIL", "cuTensorMapEncodeTiled:1", 1);
  auto again = encodeTensorMapCached(*d, desc, &cache);
  ASSERT_TRUE(again) << again.takeError().message();
  EXPECT_EQ(again->bytes, first->bytes);
  TensorMapDesc other = desc;
  other.globalAddress += 1024;
  EXPECT_FALSE(encodeTensorMapCached(*d, other, &cache));
  EXPECT_FALSE(encodeTensorMapCached(*d, desc, nullptr));
  unsetenv("NVFP4_MOCK_FAIL");
  for (size_t i = 1; i < TensorMapCache::kMaxEncoded; ++i) {
    other.globalAddress = desc.globalAddress + 16 * i;
    ASSERT_TRUE(encodeTensorMapCached(*d, other, &cache));
  }
  EXPECT_EQ(cache.encoded.size(), TensorMapCache::kMaxEncoded);
  other.globalAddress = desc.globalAddress + 16 * TensorMapCache::kMaxEncoded;
  ASSERT_TRUE(encodeTensorMapCached(*d, other, &cache));
  EXPECT_EQ(cache.encoded.size(), 1u);
  setenv("NVFP4_MOCK_FAIL", "cuTensorMapEncodeTiled:1", 1);
  EXPECT_FALSE(encodeTensorMapCached(*d, desc, &cache));
  unsetenv("NVFP4_MOCK_FAIL");
}

// A device's copies of the maps passed by pointer share blocks of
// kSlabMaps slots (one allocation, not one a map); a deferred copy's bytes
// land when flushed, adjacent ones together; a failed flush forgets them.
TEST_F(CudaDeviceTest, KeepsTensorMapCopiesInBlocks) {
  auto d = create();
  ASSERT_TRUE(d);
  auto g = d->allocate(1 << 20);
  ASSERT_TRUE(g);
  TensorMapCache cache;
  auto blobAt = [&](uint64_t offset) {
    auto blob = encodeTensorMapCached(*d, bf16Map(*g + offset), &cache);
    EXPECT_TRUE(blob) << blob.takeError().message();
    return *blob;
  };
  auto bytesAt = [&](DevicePtr p) {
    std::vector<uint8_t> got(kTensorMapBytes);
    EXPECT_FALSE(d->copyToHost(got.data(), p, got.size()));
    return got;
  };
  TensorMapBlob a = blobAt(0), b = blobAt(1024), c = blobAt(2048),
                e = blobAt(3072);
  auto pa = tensorMapCopy(*d, a, &cache);
  ASSERT_TRUE(pa) << pa.takeError().message();
  EXPECT_EQ(cache.slabs.size(), 1u);
  // The next map takes the next slot: no allocation.
  setenv("NVFP4_MOCK_FAIL", "cuMemAlloc:2", 1);
  auto pb = tensorMapCopy(*d, b, &cache);
  ASSERT_TRUE(pb) << pb.takeError().message();
  EXPECT_EQ(*pb, *pa + kTensorMapBytes);
  // The same bytes again: the kept copy, no driver call.
  setenv("NVFP4_MOCK_FAIL", "cuMemcpyHtoD:2", 1);
  auto again = tensorMapCopy(*d, a, &cache);
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *pa);
  // Deferred: nothing written until the flush (which fails here, and
  // forgets both), then written by one flush.
  auto pc = tensorMapCopy(*d, c, &cache, /*defer=*/true);
  auto pe = tensorMapCopy(*d, e, &cache, /*defer=*/true);
  ASSERT_TRUE(pc && pe);
  EXPECT_EQ(cache.pending.size(), 2u);
  EXPECT_TRUE(flushTensorMapCopies(*d, cache));
  EXPECT_TRUE(cache.pending.empty());
  unsetenv("NVFP4_MOCK_FAIL");
  auto pc2 = tensorMapCopy(*d, c, &cache, /*defer=*/true);
  auto pe2 = tensorMapCopy(*d, e, &cache, /*defer=*/true);
  ASSERT_TRUE(pc2 && pe2);
  EXPECT_NE(*pc2, *pc);
  EXPECT_EQ(*pe2, *pc2 + kTensorMapBytes);
  EXPECT_FALSE(flushTensorMapCopies(*d, cache));
  EXPECT_EQ(bytesAt(*pa), std::vector<uint8_t>(a.bytes.begin(), a.bytes.end()));
  EXPECT_EQ(bytesAt(*pb), std::vector<uint8_t>(b.bytes.begin(), b.bytes.end()));
  EXPECT_EQ(bytesAt(*pc2),
            std::vector<uint8_t>(c.bytes.begin(), c.bytes.end()));
  EXPECT_EQ(bytesAt(*pe2),
            std::vector<uint8_t>(e.bytes.begin(), e.bytes.end()));
  // Past kSlabMaps slots a second block (the failed flush's two slots
  // stay unused).
  for (size_t i = 0; cache.slabs.size() == 1; ++i)
    ASSERT_TRUE(tensorMapCopy(*d, blobAt(4096 + 1024 * i), &cache));
  EXPECT_EQ(cache.slabUsed, 1u);
  EXPECT_EQ(cache.copies.size(), TensorMapCache::kSlabMaps - 2 + 1);
}

// A device whose allocations lie next to each other (as small cuMemAlloc
// blocks can) and that refuses a copy beyond one allocation, as
// CudaDevice's range check does; it counts the copies.
struct AdjacentBlocksDevice : Device {
  std::map<DevicePtr, uint64_t> blocks;
  DevicePtr next = 0x100000;
  int copies = 0;
  BackendKind kind() const override { return BackendKind::Cuda; }
  std::string name() const override { return "adjacent blocks"; }
  Expected<DevicePtr> allocate(uint64_t bytes) override {
    DevicePtr p = next;
    blocks[p] = bytes;
    next += (bytes + 255) / 256 * 256;
    return p;
  }
  Error free(DevicePtr) override { return Error::success(); }
  Error copyToDevice(DevicePtr dst, const void *, uint64_t bytes) override {
    ++copies;
    auto it = blocks.upper_bound(dst);
    if (it != blocks.begin() &&
        dst + bytes <= std::prev(it)->first + std::prev(it)->second)
      return Error::success();
    return makeError("a copy of ", bytes, " bytes beyond one allocation");
  }
  Error copyToHost(void *, DevicePtr, uint64_t) override {
    return Error::success();
  }
  Expected<ModuleHandle> loadModule(const KernelImage &) override {
    return makeError("no modules");
  }
  Expected<FunctionHandle> getFunction(ModuleHandle,
                                       const std::string &) override {
    return makeError("no functions");
  }
  Expected<std::optional<std::vector<KernelParamInfo>>>
  getParams(FunctionHandle) override {
    return makeError("no functions");
  }
  Expected<FunctionInfo> getFunctionInfo(FunctionHandle) override {
    return makeError("no functions");
  }
  Expected<TensorMapBlob> encodeTensorMap(const TensorMapDesc &) override {
    return makeError("no encoder");
  }
  Expected<LaunchTiming> launch(FunctionHandle, const LaunchConfig &,
                                const std::vector<KernelArg> &) override {
    return makeError("no launches");
  }
};

// A flush writes adjacent pending slots with one copy, but never across
// two blocks, even where the blocks are adjacent; a copy asked for without
// `defer` that finds its slot still pending writes it at once.
TEST(TensorMapCacheTest, CopiesNeverSpanTwoBlocks) {
  AdjacentBlocksDevice d;
  TensorMapCache cache;
  auto blob = [](int i) {
    TensorMapBlob b;
    b.bytes.fill(0);
    b.bytes[0] = uint8_t(i);
    b.bytes[1] = uint8_t(i >> 8);
    return b;
  };
  int i = 0;
  for (; i < int(TensorMapCache::kSlabMaps) - 1; ++i)
    ASSERT_TRUE(tensorMapCopy(d, blob(i), &cache, /*defer=*/true));
  EXPECT_FALSE(flushTensorMapCopies(d, cache));
  EXPECT_EQ(d.copies, 1);
  // One launch's two new maps: the first block's last slot, the second
  // block's first, adjacent in memory.
  auto last = tensorMapCopy(d, blob(i++), &cache, /*defer=*/true);
  auto first = tensorMapCopy(d, blob(i++), &cache, /*defer=*/true);
  ASSERT_TRUE(last && first);
  EXPECT_EQ(*first, *last + kTensorMapBytes);
  EXPECT_EQ(cache.slabs.size(), 2u);
  EXPECT_FALSE(flushTensorMapCopies(d, cache));
  EXPECT_EQ(d.copies, 3);
  EXPECT_EQ(cache.copies.size(), TensorMapCache::kSlabMaps + 1);
  // Pending, then asked for without defer: written now, once.
  auto again = tensorMapCopy(d, blob(i), &cache, /*defer=*/true);
  ASSERT_TRUE(again);
  auto now = tensorMapCopy(d, blob(i), &cache);
  ASSERT_TRUE(now);
  EXPECT_EQ(*now, *again);
  EXPECT_EQ(d.copies, 4);
  EXPECT_TRUE(cache.pending.empty());
  EXPECT_FALSE(flushTensorMapCopies(d, cache));
  EXPECT_EQ(d.copies, 4);
}

TEST_F(CudaDeviceTest, EncodesTensorMapsAfterValidating) {
  auto d = create();
  ASSERT_TRUE(d);
  auto g = d->allocate(49152);
  ASSERT_TRUE(g);
  TensorMapDesc desc = bf16Map(*g);
  desc.swizzle = TmaSwizzle::B128;
  auto blob = d->encodeTensorMap(desc);
  ASSERT_TRUE(blob) << blob.takeError().message();
  EXPECT_EQ(std::memcmp(blob->bytes.data(), "MOCKTMAP#", 9), 0);
  desc.boxDims[0] = 128;
  EXPECT_EQ(d->encodeTensorMap(desc).takeError().message(),
            "swizzle 128B needs the inner box to be at most 128 bytes, got "
            "256 (box[0] = 128 bf16)");
  desc.boxDims[0] = 64;
  setenv("NVFP4_MOCK_FAIL", "cuTensorMapEncodeTiled:1", 1);
  EXPECT_EQ(d->encodeTensorMap(desc).takeError().message(),
            "encoding the tensor map bf16 dims=[256,96] strides=[512] "
            "box=[64,32] swizzle=128B interleave=none l2=none oob=none: "
            "cuTensorMapEncodeTiled failed: CUDA_ERROR_INVALID_VALUE "
            "(invalid argument)");
}

} // namespace
