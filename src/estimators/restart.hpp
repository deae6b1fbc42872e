// The restart tests of SP 800-90B section 3.1.4 apart from the IID tests themselves: the
// row and column data sets (3.1.4.1), the sanity check's counts and its cutoff X_cutoff
// (3.1.4.3), computed as NIST ea_restart 1.1.8 defines them, plus an exact cutoff.
#pragma once

#include <cstdint>
#include <vector>

#include "common/interrupt.hpp"

namespace ea {

constexpr int kRestarts = 1000;          // r: rows, one per restart
constexpr int kRestartSamples = 1000;    // c: samples per restart
constexpr uint64_t kRestartDataSize = static_cast<uint64_t>(kRestarts) * kRestartSamples;
// NIST ea_restart's default (and smallest accepted) number of simulation rounds (-s).
constexpr uint64_t kNistCutoffSimulations = 5000000;

// alpha = 1 - 0.99^(1/(r + c)), as NIST computes it (1 - exp(log(0.99) / (r + c))).
double restart_alpha();

// The column data set: column j of the 1000 x 1000 row data set (row i = restart i,
// samples[i * 1000 + j]) becomes row j. `samples` must hold exactly 1,000,000 values.
std::vector<uint8_t> restart_columns(const std::vector<uint8_t>& samples);

// The largest count of one symbol within one row (X_r) and within one column (X_c).
struct RestartCounts {
  int x_r = 0, x_c = 0;
  int x_max() const { return x_r > x_c ? x_r : x_c; }
};
RestartCounts restart_counts(const std::vector<uint8_t>& samples);

// The sanity check's worst case for an entropy claim h_i (NIST's "inverted near-uniform"
// family): floor(1/p) symbols of probability p = 2^-h_i, and one more with the rest when
// 1/p is not an integer; 1000 draws. P(largest count <= x) exactly, by the Poisson
// representation of the multinomial (the truncated Poisson pmfs convolved, divided by
// P(Poisson(1000) = 1000)).
double restart_max_count_cdf(double h_i, int x);

// X_cutoff: the smallest x with P(largest count <= x) >= 1 - alpha (the quantile that
// NIST's simulation estimates). h_i in (0, 8]. `interrupt` (here and below): the caller's
// cancel flag (common/interrupt.hpp); once set, Error{Interrupted} and no cutoff.
int restart_cutoff_exact(double h_i, double alpha, Interrupt interrupt = nullptr);

// How often each largest count (0..1000) occurred in `rounds` simulated worst-case draws of
// 1000 samples; round i draws from Philox stream i under `seed` (32-bit uniforms u, symbol
// floor(u / p)), so the result depends on (seed, rounds) alone, not on `threads`.
std::vector<uint64_t> restart_max_count_histogram(double h_i, uint64_t rounds, uint64_t seed, int threads,
                                                  Interrupt interrupt = nullptr);

// X_cutoff by NIST's simulation rule: `rounds` worst-case draws of 1000 samples, the
// largest count of each; the value at position floor((1 - alpha) * rounds) of their
// ascending order (1-based), from restart_max_count_histogram. rounds >= 2.
int restart_cutoff_simulated(double h_i, double alpha, uint64_t rounds, uint64_t seed, int threads,
                             Interrupt interrupt = nullptr);

}  // namespace ea
