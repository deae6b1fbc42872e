// The 18 non-compression permutation statistics of SP 800-90B section 5.1, written once
// for the host (g++) and the device (nvcc). Each is a pure function over a view
// (sequences.hpp). Integer statistics are computed in integers; the excursion is the only
// floating-point one and is computed with the same operations in the same order on every
// target (the translation units that use it are built without FMA contraction), so
// rank ties compare identically on the CPU and the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <math.h>

#include "common/hd.hpp"
#include "common/test_id.hpp"
#include "stats/sequences.hpp"

namespace ea {

// Statistic values, indexed by TestId. Every value is exactly representable as a double
// (integers below 2^53), so comparisons are exact.
struct StatVector {
  double v[kNumTests];
};

// What the statistics need to know about the data set besides the samples.
struct StatParams {
  double mean;        // mean of the raw samples (section 5.1.1)
  double median;      // median of the translated samples, 0.5 for binary data
  bool binary;        // alphabet of two symbols: runs, collisions and lags use conversions
  uint32_t alphabet;  // number of distinct symbols (<= 256)
};

// Calls f(i, s[i]) for i in [begin, end). Values are read in blocks of kScanBlock before
// they are used, so a GPU thread has that many independent loads in flight instead of
// waiting for each; the order of the calls is unchanged.
constexpr int kScanBlock = 16;

template <class Seq, class F>
EA_HD EA_FORCEINLINE void scan(const Seq& s, size_t begin, size_t end, F&& f) {
  size_t i = begin;
  for (; i + kScanBlock <= end; i += kScanBlock) {
    uint32_t v[kScanBlock];
    EA_UNROLL
    for (int k = 0; k < kScanBlock; ++k) v[k] = s[i + k];
    EA_UNROLL
    for (int k = 0; k < kScanBlock; ++k) f(i + k, v[k]);
  }
  for (; i < end; ++i) f(i, s[i]);
}

// Calls f(i, a[i], b[i]) for i in [begin, end) over two views of the same length,
// blocked as scan().
template <class SeqA, class SeqB, class F>
EA_HD EA_FORCEINLINE void scan2(const SeqA& a, const SeqB& b, size_t begin, size_t end, F&& f) {
  size_t i = begin;
  for (; i + kScanBlock <= end; i += kScanBlock) {
    uint32_t va[kScanBlock], vb[kScanBlock];
    EA_UNROLL
    for (int k = 0; k < kScanBlock; ++k) {
      va[k] = a[i + k];
      vb[k] = b[i + k];
    }
    EA_UNROLL
    for (int k = 0; k < kScanBlock; ++k) f(i + k, va[k], vb[k]);
  }
  for (; i < end; ++i) f(i, a[i], b[i]);
}

// Each statistic is an accumulator fed one sample at a time, so that the same code runs
// alone (one statistic per GPU thread) or fused with others in one pass (the CPU).

// SP 800-90B 5.1.1: max over i of |sum_{t<=i} x_t - (i+1)*mean|. The running sum is kept
// as an integer: it equals the reference's double sum exactly (integers below 2^53),
// without a floating-point dependency chain.
struct ExcursionAcc {
  double mean;
  uint64_t running = 0;
  double best = 0.0;

  EA_HD explicit ExcursionAcc(double m) : mean(m) {}
  EA_HD EA_FORCEINLINE void push(size_t i, uint32_t v) {
    running += v;
    const double scaled = static_cast<double>(i + 1) * mean;
    double d = static_cast<double>(running) - scaled;
    if (d < 0) d = -d;
    best = d > best ? d : best;
  }
};

template <class Seq>
EA_HD double excursion(const Seq& raw, double mean) {
  ExcursionAcc acc(mean);
  scan(raw, 0, raw.size(), [&](size_t i, uint32_t v) { acc.push(i, v); });
  return acc.best;
}

struct RunStats {
  uint64_t runs;     // number of runs
  uint64_t longest;  // length of the longest run
  uint64_t majority; // max(#up, #down) (directional runs only)
};

// Runs of a +1/-1 sequence fed one element at a time. As in the reference, an empty
// sequence has 0 runs and a longest run of 1. No data-dependent branches: on random data
// a branch per element mispredicts half the time (CPU) or diverges (GPU).
struct RunCounter {
  uint64_t len = 0, ups = 0, runs = 0, run = 0, best = 1;
  uint32_t prev = 2;  // no element yet

