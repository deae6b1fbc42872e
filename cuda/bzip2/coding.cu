// Move-to-front, zero-run and Huffman coding of many blocks at once: the EA_HD steps of
// src/stats/bzip2_model.hpp, the move-to-front and the zero-run coding in parallel segments.
#include "bzip2/coding.cuh"
#include "stats/bzip2_model.hpp"

namespace ea::gpubz {

namespace {

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

// Move-to-front and zero-run coding in segments of kSegment symbols (bz::packed_* and
// bz::ZeroRunSummary in src/stats/bzip2_model.hpp; blocks with at most 16 byte values, which
// decimal text always is; others are coded by one thread in zero_run_offsets_kernel).
constexpr uint32_t kSegment = 2048;

struct Segments {
  uint64_t* sig;    // the segment's list when started from the identity
  uint32_t* seen;   // its symbols
  uint64_t* start;  // the list at its start
  uint8_t* seq_of;  // 256 per slot: byte -> index among the bytes in use
  // Zero-run coding: the segment's bz::ZeroRunSummary, then the values before it and the
  // zeros carried into it (bz::zero_run_offsets).
  uint32_t *lead, *inner, *trail, *out_at, *carry_at;
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

// The places of each segment, and its summary for the zero-run coding.
__global__ void places_kernel(const uint8_t* last, BlockTable t, MtfTable m, Segments sg, uint8_t* places) {
  __shared__ uint8_t seq_of[256];
  uint32_t k, n;
  if (!segment_of(t, m, sg, seq_of, k, n)) return;
  const uint32_t b = blockIdx.y;
  const uint32_t at = b * sg.per_slot + k;
  uint64_t order = sg.start[at];
  uint8_t* out = places + t.begin[b] + k * kSegment;
  uint32_t i = 0;
  bz::ZeroRunSummary zr;
  for_each_symbol(last + t.begin[b] + k * kSegment, n, seq_of, [&](uint64_t c) {
    const int r = bz::packed_move_to_front(order, c);
    out[i++] = static_cast<uint8_t>(r);
    zr.add(static_cast<uint32_t>(r));
  });
  zr.close();
  sg.lead[at] = zr.lead;
  sg.inner[at] = zr.inner;
  sg.trail[at] = zr.trail;
}

// One thread per block: the segments' offsets, the last zero run and EOB, and the
// frequencies of those (the segments add theirs in zero_run_values_kernel); for blocks with
// more than 16 byte values, the whole move-to-front and zero-run coding.
__global__ void zero_run_offsets_kernel(const uint8_t* last, BlockTable t, MtfTable m, Segments sg, uint32_t slots) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= slots) return;
  const uint32_t len = t.len[b];
  if (len == 0) {
    m.count[b] = 0;
    return;
  }
  const int in_use = m.in_use[b];
  uint16_t* out = m.values + t.begin[b] + b;
  int32_t* freq = m.freq + static_cast<size_t>(b) * bz::kMaxAlpha;
  if (in_use > 16) {
    m.count[b] = bz::mtf_encode(last + t.begin[b], static_cast<int32_t>(len), sg.seq_of + static_cast<size_t>(b) * 256,
                                in_use, out, freq);
    return;
  }
  const size_t at = static_cast<size_t>(b) * sg.per_slot;
  const uint32_t segments = (len + kSegment - 1) / kSegment;
  uint32_t pending = 0;
  int32_t w = static_cast<int32_t>(bz::zero_run_offsets(sg.lead + at, sg.inner + at, sg.trail + at, segments,
                                                        sg.out_at + at, sg.carry_at + at, pending));
  for (int v = 0; v < in_use + 2; ++v) freq[v] = 0;
  bz::zero_run_finish(pending, in_use, out, w, [freq](uint16_t v) { ++freq[v]; });
  m.count[b] = w;
}

// Grid (segments, slots): each segment's values from its offset, counted in shared memory
// and added to the block's frequencies (integers: the order of the additions is free).
__global__ void zero_run_values_kernel(BlockTable t, MtfTable m, Segments sg, const uint8_t* places) {
  __shared__ int32_t counts[bz::kMaxAlpha];
  for (int v = threadIdx.x; v < bz::kMaxAlpha; v += blockDim.x) counts[v] = 0;
  __syncthreads();
  uint32_t k = 0, n = 0;
  const bool mine = segment_range(t, m, k, n);
  const uint32_t b = blockIdx.y;
  if (mine) {
    int32_t* shared_counts = counts;
    const uint32_t at = b * sg.per_slot + k;
    int32_t w = static_cast<int32_t>(sg.out_at[at]);
    bz::zero_run_values(places + t.begin[b] + k * kSegment, n, sg.carry_at[at], m.values + t.begin[b] + b, w,
                        [shared_counts](uint16_t v) { atomicAdd(&shared_counts[v], 1); });
  }
  __syncthreads();
  const int alpha = m.in_use[b] + 2;
  if (m.in_use[b] > 16) return;
  for (int v = threadIdx.x; v < alpha; v += blockDim.x) {
    if (counts[v]) atomicAdd(&m.freq[static_cast<size_t>(b) * bz::kMaxAlpha + v], counts[v]);
  }
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

}  // namespace

bool CodingBuffers::allocate(uint32_t total, uint32_t slots, uint32_t block_limit) {
  using cuda::DeviceBuffer;
  seg_per_slot = (block_limit + 64) / kSegment + 1;
  const size_t segs = static_cast<size_t>(slots) * seg_per_slot;
  const bool ok = DeviceBuffer<uint16_t>::try_allocate(static_cast<size_t>(total) + slots, values) &&
                  DeviceBuffer<int32_t>::try_allocate(static_cast<size_t>(slots) * bz::kMaxAlpha, freq) &&
                  DeviceBuffer<int32_t>::try_allocate(slots, count) &&
                  DeviceBuffer<int32_t>::try_allocate(slots, in_use) &&
                  DeviceBuffer<int32_t>::try_allocate(slots, ranges) &&
                  DeviceBuffer<uint8_t>::try_allocate((static_cast<size_t>(total) + slots) / bz::kGroupSize +
                                                          2 * static_cast<size_t>(slots) + 1,
                                                      selectors) &&
                  DeviceBuffer<uint8_t>::try_allocate(total, places) &&
                  DeviceBuffer<uint8_t>::try_allocate(static_cast<size_t>(slots) * 256, seq_maps) &&
                  DeviceBuffer<unsigned long long>::try_allocate(slots, bits) &&
                  DeviceBuffer<uint64_t>::try_allocate(segs, seg_sig) &&
                  DeviceBuffer<uint64_t>::try_allocate(segs, seg_start) &&
                  DeviceBuffer<uint32_t>::try_allocate(segs, seg_seen) &&
                  DeviceBuffer<uint32_t>::try_allocate(segs, seg_lead) &&
                  DeviceBuffer<uint32_t>::try_allocate(segs, seg_inner) &&
                  DeviceBuffer<uint32_t>::try_allocate(segs, seg_trail) &&
                  DeviceBuffer<uint32_t>::try_allocate(segs, seg_out) &&
                  DeviceBuffer<uint32_t>::try_allocate(segs, seg_carry);
  if (ok) host_bits = cuda::PinnedBuffer<unsigned long long>(slots);
  return ok;
}

void code_blocks(const uint8_t* last, const BlockTable& t, uint32_t slots, CodingBuffers& cb, cudaStream_t st,
                 StageTimer& timer) {
  MtfTable mt{cb.values.get(), cb.freq.get(), cb.count.get(), cb.in_use.get(), cb.ranges.get(), cb.selectors.get()};
  Segments sg{cb.seg_sig.get(),  cb.seg_seen.get(),  cb.seg_start.get(), cb.seq_maps.get(),
              cb.seg_lead.get(), cb.seg_inner.get(), cb.seg_trail.get(), cb.seg_out.get(),
              cb.seg_carry.get(), cb.seg_per_slot};
  byte_map_kernel<<<slots, kThreads, 0, st>>>(last, t, mt, sg);
  const dim3 seg_grid((cb.seg_per_slot + 63) / 64, slots);
  signature_kernel<<<seg_grid, 64, 0, st>>>(last, t, mt, sg);
  starts_kernel<<<grid_for(slots, 64), 64, 0, st>>>(t, mt, sg, slots);
  places_kernel<<<seg_grid, 64, 0, st>>>(last, t, mt, sg, cb.places.get());
  zero_run_offsets_kernel<<<grid_for(slots, 64), 64, 0, st>>>(last, t, mt, sg, slots);
  zero_run_values_kernel<<<seg_grid, 64, 0, st>>>(t, mt, sg, cb.places.get());
  timer.mark(6, st);
  block_bits_kernel<<<slots, kThreads, 0, st>>>(t, mt, cb.bits.get());
  EA_CUDA_CHECK(cudaGetLastError());
  EA_CUDA_CHECK(cudaMemcpyAsync(cb.host_bits.get(), cb.bits.get(), slots * sizeof(unsigned long long),
                                cudaMemcpyDeviceToHost, st));
  timer.mark(7, st);
}

}  // namespace ea::gpubz
