// The engine's bucket shuffle on the GPU (docs/bucket-shuffle.md; its definition and CPU
// reference are src/permutation/bucket_shuffle.hpp), for rows above L samples:
// - Philox rows (bucket_rows): pass 1 (bucket_root_kernel, a block per row) labels the row's
//   samples from stream j's words and scatters them stably into its 2^b0 buckets in global
//   memory; pass 2 (bucket_inner_kernel, a block per bucket) reads a bucket into shared
//   memory by a stable scatter on 8-bit labels of its depth-1 node stream, shuffles each of
//   its 256 buckets (a leaf: about 490 samples at 10^6) by one thread with Fisher-Yates on
//   its depth-2 node stream (bucket_leaf), and writes the bucket back. Every random access
//   is in shared memory. A pass counts labels by shared atomics, then ranks 32 consecutive
//   samples at a time (a ballot per label bit), warp w owning the w-th part of the node, so
//   the scatter is stable and the result the reference's whatever the launch shape.
// - One thread per permutation (bucket_column_kernel, launch_bucket_columns) walks the nodes
//   (bucket_column(), the same code as the CPU's test of it) on a column of the interleaved
//   batch, with a column of scratch: Philox's rows where the pass kernels do not serve
//   (parallel-shuffle=0, or buckets too large for the GPU's shared memory:
//   bucket_rows_fit); instantiated for every generator with independent words, whose
//   canonical order (OneStream) the engine does not use yet (docs/bucket-shuffle.md).
// A node that the kernels cannot hold (a depth-1 node above pass 2's room, a depth-2 node
// above L, a non-leaf node below depth 2) is counted in BucketRoom::overflow and its row is
// not the permutation: the backends check the count after each round and report an error
// (Error{Device}), never a result. With the engine's parameters such a node is over 12
// (room) or 20 (L) standard deviations above its mean up to 2^25 samples.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "check.cuh"
#include "common/error.hpp"
#include "device_buffer.cuh"
#include "permutation/bucket_plan.hpp"
#include "permutation/bucket_shuffle.hpp"
#include "rng/generators.hpp"
#include "rng/stream_set.hpp"

