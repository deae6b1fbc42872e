// cuRAND's own XORWOW streams, in a translation unit of their own: curand_kernel.h and
// Random123's philox.h both define mulhilo32.
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstdint>
#include <vector>

namespace {
__global__ void curand_kernel(uint64_t seed, int count, int words, uint32_t* out) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  curandState_t c;
  curand_init(seed, static_cast<unsigned long long>(j), 0, &c);
  for (int i = 0; i < words; ++i) out[j * words + i] = curand(&c);
}
}  // namespace

// The first `words` outputs of curand_init(seed, j, 0) for j < count; empty on a CUDA error.
std::vector<uint32_t> curand_xorwow_streams(uint64_t seed, int count, int words) {
  uint32_t* d = nullptr;
  std::vector<uint32_t> out(static_cast<size_t>(count) * words);
  if (cudaMalloc(&d, out.size() * 4) != cudaSuccess) return {};
  curand_kernel<<<(count + 31) / 32, 32>>>(seed, count, words, d);
  const bool ok = cudaGetLastError() == cudaSuccess &&
                  cudaMemcpy(out.data(), d, out.size() * 4, cudaMemcpyDeviceToHost) == cudaSuccess;
  cudaFree(d);
  return ok ? out : std::vector<uint32_t>{};
}
