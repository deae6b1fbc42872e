// Step 1 of the GPU bzip2 size model: the decimal texts of the copies of a round, back to
// back (stats/decimal_text.hpp writes each value, as on the host).
#pragma once

#include <cub/cub.cuh>

#include "bzip2/common.cuh"
#include "stats/bzip2_model.hpp"
#include "stats/decimal_text.hpp"

namespace ea::gpubz {

// Element (i, p) of a round. p fastest reads the interleaved batch in lines; i fastest
// writes consecutive samples of one copy side by side. Per round of 17 copies of
// GetTickCount_8bit on the H200: the lengths 0.12 ms p fastest, 0.27 ms i fastest; the text
// 0.58 ms p fastest (every write scattered over the copies' texts), 0.28 ms i fastest.
struct SampleIndex {
  size_t i;
  uint32_t p;
};
template <bool kCopyFastest>
__device__ __forceinline__ bool sample_index(size_t n, uint32_t count, SampleIndex& s) {
  const size_t idx = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= n * count) return false;
  s.p = static_cast<uint32_t>(kCopyFastest ? idx % count : idx / n);
  s.i = kCopyFastest ? idx / count : idx % n;
  return true;
}

// lens[p * n + i]: characters of sample i of copy p with its separator (none after the last).
__global__ void text_length_kernel(const uint8_t* batch, size_t stride, uint32_t count, size_t n,
                                   const uint8_t* __restrict__ raw_of, uint32_t* lens) {
  SampleIndex s;
  if (!sample_index<true>(n, count, s)) return;
  lens[s.p * n + s.i] = sample_text_length(raw_of[batch[s.i * stride + s.p]], s.i, n);
}

__global__ void text_kernel(const uint8_t* batch, size_t stride, uint32_t count, size_t n,
                            const uint8_t* __restrict__ raw_of, const uint32_t* pos, uint8_t* text) {
  SampleIndex s;
  if (!sample_index<false>(n, count, s)) return;
  uint8_t* o = text + pos[s.p * n + s.i];
  const uint32_t k = write_decimal(raw_of[batch[s.i * stride + s.p]], o);
  if (s.i + 1 < n) o[k] = ' ';
}

// Copy 0 of the batch = the data unshuffled (the self-check).
__global__ void copy_original_kernel(uint8_t* batch, size_t stride, const uint8_t* symbols, size_t n) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) batch[i * stride] = symbols[i];
}

// The texts of `count` copies of n samples (columns of an interleaved batch with `stride`).
struct TextBuffers {
  cuda::DeviceBuffer<uint32_t> lens, pos;
  cuda::DeviceBuffer<uint8_t> text, temp;
  bool allocate(size_t samples, size_t characters) {
    size_t bytes = 0;
    if (!cuda::DeviceBuffer<uint32_t>::try_allocate(samples, lens) ||
        !cuda::DeviceBuffer<uint32_t>::try_allocate(samples, pos) ||
        !cuda::DeviceBuffer<uint8_t>::try_allocate(characters, text)) {
      return false;
    }
    EA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, lens.get(), pos.get(), static_cast<int>(samples)));
    return cuda::DeviceBuffer<uint8_t>::try_allocate(std::max<size_t>(bytes, 1), temp);
  }
  void write(const uint8_t* batch, size_t stride, uint32_t count, size_t n, const uint8_t* raw_of, cudaStream_t st) {
    const size_t samples = static_cast<size_t>(count) * n;
    text_length_kernel<<<grid_for(samples), kThreads, 0, st>>>(batch, stride, count, n, raw_of, lens.get());
    size_t bytes = temp.size();
    EA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, lens.get(), pos.get(), static_cast<int>(samples), st));
    text_kernel<<<grid_for(samples), kThreads, 0, st>>>(batch, stride, count, n, raw_of, pos.get(), text.get());
    EA_CUDA_CHECK(cudaGetLastError());
  }
};

// Step 2: each copy's text cut into bzip2 blocks (slices: decimal text has no run of 4
// equal bytes, so libbz2's first stage changes nothing).
__global__ void split_kernel(const uint8_t* text, uint32_t copies, BlockTable t) {
  const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= copies) return;
  const uint8_t* own = text + static_cast<size_t>(p) * t.text_len;
  size_t s = 0;
  uint32_t k = 0;
  while (s < t.text_len) {
    const size_t e = bz::slice_block_end(own, t.text_len, s, t.limit);
    t.begin[p * t.per_perm + k] = static_cast<uint32_t>(p * t.text_len + s);
    t.len[p * t.per_perm + k] = static_cast<uint32_t>(e - s);
    ++k;
    s = e;
  }
  t.count[p] = k;
  for (uint32_t j = k; j < t.per_perm; ++j) {
    t.begin[p * t.per_perm + j] = (p + 1) * t.text_len;
    t.len[p * t.per_perm + j] = 0;
  }
}

}  // namespace ea::gpubz
