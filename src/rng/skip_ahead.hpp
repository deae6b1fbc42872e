// Skip-ahead of the generators that have one: a stream's state after `steps` outputs,
// from a table of its jumps by 2^b outputs (b = 0 .. kSkipBits-1). xoshiro256** and
// XORWOW are linear over GF(2) (a 256 x 256 or 160 x 160 bit matrix per entry, XORWOW's
// Weyl counter added apart), the MRGs linear modulo m1 and m2 (two 3 x 3 matrices), and
// Sobol's Gray-code point is a function of its index (no table). The lane-group
// generators (ci-xorlike, ci-bbs: nonlinear mixing of 32 lanes) and Philox (counter-based,
// computed where needed) have none here.
//
// SkipAhead<G>::word() is the output one draw attempt consumes (by bounded()); kWide: the
// words are 64-bit, so practically never rejected, and accepts() tests one. The GPU draws
// xoshiro256ss's targets in segments, each thread from its own skipped state
// (cuda/skip_draws.cuh); the others' 32-bit words are rejected about 58 times a row of
// 10^6, and assigning the words of segments to their draws afterwards measured slower
// than drawing in order (docs/prngs.md), so the GPU uses their skip-ahead nowhere yet.
#pragma once

#include <cstdint>
#include <vector>

#include "common/hd.hpp"
#include "rng/bounded.hpp"
#include "rng/generators.hpp"
#include "rng/stream_set.hpp"

namespace ea {

constexpr int kSkipBits = 40;  // jumps of up to 2^40 - 1 outputs

// The table of jumps by 2^b outputs, b = 0 .. kSkipBits-1, of generator `id`
// (SkipAhead<G>::kEntryWords words each; empty for a generator without skip-ahead or
// without a table). Computed once per generator and kept (thread-safe).
const std::vector<uint32_t>& skip_table(PrngId id);
// Whether `id` has skip-ahead here (xoshiro256ss, xorwow, mrg31k3p, mrg32k3a, sobol).
bool has_skip_ahead(PrngId id);

// v = M v over GF(2), M given by its columns (column c: W words, the image of bit c % 32
// of word c / 32).
template <int W>
EA_HD EA_FORCEINLINE void gf2_apply(const uint32_t* columns, uint32_t v[W]) {
  uint32_t r[W];
  for (int w = 0; w < W; ++w) r[w] = 0;
  for (int c = 0; c < 32 * W; ++c) {
    const uint32_t mask = 0u - ((v[c >> 5] >> (c & 31)) & 1u);
    const uint32_t* col = columns + c * W;
    for (int w = 0; w < W; ++w) r[w] ^= col[w] & mask;
  }
  for (int w = 0; w < W; ++w) v[w] = r[w];
}

// v = A v modulo m, A 3 x 3 row-major (entries < m < 2^32).
EA_HD EA_FORCEINLINE void mod3_apply(const uint32_t* a, uint32_t v[3], uint32_t m) {
  uint32_t r[3];
  for (int i = 0; i < 3; ++i) {
    uint64_t s = 0;
    for (int k = 0; k < 3; ++k) s = (s + static_cast<uint64_t>(a[3 * i + k]) * v[k] % m) % m;
    r[i] = static_cast<uint32_t>(s);
  }
  for (int i = 0; i < 3; ++i) v[i] = r[i];
}

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
  static EA_HD EA_FORCEINLINE void counters(Xoshiro256ss&, uint64_t) {}
  // Word v accepted for the draw on [0, i]: result = the target.
  static EA_HD EA_FORCEINLINE bool accepts(Word v, uint32_t i, uint32_t& result) {
    const uint64_t s = static_cast<uint64_t>(i) + 1u;
    uint64_t hi, lo;
    mul64x64(v, s, hi, lo);
    result = static_cast<uint32_t>(hi);
    return !(lo < s && lo < (0ULL - s) % s);
  }
};

template <>
struct SkipAhead<Xorwow> {
  static constexpr bool kHas = true;
  static constexpr bool kWide = false;
  static constexpr uint32_t kEntryWords = 160 * 5;
  using Word = uint32_t;
  static EA_HD EA_FORCEINLINE Word word(Xorwow& g) { return g.next(); }
  static EA_HD void jump(Xorwow& g, const uint32_t* entry) { gf2_apply<5>(entry, g.v); }
  static EA_HD EA_FORCEINLINE void counters(Xorwow& g, uint64_t steps) {
    g.d += 362437u * static_cast<uint32_t>(steps);
  }
};

// The MRGs: entry = A1^(2^b) (9 words) then A2^(2^b) (9 words), on the state's two
// components (g1, g2 / c[0..2], c[3..5]); the word is next_below(), uniform on [0, m1).
template <class M>
struct MrgSkipAhead {
  static constexpr bool kHas = true;
  static constexpr bool kWide = false;
  static constexpr uint32_t kEntryWords = 18;
  using Word = uint32_t;
  static EA_HD EA_FORCEINLINE Word word(M& g) { return g.next_below(); }
  static EA_HD EA_FORCEINLINE void counters(M&, uint64_t) {}
};
template <>
struct SkipAhead<Mrg31k3p> : MrgSkipAhead<Mrg31k3p> {
  static EA_HD void jump(Mrg31k3p& g, const uint32_t* entry) {
    mod3_apply(entry, g.g1, Mrg31k3p::kM1);
    mod3_apply(entry + 9, g.g2, Mrg31k3p::kM2);
  }
};
template <>
struct SkipAhead<Mrg32k3a> : MrgSkipAhead<Mrg32k3a> {
  static EA_HD void jump(Mrg32k3a& g, const uint32_t* entry) {
    mod3_apply(entry, g.c, Mrg32k3a::kM1);
    mod3_apply(entry + 9, g.c + 3, Mrg32k3a::kM2);
  }
};

// Sobol: point n is the shift XOR the direction integers of the bits of gray(n).
template <>
struct SkipAhead<SobolStream> {
  static constexpr bool kHas = true;
  static constexpr bool kWide = false;
  static constexpr uint32_t kEntryWords = 0;
  using Word = uint32_t;
  static EA_HD EA_FORCEINLINE Word word(SobolStream& g) { return g.next(); }
  static EA_HD void jump(SobolStream&, const uint32_t*) {}
  static EA_HD void counters(SobolStream& g, uint64_t steps) {
    const uint32_t to = g.n + static_cast<uint32_t>(steps);
    const uint32_t flip = (g.n ^ (g.n >> 1)) ^ (to ^ (to >> 1));
    for (int b = 0; b < 32; ++b)
      if ((flip >> b) & 1u) g.x ^= g.dir[b];
    g.n = to;
  }
};

// g advanced by `steps` outputs; table = skip_table(id) (its device copy in a kernel).
template <class G>
EA_HD void skip_ahead(G& g, uint64_t steps, const uint32_t* table) {
  SkipAhead<G>::counters(g, steps);
  for (int b = 0; steps != 0 && b < kSkipBits; ++b, steps >>= 1) {
    if (steps & 1u) SkipAhead<G>::jump(g, table + static_cast<size_t>(b) * SkipAhead<G>::kEntryWords);
  }
}

}  // namespace ea
