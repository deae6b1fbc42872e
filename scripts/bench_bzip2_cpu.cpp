// Benchmark: the compression statistic of one permutation on one CPU thread, libbz2
// (Compressor) against the bzip2 size model (Bzip2SizeModel), on shuffles of sample files
// (std::shuffle, mt19937_64 seed 1): the best of REPS each, and whether every length agreed
// (docs/performance.md, issue 48).
//
// build: the target bench_bzip2_cpu (every build)
// usage: bench_bzip2_cpu REPS FILE...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "stats/bzip2_cpu.hpp"
#include "stats/compression.hpp"

namespace {
double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || std::atoi(argv[1]) < 1) {
    std::fprintf(stderr, "usage: bench_bzip2_cpu REPS FILE...\n");
    return 2;
  }
  const int reps = std::atoi(argv[1]);
  uint8_t identity[256];
  for (int v = 0; v < 256; ++v) identity[v] = static_cast<uint8_t>(v);
  int status = 0;
  for (int a = 2; a < argc; ++a) {
    std::ifstream f(argv[a], std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "bench_bzip2_cpu: cannot read %s\n", argv[a]);
      return 2;
    }
    std::vector<uint8_t> x((std::istreambuf_iterator<char>(f)), {});
    std::mt19937_64 rng(1);
    ea::Compressor libbz2;
    ea::Bzip2SizeModel model;
    double best_libbz2 = 1e30, best_model = 1e30;
    int differ = 0;
    for (int r = 0; r < reps; ++r) {
      std::shuffle(x.begin(), x.end(), rng);
      const double t0 = seconds_now();
      const uint64_t want = libbz2.compressed_length(x.data(), x.size(), identity);
      const double t1 = seconds_now();
      const uint64_t got = model.compressed_length(x.data(), x.size(), identity);
      const double t2 = seconds_now();
      best_libbz2 = std::min(best_libbz2, t1 - t0);
      best_model = std::min(best_model, t2 - t1);
      differ += got != want;
    }
    std::printf("%s: %zu samples, libbz2 %.1f ms, model %.1f ms (%.1fx), best of %d; lengths %s\n", argv[a], x.size(),
                1e3 * best_libbz2, 1e3 * best_model, best_libbz2 / best_model, reps, differ ? "DIFFER" : "equal");
    if (differ) status = 1;
  }
  return status;
}