namespace ea {

// Phase timers for bucket_shuffle_bench (scripts/bucket_shuffle.cu, built with
// -DEA_BUCKET_PROFILE): thread 0 of each block adds the clock cycles since its last mark to
// g_bucket_profile[k] after each phase's barrier (pass 2: 0 count, 1 scan, 2 scatter, 3
// leaves, 4 write-back; pass 1: 8, 9, 10). Not built into the engine.
#ifdef EA_BUCKET_PROFILE
__device__ unsigned long long g_bucket_profile[16];
#define EA_BUCKET_MARK_START long long profile_t = clock64();
#define EA_BUCKET_MARK(k)                                                                           \
  do {                                                                                              \
    if (threadIdx.x == 0) {                                                                         \
      const long long t_ = clock64();                                                               \
      atomicAdd(&g_bucket_profile[k], static_cast<unsigned long long>(t_ - profile_t));             \
      profile_t = t_;                                                                               \
    }                                                                                               \
  } while (0)
#else
#define EA_BUCKET_MARK_START
#define EA_BUCKET_MARK(k) \
  do {                    \
  } while (0)
#endif

// Pass 1's blocks have kBucketThreads threads; pass 2's have 1,024 where the GPU's shared
// memory holds their count slots beside the node's room (on an H100/H200 up to about 4.1 x
// 10^7 samples a row), else 512 (bucket_inner_threads): the same permutations either way (a
// stable scatter whatever the launch shape).
constexpr uint32_t kBucketThreads = 512;
constexpr uint32_t kBucketInnerBits = 8;
// A bucket pass's count slots in shared memory, for blocks of T threads (W = T / 32 warps):
// bucket c's count of warp w at c * (W + 1) + w, one pad word a bucket, so that a warp's
// lanes of labels different modulo 32 reach different banks (with a stride of W = 16 words
// they met in two banks: up to 16-way conflicts on every step's update); bucket_cnt_words(K,
// T) words, a whole number of 32 (the scan's share a lane).
__host__ __device__ constexpr uint32_t bucket_cnt_stride(uint32_t t) { return t / 32 + 1; }
__host__ __device__ constexpr uint32_t bucket_cnt_words(uint32_t k, uint32_t t) {
  return (k * bucket_cnt_stride(t) + 31) / 32 * 32;
}
// The block's label and sample staging: 2 x 128 x (32 / B) bytes a warp (one super-step).
__host__ __device__ constexpr uint32_t bucket_lab_bytes(uint32_t b, uint32_t t) { return t / 32 * 2 * 128 * (32 / b); }

// What the bucket kernels keep between launches: the buckets' bounds of pass 1, the count of
// nodes they could not hold, and plan rows.
struct BucketRoom {
  cuda::DeviceBuffer<uint32_t> bounds;  // (2^b0 + 1) words per row
  cuda::DeviceBuffer<uint32_t> overflow = cuda::DeviceBuffer<uint32_t>(1);
  cuda::DeviceBuffer<uint8_t> plan;  // launch_shuffle's plan rows of a sequential generator
  BucketRoom() { EA_CUDA_CHECK(cudaMemset(overflow.get(), 0, sizeof(uint32_t))); }
  // The count to zero, in order on `st` (a backend's stream: a new data set).
  void reset(cudaStream_t st) { EA_CUDA_CHECK(cudaMemsetAsync(overflow.get(), 0, sizeof(uint32_t), st)); }
  // The count since the last call, which resets it: after the work on `st` so far.
  uint32_t take_overflow(cudaStream_t st = nullptr) {
    uint32_t h = 0;
    EA_CUDA_CHECK(cudaMemcpyAsync(&h, overflow.get(), sizeof h, cudaMemcpyDeviceToHost, st));
    EA_CUDA_CHECK(cudaStreamSynchronize(st));
    if (h) reset(st);
    return h;
  }
  // Throws Error{Device} where a node was not held.
  void check(cudaStream_t st = nullptr) {
    if (const uint32_t h = take_overflow(st)) {
      throw Error(ErrorKind::Device, "the GPU's bucket shuffle met " + std::to_string(h) +
                                         " node(s) larger than its kernels hold, so this round's permutations are "
                                         "not the engine's; run with --device cpu (docs/bucket-shuffle.md)");
    }
  }
};

// A node's labels from its Philox node stream (seed, j, depth, start): fill<B>(lab, base, hi)
// puts the labels of samples base .. base + 128 (32 / B) - 1 of the node into the warp's
// lab[], lane l computing Philox block base / (4 per) + l of the node's stream.
// B = 8: a lane's 16 labels are its block's 16 bytes (little-endian, the low field first),
// written by one 16-byte store (lab is 16-byte aligned): 16 byte stores a lane, 4 lanes to
// a bank, kept pass 2 waiting on shared memory (Nsight Compute, H200, session 28).
struct PhiloxNodeLabels {
  uint64_t seed, j;
  uint32_t depth, start;
  template <uint32_t B>
  __device__ __forceinline__ void fill(uint8_t* lab, uint32_t base, uint32_t) const {
    constexpr uint32_t per = 32 / B;
    const uint32_t lane = threadIdx.x & 31;
    const philox4x32_ctr_t w = PhiloxNodeStream::block(seed, j, depth, start, base / (4 * per) + lane);
    if constexpr (B == 8) {
      *reinterpret_cast<uint4*>(lab + lane * 16) = make_uint4(w.v[0], w.v[1], w.v[2], w.v[3]);
    } else {
#pragma unroll
      for (uint32_t t = 0; t < 4; ++t) {
#pragma unroll
        for (uint32_t f = 0; f < per; ++f)
          lab[lane * 4 * per + t * per + f] = static_cast<uint8_t>(label_field(w.v[t], f, B));
      }
    }
  }
};
// A node's labels read from a plan row (src/permutation/bucket_plan.hpp): `at` is the node's
// first label; 32 consecutive a warp instruction.
struct PlanNodeLabels {
  const uint8_t* at;
  template <uint32_t B>
  __device__ __forceinline__ void fill(uint8_t* lab, uint32_t base, uint32_t hi) const {
    constexpr uint32_t per = 32 / B;
    const uint32_t lane = threadIdx.x & 31;
#pragma unroll
    for (uint32_t i = 0; i < 4 * per; ++i) {
      const uint32_t e = base + i * 32 + lane;
      if (e < hi) lab[i * 32 + lane] = at[e];
    }
  }
};

// The labels of super-step `base` (128 per consecutive samples of the node, per = 32 / B)
// into the warp's lab[] from `labels`; with kValues also the samples below hi into val[],
// loaded 32 consecutive a warp instruction (a lane's 16 consecutive samples, as before
// session 35, took 16 sectors a load: 89% of pass 2's global sectors were excess, Nsight
// Compute).
template <uint32_t B, bool kValues, class Labels, class Load>
__device__ __forceinline__ void bucket_super_labels(uint8_t* lab, uint8_t* val, const Labels& labels, uint32_t base,
                                                    uint32_t hi, Load load) {
  constexpr uint32_t per = 32 / B;
  const uint32_t lane = threadIdx.x & 31;
  if constexpr (kValues) {
#pragma unroll
    for (uint32_t i = 0; i < 4 * per; ++i) {
      const uint32_t e = base + i * 32 + lane;
      if (e < hi) val[i * 32 + lane] = load(e);
    }
  }
  labels.template fill<B>(lab, base, hi);
  __syncwarp();
}

// fisher_yates(a, n, 1, PhiloxNodeStream(seed, j, depth, start)): the same draws and swaps,
// four steps a Philox block, the next block computed while the current four swaps wait on
// shared memory; where a word might be rejected (probability below n / 2^32) the rest is
// drawn by the exact method from that word on.
__device__ __forceinline__ void bucket_leaf(uint8_t* a, uint32_t n, uint64_t seed, uint64_t j, uint32_t depth,
                                            uint32_t start) {
  if (n < 2) return;
  uint32_t i = n - 1;
  uint64_t b = 0;
  philox4x32_ctr_t w = PhiloxNodeStream::block(seed, j, depth, start, b++);
  while (i >= 4) {
    const philox4x32_ctr_t wn = PhiloxNodeStream::block(seed, j, depth, start, b);
    bool maybe = false;
    uint32_t r[4];
#pragma unroll
    for (uint32_t k = 0; k < 4; ++k) r[k] = bounded_attempt(w.v[k], i - k, maybe);
    if (maybe) break;
#pragma unroll
    for (uint32_t k = 0; k < 4; ++k) {
      const uint8_t t = a[i - k];
      a[i - k] = a[r[k]];
      a[r[k]] = t;
    }
    i -= 4;
    w = wn;
    ++b;
  }
  PhiloxNodeStream rng(seed, j, depth, start, b, w, 0);  // (the exact draws from block b - 1's first word)
  for (; i >= 1; --i) {
    const uint32_t r = rng.bounded(i);
    const uint8_t t = a[i];
    a[i] = a[r];
    a[r] = t;
  }
}

// The valid lanes whose label equals this lane's: one ballot per label bit.
template <uint32_t B>
__device__ __forceinline__ uint32_t bucket_warp_peers(uint32_t c, bool valid) {
  uint32_t peers = __ballot_sync(0xffffffffu, valid);
  // One predicate a bit serves the vote and the select: written in C++ (`bit ? set : ~set`),
  // ptxas derived the two apart, 7 instructions a bit; this way it takes the label's bits into
  // predicates at once (R2P) and 3 a bit. With the slot written by the group's last lane
  // (bucket_node_pass): pass 2's scatter 52.0 -> 36.4 ms, 10,000 rows of 10^6 133.1 -> 116.0 ms
  // on an H200 (session 55, docs/bucket-shuffle.md). volatile: the
  // full-mask vote must stay where every lane of the warp runs it (the PTX is the same).
#pragma unroll
  for (uint32_t i = 0; i < B; ++i) {
    uint32_t set, rep;
    asm volatile("{\n\t.reg .pred p;\n\t.reg .b32 t;\n\t"
        "and.b32 t, %2, %3;\n\tsetp.ne.u32 p, t, 0;\n\t"
        "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\tselp.b32 %1, -1, 0, p;\n\t}"
        : "=r"(set), "=r"(rep)
        : "r"(c), "r"(1u << i));
    peers &= ~(set ^ rep);  // the lanes whose bit i equals this lane's
  }
  return peers;
}

// One bucket pass over node (depth, start) of m samples of permutation j by a block of T
// threads: load(e) gives sample e, store(p, v) puts v at place p of the node's output;
// bound[0..K] receives the buckets' first places. Shared: cnt (bucket_cnt_words(K, T)
// words), lab_all (bucket_lab_bytes(B, T) bytes). Warp w owns the w-th of T / 32 equal
// parts of the node (in whole super-steps). The counts are shared-memory atomics, one a
// sample (their order does not matter; session 35: pass 2's counting 47.9 -> 12.6 ms of
// 10,000 rows on an H200); the scatter ranks 32 samples at a time by one ballot per label
// bit, lanes of one label in lane order, so it is stable.
template <uint32_t B, uint32_t T, class Labels, class Load, class Store>
__device__ void bucket_node_pass(uint32_t m, const Labels& labels, Load load, Store store, uint32_t* cnt,
                                 uint8_t* lab_all, uint32_t* bound, uint32_t mark = 0) {
  EA_BUCKET_MARK_START
  constexpr uint32_t K = 1u << B, per = 32 / B, SS = 128 * per, kW = T / 32, kS = bucket_cnt_stride(T),
                     kWords = bucket_cnt_words(K, T);
  const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  uint8_t* lab = lab_all + w * 2 * SS;
  uint8_t* val = lab + SS;
  const uint32_t chunk = ((m + kW - 1) / kW + SS - 1) / SS * SS;
  const uint32_t lo = m < w * chunk ? m : w * chunk, hi = m < lo + chunk ? m : lo + chunk;
  for (uint32_t i = threadIdx.x; i < kWords; i += T) cnt[i] = 0;
  __syncthreads();
  for (uint32_t base = lo; base < hi; base += SS) {  // counts
    bucket_super_labels<B, false>(lab, val, labels, base, hi, load);
    for (uint32_t s = 0; s < SS && base + s < hi; s += 32) {
      if (base + s + lane < hi) atomicAdd(&cnt[lab[s + lane] * kS + w], 1u);
    }
    __syncwarp();  // (every lane's reads of lab before the next super-step's labels)
  }
  __syncthreads();
  EA_BUCKET_MARK(mark);
  if (w == 0) {  // exclusive scan of cnt, bucket-major (the pads hold 0): warp 0, E entries a lane
    constexpr uint32_t E = kWords / 32;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < E; ++i) sum += cnt[lane * E + i];
    uint32_t incl = sum;
    for (uint32_t o = 1; o < 32; o <<= 1) {
      const uint32_t v = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += v;
    }
    uint32_t run = incl - sum;
    for (uint32_t i = 0; i < E; ++i) {
      const uint32_t v = cnt[lane * E + i];
      cnt[lane * E + i] = run;
      run += v;
    }
  }
  __syncthreads();
  for (uint32_t c = threadIdx.x; c < K; c += T) bound[c] = cnt[c * kS];
  if (threadIdx.x == 0) bound[K] = m;
  __syncthreads();
  EA_BUCKET_MARK(mark + 1);
  for (uint32_t base = lo; base < hi; base += SS) {  // the stable scatter
    bucket_super_labels<B, true>(lab, val, labels, base, hi, load);
    for (uint32_t s = 0; s < SS && base + s < hi; s += 32) {
      const bool valid = base + s + lane < hi;
      const uint32_t c = valid ? lab[s + lane] : 0u;
      const uint32_t peers = bucket_warp_peers<B>(c, valid);
      // The group's last lane writes the slot's next value from the value every lane of the
      // group read before the barrier (no second read of the slot).
      const bool last = (31 - __clz(peers)) == static_cast<int>(lane);
      uint32_t* slot = &cnt[c * kS + w];
      const uint32_t at = valid ? *slot : 0u;
      if (valid) store(at + __popc(peers & ((1u << lane) - 1u)), val[s + lane]);
      __syncwarp();
      if (valid && last) *slot = at + __popc(peers);
      __syncwarp();
    }
  }
  __syncthreads();
  EA_BUCKET_MARK(mark + 2);
}

