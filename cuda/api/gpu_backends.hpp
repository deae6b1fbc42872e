// The GPU backends as the layers above see them: factories and their tuning, no CUDA type.
// Defined by cuda/*.cu when CUDA is built, otherwise by cuda/gpu_unavailable.cpp (which
// throws Error{Device}). Depends only on the permutation layer (src/).
#pragma once

#include <cstdint>
#include <memory>

#include "permutation/permutation.hpp"

namespace ea {

// How the GPU backends size and run their work. Every value gives the same permutations
// and the same counters (the determinism contract); only speed and memory change. Filled by
// the CLI (--round-size, --gpu-tuning KEY=VALUE,...; cli/gpu_tuning.cpp lists the keys),
// recorded in the JSON. The library reads no environment variable.
struct GpuTuning {
  double memory_share = 0.85;   // memory-share: share of the free device memory all rounds together may take
  uint32_t round_size = 0;      // round: permutations per round; 0 = as many as memory allows, at most 10,000
  uint32_t first_round = 1024;  // first-round: first round of data that passed chi-square and LRS (IID-looking)
  uint32_t shuffle_block = 32;  // shuffle-block: threads per block of the shuffle kernel
  // parallel-shuffle: permutations shuffled at once by the block-per-permutation kernel
  // (other generators than Philox draw their targets ahead, where there is memory for
  // them: docs/prngs.md; the GPU compression test shuffles them one thread per
  // permutation); 0: one thread per permutation.
  uint32_t parallel_shuffle = 2048;
  // block-statistics: rounds of at most this many permutations get their statistics from a
  // block of threads per permutation, on the shuffle's rows (cuda/block_statistics.cuh); the
  // others one thread per permutation and test group (faster for full rounds, H100: 0.23 s
  // against 0.35 s for 10,000 permutations; 0.16 s against 0.037 s for 1,024). With
  // fused-statistics, this applies only to binary data too long for shared memory.
  uint32_t block_statistics = 4096;
  // reservations: blocks per SM of the block-per-permutation shuffle by deterministic
  // reservations (cuda/parallel_shuffle.cuh; 512 threads and 80 KiB of shared memory
  // each; at least 1: the chunked kernel that 0 chose, 0.77 s against 0.51 s for 10,000
  // permutations of 10^6 samples on the H100, is gone since issue 31).
  uint32_t reservations = 1;
  // resident: the shuffle by reservations keeps each row packed in shared memory where it
  // fits (cuda/parallel_shuffle.cuh, resident_shuffle_kernel: binary data up to about 1.2
  // million samples, 8-bit data up to about 150,000), so it never touches global memory
  // while shuffling; false: the rows stay in global memory.
  bool resident = true;
  // fused-statistics: non-binary data gets its statistics from one pass over each thread's
  // piece, read 16 bytes at a time (cuda/block_statistics.cuh, fused_statistics_kernel), and
  // binary data whose row fits shared memory (resident) is shuffled and tested there
  // (resident_fused_kernel), in rounds of every size; false, or binary rows too long: the
  // block kernel up to block-statistics, above it one thread per permutation and test group.
  bool fused_statistics = true;
  // low-shared: a row shuffled in global memory (too long for resident: 8-bit data above
  // about 150,000 samples, 4-bit above about 300,000, on an H100) keeps its lowest places
  // in shared memory, as many as fit beside the reservation table: every step's target may
  // fall there (reservation_shuffle_kernel<T, true>; with reservations = 1, as the kernel
  // takes a whole SM, and where at least 96 KiB fit: fewer were slower than none on the
  // H100); false: the whole row in global memory.
  bool low_shared = true;
  // target-rows: rows (permutations) of swap targets that generators other than Philox
  // draw ahead may hold at most (4 bytes a sample); 0: as many as memory-share allows, a
  // whole round where it fits (40 GB for 10,000 permutations of 10^6 samples). Fewer rows
  // are drawn in two halves (one drawn while the other is shuffled) or one slice at a time
  // (H200, 10,000 x 10^6: xorwow 0.570 s whole, 1.052 s in two halves of 2,048; xoshiro256ss,
  // whose draws are segmented, 0.527 s and 0.531-0.535 s), and below one slice the
  // generator keeps the one-thread-per-permutation shuffle.
  uint32_t target_rows = 0;
  // skip-draws: xoshiro256ss draws each permutation's targets in segments, about 32
  // threads a row, each from its own skipped state (cuda/skip_draws.cuh; H200, 10,000
  // rows of 10^6: 26.5 ms instead of 93.6); false: one thread a row, in order.
  bool skip_draws = true;
  uint64_t bz_chars = uint64_t{1} << 26;  // bz-chars: text characters the compression model holds at once
  // bz-shuffle: permutations the compression backend shuffles at once; 0 (default): 128 with
  // Philox, up to 1,024 with the others (one thread a permutation: cuda/compression_backend.cu)
  uint32_t bz_shuffle = 0;
  // bz-statistics: full counts (--no-early-exit --all-tests) of non-binary data with Philox
  // take the 18 statistical tests from the rows the compression backend shuffles for its
  // texts (one phase of every test, each permutation made once: the driver's one_phase);
  // false: the statistics backend makes every permutation again for them.
  bool bz_statistics = true;
  // bz-lanes: full counts run the compression test on this many backends a GPU (each its own
  // stream, round buffers and 1/bz-lanes of the GPU's memory share) side by side, so that one's
  // host work and small kernels overlap another's. H200, full counts of GetTickCount_8bit and
  // truerand_8bit: 2.94-3.14 s with one, 2.76-2.83 s with two, 2.74-2.77 s with three
  // (`--gpu 0,0` and `0,0,0` at one lane: .device/run52c.sh, session 52).
  uint32_t bz_lanes = 2;
  // suffixes: with --device gpu, and with --device auto once a batch worker's permutation tests
  // have a GPU backend, the shortest text (symbols) whose suffixes the GPU sorts for the
  // t-tuple and LRS estimates (cuda/suffix_lcps.cu, DeviceSlot::count_sources); 0: never.
  // H200: 10^6 8-bit symbols 0.006-0.007 s against 0.019-0.089 s on 16 cores, 8*10^6 bits
  // 0.030-0.034 s against 0.23-0.34 s (scripts/bench_suffixes.cpp), a context made.
  uint64_t suffixes = uint64_t{1} << 20;
  // predictors: with --device gpu, the shortest binary input (the bitstring, or binary
  // samples) whose MultiMMC and LZ78Y states the GPU counts (cuda/bit_predictors.cu); 0: never. H200, GetTickCount_8bit's 8 x
  // 10^6 bits: MultiMMC 0.010 s + 0.005 s on the host against 0.073 s on 16 cores, LZ78Y
  // 0.011 + 0.002 s against 0.143 s (scripts/bench_predictors.cpp), a context made.
  uint64_t predictors = uint64_t{1} << 20;
  bool profile = false;         // profile: time each statistics group and compression stage (slower)
  bool warm_up = true;          // warm-up: create the CUDA context and load the kernels while the data is read
};

// Creates GPU gpu_id's CUDA context and loads the kernels a first assessment needs (the
// shuffles, the statistics, the conversion), so that make_gpu_backend does not pay for
// them later: a worker calls it on a thread of its own while it reads and tests its first
// data set. Errors are left for make_gpu_backend to report (this returns false then).
bool warm_up_gpu(int gpu_id);

// The permutation backend of the 18 non-compression tests on GPU `gpu_id`. Rounds take at
// most `memory_share` of the free device memory (a batch divides tuning.memory_share among
// its workers). Throws Error{Device} when no usable GPU exists.
std::unique_ptr<PermutationBackend> make_gpu_backend(const PermutationData& data, int gpu_id, const GpuTuning& tuning,
                                                     double memory_share);

// The compression test on a GPU: the exact bzip2 size model (src/stats/bzip2_model.hpp)
// run on the device; with bz-statistics, in full counts (data.every_permutation) of
// non-binary data whose permutations are Philox's rows, the 18 statistical tests too, from the
// same rows (supported() is then every test: the driver's one phase). data.original.v[kNumFastTests] holds libbz2's length of the original
// data: the backend checks that the model gives the same for it and throws Error{Device} if
// not (or when there is no GPU, or for generators with coupled lanes). It may instead be NaN
// (libbz2 still running): the backend then compares permutations with the model's own length
// of the original, and the caller must compare that with libbz2's
// (gpu_compression_model_original) before using any result.
std::unique_ptr<PermutationBackend> make_gpu_compression_backend(const PermutationData& data, int gpu_id,
                                                                 const GpuTuning& tuning, double memory_share);

// The model's length of the original data of the data set `backend` (made by
// make_gpu_compression_backend) was last bound to.
double gpu_compression_model_original(const PermutationBackend& backend);

// Number of usable GPUs (0 without CUDA support or without a device).
int gpu_count();

}  // namespace ea
