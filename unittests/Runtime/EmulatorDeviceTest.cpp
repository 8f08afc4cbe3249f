//===- EmulatorDeviceTest.cpp - The emulator backend through Device -------===//
//
// Everything goes through the Device interface, as nvfp4-run uses it: a
// vector add written here, a TMA load of test/Runtime/Inputs/tma_sm90a.ptx
// (nvcc's PTX, also run on the H200 by validate_cuda_backend.sh) with a
// tensor map encoded by the device, and the errors (cubin refused, unknown
// kernel, wrong arguments, a kernel fault with its location).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/EmulatorDevice.h"

#include "gtest/gtest.h"

#include <cstring>
#include <vector>

using namespace nvfp4::rt;

namespace {

std::string input(const char *name) {
  return std::string(NVFP4_RUNTIME_TEST_INPUTS) + "/" + name;
}

KernelImage ptx(const std::string &text) {
  auto i = KernelImage::fromBytes(
      std::vector<uint8_t>(text.begin(), text.end()), "inline.ptx");
  EXPECT_TRUE(i) << i.takeError().message();
  return i ? std::move(*i) : KernelImage();
}

// c[i] = a[i] + b[i] for i < n; thread i of the grid takes element i.
const char *kVecAdd = R"(.version 8.8
.target sm_100a
.address_size 64
.visible .entry vec_add(.param .u64 pa, .param .u64 pb, .param .u64 pc,
                        .param .u32 pn)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pc];
  ld.param.u32 %r1, [pn];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd4, %r5, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  add.s64 %rd7, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd6];
  add.rn.f32 %f3, %f1, %f2;
  st.global.f32 [%rd7], %f3;
DONE:
  ret;
}
.visible .entry other() { ret; }
)";

class EmulatorDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto d = createDevice(BackendKind::Emulator, {});
    ASSERT_TRUE(d) << d.takeError().message();
    device = std::move(*d);
  }
  FunctionHandle load(const std::string &text, const std::string &kernel) {
    auto m = device->loadModule(ptx(text));
    EXPECT_TRUE(m) << m.takeError().message();
    auto f = device->getFunction(*m, kernel);
    EXPECT_TRUE(f) << f.takeError().message();
    return f ? *f : FunctionHandle();
  }
  std::unique_ptr<Device> device;
};

TEST_F(EmulatorDeviceTest, VectorAdd) {
  EXPECT_EQ(device->kind(), BackendKind::Emulator);
  EXPECT_NE(device->name().find("emulator"), std::string::npos);
  EXPECT_EQ(device->lastLaunchReport(), "");
  const unsigned n = 1000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (unsigned i = 0; i < n; ++i) {
    a[i] = 0.5f * float(i);
    b[i] = 1.0f / float(i + 1);
  }
  DevicePtr pa = *device->allocate(n * 4), pb = *device->allocate(n * 4),
            pc = *device->allocate(n * 4);
  EXPECT_EQ(pa % 256, 0u);
  ASSERT_FALSE(device->copyToDevice(pa, a.data(), n * 4));
  ASSERT_FALSE(device->copyToDevice(pb, b.data(), n * 4));
  ASSERT_FALSE(device->copyToDevice(pc, c.data(), n * 4));

  FunctionHandle f = load(kVecAdd, "vec_add");
  auto params = device->getParams(f);
  ASSERT_TRUE(params && *params);
  ASSERT_EQ((*params)->size(), 4u);
  EXPECT_EQ((**params)[2].offset, 16u);
  EXPECT_EQ((**params)[3].bytes, 4u);
  auto info = device->getFunctionInfo(f);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->staticSmemBytes, 0u);

  LaunchConfig cfg;
  cfg.grid = {4, 1, 1};
  cfg.block = {256, 1, 1};
  auto t = device->launch(f, cfg,
                          {KernelArg::pointer(pa), KernelArg::pointer(pb),
                           KernelArg::pointer(pc), KernelArg::u32(n)});
  ASSERT_TRUE(t) << t.takeError().message();
  EXPECT_GE(t->wallMs, 0.0);
  EXPECT_FALSE(t->deviceMs);
  ASSERT_FALSE(device->copyToHost(c.data(), pc, n * 4));
  for (unsigned i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << i;

  auto &emu = static_cast<EmulatorDevice &>(*device);
  const auto &stats = emu.lastStats();
  EXPECT_GE(stats.warpInstructions, 32u * 10); // every warp runs the prologue
  EXPECT_GE(stats.threadInstructions, 1000u * 18); // 18+ per element
  EXPECT_LE(stats.threadInstructions, 32 * stats.warpInstructions);
  std::string report = device->lastLaunchReport();
  EXPECT_NE(report.find("warp instructions"), std::string::npos) << report;
  EXPECT_NE(report.find("ms wall"), std::string::npos) << report;
  EXPECT_FALSE(device->free(pa));
  EXPECT_EQ(device->free(pa).message(),
            "free of 0x100000000, which this device did not allocate");
}

