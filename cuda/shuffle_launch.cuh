// The shuffle kernel shared by the GPU backends: column q of an interleaved batch (sample
// i of copy q at batch[i * stride + q]) becomes permutation first + q.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <type_traits>

#include "permutation/shuffle.hpp"
#include "bucket_shuffle.cuh"
#include "common/error.hpp"
#include "rng/generators.hpp"
#include "device_buffer.cuh"
#include "check.cuh"
#include "parallel_shuffle.cuh"
#include "rng/stream_set.hpp"
#include "skip_draws.cuh"
#include "warp_lane_stream.cuh"

namespace ea {

// Thread q shuffles column q of the batch as permutation first + q (for grouped
// generators, first is a multiple of 32 and count covers whole warps).
// D: lookahead of the pipelined shuffle (reads in flight per thread); 0 = the plain loop.
template <int D, class G>
__global__ void shuffle_kernel(uint8_t* batch, size_t stride, uint32_t count, const uint8_t* __restrict__ symbols,
                               size_t n, StreamSetView streams, uint64_t first) {
  const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= count) return;
  uint8_t* copy = batch + q;
  for (size_t i = 0; i < n; ++i) copy[i * stride] = symbols[i];
  auto run = [&](auto& rng) {
    if constexpr (D == 0) {
      fisher_yates(copy, n, stride, rng);
    } else {
      fisher_yates_pipelined<D>(copy, n, stride, rng);
    }
  };
  if constexpr (G::kGrouped) {
    WarpLaneStream<G> rng{G::make(streams, first + q)};
    run(rng);
  } else {
    G rng = G::make(streams, first + q);
    run(rng);
  }
}

// How a round is shuffled (GpuTuning's keys shuffle-block, parallel-shuffle, reservations,
// resident, low-shared).
struct ShuffleConfig {
  int block = 32;         // threads per block of the one-thread-per-permutation kernel
  uint32_t parallel = 0;  // permutations at once of the block-per-permutation kernel (0: not used)
  uint32_t reservations = 0;  // blocks in flight of the shuffle by reservations (0: none)
  uint32_t resident = 0;      // blocks in flight of the variant with the row in shared memory (0: not used)
  uint32_t log_bits = 3;      // every symbol is below 2^(2^log_bits) (resident rows are packed so)
  uint32_t low_bytes = 0;     // lowest places of a row in global memory kept in shared memory (a multiple of 16)
  // The engine's shuffle (docs/bucket-shuffle.md): with a room (the backends give one where
  // engine_uses_buckets() holds for the data), Philox rows above L samples are shuffled by
  // bucket passes; without one (binary data, kernel tests and benchmarks of the Fisher-Yates
  // kernels), by Fisher-Yates on stream j.
  BucketRoom* bucket = nullptr;
};

// Whether launches under cfg shuffle rows of n samples of these streams by bucket passes.
inline bool bucket_serves(const ShuffleConfig& cfg, PrngId id, size_t n) {
  // (cfg.bucket is null where the backend shuffles by Fisher-Yates: --shuffle fisher-yates, binary data)
  return cfg.bucket && engine_uses_buckets(id, n, false, ShuffleChoice::Bucket);
}

// The bits per sample (as log2: 0 for 1 bit ... 3 for 8 bits) that hold every symbol.
inline uint32_t symbol_log_bits(const uint8_t* symbols, size_t n) {
  uint32_t any = 0;
  for (size_t i = 0; i < n; ++i) any |= symbols[i];
  return any < 2 ? 0 : any < 4 ? 1 : any < 16 ? 2 : 3;
}

// Blocks in flight of the reservation shuffle for `per_sm` blocks per SM of the current
// device (GpuTuning::reservations).
inline uint32_t reservation_blocks(uint32_t per_sm) {
  if (per_sm == 0) return 0;
  int device = 0, sms = 0;
  EA_CUDA_CHECK(cudaGetDevice(&device));
  EA_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return per_sm * static_cast<uint32_t>(std::max(sms, 1));
}

