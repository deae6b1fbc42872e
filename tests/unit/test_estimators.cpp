// MCV, chi-square binning and p-values, LRS on small hand-checked inputs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "estimators/estimators.hpp"
#include "stats/suffix_array.hpp"
#include "io/samples.hpp"

using namespace ea;

TEST_CASE("most common value estimate (6.3.1)") {
  McvEstimate e = most_common_value({60, 40}, 100);
  CHECK(e.mode == 60);
  CHECK(e.p_hat == 0.6);
  const double pu = 0.6 + 2.5758293035489008 * std::sqrt(0.6 * 0.4 / 99.0);
  CHECK(e.p_u == doctest::Approx(pu).epsilon(1e-15));
  CHECK(e.entropy == doctest::Approx(-std::log2(pu)).epsilon(1e-15));
  // p_u is capped at 1: no entropy.
  CHECK(most_common_value({3, 1}, 4).entropy == 0.0);
  CHECK_FALSE(std::signbit(most_common_value({3, 1}, 4).entropy));  // 0, never printed as -0
}

TEST_CASE("bitstring counts: most significant bit first, -t truncation inside a symbol") {
  Dataset d = make_dataset({0b101, 0b011, 0b000}, 3);  // bits 101 011 000
  auto all = bitstring_counts(d, 0);
  CHECK(all[0] == 5);
  CHECK(all[1] == 4);
  auto first4 = bitstring_counts(d, 4);  // 1 0 1 0
  CHECK(first4[0] == 2);
  CHECK(first4[1] == 2);
}

TEST_CASE("baseline: mean of raw values, median of translated symbols") {
  Dataset d = make_dataset({10, 20, 30, 20}, 0);  // symbols 0 1 2 1
  Baseline b = baseline(d);
  CHECK(b.mean == 20.0);
  CHECK(b.median == 1.0);  // sorted symbols 0 1 1 2: (1+1)/2
  Dataset odd = make_dataset({5, 9, 7}, 0);
  CHECK(baseline(odd).median == 1.0);
  Dataset bin = make_dataset({0, 1, 1, 1}, 0);
  CHECK(baseline(bin).median == 0.5);
}

TEST_CASE("chi-square binning: order by expectation, ties by cell index, last bin merged") {
  auto [bin_of, bins] = chi_square_bins({1, 4, 1, 5, 3});
  REQUIRE(bins.size() == 2);
  CHECK(bins[0] == 5.0);  // cells 0, 2, 4
  CHECK(bins[1] == 9.0);  // cells 1, 3
  CHECK(bin_of == std::vector<size_t>{0, 1, 0, 1, 0});
  auto [tie_of, tie_bins] = chi_square_bins({2, 2, 2, 2, 2, 2});
  CHECK(tie_of == std::vector<size_t>{0, 0, 0, 1, 1, 1});
  auto [merge_of, merged] = chi_square_bins({3, 3, 3});
  REQUIRE(merged.size() == 1);
  CHECK(merged[0] == 9.0);
  CHECK(merge_of == std::vector<size_t>{0, 0, 0});
}

TEST_CASE("regularized upper incomplete gamma function") {
  CHECK(gamma_q(1.0, 2.0) == doctest::Approx(std::exp(-2.0)).epsilon(1e-14));
  CHECK(gamma_q(0.5, 0.7) == doctest::Approx(std::erfc(std::sqrt(0.7))).epsilon(1e-13));
  CHECK(gamma_q(5.0, 3.0) == doctest::Approx(16.375 * std::exp(-3.0)).epsilon(1e-13));
  CHECK(gamma_q(3.0, 0.0) == 1.0);
  bool underflow = false;
  CHECK(gamma_q(1023.0, 1e6, &underflow) == 0.0);
  CHECK(underflow);
}

