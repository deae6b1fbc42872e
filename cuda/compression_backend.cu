// The compression test (SP 800-90B 5.1.11) on the GPU: for a round of B permutations,
// the exact length of libbz2's output for each one's decimal text, from the bzip2 size
// model in src/stats/bzip2_model.hpp (the same functions the host tests check against
// libbz2). Per round:
//  1. shuffle_kernel (shared with the statistics backend) shuffles B copies;
//  2. text_length_kernel + a CUB scan + text_kernel write the B decimal texts back to
//     back (every permutation's text has the same length);
//  3. split_kernel cuts each text into bzip2 blocks (slices: decimal text has no run of
//     4 equal bytes);
//  4. the Burrows-Wheeler transform of every block at once by prefix doubling over cyclic
//     rotations: one CUB radix sort of (block, first 13-14 characters) over all B texts,
//     then doubling passes over the rotations still tied only;
//  5. move-to-front in segments of 2,048 symbols (each segment's signature, the lists at
//     the segment starts composed per block, the places), zero-run coding by one thread
//     per block, and block_bits_kernel (one CTA per block, its threads sharing the groups
//     of 50 symbols) give each block's bits.
// Before a data set is used, its original (unshuffled) data goes through the same steps
// and must give libbz2's length, or the backend refuses the data set (the caller then
// runs the test on the CPU).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cub/cub.cuh>
#include <memory>
#include <string>
#include <vector>

#include "assess.hpp"
#include "check.cuh"
#include "device_buffer.cuh"
#include "shuffle_launch.cuh"
#include "permutation/permutation.hpp"
#include "stats/bzip2_model.hpp"

namespace ea {

namespace {

constexpr int kLevel = 5;  // the block size the reference compresses with
constexpr int kThreads = 256;

unsigned grid_for(size_t n, int threads = kThreads) { return static_cast<unsigned>((n + threads - 1) / threads); }

int bits_for(uint64_t v) {
  int b = 0;
  while (b < 64 && (v >> b) != 0) ++b;
  return std::max(b, 1);
}

__device__ __forceinline__ uint32_t decimal_digits(uint32_t v) { return v >= 100 ? 3 : v >= 10 ? 2 : 1; }

// Text characters in sort order (' ' < '0' < ... < '9') as 4-bit codes.
__device__ __forceinline__ uint64_t char_code(uint8_t c) { return c == ' ' ? 0 : static_cast<uint64_t>(c - '0' + 1); }

// Element (i, p) of a round, p fastest (coalesced reads of the interleaved batch).
struct SampleIndex {
  size_t i;
  uint32_t p;
};
__device__ __forceinline__ bool sample_index(size_t n, uint32_t count, SampleIndex& s) {
  const size_t idx = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= n * count) return false;
  s.i = idx / count;
  s.p = static_cast<uint32_t>(idx % count);
  return true;
}

// lens[p * n + i]: characters of sample i of copy p with its separator (none after the last).
__global__ void text_length_kernel(const uint8_t* batch, size_t stride, uint32_t count, size_t n,
                                   const uint8_t* __restrict__ raw_of, uint32_t* lens) {
  SampleIndex s;
  if (!sample_index(n, count, s)) return;
  const uint32_t v = raw_of[batch[s.i * stride + s.p]];
  lens[s.p * n + s.i] = decimal_digits(v) + (s.i + 1 < n ? 1 : 0);
}

__global__ void text_kernel(const uint8_t* batch, size_t stride, uint32_t count, size_t n,
                            const uint8_t* __restrict__ raw_of, const uint32_t* pos, uint8_t* text) {
  SampleIndex s;
  if (!sample_index(n, count, s)) return;
  const uint32_t v = raw_of[batch[s.i * stride + s.p]];
  uint8_t* o = text + pos[s.p * n + s.i];
  int k = 0;
  if (v >= 100) o[k++] = static_cast<uint8_t>('0' + v / 100);
  if (v >= 10) o[k++] = static_cast<uint8_t>('0' + (v / 10) % 10);
  o[k++] = static_cast<uint8_t>('0' + v % 10);
  if (s.i + 1 < n) o[k] = ' ';
}

// Copy 0 of the batch = the data unshuffled (the self-check).
__global__ void copy_original_kernel(uint8_t* batch, size_t stride, const uint8_t* symbols, size_t n) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) batch[i * stride] = symbols[i];
}

// The blocks of the round: slot p * per_perm + k is block k of copy p (length 0: unused).
struct BlockTable {
  uint32_t* begin;  // position of the block's first character among all B texts
  uint32_t* len;
  uint32_t* count;  // blocks of each copy
  uint32_t per_perm;
  uint32_t text_len;
  uint32_t limit;

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

// Pass 0 keys: block slot, then the first `chars` characters of the rotation at q.
__global__ void first_keys_kernel(const uint8_t* text, uint32_t total, BlockTable t, int chars, uint64_t* keys,
                                  uint32_t* vals) {
  const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= total) return;
  const uint32_t b = t.slot_of(q);
  const uint32_t begin = t.begin[b], len = t.len[b];
  uint32_t o = q - begin;
  uint64_t key = static_cast<uint64_t>(b);
  for (int c = 0; c < chars; ++c) {
    key = (key << 4) | char_code(text[begin + o]);
    o = o + 1 == len ? 0 : o + 1;
  }
  keys[q] = key;
  vals[q] = q;
}

