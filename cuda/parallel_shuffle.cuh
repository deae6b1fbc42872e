// The block-per-permutation Fisher-Yates shuffle (issue 17, item 1): one thread block
// carries out one permutation's swaps, many at a time, with exactly the draws and swaps of
// fisher_yates() with PhiloxGen -- the device version of src/permutation/chunked_shuffle.hpp,
// whose comment gives the rules. One thread per permutation (shuffle_launch.cuh) pays a full
// memory latency per step, 10^6 times in a row, whatever the number of permutations; here a
// permutation takes a few thousand chunks, so small rounds (the first round of IID-looking
// data, the compression test's rounds) take milliseconds instead of half a second.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "rng/bounded.hpp"
#include "rng/philox_stream.hpp"

namespace ea {

constexpr uint32_t kParallelShuffleThreads = 1024;  // threads per block = steps per chunk

// Block q shuffles row q of `rows` (n bytes each, contiguous) as permutation first + q of the
// Philox streams under `seed`, starting from a copy of `symbols`. T threads per block.
template <uint32_t T>
__global__ void __launch_bounds__(T)
    parallel_shuffle_kernel(uint8_t* rows, const uint8_t* __restrict__ symbols, size_t n, uint64_t seed,
                            uint64_t first) {
  constexpr uint32_t kRing = 2 * T, kHash = 2 * T, kEmpty = 0xffffffffu;
  __shared__ uint32_t tg[kRing];                 // the target of step i at tg[i % kRing]
  __shared__ uint32_t keys[kHash], first_k[kHash];  // targets of the chunk -> smallest k
  // Per pass / per chunk, three of each: a value is set at one pass, read after its sync,
  // and reset two passes later, with a sync between every reset and the next use.
  __shared__ uint32_t rejected[3], kstar_at[3];
  const uint32_t k = threadIdx.x;
  const uint64_t j = first + blockIdx.x;
  uint8_t* a = rows + static_cast<size_t>(blockIdx.x) * n;
  for (size_t i = k; i < n; i += T) a[i] = symbols[i];
  for (uint32_t s = k; s < kHash; s += T) keys[s] = first_k[s] = kEmpty;
  if (k < 3) rejected[k] = kstar_at[k] = kEmpty;
  __syncthreads();
  if (n < 2) return;
  uint64_t word = 0;                         // the next unused word of the stream
  int64_t c = static_cast<int64_t>(n) - 1;   // the next step to carry out
  int64_t next_draw = c;                     // the next step to draw
  uint32_t pass = 0, chunk = 0;
  while (c >= 1) {
    const uint32_t L = static_cast<uint32_t>(c < static_cast<int64_t>(T) ? c : T);
    const int64_t low = c - L + 1;
    // Draws: thread k tries step next_draw - k with word + k; the pass ends at the first
    // rejected word (the same values on every thread: they all compute the same loop).
    while (next_draw >= low) {
      const int64_t need = next_draw - low + 1;
      uint32_t h = 0, i = 0;
      bool mine = k < need;
      if (mine) {
        i = static_cast<uint32_t>(next_draw - k);
        if (!bounded_inclusive_accepts(PhiloxStream::word(seed, j, word + k), i, h)) atomicMin(&rejected[pass % 3], k);
      }
      __syncthreads();
      const uint32_t rj = rejected[pass % 3];
      const int64_t r = rj < need ? rj : need;
      if (k == 0) rejected[(pass + 2) % 3] = kEmpty;  // last read in the pass before this one
      if (mine && k < r) tg[i % kRing] = h;
      next_draw -= r;
      word += static_cast<uint64_t>(r) + (r < need ? 1 : 0);
      ++pass;
    }
    __syncthreads();  // the targets are visible
    // The chunk: steps i_k = c - k, k < L. Loads first (they are valid: the last chunk's
    // writes are visible), then the two conflict rules.
    uint32_t slot = 0, hk = 0;
    size_t ik = 0;
    bool owner = false;
    uint8_t vi = 0, vh = 0;
    const bool active = k < L;
    if (active) {
      ik = static_cast<size_t>(c - k);
      hk = tg[ik % kRing];
      vi = a[ik];
      vh = a[hk];
      if (hk < ik && static_cast<int64_t>(hk) >= low) atomicMin(&kstar_at[chunk % 3], static_cast<uint32_t>(c - hk));
      slot = (hk * 2654435761u) & (kHash - 1);
      while (true) {
        const uint32_t prev = atomicCAS(&keys[slot], kEmpty, hk);
        if (prev == kEmpty) {
          owner = true;
          break;
        }
        if (prev == hk) break;
        slot = (slot + 1) & (kHash - 1);
      }
      atomicMin(&first_k[slot], k);
    }
    __syncthreads();
    if (active && first_k[slot] < k) atomicMin(&kstar_at[chunk % 3], k);
    __syncthreads();
    const uint32_t ks = kstar_at[chunk % 3] < L ? kstar_at[chunk % 3] : L;
    if (k == 0) kstar_at[(chunk + 2) % 3] = kEmpty;
    if (active && k < ks) {
      a[ik] = vh;
      a[hk] = vi;
    }
    if (owner) {
      keys[slot] = kEmpty;
      first_k[slot] = kEmpty;
    }
    c -= ks;
    ++chunk;
    __syncthreads();  // the swaps and the cleared table are visible to the next chunk
  }
}

// Rows q = 0 .. count-1 of `rows` (n bytes each) become columns col0 + q of the interleaved
// batch (sample i of column c at batch[i * stride + c]), through 32 x 256 tiles (256 threads).
template <int kUnused = 0>
__global__ void rows_to_columns_kernel(const uint8_t* __restrict__ rows, size_t n, uint32_t count, uint8_t* batch,
                                       size_t stride, uint32_t col0) {
  __shared__ uint8_t tile[32][257];
  const uint32_t t = threadIdx.x;  // 256 threads
  const size_t i0 = static_cast<size_t>(blockIdx.x) * 256;
  const uint32_t q0 = blockIdx.y * 32;
  for (uint32_t r = 0; r < 32; ++r) {
    if (q0 + r < count && i0 + t < n) tile[r][t] = rows[static_cast<size_t>(q0 + r) * n + i0 + t];
  }
  __syncthreads();
  const uint32_t r = t % 32;
  for (uint32_t m = 0; m < 32; ++m) {
    const uint32_t s = t / 32 + 8 * m;
    if (q0 + r < count && i0 + s < n) batch[(i0 + s) * stride + col0 + q0 + r] = tile[r][s];
  }
}

}  // namespace ea