// plan_leaf: the leaf's swaps by its drawn targets (bucket_plan.hpp: target k of step
// i = m - 1 - k), read from global memory (L1/L2), the swaps in shared memory. A target is
// at most i in a plan whose walk succeeded; the min keeps a row whose walk failed (counted
// as overflow: an error, never a result) inside the node instead of past shared memory.
__device__ __forceinline__ void plan_leaf(uint8_t* a, uint32_t m, const uint16_t* __restrict__ t) {
  for (uint32_t k = 0; k + 1 < m; ++k) {
    const uint32_t i = m - 1 - k, r = min(static_cast<uint32_t>(t[k]), i);
    const uint8_t v = a[i];
    a[i] = a[r];
    a[r] = v;
  }
}

// Where the pass kernels' rows get their labels and leaves (row q of a launch):
// - PhiloxRowSource: the node streams of Philox permutation first + q (computed in the
//   kernels);
// - PlanRowSource: plan row q (bucket_plan.hpp, drawn ahead by draw_bucket_plan_kernel for
//   a sequential generator; rows bucket_plan_bytes(n) apart).
struct PhiloxRowSource {
  uint64_t seed, first;
  __device__ PhiloxNodeLabels labels(uint32_t q, uint32_t depth, uint32_t start) const {
    return PhiloxNodeLabels{seed, first + q, depth, start};
  }
  __device__ void leaf(uint8_t* a, uint32_t m, uint32_t q, uint32_t depth, uint32_t start) const {
    bucket_leaf(a, m, seed, first + q, depth, start);
  }
};
struct PlanRowSource {
  const uint8_t* plan;
  size_t stride;  // bucket_plan_stride(n)
  __device__ const uint8_t* row(uint32_t q) const { return plan + 4 * stride * q; }
  __device__ PlanNodeLabels labels(uint32_t q, uint32_t depth, uint32_t start) const {
    return PlanNodeLabels{row(q) + (depth == 0 ? 0 : stride) + start};
  }
  __device__ void leaf(uint8_t* a, uint32_t m, uint32_t q, uint32_t, uint32_t start) const {
    plan_leaf(a, m, reinterpret_cast<const uint16_t*>(row(q) + 2 * stride) + start);
  }
};

