// All 18 statistics of a permutation in one pass over each piece: non-binary data first, binary
// data packed a bit per sample below ("binary data"). Both (issue
// 17, item 2), for a GPU block that owns the permutation: the samples are read 16 at a time
// (one aligned 16-byte load per thread and step, instead of a byte load per sample and
// statistic), each sample feeds the excursion, both run counters and the collision chain,
// and each 4-sample word feeds the ten lag sums through byte-lane operations (equal bytes,
// byte dot products). Two passes, as excursion_in_pieces(): the pieces' sums, then the
// rest. The summaries are combined in order by the functions of pieces.hpp.
//
// Pieces are runs of 16-byte chunks of memory: a row starts `offset` bytes into its first
// aligned chunk (base = row - offset), sample s sits at base[offset + s], and piece k of
// `pieces` takes chunks [C k / pieces, C (k+1) / pieces) of the C = ceil((offset + n) / 16)
// chunks. A chunk may hold bytes outside the row (the previous row, or up to 15 bytes past
// its end: a buffer of rows needs kFusedRowPad bytes after the last row); they are read and
// ignored.
//
// Each lag pair (x_{s-p}, x_s) is counted by the piece that holds x_s; a piece keeps the 32
// samples before its current chunk. Binary data (runs and lags on Conversion I, collisions
// on Conversion II) is not served here: block_statistics.cuh reads it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/hd.hpp"
#include "stats/pieces.hpp"
#include "stats/statistics.hpp"

namespace ea {

constexpr size_t kFusedChunk = 16;
constexpr size_t kFusedRowPad = kFusedChunk;  // bytes a buffer of rows needs after its last row

namespace fused {

struct Chunk {
  uint32_t w[4];
};

// Chunk c of the aligned base (c may be negative: zeros, never read).
EA_HD EA_FORCEINLINE Chunk load_chunk(const uint8_t* base, int64_t c) {
  Chunk k{{0, 0, 0, 0}};
  if (c < 0) return k;
#if defined(__CUDA_ARCH__)
  const uint4 v = __ldg(reinterpret_cast<const uint4*>(base) + c);
  k.w[0] = v.x;
  k.w[1] = v.y;
  k.w[2] = v.z;
  k.w[3] = v.w;
#else
  std::memcpy(k.w, base + c * static_cast<int64_t>(kFusedChunk), kFusedChunk);
#endif
  return k;
}

EA_HD EA_FORCEINLINE uint32_t byte_of(uint32_t w, uint32_t b) { return (w >> (8 * b)) & 0xffu; }

// 8 x the number of bytes of `m`'s lanes (0xff or 0) in which a and b are equal.
EA_HD EA_FORCEINLINE uint32_t equal_bytes_x8(uint32_t a, uint32_t b, uint32_t m) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__popc(__vcmpeq4(a, b) & m));
#else
  uint32_t c = 0;
  for (uint32_t k = 0; k < 4; ++k) c += (byte_of(m, k) && byte_of(a, k) == byte_of(b, k)) ? 8u : 0u;
  return c;
#endif
}

// acc + the sum of the products of a's and b's bytes.
EA_HD EA_FORCEINLINE uint32_t dot_bytes(uint32_t a, uint32_t b, uint32_t acc) {
#if defined(__CUDA_ARCH__)
  return __dp4a(a, b, acc);
#else
  for (uint32_t k = 0; k < 4; ++k) acc += byte_of(a, k) * byte_of(b, k);
  return acc;
#endif
}

// The word of samples q-p .. q+3-p from the words at q-4 (lo) and q (hi), p in 1..3.
EA_HD EA_FORCEINLINE uint32_t shifted_word(uint32_t lo, uint32_t hi, uint32_t p) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, 32 - 8 * p);
#else
  return static_cast<uint32_t>(((static_cast<uint64_t>(hi) << 32) | lo) >> (32 - 8 * p));
