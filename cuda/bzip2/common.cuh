// Shared pieces of the GPU bzip2 size model (cuda/bzip2/*): launch sizes, the block table
// of a round and the stage timer.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "check.cuh"
#include "device_buffer.cuh"

namespace ea::gpubz {

constexpr int kThreads = 256;

inline unsigned grid_for(size_t n, int threads = kThreads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

// Bits needed to write v (at least 1).
inline int bits_for(uint64_t v) {
  int b = 0;
  while (b < 64 && (v >> b) != 0) ++b;
  return std::max(b, 1);
}

// The blocks of a round: slot p * per_perm + k is block k of copy p (length 0: unused).
// Every copy's text has text_len characters, stored back to back.
struct BlockTable {
  uint32_t* begin;  // position of the block's first character among all texts
  uint32_t* len;
  uint32_t* count;  // blocks of each copy
  uint32_t per_perm;
  uint32_t text_len;
  uint32_t limit;   // the longest a block can be (the first guess of slot_of)

  // The slot of the block that holds position q.
  __device__ __forceinline__ uint32_t slot_of(uint32_t q) const {
    const uint32_t p = q / text_len;
    const uint32_t nb = count[p];
    uint32_t k = min((q - p * text_len) / limit, nb - 1);
    const uint32_t base = p * per_perm;
    while (k > 0 && q < begin[base + k]) --k;
    while (k + 1 < nb && q >= begin[base + k + 1]) ++k;
    return base + k;
  }
};

// The device buffers behind a BlockTable.
struct BlockTableBuffers {
  cuda::DeviceBuffer<uint32_t> begin, len, count;
  bool allocate(uint32_t slots, uint32_t copies) {
    return cuda::DeviceBuffer<uint32_t>::try_allocate(slots, begin) &&
           cuda::DeviceBuffer<uint32_t>::try_allocate(slots, len) &&
           cuda::DeviceBuffer<uint32_t>::try_allocate(copies, count);
  }
  BlockTable table(uint32_t per_perm, uint32_t text_len, uint32_t limit) const {
    return BlockTable{begin.get(), len.get(), count.get(), per_perm, text_len, limit};
  }
};

// Times the stages of a round with events on its stream (only when enabled: events
// between kernels cost a little); the totals go into the backend's profile().
class StageTimer {
 public:
  static constexpr int kStages = 7;
  explicit StageTimer(bool enabled) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }
  void mark(int k, cudaStream_t st) {
    if (enabled_) EA_CUDA_CHECK(cudaEventRecord(events_[k].get(), st));
  }
  // After the stream reached mark kStages: adds the stage times to the totals.
  void accumulate() {
    if (!enabled_) return;
    for (int k = 0; k < kStages; ++k) {
      float ms = 0;
      EA_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[k].get(), events_[k + 1].get()));
      total_ms_[k] += ms;
    }
  }
  double total_ms(int k) const { return total_ms_[k]; }
  void clear() {
    std::fill(total_ms_, total_ms_ + kStages, 0.0);
    host_ms_ = wait_ms_ = 0;
  }

  // The host's side (when enabled): time in the rounds' calls, and the part of it spent
  // waiting for the stream (sync()); the rest is spent enqueueing work.
  using Clock = std::chrono::steady_clock;
  void sync(cudaStream_t st) {
    const auto t0 = Clock::now();
    EA_CUDA_CHECK(cudaStreamSynchronize(st));
    if (enabled_) wait_ms_ += ms_since(t0);
  }
  void add_host(Clock::time_point t0) {
    if (enabled_) host_ms_ += ms_since(t0);
  }
  double host_ms() const { return host_ms_; }
  double wait_ms() const { return wait_ms_; }

 private:
  static double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
  bool enabled_;
  cuda::CudaEvent events_[kStages + 1];
  double total_ms_[kStages] = {};
  double host_ms_ = 0, wait_ms_ = 0;
};

}  // namespace ea::gpubz
