// The Burrows-Wheeler transform of many blocks at once on the GPU, by prefix doubling:
// pass 0 sorts every rotation of every block on (block slot, first characters as digits in
// base radix: 13-14 characters of decimal text with 11 of them, 29-30 with 3) with one CUB
// radix sort of at most 56 key bits; each doubling pass h then sorts only the rotations
// still tied, on (rank, rank of the rotation h characters later), until no rotation is tied
// or h reaches the longest block. Characters are decimal text (' ' and digits).
#include <cub/cub.cuh>

#include <algorithm>
#include <vector>

#include "bzip2/bwt.cuh"
#include "common/error.hpp"
#include "gpu_bwt.hpp"

namespace ea::gpubz {

namespace {

// Pass 0 keys: block slot, then the first `chars` characters of the rotation at q as digits
// in base codes.radix.
__global__ void first_keys_kernel(const uint8_t* text, uint32_t total, BlockTable t, CharCodes codes, int chars,
                                  uint64_t* keys, uint32_t* vals) {
  __shared__ uint8_t code[256];
  for (int c = threadIdx.x; c < 256; c += blockDim.x) code[c] = codes.code[c];
  __syncthreads();
  const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= total) return;
  const uint32_t b = t.slot_of(q);
  const uint32_t begin = t.begin[b], len = t.len[b];
  uint32_t o = q - begin;
  uint64_t key = static_cast<uint64_t>(b);
  for (int c = 0; c < chars; ++c) {
    key = key * codes.radix + code[text[begin + o]];
    o = o + 1 == len ? 0 : o + 1;
  }
  keys[q] = key;
  vals[q] = q;
}

// Characters in pass 0's keys: as many as keep (slot, characters) within 56 bits (seven
// 8-bit radix sort passes); `span` becomes the number of distinct keys.
constexpr uint64_t kFirstKeyLimit = uint64_t{1} << 56;
int first_key_chars(uint32_t slots, uint32_t radix, uint64_t& span) {
  span = std::max<uint32_t>(slots, 1);
  if (radix < 2) return 1;  // one kind of character: every rotation of a block is equal
  int chars = 0;
  do {  // (slots < 2^32 and radix <= 256: one character always fits)
    span *= radix;
    ++chars;
  } while (span <= kFirstKeyLimit / radix);
  return chars;
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

struct MaxOp {
  __device__ __forceinline__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

void max_scan(BwtWorkspace& ws, uint32_t* data, uint32_t m, cudaStream_t st) {
  size_t bytes = ws.temp.size();
  EA_CUDA_CHECK(cub::DeviceScan::InclusiveScan(ws.temp.get(), bytes, data, data, MaxOp{}, static_cast<int>(m), st));
}

uint32_t select_unresolved(BwtWorkspace& ws, const uint32_t* vals, uint32_t m, cudaStream_t st, StageTimer& timer) {
  size_t bytes = ws.temp.size();
  EA_CUDA_CHECK(cub::DeviceSelect::Flagged(ws.temp.get(), bytes, vals, ws.flags.get(), ws.list.get(),
                                           ws.selected.get(), static_cast<int>(m), st));
  EA_CUDA_CHECK(cudaMemcpyAsync(ws.host_selected.get(), ws.selected.get(), sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
  timer.sync(st);
  return *ws.host_selected.get();
}

}  // namespace

bool BwtWorkspace::allocate(uint32_t total, uint32_t slots) {
  using cuda::DeviceBuffer;
  const bool ok = DeviceBuffer<uint64_t>::try_allocate(total, keys[0]) &&
                  DeviceBuffer<uint64_t>::try_allocate(total, keys[1]) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, vals[0]) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, vals[1]) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, rank) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, head_a) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, head_b) &&
                  DeviceBuffer<uint32_t>::try_allocate(total, list) &&
                  DeviceBuffer<uint32_t>::try_allocate(1, selected) &&
                  DeviceBuffer<uint8_t>::try_allocate(total, flags);
  if (!ok) return false;
  // CUB scratch: the largest of what the sort, the max-scan and the selection need.
  size_t sort_bytes = 0, scan_bytes = 0, select_bytes = 0;
  cub::DoubleBuffer<uint64_t> k(keys[0].get(), keys[1].get());
  cub::DoubleBuffer<uint32_t> v(vals[0].get(), vals[1].get());
  EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, v, static_cast<int>(total)));
  EA_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, scan_bytes, head_a.get(), head_a.get(), MaxOp{},
                                               static_cast<int>(total)));
  EA_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, select_bytes, vals[0].get(), flags.get(), list.get(),
                                           selected.get(), static_cast<int>(total)));
  if (!DeviceBuffer<uint8_t>::try_allocate(std::max({sort_bytes, scan_bytes, select_bytes, size_t{1}}), temp)) {
    return false;
  }
  host_selected = cuda::PinnedBuffer<uint32_t>(1);
  host_lens = cuda::PinnedBuffer<uint32_t>(std::max<uint32_t>(slots, 1));
  return true;
}