TEST_CASE("chi-square tests: binary independence with m-bit tuples, too few samples cannot be evaluated") {
  std::vector<uint8_t> alternating(2000);
  for (size_t i = 0; i < alternating.size(); ++i) alternating[i] = i & 1;
  ChiSquareResult r = chi_square_independence(alternating, 2);
  CHECK(r.evaluable);
  CHECK(r.df == (1L << 6) - 2);  // m = 6: 0.5^6 * 333 = 5.2 >= 5 > 0.5^7 * 285
  CHECK_FALSE(r.passed());       // only two of the 128 tuples occur
  ChiSquareResult g = chi_square_goodness_of_fit(alternating, 2);
  CHECK(g.df == 9);
  CHECK(g.statistic == 0.0);
  CHECK(g.passed());

  std::vector<uint8_t> few = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1};
  ChiSquareResult s = chi_square_independence(few, 8);
  CHECK_FALSE(s.evaluable);  // one bin, df = 1 - 8
  CHECK(s.df < 0);
  CHECK_FALSE(s.passed());
}

TEST_CASE("chi-square goodness of fit below 10 samples: not evaluated, never a NaN statistic") {
  // Ten blocks of L / 10 = 0 samples expect nothing: the statistic was 0/0 (NaN), a p-value
  // of NaN that failed the chi-square tests of a 7-sample file as if measured.
  for (size_t n = 1; n < 10; ++n) {
    std::vector<uint8_t> bits(n), bytes(n);
    for (size_t i = 0; i < n; ++i) {
      bits[i] = static_cast<uint8_t>(i % 2);
      bytes[i] = static_cast<uint8_t>(i % 3);
    }
    for (const auto& [data, k] : {std::pair{bits, 2}, std::pair{bytes, 3}}) {
      CAPTURE(n);
      CAPTURE(k);
      const ChiSquareResult g = chi_square_goodness_of_fit(data, k);
      CHECK_FALSE(g.evaluable);
      CHECK_FALSE(std::isnan(g.statistic));
      CHECK_FALSE(std::isnan(g.p_value));
    }
  }
  std::vector<uint8_t> ten = {0, 1, 0, 1, 1, 0, 1, 0, 0, 1};
  CHECK(chi_square_goodness_of_fit(ten, 2).evaluable);
}

TEST_CASE("longest repeated substring: overlapping occurrences count") {
  CHECK(longest_repeat_length({0, 1, 2, 0, 1, 2, 0}) == 4);  // "0120" at 0 and 3
  CHECK(longest_repeat_length({5, 5, 5, 5}) == 3);
  CHECK(longest_repeat_length({0, 1, 2, 3}) == 0);
}

TEST_CASE("suffix_arrays: sorted suffixes and their LCPs equal a brute-force computation") {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 1 + rng() % 60;
    const uint32_t k = 1 + rng() % (trial % 3 == 0 ? 2 : 6);
    std::vector<uint8_t> s(n);
    for (auto& c : s) c = static_cast<uint8_t>(rng() % k);
    const SuffixArrays a = suffix_arrays(s.data(), n);
    std::vector<int32_t> want(n);
    for (size_t i = 0; i < n; ++i) want[i] = static_cast<int32_t>(i);
    std::sort(want.begin(), want.end(), [&](int32_t x, int32_t y) {
      return std::lexicographical_compare(s.begin() + x, s.end(), s.begin() + y, s.end());
    });
    REQUIRE(a.sa == want);
    uint64_t longest = 0;
    for (size_t r = 0; r < n; ++r) {
      size_t h = 0;
      if (r > 0) {
        const size_t i = static_cast<size_t>(want[r]), j = static_cast<size_t>(want[r - 1]);
        while (i + h < n && j + h < n && s[i + h] == s[j + h]) ++h;
      }
      CHECK(a.plcp[static_cast<size_t>(want[r])] == static_cast<int32_t>(h));
      longest = std::max<uint64_t>(longest, h);
    }
    CHECK(longest_repeat_length(s) == longest);
  }
  std::vector<uint8_t> s = {0, 1, 1, 0, 1, 0, 0, 1};
  LrsResult r = longest_repeated_substring(s, 2);
  CHECK(r.p_col == doctest::Approx(0.5));
  CHECK(r.w == 2);  // "01" at 0, 3 and 6; no length-3 substring repeats
  const long double pairs = 7.0L * 6.0L / 2.0L;  // C(L - W + 1, 2)
  CHECK(static_cast<double>(r.pr_x_ge_1) ==
        doctest::Approx(static_cast<double>(1.0L - std::pow(1.0L - 0.25L, pairs))).epsilon(1e-12));
}