// Pass 1: rows q = blockIdx.x, + gridDim.x, ... < count; row q = the root pass of
// src's row q from the unshuffled symbols; its buckets' bounds at bounds[q (K + 1) ..].
template <uint32_t B, class Src>
__global__ void __launch_bounds__(kBucketThreads)
    bucket_root_kernel(uint8_t* rows, const uint8_t* __restrict__ symbols, uint32_t n, Src src, uint32_t count,
                       uint32_t* bounds) {
  constexpr uint32_t K = 1u << B;
  __shared__ uint32_t cnt[bucket_cnt_words(K, kBucketThreads)], bound[K + 1];
  __shared__ __align__(16) uint8_t lab[bucket_lab_bytes(B, kBucketThreads)];
  for (uint32_t q = blockIdx.x; q < count; q += gridDim.x) {
    uint8_t* row = rows + static_cast<size_t>(q) * n;
    bucket_node_pass<B, kBucketThreads>(
        n, src.labels(q, 0, 0), [&](uint32_t e) { return symbols[e]; },
        [&](uint32_t p, uint8_t v) { row[p] = v; }, cnt, lab, bound, 8);
    for (uint32_t c = threadIdx.x; c <= K; c += kBucketThreads) bounds[static_cast<size_t>(q) * (K + 1) + c] = bound[c];
    __syncthreads();
  }
}

