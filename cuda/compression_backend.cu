// The compression test (SP 800-90B 5.1.11) on the GPU: for a round of B permutations,
// the exact length of libbz2's output for each one's decimal text, from the bzip2 size
// model in src/stats/bzip2_model.hpp (the same functions the host tests check against
// libbz2). This file is the adapter (buffers, rounds, the self-check); the steps are in
// cuda/bzip2/:
//  1. the statistics backend's shuffles (shuffle_launch.cuh) shuffle B copies;
//  2. text.cuh: the B decimal texts back to back (every permutation's text has the same
//     length) and their bzip2 blocks (slices: decimal text has no run of 4 equal bytes);
//  3. bwt.cu: the Burrows-Wheeler transform of every block at once by prefix doubling;
//  4. coding.cu: move-to-front in segments, zero-run coding and the Huffman tables, giving
//     each block's bits.
// The original (unshuffled) data goes through the same steps; assess() compares that length
// with libbz2's after the run, and on a difference drops these counters and runs the test
// again with libbz2 on the CPU cores (pipeline/assess.cpp, run_permutation_stage).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "block_statistics.cuh"
#include "bzip2/bwt.cuh"
#include "bzip2/coding.cuh"
#include "bzip2/common.cuh"
#include "bzip2/text.cuh"
#include "check.cuh"
#include "device_buffer.cuh"
#include "gpu_backends.hpp"
#include "permutation/permutation.hpp"
#include "shuffle_launch.cuh"
#include "stats/bzip2_model.hpp"
#include "stats/decimal_text.hpp"

namespace ea {

namespace {

using namespace gpubz;

constexpr int kLevel = 5;  // the block size the reference compresses with
// Permutations the backend shuffles at once by default (bz-shuffle=0): Philox's rows go by
// slices of parallel-shuffle's rows, 128 at a call. The other generators make each
// permutation in one thread (a bucket plan's walk, or Fisher-Yates' chain), which costs
// about as much for 1,024 permutations as for 128: 1,024 at once where memory allows (H200,
// session 39, full counts of truerand_8bit: xoshiro256ss 21.8 s at 128, 7.5 s at 1,024, 6.3 s
// at 2,048; mrg32k3a 29.3, 8.7, 7.0 s; the counters equal).
constexpr uint32_t kShuffleRows = 128, kSequentialShuffleRows = 1024;

// Everything a round of `copies` permutations needs on the device, allocated together and
// released together.
struct RoundBuffers {
  cuda::DeviceBuffer<uint8_t> batch, last;
  TextBuffers text;
  BlockTableBuffers blocks;
  BwtWorkspace bwt;
  CodingBuffers coding;
};

class GpuCompressionBackend final : public PermutationBackend {
 public:
  GpuCompressionBackend(const PermutationData& data, int gpu_id, const GpuTuning& tuning, double memory_share)
      : gpu_id_(gpu_id), memory_share_(memory_share), tuning_(tuning) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices <= gpu_id) {
      (void)cudaGetLastError();
      throw Error(ErrorKind::Device, "no usable GPU for the compression test");
    }
    EA_CUDA_CHECK(cudaSetDevice(gpu_id));
    reservations_ = reservation_blocks(tuning.reservations);
    resident_ = tuning.reservations > 0 && tuning.resident ? reservation_blocks(1) : 0;
    low_bytes_ = tuning.reservations == 1 && tuning.low_shared ? low_shared_bytes() : 0;  // one block per SM
    res_ = std::make_unique<Resources>(tuning.profile);
    stat_input_ = cuda::DeviceBuffer<DeviceStatInput>(1);
    bind(data);
  }

  ~GpuCompressionBackend() override { (void)cudaSetDevice(gpu_id_); }  // its buffers live on gpu_id_

  double model_original() const { return model_original_; }

