// The statistics of statistics.hpp computed in pieces (issue 17, item 2): a permutation cut
// into consecutive pieces, each summarised on its own (by its own GPU threads, while the
// permutation is still on chip), and the summaries combined in order into exactly the
// values the one-pass functions give. The GPU's block_statistics_kernel
// (cuda/block_statistics.cuh) and the fused pieces (fused.hpp) call these piece functions;
// the host functions at the end (`*_in_pieces`) run them over a whole sequence for the unit
// tests, which compare them with statistics.hpp for every cut (docs/design.md, "Statistics").
//
//   runs (directional, median)  a summary per piece (first and last step, lengths of the
//                               first and last run, runs, longest, ups), combined left to
//                               right: two runs join where a piece ends with the step the
//                               next one starts with
//   lags                        sums per piece (integers: any order gives the same)
//   excursion                   two passes: the pieces' sums, then each piece's maximum
//                               from its exact running sum (the same doubles as one pass)
//   collisions                  each piece's windows from a guessed start (the piece's
//                               first sample; CollisionGuess), then, in order, the true
//                               start: where it meets a guessed window start the rest of
//                               the guess holds (windows are determined by their start),
//                               otherwise the windows are recomputed from the true start
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/hd.hpp"
#include "stats/statistics.hpp"

namespace ea {

// ---- runs -------------------------------------------------------------------------

// The runs of a piece of a 0/1 step sequence (the empty piece has len 0).
struct RunPiece {
  uint64_t len = 0, ups = 0, runs = 0, longest = 0, lead = 0, trail = 0;
  uint32_t first = 0, last = 0;
};

EA_HD inline RunPiece run_piece_push(RunPiece p, uint32_t up) {
  if (p.len == 0) {
    p.first = up;
    p.lead = p.trail = p.runs = p.longest = 1;
  } else if (up == p.last) {
    ++p.trail;
    if (p.lead == p.len) ++p.lead;
  } else {
    ++p.runs;
    p.trail = 1;
  }
  p.longest = p.trail > p.longest ? p.trail : p.longest;
  p.last = up;
  p.ups += up;
  ++p.len;
  return p;
}

// a followed by b.
EA_HD inline RunPiece run_piece_join(const RunPiece& a, const RunPiece& b) {
  if (a.len == 0) return b;
  if (b.len == 0) return a;
  const bool joined = a.last == b.first;
  RunPiece r;
  r.len = a.len + b.len;
  r.ups = a.ups + b.ups;
  r.runs = a.runs + b.runs - (joined ? 1 : 0);
  const uint64_t middle = joined ? a.trail + b.lead : 0;
  r.longest = a.longest > b.longest ? a.longest : b.longest;
  r.longest = middle > r.longest ? middle : r.longest;
  r.lead = (joined && a.lead == a.len) ? a.len + b.lead : a.lead;
  r.trail = (joined && b.trail == b.len) ? b.len + a.trail : b.trail;
  r.first = a.first;
  r.last = b.last;
  return r;
}

// What RunCounter::result() gives for the same steps (a longest run of at least 1).
EA_HD inline RunStats run_piece_result(const RunPiece& p) {
  const uint64_t downs = p.len - p.ups;
  return RunStats{p.runs, p.longest > 1 ? p.longest : 1, p.ups > downs ? p.ups : downs};
}

// Directional steps d_i = x_i <= x_{i+1}, i in [begin, end) (reads x up to end).
template <class Seq>
EA_HD RunPiece directional_piece(const Seq& s, size_t begin, size_t end) {
  RunPiece p;
  for (size_t i = begin; i < end; ++i) p = run_piece_push(p, s[i] <= s[i + 1] ? 1u : 0u);
  return p;
}

// Median steps m_i = x_i >= ceil(median), i in [begin, end).
template <class Seq>
EA_HD RunPiece median_piece(const Seq& s, size_t begin, size_t end, double median) {
  const MedianAcc acc(median);
  RunPiece p;
  for (size_t i = begin; i < end; ++i) p = run_piece_push(p, s[i] >= acc.threshold ? 1u : 0u);
  return p;
}

// ---- lags ---------------------------------------------------------------------------

// Periodicity and covariance sums of lag p over i in [begin, end) with i + p < n.
template <class SymSeq, class ValSeq>
EA_HD void lag_piece(const SymSeq& sym, const ValSeq& val, uint32_t p, size_t begin, size_t end, uint64_t& per,
                     uint64_t& cov) {
  const size_t n = sym.size();
  const size_t stop = n > p ? (end < n - p ? end : n - p) : 0;
  per = cov = 0;
  for (size_t i = begin; i < stop; ++i) {
    per += sym[i] == sym[i + p] ? 1u : 0u;
    cov += static_cast<uint64_t>(val[i]) * val[i + p];
  }
}

// ---- excursion ----------------------------------------------------------------------

template <class Seq>
EA_HD uint64_t sum_piece(const Seq& s, size_t begin, size_t end) {
  uint64_t t = 0;
  for (size_t i = begin; i < end; ++i) t += s[i];
  return t;
}

// The excursion's maximum over i in [begin, end), given the sum of the samples before
// `begin`: the same operations as ExcursionAcc, so the same doubles.
template <class Seq>
EA_HD double excursion_piece(const Seq& raw, size_t begin, size_t end, uint64_t before, double mean) {
  ExcursionAcc acc(mean);
  acc.running = before;
  for (size_t i = begin; i < end; ++i) acc.push(i, raw[i]);
  return acc.best;
}

// ---- collisions ---------------------------------------------------------------------

// The collision window that starts at i (statistics.hpp's collisions(), one window):
// moves i past it and returns its length, 0 when it reached the end of the data without a
// repeat (such a window is not recorded). Set: the ByteSet kind (WordByteSet where a
// kernel's dynamic shared memory holds something else).
template <class Set = ByteSet, class Seq>
EA_HD uint32_t collision_window(const Seq& s, size_t& i) {
  const size_t n = s.size();
  Set seen;
  uint32_t len = 0;
  bool hit = false;
  while (i < n && !hit) {
    ++len;
    hit = seen.add_or_reset(s[i]);
    ++i;
  }
  return hit ? len : 0u;
}

// Collisions in pieces: each piece guesses that its first window starts at its first sample
// and keeps a fixed-size summary of that chain, for a GPU thread's piece (the combining
// thread reads every piece's summary from shared memory): the first kGuessWindows windows
// of the guessed chain (start, relative to the piece, and length) and the totals of the
// rest. Where the true start meets one of the recorded starts the guess holds from there
// on; otherwise the windows are recomputed from the true start to the piece's end.
constexpr int kGuessWindows = 8;

struct CollisionGuess {
  uint64_t next;       // where the first window after the piece starts
  uint64_t rest_sum;   // windows kGuessWindows.. of the chain
  uint32_t rest_count, rest_max;
  uint32_t windows;    // windows of the chain starting in the piece
  uint32_t start[kGuessWindows];  // relative to the piece's first sample
  uint16_t len[kGuessWindows];    // 0: reached the end of the data without a repeat
};

// The chain of windows from the piece's first sample `b` while they start before `e`.
template <class Seq>
EA_HD void collision_guess(const Seq& s, size_t b, size_t e, CollisionGuess& g) {
  const size_t n = s.size();
  g.rest_sum = 0;
  g.rest_count = g.rest_max = 0;
  uint32_t w = 0;
  size_t i = b;
  while (i < e && i < n) {
    const size_t at = i;
    const uint32_t recorded = collision_window(s, i);
    if (w < kGuessWindows) {
      g.start[w] = static_cast<uint32_t>(at - b);
      g.len[w] = static_cast<uint16_t>(recorded);
    } else {
      g.rest_sum += recorded;
      g.rest_count += recorded ? 1u : 0u;
      g.rest_max = recorded > g.rest_max ? recorded : g.rest_max;
    }
    ++w;
  }
  g.next = i;
  g.windows = w;
}

struct CollisionTotals {
  uint64_t sum = 0, count = 0;
  uint32_t maximum = 0;
  uint64_t recomputed = 0;  // windows recomputed from a true start