// Pass 2 (blocks of T threads): buckets t = blockIdx.x, + gridDim.x, ... of rows 0 .. count-1
// (t = q K0 + c): the depth-1 node in shared memory (cap bytes), its inner pass and leaves
// (src.leaf: a thread a leaf), back to the row. Dynamic shared memory: the count slots,
// the labels, then the node (bucket_inner_extra(T) + cap bytes).
template <uint32_t B0, uint32_t T, class Src>
__global__ void __launch_bounds__(T)
    bucket_inner_kernel(uint8_t* rows, uint32_t n, Src src, uint32_t count, const uint32_t* __restrict__ bounds,
                        uint32_t cap, uint32_t leaf, uint32_t* overflow) {
  constexpr uint32_t K0 = 1u << B0, K = 1u << kBucketInnerBits;
  extern __shared__ __align__(16) uint8_t bucket_smem[];
  __shared__ uint32_t bound[K + 1];
  uint32_t* cnt = reinterpret_cast<uint32_t*>(bucket_smem);
  uint8_t* lab = bucket_smem + bucket_cnt_words(K, T) * 4;
  uint8_t* buf = lab + bucket_lab_bytes(kBucketInnerBits, T);
  for (uint32_t t = blockIdx.x; t < count * K0; t += gridDim.x) {
    const uint32_t q = t / K0, c0 = t % K0;
    const uint32_t s = bounds[static_cast<size_t>(q) * (K0 + 1) + c0];
    const uint32_t m = bounds[static_cast<size_t>(q) * (K0 + 1) + c0 + 1] - s;
    uint8_t* node = rows + static_cast<size_t>(q) * n + s;
    if (m < 2) continue;
    if (m > cap) {
      if (threadIdx.x == 0) atomicAdd(overflow, 1u);
      continue;
    }
    if (m <= leaf) {  // a leaf at depth 1
      for (uint32_t e = threadIdx.x; e < m; e += T) buf[e] = node[e];
      __syncthreads();
      if (threadIdx.x == 0) src.leaf(buf, m, q, 1, s);
    } else {
      bucket_node_pass<kBucketInnerBits, T>(
          m, src.labels(q, 1, s), [&](uint32_t e) { return node[e]; }, [&](uint32_t p, uint8_t v) { buf[p] = v; }, cnt,
          lab, bound, 0);
      EA_BUCKET_MARK_START
      for (uint32_t c = threadIdx.x; c < K; c += T) {
        const uint32_t size = bound[c + 1] - bound[c];
        if (size < 2) continue;
        if (size > leaf) {  // a depth-2 node that is no leaf
          atomicAdd(overflow, 1u);
          continue;
        }
        src.leaf(buf + bound[c], size, q, 2, s + bound[c]);
      }
#ifdef EA_BUCKET_PROFILE
      __syncthreads();
      EA_BUCKET_MARK(3);
#endif
    }
    __syncthreads();
    EA_BUCKET_MARK_START
    for (uint32_t e = threadIdx.x; e < m; e += T) node[e] = buf[e];
    __syncthreads();
    EA_BUCKET_MARK(4);
  }
}

// Pass 2's dynamic shared memory besides the node's room, for blocks of T threads: the count
// slots and the labels.
__host__ __device__ constexpr uint32_t bucket_inner_extra(uint32_t t) {
  return bucket_cnt_words(1u << kBucketInnerBits, t) * 4 + bucket_lab_bytes(kBucketInnerBits, t);
}

// Pass 2's room for a depth-1 node of a row of n samples: its mean plus 12 standard
// deviations, in whole 16 bytes.
inline uint32_t bucket_inner_room(uint32_t n, uint32_t b0) {
  const double mean = static_cast<double>(n) / (1u << b0);
  const double sd = std::sqrt(mean * (1.0 - 1.0 / (1u << b0)));
  return std::min<uint32_t>(n, static_cast<uint32_t>(mean + 12 * sd + 64) / 16 * 16 + 16);
}