// head[i] = i where a new key starts, else 0 (a max-scan then gives each element its
// group's first index).
__global__ void head_kernel(const uint64_t* keys, uint32_t m, uint32_t* head) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) head[i] = (i == 0 || keys[i] != keys[i - 1]) ? i : 0;
}

// Pair passes: also where the rank half (key >> 32) changes.
__global__ void pair_head_kernel(const uint64_t* keys, uint32_t m, uint32_t* sub, uint32_t* group) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  sub[i] = (i == 0 || keys[i] != keys[i - 1]) ? i : 0;
  group[i] = (i == 0 || (keys[i] >> 32) != (keys[i - 1] >> 32)) ? i : 0;
}

__device__ __forceinline__ bool tied(const uint64_t* keys, uint32_t m, uint32_t i) {
  return (i > 0 && keys[i] == keys[i - 1]) || (i + 1 < m && keys[i] == keys[i + 1]);
}

// After pass 0 the rank of a rotation is its group's first index among all sorted
// rotations (blocks in order, so a block's ranks are its own positions).
__global__ void first_ranks_kernel(const uint64_t* keys, const uint32_t* vals, const uint32_t* group, uint32_t m,
                                   uint32_t* rank, uint8_t* unresolved) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  rank[vals[i]] = group[i];
  unresolved[i] = tied(keys, m, i);
}

// Doubling pass h: key = (rank of q, rank of the rotation h characters later).
__global__ void pair_keys_kernel(const uint32_t* list, uint32_t m, const uint32_t* rank, uint32_t h, BlockTable t,
                                 uint64_t* keys, uint32_t* vals) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const uint32_t q = list[i];
  const uint32_t b = t.slot_of(q);
  const uint32_t begin = t.begin[b], len = t.len[b];
  const uint32_t later = begin + static_cast<uint32_t>((static_cast<uint64_t>(q - begin) + h) % len);
  keys[i] = (static_cast<uint64_t>(rank[q]) << 32) | rank[later];
  vals[i] = q;
}

// New rank = old group start + offset of the new subgroup within it; `last` breaks the
// remaining ties by position (they are identical rotations: any order gives the same
// transform).
__global__ void pair_ranks_kernel(const uint64_t* keys, const uint32_t* vals, const uint32_t* sub,
                                  const uint32_t* group, uint32_t m, bool last, uint32_t* rank,
                                  uint8_t* unresolved) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  rank[vals[i]] = static_cast<uint32_t>(keys[i] >> 32) + ((last ? i : sub[i]) - group[i]);
  unresolved[i] = tied(keys, m, i);
}

__global__ void position_ranks_kernel(const uint32_t* vals, uint32_t m, uint32_t* rank) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) rank[vals[i]] = i;
}

__global__ void invert_kernel(const uint32_t* rank, uint32_t total, uint32_t* order) {
  const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q < total) order[rank[q]] = q;
}

// The transform: the character before each rotation, in sorted order.
__global__ void bwt_kernel(const uint8_t* text, const uint32_t* order, uint32_t total, BlockTable t, uint8_t* last) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const uint32_t b = t.slot_of(i);
  const uint32_t begin = t.begin[b], len = t.len[b];
  const uint32_t q = order[i];
  last[i] = text[q == begin ? begin + len - 1 : q - 1];
}

struct MtfTable {
  uint16_t* values;  // block slot b at values + begin[b] + b (at most len + 1 values)
  int32_t* freq;     // kMaxAlpha per slot
  int32_t* count;
  int32_t* in_use;
  int32_t* ranges;
  uint8_t* selectors;  // slot b at selectors + (begin[b] + b) / 50 + b
};

__device__ __forceinline__ size_t selector_offset(uint32_t begin, uint32_t b) {
  return (static_cast<size_t>(begin) + b) / bz::kGroupSize + b;
}

// Move-to-front in segments of kSegment symbols (bz::packed_* in src/stats/bzip2_model.hpp;
// blocks with at most 16 byte values, which decimal text always is; others are coded by one
// thread in zero_run_kernel).
constexpr uint32_t kSegment = 2048;

struct Segments {
  uint64_t* sig;    // the segment's list when started from the identity
  uint32_t* seen;   // its symbols
  uint64_t* start;  // the list at its start
  uint8_t* seq_of;  // 256 per slot: byte -> index among the bytes in use
  uint32_t per_slot;
};

