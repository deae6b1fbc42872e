// Random 32-byte sector throughput of a GPU, in L2 and in HBM: the limit of a shuffle that
// reads and writes one random place per swap (docs/performance-history.md, issue 17).
//
// Every thread makes `per_thread` accesses to sectors chosen by a hash of (thread, k), with
// `inflight` independent accesses in flight; each access reads 4 bytes of its sector, and
// in the read+write mode writes them back (as a swap does). A 4-byte access moves one whole
// 32-byte sector, so sectors/s is the figure a Fisher-Yates swap pays per random place.
//
// build: nvcc -O3 -arch=sm_90 -o random_sectors scripts/random_sectors.cu (or the CUDA
// build's target random_sectors)
// usage: random_sectors [L2_BYTES] [HBM_BYTES]      (defaults: 16 MiB and 8 GiB)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "bench_check.cuh"

__device__ __forceinline__ uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <int kInflight, bool kWrite>
__global__ void touch(uint32_t* buf, uint64_t sectors, uint32_t per_thread, uint32_t* sink) {
  const uint64_t t = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  uint32_t acc = 0;
  for (uint32_t k = 0; k < per_thread; k += kInflight) {
    uint64_t at[kInflight];
    uint32_t v[kInflight];
#pragma unroll
    for (int u = 0; u < kInflight; ++u) at[u] = (mix(t * 0x100000001b3ull + k + u) % sectors) * 8;  // 8 words = 32 bytes
#pragma unroll
    for (int u = 0; u < kInflight; ++u) v[u] = buf[at[u]];
#pragma unroll
    for (int u = 0; u < kInflight; ++u) {
      acc += v[u];
      if (kWrite) buf[at[u]] = v[u] + 1;
    }
  }
  if (acc == 0x12345678u) *sink = acc;  // keeps the loads
}

template <int kInflight, bool kWrite>
double run(uint32_t* buf, uint64_t bytes, uint32_t* sink, int sms) {
  const uint64_t sectors = bytes / 32;
  const int block = 256, blocks = sms * 16;
  const uint32_t per_thread = 256;
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  touch<kInflight, kWrite><<<blocks, block>>>(buf, sectors, per_thread, sink);  // warm-up
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(a));
  const int reps = 5;
  for (int r = 0; r < reps; ++r) touch<kInflight, kWrite><<<blocks, block>>>(buf, sectors, per_thread, sink);
  CHECK(cudaEventRecord(b));
  CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  const double accesses = static_cast<double>(blocks) * block * per_thread * reps;
  return accesses / (ms / 1000.0);
}

int main(int argc, char** argv) {
  const uint64_t l2 = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (16ull << 20);
  const uint64_t hbm = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (8ull << 30);
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s: %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  uint32_t *buf = nullptr, *sink = nullptr;
  CHECK(cudaMalloc(&buf, hbm));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMemset(buf, 1, hbm));
  for (uint64_t bytes : {l2, hbm}) {
    const char* where = bytes == l2 ? "L2-resident" : "HBM";
    std::printf("%-12s %8.1f MiB: read %6.2f G sectors/s (8 in flight per thread), read+write %6.2f G sectors/s\n",
                where, bytes / 1048576.0, run<8, false>(buf, bytes, sink, prop.multiProcessorCount) / 1e9,
                run<8, true>(buf, bytes, sink, prop.multiProcessorCount) / 1e9);
  }
  CHECK(cudaFree(buf));
  return 0;
}
