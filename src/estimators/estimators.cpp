#include "estimators/estimators.hpp"


#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>

#include "common/error.hpp"
#include "stats/suffix_array.hpp"

namespace ea {

Baseline baseline(const Dataset& d) {
  Baseline b;
  const size_t n = d.size();
  uint64_t sum = 0;
  std::array<uint64_t, 256> count{};
  for (size_t i = 0; i < n; ++i) {
    sum += d.raw[i];
    ++count[d.symbols[i]];
  }
  b.mean = static_cast<double>(sum) / static_cast<double>(n);
  if (d.alphabet == 2) {
    b.median = 0.5;
    return b;
  }
  // Median of the translated symbols from their histogram: element n/2 of the sorted
  // list (odd n) or the mean of elements n/2-1 and n/2 (even n).
  auto nth = [&](uint64_t idx) {
    uint64_t seen = 0;
    for (int v = 0; v < 256; ++v) {
      seen += count[v];
      if (seen > idx) return v;
    }
    return 255;
  };
  if (n % 2 == 1) {
    b.median = nth(n / 2);
  } else {
    b.median = (static_cast<double>(nth(n / 2 - 1)) + static_cast<double>(nth(n / 2))) / 2.0;
  }
  return b;
}

McvEstimate most_common_value(const std::vector<uint64_t>& counts, uint64_t samples) {
  McvEstimate e;
  e.samples = samples;
  e.mode = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
  const double L = static_cast<double>(samples);
  e.p_hat = static_cast<double>(e.mode) / L;
  e.p_u = std::min(1.0, e.p_hat + 2.5758293035489008 * std::sqrt(e.p_hat * (1.0 - e.p_hat) / (L - 1.0)));
  e.entropy = -std::log2(e.p_u) + 0.0;  // + 0.0: a bound of 1 gives 0, not -0
  return e;
}

std::vector<uint64_t> bitstring_counts(const Dataset& d, uint64_t max_bits) {
  uint64_t total = static_cast<uint64_t>(d.size()) * static_cast<uint64_t>(d.width);
  uint64_t limit = (max_bits == 0 || max_bits > total) ? total : max_bits;
  uint64_t ones = 0, taken = 0;
  const uint64_t full = limit / static_cast<uint64_t>(d.width);
  for (uint64_t i = 0; i < full; ++i) ones += static_cast<uint64_t>(__builtin_popcount(d.raw[i]));
  taken = full * static_cast<uint64_t>(d.width);
  // A partial last symbol: its most significant bits come first.
  for (int b = d.width - 1; taken < limit && b >= 0; --b, ++taken) ones += (d.raw[full] >> b) & 1u;
  return {limit - ones, ones};
}

// ln Gamma(a) for a > 0 without glibc's global `signgam` (std::lgamma writes it: a data
// race between the batch's worker threads).
static long double lgamma_positive(long double a) {
  int sign = 0;
  return ::lgammal_r(a, &sign);
}

// Q(a, x) by the power series of P(a, x) when x < a + 1 and by the continued fraction of
// Q(a, x) (modified Lentz evaluation) otherwise; both in long double.
double gamma_q(double a_in, double x_in, bool* underflow) {
  if (underflow) *underflow = false;
  if (!(a_in > 0)) throw Error(ErrorKind::Internal, "gamma_q: a must be positive");
  if (x_in <= 0) return 1.0;
  const long double a = a_in, x = x_in;
  const long double log_prefactor = a * std::log(x) - x;
  const long double eps = LDBL_EPSILON;
  // The reference (Cephes igamc) returns 0 with "igamc: UNDERFLOW" when x^a e^-x / Gamma(a)
  // is below e^-709.78 on its continued-fraction branch (x >= 1 and x >= a).
  if (underflow && x >= 1 && x >= a && log_prefactor - lgamma_positive(a) < -7.09782712893383996732224E2L) {
    *underflow = true;
  }
  if (x < a + 1) {
    long double term = 1.0L / a, sum = term, ap = a;
    for (int n = 0; n < 10000000; ++n) {
      ap += 1;
      term *= x / ap;
      sum += term;
      if (std::fabs(term) < std::fabs(sum) * eps) break;
    }
    long double p = sum * std::exp(log_prefactor - lgamma_positive(a));
    long double q = 1.0L - p;
    return q < 0 ? 0.0 : static_cast<double>(q);
  }
  const long double tiny = LDBL_MIN / eps;
  long double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (long i = 1; i < 10000000; ++i) {
    long double an = -static_cast<long double>(i) * (static_cast<long double>(i) - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    long double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < eps) break;
  }
  return static_cast<double>(std::exp(log_prefactor - lgamma_positive(a)) * h);
}

namespace {

std::vector<uint64_t> symbol_counts(const uint8_t* s, size_t n, int alphabet) {
  std::vector<uint64_t> c(static_cast<size_t>(alphabet), 0);
  for (size_t i = 0; i < n; ++i) ++c[s[i]];
  return c;
}

// Symbol proportions as the reference computes them: 1/L added once per occurrence. The
// rounding differs from count/L, and it decides ties when the chi-square cells are sorted,
// so it is reproduced exactly.
std::vector<double> reference_proportions(const std::vector<uint8_t>& s, int alphabet) {
  auto counts = symbol_counts(s.data(), s.size(), alphabet);
  const double step = 1.0 / static_cast<double>(s.size());
  std::vector<double> p(static_cast<size_t>(alphabet), 0.0);
  for (size_t i = 0; i < p.size(); ++i)
    for (uint64_t c = 0; c < counts[i]; ++c) p[i] += step;
  return p;
}

}  // namespace

std::pair<std::vector<size_t>, std::vector<double>> chi_square_bins(const std::vector<double>& expected) {
  std::vector<size_t> order(expected.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return expected[x] < expected[y]; });
  std::vector<size_t> bin_of(expected.size());
  std::vector<double> bin_exp;
  for (size_t idx : order) {
    if (bin_exp.empty() || bin_exp.back() >= 5.0) bin_exp.push_back(0.0);
    bin_exp.back() += expected[idx];
    bin_of[idx] = bin_exp.size() - 1;
  }
  if (bin_exp.size() > 1 && bin_exp.back() < 5.0) {
    size_t last = bin_exp.size() - 1;
    bin_exp[last - 1] += bin_exp[last];
    for (auto& b : bin_of)
      if (b == last) b = last - 1;
    bin_exp.pop_back();
  }
  return {bin_of, bin_exp};
}

