//===- KernelImageTest.cpp - Tests for PTX/cubin images and targets -------===//
//
// Inputs are the checked-in kernels of test/Runtime/Inputs (PTX from nvcc
// 13.0, a cubin from ptxas 13.0 -arch=sm_100a) and small hand-made images.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/KernelImage.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace nvfp4::rt;

namespace {

std::string input(const char *name) {
  return std::string(NVFP4_RUNTIME_TEST_INPUTS) + "/" + name;
}

KernelImage load(const char *name) {
  auto image = KernelImage::fromFile(input(name));
  EXPECT_TRUE(image) << image.takeError().message();
  return image ? std::move(*image) : KernelImage();
}

Expected<KernelImage> fromText(const std::string &text) {
  return KernelImage::fromBytes(std::vector<uint8_t>(text.begin(), text.end()),
                                "k.ptx");
}

std::vector<uint64_t> sizes(const PtxEntry &e) {
  std::vector<uint64_t> s;
  for (const PtxParam &p : e.params)
    s.push_back(p.bytes);
  return s;
}

TEST(KernelImageTest, SmTargetNames) {
  auto t = SmTarget::parse("sm_100a");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->major, 10u);
  EXPECT_EQ(t->minor, 0u);
  EXPECT_EQ(t->suffix, 'a');
  EXPECT_EQ(t->str(), "sm_100a");
  EXPECT_EQ(SmTarget::parse("sm_90")->str(), "sm_90");
  EXPECT_EQ(SmTarget::parse("sm_103f")->str(), "sm_103f");
  EXPECT_EQ(SmTarget::parse("compute_90a")->str(), "sm_90a");
  EXPECT_FALSE(SmTarget::parse("sm_"));
  EXPECT_FALSE(SmTarget::parse("sm_9"));
  EXPECT_FALSE(SmTarget::parse("sm_90b"));
  EXPECT_FALSE(SmTarget::parse("gfx90a"));
}

TEST(KernelImageTest, ReadsNvccPtx) {
  KernelImage image = load("saxpy_sm90a.ptx");
  EXPECT_EQ(image.kind, ImageKind::Ptx);
  ASSERT_TRUE(image.target);
  EXPECT_EQ(image.target->str(), "sm_90a");
  EXPECT_EQ(image.ptxVersion, "9.0");
  ASSERT_EQ(image.entries.size(), 1u);
  EXPECT_EQ(image.entries[0].name, "saxpy");
  EXPECT_EQ(sizes(image.entries[0]), (std::vector<uint64_t>{4, 8, 8, 4}));
  EXPECT_EQ(image.entries[0].params[1].name, "saxpy_param_1");
  EXPECT_EQ(image.describe().substr(image.describe().find("saxpy_sm90a")),
            "saxpy_sm90a.ptx (PTX 9.0, .target sm_90a)");
}

TEST(KernelImageTest, ReadsEveryScalarWidthAndTensorMapParams) {
  KernelImage launch = load("launch_sm90a.ptx");
  const PtxEntry *params = launch.findEntry("params");
  ASSERT_TRUE(params);
  EXPECT_EQ(sizes(*params), (std::vector<uint64_t>{1, 2, 4, 4, 8, 8, 4, 8, 8}));
  ASSERT_TRUE(launch.findEntry("launch_info"));
  EXPECT_FALSE(launch.findEntry("missing"));

  KernelImage tma = load("tma_sm90a.ptx");
  const PtxEntry *byValue = tma.findEntry("tma_load_2d");
  ASSERT_TRUE(byValue);
  EXPECT_EQ(sizes(*byValue), (std::vector<uint64_t>{128, 8, 4, 4, 4}));
  EXPECT_EQ(byValue->params[0].align, 128u);
  const PtxEntry *byPointer = tma.findEntry("tma_load_2d_ptr");
  ASSERT_TRUE(byPointer);
  EXPECT_EQ(sizes(*byPointer), (std::vector<uint64_t>{8, 8, 4, 4, 4}));
}

TEST(KernelImageTest, ReadsPtxasCubinTarget) {
  KernelImage image = load("sm100a_kernel.cubin");
  EXPECT_EQ(image.kind, ImageKind::Cubin);
  ASSERT_TRUE(image.target);
  EXPECT_EQ(image.target->str(), "sm_100a");
  EXPECT_TRUE(image.entries.empty());
}

TEST(KernelImageTest, CubinElfFlagsBeforeAndFromAbiVersion8) {
  std::vector<uint8_t> elf(64, 0);
  std::memcpy(elf.data(),
              "\x7f"
              "ELF",
              4);
  elf[4] = 2; // 64-bit
  elf[5] = 1; // little endian
  elf[18] = 190;
  // ABI version 7: SM in bits 0-7, EF_CUDA_ACCELERATORS_V1 = 0x800.
  elf[8] = 7;
  elf[48] = 0x5a;
  elf[49] = 0x08;
  EXPECT_EQ(cubinTarget(elf)->str(), "sm_90a");
  elf[49] = 0x00;
  EXPECT_EQ(cubinTarget(elf)->str(), "sm_90");
  // ABI version 8: SM in bits 8-15, EF_CUDA_ACCELERATORS = 0x8.
  elf[8] = 8;
  elf[48] = 0x08;
  elf[49] = 0x64;
  EXPECT_EQ(cubinTarget(elf)->str(), "sm_100a");
  elf[18] = 62; // x86-64
  EXPECT_EQ(cubinTarget(elf).takeError().message(),
            "not a CUDA ELF file (machine 62, expected 190)");
}

