//===- RunnerTest.cpp - Tests for running an external kernel --------------===//
//
// prepareRun needs no device; executeRun runs against the mock driver
// (MockCudaDriver.cpp), which executes `saxpy` on the host and records
// tensor-map encodes and launches.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/Runner.h"
#include "nvfp4/Runtime/CudaDevice.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

using namespace nvfp4::rt;

namespace {

std::string input(const char *name) {
  return std::string(NVFP4_RUNTIME_TEST_INPUTS) + "/" + name;
}

class RunnerTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "nvfp4-runner-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::string cmd = "mkdir -p '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    for (const char *v :
         {"NVFP4_MOCK_CC", "NVFP4_MOCK_GPU_NAME", "NVFP4_MOCK_DEVICES",
          "NVFP4_MOCK_FAIL", "NVFP4_MOCK_RECORD"})
      unsetenv(v);
    setenv(kCudaDriverLibEnv, NVFP4_MOCK_CUDA_DRIVER, 1);
  }
  void TearDown() override { unsetenv(kCudaDriverLibEnv); }

  std::string path(const std::string &name) { return dir_ + "/" + name; }

  void write(const std::string &name, const std::vector<uint8_t> &bytes) {
    std::ofstream out(path(name), std::ios::binary);
    out.write(reinterpret_cast<const char *>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }

  std::vector<uint8_t> read(const std::string &name) {
    std::ifstream in(path(name), std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  }

  Expected<RunPlan> plan(std::vector<std::string> args) {
    auto options = parseRunOptions(args);
    if (!options)
      return options.takeError();
    return prepareRun(std::move(*options));
  }

  std::string planError(std::vector<std::string> args) {
    auto p = plan(std::move(args));
    return p ? std::string("<ok>") : p.takeError().message();
  }

  std::string dir_;
};

TEST_F(RunnerTest, InputErrors) {
  EXPECT_EQ(planError({"/nonexistent.ptx", "--grid=1", "--block=1"}),
            "cannot open kernel file '/nonexistent.ptx': No such file or "
            "directory");
  std::string launch = input("launch_sm90a.ptx");
  std::string message = planError({launch, "--grid=1", "--block=1"});
  EXPECT_NE(message.find("launch_sm90a.ptx has 2 kernels (params, "
                         "launch_info): choose one with --kernel=NAME"),
            std::string::npos)
      << message;
  message = planError({launch, "--kernel=saxpy", "--grid=1", "--block=1"});
  EXPECT_EQ(message.substr(0, 24), "no kernel named 'saxpy' ");
  EXPECT_NE(message.find("(kernels: params, launch_info)"), std::string::npos);
  message = planError({input("sm100a_kernel.cubin"), "--grid=1", "--block=1"});
  EXPECT_EQ(message.substr(0, 34), "--kernel=NAME is needed for a cubi");
}

TEST_F(RunnerTest, ArgumentsMustMatchTheSignature) {
  std::string saxpy = input("saxpy_sm90a.ptx");
  EXPECT_EQ(planError({saxpy, "--grid=1", "--block=1", "--arg=f32:1"}),
            "kernel 'saxpy' takes 4 parameters but 1 --arg was given");
  EXPECT_EQ(
      planError({saxpy, "--grid=1", "--block=1", "--arg=f64:1",
                 "--arg=buf:x:16:zero", "--arg=buf:y:16:zero", "--arg=u32:4"}),
      "--arg=f64:1 (argument 0) is 8 bytes but parameter 0 of 'saxpy' "
      "(saxpy_param_0) is 4 bytes");
  EXPECT_EQ(planError({input("tma_sm90a.ptx"), "--kernel=tma_load_2d",
                       "--grid=1", "--block=1", "--buf=g:49152:zero",
                       "--arg=tmap:g:dtype=bf16:dims=256,96:strides=512:"
                       "box=64,32:by=pointer",
                       "--arg=buf:o:8208:zero", "--arg=i32:0", "--arg=i32:0",
                       "--arg=u32:4096"}),
            "--arg=tmap:g:dtype=bf16:dims=256,96:strides=512:box=64,32:"
            "by=pointer (argument 0) is 8 bytes but parameter 0 of "
            "'tma_load_2d' (tma_load_2d_param_0) is 128 bytes");
}

TEST_F(RunnerTest, BufferFilesMustExistAndFit) {
  std::string saxpy = input("saxpy_sm90a.ptx");
  auto args = [&](const std::string &x) {
    return std::vector<std::string>{saxpy,
                                    "--grid=1",
                                    "--block=4",
                                    "--arg=f32:1",
                                    "--arg=buf:x:16:" + x,
                                    "--arg=buf:y:16:zero",
                                    "--arg=u32:4"};
  };
  EXPECT_EQ(planError(args("file=" + path("missing.bin"))),
            "cannot open '" + path("missing.bin") +
                "' for buffer 'x': No such file or directory");
  write("short.bin", std::vector<uint8_t>(12, 1));
  EXPECT_EQ(planError(args("file=" + path("short.bin"))),
            "file '" + path("short.bin") +
                "' for buffer 'x' is short: 12 bytes, expected 16");
  write("long.bin", std::vector<uint8_t>(20, 1));
  EXPECT_EQ(planError(args("file=" + path("long.bin"))),
            "file '" + path("long.bin") +
                "' for buffer 'x' is 20 bytes, longer than the buffer's 16");
  write("ok.bin", std::vector<uint8_t>(16, 9));
  auto p = plan(args("file=" + path("ok.bin")));
  ASSERT_TRUE(p) << p.takeError().message();
  EXPECT_EQ(p->initialContents[0], std::vector<uint8_t>(16, 9));
  EXPECT_EQ(p->initialContents[1], std::vector<uint8_t>(16, 0));
  EXPECT_EQ(p->kernel, "saxpy");
  ASSERT_TRUE(p->entry());
}

TEST_F(RunnerTest, PoisonAndSeedContents) {
  auto p = plan({input("saxpy_sm90a.ptx"), "--grid=1", "--block=4",
                 "--arg=f32:1", "--arg=buf:x:16:seed=3:f32",
                 "--arg=buf:y:16:poison", "--arg=u32:4"});
  ASSERT_TRUE(p) << p.takeError().message();
  EXPECT_EQ(p->initialContents[1], std::vector<uint8_t>(16, 0xFF));
  std::vector<uint8_t> expected(16);
  ASSERT_FALSE(fillRandom(expected.data(), 16, 3, FillType::F32));
  EXPECT_EQ(p->initialContents[0], expected);
}

TEST_F(RunnerTest, PrintsThePlan) {
  auto p = plan({input("saxpy_sm90a.ptx"), "--grid=2", "--block=64",
                 "--arg=f32:2.5", "--arg=buf:x:512:seed=1:f32:out=x.bin",
                 "--arg=buf:y:512:seed=2:f32:dump-init=y0.bin", "--arg=u32:128",
                 "--buf=spare:64:zero"});
  ASSERT_TRUE(p) << p.takeError().message();
  std::ostringstream os;
  printPlan(*p, os);
  std::string text = os.str();
  EXPECT_NE(
      text.find("saxpy_sm90a.ptx (PTX 9.0, .target sm_90a)\n"
                "nvfp4-run: kernel saxpy grid=(2,1,1) block=(64,1,1) "
                "cluster=(1,1,1) smem=0\n"
                "  arg 0: f32 2.5\n"
                "  arg 1: buf x: 512 bytes, seed=1:f32, out=x.bin\n"
                "  arg 2: buf y: 512 bytes, seed=2:f32, dump-init=y0.bin\n"
                "  arg 3: u32 128\n"
                "  buffer spare: 64 bytes, zero\n"),
      std::string::npos)
      << text;
}

TEST_F(RunnerTest, RunsSaxpyAndWritesTheBuffers) {
  const unsigned n = 1000;
  auto p =
      plan({input("saxpy_sm90a.ptx"), "--grid=4", "--block=256",
            "--arg=f32:2.5", "--arg=buf:x:4000:seed=1:f32:out=" + path("x.bin"),
            "--arg=buf:y:4000:seed=2:f32:dump-init=" + path("y0.bin") +
                ":out=" + path("y.bin"),
            "--arg=u32:" + std::to_string(n)});
  ASSERT_TRUE(p) << p.takeError().message();
  auto device = createDevice(BackendKind::Cuda, {});
  ASSERT_TRUE(device) << device.takeError().message();
  std::ostringstream os;
  Error e = executeRun(*p, **device, os);
  ASSERT_FALSE(e) << e.message();
  std::string text = os.str();
  EXPECT_NE(text.find("nvfp4-run: backend cuda: Mock H200 (sm_90, 132 SMs), "
                      "driver 13.0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  grid=(4,1,1) block=(256,1,1) cluster=(1,1,1) dynamic "
                      "smem=0 bytes; 32 registers, 0 bytes static smem\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("nvfp4-run: saxpy finished: 0.250 ms on the device, "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("nvfp4-run: wrote y (4000 bytes) to " + path("y.bin")),
            std::string::npos);

  std::vector<uint8_t> x = read("x.bin"), y0 = read("y0.bin"),
                       y = read("y.bin");
  ASSERT_EQ(x.size(), 4000u);
  ASSERT_EQ(y0.size(), 4000u);
  ASSERT_EQ(y.size(), 4000u);
  EXPECT_EQ(x, p->initialContents[0]);
  EXPECT_EQ(y0, p->initialContents[1]);
  for (unsigned i = 0; i < n; ++i) {
    float xi, y0i, yi;
    std::memcpy(&xi, x.data() + 4 * i, 4);
    std::memcpy(&y0i, y0.data() + 4 * i, 4);
    std::memcpy(&yi, y.data() + 4 * i, 4);
    ASSERT_EQ(yi, std::fma(2.5f, xi, y0i)) << i;
  }
}

TEST_F(RunnerTest, TensorMapsByValueAndByPointer) {
  setenv("NVFP4_MOCK_RECORD", path("record.txt").c_str(), 1);
  auto p = plan({input("tma_sm90a.ptx"), "--kernel=tma_load_2d_ptr", "--grid=1",
                 "--block=128", "--buf=g:49152:seed=1:bf16",
                 "--arg=tmap:g:dtype=bf16:dims=256,96:strides=512:box=64,32:"
                 "swizzle=128B:by=pointer",
                 "--arg=buf:out:8208:poison", "--arg=i32:-16", "--arg=i32:80",
                 "--arg=u32:4096"});
  ASSERT_TRUE(p) << p.takeError().message();
  auto device = createDevice(BackendKind::Cuda, {});
  ASSERT_TRUE(device) << device.takeError().message();
  std::ostringstream os;
  Error e = executeRun(*p, **device, os);
  ASSERT_FALSE(e) << e.message();
  std::ifstream in(path("record.txt"));
  std::string record((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
  EXPECT_NE(record.find("encode tmap#1 type=9 rank=2 addr=buf#0+0 dims=256,96 "
                        "strides=512 box=64,32 elemstrides=1,1 interleave=0 "
                        "swizzle=3 l2=0 oob=0\n"
                        "launch tma_load_2d_ptr grid=1,1,1 block=128,1,1 "
                        "smem=0 cluster=none\n"
                        "  param 0 (8 bytes): buf#2+0 -> tmap#1\n"
                        "  param 1 (8 bytes): buf#1+0\n"
                        "  param 2 (4 bytes): f0ffffff\n"
                        "  param 3 (4 bytes): 50000000\n"
                        "  param 4 (4 bytes): 00100000\n"),
            std::string::npos)
      << record;
}

TEST_F(RunnerTest, DeviceFailuresAreReported) {
  auto p = plan({input("sm100a_kernel.ptx"), "--grid=1", "--block=1",
                 "--arg=buf:o:4:zero"});
  ASSERT_TRUE(p) << p.takeError().message();
  auto device = createDevice(BackendKind::Cuda, {});
  ASSERT_TRUE(device);
  std::ostringstream os;
  Error e = executeRun(*p, **device, os);
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "this kernel targets sm_100a but the GPU is sm_90 "
                         "(Mock H200); use --backend=emulator");
}

} // namespace