#endif
}

// The raw values of a word of symbols (4 lookups; the word itself where raw == symbol).
EA_HD EA_FORCEINLINE uint32_t raw_word(uint32_t w, const uint8_t* table, bool identity) {
  if (identity) return w;
  return static_cast<uint32_t>(table[byte_of(w, 0)]) | static_cast<uint32_t>(table[byte_of(w, 1)]) << 8 |
         static_cast<uint32_t>(table[byte_of(w, 2)]) << 16 | static_cast<uint32_t>(table[byte_of(w, 3)]) << 24;
}

// RunPiece built one step at a time without a data-dependent branch (run_piece_push's
// result), in 32-bit counters (a piece is shorter than 2^32 samples).
struct RunPieceAcc {
  uint32_t len = 0, ups = 0, runs = 0, run = 0, longest = 0, lead = 0, first = 0, last = 2;

  EA_HD EA_FORCEINLINE void push(uint32_t up) {
    const bool same = up == last;
    first = len == 0 ? up : first;
    ups += up;
    runs += same ? 0u : 1u;
    run = same ? run + 1 : 1u;
    longest = run > longest ? run : longest;
    lead = runs == 1 ? run : lead;
    last = up;
    ++len;
  }
  // push() where len > 0 and runs > 1 (first and lead settled); len is left to the caller.
  EA_HD EA_FORCEINLINE void push_steady(uint32_t up) {
    const bool same = up == last;
    ups += up;
    runs += same ? 0u : 1u;
    run = same ? run + 1 : 1u;
    longest = run > longest ? run : longest;
    last = up;
  }
  EA_HD RunPiece piece() const {
    RunPiece p;
    p.len = len;
    p.ups = ups;
    p.runs = runs;
    p.longest = longest;
    p.lead = lead;
    p.trail = run;
    p.first = first;
    p.last = last == 2 ? 0u : last;
    return p;
  }
};

// Reads sample i of a row byte by byte through its aligned chunks (the collision windows
// that run past a piece, and the ones the combining thread recomputes).
struct ChunkedRowView {
  const uint8_t* base;
  size_t offset, n;
  mutable int64_t cached = -1;
  mutable Chunk chunk{{0, 0, 0, 0}};

  EA_HD size_t size() const { return n; }
  EA_HD uint32_t operator[](size_t i) const {
    const size_t q = offset + i;
    const int64_t c = static_cast<int64_t>(q / kFusedChunk);
    if (c != cached) {
      chunk = load_chunk(base, c);
      cached = c;
    }
    const uint32_t b = static_cast<uint32_t>(q % kFusedChunk);
    return byte_of(chunk.w[b / 4], b % 4);
  }
};

}  // namespace fused

// Where a row's samples lie in its aligned chunks.
struct FusedRow {
  const uint8_t* base;  // 16-byte aligned (on the device)
  size_t offset;        // row - base, below 16
  size_t n;

  EA_HD size_t chunks() const { return (offset + n + kFusedChunk - 1) / kFusedChunk; }
  // First sample of piece k of `pieces` (n for k = pieces).
  EA_HD size_t piece_start(uint32_t k, uint32_t pieces) const {
    const size_t q = even_bound(chunks(), k, pieces) * kFusedChunk;
    const size_t s = q > offset ? q - offset : 0;
    return s < n ? s : n;
  }
  EA_HD fused::ChunkedRowView view() const { return fused::ChunkedRowView{base, offset, n}; }
};

// piece_start() as a function of k (collision_combine_bounds()).
struct FusedBounds {
  FusedRow row;
  uint32_t pieces;
  EA_HD size_t operator()(uint32_t k) const { return row.piece_start(k, pieces); }
};