// The dynamic shared memory pass 2 may have on the current device: all that its static
// part leaves of the opt-in maximum (set once as the kernel's attribute: a value that does
// not depend on n, so threads launching rows of different lengths do not race; the row
// sources' kernels have the same static part).
template <uint32_t B0, uint32_t T>
inline size_t bucket_inner_shared_max() {
  int device = 0, optin = 0;
  EA_CUDA_CHECK(cudaGetDevice(&device));
  EA_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attr{};
  EA_CUDA_CHECK(cudaFuncGetAttributes(&attr, bucket_inner_kernel<B0, T, PhiloxRowSource>));
  return static_cast<size_t>(optin) > attr.sharedSizeBytes ? static_cast<size_t>(optin) - attr.sharedSizeBytes : 0;
}

// Pass 2's block size for rows of n samples: 1,024 threads where their count slots fit
// beside the node (32 warps hide the ranking's latency better: 2.5-6% of 10,000 rows on an
// H200, session 35), else 512, else 0 (the pass kernels do not serve such rows).
template <uint32_t B0>
inline uint32_t bucket_inner_threads(uint32_t n) {
  const uint32_t cap = bucket_inner_room(n, B0);
  if (cap + bucket_inner_extra(1024) <= bucket_inner_shared_max<B0, 1024>()) return 1024;
  if (cap + bucket_inner_extra(512) <= bucket_inner_shared_max<B0, 512>()) return 512;
  return 0;
}

// Calls f(std::integral_constant<uint32_t, b0>) for the engine's b0 of rows of n samples.
template <class F>
inline void visit_root_bits(size_t n, F&& f) {
  switch (engine_bucket_params(n).root_bits) {
    case 3: f(std::integral_constant<uint32_t, 3>{}); break;
    case 4: f(std::integral_constant<uint32_t, 4>{}); break;
    case 5: f(std::integral_constant<uint32_t, 5>{}); break;
    case 6: f(std::integral_constant<uint32_t, 6>{}); break;
    case 7: f(std::integral_constant<uint32_t, 7>{}); break;
    default: f(std::integral_constant<uint32_t, 8>{}); break;
  }
}

// Whether the pass kernels can shuffle rows of n samples on the current device: pass 2's
// room for a depth-1 node in one block's shared memory (H100/H200: up to about 4.9 x 10^7
// samples; GPUs with 99 KB a block, such as sm_86/89, not at 10^6). Where they cannot, the
// backends shuffle such rows by one thread per column (launch_bucket_columns): the same
// permutations.
inline bool bucket_rows_fit(size_t n) {
  if (n >= (size_t{1} << 32)) return false;
  bool fit = false;
  visit_root_bits(n, [&](auto b0) { fit = bucket_inner_threads<decltype(b0)::value>(static_cast<uint32_t>(n)) != 0; });
  return fit;
}

template <uint32_t B0, uint32_t T, class Src>
inline void launch_bucket_inner(uint8_t* rows, uint32_t n, const Src& src, uint32_t m, BucketRoom& room, int sms,
                                cudaStream_t st) {
  constexpr uint32_t K0 = 1u << B0;
  const uint32_t cap = bucket_inner_room(n, B0);
  const size_t shared = cap + bucket_inner_extra(T);
  const auto kernel = bucket_inner_kernel<B0, T, Src>;
  EA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(bucket_inner_shared_max<B0, T>())));
  int per_sm = 0;
  EA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T, shared));
  const uint64_t tasks = static_cast<uint64_t>(m) * K0;
  const uint32_t grid = static_cast<uint32_t>(std::min<uint64_t>(tasks, static_cast<uint64_t>(std::max(per_sm, 1)) * sms));
  kernel<<<grid, T, shared, st>>>(rows, n, src, m, room.bounds.get(), cap, engine_bucket_params(n).leaf,
                                  room.overflow.get());
  EA_CUDA_CHECK(cudaGetLastError());
}

template <uint32_t B0, class Src>
inline void launch_bucket_rows_b(BucketRoom& room, uint8_t* rows, const uint8_t* symbols, uint32_t n, const Src& src,
                                 uint32_t m, cudaStream_t st, uint32_t inner_threads) {
  const uint32_t fit = bucket_inner_threads<B0>(n);
  const uint32_t threads = inner_threads == 512 && fit ? 512 : fit;
  if (threads == 0) {  // (the callers ask bucket_rows_fit first)
    throw Error(ErrorKind::Internal, "rows of " + std::to_string(n) + " samples given to the bucket pass kernels, "
                                         "whose buckets do not fit this GPU's shared memory");
  }
  constexpr uint32_t K0 = 1u << B0;
  int device = 0, sms = 0;
  EA_CUDA_CHECK(cudaGetDevice(&device));
  EA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const size_t words = static_cast<size_t>(m) * (K0 + 1);
  if (room.bounds.size() < words && !cuda::DeviceBuffer<uint32_t>::try_allocate(words, room.bounds)) {
    throw Error(ErrorKind::Device, "GPU out of memory for the bucket shuffle's bounds");
  }
  int per_sm1 = 0;
  EA_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm1, bucket_root_kernel<B0, Src>, kBucketThreads, 0));
  const uint32_t grid1 = std::min<uint32_t>(m, static_cast<uint32_t>(std::max(per_sm1, 1) * sms));
  bucket_root_kernel<B0, Src><<<grid1, kBucketThreads, 0, st>>>(rows, symbols, n, src, m, room.bounds.get());
  EA_CUDA_CHECK(cudaGetLastError());
  if (threads == 1024) {
    launch_bucket_inner<B0, 1024>(rows, n, src, m, room, sms, st);
  } else {
    launch_bucket_inner<B0, 512>(rows, n, src, m, room, sms, st);
  }
}

