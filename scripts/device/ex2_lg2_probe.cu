// ex2_lg2_probe.cu - what ex2.approx.ftz.f32 and lg2.approx.ftz.f32 return
// on this GPU against the correctly rounded results, and whether a small
// model could reproduce them (docs/Hopper.md, increment 3: the emulator
// rounds both exactly, the H200 does not). Prints, per family of inputs,
// how many results are RN, 1 ulp above or below, or further:
//   ex2: x = m * 2^-23 for every m < 2^23 (the fraction grid of [0, 1)),
//        the same fractions shifted by integers (is ex2(i + f) exactly
//        2^i * ex2(f)?), their negatives, and random floats of [0, 1) finer
//        than the grid (is the result that of the grid point below, or the
//        nearest?);
//   the edges (flush to zero, overflow, specials);
//   lg2: x = 2^e * (1 + m * 2^-23) for every m, e = 0 and others (is
//        lg2(2^e x) exactly e + lg2(x)?).
// Writes ex2_grid_diff.bin (int8 per m: hardware minus RN in ulps, clamped
// to [-127, 127]) for the grid, ex2_neg_grid_diff.bin for its negatives,
// and lg2_mant_diff.bin likewise for e = 0.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>
#include <cuda_runtime.h>

#include "sfu_kernels.cuh"

static uint32_t bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
static int64_t ulps(float a, float b) { // signed distance in ordered ulps
  auto ord = [](float f) {
    int64_t u = bits(f);
    return u & 0x80000000 ? -(u & 0x7fffffff) : u;
  };
  return ord(a) - ord(b);
}

struct Stats {
  long long rn = 0, up = 0, down = 0, far = 0;
  int64_t worst = 0;
  void add(int64_t d) {
    if (d == 0) ++rn; else if (d == 1) ++up; else if (d == -1) ++down; else ++far;
    if (std::llabs(d) > std::llabs(worst)) worst = d;
  }
  void print(const char *what, long long n) {
    std::printf("%-44s n %9lld: RN %9lld, +1 %8lld, -1 %8lld, further %7lld (worst %lld ulp)\n",
                what, n, rn, up, down, far, (long long)worst);
  }
};

