// Move-to-front, zero-run and Huffman coding of many blocks at once: the EA_HD steps of
// src/stats/bzip2_model.hpp, the move-to-front and the zero-run coding in parallel segments.
#include "bzip2/coding.cuh"
#include "stats/bzip2_model.hpp"

namespace ea::gpubz {

namespace {

struct MtfTable {
  uint16_t* values;  // block slot b at values + values_offset(begin[b], b) (at most len + 1 values)
  int32_t* freq;     // kMaxAlpha per slot
  int32_t* count;
  int32_t* in_use;
  int32_t* ranges;
  uint8_t* selectors;  // slot b at selectors + (begin[b] + b) / 50 + b
};

// Slot b's move-to-front values start at a multiple of 4 (groups of 50 values then start
// 4-byte aligned) with room for len + 1 values.
__device__ __forceinline__ size_t values_offset(uint32_t begin, uint32_t b) {
  return (static_cast<size_t>(begin) + 4 * static_cast<size_t>(b) + 3) & ~size_t{3};
}

__device__ __forceinline__ size_t selector_offset(uint32_t begin, uint32_t b) {
  return (static_cast<size_t>(begin) + b) / bz::kGroupSize + b;
}

// Move-to-front and zero-run coding in segments of kSegment symbols (bz::packed_* and
// bz::ZeroRunSummary in src/stats/bzip2_model.hpp; blocks with at most 16 byte values, which
// decimal text always is; others are coded by one thread in zero_run_offsets_kernel).
constexpr uint32_t kSegment = 512;  // (2,048 left 7 warps an SM on the H200)
static_assert(kSegment <= 65536, "bz::FirstUses holds 16-bit places in a segment");

struct Segments {
  uint64_t* sig;    // the segment's list when started from the identity
  uint32_t* seen;   // its symbols
  uint64_t* start;  // the list at its start
  uint8_t* seq_of;  // 256 per slot: byte -> index among the bytes in use
  // Zero-run coding: the segment's bz::ZeroRunSummary, then the values before it and the
  // zeros carried into it (bz::zero_run_offsets).
  uint32_t *lead, *inner, *trail, *out_at, *carry_at;
  bz::FirstUses* first;  // its symbols' first uses (places_kernel, for fix_kernel)
  uint32_t per_slot;
};

// The bytes in use of each block as four 64-bit masks (grid: kMapSplit CTAs a slot, each a
// share of the block's bytes, read 16 at a time where aligned); map_kernel then numbers them.
constexpr uint32_t kMapSplit = 8;

__device__ __forceinline__ void mark_byte(uint64_t (&mask)[4], uint32_t c) {
  const uint64_t bit = uint64_t{1} << (c & 63);
  mask[0] |= c < 64 ? bit : 0;
  mask[1] |= (c >> 6) == 1 ? bit : 0;
  mask[2] |= (c >> 6) == 2 ? bit : 0;
  mask[3] |= (c >> 6) == 3 ? bit : 0;
}

__global__ void byte_mask_kernel(const uint8_t* last, BlockTable t, unsigned long long* masks) {
  const uint32_t b = blockIdx.y;
  const uint32_t len = t.len[b];
  const uint8_t* block = last + t.begin[b];
  const uint32_t share = (len + kMapSplit - 1) / kMapSplit;
  const uint32_t from = min(len, blockIdx.x * share), to = min(len, from + share);
  uint64_t mask[4] = {0, 0, 0, 0};
  // Bytes before the first 16-byte boundary and after the last one, one at a time.
  const uint32_t to_boundary = static_cast<uint32_t>((16 - (reinterpret_cast<uintptr_t>(block + from) & 15)) & 15);
  const uint32_t head = min(to - from, to_boundary);
  const uint32_t words = (to - from - head) / 16;
  for (uint32_t i = from + threadIdx.x; i < from + head; i += blockDim.x) mark_byte(mask, block[i]);
  const uint4* w = reinterpret_cast<const uint4*>(block + from + head);
  for (uint32_t k = threadIdx.x; k < words; k += blockDim.x) {
    const uint4 x = w[k];
    const uint32_t parts[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
    for (int q = 0; q < 4; ++q)
#pragma unroll
      for (int j = 0; j < 4; ++j) mark_byte(mask, (parts[q] >> (8 * j)) & 0xff);
  }
  for (uint32_t i = from + head + 16 * words + threadIdx.x; i < to; i += blockDim.x) mark_byte(mask, block[i]);
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    uint64_t m = mask[q];
    for (int d = 16; d > 0; d /= 2) m |= __shfl_xor_sync(0xffffffffu, m, d);
    if ((threadIdx.x & 31) == 0 && m) atomicOr(&masks[4 * b + q], static_cast<unsigned long long>(m));
  }
}

// One thread a slot: the byte map (seq_of), the bytes in use and their 16-byte ranges.
__global__ void map_kernel(const unsigned long long* masks, MtfTable m, Segments sg, uint32_t slots) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= slots) return;
  bool used[256];
  for (int c = 0; c < 256; ++c) used[c] = (masks[4 * b + c / 64] >> (c % 64)) & 1;
  int ranges = 0;
  m.in_use[b] = bz::map_used_bytes(used, sg.seq_of + static_cast<size_t>(b) * 256, ranges);
  m.ranges[b] = ranges;
}