// Whether the row of n samples fits in shared memory beside the resident kernel's table:
// its dynamic shared memory then, else 0.
inline size_t resident_shared(size_t n, uint32_t log_bits) {
  constexpr uint32_t T = kReservationThreads;
  return dynamic_shared_if_fits(resident_shuffle_kernel<T>,
                                reservation_shuffle_shared<T>() + resident_row_words(n, log_bits) * sizeof(uint32_t));
}

// Bytes of each row that reservation_shuffle_kernel<T, true> keeps in shared memory on the
// current device: as many as fit beside its table (a multiple of 16), or 0 where fewer than
// kLowSharedMin fit (H100, 10,000 rows of 10^6 samples: 16 KiB 554.8 ms, 64 KiB 499.7,
// 96 KiB 471.5, 142 KiB 447.7, none 486.8; docs/performance-history.md).
constexpr size_t kLowSharedMin = 96 * 1024;
inline uint32_t low_shared_bytes() {
  constexpr uint32_t T = kReservationThreads;
  int device = 0, optin = 0;
  EA_CUDA_CHECK(cudaGetDevice(&device));
  EA_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attr{};
  EA_CUDA_CHECK(cudaFuncGetAttributes(&attr, reservation_shuffle_kernel<T, true>));
  const size_t used = attr.sharedSizeBytes + reservation_shuffle_shared<T>();
  const size_t fit = static_cast<size_t>(optin) > used ? (static_cast<size_t>(optin) - used) / 16 * 16 : 0;
  return fit >= kLowSharedMin ? static_cast<uint32_t>(fit) : 0;
}

