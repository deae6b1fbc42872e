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
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    (void)cudaGetLastError();
    throw Error(ErrorKind::Device,
                std::string("no usable GPU: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found"));
  }
  if (gpu_id < 0 || gpu_id >= devices) {
    throw Error(ErrorKind::Device, "no GPU with index " + std::to_string(gpu_id) + " (" + std::to_string(devices) + " found)");
  }
  EA_CUDA_CHECK(cudaSetDevice(gpu_id));
  cudaDeviceProp prop{};
  EA_CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu_id));
  GpuHealthSimulation r;
  r.device = "GPU " + std::to_string(gpu_id) + ": " + prop.name;
  r.simulation = simulate_health_gpu(c, bits, spec);
  return r;
}

}  // namespace ea
