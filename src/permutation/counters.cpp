#include "permutation/counters.hpp"

#include "common/error.hpp"

namespace ea {

TestMask apply_outcomes(Counters& counters, TestMask active, bool early_exit, uint32_t threshold,
                        const uint8_t* outcomes, uint32_t rows) {
  for (uint32_t r = 0; r < rows && active; ++r) {
    const uint8_t* row = outcomes + static_cast<size_t>(r) * kNumTests;
    for (int t = 0; t < kNumTests; ++t) {
      if (!(active & bit(t))) continue;
      if (row[t] > kLess) throw Error(ErrorKind::Internal, "permutation outcome missing for an active test");
      ++counters[t].c[row[t]];
      if (early_exit && counters[t].decided(threshold)) active &= ~bit(t);
    }
  }
  return active;
}

}  // namespace ea