// Rows 0 .. m-1 of `rows` (n bytes each; the callers pass n >= 2, below which every kernel
// only copies the symbols) become the permutations whose targets `src` gives (PhiloxTargets:
// permutations first .. first+m-1 of the Philox streams; DrawnTargets: drawn by
// launch_draw_targets()): by reservations with the row in shared memory (cfg.resident blocks) where
// it fits, else with the row in global memory (cfg.reservations blocks; its lowest
// cfg.low_bytes places in shared memory).
template <class Source>
inline void launch_row_shuffle(const ShuffleConfig& cfg, uint8_t* rows, const uint8_t* symbols, size_t n,
                               const Source& src, uint32_t m, cudaStream_t st) {
  constexpr uint32_t T = kReservationThreads;
  if (cfg.reservations > 0 && cfg.resident > 0) {
    if (const size_t shared = resident_shared(n, cfg.log_bits)) {
      EA_CUDA_CHECK(cudaFuncSetAttribute(resident_shuffle_kernel<T, Source>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
      resident_shuffle_kernel<T, Source>
          <<<std::min(m, cfg.resident), T, shared, st>>>(rows, symbols, n, src, m, cfg.log_bits);
      return;
    }
  }
  if (cfg.reservations > 0) {
    const auto kernel =
        cfg.low_bytes > 0 ? reservation_shuffle_kernel<T, true, Source> : reservation_shuffle_kernel<T, false, Source>;
    const size_t shared = reservation_shuffle_shared<T>() + cfg.low_bytes;
    EA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    kernel<<<std::min(m, cfg.reservations), T, shared, st>>>(rows, symbols, n, src, m, cfg.low_bytes);
  } else {
    throw Error(ErrorKind::Internal, "the row shuffle needs reservations above 0");
  }
}

inline void launch_row_shuffle(const ShuffleConfig& cfg, uint8_t* rows, const uint8_t* symbols, size_t n, uint64_t seed,
                               uint64_t first, uint32_t m, cudaStream_t st) {
  if (bucket_serves(cfg, PrngId::Philox, n)) {
    launch_bucket_rows(*cfg.bucket, rows, symbols, n, seed, first, m, st);
    return;
  }
  launch_row_shuffle(cfg, rows, symbols, n, PhiloxTargets{seed, first}, m, st);
}

// The swap targets of permutations first .. first+rows-1 (DrawnTargets' layout), drawn by
// the generator G exactly as fisher_yates() draws them: one thread per permutation, steps
// n-1 down to 1, eight at a time into registers, then 32 bytes out. Coupled-lane generators
// run whole lane groups (a warp each, its lanes in lockstep): the grid covers permutations
// from first rounded down to a group on, and lanes outside [first, first + rows) only draw.
// A sequential generator's draws are the latency-bound part (the chain of its state), so a
// thread per permutation with a few thousand permutations at once is as fast as any split.
// With `only` (not for lane groups), only rows q with only[q] != 0 are drawn (the rows of
// the segmented draws with a rejected word, cuda/skip_draws.cuh).
// kAttempts (generators with attempt(), and the lanes' warps): each group of eight draws is
// first made from eight words without a branch per draw (attempt(), rng/bounded.hpp); only
// where one of those words might be rejected (probability below 8 (i + 1) / 2^32 for a
// group) is the stream restored and the group drawn by the exact method: the same targets,
// without the wait on every draw's rejection test in the chain of the state.
template <class G, bool kAttempts = true>
__global__ void __launch_bounds__(32) draw_targets_kernel(uint32_t* targets, size_t n, uint32_t rows,
                                                          StreamSetView streams, uint64_t first,
                                                          const uint32_t* only = nullptr) {
  const uint64_t base = G::kGrouped ? first / kLaneGroup * kLaneGroup : first;
  const uint64_t j = base + static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool store = j >= first && j < first + rows;
  if constexpr (!G::kGrouped) {
    if (!store) return;
    if (only && only[j - first] == 0) return;
  }
  const uint32_t q = static_cast<uint32_t>(j - first);  // (meaningful where store)
  const DrawnTargets layout{targets, rows};
  auto run = [&](auto& rng) {
    using R = std::remove_reference_t<decltype(rng)>;
    for (size_t b = (n - 1) / 8 + 1; b-- > 0;) {
      uint32_t h[8];
      bool exact = true;
      if constexpr (kAttempts && HasAttempt<R>::value) {
        if (b >= 1 && b * 8 + 7 < n) {  // a whole group of draws
          const R saved = rng;
          bool maybe = false;
#pragma unroll
          for (int e = 7; e >= 0; --e) h[e] = rng.attempt(static_cast<uint32_t>(b * 8 + e), maybe);
          // (a lane group's warp restores together: its lanes step together)
          if constexpr (G::kGrouped) {
            exact = __any_sync(0xffffffffu, maybe);
          } else {
            exact = maybe;
          }
          if (exact) rng = saved;
        }
      }
      if (exact) {
#pragma unroll
        for (int e = 7; e >= 0; --e) {
          const size_t i = b * 8 + static_cast<size_t>(e);
          h[e] = i >= 1 && i < n ? rng.bounded(static_cast<uint32_t>(i)) : 0;
        }
      }
      if (store) {
        uint4* out = reinterpret_cast<uint4*>(targets + layout.index(q, static_cast<uint32_t>(b * 8)));
        out[0] = make_uint4(h[0], h[1], h[2], h[3]);
        out[1] = make_uint4(h[4], h[5], h[6], h[7]);
      }
    }
  };
  if constexpr (G::kGrouped) {
    WarpLaneStream<G> rng{G::make(streams, j)};
    run(rng);
  } else {
    G rng = G::make(streams, j);
    run(rng);
  }
}

// Draws the targets of rows first .. first + rows - 1 for the generator of `streams` (any
// but Philox, whose targets the shuffle computes itself) into `targets`
// (drawn_target_words(n, rows) words, 16-byte aligned); n >= 2. With `skip` (shaped for
// n, flags for at least `rows` rows) a generator that draws in segments (xoshiro256ss,
// cuda/skip_draws.cuh) does so; otherwise draw_targets_kernel, a thread per row in order.
// Returns where row q's targets are.
inline DrawnTargets launch_draw_targets(const StreamSetView& streams, uint32_t* targets, size_t n, uint64_t first,
                                        uint32_t rows, cudaStream_t st, const SkipDrawsView* skip = nullptr) {
  if (skip) {
    bool done = false;
    visit_generator(streams.id, [&](auto tag) {
      using G = decltype(tag);
      if constexpr (draws_in_segments<G>()) {
        SkipDrawsView sk = *skip;
        sk.shape = skip_draws_shape(n);  // (never a shape made for other data)
        const uint64_t threads = static_cast<uint64_t>(rows) * sk.shape.segments;
        EA_CUDA_CHECK(cudaMemsetAsync(skip->flags, 0, static_cast<size_t>(rows) * sizeof(uint32_t), st));
        draw_words_kernel<G>
            <<<static_cast<unsigned>((threads + 127) / 128), 128, 0, st>>>(targets, n, rows, streams, first, sk);
        draw_targets_kernel<G><<<(rows + 31) / 32, 32, 0, st>>>(targets, n, rows, streams, first, skip->flags);
        done = true;
      }
    });
    if (done) return DrawnTargets{targets, rows};
  }
  const uint64_t base = is_grouped(streams.id) ? first / kLaneGroup * kLaneGroup : first;
  const uint64_t end = is_grouped(streams.id) ? (first + rows + kLaneGroup - 1) / kLaneGroup * kLaneGroup : first + rows;
  const unsigned blocks = static_cast<unsigned>((end - base + 31) / 32);
  visit_generator(streams.id, [&](auto tag) {
    using G = decltype(tag);
    draw_targets_kernel<G><<<blocks, 32, 0, st>>>(targets, n, rows, streams, first);
  });
  return DrawnTargets{targets, rows};
}

// Whether launch_shuffle's rows serve these streams: Philox, whose targets the shuffle
// computes (the other generators' are drawn ahead by the GPU backend, which holds their
// buffer; launch_shuffle gives them one thread per permutation: drawing them a slice at a
// time for the compression test's rows gave counters that differed from the CPU's in one
// run of several, xoshiro256ss on truerand_8bit, session 20, cause not found).
inline bool parallel_shuffle_serves(const ShuffleConfig& cfg, const StreamSetView& streams) {
  return cfg.parallel > 0 && cfg.reservations > 0 && streams.id == PrngId::Philox;
}

// Columns 0 .. count-1 of the batch become permutations first .. first+count-1 of a
// sequential generator by its bucket plans (launch_draw_plan) and the pass kernels, a slice
// of min(cfg.parallel, count) rows at a time (fewer where memory is short) into `scratch`,
// then into the columns. False (nothing launched) where 32 rows and their plans have no room.
inline bool launch_planned_columns(const ShuffleConfig& cfg, cuda::DeviceBuffer<uint8_t>& scratch, cudaStream_t st,
                                   uint8_t* batch, size_t stride, uint32_t count, const uint8_t* symbols, size_t n,
                                   const StreamSetView& streams, uint64_t first) {
  BucketRoom& room = *cfg.bucket;
  uint32_t slice = std::min(cfg.parallel, count);
  auto fits = [&](uint32_t rows) {
    const size_t need = static_cast<size_t>(rows) * n, plan = static_cast<size_t>(rows) * bucket_plan_bytes(n);
    return (scratch.size() >= need || cuda::DeviceBuffer<uint8_t>::try_allocate(need, scratch)) &&
           (room.plan.size() >= plan || cuda::DeviceBuffer<uint8_t>::try_allocate(plan, room.plan));
  };
  while (!fits(slice)) {  // (smaller slices where memory is short, down to 32 rows)
    if (slice <= 32) return false;
    slice = std::max<uint32_t>(32, slice / 2);
  }
  for (uint32_t c0 = 0; c0 < count; c0 += slice) {
    const uint32_t m = std::min(slice, count - c0);
    launch_draw_plan(streams, room.plan.get(), n, first + c0, m, room, st);
    launch_bucket_src_rows(room, scratch.get(), symbols, n, PlanRowSource{room.plan.get(), bucket_plan_stride(n)}, m, st);
    const dim3 grid(static_cast<unsigned>((n + 255) / 256), (m + 31) / 32);
    rows_to_columns_kernel<0><<<grid, 256, 0, st>>>(scratch.get(), n, m, batch, stride, c0);
    EA_CUDA_CHECK(cudaGetLastError());
  }
  return true;
}

// Whether launch_shuffle makes Philox's permutations of n samples as rows (the
// block-per-permutation kernels, a slice of min(cfg.parallel, count) rows at a time in
// `scratch`, where it holds them) before they go into the columns.
inline bool shuffles_rows(const ShuffleConfig& cfg, const StreamSetView& streams, size_t n) {
  // (the bucket shuffle's rows need buckets that fit shared memory: else its columns)
  return parallel_shuffle_serves(cfg, streams) && n >= 2 && (!bucket_serves(cfg, streams.id, n) || bucket_rows_fit(n));
}

// Called with each slice of rows launch_shuffle makes (shuffles_rows): rows 0 .. m-1 at `rows`,
// n bytes apart, are permutations first + c0 .. first + c0 + m - 1; work launched on the
// shuffle's stream reads them before the next slice replaces them.
using RowsHook = std::function<void(const uint8_t* rows, uint32_t c0, uint32_t m)>;

// Columns 0 .. count-1 of the batch become permutations first .. first+count-1: with the
// block-per-permutation kernel where it serves and `scratch` holds (or can be given) a
// slice of min(cfg.parallel, count) permutations (each slice handed to on_rows, where
// given; true is returned), a sequential generator's bucket shuffle by
// launch_planned_columns where it has room, otherwise one thread per permutation (for the
// bucket shuffle, with `scratch` as its scratch columns: launch_bucket_columns).
// Small blocks spread the few thousand shuffling threads of the latter over every SM (with
// 128-thread blocks, 10,000 threads fill only 79 of the H100's 132 SMs); four reads in
// flight per thread (fisher_yates_pipelined<4>).
inline bool launch_shuffle(const ShuffleConfig& cfg, cuda::DeviceBuffer<uint8_t>& scratch, cudaStream_t st,
                           uint8_t* batch, size_t stride, uint32_t count, const uint8_t* symbols, size_t n,
                           const StreamSetView& streams, uint64_t first, const RowsHook& on_rows = {}) {
  if (count == 0) return false;
  if (shuffles_rows(cfg, streams, n)) {
    const uint32_t slice = std::min(cfg.parallel, count);
    const size_t need = static_cast<size_t>(slice) * n;
    if (scratch.size() >= need || cuda::DeviceBuffer<uint8_t>::try_allocate(need, scratch)) {
      for (uint32_t c0 = 0; c0 < count; c0 += slice) {
        const uint32_t m = std::min(slice, count - c0);
        launch_row_shuffle(cfg, scratch.get(), symbols, n, streams.seed, first + c0, m, st);
        if (on_rows) on_rows(scratch.get(), c0, m);
        const dim3 grid(static_cast<unsigned>((n + 255) / 256), (m + 31) / 32);
        rows_to_columns_kernel<0><<<grid, 256, 0, st>>>(scratch.get(), n, m, batch, stride, c0);
      }
      return true;
    }
  }
  const int block = cfg.block;
  // (a sequential generator's bucket shuffle: by plans where the pass kernels serve its rows)
  if (bucket_serves(cfg, streams.id, n) && streams.id != PrngId::Philox && cfg.parallel > 0 && bucket_rows_fit(n) &&
      launch_planned_columns(cfg, scratch, st, batch, stride, count, symbols, n, streams, first)) {
    return false;
  }
  if (bucket_serves(cfg, streams.id, n)) {
    launch_bucket_columns(*cfg.bucket, scratch, block, batch, stride, count, symbols, n, streams, first, st);
    return false;
  }
  const unsigned blocks = (count + block - 1) / block;
  visit_generator(streams.id, [&](auto tag) {
    using G = decltype(tag);
    shuffle_kernel<4, G><<<blocks, block, 0, st>>>(batch, stride, count, symbols, n, streams, first);
  });
  return false;
}

// The generator's prepared start states and constants (src/rng/prng.hpp) uploaded into
// states/aux; returns the view with device pointers.
inline StreamSetView upload_streams(const StreamSetView& host, cuda::DeviceBuffer<uint32_t>& states,
                                    cuda::DeviceBuffer<uint32_t>& aux, cudaStream_t st) {
  StreamSetView v = host;
  if (host.states) {
    cuda::upload(states, host.states, static_cast<size_t>(host.count) * host.words_per_stream, st);
    v.states = states.get();
  }
  if (host.aux) {
    cuda::upload(aux, host.aux, host.aux_words, st);
    v.aux = aux.get();
  }
  return v;
}

}  // namespace ea