namespace {

ChiSquareResult finish(double statistic, long df) {
  ChiSquareResult r;
  r.statistic = statistic;
  r.df = df;
  if (df <= 0) {
    r.evaluable = false;
    r.p_value = 1.0;
    return r;
  }
  r.p_value = gamma_q(static_cast<double>(df) / 2.0, statistic / 2.0, &r.underflow);
  return r;
}

ChiSquareResult independence_binary(const std::vector<uint8_t>& s) {
  const uint64_t L = s.size();
  uint64_t ones = 0;
  for (uint8_t b : s) ones += b;
  const double p1 = static_cast<double>(ones) / static_cast<double>(L), p0 = 1.0 - p1;
  const double pmin = std::min(p0, p1);
  int m = 0;
  for (int mm = 11; mm >= 2; --mm) {
    if (std::pow(pmin, mm) * static_cast<double>(L / static_cast<uint64_t>(mm)) >= 5.0) {
      m = mm;
      break;
    }
  }
  if (m == 0) return finish(0.0, 0);
  const uint64_t blocks = L / static_cast<uint64_t>(m);
  std::vector<uint64_t> observed(size_t(1) << m, 0);
  for (uint64_t b = 0; b < blocks; ++b) {
    uint32_t t = 0;
    for (int j = 0; j < m; ++j) t = (t << 1) | s[b * m + j];
    ++observed[t];
  }
  double T = 0;
  for (uint32_t t = 0; t < (1u << m); ++t) {
    int w = __builtin_popcount(t);
    double e = std::pow(p1, w) * std::pow(p0, m - w) * static_cast<double>(blocks);
    double diff = static_cast<double>(observed[t]) - e;
    T += diff * diff / e;
  }
  return finish(T, (1L << m) - 2);
}

ChiSquareResult goodness_of_fit_binary(const std::vector<uint8_t>& s) {
  const uint64_t L = s.size();
  uint64_t ones = 0;
  for (uint8_t b : s) ones += b;
  const double p = static_cast<double>(ones) / static_cast<double>(L);
  const uint64_t len = L / 10;
  // Fewer than 10 samples: ten empty blocks expect nothing (0/0), so no statistic.
  if (len == 0) return finish(0.0, 0);
  const double e0 = (1.0 - p) * static_cast<double>(len), e1 = p * static_cast<double>(len);
  double T = 0;
  for (uint64_t b = 0; b < 10; ++b) {
    uint64_t o1 = 0;
    for (uint64_t i = b * len; i < (b + 1) * len; ++i) o1 += s[i];
    double o0 = static_cast<double>(len - o1);
    T += (o0 - e0) * (o0 - e0) / e0 + (static_cast<double>(o1) - e1) * (static_cast<double>(o1) - e1) / e1;
  }
  return finish(T, 9);
}

}  // namespace

