//===- SfuProbeCounts.h - the SFU probes' statistics, for tests -*- C++ -*-===//
//
// What scripts/device/ex2_lg2_probe.sh and lg2_table_probe.sh print per set
// of inputs: how many results are the float nearest the exact function (RN),
// one ordered ulp above, one below, further. Ex2H200Test and Lg2Sm90Test
// count the emulator's models the same way and compare.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_UNITTESTS_EMULATOR_SFUPROBECOUNTS_H
#define NVFP4_UNITTESTS_EMULATOR_SFUPROBECOUNTS_H

#include "../../lib/Emulator/Sfu.h"

#include <cstdint>
#include <cstring>
#include <ostream>

namespace nvfp4::emu::test {

inline uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// The probes' signed distance from b to a in ordered ulps.
inline int64_t ulps(uint32_t a, uint32_t b) {
  return orderedUlps(a) - orderedUlps(b);
}

struct Counts {
  long long rn = 0, up = 0, down = 0, far = 0;
  void add(int64_t d) {
    if (d == 0)
      ++rn;
    else if (d == 1)
      ++up;
    else if (d == -1)
      ++down;
    else
      ++far;
  }
  bool operator==(const Counts &o) const {
    return rn == o.rn && up == o.up && down == o.down && far == o.far;
  }
};

inline std::ostream &operator<<(std::ostream &os, const Counts &c) {
  return os << "RN " << c.rn << ", +1 " << c.up << ", -1 " << c.down
            << ", further " << c.far;
}

} // namespace nvfp4::emu::test

#endif // NVFP4_UNITTESTS_EMULATOR_SFUPROBECOUNTS_H
