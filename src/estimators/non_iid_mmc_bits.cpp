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
// caller's team are free), or for orders 1-15 by one pass side by side (low_orders_avx512,
// low_orders_scalar) beside order 16's task. The scoreboard is then replayed from those bits 64 steps at a
// time, as lag_blocks replays the Lag predictors: an order whose score plus its right
// predictions in the block stays below the winner's score cannot win in the block, so its
// score is advanced by a popcount and only the others are stepped one by one.
//
// tests/unit/test_non_iid.cpp pins this to the one-step path (the general tables, k > 2)
// on data that reaches the cap of order 16, and at 1-200 samples.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
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

// Orders 1 to 15 (d = 0..14) side by side, each step one gather of their 15 states and one
// scatter (order_pass<false>'s states, the orders' tables one after another in one array:
// order m from 2^m - 2), their found and right bits gathered 64 steps at a time in two
// vectors of 64-bit words each. The same bits as order_pass (the unit test compares them);
// n >= 18, `found` and `right` 16 x `words` words, zero on entry, order d at d x words.
// Taken wherever the CPU has AVX-512: 0.156 s of one thread against 0.426 s by a task an
// order for truerand_8bit's bitstring on the 2-core machine (session 40).
constexpr int kVectorOrders = 15;

// Where order d + 1's state is kept in the low orders' one array: 2^(d + 1) - 2 on.
constexpr uint32_t low_base(int d) { return (2u << d) - 2u; }

// The low orders' states before step 2: each order's first context (the d + 1 bits from s[0])
// counted with the bit after it (low_orders_avx512 and low_orders_scalar start from them).
std::vector<int32_t> low_orders_start(const uint8_t* s) {
  std::vector<int32_t> state((size_t{1} << (kVectorOrders + 1)) - 2, 0);
  for (int d = 0; d < kVectorOrders; ++d) {
    uint32_t ctx = 0;
    for (int i = 0; i <= d; ++i) ctx = (ctx << 1) | (s[i] & 1u);
    state[low_base(d) + ctx] = (s[d + 1] & 1u) ? 3 : -1;
  }
  return state;
}