// tma_load_2d: the map encoded by the device is passed by value (the GEMM
// kernels take it by pointer; tma_load_2d_ptr fences the tensormap proxy,
// which the emulator does not execute yet). No swizzle: the tile is the
// box's rows one after another.
TEST_F(EmulatorDeviceTest, TmaLoadWithAnEncodedTensorMap) {
  const uint64_t cols = 128, rows = 64, elem = 2;
  std::vector<uint8_t> global(cols * rows * elem);
  for (size_t i = 0; i < global.size(); ++i)
    global[i] = uint8_t(i * 7 + 1);
  DevicePtr g = *device->allocate(global.size());
  ASSERT_FALSE(device->copyToDevice(g, global.data(), global.size()));

  TensorMapDesc d;
  d.dataType = TmaDataType::BF16;
  d.rank = 2;
  d.globalAddress = g;
  d.globalDims = {cols, rows, 1, 1, 1};
  d.globalStrides = {cols * elem, 0, 0, 0};
  d.boxDims = {64, 16, 0, 0, 0};
  auto blob = device->encodeTensorMap(d);
  ASSERT_TRUE(blob) << blob.takeError().message();
  EXPECT_EQ(std::memcmp(blob->bytes.data(), "NVTM", 4), 0);

  const uint32_t tileBytes = 64 * 16 * 2;
  std::vector<uint8_t> out(8192 + 16, 0xFF);
  DevicePtr o = *device->allocate(out.size());
  ASSERT_FALSE(device->copyToDevice(o, out.data(), out.size()));

  auto image = KernelImage::fromFile(input("tma_sm90a.ptx"));
  ASSERT_TRUE(image);
  auto m = device->loadModule(*image);
  ASSERT_TRUE(m) << m.takeError().message();
  auto f = device->getFunction(*m, "tma_load_2d");
  ASSERT_TRUE(f) << f.takeError().message();
  LaunchConfig cfg;
  cfg.block = {128, 1, 1};
  const int c0 = 32, c1 = 8;
  auto t = device->launch(*f, cfg,
                          {KernelArg::tensorMap(*blob), KernelArg::pointer(o),
                           KernelArg::i32(c0), KernelArg::i32(c1),
                           KernelArg::u32(tileBytes)});
  ASSERT_TRUE(t) << t.takeError().message();
  ASSERT_FALSE(device->copyToHost(out.data(), o, out.size()));
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t b = 0; b < 64 * elem; ++b)
      ASSERT_EQ(out[r * 128 + b],
                global[(c1 + r) * cols * elem + c0 * elem + b])
          << "row " << r << " byte " << b;

  // A descriptor the driver would reject is rejected here too.
  d.boxDims[0] = 300;
  auto bad = device->encodeTensorMap(d);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.takeError().message().find("box"), std::string::npos);
}