  EA_HD void add(uint32_t len) {
    sum += len;
    count += len ? 1u : 0u;
    maximum = len > maximum ? len : maximum;
  }
  EA_HD CollisionStats stats() const {
    CollisionStats c;
    c.average = count ? static_cast<double>(sum) / static_cast<double>(count) : 0.0;
    c.maximum = maximum;
    return c;
  }
};

// Piece k of `pieces` even pieces of n: [n k / pieces, n (k+1) / pieces).
EA_HD inline size_t even_bound(size_t n, uint32_t k, uint32_t pieces) {
  return static_cast<size_t>(static_cast<unsigned long long>(n) * k / pieces);
}

// The collision totals of `s` from the guesses of its `pieces` pieces, in order; piece k
// covers [bound(k), bound(k + 1)), bound(0) = 0 and bound(pieces) = s.size().
template <class Set = ByteSet, class Seq, class Bound>
EA_HD CollisionTotals collision_combine_bounds(const Seq& s, const CollisionGuess* guesses, uint32_t pieces,
                                               Bound bound) {
  const size_t n = s.size();
  CollisionTotals t;
  size_t at = 0;  // the true start of the next window
  for (uint32_t k = 0; k < pieces; ++k) {
    const size_t b = bound(k), e = bound(k + 1);
    const CollisionGuess& g = guesses[k];
    const uint32_t recorded = g.windows < kGuessWindows ? g.windows : static_cast<uint32_t>(kGuessWindows);
    while (at < e && at < n) {
      uint32_t j = 0;
      while (j < recorded && b + g.start[j] < at) ++j;
      if (j < recorded && b + g.start[j] == at) {
        for (; j < recorded; ++j) t.add(g.len[j]);
        t.sum += g.rest_sum;
        t.count += g.rest_count;
        t.maximum = g.rest_max > t.maximum ? g.rest_max : t.maximum;
        at = g.next;
        break;
      }
      // One window from the true start, recomputed.
      t.add(collision_window<Set>(s, at));
      ++t.recomputed;
    }
  }
  return t;
}

struct EvenBounds {
  size_t n;
  uint32_t pieces;
  EA_HD size_t operator()(uint32_t k) const { return even_bound(n, k, pieces); }
};

// The same for even pieces of n: [n k / pieces, n (k+1) / pieces).
template <class Seq>
EA_HD CollisionTotals collision_combine(const Seq& s, const CollisionGuess* guesses, uint32_t pieces) {
  return collision_combine_bounds(s, guesses, pieces, EvenBounds{s.size(), pieces});
}

// ---- the whole sequence, in pieces ------------------------------------------------

// Piece k of `pieces` covers [bounds[k], bounds[k+1]); bounds[0] = 0, bounds.back() = n.
inline std::vector<size_t> even_bounds(size_t n, size_t pieces) {
  std::vector<size_t> b(pieces + 1);
  for (size_t k = 0; k <= pieces; ++k) b[k] = n * k / pieces;
  return b;
}

template <class Seq>
RunStats directional_runs_in_pieces(const Seq& s, const std::vector<size_t>& bounds) {
  const size_t steps = s.size() > 0 ? s.size() - 1 : 0;
  RunPiece all;
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    const size_t b = bounds[k] < steps ? bounds[k] : steps, e = bounds[k + 1] < steps ? bounds[k + 1] : steps;
    all = run_piece_join(all, directional_piece(s, b, e));
  }
  return run_piece_result(all);
}

