// Skip-ahead of xoshiro256ss: a stream's state after `steps` outputs, from a table of its
// jumps by 2^b outputs (b = 0 .. kSkipBits-1), each the 256 x 256 GF(2) matrix of the state
// transition raised to 2^b (src/rng/gf2.hpp). The GPU draws xoshiro256ss's swap targets in
// segments, each thread from its own skipped state (cuda/skip_draws.cuh).
//
// SkipAhead<G>::word() is the output one draw attempt consumes (by bounded()); kWide: the
// words are 64-bit, so practically never rejected, and accepts() tests one. The other
// generators have no SkipAhead here: their 32-bit words are rejected about 58 times a row
// of 10^6, and assigning the words of segments to their draws afterwards measured slower
// than drawing in order (docs/prngs.md; session 20 tried xorwow, the MRGs and sobol).
#pragma once

#include <cstdint>
#include <vector>

#include "common/hd.hpp"
#include "rng/bounded.hpp"
#include "rng/generators.hpp"
#include "rng/gf2.hpp"
#include "rng/stream_set.hpp"

namespace ea {

constexpr int kSkipBits = 40;  // jumps of up to 2^40 - 1 outputs

// The table of jumps by 2^b outputs, b = 0 .. kSkipBits-1, of generator `id`
// (SkipAhead<G>::kEntryWords words each; empty for a generator without skip-ahead).
// Computed once per generator and kept (thread-safe).
const std::vector<uint32_t>& skip_table(PrngId id);

template <class G>
struct SkipAhead {
  static constexpr bool kHas = false;
};

template <>
struct SkipAhead<Xoshiro256ss> {
  static constexpr bool kHas = true;
  static constexpr bool kWide = true;  // 64-bit words: the draw is NIST's randomRange64
  static constexpr uint32_t kEntryWords = 256 * 8;
  using Word = uint64_t;
  static EA_HD EA_FORCEINLINE Word word(Xoshiro256ss& g) { return g.next64(); }
  static EA_HD void jump(Xoshiro256ss& g, const uint32_t* entry) {
    uint32_t v[8];
    for (int k = 0; k < 4; ++k) {
      v[2 * k] = static_cast<uint32_t>(g.s[k]);
      v[2 * k + 1] = static_cast<uint32_t>(g.s[k] >> 32);
    }
    gf2_apply<8>(entry, v);
    for (int k = 0; k < 4; ++k) g.s[k] = static_cast<uint64_t>(v[2 * k]) | static_cast<uint64_t>(v[2 * k + 1]) << 32;
  }
  // Word v accepted for the draw on [0, i]: result = the target.
  static EA_HD EA_FORCEINLINE bool accepts(Word v, uint32_t i, uint32_t& result) {
    const uint64_t s = static_cast<uint64_t>(i) + 1u;
    uint64_t hi, lo;
    mul64x64(v, s, hi, lo);
    result = static_cast<uint32_t>(hi);
    return !(lo < s && lo < (0ULL - s) % s);
  }
};

// g advanced by `steps` outputs; table = skip_table(id) (its device copy in a kernel).
template <class G>
EA_HD void skip_ahead(G& g, uint64_t steps, const uint32_t* table) {
  for (int b = 0; steps != 0 && b < kSkipBits; ++b, steps >>= 1) {
    if (steps & 1u) SkipAhead<G>::jump(g, table + static_cast<size_t>(b) * SkipAhead<G>::kEntryWords);
  }
}

}  // namespace ea