// What fused_piece() gives for one piece besides its collision guess.
struct FusedSummary {
  double excursion = 0.0;  // the piece's maximum, from the running sum before it
  RunPiece directional;    // steps x_{s-1} <= x_s for the piece's samples s >= 1
  RunPiece median;
  uint64_t periodicity[kNumLags] = {0, 0, 0, 0, 0};  // pairs (s-p, s) with s in the piece
  uint64_t covariance[kNumLags] = {0, 0, 0, 0, 0};
};

// Pass 1: the sum of the raw values of piece k.
EA_HD inline uint64_t fused_sum(const FusedRow& row, uint32_t k, uint32_t pieces, const uint8_t* table, bool identity) {
  const int64_t c0 = static_cast<int64_t>(even_bound(row.chunks(), k, pieces));
  const int64_t c1 = static_cast<int64_t>(even_bound(row.chunks(), k + 1, pieces));
  const int64_t lo = static_cast<int64_t>(row.offset), hi = static_cast<int64_t>(row.offset + row.n);
  uint64_t total = 0;
  for (int64_t c = c0; c < c1; ++c) {
    const fused::Chunk ch = fused::load_chunk(row.base, c);
    const int64_t q0 = c * static_cast<int64_t>(kFusedChunk);
    uint32_t part = 0;
    if (q0 >= lo && q0 + static_cast<int64_t>(kFusedChunk) <= hi) {
      EA_UNROLL
      for (int t = 0; t < 4; ++t) part = fused::dot_bytes(fused::raw_word(ch.w[t], table, identity), 0x01010101u, part);
    } else {
      EA_UNROLL
      for (int b = 0; b < static_cast<int>(kFusedChunk); ++b) {
        const int64_t q = q0 + b;
        if (q >= lo && q < hi) part += table[fused::byte_of(ch.w[b / 4], b % 4)];
      }
    }
    total += part;
  }
  return total;
}

namespace fused {

// The ten lag sums of one 4-sample word h[8 + t] (t a constant after unrolling): pairs
// (s - p, s) for the word's samples s, the earlier samples from h[0 .. 8 + t); m[j]: the
// lanes (0xff each) whose pair counts for lag j. hs: the words periodicity compares, hr:
// the words covariance multiplies.
struct LagSums {
  uint32_t per8[kNumLags] = {0, 0, 0, 0, 0};  // 8 x the equal pairs
  uint64_t cov[kNumLags] = {0, 0, 0, 0, 0};
  uint32_t cov32[kNumLags] = {0, 0, 0, 0, 0};  // since the last flush (below 2^32 for a chunk)

  EA_HD EA_FORCEINLINE void word(const uint32_t (&hs)[12], const uint32_t (&hr)[12], int t,
                                 const uint32_t (&m)[kNumLags]) {
    const uint32_t cs = hs[8 + t], cr = hr[8 + t];
    const uint32_t ss[kNumLags] = {shifted_word(hs[7 + t], cs, 1), shifted_word(hs[7 + t], cs, 2), hs[6 + t], hs[4 + t],
                                   hs[t]};
    const uint32_t sr[kNumLags] = {shifted_word(hr[7 + t], cr, 1), shifted_word(hr[7 + t], cr, 2), hr[6 + t], hr[4 + t],
                                   hr[t]};
    EA_UNROLL
    for (int j = 0; j < kNumLags; ++j) {
      per8[j] += equal_bytes_x8(ss[j], cs, m[j]);
      cov32[j] = dot_bytes(sr[j], cr & m[j], cov32[j]);
    }
  }
  EA_HD EA_FORCEINLINE void flush() {
    EA_UNROLL
    for (int j = 0; j < kNumLags; ++j) {
      cov[j] += cov32[j];
      cov32[j] = 0;
    }
  }
  // The lanes of the word whose first value has index `first` (of n) that pair for lag j.
  EA_HD static EA_FORCEINLINE void masks(int64_t first, int64_t n, uint32_t (&m)[kNumLags]) {
    EA_UNROLL
    for (int j = 0; j < kNumLags; ++j) {
      m[j] = 0;
      EA_UNROLL
      for (int b = 0; b < 4; ++b) {
        const int64_t s = first + b;
        if (s >= static_cast<int64_t>(lag(j)) && s < n) m[j] |= 0xffu << (8 * b);
      }
    }
  }
};

// The collision chain of a piece from its first value s0 (collision_guess()), fed one value
// at a time; finish() follows its last window past the piece.
template <class Set>
struct CollisionChain {
  Set seen;
  size_t s0;
  uint32_t len = 0, windows = 0, rest_count = 0, rest_max = 0;
  uint64_t rest_sum = 0;