// f(symbol index) for the n bytes at s, read 16 at a time from 16-byte aligned words (the
// buffer holds 15 bytes after its last block: CodingBuffers::kPad).
template <class F>
__device__ __forceinline__ void for_each_symbol(const uint8_t* s, uint32_t n, const uint8_t* seq_of, F&& f) {
  const uint32_t skip = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(s) & 15);
  const uint4* words = reinterpret_cast<const uint4*>(s - skip);
  for (uint32_t at = 0; at < skip + n; at += 16) {
    const uint4 x = words[at / 16];
    const uint32_t parts[4] = {x.x, x.y, x.z, x.w};
    uint8_t c[16];
#pragma unroll
    for (int k = 0; k < 16; ++k) c[k] = seq_of[(parts[k / 4] >> (8 * (k % 4))) & 0xffu];
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      if (at + k >= skip && at + k < skip + n) f(c[k]);
    }
  }
}

// Grid (segments, slots): the segment of this thread (k, n symbols), or false.
__device__ __forceinline__ bool segment_range(const BlockTable& t, const MtfTable& m, uint32_t& k, uint32_t& n) {
  const uint32_t b = blockIdx.y;
  k = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t len = t.len[b];
  if (m.in_use[b] > 16 || k * kSegment >= len) return false;
  n = min(kSegment, len - k * kSegment);
  return true;
}

// The same, with the slot's byte map loaded into seq_of (synchronises the block).
__device__ __forceinline__ bool segment_of(const BlockTable& t, const MtfTable& m, const Segments& sg, uint8_t* seq_of,
                                          uint32_t& k, uint32_t& n) {
  const uint32_t b = blockIdx.y;
  for (int v = threadIdx.x; v < 256; v += blockDim.x) seq_of[v] = sg.seq_of[static_cast<size_t>(b) * 256 + v];
  __syncthreads();
  return segment_range(t, m, k, n);
}

// Warp shuffles of a trivially copyable T, a 32-bit word at a time.
template <class T>
__device__ __forceinline__ T shuffle_words(T x, int lane, bool up) {
  static_assert(sizeof(T) % 4 == 0, "whole words");
  uint32_t w[sizeof(T) / 4];
  memcpy(w, &x, sizeof(T));
  for (auto& v : w) v = up ? __shfl_up_sync(0xffffffffu, v, lane) : __shfl_sync(0xffffffffu, v, lane);
  memcpy(&x, w, sizeof(T));
  return x;
}

// One warp: store(k, the combination of items 0 .. k-1) for k < n (op associative, identity
// its identity); returns the combination of all n. A slot's segments are scanned this way
// (bz::then_segment, bz::then_summary) instead of one thread composing them in order.
template <class T, class Load, class Op, class Store>
__device__ __forceinline__ T warp_exclusive_scan(uint32_t n, const T& identity, Load&& load, Op&& op, Store&& store) {
  const uint32_t lane = threadIdx.x & 31;
  T carry = identity;
  for (uint32_t k0 = 0; k0 < n; k0 += 32) {
    const uint32_t k = k0 + lane;
    T x = k < n ? load(k) : identity;
    for (int d = 1; d < 32; d *= 2) {
      const T y = shuffle_words(x, d, true);
      if (lane >= static_cast<uint32_t>(d)) x = op(y, x);
    }
    const T before = shuffle_words(x, 1, true);
    if (k < n) store(k, lane == 0 ? carry : op(carry, before));
    carry = op(carry, shuffle_words(x, 31, false));
  }
  return carry;
}

// A warp a slot: the list at each segment's start (the segments' effects scanned).
__global__ void starts_kernel(BlockTable t, MtfTable m, Segments sg) {
  const uint32_t b = blockIdx.x;
  if (t.len[b] == 0 || m.in_use[b] > 16) return;
  const int in_use = m.in_use[b];
  const size_t at = static_cast<size_t>(b) * sg.per_slot;
  const uint32_t segments = (t.len[b] + kSegment - 1) / kSegment;
  warp_exclusive_scan(
      segments, bz::MtfEffect{bz::packed_identity(in_use), 0},
      [&](uint32_t k) { return bz::MtfEffect{sg.sig[at + k], sg.seen[at + k]}; },
      [in_use](const bz::MtfEffect& x, const bz::MtfEffect& y) { return bz::then_segment(x, y, in_use); },
      [&](uint32_t k, const bz::MtfEffect& before) { sg.start[at + k] = before.sig; });
}

// A segment's one move-to-front pass, from the identity list (bz::FirstUses): its places,
// right but at its symbols' first uses (fix_kernel sets those once the starts are known),
// its signature, its first uses, and the zero-run summary of its places after the first
// (which the start list does not change: a first use after the first place is never in
// front).
__global__ void places_kernel(const uint8_t* last, BlockTable t, MtfTable m, Segments sg, uint8_t* places) {
  __shared__ uint8_t seq_of[256];
  uint32_t k, n;
  if (!segment_of(t, m, sg, seq_of, k, n)) return;
  const uint32_t b = blockIdx.y;
  const size_t at = static_cast<size_t>(b) * sg.per_slot + k;
  uint64_t order = bz::packed_identity(m.in_use[b]);
  uint32_t seen = 0;
  bz::FirstUses& first = sg.first[at];  // (noted in place: its arrays indexed by count would sit in local memory)
  first.count = 0;
  // The places 16 at a time into the segment's own aligned room.
  uint4* out = reinterpret_cast<uint4*>(places + static_cast<size_t>(at) * kSegment);
  uint32_t i = 0;
  uint4 word = make_uint4(0, 0, 0, 0);
  bz::ZeroRunSummary zr;
  for_each_symbol(last + t.begin[b] + k * kSegment, n, seq_of, [&](uint64_t c) {
    first.note(seen, static_cast<uint32_t>(c), i);
    seen |= 1u << c;
    const uint32_t r = static_cast<uint32_t>(bz::packed_move_to_front(order, c));
    const uint32_t byte = r << (8 * (i & 3)), part = (i >> 2) & 3;
    word.x |= part == 0 ? byte : 0;
    word.y |= part == 1 ? byte : 0;
    word.z |= part == 2 ? byte : 0;
    word.w |= part == 3 ? byte : 0;
    if ((i & 15) == 15) {
      out[i / 16] = word;
      word = make_uint4(0, 0, 0, 0);
    }
    if (i > 0) zr.add(r);
    ++i;
  });
  if (i & 15) out[i / 16] = word;
  zr.close();
  sg.lead[at] = zr.lead;
  sg.inner[at] = zr.inner;
  sg.trail[at] = zr.trail;
  sg.sig[at] = order;
  sg.seen[at] = seen;
}

