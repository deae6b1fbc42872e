// The most common value, collision, Markov and compression estimates (SP 800-90B 6.3.1 to
// 6.3.4) as NIST ea_non_iid 1.1.8 computes them; the prediction bound the four predictors
// share; the names of the estimators.
#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "estimators/estimators.hpp"
#include "estimators/non_iid.hpp"

namespace ea {

namespace {
constexpr double kZalpha = 2.5758293035489008;  // the 99.5% point of the standard normal

using Kind = EstimateLine::Kind;

void line(Estimate& e, const char* label, Kind kind, long double value) { e.lines.push_back({label, kind, value}); }
void note(Estimate& e, const char* label) { e.lines.push_back({label, Kind::Note, 0}); }

// One Kahan step as the reference takes it (the compensation is never folded back in).
void kahan(double& sum, double& comp, double in) {
  const double y = in - comp;
  const double t = sum + y;
  comp = (t - sum) - y;
  sum = t;
}
}  // namespace

namespace {
// Each estimator's name in NIST's -v -v lines, our JSON key and its section, in enum order.
struct EstimatorNames {
  const char* nist;
  const char* key;
  const char* section;
};
constexpr EstimatorNames kEstimatorNames[kNonIidEstimators] = {
    {"Most Common Value Estimate", "mostCommonValue", "6.3.1"},
    {"Collision Estimate", "collision", "6.3.2"},
    {"Markov Estimate", "markov", "6.3.3"},
    {"Compression Estimate", "compression", "6.3.4"},
    {"t-Tuple Estimate", "tTuple", "6.3.5"},
    {"LRS Estimate", "lrs", "6.3.6"},
    {"MultiMCW Prediction Estimate", "multiMcw", "6.3.7"},
    {"Lag Prediction Estimate", "lag", "6.3.8"},
    {"MultiMMC Prediction Estimate", "multiMmc", "6.3.9"},
    {"LZ78Y Prediction Estimate", "lz78y", "6.3.10"},
};
}  // namespace

const char* estimator_nist_name(NonIidEstimator e) { return kEstimatorNames[static_cast<int>(e)].nist; }
const char* estimator_key(NonIidEstimator e) { return kEstimatorNames[static_cast<int>(e)].key; }
const char* estimator_section(NonIidEstimator e) { return kEstimatorNames[static_cast<int>(e)].section; }

bool close_enough(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return false;
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  double small = std::fabs(a), large = std::fabs(b);
  if (small > large) std::swap(small, large);
  const double diff = std::fabs(b - a);
  if (small < DBL_MIN || diff < DBL_MIN || std::isinf(diff) || large * DBL_EPSILON < DBL_MIN) return diff <= DBL_MIN;
  if (diff <= large * DBL_EPSILON) return true;
  if ((a < 0) != (b < 0)) return false;
  uint64_t bs = 0, bl = 0;
  std::memcpy(&bs, &small, sizeof bs);
  std::memcpy(&bl, &large, sizeof bl);
  return bl - bs <= 4;
}

// 6.3.1: the proportion of the most common value, bounded above at 99% (the IID track's
// most_common_value, with its values as lines).
Estimate most_common_value_estimate(const uint8_t* s, size_t n, int k, Interrupt interrupt) {
  Estimate e;
  e.which = NonIidEstimator::MostCommon;
  if (n < 2) {
    e.reason = "fewer than 2 samples";
    return e;
  }
  std::vector<uint64_t> count(static_cast<size_t>(std::max(k, 256)), 0);
  for (size_t at = 0; at < n; at += kInterruptStride) {
    throw_if_interrupted(interrupt);
    const size_t end = std::min(n, at + kInterruptStride);
    for (size_t i = at; i < end; ++i) ++count[s[i]];
  }
  const McvEstimate m = most_common_value(count, n);
  e.entropy = m.entropy;
  e.evaluated = true;
  line(e, "Mode count", Kind::Integer, static_cast<long double>(m.mode));
  line(e, "p-hat", Kind::Real, m.p_hat);
  line(e, "p_u", Kind::Real, m.p_u);
  line(e, "min entropy", Kind::Real, e.entropy);
  return e;
}

// 6.3.2: the mean time to the first repeat of a bit, solved in closed form for p (the
// reference's binary specialisation of the text's search).
Estimate collision_estimate(const uint8_t* bits, size_t n, Interrupt interrupt) {
  Estimate e;
  e.which = NonIidEstimator::Collision;
  uint64_t i = 0, v = 0;
  double squares = 0;
  while (n >= 1 && i < n - 1) {
    uint64_t t = 0;
    if ((bits[i] != 0) == (bits[i + 1] != 0)) {
      t = 2;
    } else if (i + 2 < n) {
      t = 3;
    } else {
      break;
    }
    throw_if_interrupted_at(interrupt, ++v);
    squares += static_cast<double>(t * t);
    i += t;
  }
  if (v < 2) {
    e.reason = "fewer than 2 collisions";
    return e;
  }
  const double x_bar = static_cast<double>(i) / static_cast<double>(v);
  // The reference's build fuses s - i * X-bar into one rounding (its outputs show it).
  const double sigma = std::sqrt(std::fma(-static_cast<double>(i), x_bar, squares) / static_cast<double>(v - 1));
  double x_prime = x_bar - kZalpha * sigma / std::sqrt(static_cast<double>(v));
  if (x_prime < 2.0) x_prime = 2.0;
  line(e, "v", Kind::Integer, static_cast<long double>(v));
  line(e, "Sum t_i", Kind::Integer, static_cast<long double>(i));
  line(e, "X-bar", Kind::Real, x_bar);
  line(e, "sigma-hat", Kind::Real, sigma);
  line(e, "X-bar'", Kind::Real, x_prime);
  double p = 0.5;
  if (x_prime < 2.5) {
    p = 0.5 + std::sqrt(1.25 - 0.5 * x_prime);
    e.entropy = -std::log2(p) + 0.0;  // + 0.0: a bound of 1 gives 0, not -0
    note(e, "Found p.");
  } else {
    e.entropy = 1.0;
    note(e, "Could Not Find p. Proceeding with the lower bound for p.");
  }
  e.evaluated = true;
  line(e, "p", Kind::Real, p);
  line(e, "min entropy", Kind::Real, e.entropy);
  return e;
}

// 6.3.3: the most likely 128-bit sequence under a first-order Markov model of the bits.
Estimate markov_estimate(const uint8_t* bits, size_t n, Interrupt interrupt) {
  Estimate e;
  e.which = NonIidEstimator::Markov;
  if (n < 2) {
    e.reason = "fewer than 2 samples";
    return e;
  }
  uint64_t c0 = 0, c00 = 0, c10 = 0;
  for (size_t at = 0; at + 1 < n; at += kInterruptStride) {
    throw_if_interrupted(interrupt);
    const size_t end = std::min(n - 1, at + kInterruptStride);
    for (size_t i = at; i < end; ++i) {
      const bool one = bits[i] != 0, next_one = bits[i + 1] != 0;
      if (!one) {
        ++c0;
        if (!next_one) ++c00;
      } else if (!next_one) {
        ++c10;
      }
    }
  }
  const uint64_t c1 = (n - 1) - c0;
  double p00 = 0, p01 = 0, p10 = 0, p11 = 0;
  if (c0 > 0) {
    p00 = static_cast<double>(c00) / static_cast<double>(c0);
    p01 = 1.0 - p00;
  }
  if (c1 > 0) {
    p10 = static_cast<double>(c10) / static_cast<double>(c1);
    p11 = 1.0 - p10;
  }
  if (bits[n - 1] == 0) ++c0;
  const double p0 = static_cast<double>(c0) / static_cast<double>(n);
  const double p1 = 1.0 - p0;
  double h = 128.0;
  auto take = [&h](bool ok, double value) {
    if (ok) h = std::min(h, value);
  };
  // The reference's build fuses each "- m * log2(x)" into the subtraction before it.
  const auto lg = [](double x) { return std::log2(x); };
  take(p00 > 0, std::fma(-127.0, lg(p00), -lg(p0)));
  take(p01 > 0 && p10 > 0, std::fma(-63.0, lg(p10), std::fma(-64.0, lg(p01), -lg(p0))));
  take(p01 > 0 && p11 > 0, std::fma(-126.0, lg(p11), -lg(p0) - lg(p01)));
  take(p10 > 0 && p00 > 0, std::fma(-126.0, lg(p00), -lg(p1) - lg(p10)));
  take(p10 > 0 && p01 > 0, std::fma(-63.0, lg(p01), std::fma(-64.0, lg(p10), -lg(p1))));
  take(p11 > 0, std::fma(-127.0, lg(p11), -lg(p1)));
  e.entropy = std::fmin(h / 128.0, 1.0);
  e.evaluated = true;
  line(e, "P_0", Kind::Real, p0);
  line(e, "P_1", Kind::Real, p1);
  line(e, "P_{0,0}", Kind::Real, p00);
  line(e, "P_{0,1}", Kind::Real, p01);
  line(e, "P_{1,0}", Kind::Real, p10);
  line(e, "P_{1,1}", Kind::Real, p11);
  line(e, "p-hat_max", Kind::Real, std::pow(2.0, -h));
  line(e, "min entropy", Kind::Real, e.entropy);
  return e;
}

namespace {

// log2l(i) for every i below size() (the same values as computing them each time: the
// bisection evaluates G about a hundred times), filled between the searches' passes and
// only read during them (by the helper threads too).
class Log2Table {
 public:
  long double operator()(uint64_t i) const {
    return i < values_.size() ? values_[i] : log2l(static_cast<long double>(i));
  }
  void fill_to(uint64_t end) {
    while (values_.size() < end) values_.push_back(log2l(static_cast<long double>(values_.size())));
  }

