// The health tests' Monte Carlo check: Philox draws (a stream per chunk), the scans of
// health/simulate_chunk.hpp, the exact expected counts in 256-bit MPFR and Garwood's Poisson interval.
#include "health/simulate.hpp"

#include <mpfr.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/error.hpp"
#include "health/simulate_chunk.hpp"

namespace ea {

namespace {

constexpr mpfr_prec_t kBits = 256;

struct M {
  mpfr_t v;
  M() { mpfr_init2(v, kBits); }
  ~M() { mpfr_clear(v); }
  M(const M&) = delete;
  M& operator=(const M&) = delete;
};

// T = 2^-h 2^64, rounded (the source's p is T / 2^64).
uint64_t threshold_of(double h) {
  const long double t = std::nearbyintl(std::ldexp(std::exp2(-static_cast<long double>(h)), 64));
  if (t >= 0x1p64L) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(t);
}

// P(Bin(n, p) >= c) in MPFR.
void binomial_tail(uint32_t n, const mpfr_t p, int64_t c, mpfr_t out) {
  if (c <= 0) {
    mpfr_set_ui(out, 1, MPFR_RNDN);
    return;
  }
  mpfr_set_ui(out, 0, MPFR_RNDN);
  M q, term, pk;
  mpfr_ui_sub(q.v, 1, p, MPFR_RNDN);
  mpz_t binom;
  mpz_init(binom);
  for (int64_t k = c; k <= static_cast<int64_t>(n); ++k) {
    mpz_bin_uiui(binom, n, static_cast<unsigned long>(k));
    mpfr_pow_ui(pk.v, p, static_cast<unsigned long>(k), MPFR_RNDN);
    mpfr_pow_ui(term.v, q.v, n - static_cast<unsigned long>(k), MPFR_RNDN);
    mpfr_mul(term.v, term.v, pk.v, MPFR_RNDN);
    mpfr_mul_z(term.v, term.v, binom, MPFR_RNDN);
    mpfr_add(out, out, term.v, MPFR_RNDN);
  }
  mpz_clear(binom);
}

// The source's p = t / 2^64 and q = (1 - p) / (k - 1).
void source_probabilities(uint64_t t, uint32_t k, mpfr_t p, mpfr_t q) {
  mpfr_set_ui(p, static_cast<unsigned long>(t >> 32), MPFR_RNDN);
  mpfr_mul_2ui(p, p, 32, MPFR_RNDN);
  mpfr_add_ui(p, p, static_cast<unsigned long>(t & 0xffffffffu), MPFR_RNDN);
  mpfr_mul_2si(p, p, -64, MPFR_RNDN);
  mpfr_ui_sub(q, 1, p, MPFR_RNDN);
  mpfr_div_ui(q, q, k - 1, MPFR_RNDN);
}

// sum_i p_i^c and sum_i p_i^c (1 - p_i) over the k values (p once, q k - 1 times).
void run_sums(const mpfr_t p, const mpfr_t q, uint32_t k, uint64_t c, mpfr_t all_equal, mpfr_t then_differs) {
  M pc, qc, x;
  mpfr_pow_ui(pc.v, p, c, MPFR_RNDN);
  mpfr_pow_ui(qc.v, q, c, MPFR_RNDN);
  mpfr_mul_ui(x.v, qc.v, k - 1, MPFR_RNDN);
  mpfr_add(all_equal, pc.v, x.v, MPFR_RNDN);
  mpfr_ui_sub(x.v, 1, p, MPFR_RNDN);
  mpfr_mul(pc.v, pc.v, x.v, MPFR_RNDN);
  mpfr_ui_sub(x.v, 1, q, MPFR_RNDN);
  mpfr_mul(qc.v, qc.v, x.v, MPFR_RNDN);
  mpfr_mul_ui(qc.v, qc.v, k - 1, MPFR_RNDN);
  mpfr_add(then_differs, pc.v, qc.v, MPFR_RNDN);
}

// The RCT's expected failures in one chunk of `n` samples: a run reaching c at sample c - 1
// (the first c equal) or at sample i >= c (c equal after one that differs).
void rct_expected(const mpfr_t all_equal, const mpfr_t then_differs, uint64_t n, uint64_t c, mpfr_t out) {
  if (n < c) {
    mpfr_set_ui(out, 0, MPFR_RNDN);
    return;
  }
  mpfr_mul_d(out, then_differs, static_cast<double>(n - c), MPFR_RNDN);
  mpfr_add(out, out, all_equal, MPFR_RNDN);
}

void fill_rate(SimulatedRate& r, uint64_t trials, uint64_t failures, double expected_failures, double stationary) {
  r.trials = trials;
  r.failures = failures;
  r.observed = trials ? static_cast<double>(failures) / static_cast<double>(trials) : 0;
  double lo = 0, hi = 0;
  poisson_interval99(failures, lo, hi);
  // (A trial fails at most once, so a rate is at most 1: Garwood's bound on the count, 5.3 for
  // none, would read "[0, 2.649] per window" over two windows.)
  r.low = trials ? std::min(1.0, lo / static_cast<double>(trials)) : 0;
  r.high = trials ? std::min(1.0, hi / static_cast<double>(trials)) : 0;
  r.expected_failures = expected_failures;
  r.expected = trials ? expected_failures / static_cast<double>(trials) : 0;
  r.stationary = stationary;
}

// The exact expectations of both tests for the simulated source and chunks.
void expectations(const HealthCutoffs& c, HealthSimulation& s, uint64_t t, uint64_t rct_failures, uint64_t apt_failures) {
  M p, q, all_equal, then_differs, e, last, tail;
  source_probabilities(t, s.alphabet, p.v, q.v);
  s.p_max = mpfr_get_d(p.v, MPFR_RNDN);
  s.p_other = mpfr_get_d(q.v, MPFR_RNDN);
  const uint64_t C = c.rct.cutoff;
  run_sums(p.v, q.v, s.alphabet, C, all_equal.v, then_differs.v);
  const uint64_t full = s.samples / s.chunk, rest = s.samples % s.chunk;
  rct_expected(all_equal.v, then_differs.v, s.chunk, C, e.v);
  mpfr_mul_ui(e.v, e.v, full, MPFR_RNDN);
  rct_expected(all_equal.v, then_differs.v, rest, C, last.v);
  mpfr_add(e.v, e.v, last.v, MPFR_RNDN);
  fill_rate(s.rct, s.samples, rct_failures, mpfr_get_d(e.v, MPFR_RNDN), mpfr_get_d(then_differs.v, MPFR_RNDN));
  // APT: a window fails when its first sample's value recurs C - 1 times among the W - 1 others.
  const uint32_t w = c.apt.window;
  const int64_t need = static_cast<int64_t>(c.apt.cutoff) - 1;
  binomial_tail(w - 1, p.v, need, tail.v);
  mpfr_mul(e.v, tail.v, p.v, MPFR_RNDN);
  binomial_tail(w - 1, q.v, need, tail.v);
  mpfr_mul(tail.v, tail.v, q.v, MPFR_RNDN);
  mpfr_mul_ui(tail.v, tail.v, s.alphabet - 1, MPFR_RNDN);
  mpfr_add(e.v, e.v, tail.v, MPFR_RNDN);
  const double per_window = mpfr_get_d(e.v, MPFR_RNDN);
  const uint64_t windows = s.samples / w;
  fill_rate(s.apt, windows, apt_failures, per_window * static_cast<double>(windows), per_window);
  mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
}

// The lower regularized gamma function P(a, x), a > 0 (series below a + 1, Lentz's continued
// fraction above), in long double.
long double gamma_p(long double a, long double x) {
  if (x <= 0) return 0;
  const long double log_front = -x + a * std::log(x) - std::lgamma(a);
  const long double eps = 1e-18L;
  if (x < a + 1) {
    long double ap = a, del = 1 / a, sum = del;
    for (int n = 0; n < 100000000 && std::fabs(del) > std::fabs(sum) * eps; ++n) {
      ap += 1;
      del *= x / ap;
      sum += del;
    }
    return sum * std::exp(log_front);
  }
  const long double tiny = 1e-4000L;
  long double b = x + 1 - a, cf = 1 / tiny, d = 1 / b, h = d;
  for (long double i = 1; i < 1e8L; ++i) {
    const long double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    cf = b + an / cf;
    if (std::fabs(cf) < tiny) cf = tiny;
    d = 1 / d;
    const long double del = d * cf;
    h *= del;
    if (std::fabs(del - 1) < eps) break;
  }
  return 1 - std::exp(log_front) * h;
}

// The mean m in [lo, hi] with f(m) = target, f increasing (bisection to the double's precision).
template <class F>
double solve_increasing(F f, long double target, double lo, double hi) {
  for (int i = 0; i < 400 && lo < hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (f(mid) < target ? lo : hi) = mid;
  }
  return lo + (hi - lo) / 2;
}

}  // namespace

void poisson_interval99(uint64_t count, double& low, double& high) {
  const long double x = static_cast<long double>(count);
  // P(X >= x | m) = P(x, m); P(X <= x | m) = 1 - P(x + 1, m).
  low = count == 0 ? 0 : solve_increasing([x](double m) { return gamma_p(x, m); }, 0.005L, 0, static_cast<double>(x));
  double top = static_cast<double>(x) + 10 + 10 * std::sqrt(static_cast<double>(x) + 1);
  while (gamma_p(x + 1, top) < 0.995L) top *= 2;
  high = solve_increasing([x](double m) { return gamma_p(x + 1, m); }, 0.995L, static_cast<double>(x), top);
}

SimulatedSourceDraw simulated_source(const HealthCutoffs& c, int bits) {
  SimulatedSourceDraw src;
  src.threshold = threshold_of(c.h);
  src.alphabet = bits == 1 ? 2 : 1u << (bits > 0 ? bits : 8);
  return src;
}

HealthSimulation health_simulation_layout(const HealthCutoffs& c, int bits, const HealthSimulationSpec& spec) {
  if (spec.samples == 0) throw Error(ErrorKind::Usage, "the simulation needs at least one sample");
  if (spec.chunk == 0 || spec.chunk % kAptWindowBinary != 0) {
    throw Error(ErrorKind::Usage, "the simulation's chunk must be a positive multiple of 1024 samples");
  }
  HealthSimulation s;
  const uint32_t w = c.apt.window;
  s.samples = (spec.samples + w - 1) / w * w;
  s.seed = spec.seed;
  s.chunk = spec.chunk;
  s.chunks = (s.samples + s.chunk - 1) / s.chunk;
  s.alphabet = simulated_source(c, bits).alphabet;
  return s;
}

HealthSimulation health_simulation_result(const HealthCutoffs& c, int bits, const HealthSimulationSpec& spec,
                                          uint64_t rct_failures, uint64_t apt_failures) {
  HealthSimulation s = health_simulation_layout(c, bits, spec);
  expectations(c, s, simulated_source(c, bits).threshold, rct_failures, apt_failures);
  return s;
}

HealthSimulation simulate_health(const HealthCutoffs& c, int bits, const HealthSimulationSpec& spec) {
  const HealthSimulation s = health_simulation_layout(c, bits, spec);
  const SimulatedSourceDraw src = simulated_source(c, bits);
  uint64_t rct_failures = 0, apt_failures = 0;
#pragma omp parallel for num_threads(std::max(1, spec.threads)) schedule(dynamic, 1) reduction(+ : rct_failures, apt_failures)
  for (int64_t j = 0; j < static_cast<int64_t>(s.chunks); ++j) {
    if (spec.interrupt && spec.interrupt->load()) continue;
    const uint64_t from = static_cast<uint64_t>(j) * s.chunk;
    const ChunkFailures f = simulate_chunk(s.seed, static_cast<uint64_t>(j), std::min(s.chunk, s.samples - from), src,
                                           c.rct.cutoff, c.apt.window, c.apt.cutoff);
    rct_failures += f.rct;
    apt_failures += f.apt;
  }
  if (spec.interrupt && spec.interrupt->load()) throw Error(ErrorKind::Interrupted, "interrupted");
  return health_simulation_result(c, bits, spec, rct_failures, apt_failures);
}

}  // namespace ea