// Grid (segments, slots), after starts_kernel: the first uses' places from the segment's
// start list (bz::first_use_place), and the zero-run summary of all its places.
__global__ void fix_kernel(BlockTable t, MtfTable m, Segments sg, uint8_t* places) {
  uint32_t k, n;
  if (!segment_range(t, m, k, n)) return;
  const size_t at = static_cast<size_t>(blockIdx.y) * sg.per_slot + k;
  const bz::FirstUses& f = sg.first[at];  // (read in place: a copy would sit in local memory)
  const uint64_t start = sg.start[at];
  uint8_t* own = places + at * kSegment;
  uint32_t front = 0;  // the first place (the first symbol is a first use)
  for (uint32_t j = 0; j < f.count; ++j) {
    const uint32_t p = bz::first_use_place(f, j, start);
    own[f.at[j]] = static_cast<uint8_t>(p);
    if (j == 0) front = p;
  }
  bz::ZeroRunSummary head;
  head.add(front);
  head.close();
  const bz::ZeroRunSummary all = bz::then_summary(head, bz::ZeroRunSummary{sg.lead[at], sg.inner[at], sg.trail[at]});
  sg.lead[at] = all.lead;
  sg.inner[at] = all.inner;
  sg.trail[at] = all.trail;
}

// A warp a block: the segments' offsets (their summaries scanned), the last zero run and
// EOB, and the frequencies of those (the segments add theirs in zero_run_values_kernel); for
// blocks with more than 16 byte values, the whole move-to-front and zero-run coding on one
// thread.
__global__ void zero_run_offsets_kernel(const uint8_t* last, BlockTable t, MtfTable m, Segments sg) {
  const uint32_t b = blockIdx.x, lane = threadIdx.x;
  const uint32_t len = t.len[b];
  if (len == 0) {
    if (lane == 0) m.count[b] = 0;
    return;
  }
  const int in_use = m.in_use[b];
  uint16_t* out = m.values + values_offset(t.begin[b], b);
  int32_t* freq = m.freq + static_cast<size_t>(b) * bz::kMaxAlpha;
  if (in_use > 16) {
    if (lane == 0) {
      m.count[b] = bz::mtf_encode(last + t.begin[b], static_cast<int32_t>(len),
                                  sg.seq_of + static_cast<size_t>(b) * 256, in_use, out, freq);
    }
    return;
  }
  const size_t at = static_cast<size_t>(b) * sg.per_slot;
  const uint32_t segments = (len + kSegment - 1) / kSegment;
  for (int v = static_cast<int>(lane); v < in_use + 2; v += 32) freq[v] = 0;
  const bz::ZeroRunSummary all = warp_exclusive_scan(
      segments, bz::ZeroRunSummary{},
      [&](uint32_t k) { return bz::ZeroRunSummary{sg.lead[at + k], sg.inner[at + k], sg.trail[at + k]}; },
      [](const bz::ZeroRunSummary& x, const bz::ZeroRunSummary& y) { return bz::then_summary(x, y); },
      [&](uint32_t k, const bz::ZeroRunSummary& before) {
        bz::offsets_after(before, sg.out_at[at + k], sg.carry_at[at + k]);
      });
  __syncwarp();  // (the frequencies zeroed)
  if (lane == 0) {
    uint32_t body = 0, pending = 0;
    bz::offsets_after(all, body, pending);
    int32_t w = static_cast<int32_t>(body);
    bz::zero_run_finish(pending, in_use, out, w, [freq](uint16_t v) { ++freq[v]; });
    m.count[b] = w;
  }
}

// Counts of the values 0..19 (blocks with at most 16 byte values have at most 18) in
// registers: 12 bits each, five to a word (a group has 50 values). Callers keep v < kSmallAlpha.
// (The compression test codes decimal text: at most 11 byte values, 13 values here. Blocks
// of 14-20 values and the paths for more, which its tests never reach, rest on the same
// arithmetic; a helper's model checked the counts path for 3-20 values, session 31.)
constexpr int kSmallAlpha = 20;
struct SmallCounts {
  uint64_t w[4] = {0, 0, 0, 0};
  __device__ __forceinline__ void add(uint32_t v) {
    const uint64_t one = uint64_t{1} << (12 * (v % 5));
    const uint32_t k = v / 5;
    w[0] += k == 0 ? one : 0;
    w[1] += k == 1 ? one : 0;
    w[2] += k == 2 ? one : 0;
    w[3] += k == 3 ? one : 0;
  }
  // (w picked by selects: an index not known at compile time would put w in local memory,
  // and every add() would then load and store it there)
  __device__ __forceinline__ uint32_t of(int v) const {
    const int k = v / 5;
    const uint64_t x = k == 0 ? w[0] : k == 1 ? w[1] : k == 2 ? w[2] : w[3];
    return static_cast<uint32_t>(x >> (12 * (v % 5))) & 0xfffu;
  }
};

