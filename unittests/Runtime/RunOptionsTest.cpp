//===- RunOptionsTest.cpp - Tests for nvfp4-run's command line ------------===//

#include "nvfp4/Runtime/RunOptions.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace nvfp4::rt;

namespace {

/// Parses "k.ptx --grid=1 --block=32" plus `extra`.
Expected<RunOptions> parse(std::vector<std::string> extra) {
  std::vector<std::string> args = {"k.ptx", "--grid=1", "--block=32"};
  args.insert(args.end(), extra.begin(), extra.end());
  return parseRunOptions(args);
}

std::string error(std::vector<std::string> extra) {
  auto o = parse(std::move(extra));
  return o ? std::string("<ok>") : o.takeError().message();
}

std::string rawError(std::vector<std::string> args) {
  auto o = parseRunOptions(args);
  return o ? std::string("<ok>") : o.takeError().message();
}

template <typename T> T scalarValue(const ArgSpec &a) {
  T v;
  std::memcpy(&v, a.scalar.data(), sizeof(T));
  return v;
}

TEST(RunOptionsTest, Defaults) {
  auto o = parse({});
  ASSERT_TRUE(o) << o.takeError().message();
  EXPECT_EQ(o->input, "k.ptx");
  EXPECT_EQ(o->backend, BackendKind::Cuda);
  EXPECT_EQ(o->launch.grid, (Dim3{1, 1, 1}));
  EXPECT_EQ(o->launch.block, (Dim3{32, 1, 1}));
  EXPECT_EQ(o->launch.cluster, (Dim3{1, 1, 1}));
  EXPECT_EQ(o->launch.dynamicSmemBytes, 0u);
  EXPECT_TRUE(o->kernel.empty());
  EXPECT_FALSE(o->dryRun);
}

TEST(RunOptionsTest, LaunchShapeBothSpellings) {
  auto o =
      parseRunOptions({"--grid", "8,2", "--block=128,2,2", "--cluster", "2",
                       "--smem=200000", "--kernel", "k", "--backend=emulator",
                       "--device=1", "--dry-run", "in.ptx"});
  ASSERT_TRUE(o) << o.takeError().message();
  EXPECT_EQ(o->launch.grid, (Dim3{8, 2, 1}));
  EXPECT_EQ(o->launch.block, (Dim3{128, 2, 2}));
  EXPECT_EQ(o->launch.cluster, (Dim3{2, 1, 1}));
  EXPECT_EQ(o->launch.dynamicSmemBytes, 200000u);
  EXPECT_EQ(o->kernel, "k");
  EXPECT_EQ(o->backend, BackendKind::Emulator);
  EXPECT_EQ(o->deviceOrdinal, 1u);
  EXPECT_TRUE(o->dryRun);
  EXPECT_EQ(o->input, "in.ptx");
}

TEST(RunOptionsTest, HelpNeedsNothingElse) {
  auto o = parseRunOptions({"--help"});
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->help);
  EXPECT_NE(runUsage().find("tmap:BUF:dtype=T"), std::string::npos);
}

TEST(RunOptionsTest, OptionErrors) {
  EXPECT_EQ(rawError({"--grid=1", "--block=1"}),
            "no input file (expected a PTX, cubin or fatbinary file; see "
            "--help)");
  EXPECT_EQ(rawError({"k.ptx", "--block=1"}), "missing --grid=X[,Y,Z]");
  EXPECT_EQ(rawError({"k.ptx", "--grid=1"}), "missing --block=X[,Y,Z]");
  EXPECT_EQ(rawError({"a.ptx", "b.ptx"}),
            "more than one input file ('a.ptx' and 'b.ptx')");
  EXPECT_EQ(error({"--frobnicate=1"}),
            "unknown option '--frobnicate' (see --help)");
  EXPECT_EQ(error({"-x"}), "unknown option '-x' (see --help)");
  EXPECT_EQ(error({"--kernel"}), "--kernel needs a value");
  EXPECT_EQ(error({"--kernel="}), "--kernel needs a kernel name");
  EXPECT_EQ(error({"--grid=2"}), "--grid given twice");
  EXPECT_EQ(error({"--dry-run=yes"}), "--dry-run takes no value");
  EXPECT_EQ(error({"--backend=hip"}),
            "--backend=hip: unknown backend 'hip' (expected cuda or emulator)");
  EXPECT_EQ(error({"--smem=lots"}),
            "--smem=lots: expected a byte count of dynamic shared memory");
  EXPECT_EQ(error({"--device=-1"}), "--device=-1: expected a GPU ordinal");
}

