// The GPU permutation backend: rounds of N permutations. Which kernels each default path
// launches (the resident and reservation shuffles; the fused, block and per-thread
// statistics) is in docs/design.md, "GPU backend"; this header describes the baseline path
// of one CUDA thread per permutation (larger rounds of long binary rows, parallel-shuffle=0,
// and generators other than Philox where their drawn targets have no room):
//
//  1. shuffle_kernel: thread p copies the original symbols into copy p of an interleaved
//     batch (sample i of copy p at batch[i * N + p], so a warp's accesses to one sample
//     index are one coalesced transaction) and runs Fisher-Yates on it, driven by the
//     stream of permutation first + p of the chosen generator (src/rng/generators.hpp and
//     src/permutation/shuffle.hpp, the same code as the CPU). Generators whose lanes mix
//     their outputs run one lane group per warp, exchanging words with warp shuffles.
//  2. statistics_kernel: blockIdx.y picks one of nine merged test groups (excursion;
//     directional runs with increases/decreases; median runs; collisions; periodicity +
//     covariance for each of the five lags), as in Kim & Yeom (2021), so that the heavy
//     collision group runs beside the others; groups with no undecided test return at
//     once. Each thread calls compute_statistics() from src/stats/statistics.hpp on its
//     copy and writes one outcome byte per test (compare_outcome). The block and fused
//     kernels compute the same statistics from src/stats/pieces.hpp and fused.hpp; unit
//     and GPU tests check that every implementation gives the same values.
//  3. The outcomes come back to the host, where the driver applies them in order of
//     permutation index: counters equal the CPU's for the same seed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "block_statistics.cuh"
#include "check.cuh"
#include "device_buffer.cuh"
#include "gpu_backends.hpp"
#include "permutation/permutation.hpp"
#include "permutation/shuffle.hpp"
#include "rng/generators.hpp"
#include "rng/prng.hpp"
#include "shuffle_launch.cuh"
#include "stats/statistics.hpp"

namespace ea {

namespace {

constexpr int kGroups = 9;

constexpr int kThreads = 128;

__host__ __device__ TestMask group_mask(int g) {
  switch (g) {
    case 0: return bit(TestId::kExcursion);
    case 1: return kDirectionalMask;
    case 2: return kMedianMask;
    case 3: return kCollisionMask;
    default: {
      int k = g - 4;
      return bit(static_cast<int>(TestId::kPeriodicity1) + k) | bit(static_cast<int>(TestId::kCovariance1) + k);
    }
  }
}

// Binary data: Conversion II of every copy, interleaved like the samples (block b of copy p
// at conv[b * stride + p]); Conversion I is its popcount.
__global__ void conversion_kernel(const uint8_t* batch, uint8_t* conv, size_t stride, uint32_t p0, uint32_t count,
                                  size_t n) {
  const uint32_t p = p0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= p0 + count) return;
  const ConversionTwoView<StridedByteView> c2{StridedByteView{batch + p, n, stride}};
  const size_t blocks = c2.size();
  for (size_t b = 0; b < blocks; ++b) conv[b * stride + p] = static_cast<uint8_t>(c2[b]);
}

__global__ void statistics_kernel(const uint8_t* batch, const uint8_t* conv, size_t stride, uint32_t p0, uint32_t count,
                                  size_t n, TestMask mask, const DeviceStatInput* __restrict__ input, uint8_t* outcomes,
                                  int first_group) {
  __shared__ uint8_t table[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) table[i] = input->raw_of[i];
  __syncthreads();
  const uint32_t p = p0 + blockIdx.x * blockDim.x + threadIdx.x;
  const TestMask gm = group_mask(first_group + static_cast<int>(blockIdx.y)) & mask;
  if (p >= p0 + count || gm == 0) return;
  const StatParams params = input->params;
  const StridedByteView sym{batch + p, n, stride};
  StatVector sv;
  if (params.binary) {
    const MappedView<StridedByteView> raw{sym, table};
    const StridedByteView c2{conv + p, (n + 7) / 8, stride};
    compute_statistics(sym, raw, PopcountView<StridedByteView>{c2}, c2, params, gm, sv);
  } else {
    const MappedView<StridedByteView> raw{sym, table};
    compute_statistics(sym, raw, sym, sym, params, gm, sv);
  }
  uint8_t* row = outcomes + static_cast<size_t>(p) * kNumTests;
  for (int t = 0; t < kNumFastTests; ++t) {
    if (!(gm & bit(t))) continue;
    row[t] = compare_outcome(sv.v[t], input->original.v[t]);
  }
}

class GpuBackend final : public PermutationBackend {
 public:
  GpuBackend(const PermutationData& data, int gpu_id, const GpuTuning& tuning, double memory_share)
      : gpu_id_(gpu_id),
        requested_round_(tuning.round_size),
        memory_share_(memory_share),
        default_first_round_(std::max<uint32_t>(1, tuning.first_round)),
        profile_groups_(tuning.profile),
        parallel_shuffle_(tuning.parallel_shuffle),
        block_statistics_(tuning.block_statistics),
        target_rows_(tuning.target_rows),
        skip_draws_(tuning.skip_draws),
        fused_statistics_(tuning.fused_statistics),
        tuned_shuffle_block_(static_cast<int>(std::min<uint32_t>(1024, std::max<uint32_t>(1, tuning.shuffle_block)))) {
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) {
      (void)cudaGetLastError();
      throw Error(ErrorKind::Device,
                  std::string("no usable GPU: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found"));
    }
    if (gpu_id >= devices) {
      throw Error(ErrorKind::Device,
                  "no GPU with index " + std::to_string(gpu_id) + " (" + std::to_string(devices) + " found)");
    }
    EA_CUDA_CHECK(cudaSetDevice(gpu_id));
    // Wait for the GPU without spinning: the CPU cores run the compression test meanwhile.
    if (cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess) (void)cudaGetLastError();
    EA_CUDA_CHECK(cudaGetDeviceProperties(&prop_, gpu_id));
    reservations_ = reservation_blocks(tuning.reservations);
    resident_ = tuning.reservations > 0 && tuning.resident ? reservation_blocks(1) : 0;
    low_bytes_ = tuning.reservations == 1 && tuning.low_shared ? low_shared_bytes() : 0;  // one block per SM
    // Keep most of the unified L1/shared memory as L1: the lag tests read every sample
    // twice, p samples apart, and the second read should hit L1. The collision sets need
    // only kThreads * 32 bytes of shared memory per block.
    EA_CUDA_CHECK(cudaFuncSetAttribute(statistics_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 10));
    res_ = std::make_unique<Resources>();
    input_ = cuda::DeviceBuffer<DeviceStatInput>(1);
    bind(data);
  }