  EA_HD explicit CollisionChain(size_t first) : s0(first) {}

  EA_HD EA_FORCEINLINE void record(size_t start, uint32_t recorded, CollisionGuess& g) {
    if (windows < static_cast<uint32_t>(kGuessWindows)) {
      g.start[windows] = static_cast<uint32_t>(start - s0);
      g.len[windows] = static_cast<uint16_t>(recorded);
    } else {
      rest_sum += recorded;
      rest_count += recorded ? 1u : 0u;
      rest_max = recorded > rest_max ? recorded : rest_max;
    }
    ++windows;
  }
  EA_HD EA_FORCEINLINE void push(size_t s, uint32_t x, CollisionGuess& g) {
    ++len;
    if (seen.add_or_reset(x)) {
      record(s + 1 - len, len, g);
      len = 0;
    }
  }
  // i: the first value after the piece; v: the whole sequence.
  template <class View>
  EA_HD void finish(const View& v, size_t i, CollisionGuess& g) {
    if (len > 0) {
      bool hit = false;
      while (i < v.size() && !hit) {
        ++len;
        hit = seen.add_or_reset(v[i]);
        ++i;
      }
      record(i - len, hit ? len : 0u, g);
    }
    g.next = i;
    g.windows = windows;
    g.rest_sum = rest_sum;
    g.rest_count = rest_count;
    g.rest_max = rest_max;
  }
};

// The 16 samples of a chunk wholly inside the row and past its first 32 samples, where both
// run sequences are past their first run (runs > 1: len > 0, first and lead settled): the
// runs' pushes skip first, lead and len (push_steady), and len grows by 16 after the chunk:
// 10,000 permutations of 10^6 8-bit samples 43.5 -> 39.3 ms on an H200 (gpu_block_statistics,
// session 55).
template <class Chain>
EA_HD EA_FORCEINLINE void steady_chunk(int64_t first, const uint32_t (&hs)[12], const uint32_t (&hr)[12],
                                       uint32_t median_threshold, ExcursionAcc& exc, RunPieceAcc& med,
                                       RunPieceAcc& dir, uint32_t& prev, Chain& chain, CollisionGuess& guess,
                                       LagSums& lags) {
  const uint32_t all[kNumLags] = {~0u, ~0u, ~0u, ~0u, ~0u};
  EA_UNROLL
  for (int t = 0; t < 4; ++t) {
    EA_UNROLL
    for (int b = 0; b < 4; ++b) {
      const int64_t s = first + 4 * t + b;
      const uint32_t x = byte_of(hs[8 + t], b);
      exc.push(static_cast<size_t>(s), byte_of(hr[8 + t], b));
      med.push_steady(x >= median_threshold ? 1u : 0u);
      dir.push_steady(prev <= x ? 1u : 0u);
      prev = x;
      chain.push(static_cast<size_t>(s), x, guess);
    }
    lags.word(hs, hr, t, all);
  }
  dir.len += static_cast<uint32_t>(kFusedChunk);
  med.len += static_cast<uint32_t>(kFusedChunk);
}

EA_HD EA_FORCEINLINE FusedSummary summary(const ExcursionAcc& exc, const RunPieceAcc& dir, const RunPieceAcc& med,
                                          const LagSums& lags) {
  FusedSummary f;
  f.excursion = exc.best;
  f.directional = dir.piece();
  f.median = med.piece();
  for (int j = 0; j < kNumLags; ++j) {
    f.periodicity[j] = lags.per8[j] / 8;
    f.covariance[j] = lags.cov[j];
  }
  return f;
}

}  // namespace fused

