// cuda/api/gpu_health.hpp: the Monte Carlo check of the health tests on one GPU
// (cuda/health_simulate.cuh).
#include <cuda_runtime.h>

#include <string>

#include "check.cuh"
#include "common/error.hpp"
#include "gpu_health.hpp"
#include "health_simulate.cuh"

namespace ea {

GpuHealthSimulation simulate_health_on_gpu(const HealthCutoffs& c, int bits, const HealthSimulationSpec& spec, int gpu_id) {
  cuda::select_gpu(gpu_id);
  cudaDeviceProp prop{};
  EA_CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu_id));
  GpuHealthSimulation r;
  r.device = "GPU " + std::to_string(gpu_id) + ": " + prop.name;
  r.simulation = simulate_health_gpu(c, bits, spec);
  return r;
}

}  // namespace ea
