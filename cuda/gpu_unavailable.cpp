// Linked when ea_iid is built without CUDA: --device gpu fails with a clear message.
#include "common/error.hpp"
#include "gpu_backends.hpp"
#include "gpu_health.hpp"
#include "gpu_predictors.hpp"
#include "gpu_suffixes.hpp"

namespace ea {

std::unique_ptr<PermutationBackend> make_gpu_backend(const PermutationData&, int, const GpuTuning&, double) {
  throw Error(ErrorKind::Device,
              "no GPU available: this ea_iid was built without CUDA support (rebuild with -DEA_IID_CUDA=ON on a machine with nvcc)");
}

std::unique_ptr<PermutationBackend> make_gpu_compression_backend(const PermutationData&, int, const GpuTuning&,
                                                                 double) {
  throw Error(ErrorKind::Device, "no GPU available: this ea_iid was built without CUDA support");
}

double gpu_compression_model_original(const PermutationBackend&) {
  throw Error(ErrorKind::Internal, "no GPU compression backend in a build without CUDA");
}

GpuHealthSimulation simulate_health_on_gpu(const HealthCutoffs&, int, const HealthSimulationSpec&, int) {
  throw Error(ErrorKind::Device, "no GPU available: this ea_iid was built without CUDA support");
}

std::optional<SuffixLcps> gpu_suffix_lcps(const uint8_t*, size_t, int, Interrupt) {
  throw Error(ErrorKind::Device, "no GPU available: this ea_iid was built without CUDA support");
}

bool gpu_mmc_bit_states(const uint8_t*, size_t, int, std::vector<uint64_t>&, std::vector<uint64_t>&, Interrupt) {
  throw Error(ErrorKind::Device, "no GPU available: this ea_iid was built without CUDA support");
}

bool gpu_lz78y_bit_hits(const uint8_t*, size_t, int, std::vector<uint64_t>&, Interrupt) {
  throw Error(ErrorKind::Device, "no GPU available: this ea_iid was built without CUDA support");
}

int gpu_count() { return 0; }

bool warm_up_gpu(int) { return false; }

}  // namespace ea