__global__ void byte_map_kernel(const uint8_t* last, BlockTable t, MtfTable m, Segments sg) {
  const uint32_t b = blockIdx.x;
  const uint32_t len = t.len[b];
  __shared__ bool used[256];
  for (int k = threadIdx.x; k < 256; k += blockDim.x) used[k] = false;
  __syncthreads();
  const uint8_t* block = last + t.begin[b];  // the block's bytes, in another order
  for (uint32_t i = threadIdx.x; i < len; i += blockDim.x) used[block[i]] = true;
  __syncthreads();
  if (threadIdx.x == 0) {
    int ranges = 0;
    m.in_use[b] = bz::map_used_bytes(used, sg.seq_of + static_cast<size_t>(b) * 256, ranges);
    m.ranges[b] = ranges;
  }
}

// f(symbol index) for the n bytes at s, fetched 16 at a time ahead of f.
template <class F>
__device__ __forceinline__ void for_each_symbol(const uint8_t* s, uint32_t n, const uint8_t* seq_of, F&& f) {
  uint32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8_t c[16];
#pragma unroll
    for (int k = 0; k < 16; ++k) c[k] = seq_of[s[i + k]];
#pragma unroll
    for (int k = 0; k < 16; ++k) f(c[k]);
  }
  for (; i < n; ++i) f(seq_of[s[i]]);
}

// Grid (segments, slots): the segment of this thread, or false.
__device__ __forceinline__ bool segment_of(const BlockTable& t, const MtfTable& m, const Segments& sg, uint8_t* seq_of,
                                          uint32_t& k, uint32_t& n) {
  const uint32_t b = blockIdx.y;
  for (int v = threadIdx.x; v < 256; v += blockDim.x) seq_of[v] = sg.seq_of[static_cast<size_t>(b) * 256 + v];
  __syncthreads();
  k = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t len = t.len[b];
  if (m.in_use[b] > 16 || k * kSegment >= len) return false;
  n = min(kSegment, len - k * kSegment);
  return true;
}

__global__ void signature_kernel(const uint8_t* last, BlockTable t, MtfTable m, Segments sg) {
  __shared__ uint8_t seq_of[256];
  uint32_t k, n;
  if (!segment_of(t, m, sg, seq_of, k, n)) return;
  const uint32_t b = blockIdx.y;
  uint64_t order = bz::packed_identity(m.in_use[b]);
  uint32_t seen = 0;
  for_each_symbol(last + t.begin[b] + k * kSegment, n, seq_of, [&](uint64_t c) {
    seen |= 1u << c;
    bz::packed_move_to_front(order, c);
  });
  sg.sig[b * sg.per_slot + k] = order;
  sg.seen[b * sg.per_slot + k] = seen;
}

__global__ void starts_kernel(BlockTable t, MtfTable m, Segments sg, uint32_t slots) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= slots || t.len[b] == 0 || m.in_use[b] > 16) return;
  const int in_use = m.in_use[b];
  uint64_t start = bz::packed_identity(in_use);
  const uint32_t segments = (t.len[b] + kSegment - 1) / kSegment;
  for (uint32_t k = 0; k < segments; ++k) {
    const uint32_t at = b * sg.per_slot + k;
    sg.start[at] = start;
    start = bz::packed_compose(sg.sig[at], sg.seen[at], start, in_use);
  }
}

__global__ void places_kernel(const uint8_t* last, BlockTable t, MtfTable m, Segments sg, uint8_t* places) {
  __shared__ uint8_t seq_of[256];
  uint32_t k, n;
  if (!segment_of(t, m, sg, seq_of, k, n)) return;
  const uint32_t b = blockIdx.y;
  uint64_t order = sg.start[b * sg.per_slot + k];
  uint8_t* out = places + t.begin[b] + k * kSegment;
  uint32_t i = 0;
  for_each_symbol(last + t.begin[b] + k * kSegment, n, seq_of,
                  [&](uint64_t c) { out[i++] = static_cast<uint8_t>(bz::packed_move_to_front(order, c)); });
}

// One thread per block: zero-run coding of the places (or the whole move-to-front for
// blocks with more than 16 byte values).
__global__ void zero_run_kernel(const uint8_t* last, const uint8_t* places, BlockTable t, MtfTable m, Segments sg) {
  const uint32_t b = blockIdx.x;
  const uint32_t len = t.len[b];
  if (len == 0) {
    m.count[b] = 0;
    return;
  }
  const int in_use = m.in_use[b];
  uint16_t* out = m.values + t.begin[b] + b;
  int32_t* freq = m.freq + static_cast<size_t>(b) * bz::kMaxAlpha;
  m.count[b] = in_use <= 16 ? bz::zero_run_code(places + t.begin[b], static_cast<int32_t>(len), in_use, out, freq)
                            : bz::mtf_encode(last + t.begin[b], static_cast<int32_t>(len),
                                             sg.seq_of + static_cast<size_t>(b) * 256, in_use, out, freq);
}