static std::vector<float> run(bool ex2, const std::vector<float> &in) {
  int n = int(in.size());
  float *din, *dout;
  cudaMalloc(&din, n * 4); cudaMalloc(&dout, n * 4);
  cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice);
  if (ex2) ex2All<<<(n + 255) / 256, 256>>>(din, dout, n);
  else lg2All<<<(n + 255) / 256, 256>>>(din, dout, n);
  std::vector<float> out(n);
  cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  cudaFree(din); cudaFree(dout);
  if (cudaGetLastError() != cudaSuccess) { std::puts("CUDA error"); std::exit(1); }
  return out;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  const int n = 1 << 23;
  std::vector<float> grid(n);
  for (int m = 0; m < n; ++m) grid[m] = std::ldexp(float(m), -23);

  // ex2 on the fraction grid.
  std::vector<float> h = run(true, grid);
  std::vector<int8_t> diff(n);
  Stats s;
  for (int m = 0; m < n; ++m) {
    int64_t d = ulps(h[m], float(std::exp2(double(grid[m]))));
    s.add(d);
    diff[m] = int8_t(std::max<int64_t>(-127, std::min<int64_t>(127, d)));
  }
  s.print("ex2, x = m * 2^-23 in [0, 1)", n);
  char path[512];
  std::snprintf(path, sizeof path, "%s/ex2_grid_diff.bin", dir);
  if (FILE *f = std::fopen(path, "wb")) { std::fwrite(diff.data(), 1, n, f); std::fclose(f); }

  // Integer shifts: ex2(i + f) against 2^i * ex2(f) and against RN.
  for (int i : {-120, -20, -1, 1, 7, 20, 100}) {
    std::vector<float> x(n);
    for (int m = 0; m < n; ++m) x[m] = float(i) + grid[m];
    std::vector<float> hi = run(true, x);
    Stats vsRn, vsScaled;
    long long inexact = 0;
    for (int m = 0; m < n; ++m) {
      if (double(x[m]) != double(i) + double(grid[m])) { ++inexact; continue; }
      vsRn.add(ulps(hi[m], float(std::exp2(double(x[m])))));
      vsScaled.add(ulps(hi[m], std::ldexp(h[m], i)));
    }
    char what[96];
    std::snprintf(what, sizeof what, "ex2, x = %d + f vs RN", i);
    vsRn.print(what, n - inexact);
    std::snprintf(what, sizeof what, "ex2, x = %d + f vs 2^%d * ex2(f)", i, i);
    vsScaled.print(what, n - inexact);
  }

  // Negative fractions.
  {
    std::vector<float> x(n);
    for (int m = 0; m < n; ++m) x[m] = -grid[m];
    std::vector<float> hn = run(true, x);
    Stats vsRn, vsShift;
    for (int m = 1; m < n; ++m) {
      vsRn.add(ulps(hn[m], float(std::exp2(double(x[m])))));
      // -f = -1 + (1 - f): 2^-1 * ex2(1 - f), 1 - f on the grid.
      vsShift.add(ulps(hn[m], std::ldexp(h[n - m], -1)));
    }
    vsRn.print("ex2, x = -m * 2^-23 vs RN", n - 1);
    vsShift.print("ex2, x = -f vs 2^-1 * ex2(1 - f)", n - 1);
    // Is a second table over the negative fractions enough: ex2(-i - f)
    // exactly 2^-i * ex2(-f)?
    for (int i : {1, 5, 20, 100}) {
      std::vector<float> xi(n);
      for (int m = 0; m < n; ++m) xi[m] = -float(i) - grid[m];
      std::vector<float> hi = run(true, xi);
      Stats vsScaled;
      long long inexact = 0;
      for (int m = 1; m < n; ++m) {
        if (double(xi[m]) != -double(i) - double(grid[m])) { ++inexact; continue; }
        vsScaled.add(ulps(hi[m], std::ldexp(hn[m], -i)));
      }
      char what[96];
      std::snprintf(what, sizeof what, "ex2, x = -%d - f vs 2^-%d * ex2(-f)", i, i);
      vsScaled.print(what, n - 1 - inexact);
    }
    // Negative inputs finer than the grid: the magnitude truncated too?
    {
      std::mt19937_64 rng(6);
      std::vector<float> xr(n);
      for (int m = 0; m < n; ++m) {
        float v;
        do { v = std::ldexp(float(rng() >> 40), -24); } while (v >= 1.0f);
        xr[m] = -v * std::ldexp(1.0f, -int(rng() % 8));
      }
      std::vector<float> hr = run(true, xr);
      long long trunc = 0, nearest = 0;
      for (int m = 0; m < n; ++m) {
        double g = -double(xr[m]) * 8388608.0;
        long long lo = (long long)std::floor(g), near = std::llround(g);
        trunc += lo > 0 && lo < n && bits(hr[m]) == bits(hn[lo]);
        nearest += near > 0 && near < n && bits(hr[m]) == bits(hn[near]);
      }
      std::printf("ex2, random x in (-1, 0): equals ex2(-f) at |x| truncated: %lld, rounded: %lld of %d\n",
                  trunc, nearest, n);
    }
    std::vector<int8_t> dn(n);
    for (int m = 0; m < n; ++m) {
      int64_t d = ulps(hn[m], float(std::exp2(double(x[m]))));
      dn[m] = int8_t(std::max<int64_t>(-127, std::min<int64_t>(127, d)));
    }
    std::snprintf(path, sizeof path, "%s/ex2_neg_grid_diff.bin", dir);
    if (FILE *f = std::fopen(path, "wb")) { std::fwrite(dn.data(), 1, n, f); std::fclose(f); }
  }

  // Finer than the grid: random floats of [0, 1).
  {
    std::mt19937_64 rng(5);
    std::vector<float> x(n);
    for (int m = 0; m < n; ++m) {
      float v;
      do { v = std::ldexp(float(rng() >> 40), -24); } while (v >= 1.0f);
      v = v * std::ldexp(1.0f, -int(rng() % 8)); // several binades below 1
      x[m] = v;
    }
    std::vector<float> hr = run(true, x);
    Stats vsRn;
    long long floorMatch = 0, nearestMatch = 0, either = 0;
    for (int m = 0; m < n; ++m) {
      vsRn.add(ulps(hr[m], float(std::exp2(double(x[m])))));
      double g = double(x[m]) * 8388608.0;
      long long lo = (long long)std::floor(g), near = std::llround(g);
      bool a = lo < n && bits(hr[m]) == bits(h[lo]);
      bool b = near < n && bits(hr[m]) == bits(h[near]);
      floorMatch += a; nearestMatch += b; either += a || b;
    }
    vsRn.print("ex2, random x in [0, 1) (finer than 2^-23)", n);
    std::printf("  equals ex2 at the grid point below: %lld, at the nearest: %lld, either: %lld of %d\n",
                floorMatch, nearestMatch, either, n);
  }

  // The edges: flush to zero, overflow, specials.
  {
    std::vector<float> x = {-0.0f, -125.5f, -126.0f, -126.5f, -127.0f, -127.5f,
                            -149.0f, -150.0f, -1000.0f, 127.0f, 127.5f,
                            127.99999f, 128.0f, 200.0f, INFINITY, -INFINITY, NAN};
    std::vector<float> hx = run(true, x);
    for (size_t i = 0; i < x.size(); ++i)
      std::printf("ex2(%g) = %g (0x%08x), RN %g\n", x[i], hx[i], bits(hx[i]),
                  double(float(std::exp2(double(x[i])))));
  }

  // lg2 over the mantissas of [1, 2) and other binades.
  std::vector<float> h0;
  for (int e : {0, -100, -1, 1, 20, 100}) {
    std::vector<float> x(n);
    for (int m = 0; m < n; ++m) x[m] = std::ldexp(1.0f + std::ldexp(float(m), -23), e);
    std::vector<float> hl = run(false, x);
    Stats vsRn, vsShift;
    std::vector<int8_t> d0(n);
    for (int m = 0; m < n; ++m) {
      int64_t d = ulps(hl[m], float(std::log2(double(x[m]))));
      vsRn.add(d);
      if (e == 0) d0[m] = int8_t(std::max<int64_t>(-127, std::min<int64_t>(127, d)));
      else vsShift.add(ulps(hl[m], float(double(e) + double(h0[m]))));
    }
    char what[96];
    std::snprintf(what, sizeof what, "lg2, x = 2^%d * (1 + m 2^-23) vs RN", e);
    vsRn.print(what, n);
    if (e == 0) {
      h0 = hl;
      std::snprintf(path, sizeof path, "%s/lg2_mant_diff.bin", dir);
      if (FILE *f = std::fopen(path, "wb")) { std::fwrite(d0.data(), 1, n, f); std::fclose(f); }
    } else {
      std::snprintf(what, sizeof what, "lg2, x = 2^%d * m vs RN(%d + lg2(m))", e, e);
      vsShift.print(what, n);
    }
  }
  return 0;
}
