// The health tests run over samples (src/health/scan.hpp) against a naive re-implementation
// on crafted and random sequences, and the Monte Carlo check (src/health/simulate.hpp): its
// observed rates within their 99% intervals of the exact ones, whatever the thread count.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "health/health.hpp"
#include "health/scan.hpp"
#include "health/simulate.hpp"
#include "health/simulate_chunk.hpp"

using namespace ea;

namespace {

// The length of the run of equal samples that ends at i, counted backwards.
uint64_t run_ending_at(const std::vector<uint8_t>& x, size_t i) {
  uint64_t n = 1;
  while (n <= i && x[i - n] == x[i]) ++n;
  return n;
}

RctScan naive_rct(const std::vector<uint8_t>& x, uint64_t cutoff) {
  RctScan r;
  for (size_t i = 0; i < x.size(); ++i) {
    const uint64_t len = run_ending_at(x, i);
    if (len == cutoff) {
      ++r.failures;
      if (!r.first_failure) r.first_failure = i;
    }
    if (len > r.longest_run) {
      r.longest_run = len;
      r.longest_run_offset = i + 1 - len;
    }
  }
  return r;
}

// Each window's count recomputed from its start at every sample.
AptScan naive_apt(const std::vector<uint8_t>& x, uint32_t w, uint64_t cutoff) {
  AptScan a;
  for (size_t s = 0; s < x.size(); s += w) {
    ++a.windows;
    bool failed = false;
    uint64_t count = 0;
    for (size_t i = s; i < x.size() && i < s + w; ++i) {
      count = 0;
      for (size_t j = s; j <= i; ++j) count += x[j] == x[s];
      if (!failed && count >= cutoff) {
        failed = true;
        ++a.failures;
        if (!a.first_failure) a.first_failure = i;
      }
    }
    if (count > a.largest_count) {
      a.largest_count = count;
      a.largest_window_offset = s;
    }
  }
  return a;
}

void check_same(const std::vector<uint8_t>& x, uint32_t w, uint64_t rct_cutoff, uint64_t apt_cutoff) {
  const RctScan r = scan_rct(x.data(), x.size(), rct_cutoff), nr = naive_rct(x, rct_cutoff);
  CHECK(r.failures == nr.failures);
  CHECK(r.first_failure == nr.first_failure);
  CHECK(r.longest_run == nr.longest_run);
  CHECK(r.longest_run_offset == nr.longest_run_offset);
  const AptScan a = scan_apt(x.data(), x.size(), w, apt_cutoff), na = naive_apt(x, w, apt_cutoff);
  CHECK(a.windows == na.windows);
  CHECK(a.failures == na.failures);
  CHECK(a.first_failure == na.first_failure);
  CHECK(a.largest_count == na.largest_count);
  CHECK(a.largest_window_offset == na.largest_window_offset);
}

}  // namespace

TEST_CASE("health scans: a run across a window's edge") {
  // W = 8: samples 5..12 are 7s, a run of 8 that crosses the edge at 8.
  std::vector<uint8_t> x = {1, 2, 1, 2, 1, 7, 7, 7, 7, 7, 7, 7, 7, 3, 4, 3, 7, 7};
  const RctScan r = scan_rct(x.data(), x.size(), 5);
  CHECK(r.failures == 1);
  CHECK(r.first_failure == 9);  // the 5th 7
  CHECK(r.longest_run == 8);
  CHECK(r.longest_run_offset == 5);
  // Windows [0, 8), [8, 16), [16, 18): counts 3 (1s), 5 (7s), 2 (7s).
  const AptScan a = scan_apt(x.data(), x.size(), 8, 4);
  CHECK(a.windows == 3);
  CHECK(a.failures == 1);
  CHECK(a.first_failure == 11);  // the 4th 7 of window 8
  CHECK(a.largest_count == 5);
  CHECK(a.largest_window_offset == 8);
  // A run of twice the cutoff is one failure; the first of two longest runs is named.
  const std::vector<uint8_t> y = {4, 4, 4, 4, 4, 4, 5, 6, 6, 6, 6, 6, 6};
  const RctScan ry = scan_rct(y.data(), y.size(), 3);
  CHECK(ry.failures == 2);
  CHECK(ry.first_failure == 2);
  CHECK(ry.longest_run == 6);
  CHECK(ry.longest_run_offset == 0);
  check_same(x, 8, 5, 4);
  check_same(y, 4, 3, 2);
  // No samples: nothing scanned.
  CHECK(scan_rct(nullptr, 0, 3).longest_run == 0);
  CHECK(scan_apt(nullptr, 0, 8, 3).windows == 0);
}

TEST_CASE("health scans equal the naive re-implementation on random sequences") {
  std::mt19937_64 gen(20250405);
  for (int round = 0; round < 400; ++round) {
    const uint32_t alphabet = 2 + gen() % 3;
    std::vector<uint8_t> x(1 + gen() % 300);
    // Runs of random lengths, so that long runs and window edges meet often.
    for (size_t i = 0; i < x.size();) {
      const uint8_t v = static_cast<uint8_t>(gen() % alphabet);
      for (size_t n = 1 + gen() % 9; n > 0 && i < x.size(); --n) x[i++] = v;
    }
    const uint32_t w = 1 + static_cast<uint32_t>(gen() % 40);
    check_same(x, w, 1 + gen() % 12, 1 + gen() % (w + 1));
  }
}

