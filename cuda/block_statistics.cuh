// The 18 statistics of a permutation computed by a block of threads (issue 17, item 2):
// block r reads row r of the block-per-permutation shuffle (parallel_shuffle.cuh: the
// permutation's samples contiguous, while they are still in L2), each thread summarises one
// even piece of each sequence with the functions of src/stats/pieces.hpp, and the block
// combines the summaries in order into exactly the values compute_statistics() gives:
//
//   excursion      pieces' sums, an exclusive scan, then each piece's maximum from its
//                  exact running sum; the block's maximum
//   runs           RunPiece summaries joined pairwise in order (a tree in shared memory)
//   lags           sums per piece, a block sum per lag
//   collisions     each piece's guessed chain of windows (CollisionGuess), then one thread
//                  follows the true chain through the guesses (collision_combine)
//
// One thread per permutation (statistics_kernel in gpu_backend.cu) leaves most of the GPU
// idle for a round of a thousand permutations; a block per permutation does not.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "check.cuh"
#include "parallel_shuffle.cuh"

#include "common/test_id.hpp"
#include "permutation/permutation.hpp"
#include "stats/fused.hpp"
#include "stats/pieces.hpp"
#include "stats/sequences.hpp"
#include "stats/statistics.hpp"

namespace ea {

// What the statistics kernels read besides the samples.
struct DeviceStatInput {
  StatParams params;
  StatVector original;
  uint8_t raw_of[256];
};

// 128 threads: a fused block per permutation spends its time at barriers while thread 0 combines
// the pieces' collision bounds; half the pieces halve that and fit 4 blocks an SM. H200,
// GetTickCount_8bit --track iid --no-early-exit, 10,000 permutations: device busy 0.193 s at
// 256, 0.183 s at 128, 0.184 s at 64; counters equal on GetTickCount_8bit, truerand_8bit/4bit.
constexpr int kBlockStatisticsThreads = 128;
// Dynamic shared memory of block_statistics_kernel: the threads' ByteSet words.
constexpr size_t kBlockStatisticsShared = kBlockStatisticsThreads * kByteSetSharedBytes;

namespace block_stats {

struct MaxOp {
  __device__ double operator()(double a, double b) const { return a > b ? a : b; }
};

template <int T>
struct Shared {
  RunPiece runs[T];
  CollisionGuess guesses[T];
  union {
    typename cub::BlockReduce<uint64_t, T>::TempStorage sum;
    typename cub::BlockScan<uint64_t, T>::TempStorage scan;
    typename cub::BlockReduce<double, T>::TempStorage max;
  } temp;
  StatVector result;
  uint8_t table[256];
};

// The runs of steps [0, steps) from each thread's piece (piece_fn(b, e) -> RunPiece), joined
// in order; valid in thread 0.
template <int T, class PieceFn>
__device__ RunStats block_runs(Shared<T>& sh, size_t steps, PieceFn piece_fn) {
  const uint32_t k = threadIdx.x;
  sh.runs[k] = piece_fn(even_bound(steps, k, T), even_bound(steps, k + 1, T));
  __syncthreads();
  for (uint32_t s = 1; s < static_cast<uint32_t>(T); s <<= 1) {
    if (k % (2 * s) == 0 && k + s < static_cast<uint32_t>(T)) sh.runs[k] = run_piece_join(sh.runs[k], sh.runs[k + s]);
    __syncthreads();
  }
  const RunStats r = run_piece_result(sh.runs[0]);
  __syncthreads();  // sh.runs is reused
  return r;
}

template <int T>
__device__ uint64_t block_sum(Shared<T>& sh, uint64_t v) {
  const uint64_t s = cub::BlockReduce<uint64_t, T>(sh.temp.sum).Sum(v);
  __syncthreads();
  return s;
}

// Statistics of `mask` (not excursion) on the sequences the reference reads: `dir` for
// directional runs and lags (with `cov` for the covariance), `med` for median runs, `col`
// for collisions. Results go into sh.result (thread 0).
template <int T, class Dir, class Cov, class Med, class Col>
__device__ void block_sequences(Shared<T>& sh, const Dir& dir, const Cov& cov, const Med& med, const Col& col,
                                double median, TestMask mask) {
  const uint32_t k = threadIdx.x;
  if (mask & kDirectionalMask) {
    const size_t steps = dir.size() > 0 ? dir.size() - 1 : 0;
    const RunStats d = block_runs(sh, steps, [&](size_t b, size_t e) { return directional_piece(dir, b, e); });
    if (k == 0) {
      sh.result.v[static_cast<int>(TestId::kNumDirectionalRuns)] = static_cast<double>(d.runs);
      sh.result.v[static_cast<int>(TestId::kLenDirectionalRuns)] = static_cast<double>(d.longest);
      sh.result.v[static_cast<int>(TestId::kNumIncreasesDecreases)] = static_cast<double>(d.majority);
    }
  }
  if (mask & kMedianMask) {
    const RunStats m = block_runs(sh, med.size(), [&](size_t b, size_t e) { return median_piece(med, b, e, median); });
    if (k == 0) {
      sh.result.v[static_cast<int>(TestId::kNumRunsMedian)] = static_cast<double>(m.runs);
      sh.result.v[static_cast<int>(TestId::kLenRunsMedian)] = static_cast<double>(m.longest);
    }
  }
  if (mask & kCollisionMask) {
    const size_t n = col.size();
    collision_guess(col, even_bound(n, k, T), even_bound(n, k + 1, T), sh.guesses[k]);
    __syncthreads();
    if (k == 0) {
      const CollisionStats c = collision_combine(col, sh.guesses, T).stats();
      sh.result.v[static_cast<int>(TestId::kAvgCollision)] = c.average;
      sh.result.v[static_cast<int>(TestId::kMaxCollision)] = static_cast<double>(c.maximum);
    }
    __syncthreads();
  }
  for (int j = 0; j < kNumLags; ++j) {
    const int pt = static_cast<int>(TestId::kPeriodicity1) + j, ct = static_cast<int>(TestId::kCovariance1) + j;
    if (!(mask & (bit(pt) | bit(ct)))) continue;
    const size_t n = dir.size();
    uint64_t per = 0, c = 0;
    lag_piece(dir, cov, lag(j), even_bound(n, k, T), even_bound(n, k + 1, T), per, c);
    per = block_sum(sh, per);
    c = block_sum(sh, c);
    if (k == 0) {
      sh.result.v[pt] = static_cast<double>(per);
      sh.result.v[ct] = static_cast<double>(c);
    }
  }
}

// The block's fused summaries (one per thread, f) combined in order into the statistics,
// compared with input->original into outcomes[t] for the tests of `mask` (values[t]: the
// statistics, where given). The collision guesses are in sh.guesses; thread 0 follows the
// true chain over `view` (pieces from bounds(k)) with a Set.
template <int T, class Set, class View, class Bounds>
__device__ void fused_outcomes(Shared<T>& sh, const FusedSummary& f, const View& view, Bounds bounds, TestMask mask,
                               const DeviceStatInput* __restrict__ input, uint8_t* outcomes, double* values) {
  const uint32_t k = threadIdx.x;
  const double best = cub::BlockReduce<double, T>(sh.temp.max).Reduce(f.excursion, MaxOp{});
  if (k == 0) sh.result.v[static_cast<int>(TestId::kExcursion)] = best;
  __syncthreads();
  const RunStats d = block_runs(sh, 0, [&](size_t, size_t) { return f.directional; });
  const RunStats m = block_runs(sh, 0, [&](size_t, size_t) { return f.median; });
  if (k == 0) {
    sh.result.v[static_cast<int>(TestId::kNumDirectionalRuns)] = static_cast<double>(d.runs);
    sh.result.v[static_cast<int>(TestId::kLenDirectionalRuns)] = static_cast<double>(d.longest);
    sh.result.v[static_cast<int>(TestId::kNumIncreasesDecreases)] = static_cast<double>(d.majority);
    sh.result.v[static_cast<int>(TestId::kNumRunsMedian)] = static_cast<double>(m.runs);
    sh.result.v[static_cast<int>(TestId::kLenRunsMedian)] = static_cast<double>(m.longest);
  }
  for (int j = 0; j < kNumLags; ++j) {
    const uint64_t per = block_sum(sh, f.periodicity[j]);
    const uint64_t cov = block_sum(sh, f.covariance[j]);
    if (k == 0) {
      sh.result.v[static_cast<int>(TestId::kPeriodicity1) + j] = static_cast<double>(per);
      sh.result.v[static_cast<int>(TestId::kCovariance1) + j] = static_cast<double>(cov);
    }
  }
  if ((mask & kCollisionMask) && k == 0) {
    const CollisionStats c = collision_combine_bounds<Set>(view, sh.guesses, T, bounds).stats();
    sh.result.v[static_cast<int>(TestId::kAvgCollision)] = c.average;
    sh.result.v[static_cast<int>(TestId::kMaxCollision)] = static_cast<double>(c.maximum);
  }
  __syncthreads();
  if (k < static_cast<uint32_t>(kNumFastTests) && (mask & bit(static_cast<int>(k)))) {
    const double a = sh.result.v[k];
    outcomes[k] = compare_outcome(a, input->original.v[k]);
    if (values) values[k] = a;
  }
}

}  // namespace block_stats

// Block r: the statistics of `mask` for the permutation in row r (rows[r * n ..]), compared
// with input->original into outcomes[r * kNumTests + t] (kGreater, kEqual, kLess; other
// tests untouched); with `values`, the statistics themselves too (tests).
template <int T>
__global__ void __launch_bounds__(T)
    block_statistics_kernel(const uint8_t* __restrict__ rows, size_t n, TestMask mask,
                            const DeviceStatInput* __restrict__ input, uint8_t* outcomes, double* values) {
  __shared__ block_stats::Shared<T> sh;
  for (int i = threadIdx.x; i < 256; i += T) sh.table[i] = input->raw_of[i];
  __syncthreads();
  const uint32_t r = blockIdx.x, k = threadIdx.x;
  const StatParams params = input->params;
  const ByteView sym{rows + static_cast<size_t>(r) * n, n};
  const MappedView<ByteView> raw{sym, sh.table};
  if (mask & bit(TestId::kExcursion)) {
    const size_t b = even_bound(n, k, T), e = even_bound(n, k + 1, T);
    uint64_t before = 0;
    cub::BlockScan<uint64_t, T>(sh.temp.scan).ExclusiveSum(sum_piece(raw, b, e), before);
    __syncthreads();
    const double best = cub::BlockReduce<double, T>(sh.temp.max)
                            .Reduce(excursion_piece(raw, b, e, before, params.mean), block_stats::MaxOp{});
    if (k == 0) sh.result.v[static_cast<int>(TestId::kExcursion)] = best;
    __syncthreads();
  }
  if (params.binary) {
    // Directional runs and lags on Conversion I, collisions on Conversion II (n/8 values).
    const ConversionTwoView<ByteView> c2{sym};
    const PopcountView<ConversionTwoView<ByteView>> c1{c2};
    block_stats::block_sequences(sh, c1, c1, sym, c2, 0.5, mask);
  } else {
    block_stats::block_sequences(sh, sym, raw, sym, sym, params.median, mask);
  }
  __syncthreads();
  if (k < static_cast<uint32_t>(kNumFastTests) && (mask & bit(static_cast<int>(k)))) {
    const double a = sh.result.v[k];
    outcomes[static_cast<size_t>(r) * kNumTests + k] = compare_outcome(a, input->original.v[k]);
    if (values) values[static_cast<size_t>(r) * kNumTests + k] = a;
  }
}

// Block r: the same outcomes for non-binary data (params.binary false), every statistic
// from one pass over each thread's piece of 16-byte chunks (src/stats/fused.hpp): the
// pieces' sums and their exclusive scan, then each piece's summary, combined as above.
// The rows need kFusedRowPad bytes after the last one.
template <int T>
__global__ void __launch_bounds__(T)
    fused_statistics_kernel(const uint8_t* __restrict__ rows, size_t n, TestMask mask,
                            const DeviceStatInput* __restrict__ input, uint8_t* outcomes, double* values) {
  // Raw storage: Shared's members have default initialisers, which __shared__ variables ignore.
  __shared__ alignas(16) unsigned char storage[sizeof(block_stats::Shared<T>)];
  block_stats::Shared<T>& sh = *reinterpret_cast<block_stats::Shared<T>*>(storage);
  bool same = true;
  for (int i = threadIdx.x; i < 256; i += T) {
    sh.table[i] = input->raw_of[i];
    same = same && input->raw_of[i] == i;
  }
  const bool identity = __syncthreads_and(same) != 0;
  const uint32_t r = blockIdx.x, k = threadIdx.x;
  const StatParams params = input->params;
  const uint8_t* row_start = rows + static_cast<size_t>(r) * n;
  const size_t offset = reinterpret_cast<uintptr_t>(row_start) % kFusedChunk;
  const FusedRow row{row_start - offset, offset, n};

  uint64_t before = 0;
  cub::BlockScan<uint64_t, T>(sh.temp.scan).ExclusiveSum(fused_sum(row, k, T, sh.table, identity), before);
  __syncthreads();
  const FusedSummary f = fused_piece(row, k, T, sh.table, identity, params.mean, MedianAcc(params.median).threshold,
                                     before, sh.guesses[k]);
  block_stats::fused_outcomes<T, ByteSet>(sh, f, row.view(), FusedBounds{row, T}, mask, input,
                                          outcomes + static_cast<size_t>(r) * kNumTests,
                                          values ? values + static_cast<size_t>(r) * kNumTests : nullptr);
}

// Binary data, shuffled and tested without leaving the SM (issue 17, item 2): block q
// packs the symbols a bit per sample into its shared memory, carries out permutation
// first + q there by reservations (resident_shuffle_kernel's rounds), then computes its
// statistics from the packed row (fused_binary_piece(): Conversions I and II straight from
// the words) and writes only the outcomes of row q (outcomes[q * kNumTests ..]; values
// too where given). The block's combine space lies over the reservation table, idle
// between rows and cleared again after them. Grid: blocks in flight, each doing rows
// blockIdx.x, + gridDim.x, ... < count; dynamic shared memory resident_fused_shared(n).
template <uint32_t T, class Source = PhiloxTargets>
__global__ void __launch_bounds__(T, 1)
    resident_fused_kernel(const uint8_t* __restrict__ symbols, size_t n, Source src, uint32_t count, TestMask mask,
                          const DeviceStatInput* __restrict__ input, uint8_t* outcomes, double* values) {
  constexpr uint32_t kHash = kReservationHash<T>;
  static_assert(sizeof(block_stats::Shared<T>) <= reservation_table_words<T, kHash>() * sizeof(uint32_t),
                "the combine space fits over the reservation table");
  extern __shared__ __align__(16) uint32_t resident_fused_smem[];
  __shared__ uint32_t rejected, kept;
  uint32_t* table = resident_fused_smem;
  uint32_t* words = table + reservation_table_words<T, kHash>();
  block_stats::Shared<T>& sh = *reinterpret_cast<block_stats::Shared<T>*>(table);
  const uint32_t raw0 = input->raw_of[0], raw1 = input->raw_of[1];
  const double mean = input->params.mean;
  const PackedBits row{words, n};
  const uint32_t k = threadIdx.x;
  reservation_table_clear<T, kHash>(table, rejected, kept);
  for (uint32_t q = blockIdx.x; q < count; q += gridDim.x) {
    pack_row<T>(words, symbols, n, 0);  // (its sync also orders the table's clearing)
    reservation_rounds<T, kHash>(SharedRow{words, 0}, table, n, src, q, rejected, kept);
    // (The rounds end with a sync: the row is final and the table idle.)
    uint64_t before = 0;
    cub::BlockScan<uint64_t, T>(sh.temp.scan).ExclusiveSum(fused_binary_sum(row, k, T, raw0, raw1), before);
    __syncthreads();
    const FusedSummary f = fused_binary_piece<WordByteSet>(row, k, T, raw0, raw1, mean, before, sh.guesses[k]);
    block_stats::fused_outcomes<T, WordByteSet>(sh, f, fused::PackedConversionTwoView{row}, PackedBounds{row, T}, mask,
                                                input, outcomes + static_cast<size_t>(q) * kNumTests,
                                                values ? values + static_cast<size_t>(q) * kNumTests : nullptr);
    __syncthreads();
    reservation_table_clear<T, kHash>(table, rejected, kept);
  }
}

// The dynamic shared memory of resident_fused_kernel<kReservationThreads> for binary rows of
// n samples where it fits the device, else 0.
inline size_t resident_fused_shared(size_t n) {
  constexpr uint32_t T = kReservationThreads;
  return dynamic_shared_if_fits(resident_fused_kernel<T>,
                                reservation_shuffle_shared<T>() + resident_row_words(n, 0) * sizeof(uint32_t));
}

// Launches it for rows 0 .. count-1 (their targets from `src`) with `blocks` in flight, where
// the row fits: false (nothing launched) otherwise.
template <class Source>
inline bool launch_resident_fused(const uint8_t* symbols, size_t n, const Source& src, uint32_t count, uint32_t blocks,
                                  TestMask mask, const DeviceStatInput* input, uint8_t* outcomes, double* values,
                                  cudaStream_t st) {
  constexpr uint32_t T = kReservationThreads;
  const size_t shared = resident_fused_shared(n);
  if (shared == 0 || blocks == 0 || n < 2) return false;
  EA_CUDA_CHECK(cudaFuncSetAttribute(resident_fused_kernel<T, Source>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(shared)));
  resident_fused_kernel<T, Source>
      <<<std::min(count, blocks), T, shared, st>>>(symbols, n, src, count, mask, input, outcomes, values);
  return true;
}

// The same for the Philox permutations first .. first+count-1.
inline bool launch_resident_fused(const uint8_t* symbols, size_t n, uint64_t seed, uint64_t first, uint32_t count,
                                  uint32_t blocks, TestMask mask, const DeviceStatInput* input, uint8_t* outcomes,
                                  double* values, cudaStream_t st) {
  return launch_resident_fused(symbols, n, PhiloxTargets{seed, first}, count, blocks, mask, input, outcomes, values, st);
}

}  // namespace ea