// Rows 0 .. m-1 of `rows` (n bytes each, n above L) become the permutations of src's rows
// 0 .. m-1 by the engine's bucket shuffle (Src: PhiloxRowSource or PlanRowSource).
// inner_threads: 0, pass 2's block size by bucket_inner_threads; 512, that size wherever the
// kernels serve the rows (the tests' check of the 512-thread kernels on a GPU that would
// take 1,024).
template <class Src>
inline void launch_bucket_src_rows(BucketRoom& room, uint8_t* rows, const uint8_t* symbols, size_t n, const Src& src,
                                   uint32_t m, cudaStream_t st, uint32_t inner_threads = 0) {
  if (m == 0) return;
  if (n >= (size_t{1} << 32)) throw Error(ErrorKind::Device, "rows of 2^32 samples or more: run with --device cpu");
  visit_root_bits(n, [&](auto b0) {
    launch_bucket_rows_b<decltype(b0)::value>(room, rows, symbols, static_cast<uint32_t>(n), src, m, st, inner_threads);
  });
}

// Rows 0 .. m-1 of `rows` (n bytes each, n above L) become permutations first .. first+m-1
// of the Philox streams under `seed`, by the engine's bucket shuffle.
inline void launch_bucket_rows(BucketRoom& room, uint8_t* rows, const uint8_t* symbols, size_t n, uint64_t seed,
                               uint64_t first, uint32_t m, cudaStream_t st, uint32_t inner_threads = 0) {
  launch_bucket_src_rows(room, rows, symbols, n, PhiloxRowSource{seed, first}, m, st, inner_threads);
}

// A device sink of bucket_plan_walk: each of the plan's three arrays written 16 bytes at a
// time (its places only increase, so each chunk is stored once: the part of a chunk that
// no node of this array covers holds garbage that nothing reads).
template <class T>
struct PlanChunkWriter {
  T* base;  // 16-byte aligned
  uint32_t chunk = 0xffffffffu;
  uint32_t w0 = 0, w1 = 0, w2 = 0, w3 = 0;  // (named words: an array here went to local memory)
  __device__ __forceinline__ void put(uint32_t pos, uint32_t v) {
    constexpr uint32_t per = 16 / sizeof(T), bits = 8 * sizeof(T);
    const uint32_t c = pos / per;
    if (c != chunk) {
      flush();
      chunk = c;
    }
    const uint32_t byte = (pos % per) * sizeof(T), sh = (byte & 3) * 8, k = byte >> 2;
    const uint32_t mask = ((1u << bits) - 1u) << sh, x = v << sh;
    w0 = k == 0 ? (w0 & ~mask) | x : w0;
    w1 = k == 1 ? (w1 & ~mask) | x : w1;
    w2 = k == 2 ? (w2 & ~mask) | x : w2;
    w3 = k == 3 ? (w3 & ~mask) | x : w3;
  }
  __device__ __forceinline__ void flush() const {
    if (chunk != 0xffffffffu) reinterpret_cast<uint4*>(base)[chunk] = make_uint4(w0, w1, w2, w3);
  }
};
struct PlanDeviceSink {
  PlanChunkWriter<uint8_t> l0, l1;
  PlanChunkWriter<uint16_t> t;
  __device__ void lab0(uint32_t e, uint32_t l) { l0.put(e, l); }
  __device__ void lab1(uint32_t e, uint32_t l) { l1.put(e, l); }
  __device__ void tgt(uint32_t e, uint32_t r) { t.put(e, r); }
};

// Thread q: plan row q (bucket_plan_bytes(n) bytes from `plan`) of permutation first + q of
// a sequential generator G, by bucket_plan_walk (one thread per permutation: the walk is the
// chain of the generator's state; a warp a block, its counts in shared memory). A row whose walk fails (a depth-2 node above L) is
// counted in `overflow`: its row is not the permutation, and the backends report an error.
template <class G>
__global__ void __launch_bounds__(32) draw_bucket_plan_kernel(uint8_t* plan, uint32_t n, uint32_t rows,
                                                              StreamSetView streams, uint64_t first, uint32_t* overflow) {
  extern __shared__ uint32_t counts[];  // [label][lane]: the root's 2^b0, then a depth-1 node's 256
  const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= rows) return;
  const size_t stride = bucket_plan_stride(n);
  uint8_t* row = plan + 4 * stride * q;
  PlanDeviceSink sink{{row}, {row + stride}, {reinterpret_cast<uint16_t*>(row + 2 * stride)}};
  G g = G::make(streams, first + q);
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t k0 = 1u << engine_bucket_params(n).root_bits;
  const bool ok = bucket_plan_walk(g, n, sink, counts + lane, counts + k0 * 32 + lane, 32);
  sink.l0.flush();
  sink.l1.flush();
  sink.t.flush();
  if (!ok) atomicAdd(overflow, 1u);
}