 private:
  std::vector<long double> values_;
};

struct GValue {
  double g = 0;
  uint64_t reached = 0;  // the largest i whose log2 the sums read (blocks where none is cut off)
};

// The compression estimate's expected statistic G(z) for `blocks` blocks of which the first
// `d` fill the dictionary, in the reference's mix of long double terms and Kahan-summed
// doubles (its sum stops once a term no longer counts).
GValue compression_g(double z, uint64_t blocks, uint64_t d, const Log2Table& log2_of) {
  const uint64_t v = blocks - d;
  const long double b_term = 1.0L - static_cast<long double>(z);
  long double bi = b_term;
  double ai = 0, ai_c = 0, f = 0, f_c = 0;
  for (uint64_t i = 2; i <= d; ++i) {
    kahan(ai, ai_c, static_cast<double>(log2_of(i) * bi));
    bi *= b_term;
  }
  const double ad1 = ai;
  bool truncated = false;
  uint64_t i = d + 1;
  for (; i < blocks; ++i) {
    const long double term = log2_of(i) * bi;
    kahan(ai, ai_c, static_cast<double>(term));
    const long double scaled = static_cast<long double>(blocks - i) * term;
    if (static_cast<double>(scaled) > 0.0) {
      kahan(f, f_c, static_cast<double>(scaled));
    } else {
      truncated = true;
      break;
    }
    bi *= b_term;
  }
  {  // the reference's build fuses this product into the Kahan step's subtraction
    const double y = std::fma(static_cast<double>(blocks - d), ad1, -f_c);
    const double t = f + y;
    f_c = (t - f) - y;
    f = t;
  }
  if (!truncated) kahan(ai, ai_c, static_cast<double>(log2l(static_cast<long double>(blocks)) * bi));
  return {((1.0 / static_cast<double>(v)) * z) * std::fma(z, f, ai - ad1), i};
}

// The expected statistic at p, 63 G((1 - p) / 63) + G(p) fused as the reference's build
// fuses it, kept for every p evaluated. ahead() evaluates a bracket's midpoint and the
// midpoints of `depth` - 1 levels below it at once, their sums shared by `threads` threads
// (the caller's and helpers of its own: the OpenMP team's queue of tasks is the other
// estimates'): the search's values unchanged, in a depth-th of its passes.
class Expectation {
 public:
  Expectation(uint64_t blocks, uint64_t d, int threads, Interrupt interrupt)
      : blocks_(blocks), d_(d), threads_(std::max(1, threads)), interrupt_(interrupt) {
    depth_ = threads_ >= 8 ? 3 : threads_ >= 4 ? 2 : 1;  // (2^depth - 1 points, two sums each)
  }

