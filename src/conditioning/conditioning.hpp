// The entropy of a conditioning component's output (SP 800-90B 3.1.5): Output_Entropy of
// 3.1.5.1.2 for a vetted component, and min(Output_Entropy, 0.999 n_out, h' n_out) for a
// non-vetted one (3.1.5.2), computed as NIST ea_conditioning 1.1.8 computes them: MPFR at
// 2 x max(53, n_in, n_out, nw) bits (doubled until the value is resolved), the result
// rounded to the nearest long double, the epsilons -log2(1 - OE/max) truncated, and the
// non-vetted bounds multiplied in long double toward zero. Nothing here prints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/interrupt.hpp"

namespace ea {

struct ConditioningInput {
  bool vetted = true;
  uint32_t n_in = 0;       // input bits per conditioned output
  uint32_t n_out = 0;      // output bits
  uint32_t nw = 0;         // narrowest internal width (as given; min(nw, n_in) is used)
  long double h_in = 0;    // entropy in the n_in input bits
  long double h_prime = -1;  // non-vetted: h', entropy per bit of the conditioned data, (0, 1]
};

struct ConditioningResult {
  ConditioningInput input;
  uint32_t nw = 0;                  // min(nw, n_in) (SP 800-90B appendix E)
  std::vector<long> precisions;     // the MPFR precision of each attempt, in bits
  long double output_entropy = 0;   // Output_Entropy(n_in, n_out, nw, h_in)
  // -log2(epsilon) where epsilon = 1 - Output_Entropy / max, for max = n_out, h_in, nw.
  long double epsilon_n_out = 0, epsilon_h_in = 0, epsilon_nw = 0;
  // Output_Entropy rounded onto n_out, h_in or nw (NIST's "Close to ..." notes).
  bool close_n_out = false, close_h_in = false, close_nw = false;
  long double bound_n_out = 0;      // non-vetted: 0.999 x n_out
  long double bound_h_prime = 0;    // non-vetted: h' x n_out
  long double h_out = 0;            // the entropy credited to the output
  // Vetted: Output_Entropy > 0.999 n_out (NIST then prints n_out's epsilon), and whether
  // h_in >= n_out + 64 too (FIPS 140-3 IG D.K resolution 19: full entropy if the component's
  // security strength is at least n_out).
  bool near_full = false, full_entropy_candidate = false;
};

// Throws Error{Usage} naming the argument for n_in, n_out or nw of 0, n_out > n_in,
// h_in not in (0, n_in], h' not in (0, 1] (non-vetted), or a value that is not finite.
// `interrupt`: the caller's cancel flag (common/interrupt.hpp). With one, the computation
// runs on a thread of its own (a single MPFR operation at 2^25 bits can take minutes) and
// this call throws Error{Interrupted} within 20 ms of the flag being set, never a result; the
// abandoned computation stops after its current operation.
ConditioningResult conditioning_entropy(const ConditioningInput& in, Interrupt interrupt = nullptr);
// Those checks alone (callers that fail early, before the inputs' other work).
void check_conditioning_input(const ConditioningInput& in);
// n_in, n_out or nw (`name`) as given, before it is held in 32 bits: Error{Usage} unless it is
// a whole number of bits from 1 to 2^24, naming the value given.
void check_conditioning_bits(long long v, const char* name);

// A number as NIST ea_conditioning reads it: strtold rounded toward zero (its rounding mode
// for the whole run), but only a decimal one (parse_real: no space, no hexadecimal float, no
// subnormal). Throws Error{Usage} naming `what` otherwise or when it is not finite.
long double parse_conditioning_number(const std::string& text, const char* what);

// "%.22Lg" as NIST ea_conditioning prints it (digits truncated, not rounded: its rounding
// mode is toward zero).
std::string format_conditioning_number(long double v);

}  // namespace ea
