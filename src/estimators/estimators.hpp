// The IID track apart from the permutation tests: baseline statistics, the most common
// value estimate (SP 800-90B 6.3.1), the chi-square tests (5.2.1-5.2.4) and the longest
// repeated substring test (5.2.5), computed as NIST ea_iid 1.1.7 computes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "io/samples.hpp"

#include "stats/suffix_array.hpp"

namespace ea {

// Mean of the raw samples and median of the translated ones (0.5 for binary data).
struct Baseline {
  double mean = 0;
  double median = 0;
};
Baseline baseline(const Dataset& d);

struct McvEstimate {
  uint64_t mode = 0;      // count of the most common value
  uint64_t samples = 0;   // L
  double p_hat = 0;
  double p_u = 0;
  double entropy = 0;     // -log2(p_u)
};
// MCV estimate over symbol counts (6.3.1).
McvEstimate most_common_value(const std::vector<uint64_t>& counts, uint64_t samples);

// The bitstring view: every symbol written as `width` bits, most significant first;
// only the first `max_bits` bits are counted (0 = all). Returns {zeros, ones}.
std::vector<uint64_t> bitstring_counts(const Dataset& d, uint64_t max_bits);

// Regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a).
// *underflow (optional) is set where the reference's Cephes igamc reports UNDERFLOW.
double gamma_q(double a, double x, bool* underflow = nullptr);

struct ChiSquareResult {
  double statistic = 0;  // T
  long df = 0;           // degrees of freedom
  double p_value = 1;
  bool evaluable = true; // false when the data is too short to give positive df
  bool underflow = false; // the p-value underflowed to 0 (the reference prints "igamc: UNDERFLOW")
  bool passed() const { return evaluable && p_value >= 0.001; }
};
// Groups cells into bins of expected count >= 5, as the reference does: cells in order of
// increasing expectation (ties by cell index); a bin is closed before the next cell is
// added once its expectation reaches 5; a last bin below 5 joins the previous one.
// Returns the bin of each cell and the expectation of each bin.
std::pair<std::vector<size_t>, std::vector<double>> chi_square_bins(const std::vector<double>& expected);

ChiSquareResult chi_square_independence(const std::vector<uint8_t>& symbols, int alphabet);
ChiSquareResult chi_square_goodness_of_fit(const std::vector<uint8_t>& symbols, int alphabet);

struct LrsResult {
  long double p_col = 0;
  uint64_t w = 0;             // length of the longest repeated substring
  long double pr_x_ge_1 = 0;  // Pr(X >= 1)
  bool trivially_passed = false;  // p_col > 1 - LDBL_EPSILON
  bool passed() const { return trivially_passed || pr_x_ge_1 >= 0.001L; }
};
LrsResult longest_repeated_substring(const std::vector<uint8_t>& symbols, int alphabet);

// longest_repeat_length (the LRS test's W) is in stats/suffix_array.hpp.

}  // namespace ea
