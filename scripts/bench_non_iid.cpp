// Benchmark: each heavy non-IID estimate alone on 1..16 threads (a team of its own).
// (the t-tuple and LRS counts, LZ78Y, MultiMMC, Lag: docs/performance-history.md, issue 48),
// best of 3 each, on a 8-bit sample file (its literal symbols and its bitstring); the bits'
// paths of a CPU without AVX-512 (`portable`) and LZ78Y's tasks too (set_bit_paths).
//
// build: the target bench_non_iid (every build), or
//   g++ -O2 -std=c++17 -fopenmp -I src -I build/generated scripts/bench_non_iid.cpp cli/huge_pages.cpp
//       build/libea_core.a -ldivsufsort   (cli/huge_pages.cpp: large blocks on huge pages, as in ea_iid)
// usage: bench_non_iid FILE [THREADS...]   (default 1 4 16)
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <functional>
#include <vector>
#include "estimators/non_iid.hpp"
#include "estimators/non_iid_mmc_bits.hpp"
using namespace ea;
int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_non_iid FILE [THREADS...]\n");
    return 2;
  }
  std::ifstream f(argv[1], std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "bench_non_iid: cannot read %s\n", argv[1]);
    return 2;
  }
  std::vector<uint8_t> d((std::istreambuf_iterator<char>(f)), {});
  std::vector<uint8_t> bits;
  for (uint8_t x : d) for (int i = 7; i >= 0; --i) bits.push_back((x >> i) & 1);
  struct Job { const char* name; std::function<void()> run; };
  std::vector<Job> jobs = {
    {"lz78y bits", [&] { lz78y_estimate(bits.data(), bits.size(), 2); }},
    {"lz78y bits (one span)", [&] { set_lz78y_spans(1); lz78y_estimate(bits.data(), bits.size(), 2); set_lz78y_spans(0); }},
    {"lz78y bits (portable)", [&] { set_bit_paths(BitPaths::portable); lz78y_estimate(bits.data(), bits.size(), 2); set_bit_paths(BitPaths::fastest); }},
    {"lz78y bits (tasks)", [&] { set_bit_paths(BitPaths::tasks); lz78y_estimate(bits.data(), bits.size(), 2); set_bit_paths(BitPaths::fastest); }},
    {"lz78y literal", [&] { lz78y_estimate(d.data(), d.size(), 256); }},
    {"tuple bits", [&] { tuple_counts(bits.data(), bits.size()); }},
    {"tuple bits (suffix array)", [&] { tuple_counts(bits.data(), bits.size(), true); }},
    {"multiMmc literal", [&] { multi_mmc_estimate(d.data(), d.size(), 256); }},
    {"multiMmc bits", [&] { multi_mmc_estimate(bits.data(), bits.size(), 2); }},
    {"multiMmc bits (portable)", [&] { set_bit_paths(BitPaths::portable); multi_mmc_estimate(bits.data(), bits.size(), 2); set_bit_paths(BitPaths::fastest); }},
    {"lag bits", [&] { lag_estimate(bits.data(), bits.size(), 2); }},
  };
  std::vector<int> threads;
  for (int i = 2; i < argc; ++i) threads.push_back(std::atoi(argv[i]));
  if (threads.empty()) threads = {1, 4, 16};
  for (auto& j : jobs) {
    for (int t : threads) {
      double best = 1e9;
      for (int r = 0; r < 3; ++r) {
        auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(t)
#pragma omp single
        j.run();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::printf("%-28s threads %2d: %.3f s\n", j.name, t, best);
    }
  }
}
