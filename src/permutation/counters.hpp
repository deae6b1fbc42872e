// Rank counters of the permutation tests (SP 800-90B 5.1) and the sequential counting rule.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/hd.hpp"
#include "common/test_id.hpp"

namespace ea {

// Outcome of one permutation for one test: shuffled statistic > original (0),
// == (1), < (2), or not computed (3).
enum Outcome : uint8_t { kGreater = 0, kEqual = 1, kLess = 2, kNotComputed = 3 };

// The one comparison of a permuted statistic with the original's, on the CPU and in every
// GPU kernel: exact double comparison, so that ties rank identically everywhere.
EA_HD inline uint8_t compare_outcome(double permuted, double original) {
  return permuted > original ? kGreater : (permuted == original ? kEqual : kLess);
}

// The reference's rule for 10,000 permutations: a test fails when C0+C1 <= 5 or
// C1+C2 <= 5, a tail probability of 6/10001 per side for IID data.
constexpr uint32_t kReferenceIterations = 10000;
constexpr uint32_t kReferenceThreshold = 5;

// The threshold t of the rule (fail when C0+C1 <= t or C1+C2 <= t) for N permutations
// that keeps the reference's tail probability as closely as N allows: the t >= 0 with
// (t+1)/(N+1) nearest to 6/10001, i.e. max(0, round(6 (N+1) / 10001) - 1). 5 for N =
// 10,000; 0 below N = 2,500 (the most extreme rank only: for N < 1,667 the tail
// probability is 1/(N+1), larger than the reference's); 11 for 20,000.
constexpr uint32_t decision_threshold(uint32_t iterations) {
  const uint64_t scaled = (12ull * (uint64_t{iterations} + 1) + kReferenceIterations + 1) / (2ull * (kReferenceIterations + 1));
  return scaled > 1 ? static_cast<uint32_t>(scaled - 1) : 0;
}

// The largest rate at which a permutation test rejects IID data under that rule: 2(t+1)/(N+1),
// at most 1 (12/10001 at the reference's 10,000 and 5). One formula for the run's warning and
// the reports' sentences.
constexpr double permutation_false_rejection_rate(uint32_t iterations, uint32_t threshold) {
  const double rate = 2.0 * (static_cast<double>(threshold) + 1) / (static_cast<double>(iterations) + 1);
  return rate < 1.0 ? rate : 1.0;
}

struct RankCounter {
  uint32_t c[3] = {0, 0, 0};  // C0 (greater), C1 (equal), C2 (less)

  uint32_t total() const { return c[0] + c[1] + c[2]; }
  // The test can no longer fail once both tails have more than `threshold` counts.
  bool decided(uint32_t threshold) const { return c[0] + c[1] > threshold && c[1] + c[2] > threshold; }
  bool passed(uint32_t threshold) const { return decided(threshold); }
};

using Counters = std::array<RankCounter, kNumTests>;

// Applies per-permutation outcomes in order of permutation index: row r (19 outcomes)
// belongs to permutation first + r. A test in `active` stops being counted once decided,
// unless `early_exit` is false. Returns the tests still active afterwards.
TestMask apply_outcomes(Counters& counters, TestMask active, bool early_exit, uint32_t threshold,
                        const uint8_t* outcomes, uint32_t rows);

// The permutations a phase is expected still to take (its progress lines' time left): the
// largest over the tests in `active` of the permutations each still needs at its own pace so
// far. A side (C0+C1 or C1+C2) with h > 0 of its threshold + 1 hits in `done` permutations
// needs (threshold + 1 - h) x done / h more; a side without any hit, or a run without early
// exit, runs to the last permutation. Never more than iterations - done.
uint32_t expected_permutations_left(const Counters& counters, TestMask active, uint32_t done, uint32_t iterations,
                                    uint32_t threshold, bool early_exit);

}  // namespace ea
