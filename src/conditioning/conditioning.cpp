// SP 800-90B 3.1.5 with MPFR, step by step as NIST ea_conditioning 1.1.8 takes them (the
// rounding direction of each step decides the last printed digits: docs/validation.md).
#include "conditioning/conditioning.hpp"

#include <mpfr.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cfenv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <system_error>
#include <thread>

#include "common/error.hpp"
#include "common/numbers.hpp"

namespace ea {

namespace {

// Each size is at most this many bits: the computation holds numbers of twice the largest.
constexpr uint32_t kMaxBits = 1u << 24;
// Attempts double the precision; past this the inputs are beyond any real component.
constexpr long kMaxPrecision = 1L << 28;

// An MPFR number of the attempt's precision, cleared however the attempt ends.
class Real {
 public:
  explicit Real(long precision) { mpfr_init2(v_, precision); }
  ~Real() { mpfr_clear(v_); }
  Real(const Real&) = delete;
  Real& operator=(const Real&) = delete;
  mpfr_ptr operator*() { return v_; }

 private:
  mpfr_t v_;
};

// The rounding mode of the C library (strtold, printf) toward zero while in scope.
class TowardZero {
 public:
  TowardZero() : saved_(std::fegetround()) { std::fesetround(FE_TOWARDZERO); }
  ~TowardZero() { std::fesetround(saved_); }
  TowardZero(const TowardZero&) = delete;
  TowardZero& operator=(const TowardZero&) = delete;

