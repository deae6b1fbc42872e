// MultiMMC's counts order by order (non_iid_mmc_bits.cpp): on bits the 16 orders as
// independent passes, then the scoreboard; other alphabets' orders (a pipeline, in
// non_iid_predictors.cpp) share the scoreboard. Internal to the estimators: multi_mmc_estimate
// (non_iid.hpp) calls them.
#pragma once

#include <cstddef>
#include <cstdint>

#include <vector>

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

// Every order's bits as multi_mmc_order_bits gives them (16 x ceil((n - 2) / 64) words each,
// order d at d x words; n >= 3): orders 1-15 side by side in one task (by AVX-512 where the
// CPU has it and bit_paths() is `fastest`, else by one loop without vectors) and order 16 in
// another; each order a task where bit_paths() is `tasks` (or n < 64).
void multi_mmc_bit_states(const uint8_t* bits, size_t n, std::vector<uint64_t>& found, std::vector<uint64_t>& right,
                          Interrupt interrupt = nullptr);

// Which paths MultiMMC's and LZ78Y's bits take (default `fastest`). `fastest`: the AVX-512
// loops where the CPU has AVX-512, else `portable`'s. `portable`: what a CPU without AVX-512
// runs (LZ78Y's loop without vectors, in one thread or in spans; MultiMMC's orders 1-15 by
// one loop without vectors beside order 16).
// `tasks`: LZ78Y's 16 lengths a task each (the other alphabets' path) and MultiMMC a task an
// order. For the tests and bench_non_iid, which run every path: the same counts every way.
enum class BitPaths { fastest, portable, tasks };
void set_bit_paths(BitPaths paths);
BitPaths bit_paths();

// How many spans of steps LZ78Y's bits run side by side once its dictionary is settled
// (non_iid_predictors.cpp, lz78y_bits_spans): 0 (default) by the team's threads, k > 0 that
// many whatever the size. For the tests and bench_non_iid; the same counts either way.
void set_lz78y_spans(int spans);

// One order's pass (order d + 1, d = 0..15, d < n - 2): bit t - 2 of `found` is set where its
// context (the d + 1 bits before t) was known at step t, of `right` where it also predicted
// bit t. Both hold ceil((n - 2) / 64) words, zero on entry. (For the tests: the reference's
// per-order states, step by step.)
void multi_mmc_order_bits(const uint8_t* bits, size_t n, int d, uint64_t* found, uint64_t* right,
                          Interrupt interrupt = nullptr);

// Any alphabet (non_iid_predictors.cpp): every order's bits as multi_mmc_order_bits gives
// them for bits, the orders a pipeline of OpenMP tasks (order d's chunk of steps after
// order d - 1's: the cascade), `found` and `right` 16 x ceil((n - 2) / 64) words, order d at
// d x words. For n >= 3.
void multi_mmc_symbol_states(const uint8_t* s, size_t n, std::vector<uint64_t>& found, std::vector<uint64_t>& right,
                             Interrupt interrupt = nullptr);

// The counts from every order's bits (16 orders x `words` words each, order d at d x words;
// bit t - 2: its context was looked up and known at step t (`found`), and it predicted s[t]
// (`right`)): the order with the most right predictions so far predicts, ties to the higher.
MmcCounts multi_mmc_scoreboard(const std::vector<uint64_t>& found, const std::vector<uint64_t>& right, size_t words,
                               Interrupt interrupt = nullptr);

}  // namespace ea