// Pass 2: piece k's summary, `before` the sum of the raw values of the samples before it
// (the exclusive prefix of fused_sum), and its collision guess written into `guess`.
EA_HD inline FusedSummary fused_piece(const FusedRow& row, uint32_t k, uint32_t pieces, const uint8_t* table,
                                      bool identity, double mean, uint32_t median_threshold, uint64_t before,
                                      CollisionGuess& guess) {
  using fused::Chunk;
  const int64_t c0 = static_cast<int64_t>(even_bound(row.chunks(), k, pieces));
  const int64_t c1 = static_cast<int64_t>(even_bound(row.chunks(), k + 1, pieces));
  const int64_t off = static_cast<int64_t>(row.offset), n = static_cast<int64_t>(row.n);
  const size_t s0 = row.piece_start(k, pieces);

  ExcursionAcc exc(mean);
  exc.running = before;
  fused::RunPieceAcc dir, med;
  fused::LagSums lags;
  fused::CollisionChain<ByteSet> chain(s0);

  // Words of the 32 samples before the current chunk (h[7] ends just before it), then the
  // chunk's four: symbols and raw values.
  uint32_t hs[12], hr[12];
  {
    const Chunk a = fused::load_chunk(row.base, c0 - 2), b = fused::load_chunk(row.base, c0 - 1);
    EA_UNROLL
    for (int t = 0; t < 4; ++t) {
      hs[t] = a.w[t];
      hs[4 + t] = b.w[t];
      hr[t] = fused::raw_word(a.w[t], table, identity);
      hr[4 + t] = fused::raw_word(b.w[t], table, identity);
    }
  }
  uint32_t prev = hs[7] >> 24;  // x_{s0-1} where s0 > 0 starts at a chunk boundary
  Chunk next = fused::load_chunk(row.base, c0 < c1 ? c0 : -1);

  auto push_sample = [&](int64_t s, uint32_t x, uint32_t r, bool step) {
    exc.push(static_cast<size_t>(s), r);
    med.push(x >= median_threshold ? 1u : 0u);
    if (step) dir.push(prev <= x ? 1u : 0u);
    prev = x;
    chain.push(static_cast<size_t>(s), x, guess);
  };
  const uint32_t all[kNumLags] = {~0u, ~0u, ~0u, ~0u, ~0u};

  for (int64_t c = c0; c < c1; ++c) {
    const Chunk cur = next;
    if (c + 1 < c1) next = fused::load_chunk(row.base, c + 1);
    EA_UNROLL
    for (int t = 0; t < 4; ++t) {
      hs[8 + t] = cur.w[t];
      hr[8 + t] = fused::raw_word(cur.w[t], table, identity);
    }
    const int64_t first = c * static_cast<int64_t>(kFusedChunk) - off;  // sample of the chunk's byte 0
    if (first >= 32 && first + static_cast<int64_t>(kFusedChunk) <= n) {
      if (dir.runs > 1 && med.runs > 1) {
        fused::steady_chunk(first, hs, hr, median_threshold, exc, med, dir, prev, chain, guess, lags);
      } else {
        EA_UNROLL
        for (int t = 0; t < 4; ++t) {
          EA_UNROLL
          for (int b = 0; b < 4; ++b) {
            push_sample(first + 4 * t + b, fused::byte_of(hs[8 + t], b), fused::byte_of(hr[8 + t], b), true);
          }
          lags.word(hs, hr, t, all);
        }
      }
    } else {
      // A chunk at the row's start or end: bytes outside [0, n), and lag pairs whose first
      // sample precedes the row, are masked.
      EA_UNROLL
      for (int t = 0; t < 4; ++t) {
        EA_UNROLL
        for (int b = 0; b < 4; ++b) {
          const int64_t s = first + 4 * t + b;
          if (s >= 0 && s < n) push_sample(s, fused::byte_of(hs[8 + t], b), fused::byte_of(hr[8 + t], b), s >= 1);
        }
        uint32_t m[kNumLags];
        fused::LagSums::masks(first + 4 * t, n, m);
        lags.word(hs, hr, t, m);
      }
    }
    lags.flush();
    EA_UNROLL
    for (int t = 0; t < 8; ++t) {
      hs[t] = hs[4 + t];
      hr[t] = hr[4 + t];
    }
  }
  chain.finish(row.view(), row.piece_start(k + 1, pieces), guess);
  return fused::summary(exc, dir, med, lags);
}

