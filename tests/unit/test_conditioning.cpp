// The conditioning component's output entropy (SP 800-90B 3.1.5) against values worked by
// hand from the formulas, and NIST ea_conditioning's rounding of what it prints.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "common/error.hpp"
#include "conditioning/conditioning.hpp"

using namespace ea;

namespace {
ConditioningInput vetted(uint32_t n_in, uint32_t n_out, uint32_t nw, long double h_in) {
  ConditioningInput in;
  in.n_in = n_in;
  in.n_out = n_out;
  in.nw = nw;
  in.h_in = h_in;
  return in;
}
}  // namespace

TEST_CASE("Output_Entropy near h_in (psi wins): 1024 256 256 0.5") {
  // psi = 2^-0.5 (1 + t), t = (sqrt 2 - 1) 2^-256: Output_Entropy = 0.5 - log2(1 + t), 0.5 to
  // a long double; -log2(epsilon) = 256 - log2((sqrt 2 - 1) / (0.5 ln 2)) = 255.742786930218714358...
  const ConditioningResult r = conditioning_entropy(vetted(1024, 256, 256, 0.5L));
  CHECK(r.output_entropy == 0.5L);
  CHECK(r.close_h_in);
  CHECK_FALSE(r.close_n_out);
  CHECK_FALSE(r.close_nw);
  CHECK(r.precisions == std::vector<long>{2048});
  const double by_hand = 256.0 - std::log2((std::sqrt(2.0) - 1.0) / (0.5 * std::log(2.0)));
  CHECK(static_cast<double>(r.epsilon_h_in) == doctest::Approx(by_hand).epsilon(1e-15));
  CHECK(format_conditioning_number(r.epsilon_h_in) == "255.7427869302187143502");  // NIST's digits
  CHECK(r.h_out == 0.5L);
  CHECK_FALSE(r.near_full);
}

TEST_CASE("Output_Entropy near n_out (omega wins): 64 32 64 64 and 512 256 384 410.5") {
  // n = 32, T = 2^32, p_low ~ 2^-64: omega = 2^-32 (1 + sqrt(64 ln 2) 2^-16), so
  // Output_Entropy = 32 - log2(1 + sqrt(64 ln 2) / 65536).
  const ConditioningResult a = conditioning_entropy(vetted(64, 32, 64, 64));
  const double by_hand = 32.0 - std::log2(1.0 + std::sqrt(64.0 * std::log(2.0)) / 65536.0);
  CHECK(static_cast<double>(a.output_entropy) == doctest::Approx(by_hand).epsilon(1e-14));
  CHECK(a.near_full);                     // > 0.999 x 32
  CHECK_FALSE(a.full_entropy_candidate);  // h_in 64 < 32 + 64
  // n = 256, n_in - n = 256: -log2(epsilon) = 128 + log2(256 ln 2 / 2) / 2.
  const ConditioningResult b = conditioning_entropy(vetted(512, 256, 384, 410.5L));
  CHECK(b.output_entropy == 256.0L);
  CHECK(b.close_n_out);
  CHECK(static_cast<double>(b.epsilon_n_out) == doctest::Approx(128.0 + std::log2(128.0 * std::log(2.0)) / 2).epsilon(1e-15));
  CHECK(format_conditioning_number(b.epsilon_n_out) == "131.2356168135275511915");  // truncated, not ...916
  CHECK(b.full_entropy_candidate);  // 410.5 >= 256 + 64
}

TEST_CASE("Non-vetted: min(Output_Entropy, 0.999 n_out, h' n_out) with NIST's rounding toward zero") {
  ConditioningInput in = vetted(1024, 256, 256, 800);
  in.vetted = false;
  in.h_prime = parse_conditioning_number("0.9", "h'");
  CHECK(format_conditioning_number(in.h_prime) == "0.8999999999999999999783");
  const ConditioningResult r = conditioning_entropy(in);
  CHECK(r.output_entropy == 256.0L);
  CHECK(r.close_n_out);
  CHECK(r.close_nw);
  CHECK(format_conditioning_number(r.bound_n_out) == "255.7439999999999999946");
  CHECK(format_conditioning_number(r.bound_h_prime) == "230.3999999999999999944");
  CHECK(r.h_out == r.bound_h_prime);
  // strtold toward zero: 0.987 reads as ...9462, not ...0004.
  CHECK(format_conditioning_number(parse_conditioning_number("0.987", "h'")) == "0.9869999999999999999462");
}

TEST_CASE("nw above n_in is n_in; one input bit gives -0 as NIST prints it") {
  const ConditioningResult r = conditioning_entropy(vetted(12, 12, 256, 1));
  CHECK(r.nw == 12);
  const ConditioningResult z = conditioning_entropy(vetted(1, 1, 1, 1));
  CHECK(z.output_entropy == 0.0L);
  CHECK(format_conditioning_number(z.h_out) == "-0");
}

TEST_CASE("Bad arguments are usage errors naming the argument") {
  auto usage = [](ConditioningInput in, const char* what) {
    try {
      conditioning_entropy(in);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Usage);
      CHECK(std::string(e.what()).find(what) != std::string::npos);
    }
  };
  usage(vetted(1024, 2048, 256, 1), "n_out");
  usage(vetted(1024, 256, 256, 1025), "h_in");
  usage(vetted(1024, 256, 256, 0), "h_in");
  usage(vetted(1024, 256, 256, std::numeric_limits<long double>::quiet_NaN()), "h_in");
  usage(vetted(0, 256, 256, 1), "n_in");
  usage(vetted(1024, 256, 0, 1), "nw");
  ConditioningInput nv = vetted(1024, 256, 256, 800);
  nv.vetted = false;
  nv.h_prime = 1.5L;
  usage(nv, "h'");
  CHECK_THROWS_AS(parse_conditioning_number("nan", "h_in"), Error);
  CHECK_THROWS_AS(parse_conditioning_number("0.5x", "h_in"), Error);
  CHECK_THROWS_AS(parse_conditioning_number("", "h_in"), Error);
}
