#include "permutation/counters.hpp"

#include <algorithm>

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

uint32_t expected_permutations_left(const Counters& counters, TestMask active, uint32_t done, uint32_t iterations,
                                    uint32_t threshold, bool early_exit) {
  const uint32_t rest = iterations > done ? iterations - done : 0;
  if (!active || rest == 0) return 0;
  if (!early_exit || done == 0) return rest;
  uint64_t most = 0;
  for (int t = 0; t < kNumTests; ++t) {
    if (!(active & bit(t))) continue;
    const RankCounter& c = counters[t];
    for (const uint64_t hits : {uint64_t{c.c[0]} + c.c[1], uint64_t{c.c[1]} + c.c[2]}) {
      if (hits > threshold) continue;  // this side is decided
      if (hits == 0) return rest;
      most = std::max<uint64_t>(most, ((threshold + 1 - hits) * uint64_t{done} + hits - 1) / hits);
    }
  }
  return static_cast<uint32_t>(std::min<uint64_t>(most, rest));
}

}  // namespace ea