// ---- binary data ----------------------------------------------------------------------
//
// A binary row packed a bit per sample (sample p at bit p % 32 of word p / 32; bits past
// n zero), as the resident shuffle keeps it in shared memory. Excursion and median runs
// read the bits; directional runs and the lags read Conversion I, collisions Conversion
// II, m = ceil(n / 8) values each, four per packed word: Conversion II is the word's bytes
// bit-reversed, Conversion I their popcounts. Pieces are runs of 4-word chunks (128
// samples, 16 values of each conversion).
struct PackedBits {
  const uint32_t* words;  // at least chunks() * 4 words
  size_t n;

  EA_HD size_t values() const { return (n + 7) / 8; }
  EA_HD size_t chunks() const { return (n + 127) / 128; }
  // First conversion value of piece k of `pieces` (values() for k = pieces).
  EA_HD size_t piece_value(uint32_t k, uint32_t pieces) const {
    const size_t v = even_bound(chunks(), k, pieces) * 16;
    return v < values() ? v : values();
  }
};

namespace fused {

EA_HD EA_FORCEINLINE uint32_t conversion_two_word(uint32_t w) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(__brev(w), 0, 0x0123);
#else
  uint32_t r = 0;
  for (int b = 0; b < 32; ++b) r |= ((w >> b) & 1u) << (8 * (b / 8) + 7 - b % 8);
  return r;
#endif
}
EA_HD EA_FORCEINLINE uint32_t conversion_one_word(uint32_t w) {
  uint32_t c = w - ((w >> 1) & 0x55555555u);
  c = (c & 0x33333333u) + ((c >> 2) & 0x33333333u);
  return (c + (c >> 4)) & 0x0f0f0f0fu;
}
EA_HD EA_FORCEINLINE uint32_t popcount(uint32_t w) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__popc(w));
#else
  return static_cast<uint32_t>(__builtin_popcount(w));
#endif
}

// Conversion II value j of a packed row (collision windows past a piece, the combine).
struct PackedConversionTwoView {
  PackedBits row;
  EA_HD size_t size() const { return row.values(); }
  EA_HD uint32_t operator[](size_t j) const { return byte_of(conversion_two_word(row.words[j / 4]), j % 4); }
};

}  // namespace fused

struct PackedBounds {
  PackedBits row;
  uint32_t pieces;
  EA_HD size_t operator()(uint32_t k) const { return row.piece_value(k, pieces); }
};

// Pass 1: the sum of the raw values (raw0 for a 0 bit, raw1 for a 1) of piece k.
EA_HD inline uint64_t fused_binary_sum(const PackedBits& row, uint32_t k, uint32_t pieces, uint32_t raw0,
                                       uint32_t raw1) {
  const size_t w0 = even_bound(row.chunks(), k, pieces) * 4, w1 = even_bound(row.chunks(), k + 1, pieces) * 4;
  uint64_t ones = 0, samples = 0;
  for (size_t w = w0; w < w1 && w * 32 < row.n; ++w) {
    ones += fused::popcount(row.words[w]);  // bits past n are zero
    samples += row.n - w * 32 < 32 ? row.n - w * 32 : 32;
  }
  return ones * raw1 + (samples - ones) * raw0;
}