// Grid (segments / kValueWarps, slots), a warp a segment: its values (bz::zero_run_values_emitted
// from its offset and the zeros carried into it), 32 places at a time, a lane each. A non-zero
// place r writes the digits of the zero run before it (bz::zero_run_digit) and then r + 1;
// a warp scan of the lanes' counts places them. The zeros after the segment's last non-zero
// place are the next segment's (its carry). Counted per lane (the digits in registers, the
// values in shared memory, a column a lane), summed by the warp and added to the block's
// frequencies (integers: the order of the additions is free). One thread a segment, in order,
// took 0.81 ms a round of 17 GetTickCount_8bit texts on the H200, its lanes mostly idle in
// the zero runs' branches (session 44).
constexpr uint32_t kValueWarps = 8;

__global__ void zero_run_values_kernel(BlockTable t, MtfTable m, Segments sg, const uint8_t* places) {
  __shared__ int32_t counts[kSmallAlpha];
  __shared__ uint32_t lane_counts[kValueWarps][kSmallAlpha][32];
  const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x / 32, b = blockIdx.y;
  const uint32_t k = blockIdx.x * kValueWarps + warp, len = t.len[b];
  const int alpha = m.in_use[b] + 2;
  if (m.in_use[b] > 16) return;  // (the whole CTA: one thread coded the block)
  for (int v = threadIdx.x; v < kSmallAlpha; v += blockDim.x) counts[v] = 0;
  for (int v = 0; v < kSmallAlpha; ++v) lane_counts[warp][v][lane] = 0;
  __syncthreads();
  if (k * kSegment < len) {  // (the warp's segment: uniform in the warp)
    const uint32_t n = min(kSegment, len - k * kSegment);
    const size_t at = static_cast<size_t>(b) * sg.per_slot + k;
    const uint8_t* own = places + at * kSegment;
    uint16_t* out = m.values + values_offset(t.begin[b], b) + sg.out_at[at];
    uint32_t pending = sg.carry_at[at];  // zeros before the chunk's first place
    uint32_t w = 0, run_b = 0, digits_all = 0;
    for (uint32_t c0 = 0; c0 < n; c0 += 32) {
      const uint32_t i = c0 + lane;
      const uint32_t r = i < n ? own[i] : 0;
      const uint32_t nz = __ballot_sync(0xffffffffu, r != 0);
      const uint32_t below = nz & ((1u << lane) - 1);
      const uint32_t z = below ? lane - 1 - (31 - __clz(below)) : lane + pending;  // zeros just before
      const uint32_t digits = r != 0 ? bz::zero_run_digits(z) : 0;
      const uint32_t count = r != 0 ? digits + 1 : 0;
      uint32_t incl = count;
      for (uint32_t d = 1; d < 32; d *= 2) {
        const uint32_t y = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += y;
      }
      if (r != 0) {
        uint16_t* o = out + w + incl - count;
        for (uint32_t q = 0; q < digits; ++q) o[q] = bz::zero_run_digit(z, q);
        o[digits] = static_cast<uint16_t>(r + 1);
        run_b += __popc((z + 1) & ((1u << digits) - 1));
        digits_all += digits;
        ++lane_counts[warp][r + 1][lane];
      }
      w += __shfl_sync(0xffffffffu, incl, 31);
      const uint32_t valid = min(32u, n - c0);
      pending = nz ? valid - 1 - (31 - __clz(nz)) : pending + valid;
    }
    __syncwarp();
    for (int v = 0; v < alpha; ++v) {
      const uint32_t own_count = v == bz::kRunA ? digits_all - run_b : v == bz::kRunB ? run_b : lane_counts[warp][v][lane];
      const uint32_t c = __reduce_add_sync(0xffffffffu, own_count);
      if (lane == 0 && c) atomicAdd(&counts[v], static_cast<int32_t>(c));
    }
  }
  __syncthreads();
  for (int v = threadIdx.x; v < alpha; v += blockDim.x) {
    if (counts[v]) atomicAdd(&m.freq[static_cast<size_t>(b) * bz::kMaxAlpha + v], counts[v]);
  }
}

// The Huffman stage of bz::block_bits_from_mtf spread over many CTAs a block, so that every
// SM has work: the starting tables (init_tables_kernel, a warp a block), then each pass's
// table choice (choose_kernel: a thread a group, grid (chunks of kChunkGroups, slots)) and
// new code lengths (lengths_kernel, a lane a table), then the data bits (data_bits_kernel)
// and the side bits (side_bits_kernel: the selectors' move-to-front in a warp's pieces).
constexpr int kHuffThreads = 256;
constexpr int kChunkGroups = 4 * kHuffThreads;
constexpr size_t kTableRoom = static_cast<size_t>(bz::kMaxTables) * bz::kMaxAlpha;  // a slot's tables

