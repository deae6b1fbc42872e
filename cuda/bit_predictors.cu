// cuda/api/gpu_predictors.hpp: MultiMMC's and LZ78Y's per-step states on bits, counted on the
// GPU; the scoreboard (MultiMMC) and the run of right predictions (LZ78Y) stay on the host.
//
// Both predictors keep, for every context of m bits (m = 1 .. 16), the counts of the bits
// that followed it so far, and a step's state is those counts over the earlier steps with
// its context. So for each m the steps are sorted on their context (CUB's radix sort is
// stable: a context's steps stay in order), and an exclusive scan by key of (1, bit) gives
// every step the number of earlier steps with its context and how many were followed by a 1.
// The caps: MultiMMC's order 16 counts at most 100,000 (context, next bit) pairs and LZ78Y's
// dictionary at most 65,536 contexts over all lengths, each admitted at its first step while
// there is room and never later. The admitted ones are therefore the first 100,000 (65,536)
// by first step (LZ78Y: within a step, length 16 down to 1), found by sorting a table of
// first steps once. The other orders of MultiMMC never reach the cap (order m has at most
// 2^(m + 1) pairs), so on bits an order's states depend on its own table alone
// (non_iid_mmc_bits.cpp says why the reference's cascade of lookups decides nothing there).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cub/cub.cuh>
#include <vector>

#include "check.cuh"
#include "common/error.hpp"
#include "device_buffer.cuh"
#include "gpu_predictors.hpp"

namespace ea {

namespace {

using cuda::StreamBuffer;

constexpr int kThreads = 256;
constexpr int kOrders = 16;                  // MultiMMC's orders, LZ78Y's context lengths
constexpr uint32_t kSlots = 2u << kOrders;   // contexts of 1 to 16 bits, (1 << m) | context
constexpr uint32_t kNone = 0xFFFFFFFFu;      // no such step
constexpr uint32_t kMmcCap = 100000;         // MultiMMC: (context, next) pairs of an order
constexpr uint32_t kLzCap = 65536;           // LZ78Y: contexts in all
constexpr uint32_t kLzFirst = 16;            // LZ78Y's first step (it only adds contexts)

unsigned grid_for(size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

// The m bits before step t (bits t - m .. t - 1, the last one lowest).
__device__ uint32_t context_before(const uint8_t* s, uint32_t t, int m) {
  uint32_t c = 0;
  for (int i = m; i >= 1; --i) c = (c << 1) | (s[t - i] & 1u);
  return c;
}

// Steps t = lo .. lo + count - 1: key the context of m bits before t, value t << 1 | bit t.
__global__ void step_keys_kernel(const uint8_t* s, uint32_t lo, uint32_t count, int m, uint16_t* key, uint32_t* val) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const uint32_t t = lo + i;
  key[i] = static_cast<uint16_t>(context_before(s, t, m));
  val[i] = (t << 1) | (s[t] & 1u);
}

// The scan's terms: one step (high half) and its bit (low half).
__global__ void ones_kernel(const uint32_t* val, uint32_t count, uint64_t* one) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) one[i] = (uint64_t{1} << 32) | (val[i] & 1u);
}

// What followed a context before a step: zeros and ones.
struct Seen {
  uint32_t zeros, ones;
};
__device__ Seen seen_in(uint64_t before) {
  const auto ones = static_cast<uint32_t>(before);
  return {static_cast<uint32_t>(before >> 32) - ones, ones};
}

// Each (context, bit) pair's first step (its first sorted step with no earlier one of it):
// first[2 context + bit].
__global__ void first_pairs_kernel(const uint16_t* key, const uint32_t* val, const uint64_t* before, uint32_t count,
                                   uint32_t* first) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const uint32_t y = val[i] & 1u;
  const Seen c = seen_in(before[i]);
  if ((y ? c.ones : c.zeros) == 0) first[2u * key[i] + y] = val[i] >> 1;
}

// MultiMMC, one order: flags[t] = known | right << 1 at each sorted step. `first` (order 16)
// the pairs' first steps, those first at or before `last` admitted (the others never counted).
__global__ void mmc_flags_kernel(const uint16_t* key, const uint32_t* val, const uint64_t* before, uint32_t count,
                                 const uint32_t* first, uint32_t last, uint8_t* flags) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const uint32_t y = val[i] & 1u;
  Seen c = seen_in(before[i]);
  if (first != nullptr) {
    const uint32_t pair = 2u * key[i];
    if (first[pair] > last) c.zeros = 0;
    if (first[pair + 1] > last) c.ones = 0;
  }
  const uint32_t known = (c.zeros | c.ones) != 0 ? 1u : 0u;
  const uint32_t right = known & ((c.ones >= c.zeros ? 1u : 0u) == y ? 1u : 0u);  // (ties predict 1)
  flags[val[i] >> 1] = static_cast<uint8_t>(known | right << 1);
}