TEST(RunOptionsTest, MlirInputNeedsNoLaunchShape) {
  EXPECT_EQ(rawError({"gemm.mlir"}), "<ok>");
}

TEST(RunOptionsTest, Dim3Errors) {
  EXPECT_EQ(parseDim3("0", "--grid").takeError().message(),
            "--grid=0: expected positive integers X[,Y,Z], got '0'");
  EXPECT_EQ(parseDim3("1,2,3,4", "--grid").takeError().message(),
            "--grid=1,2,3,4: expected X[,Y,Z], got 4 values");
  EXPECT_EQ(parseDim3("4,", "--block").takeError().message(),
            "--block=4,: expected positive integers X[,Y,Z], got ''");
  EXPECT_EQ(parseDim3("x", "--block").takeError().message(),
            "--block=x: expected positive integers X[,Y,Z], got 'x'");
  EXPECT_EQ(parseDim3("4294967296", "--grid").takeError().message(),
            "--grid=4294967296: expected positive integers X[,Y,Z], got "
            "'4294967296'");
  EXPECT_EQ(*parseDim3("0x10,2", "--grid"), (Dim3{16, 2, 1}));
}

TEST(RunOptionsTest, LaunchLimits) {
  EXPECT_EQ(rawError({"k.ptx", "--grid=1", "--block=1025"}),
            "--block=(1025,1,1): expected at most 1024 threads (x, y <= 1024, "
            "z <= 64), got 1025");
  EXPECT_EQ(rawError({"k.ptx", "--grid=1", "--block=32,32,2"}),
            "--block=(32,32,2): expected at most 1024 threads (x, y <= 1024, "
            "z <= 64), got 2048");
  EXPECT_EQ(rawError({"k.ptx", "--grid=1,65536", "--block=1"}),
            "--grid=(1,65536,1): expected x <= 2^31-1 and y, z <= 65535");
  EXPECT_EQ(error({"--cluster=2"}),
            "--grid=(1,1,1) is not a multiple of --cluster=(2,1,1) in x");
  EXPECT_EQ(rawError({"k.ptx", "--grid=4,3", "--block=1", "--cluster=2,2"}),
            "--grid=(4,3,1) is not a multiple of --cluster=(2,2,1) in y");
  EXPECT_EQ(rawError({"k.ptx", "--grid=32", "--block=1", "--cluster=32"}),
            "--cluster=(32,1,1): expected at most 16 CTAs a cluster, got 32");
}

TEST(RunOptionsTest, Buffers) {
  auto o = parse({"--arg=buf:x:4096:seed=7:bf16:out=x.bin:dump-init=x0.bin",
                  "--arg=buf:y:16:file=y.bin", "--arg=buf:z:8:zero",
                  "--arg=buf:w:8:poison", "--buf=in:64:seed=1:u8"});
  ASSERT_TRUE(o) << o.takeError().message();
  ASSERT_EQ(o->buffers.size(), 5u);
  ASSERT_EQ(o->args.size(), 4u);
  const BufferSpec &x = o->buffers[0];
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.bytes, 4096u);
  EXPECT_EQ(x.init, BufferInit::Seed);
  EXPECT_EQ(x.seed, 7u);
  EXPECT_EQ(x.seedType, FillType::BF16);
  EXPECT_EQ(x.outPath, "x.bin");
  EXPECT_EQ(x.dumpInitPath, "x0.bin");
  EXPECT_EQ(o->buffers[1].init, BufferInit::File);
  EXPECT_EQ(o->buffers[1].file, "y.bin");
  EXPECT_EQ(o->buffers[2].init, BufferInit::Zero);
  EXPECT_EQ(o->buffers[3].init, BufferInit::Poison);
  EXPECT_EQ(o->buffers[4].name, "in");
  EXPECT_EQ(o->args[0].kind, ArgSpec::Kind::Buffer);
  EXPECT_EQ(o->args[0].bufferIndex, 0u);
  EXPECT_EQ(o->args[3].bufferIndex, 3u);
  EXPECT_EQ(o->args[0].paramBytes(), 8u);
}

