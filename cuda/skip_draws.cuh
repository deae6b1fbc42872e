// Segmented draws of the swap targets for xoshiro256ss (src/rng/skip_ahead.hpp). One
// thread drawing a permutation's 10^6 targets in order waits about 93 ms on the
// generator's chain (docs/prngs.md); here each row's draws are made by about 32 threads
// at once, each from its own skipped state (draw_words_kernel: thread (row q, segment k)
// skips to the first word of its segment of 8-sample groups). A segment's first word is
// known only if no earlier word was rejected; xoshiro256ss's 64-bit words are rejected
// with probability (2^64 mod s) / 2^64 < s / 2^64 per draw on [0, s - 1] (below 2^-44 for
// s <= 2^20; about 1.4e-8 a row of 10^6), so the targets are written at once and a row
// with a word that would be rejected is flagged and drawn again in order
// (draw_targets_kernel). The targets equal the sequential draws.
//
// The generators with 32-bit words (xorwow, sobol; the MRGs' 31/32-bit words) reject
// about 58 words a row of 10^6 (mrg31k3p 116): their words made this way need a second, sequential pass
// that assigns each word to its draw, and that pass measured slower than drawing in order
// (docs/prngs.md), so they draw in order.
#pragma once

#include <cuda_runtime.h>

#include "parallel_shuffle.cuh"
#include "rng/generators.hpp"
#include "rng/skip_ahead.hpp"

namespace ea {

// Segments of rows of n samples: about 32 a row, each 2^log_groups groups of 8 samples.
struct SkipDrawsShape {
  uint32_t log_groups = 0;
  uint32_t segments = 0;
};
inline SkipDrawsShape skip_draws_shape(size_t n) {
  SkipDrawsShape s;
  const uint64_t groups = (static_cast<uint64_t>(n) - 1) / 8 + 1;
  while ((groups >> s.log_groups) > 32) ++s.log_groups;
  s.segments = static_cast<uint32_t>((groups + (uint64_t{1} << s.log_groups) - 1) >> s.log_groups);
  return s;
}

// Device buffers of the segmented draws.
struct SkipDrawsView {
  const uint32_t* table = nullptr;  // skip_table(id) on the device
  SkipDrawsShape shape;
  uint32_t* flags = nullptr;  // a word per row (at least the rows drawn): a word would be rejected
};

// Whether generator G draws in segments (SkipAhead<G>::kWide: its words are practically
// never rejected).
template <class G>
constexpr bool draws_in_segments() {
  if constexpr (SkipAhead<G>::kHas) {
    return SkipAhead<G>::kWide;
  } else {
    return false;
  }
}

template <class G>
__global__ void __launch_bounds__(128) draw_words_kernel(uint32_t* targets, size_t n, uint32_t rows,
                                                         StreamSetView streams, uint64_t first, SkipDrawsView sk) {
  using S = SkipAhead<G>;
  const uint64_t tid = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint32_t q = static_cast<uint32_t>(tid % rows);
  const uint64_t k = tid / rows;  // the same for most threads of a warp: the table reads broadcast
  if (k >= sk.shape.segments) return;
  G g = G::make(streams, first + q);
  const DrawnTargets layout{targets, rows};
  // Groups top .. top - count + 1 (8 samples each, i = 8 b + e), from the highest.
  const uint64_t last = (static_cast<uint64_t>(n) - 1) / 8;
  const uint64_t top = last - (k << sk.shape.log_groups);
  const uint64_t span = uint64_t{1} << sk.shape.log_groups, count = span < top + 1 ? span : top + 1;
  // Words before this segment: one per i in [1, n - 1] above its top group.
  const uint64_t i_top = top * 8 + 7;
  skip_ahead(g, i_top >= n - 1 ? 0 : n - 1 - i_top, sk.table);
  bool rejected = false;
  for (uint64_t c = 0; c < count; ++c) {
    const uint64_t b = top - c;
    uint32_t h[8];
#pragma unroll
    for (int e = 7; e >= 0; --e) {
      const uint64_t i = b * 8 + static_cast<uint64_t>(e);
      h[e] = 0;
      if (i >= 1 && i < n) rejected |= !S::accepts(S::word(g), static_cast<uint32_t>(i), h[e]);
    }
    uint4* out = reinterpret_cast<uint4*>(targets + layout.index(q, static_cast<uint32_t>(b * 8)));
    out[0] = make_uint4(h[0], h[1], h[2], h[3]);
    out[1] = make_uint4(h[4], h[5], h[6], h[7]);
  }
  if (rejected) sk.flags[q] = 1;
}

}  // namespace ea
