// Segmented draws of the swap targets for generators with skip-ahead (xoshiro256ss,
// xorwow, mrg31k3p, mrg32k3a, sobol; src/rng/skip_ahead.hpp). One thread drawing a
// permutation's 10^6 targets in order waits 69-173 ms on its generator's chain
// (docs/prngs.md); here each row's words are made by several threads at once, each from
// its own skipped state:
//   1. draw_words_kernel: thread (row q, segment k) skips to the first word of its
//      segment of 8-sample groups and writes the generator's words where the targets
//      would be if no word were rejected (word t at the place of i = n - 1 - t); one more
//      thread per row writes `extra` words past n - 1 (the rejected words move the later
//      draws onto them) and keeps the generator after them.
//   2. settle_words_kernel: one thread per row reads the words in order and applies the
//      draw's acceptance test to each (SkipAhead<G>::accepts: the exact test of
//      bounded()), writing each accepted target in place (a draw's place is never one
//      whose word is still to be read); past the extra words it goes on with the kept
//      generator. The targets equal the sequential draws word for word.
// xoshiro256ss's 64-bit words are rejected with probability below 2^-44 per draw, so
// step 1 writes the targets at once and flags a row where a word would be rejected;
// such a row is drawn again in order (draw_targets_kernel).
#pragma once

#include <cuda_runtime.h>

#include <cstring>

#include <algorithm>

#include "parallel_shuffle.cuh"
#include "rng/generators.hpp"
#include "rng/skip_ahead.hpp"

namespace ea {

constexpr uint32_t kSkipEndSlots = 4;  // uint4 per row for the kept generator (64 bytes)

// The shape of the segmented draws of rows of n samples.
struct SkipDrawsShape {
  uint32_t log_groups = 0;  // a segment is 2^log_groups groups of 8 samples
  uint32_t segments = 0;    // segments of the targets (threads per row, and one more for the extra words)
  uint32_t extra = 0;       // words drawn past the n - 1 of a row without rejections
};
// About 32 segments per row; extra: four times the expected rejections of 32-bit words
// (sum of (i + 1) / 2^32 over the draws: about n^2 / 2^33), twice mrg31k3p's, plus 1,024
// (more are drawn in order by the settling thread, exactly).
inline SkipDrawsShape skip_draws_shape(size_t n, bool wide) {
  SkipDrawsShape s;
  const uint64_t groups = (static_cast<uint64_t>(n) - 1) / 8 + 1;
  while ((groups >> s.log_groups) > 32) ++s.log_groups;
  s.segments = static_cast<uint32_t>((groups + (uint64_t{1} << s.log_groups) - 1) >> s.log_groups);
  if (!wide) {
    const uint64_t nn = static_cast<uint64_t>(n);
    s.extra = static_cast<uint32_t>(std::min<uint64_t>(1024 + ((nn >> 15) * (nn >> 15)), nn + 1024));
  }
  return s;
}

// Device buffers of the segmented draws (for `rows` rows at most).
struct SkipDrawsView {
  const uint32_t* table = nullptr;  // skip_table(id) on the device
  SkipDrawsShape shape;
  uint32_t* overflow = nullptr;  // rows x extra words: words n - 1 .. n - 2 + extra of each row
  uint4* ends = nullptr;         // rows x kSkipEndSlots: each row's generator after its extra words
  uint32_t* flags = nullptr;     // rows: a word of the row would be rejected (wide words)
};

template <class G>
__global__ void __launch_bounds__(128) draw_words_kernel(uint32_t* targets, size_t n, uint32_t rows,
                                                         StreamSetView streams, uint64_t first, SkipDrawsView sk) {
  using S = SkipAhead<G>;
  const uint64_t tid = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint32_t q = static_cast<uint32_t>(tid % rows);
  const uint64_t k = tid / rows;  // the same for the threads of a warp, mostly: the table reads broadcast
  const uint32_t main_segments = sk.shape.segments;
  if (k > main_segments || (S::kWide && k == main_segments)) return;
  G g = G::make(streams, first + q);
  const DrawnTargets layout{targets, rows};
  if (k == main_segments) {  // the extra words, after the n - 1 of the targets
    skip_ahead(g, n - 1, sk.table);
    uint32_t* out = sk.overflow + static_cast<size_t>(q) * sk.shape.extra;
    for (uint32_t u = 0; u < sk.shape.extra; ++u) out[u] = static_cast<uint32_t>(S::word(g));
    static_assert(sizeof(G) <= kSkipEndSlots * sizeof(uint4), "generator state larger than its slot");
    memcpy(sk.ends + static_cast<size_t>(q) * kSkipEndSlots, &g, sizeof(G));
    return;
  }
  // Groups top .. bottom (8 samples each, i = 8 b + e), from the highest.
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
      if (i >= 1 && i < n) {
        if constexpr (S::kWide) {
          rejected |= !S::accepts(S::word(g), static_cast<uint32_t>(i), h[e]);
        } else {
          h[e] = static_cast<uint32_t>(S::word(g));
        }
      }
    }
    uint4* out = reinterpret_cast<uint4*>(targets + layout.index(q, static_cast<uint32_t>(b * 8)));
    out[0] = make_uint4(h[0], h[1], h[2], h[3]);
    out[1] = make_uint4(h[4], h[5], h[6], h[7]);
  }
  if constexpr (S::kWide) {
    if (rejected) sk.flags[q] = 1;
  }
}

