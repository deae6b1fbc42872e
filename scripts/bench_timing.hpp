// The host benchmarks' timing (scripts/bench_suffixes.cpp, scripts/bench_predictors.cpp):
// one call's wall time inside an OpenMP team of `threads` (the call's tasks go to the team),
// and the best of three.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>

namespace ea::bench {

inline double seconds_of(const std::function<void()>& f, int threads) {
  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
#pragma omp single
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

inline double best_of_3(const std::function<void()>& f, int threads) {
  double best = 1e9;
  for (int r = 0; r < 3; ++r) best = std::min(best, seconds_of(f, threads));
  return best;
}

}  // namespace ea::bench