  double operator()(double p) {
    for (const auto& k : known_) {
      if (k.first == p) return k.second;
    }
    evaluate({p});
    return known_.back().second;
  }

  // Before the search: `low`, and the first `depth` levels of its midpoints in [low, high].
  void first(double low, double high) {
    std::vector<double> ps{low};
    below(low, (low + high) / 2.0, high, depth_, ps);
    evaluate(ps);
  }

  void ahead(double lb, double p, double hb) {
    for (const auto& k : known_) {
      if (k.first == p) return;
    }
    std::vector<double> ps;
    below(lb, p, hb, depth_, ps);
    evaluate(ps);
  }

 private:
  // p, then the points the search takes next from [lb, hb] (levels - 1 halvings deep).
  static void below(double lb, double p, double hb, int levels, std::vector<double>& out) {
    out.push_back(p);
    if (levels <= 1) return;
    below(lb, (lb + p) / 2.0, p, levels - 1, out);
    below(p, (p + hb) / 2.0, hb, levels - 1, out);
  }

  struct Sum {
    double z;
    size_t point;
    bool wide;  // G((1 - p) / 63), else G(p)
    GValue value;
  };

  // Every point's two sums, the longest (the smallest z: its terms fade slowest) first.
  void evaluate(const std::vector<double>& ps) {
    throw_if_interrupted(interrupt_);  // (each sum passes over the blocks)
    std::vector<Sum> sums;
    for (size_t k = 0; k < ps.size(); ++k) {
      sums.push_back({(1.0 - ps[k]) / 63.0, k, true, {}});
      sums.push_back({ps[k], k, false, {}});
    }
    std::stable_sort(sums.begin(), sums.end(), [](const Sum& a, const Sum& b) { return a.z < b.z; });
    std::atomic<size_t> next{0};
    auto work = [this, &sums, &next] {
      for (size_t j; (j = next.fetch_add(1)) < sums.size();) sums[j].value = compression_g(sums[j].z, blocks_, d_, log2_of_);
    };
    {
      struct Helpers {  // joined however this block ends
        std::vector<std::thread> t;
        ~Helpers() {
          for (auto& x : t) x.join();
        }
      } helpers;
      for (size_t h = 1; h < std::min(static_cast<size_t>(threads_), sums.size()); ++h) {
        try {
          helpers.t.emplace_back(work);
        } catch (const std::system_error&) {  // (no thread to be had: fewer take the sums)
          break;
        }
      }
      work();
    }
    std::vector<double> wide(ps.size()), narrow(ps.size());
    uint64_t reached = 0;
    for (const Sum& x : sums) {
      (x.wide ? wide : narrow)[x.point] = x.value.g;
      reached = std::max(reached, x.value.reached);
    }
    for (size_t k = 0; k < ps.size(); ++k) known_.emplace_back(ps[k], std::fma(63.0, wide[k], narrow[k]));
    log2_of_.fill_to(reached + 1);
  }