  // Its buffers are freed on its own device, whichever device the thread last used.
  ~GpuBackend() override { (void)cudaSetDevice(gpu_id_); }

  // A new data set on the same device buffers (a batch or a calibration runs many data
  // sets of one size): only the data, its streams and, when it is larger, the batch are
  // uploaded or reallocated. The timing counters restart.
  bool rebind(const PermutationData& data) override {
    EA_CUDA_CHECK(cudaSetDevice(gpu_id_));
    bind(data);
    return true;
  }

  std::string name() const override { return description_; }
  TestMask supported() const override { return kAllFastTests; }
  // IID data usually decides every test within a few hundred permutations: a first round
  // of first_round_ permutations, then rounds four times larger up to the full round (of 64
  // truerand_8bit rotations, 4 need more than 1,024 permutations, at most 1,900: a second
  // round of 4,096 by the block kernels costs about half a full round).
  uint32_t round_size(uint32_t round, TestMask) const override {
    uint64_t size = first_round_;
    for (uint32_t r = 0; r < round && size < round_; ++r) size *= 4;
    return static_cast<uint32_t>(std::min<uint64_t>(size, round_));
  }
  double busy_seconds() const override { return busy_ms_ / 1000.0; }
  std::string profile() const override {
    char buf[800];
    int len = 0;
    if (block_rounds_ == 0) {
      len = std::snprintf(buf, sizeof buf, "GPU: %u rounds, shuffle kernel %.3f s, statistics kernel %.3f s", rounds_,
                          shuffle_ms_ / 1000.0, stats_ms_ / 1000.0);
    } else {
      len = std::snprintf(buf, sizeof buf, "GPU: %u rounds, shuffle and statistics by a block per permutation %.3f s",
                          rounds_, block_ms_ / 1000.0);
      if (profile_groups_) {
        len += std::snprintf(buf + len, sizeof buf - len, " (shuffle %.3f s, statistics %.3f s)",
                             block_shuffle_ms_ / 1000.0, block_stats_ms_ / 1000.0);
      }
      if (block_rounds_ < rounds_ && len < static_cast<int>(sizeof buf)) {
        len += std::snprintf(buf + len, sizeof buf - len,
                             "; other rounds: shuffle kernel %.3f s, statistics kernel %.3f s", shuffle_ms_ / 1000.0,
                             stats_ms_ / 1000.0);
      }
    }
    if (drawn_ && len < static_cast<int>(sizeof buf)) {
      len += std::snprintf(buf + len, sizeof buf - len,
                           "; %s drawn ahead: %u rounds whole, %u in two halves, %u a slice at a time%s",
                           planned_ ? "bucket plans" : "targets", target_plans_[0], target_plans_[1], target_plans_[2],
                           target_no_room_ ? " (no room for one slice: one thread per permutation)" : "");
    }
    if (profile_groups_ && block_rounds_ < rounds_ && len < static_cast<int>(sizeof buf)) {
      static const char* kNames[kGroups] = {"excursion", "directional", "median", "collision", "lag1",
                                            "lag2",      "lag8",        "lag16",  "lag32"};
      len += std::snprintf(buf + len, sizeof buf - len, " (groups run one by one:");
      for (int g = 0; g < kGroups && len < static_cast<int>(sizeof buf); ++g)
        len += std::snprintf(buf + len, sizeof buf - len, " %s %.3f", kNames[g], group_ms_[g] / 1000.0);
      if (len < static_cast<int>(sizeof buf)) std::snprintf(buf + len, sizeof buf - len, ")");
    }
    return buf;
  }

  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    if (count > round_) throw Error(ErrorKind::Internal, "GPU round larger than its buffer");
    // The calling thread may not be the one that made the backend (several GPUs: one
    // thread per device and round).
    EA_CUDA_CHECK(cudaSetDevice(gpu_id_));
    const uint32_t p0 = launch(first, count, mask);
    collect(p0, count, outcomes);
    float span = 0;
    EA_CUDA_CHECK(cudaEventElapsedTime(&span, res_->start.get(), res_->done.get()));
    busy_ms_ += span;
  }

 private:
  void bind(const PermutationData& data) {
    data_ = data;
    cudaStream_t st = res_->stream;
    cuda::upload(symbols_, data.symbols, data.n, st);
    log_bits_ = symbol_log_bits(data.symbols, data.n);
    DeviceStatInput in{};
    in.params = data.params;
    in.original = data.original;
    std::copy(data.raw_of, data.raw_of + 256, in.raw_of);
    EA_CUDA_CHECK(cudaMemcpyAsync(input_.get(), &in, sizeof in, cudaMemcpyHostToDevice, st));
    // The generator's prepared start states and constants (src/rng/prng.hpp).
    streams_ = upload_streams(data.streams, states_, aux_, st);
    grouped_ = is_grouped(streams_.id);
    philox_ = streams_.id == PrngId::Philox;
    // Non-binary rows above L samples: the bucket shuffle (its pass kernels, or where their
    // buckets do not fit this GPU's shared memory one thread per column). The other
    // generators' draws are made ahead: a sequential generator's bucket plan, or the swap
    // targets of Fisher-Yates rows (binary data, Sobol, the lane groups, --shuffle fisher-yates).
    buckets_ = engine_uses_buckets(streams_.id, data.n, data.params.binary, data.shuffle);
    rows_fit_ = !buckets_ || bucket_rows_fit(data.n);
    drawn_ = !philox_;
    planned_ = drawn_ && buckets_;
    res_->bucket.reset(res_->stream);
    allocate_targets(data);
    // `in` and the host arrays must stay put until the copies are done.
    EA_CUDA_CHECK(cudaStreamSynchronize(st));
    shuffle_block_ = tuned_shuffle_block_;
    if (grouped_ && shuffle_block_ % kLaneGroup) shuffle_block_ = kLaneGroup;
    const size_t conv_per_perm = data.params.binary ? (data.n + 7) / 8 : 0;
    // Grouped generators shuffle whole lane groups: up to two partial groups more.
    const size_t extra = grouped_ ? 2 * kLaneGroup : 0;
    binary_resident_ = binary_resident(data);
    if (round_ == 0 || data.n > batch_n_ || conv_per_perm > conv_per_perm_ || round_ + extra > columns_ ||
        (rows_only_ && !rows_serve(data)) || (rows_only_ && !binary_resident_ && scratch_.size() == 0)) {
      allocate_batch(data.n, conv_per_perm, extra);
    }
    // Data that already failed another test will almost surely need every permutation:
    // full rounds from the start then.
    first_round_ = (!data.early_decision_likely || requested_round_) ? round_ : default_first_round_;
    busy_ms_ = shuffle_ms_ = stats_ms_ = block_ms_ = block_shuffle_ms_ = block_stats_ms_ = 0;
    rounds_ = block_rounds_ = 0;
    target_plans_[0] = target_plans_[1] = target_plans_[2] = 0;
    std::fill(group_ms_, group_ms_ + kGroups, 0.0);
  }

  // Binary data whose rows fit resident_fused_kernel: shuffled and tested in shared memory.
  bool binary_resident(const PermutationData& data) const {
    return fused_statistics_ && data.params.binary && data.n >= 2 && resident_ > 0 && reservations_ > 0 &&
           !engine_uses_buckets(data.streams.id, data.n, data.params.binary, data.shuffle) && rows_shuffle_serves() && resident_fused_shared(data.n) > 0;
  }

  // Whether every round of this data set runs on the rows alone (launch_blocks with the
  // fused statistics): the interleaved batch is then never used, and not allocated.
  bool rows_serve(const PermutationData& data) const {
    return fused_statistics_ && data.n >= 2 && rows_shuffle_serves() &&
           (!data.params.binary || binary_resident(data));
  }

  // Round size: as many permutations as fit in memory_share_ of the free memory (the
  // shuffle is latency-bound, so a round of 10,000 takes about as long as a round of
  // 1,000), at most 10,000; on an allocation failure, retry with half. Data sets whose
  // rounds all run on the rows (rows_serve) get rounds of 10,000 (or --round-size) with
  // no interleaved batch: their slices reuse the rows.
  void allocate_batch(size_t n, size_t conv_per_perm, size_t extra) {
    batch_.reset();
    conv_.reset();
    outcomes_.reset();
    scratch_.reset();
    rows_only_ = false;
    // The block-per-permutation shuffle's rows first (without them, the other kernel runs).
    if (binary_resident_) {
      rows_only_ = true;  // no rows in global memory at all
    } else if (rows_shuffle_serves()) {
      // Rows for two slices where a round has several and the rows serve every round
      // (launch_blocks overlaps them), else for one.
      const size_t round = requested_round_ ? requested_round_ : 10000;
      const size_t slice = std::min<size_t>(parallel_shuffle_, round);
      const bool two = rows_serve(data_) && round > slice &&
                       cuda::DeviceBuffer<uint8_t>::try_allocate(2 * slice * n + kFusedRowPad, scratch_);
      rows_only_ =
          (two || cuda::DeviceBuffer<uint8_t>::try_allocate(slice * n + kFusedRowPad, scratch_)) && rows_serve(data_);
    }
    size_t free_bytes = 0, total_bytes = 0;
    EA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // (the bucket shuffle's one-thread columns need a scratch column each: launch_bucket_columns)
    const size_t scratch_column = buckets_ && !rows_shuffle_serves() ? n : 0;
    const size_t per_perm = rows_only_ ? kNumTests : n + conv_per_perm + kNumTests + scratch_column;
    size_t n_round =
        requested_round_
            ? requested_round_
            : std::min<size_t>(10000, static_cast<size_t>(static_cast<double>(free_bytes) * memory_share_) / per_perm);
    n_round = std::max<size_t>(n_round, 1);
    while (true) {
      columns_ = n_round + extra;
      if (rows_only_ && cuda::DeviceBuffer<uint8_t>::try_allocate(columns_ * kNumTests, outcomes_)) break;
      if (!rows_only_ && cuda::DeviceBuffer<uint8_t>::try_allocate(columns_ * n, batch_) &&
          cuda::DeviceBuffer<uint8_t>::try_allocate(std::max<size_t>(1, columns_ * conv_per_perm), conv_) &&
          cuda::DeviceBuffer<uint8_t>::try_allocate(columns_ * kNumTests, outcomes_)) {
        break;
      }
      batch_.reset();
      conv_.reset();
      outcomes_.reset();
      if (n_round == 1) throw Error(ErrorKind::Device, "GPU out of memory even for one permutation");
      n_round = std::max<size_t>(1, n_round / 2);
    }
    round_ = static_cast<uint32_t>(n_round);
    batch_n_ = n;
    conv_per_perm_ = conv_per_perm;
    host_outcomes_buf_ = cuda::PinnedBuffer<uint8_t>(columns_ * kNumTests);
    host_outcomes_ = host_outcomes_buf_.get();
    char buf[512];
    std::snprintf(buf, sizeof buf, "GPU %d: %s (sm_%d%d, %.1f GiB free), rounds of up to %u permutations", gpu_id_,
                  prop_.name, prop_.major, prop_.minor, static_cast<double>(free_bytes) / (1u << 30), round_);
    description_ = buf;
  }

  // Shuffles and tests permutations first .. first+count-1 (columns 0 .. count-1 of the
  // batch); the outcomes are copied to the pinned host buffer.
  uint32_t launch(uint64_t first, uint32_t count, TestMask mask) {
    // Column c holds permutation shuffled_first + c; for grouped generators the shuffled
    // range is widened to whole lane groups, and permutation `first` is column p0.
    const uint64_t shuffled_first = grouped_ ? first / kLaneGroup * kLaneGroup : first;
    const uint64_t shuffled_end = grouped_ ? (first + count + kLaneGroup - 1) / kLaneGroup * kLaneGroup : first + count;
    const uint32_t p0 = static_cast<uint32_t>(first - shuffled_first);
    const uint32_t shuffled = static_cast<uint32_t>(shuffled_end - shuffled_first);
    if (streams_.states && first + count > streams_.count) {
      throw Error(ErrorKind::Internal, "permutation beyond the prepared generator streams");
    }
    const size_t stride = columns_;
    cudaStream_t st = res_->stream;
    EA_CUDA_CHECK(cudaEventRecord(res_->start.get(), st));
    last_round_blocks_ = launch_blocks(first, count, mask);
    if (last_round_blocks_) return 0;
    if (rows_only_) throw Error(ErrorKind::Internal, "GPU round without the rows it was sized for");
    launch_shuffle(shuffle_config(), scratch_, st, batch_.get(), stride, shuffled, symbols_.get(), data_.n, streams_,
                   shuffled_first);
    EA_CUDA_CHECK(cudaGetLastError());
    const unsigned blocks = (count + kThreads - 1) / kThreads;
    if (data_.params.binary) {
      conversion_kernel<<<blocks, kThreads, 0, st>>>(batch_.get(), conv_.get(), stride, p0, count, data_.n);
      EA_CUDA_CHECK(cudaGetLastError());
    }
    EA_CUDA_CHECK(cudaEventRecord(res_->shuffled.get(), st));
    EA_CUDA_CHECK(cudaMemsetAsync(outcomes_.get() + static_cast<size_t>(p0) * kNumTests, kNotComputed,
                                  static_cast<size_t>(count) * kNumTests, st));
    if (!profile_groups_) {
      statistics_kernel<<<dim3(blocks, kGroups), kThreads, kThreads * kByteSetSharedBytes, st>>>(
          batch_.get(), conv_.get(), stride, p0, count, data_.n, mask & kAllFastTests, input_.get(), outcomes_.get(),
          0);
      EA_CUDA_CHECK(cudaGetLastError());
    } else {
      // One launch per group, timed separately (GpuTuning::profile).
      for (int g = 0; g < kGroups; ++g) {
        cuda::CudaEvent a, b;
        EA_CUDA_CHECK(cudaEventRecord(a.get(), st));
        statistics_kernel<<<dim3(blocks, 1), kThreads, kThreads * kByteSetSharedBytes, st>>>(
            batch_.get(), conv_.get(), stride, p0, count, data_.n, mask & kAllFastTests, input_.get(), outcomes_.get(),
            g);
        EA_CUDA_CHECK(cudaGetLastError());
        EA_CUDA_CHECK(cudaEventRecord(b.get(), st));
        EA_CUDA_CHECK(cudaEventSynchronize(b.get()));
        float ms = 0;
        EA_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
        group_ms_[g] += ms;
      }
    }
    EA_CUDA_CHECK(cudaEventRecord(res_->done.get(), st));
    EA_CUDA_CHECK(cudaMemcpyAsync(host_outcomes_ + static_cast<size_t>(p0) * kNumTests,
                                  outcomes_.get() + static_cast<size_t>(p0) * kNumTests,
                                  static_cast<size_t>(count) * kNumTests, cudaMemcpyDeviceToHost, st));
    return p0;
  }

  // The block-per-permutation path: each slice of the round is shuffled into rows
  // (launch_row_shuffle) and its statistics computed from them by a block per
  // permutation (block_statistics_kernel), outcomes straight into outcomes_[0 .. count);
  // non-binary data's statistics come from fused_statistics_kernel (one pass per piece)
  // unless fused-statistics=0. False (nothing launched) where it does not serve: rounds
  // larger than block-statistics for the block kernel (the one-thread-per-permutation
  // statistics are faster there: they are latency-bound, so a round of 10,000 costs them
  // little more than one of 1,000), no room for other generators' targets, n < 2, or no
  // room for the rows. With
  // profile=1 each kernel is timed alone.
  bool launch_blocks(uint64_t first, uint32_t count, TestMask mask) {
    if (binary_resident_) {
      cudaStream_t st = res_->stream;
      EA_CUDA_CHECK(cudaMemsetAsync(outcomes_.get(), kNotComputed, static_cast<size_t>(count) * kNumTests, st));
      bool ran = true;
      if (drawn_) {
        // The round in slices; its targets drawn in chunks (target_plan).
        const TargetSlices plan = target_plan(first, count, std::min(count, target_slice_));
        begin_slices(plan);
        for (uint32_t c0 = 0, index = 0; c0 < count && ran; c0 += plan.slice, ++index) {
          ran = launch_resident_fused(symbols_.get(), data_.n, slice_targets(plan, index, st),
                                      std::min(plan.slice, count - c0), resident_, mask & kAllFastTests, input_.get(),
                                      outcomes_.get() + static_cast<size_t>(c0) * kNumTests, nullptr, st);
          slice_done(plan, index, st);
        }
      } else {
        ran = launch_resident_fused(symbols_.get(), data_.n, streams_.seed, first, count, resident_,
                                    mask & kAllFastTests, input_.get(), outcomes_.get(), nullptr, st);
      }
      if (!ran) throw Error(ErrorKind::Internal, "binary rows that fit shared memory at set-up no longer do");
      EA_CUDA_CHECK(cudaGetLastError());
      EA_CUDA_CHECK(cudaEventRecord(res_->shuffled.get(), st));
      EA_CUDA_CHECK(cudaEventRecord(res_->done.get(), st));
      EA_CUDA_CHECK(cudaMemcpyAsync(host_outcomes_, outcomes_.get(), static_cast<size_t>(count) * kNumTests,
                                    cudaMemcpyDeviceToHost, st));
      ++block_rounds_;
      return true;
    }
    const ShuffleConfig sc = shuffle_config();
    const bool fused = fused_statistics_ && !data_.params.binary;
    if ((!fused && count > block_statistics_) || !rows_shuffle_serves() || data_.n < 2) return false;
    const uint32_t slice = launch_slice(count);
    const size_t slice_bytes = static_cast<size_t>(slice) * data_.n;
    if (scratch_.size() < slice_bytes + kFusedRowPad &&
        !cuda::DeviceBuffer<uint8_t>::try_allocate(slice_bytes + kFusedRowPad, scratch_)) {
      return false;
    }
    TargetSlices plan{};
    if (drawn_) {
      plan = target_plan(first, count, slice);
      begin_slices(plan);
    }
    // Rounds of several slices, where the rows have room for two (allocate_batch), test
    // each slice on a second stream while the next one is shuffled into the other half:
    // the statistics' blocks run beside the latency-bound shuffle's on the same SMs.
    const bool overlap = !profile_groups_ && count > slice && scratch_.size() >= 2 * slice_bytes + kFusedRowPad;
    cudaStream_t st = res_->stream;
    cudaStream_t ss = overlap ? static_cast<cudaStream_t>(res_->stats_stream) : st;
    EA_CUDA_CHECK(cudaMemsetAsync(outcomes_.get(), kNotComputed, static_cast<size_t>(count) * kNumTests, st));
    uint32_t index = 0;
    for (uint32_t c0 = 0; c0 < count; c0 += slice, ++index) {
      const uint32_t m = std::min(slice, count - c0);
      const uint32_t half = overlap ? index % 2 : 0;
      uint8_t* rows = scratch_.get() + half * slice_bytes;
      cuda::CudaEvent a, b, c;
      if (profile_groups_) EA_CUDA_CHECK(cudaEventRecord(a.get(), st));
      // These rows are free once the statistics of the slice before the last one are done.
      if (overlap && index >= 2) EA_CUDA_CHECK(cudaStreamWaitEvent(st, res_->rows_tested[half].get(), 0));
      shuffle_slice(sc, plan, index, first + c0, m, rows, st);
      EA_CUDA_CHECK(cudaGetLastError());
      if (profile_groups_) EA_CUDA_CHECK(cudaEventRecord(b.get(), st));
      if (overlap) {
        EA_CUDA_CHECK(cudaEventRecord(res_->rows_shuffled[half].get(), st));
        EA_CUDA_CHECK(cudaStreamWaitEvent(ss, res_->rows_shuffled[half].get(), 0));
      }
      constexpr int T = kBlockStatisticsThreads;
      uint8_t* out = outcomes_.get() + static_cast<size_t>(c0) * kNumTests;
      if (fused) {
        fused_statistics_kernel<T>
            <<<m, T, kBlockStatisticsShared, ss>>>(rows, data_.n, mask & kAllFastTests, input_.get(), out, nullptr);
      } else {
        block_statistics_kernel<T>
            <<<m, T, kBlockStatisticsShared, ss>>>(rows, data_.n, mask & kAllFastTests, input_.get(), out, nullptr);
      }
      EA_CUDA_CHECK(cudaGetLastError());
      if (overlap) EA_CUDA_CHECK(cudaEventRecord(res_->rows_tested[half].get(), ss));
      if (profile_groups_) {
        EA_CUDA_CHECK(cudaEventRecord(c.get(), st));
        EA_CUDA_CHECK(cudaEventSynchronize(c.get()));
        float shuffle_ms = 0, stats_ms = 0;
        EA_CUDA_CHECK(cudaEventElapsedTime(&shuffle_ms, a.get(), b.get()));
        EA_CUDA_CHECK(cudaEventElapsedTime(&stats_ms, b.get(), c.get()));
        block_shuffle_ms_ += shuffle_ms;
        block_stats_ms_ += stats_ms;
      }
    }
    EA_CUDA_CHECK(cudaEventRecord(res_->shuffled.get(), st));
    // The last slice's statistics (the second stream runs in order: every slice's).
    if (overlap) EA_CUDA_CHECK(cudaStreamWaitEvent(st, res_->rows_tested[(index - 1) % 2].get(), 0));
    EA_CUDA_CHECK(cudaEventRecord(res_->done.get(), st));
    EA_CUDA_CHECK(cudaMemcpyAsync(host_outcomes_, outcomes_.get(), static_cast<size_t>(count) * kNumTests,
                                  cudaMemcpyDeviceToHost, st));
    ++block_rounds_;
    return true;
  }

  // The rows of a round of `count` permutations shuffled at once by launch_blocks: at most
  // parallel-shuffle, and for rounds of several slices whole waves of the reservation
  // kernel's blocks (each block does rows q, q + blocks, ...; a partial last wave leaves SMs
  // idle).
  uint32_t launch_slice(uint32_t count) const {
    uint32_t slice = std::min(parallel_shuffle_, count);
    if (drawn_ && target_slice_ > 0) slice = std::min(slice, target_slice_);
    if (count > slice && reservations_ > 0 && slice > reservations_) slice = slice / reservations_ * reservations_;
    return slice;
  }

  // Whether rows are shuffled by a block each (launch_row_shuffle): Philox, or any other
  // generator whose targets have room to be drawn ahead (bind: allocate_targets).
  bool rows_shuffle_serves() const {
    return parallel_shuffle_ > 0 && reservations_ > 0 && rows_fit_ && (philox_ || (drawn_ && target_slice_ > 0));
  }

  // Room for the drawn targets. A sequential generator draws a permutation's 10^6 targets
  // in 70-170 ms on an H100 (one thread; the chain of its state) however many permutations
  // draw at once (scripts/bench_draws.cu), so a round's targets are drawn at once where
  // memory allows (10,000 rows of 10^6 samples: 40 GB); else in two chunks of whole slices
  // (one drawn while the other is shuffled), else a chunk at a time. Here: one slice's
  // rows (without them the generator keeps the one-thread-per-permutation shuffle), and the
  // whole round's for data that will run full rounds; other data's rounds ask for more
  // (target_plan), so data decided in its first small rounds never holds more. (A round of
  // 10,000 in slices of 1,980 rows once got two chunks of two slices from a 10,000-row
  // buffer: 1.19 s instead of 0.88 s for mrg32k3a.) Binary rows too long for shared memory
  // use rows only in rounds of up to block-statistics.
  void allocate_targets(const PermutationData& data) {
    target_slice_ = 0;
    skip_rows_ = 0;
    target_no_room_ = false;
    const size_t n = data.n;
    // (bucket rows the pass kernels cannot hold go one thread a column: no plans to draw)
    if (!drawn_ || (buckets_ && !rows_fit_) || parallel_shuffle_ == 0 || reservations_ == 0 || n < 2) {
      targets_.reset();
      return;
    }
    target_round_ = requested_round_ ? requested_round_ : 10000;
    // Where the rows do not serve every round (binary rows too long for shared memory, or
    // fused-statistics=0), rounds above block-statistics take the one-thread path.
    const bool every_round =
        fused_statistics_ && (!data.params.binary || (resident_ > 0 && resident_fused_shared(n) > 0));
    if (!every_round) target_round_ = std::min(target_round_, std::max<uint32_t>(1, block_statistics_));
    uint32_t slice = std::min(parallel_shuffle_, target_round_);
    if (targets_.size() < target_words(slice) || target_capacity() < slice) {
      targets_.reset();
      // Bucket plans (4 bytes a sample) in smaller slices where memory is short (many jobs on
      // one GPU): down to kMinPlanSlice rows; their one-thread fallback needs room too.
      const uint32_t least = planned_ ? std::min(slice, kMinPlanSlice) : slice;
      while (slice > least && target_budget_rows() < slice) slice = std::max(least, slice / 2);
      while (target_budget_rows() < slice || !cuda::DeviceBuffer<uint32_t>::try_allocate(target_words(slice), targets_)) {
        if (slice == least) {
          target_no_room_ = true;
          return;
        }
        slice = std::max(least, slice / 2);
      }
    }
    target_slice_ = slice;
    // Data that failed another test runs full rounds from the start: their room now.
    if (!data.early_decision_likely && every_round) grow_targets(target_round_);
    prepare_skip();
  }

  // The segmented draws' buffers for the rows targets_ holds (skip_rows_ = 0, the draws
  // in order, where the generator does not draw in segments, skip-draws=0 or memory fails).
  void prepare_skip() {
    const uint32_t rows = target_slice_ ? target_capacity() : 0;
    bool segments = false;
    visit_generator(streams_.id, [&](auto tag) { segments = draws_in_segments<decltype(tag)>(); });
    skip_rows_ = 0;
    if (!drawn_ || planned_ || !skip_draws_ || !segments || rows == 0) return;
    if (skip_table_id_ != static_cast<int>(streams_.id)) {
      const std::vector<uint32_t>& table = skip_table(streams_.id);
      if (!cuda::DeviceBuffer<uint32_t>::try_allocate(table.size(), skip_table_)) return;
      EA_CUDA_CHECK(cudaMemcpy(skip_table_.get(), table.data(), table.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
      skip_table_id_ = static_cast<int>(streams_.id);
    }
    if (skip_flags_.size() < rows && !cuda::DeviceBuffer<uint32_t>::try_allocate(rows, skip_flags_)) return;
    skip_ = SkipDrawsView{skip_table_.get(), skip_draws_shape(data_.n), skip_flags_.get()};
    skip_rows_ = rows;
  }

  // Rows of targets_ for data of n samples.
  // (at most target-rows: a buffer kept from larger data holds more rows of shorter data)
  uint32_t target_capacity() const {
    const size_t rows = targets_.size() / target_words(1);
    return static_cast<uint32_t>(std::min<size_t>(rows, target_rows_ ? target_rows_ : UINT32_MAX));
  }

  // Rows of targets that memory-share allows: the share of the free memory and of what
  // this backend holds (its batch, rows, outcomes and targets), less what it holds besides
  // the targets.
  size_t target_budget_rows() const {
    size_t free_bytes = 0, total_bytes = 0;
    EA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double held = static_cast<double>(batch_.size() + conv_.size() + outcomes_.size() + scratch_.size());
    const double budget =
        (static_cast<double>(free_bytes + targets_.size() * sizeof(uint32_t)) + held) * memory_share_ - held -
        static_cast<double>(64 << 20);
    const double row_bytes = static_cast<double>(target_words(1) * sizeof(uint32_t));
    const size_t rows = budget > 0 ? static_cast<size_t>(budget / row_bytes) : 0;
    return target_rows_ ? std::min<size_t>(rows, target_rows_) : rows;
  }

  // targets_ grown towards `rows` rows within memory-share; the old buffer is kept where a
  // larger one cannot be had (the new one is allocated before the old one is freed).
  void grow_targets(uint32_t rows) {
    if (target_capacity() >= rows) return;
    const size_t want = std::min<size_t>(rows, target_budget_rows());
    if (want <= target_capacity()) return;
    EA_CUDA_CHECK(cudaStreamSynchronize(res_->stream));  // (the old buffer may still be read)
    EA_CUDA_CHECK(cudaStreamSynchronize(res_->draw_stream));
    (void)cuda::DeviceBuffer<uint32_t>::try_allocate(want * target_words(1), targets_);
    prepare_skip();
  }

  // A round's slices whose targets are drawn ahead, in chunks of per_chunk slices: chunk c
  // (permutations first + c chunk_rows() .., at most chunk_rows()) is drawn into half c %
  // halves (half_words words each), slice s is row (s % per_chunk) slice of chunk
  // s / per_chunk on.
  struct TargetSlices {
    uint64_t first;
    uint32_t count, slice, per_chunk, halves;
    size_t half_words;
    uint32_t chunk_rows() const { return slice * per_chunk; }
    uint32_t chunks() const { return count ? (count + chunk_rows() - 1) / chunk_rows() : 0; }
    uint32_t slices() const { return count ? (count + slice - 1) / slice : 0; }
    uint32_t rows_of_chunk(uint32_t c) const { return std::min(chunk_rows(), count - c * chunk_rows()); }
  };
  // The plan for a round of `count` in slices of `slice` rows: the whole round in one chunk
  // where targets_ holds it (grown first), else two chunks' worth, else one.
  TargetSlices target_plan(uint64_t first, uint32_t count, uint32_t slice) {
    if (slice == 0 || slice > target_slice_)
      throw Error(ErrorKind::Internal, "slice larger than the drawn targets' rows");
    const uint32_t slices = (count + slice - 1) / slice;
    grow_targets(std::min(count, std::max(target_round_, slice)));
    const uint32_t cap = target_capacity() / slice;  // whole slices (at least one)
    TargetSlices p{first, count, slice, 1, 1, 0};
    if (target_capacity() >= count) {
      p.per_chunk = slices;
      ++target_plans_[0];
    } else if (cap >= 2) {
      p.per_chunk = cap / 2;
      p.halves = 2;
      ++target_plans_[1];
    } else {
      p.per_chunk = 1;
      ++target_plans_[2];
    }
    p.half_words = target_words(std::min(count, p.chunk_rows()));
    return p;
  }
  void draw_chunk(const TargetSlices& p, uint32_t c) {
    const uint32_t half = c % p.halves;
    cudaStream_t sd = res_->draw_stream;
    if (c >= p.halves) EA_CUDA_CHECK(cudaStreamWaitEvent(sd, res_->targets_used[half].get(), 0));
    const uint32_t rows = p.rows_of_chunk(c);
    const uint64_t first = p.first + static_cast<uint64_t>(c) * p.chunk_rows();
    if (planned_) {
      launch_draw_plan(streams_, reinterpret_cast<uint8_t*>(targets_.get() + half * p.half_words), data_.n, first, rows,
                       res_->bucket, sd);
    } else {
      launch_draw_targets(streams_, targets_.get() + half * p.half_words, data_.n, first, rows, sd,
                          skip_rows_ >= rows ? &skip_ : nullptr);
    }
    EA_CUDA_CHECK(cudaGetLastError());
    EA_CUDA_CHECK(cudaEventRecord(res_->targets_drawn[half].get(), sd));
  }
  // The draws of the first chunks (one per half) start at once.
  void begin_slices(const TargetSlices& p) {
    for (uint32_t c = 0; c < std::min(p.halves, p.chunks()); ++c) draw_chunk(p, c);
  }
  // Slice s's targets, once drawn (`st` waits for its chunk).
  DrawnTargets slice_targets(const TargetSlices& p, uint32_t s, cudaStream_t st) {
    const uint32_t c = s / p.per_chunk, half = c % p.halves;
    if (s % p.per_chunk == 0) EA_CUDA_CHECK(cudaStreamWaitEvent(st, res_->targets_drawn[half].get(), 0));
    return DrawnTargets{targets_.get() + half * p.half_words, p.rows_of_chunk(c), (s % p.per_chunk) * p.slice};
  }
  // Slice s's shuffle is launched on `st`: after a chunk's last slice its half is free once
  // that is done, for the draws of chunk c + halves.
  void slice_done(const TargetSlices& p, uint32_t s, cudaStream_t st) {
    const uint32_t c = s / p.per_chunk;
    if (s % p.per_chunk != p.per_chunk - 1 && s + 1 != p.slices()) return;
    EA_CUDA_CHECK(cudaEventRecord(res_->targets_used[c % p.halves].get(), st));
    if (c + p.halves < p.chunks()) draw_chunk(p, c + p.halves);
  }

  // Slice `index` of a round (m rows from permutation `first`) shuffled into `rows` on st: by
  // the drawn plans or targets of the round's TargetSlices, or Philox's own streams.
  void shuffle_slice(const ShuffleConfig& sc, const TargetSlices& plan, uint32_t index, uint64_t first, uint32_t m,
                     uint8_t* rows, cudaStream_t st) {
    if (!drawn_) {
      launch_row_shuffle(sc, rows, symbols_.get(), data_.n, streams_.seed, first, m, st);
      return;
    }
    const DrawnTargets drawn = slice_targets(plan, index, st);
    if (planned_) {
      launch_bucket_src_rows(res_->bucket, rows, symbols_.get(), data_.n, plan_rows(drawn), m, st);
    } else {
      launch_row_shuffle(sc, rows, symbols_.get(), data_.n, drawn, m, st);
    }
    slice_done(plan, index, st);
  }

  // Words of targets_ for `rows` rows of this data: plan rows (bucket_plan_bytes, a multiple
  // of 64) or DrawnTargets rows.
  size_t target_words(uint32_t rows) const {
    return planned_ ? static_cast<size_t>(rows) * (bucket_plan_bytes(data_.n) / sizeof(uint32_t))
                    : drawn_target_words(data_.n, rows);
  }
  // The plan rows of a slice (slice_targets' rows read as plan rows).
  PlanRowSource plan_rows(const DrawnTargets& d) const {
    const uint8_t* base = reinterpret_cast<const uint8_t*>(d.targets);
    return PlanRowSource{base + static_cast<size_t>(d.row0) * bucket_plan_bytes(data_.n), bucket_plan_stride(data_.n)};
  }

  // Waits for the round and copies its outcomes to `out`.
  void collect(uint32_t p0, uint32_t count, uint8_t* out) {
    EA_CUDA_CHECK(cudaStreamSynchronize(res_->stream));
    if (buckets_) res_->bucket.check(res_->stream);  // an error, never a result, where a node was not held
    float shuffle_ms = 0, stats_ms = 0;
    EA_CUDA_CHECK(cudaEventElapsedTime(&shuffle_ms, res_->start.get(), res_->shuffled.get()));
    EA_CUDA_CHECK(cudaEventElapsedTime(&stats_ms, res_->shuffled.get(), res_->done.get()));
    if (last_round_blocks_) {
      block_ms_ += shuffle_ms + stats_ms;
    } else {
      shuffle_ms_ += shuffle_ms;
      stats_ms_ += stats_ms;
    }
    ++rounds_;
    const uint8_t* rows = host_outcomes_ + static_cast<size_t>(p0) * kNumTests;
    std::copy(rows, rows + static_cast<size_t>(count) * kNumTests, out);
  }

  int gpu_id_ = 0;
  uint32_t requested_round_ = 0;  // --round-size (0: from free memory)
  double memory_share_;           // share of the free memory its rounds may take
  cudaDeviceProp prop_{};
  size_t batch_n_ = 0, conv_per_perm_ = 0;  // what the batch buffers were sized for
  PermutationData data_;
  StreamSetView streams_;  // device pointers
  bool grouped_ = false;
  bool philox_ = true;    // the generator is Philox (its rows shuffled by the block kernels)
  bool buckets_ = false;  // engine_uses_buckets: the bucket shuffle for this data and generator
  bool rows_fit_ = true;  // bucket_rows_fit: the bucket shuffle's pass kernels serve this data's rows
  size_t columns_ = 0;  // permutations the batch holds (the stride of its rows)
  cuda::DeviceBuffer<uint32_t> states_, aux_;
  cuda::DeviceBuffer<uint8_t> symbols_, batch_, conv_, outcomes_;
  cuda::DeviceBuffer<DeviceStatInput> input_;
  // CUDA objects, created once the device is selected.
  struct Resources {
    cuda::CudaStream stream;
    cuda::CudaEvent start, shuffled, done;
    // launch_blocks' second stream, and the two halves of the rows: shuffled, tested.
    cuda::CudaStream stats_stream;
    cuda::CudaEvent rows_shuffled[2], rows_tested[2];
    // Generators other than Philox: their swap targets are drawn on draw_stream into the
    // halves of targets_ (drawn), and read by the shuffle on `stream` (used).
    cuda::CudaStream draw_stream;
    cuda::CudaEvent targets_drawn[2], targets_used[2];
    BucketRoom bucket;  // the bucket shuffle's bounds and overflow count
  };
  std::unique_ptr<Resources> res_;
  cuda::PinnedBuffer<uint8_t> host_outcomes_buf_;
  uint8_t* host_outcomes_ = nullptr;
  const uint32_t default_first_round_;  // GpuTuning::first_round
  uint32_t first_round_ = 0;
  uint32_t round_ = 0;
  std::string description_;
  double busy_ms_ = 0, shuffle_ms_ = 0, stats_ms_ = 0;
  uint32_t rounds_ = 0;
  // Rounds of the block-per-permutation path (their shuffle and statistics interleave by
  // slice: shuffle_ms_ holds both, unless profile=1 times them apart here).
  uint32_t block_rounds_ = 0;
  bool last_round_blocks_ = false;
  double block_ms_ = 0, block_shuffle_ms_ = 0, block_stats_ms_ = 0;
  // GpuTuning (benchmarks, docs/performance.md); every value gives the same permutations:
  // profile runs and times the nine statistics groups one by one, shuffle-block is the
  // threads per block of the one-thread-per-permutation shuffle kernel.
  const bool profile_groups_;
  double group_ms_[kGroups] = {};
  // parallel-shuffle: permutations at once of the block-per-permutation kernel, and its rows.
  const uint32_t parallel_shuffle_;
  const uint32_t target_rows_;    // GpuTuning::target_rows (0: memory-share alone)
  // Rounds whose drawn targets were planned whole, in two halves, one chunk at a time.
  uint32_t target_plans_[3] = {0, 0, 0};
  uint32_t reservations_ = 0;     // blocks in flight of the reservation shuffle
  uint32_t resident_ = 0;         // blocks in flight of its shared-memory variant (0: not used)
  uint32_t low_bytes_ = 0;        // low-shared: places of a row in global memory kept in shared memory
  uint32_t log_bits_ = 3;         // bits per sample that hold every symbol, as log2
  bool rows_only_ = false;        // no interleaved batch: every round runs on the rows (rows_serve)
  bool binary_resident_ = false;  // binary_resident(data_): rounds by resident_fused_kernel
  // Generators other than Philox (drawn_): their draws made ahead into targets_ (the bucket
  // plan where planned_, else swap targets), in slices of target_slice_ rows (0: none; the
  // one-thread shuffle then), at most target_round_ rows at once (allocate_targets,
  // target_plan).
  bool drawn_ = false;
  bool planned_ = false;
  static constexpr uint32_t kMinPlanSlice = 32;
  cuda::DeviceBuffer<uint32_t> targets_;
  uint32_t target_slice_ = 0, target_round_ = 0;
  bool target_no_room_ = false;  // memory-share or target-rows left no room for one slice
  // xoshiro256ss (skip-draws): the jump table and row flags of the segmented draws
  // (cuda/skip_draws.cuh) for skip_rows_ rows (0: a thread per row draws in order).
  const bool skip_draws_;
  cuda::DeviceBuffer<uint32_t> skip_table_, skip_flags_;
  SkipDrawsView skip_{};
  uint32_t skip_rows_ = 0;
  int skip_table_id_ = -1;  // the generator whose table skip_table_ holds

  // (a sequential generator whose plans found no room within memory-share: launch_shuffle's
  // planned columns then take slices of kMinPlanSlice rows, not parallel-shuffle's)
  ShuffleConfig shuffle_config() const {
    const uint32_t parallel =
        planned_ && target_no_room_ ? std::min(parallel_shuffle_, kMinPlanSlice) : parallel_shuffle_;
    return ShuffleConfig{shuffle_block_, parallel, reservations_, resident_, log_bits_, low_bytes_,
                         buckets_ ? &res_->bucket : nullptr};
  }
  const uint32_t block_statistics_;  // block-statistics: rounds up to this size, a block per permutation
  const bool fused_statistics_;      // fused-statistics: non-binary data by fused_statistics_kernel, any round
  cuda::DeviceBuffer<uint8_t> scratch_;
  const int tuned_shuffle_block_;
  int shuffle_block_ = 32;  // tuned_shuffle_block_, or a lane group for grouped generators
};

}  // namespace

