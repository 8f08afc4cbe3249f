//===- host_main.cpp - Call host-lowered nvfp4 functions ------------------===//
//
// A C++ program calling functions lowered whole by `nvfp4-opt
// --nvfp4-to-llvm` (kernels and host code in one object), linked with
// libnvfp4_host_runtime: fresh random inputs in device memory, one call of
// `_mlir_ciface_NAME`, its results (allocated by the function, poisoned on
// the emulator) compared with the float64 reference. Prints one PASS|FAIL
// line per output and exits 0 only when all pass. test/Host/*.test build
// and run it; scripts/device/host_path_h200.sh runs it on the real driver.
//
//   host_main CASE [SEED]     CASE: dsv4_decode (examples/dsv4_decode.mlir)
//                                   merge (test/Host/Inputs/merge.mlir)
//
// The backend is NVFP4_BACKEND's (libnvfp4_host_runtime: cuda or emulator).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/Check.h"
#include "nvfp4/Runtime/Fill.h"
#include "nvfp4/Runtime/Harness.h"
#include "nvfp4/Runtime/HostRuntime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace nvfp4;

// The C interfaces of the lowered functions; weak, so that the program
// links with whichever object it is given.
extern "C" {
__attribute__((weak)) void _mlir_ciface_dsv4_decode(void *, void *, void *,
                                                    void *, void *);
__attribute__((weak)) void _mlir_ciface_merge(void *, void *, void *, void *,
                                              void *, void *);
}

