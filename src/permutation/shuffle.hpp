// Fisher-Yates shuffle (SP 800-90B section 5.1): for i = n-1 down to 1, draw j uniform on
// [0, i] *inclusive* and swap. Drawing on [0, i) instead would give Sattolo's algorithm,
// which produces only cyclic permutations (the defect of Kim & Yeom's GPU code).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/hd.hpp"
#include "rng/bounded.hpp"

namespace ea {

// Shuffles a[0], a[stride], ..., a[(n-1)*stride] in place. n must be below 2^32.
template <class Stream>
EA_HD void fisher_yates(uint8_t* a, size_t n, size_t stride, Stream& rng) {
  for (size_t i = n; i-- > 1;) {
    size_t j = rng.bounded(static_cast<uint32_t>(i));
    uint8_t t = a[i * stride];
    a[i * stride] = a[j * stride];
    a[j * stride] = t;
  }
}

}  // namespace ea

namespace ea {

// The same shuffle as fisher_yates() -- the same draws in the same order and the same
// swaps, hence the same permutation -- with the memory reads of the next D steps issued
// before the current D steps are carried out. On a GPU each step's random read costs a
// full memory latency; with D reads in flight per thread the latency is paid about once
// per D steps. Reads issued early can be stale only where a step in between wrote the
// same position, and a step writes only a[i] (never read again by a later step: later
// steps read positions below i) and a[j]; so each pending read of position j is patched
// with the value written there.
template <int D, class Stream>
EA_HD void fisher_yates_pipelined(uint8_t* a, size_t n, size_t stride, Stream& rng) {
  static_assert(D >= 1 && D <= 32, "lookahead out of range");
  if (n < 2) return;
  size_t i = n - 1;  // the next step to carry out
  if (i >= D) {
    uint32_t jc[D] = {}, jn[D] = {};
    uint8_t vic[D] = {}, vjc[D] = {}, vin[D] = {}, vjn[D] = {};
EA_UNROLL
    for (int k = 0; k < D; ++k) jc[k] = rng.bounded(static_cast<uint32_t>(i - k));
EA_UNROLL
    for (int k = 0; k < D; ++k) {
      vic[k] = a[(i - k) * stride];
      vjc[k] = a[static_cast<size_t>(jc[k]) * stride];
    }
    while (true) {
      const bool next = i >= 2 * static_cast<size_t>(D);  // a full group at i - D
      if (next) {
EA_UNROLL
        for (int k = 0; k < D; ++k) jn[k] = rng.bounded(static_cast<uint32_t>(i - D - k));
EA_UNROLL
        for (int k = 0; k < D; ++k) {
          vin[k] = a[(i - D - k) * stride];
          vjn[k] = a[static_cast<size_t>(jn[k]) * stride];
        }
      }
EA_UNROLL
      for (int k = 0; k < D; ++k) {
        const size_t ii = i - k;
        const uint32_t jj = jc[k];
        const uint8_t x = vic[k], y = vjc[k];
        a[ii * stride] = y;
        a[static_cast<size_t>(jj) * stride] = x;
EA_UNROLL
        for (int m = k + 1; m < D; ++m) {
          if (jc[m] == jj) vjc[m] = x;
          if (i - m == jj) vic[m] = x;
        }
        if (next) {
EA_UNROLL
          for (int m = 0; m < D; ++m) {
            if (jn[m] == jj) vjn[m] = x;
            if (i - D - m == jj) vin[m] = x;
          }
        }
      }
      i -= D;
      if (!next) break;
EA_UNROLL
      for (int k = 0; k < D; ++k) {
        jc[k] = jn[k];
        vic[k] = vin[k];
        vjc[k] = vjn[k];
      }
    }
  }
  for (; i >= 1; --i) {
    const size_t j = rng.bounded(static_cast<uint32_t>(i));
    const uint8_t t = a[i * stride];
    a[i * stride] = a[j * stride];
    a[j * stride] = t;
  }
}

}  // namespace ea

namespace ea {

// The same shuffle as fisher_yates() on a contiguous host array, in blocks of steps: the
// draws of a block are made first, in the same order (a rejected word is followed by the
// next one, as always), into `targets` (kShuffleBlock words), then its swaps are carried
// out with the random position kShuffleAhead steps later prefetched. Drawing a block at
// once keeps the generator's state in registers and its loop tight; the swaps then have
// their positions in advance.
constexpr size_t kShuffleBlock = 2048;

// t[k] = rng.bounded(top - k) for k = 0 .. m-1, in that order. A stream may provide a
// faster overload (found by argument-dependent lookup) that gives the same draws.
template <class Stream>
inline void draw_targets(Stream& rng, uint32_t* t, size_t m, uint32_t top) {
  for (size_t k = 0; k < m; ++k) t[k] = rng.bounded(top - static_cast<uint32_t>(k));
}

template <class Stream>
inline void fisher_yates_blocked(uint8_t* a, size_t n, Stream& rng, uint32_t* targets) {
  constexpr size_t kShuffleAhead = 32;
  if (n < 2) return;
  size_t i = n - 1;  // the next step
  while (i >= 1) {
    const size_t m = i < kShuffleBlock ? i : kShuffleBlock;  // steps i, i-1, ..., i-m+1
    draw_targets(rng, targets, m, static_cast<uint32_t>(i));
    for (size_t k = 0; k < m && k < kShuffleAhead; ++k) __builtin_prefetch(a + targets[k], 1);
    uint8_t* top = a + i;
    for (size_t k = 0; k < m; ++k) {
      if (k + kShuffleAhead < m) __builtin_prefetch(a + targets[k + kShuffleAhead], 1);
      const uint32_t j = targets[k];
      const uint8_t t = top[-static_cast<ptrdiff_t>(k)];
      top[-static_cast<ptrdiff_t>(k)] = a[j];
      a[j] = t;
    }
    i -= m;
  }
}

}  // namespace ea
