// GPU prototype of the bucket shuffle (docs/bucket-shuffle.md, issue 48 item 1): PERMS
// permutations of N bytes with Philox labels, checked byte for byte against the CPU
// reference (src/permutation/bucket_shuffle.hpp) and timed beside today's shuffle by
// reservations (cuda/parallel_shuffle.cuh) on the same card.
//
// Pass 1 (root_pass_kernel, a block per row): labels of b0 bits from stream j's words, a
// stable scatter of the row into its 2^b0 buckets in global memory. Pass 2
// (bucket_pass_kernel, a block per bucket): the bucket read once into shared memory by a
// stable scatter on 8-bit labels of its own Philox stream (depth 1), then its 256 buckets
// (about 244 samples for b0 = 4 at N = 10^6) each shuffled by one thread, Fisher-Yates
// on the depth-2 node's stream, and the bucket written back. A warp ranks 32 consecutive
// samples at a time (a ballot per label bit), warp w owning the w-th sixteenth of the node, so
// the scatter is stable and the result the reference's whatever the launch shape.
//
// build: nvcc -O3 -arch=sm_90 -std=c++17 -I src -I /usr/include scripts/bucket_shuffle.cu -o bs
// usage: bs [PERMS [N [B0...]]]   (default 10000 1000000, b0 = 3 4 5 6)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../cuda/parallel_shuffle.cuh"
#include "bench_check.cuh"
#include "permutation/bucket_shuffle.hpp"

using namespace ea;

constexpr uint32_t kThreads = 512, kWarps = kThreads / 32;
constexpr uint32_t kInnerBits = 8, kLeaf = 1024;

// The labels of super-step `base` (128 per consecutive samples of the node, per = 32 / b) into
// the warp's lab[]: lane l computes Philox block base / (4 per) + l of the node's stream; with
// kValues also the samples below hi into val[] (all of a lane's loads in flight at once: loaded
// one warp step at a time, each step waited a full memory latency).
template <uint32_t B, bool kValues, class Load>
__device__ __forceinline__ void super_labels(uint8_t* lab, uint8_t* val, uint64_t seed, uint64_t j, uint32_t depth,
                                             uint32_t start, uint32_t base, uint32_t hi, Load load) {
  constexpr uint32_t per = 32 / B;
  const uint32_t lane = threadIdx.x & 31;
  if constexpr (kValues) {
#pragma unroll
    for (uint32_t i = 0; i < 4 * per; ++i) {
      const uint32_t e = base + lane * 4 * per + i;
      if (e < hi) val[lane * 4 * per + i] = load(e);
    }
  }
  const philox4x32_ctr_t w = PhiloxNodeStream::block(seed, j, depth, start, base / (4 * per) + lane);
#pragma unroll
  for (uint32_t t = 0; t < 4; ++t) {
#pragma unroll
    for (uint32_t f = 0; f < per; ++f) lab[lane * 4 * per + t * per + f] = static_cast<uint8_t>(label_field(w.v[t], f, B));
  }
  __syncwarp();
}

// The lanes whose label equals this lane's, among the valid ones: one ballot per label bit
// (__match_any_sync took time in proportion to the distinct labels of a step: pass 1 grew
// from 61 to 192 ms between k = 8 and 64, and pass 2's 256 inner buckets took 200 ms).
template <uint32_t B>
__device__ __forceinline__ uint32_t warp_peers(uint32_t c, bool valid) {
  uint32_t peers = __ballot_sync(0xffffffffu, valid);
#pragma unroll
  for (uint32_t i = 0; i < B; ++i) {
    const bool bit = (c >> i) & 1u;
    const uint32_t set = __ballot_sync(0xffffffffu, bit);
    peers &= bit ? set : ~set;
  }
  return peers;
}

