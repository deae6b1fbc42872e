// The health tests' Monte Carlo check on a GPU as the layers above see it (no CUDA type):
// defined by cuda/health_simulate.cu when CUDA is built, otherwise by cuda/gpu_unavailable.cpp
// (which throws Error{Device}). Depends only on src/health.
#pragma once

#include <string>

#include "health/simulate.hpp"

namespace ea {

struct GpuHealthSimulation {
  HealthSimulation simulation;  // equal, count for count, to simulate_health(c, bits, spec)
  std::string device;           // "GPU 0: NVIDIA H100 80GB HBM3"
};

// simulate_health(c, bits, spec) on GPU `gpu_id`, one thread per run (spec.threads unused).
// Throws Error{Device} (no usable GPU, no GPU of that index, a build without CUDA, a CUDA
// failure), the layout's Error{Usage}, or Error{Interrupted} (spec.interrupt, checked
// between launches).
GpuHealthSimulation simulate_health_on_gpu(const HealthCutoffs& c, int bits, const HealthSimulationSpec& spec, int gpu_id);

}  // namespace ea