__attribute__((target("avx512f"))) void low_orders_avx512(const uint8_t* s, size_t n, uint64_t* found, uint64_t* right,
                                                          size_t words, Interrupt interrupt) {
  std::vector<int32_t> state = low_orders_start(s);
  alignas(64) int32_t base[16] = {}, mask[16] = {};
  for (int d = 0; d < kVectorOrders; ++d) {
    base[d] = static_cast<int32_t>(low_base(d));
    mask[d] = (2 << d) - 1;
  }
  const __m512i vbase = _mm512_load_si512(base), vmask = _mm512_load_si512(mask), zero = _mm512_setzero_si512();
  const __m512i one = _mm512_set1_epi32(1), up = _mm512_set1_epi32(2), down = _mm512_set1_epi32(-2);
  __m512i f_lo = zero, f_hi = zero, r_lo = zero, r_hi = zero;  // orders 0-7 and 8-14, a word each
  alignas(64) uint64_t out[4][8];
  uint32_t c = ((s[0] & 1u) << 1) | (s[1] & 1u);  // the bits before step t
  for (size_t t = 2; t < n; ++t) {
    throw_if_interrupted_at(interrupt, t);
    const size_t i = t - 2;
    const uint32_t y = s[t] & 1u;
    // Order d steps from t = d + 2 on.
    const __mmask16 active = static_cast<__mmask16>(i >= kVectorOrders - 1 ? 0x7fffu : (2u << i) - 1u);
    const __m512i at = _mm512_add_epi32(vbase, _mm512_and_si512(_mm512_set1_epi32(static_cast<int>(c)), vmask));
    const __m512i v = _mm512_mask_i32gather_epi32(zero, active, at, state.data(), 4);
    const __mmask16 known = _mm512_mask_test_epi32_mask(active, v, one);
    const __mmask16 ok = known & (y ? _mm512_cmpge_epi32_mask(v, zero) : _mm512_cmplt_epi32_mask(v, zero));
    _mm512_mask_i32scatter_epi32(state.data(), active, at, _mm512_add_epi32(_mm512_or_si512(v, one), y ? up : down), 4);
    const __m512i bit = _mm512_set1_epi64(static_cast<long long>(uint64_t{1} << (i & 63)));
    f_lo = _mm512_mask_or_epi64(f_lo, static_cast<__mmask8>(known), f_lo, bit);
    f_hi = _mm512_mask_or_epi64(f_hi, static_cast<__mmask8>(known >> 8), f_hi, bit);
    r_lo = _mm512_mask_or_epi64(r_lo, static_cast<__mmask8>(ok), r_lo, bit);
    r_hi = _mm512_mask_or_epi64(r_hi, static_cast<__mmask8>(ok >> 8), r_hi, bit);
    if ((i & 63) == 63 || t + 1 == n) {  // word i / 64 of each order
      _mm512_store_si512(out[0], f_lo);
      _mm512_store_si512(out[1], f_hi);
      _mm512_store_si512(out[2], r_lo);
      _mm512_store_si512(out[3], r_hi);
      for (int d = 0; d < kVectorOrders; ++d) {
        found[static_cast<size_t>(d) * words + (i >> 6)] = out[d >> 3][d & 7];
        right[static_cast<size_t>(d) * words + (i >> 6)] = out[2 + (d >> 3)][d & 7];
      }
      f_lo = f_hi = r_lo = r_hi = zero;
    }
    c = (c << 1) | y;
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

// One step t of orders d = 0..14 (`All`, or those with d < `active`: order d steps from
// t = d + 2 on) without vectors: their known and right bits as bit d of `known` and `ok`.
template <bool All>
inline void low_step(int32_t* state, uint32_t c, uint32_t y, uint16_t& known, uint16_t& ok, int active) {
  const int32_t step = 4 * static_cast<int32_t>(y) - 2;
  uint32_t k_bits = 0, o_bits = 0;
#pragma GCC unroll 15
  for (int d = 0; d < kVectorOrders; ++d) {
    if (!All && d >= active) break;
    int32_t& v = state[low_base(d) + (c & ((2u << d) - 1u))];
    const uint32_t k = static_cast<uint32_t>(v) & 1u;
    k_bits |= k << d;
    o_bits |= (k & static_cast<uint32_t>(static_cast<uint32_t>(v >= 0) == y)) << d;
    v = (v | 1) + step;
  }
  known = static_cast<uint16_t>(k_bits);
  ok = static_cast<uint16_t>(o_bits);
}

// Bit d of each of 64 steps' masks (`mask[j]`: step j's, d < 15) as one word, step j at bit j.
inline uint64_t bit_of_steps(const uint16_t* mask, int d) {
  uint64_t word = 0;
  for (int q = 0; q < 4; ++q) {  // 16 steps at a time: bit d to each lane's top, packed to bytes
    const __m128i a = _mm_slli_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(mask + 16 * q)), 15 - d);
    const __m128i b = _mm_slli_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(mask + 16 * q + 8)), 15 - d);
    word |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(a, b)))) << (16 * q);
  }
  return word;
}

