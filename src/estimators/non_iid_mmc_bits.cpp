// MultiMMC (SP 800-90B 6.3.9) on bits, order by order: the reference's counts (C and the
// longest run) from 16 independent passes and one replay of the scoreboard.
//
// In the reference's step (non_iid_predictors.cpp, multi_mmc_with) the 16 orders share only
// the scoreboard and the cascade of lookups (an order is looked up only while the lower
// ones were found). On bits the cascade decides nothing: a context of m + 1 bits is added
// at a step only together with its last m bits at the same step (orders 1 to 15 never reach
// the cap of 100,000 pairs: order m has at most 2^(m+1)), so a lower order misses only
// where the higher ones miss too. Each order's table then evolves on its own: whether its
// context was known at step t and whether its prediction was right are two bits per step,
// computed by one pass per order (an OpenMP task each, run by whichever threads of the
// caller's team are free). The scoreboard is then replayed from those bits 64 steps at a
// time, as lag_blocks replays the Lag predictors: an order whose score plus its right
// predictions in the block stays below the winner's score cannot win in the block, so its
// score is advanced by a popcount and only the others are stepped one by one.
//
// tests/unit/test_non_iid.cpp pins this to the one-step path (the general tables, k > 2)
// on data that reaches the cap of order 16, and at 1-200 samples.
#include <omp.h>

#include <algorithm>
#include <array>
#include <exception>
#include <vector>

#include "estimators/non_iid_mmc_bits.hpp"