TEST(RunOptionsTest, BufferErrors) {
  EXPECT_EQ(error({"--arg=buf:x:16"}),
            "--arg=buf:x:16: expected NAME:BYTES:INIT with INIT one of "
            "file=PATH, seed=N:TYPE, zero, poison");
  EXPECT_EQ(error({"--arg=buf:1x:16:zero"}),
            "--arg=buf:1x:16:zero: expected a buffer name of letters, digits, "
            "'_', '.' and '-' starting with a letter or '_', got '1x'");
  EXPECT_EQ(error({"--arg=buf:x:0:zero"}),
            "--arg=buf:x:0:zero: expected a positive byte count for buffer "
            "'x', got '0'");
  EXPECT_EQ(error({"--arg=buf:x:4k:zero"}),
            "--arg=buf:x:4k:zero: expected a positive byte count for buffer "
            "'x', got '4k'");
  EXPECT_EQ(error({"--arg=buf:x:16:random"}),
            "--arg=buf:x:16:random: unknown initial contents 'random' for "
            "buffer 'x' (expected file=PATH, seed=N:TYPE, zero or poison)");
  EXPECT_EQ(error({"--arg=buf:x:16:file="}),
            "--arg=buf:x:16:file=: expected a path after file= for buffer 'x'");
  EXPECT_EQ(error({"--arg=buf:x:16:seed=1"}),
            "--arg=buf:x:16:seed=1: expected seed=N:TYPE with TYPE one of "
            "f32, bf16, f16, i32, u8");
  EXPECT_EQ(error({"--arg=buf:x:16:seed=-1:f32"}),
            "--arg=buf:x:16:seed=-1:f32: expected seed=N with N a "
            "non-negative integer, got 'seed=-1'");
  EXPECT_EQ(error({"--arg=buf:x:16:seed=1:f64"}),
            "--arg=buf:x:16:seed=1:f64: unknown fill type 'f64' (expected "
            "f32, bf16, f16, i32 or u8)");
  EXPECT_EQ(error({"--arg=buf:x:6:seed=1:f32"}),
            "--arg=buf:x:6:seed=1:f32: buffer 'x' of 6 bytes is not a whole "
            "number of f32 elements (4 bytes each)");
  EXPECT_EQ(error({"--arg=buf:x:16:zero:in=a"}),
            "--arg=buf:x:16:zero:in=a: unknown buffer option 'in=a' (expected "
            "out=PATH or dump-init=PATH)");
  EXPECT_EQ(error({"--arg=buf:x:16:zero:out="}),
            "--arg=buf:x:16:zero:out=: expected a path in 'out='");
  EXPECT_EQ(error({"--arg=buf:x:16:zero:out=a:out=b"}),
            "--arg=buf:x:16:zero:out=a:out=b: buffer option 'out' given twice");
  EXPECT_EQ(error({"--arg=buf:x:16:zero", "--buf=x:8:zero"}),
            "buffer 'x' declared twice");
  EXPECT_EQ(
      error({"--arg=buf:x:16:zero:out=o.bin", "--arg=buf:y:16:zero:out=o.bin"}),
      "two buffers write the file 'o.bin'");
}

TEST(RunOptionsTest, Scalars) {
  auto o = parse({"--arg=u8:255", "--arg=u16:0xffff", "--arg=u32:4000000000",
                  "--arg=u64:18446744073709551615", "--arg=i8:-128",
                  "--arg=i16:-32768", "--arg=i32:-2147483648",
                  "--arg=i64:-9223372036854775808", "--arg=f32:2.5",
                  "--arg=f64:-0.125", "--arg=f32:nan", "--arg=f64:-inf",
                  "--arg=f32:0x1p-3"});
  ASSERT_TRUE(o) << o.takeError().message();
  const auto &a = o->args;
  ASSERT_EQ(a.size(), 13u);
  EXPECT_EQ(scalarValue<uint8_t>(a[0]), 255);
  EXPECT_EQ(scalarValue<uint16_t>(a[1]), 0xFFFF);
  EXPECT_EQ(scalarValue<uint32_t>(a[2]), 4000000000u);
  EXPECT_EQ(scalarValue<uint64_t>(a[3]), 18446744073709551615ull);
  EXPECT_EQ(scalarValue<int8_t>(a[4]), -128);
  EXPECT_EQ(scalarValue<int16_t>(a[5]), -32768);
  EXPECT_EQ(scalarValue<int32_t>(a[6]), INT32_MIN);
  EXPECT_EQ(scalarValue<int64_t>(a[7]), INT64_MIN);
  EXPECT_EQ(scalarValue<float>(a[8]), 2.5f);
  EXPECT_EQ(scalarValue<double>(a[9]), -0.125);
  EXPECT_TRUE(std::isnan(scalarValue<float>(a[10])));
  EXPECT_EQ(scalarValue<double>(a[11]), -INFINITY);
  EXPECT_EQ(scalarValue<float>(a[12]), 0.125f);
  size_t widths[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 4, 8, 4};
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a[i].paramBytes(), widths[i]) << i;
}