CharCodes char_codes(const bool (&used)[256]) {
  CharCodes c{};
  c.radix = 0;
  for (int k = 0; k < 256; ++k) {
    c.code[k] = static_cast<uint8_t>(c.radix);
    if (used[k]) ++c.radix;
  }
  return c;
}

uint32_t bwt_blocks(const uint8_t* text, uint32_t total, const BlockTable& t, uint32_t slots, const CharCodes& codes,
                    BwtWorkspace& ws, uint8_t* last, cudaStream_t st, StageTimer& timer) {
  // Pass 0 on (slot, first characters).
  uint64_t span = 0;
  const int chars = first_key_chars(slots, codes.radix, span);
  cub::DoubleBuffer<uint64_t> keys(ws.keys[0].get(), ws.keys[1].get());
  cub::DoubleBuffer<uint32_t> vals(ws.vals[0].get(), ws.vals[1].get());
  first_keys_kernel<<<grid_for(total), kThreads, 0, st>>>(text, total, t, codes, chars, keys.Current(),
                                                          vals.Current());
  size_t bytes = ws.temp.size();
  EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(ws.temp.get(), bytes, keys, vals, static_cast<int>(total), 0,
                                                bits_for(span - 1), st));
  head_kernel<<<grid_for(total), kThreads, 0, st>>>(keys.Current(), total, ws.head_a.get());
  max_scan(ws, ws.head_a.get(), total, st);
  first_ranks_kernel<<<grid_for(total), kThreads, 0, st>>>(keys.Current(), vals.Current(), ws.head_a.get(), total,
                                                           ws.rank.get(), ws.flags.get());
  EA_CUDA_CHECK(cudaGetLastError());
  // The longest block bounds the doubling: its length arrives with the first selection.
  EA_CUDA_CHECK(cudaMemcpyAsync(ws.host_lens.get(), t.len, slots * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
  uint32_t m = select_unresolved(ws, vals.Current(), total, st, timer);
  timer.mark(3, st);
  const uint32_t longest = *std::max_element(ws.host_lens.get(), ws.host_lens.get() + slots);
  const int rank_bits = bits_for(total);
  uint64_t h = static_cast<uint64_t>(chars);
  bool paired = false;
  uint32_t sorted = 0;  // elements of the last pair pass
  while (m > 0 && h < longest) {
    pair_keys_kernel<<<grid_for(m), kThreads, 0, st>>>(ws.list.get(), m, ws.rank.get(), static_cast<uint32_t>(h), t,
                                                       keys.Current(), vals.Current());
    bytes = ws.temp.size();
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(ws.temp.get(), bytes, keys, vals, static_cast<int>(m), 0,
                                                  32 + rank_bits, st));
    pair_head_kernel<<<grid_for(m), kThreads, 0, st>>>(keys.Current(), m, ws.head_a.get(), ws.head_b.get());
    max_scan(ws, ws.head_a.get(), m, st);
    max_scan(ws, ws.head_b.get(), m, st);
    pair_ranks_kernel<<<grid_for(m), kThreads, 0, st>>>(keys.Current(), vals.Current(), ws.head_a.get(),
                                                        ws.head_b.get(), m, false, ws.rank.get(), ws.flags.get());
    EA_CUDA_CHECK(cudaGetLastError());
    paired = true;
    sorted = m;
    m = select_unresolved(ws, vals.Current(), m, st, timer);
    h *= 2;
  }
  if (m > 0) {
    // Identical rotations (periodic blocks): any order among them.
    if (paired) {
      pair_ranks_kernel<<<grid_for(sorted), kThreads, 0, st>>>(keys.Current(), vals.Current(), ws.head_a.get(),
                                                               ws.head_b.get(), sorted, true, ws.rank.get(),
                                                               ws.flags.get());
    } else {
      position_ranks_kernel<<<grid_for(total), kThreads, 0, st>>>(vals.Current(), total, ws.rank.get());
    }
  }
  timer.mark(4, st);
  invert_kernel<<<grid_for(total), kThreads, 0, st>>>(ws.rank.get(), total, ws.head_a.get());
  bwt_kernel<<<grid_for(total), kThreads, 0, st>>>(text, ws.head_a.get(), total, t, last);
  EA_CUDA_CHECK(cudaGetLastError());
  timer.mark(5, st);
  return m;
}

}  // namespace ea::gpubz