ChiSquareResult chi_square_independence(const std::vector<uint8_t>& s, int k) {
  if (k == 2) return independence_binary(s);
  const uint64_t L = s.size();
  const std::vector<double> p = reference_proportions(s, k);
  const double pairs = static_cast<double>(L / 2);
  std::vector<double> expected(static_cast<size_t>(k) * k);
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) expected[static_cast<size_t>(a) * k + b] = p[a] * p[b] * pairs;
  auto [bin_of, bin_exp] = chi_square_bins(expected);
  std::vector<uint64_t> observed(bin_exp.size(), 0);
  for (uint64_t i = 0; i + 1 < L; i += 2) ++observed[bin_of[static_cast<size_t>(s[i]) * k + s[i + 1]]];
  double T = 0;
  for (size_t b = 0; b < bin_exp.size(); ++b) {
    double diff = static_cast<double>(observed[b]) - bin_exp[b];
    T += diff * diff / bin_exp[b];
  }
  return finish(T, static_cast<long>(bin_exp.size()) - k);
}

ChiSquareResult chi_square_goodness_of_fit(const std::vector<uint8_t>& s, int k) {
  if (k == 2) return goodness_of_fit_binary(s);
  const uint64_t L = s.size();
  const std::vector<double> p = reference_proportions(s, k);
  const uint64_t len = L / 10;
  if (len == 0) return finish(0.0, 0);  // fewer than 10 samples: ten empty blocks, no statistic
  std::vector<double> expected(static_cast<size_t>(k));
  for (int i = 0; i < k; ++i) expected[i] = p[i] * static_cast<double>(len);
  auto [bin_of, bin_exp] = chi_square_bins(expected);
  double T = 0;
  for (uint64_t blk = 0; blk < 10; ++blk) {
    std::vector<uint64_t> observed(bin_exp.size(), 0);
    for (uint64_t i = blk * len; i < (blk + 1) * len; ++i) ++observed[bin_of[s[i]]];
    for (size_t b = 0; b < bin_exp.size(); ++b) {
      double diff = static_cast<double>(observed[b]) - bin_exp[b];
      T += diff * diff / bin_exp[b];
    }
  }
  return finish(T, 9L * (static_cast<long>(bin_exp.size()) - 1));
}

LrsResult longest_repeated_substring(const std::vector<uint8_t>& s, int k) {
  LrsResult r;
  const uint64_t L = s.size();
  long double p_col = 0;
  for (double p : reference_proportions(s, k)) p_col += static_cast<long double>(p) * p;
  r.p_col = p_col;
  if (p_col > 1.0L - LDBL_EPSILON) {
    r.trivially_passed = true;
    r.pr_x_ge_1 = 1;
    return r;
  }
  r.w = longest_repeat_length(s);
  const long double m = static_cast<long double>(L - r.w + 1);
  const long double pairs = m * (m - 1) / 2;
  r.pr_x_ge_1 = 1.0L - std::exp(pairs * std::log1p(-std::pow(p_col, static_cast<long double>(r.w))));
  return r;
}

}  // namespace ea