  std::string profile() const override {
    char buf[560];
    int len = std::snprintf(buf, sizeof buf, "GPU compression: %.3f s busy", busy_ms_ / 1000.0);
    if (res_->timer.enabled()) {
      static const char* kNames[StageTimer::kStages] = {"text", "split", "sort", "doubling", "bwt", "mtf", "bits"};
      len += std::snprintf(buf + len, sizeof buf - len, " (%u rotations tied at the end, %u rounds by characters;",
                           unresolved_, buffers_ ? buffers_->bwt.by_characters : 0u);
      for (int k = 0; k < StageTimer::kStages && len < static_cast<int>(sizeof buf); ++k) {
        len += std::snprintf(buf + len, sizeof buf - len, " %s %.3f s", kNames[k], res_->timer.total_ms(k) / 1000.0);
      }
      if (len < static_cast<int>(sizeof buf)) {
        std::snprintf(buf + len, sizeof buf - len, "; host %.3f s in the rounds' calls, %.3f s of it waiting)",
                      res_->timer.host_ms() / 1000.0, res_->timer.wait_ms() / 1000.0);
      }
    }
    return buf;
  }

  std::string name() const override {
    return "gpu " + std::to_string(gpu_id_) + " (bzip2 size model: " + std::to_string(shuffle_copies_) +
           " permutations per shuffle, " + std::to_string(copies_) + " modelled at a time)";
  }
  // Every test where the statistics come from the shuffled rows (bind: stats_).
  TestMask supported() const override { return stats_ ? kAllTests : bit(TestId::kCompression); }
  uint32_t round_size(uint32_t, TestMask) const override { return shuffle_copies_; }
  double busy_seconds() const override { return busy_ms_ / 1000.0; }
  bool rebind(const PermutationData& data) override {
    EA_CUDA_CHECK(cudaSetDevice(gpu_id_));
    bind(data);
    return true;
  }

  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    if (count > shuffle_copies_) throw Error(ErrorKind::Internal, "GPU compression round larger than its buffer");
    EA_CUDA_CHECK(cudaSetDevice(gpu_id_));  // the calling thread may be another one than the maker's
    std::fill(outcomes, outcomes + static_cast<size_t>(count) * kNumTests, kNotComputed);
    if (!(mask & supported()) || count == 0) return;
    shuffle(first, count, mask);
    take_statistics(0, count, mask, outcomes);
    if (!(mask & bit(TestId::kCompression))) return;
    for (uint32_t c0 = 0; c0 < count; c0 += copies_) {
      const uint32_t m = std::min(copies_, count - c0);
      judge(c0, m, outcomes + static_cast<size_t>(c0) * kNumTests);
    }
  }

  // The shuffle is latency-bound (one thread runs a whole Fisher-Yates pass), so it is
  // done for many permutations at once; the model then runs on as many at a time as its
  // buffers hold, and the permutations after the deciding one are never modelled.
  void stream(uint64_t first, uint32_t count, TestMask mask, const OutcomeSink& sink) override {
    EA_CUDA_CHECK(cudaSetDevice(gpu_id_));
    if (stats_ && (mask & kAllFastTests)) {  // (one phase, no early exit: rounds of run(), every test)
      PermutationBackend::stream(first, count, mask, sink);
      return;
    }
    std::vector<uint8_t> rows;
    uint32_t done = 0;
    while ((mask & bit(TestId::kCompression)) && done < count) {
      const uint32_t n = std::min(shuffle_copies_, count - done);
      shuffle(first + done, n, 0);
      for (uint32_t c0 = 0; c0 < n; c0 += copies_) {
        const uint32_t m = std::min(copies_, n - c0);
        rows.assign(static_cast<size_t>(m) * kNumTests, kNotComputed);
        judge(c0, m, rows.data());
        mask = sink(first + done + c0, m, rows.data());
        if (!(mask & bit(TestId::kCompression))) return;
      }
      done += n;
    }
  }

 private:
  // Columns 0 .. count-1 of the batch become permutations first .. first+count-1; with
  // statistical tests in `mask` (stats_), their outcomes of each slice of rows go into
  // stat_rows_ (row c of the columns' permutation c).
  void shuffle(uint64_t first, uint32_t count, TestMask mask) {
    if (streams_.states && first + count > streams_.count) {
      throw Error(ErrorKind::Internal, "permutation beyond the prepared generator streams");
    }
    cudaStream_t st = res_->stream;
    EA_CUDA_CHECK(cudaEventRecord(res_->start.get(), st));
    const ShuffleConfig sc = shuffle_config();
    const TestMask fast = stats_ ? mask & kAllFastTests : 0;
    RowsHook on_rows;
    if (fast) {
      EA_CUDA_CHECK(cudaMemsetAsync(stat_rows_.get(), kNotComputed, static_cast<size_t>(count) * kNumTests, st));
      on_rows = [&](const uint8_t* rows, uint32_t c0, uint32_t m) {
        constexpr int T = kBlockStatisticsThreads;
        fused_statistics_kernel<T><<<m, T, kBlockStatisticsShared, st>>>(
            rows, data_.n, fast, stat_input_.get(), stat_rows_.get() + static_cast<size_t>(c0) * kNumTests, nullptr);
        EA_CUDA_CHECK(cudaGetLastError());
      };
    }
    const bool as_rows = launch_shuffle(sc, scratch_, st, buffers_->batch.get(), shuffle_copies_, count, symbols_.get(),
                                        data_.n, streams_, first, on_rows);
    EA_CUDA_CHECK(cudaGetLastError());
    if (fast && !as_rows) {
      throw Error(ErrorKind::Internal, "the GPU compression test's permutations were not made as rows for their statistics");
    }
    if (fast) {
      EA_CUDA_CHECK(cudaMemcpyAsync(host_stat_rows_.data(), stat_rows_.get(), static_cast<size_t>(count) * kNumTests,
                                    cudaMemcpyDeviceToHost, st));
    }
    EA_CUDA_CHECK(cudaEventRecord(res_->done.get(), st));
    EA_CUDA_CHECK(cudaEventSynchronize(res_->done.get()));
    res_->bucket.check(st);  // (an error, never a result, where the bucket shuffle met a node it cannot hold)
    add_busy();
  }

  ShuffleConfig shuffle_config() const {
    return ShuffleConfig{static_cast<int>(std::max<uint32_t>(1, tuning_.shuffle_block)),
                         tuning_.parallel_shuffle,
                         reservations_,
                         resident_,
                         log_bits_,
                         low_bytes_,
                         engine_uses_buckets(streams_.id, data_.n, data_.params.binary, data_.shuffle) ? &res_->bucket
                                                                                                      : nullptr};
  }

  // Whether the statistical tests come from the shuffled rows (bz-statistics): full counts
  // (every permutation modelled: the driver's one phase) of non-binary data whose permutations
  // launch_shuffle makes as rows, where a slice of rows with the fused kernel's pad and the
  // outcome rows have room; then their input is uploaded.
  bool bind_statistics(const PermutationData& data) {
    if (!data.every_permutation || !tuning_.bz_statistics || !tuning_.fused_statistics || data.params.binary ||
        !shuffles_rows(shuffle_config(), streams_, data.n)) {
      return false;
    }
    const size_t slice = std::min(tuning_.parallel_shuffle, shuffle_copies_) * data.n + kFusedRowPad;
    const size_t outcomes = static_cast<size_t>(shuffle_copies_) * kNumTests;
    if ((scratch_.size() < slice && !cuda::DeviceBuffer<uint8_t>::try_allocate(slice, scratch_)) ||
        (stat_rows_.size() < outcomes && !cuda::DeviceBuffer<uint8_t>::try_allocate(outcomes, stat_rows_))) {
      return false;
    }
    host_stat_rows_.resize(outcomes);
    DeviceStatInput in{};
    in.params = data.params;
    in.original = data.original;
    std::copy(data.raw_of, data.raw_of + 256, in.raw_of);
    EA_CUDA_CHECK(cudaMemcpyAsync(stat_input_.get(), &in, sizeof in, cudaMemcpyHostToDevice, res_->stream));
    EA_CUDA_CHECK(cudaStreamSynchronize(res_->stream));  // (`in` is on this stack)
    return true;
  }

  // The statistical tests' outcomes of columns c0 .. c0+count-1 (those in mask, where the last
  // shuffle computed them) into rows.
  void take_statistics(uint32_t c0, uint32_t count, TestMask mask, uint8_t* rows) const {
    if (!stats_ || !(mask & kAllFastTests)) return;
    for (uint32_t r = 0; r < count; ++r) {
      const uint8_t* from = host_stat_rows_.data() + static_cast<size_t>(c0 + r) * kNumTests;
      for (int t = 0; t < kNumFastTests; ++t) {
        if (mask & bit(t)) rows[static_cast<size_t>(r) * kNumTests + t] = from[t];
      }
    }
  }

  // Outcome rows of the compression test for columns c0 .. c0+count-1.
  void judge(uint32_t c0, uint32_t count, uint8_t* rows) {
    EA_CUDA_CHECK(cudaEventRecord(res_->start.get(), res_->stream));
    const std::vector<uint64_t> sizes = compressed_sizes(c0, count);
    EA_CUDA_CHECK(cudaEventRecord(res_->done.get(), res_->stream));
    EA_CUDA_CHECK(cudaEventSynchronize(res_->done.get()));
    add_busy();
    const double original = data_.original.v[kNumFastTests];
    for (uint32_t r = 0; r < count; ++r) {
      rows[static_cast<size_t>(r) * kNumTests + kNumFastTests] = compare_outcome(static_cast<double>(sizes[r]), original);
    }
  }

  void add_busy() {
    float ms = 0;
    EA_CUDA_CHECK(cudaEventElapsedTime(&ms, res_->start.get(), res_->done.get()));
    busy_ms_ += ms;
  }

  void bind(const PermutationData& data) {
    if (is_grouped(data.streams.id)) {
      throw Error(ErrorKind::Device, "the GPU compression test needs a generator with independent streams");
    }
    data_ = data;
    const uint64_t text_len = decimal_text_length(data.symbols, data.n, data.raw_of);
    if (data.n == 0 || text_len >= (uint64_t{1} << 31)) {
      throw Error(ErrorKind::Device, "data set size not supported by the GPU compression test");
    }
    cudaStream_t st = res_->stream;
    codes_ = text_codes(data);
    numbers_ = text_numbers(data);
    cuda::upload(symbols_, data.symbols, data.n, st);
    log_bits_ = symbol_log_bits(data.symbols, data.n);
    cuda::upload(raw_of_, data.raw_of, 256, st);
    streams_ = upload_streams(data.streams, states_, aux_, st);
    EA_CUDA_CHECK(cudaStreamSynchronize(st));
    // Grown only: the data sets of a batch differ a little in text length, and freeing and
    // allocating device and pinned memory for each one costs more than the memory (cudaFree
    // waits for the whole device; in one process driving several GPUs, that was the
    // compression phase's slowdown, docs/performance-history.md).
    // (and made again where the rounds' size changes: every permutation modelled or not)
    if (data.n > cap_n_ || text_len > cap_text_ || data.every_permutation != cap_every_) {
      allocate(data.n, static_cast<uint32_t>(text_len));
    }
    n_ = data.n;
    stats_ = bind_statistics(data);
    text_len_ = static_cast<uint32_t>(text_len);
    per_perm_ = text_len_ / bz::block_limit(kLevel) + 2;
    busy_ms_ = 0;
    unresolved_ = 0;
    if (buffers_) buffers_->bwt.by_characters = 0;
    res_->timer.clear();
    // The self-check: the original data must give libbz2's length.
    copy_original_kernel<<<grid_for(data.n), kThreads, 0, st>>>(buffers_->batch.get(), shuffle_copies_, symbols_.get(),
                                                                data.n);
    EA_CUDA_CHECK(cudaGetLastError());
    const uint64_t got = compressed_sizes(0, 1)[0];
    model_original_ = static_cast<double>(got);
    const double want = data.original.v[kNumFastTests];
    if (std::isnan(want)) {
      // libbz2's length is not known yet: the model's own serves, and the caller compares
      // them before using any result (gpu_compression_model_original).
      data_.original.v[kNumFastTests] = model_original_;
    } else if (static_cast<double>(got) != want) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "the GPU bzip2 model gives %llu bytes for the original data where libbz2 gives %.0f", 
                    static_cast<unsigned long long>(got), want);
      throw Error(ErrorKind::Device, buf);
    }
  }


  // The characters of the data set's text (every permutation's text has the same ones).
  static CharCodes text_codes(const PermutationData& data) {
    bool present[256] = {}, used[256] = {};
    for (size_t i = 0; i < data.n; ++i) present[data.symbols[i]] = true;
    for (int v = 0; v < 256; ++v) {
      if (!present[v]) continue;
      uint8_t digits[3];
      const uint32_t k = write_decimal(data.raw_of[v], digits);
      for (uint32_t j = 0; j < k; ++j) used[digits[j]] = true;
    }
    used[static_cast<uint8_t>(' ')] = data.n > 1;
    return char_codes(used);
  }

  // The numbers of the data set's text (its values present).
  static Numbers text_numbers(const PermutationData& data) {
    bool present[256] = {}, values[256] = {};
    for (size_t i = 0; i < data.n; ++i) present[data.symbols[i]] = true;
    for (int v = 0; v < 256; ++v) values[data.raw_of[v]] = values[data.raw_of[v]] || present[v];
    return numbers_of_values(values);
  }

  // Buffers for data sets of up to n samples and about 1/16 more text than text_len.
  // Copies per round: about tuning_.bz_chars text characters in all (default 2^26), four
  // times that where every permutation will be modelled (no early exit), at most
  // kMostCopies, fewer when memory_share_ of the free memory does not hold them; halved on an
  // allocation failure. With early exit a round beyond the deciding permutation is wasted:
  // 2^26 was the best of 2^22 to 2^27 for truerand_8bit's --track iid (session 37). Full
  // counts on the H200 (GetTickCount_8bit, truerand_8bit, the host's cores sharing): 17
  // copies 4.01 s, 32 3.73, 35 3.75, 64 3.51-3.56 s (session 45: move-to-front, the bits and
  // the doubling gain most from larger rounds); with the texts by tiles (session 46) 70
  // copies (the default's) 3.43-3.45 s, 128 (bz-chars=2^27) 3.28-3.41 s, truerand_4bit 106
  // copies 2.92-3.03 s, 128 2.86-2.89 s. The default stays at four times: 128 copies of an
  // 8-bit file's text take about 35 GB, twice the 17-19 GB of 64-70, and processes sharing
  // a GPU each take their round's memory.
  static constexpr double kMostCopies = 128.0;
  void allocate(size_t n, uint32_t needed_text) {
    buffers_.reset();
    cap_n_ = 0;
    cap_text_ = 0;
    const uint64_t roomy = static_cast<uint64_t>(needed_text) + needed_text / 16;
    const uint32_t text_len = static_cast<uint32_t>(std::min<uint64_t>(roomy, (uint64_t{1} << 31) - 1));
    const double target = static_cast<double>(std::max<uint64_t>(1, tuning_.bz_chars)) * (data_.every_permutation ? 4 : 1);
    size_t free_bytes = 0, total_bytes = 0;
    EA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    // (the move-to-front places take a 2,048-byte room a segment: about one block more a copy)
    const double per_copy = 63.0 * text_len + 1.0 * static_cast<double>(n) + 2.0 * bz::block_limit(kLevel);
    uint32_t copies = static_cast<uint32_t>(std::max(1.0, std::min({kMostCopies, target / text_len,
                                                                      memory_share_ * free_bytes / per_copy})));
    // (a round's characters < 2^31: the transform marks ties by a position's top bit)
    copies = static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(copies, ((uint64_t{1} << 31) - 1) / text_len)));
    uint32_t shuffles = shuffle_rows(n, free_bytes);
    for (;;) {
      if (try_allocate(n, text_len, std::max<uint32_t>(copies, 1), shuffles)) break;
      if (shuffles > kShuffleRows && tuning_.bz_shuffle == 0) {  // (fewer shuffled at once first)
        shuffles = std::max(kShuffleRows, shuffles / 2);
        continue;
      }
      if (copies <= 1) throw Error(ErrorKind::Device, "GPU out of memory for the compression test");
      copies /= 2;
    }
    cap_n_ = n;
    cap_text_ = text_len;
    cap_every_ = data_.every_permutation;
  }

  // Permutations shuffled at once (bz-shuffle; 0: kShuffleRows with Philox, else up to
  // kSequentialShuffleRows where half of memory-share of the free memory holds their columns,
  // and a sequential generator's plans and rows for the bucket shuffle: launch_planned_columns).
  uint32_t shuffle_rows(size_t n, size_t free_bytes) const {
    if (tuning_.bz_shuffle > 0) return tuning_.bz_shuffle;
    if (data_.streams.id == PrngId::Philox) return kShuffleRows;
    const bool planned = engine_uses_buckets(data_.streams.id, n, data_.params.binary, data_.shuffle);
    const double row = static_cast<double>(n) + (planned ? static_cast<double>(bucket_plan_bytes(n) + n) : 0.0);
    const double fit = 0.5 * memory_share_ * static_cast<double>(free_bytes) / row;
    return static_cast<uint32_t>(std::max<double>(kShuffleRows, std::min<double>(kSequentialShuffleRows, fit)));
  }

  // All of a round's buffers, or none (a failed attempt drops what it allocated).
  bool try_allocate(size_t n, uint32_t text_len, uint32_t copies, uint32_t shuffles) {
    buffers_.reset();
    auto b = std::make_unique<RoundBuffers>();
    const uint32_t shuffle_copies = std::max<uint32_t>(copies, shuffles);
    const uint32_t per_perm = text_len / bz::block_limit(kLevel) + 2;
    const uint32_t slots = copies * per_perm;
    const uint32_t total = copies * text_len;
    if (!cuda::DeviceBuffer<uint8_t>::try_allocate(static_cast<size_t>(shuffle_copies) * n, b->batch) ||
        !cuda::DeviceBuffer<uint8_t>::try_allocate(static_cast<size_t>(total) + CodingBuffers::kPad, b->last) ||
        !b->text.allocate(n, copies, total) ||
        !b->blocks.allocate(slots, copies) || !b->bwt.allocate(total, slots) ||
        !b->coding.allocate(total, slots, bz::block_limit(kLevel))) {
      return false;
    }
    // The transform's padding is read (and ignored) by 16-byte loads: defined bytes there.
    EA_CUDA_CHECK(cudaMemset(b->last.get(), 0, b->last.size()));
    buffers_ = std::move(b);
    copies_ = copies;
    shuffle_copies_ = shuffle_copies;
    return true;
  }

  // Compressed length of columns c0 .. c0+count-1 of the batch.
  std::vector<uint64_t> compressed_sizes(uint32_t c0, uint32_t count) {
    cudaStream_t st = res_->stream;
    RoundBuffers& b = *buffers_;
    StageTimer& timer = res_->timer;
    const auto t0 = StageTimer::Clock::now();
    const uint32_t total = count * text_len_;
    timer.mark(0, st);
    b.text.write(b.batch.get() + c0, shuffle_copies_, count, data_.n, raw_of_.get(), st);
    timer.mark(1, st);
    const BlockTable t = b.blocks.table(per_perm_, text_len_, bz::block_limit(kLevel));
    split_kernel<<<grid_for(count, 64), 64, 0, st>>>(b.text.text.get(), count, t);
    EA_CUDA_CHECK(cudaGetLastError());
    timer.mark(2, st);
    const uint32_t slots = count * per_perm_;
    unresolved_ += bwt_blocks(b.text.text.get(), total, t, slots, codes_, &numbers_, b.bwt, b.last.get(), st, timer);
    code_blocks(b.last.get(), t, slots, b.coding, st, timer);
    timer.sync(st);
    timer.add_host(t0);
    timer.accumulate();
    std::vector<uint64_t> sizes(count);
    for (uint32_t p = 0; p < count; ++p) {
      uint64_t block_bits = 0;
      for (uint32_t k = 0; k < per_perm_; ++k) block_bits += b.coding.host_bits.get()[p * per_perm_ + k];
      sizes[p] = bz::stream_bytes(block_bits);
    }
    return sizes;
  }

  int gpu_id_ = 0;
  double memory_share_;
  GpuTuning tuning_;
  PermutationData data_;
  StreamSetView streams_;
  size_t n_ = 0, cap_n_ = 0;          // the data set's samples; the most the buffers hold
  uint32_t text_len_ = 0, cap_text_ = 0;  // its text's characters; the most the buffers hold
  bool cap_every_ = false;                 // the buffers' rounds are for every permutation (allocate)
  uint32_t copies_ = 0, shuffle_copies_ = 0, per_perm_ = 0;
  uint32_t reservations_ = 0;  // blocks in flight of the reservation shuffle
  uint32_t resident_ = 0;      // blocks in flight of its shared-memory variant (0: not used)
  uint32_t low_bytes_ = 0;     // low-shared: places of a row in global memory kept in shared memory
  uint32_t log_bits_ = 3;      // bits per sample that hold every symbol, as log2
  uint32_t unresolved_ = 0;  // tied rotations (identical) over the data set's rounds
  CharCodes codes_{};        // the text's characters
  Numbers numbers_{};        // and its numbers
  cuda::DeviceBuffer<uint32_t> states_, aux_;
  cuda::DeviceBuffer<uint8_t> symbols_, raw_of_;
  std::unique_ptr<RoundBuffers> buffers_;
  double model_original_ = 0;  // the model's length of the original data
  cuda::DeviceBuffer<uint8_t> scratch_;  // rows of the block-per-permutation shuffle (made on first use)
  bool stats_ = false;                    // the statistical tests too, from those rows (bind_statistics)
  cuda::DeviceBuffer<DeviceStatInput> stat_input_;  // (made on the backend's GPU: the constructor)
  cuda::DeviceBuffer<uint8_t> stat_rows_;  // their outcomes of the last shuffle, kNumTests a permutation
  std::vector<uint8_t> host_stat_rows_;
  struct Resources {
    explicit Resources(bool profile) : timer(profile) {}
    cuda::CudaStream stream;
    cuda::CudaEvent start, done;
    StageTimer timer;
    BucketRoom bucket;  // the bucket shuffle's bounds and overflow count
  };
  std::unique_ptr<Resources> res_;
  double busy_ms_ = 0;
};

}  // namespace

std::unique_ptr<PermutationBackend> make_gpu_compression_backend(const PermutationData& data, int gpu_id,
                                                                 const GpuTuning& tuning, double memory_share) {
  return std::make_unique<GpuCompressionBackend>(data, gpu_id, tuning, memory_share);
}

double gpu_compression_model_original(const PermutationBackend& backend) {
  const auto* b = dynamic_cast<const GpuCompressionBackend*>(&backend);
  if (!b) throw Error(ErrorKind::Internal, "not a GPU compression backend");
  return b->model_original();
}

}  // namespace ea
