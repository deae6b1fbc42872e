// Benchmark: the t-tuple and LRS counts (tuple_counts) on the CPU against the GPU's suffix
// LCPs (gpu_suffix_lcps) plus the host's counting from them (tuple_counts_from_lcps), best
// of 3 each, for each file's symbols, its bitstring and the bitstring's first 2^20 and 2^21
// bits: the cases of `--gpu-tuning suffixes` (pipeline/assess.cpp, DeviceSlot::count_sources).
// The GPU's first call (its context) is timed apart.
//
// build: the target bench_suffixes (CUDA builds)
// usage: bench_suffixes THREADS FILE...   (each file 8-bit or narrower samples, one a byte)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "bench_timing.hpp"
#include "estimators/non_iid.hpp"
#include "gpu_suffixes.hpp"

using ea::bench::best_of_3;
using ea::bench::seconds_of;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_suffixes THREADS FILE...\n");
    return 2;
  }
  const int threads = std::atoi(argv[1]);
  const double first = seconds_of([] {
    const std::vector<uint8_t> tiny{1, 0, 1, 1};
    (void)ea::gpu_suffix_lcps(tiny.data(), tiny.size(), 0);
  }, 1);
  std::printf("GPU first call (context): %.3f s\n", first);
  for (int a = 2; a < argc; ++a) {
    std::ifstream f(argv[a], std::ios::binary);
    const std::vector<uint8_t> d((std::istreambuf_iterator<char>(f)), {});
    uint8_t top = 0;
    for (uint8_t x : d) top = std::max(top, x);
    int width = 1;
    while ((1 << width) <= top) ++width;
    std::vector<uint8_t> bits;
    for (uint8_t x : d)
      for (int i = width - 1; i >= 0; --i) bits.push_back(static_cast<uint8_t>((x >> i) & 1));
    const std::vector<std::pair<std::string, std::vector<uint8_t>>> texts = {
        {"symbols", d},
        {"bits 2^20", std::vector<uint8_t>(bits.begin(), bits.begin() + std::min<size_t>(bits.size(), 1 << 20))},
        {"bits 2^21", std::vector<uint8_t>(bits.begin(), bits.begin() + std::min<size_t>(bits.size(), 1 << 21))},
        {"bitstring", bits}};
    for (const auto& [what, s] : texts) {
      const double cpu = best_of_3([&] { (void)ea::tuple_counts(s.data(), s.size()); }, threads);
      ea::SuffixLcps l;
      bool declined = false;
      const double gpu = best_of_3([&] {
        auto got = ea::gpu_suffix_lcps(s.data(), s.size(), 0);
        declined = !got;
        if (got) l = std::move(*got);
      }, 1);
      if (declined) {
        std::printf("%-28s %-10s n %9zu: the GPU declined (device memory)\n", argv[a], what.c_str(), s.size());
        continue;
      }
      const double host = best_of_3([&] { (void)ea::tuple_counts_from_lcps(s.data(), s.size(), l); }, threads);
      std::printf("%-28s %-10s n %9zu: CPU %.3f s; GPU LCPs %.3f s + counts %.3f s = %.3f s\n", argv[a], what.c_str(),
                  s.size(), cpu, gpu, host, gpu + host);
    }
  }
}
