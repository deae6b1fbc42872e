// A Monte Carlo check of the health tests' cutoffs (ea_iid health-tests H --simulate N): a
// source of min-entropy exactly H, simulated with Philox, run through both tests
// (health/scan.hpp) with the computed cutoffs; the observed false-positive rates with their
// 99% intervals beside the exact rates of that distribution (docs/health-tests.md).
//
// The source: value 0 with probability p = 2^-H (as T / 2^64, T = round(2^-H 2^64): the
// simulated p, the one the exact rates are computed for), each other value of an alphabet of
// k (2 for a binary source, else 2^bits; 256 when the bits are not given) with
// q = (1 - p) / (k - 1) <= p. Sample i of chunk j is drawn from Philox stream j of the seed
// (rng/philox_stream.hpp): two words against T, and one more for the other value, Lemire's
// exact bounded draw. Each chunk is an independent run of the source (the tests start afresh
// at its first sample); counts are summed over chunks, so the result does not depend on the
// number of threads.
#pragma once

#include <atomic>
#include <cstdint>

#include "health/health.hpp"
#include "health/simulate_chunk.hpp"

namespace ea {

struct HealthSimulationSpec {
  uint64_t samples = 0;  // rounded up to whole APT windows
  uint64_t seed = 0;
  // Samples per chunk (an independent run): a positive multiple of 1024. 2^16 gives a GPU a
  // thread for each of 15,259 runs at 10^9 samples (cuda/health_simulate.cuh).
  uint64_t chunk = uint64_t{1} << 16;
  int threads = 1;
  // Checked between chunks: true throws Error{Interrupted} once the running chunks are done.
  const std::atomic<bool>* interrupt = nullptr;
};

// One test's observed rate against the exact one.
struct SimulatedRate {
  uint64_t trials = 0;     // RCT: samples; APT: windows
  uint64_t failures = 0;   // observed
  double observed = 0;     // failures / trials
  double low = 0, high = 0;  // the 99% interval of the rate (Garwood's exact Poisson interval of the count)
  double expected_failures = 0;  // exact for the simulated distribution and the chunks
  double expected = 0;     // expected_failures / trials
  // The rate in the stationary limit (per sample away from a chunk's start; per window).
  double stationary = 0;
  bool within() const { return expected >= low && expected <= high; }
};

struct HealthSimulation {
  uint64_t samples = 0, seed = 0, chunk = 0, chunks = 0;
  uint32_t alphabet = 0;
  double p_max = 0, p_other = 0;  // p = T / 2^64 and q
  SimulatedRate rct, apt;
};

// Simulates spec.samples samples of the source of c.h over `bits` bits (0: 8) and runs the
// tests with c's cutoffs (the APT's 4.4.2 cutoff, the window's first sample counted). Throws
// Error{Usage} for no samples or a chunk that is no multiple of 1024, Error{Interrupted}.
HealthSimulation simulate_health(const HealthCutoffs& c, int bits, const HealthSimulationSpec& spec);

// The source simulated for c.h over `bits` bits (0: 8), and the simulation's layout (samples
// rounded up, chunks, alphabet; no counts) for `spec`: what a device runs
// (cuda/health_simulate.cuh), a chunk j of spec.chunk samples on Philox stream j.
SimulatedSourceDraw simulated_source(const HealthCutoffs& c, int bits);
HealthSimulation health_simulation_layout(const HealthCutoffs& c, int bits, const HealthSimulationSpec& spec);
// The result of counts found elsewhere (a device): the rates, intervals and exact expectations.
HealthSimulation health_simulation_result(const HealthCutoffs& c, int bits, const HealthSimulationSpec& spec,
                                          uint64_t rct_failures, uint64_t apt_failures);

// The exact 99% interval [low, high] of a Poisson mean given `count` events (Garwood): the
// means at which P(X >= count) and P(X <= count) are 0.005. For tests and the report.
void poisson_interval99(uint64_t count, double& low, double& high);

}  // namespace ea