TEST_CASE("the simulation's online counts equal the scans over the same samples") {
  // Small cutoffs, so that both tests fail often; windows of 8 and 64 cut across runs.
  const struct {
    double h;
    int bits;
    uint64_t rct;
    uint32_t window;
    uint64_t apt;
  } cases[] = {{1, 1, 5, 8, 6}, {0.5, 1, 9, 64, 50}, {2, 8, 3, 8, 3}, {4, 4, 2, 64, 6}, {8, 8, 2, 8, 2}};
  for (const auto& k : cases) {
    HealthCutoffs c = health_cutoffs(k.h, 0x1p-20, k.bits == 1);
    const SimulatedSourceDraw src = simulated_source(c, k.bits);
    std::vector<uint8_t> x(5000);
    for (uint64_t j = 0; j < 4; ++j) {
      draw_chunk(77, j, src, x.data(), x.size());
      const ChunkFailures f = simulate_chunk(77, j, x.size(), src, k.rct, k.window, k.apt);
      INFO("H = " << k.h << ", chunk " << j);
      CHECK(f.rct == scan_rct(x.data(), x.size(), k.rct).failures);
      CHECK(f.apt == scan_apt(x.data(), x.size(), k.window, k.apt).failures);
      CHECK(f.rct > 0);
    }
  }
}

TEST_CASE("Garwood's 99% Poisson interval") {
  // scipy.stats.chi2.ppf(0.005, 2x) / 2 and chi2.ppf(0.995, 2x + 2) / 2.
  const struct {
    uint64_t x;
    double low, high;
  } known[] = {{0, 0, 5.298317366548036},
               {1, 0.005012541823544282, 7.430129500280121},
               {10, 3.716922131467118, 21.397827499654273},
               {1000, 920.4240461633592, 1084.3728680643892}};
  for (const auto& k : known) {
    double lo = 0, hi = 0;
    poisson_interval99(k.x, lo, hi);
    CHECK_MESSAGE(std::fabs(lo - k.low) <= 1e-9 * (1 + k.low), k.x);
    CHECK_MESSAGE(std::fabs(hi - k.high) <= 1e-9 * k.high, k.x);
  }
}

TEST_CASE("the Monte Carlo check: observed rates within their 99% intervals of the exact ones") {
  // alpha = 2^-8: 2^24 samples see thousands of RCT failures and dozens of APT failures.
  const struct {
    double h;
    int bits;
  } sources[] = {{1, 1}, {0.5, 1}, {2, 8}, {4, 4}};
  for (const auto& src : sources) {
    const HealthCutoffs c = health_cutoffs(src.h, 0x1p-8, src.bits == 1);
    HealthSimulationSpec spec;
    spec.samples = uint64_t{1} << 24;
    spec.seed = 46;
    spec.chunk = uint64_t{1} << 16;
    spec.threads = 2;
    const HealthSimulation s = simulate_health(c, src.bits, spec);
    INFO("H = " << src.h << ", bits " << src.bits);
    CHECK(s.samples == spec.samples);
    CHECK(s.chunks == 256);
    CHECK(s.alphabet == (src.bits == 1 ? 2u : 1u << src.bits));
    CHECK(s.p_max == std::exp2(-src.h));
    CHECK(s.rct.failures > 100);
    CHECK(s.apt.failures > 25);
    CHECK_MESSAGE(s.rct.within(), s.rct.observed << " [" << s.rct.low << ", " << s.rct.high << "] vs " << s.rct.expected);
    CHECK_MESSAGE(s.apt.within(), s.apt.observed << " [" << s.apt.low << ", " << s.apt.high << "] vs " << s.apt.expected);
    // The exact rates of this distribution are at most SP 800-90B's worst case.
    CHECK(s.rct.stationary <= c.rct.false_positive);
    CHECK(s.apt.stationary <= c.apt.false_positive_first_counted);
    // One thread draws the same samples.
    spec.threads = 1;
    const HealthSimulation one = simulate_health(c, src.bits, spec);
    CHECK(one.rct.failures == s.rct.failures);
    CHECK(one.apt.failures == s.apt.failures);
  }
}

TEST_CASE("the Monte Carlo check sees a wrong rate") {
  // The RCT's cutoff one lower than computed: its failures are about 2^H times the computed
  // rate's, far outside the interval of that rate.
  HealthCutoffs c = health_cutoffs(1, 0x1p-8, true);
  HealthSimulationSpec spec;
  spec.samples = uint64_t{1} << 22;
  spec.seed = 7;
  spec.chunk = uint64_t{1} << 16;
  const HealthSimulation right = simulate_health(c, 1, spec);
  c.rct.cutoff -= 1;
  const HealthSimulation wrong = simulate_health(c, 1, spec);
  CHECK(wrong.rct.failures > right.rct.failures * 3 / 2);
  CHECK(right.rct.expected_failures < wrong.rct.low * static_cast<double>(wrong.rct.trials));
}

TEST_CASE("the Monte Carlo check's samples and refusals") {
  const HealthCutoffs c = health_cutoffs(2, 0x1p-20, false);
  HealthSimulationSpec spec;
  spec.samples = 1000;  // rounded up to whole windows of 512
  spec.chunk = 1024;
  const HealthSimulation s = simulate_health(c, 0, spec);
  CHECK(s.samples == 1024);
  CHECK(s.alphabet == 256);
  CHECK(s.apt.trials == 2);
  spec.samples = 0;
  CHECK_THROWS_AS(simulate_health(c, 0, spec), Error);
  spec.samples = 10;
  spec.chunk = 1000;
  CHECK_THROWS_AS(simulate_health(c, 0, spec), Error);
  std::atomic<bool> stop{true};
  spec.chunk = 1024;
  spec.interrupt = &stop;
  try {
    simulate_health(c, 0, spec);
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Interrupted);
  }
}
