// MultiMMC's counts on bits, the fast path (non_iid_mmc_bits.cpp): the 16 orders as
// independent passes, then the scoreboard. Internal to the estimators: multi_mmc_estimate
// (non_iid.hpp) calls it for k = 2.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/interrupt.hpp"

namespace ea {

struct MmcCounts {
  uint64_t correct = 0;  // C
  uint64_t longest = 0;  // the longest run of correct predictions (the reference's r - 1)
};

// The counts of `n` >= 3 bits (bytes 0 or 1; the lowest bit is read). Each order is an
// OpenMP task: inside a parallel region the team's free threads share them; outside, the
// calling thread runs them all. The same counts for any thread count.
MmcCounts multi_mmc_bits(const uint8_t* bits, size_t n, Interrupt interrupt = nullptr);

// One order's pass (order d + 1, d = 0..15, d < n - 2): bit t - 2 of `found` is set where its
// context (the d + 1 bits before t) was known at step t, of `right` where it also predicted
// bit t. Both hold ceil((n - 2) / 64) words, zero on entry. (For the tests: the reference's
// per-order states, step by step.)
void multi_mmc_order_bits(const uint8_t* bits, size_t n, int d, uint64_t* found, uint64_t* right,
                          Interrupt interrupt = nullptr);

}  // namespace ea
