// Benchmark: MultiMMC's and LZ78Y's counts on bits, the CPU's passes (multi_mmc_estimate,
// lz78y_estimate on THREADS threads) against the GPU's states (gpu_mmc_bit_states,
// gpu_lz78y_bit_hits) plus the host's scoreboard / run, best of 3 each, for each file's
// bitstring: the cases of `--gpu-tuning predictors` (pipeline/assess.cpp,
// DeviceSlot::count_sources). The GPU's first call (its context) is timed apart.
//
// build: the target bench_predictors (CUDA builds)
// usage: bench_predictors THREADS FILE...   (each file 8-bit or narrower samples, one a byte)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "estimators/non_iid.hpp"
#include "estimators/non_iid_mmc_bits.hpp"
#include "gpu_predictors.hpp"

using ea::bench::best_of_3;
using ea::bench::seconds_of;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_predictors THREADS FILE...\n");
    return 2;
  }
  const int threads = std::atoi(argv[1]);
  const double first = seconds_of([] {
    const std::vector<uint8_t> tiny(64, 1);
    std::vector<uint64_t> h;
    (void)ea::gpu_lz78y_bit_hits(tiny.data(), tiny.size(), 0, h);
  }, 1);
  std::printf("GPU first call (context): %.3f s\n", first);
  for (int a = 2; a < argc; ++a) {
    std::ifstream f(argv[a], std::ios::binary);
    const std::vector<uint8_t> d((std::istreambuf_iterator<char>(f)), {});
    uint8_t top = 0;
    for (uint8_t x : d) top = std::max(top, x);
    int width = 1;
    while ((1 << width) <= top) ++width;
    std::vector<uint8_t> s;
    for (uint8_t x : d)
      for (int i = width - 1; i >= 0; --i) s.push_back(static_cast<uint8_t>((x >> i) & 1));
    const size_t n = s.size();
    const double mmc_cpu = best_of_3([&] { (void)ea::multi_mmc_estimate(s.data(), n, 2); }, threads);
    const double lz_cpu = best_of_3([&] { (void)ea::lz78y_estimate(s.data(), n, 2); }, threads);
    std::vector<uint64_t> found, right, hits;
    bool declined = false;
    const double mmc_gpu = best_of_3([&] { declined |= !ea::gpu_mmc_bit_states(s.data(), n, 0, found, right); }, 1);
    if (declined) {
      std::printf("%-28s n %9zu: the GPU declined (device memory, or n outside [18, 2^31))\n", argv[a], n);
      continue;
    }
    const double mmc_host =
        best_of_3([&] { (void)ea::multi_mmc_scoreboard(found, right, (n - 2 + 63) / 64); }, 1);
    const double lz_gpu = best_of_3([&] { declined |= !ea::gpu_lz78y_bit_hits(s.data(), n, 0, hits); }, 1);
    if (declined) {
      std::printf("%-28s n %9zu: the GPU declined (device memory, or n outside [18, 2^31))\n", argv[a], n);
      continue;
    }
    const double lz_host = best_of_3([&] { (void)ea::lz78y_from_hits(hits, n, 2); }, 1);
    std::printf("%-28s n %9zu: MultiMMC CPU %.3f s, GPU %.3f + host %.3f s; LZ78Y CPU %.3f s, GPU %.3f + host %.3f s\n",
                argv[a], n, mmc_cpu, mmc_gpu, mmc_host, lz_cpu, lz_gpu, lz_host);
  }
}