// One CTA per block: the steps of bz::block_bits_from_mtf with the groups shared among
// the threads (frequencies summed with shared-memory atomics: integers, so the order does
// not matter) and the sequential parts on thread 0.
__global__ void __launch_bounds__(kThreads) block_bits_kernel(BlockTable t, MtfTable m, unsigned long long* bits) {
  const uint32_t b = blockIdx.x;
  const int32_t n_mtf = m.count[b];
  if (n_mtf == 0) {
    if (threadIdx.x == 0) bits[b] = 0;
    return;
  }
  __shared__ uint8_t len[bz::kMaxTables][bz::kMaxAlpha];
  __shared__ int32_t rfreq[bz::kMaxTables][bz::kMaxAlpha];
  __shared__ unsigned long long data_bits;
  const uint16_t* values = m.values + t.begin[b] + b;
  uint8_t* selectors = m.selectors + selector_offset(t.begin[b], b);
  const int alpha = m.in_use[b] + 2;
  const int tables = bz::table_count(n_mtf);
  const int32_t groups = (n_mtf + bz::kGroupSize - 1) / bz::kGroupSize;
  if (threadIdx.x == 0) {
    bz::initial_tables(len, tables, alpha, m.freq + static_cast<size_t>(b) * bz::kMaxAlpha, n_mtf);
    data_bits = 0;
  }
  __syncthreads();
  for (int pass = 0; pass < bz::kPasses; ++pass) {
    for (int k = threadIdx.x; k < bz::kMaxTables * bz::kMaxAlpha; k += blockDim.x) (&rfreq[0][0])[k] = 0;
    __syncthreads();
    for (int32_t g = threadIdx.x; g < groups; g += blockDim.x) {
      const int32_t gs = g * bz::kGroupSize;
      const int count = n_mtf - gs < bz::kGroupSize ? static_cast<int>(n_mtf - gs) : bz::kGroupSize;
      const int bt = bz::best_table(values + gs, count, len, tables);
      selectors[g] = static_cast<uint8_t>(bt);
      for (int i = 0; i < count; ++i) atomicAdd(&rfreq[bt][values[gs + i]], 1);
    }
    __syncthreads();
    if (threadIdx.x < tables) bz::code_lengths(len[threadIdx.x], rfreq[threadIdx.x], alpha, bz::kMaxCodeLength);
    __syncthreads();
  }
  unsigned long long own = 0;
  for (int32_t g = threadIdx.x; g < groups; g += blockDim.x) own += bz::group_data_bits(values, n_mtf, g, selectors, len);
  atomicAdd(&data_bits, own);
  __syncthreads();
  if (threadIdx.x == 0) bits[b] = data_bits + bz::block_side_bits(selectors, groups, len, tables, alpha, m.ranges[b]);
}

