// SP 800-90B 4.4's cutoffs with GMP and MPFR. Every comparison that decides a cutoff is
// exact (integer H: rationals; H not an integer: 512-bit MPFR, refusing to decide, with
// Error{Internal}, a value within 2^-460 of its bound, which a rational alpha cannot reach).
#include "health/health.hpp"

#include <gmp.h>
#include <mpfr.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/numbers.hpp"

namespace ea {

namespace {

constexpr mpfr_prec_t kPrecision = 512;

struct Q {
  mpq_t v;
  Q() { mpq_init(v); }
  ~Q() { mpq_clear(v); }
  Q(const Q&) = delete;
  Q& operator=(const Q&) = delete;
};
struct Z {
  mpz_t v;
  Z() { mpz_init(v); }
  ~Z() { mpz_clear(v); }
  Z(Z&& o) noexcept {
    mpz_init(v);
    mpz_swap(v, o.v);
  }
  Z(const Z&) = delete;
  Z& operator=(const Z&) = delete;
};
struct F {
  mpfr_t v;
  explicit F(mpfr_prec_t p = kPrecision) { mpfr_init2(v, p); }
  ~F() { mpfr_clear(v); }
  F(F&& o) noexcept {
    mpfr_init2(v, kPrecision);
    mpfr_swap(v, o.v);
  }
  F(const F&) = delete;
  F& operator=(const F&) = delete;
};

[[noreturn]] void refuse(const std::string& m) { throw Error(ErrorKind::Usage, m); }

// `v` as the shortest decimal that reads back to it (0.3 -> 3/10), exactly.
void decimal_of(double v, mpq_t out) {
  char buf[40];
  int digits = 1;
  for (; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  // buf is D.DDDe[+-]XX: the digits as an integer, scaled by 10^(XX - digits + 1).
  std::string mantissa;
  const char* e = buf;
  for (; *e && *e != 'e'; ++e) {
    if (*e >= '0' && *e <= '9') mantissa += *e;
  }
  const long exponent = std::strtol(e + 1, nullptr, 10) - (static_cast<long>(mantissa.size()) - 1);
  Z num, scale;
  mpz_set_str(num.v, mantissa.c_str(), 10);
  mpz_ui_pow_ui(scale.v, 10, static_cast<unsigned long>(std::labs(exponent)));
  if (exponent >= 0) {
    mpz_mul(num.v, num.v, scale.v);
    mpz_set_ui(scale.v, 1);
  }
  mpq_set_num(out, num.v);
  mpq_set_den(out, scale.v);
  mpq_canonicalize(out);
}

// alpha as a rational: a power of two as itself (2^-40, whose shortest decimal
// 9.094947017729282e-13 is not 2^-40), any other value as its shortest decimal.
void alpha_of(double alpha, mpq_t out) {
  int e = 0;
  if (std::frexp(alpha, &e) == 0.5) {
    mpq_set_ui(out, 1, 1);
    mpq_div_2exp(out, out, static_cast<mp_bitcnt_t>(1 - e));
    return;
  }
  decimal_of(alpha, out);
}

// Whether a = 2^-n for a whole n (then `n`).
bool negative_power_of_two(const mpq_t a, unsigned long& n) {
  if (mpz_cmp_ui(mpq_numref(a), 1) != 0) return false;
  const mpz_srcptr d = mpq_denref(a);
  n = mpz_scan1(d, 0);
  return mpz_popcount(d) == 1;
}

double to_double(const mpfr_t x) { return mpfr_get_d(x, MPFR_RNDN); }

// P(Bin(n, 2^-h) >= c) for every c in 0..n+1. Integer h: exact, as sums of integers over
// 2^(h n); otherwise in MPFR at kPrecision.
class Tail {
 public:
  Tail(uint32_t n, const mpq_t h) : n_(n) {
    exact_ = mpz_cmp_ui(mpq_denref(h), 1) == 0 && mpz_cmp_ui(mpq_numref(h), 64) <= 0;
    if (exact_) {
      h_bits_ = mpz_get_ui(mpq_numref(h));
      sums_exact();
    } else {
      sums_mpfr(h);
    }
  }
  // Whether P(X >= c) <= alpha, decided exactly.
  bool at_most(uint64_t c, const mpq_t alpha) const {
    if (c > n_) return true;
    if (exact_) {  // S / 2^(h n) <= an / ad  <=>  S ad <= an 2^(h n)
      Z left, right;
      mpz_mul(left.v, exact_sums_[c].v, mpq_denref(alpha));
      mpz_mul_2exp(right.v, mpq_numref(alpha), h_bits_ * n_);
      return mpz_cmp(left.v, right.v) <= 0;
    }
    F a, diff;
    mpfr_set_q(a.v, alpha, MPFR_RNDN);
    mpfr_sub(diff.v, sums_[c].v, a.v, MPFR_RNDN);
    mpfr_abs(diff.v, diff.v, MPFR_RNDN);
    mpfr_mul_2si(a.v, a.v, -460, MPFR_RNDN);
    if (mpfr_cmp(diff.v, a.v) <= 0) {
      throw Error(ErrorKind::Internal, "a binomial tail within 2^-460 of alpha: the cutoff cannot be decided");
    }
    return mpfr_cmp_q(sums_[c].v, alpha) <= 0;
  }
  double value(uint64_t c) const {
    if (c > n_) return 0;
    F x;
    if (exact_) {
      mpfr_set_z(x.v, exact_sums_[c].v, MPFR_RNDN);
      mpfr_mul_2si(x.v, x.v, -static_cast<long>(h_bits_ * n_), MPFR_RNDN);
    } else {
      mpfr_set(x.v, sums_[c].v, MPFR_RNDN);
    }
    return to_double(x.v);
  }
  // The smallest c with P(X >= c) <= alpha (n + 1 when none of 0..n has it).
  uint64_t least_at_most(const mpq_t alpha) const {
    uint64_t c = 0;
    while (!at_most(c, alpha)) ++c;
    return c;
  }

 private:
  void sums_exact() {
    // S(c) = sum_{k >= c} C(n, k) (2^h - 1)^(n - k), from k = n down.
    Z binom, odds, term;
    mpz_set_ui(odds.v, 1);
    mpz_mul_2exp(odds.v, odds.v, h_bits_);
    mpz_sub_ui(odds.v, odds.v, 1);
    exact_sums_.resize(n_ + 1);
    for (uint32_t k = n_ + 1; k-- > 0;) {
      mpz_bin_uiui(binom.v, n_, k);
      mpz_pow_ui(term.v, odds.v, n_ - k);
      mpz_mul(term.v, term.v, binom.v);
      if (k < n_) mpz_add(term.v, term.v, exact_sums_[k + 1].v);
      mpz_set(exact_sums_[k].v, term.v);
    }
  }
  void sums_mpfr(const mpq_t h) {
    F p, q, t, pk;
    Z binom;
    mpfr_set_q(p.v, h, MPFR_RNDN);
    mpfr_neg(p.v, p.v, MPFR_RNDN);
    mpfr_exp2(p.v, p.v, MPFR_RNDN);  // 2^-h
    mpfr_ui_sub(q.v, 1, p.v, MPFR_RNDN);
    sums_.resize(n_ + 1);
    for (uint32_t k = n_ + 1; k-- > 0;) {
      mpz_bin_uiui(binom.v, n_, k);
      mpfr_pow_ui(pk.v, p.v, k, MPFR_RNDN);
      mpfr_pow_ui(t.v, q.v, n_ - k, MPFR_RNDN);
      mpfr_mul(t.v, t.v, pk.v, MPFR_RNDN);
      mpfr_mul_z(t.v, t.v, binom.v, MPFR_RNDN);
      if (k < n_) mpfr_add(t.v, t.v, sums_[k + 1].v, MPFR_RNDN);
      mpfr_set(sums_[k].v, t.v, MPFR_RNDN);
    }
  }

  uint32_t n_;
  bool exact_ = false;
  unsigned long h_bits_ = 0;
  std::vector<Z> exact_sums_;
  std::vector<F> sums_;
};

// 2^(-e) as a double, e >= 0 rational.
double power_of_half(const mpq_t e) {
  F x;
  mpfr_set_q(x.v, e, MPFR_RNDN);
  mpfr_neg(x.v, x.v, MPFR_RNDN);
  mpfr_exp2(x.v, x.v, MPFR_RNDN);
  return to_double(x.v);
}

// C = 1 + ceil(-log2(alpha) / h): exact for alpha = 2^-N (a rational quotient), else in MPFR
// (-log2 of a rational alpha that is no power of two is irrational: never a whole quotient).
uint64_t rct_cutoff(const mpq_t h, const mpq_t alpha) {
  unsigned long n = 0;
  if (negative_power_of_two(alpha, n)) {
    Q x;
    mpq_set_ui(x.v, n, 1);
    mpq_div(x.v, x.v, h);
    Z c;
    mpz_cdiv_q(c.v, mpq_numref(x.v), mpq_denref(x.v));
    if (mpz_cmp_d(c.v, kMaxRctCutoff - 1) > 0) refuse("the RCT's cutoff would exceed 2^53 samples");
    return mpz_get_ui(c.v) + 1;
  }
  F x, r;
  mpfr_set_q(x.v, alpha, MPFR_RNDN);
  mpfr_log2(x.v, x.v, MPFR_RNDN);
  mpfr_neg(x.v, x.v, MPFR_RNDN);
  mpfr_div_q(x.v, x.v, h, MPFR_RNDN);
  if (mpfr_cmp_d(x.v, kMaxRctCutoff - 1) > 0) refuse("the RCT's cutoff would exceed 2^53 samples");
  mpfr_rint(r.v, x.v, MPFR_RNDN);
  mpfr_sub(r.v, r.v, x.v, MPFR_RNDN);
  if (mpfr_zero_p(r.v) || mpfr_get_exp(r.v) < -400) {
    throw Error(ErrorKind::Internal, "-log2(alpha)/H within 2^-400 of a whole number: the RCT cutoff cannot be decided");
  }
  mpfr_ceil(x.v, x.v);
  return mpfr_get_ui(x.v, MPFR_RNDN) + 1;
}

RctCutoffs rct_of(const mpq_t h, const mpq_t alpha) {
  RctCutoffs r;
  r.cutoff = rct_cutoff(h, alpha);
  r.stuck_samples = r.cutoff;
  Q e;
  mpq_set_ui(e.v, r.cutoff - 1, 1);
  mpq_mul(e.v, e.v, h);
  r.false_positive = power_of_half(e.v);
  mpq_div_2exp(e.v, e.v, 1);
  r.detect_half_entropy = power_of_half(e.v);
  return r;
}

AptCutoffs apt_of(const mpq_t h, const mpq_t alpha, bool binary) {
  AptCutoffs a;
  a.window = binary ? kAptWindowBinary : kAptWindow;
  const Tail whole(a.window, h), after_first(a.window - 1, h);
  a.cutoff = whole.least_at_most(alpha);
  a.false_positive = whole.value(a.cutoff);
  a.false_positive_first_counted = a.cutoff >= 1 ? after_first.value(a.cutoff - 1) : 1;
  a.cutoff_corrected = after_first.least_at_most(alpha) + 1;
  a.false_positive_corrected = after_first.value(a.cutoff_corrected - 1);
  a.stuck_samples = a.cutoff;
  a.stuck_samples_worst = a.window - 1 + a.cutoff;
  Q half;
  mpq_div_2exp(half.v, h, 1);
  a.detect_half_entropy = Tail(a.window, half.v).value(a.cutoff);
  return a;
}

std::string number(double v) { return shortest_number(v); }

}  // namespace

HealthCutoffs health_cutoffs(double h, double alpha, bool binary) {
  const double most = binary ? 1 : 8;
  if (!std::isnormal(h) || h < 0 || h > most) {
    refuse("H = " + number(h) + ": the claimed min-entropy must be greater than 0 and at most " + number(most) +
           " bits per sample" + (binary ? " (a binary source)" : ""));
  }
  if (!std::isnormal(alpha) || alpha <= 0 || alpha >= 1) {
    refuse("alpha = " + number(alpha) + ": the false-positive rate must be greater than 0 and less than 1");
  }
  Q hq, aq;
  decimal_of(h, hq.v);
  alpha_of(alpha, aq.v);
  HealthCutoffs c;
  c.h = h;
  c.alpha = alpha;
  c.binary = binary;
  c.rct = rct_of(hq.v, aq.v);
  c.apt = apt_of(hq.v, aq.v, binary);
  mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
  return c;
}

double binomial_tail(uint32_t n, double h, uint64_t c) {
  Q hq;
  decimal_of(h, hq.v);
  const double v = Tail(n, hq.v).value(c);
  mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
  return v;
}

}  // namespace ea
