// The GPU permutation backend: rounds of N permutations, one CUDA thread per permutation.
//
//  1. shuffle_kernel: thread p copies the original symbols into copy p of an interleaved
//     batch (sample i of copy p at batch[i * N + p], so a warp's accesses to one sample
//     index are one coalesced transaction) and runs Fisher-Yates on it, driven by the
//     Philox stream of permutation first + p (src/permutation/shuffle.hpp, the same code
//     as the CPU).
//  2. statistics_kernel: blockIdx.y picks one of nine merged test groups (excursion;
//     directional runs with increases/decreases; median runs; collisions; periodicity +
//     covariance for each of the five lags), as in Kim & Yeom (2021), so that the heavy
//     collision group runs beside the others; groups with no undecided test return at
//     once. Each thread calls compute_statistics() from src/stats/statistics.hpp (no
//     second implementation) on its copy and writes one outcome byte per test.
//  3. The outcomes come back to the host, where the driver applies them in order of
//     permutation index: counters equal the CPU's for the same seed.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>
#include <string>

#include "assess.hpp"
#include "check.cuh"
#include "device_buffer.cuh"
#include "permutation/permutation.hpp"
#include "permutation/shuffle.hpp"
#include "rng/philox_stream.hpp"
#include "stats/statistics.hpp"

namespace ea {

namespace {

constexpr int kGroups = 9;

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
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

// A flag in host-mapped memory that the host raises to abandon the rest of a round
// (the sequential counting has decided every test).
struct CancelFlag {
  const volatile int* flag;
  __device__ bool operator()() const { return *flag != 0; }
};

// Thread q shuffles column p0 + q of the batch as permutation first + q.
// D: lookahead of the pipelined shuffle (reads in flight per thread); 0 = the plain loop.
template <int D>
__global__ void shuffle_kernel(uint8_t* batch, size_t stride, uint32_t p0, uint32_t count,
                               const uint8_t* __restrict__ symbols, size_t n, uint64_t seed, uint64_t first,
                               const volatile int* cancel) {
  const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= count) return;
  uint8_t* copy = batch + p0 + q;
  for (size_t i = 0; i < n; ++i) copy[i * stride] = symbols[i];
  PhiloxStream rng(seed, first + q);
  if constexpr (D == 0) {
    fisher_yates(copy, n, stride, rng);
  } else {
    fisher_yates_pipelined<D>(copy, n, stride, rng, CancelFlag{cancel});
  }
}

// Small blocks spread the few thousand shuffling threads over every SM (with 128-thread
// blocks, 10,000 threads fill only 79 of the H100's 132 SMs).
void launch_shuffle(int lookahead, int block, cudaStream_t st, uint8_t* batch, size_t stride, uint32_t p0,
                    uint32_t count, const uint8_t* symbols, size_t n, uint64_t seed, uint64_t first,
                    const volatile int* cancel) {
  const unsigned blocks = (count + block - 1) / block;
  switch (lookahead) {
    case 0: shuffle_kernel<0><<<blocks, block, 0, st>>>(batch, stride, p0, count, symbols, n, seed, first, cancel); break;
    case 2: shuffle_kernel<2><<<blocks, block, 0, st>>>(batch, stride, p0, count, symbols, n, seed, first, cancel); break;
    case 8: shuffle_kernel<8><<<blocks, block, 0, st>>>(batch, stride, p0, count, symbols, n, seed, first, cancel); break;
    default: shuffle_kernel<4><<<blocks, block, 0, st>>>(batch, stride, p0, count, symbols, n, seed, first, cancel); break;
  }
}

// Binary data: Conversion II of every copy, interleaved like the samples (block b of copy p
// at conv[b * stride + p]); Conversion I is its popcount.
__global__ void conversion_kernel(const uint8_t* batch, uint8_t* conv, size_t stride, uint32_t p0, uint32_t count,
                                  size_t n, const volatile int* cancel) {
  const uint32_t p = p0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= p0 + count || *cancel) return;
  const ConversionTwoView<StridedByteView> c2{StridedByteView{batch + p, n, stride}};
  const size_t blocks = c2.size();
  for (size_t b = 0; b < blocks; ++b) conv[b * stride + p] = static_cast<uint8_t>(c2[b]);
}

struct DeviceStatInput {
  StatParams params;
  StatVector original;
  uint8_t raw_of[256];
};