namespace {

enum class Fill { Random, Lengths, Lse };

struct Tensor {
  /// The reference operands it is (K and V can be one argument).
  std::vector<std::string> names;
  rt::ElemType type;
  std::vector<int64_t> shape;
  Fill fill = Fill::Random;
  uint64_t bound = 0; ///< Lengths: in [1, bound]
};

struct Case {
  const char *function;
  void *entry;
  const char *reference;
  std::map<std::string, uint64_t> sizes;
  rt::ReferenceOptions options;
  std::vector<Tensor> inputs, outputs;
};

std::vector<Case> cases() {
  using T = rt::ElemType;
  return {
      {"dsv4_decode",
       reinterpret_cast<void *>(&_mlir_ciface_dsv4_decode),
       "attention",
       {{"b", 4}, {"sq", 1}, {"hq", 128}, {"skv", 4096}, {"hkv", 1},
        {"d", 512}, {"dv", 512}},
       {{"softmax_scale", 0.0441941738}},
       {{{"q"}, T::BF16, {4, 1, 128, 512}},
        {{"k", "v"}, T::BF16, {4, 4096, 1, 512}},
        {{"sink"}, T::F32, {128}},
        {{"kv_lens"}, T::I32, {4}, Fill::Lengths, 4096}},
       {{{"o"}, T::BF16, {4, 1, 128, 512}}, {{"lse"}, T::F32, {4, 128, 1}}}},
      {"merge",
       reinterpret_cast<void *>(&_mlir_ciface_merge),
       "attention_merge",
       {{"b", 4}, {"sq", 1}, {"hq", 128}, {"dv", 512}},
       {},
       {{{"o1"}, T::BF16, {4, 1, 128, 512}},
        {{"lse1"}, T::F32, {4, 128, 1}, Fill::Lse},
        {{"o2"}, T::BF16, {4, 1, 128, 512}},
        {{"lse2"}, T::F32, {4, 128, 1}, Fill::Lse},
        {{"sink"}, T::F32, {128}}},
       {{{"o"}, T::BF16, {4, 1, 128, 512}}, {{"lse"}, T::F32, {4, 128, 1}}}},
  };
}

uint64_t count(const Tensor &t) {
  uint64_t n = 1;
  for (int64_t d : t.shape)
    n *= uint64_t(d);
  return n;
}

/// A ranked memref descriptor: {allocated, aligned, offset, sizes, strides}.
std::vector<int64_t> descriptor(void *data, const std::vector<int64_t> &shape) {
  size_t r = shape.size();
  std::vector<int64_t> d(3 + 2 * r);
  d[0] = d[1] = int64_t(reinterpret_cast<uintptr_t>(data));
  int64_t stride = 1;
  for (size_t i = r; i-- > 0;) {
    d[3 + i] = shape[i];
    d[3 + r + i] = stride;
    stride *= shape[i];
  }
  return d;
}

int fail(const std::string &message) {
  std::printf("FAIL %s\n", message.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return fail("usage: host_main dsv4_decode|merge [SEED]");
  uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  const Case *c = nullptr;
  static const std::vector<Case> all = cases();
  for (const Case &x : all)
    if (std::string(argv[1]) == x.function)
      c = &x;
  if (!c)
    return fail(std::string("unknown case '") + argv[1] + "'");
  if (!c->entry)
    return fail(std::string("_mlir_ciface_") + c->function +
                " is not linked in: link the object of its function");

  // Inputs: host bytes, then device copies and their descriptors.
  std::vector<std::vector<uint8_t>> host;
  std::vector<std::vector<int64_t>> descriptors;
  for (size_t i = 0; i < c->inputs.size(); ++i) {
    const Tensor &t = c->inputs[i];
    std::vector<uint8_t> bytes(count(t) * rt::elemBytes(t.type));
    if (t.fill == Fill::Lengths) {
      auto v = rt::fillLengths(count(t), t.bound, seed + i);
      std::memcpy(bytes.data(), v.data(), bytes.size());
    } else if (t.fill == Fill::Lse) {
      auto v = rt::fillLse(count(t), seed + i);
      std::memcpy(bytes.data(), v.data(), bytes.size());
    } else {
      rt::FillType f = t.type == rt::ElemType::BF16 ? rt::FillType::BF16
                                                    : rt::FillType::F32;
      if (rt::Error e = rt::fillRandom(bytes.data(), bytes.size(), seed + i, f))
        return fail(e.message());
    }
    void *p = mgpuMemAlloc(bytes.size(), nullptr, 0);
    if (p)
      mgpuMemcpy(p, bytes.data(), bytes.size(), nullptr);
    host.push_back(std::move(bytes));
    descriptors.push_back(descriptor(p, t.shape));
  }
  if (const char *e = nvfp4HostError())
    return fail(std::string("the host runtime: ") + e);

  // The results: one descriptor after the other (all 8-byte fields).
  size_t words = 0;
  for (const Tensor &t : c->outputs)
    words += 3 + 2 * t.shape.size();
  std::vector<int64_t> results(words, 0);
  std::vector<void *> args = {results.data()};
  for (auto &d : descriptors)
    args.push_back(d.data());
  if (args.size() == 5)
    reinterpret_cast<void (*)(void *, void *, void *, void *, void *)>(
        c->entry)(args[0], args[1], args[2], args[3], args[4]);
  else if (args.size() == 6)
    reinterpret_cast<void (*)(void *, void *, void *, void *, void *,
                              void *)>(c->entry)(args[0], args[1], args[2],
                                                 args[3], args[4], args[5]);
  else
    return fail("no call of " + std::to_string(args.size() - 1) +
                " arguments");
  if (const char *e = nvfp4HostError())
    return fail(std::string("the host runtime: ") + e);
  std::printf("backend %s, %s, seed %llu\n", nvfp4HostBackend(), c->function,
              (unsigned long long)seed);

  // The outputs back, then freed (the caller owns them).
  std::vector<std::vector<uint8_t>> out;
  size_t at = 0;
  for (const Tensor &t : c->outputs) {
    std::vector<uint8_t> bytes(count(t) * rt::elemBytes(t.type));
    void *allocated = reinterpret_cast<void *>(uintptr_t(results[at]));
    void *aligned = reinterpret_cast<void *>(uintptr_t(results[at + 1]));
    mgpuMemcpy(bytes.data(), aligned, bytes.size(), nullptr);
    mgpuMemFree(allocated, nullptr);
    out.push_back(std::move(bytes));
    at += 3 + 2 * t.shape.size();
  }
  if (const char *e = nvfp4HostError())
    return fail(std::string("the host runtime: ") + e);

  // The float64 reference, operand by operand.
  auto ref = rt::findReference(c->reference);
  if (!ref)
    return fail(ref.takeError().message());
  std::vector<std::vector<double>> ops((*ref)->operands.size());
  std::vector<int> outputOf(ops.size(), -1);
  for (size_t r = 0; r < ops.size(); ++r) {
    const rt::ReferenceOperand &operand = (*ref)->operands[r];
    for (size_t i = 0; i < c->inputs.size(); ++i)
      for (const std::string &n : c->inputs[i].names)
        if (n == operand.name)
          ops[r] = rt::decode(host[i].data(), count(c->inputs[i]),
                              c->inputs[i].type);
    for (size_t i = 0; i < c->outputs.size(); ++i)
      if (c->outputs[i].names[0] == operand.name) {
        ops[r].assign(count(c->outputs[i]), 0.0);
        outputOf[r] = int(i);
      }
  }
  if (rt::Error e = (*ref)->compute(c->sizes, c->options, ops))
    return fail(e.message());
  bool pass = true;
  for (size_t r = 0; r < ops.size(); ++r) {
    if (outputOf[r] < 0)
      continue;
    const Tensor &t = c->outputs[size_t(outputOf[r])];
    std::vector<double> got =
        rt::decode(out[size_t(outputOf[r])].data(), count(t), t.type);
    rt::Metrics m = rt::compare(got, ops[r]);
    bool ok = rt::passes(m, (*ref)->operands[r].tolerance.value_or(
                                rt::Tolerance{}));
    pass = pass && ok;
    std::printf("output %s: %s cos=%.8f rel_l2=%.3g max_abs=%.3g nan=%llu\n",
                t.names[0].c_str(), ok ? "PASS" : "FAIL", m.cos, m.relL2,
                m.maxAbs, (unsigned long long)m.nonFinite);
  }
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
