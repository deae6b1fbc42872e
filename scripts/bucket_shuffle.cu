// Benchmark of the engine's bucket shuffle (cuda/bucket_shuffle.cuh, docs/bucket-shuffle.md)
// beside the Fisher-Yates shuffle by reservations (cuda/parallel_shuffle.cuh) on the same
// card: PERMS permutations of N random bytes by launch_bucket_rows (b0 by the engine's rule),
// rows 0, 1, PERMS/2 and PERMS-1 checked byte for byte against the CPU reference. (Until
// session 26 this file was the prototype of the kernels with its own copies of them and
// parts timings, `git show 560d957:scripts/bucket_shuffle.cu`; its figures are in the doc.)
//
// build: the target bucket_shuffle_bench of a CUDA build, or
//   nvcc -O3 -arch=sm_90 -std=c++17 -I src -I /usr/include scripts/bucket_shuffle.cu -o bs
// usage: bs [PERMS [N]]   (default 10000 1000000)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../cuda/bucket_shuffle.cuh"
#include "../cuda/parallel_shuffle.cuh"
#include "bench_check.cuh"
#include "permutation/bucket_shuffle.hpp"
#include "rng/philox_stream.hpp"

using namespace ea;

float run_reservations(uint8_t* rows, const uint8_t* symbols, uint32_t n, uint64_t seed, uint32_t perms, int sms) {
  constexpr uint32_t T = kReservationThreads;
  int optin = 0;
  CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  cudaFuncAttributes attr{};
  CHECK(cudaFuncGetAttributes(&attr, reservation_shuffle_kernel<T, true, PhiloxTargets>));
  const size_t used = attr.sharedSizeBytes + reservation_shuffle_shared<T>();
  const uint32_t low = static_cast<uint32_t>((static_cast<size_t>(optin) - used) / 16 * 16);
  const size_t shared = reservation_shuffle_shared<T>() + low;
  CHECK(cudaFuncSetAttribute(reservation_shuffle_kernel<T, true, PhiloxTargets>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventRecord(e0));
  reservation_shuffle_kernel<T, true, PhiloxTargets>
      <<<sms, T, shared>>>(rows, symbols, n, PhiloxTargets{seed, 0}, perms, low);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(e1));
  CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  std::printf("reservations (today's shuffle, low-shared %u B): %.1f ms for %u rows\n", low, ms, perms);
  return ms;
}

// Rows `check` of the device's rows equal the CPU reference's permutations.
bool verify(const uint8_t* rows, const std::vector<uint8_t>& symbols, uint64_t seed, const std::vector<uint32_t>& check) {
  const size_t n = symbols.size();
  std::vector<uint8_t> got(n), scratch;
  bool ok = true;
  for (uint32_t j : check) {
    CHECK(cudaMemcpy(got.data(), rows + static_cast<size_t>(j) * n, n, cudaMemcpyDeviceToHost));
    std::vector<uint8_t> want = symbols;
    engine_bucket_shuffle_philox(want.data(), n, seed, j, scratch);
    const bool same = got == want;
    std::printf("    row %u: %s\n", j, same ? "equal to the CPU reference" : "DIFFERS");
    ok = ok && same;
  }
  return ok;
}

int main(int argc, char** argv) {
  const uint32_t perms = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 10000;
  const uint32_t n = argc > 2 ? static_cast<uint32_t>(std::atoi(argv[2])) : 1000000;
  const uint64_t seed = 0x5eed2026ull;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const BucketParams p = engine_bucket_params(n);
  std::printf("%s, %d SMs; %u permutations of %u bytes; bucket b0=%u b1=%u L=%u\n", prop.name,
              prop.multiProcessorCount, perms, n, p.root_bits, p.inner_bits, p.leaf);
  std::vector<uint8_t> symbols(n);
  PhiloxStream fill(1, 1);
  for (auto& x : symbols) x = static_cast<uint8_t>(fill.next());
  uint8_t *d_symbols = nullptr, *rows = nullptr;
  CHECK(cudaMalloc(&d_symbols, n));
  CHECK(cudaMalloc(&rows, static_cast<size_t>(perms) * n));
  CHECK(cudaMemcpy(d_symbols, symbols.data(), n, cudaMemcpyHostToDevice));
  run_reservations(rows, d_symbols, n, seed, perms, prop.multiProcessorCount);
  run_reservations(rows, d_symbols, n, seed, perms, prop.multiProcessorCount);
  if (!bucket_rows_fit(n)) {
    std::printf("the pass kernels do not serve rows of %u samples on this GPU (bucket_rows_fit)\n", n);
    return 1;
  }
  BucketRoom room;
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  for (int rep = 0; rep < 3; ++rep) {  // the first is a warm-up
#ifdef EA_BUCKET_PROFILE
    unsigned long long zero[16] = {};
    if (rep == 2) CHECK(cudaMemcpyToSymbol(g_bucket_profile, zero, sizeof zero));
#endif
    CHECK(cudaEventRecord(e0));
    launch_bucket_rows(room, rows, d_symbols, n, seed, 0, perms, nullptr);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    std::printf("bucket shuffle, run %d: %.1f ms for %u rows: %.0f permutations/s\n", rep, ms, perms, perms / (ms / 1000));
  }
#ifdef EA_BUCKET_PROFILE
  {
    unsigned long long prof[16];
    CHECK(cudaMemcpyFromSymbol(prof, g_bucket_profile, sizeof prof));
    // (cycles summed over blocks / SMs: pass 2's wall time where it has one block an SM; pass
    // 1 has several an SM, so its figures are block time)
    const char* names[16] = {"inner count", "inner scan", "inner scatter", "inner leaves", "inner write", "", "", "",
                             "root count", "root scan", "root scatter", "", "", "", "", ""};
    int khz = 0;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    const double ghz = khz / 1e6;
    for (int k = 0; k < 16; ++k)
      if (prof[k]) std::printf("  %-14s %10.1f ms of one block a SM (cycles / SMs / %.2f GHz)\n", names[k],
                               prof[k] / (double)prop.multiProcessorCount / ghz / 1e6, ghz);
  }
#endif
  const bool ok = verify(rows, symbols, seed, {0, 1, perms / 2, perms - 1}) && room.take_overflow() == 0;
  std::printf("%s\n", ok ? "all checked rows equal the CPU reference" : "MISMATCH or a node not held");
  return ok ? 0 : 1;
}