__global__ void statistics_kernel(const uint8_t* batch, const uint8_t* conv, size_t stride, uint32_t p0,
                                  uint32_t count, size_t n, TestMask mask, const DeviceStatInput* __restrict__ input,
                                  uint8_t* outcomes, int first_group, const volatile int* cancel) {
  __shared__ uint8_t table[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) table[i] = input->raw_of[i];
  __syncthreads();
  const uint32_t p = p0 + blockIdx.x * blockDim.x + threadIdx.x;
  const TestMask gm = group_mask(first_group + static_cast<int>(blockIdx.y)) & mask;
  if (p >= p0 + count || gm == 0 || *cancel) return;
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
    const double a = sv.v[t], b = input->original.v[t];
    row[t] = a > b ? kGreater : (a == b ? kEqual : kLess);
  }
}

class GpuBackend final : public PermutationBackend {
 public:
  GpuBackend(const PermutationData& data, int gpu_id, uint32_t round_size, std::string* description)
      : data_(data) {
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) {
      (void)cudaGetLastError();
      throw Error(ErrorKind::Device, std::string("no usable GPU: ") +
                                         (e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found"));
    }
    if (gpu_id >= devices) {
      throw Error(ErrorKind::Device, "no GPU with index " + std::to_string(gpu_id) + " (" + std::to_string(devices) +
                                         " found)");
    }
    EA_CUDA_CHECK(cudaSetDevice(gpu_id));
    // Wait for the GPU without spinning: the CPU cores run the compression test meanwhile.
    if (cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess) (void)cudaGetLastError();
    cudaDeviceProp prop{};
    EA_CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu_id));
    res_ = std::make_unique<Resources>();
    cancel_host_ = res_->cancel.get();
    cancel_device_ = res_->cancel.device();
    *cancel_host_ = 0;

    symbols_ = cuda::DeviceBuffer<uint8_t>(data.n);
    EA_CUDA_CHECK(cudaMemcpy(symbols_.get(), data.symbols, data.n, cudaMemcpyHostToDevice));
    DeviceStatInput in{};
    in.params = data.params;
    in.original = data.original;
    std::copy(data.raw_of, data.raw_of + 256, in.raw_of);
    input_ = cuda::DeviceBuffer<DeviceStatInput>(1);
    EA_CUDA_CHECK(cudaMemcpy(input_.get(), &in, sizeof in, cudaMemcpyHostToDevice));

