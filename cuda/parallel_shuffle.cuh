// The block-per-permutation Fisher-Yates shuffle (issue 17, item 1): one thread block carries
// out one permutation's swaps, many at a time, with exactly the draws and swaps of
// fisher_yates(). One thread per permutation (shuffle_launch.cuh) pays a full memory latency
// per step, 10^6 times in a row, whatever the number of permutations; here a permutation
// takes about 520 rounds, so small rounds (the first round of IID-looking data, the
// compression test's rounds) take milliseconds instead of half a second. (Issue 31 removed
// the first version, chunks of 1,024 steps: 0.77 s against 0.51 s for 10,000 permutations of
// 10^6 samples on the H100.)
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "check.cuh"
#include "rng/bounded.hpp"
#include "rng/philox_stream.hpp"

namespace ea {

constexpr uint32_t kReservationThreads = 512;  // threads per block of the shuffle by reservations

// The permutations by deterministic reservations (src/permutation/reservations.hpp,
// Shun et al., SODA 2015) over a window of up to 4 T pending steps: each round draws the
// targets of new steps (thread k computes Philox block word/4 + k, i.e. four words at once;
// a pass stops at the first rejected word, whose step takes the next word, and passes
// repeat until the window is full; other generators' targets are drawn ahead: DrawnTargets), every pending step writes its index into its target's slot of a shared-memory
// hash (atomicMax), a step swaps when no earlier pending step targets its place or its
// target (the swapping steps' places are then disjoint) and the others wait for the next
// round. Conflicts are rare while the steps are far apart, so a permutation of 10^6
// samples takes about 520 rounds (T = 512; the removed chunked kernel took 2,377 chunks).
//
// reservation_rounds() carries out one permutation on a row kept by `Row` (get(p): the
// sample at place p; put(i, t, vi, vt): a[i] = vt and a[t] = vi, where no other step of
// the round touches i or t; kLoadEarly: loads before the round's hash work, so before a
// barrier that precedes every store, as packed samples of different places may share a
// word); the kernels below keep
// the row in global memory (reservation_shuffle_kernel) or packed in shared memory
// (resident_shuffle_kernel).
// `table`: the hash (keys, then best: kHash words each) and the pending steps and their
// targets (4 T words each: one list, compacted in place, as every thread holds its entries
// in registers from the hash inserts on);
// on entry and on return every key is kEmpty, every best 0, rejected kEmpty and kept 0.
constexpr uint32_t kReservationEmpty = 0xffffffffu;

template <uint32_t T, uint32_t kHash>
__host__ __device__ constexpr size_t reservation_table_words() {
  return 2 * static_cast<size_t>(kHash) + 8 * static_cast<size_t>(T);
}

template <uint32_t T, uint32_t kHash>
__device__ __forceinline__ void reservation_table_clear(uint32_t* table, uint32_t& rejected, uint32_t& kept) {
  for (uint32_t s = threadIdx.x; s < kHash; s += T) {
    table[s] = kReservationEmpty;
    table[kHash + s] = 0;
  }
  if (threadIdx.x == 0) {
    rejected = kReservationEmpty;
    kept = 0;
  }
}

// Where the swap targets of row q come from (issue 31): PhiloxTargets computes them from the
// Philox words of permutation first + q, many at a time; DrawnTargets reads them from a
// buffer filled ahead by draw_targets_kernel (shuffle_launch.cuh) with any generator, one
// thread per permutation drawing exactly as fisher_yates() does. The target of step i of row
// q sits at targets[((i / 8) rows + q) 8 + i % 8]: the drawing thread writes 32 contiguous
// bytes per 8 steps (its neighbours the next 32), and a block reading consecutive steps of
// one row reads whole sectors. A launch may take rows row0 .. of a larger buffer.
struct PhiloxTargets {
  static constexpr bool kComputed = true;
  uint64_t seed, first;
};
struct DrawnTargets {
  static constexpr bool kComputed = false;
  const uint32_t* targets;
  uint32_t rows;      // rows of the buffer
  uint32_t row0 = 0;  // row q of a launch is row row0 + q of the buffer
  __host__ __device__ __forceinline__ size_t index(uint32_t q, uint32_t i) const {
    return ((static_cast<size_t>(i >> 3) * rows + row0 + q) << 3) + (i & 7);
  }
};
// Words of a DrawnTargets buffer for `rows` rows of n samples.
inline __host__ __device__ size_t drawn_target_words(size_t n, uint32_t rows) {
  return (n + 7) / 8 * 8 * static_cast<size_t>(rows);
}

template <uint32_t T, uint32_t kHash, class Row, class Source>
__device__ __forceinline__ void reservation_rounds(const Row& row, uint32_t* table, size_t n, const Source& src,
                                                   uint32_t q, uint32_t& rejected, uint32_t& kept) {
  constexpr uint32_t S = 4, W = S * T, kEmpty = kReservationEmpty;
  static_assert((kHash & (kHash - 1)) == 0 && kHash >= 2 * W, "the hash size is a power of two, at most half full");
  constexpr int kHashBits = __builtin_ctz(kHash);
  uint32_t* keys = table;        // place in the slot, or kEmpty
  uint32_t* best = keys + kHash;  // the largest pending step that touches it (0: none)
  uint32_t* step_i = best + kHash;  // pending steps (plain offsets: shared addressing, no local array)
  uint32_t* step_h = step_i + W;     // and their targets
  const uint32_t k = threadIdx.x;
  uint64_t word = 0;                                // the next unused word of the stream
  int64_t next_draw = static_cast<int64_t>(n) - 1;  // the next step to draw
  uint32_t pending = 0;                             // pending steps, in step_i[0 .. pending)
  // Drawn ahead: thread k loads the targets of steps next_draw - m, m = k + s T, one round
  // before they are needed (the loads fly during the round's hash work and swaps; loaded
  // when needed, a full round of GetTickCount_8bit with xorwow took 0.571 s, now 0.552, H100).
  [[maybe_unused]] uint32_t ahead[S];
  auto load_ahead = [&] {
    if constexpr (!Source::kComputed) {
#pragma unroll
      for (uint32_t s = 0; s < S; ++s) {
        const uint32_t m = k + s * T;
        if (m < next_draw) ahead[s] = __ldg(src.targets + src.index(q, static_cast<uint32_t>(next_draw - m)));
      }
    }
  };
  load_ahead();
  while (pending > 0 || next_draw >= 1) {
    if constexpr (!Source::kComputed) {
      // Entry pending + m gets step next_draw - m and its target, m < need (<= W = S T).
      const uint32_t room = W - pending;
      const uint32_t need = static_cast<uint32_t>(next_draw < static_cast<int64_t>(room) ? next_draw : room);
#pragma unroll
      for (uint32_t s = 0; s < S; ++s) {
        const uint32_t m = k + s * T;
        if (m < need) {
          step_i[pending + m] = static_cast<uint32_t>(next_draw - m);
          step_h[pending + m] = ahead[s];
        }
      }
      next_draw -= need;
      pending += need;
      load_ahead();
      __syncthreads();  // the entries are in place
    }
    // Draws: entry pending + m gets step next_draw - m with word + m, m < need, up to the
    // first rejected word (the same values on every thread); then again for the rest.
    if constexpr (Source::kComputed) {
      const uint64_t seed = src.seed, j = src.first + q;
      while (true) {
      const uint32_t room = W - 3 - pending;  // word % 4 + need <= 4 T: the blocks cover it
      const uint32_t need = static_cast<uint32_t>(next_draw < static_cast<int64_t>(room) ? next_draw : room);
      if (need == 0 || next_draw < 1) break;
      const uint32_t skew = static_cast<uint32_t>(word & 3);
      const philox4x32_ctr_t block = PhiloxStream::block(seed, j, (word >> 2) + k);
      uint32_t h[S];
#pragma unroll
      for (uint32_t t = 0; t < S; ++t) {
        const int64_t m = static_cast<int64_t>(S * k + t) - skew;
        if (m >= 0 && m < need && !bounded_inclusive_accepts(block.v[t], static_cast<uint32_t>(next_draw - m), h[t])) {
          atomicMin(&rejected, static_cast<uint32_t>(m));
        }
      }
      __syncthreads();
      const uint32_t r = rejected < need ? rejected : need;
#pragma unroll
      for (uint32_t t = 0; t < S; ++t) {
        const int64_t m = static_cast<int64_t>(S * k + t) - skew;
        if (m >= 0 && m < r) {
          step_i[pending + m] = static_cast<uint32_t>(next_draw - m);
          step_h[pending + m] = h[t];
        }
      }
      next_draw -= r;
      word += static_cast<uint64_t>(r) + (r < need ? 1 : 0);
      pending += r;
      __syncthreads();  // the entries are in place; `rejected` read by every thread
      if (k == 0) rejected = kEmpty;
      if (r == need) break;
      __syncthreads();  // `rejected` reset before the next pass
      }
    }
    // Reservations. An earlier step i' > i can meet step i's places only through its
    // target (its own place i' is above i >= h), so step i may swap when no earlier
    // pending step targets i or h: each step writes its index into its target's slot
    // (atomicMax), and looks its own place up. The same result as reserving both places,
    // with half the hash work (reservations.hpp runs both rules: ReservationRule::kTargets
    // is this one; unit test "Fisher-Yates by deterministic reservations ...").
    // Rows with Row::kLoadEarly (shared memory) load both places of every pending step
    // here, before the hash work (a step that waits discards its values; no store of the
    // round comes before the barrier below): no barrier is then needed between a round's
    // loads and stores (H100, 1,024 binary rows: 23.5 ms, was 25.7). Rows in global memory
    // load the winners' places after the decision: loading every pending step's there made
    // 1,024 8-bit rows slower (54.9 ms against 51.7).
    uint32_t ii[S], tt[S], slot_t[S], vi[S], vt[S], own = 0;
#pragma unroll
    for (uint32_t s = 0; s < S; ++s) {
      const uint32_t e = k + s * T;
      ii[s] = 0;  // no step (steps are 1 .. n-1)
      if (e >= pending) continue;
      ii[s] = step_i[e];
      tt[s] = step_h[e];
      if constexpr (Row::kLoadEarly) {
        vi[s] = row.get(ii[s]);
        vt[s] = row.get(tt[s]);
      }
    }
#pragma unroll
    for (uint32_t s = 0; s < S; ++s) {
      if (ii[s] == 0) continue;
      uint32_t slot = (tt[s] * 2654435761u) >> (32 - kHashBits);
      while (true) {
        const uint32_t prev = atomicCAS(&keys[slot], kEmpty, tt[s]);
        if (prev == kEmpty) {
          own |= 1u << s;
          break;
        }
        if (prev == tt[s]) break;
        slot = (slot + 1) & (kHash - 1);
      }
      atomicMax(&best[slot], ii[s]);
      slot_t[s] = slot;
    }
    __syncthreads();
    // The steps that may swap do (their places are disjoint); the others are compacted to
    // the front of the list.
    uint32_t win = 0;
#pragma unroll
    for (uint32_t s = 0; s < S; ++s) {
      if (ii[s] == 0) continue;
      bool free = best[slot_t[s]] == ii[s];
      if (free && tt[s] != ii[s]) {
        for (uint32_t slot = (ii[s] * 2654435761u) >> (32 - kHashBits); keys[slot] != kEmpty;
             slot = (slot + 1) & (kHash - 1)) {
          if (keys[slot] == ii[s]) {
            free = best[slot] < ii[s];
            break;
          }
        }
      }
      if (free) {
        win |= 1u << s;
        if constexpr (!Row::kLoadEarly) {
          vi[s] = row.get(ii[s]);
          vt[s] = row.get(tt[s]);
        }
      } else {
        const uint32_t at = atomicAdd(&kept, 1u);
        step_i[at] = ii[s];  // every entry was read before the last sync
        step_h[at] = tt[s];
      }
    }
    // (Packed samples of different swaps may share a word: they are loaded early, before
    // the barrier above, so before any store.)
#pragma unroll
    for (uint32_t s = 0; s < S; ++s) {
      if (win & (1u << s)) row.put(ii[s], tt[s], vi[s], vt[s]);
    }
    __syncthreads();  // every decision made: the table can be cleared, `kept` is final
#pragma unroll
    for (uint32_t s = 0; s < S; ++s) {
      if (own & (1u << s)) {
        keys[slot_t[s]] = kEmpty;
        best[slot_t[s]] = 0;
      }
    }
    pending = kept;
    __syncthreads();  // the table is clear and `kept` read by every thread
    if (k == 0) kept = 0;
  }
}

// The rows in global memory, a byte per sample (the grid: blocks in flight, each doing
// rows blockIdx.x, + gridDim.x, ... < count). Shared memory: reservation_shuffle_shared<T>()
// bytes (dynamic).
template <uint32_t T>
constexpr uint32_t kReservationHash = 16 * T;  // slots: at most 4 T targets, a quarter full
template <uint32_t T>
constexpr size_t reservation_shuffle_shared() {
  return reservation_table_words<T, kReservationHash<T>>() * sizeof(uint32_t);
}

// Row a[0..n) = symbols[0..n), 16 bytes at a time where both are aligned.
template <uint32_t T>
__device__ __forceinline__ void copy_row(uint8_t* a, const uint8_t* __restrict__ symbols, size_t n) {
  size_t done = 0;
  if ((reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(symbols)) % 16 == 0) {
    const size_t vec = n / 16;
    for (size_t v = threadIdx.x; v < vec; v += T) reinterpret_cast<uint4*>(a)[v] = reinterpret_cast<const uint4*>(symbols)[v];
    done = vec * 16;
  }
  for (size_t i = done + threadIdx.x; i < n; i += T) a[i] = symbols[i];
}

struct GlobalRow {
  static constexpr bool kLoadEarly = false;
  uint8_t* a;
  __device__ __forceinline__ uint32_t get(uint32_t p) const { return a[p]; }
  __device__ __forceinline__ void put(uint32_t i, uint32_t t, uint32_t vi, uint32_t vt) const {
    a[i] = static_cast<uint8_t>(vt);
    a[t] = static_cast<uint8_t>(vi);
  }
};

// The row in global memory but for its lowest places [0, low_n), which stay in shared
// memory for the whole permutation: step i's target is uniform in [0, i], so the low places
// are the ones every step may touch (place p is a target about ln(n / p) times).
struct LowSharedRow {
  static constexpr bool kLoadEarly = false;
  uint8_t* a;
  uint8_t* low;  // places [0, low_n) (shared memory)
  uint32_t low_n;
  __device__ __forceinline__ uint32_t get(uint32_t p) const { return p < low_n ? low[p] : a[p]; }
  __device__ __forceinline__ void set(uint32_t p, uint32_t v) const {
    if (p < low_n) {
      low[p] = static_cast<uint8_t>(v);
    } else {
      a[p] = static_cast<uint8_t>(v);
    }
  }
  __device__ __forceinline__ void put(uint32_t i, uint32_t t, uint32_t vi, uint32_t vt) const {
    set(i, vt);
    set(t, vi);
  }
};

// Rows in global memory (GlobalRow), or with kLow their lowest low_bytes places in shared
// memory (LowSharedRow: dynamic shared memory reservation_shuffle_shared<T>() + low_bytes, a
// multiple of 16; one block per SM, whose registers it may all use).
template <uint32_t T, bool kLow = false, class Source = PhiloxTargets>
__global__ void __launch_bounds__(T, kLow ? 1 : 1024 / T)
    reservation_shuffle_kernel(uint8_t* rows, const uint8_t* __restrict__ symbols, size_t n, Source src,
                               uint32_t count, uint32_t low_bytes) {
  constexpr uint32_t kHash = kReservationHash<T>;
  extern __shared__ uint32_t reservation_smem[];
  __shared__ uint32_t rejected, kept;
  reservation_table_clear<T, kHash>(reservation_smem, rejected, kept);
  [[maybe_unused]] uint8_t* low = reinterpret_cast<uint8_t*>(reservation_smem + reservation_table_words<T, kHash>());
  const uint32_t low_n = kLow ? static_cast<uint32_t>(n < low_bytes ? n : low_bytes) : 0;
  __syncthreads();
  for (uint32_t q = blockIdx.x; q < count; q += gridDim.x) {
    uint8_t* a = rows + static_cast<size_t>(q) * n;
    if constexpr (kLow) copy_row<T>(low, symbols, low_n);
    copy_row<T>(a + low_n, symbols + low_n, n - low_n);
    __syncthreads();
    if constexpr (kLow) {
      reservation_rounds<T, kHash>(LowSharedRow{a, low, low_n}, reservation_smem, n, src, q, rejected, kept);
      copy_row<T>(a, low, low_n);  // (the rounds end with a sync)
      __syncthreads();             // read before the next row's copy
    } else {
      reservation_rounds<T, kHash>(GlobalRow{a}, reservation_smem, n, src, q, rejected, kept);
    }
  }
}

// The row packed in shared memory, 2^log_bits bits per sample (1, 2, 4 or 8; every symbol
// below 2^bits): no global memory traffic while shuffling. A binary permutation of up to
// about 1.2 million samples fits beside the table on an H100 (a byte per sample: 150,000).
// Concurrent swaps of a round may share a word, so packed samples are swapped by
// atomicXor of both places with vi ^ vt (their fields are disjoint); bytes are stored.
struct SharedRow {
  static constexpr bool kLoadEarly = true;  // required: packed samples of two swaps may share a word
  uint32_t* words;
  uint32_t log_bits;
  __device__ __forceinline__ uint32_t get(uint32_t p) const {
    // Bytes are loaded alone: other threads of the round store the other bytes of the word.
    if (log_bits == 3) return reinterpret_cast<const uint8_t*>(words)[p];
    const uint32_t bit = p << log_bits;
    return (words[bit >> 5] >> (bit & 31)) & ((2u << ((1u << log_bits) - 1)) - 1);
  }
  __device__ __forceinline__ void put(uint32_t i, uint32_t t, uint32_t vi, uint32_t vt) const {
    if (log_bits == 3) {
      uint8_t* b = reinterpret_cast<uint8_t*>(words);
      b[i] = static_cast<uint8_t>(vt);
      b[t] = static_cast<uint8_t>(vi);
      return;
    }
    const uint32_t d = vi ^ vt;
    if (d == 0) return;
    const uint32_t bi = i << log_bits, bt = t << log_bits;
    atomicXor(&words[bi >> 5], d << (bi & 31));
    atomicXor(&words[bt >> 5], d << (bt & 31));
  }
};

// Dynamic shared memory: reservation_shuffle_shared<T>() bytes (the table), then the row.
// Words of a row of n samples of 2^log_bits bits (padded to 16 bytes).
inline __host__ __device__ size_t resident_row_words(size_t n, uint32_t log_bits) {
  return ((n << log_bits) + 127) / 128 * 4;
}

// `bytes` of dynamic shared memory where they fit beside `kernel`'s static shared memory
// on the current device (the opt-in limit), else 0.
template <class Kernel>
inline size_t dynamic_shared_if_fits(Kernel kernel, size_t bytes) {
  int device = 0, optin = 0;
  EA_CUDA_CHECK(cudaGetDevice(&device));
  EA_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attr{};
  EA_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  return bytes + attr.sharedSizeBytes <= static_cast<size_t>(optin) ? bytes : 0;
}

// The block's threads pack row words[0 .. resident_row_words(n, log_bits)) from the
// symbols (a sync follows).
template <uint32_t T>
__device__ __forceinline__ void pack_row(uint32_t* words, const uint8_t* __restrict__ symbols, size_t n,
                                         uint32_t log_bits) {
  const size_t row_words = resident_row_words(n, log_bits);
  const uint32_t per_word = 32u >> log_bits;
  for (size_t w = threadIdx.x; w < row_words; w += T) {
    uint32_t v = 0;
    const size_t p0 = w * per_word;
    for (uint32_t s = 0; s < per_word && p0 + s < n; ++s) v |= static_cast<uint32_t>(symbols[p0 + s]) << (s << log_bits);
    words[w] = v;
  }
  __syncthreads();
}

template <uint32_t T, class Source = PhiloxTargets>
__global__ void __launch_bounds__(T, 1)
    resident_shuffle_kernel(uint8_t* rows, const uint8_t* __restrict__ symbols, size_t n, Source src, uint32_t count,
                            uint32_t log_bits) {
  constexpr uint32_t kHash = kReservationHash<T>;
  extern __shared__ uint32_t reservation_smem[];
  __shared__ uint32_t rejected, kept;
  uint32_t* table = reservation_smem;
  uint32_t* words = table + reservation_table_words<T, kHash>();
  reservation_table_clear<T, kHash>(table, rejected, kept);
  for (uint32_t q = blockIdx.x; q < count; q += gridDim.x) {
    pack_row<T>(words, symbols, n, log_bits);
    const SharedRow row{words, log_bits};
    reservation_rounds<T, kHash>(row, table, n, src, q, rejected, kept);
    // (reservation_rounds ends with a sync: the row is final.) Out to global memory, four
    // samples per store from the first 4-byte boundary of the row on.
    uint8_t* a = rows + static_cast<size_t>(q) * n;
    const size_t head = (4 - (reinterpret_cast<uintptr_t>(a) & 3)) & 3;
    if (threadIdx.x < head && threadIdx.x < n) a[threadIdx.x] = static_cast<uint8_t>(row.get(threadIdx.x));
    for (size_t p = head + threadIdx.x * size_t{4}; p < n; p += size_t{4} * T) {
      if (p + 4 <= n) {
        uint32_t v = 0;
        for (uint32_t s = 0; s < 4; ++s) v |= row.get(static_cast<uint32_t>(p + s)) << (8 * s);
        *reinterpret_cast<uint32_t*>(a + p) = v;
      } else {
        for (size_t s = p; s < n; ++s) a[s] = static_cast<uint8_t>(row.get(static_cast<uint32_t>(s)));
      }
    }
    __syncthreads();  // the row is read before the next one is packed
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