template <class Seq>
RunStats median_runs_in_pieces(const Seq& s, double median, const std::vector<size_t>& bounds) {
  RunPiece all;
  for (size_t k = 0; k + 1 < bounds.size(); ++k) all = run_piece_join(all, median_piece(s, bounds[k], bounds[k + 1], median));
  return run_piece_result(all);
}

template <class SymSeq, class ValSeq>
LagStats lags_in_pieces(const SymSeq& sym, const ValSeq& val, const std::vector<size_t>& bounds) {
  LagStats r;
  for (int k = 0; k < kNumLags; ++k) {
    r.periodicity[k] = r.covariance[k] = 0;
    for (size_t j = 0; j + 1 < bounds.size(); ++j) {
      uint64_t per = 0, cov = 0;
      lag_piece(sym, val, lag(k), bounds[j], bounds[j + 1], per, cov);
      r.periodicity[k] += per;
      r.covariance[k] += cov;
    }
  }
  return r;
}

template <class Seq>
double excursion_in_pieces(const Seq& raw, double mean, const std::vector<size_t>& bounds) {
  // Pass 1: the pieces' sums (their exclusive prefix is each piece's starting sum).
  std::vector<uint64_t> before(bounds.size(), 0);
  for (size_t k = 0; k + 1 < bounds.size(); ++k) before[k + 1] = before[k] + sum_piece(raw, bounds[k], bounds[k + 1]);
  // Pass 2: each piece's maximum; the maximum of maxima is exact in any order.
  double best = 0.0;
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    const double m = excursion_piece(raw, bounds[k], bounds[k + 1], before[k], mean);
    best = m > best ? m : best;
  }
  return best;
}

}  // namespace ea
