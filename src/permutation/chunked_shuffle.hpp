// The Fisher-Yates shuffle of SP 800-90B with the Philox generator, carried out the way the
// GPU's block-per-permutation kernel does it (cuda/parallel_shuffle.cuh, issue 17 item 1):
// the same draws and the same swaps as fisher_yates(), so the same permutation, with many
// steps at once. This host version is the kernel's reference: the unit tests check it
// against the sequential shuffle, and the kernel against both.
//
// Draws. A draw on [0, i] consumes Philox words until one is accepted
// (bounded_inclusive_accepts), and word w of a stream can be computed alone
// (PhiloxStream::word). So K threads draw the targets of K consecutive steps from K
// consecutive words at once; at the first rejected word, the steps before it are drawn and
// the next pass starts at the rejected step with the word after the rejected one. (About
// one word in 10^4 is rejected for 10^6 samples.)
//
// Swaps. Step i swaps places i and h[i] <= i, for i = n-1 down to 1. A chunk holds the next
// L steps i_k = c - k (k = 0 .. L-1). Step k must wait for an earlier step m < k of the chunk
// when they share a place: h_m == h_k, or h_m == i_k (an earlier step's target is the later
// step's own place; h_k == i_m is impossible, as h_k <= i_k < i_m). Let k* be the first step
// that shares a place with an earlier one: steps 0 .. k*-1 touch pairwise distinct places,
// so they are carried out at once, in any order, with the sequential result; the next chunk
// starts at step k*. A chunk of 1,024 steps moves about sqrt(i) steps at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "rng/bounded.hpp"
#include "rng/philox_stream.hpp"

namespace ea {

// The first step of a chunk that must wait, from its targets: `target(k)` is h_k of step
// i_k = c - k, `first_with(h)` the smallest k whose target is h. Returns k* in [1, L].
template <class Target, class FirstWith>
EA_HD inline uint32_t chunk_prefix(uint64_t c, uint32_t L, Target target, FirstWith first_with) {
  uint32_t kstar = L;
  const uint64_t low = c - L + 1;
  for (uint32_t m = 0; m < L; ++m) {
    const uint64_t i = c - m, h = target(m);
    if (h < i && h >= low) kstar = std::min<uint32_t>(kstar, static_cast<uint32_t>(c - h));
    const uint32_t f = first_with(h);
    if (f < m) kstar = std::min(kstar, m);
  }
  return kstar;
}

struct ChunkedShuffleStats {
  size_t chunks = 0;       // chunks of at most `chunk` steps carried out
  size_t draw_passes = 0;  // passes of parallel draws
  size_t rejected = 0;     // words rejected (each ends a pass early)
};

// Shuffles a[0], a[stride], ..., a[(n-1) stride] as fisher_yates() with PhiloxGen(seed, j)
// does, in chunks of at most `chunk` steps (>= 1). n below 2^32.
inline ChunkedShuffleStats fisher_yates_philox_chunked(uint8_t* a, size_t n, size_t stride, uint64_t seed, uint64_t j,
                                                       uint32_t chunk) {
  ChunkedShuffleStats st;
  if (n < 2) return st;
  chunk = std::max<uint32_t>(1, chunk);
  const size_t ring = 2 * static_cast<size_t>(chunk);  // the target of step i at tg[i % ring]
  std::vector<uint32_t> tg(ring);
  std::unordered_map<uint32_t, uint32_t> first;
  uint64_t word = 0;                               // the next unused word of the stream
  int64_t c = static_cast<int64_t>(n) - 1;         // the next step to carry out
  int64_t next_draw = c;                           // the next step to draw
  while (c >= 1) {
    const uint32_t L = static_cast<uint32_t>(std::min<int64_t>(chunk, c));
    const int64_t low = c - L + 1;
    while (next_draw >= low) {
      // One pass: `need` threads, thread k draws step next_draw - k from word + k.
      const int64_t need = next_draw - low + 1;
      int64_t r = need;
      for (int64_t k = 0; k < need; ++k) {
        const uint32_t i = static_cast<uint32_t>(next_draw - k);
        uint32_t h = 0;
        if (!bounded_inclusive_accepts(PhiloxStream::word(seed, j, word + static_cast<uint64_t>(k)), i, h)) {
          r = k;  // the first rejected word: later threads' draws are discarded
          break;
        }
        tg[i % ring] = h;
      }
      ++st.draw_passes;
      st.rejected += r < need ? 1 : 0;
      next_draw -= r;
      word += static_cast<uint64_t>(r) + (r < need ? 1 : 0);
    }
    first.clear();
    auto target = [&](uint32_t k) { return tg[static_cast<size_t>(c - k) % ring]; };
    for (uint32_t k = 0; k < L; ++k) first.emplace(target(k), k);  // keeps the smallest k
    const uint32_t kstar = chunk_prefix(static_cast<uint64_t>(c), L, target, [&](uint64_t h) {
      return first.at(static_cast<uint32_t>(h));
    });
    for (uint32_t k = 0; k < kstar; ++k) {
      const size_t i = static_cast<size_t>(c - k), h = target(k);
      std::swap(a[i * stride], a[h * stride]);
    }
    c -= kstar;
    ++st.chunks;
  }
  return st;
}

}  // namespace ea
