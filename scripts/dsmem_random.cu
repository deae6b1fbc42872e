// Random-access throughput of distributed shared memory (thread-block clusters, sm_90+):
// the ceiling of a shuffle whose 8-bit row of 10^6 samples is spread over the shared
// memory of several SMs (docs/performance-history.md, issue 17, "several SMs per permutation").
//
// Each block of a cluster holds `smem` bytes of dynamic shared memory (and touches the
// largest power of two of them); every thread makes
// `per_thread` 4-byte accesses at places chosen by a hash of (thread, k), `kInflight`
// independent ones at a time, either in its own block's shared memory ("local") or in the
// shared memory of a block of its cluster chosen by the same hash ("remote": 1/C of them
// land in its own block). Modes: read; read then write back (as a swap does); atomicMax
// (as a reservation does); for remote places also the same with the 32 threads of a warp at
// 32 consecutive words. Rates are 4-byte accesses per second over the whole GPU, with the
// clusters that fit at once (cudaOccupancyMaxActiveClusters) times `waves`.
//
// build: nvcc -O3 -arch=sm_90 -o dsmem_random scripts/dsmem_random.cu (or the CUDA build's
// target dsmem_random)
// usage: dsmem_random [SMEM_KIB]      (default 160: an 8-bit row of 10^6 samples over 8 SMs)
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "bench_check.cuh"

namespace cg = cooperative_groups;

// A cheap 32-bit hash (murmur3's finaliser), so that the address costs little beside the
// access: places are word & (words - 1), ranks (h >> 27) & (ranks - 1), powers of two.
__device__ __forceinline__ uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  return x ^ (x >> 16);
}

enum Mode : int { kRead = 0, kReadWrite = 1, kAtomicMax = 2 };
constexpr int kInflight = 8;
constexpr int kThreads = 512;

// kWarp: the 32 threads of a warp touch 32 consecutive words (128 bytes) of one place
// chosen per warp, instead of a place each (a coalesced access, as the own places of 32
// consecutive Fisher-Yates steps would be).
template <int kMode, bool kRemote, bool kWarp = false>
__global__ void __launch_bounds__(kThreads, 1) touch(uint32_t words, uint32_t per_thread, uint32_t* sink) {
  extern __shared__ uint32_t buf[];
  cg::cluster_group cluster = cg::this_cluster();
  const uint32_t ranks = cluster.num_blocks();
  for (uint32_t w = threadIdx.x; w < words; w += blockDim.x) buf[w] = w;
  cluster.sync();  // every block's memory is ready before anyone touches it
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
  for (uint32_t k = 0; k < per_thread; k += kInflight) {
    uint32_t* at[kInflight];
#pragma unroll
    for (int u = 0; u < kInflight; ++u) {
      const uint32_t h = mix((kWarp ? t / 32 : t) * 0x9e3779b9u + k + u);
      const uint32_t w = kWarp ? (h & (words - 1) & ~31u) + threadIdx.x % 32 : h & (words - 1);
      at[u] = kRemote ? cluster.map_shared_rank(buf + w, (h >> 27) & (ranks - 1)) : buf + w;
    }
    if constexpr (kMode == kAtomicMax) {
#pragma unroll
      for (int u = 0; u < kInflight; ++u) atomicMax(at[u], t);
    } else {
      uint32_t v[kInflight];
#pragma unroll
      for (int u = 0; u < kInflight; ++u) v[u] = *at[u];
#pragma unroll
      for (int u = 0; u < kInflight; ++u) {
        acc += v[u];
        if (kMode == kReadWrite) *at[u] = v[u] + 1;
      }
    }
  }
  cluster.sync();  // no block leaves while others may touch its memory
  if (acc == 0x12345678u) *sink = acc;  // keeps the loads
}

template <int kMode, bool kRemote, bool kWarp = false>
double run(int cluster_size, size_t smem, int sms, uint32_t* sink, int* clusters_out) {
  auto kernel = touch<kMode, kRemote, kWarp>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  if (cluster_size > 8) CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t config{};
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster_size;
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  config.attrs = &attr;
  config.numAttrs = 1;
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = smem;
  config.gridDim = dim3(cluster_size);
  int clusters = 0;
  CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  *clusters_out = clusters;
  if (clusters == 0) return 0;
  const int waves = 4;
  config.gridDim = dim3(clusters * cluster_size * waves);
  uint32_t words = 1;  // the largest power of two that fits
  while (words * 8 <= smem) words *= 2;
  const uint32_t per_thread = 4096;
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  CHECK(cudaLaunchKernelEx(&config, kernel, words, per_thread, sink));  // warm-up
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(a));
  const int reps = 3;
  for (int r = 0; r < reps; ++r) CHECK(cudaLaunchKernelEx(&config, kernel, words, per_thread, sink));
  CHECK(cudaEventRecord(b));
  CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  (void)sms;
  const double accesses = static_cast<double>(config.gridDim.x) * kThreads * per_thread * reps;
  return accesses / (ms / 1000.0);
}

int main(int argc, char** argv) {
  const size_t smem = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 160) << 10;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s: %d SMs, %zu KiB of shared memory per block, %d threads, %d accesses in flight per thread\n",
              prop.name, prop.multiProcessorCount, smem >> 10, kThreads, kInflight);
  uint32_t* sink = nullptr;
  CHECK(cudaMalloc(&sink, 4));
  const int sms = prop.multiProcessorCount;
  int clusters = 0;
  const double lr = run<kRead, false>(1, smem, sms, sink, &clusters);
  const double lrw = run<kReadWrite, false>(1, smem, sms, sink, &clusters);
  const double lam = run<kAtomicMax, false>(1, smem, sms, sink, &clusters);
  std::printf("local shared memory    : read %7.1f G/s, read+write %7.1f G/s, atomicMax %7.1f G/s\n", lr / 1e9, lrw / 1e9,
              lam / 1e9);
  for (int c : {2, 4, 8, 16}) {
    const double r = run<kRead, true>(c, smem, sms, sink, &clusters);
    if (clusters == 0) {
      std::printf("cluster of %2d: does not fit\n", c);
      continue;
    }
    const double rw = run<kReadWrite, true>(c, smem, sms, sink, &clusters);
    const double am = run<kAtomicMax, true>(c, smem, sms, sink, &clusters);
    std::printf("cluster of %2d (%2d at once, %3d blocks): read %7.1f G/s, read+write %7.1f G/s, atomicMax %7.1f G/s\n", c,
                clusters, clusters * c, r / 1e9, rw / 1e9, am / 1e9);
    const double wr = run<kRead, true, true>(c, smem, sms, sink, &clusters);
    const double wrw = run<kReadWrite, true, true>(c, smem, sms, sink, &clusters);
    std::printf("  128 bytes per warp       : read %7.1f G/s, read+write %7.1f G/s (4-byte accesses)\n", wr / 1e9,
                wrw / 1e9);
  }
  CHECK(cudaFree(sink));
  return 0;
}