struct MaxOp {
  __device__ __forceinline__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

class GpuCompressionBackend final : public PermutationBackend {
 public:
  GpuCompressionBackend(const PermutationData& data, int gpu_id, double memory_share)
      : gpu_id_(gpu_id), memory_share_(memory_share) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices <= gpu_id) {
      (void)cudaGetLastError();
      throw Error(ErrorKind::Device, "no usable GPU for the compression test");
    }
    EA_CUDA_CHECK(cudaSetDevice(gpu_id));
    res_ = std::make_unique<Resources>();
    bind(data);
  }

  std::string name() const override {
    return "gpu " + std::to_string(gpu_id_) + " (bzip2 size model: " + std::to_string(shuffle_copies_) +
           " permutations per shuffle, " + std::to_string(copies_) + " modelled at a time)";
  }
  TestMask supported() const override { return bit(TestId::kCompression); }
  uint32_t round_size(uint32_t, TestMask) const override { return shuffle_copies_; }
  double busy_seconds() const override { return busy_ms_ / 1000.0; }
  bool rebind(const PermutationData& data) override {
    EA_CUDA_CHECK(cudaSetDevice(gpu_id_));
    bind(data);
    return true;
  }

  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    if (count > shuffle_copies_) throw Error(ErrorKind::Internal, "GPU compression round larger than its buffer");
    std::fill(outcomes, outcomes + static_cast<size_t>(count) * kNumTests, kNotComputed);
    if (!(mask & bit(TestId::kCompression)) || count == 0) return;
    shuffle(first, count);
    for (uint32_t c0 = 0; c0 < count; c0 += copies_) {
      const uint32_t m = std::min(copies_, count - c0);
      judge(c0, m, outcomes + static_cast<size_t>(c0) * kNumTests);
    }
  }

  // The shuffle is latency-bound (one thread runs a whole Fisher-Yates pass), so it is
  // done for many permutations at once; the model then runs on as many at a time as its
  // buffers hold, and the permutations after the deciding one are never modelled.
  void stream(uint64_t first, uint32_t count, TestMask mask, const OutcomeSink& sink) override {
    std::vector<uint8_t> rows;
    uint32_t done = 0;
    while ((mask & bit(TestId::kCompression)) && done < count) {
      const uint32_t n = std::min(shuffle_copies_, count - done);
      shuffle(first + done, n);
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
  // Columns 0 .. count-1 of the batch become permutations first .. first+count-1.
  void shuffle(uint64_t first, uint32_t count) {
    if (streams_.states && first + count > streams_.count) {
      throw Error(ErrorKind::Internal, "permutation beyond the prepared generator streams");
    }
    cudaStream_t st = res_->stream;
    EA_CUDA_CHECK(cudaEventRecord(res_->start.get(), st));
    launch_shuffle(4, 32, st, batch_.get(), shuffle_copies_, count, symbols_.get(), data_.n, streams_, first);
    EA_CUDA_CHECK(cudaGetLastError());
    EA_CUDA_CHECK(cudaEventRecord(res_->done.get(), st));
    EA_CUDA_CHECK(cudaEventSynchronize(res_->done.get()));
    add_busy();
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
      const double a = static_cast<double>(sizes[r]);
      rows[static_cast<size_t>(r) * kNumTests + kNumFastTests] = a > original ? kGreater
                                                                 : a == original ? kEqual
                                                                                 : kLess;
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
    uint64_t text_len = data.n ? data.n - 1 : 0;
    for (size_t i = 0; i < data.n; ++i) {
      const unsigned v = data.raw_of[data.symbols[i]];
      text_len += v >= 100 ? 3 : v >= 10 ? 2 : 1;
    }
    if (data.n == 0 || text_len >= (uint64_t{1} << 31)) {
      throw Error(ErrorKind::Device, "data set size not supported by the GPU compression test");
    }
    cudaStream_t st = res_->stream;
    cuda::upload(symbols_, data.symbols, data.n, st);
    cuda::upload(raw_of_, data.raw_of, 256, st);
    streams_ = upload_streams(data.streams, states_, aux_, st);
    EA_CUDA_CHECK(cudaStreamSynchronize(st));
    if (data.n != n_ || text_len != text_len_) allocate(data.n, static_cast<uint32_t>(text_len));
    busy_ms_ = 0;
    // The self-check: the original data must give libbz2's length.
    copy_original_kernel<<<grid_for(data.n), kThreads, 0, st>>>(batch_.get(), shuffle_copies_, symbols_.get(),
                                                                data.n);
    EA_CUDA_CHECK(cudaGetLastError());
    const uint64_t got = compressed_sizes(0, 1)[0];
    const double want = data.original.v[kNumFastTests];
    if (static_cast<double>(got) != want) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "the GPU bzip2 model gives %llu bytes for the original data where libbz2 gives %.0f", 
                    static_cast<unsigned long long>(got), want);
      throw Error(ErrorKind::Device, buf);
    }
  }


  // Copies per round: about `EA_IID_GPU_BZ_ELEMENTS` (default 2^26) text characters in all,
  // at most 64, fewer when memory_share_ of the free memory does not hold them; halved on
  // an allocation failure.
  void allocate(size_t n, uint32_t text_len) {
    release();
    const char* env = std::getenv("EA_IID_GPU_BZ_ELEMENTS");
    const double target = env && *env ? std::atof(env) : static_cast<double>(uint64_t{1} << 26);
    size_t free_bytes = 0, total_bytes = 0;
    EA_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const double per_copy = 50.0 * text_len + 9.0 * static_cast<double>(n);
    uint32_t copies = static_cast<uint32_t>(std::max(1.0, std::min({64.0, target / text_len,
                                                                      memory_share_ * free_bytes / per_copy})));
    copies = static_cast<uint32_t>(std::min<uint64_t>(copies, (uint64_t{1} << 32) / text_len - 1));
    for (;;) {
      if (try_allocate(n, text_len, std::max<uint32_t>(copies, 1))) break;
      release();
      if (copies <= 1) throw Error(ErrorKind::Device, "GPU out of memory for the compression test");
      copies /= 2;
    }
    n_ = n;
    text_len_ = text_len;
  }

  void release() {
    batch_.reset(); lens_.reset(); pos_.reset(); text_.reset();
    block_begin_.reset(); block_len_.reset(); block_count_.reset();
    for (auto& k : keys_) k.reset();
    for (auto& v : vals_) v.reset();
    rank_.reset(); scan_a_.reset(); scan_b_.reset(); flags_.reset(); list_.reset(); selected_.reset();
    last_.reset(); mtf_values_.reset(); mtf_freq_.reset(); mtf_count_.reset(); mtf_in_use_.reset();
    mtf_ranges_.reset(); selectors_.reset(); bits_.reset(); temp_.reset();
    seg_sig_.reset(); seg_start_.reset(); seg_seen_.reset(); seq_maps_.reset();
    n_ = 0;
    text_len_ = 0;
  }

  bool try_allocate(size_t n, uint32_t text_len, uint32_t copies) {
    copies_ = copies;
    // Permutations shuffled at once (EA_IID_GPU_BZ_SHUFFLE, default 128).
    const char* env = std::getenv("EA_IID_GPU_BZ_SHUFFLE");
    shuffle_copies_ = std::max<uint32_t>(copies, env && *env ? static_cast<uint32_t>(std::atoi(env)) : 128u);
    per_perm_ = text_len / bz::block_limit(kLevel) + 2;
    slots_ = copies * per_perm_;
    seg_per_slot_ = (bz::block_limit(kLevel) + 64) / kSegment + 1;
    const size_t total = static_cast<size_t>(copies) * text_len, samples = copies * n;
    using cuda::DeviceBuffer;
    bool ok = DeviceBuffer<uint8_t>::try_allocate(static_cast<size_t>(shuffle_copies_) * n, batch_) &&
              DeviceBuffer<uint32_t>::try_allocate(samples, lens_) &&
              DeviceBuffer<uint32_t>::try_allocate(samples, pos_) &&
              DeviceBuffer<uint8_t>::try_allocate(total, text_) &&
              DeviceBuffer<uint32_t>::try_allocate(slots_, block_begin_) &&
              DeviceBuffer<uint32_t>::try_allocate(slots_, block_len_) &&
              DeviceBuffer<uint32_t>::try_allocate(copies, block_count_) &&
              DeviceBuffer<uint64_t>::try_allocate(total, keys_[0]) &&
              DeviceBuffer<uint64_t>::try_allocate(total, keys_[1]) &&
              DeviceBuffer<uint32_t>::try_allocate(total, vals_[0]) &&
              DeviceBuffer<uint32_t>::try_allocate(total, vals_[1]) &&
              DeviceBuffer<uint32_t>::try_allocate(total, rank_) &&
              DeviceBuffer<uint32_t>::try_allocate(total, scan_a_) &&
              DeviceBuffer<uint32_t>::try_allocate(total, scan_b_) &&
              DeviceBuffer<uint8_t>::try_allocate(total, flags_) &&
              DeviceBuffer<uint32_t>::try_allocate(total, list_) &&
              DeviceBuffer<uint32_t>::try_allocate(1, selected_) &&
              DeviceBuffer<uint8_t>::try_allocate(total, last_) &&
              DeviceBuffer<uint16_t>::try_allocate(total + slots_, mtf_values_) &&
              DeviceBuffer<int32_t>::try_allocate(static_cast<size_t>(slots_) * bz::kMaxAlpha, mtf_freq_) &&
              DeviceBuffer<int32_t>::try_allocate(slots_, mtf_count_) &&
              DeviceBuffer<int32_t>::try_allocate(slots_, mtf_in_use_) &&
              DeviceBuffer<int32_t>::try_allocate(slots_, mtf_ranges_) &&
              DeviceBuffer<uint8_t>::try_allocate((total + slots_) / bz::kGroupSize + 2 * slots_ + 1, selectors_) &&
              DeviceBuffer<unsigned long long>::try_allocate(slots_, bits_) &&
              DeviceBuffer<uint64_t>::try_allocate(static_cast<size_t>(slots_) * seg_per_slot_, seg_sig_) &&
              DeviceBuffer<uint64_t>::try_allocate(static_cast<size_t>(slots_) * seg_per_slot_, seg_start_) &&
              DeviceBuffer<uint32_t>::try_allocate(static_cast<size_t>(slots_) * seg_per_slot_, seg_seen_) &&
              DeviceBuffer<uint8_t>::try_allocate(static_cast<size_t>(slots_) * 256, seq_maps_);
    if (!ok) return false;
    // CUB scratch: the largest of what the sort, scan and select need for `total` items.
    size_t sort_bytes = 0, scan_bytes = 0, sum_bytes = 0, select_bytes = 0;
    cub::DoubleBuffer<uint64_t> k(keys_[0].get(), keys_[1].get());
    cub::DoubleBuffer<uint32_t> v(vals_[0].get(), vals_[1].get());
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, v, static_cast<int>(total)));
    EA_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, scan_bytes, scan_a_.get(), scan_a_.get(), MaxOp{},
                                                 static_cast<int>(total)));
    EA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, sum_bytes, lens_.get(), pos_.get(),
                                                static_cast<int>(samples)));
    EA_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, select_bytes, vals_[0].get(), flags_.get(), list_.get(),
                                             selected_.get(), static_cast<int>(total)));
    if (!DeviceBuffer<uint8_t>::try_allocate(std::max({sort_bytes, scan_bytes, sum_bytes, select_bytes, size_t{1}}),
                                             temp_)) {
      return false;
    }
    host_bits_ = cuda::PinnedBuffer<unsigned long long>(slots_);
    host_selected_ = cuda::PinnedBuffer<uint32_t>(1);
    return true;
  }

  size_t temp_bytes() const { return temp_.size(); }

  void max_scan(uint32_t* data, uint32_t m, cudaStream_t st) {
    size_t bytes = temp_bytes();
    EA_CUDA_CHECK(cub::DeviceScan::InclusiveScan(temp_.get(), bytes, data, data, MaxOp{}, static_cast<int>(m), st));
  }

  uint32_t select_unresolved(const uint32_t* vals, uint32_t m, cudaStream_t st) {
    size_t bytes = temp_bytes();
    EA_CUDA_CHECK(cub::DeviceSelect::Flagged(temp_.get(), bytes, vals, flags_.get(), list_.get(), selected_.get(),
                                             static_cast<int>(m), st));
    EA_CUDA_CHECK(cudaMemcpyAsync(host_selected_.get(), selected_.get(), sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
    EA_CUDA_CHECK(cudaStreamSynchronize(st));
    return *host_selected_.get();
  }

  // Compressed length of columns c0 .. c0+count-1 of the batch.
  std::vector<uint64_t> compressed_sizes(uint32_t c0, uint32_t count) {
    cudaStream_t st = res_->stream;
    const size_t n = data_.n;
    const size_t samples = static_cast<size_t>(count) * n;
    const uint32_t total = count * text_len_;
    const size_t stride = shuffle_copies_;
    const uint8_t* batch = batch_.get() + c0;
    mark(0);
    // 1. The decimal texts.
    text_length_kernel<<<grid_for(samples), kThreads, 0, st>>>(batch, stride, count, n, raw_of_.get(),
                                                               lens_.get());
    size_t bytes = temp_bytes();
    EA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_.get(), bytes, lens_.get(), pos_.get(),
                                                static_cast<int>(samples), st));
    text_kernel<<<grid_for(samples), kThreads, 0, st>>>(batch, stride, count, n, raw_of_.get(), pos_.get(),
                                                        text_.get());
    mark(1);
    // 2. Blocks.
    BlockTable t{block_begin_.get(), block_len_.get(), block_count_.get(), per_perm_, text_len_,
                 bz::block_limit(kLevel)};
    split_kernel<<<grid_for(count, 64), 64, 0, st>>>(text_.get(), count, t);
    EA_CUDA_CHECK(cudaGetLastError());
    mark(2);
    // 3. Sorted rotations: pass 0 on (slot, first characters).
    const uint32_t slots = count * per_perm_;
    const int slot_bits = bits_for(slots);
    const int chars = (64 - slot_bits) / 4;
    cub::DoubleBuffer<uint64_t> keys(keys_[0].get(), keys_[1].get());
    cub::DoubleBuffer<uint32_t> vals(vals_[0].get(), vals_[1].get());
    first_keys_kernel<<<grid_for(total), kThreads, 0, st>>>(text_.get(), total, t, chars, keys.Current(),
                                                           vals.Current());
    bytes = temp_bytes();
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.get(), bytes, keys, vals, static_cast<int>(total), 0,
                                                  slot_bits + 4 * chars, st));
    head_kernel<<<grid_for(total), kThreads, 0, st>>>(keys.Current(), total, scan_a_.get());
    max_scan(scan_a_.get(), total, st);
    first_ranks_kernel<<<grid_for(total), kThreads, 0, st>>>(keys.Current(), vals.Current(), scan_a_.get(), total,
                                                             rank_.get(), flags_.get());
    EA_CUDA_CHECK(cudaGetLastError());
    uint32_t m = select_unresolved(vals.Current(), total, st);
    mark(3);
    uint32_t longest = 0;
    {
      // The longest block bounds the doubling.
      std::vector<uint32_t> lens(slots);
      EA_CUDA_CHECK(cudaMemcpyAsync(lens.data(), block_len_.get(), slots * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                    st));
      EA_CUDA_CHECK(cudaStreamSynchronize(st));
      for (uint32_t l : lens) longest = std::max(longest, l);
    }
    const int rank_bits = bits_for(total);
    uint64_t h = static_cast<uint64_t>(chars);
    bool paired = false;
    uint32_t sorted = 0;  // elements of the last pair pass
    while (m > 0 && h < longest) {
      pair_keys_kernel<<<grid_for(m), kThreads, 0, st>>>(list_.get(), m, rank_.get(), static_cast<uint32_t>(h), t,
                                                         keys.Current(), vals.Current());
      bytes = temp_bytes();
      EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.get(), bytes, keys, vals, static_cast<int>(m), 0,
                                                    32 + rank_bits, st));
      pair_head_kernel<<<grid_for(m), kThreads, 0, st>>>(keys.Current(), m, scan_a_.get(), scan_b_.get());
      max_scan(scan_a_.get(), m, st);
      max_scan(scan_b_.get(), m, st);
      pair_ranks_kernel<<<grid_for(m), kThreads, 0, st>>>(keys.Current(), vals.Current(), scan_a_.get(),
                                                          scan_b_.get(), m, false, rank_.get(), flags_.get());
      EA_CUDA_CHECK(cudaGetLastError());
      paired = true;
      sorted = m;
      m = select_unresolved(vals.Current(), m, st);
      h *= 2;
    }
    if (m > 0) {
      // Identical rotations (periodic blocks): any order among them.
      if (paired) {
        pair_ranks_kernel<<<grid_for(sorted), kThreads, 0, st>>>(keys.Current(), vals.Current(), scan_a_.get(),
                                                                 scan_b_.get(), sorted, true, rank_.get(),
                                                                 flags_.get());
      } else {
        position_ranks_kernel<<<grid_for(total), kThreads, 0, st>>>(vals.Current(), total, rank_.get());
      }
    }
    mark(4);
    invert_kernel<<<grid_for(total), kThreads, 0, st>>>(rank_.get(), total, scan_a_.get());
    bwt_kernel<<<grid_for(total), kThreads, 0, st>>>(text_.get(), scan_a_.get(), total, t, last_.get());
    mark(5);
    // 4. Move-to-front and Huffman coding, per block.
    MtfTable mt{mtf_values_.get(), mtf_freq_.get(), mtf_count_.get(), mtf_in_use_.get(), mtf_ranges_.get(),
                selectors_.get()};
    Segments sg{seg_sig_.get(), seg_seen_.get(), seg_start_.get(), seq_maps_.get(), seg_per_slot_};
    byte_map_kernel<<<slots, kThreads, 0, st>>>(last_.get(), t, mt, sg);
    const dim3 seg_grid((seg_per_slot_ + 63) / 64, slots);
    signature_kernel<<<seg_grid, 64, 0, st>>>(last_.get(), t, mt, sg);
    starts_kernel<<<grid_for(slots, 64), 64, 0, st>>>(t, mt, sg, slots);
    places_kernel<<<seg_grid, 64, 0, st>>>(last_.get(), t, mt, sg, flags_.get());
    zero_run_kernel<<<slots, 1, 0, st>>>(last_.get(), flags_.get(), t, mt, sg);
    mark(6);
    block_bits_kernel<<<slots, kThreads, 0, st>>>(t, mt, bits_.get());
    EA_CUDA_CHECK(cudaGetLastError());
    EA_CUDA_CHECK(cudaMemcpyAsync(host_bits_.get(), bits_.get(), slots * sizeof(unsigned long long),
                                  cudaMemcpyDeviceToHost, st));
    mark(7);
    EA_CUDA_CHECK(cudaStreamSynchronize(st));
    report_stages(count, m);
    std::vector<uint64_t> sizes(count);
    for (uint32_t p = 0; p < count; ++p) {
      uint64_t block_bits = 0;
      for (uint32_t k = 0; k < per_perm_; ++k) block_bits += host_bits_.get()[p * per_perm_ + k];
      sizes[p] = bz::stream_bytes(block_bits);
    }
    return sizes;
  }

  // EA_IID_GPU_BZ_PROFILE=1: each round's stage times on stderr (developer knob).
  void mark(int k) {
    if (profile_) EA_CUDA_CHECK(cudaEventRecord(res_->stage[k].get(), res_->stream));
  }
  void report_stages(uint32_t count, uint32_t unresolved) {
    if (!profile_) return;
    static const char* kNames[7] = {"text", "split", "sort", "doubling", "bwt", "mtf", "bits"};
    std::fprintf(stderr, "gpu-bzip2: %u copies, %u tied at the end:", count, unresolved);
    for (int k = 0; k < 7; ++k) {
      float ms = 0;
      EA_CUDA_CHECK(cudaEventElapsedTime(&ms, res_->stage[k].get(), res_->stage[k + 1].get()));
      std::fprintf(stderr, " %s %.1f ms", kNames[k], ms);
    }
    std::fprintf(stderr, "\n");
  }
  bool profile_ = std::getenv("EA_IID_GPU_BZ_PROFILE") != nullptr;
  int gpu_id_ = 0;
  double memory_share_ = 0.5;
  PermutationData data_;
  StreamSetView streams_;
  size_t n_ = 0;
  uint32_t text_len_ = 0;
  uint32_t copies_ = 0, shuffle_copies_ = 0, per_perm_ = 0, slots_ = 0, seg_per_slot_ = 0;
  cuda::DeviceBuffer<uint64_t> seg_sig_, seg_start_;
  cuda::DeviceBuffer<uint32_t> seg_seen_;
  cuda::DeviceBuffer<uint8_t> seq_maps_;
  cuda::DeviceBuffer<uint32_t> states_, aux_;
  cuda::DeviceBuffer<uint8_t> symbols_, raw_of_, batch_, text_, flags_, last_, selectors_, temp_;
  cuda::DeviceBuffer<uint32_t> lens_, pos_, block_begin_, block_len_, block_count_, rank_, scan_a_, scan_b_, list_,
      selected_;
  cuda::DeviceBuffer<uint64_t> keys_[2];
  cuda::DeviceBuffer<uint32_t> vals_[2];
  cuda::DeviceBuffer<uint16_t> mtf_values_;
  cuda::DeviceBuffer<int32_t> mtf_freq_, mtf_count_, mtf_in_use_, mtf_ranges_;
  cuda::DeviceBuffer<unsigned long long> bits_;
  cuda::PinnedBuffer<unsigned long long> host_bits_;
  cuda::PinnedBuffer<uint32_t> host_selected_;
  struct Resources {
    cuda::CudaStream stream;
    cuda::CudaEvent start, done, stage[8];
  };
  std::unique_ptr<Resources> res_;
  double busy_ms_ = 0;
};

}  // namespace

std::unique_ptr<PermutationBackend> make_gpu_compression_backend(const PermutationData& data, int gpu_id,
                                                                 double memory_share) {
  return std::make_unique<GpuCompressionBackend>(data, gpu_id, memory_share);
}

}  // namespace ea