namespace ea {

namespace {

constexpr int kOrders = 16;
constexpr uint64_t kMaxEntries = 100000;

// Order d + 1 (d = 0..15) over steps t = d + 2 .. n - 1: bit t - 2 of `found` is set where
// its context (the d + 1 bits before t) was known, of `right` where it also predicted s[t].
// `found` and `right` hold ceil((n - 2) / 64) words, zero on entry. A context's state is
// one word: Capped (order 16, which can reach the cap) its two counts; otherwise
// 2 (count of 1s - count of 0s) + known, whose sign is the prediction (ties predict 1).
template <bool Capped>
void order_pass(const uint8_t* s, size_t n, int d, uint64_t* found, uint64_t* right, Interrupt interrupt) {
  const int m = d + 1;
  const uint32_t mask = (1u << m) - 1;
  std::vector<uint32_t> counts(Capped ? size_t{2} << m : 0, 0);  // [2 context + next bit]
  std::vector<int32_t> state(Capped ? 0 : size_t{1} << m, 0);
  uint32_t ctx = 0;
  for (int i = 0; i <= d; ++i) ctx = (ctx << 1) | (s[i] & 1u);
  const uint32_t first = s[d + 1] & 1u;  // the context that starts at s[0] is followed by it
  if (Capped) {
    counts[2 * (ctx & mask) + first] = 1;
  } else {
    state[ctx & mask] = first ? 3 : -1;
  }
  uint64_t used = 1;
  ctx = (ctx << 1) | first;
  uint64_t f_word = 0, r_word = 0;
  for (size_t t = static_cast<size_t>(d) + 2; t < n; ++t) {
    throw_if_interrupted_at(interrupt, t);
    const uint32_t y = s[t] & 1u;
    uint64_t known, ok;
    if (Capped) {
      uint32_t* r = &counts[2 * (ctx & mask)];
      const uint32_t c0 = r[0], c1 = r[1];
      known = (c0 | c1) != 0;
      ok = known & static_cast<uint64_t>((c0 > c1 ? 0u : 1u) == y);
      // A known pair is counted; a new one only while the order has fewer than the cap.
      const uint32_t cy = r[y];
      const uint32_t add = (cy != 0) | (used < kMaxEntries);
      used += add & (cy == 0);
      r[y] = cy + add;
    } else {
      int32_t& v = state[ctx & mask];
      known = static_cast<uint64_t>(v & 1);
      ok = known & static_cast<uint64_t>(static_cast<uint32_t>(v >= 0) == y);
      v = (v | 1) + 4 * static_cast<int32_t>(y) - 2;
    }
    const size_t i = t - 2;
    f_word |= known << (i & 63);
    r_word |= ok << (i & 63);
    if ((i & 63) == 63) {
      found[i >> 6] = f_word;
      right[i >> 6] = r_word;
      f_word = r_word = 0;
    }
    ctx = (ctx << 1) | y;
  }
  if (((n - 2) & 63) != 0) {
    found[(n - 2) >> 6] = f_word;
    right[(n - 2) >> 6] = r_word;
  }
}

struct BitScore {
  uint64_t correct = 0, run = 0, longest = 0;
  // One block's predictions of one order: `right` (a subset of `found`) hits, found & ~right
  // misses, the steps where its context was unknown neither (the run goes on over them).
  void block(uint64_t found, uint64_t right) {
    correct += static_cast<uint64_t>(__builtin_popcountll(right));
    uint64_t misses = found & ~right;
    while (misses != 0) {
      const uint64_t below = (misses & (~misses + 1)) - 1;  // the steps before the first miss
      run += static_cast<uint64_t>(__builtin_popcountll(right & below));
      longest = std::max(longest, run);
      run = 0;
      right &= ~below;
      misses &= misses - 1;
    }
    run += static_cast<uint64_t>(__builtin_popcountll(right));
    longest = std::max(longest, run);
  }
};

// The scoreboard over the orders' bits: the order with the most right predictions so far
// predicts (ties to the higher order); its prediction counts where its context was known.
// A block where only the winner can reach the highest score keeps that winner throughout.
// Returns false where the interrupt was set (nothing here may throw: GCC's dispatcher of a
// clone in this file is taken for nothrow, and an exception through it ends the process).
__attribute__((target_clones("popcnt", "default"))) bool replay(const std::vector<uint64_t>& found, const std::vector<uint64_t>& right, size_t words, BitScore& score,
            Interrupt interrupt) {
  std::array<uint64_t, kOrders> board{};
  int winner = 0;
  uint64_t high = 0;
  std::array<int, kOrders> candidates{};
  for (size_t w = 0; w < words; ++w) {
    if (w % (kInterruptStride / 64) == 0 && interrupt_requested(interrupt)) return false;
    int count = 0;
    for (int d = 0; d < kOrders; ++d) {
      const uint64_t reach = board[d] + static_cast<uint64_t>(__builtin_popcountll(right[d * words + w]));
      if (reach >= high) {
        candidates[count++] = d;
      } else {
        board[d] = reach;  // never the winner in this block: its score at the block's end
      }
    }
    if (count == 1) {  // the winner (always a candidate) alone
      score.block(found[winner * words + w], right[winner * words + w]);
      board[winner] += static_cast<uint64_t>(__builtin_popcountll(right[winner * words + w]));
      high = board[winner];
      continue;
    }
    for (int j = 0; j < 64; ++j) {
      const uint64_t bit = uint64_t{1} << j;
      score.block(found[winner * words + w] & bit, right[winner * words + w] & bit);
      uint64_t best = 0;  // (score << 8 | order + 1) of the highest right order
      for (int c = 0; c < count; ++c) {
        const int d = candidates[c];
        const uint64_t hit = (right[d * words + w] >> j) & 1u;
        board[d] += hit;
        best = std::max(best, ((board[d] << 8) | static_cast<uint64_t>(d + 1)) * hit);
      }
      if (best != 0 && (best >> 8) >= high) {
        high = best >> 8;
        winner = static_cast<int>(best & 0xFF) - 1;
      }
    }
  }
  return true;
}

}  // namespace

void multi_mmc_order_bits(const uint8_t* bits, size_t n, int d, uint64_t* found, uint64_t* right,
                          Interrupt interrupt) {
  if (d == kOrders - 1) {
    order_pass<true>(bits, n, d, found, right, interrupt);
  } else {
    order_pass<false>(bits, n, d, found, right, interrupt);
  }
}

MmcCounts multi_mmc_bits(const uint8_t* s, size_t n, Interrupt interrupt) {
  const size_t steps = n - 2;
  const size_t words = (steps + 63) / 64;
  std::vector<uint64_t> found(kOrders * words, 0), right(kOrders * words, 0);
  const int orders = static_cast<int>(std::min<size_t>(kOrders, steps));
  std::array<std::exception_ptr, kOrders> failures;
  // The largest tables first; each order a task for the free threads of the caller's team.
  for (int d = orders - 1; d >= 0; --d) {
#pragma omp task default(none) firstprivate(d) shared(s, n, found, right, words, failures, interrupt)
    {
      try {
        multi_mmc_order_bits(s, n, d, &found[static_cast<size_t>(d) * words], &right[static_cast<size_t>(d) * words],
                             interrupt);
      } catch (...) {
        failures[static_cast<size_t>(d)] = std::current_exception();
      }
    }
  }
#pragma omp taskwait
  for (const auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }
  return multi_mmc_scoreboard(found, right, words, interrupt);
}

MmcCounts multi_mmc_scoreboard(const std::vector<uint64_t>& found, const std::vector<uint64_t>& right, size_t words,
                               Interrupt interrupt) {
  BitScore score;
  if (!replay(found, right, words, score, interrupt)) throw_if_interrupted(interrupt);
  return {score.correct, score.longest};
}

}  // namespace ea
