//===- dsv4_decode_main.cpp - Call host-lowered DeepSeek-V4 decode --------===//
//
// A C++ program calling examples/dsv4_decode.mlir lowered whole by
// `nvfp4-opt --nvfp4-to-llvm` (kernels and host code in one object), linked
// with libnvfp4_host_runtime: fresh random inputs in device memory, one
// call of `_mlir_ciface_dsv4_decode`, its results (allocated by the
// function, poisoned on the emulator) compared with the float64 reference
// of nvfp4.attention. Prints one PASS|FAIL line per output and exits 0 only
// when both pass. test/Host/dsv4-decode.test builds and runs it.
//
//   dsv4_decode_main [SEED]
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/Check.h"
#include "nvfp4/Runtime/Fill.h"
#include "nvfp4/Runtime/Harness.h"
#include "nvfp4/Runtime/HostRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

using namespace nvfp4;

namespace {

/// A ranked memref descriptor, as the C interface passes it.
template <int N> struct MemRef {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];
};

template <int N> MemRef<N> describe(void *data, const int64_t (&shape)[N]) {
  MemRef<N> m{data, data, 0, {}, {}};
  int64_t stride = 1;
  for (int i = N - 1; i >= 0; --i) {
    m.sizes[i] = shape[i];
    m.strides[i] = stride;
    stride *= shape[i];
  }
  return m;
}

struct Results {
  MemRef<4> o;
  MemRef<3> lse;
};

} // namespace

extern "C" void _mlir_ciface_dsv4_decode(Results *results, MemRef<4> *q,
                                         MemRef<4> *kv, MemRef<1> *sink,
                                         MemRef<1> *lens);

namespace {

int fail(const std::string &message) {
  std::printf("FAIL %s\n", message.c_str());
  return 1;
}

/// Device memory holding `bytes`.
void *upload(const std::vector<uint8_t> &bytes) {
  void *p = mgpuMemAlloc(bytes.size(), nullptr, 0);
  if (p)
    mgpuMemcpy(p, const_cast<uint8_t *>(bytes.data()), bytes.size(), nullptr);
  return p;
}

std::vector<uint8_t> random(size_t bytes, uint64_t seed, rt::FillType t) {
  std::vector<uint8_t> v(bytes);
  if (rt::Error e = rt::fillRandom(v.data(), v.size(), seed, t))
    std::abort();
  return v;
}

} // namespace

int main(int argc, char **argv) {
  uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
  const std::map<std::string, uint64_t> sizes = {
      {"b", 4},   {"sq", 1},  {"hq", 128}, {"skv", 4096},
      {"hkv", 1}, {"d", 512}, {"dv", 512}};
  const uint64_t nq = 4 * 1 * 128 * 512, nkv = 4 * 4096 * 1 * 512;
  std::vector<uint8_t> q = random(2 * nq, seed, rt::FillType::BF16);
  std::vector<uint8_t> kv = random(2 * nkv, seed + 1, rt::FillType::BF16);
  std::vector<uint8_t> sink = random(4 * 128, seed + 2, rt::FillType::F32);
  std::vector<int32_t> lens = rt::fillLengths(4, 4096, seed + 3);
  std::vector<uint8_t> lensBytes(reinterpret_cast<uint8_t *>(lens.data()),
                                 reinterpret_cast<uint8_t *>(lens.data()) +
                                     4 * lens.size());

  MemRef<4> dq = describe(upload(q), {4, 1, 128, 512});
  MemRef<4> dkv = describe(upload(kv), {4, 4096, 1, 512});
  MemRef<1> dsink = describe(upload(sink), {128});
  MemRef<1> dlens = describe(upload(lensBytes), {4});
  Results results{};
  if (!nvfp4HostError())
    _mlir_ciface_dsv4_decode(&results, &dq, &dkv, &dsink, &dlens);
  if (const char *e = nvfp4HostError())
    return fail(std::string("the host runtime: ") + e);
  std::printf("backend %s, seed %llu\n", nvfp4HostBackend(),
              (unsigned long long)seed);

  std::vector<uint8_t> o(2 * nq), lse(4 * 4 * 128);
  mgpuMemcpy(o.data(), results.o.aligned, o.size(), nullptr);
  mgpuMemcpy(lse.data(), results.lse.aligned, lse.size(), nullptr);
  mgpuMemFree(results.o.allocated, nullptr);
  mgpuMemFree(results.lse.allocated, nullptr);
  if (const char *e = nvfp4HostError())
    return fail(std::string("the host runtime: ") + e);

  // The float64 reference: operands q, k, v, sink, kv_lens, o, lse.
  auto ref = rt::findReference("attention");
  if (!ref)
    return fail(ref.takeError().message());
  std::vector<std::vector<double>> ops = {
      rt::decode(q.data(), nq, rt::ElemType::BF16),
      rt::decode(kv.data(), nkv, rt::ElemType::BF16),
      rt::decode(kv.data(), nkv, rt::ElemType::BF16),
      rt::decode(sink.data(), 128, rt::ElemType::F32),
      rt::decode(lensBytes.data(), 4, rt::ElemType::I32),
      std::vector<double>(nq, 0.0),
      std::vector<double>(4 * 128, 0.0)};
  rt::ReferenceOptions options = {{"softmax_scale", 0.0441941738}};
  if (rt::Error e = (*ref)->compute(sizes, options, ops))
    return fail(e.message());
  bool pass = true;
  for (auto [index, name, bytes, type] :
       {std::tuple{5, "o", &o, rt::ElemType::BF16},
        std::tuple{6, "lse", &lse, rt::ElemType::F32}}) {
    const rt::ReferenceOperand &operand = (*ref)->operands[index];
    std::vector<double> got =
        rt::decode(bytes->data(), ops[index].size(), type);
    rt::Metrics m = rt::compare(got, ops[index]);
    bool ok = rt::passes(m, operand.tolerance.value_or(rt::Tolerance{}));
    pass = pass && ok;
    std::printf("output %s: %s cos=%.8f rel_l2=%.3g max_abs=%.3g nan=%llu\n",
                name, ok ? "PASS" : "FAIL", m.cos, m.relL2, m.maxAbs,
                (unsigned long long)m.nonFinite);
  }
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