 private:
  int saved_;
};

// -log2(1 - v / max), truncated to a long double.
long double epsilon_exponent(mpfr_ptr v, mpfr_ptr max, long precision, Interrupt interrupt) {
  Real ln2(precision), r(precision), o(precision);
  mpfr_const_log2(*ln2, MPFR_RNDU);
  mpfr_set(*r, v, MPFR_RNDU);
  mpfr_neg(*r, *r, MPFR_RNDD);
  mpfr_div(*r, *r, max, MPFR_RNDZ);
  throw_if_interrupted(interrupt);
  mpfr_log1p(*o, *r, MPFR_RNDZ);
  throw_if_interrupted(interrupt);
  mpfr_div(*o, *o, *ln2, MPFR_RNDZ);
  mpfr_neg(*o, *o, MPFR_RNDZ);
  return mpfr_get_ld(*o, MPFR_RNDZ);
}

// One attempt at `precision` bits; false when the precision does not resolve the value.
// The flag is looked at after each operation that can take long at a large precision.
bool attempt(long precision, ConditioningResult& r, Interrupt interrupt) {
  const ConditioningInput& in = r.input;
  const auto check = [interrupt] { throw_if_interrupted(interrupt); };
  const uint32_t n = std::min(in.n_out, r.nw);
  Real h(precision), p_high(precision), p_low(precision), s(precision), d(precision), t(precision), psi(precision),
      omega(precision), oe(precision), tmp(precision);
  if (mpfr_set_ld(*h, in.h_in, MPFR_RNDZ) != 0) return false;
  mpfr_neg(*tmp, *h, MPFR_RNDZ);
  mpfr_ui_pow(*p_high, 2, *tmp, MPFR_RNDU);  // 2^-h_in
  check();
  if (mpfr_sgn(*p_high) <= 0 || mpfr_cmp_ui(*p_high, 1) >= 0) return false;
  mpfr_ui_sub(*p_low, 1, *p_high, MPFR_RNDU);
  if (mpfr_ui_pow_ui(*s, 2, in.n_in, MPFR_RNDZ) != 0) return false;  // 2^n_in
  mpfr_sub_ui(*d, *s, 1, MPFR_RNDZ);
  mpfr_sub(*tmp, *s, *d, MPFR_RNDZ);
  if (mpfr_cmp_ui(*tmp, 1) != 0) return false;
  mpfr_div(*p_low, *p_low, *d, MPFR_RNDU);  // (1 - 2^-h_in) / (2^n_in - 1)
  check();
  if (mpfr_sgn(*p_low) <= 0 || mpfr_cmp_ui(*p_low, 1) >= 0) return false;
  if (mpfr_ui_pow_ui(*t, 2, in.n_in - n, MPFR_RNDU) != 0) return false;
  // psi = 2^(n_in - n) p_low + p_high
  mpfr_mul(*psi, *t, *p_low, MPFR_RNDU);
  mpfr_add(*psi, *psi, *p_high, MPFR_RNDU);
  if (mpfr_cmp(*p_high, *psi) >= 0 || mpfr_sgn(*psi) == 0) return false;
  if (mpfr_cmp_ui(*psi, 1) > 0) mpfr_set_ui(*psi, 1, MPFR_RNDN);
  // omega = (2^(n_in - n) + sqrt(2 n 2^(n_in - n) ln 2)) p_low
  if (mpfr_set_ui(*omega, 2, MPFR_RNDZ) != 0) return false;
  mpfr_log(*omega, *omega, MPFR_RNDU);
  check();
  mpfr_mul(*omega, *omega, *t, MPFR_RNDU);
  mpfr_mul_ui(*omega, *omega, 2UL * n, MPFR_RNDU);
  mpfr_sqrt(*omega, *omega, MPFR_RNDU);
  check();
  mpfr_add(*omega, *omega, *t, MPFR_RNDU);
  mpfr_mul(*omega, *omega, *p_low, MPFR_RNDU);
  if (mpfr_sgn(*omega) == 0) return false;
  if (mpfr_cmp_ui(*omega, 1) > 0) mpfr_set_ui(*omega, 1, MPFR_RNDN);
  mpfr_log2(*oe, mpfr_cmp(*omega, *psi) > 0 ? *omega : *psi, MPFR_RNDZ);
  check();
  mpfr_neg(*oe, *oe, MPFR_RNDZ);
  if (mpfr_cmp_ui(*oe, in.n_out) >= 0 || mpfr_cmp(*oe, *h) >= 0) return false;
  Real max(precision);
  mpfr_set_ui(*max, in.n_out, MPFR_RNDZ);
  r.epsilon_n_out = epsilon_exponent(*oe, *max, precision, interrupt);
  r.epsilon_h_in = epsilon_exponent(*oe, *h, precision, interrupt);
  mpfr_set_ui(*max, r.nw, MPFR_RNDZ);
  r.epsilon_nw = epsilon_exponent(*oe, *max, precision, interrupt);
  r.output_entropy = mpfr_get_ld(*oe, MPFR_RNDN);
  return true;
}

// a x n as NIST's long double product under its rounding toward zero (exact at 128 bits,
// then truncated).
long double times_toward_zero(long double a, uint32_t n) {
  Real x(128);
  mpfr_set_ld(*x, a, MPFR_RNDN);
  mpfr_mul_ui(*x, *x, n, MPFR_RNDZ);
  return mpfr_get_ld(*x, MPFR_RNDZ);
}


}  // namespace

void check_conditioning_bits(long long v, const char* name) {
  if (v < 1 || v > static_cast<long long>(kMaxBits)) {
    throw Error(ErrorKind::Usage, std::string(name) + " must be a whole number of bits from 1 to " + std::to_string(kMaxBits) +
                                      ", got " + std::to_string(v));
  }
}

void check_conditioning_input(const ConditioningInput& in) {
  check_conditioning_bits(in.n_in, "n_in");
  check_conditioning_bits(in.n_out, "n_out");
  check_conditioning_bits(in.nw, "nw");
  if (in.n_out > in.n_in) {
    throw Error(ErrorKind::Usage, "n_out (" + std::to_string(in.n_out) + ") must be at most n_in (" + std::to_string(in.n_in) +
                                      "): a conditioning component outputs no more bits than it reads");
  }
  if (!std::isfinite(in.h_in) || !(in.h_in > 0) || in.h_in > static_cast<long double>(in.n_in)) {
    throw Error(ErrorKind::Usage, "h_in (" + format_conditioning_number(in.h_in) +
                                      ") must be greater than 0 and at most n_in (" + std::to_string(in.n_in) + ")");
  }
  if (!in.vetted && (!std::isfinite(in.h_prime) || !(in.h_prime > 0) || in.h_prime > 1)) {
    throw Error(ErrorKind::Usage, "h' (" + format_conditioning_number(in.h_prime) +
                                      ") must be greater than 0 and at most 1 (entropy per bit of the conditioned data)");
  }
}

namespace {

// The whole computation on the calling thread, `interrupt` looked at between operations.
ConditioningResult resolve(const ConditioningInput& in, Interrupt interrupt) {
  ConditioningResult r;
  r.input = in;
  r.nw = std::min(in.nw, in.n_in);
  const uint32_t largest = std::max({53u, in.n_in, in.n_out, r.nw});
  long precision = 2L * largest;
  while (true) {
    throw_if_interrupted(interrupt);
    r.precisions.push_back(precision);
    if (attempt(precision, r, interrupt)) break;
    if (precision >= kMaxPrecision) {
      throw Error(ErrorKind::Usage, "Output_Entropy is not resolved at " + std::to_string(precision) +
                                        " bits of precision (h_in too close to 0?)");
    }
    precision *= 2;
  }
  const long double oe = r.output_entropy;
  r.close_n_out = oe == static_cast<long double>(in.n_out);
  r.close_h_in = oe == in.h_in;
  r.close_nw = oe == static_cast<long double>(r.nw);
  r.bound_n_out = times_toward_zero(0.999L, in.n_out);
  if (in.vetted) {
    r.h_out = oe;
    r.near_full = oe > r.bound_n_out;
    r.full_entropy_candidate = r.near_full && in.h_in >= in.n_out + 64.0;
  } else {
    r.bound_h_prime = times_toward_zero(in.h_prime, in.n_out);
    r.h_out = std::min(oe, std::min(r.bound_n_out, r.bound_h_prime));
  }
  return r;
}

}  // namespace

ConditioningResult conditioning_entropy(const ConditioningInput& in, Interrupt interrupt) {
  check_conditioning_input(in);
  if (!interrupt) return resolve(in, nullptr);
  // One MPFR operation takes no interrupt and can take minutes (a logarithm at 2^25 bits):
  // the computation runs on a thread of its own, stopped by a flag of its own (it may
  // outlive this call and the caller's flag), while this thread looks at the caller's flag.
  // Interrupted, this call throws at once; the abandoned computation ends at its next check
  // (MPFR's caches are per thread: it shares nothing with another call).
  struct Shared {
    std::atomic<bool> stop{false};
    std::promise<ConditioningResult> result;
  };
  auto shared = std::make_shared<Shared>();
  std::future<ConditioningResult> done = shared->result.get_future();
  try {
    std::thread([shared, in] {
      try {
        shared->result.set_value(resolve(in, &shared->stop));
      } catch (...) {
        shared->result.set_exception(std::current_exception());
      }
      // Every thread that used MPFR frees its own caches before it ends (MPFR's manual): the
      // constant log 2 at 2 x n_in bits is megabytes at n_in = 2^24.
      mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
    }).detach();
  } catch (const std::system_error&) {
    return resolve(in, interrupt);  // no thread to spare: stopped between operations only
  }
  while (done.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) {
    if (interrupt_requested(interrupt)) {
      shared->stop.store(true);
      throw Error(ErrorKind::Interrupted, "interrupted");
    }
  }
  return done.get();
}

long double parse_conditioning_number(const std::string& text, const char* what) {
  TowardZero rz;  // as NIST's strtold after fesetround(FE_TOWARDZERO)
  return parse_real<long double>(text, what);  // decimal only (src/common/numbers.hpp)
}

std::string format_conditioning_number(long double v) {
  char buf[64];
  {
    TowardZero rz;
    std::snprintf(buf, sizeof buf, "%.22Lg", v);
  }
  return buf;
}

}  // namespace ea
