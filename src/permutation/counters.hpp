// Rank counters of the permutation tests (SP 800-90B 5.1) and the sequential counting rule.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/test_id.hpp"

namespace ea {

// Outcome of one permutation for one test: shuffled statistic > original (0),
// == (1), < (2), or not computed (3).
enum Outcome : uint8_t { kGreater = 0, kEqual = 1, kLess = 2, kNotComputed = 3 };

struct RankCounter {
  uint32_t c[3] = {0, 0, 0};  // C0 (greater), C1 (equal), C2 (less)

  uint32_t total() const { return c[0] + c[1] + c[2]; }
  // The test can no longer fail once both tails have more than five counts.
  bool decided() const { return c[0] + c[1] > 5 && c[1] + c[2] > 5; }
  bool passed() const { return decided(); }
};

using Counters = std::array<RankCounter, kNumTests>;

// Applies per-permutation outcomes in order of permutation index: row r (19 outcomes)
// belongs to permutation first + r. A test in `active` stops being counted once decided,
// unless `early_exit` is false. Returns the tests still active afterwards.
TestMask apply_outcomes(Counters& counters, TestMask active, bool early_exit, const uint8_t* outcomes,
                        uint32_t rows);

}  // namespace ea