// Step 2: one thread per row turns its words into targets, in place. Accepted targets
// are gathered per group of 8 in shared memory and written 32 bytes at a time.
constexpr int kSettleThreads = 32;
template <class G>
__global__ void __launch_bounds__(kSettleThreads) settle_words_kernel(uint32_t* targets, size_t n, uint32_t rows,
                                                                     SkipDrawsView sk) {
  using S = SkipAhead<G>;
  constexpr int kAhead = 16;  // groups loaded at once
  __shared__ uint32_t staged[kSettleThreads][9];
  const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= rows) return;
  uint32_t* mine = staged[threadIdx.x];
  for (int e = 0; e < 8; ++e) mine[e] = 0;
  const DrawnTargets layout{targets, rows};
  uint32_t i_cur = static_cast<uint32_t>(n - 1);  // the draw in progress is on [0, i_cur]
  // A word for the draw on [0, i_cur]: an accepted target is staged, and its group
  // written once complete (its place e = 0 reached, or the last draw, i = 1, made).
  auto feed = [&](uint32_t w) {
    uint32_t r;
    if (!S::accepts(w, i_cur, r)) return;
    mine[i_cur & 7] = r;
    if ((i_cur & 7) == 0 || i_cur == 1) {
      if (i_cur == 1) mine[0] = 0;
      uint4* out = reinterpret_cast<uint4*>(targets + layout.index(q, i_cur & ~7u));
      out[0] = make_uint4(mine[0], mine[1], mine[2], mine[3]);
      out[1] = make_uint4(mine[4], mine[5], mine[6], mine[7]);
    }
    --i_cur;
  };
  const int64_t last = static_cast<int64_t>((n - 1) / 8);
  for (int64_t b0 = last; b0 >= 0 && i_cur > 0; b0 -= kAhead) {
    uint4 words[kAhead][2];
#pragma unroll
    for (int a = 0; a < kAhead; ++a) {
      if (b0 - a >= 0) {
        const uint4* p = reinterpret_cast<const uint4*>(targets + layout.index(q, static_cast<uint32_t>((b0 - a) * 8)));
        words[a][0] = p[0];
        words[a][1] = p[1];
      }
    }
#pragma unroll
    for (int a = 0; a < kAhead; ++a) {
      const int64_t b = b0 - a;
      if (b < 0) break;
      const uint32_t w[8] = {words[a][0].x, words[a][0].y, words[a][0].z, words[a][0].w,
                             words[a][1].x, words[a][1].y, words[a][1].z, words[a][1].w};
      // The usual group: whole, not the last, and no word rejected. Its words (place
      // 8 b + e) are the draws on [0, 8 b + e + lag], lag = the words rejected so far
      // (i_cur = 8 b + 7 + lag): tested at once, and their targets staged as feed()
      // would, the group that completes written once (the same for every lane).
      const uint32_t base = static_cast<uint32_t>(b) * 8u;
      if (b >= 1 && base + 7 <= n - 1 && i_cur >= base + 7) {
        const uint32_t lag = i_cur - (base + 7), r = lag & 7u;
        uint32_t res[8];
        bool all = true;
#pragma unroll
        for (int e = 0; e < 8; ++e) all &= S::accepts(w[e], base + e + lag, res[e]);
        if (all) {
          // targets base + lag + e: element (r + e) & 7 of group (base + lag + e) / 8
#pragma unroll
          for (int e = 0; e < 8; ++e)
            if (r + e >= 8 || r == 0) mine[(r + e) & 7u] = res[e];
          const uint32_t done = (base + lag + (r ? 8u : 0u)) & ~7u;  // the group now complete
          uint4* out = reinterpret_cast<uint4*>(targets + layout.index(q, done));
          out[0] = make_uint4(mine[0], mine[1], mine[2], mine[3]);
          out[1] = make_uint4(mine[4], mine[5], mine[6], mine[7]);
#pragma unroll
          for (int e = 0; e < 8; ++e)
            if (r != 0 && r + e < 8) mine[r + e] = res[e];
          i_cur -= 8;
          continue;
        }
      }
#pragma unroll
      for (int e = 7; e >= 0; --e) {
        const uint64_t i = static_cast<uint64_t>(b) * 8 + static_cast<uint64_t>(e);
        if (i >= 1 && i < n && i_cur > 0) feed(w[e]);
      }
    }
  }
  const uint32_t* extra = sk.overflow + static_cast<size_t>(q) * sk.shape.extra;
  for (uint32_t u = 0; u < sk.shape.extra && i_cur > 0; ++u) feed(extra[u]);
  if (i_cur > 0) {
    G g;
    memcpy(&g, sk.ends + static_cast<size_t>(q) * kSkipEndSlots, sizeof(G));
    while (i_cur > 0) feed(static_cast<uint32_t>(S::word(g)));
  }
}

// Threads per row of draw_words_kernel.
inline uint32_t skip_threads_per_row(const SkipDrawsShape& s, bool wide) { return s.segments + (wide ? 0u : 1u); }

}  // namespace ea
