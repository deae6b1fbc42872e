// cuda/api/gpu_suffixes.hpp: a text's suffixes sorted by prefix doubling on the GPU, and the
// LCP of each with the one before it in sorted order.
//
// Level 0 sorts each suffix on a key of its first W symbols (zeros past the text's end) and
// its length capped at W, so that a suffix shorter than W is alone in its group and sorts
// before the longer ones it begins. Level k + 1 sorts on (rank_k[i], rank_k[i + h_k]) with
// h_k = W 2^k symbols (rank_k: one plus the sorted place of the group's first suffix; 0 past
// the end), until every group holds one suffix. Two suffixes have equal rank_k exactly when
// both are at least h_k long and their first h_k symbols are equal, so the LCP of two
// neighbours follows from the kept ranks by halving, from the top level down (each level's
// h_k taken where the ranks at the offset so far are equal), plus the symbols of one
// window compared at the end. Counts and sorts on the device (CUB), the result to the host.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cub/cub.cuh>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "check.cuh"
#include "common/error.hpp"
#include "device_buffer.cuh"
#include "gpu_backends.hpp"
#include "gpu_suffixes.hpp"

namespace ea {

namespace {

using cuda::StreamBuffer;

constexpr int kThreads = 256;

unsigned grid_for(size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// The 64 bits of the packed text from symbol x (b bits each, the first highest).
__device__ uint64_t window_at(const uint64_t* words, uint64_t x, int b) {
  const uint64_t bit = x * static_cast<uint64_t>(b);
  const int sh = static_cast<int>(bit & 63);
  const uint64_t* w = words + (bit >> 6);
  return sh == 0 ? w[0] : (w[0] << sh) | (w[1] >> (64 - sh));
}

// words[w]: bits 64w .. 64w + 63 of the symbols packed b bits each, the first highest (zeros
// past the end).
__global__ void pack_kernel(const uint8_t* s, uint32_t n, int b, uint64_t* words, size_t count) {
  const size_t w = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= count) return;
  const uint64_t lo = w * 64;
  uint64_t out = 0;
  for (uint64_t j = lo / b; j < n && j * b < lo + 64; ++j) {
    const int sh = 64 - static_cast<int>(static_cast<int64_t>(j * b) - static_cast<int64_t>(lo)) - b;
    const uint64_t v = s[j];
    out |= sh >= 0 ? v << sh : v >> -sh;
  }
  words[w] = out;
}

// Level 0's keys: the first W symbols above the length capped at W (cb bits).
__global__ void first_keys_kernel(const uint64_t* words, uint32_t n, int b, int W, int cb, uint64_t* keys,
                                  uint32_t* vals) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint64_t first = window_at(words, i, b) >> (64 - W * b);
  keys[i] = first << cb | min(n - i, static_cast<uint32_t>(W));
  vals[i] = i;
}

// Level k + 1's keys: (rank_k[i], rank_k[i + h]), rb bits each.
__global__ void pair_keys_kernel(const uint32_t* rank, uint32_t n, uint64_t h, int rb, uint64_t* keys, uint32_t* vals) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  keys[i] = static_cast<uint64_t>(rank[i]) << rb | (i + h < n ? rank[i + h] : 0u);
  vals[i] = i;
}

// head[r]: r + 1 where the sorted key r starts a group, else 0; `groups` counts the starts.
__global__ void heads_kernel(const uint64_t* keys, uint32_t n, uint32_t* head, unsigned long long* groups) {
  const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  const bool starts = r < n && (r == 0 || keys[r] != keys[r - 1]);
  if (r < n) head[r] = starts ? r + 1 : 0;
  const int c = __syncthreads_count(starts);
  if (threadIdx.x == 0 && c > 0) atomicAdd(groups, static_cast<unsigned long long>(c));
}

__global__ void scatter_kernel(const uint32_t* sa, const uint32_t* group, uint32_t n, uint32_t* rank) {
  const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) rank[sa[r]] = group[r];
}

// lcp[r]: the LCP of the suffixes sa[r - 1] and sa[r] from the ranks of levels top - 1 .. 0
// (level k: h = W 2^k symbols) and one window (the remainder is below W).
__global__ void lcp_kernel(const uint32_t* sa, const uint32_t* const* ranks, int top, uint32_t n, int W,
                           const uint64_t* words, int b, uint32_t* lcp) {
  const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  if (r == 0) {
    lcp[0] = 0;
    return;
  }
  const uint64_t a = sa[r - 1], c = sa[r];
  uint64_t l = 0;
  for (int k = top - 1; k >= 0; --k) {
    if (a + l < n && c + l < n && ranks[k][a + l] == ranks[k][c + l]) l += static_cast<uint64_t>(W) << k;
  }
  if (a + l < n && c + l < n) {
    const uint64_t x = window_at(words, a + l, b) ^ window_at(words, c + l, b);
    const uint64_t e = x == 0 ? static_cast<uint64_t>(64 / b) : static_cast<uint64_t>(__clzll(x) / b);
    l += min(e, min(n - (a + l), n - (c + l)));
  }
  lcp[r] = static_cast<uint32_t>(l);
}

