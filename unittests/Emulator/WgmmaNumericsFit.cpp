//===- WgmmaNumericsFit.cpp - fit the MMA accumulation model --------------===//
//
// Not a test: a tool. Reads the H200's outputs of the accumulation probe
// (scripts/device/wgmma_numerics.sh: DIR/<set>.d.bin), regenerates the
// inputs (scripts/device/wgmma_numerics_gen.h), and prints, per format, how
// many outputs each candidate model reproduces bit for bit; with --show=SET
// it prints the designed set's rows as (D - big term) / unit so that the
// cut-off bits can be read directly.
//
//   build/unittests/WgmmaNumericsFit DIR [--ctas=N] [--scale=S] [--show=SET]
//                                        [--model=hopper|exact]
//
//===----------------------------------------------------------------------===//

#include "../../lib/Emulator/MmaNumerics.h"
#include "WgmmaNumericsValues.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

using namespace wgmma_numerics;
namespace num = nvfp4::emu::numerics;

namespace {

std::vector<uint32_t> readWords(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> raw((std::istreambuf_iterator<char>(in)),
                        std::istreambuf_iterator<char>());
  std::vector<uint32_t> out(raw.size() / 4);
  std::memcpy(out.data(), raw.data(), out.size() * 4);
  return out;
}

float f32(uint32_t b) { return static_cast<float>(f32Value(b)); }
uint32_t bits(double d) { return f32BitsOf(d); }

struct Problem {
  double c;
  std::vector<double> a, b; // steps * K
  uint32_t got;
};

std::vector<Problem> problems(const Set &st, const std::vector<uint32_t> &d,
                              unsigned ctas) {
  std::vector<Problem> out;
  const unsigned K = st.k();
  for (unsigned cta = 0; cta < ctas; ++cta)
    for (unsigned m = 0; m < 64; ++m)
      for (unsigned n = 0; n < 8; ++n) {
        Problem p;
        p.c = f32(st.c[st.cIndex(cta, m, n)]);
        for (unsigned s = 0; s < st.steps; ++s)
          for (unsigned k = 0; k < K; ++k) {
            p.a.push_back(value(st.format, st.a[st.aIndex(cta, s, m, k)]));
            p.b.push_back(value(st.format, st.b[st.bIndex(cta, s, n, k)]));
          }
        p.got = d[st.cIndex(cta, m, n)];
        out.push_back(std::move(p));
      }
  return out;
}

uint32_t predict(const num::Model &model, const Problem &p, unsigned K) {
  double c = p.c;
  for (size_t s = 0; s * K < p.a.size(); ++s)
    c = num::accumulate(model, c, &p.a[s * K], &p.b[s * K], K);
  return bits(c);
}

std::vector<num::Model> candidates(unsigned K) {
  std::vector<num::Model> out;
  num::Model e;
  out.push_back(e);
  const bool fp8 = K == 32;
  for (unsigned inner : {1u, 2u, 4u, 8u, 16u})
  for (unsigned g : {1u, 2u, 4u, 8u, 16u, 32u}) {
    if (g > K || g < inner || (!fp8 && inner > 1))
      continue;
    for (int f = fp8 ? 10 : 20; f <= (fp8 ? 16 : 28); ++f)
      for (int fl = 0; fl < 2; ++fl)
        for (int ne = 0; ne < 2; ++ne)
          for (int acc = 0; acc < 2; ++acc)
            for (int es = 0; es < 2; ++es) {
              num::Model m;
              m.kind = num::Model::Kind::Aligned;
              m.group = g;
              m.fracBits = f;
              m.floorCut = fl;
              m.nearest = ne;
              m.accInGroup = acc;
              m.expFromSum = es;
              m.inner = inner;
              m.normBits = fp8 ? f : 23;
              if (inner > 1 && es)
                continue;
              out.push_back(m);
            }
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [--ctas=N] [--scale=S] [--show=SET] "
                         "[--model=hopper|exact]\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1], show, only, mismatch;
  unsigned ctas = 16, scale = 1;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--ctas=", 0) == 0)
      ctas = unsigned(std::stoul(a.substr(7)));
    else if (a.rfind("--scale=", 0) == 0)
      scale = unsigned(std::stoul(a.substr(8)));
    else if (a.rfind("--show=", 0) == 0)
      show = a.substr(7);
    else if (a.rfind("--model=", 0) == 0)
      only = a.substr(8);
    else if (a.rfind("--mismatch=", 0) == 0)
      mismatch = a.substr(11);
  }
  std::map<Format, std::vector<std::pair<std::string, std::vector<Problem>>>> byFormat;
  for (const Set &st : probeSets(scale)) {
    auto d = readWords(dir + "/" + st.name + ".d.bin");
    if (d.empty()) {
      std::printf("%s: missing\n", st.name.c_str());
      continue;
    }
    unsigned n = std::min<unsigned>(ctas, unsigned(d.size() / 512));
    n = std::min(n, st.ncta);
    byFormat[st.format].push_back({st.name, problems(st, d, n)});
    if (st.name == mismatch) {
      num::Model hm = num::hopperModel(elemBytes(st.format) * 8);
      int shown = 0;
      for (auto &p : byFormat[st.format].back().second) {
        uint32_t want = predict(hm, p, st.k());
        if (want == p.got || ++shown > 12)
          continue;
        std::printf("got=%a model=%a exact=%a c=%a\n  ", double(f32(p.got)),
                    double(f32(want)), double(f32(predict(num::Model{}, p, st.k()))), p.c);
        for (size_t k = 0; k < p.a.size(); ++k)
          std::printf(" %a", p.a[k] * p.b[k]);
        std::printf("\n");
      }
    }
    if (st.name == show) {
      for (auto &p : byFormat[st.format].back().second) {
        std::printf("c=%-14a got=%-16a", p.c, double(f32(p.got)));
        for (size_t k = 0; k < p.a.size(); ++k)
          if (p.a[k] * p.b[k] != 0)
            std::printf(" %zu:%a", k, p.a[k] * p.b[k]);
        std::printf("\n");
      }
    }
  }
  for (auto &[f, sets] : byFormat) {
    const unsigned K = instrK(f);
    std::vector<num::Model> models;
    if (only == "hopper")
      models = {num::hopperModel(elemBytes(f) * 8)};
    else if (only == "exact")
      models = {num::Model{}};
    else
      models = candidates(K);
    std::vector<std::pair<size_t, std::string>> ranked;
    for (const num::Model &m : models) {
      size_t ok = 0, total = 0;
      std::string per;
      for (auto &[name, ps] : sets) {
        size_t o = 0;
        for (auto &p : ps)
          o += predict(m, p, K) == p.got;
        ok += o;
        total += ps.size();
        per += " " + name + "=" + std::to_string(o) + "/" + std::to_string(ps.size());
      }
      ranked.push_back({ok, m.describe() + ":" + per + " total=" +
                                std::to_string(ok) + "/" + std::to_string(total)});
    }
    std::sort(ranked.begin(), ranked.end(),
              [](auto &x, auto &y) { return x.first > y.first; });
    std::printf("== %s: best of %zu models\n", formatName(f), ranked.size());
    for (size_t i = 0; i < ranked.size() && i < 8; ++i)
      std::printf("  %s\n", ranked[i].second.c_str());
  }
  return 0;
}
