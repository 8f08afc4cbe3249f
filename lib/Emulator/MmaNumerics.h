//===- MmaNumerics.h - how an MMA accumulates its products ------*- C++ -*-===//
//
// The arithmetic of one MMA instruction's dot product, D = C + sum_k a_k b_k,
// as a parametrized model (docs/Emulator.md, "MMA accumulation"):
//
//   exact    the products summed exactly and rounded once to f32 (round to
//            nearest even): the emulator's reference arithmetic.
//   aligned  a fused multi-term adder as tensor cores build it: the K
//            products are taken in groups of `group` (in k order); each
//            group and the running accumulator are aligned to the largest
//            exponent among them, every term is cut to `fracBits` bits below
//            that exponent (toward zero), the cut terms are summed exactly,
//            and the sum is normalized to f32 (toward zero or to nearest)
//            as the accumulator of the next group.
//
// wgmma uses the model measured on an H200 (hopperModel); tcgen05.mma uses
// exact or the same model, as the launch chooses (LaunchConfig::mmaNumerics).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EMULATOR_MMANUMERICS_H
#define NVFP4_LIB_EMULATOR_MMANUMERICS_H

#include <string>

namespace nvfp4::emu::numerics {

struct Model {
  enum class Kind { Exact, Aligned };
  Kind kind = Kind::Exact;
  unsigned group = 16;     // products per alignment group
  int fracBits = 24;       // bits kept below the group's largest exponent
  bool floorCut = false;   // cut toward -inf (two's complement) not zero
  bool nearest = false;    // normalize to nearest even, not toward zero
  bool accInGroup = true;  // the accumulator is aligned with the products
  bool expFromSum = false; // a product's exponent is ea + eb, not exact
  unsigned inner = 1;      // products summed exactly into one aligned term
  int normBits = 23;       // fraction bits the normalized sum keeps

  std::string describe() const;
};

/// The model measured on an H200's wgmma for the given operand width in
/// bits (16: bf16/f16; 8: e4m3/e5m2); docs/Emulator.md has the evidence.
Model hopperModel(unsigned operandBits);

/// D = C + sum_k a[k] b[k] (k < K) under M, rounded to f32 and returned as
/// a double holding that float. a and b hold exact operand values (scaled
/// already); c is the accumulator's f32 value.
double accumulate(const Model &m, double c, const double *a, const double *b,
                  unsigned K);

} // namespace nvfp4::emu::numerics

#endif