__global__ void narrow_kernel(const uint32_t* lcp, uint32_t n, uint8_t* out) {
  const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) out[r] = static_cast<uint8_t>(min(lcp[r], static_cast<uint32_t>(kLongLcp)));
}

struct MaxOp {
  __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

struct IsLong {
  __device__ bool operator()(uint32_t x) const { return x >= kLongLcp; }
};

// The device memory of one text: keys and suffixes (double buffers), each level's ranks, the
// group starts, the LCPs and CUB's scratch.
struct Workspace {
  explicit Workspace(cudaStream_t s) : st(s) {}
  cudaStream_t st;
  StreamBuffer<uint8_t> text, narrow, temp;
  StreamBuffer<uint64_t> words, keys[2];
  StreamBuffer<uint32_t> vals[2], head, group, lcp, long_lcps, selected;
  StreamBuffer<unsigned long long> groups;
  std::vector<StreamBuffer<uint32_t>> ranks;
  size_t temp_bytes = 0;
  const uint32_t* sorted = nullptr;  // the last sort's suffixes (vals[0] or vals[1])

  bool allocate(uint32_t n, size_t word_count) {
    if (!(text.allocate(n, st) && narrow.allocate(n, st) && words.allocate(word_count, st) &&
          keys[0].allocate(n, st) && keys[1].allocate(n, st) && vals[0].allocate(n, st) && vals[1].allocate(n, st) &&
          head.allocate(n, st) && group.allocate(n, st) && lcp.allocate(n, st) && long_lcps.allocate(n, st) &&
          selected.allocate(1, st) && groups.allocate(1, st))) {
      return false;
    }
    size_t bytes[3] = {};
    cub::DoubleBuffer<uint64_t> k(keys[0].get(), keys[1].get());
    cub::DoubleBuffer<uint32_t> v(vals[0].get(), vals[1].get());
    const int count = static_cast<int>(n);
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes[0], k, v, count));
    EA_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes[1], head.get(), group.get(), MaxOp{}, count));
    EA_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes[2], lcp.get(), long_lcps.get(), selected.get(), count, IsLong{}));
    temp_bytes = std::max({bytes[0], bytes[1], bytes[2], size_t{1}});
    return temp.allocate(temp_bytes, st);
  }
};

// Sorts keys[0]/vals[0] on bits 0 .. end_bit - 1 and writes the next level's ranks (a new
// buffer in ws.ranks). Returns the number of groups, or 0 where the device memory for the
// level's ranks is short.
uint64_t sort_and_rank(Workspace& ws, uint32_t n, int end_bit, cudaStream_t st) {
  cub::DoubleBuffer<uint64_t> k(ws.keys[0].get(), ws.keys[1].get());
  cub::DoubleBuffer<uint32_t> v(ws.vals[0].get(), ws.vals[1].get());
  size_t bytes = ws.temp_bytes;
  const int count = static_cast<int>(n);
  EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(ws.temp.get(), bytes, k, v, count, 0, end_bit, st));
  ws.sorted = v.Current();
  EA_CUDA_CHECK(cudaMemsetAsync(ws.groups.get(), 0, sizeof(unsigned long long), st));
  heads_kernel<<<grid_for(n), kThreads, 0, st>>>(k.Current(), n, ws.head.get(), ws.groups.get());
  EA_CUDA_CHECK(cudaGetLastError());
  bytes = ws.temp_bytes;
  EA_CUDA_CHECK(cub::DeviceScan::InclusiveScan(ws.temp.get(), bytes, ws.head.get(), ws.group.get(), MaxOp{}, count, st));
  StreamBuffer<uint32_t> rank;
  if (!rank.allocate(n, st)) return 0;
  scatter_kernel<<<grid_for(n), kThreads, 0, st>>>(v.Current(), ws.group.get(), n, rank.get());
  EA_CUDA_CHECK(cudaGetLastError());
  ws.ranks.push_back(std::move(rank));
  unsigned long long groups = 0;
  EA_CUDA_CHECK(cudaMemcpyAsync(&groups, ws.groups.get(), sizeof groups, cudaMemcpyDeviceToHost, st));
  EA_CUDA_CHECK(cudaStreamSynchronize(st));
  return groups;
}

int bit_width(uint64_t x) {
  int w = 0;
  while (x >> w) ++w;
  return w;
}