// One bucket pass over a node of m samples by the whole block: load(e) gives sample e,
// store(p, v) puts v at place p of the node's output; bound[0..K] receives the buckets'
// first places. Shared: cnt (K x kWarps words), lab (kWarps x 2 x 128 per bytes: labels, samples).
template <uint32_t B, class Load, class Store>
__device__ void node_pass(uint32_t m, uint64_t seed, uint64_t j, uint32_t depth, uint32_t start, Load load,
                          Store store, uint32_t* cnt, uint8_t* lab_all, uint32_t* bound) {
  constexpr uint32_t K = 1u << B, per = 32 / B, SS = 128 * per;
  const uint32_t lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  uint8_t* lab = lab_all + w * 2 * SS;
  uint8_t* val = lab + SS;
  const uint32_t chunk = ((m + kWarps - 1) / kWarps + SS - 1) / SS * SS;
  const uint32_t lo = m < w * chunk ? m : w * chunk, hi = m < lo + chunk ? m : lo + chunk;
  for (uint32_t i = threadIdx.x; i < K * kWarps; i += kThreads) cnt[i] = 0;
  __syncthreads();
  for (int phase = 0; phase < 2; ++phase) {
    for (uint32_t base = lo; base < hi; base += SS) {
      if (phase == 0) {
        super_labels<B, false>(lab, val, seed, j, depth, start, base, hi, load);
      } else {
        super_labels<B, true>(lab, val, seed, j, depth, start, base, hi, load);
      }
      for (uint32_t s = 0; s < SS && base + s < hi; s += 32) {
        const uint32_t e = base + s + lane;
        const bool valid = e < hi;
        const uint32_t c = valid ? lab[s + lane] : 0u;
        const uint32_t peers = warp_peers<B>(c, valid);
        const bool leader = (__ffs(peers) - 1) == static_cast<int>(lane);
        uint32_t* slot = &cnt[c * kWarps + w];
        if (phase == 1 && valid) store(*slot + __popc(peers & ((1u << lane) - 1u)), val[s + lane]);
        __syncwarp();
        if (valid && leader) *slot += __popc(peers);
        __syncwarp();
      }
    }
    __syncthreads();
    if (phase == 1) break;
    if (w == 0) {  // exclusive scan of cnt, bucket-major: warp 0, K x kWarps / 32 entries a lane
      constexpr uint32_t E = K * kWarps / 32;
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
    for (uint32_t c = threadIdx.x; c < K; c += kThreads) bound[c] = cnt[c * kWarps];
    if (threadIdx.x == 0) bound[K] = m;
    __syncthreads();
  }
}

// Rows q = blockIdx.x, + gridDim.x, ... < count: row q = pass 1 of permutation q; bounds of
// its buckets at bounds[q (K + 1) ..].
template <uint32_t B>
__global__ void __launch_bounds__(kThreads) root_pass_kernel(uint8_t* rows, const uint8_t* __restrict__ symbols,
                                                             uint32_t n, uint64_t seed, uint32_t count,
                                                             uint32_t* bounds, uint32_t mode) {
  constexpr uint32_t K = 1u << B;
  __shared__ uint32_t cnt[K * kWarps], bound[K + 1];
  __shared__ uint8_t lab[kWarps * 2 * 128 * (32 / B)];
  for (uint32_t q = blockIdx.x; q < count; q += gridDim.x) {
    uint8_t* row = rows + static_cast<size_t>(q) * n;
    node_pass<B>(
        n, seed, q, 0, 0, [&](uint32_t e) { return symbols[e]; }, [&](uint32_t p, uint8_t v) {
          if (!(mode & 2)) row[p] = v;
        },
        cnt,
        lab, bound);
    for (uint32_t c = threadIdx.x; c <= K; c += kThreads) bounds[static_cast<size_t>(q) * (K + 1) + c] = bound[c];
    __syncthreads();
  }
}

// Buckets t = blockIdx.x, + gridDim.x, ... of rows 0 .. count-1 (t = q K0 + c): the node at
// depth 1 in shared memory (cap bytes), its inner pass, its leaves, back to the row.
// *fallback counts the nodes this kernel cannot do (larger than cap, or an inner bucket
// above kLeaf: the engine would need a slower path, never met at N = 10^6).
template <uint32_t B0>
__global__ void __launch_bounds__(kThreads) bucket_pass_kernel(uint8_t* rows, uint32_t n, uint64_t seed, uint32_t count,
                                                               const uint32_t* bounds, uint32_t cap,
                                                               uint32_t* fallback, uint32_t mode) {
  constexpr uint32_t K0 = 1u << B0, K = 1u << kInnerBits;
  extern __shared__ uint8_t bucket_smem[];
  __shared__ uint32_t cnt[K * kWarps], bound[K + 1];
  __shared__ uint8_t lab[kWarps * 2 * 128 * (32 / kInnerBits)];
  uint8_t* buf = bucket_smem;
  for (uint32_t t = blockIdx.x; t < count * K0; t += gridDim.x) {
    const uint32_t q = t / K0, c0 = t % K0;
    const uint32_t s = bounds[static_cast<size_t>(q) * (K0 + 1) + c0];
    const uint32_t m = bounds[static_cast<size_t>(q) * (K0 + 1) + c0 + 1] - s;
    uint8_t* node = rows + static_cast<size_t>(q) * n + s;
    if (m < 2) continue;
    if (m > cap) {
      if (threadIdx.x == 0) atomicAdd(fallback, 1u);
      continue;
    }
    if (m <= kLeaf) {  // a leaf at depth 1
      for (uint32_t e = threadIdx.x; e < m; e += kThreads) buf[e] = node[e];
      __syncthreads();
      if (threadIdx.x == 0) {
        PhiloxNodeStream rng(seed, q, 1, s);
        fisher_yates(buf, m, 1, rng);
      }
    } else {
      node_pass<kInnerBits>(
          m, seed, q, 1, s, [&](uint32_t e) { return node[e]; }, [&](uint32_t p, uint8_t v) { buf[p] = v; }, cnt, lab,
          bound);
      for (uint32_t c = threadIdx.x; c < K; c += kThreads) {
        const uint32_t size = bound[c + 1] - bound[c];
        if (size < 2 || (mode & 1)) continue;
        if (size > kLeaf) {
          atomicAdd(fallback, 1u);
          continue;
        }
        PhiloxNodeStream rng(seed, q, 2, s + bound[c]);
        fisher_yates(buf + bound[c], size, 1, rng);
      }
    }
    __syncthreads();
    for (uint32_t e = threadIdx.x; e < m; e += kThreads) node[e] = buf[e];
    __syncthreads();
  }
}

struct Timing {
  float pass1 = 0, pass2 = 0;
  uint32_t fallback = 0;
};

template <uint32_t B0>
Timing run_bucket(uint8_t* rows, const uint8_t* symbols, uint32_t n, uint64_t seed, uint32_t perms, uint32_t* bounds,
                  uint32_t* fallback, int sms, uint32_t mode = 0) {
  constexpr uint32_t K0 = 1u << B0;
  // Room for a depth-1 node: its mean plus 12 standard deviations (never exceeded in practice).
  const double mean = static_cast<double>(n) / K0;
  const uint32_t cap = std::min<uint32_t>(n, static_cast<uint32_t>(mean + 12 * std::sqrt(mean) + 64) / 16 * 16 + 16);
  CHECK(cudaFuncSetAttribute(bucket_pass_kernel<B0>, cudaFuncAttributeMaxDynamicSharedMemorySize, cap));
  int per_sm1 = 0, per_sm2 = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm1, root_pass_kernel<B0>, kThreads, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm2, bucket_pass_kernel<B0>, kThreads, cap));
  CHECK(cudaMemset(fallback, 0, sizeof(uint32_t)));
  cudaEvent_t e0, e1, e2;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventCreate(&e2));
  CHECK(cudaEventRecord(e0));
  root_pass_kernel<B0><<<std::max(per_sm1, 1) * sms, kThreads>>>(rows, symbols, n, seed, perms, bounds, mode);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(e1));
  bucket_pass_kernel<B0><<<std::max(per_sm2, 1) * sms, kThreads, cap>>>(rows, n, seed, perms, bounds, cap, fallback, mode);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(e2));
  CHECK(cudaEventSynchronize(e2));
  Timing t;
  CHECK(cudaEventElapsedTime(&t.pass1, e0, e1));
  CHECK(cudaEventElapsedTime(&t.pass2, e1, e2));
  CHECK(cudaMemcpy(&t.fallback, fallback, sizeof(uint32_t), cudaMemcpyDeviceToHost));
  std::printf("  k = %u: blocks/SM pass1 %d, pass2 %d (shared %u B)\n", K0, per_sm1, per_sm2, cap);
  return t;
}