// Pass 2 for a binary piece (fused_piece()'s counterpart); Set: the collision chain's
// ByteSet kind.
template <class Set>
EA_HD FusedSummary fused_binary_piece(const PackedBits& row, uint32_t k, uint32_t pieces, uint32_t raw0, uint32_t raw1,
                                      double mean, uint64_t before, CollisionGuess& guess) {
  const int64_t c0 = static_cast<int64_t>(even_bound(row.chunks(), k, pieces));
  const int64_t c1 = static_cast<int64_t>(even_bound(row.chunks(), k + 1, pieces));
  const int64_t n = static_cast<int64_t>(row.n), m_values = static_cast<int64_t>(row.values());
  ExcursionAcc exc(mean);
  exc.running = before;
  fused::RunPieceAcc dir, med;
  fused::LagSums lags;
  fused::CollisionChain<Set> chain(row.piece_value(k, pieces));

  // Conversion I words of the 32 values before the current chunk, then the chunk's four.
  uint32_t h1[12];
  EA_UNROLL
  for (int t = 0; t < 8; ++t) {
    const int64_t w = c0 * 4 - 8 + t;
    h1[t] = w >= 0 ? fused::conversion_one_word(row.words[w]) : 0u;
  }
  uint32_t prev = h1[7] >> 24;  // Conversion I value before the piece
  const uint32_t all[kNumLags] = {~0u, ~0u, ~0u, ~0u, ~0u};
  for (int64_t c = c0; c < c1; ++c) {
    uint32_t bits[4], c2[4];
    EA_UNROLL
    for (int t = 0; t < 4; ++t) {
      bits[t] = row.words[c * 4 + t];
      h1[8 + t] = fused::conversion_one_word(bits[t]);
      c2[t] = fused::conversion_two_word(bits[t]);
    }
    const int64_t first_sample = c * 128, first_value = c * 16;
    if (first_sample + 128 <= n) {
      EA_UNROLL
      for (int t = 0; t < 4; ++t) {
        for (int b = 0; b < 32; ++b) {
          const uint32_t bit = (bits[t] >> b) & 1u;
          exc.push(static_cast<size_t>(first_sample + 32 * t + b), bit ? raw1 : raw0);
          med.push(bit);
        }
      }
    } else {
      for (int64_t s = first_sample; s < n; ++s) {
        const uint32_t bit = (bits[(s - first_sample) / 32] >> (s % 32)) & 1u;
        exc.push(static_cast<size_t>(s), bit ? raw1 : raw0);
        med.push(bit);
      }
    }
    const bool inside = first_value >= 32 && first_value + 16 <= m_values;
    EA_UNROLL
    for (int t = 0; t < 4; ++t) {
      EA_UNROLL
      for (int b = 0; b < 4; ++b) {
        const int64_t j = first_value + 4 * t + b;
        if (inside || j < m_values) {
          const uint32_t x = fused::byte_of(h1[8 + t], b);
          if (inside || j >= 1) dir.push(prev <= x ? 1u : 0u);
          prev = x;
          chain.push(static_cast<size_t>(j), fused::byte_of(c2[t], b), guess);
        }
      }
      if (inside) {
        lags.word(h1, h1, t, all);
      } else {
        uint32_t m[kNumLags];
        fused::LagSums::masks(first_value + 4 * t, m_values, m);
        lags.word(h1, h1, t, m);
      }
    }
    lags.flush();
    EA_UNROLL
    for (int t = 0; t < 8; ++t) h1[t] = h1[4 + t];
  }
  chain.finish(fused::PackedConversionTwoView{row}, row.piece_value(k + 1, pieces), guess);
  return fused::summary(exc, dir, med, lags);
}