TEST(KernelImageTest, ClassifiesImages) {
  std::vector<uint8_t> fatbin = {0x50, 0xED, 0x55, 0xBA, 1, 0, 0, 0};
  auto f = KernelImage::fromBytes(fatbin, "k.fatbin");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, ImageKind::Fatbin);
  EXPECT_FALSE(f->target);

  EXPECT_EQ(KernelImage::fromBytes({}, "empty.ptx").takeError().message(),
            "empty.ptx is empty");
  EXPECT_EQ(fromText("hello\n").takeError().message(),
            "k.ptx is neither PTX text (no .version and .target directives) "
            "nor a cubin or fatbinary");
  std::vector<uint8_t> binary = {1, 0, 2, 3};
  EXPECT_EQ(KernelImage::fromBytes(binary, "k.bin").takeError().message(),
            "k.bin is neither PTX text nor a cubin or fatbinary");
  EXPECT_EQ(fromText(".version 9.0\n.target gfx90a\n").takeError().message(),
            "k.ptx: unknown .target 'gfx90a' (line 2)");
  EXPECT_EQ(KernelImage::fromFile("/nonexistent/k.ptx").takeError().message(),
            "cannot open kernel file '/nonexistent/k.ptx': No such file or "
            "directory");
}

TEST(KernelImageTest, SkipsCommentsAndReadsDirectives) {
  auto image = fromText("// .target sm_52\n/* .entry fake( .param .u32 a ) "
                        "*/\n.version 8.8\n.target sm_100a, debug\n"
                        ".address_size 64\n"
                        ".visible .entry k(\n  .param .align 64 .b8 m[128],"
                        " // tensor map\n  .param .u64 .ptr .global .align 16"
                        " p\n)\n{ ret; }\n.entry noparams\n{ ret; }\n");
  ASSERT_TRUE(image) << image.takeError().message();
  EXPECT_EQ(image->target->str(), "sm_100a");
  ASSERT_EQ(image->entries.size(), 2u);
  EXPECT_EQ(sizes(image->entries[0]), (std::vector<uint64_t>{128, 8}));
  EXPECT_EQ(image->entries[0].params[0].align, 64u);
  EXPECT_EQ(image->entries[0].params[1].align, 8u); // .ptr's .align: pointee
  EXPECT_EQ(image->entries[1].name, "noparams");
  EXPECT_TRUE(image->entries[1].params.empty());
}

TEST(KernelImageTest, MalformedParameterListsAreErrorsWithLines) {
  EXPECT_EQ(fromText(".version 9.0\n.target sm_90\n.entry k(\n"
                     ".param .u32 a,\n.param b\n)\n{}\n")
                .takeError()
                .message(),
            "k.ptx: cannot read a parameter of .entry k (line 5): no type");
  EXPECT_EQ(fromText(".version 9.0\n.target sm_90\n.entry k(.param .u32 a "
                     "{ }\n")
                .takeError()
                .message(),
            "k.ptx: unterminated parameter list of .entry k");
  EXPECT_EQ(fromText(".version 9.0\n.target sm_90\n.entry k(.param .b8 a[x])"
                     "{}\n")
                .takeError()
                .message(),
            "k.ptx: cannot read a parameter of .entry k (line 3): expected "
            "'[N]' after the parameter name");
}

TEST(KernelImageTest, WhereTargetsRun) {
  auto t = [](const char *s) { return *SmTarget::parse(s); };
  // PTX: plain targets JIT forward, `a` exactly, `f` within the family.
  EXPECT_TRUE(targetRunsOn(t("sm_90a"), true, 9, 0));
  EXPECT_FALSE(targetRunsOn(t("sm_90a"), true, 10, 0));
  EXPECT_TRUE(targetRunsOn(t("sm_90"), true, 10, 0));
  EXPECT_TRUE(targetRunsOn(t("sm_80"), true, 9, 0));
  EXPECT_FALSE(targetRunsOn(t("sm_100"), true, 9, 0));
  EXPECT_FALSE(targetRunsOn(t("sm_100a"), true, 9, 0));
  EXPECT_FALSE(targetRunsOn(t("sm_100a"), true, 10, 3));
  EXPECT_TRUE(targetRunsOn(t("sm_100f"), true, 10, 3));
  EXPECT_FALSE(targetRunsOn(t("sm_103f"), true, 10, 0));
  EXPECT_FALSE(targetRunsOn(t("sm_100f"), true, 12, 0));
  // Cubins: same major, equal or higher minor; `a` exactly.
  EXPECT_TRUE(targetRunsOn(t("sm_100"), false, 10, 3));
  EXPECT_FALSE(targetRunsOn(t("sm_90"), false, 10, 0));
  EXPECT_FALSE(targetRunsOn(t("sm_100a"), false, 10, 3));
  EXPECT_TRUE(targetRunsOn(t("sm_100a"), false, 10, 0));
}

TEST(KernelImageTest, RefusesSm100aOnHopperWithTheMessage) {
  for (const char *file : {"sm100a_kernel.ptx", "sm100a_kernel.cubin"}) {
    KernelImage image = load(file);
    Error e = checkImageRunsOn(image, 9, 0, "NVIDIA H200");
    ASSERT_TRUE(e) << file;
    EXPECT_EQ(e.message(), "this kernel targets sm_100a but the GPU is sm_90 "
                           "(NVIDIA H200); use --backend=emulator");
    EXPECT_FALSE(checkImageRunsOn(image, 10, 0, "NVIDIA B200"));
  }
  EXPECT_FALSE(checkImageRunsOn(load("saxpy_sm90a.ptx"), 9, 0, "NVIDIA H200"));
}

} // namespace
