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

// Lookahead of the pipelined shuffle (reads in flight per thread); 0 = the plain loop.
template <int D>
__global__ void shuffle_kernel(uint8_t* batch, size_t stride, uint32_t count, const uint8_t* __restrict__ symbols,
                               size_t n, uint64_t seed, uint64_t first) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= count) return;
  uint8_t* copy = batch + p;
  for (size_t i = 0; i < n; ++i) copy[i * stride] = symbols[i];
  PhiloxStream rng(seed, first + p);
  if constexpr (D == 0) {
    fisher_yates(copy, n, stride, rng);
  } else {
    fisher_yates_pipelined<D>(copy, n, stride, rng);
  }
}

void launch_shuffle(int lookahead, unsigned blocks, uint8_t* batch, size_t stride, uint32_t count,
                    const uint8_t* symbols, size_t n, uint64_t seed, uint64_t first) {
  switch (lookahead) {
    case 0: shuffle_kernel<0><<<blocks, kThreads>>>(batch, stride, count, symbols, n, seed, first); break;
    case 4: shuffle_kernel<4><<<blocks, kThreads>>>(batch, stride, count, symbols, n, seed, first); break;
    case 16: shuffle_kernel<16><<<blocks, kThreads>>>(batch, stride, count, symbols, n, seed, first); break;
    default: shuffle_kernel<8><<<blocks, kThreads>>>(batch, stride, count, symbols, n, seed, first); break;
  }
}

struct DeviceStatInput {
  StatParams params;
  StatVector original;
  uint8_t raw_of[256];
};

__global__ void statistics_kernel(const uint8_t* batch, size_t stride, uint32_t count, size_t n, TestMask mask,
                                  const DeviceStatInput* __restrict__ input, uint8_t* outcomes) {
  __shared__ uint8_t table[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) table[i] = input->raw_of[i];
  __syncthreads();
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  const TestMask gm = group_mask(static_cast<int>(blockIdx.y)) & mask;
  if (p >= count || gm == 0) return;
  const StatParams params = input->params;
  const StridedByteView sym{batch + p, n, stride};
  StatVector sv;
  if (params.binary) {
    const MappedView<StridedByteView> raw{sym, table};
    compute_statistics(sym, raw, ConversionOneView<StridedByteView>{sym}, ConversionTwoView<StridedByteView>{sym},
                       params, gm, sv);
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
    cudaDeviceProp prop{};
    EA_CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu_id));

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
    const size_t per_perm = data.n + kNumTests;
    size_t n_round = round_size ? round_size : std::min<size_t>(10000, free_bytes / 100 * 85 / per_perm);
    n_round = std::max<size_t>(n_round, 1);
    while (true) {
      if (cuda::DeviceBuffer<uint8_t>::try_allocate(n_round * data.n, batch_) &&
          cuda::DeviceBuffer<uint8_t>::try_allocate(n_round * kNumTests, outcomes_)) {
        break;
      }
      batch_.reset();
      outcomes_.reset();
      if (n_round == 1) throw Error(ErrorKind::Device, "GPU out of memory even for one permutation");
      n_round = std::max<size_t>(1, n_round / 2);
    }
    round_ = static_cast<uint32_t>(n_round);
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
    char buf[160];
    std::snprintf(buf, sizeof buf, "GPU: %u rounds, shuffle kernel %.3f s, statistics kernel %.3f s", rounds_,
                  shuffle_ms_ / 1000.0, stats_ms_ / 1000.0);
    return buf;
  }

  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    if (count > round_) throw Error(ErrorKind::Internal, "GPU round larger than its buffer");
    cuda::CudaEvent start, shuffled, done;
    EA_CUDA_CHECK(cudaEventRecord(start.get()));
    const unsigned blocks = (count + kThreads - 1) / kThreads;
    launch_shuffle(lookahead_, blocks, batch_.get(), round_, count, symbols_.get(), data_.n, data_.seed, first);
    EA_CUDA_CHECK(cudaGetLastError());
    EA_CUDA_CHECK(cudaEventRecord(shuffled.get()));
    EA_CUDA_CHECK(cudaMemset(outcomes_.get(), kNotComputed, static_cast<size_t>(count) * kNumTests));
    statistics_kernel<<<dim3(blocks, kGroups), kThreads>>>(batch_.get(), round_, count, data_.n, mask & kAllFastTests,
                                                           input_.get(), outcomes_.get());
    EA_CUDA_CHECK(cudaGetLastError());
    EA_CUDA_CHECK(cudaEventRecord(done.get()));
    EA_CUDA_CHECK(cudaMemcpy(outcomes, outcomes_.get(), static_cast<size_t>(count) * kNumTests, cudaMemcpyDeviceToHost));
    EA_CUDA_CHECK(cudaEventSynchronize(done.get()));
    float shuffle_ms = 0, stats_ms = 0;
    EA_CUDA_CHECK(cudaEventElapsedTime(&shuffle_ms, start.get(), shuffled.get()));
    EA_CUDA_CHECK(cudaEventElapsedTime(&stats_ms, shuffled.get(), done.get()));
    busy_ms_ += shuffle_ms + stats_ms;
    ++rounds_;
    shuffle_ms_ += shuffle_ms;
    stats_ms_ += stats_ms;
  }

 private:
  PermutationData data_;
  cuda::DeviceBuffer<uint8_t> symbols_, batch_, outcomes_;
  cuda::DeviceBuffer<DeviceStatInput> input_;
  uint32_t round_ = 0;
  std::string description_;
  double busy_ms_ = 0, shuffle_ms_ = 0, stats_ms_ = 0;
  uint32_t rounds_ = 0;
  // Developer knob for benchmarks: EA_IID_GPU_LOOKAHEAD=0|4|8|16 (default 8). Every value
  // gives the same permutations.
  int lookahead_ = [] {
    const char* v = std::getenv("EA_IID_GPU_LOOKAHEAD");
    return v ? std::atoi(v) : 8;
  }();
};

}  // namespace

std::unique_ptr<PermutationBackend> make_gpu_backend(const PermutationData& data, int gpu_id, uint32_t round_size,
                                                     std::string* description) {
  return std::make_unique<GpuBackend>(data, gpu_id, round_size, description);
}

bool gpu_build_available() { return true; }

}  // namespace ea