TEST_F(EmulatorDeviceTest, RefusesCubinsSayingHowToGetPtx) {
  auto image = KernelImage::fromFile(input("sm100a_kernel.cubin"));
  ASSERT_TRUE(image);
  auto m = device->loadModule(*image);
  ASSERT_FALSE(m);
  std::string msg = m.takeError().message();
  EXPECT_NE(msg.find("the emulator runs PTX, but "), std::string::npos) << msg;
  EXPECT_NE(msg.find("sm100a_kernel.cubin is a cubin (sm_100a)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("ptx-file=FILE"), std::string::npos) << msg;
}

TEST_F(EmulatorDeviceTest, UnknownKernelListsTheKernels) {
  auto m = device->loadModule(ptx(kVecAdd));
  ASSERT_TRUE(m);
  auto f = device->getFunction(*m, "vecadd");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.takeError().message(), "no kernel named 'vecadd' in the module "
                                     "(kernels: vec_add, other)");
}

TEST_F(EmulatorDeviceTest, ParseErrorsNameTheLine) {
  auto m = device->loadModule(
      ptx(".version 8.8\n.target sm_100a\n.address_size 64\n"
          ".visible .entry k() {\n  frobnicate %r1;\n}\n"));
  ASSERT_FALSE(m);
  EXPECT_NE(m.takeError().message().find("inline.ptx:5"), std::string::npos);
}

TEST_F(EmulatorDeviceTest, BadArgumentsAreErrors) {
  FunctionHandle f = load(kVecAdd, "vec_add");
  LaunchConfig cfg;
  DevicePtr p = *device->allocate(64);
  auto t = device->launch(f, cfg, {KernelArg::pointer(p)});
  ASSERT_FALSE(t);
  EXPECT_EQ(t.takeError().message(),
            "kernel 'vec_add' takes 4 parameters but 1 argument was given");
  t = device->launch(f, cfg,
                     {KernelArg::pointer(p), KernelArg::pointer(p),
                      KernelArg::pointer(p), KernelArg::u64(1)});
  ASSERT_FALSE(t);
  EXPECT_EQ(t.takeError().message(),
            "argument 3 of 'vec_add' is a u64 (8 bytes) but parameter 3 (pn) "
            "is 4 bytes");
  // A bad launch shape is the emulator's error.
  cfg.block = {2048, 1, 1};
  t = device->launch(f, cfg,
                     {KernelArg::pointer(p), KernelArg::pointer(p),
                      KernelArg::pointer(p), KernelArg::u32(1)});
  ASSERT_FALSE(t);
  EXPECT_NE(t.takeError().message().find("1024"), std::string::npos);
}

TEST_F(EmulatorDeviceTest, FaultsCarryTheEmulatorsLocation) {
  FunctionHandle f = load(kVecAdd, "vec_add");
  DevicePtr a = *device->allocate(64), c = *device->allocate(64);
  LaunchConfig cfg;
  cfg.block = {32, 1, 1};
  // n = 32 but the buffers hold 16 floats: lane 16 reads past a's end.
  auto t = device->launch(f, cfg,
                          {KernelArg::pointer(a), KernelArg::pointer(a),
                           KernelArg::pointer(c), KernelArg::u32(32)});
  ASSERT_FALSE(t);
  std::string msg = t.takeError().message();
  EXPECT_EQ(msg.rfind("the kernel failed on the emulator: out-of-bounds "
                      "global load",
                      0),
            0u)
      << msg;
  EXPECT_NE(msg.find("in CTA (0,0,0) warp 0 lane 16"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("at line 25: ld.global.f32"), std::string::npos) << msg;
  auto &emu = static_cast<EmulatorDevice &>(*device);
  EXPECT_EQ(emu.lastFault().line, 25u);
  EXPECT_EQ(device->lastLaunchReport(), "");
}

TEST_F(EmulatorDeviceTest, CopiesOutsideAllocationsAreErrors) {
  DevicePtr p = *device->allocate(16);
  uint8_t buf[32] = {};
  Error e = device->copyToDevice(p, buf, 32);
  ASSERT_TRUE(static_cast<bool>(e));
  EXPECT_EQ(e.message().rfind("copy to the device: ", 0), 0u) << e.message();
  EXPECT_TRUE(static_cast<bool>(device->copyToHost(buf, p + 8, 16)));
  EXPECT_FALSE(device->allocate(0));
}

} // namespace