// One order's words: bit i of word w is step t = 2 + 64 w + i (steps before `from`: none).
__global__ void pack_flags_kernel(const uint8_t* flags, uint32_t n, uint32_t from, size_t words, uint64_t* found,
                                  uint64_t* right) {
  const size_t w = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words) return;
  uint64_t f = 0, r = 0;
  for (int b = 0; b < 64; ++b) {
    const uint64_t t = 2 + 64 * w + static_cast<uint64_t>(b);
    if (t >= n) break;
    if (t < from) continue;
    const uint64_t x = flags[t];
    f |= (x & 1u) << b;
    r |= (x >> 1) << b;
  }
  found[w] = f;
  right[w] = r;
}

// LZ78Y: first16[w], the first step t >= 16 whose 16 bits before it are w.
__global__ void lz_first_kernel(const uint8_t* s, uint32_t n, uint32_t* first16) {
  const uint32_t t = kLzFirst + blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const uint32_t w = context_before(s, t, kOrders);
  if (first16[w] > t) atomicMin(&first16[w], t);
}

// One block: first[(1 << m) | c] for m = 15 .. 1 from the level above (the contexts of m + 1
// bits that end in c), then each slot's key in the dictionary's order of additions: its
// first step, then the longer context first; all ones where it never occurs.
__global__ void lz_slot_keys_kernel(uint32_t* first, uint64_t* key) {
  for (int m = kOrders - 1; m >= 1; --m) {
    const uint32_t up = 2u << m, bit = 1u << m;
    for (uint32_t c = threadIdx.x; c < bit; c += blockDim.x) first[bit | c] = min(first[up | c], first[up | bit | c]);
    __syncthreads();
  }
  for (uint32_t slot = threadIdx.x; slot < kSlots; slot += blockDim.x) {
    const int m = 31 - __clz(static_cast<int>(slot | 1u));
    const uint32_t f = slot < 2 ? kNone : first[slot];
    key[slot] = f == kNone ? ~uint64_t{0} : (uint64_t{f} << 5) | static_cast<uint64_t>(kOrders - m);
  }
}

// LZ78Y, one length m: at each sorted step whose context is in the dictionary (admitted:
// its slot's key at most `last`) and was there before it, the candidate (most frequent next
// bit's count, m, that bit; ties to 1) kept where it beats the longer lengths' at that step.
__global__ void lz_best_kernel(const uint16_t* key, const uint32_t* val, const uint64_t* before, uint32_t count, int m,
                               const uint64_t* slot_key, uint64_t last, uint64_t* best) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  if (slot_key[(1u << m) | key[i]] > last) return;  // never in the dictionary
  const Seen c = seen_in(before[i]);
  if ((c.zeros | c.ones) == 0) return;  // added at this step
  const uint64_t bit = c.zeros > c.ones ? 0 : 1;
  const uint64_t k = uint64_t{max(c.zeros, c.ones)} << 13 | static_cast<uint64_t>(m) << 8 | bit;
  const uint32_t t = val[i] >> 1;
  if (k > best[t]) best[t] = k;
}

// hits bit i of word w: step t = 17 + 64 w + i predicted and right.
__global__ void lz_hits_kernel(const uint64_t* best, const uint8_t* s, uint32_t n, size_t words, uint64_t* hits) {
  const size_t w = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words) return;
  uint64_t h = 0;
  for (int b = 0; b < 64; ++b) {
    const uint64_t t = kLzFirst + 1 + 64 * w + static_cast<uint64_t>(b);
    if (t >= n) break;
    const uint64_t k = best[t];
    h |= static_cast<uint64_t>(k != 0 && static_cast<uint8_t>(k) == s[t]) << b;
  }
  hits[w] = h;
}

struct Equal {
  __device__ bool operator()(uint16_t a, uint16_t b) const { return a == b; }
};