  EA_HD EA_FORCEINLINE void push(uint32_t up) {
    const uint64_t same = up == prev ? 1u : 0u;
    ups += up;
    runs += 1u - same;
    run = (run & (0u - same)) + 1u;  // run + 1 when the run goes on, else 1
    best = run > best ? run : best;
    prev = up;
    ++len;
  }
  EA_HD RunStats result() const {
    const uint64_t downs = len - ups;
    return RunStats{runs, best, ups > downs ? ups : downs};
  }
};

// SP 800-90B 5.1.2-5.1.4: the sequence d_i = +1 if x_i <= x_{i+1} else -1. The first
// sample only sets `prev`.
struct DirectionalAcc {
  RunCounter c;
  uint32_t prev = 0;
  EA_HD EA_FORCEINLINE void push(uint32_t v) {
    c.push(prev <= v ? 1u : 0u);
    prev = v;
  }
};

template <class Seq>
EA_HD RunStats directional_runs(const Seq& s) {
  DirectionalAcc acc;
  const size_t n = s.size();
  if (n < 2) return acc.c.result();
  acc.prev = s[0];
  scan(s, 1, n, [&](size_t, uint32_t v) { acc.push(v); });
  return acc.c.result();
}

// SP 800-90B 5.1.5-5.1.6: m_i = +1 if x_i >= median else -1. For integer samples,
// x >= median exactly when x >= ceil(median).
struct MedianAcc {
  uint32_t threshold;
  RunCounter c;
  EA_HD explicit MedianAcc(double median) {
    const double up = ceil(median);
    threshold = up <= 0.0 ? 0u : (up >= 4294967295.0 ? 4294967295u : static_cast<uint32_t>(up));
  }
  EA_HD EA_FORCEINLINE void push(uint32_t v) { c.push(v >= threshold ? 1u : 0u); }
};

template <class Seq>
EA_HD RunStats median_runs(const Seq& s, double median) {
  MedianAcc acc(median);
  scan(s, 0, s.size(), [&](size_t, uint32_t v) { acc.push(v); });
  return acc.c.result();
}

struct RunsAndExcursion {
  double excursion;
  RunStats directional, median;
};

// Excursion (on `raw`), directional runs and median runs (on `sym`) in one pass over
// two views of the same length: the three accumulators above, fed together.
template <class Sym, class Raw>
EA_HD RunsAndExcursion runs_and_excursion(const Sym& sym, const Raw& raw, double mean, double median) {
  ExcursionAcc exc(mean);
  DirectionalAcc dir;
  MedianAcc med(median);
  const size_t n = sym.size();
  if (n > 0) {
    exc.push(0, raw[0]);
    med.push(sym[0]);
    dir.prev = sym[0];
    scan2(sym, raw, 1, n, [&](size_t i, uint32_t v, uint32_t r) {
      exc.push(i, r);
      dir.push(v);
      med.push(v);
    });
  }
  return RunsAndExcursion{exc.best, dir.c.result(), med.c.result()};
}

// A set of byte values with one operation: add v, or, when v is already present, empty
// the set (the next collision window starts empty).
//
// WordByteSet: eight words indexed by value, emptied with a branch (taken about once a
// window); the host's ByteSet, and the device's where the kernel's dynamic shared memory
// holds something else (cuda/block_statistics.cuh, the resident kernel's statistics).
struct WordByteSet {
  uint32_t w[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  EA_HD EA_FORCEINLINE bool add_or_reset(uint32_t v) {
    const uint32_t m = 1u << (v & 31u), k = (v >> 5) & 7u;
    if (w[k] & m) {
      for (uint32_t& x : w) x = 0;
      return true;
    }
    w[k] |= m;
    return false;
  }
};

// ByteSet on the device: the eight words of each thread live in shared memory (word k of
// thread t at k * blockDim.x + t: no bank conflicts), with a register bit per word saying
// whether it belongs to the current window, so that emptying the set costs one register
// write and no branch; the kernel provides kByteSetSharedBytes per thread of dynamic
// shared memory. On the host, WordByteSet.
#if defined(__CUDA_ARCH__)
struct ByteSet {
  uint32_t* words;
  uint32_t valid = 0;
  __device__ ByteSet() {
    extern __shared__ uint32_t ea_byteset_words[];
    words = ea_byteset_words + threadIdx.x;
  }
  __device__ EA_FORCEINLINE bool add_or_reset(uint32_t v) {
    const uint32_t m = 1u << (v & 31u), k = (v >> 5) & 7u;
    uint32_t* slot = words + k * blockDim.x;
    const uint32_t word = ((valid >> k) & 1u) ? *slot : 0u;
    const bool hit = (word & m) != 0;
    *slot = word | m;  // harmless when hit: the word is marked invalid below
    valid = hit ? 0u : (valid | (1u << k));
    return hit;
  }
};
#else
using ByteSet = WordByteSet;
#endif
constexpr size_t kByteSetSharedBytes = 8 * sizeof(uint32_t);

struct CollisionStats {
  double average;
  uint64_t maximum;
};

// SP 800-90B 5.1.7-5.1.8. From position i, a window grows until the next sample repeats
// a value already in it; the window's length including the repeat is recorded and the
// next window starts after the repeating sample. A window that reaches the end without a
// repeat is not recorded. Values must be below 256. One pass, one window at a time.
template <class Seq>
EA_HD CollisionStats collisions(const Seq& s) {
  // A window holds at most 256 distinct values, so its length fits 32 bits.
  uint64_t sum = 0, count = 0;
  uint32_t maximum = 0, len = 0;
  ByteSet seen;
  scan(s, 0, s.size(), [&](size_t, uint32_t v) {
    ++len;
    const uint32_t hit = seen.add_or_reset(v) ? 1u : 0u;
    const uint32_t recorded = len & (0u - hit);  // len when the window ends here, else 0
    sum += recorded;
    count += hit;
    maximum = recorded > maximum ? recorded : maximum;
    len -= recorded;
  });
  CollisionStats c;
  c.average = count ? static_cast<double>(sum) / static_cast<double>(count) : 0.0;
  c.maximum = maximum;
  return c;
}

struct LagStats {
  uint64_t periodicity[kNumLags];  // #{i < n-p : x_i == x_{i+p}}   (5.1.9)
  uint64_t covariance[kNumLags];   // sum_{i < n-p} y_i * y_{i+p}    (5.1.10)
};

// Periodicity of `sym` and covariance of `val` for the lags 1, 2, 8, 16, 32 selected by
// `mask`, one pass per lag. `sym` and `val` have the same length (val is the raw view of
// sym, or sym itself).
template <class SymSeq, class ValSeq>
EA_HD LagStats lagged(const SymSeq& sym, const ValSeq& val, TestMask mask) {
  LagStats r;
  for (int k = 0; k < kNumLags; ++k) r.periodicity[k] = r.covariance[k] = 0;
  const size_t n = sym.size();
  for (int k = 0; k < kNumLags; ++k) {
    const size_t p = lag(k);
    const bool want_p = (mask & bit(static_cast<int>(TestId::kPeriodicity1) + k)) != 0;
    const bool want_c = (mask & bit(static_cast<int>(TestId::kCovariance1) + k)) != 0;
    if (n <= p || !(want_p || want_c)) continue;
    uint64_t per = 0, cov = 0;
    if (want_p && want_c) {
      EA_DEVICE_UNROLL
      for (size_t i = 0; i < n - p; ++i) {
        per += sym[i] == sym[i + p] ? 1u : 0u;
        cov += static_cast<uint64_t>(val[i]) * val[i + p];
      }
    } else if (want_p) {
      EA_DEVICE_UNROLL
      for (size_t i = 0; i < n - p; ++i) per += sym[i] == sym[i + p] ? 1u : 0u;
    } else {
      EA_DEVICE_UNROLL
      for (size_t i = 0; i < n - p; ++i) cov += static_cast<uint64_t>(val[i]) * val[i + p];
    }
    r.periodicity[k] = per;
    r.covariance[k] = cov;
  }
  return r;
}

constexpr TestMask kDirectionalMask = bit(TestId::kNumDirectionalRuns) |
                                      bit(TestId::kLenDirectionalRuns) |
                                      bit(TestId::kNumIncreasesDecreases);
constexpr TestMask kMedianMask = bit(TestId::kNumRunsMedian) | bit(TestId::kLenRunsMedian);
constexpr TestMask kCollisionMask = bit(TestId::kAvgCollision) | bit(TestId::kMaxCollision);
constexpr TestMask kLagMask = ((1u << 10) - 1u) << static_cast<int>(TestId::kPeriodicity1);

// Computes the statistics selected by `mask` (bits of TestId, compression excluded) and
// writes them into out.v; the others are left untouched.
//
//   sym   the translated symbols (0..k-1); for binary data the 0/1 sequence
//   raw   the raw sample values, same length as sym
//   conv1 Conversion I of sym and conv2 Conversion II of sym (used only when binary)
//
// Which data each statistic reads follows the reference tool: excursion on raw;
// directional runs, periodicity and covariance on Conversion I when binary (covariance on
// raw otherwise); median runs on sym; collisions on Conversion II when binary.
template <class Sym, class Raw, class C1, class C2>
EA_HD void compute_statistics(const Sym& sym, const Raw& raw, const C1& conv1, const C2& conv2,
                              const StatParams& params, TestMask mask, StatVector& out) {
  const double median = params.binary ? 0.5 : params.median;
  const TestMask fused = bit(TestId::kExcursion) | kDirectionalMask | kMedianMask;
  RunsAndExcursion rx{};
  // One pass for all three when they are all wanted and read the same samples (not for
  // binary data, whose directional runs read Conversion I).
  const bool one_pass = !params.binary && (mask & fused) == fused;
  if (one_pass) rx = runs_and_excursion(sym, raw, params.mean, median);
  if (mask & bit(TestId::kExcursion)) {
    out.v[static_cast<int>(TestId::kExcursion)] = one_pass ? rx.excursion : excursion(raw, params.mean);
  }
  if (mask & kDirectionalMask) {
    RunStats d = one_pass ? rx.directional : params.binary ? directional_runs(conv1) : directional_runs(sym);
    out.v[static_cast<int>(TestId::kNumDirectionalRuns)] = static_cast<double>(d.runs);
    out.v[static_cast<int>(TestId::kLenDirectionalRuns)] = static_cast<double>(d.longest);
    out.v[static_cast<int>(TestId::kNumIncreasesDecreases)] = static_cast<double>(d.majority);
  }
  if (mask & kMedianMask) {
    RunStats m = one_pass ? rx.median : median_runs(sym, median);
    out.v[static_cast<int>(TestId::kNumRunsMedian)] = static_cast<double>(m.runs);
    out.v[static_cast<int>(TestId::kLenRunsMedian)] = static_cast<double>(m.longest);
  }
  if (mask & kCollisionMask) {
    CollisionStats c = params.binary ? collisions(conv2) : collisions(sym);
    out.v[static_cast<int>(TestId::kAvgCollision)] = c.average;
    out.v[static_cast<int>(TestId::kMaxCollision)] = static_cast<double>(c.maximum);
  }
  if (mask & kLagMask) {
    LagStats l = params.binary ? lagged(conv1, conv1, mask) : lagged(sym, raw, mask);
    for (int k = 0; k < kNumLags; ++k) {
      int pt = static_cast<int>(TestId::kPeriodicity1) + k;
      int ct = static_cast<int>(TestId::kCovariance1) + k;
      if (mask & bit(pt)) out.v[pt] = static_cast<double>(l.periodicity[k]);
      if (mask & bit(ct)) out.v[ct] = static_cast<double>(l.covariance[k]);
    }
  }
}

}  // namespace ea