// Rows `check` of the device's rows equal the CPU reference's permutations.
bool verify(const uint8_t* rows, const std::vector<uint8_t>& symbols, uint64_t seed, const BucketParams& p,
            const std::vector<uint32_t>& check) {
  const size_t n = symbols.size();
  std::vector<uint8_t> got(n), scratch;
  bool ok = true;
  for (uint32_t j : check) {
    CHECK(cudaMemcpy(got.data(), rows + static_cast<size_t>(j) * n, n, cudaMemcpyDeviceToHost));
    std::vector<uint8_t> want = symbols;
    PhiloxNodes s{seed, j};
    bucket_shuffle(want.data(), n, p, s, scratch);
    const bool same = got == want;
    size_t first = 0;
    while (!same && first < n && got[first] == want[first]) ++first;
    std::printf("    row %u: %s", j, same ? "equal to the CPU reference\n" : "DIFFERS at place ");
    if (!same) std::printf("%zu\n", first);
    ok = ok && same;
  }
  return ok;
}

float run_reservations(uint8_t* rows, const uint8_t* symbols, uint32_t n, uint64_t seed, uint32_t perms, int sms) {
  constexpr uint32_t T = kReservationThreads;
  int optin = 0;
  CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  cudaFuncAttributes attr{};
  CHECK(cudaFuncGetAttributes(&attr, reservation_shuffle_kernel<T, true, PhiloxTargets>));
  const size_t used = attr.sharedSizeBytes + reservation_shuffle_shared<T>();
  const uint32_t low = static_cast<uint32_t>((static_cast<size_t>(optin) - used) / 16 * 16);
  const size_t shared = reservation_shuffle_shared<T>() + low;
  CHECK(cudaFuncSetAttribute(reservation_shuffle_kernel<T, true, PhiloxTargets>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventRecord(e0));
  reservation_shuffle_kernel<T, true, PhiloxTargets>
      <<<sms, T, shared>>>(rows, symbols, n, PhiloxTargets{seed, 0}, perms, low);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(e1));
  CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  std::printf("reservations (today's shuffle, low-shared %u B): %.1f ms for %u rows\n", low, ms, perms);
  return ms;
}

