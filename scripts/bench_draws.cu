// Times launch_draw_targets() (cuda/shuffle_launch.cuh) per generator: the swap targets of ROWS
// permutations of 1,000,000 samples drawn ahead, one thread per permutation in order, and
// for xoshiro256ss in segments too (cuda/skip_draws.cuh); in order also without the eight
// draws at a time by attempts (draw_targets_kernel<G, false>).
// usage (GPU machine): build-gpu/bench_draws 2048 10000 (built with the CUDA backend; or
//   nvcc -std=c++17 -O3 -arch=sm_90 -Isrc -Icuda -Icuda/api -Iinclude scripts/bench_draws.cu
//   src/rng/prng.cpp src/rng/skip_ahead.cpp -o /tmp/bd)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "rng/skip_ahead.hpp"

#include "rng/prng.hpp"
#include "shuffle_launch.cuh"

using namespace ea;

int main(int argc, char** argv) {
  const size_t n = 1000000;
  for (int a = 1; a < argc; ++a) {
    const uint32_t rows = static_cast<uint32_t>(std::atoi(argv[a]));
    cuda::DeviceBuffer<uint32_t> targets(drawn_target_words(n, rows));
    for (const PrngInfo& p : prng_table()) {
      StreamSet set(p.id, 1, rows + 64);
      cuda::DeviceBuffer<uint32_t> states, aux;
      const StreamSetView v = upload_streams(set.view(), states, aux, nullptr);
      cudaEvent_t e0, e1;
      cudaEventCreate(&e0);
      cudaEventCreate(&e1);
      float ms = 0;
      for (int rep = 0; rep < 2; ++rep) {
        cudaEventRecord(e0);
        launch_draw_targets(v, targets.get(), n, 0, rows, nullptr);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
      }
      std::printf("%-14s rows %6u: in order %8.1f ms (%s)", p.name, rows, ms, cudaGetErrorString(cudaGetLastError()));
      // The same without drawing eight at a time by attempts (every draw's rejection test
      // in the chain of the state, as before session 21).
      if (!is_grouped(p.id) && p.id != PrngId::Philox) {
        for (int rep = 0; rep < 2; ++rep) {
          cudaEventRecord(e0);
          visit_generator(p.id, [&](auto tag) {
            using G = decltype(tag);
            draw_targets_kernel<G, false><<<(rows + 31) / 32, 32>>>(targets.get(), n, rows, v, 0);
          });
          cudaEventRecord(e1);
          cudaEventSynchronize(e1);
          cudaEventElapsedTime(&ms, e0, e1);
        }
        std::printf("; each draw tested in turn %8.1f ms (%s)", ms, cudaGetErrorString(cudaGetLastError()));
      }
      // The segmented draws (cuda/skip_draws.cuh: xoshiro256ss).
      if (p.id == PrngId::Xoshiro256ss) {
        const std::vector<uint32_t>& table = skip_table(p.id);
        cuda::DeviceBuffer<uint32_t> d_table(table.size()), flags(rows);
        cudaMemcpy(d_table.get(), table.data(), table.size() * 4, cudaMemcpyHostToDevice);
        const SkipDrawsView sk{d_table.get(), skip_draws_shape(n), flags.get()};
        for (int rep = 0; rep < 2; ++rep) {
          cudaEventRecord(e0);
          launch_draw_targets(v, targets.get(), n, 0, rows, nullptr, &sk);
          cudaEventRecord(e1);
          cudaEventSynchronize(e1);
          cudaEventElapsedTime(&ms, e0, e1);
        }
        std::printf("; in %u segments %8.1f ms (%s)", sk.shape.segments, ms, cudaGetErrorString(cudaGetLastError()));
      }
      std::printf("\n");
    }
  }
  return 0;
}