struct HuffTables {
  uint8_t* len;    // slot b: kTableRoom code lengths from len + b * kTableRoom
  int32_t* rfreq;  // slot b: the counts under each table in this pass
  using Rows = uint8_t (*)[bz::kMaxAlpha];
  __device__ __forceinline__ Rows lens(uint32_t b) const { return reinterpret_cast<Rows>(len + b * kTableRoom); }
  __device__ __forceinline__ int32_t* counts(uint32_t b) const { return rfreq + b * kTableRoom; }
};

// Values of group g (at most kGroupSize; the groups of a block's n_mtf values).
__device__ __forceinline__ int32_t group_count(int32_t n_mtf, int32_t g) {
  const int32_t left = n_mtf - g * bz::kGroupSize;
  return left < bz::kGroupSize ? left : bz::kGroupSize;
}

// f(v) for a group's `count` values (4-byte aligned: values_offset), read two at a time.
template <class F>
__device__ __forceinline__ void for_group_values(const uint16_t* v, int count, F&& f) {
  const uint32_t* pairs = reinterpret_cast<const uint32_t*>(v);
  int i = 0;
  for (; i + 2 <= count; i += 2) {
    const uint32_t w = pairs[i / 2];
    f(w & 0xffffu);
    f(w >> 16);
  }
  if (i < count) f(v[i]);
}

// Blocks of at most kSmallAlpha values (decimal text always): each group's counts of its
// values, 16 bits each, two to a word (word j: values 2j and 2j + 1), counted once
// (group_counts_kernel) for the four table-choice passes and the data bits. Word j of the
// group at selector index s is at words[j * stride + s] (a warp's groups side by side).
constexpr int kCountWords = kSmallAlpha / 2;
struct GroupCounts {
  uint32_t* words;
  size_t stride;
};

// The words of a block of `alpha` values in use (the rest are 0).
__device__ __forceinline__ int count_words(int alpha) { return (alpha + 1) / 2; }

// A warp's sum of x (all 32 lanes take part; a field of 16 bits holds 32 groups' counts).
__device__ __forceinline__ uint32_t warp_sum(uint32_t x) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, x);
#else
  for (int d = 16; d > 0; d /= 2) x += __shfl_xor_sync(0xffffffffu, x, d);
  return x;
#endif
}

__global__ void init_tables_kernel(MtfTable m, HuffTables h, uint32_t max_groups, unsigned long long* bits) {
  const uint32_t b = blockIdx.x;
  const int32_t n_mtf = m.count[b];
  if (threadIdx.x == 0) bits[b] = 0;
  if (n_mtf == 0) return;
  // The chunk grid covers max_groups (CodingBuffers::allocate); more would leave groups out
  // of the size: a device error, never a size.
  if (static_cast<uint32_t>(n_mtf + bz::kGroupSize - 1) / bz::kGroupSize > max_groups) __trap();
  int32_t* counts = h.counts(b);
  for (size_t k = threadIdx.x; k < kTableRoom; k += blockDim.x) counts[k] = 0;
  if (threadIdx.x == 0) {
    bz::initial_tables(h.lens(b), bz::table_count(n_mtf), m.in_use[b] + 2,
                       m.freq + static_cast<size_t>(b) * bz::kMaxAlpha, n_mtf);
  }
}

// The slot's tables' code lengths in shared memory: bz::packed_lengths of each value, and
// for the counts' path the same split into two 32-bit halves of three tables each (zero
// past alpha). A group's sum of lengths under one table is below 2^kCostBits, so sums of
// halves keep their fields apart and lo | hi << 3 * kCostBits is the packed sum.
struct SharedLengths {
  uint64_t packed[bz::kMaxAlpha];
  uint32_t lo[kSmallAlpha], hi[kSmallAlpha];
};
constexpr int kHalfShift = 3 * bz::kCostBits;
static_assert(bz::kMaxTables <= 6 && kHalfShift <= 32, "three tables' costs to a 32-bit half");

// (synchronises the CTA)
__device__ __forceinline__ void load_lengths(const HuffTables& h, uint32_t b, int tables, int alpha,
                                             SharedLengths& out) {
  const HuffTables::Rows len = h.lens(b);
  for (int v = threadIdx.x; v < alpha; v += blockDim.x) out.packed[v] = bz::packed_lengths(len, tables, v);
  for (int v = threadIdx.x; v < kSmallAlpha; v += blockDim.x) {
    const uint64_t p = v < alpha ? bz::packed_lengths(len, tables, v) : 0;
    out.lo[v] = static_cast<uint32_t>(p & ((uint64_t{1} << kHalfShift) - 1));
    out.hi[v] = static_cast<uint32_t>(p >> kHalfShift);
  }
  __syncthreads();
}

// Grid (chunks, slots): this CTA's groups first .. last - 1 of its slot's n_mtf values, or
// false where its chunk is past them.
__device__ __forceinline__ bool chunk_groups(int32_t n_mtf, int32_t& first, int32_t& last) {
  const int32_t groups = (n_mtf + bz::kGroupSize - 1) / bz::kGroupSize;
  first = static_cast<int32_t>(blockIdx.x) * kChunkGroups;
  last = min(groups, first + kChunkGroups);
  return first < groups;
}

