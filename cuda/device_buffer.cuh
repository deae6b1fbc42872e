// Owning handles for device memory and events.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <utility>

#include "check.cuh"

namespace ea::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) { EA_CUDA_CHECK(cudaMalloc(&ptr_, count * sizeof(T))); count_ = count; }
  // Allocation that reports failure instead of throwing (for the out-of-memory retry).
  static bool try_allocate(size_t count, DeviceBuffer& out) {
    T* p = nullptr;
    if (cudaMalloc(&p, count * sizeof(T)) != cudaSuccess) {
      (void)cudaGetLastError();  // clear the sticky-free error state of a failed malloc
      return false;
    }
    out.reset();
    out.ptr_ = p;
    out.count_ = count;
    return true;
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  void reset() noexcept {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* get() const { return ptr_; }
  size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

class CudaEvent {
 public:
  CudaEvent() { EA_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~CudaEvent() { cudaEventDestroy(e_); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_{};
};

// A non-blocking stream; `highest`: of the device's highest priority (the suffix sort's
// stream, so that its short kernels go ahead of a permutation round's blocks).
class CudaStream {
 public:
  explicit CudaStream(bool highest = false) {
    int least = 0, greatest = 0;
    if (highest) EA_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    EA_CUDA_CHECK(cudaStreamCreateWithPriority(&s_, cudaStreamNonBlocking, highest ? greatest : least));
  }
  ~CudaStream() { cudaStreamDestroy(s_); }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  operator cudaStream_t() const { return s_; }

 private:
  cudaStream_t s_{};
};

// Device memory from the stream-ordered allocator, given back on its stream: neither takes
// or frees it with a device-wide synchronisation (cudaFree waits for every stream, so the
// estimates beside the permutation tests would wait for their round).
template <class T>
class StreamBuffer {
 public:
  StreamBuffer() = default;
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  StreamBuffer(StreamBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), st_(o.st_) {}
  ~StreamBuffer() { reset(); }
  // False (nothing held) where the memory is short.
  bool allocate(size_t count, cudaStream_t st) {
    reset();
    void* p = nullptr;
    if (cudaMallocAsync(&p, std::max<size_t>(count, 1) * sizeof(T), st) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    p_ = static_cast<T*>(p);
    st_ = st;
    return true;
  }
  void reset() noexcept {
    if (p_) cudaFreeAsync(p_, st_);
    p_ = nullptr;
  }
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
  cudaStream_t st_{};
};

// Page-locked host memory (asynchronous copies from the device land here).
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(size_t count) { EA_CUDA_CHECK(cudaHostAlloc(&ptr_, count * sizeof(T), cudaHostAllocDefault)); }
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      if (ptr_) cudaFreeHost(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
    }
    return *this;
  }
  T* get() const { return ptr_; }

 private:
  T* ptr_ = nullptr;
};

// Device copy of a host array on stream st, the buffer grown when too small (the host
// array must stay put until the stream reaches the copy).
template <class T>
void upload(DeviceBuffer<T>& dst, const T* src, size_t count, cudaStream_t st) {
  if (dst.size() < count) dst = DeviceBuffer<T>(count);
  EA_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src, count * sizeof(T), cudaMemcpyHostToDevice, st));
}

}  // namespace ea::cuda