namespace ea {

std::vector<uint8_t> gpu_bwt(const std::vector<uint8_t>& text, const std::vector<uint32_t>& block_lengths,
                             int gpu_id) {
  using namespace gpubz;
  uint64_t sum = 0;
  uint32_t longest = 1;
  for (uint32_t len : block_lengths) {
    if (len == 0) throw Error(ErrorKind::Usage, "gpu_bwt: a block of length 0");
    sum += len;
    longest = std::max(longest, len);
  }
  if (sum != text.size() || block_lengths.empty() || sum >= (uint64_t{1} << 31)) {
    throw Error(ErrorKind::Usage, "gpu_bwt: the block lengths must be positive and add up to the text's length");
  }
  bool used[256] = {};
  for (uint8_t c : text) {
    if (c != ' ' && (c < '0' || c > '9')) throw Error(ErrorKind::Usage, "gpu_bwt: the text must be decimal text");
    used[c] = true;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices <= gpu_id) {
    (void)cudaGetLastError();
    throw Error(ErrorKind::Device, "no usable GPU");
  }
  EA_CUDA_CHECK(cudaSetDevice(gpu_id));
  const uint32_t total = static_cast<uint32_t>(sum), slots = static_cast<uint32_t>(block_lengths.size());
  // One copy whose blocks are the given ones.
  std::vector<uint32_t> begin(slots);
  uint32_t at = 0;
  for (uint32_t k = 0; k < slots; ++k) {
    begin[k] = at;
    at += block_lengths[k];
  }
  cuda::CudaStream stream;
  cuda::DeviceBuffer<uint8_t> d_text, d_last;
  cuda::upload(d_text, text.data(), text.size(), stream);
  d_last = cuda::DeviceBuffer<uint8_t>(total);
  BlockTableBuffers table;
  if (!table.allocate(slots, 1)) throw Error(ErrorKind::Device, "GPU out of memory");
  const uint32_t count = slots;
  EA_CUDA_CHECK(cudaMemcpyAsync(table.begin.get(), begin.data(), slots * sizeof(uint32_t), cudaMemcpyHostToDevice, stream));
  EA_CUDA_CHECK(cudaMemcpyAsync(table.len.get(), block_lengths.data(), slots * sizeof(uint32_t), cudaMemcpyHostToDevice,
                                stream));
  EA_CUDA_CHECK(cudaMemcpyAsync(table.count.get(), &count, sizeof count, cudaMemcpyHostToDevice, stream));
  BwtWorkspace ws;
  if (!ws.allocate(total, slots)) throw Error(ErrorKind::Device, "GPU out of memory");
  StageTimer timer(false);
  bwt_blocks(d_text.get(), total, table.table(slots, total, longest), slots, char_codes(used), ws, d_last.get(), stream,
             timer);
  std::vector<uint8_t> last(total);
  EA_CUDA_CHECK(cudaMemcpyAsync(last.data(), d_last.get(), total, cudaMemcpyDeviceToHost, stream));
  EA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return last;
}

}  // namespace ea