// Grid (chunks, slots), blocks of at most kSmallAlpha values: each group's counts.
__global__ void __launch_bounds__(kHuffThreads) group_counts_kernel(BlockTable t, MtfTable m, GroupCounts gc) {
  const uint32_t b = blockIdx.y;
  const int32_t n_mtf = m.count[b];
  const int alpha = m.in_use[b] + 2;
  int32_t first = 0, last = 0;
  if (alpha > kSmallAlpha || !chunk_groups(n_mtf, first, last)) return;
  const uint16_t* values = m.values + values_offset(t.begin[b], b);
  const size_t sel0 = selector_offset(t.begin[b], b);
  for (int32_t g = first + static_cast<int32_t>(threadIdx.x); g < last; g += blockDim.x) {
    SmallCounts c;
    for_group_values(values + g * bz::kGroupSize, group_count(n_mtf, g), [&](uint32_t v) { c.add(v); });
    for (int j = 0; j < count_words(alpha); ++j) {
      gc.words[j * gc.stride + sel0 + g] = c.of(2 * j) | (c.of(2 * j + 1) << 16);
    }
  }
}

// A group's counts (all 0 where it is not `valid`).
__device__ __forceinline__ void load_counts(const GroupCounts& gc, size_t s, bool valid, int words,
                                            uint32_t (&w)[kCountWords]) {
#pragma unroll
  for (int j = 0; j < kCountWords; ++j) w[j] = valid && j < words ? gc.words[j * gc.stride + s] : 0;
}

// The packed sum of a group's lengths (as bz::packed_lengths summed over its values).
__device__ __forceinline__ uint64_t counts_cost_sum(const uint32_t (&w)[kCountWords], int words,
                                                    const SharedLengths& L) {
  uint32_t lo = 0, hi = 0;
#pragma unroll
  for (int j = 0; j < kCountWords; ++j) {
    if (j < words) {
      const uint32_t x = w[j] & 0xffffu, y = w[j] >> 16;
      lo += x * L.lo[2 * j] + y * L.lo[2 * j + 1];
      hi += x * L.hi[2 * j] + y * L.hi[2 * j + 1];
    }
  }
  return lo | (static_cast<uint64_t>(hi) << kHalfShift);
}

// choose_kernel's groups from their counts: a thread a group, then each table's counts
// summed over a warp's groups that chose it (one reduction a word, not an atomic a value
// whose lanes collide on the same counter).
__device__ __forceinline__ void choose_by_counts(const GroupCounts& gc, size_t sel0, int32_t first, int32_t last,
                                                 int alpha, int tables, const SharedLengths& L, uint8_t* selectors,
                                                 int32_t (*counts)[bz::kMaxAlpha]) {
  const int words = count_words(alpha);
  const bool lane0 = (threadIdx.x & 31) == 0;
  for (int32_t g0 = first; g0 < last; g0 += static_cast<int32_t>(blockDim.x)) {  // (the same trips for all)
    const int32_t g = g0 + static_cast<int32_t>(threadIdx.x);
    const bool valid = g < last;
    uint32_t w[kCountWords];
    load_counts(gc, sel0 + g, valid, words, w);
    int bt = -1;
    if (valid) {
      bt = bz::best_of_costs(counts_cost_sum(w, words, L), tables);
      selectors[g] = static_cast<uint8_t>(bt);
    }
    for (int tb = 0; tb < tables; ++tb) {
      const bool mine = bt == tb;
      if (!__any_sync(0xffffffffu, mine)) continue;
#pragma unroll
      for (int j = 0; j < kCountWords; ++j) {
        if (j >= words) break;
        const uint32_t sum = warp_sum(mine ? w[j] : 0u);
        if (lane0 && (sum & 0xffffu)) atomicAdd(&counts[tb][2 * j], static_cast<int32_t>(sum & 0xffffu));
        if (lane0 && (sum >> 16)) atomicAdd(&counts[tb][2 * j + 1], static_cast<int32_t>(sum >> 16));
      }
    }
  }
}

// choose_kernel's groups from their values (blocks of more than kSmallAlpha values).
__device__ __forceinline__ void choose_by_values(const uint16_t* values, int32_t n_mtf, int32_t first, int32_t last,
                                                 int tables, const SharedLengths& L, uint8_t* selectors,
                                                 int32_t (*counts)[bz::kMaxAlpha]) {
  for (int32_t g = first + static_cast<int32_t>(threadIdx.x); g < last; g += blockDim.x) {
    const uint16_t* v = values + g * bz::kGroupSize;
    const int count = group_count(n_mtf, g);
    uint64_t sum = 0;
    for_group_values(v, count, [&](uint32_t x) { sum += L.packed[x]; });
    const int bt = bz::best_of_costs(sum, tables);
    selectors[g] = static_cast<uint8_t>(bt);
    for_group_values(v, count, [&](uint32_t x) { atomicAdd(&counts[bt][x], 1); });
  }
}

// Grid (chunks, slots): each group's best table (selectors) and the counts of its values
// under it, added in shared memory, then into the slot's rfreq (integers: any order).
__global__ void __launch_bounds__(kHuffThreads) choose_kernel(BlockTable t, MtfTable m, HuffTables h,
                                                              GroupCounts gc) {
  const uint32_t b = blockIdx.y;
  const int32_t n_mtf = m.count[b];
  int32_t first = 0, last = 0;
  if (!chunk_groups(n_mtf, first, last)) return;
  __shared__ SharedLengths lengths;
  __shared__ int32_t counts[bz::kMaxTables][bz::kMaxAlpha];
  const int alpha = m.in_use[b] + 2, tables = bz::table_count(n_mtf);
  for (int k = threadIdx.x; k < tables * alpha; k += blockDim.x) counts[k / alpha][k % alpha] = 0;
  load_lengths(h, b, tables, alpha, lengths);
  const size_t sel0 = selector_offset(t.begin[b], b);
  if (alpha <= kSmallAlpha) {
    choose_by_counts(gc, sel0, first, last, alpha, tables, lengths, m.selectors + sel0, counts);
  } else {
    choose_by_values(m.values + values_offset(t.begin[b], b), n_mtf, first, last, tables, lengths,
                     m.selectors + sel0, counts);
  }
  __syncthreads();
  int32_t* slot_counts = h.counts(b);
  for (int k = threadIdx.x; k < tables * alpha; k += blockDim.x) {
    const int32_t c = counts[k / alpha][k % alpha];
    if (c) atomicAdd(&slot_counts[(k / alpha) * bz::kMaxAlpha + k % alpha], c);
  }
}