// The sorted suffixes (ws.sorted) and every level's ranks, level 0 on W symbols
// of b bits and cb bits of length. False where the device memory is short.
bool sort_suffixes(Workspace& ws, uint32_t n, int b, int W, int cb, cudaStream_t st, Interrupt interrupt) {
  first_keys_kernel<<<grid_for(n), kThreads, 0, st>>>(ws.words.get(), n, b, W, cb, ws.keys[0].get(), ws.vals[0].get());
  EA_CUDA_CHECK(cudaGetLastError());
  uint64_t groups = sort_and_rank(ws, n, W * b + cb, st);
  const int rb = bit_width(n);
  for (int k = 0; groups < n; ++k) {
    if (groups == 0) return false;
    throw_if_interrupted(interrupt);
    pair_keys_kernel<<<grid_for(n), kThreads, 0, st>>>(ws.ranks.back().get(), n, static_cast<uint64_t>(W) << k, rb,
                                                       ws.keys[0].get(), ws.vals[0].get());
    EA_CUDA_CHECK(cudaGetLastError());
    groups = sort_and_rank(ws, n, 2 * rb, st);
  }
  return groups == n;
}

}  // namespace

std::optional<SuffixLcps> gpu_suffix_lcps(const uint8_t* s, size_t n, int gpu_id, Interrupt interrupt) {
  if (n < 2 || n > static_cast<size_t>(INT_MAX)) return std::nullopt;  // (CUB counts in int)
  cuda::select_gpu(gpu_id);
  uint8_t top = 0;
  for (size_t i = 0; i < n; ++i) top = std::max(top, s[i]);
  const int b = std::max(1, bit_width(top));
  int W = 1;  // level 0: W symbols and their length (cb bits) in 64 bits
  while ((W + 1) * b + bit_width(static_cast<uint64_t>(W + 1)) <= 64) ++W;
  const int cb = bit_width(static_cast<uint64_t>(W));
  const auto count = static_cast<uint32_t>(n);
  const size_t word_count = (n * static_cast<size_t>(b) + 63) / 64 + 2;
  cuda::CudaStream st(true);  // the highest priority (before the workspace: its memory goes back on the stream)
  Workspace ws(st);
  if (!ws.allocate(count, word_count)) return std::nullopt;
  EA_CUDA_CHECK(cudaMemcpyAsync(ws.text.get(), s, n, cudaMemcpyHostToDevice, st));
  pack_kernel<<<grid_for(word_count), kThreads, 0, st>>>(ws.text.get(), count, b, ws.words.get(), word_count);
  EA_CUDA_CHECK(cudaGetLastError());
  if (!sort_suffixes(ws, count, b, W, cb, st, interrupt)) return std::nullopt;
  throw_if_interrupted(interrupt);
  ws.ranks.pop_back();  // (the top level's ranks are all different: the halving starts below it)
  std::vector<const uint32_t*> levels;
  for (const auto& r : ws.ranks) levels.push_back(r.get());
  StreamBuffer<const uint32_t*> level_table;
  if (!level_table.allocate(levels.size(), st)) return std::nullopt;
  EA_CUDA_CHECK(cudaMemcpyAsync(level_table.get(), levels.data(), levels.size() * sizeof(levels[0]),
                                cudaMemcpyHostToDevice, st));
  lcp_kernel<<<grid_for(n), kThreads, 0, st>>>(ws.sorted, level_table.get(), static_cast<int>(levels.size()), count,
                                               W, ws.words.get(), b, ws.lcp.get());
  EA_CUDA_CHECK(cudaGetLastError());
  narrow_kernel<<<grid_for(n), kThreads, 0, st>>>(ws.lcp.get(), count, ws.narrow.get());
  EA_CUDA_CHECK(cudaGetLastError());
  size_t bytes = ws.temp_bytes;
  EA_CUDA_CHECK(cub::DeviceSelect::If(ws.temp.get(), bytes, ws.lcp.get(), ws.long_lcps.get(), ws.selected.get(),
                                      static_cast<int>(count), IsLong{}, st));
  SuffixLcps out;
  out.lcp.resize(n);
  uint32_t selected = 0;
  EA_CUDA_CHECK(cudaMemcpyAsync(&selected, ws.selected.get(), sizeof selected, cudaMemcpyDeviceToHost, st));
  EA_CUDA_CHECK(cudaMemcpyAsync(out.lcp.data(), ws.narrow.get(), n, cudaMemcpyDeviceToHost, st));
  EA_CUDA_CHECK(cudaStreamSynchronize(st));
  out.long_lcps.resize(selected);
  EA_CUDA_CHECK(cudaMemcpyAsync(out.long_lcps.data(), ws.long_lcps.get(), selected * sizeof(uint32_t),
                                cudaMemcpyDeviceToHost, st));
  EA_CUDA_CHECK(cudaStreamSynchronize(st));
  return out;
}

}  // namespace ea
