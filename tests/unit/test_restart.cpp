// The restart tests' own numbers (SP 800-90B 3.1.4): data sets, counts, alpha, X_cutoff.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "estimators/restart.hpp"

using namespace ea;

namespace {
// P(|N - 500| <= x - 500) for N ~ Binomial(1000, 1/2), summed directly.
double two_symbol_cdf(int x) {
  double s = 0;
  for (int k = 1000 - x; k <= x; ++k) {
    if (k < 0 || k > 1000) continue;
    s += std::exp(std::lgamma(1001.0) - std::lgamma(k + 1.0) - std::lgamma(1001.0 - k) - 1000 * std::log(2.0));
  }
  return s;
}
}  // namespace

TEST_CASE("restart alpha as NIST prints it") {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", restart_alpha());
  CHECK(std::string(buf) == "5.0251553006530614e-06");
}

TEST_CASE("row and column data sets and their largest counts") {
  // Every row and column holds each of 10 values 100 times ...
  std::vector<uint8_t> rows(kRestartDataSize);
  for (size_t i = 0; i < 1000; ++i)
    for (size_t j = 0; j < 1000; ++j) rows[i * 1000 + j] = static_cast<uint8_t>((i + j) % 10);
  CHECK(restart_counts(rows).x_r == 100);
  CHECK(restart_counts(rows).x_c == 100);
  // ... then row 3 gets 1 in its first 700 places and column 5 gets 2 in its first 900.
  for (int j = 0; j < 700; ++j) rows[3 * 1000 + j] = 1;
  for (int i = 0; i < 900; ++i) rows[static_cast<size_t>(i) * 1000 + 5] = 2;
  const auto cols = restart_columns(rows);
  CHECK(cols[5 * 1000 + 3] == 2);
  CHECK(cols[10 * 1000 + 3] == 1);
  CHECK(cols[10 * 1000 + 4] == 4);
  CHECK(restart_columns(cols) == rows);
  const RestartCounts rc = restart_counts(rows);
  CHECK(rc.x_r == 699 + 30);  // row 3: 699 ones set (place 5 became 2) and 30 of its own
  CHECK(rc.x_c == 900 + 10);  // column 5: 900 twos set and 10 of its own
  CHECK(rc.x_max() == 910);
  std::vector<uint8_t> cycle(kRestartDataSize);
  for (size_t k = 0; k < cycle.size(); ++k) cycle[k] = static_cast<uint8_t>(k % 4);
  const RestartCounts c4 = restart_counts(cycle);
  CHECK(c4.x_r == 250);   // each row: 0 1 2 3 0 1 2 3 ...
  CHECK(c4.x_c == 1000);  // a column repeats one value (1000 is a multiple of 4)
  CHECK_THROWS_AS(restart_counts(std::vector<uint8_t>(10)), Error);
}

TEST_CASE("the exact distribution of the largest count: two symbols equal the binomial sum") {
  for (int x : {500, 510, 530, 550, 560, 600}) {
    CAPTURE(x);
    CHECK(restart_max_count_cdf(1.0, x) == doctest::Approx(two_symbol_cdf(x)).epsilon(1e-9));
  }
  CHECK(restart_max_count_cdf(1.0, 499) == doctest::Approx(0.0));
  CHECK(restart_max_count_cdf(7.8, 1000) == 1.0);
  double last = 0;
  for (int x = 1; x <= 40; ++x) {
    const double f = restart_max_count_cdf(7.8, x);
    CHECK(f >= last);
    last = f;
  }
}

TEST_CASE("X_cutoff: exact quantile next to NIST's simulated one") {
  const double alpha = restart_alpha();
  // NIST ea_restart 1.1.8 printed X_cutoff 20 for H_I 7.8 and 574 for H_I 0.99
  // (testdata/golden/nist-ea_restart-1.1.8; its simulation varies by +-1).
  CHECK(std::abs(restart_cutoff_exact(7.8, alpha) - 20) <= 1);
  CHECK(std::abs(restart_cutoff_exact(0.99, alpha) - 574) <= 1);
  // The quantile rule: F(cutoff) >= 1 - alpha > F(cutoff - 1).
  for (double h : {0.5, 0.99, 1.0, 2.0, 4.0, 7.8, 8.0}) {
    CAPTURE(h);
    const int x = restart_cutoff_exact(h, alpha);
    CHECK(restart_max_count_cdf(h, x) >= 1 - alpha);
    CHECK(restart_max_count_cdf(h, x - 1) < 1 - alpha);
  }
  CHECK_THROWS_AS(restart_cutoff_exact(0.0, alpha), Error);
  CHECK_THROWS_AS(restart_cutoff_exact(8.5, alpha), Error);
}

TEST_CASE("the simulation: reproducible from its seed whatever the threads, and near the exact distribution") {
  const uint64_t rounds = 40000;
  const auto one = restart_max_count_histogram(7.8, rounds, 5, 1);
  const auto two = restart_max_count_histogram(7.8, rounds, 5, 2);
  CHECK(one == two);
  CHECK(restart_max_count_histogram(7.8, rounds, 6, 2) != one);
  uint64_t sum = 0;
  for (auto v : one) sum += v;
  CHECK(sum == rounds);
  // The simulated frequency of "largest count <= x" within 5 standard errors of the exact one.
  uint64_t below = 0;
  for (int x = 0; x <= 16; ++x) {
    below += one[static_cast<size_t>(x)];
    if (x < 11) continue;
    const double f = restart_max_count_cdf(7.8, x), freq = static_cast<double>(below) / rounds;
    CAPTURE(x);
    CHECK(std::abs(freq - f) <= 5 * std::sqrt(f * (1 - f) / rounds) + 1e-9);
  }
  // NIST's rank rule on few rounds is the sample's largest values.
  CHECK(restart_cutoff_simulated(7.8, restart_alpha(), rounds, 5, 2) == restart_cutoff_simulated(7.8, restart_alpha(), rounds, 5, 1));
}