// Orders 1 to 15 (d = 0..14) in one loop without vectors, a step's 15 lookups independent of
// one another (low_orders_avx512's steps, for CPUs without AVX-512); each step's bits kept as
// two 15-bit masks and turned into the orders' words every 64 steps. The same bits as
// order_pass (the unit test compares them); n >= 18, as low_orders_avx512.
void low_orders_scalar(const uint8_t* s, size_t n, uint64_t* found, uint64_t* right, size_t words,
                       Interrupt interrupt) {
  std::vector<int32_t> state = low_orders_start(s);
  alignas(16) uint16_t known[64] = {}, ok[64] = {};
  uint32_t c = ((s[0] & 1u) << 1) | (s[1] & 1u);  // the bits before step t
  for (size_t t = 2; t < n; ++t) {
    throw_if_interrupted_at(interrupt, t);
    const size_t i = t - 2;
    const uint32_t y = s[t] & 1u;
    if (i + 1 >= kVectorOrders) {
      low_step<true>(state.data(), c, y, known[i & 63], ok[i & 63], kVectorOrders);
    } else {
      low_step<false>(state.data(), c, y, known[i & 63], ok[i & 63], static_cast<int>(i) + 1);
    }
    if ((i & 63) == 63 || t + 1 == n) {  // word i / 64 of each order
      for (size_t j = (i & 63) + 1; j < 64; ++j) known[j] = ok[j] = 0;
      for (int d = 0; d < kVectorOrders; ++d) {
        found[static_cast<size_t>(d) * words + (i >> 6)] = bit_of_steps(known, d);
        right[static_cast<size_t>(d) * words + (i >> 6)] = bit_of_steps(ok, d);
      }
    }
    c = (c << 1) | y;
  }
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

void multi_mmc_bit_states(const uint8_t* s, size_t n, std::vector<uint64_t>& found, std::vector<uint64_t>& right,
                          Interrupt interrupt) {
  const size_t steps = n - 2;
  const size_t words = (steps + 63) / 64;
  found.assign(kOrders * words, 0);
  right.assign(kOrders * words, 0);
  const int orders = static_cast<int>(std::min<size_t>(kOrders, steps));
  std::array<std::exception_ptr, kOrders> failures;
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  // Orders 1-15 side by side in one task (by AVX-512 where the CPU has it), order 16 (the
  // capped one) in another; or (`tasks`) a task an order.
  const BitPaths paths = bit_paths();
  const bool side_by_side = paths != BitPaths::tasks && orders == kOrders && n >= 64;
  const bool vector = avx512 && paths == BitPaths::fastest;
  uint64_t* f = found.data();
  uint64_t* r = right.data();
  // The largest tables first; each order a task for the free threads of the caller's team.
  for (int d = orders - 1; d >= (side_by_side ? kVectorOrders - 1 : 0); --d) {
#pragma omp task default(none) firstprivate(d, side_by_side, vector, f, r) shared(s, n, words, failures, interrupt)
    {
      try {
        if (side_by_side && d < kVectorOrders) {
          (vector ? low_orders_avx512 : low_orders_scalar)(s, n, f, r, words, interrupt);
        } else {
          multi_mmc_order_bits(s, n, d, f + static_cast<size_t>(d) * words, r + static_cast<size_t>(d) * words,
                               interrupt);
        }
      } catch (...) {
        failures[static_cast<size_t>(d)] = std::current_exception();
      }
    }
  }
#pragma omp taskwait
  for (const auto& e : failures) {
    if (e) std::rethrow_exception(e);
  }
}

namespace {
std::atomic<BitPaths> chosen_paths{BitPaths::fastest};
}  // namespace

void set_bit_paths(BitPaths paths) { chosen_paths = paths; }
BitPaths bit_paths() { return chosen_paths; }

MmcCounts multi_mmc_bits(const uint8_t* s, size_t n, Interrupt interrupt) {
  std::vector<uint64_t> found, right;
  multi_mmc_bit_states(s, n, found, right, interrupt);
  return multi_mmc_scoreboard(found, right, (n - 2 + 63) / 64, interrupt);
}

MmcCounts multi_mmc_scoreboard(const std::vector<uint64_t>& found, const std::vector<uint64_t>& right, size_t words,
                               Interrupt interrupt) {
  BitScore score;
  if (!replay(found, right, words, score, interrupt)) throw_if_interrupted(interrupt);
  return {score.correct, score.longest};
}

}  // namespace ea