// A warp a slot: the pass's new code lengths (a lane a table), its counts then cleared.
__global__ void lengths_kernel(MtfTable m, HuffTables h) {
  const uint32_t b = blockIdx.x;
  const int32_t n_mtf = m.count[b];
  if (n_mtf == 0) return;
  const int tables = bz::table_count(n_mtf);
  int32_t* counts = h.counts(b);
  if (static_cast<int>(threadIdx.x) < tables) {
    bz::code_lengths(h.lens(b)[threadIdx.x], counts + threadIdx.x * bz::kMaxAlpha, m.in_use[b] + 2,
                     bz::kMaxCodeLength);
  }
  __syncwarp();
  for (size_t k = threadIdx.x; k < kTableRoom; k += blockDim.x) counts[k] = 0;
}

// Grid (chunks, slots): the data bits of each group under its selected table.
__global__ void __launch_bounds__(kHuffThreads) data_bits_kernel(BlockTable t, MtfTable m, HuffTables h,
                                                                  GroupCounts gc, unsigned long long* bits) {
  const uint32_t b = blockIdx.y;
  const int32_t n_mtf = m.count[b];
  int32_t first = 0, last = 0;
  if (!chunk_groups(n_mtf, first, last)) return;
  __shared__ SharedLengths lengths;
  __shared__ unsigned long long sum_bits;
  if (threadIdx.x == 0) sum_bits = 0;
  const int alpha = m.in_use[b] + 2;
  load_lengths(h, b, bz::table_count(n_mtf), alpha, lengths);
  const size_t sel0 = selector_offset(t.begin[b], b);
  const uint8_t* selectors = m.selectors + sel0;
  const uint16_t* values = m.values + values_offset(t.begin[b], b);
  unsigned long long own = 0;
  for (int32_t g = first + static_cast<int32_t>(threadIdx.x); g < last; g += blockDim.x) {
    uint64_t sum = 0;
    if (alpha <= kSmallAlpha) {
      uint32_t w[kCountWords];
      load_counts(gc, sel0 + g, true, count_words(alpha), w);
      sum = counts_cost_sum(w, count_words(alpha), lengths);
    } else {
      for_group_values(values + g * bz::kGroupSize, group_count(n_mtf, g), [&](uint32_t v) { sum += lengths.packed[v]; });
    }
    own += bz::table_cost(sum, selectors[g]);
  }
  atomicAdd(&sum_bits, own);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&bits[b], sum_bits);
}

// A warp a slot: the side bits, the selectors' move-to-front in 32 pieces (each from the
// last uses before it: a scan).
__global__ void side_bits_kernel(BlockTable t, MtfTable m, HuffTables h, unsigned long long* bits) {
  const uint32_t b = blockIdx.x, lane = threadIdx.x;
  const int32_t n_mtf = m.count[b];
  if (n_mtf == 0) return;
  const int32_t groups = (n_mtf + bz::kGroupSize - 1) / bz::kGroupSize, per = (groups + 31) / 32;
  const int tables = bz::table_count(n_mtf);
  const uint8_t* selectors = m.selectors + selector_offset(t.begin[b], b);
  bz::SelectorUse before = bz::no_selector_use();
  warp_exclusive_scan(
      32u, bz::no_selector_use(),
      [&](uint32_t k) {
        const int32_t from = min(groups, static_cast<int32_t>(k) * per);
        return bz::selector_use(selectors, from, min(groups, from + per));
      },
      [](const bz::SelectorUse& x, const bz::SelectorUse& y) { return bz::then_use(x, y); },
      [&](uint32_t, const bz::SelectorUse& u) { before = u; });
  const int32_t from = min(groups, static_cast<int32_t>(lane) * per);
  unsigned long long own = bz::selector_bits(selectors, from, min(groups, from + per), before, tables);
  for (int d = 16; d > 0; d /= 2) own += __shfl_xor_sync(0xffffffffu, own, d);
  if (lane == 0) bits[b] += own + bz::side_bits_but_selectors(h.lens(b), tables, m.in_use[b] + 2, m.ranges[b]);
}

}  // namespace