// The device memory of one bitstring: the text, the steps' keys and values (double
// buffers), the scan's terms and results, CUB's scratch.
struct StepScan {
  explicit StepScan(cudaStream_t s) : st(s) {}
  cudaStream_t st;
  StreamBuffer<uint8_t> text, temp;
  StreamBuffer<uint16_t> keys[2];
  StreamBuffer<uint32_t> vals[2];
  StreamBuffer<uint64_t> ones, before;
  size_t temp_bytes = 0;
  const uint16_t* key = nullptr;  // after scan(): the sorted steps
  const uint32_t* val = nullptr;

  bool allocate(const uint8_t* s, uint32_t n) {
    if (!(text.allocate(n, st) && keys[0].allocate(n, st) && keys[1].allocate(n, st) && vals[0].allocate(n, st) &&
          vals[1].allocate(n, st) && ones.allocate(n, st) && before.allocate(n, st))) {
      return false;
    }
    size_t bytes[4] = {};
    cub::DoubleBuffer<uint16_t> k(keys[0].get(), keys[1].get());
    cub::DoubleBuffer<uint32_t> v(vals[0].get(), vals[1].get());
    const int count = static_cast<int>(n);
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes[0], k, v, count));
    EA_CUDA_CHECK(cub::DeviceScan::ExclusiveSumByKey(nullptr, bytes[1], keys[0].get(), ones.get(), before.get(), count,
                                                     Equal{}));
    uint64_t* k64 = nullptr;
    uint32_t* k32 = nullptr;
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes[2], k64, k64, static_cast<int>(kSlots)));
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes[3], k32, k32, static_cast<int>(kSlots)));
    temp_bytes = std::max({bytes[0], bytes[1], bytes[2], bytes[3], size_t{1}});
    if (!temp.allocate(temp_bytes, st)) return false;
    EA_CUDA_CHECK(cudaMemcpyAsync(text.get(), s, n, cudaMemcpyHostToDevice, st));
    return true;
  }

  // The steps lo .. n - 1 on their contexts of m bits, sorted (key, val), and for each the
  // counts over the earlier steps of its context (before: steps << 32 | ones).
  void scan(int m, uint32_t lo, uint32_t n) {
    const uint32_t count = n - lo;
    step_keys_kernel<<<grid_for(count), kThreads, 0, st>>>(text.get(), lo, count, m, keys[0].get(), vals[0].get());
    EA_CUDA_CHECK(cudaGetLastError());
    cub::DoubleBuffer<uint16_t> k(keys[0].get(), keys[1].get());
    cub::DoubleBuffer<uint32_t> v(vals[0].get(), vals[1].get());
    size_t bytes = temp_bytes;
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, k, v, static_cast<int>(count), 0, m, st));
    key = k.Current();
    val = v.Current();
    ones_kernel<<<grid_for(count), kThreads, 0, st>>>(val, count, ones.get());
    EA_CUDA_CHECK(cudaGetLastError());
    bytes = temp_bytes;
    EA_CUDA_CHECK(cub::DeviceScan::ExclusiveSumByKey(temp.get(), bytes, key, ones.get(), before.get(),
                                                     static_cast<int>(count), Equal{}, st));
  }

  // The element `at` (0-based) of `in` sorted (kSlots keys), on the host.
  template <class T>
  T ranked(const T* in, T* sorted, uint32_t at) {
    size_t bytes = temp_bytes;
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(), bytes, in, sorted, static_cast<int>(kSlots), 0,
                                                 static_cast<int>(8 * sizeof(T)), st));
    T out{};
    EA_CUDA_CHECK(cudaMemcpyAsync(&out, sorted + at, sizeof out, cudaMemcpyDeviceToHost, st));
    EA_CUDA_CHECK(cudaStreamSynchronize(st));
    return out;
  }
};

template <class T>
void download(std::vector<T>& out, const StreamBuffer<T>& in, size_t count, cudaStream_t st) {
  out.resize(count);
  EA_CUDA_CHECK(cudaMemcpyAsync(out.data(), in.get(), count * sizeof(T), cudaMemcpyDeviceToHost, st));
  EA_CUDA_CHECK(cudaStreamSynchronize(st));
}

}  // namespace