std::unique_ptr<PermutationBackend> make_gpu_backend(const PermutationData& data, int gpu_id, const GpuTuning& tuning,
                                                     double memory_share) {
  return std::make_unique<GpuBackend>(data, gpu_id, tuning, memory_share);
}

bool warm_up_gpu(int gpu_id) {
  // The same flag as GpuBackend sets, before the context exists.
  if (cudaSetDevice(gpu_id) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  if (cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess) (void)cudaGetLastError();
  cudaFuncAttributes attr{};
  const bool ok = cudaFree(nullptr) == cudaSuccess && cudaFuncGetAttributes(&attr, statistics_kernel) == cudaSuccess &&
                  cudaFuncGetAttributes(&attr, conversion_kernel) == cudaSuccess &&
                  cudaFuncGetAttributes(&attr, shuffle_kernel<4, PhiloxGen>) == cudaSuccess &&
                  cudaFuncGetAttributes(&attr, reservation_shuffle_kernel<kReservationThreads>) == cudaSuccess &&
                  cudaFuncGetAttributes(&attr, reservation_shuffle_kernel<kReservationThreads, true>) == cudaSuccess &&
                  cudaFuncGetAttributes(&attr, resident_shuffle_kernel<kReservationThreads>) == cudaSuccess &&
                  cudaFuncGetAttributes(&attr, rows_to_columns_kernel<0>) == cudaSuccess &&
                  cudaFuncGetAttributes(&attr, block_statistics_kernel<kBlockStatisticsThreads>) == cudaSuccess &&
                  cudaFuncGetAttributes(&attr, fused_statistics_kernel<kBlockStatisticsThreads>) == cudaSuccess &&
                  cudaFuncGetAttributes(&attr, resident_fused_kernel<kReservationThreads>) == cudaSuccess;
  if (!ok) (void)cudaGetLastError();
  return ok;
}

int gpu_count() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return devices;
}

}  // namespace ea