  uint64_t blocks_, d_;
  int threads_, depth_ = 1;
  Interrupt interrupt_;
  Log2Table log2_of_;
  std::vector<std::pair<double, double>> known_;
};

}  // namespace

// 6.3.4: Maurer's universal statistic over 6-bit blocks, a dictionary of 1000 blocks, and
// the p whose expected statistic is its lower bound.
Estimate compression_estimate(const uint8_t* bits, size_t n, Interrupt interrupt, int threads) {
  Estimate e;
  e.which = NonIidEstimator::Compression;
  constexpr uint64_t kB = 6, kD = 1000;
  const uint64_t blocks = n / kB;
  if (blocks <= kD) {
    e.reason = "too few samples (more than 1000 blocks of 6 bits are needed)";
    e.unlabelled = "\t*** Warning: not enough samples to run compression test (need more than 1000) ***";
    return e;
  }
  std::vector<uint64_t> last(64, 0);
  auto block = [bits](uint64_t k) {
    unsigned x = 0;
    for (uint64_t j = 0; j < kB; ++j) x = (x << 1) | (bits[k * kB + j] & 1u);
    return x;
  };
  for (uint64_t k = 0; k < kD; ++k) last[block(k)] = k + 1;
  double x = 0, x_c = 0, sq = 0, sq_c = 0;
  for (uint64_t k = kD; k < blocks; ++k) {
    throw_if_interrupted_at(interrupt, k);
    const unsigned b = block(k);
    const double l = std::log2(static_cast<double>((k + 1) - last[b]));
    kahan(x, x_c, l);
    kahan(sq, sq_c, l * l);
    last[b] = k + 1;
  }
  const uint64_t v = blocks - kD;
  const double x_bar = x / static_cast<double>(v);
  // The reference's build fuses S/(v-1) - X-bar^2 into one rounding (its outputs show it).
  const double sigma = 0.5907 * std::sqrt(std::fma(-x_bar, x_bar, sq / (static_cast<double>(v) - 1.0)));
  const double x_prime = x_bar - (kZalpha * sigma) / std::sqrt(static_cast<double>(v));
  line(e, "X-bar", Kind::Real, x_bar);
  line(e, "sigma-hat", Kind::Real, sigma);
  line(e, "X-bar'", Kind::Real, x_prime);
  constexpr double kLow = 1.0 / 64.0;
  Expectation expected(blocks, kD, threads, interrupt);
  expected.first(kLow, 1.0);
  double p = -1;
  if (expected(kLow) > x_prime) {
    p = decreasing_root([&expected](double q) { return expected(q); }, x_prime, kLow, 1.0, kLow,
                        [&expected](double lb, double q, double hb) { expected.ahead(lb, q, hb); });
  }
  if (p > kLow) {
    e.entropy = -std::log2(p) / static_cast<double>(kB) + 0.0;  // (0, not -0)
    note(e, "Found p.");
  } else {
    p = kLow;
    e.entropy = 1.0;
    note(e, "Could Not Find p. Proceeding with the lower bound for p.");
  }
  e.evaluated = true;
  line(e, "p", Kind::Real, p);
  line(e, "min entropy", Kind::Real, e.entropy);
  return e;
}

namespace {
// The probability that the longest run of correct predictions among N is shorter than r
// when each is right with probability p, as its logarithm minus log(0.99) is solved for.
double run_probability_log(double p, uint64_t r, uint64_t n) {
  const long double q = 1.0L - p;
  long double x = 1.0L, xlast = 0.0L;
  const long double lp = p;
  for (int i = 0; i <= 65 && (x - xlast) > LDBL_EPSILON * x; ++i) {
    xlast = x;
    x = 1.0L + q * powl(lp, static_cast<long double>(r)) * powl(x, static_cast<long double>(r + 1));
  }
  return static_cast<double>(logl(1.0L - lp * x) -
                             logl((static_cast<long double>(r + 1) - static_cast<long double>(r) * x) * q) -
                             static_cast<long double>(n + 1) * logl(x));
}
}  // namespace

void prediction_estimate(Estimate& e, uint64_t correct, uint64_t predictions, uint64_t longest_run, int k) {
  const double n = static_cast<double>(predictions);
  const double p_global = static_cast<double>(correct) / n;
  // The reference's build fuses p + Z * sqrt(...) into one rounding (its outputs show it).
  const double p_global_prime =
      p_global > 0 ? std::min(1.0, std::fma(kZalpha, std::sqrt((p_global * (1.0 - p_global)) / (n - 1.0)), p_global))
                   : 1.0 - std::pow(0.01, 1.0 / n);
  double best = std::fmax(1.0 / static_cast<double>(k), p_global_prime);
  const uint64_t r = longest_run + 1;
  double p_local = -1;
  auto f = [r, predictions](double p) { return run_probability_log(p, r, predictions); };
  if (best < 1.0 && f(best) > std::log(0.99)) {
    p_local = decreasing_root(f, std::log(0.99), best, 1.0, 1.0);
    best = std::fmax(best, p_local);
  }
  e.entropy = -std::log2(best) + 0.0;  // + 0.0: a bound of 1 gives 0, not -0
  e.evaluated = true;
  line(e, "C", Kind::Integer, static_cast<long double>(correct));
  line(e, "r", Kind::Integer, static_cast<long double>(r));
  line(e, "N", Kind::Integer, static_cast<long double>(predictions));
  line(e, "P_global", Kind::Real, p_global);
  line(e, "P_global'", Kind::Real, p_global_prime);
  if (p_local >= 0) {
    line(e, "P_local", Kind::Real, p_local);
  } else {
    note(e, "P_local can't change the result.");
  }
  line(e, "min entropy", Kind::Real, e.entropy);
}

}  // namespace ea