bool gpu_mmc_bit_states(const uint8_t* bits, size_t n, int gpu_id, std::vector<uint64_t>& found,
                        std::vector<uint64_t>& right, Interrupt interrupt) {
  if (n < 18 || n > static_cast<size_t>(INT_MAX)) return false;  // (CUB counts in int)
  cuda::select_gpu(gpu_id);
  const auto count = static_cast<uint32_t>(n);
  const size_t words = (n - 2 + 63) / 64;
  cuda::CudaStream st(true);  // (before the buffers: their memory goes back on the stream)
  StepScan ws(st);
  StreamBuffer<uint8_t> flags;
  StreamBuffer<uint64_t> f, r;
  StreamBuffer<uint32_t> first, sorted;
  if (!(flags.allocate(n, st) && f.allocate(kOrders * words, st) && r.allocate(kOrders * words, st) &&
        first.allocate(kSlots, st) && sorted.allocate(kSlots, st) && ws.allocate(bits, count))) {
    return false;
  }
  for (int d = 0; d < kOrders; ++d) {
    throw_if_interrupted(interrupt);
    const int m = d + 1;
    ws.scan(m, static_cast<uint32_t>(m), count);  // the pairs (context, bit at p) for p = m .. n - 1
    const uint32_t* admitted = nullptr;
    uint32_t last = kNone;
    if (m == kOrders) {  // the order that can reach the cap
      EA_CUDA_CHECK(cudaMemsetAsync(first.get(), 0xFF, kSlots * sizeof(uint32_t), st));
      first_pairs_kernel<<<grid_for(count - m), kThreads, 0, st>>>(ws.key, ws.val, ws.before.get(), count - m, first.get());
      EA_CUDA_CHECK(cudaGetLastError());
      last = ws.ranked(first.get(), sorted.get(), kMmcCap - 1);
      admitted = first.get();
    }
    mmc_flags_kernel<<<grid_for(count - m), kThreads, 0, st>>>(ws.key, ws.val, ws.before.get(), count - m, admitted,
                                                               last, flags.get());
    EA_CUDA_CHECK(cudaGetLastError());
    pack_flags_kernel<<<grid_for(words), kThreads, 0, st>>>(flags.get(), count, static_cast<uint32_t>(m), words,
                                                             f.get() + d * words, r.get() + d * words);
    EA_CUDA_CHECK(cudaGetLastError());
  }
  throw_if_interrupted(interrupt);
  download(found, f, kOrders * words, st);
  download(right, r, kOrders * words, st);
  return true;
}

bool gpu_lz78y_bit_hits(const uint8_t* bits, size_t n, int gpu_id, std::vector<uint64_t>& hits, Interrupt interrupt) {
  if (n < 18 || n > static_cast<size_t>(INT_MAX)) return false;
  cuda::select_gpu(gpu_id);
  const auto count = static_cast<uint32_t>(n);
  const size_t words = (n - kLzFirst - 1 + 63) / 64;
  cuda::CudaStream st(true);
  StepScan ws(st);
  StreamBuffer<uint32_t> first;
  StreamBuffer<uint64_t> slot_key, sorted, best, h;
  if (!(first.allocate(kSlots, st) && slot_key.allocate(kSlots, st) && sorted.allocate(kSlots, st) &&
        best.allocate(n, st) && h.allocate(words, st) && ws.allocate(bits, count))) {
    return false;
  }
  EA_CUDA_CHECK(cudaMemsetAsync(first.get(), 0xFF, kSlots * sizeof(uint32_t), st));
  EA_CUDA_CHECK(cudaMemsetAsync(best.get(), 0, n * sizeof(uint64_t), st));
  lz_first_kernel<<<grid_for(n - kLzFirst), kThreads, 0, st>>>(ws.text.get(), count, first.get() + (kSlots / 2));
  EA_CUDA_CHECK(cudaGetLastError());
  lz_slot_keys_kernel<<<1, 1024, 0, st>>>(first.get(), slot_key.get());
  EA_CUDA_CHECK(cudaGetLastError());
  const uint64_t last = ws.ranked(slot_key.get(), sorted.get(), kLzCap - 1);
  for (int m = kOrders; m >= 1; --m) {
    throw_if_interrupted(interrupt);
    ws.scan(m, kLzFirst, count);
    lz_best_kernel<<<grid_for(count - kLzFirst), kThreads, 0, st>>>(ws.key, ws.val, ws.before.get(), count - kLzFirst, m,
                                                                    slot_key.get(), last, best.get());
    EA_CUDA_CHECK(cudaGetLastError());
  }
  lz_hits_kernel<<<grid_for(words), kThreads, 0, st>>>(best.get(), ws.text.get(), count, words, h.get());
  EA_CUDA_CHECK(cudaGetLastError());
  throw_if_interrupted(interrupt);
  download(hits, h, words, st);
  return true;
}

}  // namespace ea