    // Round size: as many permutations as fit in 85% of the free memory (the shuffle is
    // latency-bound, so a round of 10,000 takes about as long as a round of 1,000), at
    // most 10,000; on an allocation failure, retry with half.
    size_t free_bytes = 0, total_bytes = 0;
    EA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const size_t per_perm = data.n + (data.params.binary ? (data.n + 7) / 8 : 0) + kNumTests;
    size_t n_round = round_size ? round_size : std::min<size_t>(10000, free_bytes / 100 * 85 / per_perm);
    n_round = std::max<size_t>(n_round, 1);
    while (true) {
      const size_t conv_bytes = data.params.binary ? n_round * ((data.n + 7) / 8) : 1;
      if (cuda::DeviceBuffer<uint8_t>::try_allocate(n_round * data.n, batch_) &&
          cuda::DeviceBuffer<uint8_t>::try_allocate(conv_bytes, conv_) &&
          cuda::DeviceBuffer<uint8_t>::try_allocate(n_round * kNumTests, outcomes_)) {
        break;
      }
      batch_.reset();
      conv_.reset();
      outcomes_.reset();
      if (n_round == 1) throw Error(ErrorKind::Device, "GPU out of memory even for one permutation");
      n_round = std::max<size_t>(1, n_round / 2);
    }
    round_ = static_cast<uint32_t>(n_round);
    host_outcomes_buf_ = cuda::PinnedBuffer<uint8_t>(n_round * kNumTests, false);
    host_outcomes_ = host_outcomes_buf_.get();
    // Data that already failed another test will almost surely need every permutation:
    // one chunk per round then (two overlapping chunks cost more than one).
    if (!data.early_decision_likely) first_chunk_ = round_;
    char buf[256];
    std::snprintf(buf, sizeof buf, "GPU %d: %s (sm_%d%d, %.1f GiB free), %u permutations per round", gpu_id,
                  prop.name, prop.major, prop.minor, static_cast<double>(free_bytes) / (1u << 30), round_);
    description_ = buf;
    if (description) *description = description_;
  }

  std::string name() const override { return description_; }
  TestMask supported() const override { return kAllFastTests; }
  uint32_t round_size(uint32_t, TestMask) const override { return round_; }
  double busy_seconds() const override { return busy_ms_ / 1000.0; }
  std::string profile() const override {
    char buf[640];
    int len = std::snprintf(buf, sizeof buf, "GPU: %u chunks, shuffle kernel %.3f s, statistics kernel %.3f s (chunks overlap)", chunks_,
                            shuffle_ms_ / 1000.0, stats_ms_ / 1000.0);
    if (profile_groups_) {
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
    *cancel_host_ = 0;
    launch(0, first, 0, count, mask);
    collect(0, 0, count, outcomes);
    add_busy(0);
  }

  // Device time of a round: from its first launch to the completion of `last_slot`.
  void add_busy(int last_slot) {
    float span = 0;
    EA_CUDA_CHECK(cudaEventElapsedTime(&span, res_->starts[0].get(), res_->done[last_slot].get()));
    busy_ms_ += span;
  }

  // Rounds of round_ permutations, each launched as two chunks on two streams: a small
  // first chunk, whose outcomes come back early (IID data usually decides every test
  // within it), and the rest, which runs beside it. When the counting needs no more
  // permutations, the rest of the round is cancelled through a host-mapped flag.
  void stream(uint64_t first, uint32_t count, TestMask mask, const OutcomeSink& sink) override {
    uint32_t done = 0;
    std::vector<uint8_t> rows;
    while (mask && done < count) {
      const uint32_t total = std::min(round_, count - done);
      const uint32_t head = std::min(total, first_chunk_);
      *cancel_host_ = 0;
      launch(0, first + done, 0, head, mask);
      if (total > head) launch(1, first + done + head, head, total - head, mask);
      rows.resize(static_cast<size_t>(total) * kNumTests);
      collect(0, 0, head, rows.data());
      mask = sink(first + done, head, rows.data());
      if (total > head) {
        if (!mask) {
          *cancel_host_ = 1;
          EA_CUDA_CHECK(cudaStreamSynchronize(res_->streams[1]));
          add_busy(0);
          break;
        }
        collect(1, head, total - head, rows.data() + static_cast<size_t>(head) * kNumTests);
        mask = sink(first + done + head, total - head, rows.data() + static_cast<size_t>(head) * kNumTests);
      }
      add_busy(total > head ? 1 : 0);
      done += total;
    }
  }

 private:
  // Shuffles and tests permutations first .. first+count-1 in columns p0 .. p0+count-1,
  // on stream `slot`; outcomes go to the device buffer (rows p0 ..).
  void launch(int slot, uint64_t first, uint32_t p0, uint32_t count, TestMask mask) {
    cudaStream_t st = res_->streams[slot];
    EA_CUDA_CHECK(cudaEventRecord(res_->starts[slot].get(), st));
    launch_shuffle(lookahead_, shuffle_block_, st, batch_.get(), round_, p0, count, symbols_.get(), data_.n,
                   data_.seed, first, cancel_device_);
    EA_CUDA_CHECK(cudaGetLastError());
    const unsigned blocks = (count + kThreads - 1) / kThreads;
    if (data_.params.binary) {
      conversion_kernel<<<blocks, kThreads, 0, st>>>(batch_.get(), conv_.get(), round_, p0, count, data_.n,
                                                     cancel_device_);
      EA_CUDA_CHECK(cudaGetLastError());
    }
    EA_CUDA_CHECK(cudaEventRecord(res_->shuffled[slot].get(), st));
    EA_CUDA_CHECK(cudaMemsetAsync(outcomes_.get() + static_cast<size_t>(p0) * kNumTests, kNotComputed,
                                  static_cast<size_t>(count) * kNumTests, st));
    if (!profile_groups_) {
      statistics_kernel<<<dim3(blocks, kGroups), kThreads, 0, st>>>(batch_.get(), conv_.get(), round_, p0, count,
                                                                    data_.n, mask & kAllFastTests, input_.get(),
                                                                    outcomes_.get(), 0, cancel_device_);
      EA_CUDA_CHECK(cudaGetLastError());
    } else {
      // One launch per group, timed separately (EA_IID_GPU_PROFILE=1).
      for (int g = 0; g < kGroups; ++g) {
        cuda::CudaEvent a, b;
        EA_CUDA_CHECK(cudaEventRecord(a.get(), st));
        statistics_kernel<<<dim3(blocks, 1), kThreads, 0, st>>>(batch_.get(), conv_.get(), round_, p0, count,
                                                                data_.n, mask & kAllFastTests, input_.get(),
                                                                outcomes_.get(), g, cancel_device_);
        EA_CUDA_CHECK(cudaGetLastError());
        EA_CUDA_CHECK(cudaEventRecord(b.get(), st));
        EA_CUDA_CHECK(cudaEventSynchronize(b.get()));
        float ms = 0;
        EA_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
        group_ms_[g] += ms;
      }
    }
    EA_CUDA_CHECK(cudaEventRecord(res_->done[slot].get(), st));
    EA_CUDA_CHECK(cudaMemcpyAsync(host_outcomes_ + static_cast<size_t>(p0) * kNumTests,
                                  outcomes_.get() + static_cast<size_t>(p0) * kNumTests,
                                  static_cast<size_t>(count) * kNumTests, cudaMemcpyDeviceToHost, st));
  }

  // Waits for stream `slot` and copies its outcomes (rows p0 ..) to `out`.
  void collect(int slot, uint32_t p0, uint32_t count, uint8_t* out) {
    EA_CUDA_CHECK(cudaStreamSynchronize(res_->streams[slot]));
    float shuffle_ms = 0, stats_ms = 0;
    EA_CUDA_CHECK(cudaEventElapsedTime(&shuffle_ms, res_->starts[slot].get(), res_->shuffled[slot].get()));
    EA_CUDA_CHECK(cudaEventElapsedTime(&stats_ms, res_->shuffled[slot].get(), res_->done[slot].get()));
    shuffle_ms_ += shuffle_ms;
    stats_ms_ += stats_ms;
    ++chunks_;
    std::copy(host_outcomes_ + static_cast<size_t>(p0) * kNumTests,
              host_outcomes_ + static_cast<size_t>(p0 + count) * kNumTests, out);
  }

  PermutationData data_;
  cuda::DeviceBuffer<uint8_t> symbols_, batch_, conv_, outcomes_;
  cuda::DeviceBuffer<DeviceStatInput> input_;
  // CUDA objects, created once the device is selected.
  struct Resources {
    cuda::CudaStream streams[2];
    cuda::CudaEvent starts[2], shuffled[2], done[2];
    cuda::PinnedBuffer<int> cancel{1, true};
  };
  std::unique_ptr<Resources> res_;
  cuda::PinnedBuffer<uint8_t> host_outcomes_buf_;
  uint8_t* host_outcomes_ = nullptr;
  volatile int* cancel_host_ = nullptr;
  const volatile int* cancel_device_ = nullptr;
  uint32_t first_chunk_ = static_cast<uint32_t>(std::max(1, env_int("EA_IID_GPU_FIRST_CHUNK", 1024)));
  uint32_t round_ = 0;
  std::string description_;
  double busy_ms_ = 0, shuffle_ms_ = 0, stats_ms_ = 0;
  uint32_t chunks_ = 0;
  // Developer knobs for benchmarks (docs/performance.md); every value gives the same
  // permutations: EA_IID_GPU_LOOKAHEAD=0|2|4|8 reads in flight per shuffling thread,
  // EA_IID_GPU_SHUFFLE_BLOCK threads per block of the shuffle kernel, EA_IID_GPU_PROFILE=1
  // runs and times the nine statistics groups one by one.
  bool profile_groups_ = std::getenv("EA_IID_GPU_PROFILE") != nullptr;
  double group_ms_[kGroups] = {};
  int lookahead_ = env_int("EA_IID_GPU_LOOKAHEAD", 4);
  int shuffle_block_ = std::max(1, std::min(1024, env_int("EA_IID_GPU_SHUFFLE_BLOCK", 32)));
};

}  // namespace

std::unique_ptr<PermutationBackend> make_gpu_backend(const PermutationData& data, int gpu_id, uint32_t round_size,
                                                     std::string* description) {
  return std::make_unique<GpuBackend>(data, gpu_id, round_size, description);
}

bool gpu_build_available() { return true; }

}  // namespace ea