bool CodingBuffers::allocate(uint32_t total, uint32_t slots, uint32_t block_limit) {
  using cuda::DeviceBuffer;
  seg_per_slot = (block_limit + 64) / kSegment + 1;
  max_groups = (block_limit + 64 + 1 + bz::kGroupSize - 1) / bz::kGroupSize + 1;  // (len + 1 values a block)
  const size_t segs = static_cast<size_t>(slots) * seg_per_slot;
  const size_t group_room = (static_cast<size_t>(total) + slots) / bz::kGroupSize + 2 * static_cast<size_t>(slots) + 1;
  const bool ok = DeviceBuffer<uint16_t>::try_allocate(static_cast<size_t>(total) + 4 * static_cast<size_t>(slots) + 4,
                                                       values) &&
                  DeviceBuffer<int32_t>::try_allocate(static_cast<size_t>(slots) * bz::kMaxAlpha, freq) &&
                  DeviceBuffer<int32_t>::try_allocate(slots, count) &&
                  DeviceBuffer<int32_t>::try_allocate(slots, in_use) &&
                  DeviceBuffer<int32_t>::try_allocate(slots, ranges) &&
                  DeviceBuffer<uint8_t>::try_allocate(group_room, selectors) &&
                  DeviceBuffer<uint32_t>::try_allocate(kCountWords * group_room, group_counts) &&
                  DeviceBuffer<uint8_t>::try_allocate(segs * kSegment, places) &&
                  DeviceBuffer<uint8_t>::try_allocate(static_cast<size_t>(slots) * 256, seq_maps) &&
                  DeviceBuffer<unsigned long long>::try_allocate(slots, bits) &&
                  DeviceBuffer<unsigned long long>::try_allocate(4 * static_cast<size_t>(slots), byte_masks) &&
                  DeviceBuffer<uint64_t>::try_allocate(segs, seg_sig) &&
                  DeviceBuffer<uint64_t>::try_allocate(segs, seg_start) &&
                  DeviceBuffer<uint32_t>::try_allocate(segs, seg_seen) &&
                  DeviceBuffer<bz::FirstUses>::try_allocate(segs, seg_first) &&
                  DeviceBuffer<uint32_t>::try_allocate(segs, seg_lead) &&
                  DeviceBuffer<uint32_t>::try_allocate(segs, seg_inner) &&
                  DeviceBuffer<uint32_t>::try_allocate(segs, seg_trail) &&
                  DeviceBuffer<uint32_t>::try_allocate(segs, seg_out) &&
                  DeviceBuffer<uint32_t>::try_allocate(segs, seg_carry) &&
                  DeviceBuffer<uint8_t>::try_allocate(slots * kTableRoom, huff_len) &&
                  DeviceBuffer<int32_t>::try_allocate(slots * kTableRoom, huff_freq);
  if (ok) host_bits = cuda::PinnedBuffer<unsigned long long>(slots);
  return ok;
}

void code_blocks(const uint8_t* last, const BlockTable& t, uint32_t slots, CodingBuffers& cb, cudaStream_t st,
                 StageTimer& timer) {
  MtfTable mt{cb.values.get(), cb.freq.get(), cb.count.get(), cb.in_use.get(), cb.ranges.get(), cb.selectors.get()};
  Segments sg{cb.seg_sig.get(),  cb.seg_seen.get(),  cb.seg_start.get(), cb.seq_maps.get(),
              cb.seg_lead.get(), cb.seg_inner.get(), cb.seg_trail.get(), cb.seg_out.get(),
              cb.seg_carry.get(), cb.seg_first.get(), cb.seg_per_slot};
  EA_CUDA_CHECK(cudaMemsetAsync(cb.byte_masks.get(), 0, cb.byte_masks.size() * sizeof(unsigned long long), st));
  byte_mask_kernel<<<dim3(kMapSplit, slots), kThreads, 0, st>>>(last, t, cb.byte_masks.get());
  map_kernel<<<grid_for(slots, 64), 64, 0, st>>>(cb.byte_masks.get(), mt, sg, slots);
  const dim3 seg_grid((cb.seg_per_slot + 63) / 64, slots);
  places_kernel<<<seg_grid, 64, 0, st>>>(last, t, mt, sg, cb.places.get());
  starts_kernel<<<slots, 32, 0, st>>>(t, mt, sg);
  fix_kernel<<<seg_grid, 64, 0, st>>>(t, mt, sg, cb.places.get());
  zero_run_offsets_kernel<<<slots, 32, 0, st>>>(last, t, mt, sg);
  zero_run_values_kernel<<<dim3((cb.seg_per_slot + kValueWarps - 1) / kValueWarps, slots), kValueWarps * 32, 0, st>>>(
      t, mt, sg, cb.places.get());
  timer.mark(6, st);
  const HuffTables h{cb.huff_len.get(), cb.huff_freq.get()};
  const dim3 chunk_grid((cb.max_groups + kChunkGroups - 1) / kChunkGroups, slots);
  const GroupCounts gc{cb.group_counts.get(), cb.selectors.size()};
  init_tables_kernel<<<slots, 32, 0, st>>>(mt, h, cb.max_groups, cb.bits.get());
  group_counts_kernel<<<chunk_grid, kHuffThreads, 0, st>>>(t, mt, gc);
  for (int pass = 0; pass < bz::kPasses; ++pass) {
    choose_kernel<<<chunk_grid, kHuffThreads, 0, st>>>(t, mt, h, gc);
    lengths_kernel<<<slots, 32, 0, st>>>(mt, h);
  }
  data_bits_kernel<<<chunk_grid, kHuffThreads, 0, st>>>(t, mt, h, gc, cb.bits.get());
  side_bits_kernel<<<slots, 32, 0, st>>>(t, mt, h, cb.bits.get());
  EA_CUDA_CHECK(cudaGetLastError());
  EA_CUDA_CHECK(cudaMemcpyAsync(cb.host_bits.get(), cb.bits.get(), slots * sizeof(unsigned long long),
                                cudaMemcpyDeviceToHost, st));
  timer.mark(7, st);
}

}  // namespace ea::gpubz
