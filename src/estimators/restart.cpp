#include "estimators/restart.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "rng/philox_stream.hpp"

namespace ea {

namespace {

// Symbols of probability p, and whether a residual symbol takes the rest.
struct WorstCase {
  double p = 1;
  int full = 1;          // floor(1/p)
  double residual = 0;   // 1 - full * p (0: none)
};

WorstCase worst_case(double h_i) {
  if (!(h_i > 0) || h_i > 8) throw Error(ErrorKind::Usage, "H_I must be greater than 0 and at most 8");
  WorstCase w;
  w.p = std::pow(2.0, -h_i);
  // NIST: k_effective = ceil(1/p) symbols; index floor(u/p) for u in [0, 1).
  const int k_effective = static_cast<int>(std::ceil(1.0 / w.p));
  w.full = static_cast<int>(std::floor(1.0 / w.p));
  w.residual = k_effective > w.full ? 1.0 - w.full * w.p : 0.0;
  if (w.residual < 0) w.residual = 0;
  return w;
}

using Poly = std::vector<double>;

// a * b, truncated to degree n.
Poly multiply(const Poly& a, const Poly& b, int n) {
  const size_t len = std::min<size_t>(static_cast<size_t>(n) + 1, a.size() + b.size() - 1);
  Poly c(len, 0.0);
  for (size_t i = 0; i < a.size() && i < len; ++i) {
    if (a[i] == 0) continue;
    const size_t jmax = std::min(b.size(), len - i);
    for (size_t j = 0; j < jmax; ++j) c[i + j] += a[i] * b[j];
  }
  return c;
}

// P(Poisson(lambda) = c) for c = 0..x.
Poly truncated_poisson(double lambda, int x) {
  Poly t(static_cast<size_t>(x) + 1);
  for (int c = 0; c <= x; ++c) {
    t[static_cast<size_t>(c)] = lambda > 0 ? std::exp(-lambda + c * std::log(lambda) - std::lgamma(c + 1.0))
                                           : (c == 0 ? 1.0 : 0.0);
  }
  return t;
}

}  // namespace

double restart_alpha() { return 1.0 - std::exp(std::log(0.99) / (kRestarts + kRestartSamples)); }

std::vector<uint8_t> restart_columns(const std::vector<uint8_t>& samples) {
  if (samples.size() != kRestartDataSize) throw Error(ErrorKind::Internal, "restart data set of the wrong size");
  std::vector<uint8_t> cols(samples.size());
  for (size_t i = 0; i < static_cast<size_t>(kRestarts); ++i)
    for (size_t j = 0; j < static_cast<size_t>(kRestartSamples); ++j) cols[j * kRestarts + i] = samples[i * kRestartSamples + j];
  return cols;
}

RestartCounts restart_counts(const std::vector<uint8_t>& samples) {
  if (samples.size() != kRestartDataSize) throw Error(ErrorKind::Internal, "restart data set of the wrong size");
  RestartCounts rc;
  int counts[256];
  for (size_t i = 0; i < static_cast<size_t>(kRestarts); ++i) {
    std::fill(counts, counts + 256, 0);
    for (size_t j = 0; j < static_cast<size_t>(kRestartSamples); ++j) {
      rc.x_r = std::max(rc.x_r, ++counts[samples[i * kRestartSamples + j]]);
    }
  }
  for (size_t j = 0; j < static_cast<size_t>(kRestartSamples); ++j) {
    std::fill(counts, counts + 256, 0);
    for (size_t i = 0; i < static_cast<size_t>(kRestarts); ++i) {
      rc.x_c = std::max(rc.x_c, ++counts[samples[i * kRestartSamples + j]]);
    }
  }
  return rc;
}

double restart_max_count_cdf(double h_i, int x) {
  const WorstCase w = worst_case(h_i);
  const int n = kRestartSamples;
  if (x < 0) return 0;
  if (x >= n) return 1;
  // The convolution of `full` copies of the truncated pmf of Poisson(n p), by squaring.
  Poly result{1.0};
  Poly base = truncated_poisson(n * w.p, x);
  for (int e = w.full; e > 0; e >>= 1) {
    if (e & 1) result = multiply(result, base, n);
    if (e > 1) base = multiply(base, base, n);
  }
  if (w.residual > 0) result = multiply(result, truncated_poisson(n * w.residual, x), n);
  const double joint = static_cast<size_t>(n) < result.size() ? result[static_cast<size_t>(n)] : 0.0;
  // P(Poisson(n) = n): the total of all the independent Poisson counts is n.
  const double total = std::exp(-n + n * std::log(static_cast<double>(n)) - std::lgamma(n + 1.0));
  return std::min(1.0, joint / total);
}

int restart_cutoff_exact(double h_i, double alpha, Interrupt interrupt) {
  const WorstCase w = worst_case(h_i);
  // The largest count is at least ceil(1000 / symbols) and at most 1000.
  const int symbols = w.full + (w.residual > 0 ? 1 : 0);
  int lo = (kRestartSamples + symbols - 1) / symbols, hi = kRestartSamples;
  const double target = 1.0 - alpha;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    throw_if_interrupted(interrupt);
    if (restart_max_count_cdf(h_i, mid) >= target) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

std::vector<uint64_t> restart_max_count_histogram(double h_i, uint64_t rounds, uint64_t seed, int threads,
                                                  Interrupt interrupt) {
  const WorstCase w = worst_case(h_i);
  const int symbols = w.full + (w.residual > 0 ? 1 : 0);
  std::vector<uint64_t> histogram(static_cast<size_t>(kRestartSamples) + 1, 0);
  const double scale = 1.0 / 4294967296.0;
  const int64_t total = static_cast<int64_t>(rounds);
#pragma omp parallel num_threads(std::max(1, threads))
  {
    std::vector<uint64_t> mine(histogram.size(), 0);
    int counts[257];
#pragma omp for schedule(static)
    for (int64_t i = 0; i < total; ++i) {
      // Once interrupted, the remaining rounds are skipped (no exception leaves the loop).
      if (interrupt_requested(interrupt)) continue;
      PhiloxStream rng(seed, static_cast<uint64_t>(i));
      std::fill(counts, counts + symbols, 0);
      for (int k = 0; k < kRestartSamples; ++k) {
        // u in [0, 1) on 32 bits; symbol floor(u / p) (the last one takes the residual).
        const double u = rng.next() * scale;
        const int s = std::min(symbols - 1, static_cast<int>(u / w.p));
        ++counts[s];
      }
      ++mine[static_cast<size_t>(*std::max_element(counts, counts + symbols))];
    }
#pragma omp critical
    for (size_t k = 0; k < mine.size(); ++k) histogram[k] += mine[k];
  }
  throw_if_interrupted(interrupt);  // the flag is never cleared: a histogram with skipped rounds never leaves
  return histogram;
}

int restart_cutoff_simulated(double h_i, double alpha, uint64_t rounds, uint64_t seed, int threads,
                             Interrupt interrupt) {
  if (rounds < 2) throw Error(ErrorKind::Usage, "the cutoff simulation needs at least 2 rounds");
  const std::vector<uint64_t> histogram = restart_max_count_histogram(h_i, rounds, seed, threads, interrupt);
  // NIST: the sorted results' element floor((1 - alpha) * rounds) - 1 (0-based).
  const uint64_t rank = static_cast<uint64_t>(std::floor((1.0 - alpha) * static_cast<double>(rounds)));
  const uint64_t want = std::max<uint64_t>(1, rank);
  uint64_t seen = 0;
  for (size_t x = 0; x < histogram.size(); ++x) {
    seen += histogram[x];
    if (seen >= want) return static_cast<int>(x);
  }
  return kRestartSamples;
}

}  // namespace ea