template <uint32_t B0>
bool one_k(uint8_t* rows, const uint8_t* d_symbols, const std::vector<uint8_t>& symbols, uint64_t seed,
           uint32_t perms, uint32_t* bounds, uint32_t* fallback, int sms) {
  const uint32_t n = static_cast<uint32_t>(symbols.size());
  Timing t{};
  for (int rep = 0; rep < 3; ++rep) {  // the first is a warm-up
    t = run_bucket<B0>(rows, d_symbols, n, seed, perms, bounds, fallback, sms);
    const float ms = t.pass1 + t.pass2;
    std::printf("  k = %u, run %d: pass 1 %.1f ms, pass 2 %.1f ms, total %.1f ms for %u rows: %.0f permutations/s; "
                "nodes left to a fallback: %u\n",
                1u << B0, rep, t.pass1, t.pass2, ms, perms, perms / (ms / 1000), t.fallback);
  }
  const std::vector<uint32_t> check = {0, 1, perms / 2, perms - 1};
  const bool ok = verify(rows, symbols, seed, BucketParams{B0, kInnerBits, kLeaf}, check) && t.fallback == 0;
  // Where the time goes (wrong rows: timing only): pass 1 without its stores, pass 2
  // without its leaves' Fisher-Yates.
  const Timing d = run_bucket<B0>(rows, d_symbols, n, seed, perms, bounds, fallback, sms, 3);
  std::printf("  k = %u, parts: pass 1 without the stores %.1f ms; pass 2 without the leaves %.1f ms\n", 1u << B0,
              d.pass1, d.pass2);
  return ok;
}

int main(int argc, char** argv) {
  const uint32_t perms = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 10000;
  const uint32_t n = argc > 2 ? static_cast<uint32_t>(std::atoi(argv[2])) : 1000000;
  std::vector<int> ks;
  for (int i = 3; i < argc; ++i) ks.push_back(std::atoi(argv[i]));
  if (ks.empty()) ks = {3, 4, 5, 6};
  const uint64_t seed = 0x5eed2026ull;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; %u permutations of %u bytes\n", prop.name, prop.multiProcessorCount, perms, n);
  std::vector<uint8_t> symbols(n);
  PhiloxStream fill(1, 1);
  for (auto& x : symbols) x = static_cast<uint8_t>(fill.next());
  uint8_t *d_symbols = nullptr, *rows = nullptr;
  uint32_t *bounds = nullptr, *fallback = nullptr;
  CHECK(cudaMalloc(&d_symbols, n));
  CHECK(cudaMalloc(&rows, static_cast<size_t>(perms) * n));
  CHECK(cudaMalloc(&bounds, static_cast<size_t>(perms) * 65 * sizeof(uint32_t)));
  CHECK(cudaMalloc(&fallback, sizeof(uint32_t)));
  CHECK(cudaMemcpy(d_symbols, symbols.data(), n, cudaMemcpyHostToDevice));
  const int sms = prop.multiProcessorCount;
  run_reservations(rows, d_symbols, n, seed, perms, sms);
  run_reservations(rows, d_symbols, n, seed, perms, sms);
  bool ok = true;
  for (int b : ks) {
    std::printf("bucket shuffle, %u buckets, then %u, leaves of at most %u:\n", 1u << b, 1u << kInnerBits, kLeaf);
    switch (b) {
      case 3: ok = one_k<3>(rows, d_symbols, symbols, seed, perms, bounds, fallback, sms) && ok; break;
      case 4: ok = one_k<4>(rows, d_symbols, symbols, seed, perms, bounds, fallback, sms) && ok; break;
      case 5: ok = one_k<5>(rows, d_symbols, symbols, seed, perms, bounds, fallback, sms) && ok; break;
      case 6: ok = one_k<6>(rows, d_symbols, symbols, seed, perms, bounds, fallback, sms) && ok; break;
      default: std::printf("  b0 = %d not built (3..6)\n", b);
    }
  }
  std::printf("%s\n", ok ? "all checked rows equal the CPU reference" : "MISMATCH or fallback");
  return ok ? 0 : 1;
}
