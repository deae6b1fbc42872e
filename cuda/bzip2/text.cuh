// Step 1 of the GPU bzip2 size model: the decimal texts of the copies of a round, back to
// back (stats/decimal_text.hpp writes each value, as on the host).
#pragma once

#include <cub/cub.cuh>

#include "bzip2/common.cuh"
#include "stats/bzip2_model.hpp"
#include "stats/decimal_text.hpp"

namespace ea::gpubz {

// The texts are written by tiles of kTileSamples samples of kTileCopies copies (a CTA each):
// tile_sums_kernel adds each tile's characters, a scan of those sums gives each tile's
// place (copy p's text begins at p x its length: every copy has the same characters), and
// tile_text_kernel writes the tile's text, a warp a copy, its samples placed by a warp scan.
// The batch is read in rows of a tile's copies (coalesced) into shared memory.
// (Per-sample lengths, a scan over every sample of the round and a thread a sample took
// 2.6 ms of a round of 70 copies of GetTickCount_8bit on the H200 (Nsight Compute, session
// 46): the lengths' writes, a copy's samples n apart, and the scan's 8 bytes a sample.)
constexpr uint32_t kTileSamples = 1024, kTileCopies = 32, kTileRow = kTileCopies + 4;
constexpr int kTileThreads = 256;

inline uint32_t text_tiles(size_t n) { return static_cast<uint32_t>((n + kTileSamples - 1) / kTileSamples); }

// The CTA's tile: samples i0 .. i0 + rows - 1 of copies p0 .. (of count).
struct Tile {
  size_t i0;
  uint32_t p0, rows;
};

// Loads the CTA's tile (blockIdx.x: its samples, blockIdx.y: its copies) of the batch's
// columns as values in decimal (raw_of applied) into tile[sample][copy].
__device__ __forceinline__ Tile load_tile(const uint8_t* batch, size_t stride, uint32_t count, size_t n,
                                          const uint8_t* __restrict__ raw_of, uint8_t (*tile)[kTileRow]) {
  Tile t;
  t.i0 = static_cast<size_t>(blockIdx.x) * kTileSamples;
  t.p0 = blockIdx.y * kTileCopies;
  t.rows = static_cast<uint32_t>(min(static_cast<size_t>(kTileSamples), n - t.i0));
  const uint32_t cols = min(kTileCopies, count - t.p0);
  for (uint32_t e = threadIdx.x; e < t.rows * kTileCopies; e += blockDim.x) {
    const uint32_t r = e / kTileCopies, c = e % kTileCopies;
    if (c < cols) tile[r][c] = __ldg(raw_of + batch[(t.i0 + r) * stride + t.p0 + c]);
  }
  __syncthreads();
  return t;
}

// sums[p * tiles + k]: the characters of tile k of copy p (grid: tiles, copy groups).
__global__ void __launch_bounds__(kTileThreads) tile_sums_kernel(const uint8_t* batch, size_t stride, uint32_t count,
                                                                 size_t n, const uint8_t* __restrict__ raw_of,
                                                                 uint32_t* sums) {
  __shared__ uint8_t tile[kTileSamples][kTileRow];
  const Tile t = load_tile(batch, stride, count, n, raw_of, tile);
  const size_t i0 = t.i0;
  const uint32_t p0 = t.p0, rows = t.rows, lane = threadIdx.x % 32;
  for (uint32_t c = threadIdx.x / 32; c < kTileCopies && p0 + c < count; c += kTileThreads / 32) {
    uint32_t sum = 0;
    for (uint32_t r = lane; r < rows; r += 32) sum += sample_text_length(tile[r][c], i0 + r, n);
    for (int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, d);
    if (lane == 0) sums[static_cast<size_t>(p0 + c) * gridDim.x + blockIdx.x] = sum;
  }
}

// The text of each tile from its place pos[p * tiles + k] (the exclusive scan of sums).
__global__ void __launch_bounds__(kTileThreads) tile_text_kernel(const uint8_t* batch, size_t stride, uint32_t count,
                                                                 size_t n, const uint8_t* __restrict__ raw_of,
                                                                 const uint32_t* pos, uint8_t* text) {
  __shared__ uint8_t tile[kTileSamples][kTileRow];
  const Tile t = load_tile(batch, stride, count, n, raw_of, tile);
  const size_t i0 = t.i0;
  const uint32_t rows = t.rows, lane = threadIdx.x % 32;
  for (uint32_t c = threadIdx.x / 32; c < kTileCopies && t.p0 + c < count; c += kTileThreads / 32) {
    uint32_t at = pos[static_cast<size_t>(t.p0 + c) * gridDim.x + blockIdx.x];
    for (uint32_t r0 = 0; r0 < rows; r0 += 32) {
      const uint32_t r = r0 + lane;
      const bool here = r < rows;
      const uint32_t v = here ? tile[r][c] : 0;
      const uint32_t len = here ? sample_text_length(v, i0 + r, n) : 0;
      uint32_t end = len;  // inclusive scan of the lanes' lengths
      for (int d = 1; d < 32; d *= 2) {
        const uint32_t x = __shfl_up_sync(0xffffffffu, end, d);
        if (lane >= static_cast<uint32_t>(d)) end += x;
      }
      if (here) {
        uint8_t* o = text + at + end - len;
        const uint32_t k = write_decimal(v, o);
        if (k < len) o[k] = ' ';
      }
      at += __shfl_sync(0xffffffffu, end, 31);
    }
  }
}

// Copy 0 of the batch = the data unshuffled (the self-check).
__global__ void copy_original_kernel(uint8_t* batch, size_t stride, const uint8_t* symbols, size_t n) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) batch[i * stride] = symbols[i];
}

// The texts of `count` copies of n samples (columns of an interleaved batch with `stride`).
struct TextBuffers {
  cuda::DeviceBuffer<uint32_t> sums, pos;  // a tile's characters and place (text_tiles a copy)
  cuda::DeviceBuffer<uint8_t> text, temp;
  bool allocate(size_t n, uint32_t copies, size_t characters) {
    const size_t tiles = static_cast<size_t>(text_tiles(n)) * copies;
    size_t bytes = 0;
    if (!cuda::DeviceBuffer<uint32_t>::try_allocate(tiles, sums) ||
        !cuda::DeviceBuffer<uint32_t>::try_allocate(tiles, pos) ||
        !cuda::DeviceBuffer<uint8_t>::try_allocate(characters, text)) {
      return false;
    }
    EA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, sums.get(), pos.get(), static_cast<int>(tiles)));
    return cuda::DeviceBuffer<uint8_t>::try_allocate(std::max<size_t>(bytes, 1), temp);
  }
  void write(const uint8_t* batch, size_t stride, uint32_t count, size_t n, const uint8_t* raw_of, cudaStream_t st) {
    const uint32_t tiles = text_tiles(n);
    const dim3 grid(tiles, (count + kTileCopies - 1) / kTileCopies);
    tile_sums_kernel<<<grid, kTileThreads, 0, st>>>(batch, stride, count, n, raw_of, sums.get());
    size_t bytes = temp.size();
    EA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, sums.get(), pos.get(),
                                                static_cast<int>(static_cast<size_t>(tiles) * count), st));
    tile_text_kernel<<<grid, kTileThreads, 0, st>>>(batch, stride, count, n, raw_of, pos.get(), text.get());
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