// The host form of the GPU blocks' combine (cuda/block_statistics.cuh), for the tests:
// the statistics of a row from `pieces` fused pieces, in order. piece(k, before, guess)
// gives piece k's summary.
template <class Sum, class Piece, class CollisionView, class Bounds>
StatVector fused_combine(uint32_t pieces, Sum sum, Piece piece, const CollisionView& view, Bounds bounds) {
  std::vector<uint64_t> before(pieces + 1, 0);
  for (uint32_t k = 0; k < pieces; ++k) before[k + 1] = before[k] + sum(k);
  std::vector<CollisionGuess> guesses(pieces);
  double best = 0.0;
  RunPiece dir, med;
  LagStats lags{};
  for (uint32_t k = 0; k < pieces; ++k) {
    const FusedSummary f = piece(k, before[k], guesses[k]);
    best = f.excursion > best ? f.excursion : best;
    dir = run_piece_join(dir, f.directional);
    med = run_piece_join(med, f.median);
    for (int j = 0; j < kNumLags; ++j) {
      lags.periodicity[j] += f.periodicity[j];
      lags.covariance[j] += f.covariance[j];
    }
  }
  const CollisionStats c = collision_combine_bounds(view, guesses.data(), pieces, bounds).stats();
  StatVector v{};
  v.v[static_cast<int>(TestId::kExcursion)] = best;
  const RunStats d = run_piece_result(dir), m = run_piece_result(med);
  v.v[static_cast<int>(TestId::kNumDirectionalRuns)] = static_cast<double>(d.runs);
  v.v[static_cast<int>(TestId::kLenDirectionalRuns)] = static_cast<double>(d.longest);
  v.v[static_cast<int>(TestId::kNumIncreasesDecreases)] = static_cast<double>(d.majority);
  v.v[static_cast<int>(TestId::kNumRunsMedian)] = static_cast<double>(m.runs);
  v.v[static_cast<int>(TestId::kLenRunsMedian)] = static_cast<double>(m.longest);
  v.v[static_cast<int>(TestId::kAvgCollision)] = c.average;
  v.v[static_cast<int>(TestId::kMaxCollision)] = static_cast<double>(c.maximum);
  for (int j = 0; j < kNumLags; ++j) {
    v.v[static_cast<int>(TestId::kPeriodicity1) + j] = static_cast<double>(lags.periodicity[j]);
    v.v[static_cast<int>(TestId::kCovariance1) + j] = static_cast<double>(lags.covariance[j]);
  }
  return v;
}

// Non-binary data (fused_statistics_kernel).
inline StatVector fused_statistics(const FusedRow& row, uint32_t pieces, const uint8_t* table,
                                   const StatParams& params) {
  bool identity = true;
  for (int v = 0; v < 256; ++v) identity = identity && table[v] == v;
  const uint32_t threshold = MedianAcc(params.median).threshold;
  return fused_combine(
      pieces, [&](uint32_t k) { return fused_sum(row, k, pieces, table, identity); },
      [&](uint32_t k, uint64_t before, CollisionGuess& g) {
        return fused_piece(row, k, pieces, table, identity, params.mean, threshold, before, g);
      },
      row.view(), FusedBounds{row, pieces});
}

// Binary data packed a bit per sample (resident_fused_kernel).
inline StatVector fused_binary_statistics(const PackedBits& row, uint32_t pieces, const uint8_t* table,
                                          const StatParams& params) {
  return fused_combine(
      pieces, [&](uint32_t k) { return fused_binary_sum(row, k, pieces, table[0], table[1]); },
      [&](uint32_t k, uint64_t before, CollisionGuess& g) {
        return fused_binary_piece<WordByteSet>(row, k, pieces, table[0], table[1], params.mean, before, g);
      },
      fused::PackedConversionTwoView{row}, PackedBounds{row, pieces});
}

}  // namespace ea