// Plan rows 0 .. rows-1 of permutations first .. of the sequential generator of `streams`
// (engine_uses_buckets, not Philox) into `plan` (rows x bucket_plan_bytes(n) bytes, 16-byte
// aligned), n above L.
inline void launch_draw_plan(const StreamSetView& streams, uint8_t* plan, size_t n, uint64_t first, uint32_t rows,
                             BucketRoom& room, cudaStream_t st) {
  if (rows == 0) return;
  visit_generator(streams.id, [&](auto tag) {
    using G = decltype(tag);
    if constexpr (!G::kGrouped && !std::is_same_v<G, PhiloxGen> && !std::is_same_v<G, SobolStream>) {
      const size_t shared = ((size_t{1} << engine_bucket_params(n).root_bits) + 256) * 32 * sizeof(uint32_t);
      EA_CUDA_CHECK(cudaFuncSetAttribute(draw_bucket_plan_kernel<G>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         2 * 256 * 32 * sizeof(uint32_t)));
      draw_bucket_plan_kernel<G><<<(rows + 31) / 32, 32, shared, st>>>(plan, static_cast<uint32_t>(n), rows, streams,
                                                                       first, room.overflow.get());
    } else {
      throw Error(ErrorKind::Internal, "a bucket plan asked of a generator without one");
    }
  });
  EA_CUDA_CHECK(cudaGetLastError());
}

// Thread q: column q of the interleaved batch (sample i at batch[i * stride + q]) becomes
// permutation first + q of G's streams, by bucket_column() with scratch column q of `out`
// (sample i at out[i * out_stride + q]).
template <class G>
__global__ void bucket_column_kernel(uint8_t* batch, size_t stride, uint32_t count, uint8_t* out, size_t out_stride,
                                     const uint8_t* __restrict__ symbols, uint32_t n, StreamSetView streams,
                                     uint64_t first, uint32_t* overflow) {
  const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= count) return;
  const BucketParams p = engine_bucket_params(n);
  bool ok = false;
  if constexpr (std::is_same_v<G, PhiloxGen>) {
    const PhiloxNodes s{streams.seed, first + q};
    ok = bucket_column(batch + q, stride, out + q, out_stride, symbols, n, p, s);
  } else {
    G g = G::make(streams, first + q);
    const OneStream<G> s{g};
    ok = bucket_column(batch + q, stride, out + q, out_stride, symbols, n, p, s);
  }
  if (!ok) atomicAdd(overflow, 1u);
}

// Columns 0 .. count-1 of the batch become permutations first .. first+count-1 of a
// non-grouped generator by bucket_column_kernel, `block` threads a block; `scratch` holds
// (or is given) the scratch columns, as many at a time as it can hold (at least 32).
inline void launch_bucket_columns(BucketRoom& room, cuda::DeviceBuffer<uint8_t>& scratch, int block, uint8_t* batch,
                                  size_t stride, uint32_t count, const uint8_t* symbols, size_t n,
                                  const StreamSetView& streams, uint64_t first, cudaStream_t st) {
  if (count == 0) return;
  if (n >= (size_t{1} << 32)) throw Error(ErrorKind::Device, "rows of 2^32 samples or more: run with --device cpu");
  const size_t want = static_cast<size_t>(count) * n;
  if (scratch.size() < want) (void)cuda::DeviceBuffer<uint8_t>::try_allocate(want, scratch);
  uint32_t chunk = static_cast<uint32_t>(std::min<size_t>(count, scratch.size() / n));
  if (chunk < std::min<uint32_t>(count, 32)) {
    if (!cuda::DeviceBuffer<uint8_t>::try_allocate(std::min<size_t>(count, 32) * n, scratch)) {
      throw Error(ErrorKind::Device, "GPU out of memory for the bucket shuffle's scratch columns");
    }
    chunk = std::min<uint32_t>(count, 32);
  }
  for (uint32_t c0 = 0; c0 < count; c0 += chunk) {
    const uint32_t m = std::min(chunk, count - c0);
    const unsigned blocks = (m + block - 1) / block;
    visit_generator(streams.id, [&](auto tag) {
      using G = decltype(tag);
      if constexpr (!G::kGrouped) {
        bucket_column_kernel<G><<<blocks, block, 0, st>>>(batch + c0, stride, m, scratch.get(), m, symbols,
                                                          static_cast<uint32_t>(n), streams, first + c0,
                                                          room.overflow.get());
      }
    });
    EA_CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace ea