TEST(RunOptionsTest, ScalarErrors) {
  EXPECT_EQ(error({"--arg=u8:256"}),
            "--arg=u8:256: expected an integer in [0, 255] after 'u8:', got "
            "'256'");
  EXPECT_EQ(error({"--arg=u32:-1"}),
            "--arg=u32:-1: expected an integer in [0, 2^32-1] after 'u32:', "
            "got '-1'");
  EXPECT_EQ(error({"--arg=i32:2147483648"}),
            "--arg=i32:2147483648: expected an integer in [-2^31, 2^31-1] "
            "after 'i32:', got '2147483648'");
  EXPECT_EQ(error({"--arg=i8:-129"}),
            "--arg=i8:-129: expected an integer in [-128, 127] after 'i8:', "
            "got '-129'");
  EXPECT_EQ(error({"--arg=u64:18446744073709551616"}),
            "--arg=u64:18446744073709551616: expected an integer in [0, "
            "2^64-1] after 'u64:', got '18446744073709551616'");
  EXPECT_EQ(error({"--arg=f32:1.5x"}),
            "--arg=f32:1.5x: expected a number after 'f32:', got '1.5x'");
  EXPECT_EQ(error({"--arg=f32:1e39"}),
            "--arg=f32:1e39: expected a number in the f32 range after 'f32:', "
            "got '1e39'");
  EXPECT_EQ(error({"--arg=f64:"}),
            "--arg=f64:: expected a number after 'f64:', got ''");
  EXPECT_EQ(error({"--arg=u32"}), "--arg=u32: expected u32:VALUE");
  EXPECT_EQ(error({"--arg=u32:1:2"}), "--arg=u32:1:2: expected u32:VALUE");
  EXPECT_EQ(error({"--arg=float:1"}),
            "--arg=float:1: unknown argument kind 'float' (expected buf, ptr, "
            "u8, u16, u32, u64, i8, i16, i32, i64, f32, f64 or tmap)");
}

TEST(RunOptionsTest, Pointers) {
  auto o = parse({"--buf=a:64:zero", "--arg=ptr:a", "--arg=ptr:a+16"});
  ASSERT_TRUE(o) << o.takeError().message();
  EXPECT_EQ(o->args[0].kind, ArgSpec::Kind::Pointer);
  EXPECT_EQ(o->args[0].pointerBuffer, "a");
  EXPECT_EQ(o->args[1].pointerOffset, 16u);
  EXPECT_EQ(error({"--arg=ptr:b"}),
            "--arg=ptr:b: no buffer named 'b' (declare it with --buf or "
            "--arg=buf:...)");
  EXPECT_EQ(error({"--buf=a:64:zero", "--arg=ptr:a+64"}),
            "--arg=ptr:a+64: offset 64 is past the end of buffer 'a' (64 "
            "bytes)");
  EXPECT_EQ(error({"--arg=ptr:a+x"}),
            "--arg=ptr:a+x: expected ptr:NAME+OFFSET with OFFSET a byte "
            "count, got 'a+x'");
  EXPECT_EQ(error({"--arg=ptr"}), "--arg=ptr: expected ptr:NAME[+OFFSET]");
}

const char *kTmap = "--arg=tmap:g:dtype=bf16:dims=256,96:strides=512:"
                    "box=64,32:swizzle=128B";

TEST(RunOptionsTest, TensorMaps) {
  auto o = parse({"--buf=g:49152:seed=1:bf16", kTmap,
                  "--arg=tmap:g:dtype=f32:dims=16,4,2:strides=64,256:"
                  "box=16,4,1:elemstrides=1,2,1:interleave=none:oob=nan:"
                  "l2=256B:offset=1024:by=pointer"});
  ASSERT_TRUE(o) << o.takeError().message();
  const TensorMapSpec &t = o->args[0].tmap;
  EXPECT_EQ(t.buffer, "g");
  EXPECT_EQ(t.desc.dataType, TmaDataType::BF16);
  EXPECT_EQ(t.desc.rank, 2u);
  EXPECT_EQ(t.desc.globalDims[0], 256u);
  EXPECT_EQ(t.desc.globalDims[1], 96u);
  EXPECT_EQ(t.desc.globalStrides[0], 512u);
  EXPECT_EQ(t.desc.boxDims[1], 32u);
  EXPECT_EQ(t.desc.swizzle, TmaSwizzle::B128);
  EXPECT_FALSE(t.byPointer);
  EXPECT_EQ(o->args[0].paramBytes(), 128u);
  const TensorMapSpec &u = o->args[1].tmap;
  EXPECT_EQ(u.desc.rank, 3u);
  EXPECT_EQ(u.desc.elementStrides[1], 2u);
  EXPECT_EQ(u.desc.oobFill, TmaOobFill::NaN);
  EXPECT_EQ(u.desc.l2Promotion, TmaL2Promotion::B256);
  EXPECT_EQ(u.offset, 1024u);
  EXPECT_TRUE(u.byPointer);
  EXPECT_EQ(o->args[1].paramBytes(), 8u);
}

