// The continuous health tests' cutoffs (SP 800-90B 4.4): the Repetition Count Test (4.4.1)
// and the Adaptive Proportion Test (4.4.2) of a source that claims min-entropy H per sample,
// with a false-positive rate alpha, each with its exact false-positive probability and its
// power. Exact arithmetic (GMP, MPFR): no rate is simulated and no cutoff is decided by a
// rounded double.
//
// H and alpha are read as the decimals they print as (the shortest decimal that reads back
// to the same double: 0.3 is 3/10, not the double nearest to it), an alpha that is a power of
// two as that power (2^-40), so that a cutoff at an exact boundary (H = 0.3, alpha = 2^-30:
// -log2(alpha)/H = 100) is the formula's.
#pragma once

#include <cstdint>

namespace ea {

// The APT's window (4.4.2): 1024 for a binary source, 512 for any other.
constexpr uint32_t kAptWindowBinary = 1024;
constexpr uint32_t kAptWindow = 512;
// SP 800-90B 4.4's recommended false-positive rates: 2^-40 <= alpha <= 2^-20.
constexpr double kAlphaLeast = 0x1p-40;
constexpr double kAlphaMost = 0x1p-20;
// The largest RCT cutoff computed (a claim so small that a run of 2^53 samples is needed is
// refused: Error{Usage}).
constexpr double kMaxRctCutoff = 0x1p53;

struct RctCutoffs {
  // C = 1 + ceil(-log2(alpha) / H).
  uint64_t cutoff = 0;
  // 2^(-H (C - 1)): the probability that a sample of the most likely value (probability
  // 2^-H) is followed by C - 1 repeats, so that the test fails at it; at most alpha.
  double false_positive = 0;
  // A stuck source (one value repeated) fails the test at its C-th identical sample.
  uint64_t stuck_samples = 0;
  // The same probability for a source whose min-entropy dropped to H/2: 2^(-(H/2)(C - 1)).
  double detect_half_entropy = 0;
};

struct AptCutoffs {
  uint32_t window = 0;  // W
  // C = 1 + CRITBINOM(W, 2^-H, 1 - alpha): the smallest C with P(Bin(W, 2^-H) >= C) <= alpha.
  // W + 1 when even W of W samples is likelier than alpha: the test then cannot fail.
  uint64_t cutoff = 0;
  // P(Bin(W, 2^-H) >= C) per window, SP 800-90B's model (the window's W samples counted).
  double false_positive = 0;
  // The same cutoff when the window's first sample is counted (4.4.2's B starts at 1: the
  // count is 1 + Bin(W - 1, 2^-H) when that sample is the most likely value):
  // P(Bin(W - 1, 2^-H) >= C - 1) per window; it can exceed alpha.
  double false_positive_first_counted = 0;
  // The cutoff that keeps that rate at most alpha: 2 + the (1 - alpha) quantile of
  // Bin(W - 1, 2^-H) (the smallest C' with P(Bin(W - 1, 2^-H) >= C' - 1) <= alpha), and its rate.
  uint64_t cutoff_corrected = 0;
  double false_positive_corrected = 0;
  // A stuck source fails the test at the C-th sample of the first window that starts in its
  // stuck output: after C samples when a window starts with it, at most W - 1 + C samples.
  uint64_t stuck_samples = 0;
  uint64_t stuck_samples_worst = 0;
  // P(Bin(W, 2^-(H/2)) >= C): the probability that a window of a source whose min-entropy
  // dropped to H/2 fails the test (SP 800-90B's model).
  double detect_half_entropy = 0;
  bool can_fail() const { return cutoff <= window; }
};

struct HealthCutoffs {
  double h = 0;      // the claimed min-entropy, bits per sample
  double alpha = 0;  // the false-positive rate
  bool binary = false;
  RctCutoffs rct;
  AptCutoffs apt;
};

// The cutoffs of a source of min-entropy `h` (0 < h <= 8; binary: h <= 1) for the rate
// `alpha` (0 < alpha < 1). Throws Error{Usage} for values outside those ranges or an RCT
// cutoff above kMaxRctCutoff (the message names H and alpha as numbers; the caller's rules,
// pipeline/settings_rules.hpp, refuse them first, naming the settings).
HealthCutoffs health_cutoffs(double h, double alpha, bool binary);

// The exact tail P(Bin(n, 2^-h) >= c) as a double (h read as its decimal, as above). For tests
// and the report's tables.
double binomial_tail(uint32_t n, double h, uint64_t c);

}  // namespace ea
