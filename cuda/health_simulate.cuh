// The health tests' Monte Carlo check on a GPU (health/simulate.hpp): one thread per run
// (chunk j: Philox stream j of the seed), each drawing and testing its samples with
// simulate_chunk(), the very function the CPU path runs, so the counts equal the CPU's
// for the same seed, samples and chunk, whatever the device. ea_iid health-tests --simulate
// reaches it through cuda/api/gpu_health.hpp (cuda/health_simulate.cu);
// tests/gpu/test_gpu_health_simulate.cu checks it against the CPU and at 2^30 samples
// against the exact rates.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "check.cuh"
#include "common/error.hpp"
#include "health/simulate.hpp"
#include "health/simulate_chunk.hpp"

namespace ea {

// Runs first .. end - 1 of the simulation's runs, each adding its failures to counts[0] (RCT)
// and counts[1] (APT).
__global__ void health_simulate_kernel(uint64_t seed, uint64_t first, uint64_t end, uint64_t chunk, uint64_t samples,
                                       SimulatedSourceDraw src, uint64_t rct_cutoff, uint32_t window,
                                       uint64_t apt_cutoff, unsigned long long* counts) {
  const uint64_t j = first + static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= end) return;
  const uint64_t from = j * chunk;
  const uint64_t n = samples - from < chunk ? samples - from : chunk;
  const ChunkFailures f = simulate_chunk(seed, j, n, src, rct_cutoff, window, apt_cutoff);
  if (f.rct) atomicAdd(&counts[0], static_cast<unsigned long long>(f.rct));
  if (f.apt) atomicAdd(&counts[1], static_cast<unsigned long long>(f.apt));
}

// Runs per launch: spec.interrupt is checked between launches (2^18 runs of the default 2^16
// samples: 2^34 samples, about a second on an H100).
constexpr uint64_t kHealthRunsPerLaunch = uint64_t{1} << 18;

// simulate_health() on the current GPU: the same result, counted there. Throws Error{Device}
// (a CUDA failure), the layout's Error{Usage}, or Error{Interrupted} (spec.interrupt, checked
// between launches).
inline HealthSimulation simulate_health_gpu(const HealthCutoffs& c, int bits, const HealthSimulationSpec& spec) {
  const HealthSimulation layout = health_simulation_layout(c, bits, spec);
  const SimulatedSourceDraw src = simulated_source(c, bits);
  unsigned long long* counts = nullptr;
  EA_CUDA_CHECK(cudaMalloc(&counts, 2 * sizeof(unsigned long long)));
  unsigned long long host[2] = {0, 0};
  try {
    EA_CUDA_CHECK(cudaMemset(counts, 0, 2 * sizeof(unsigned long long)));
    constexpr unsigned kThreads = 128;
    for (uint64_t first = 0; first < layout.chunks; first += kHealthRunsPerLaunch) {
      if (spec.interrupt && spec.interrupt->load()) throw Error(ErrorKind::Interrupted, "interrupted");
      const uint64_t end = layout.chunks - first < kHealthRunsPerLaunch ? layout.chunks : first + kHealthRunsPerLaunch;
      const unsigned blocks = static_cast<unsigned>((end - first + kThreads - 1) / kThreads);
      health_simulate_kernel<<<blocks, kThreads>>>(layout.seed, first, end, layout.chunk, layout.samples, src,
                                                   c.rct.cutoff, c.apt.window, c.apt.cutoff, counts);
      EA_CUDA_CHECK(cudaGetLastError());
      EA_CUDA_CHECK(cudaDeviceSynchronize());
    }
    EA_CUDA_CHECK(cudaMemcpy(host, counts, sizeof host, cudaMemcpyDeviceToHost));
  } catch (...) {
    cudaFree(counts);
    throw;
  }
  EA_CUDA_CHECK(cudaFree(counts));
  return health_simulation_result(c, bits, spec, host[0], host[1]);
}

}  // namespace ea