TEST(RunOptionsTest, TensorMapErrors) {
  const std::string buf = "--buf=g:49152:zero";
  auto tmapError = [&](const std::string &spec) {
    return error({buf, "--arg=" + spec});
  };
  EXPECT_EQ(tmapError("tmap"),
            "--arg=tmap: expected tmap:BUFFER:dtype=..:dims=..:box=..");
  EXPECT_EQ(tmapError("tmap:g:dims=256:box=64"),
            "--arg=tmap:g:dims=256:box=64: the tensor map needs dtype=TYPE");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:box=64"),
            "--arg=tmap:g:dtype=bf16:box=64: the tensor map needs "
            "dims=D0[,D1,...]");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=256"),
            "--arg=tmap:g:dtype=bf16:dims=256: the tensor map needs "
            "box=B0[,B1,...]");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=256,96:box=64,32"),
            "--arg=tmap:g:dtype=bf16:dims=256,96:box=64,32: the tensor map "
            "needs strides= (1 byte strides, of dims 1..1)");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=256,96:strides=512:box=64"),
            "--arg=tmap:g:dtype=bf16:dims=256,96:strides=512:box=64: expected "
            "2 box sizes (one per dim), got 1");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=256,96:strides=512,2:box=64,1"),
            "--arg=tmap:g:dtype=bf16:dims=256,96:strides=512,2:box=64,1: "
            "expected 1 byte strides (of dims 1..1), got 2");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=1,1,1,1,1,1:box=8"),
            "--arg=tmap:g:dtype=bf16:dims=1,1,1,1,1,1:box=8: expected 1 to 5 "
            "dims, got 6");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=256:box=64:elemstrides=1,1"),
            "--arg=tmap:g:dtype=bf16:dims=256:box=64:elemstrides=1,1: "
            "expected 1 element strides, got 2");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=256:box=64:dims=2"),
            "--arg=tmap:g:dtype=bf16:dims=256:box=64:dims=2: tensor-map key "
            "'dims' given twice");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=256:box=64:color=red"),
            "--arg=tmap:g:dtype=bf16:dims=256:box=64:color=red: unknown "
            "tensor-map key 'color' (expected dtype, dims, strides, box, "
            "elemstrides, swizzle, interleave, oob, l2, offset or by)");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=256:box=64:swizzle"),
            "--arg=tmap:g:dtype=bf16:dims=256:box=64:swizzle: expected "
            "KEY=VALUE in the tensor map, got 'swizzle'");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=256:box=64:by=reference"),
            "--arg=tmap:g:dtype=bf16:dims=256:box=64:by=reference: expected "
            "by=value or by=pointer, got 'reference'");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=256,-1:box=64"),
            "--arg=tmap:g:dtype=bf16:dims=256,-1:box=64: expected dims= to be "
            "a comma-separated list of non-negative integers, got '256,-1'");
  // Rules of validate() reach the user with the option in front.
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=256:box=128:swizzle=128B"),
            "--arg=tmap:g:dtype=bf16:dims=256:box=128:swizzle=128B: swizzle "
            "128B needs the inner box to be at most 128 bytes, got 256 "
            "(box[0] = 128 bf16)");
  EXPECT_EQ(tmapError("tmap:g:dtype=bf16:dims=256:box=64:offset=8"),
            "--arg=tmap:g:dtype=bf16:dims=256:box=64:offset=8: expected the "
            "global address to be 16-byte aligned, got 0x8");
  // The map must fit its buffer.
  EXPECT_EQ(error({"--buf=g:4096:zero", kTmap}),
            std::string(kTmap) +
                ": the tensor map spans 49152 bytes (offset 0 + 49152) but "
                "buffer 'g' has 4096");
  EXPECT_EQ(error({kTmap}), std::string(kTmap) +
                                ": no buffer named 'g' (declare it with "
                                "--buf or --arg=buf:...)");
}

} // namespace
