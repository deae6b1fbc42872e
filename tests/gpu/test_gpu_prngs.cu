// GPU known answers of every shuffling generator: the lines of tests/kat/prngs.txt
// evaluated in a kernel (the same kat_eval() as the CPU test), xorwow streams against
// cuRAND's own curand_init/curand, and permutation j's shuffle of every generator made in a
// kernel (warps for the lane-group generators) against the host's, and the same by swap
// targets drawn ahead (launch_draw_targets) and carried out by reservations (rows in global memory,
// with their low places in shared memory, packed in shared memory). Exit 77 (ctest:
// skipped) when no GPU is usable.
#include <cuda_runtime.h>

#include "check_cuda.hpp"

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "../common/prng_kat.hpp"
#include "permutation/shuffle.hpp"
#include "rng/generators.hpp"
#include "rng/prng.hpp"
#include "rng/skip_ahead.hpp"
#include "shuffle_launch.cuh"
#include "warp_lane_stream.cuh"

using namespace ea;

// A test generator: xoshiro256ss's words, but 0 where a word's top kBits bits are 0
// (once in 2^kBits words). The 64-bit draw on [0, s - 1] rejects the word 0 wherever s is
// not a power of two, so rows of about 2^kBits samples get a rejected word about two times
// in three: the segmented draws' flagging (cuda/skip_draws.cuh) is exercised.
template <int kBits>
struct RejectingXoshiro {
  static constexpr bool kGrouped = false;
  Xoshiro256ss x;
  __host__ __device__ uint64_t next64() {
    const uint64_t w = x.next64();
    return (w >> (64 - kBits)) == 0 ? 0 : w;
  }
  static __host__ __device__ RejectingXoshiro make(const StreamSetView& v, uint64_t j) {
    return RejectingXoshiro{Xoshiro256ss::make(v, j)};
  }
  __host__ __device__ uint32_t bounded(uint32_t i) { return bounded_inclusive64(*this, i); }
};
namespace ea {
template <int kBits>
struct SkipAhead<RejectingXoshiro<kBits>> {
  static constexpr bool kHas = true;
  static constexpr bool kWide = true;
  static constexpr uint32_t kEntryWords = SkipAhead<Xoshiro256ss>::kEntryWords;
  using Word = uint64_t;
  static __host__ __device__ Word word(RejectingXoshiro<kBits>& g) { return g.next64(); }
  static __host__ __device__ void jump(RejectingXoshiro<kBits>& g, const uint32_t* e) {
    SkipAhead<Xoshiro256ss>::jump(g.x, e);
  }
  static __host__ __device__ bool accepts(Word v, uint32_t i, uint32_t& r) {
    return SkipAhead<Xoshiro256ss>::accepts(v, i, r);
  }
};
}  // namespace ea

namespace {

constexpr int kMaxIn = 8, kMaxOut = 20;

struct KatJob {
  int gen, kind, n_out;
  uint64_t in[kMaxIn];
};

__global__ void kat_kernel(const KatJob* jobs, uint64_t* out, int n, int* ok) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  ok[r] = kat::kat_eval(jobs[r].gen, jobs[r].kind, jobs[r].in, out + r * kMaxOut, jobs[r].n_out) ? 1 : 0;
}

// Our xorwow streams from the uploaded start states.
__global__ void xorwow_kernel(StreamSetView v, uint32_t* ours, int words) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= static_cast<int>(v.count)) return;
  Xorwow g = Xorwow::make(v, static_cast<uint64_t>(j));
  for (int i = 0; i < words; ++i) ours[j * words + i] = g.next();
}

// Thread q shuffles its own copy of `start` as permutation q (interleaved, as a batch).
template <class G>
__global__ void shuffle_kernel(StreamSetView v, const uint8_t* start, size_t n, uint8_t* batch, uint32_t count) {
  const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= count) return;
  uint8_t* a = batch + q;
  for (size_t i = 0; i < n; ++i) a[i * count] = start[i];
  if constexpr (G::kGrouped) {
    WarpLaneStream<G> rng{G::make(v, q)};
    fisher_yates_pipelined<4>(a, n, count, rng);
  } else {
    G rng = G::make(v, q);
    fisher_yates_pipelined<4>(a, n, count, rng);
  }
}

// A StreamSet's view with device copies of its arrays.
struct DeviceSet {
  uint32_t *states = nullptr, *aux = nullptr;
  StreamSetView view;
  explicit DeviceSet(const StreamSet& s) : view(s.view()) {
    if (!s.states().empty()) {
      CHECK_CUDA(cudaMalloc(&states, s.states().size() * 4));
      CHECK_CUDA(cudaMemcpy(states, s.states().data(), s.states().size() * 4, cudaMemcpyHostToDevice));
      view.states = states;
    }
    if (!s.aux().empty()) {
      CHECK_CUDA(cudaMalloc(&aux, s.aux().size() * 4));
      CHECK_CUDA(cudaMemcpy(aux, s.aux().data(), s.aux().size() * 4, cudaMemcpyHostToDevice));
      view.aux = aux;
    }
  }
  ~DeviceSet() {
    cudaFree(states);
    cudaFree(aux);
  }
};

// Device shuffles of `start` as permutations 0 .. count-1 (column-major copy back).
std::vector<std::vector<uint8_t>> device_shuffles(const StreamSet& set, const std::vector<uint8_t>& start, uint32_t count) {
  DeviceSet ds(set);
  uint8_t *dstart, *dbatch;
  const size_t n = start.size();
  CHECK_CUDA(cudaMalloc(&dstart, n));
  CHECK_CUDA(cudaMalloc(&dbatch, n * count));
  CHECK_CUDA(cudaMemcpy(dstart, start.data(), n, cudaMemcpyHostToDevice));
  visit_generator(set.id(), [&](auto tag) {
    using G = decltype(tag);
    shuffle_kernel<G><<<(count + 31) / 32, 32>>>(ds.view, dstart, n, dbatch, count);
  });
  CHECK_CUDA(cudaGetLastError());
  std::vector<uint8_t> batch(n * count);
  CHECK_CUDA(cudaMemcpy(batch.data(), dbatch, batch.size(), cudaMemcpyDeviceToHost));
  cudaFree(dstart);
  cudaFree(dbatch);
  std::vector<std::vector<uint8_t>> out(count, std::vector<uint8_t>(n));
  for (uint32_t q = 0; q < count; ++q)
    for (size_t i = 0; i < n; ++i) out[q][i] = batch[i * count + q];
  return out;
}

// Philox without block-per-permutation rows (parallel-shuffle=0): launch_shuffle's columns.
template <class Expect>
void check_philox_columns(Expect& expect, BucketRoom& room) {
  const uint64_t first = 37;
  const uint32_t rows = 50;
  const size_t n = 5000;
  std::vector<uint8_t> start(n), got(n * rows);
  for (size_t i = 0; i < n; ++i) start[i] = static_cast<uint8_t>(i * 13);
  StreamSet set(PrngId::Philox, 5, first + rows);
  DeviceSet ds(set);
  cuda::DeviceBuffer<uint8_t> d_start(n), d_rows(n * rows), d_scratch;
  CHECK_CUDA(cudaMemcpy(d_start.get(), start.data(), n, cudaMemcpyHostToDevice));
  launch_shuffle(ShuffleConfig{32, 0, 0, 0, 3, 0, &room}, d_scratch, nullptr, d_rows.get(), rows, rows,
                 d_start.get(), n, ds.view, first);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(got.data(), d_rows.get(), got.size(), cudaMemcpyDeviceToHost));
  bool same = room.take_overflow() == 0;
  for (uint32_t q = 0; q < rows; ++q) {
    std::vector<uint8_t> h = start;
    shuffle_permutation(set, first + q, h.data(), n);
    for (size_t i = 0; i < n; ++i) same = same && got[q + i * rows] == h[i];
  }
  expect(same, "philox: launch_shuffle without rows (one thread per column), n=5000: the engine's permutations");
}

// A sequential generator's bucket shuffle as the engine does it (bucket_plan.hpp): its plans
// drawn by draw_bucket_plan_kernel, the rows by the pass kernels with a plan source; and
// launch_shuffle's columns by the same in slices of 16 rows (launch_planned_columns).
template <class Expect, class Same>
void check_plan_rows(Expect& expect, BucketRoom& room, const PrngInfo& p, const DeviceSet& ds,
                     const cuda::DeviceBuffer<uint8_t>& d_start, size_t n, Same& same_as_host) {
  const uint32_t first = 37, rows = 50;
  cuda::DeviceBuffer<uint8_t> d_plan(rows * bucket_plan_bytes(n)), d_rows(n * rows), d_scratch;
  std::vector<uint8_t> got(n * rows);
  CHECK_CUDA(cudaMemset(d_rows.get(), 0xa5, n * rows));
  launch_draw_plan(ds.view, d_plan.get(), n, first, rows, room, nullptr);
  launch_bucket_src_rows(room, d_rows.get(), d_start.get(), n, PlanRowSource{d_plan.get(), bucket_plan_stride(n)}, rows,
                         nullptr);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(got.data(), d_rows.get(), got.size(), cudaMemcpyDeviceToHost));
  uint32_t overflow = room.take_overflow();
  expect(same_as_host(got, n, 1) && overflow == 0,
         std::string(p.name) + ": bucket plans and pass kernels, n=" + std::to_string(n) + ": permutations 37.. equal the host's");
  CHECK_CUDA(cudaMemset(d_rows.get(), 0xa5, n * rows));
  const ShuffleConfig sc{32, 16, 3, 0, 3, 0, &room};
  launch_shuffle(sc, d_scratch, nullptr, d_rows.get(), rows, rows, d_start.get(), n, ds.view, first);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(got.data(), d_rows.get(), got.size(), cudaMemcpyDeviceToHost));
  overflow = room.take_overflow();
  expect(same_as_host(got, 1, rows) && overflow == 0 && room.plan.size() >= 16 * bucket_plan_bytes(n),
         std::string(p.name) + ": launch_shuffle's planned columns, n=" + std::to_string(n) +
             ": permutations 37.. equal the host's");
}

// 6. The bucket shuffle's kernels (cuda/bucket_shuffle.cuh): Philox's rows by the pass
// kernels (the engine's shuffle: shuffle_permutation), and every generator with independent
// words by one thread per column (bucket_column_kernel; the engine's for Philox without
// block-per-permutation rows, and for the others the CPU's engine_bucket_shuffle, whose
// permutations the engine makes by plans: check_plan_rows).
template <class Expect>
void check_bucket_kernels(Expect& expect, bool small) {
  BucketRoom room;
  const uint64_t first = 37;
  const uint32_t rows = 50;
  // (n = 2^22 + 1 .. 2^25 + 1: b0 = 5 .. 8, Philox's pass kernels only, 4 rows checked; --small
  // keeps 70001 for the inner pass's 256 buckets, 8 rows)
  for (size_t n : {size_t{1025}, size_t{5000}, size_t{70001}, size_t{1000000}, (size_t{1} << 21) + 3,
                   (size_t{1} << 22) + 1, (size_t{1} << 23) + 1, (size_t{1} << 24) + 1, (size_t{1} << 25) + 1}) {
    if (small && n > 70001) continue;
    const uint32_t checked = small && n > 5000 ? 8 : n > 2500000 ? 4 : rows;
    std::vector<uint8_t> start(n);
    for (size_t i = 0; i < n; ++i) start[i] = static_cast<uint8_t>((i * 37 + i / 100) & 0xff);
    cuda::DeviceBuffer<uint8_t> d_start(n), d_rows(n * rows), d_scratch;
    CHECK_CUDA(cudaMemcpy(d_start.get(), start.data(), n, cudaMemcpyHostToDevice));
    for (const PrngInfo& p : prng_table()) {
      if (is_grouped(p.id) || p.id == PrngId::Sobol) continue;
      if (n > 70001 && p.id != PrngId::Philox && p.id != PrngId::Mrg32k3a) continue;
      if ((n > 2500000 || (small && n > 5000)) && p.id != PrngId::Philox) continue;
      StreamSet set(p.id, 99, first + rows);
      DeviceSet ds(set);
      auto same_as_host = [&](const std::vector<uint8_t>& got, size_t row_step, size_t col_step) {
        bool same = true;
        std::vector<uint8_t> h, scratch;
        for (uint32_t q = 0; q < checked && same; ++q) {
          h = start;
          visit_generator(p.id, [&](auto tag) {
            using G = decltype(tag);
            if constexpr (std::is_same_v<G, PhiloxGen>) {
              shuffle_permutation(set, first + q, h.data(), n);
            } else if constexpr (!G::kGrouped) {
              G g = G::make(set.view(), first + q);
              engine_bucket_shuffle(h.data(), n, g, scratch);
            }
          });
          for (size_t i = 0; i < n && same; ++i) same = got[q * row_step + i * col_step] == h[i];
        }
        return same;
      };
      std::vector<uint8_t> got(n * rows);
      if (p.id == PrngId::Philox) {
        CHECK_CUDA(cudaMemset(d_rows.get(), 0xa5, n * rows));
        ShuffleConfig sc{32, rows, 3, 0, 3, 0, &room};
        launch_row_shuffle(sc, d_rows.get(), d_start.get(), n, 99, first, rows, nullptr);
        CHECK_CUDA(cudaDeviceSynchronize());
        CHECK_CUDA(cudaMemcpy(got.data(), d_rows.get(), got.size(), cudaMemcpyDeviceToHost));
        const uint32_t overflow = room.take_overflow();
        expect(same_as_host(got, n, 1) && overflow == 0 && bucket_rows_fit(n),
               "philox: bucket pass kernels, n=" + std::to_string(n) + ": permutations 37.. equal the host's");
        if (n == 70001 || n == 1000000) {  // pass 2 of 512 threads (where 1,024 do not fit)
          CHECK_CUDA(cudaMemset(d_rows.get(), 0xa5, n * rows));
          launch_bucket_rows(room, d_rows.get(), d_start.get(), n, 99, first, rows, nullptr, 512);
          CHECK_CUDA(cudaDeviceSynchronize());
          CHECK_CUDA(cudaMemcpy(got.data(), d_rows.get(), got.size(), cudaMemcpyDeviceToHost));
          expect(same_as_host(got, n, 1) && room.take_overflow() == 0,
                 "philox: bucket pass kernels, pass 2 of 512 threads, n=" + std::to_string(n) +
                     ": permutations 37.. equal the host's");
        }
      }
      if (n > 2500000 || (small && n > 5000)) continue;  // (columns: one thread a row of that length is slow)
      CHECK_CUDA(cudaMemset(d_rows.get(), 0xa5, n * rows));
      launch_bucket_columns(room, d_scratch, 32, d_rows.get(), rows, rows, d_start.get(), n, ds.view, first, nullptr);
      CHECK_CUDA(cudaDeviceSynchronize());
      CHECK_CUDA(cudaMemcpy(got.data(), d_rows.get(), got.size(), cudaMemcpyDeviceToHost));
      const uint32_t overflow = room.take_overflow();
      expect(same_as_host(got, 1, rows) && overflow == 0,
             std::string(p.name) + ": bucket columns, n=" + std::to_string(n) + ": permutations 37.. equal the host's");
      if (p.id != PrngId::Philox && bucket_rows_fit(n)) check_plan_rows(expect, room, p, ds, d_start, n, same_as_host);
    }
  }
  check_philox_columns(expect, room);
  // The overflow count is an error where the backends look (set by hand here: with the
  // engine's parameters no node is ever above the kernels' room).
  const uint32_t one = 1;
  CHECK_CUDA(cudaMemcpy(room.overflow.get(), &one, sizeof one, cudaMemcpyHostToDevice));
  bool threw = false;
  try {
    room.check();
  } catch (const Error& e) {
    threw = e.kind() == ErrorKind::Device;
  }
  expect(threw && room.take_overflow() == 0, "a node the bucket kernels did not hold is a device error, then cleared");
}

// 7. bucket_leaf (pass 2's leaves, four draws a Philox block) equals fisher_yates on the
// leaf's PhiloxNodeStream, for leaves of 0 to 1,024 samples and for leaves of 2^20 + 3,
// whose draws meet words that the fast steps cannot accept (low part below the bound), so
// that the exact method takes over part way (such leaves are counted on the host: some).
// --small keeps one leaf of 2^20 + 3 (about 0.1 s of one GPU thread; sanitizers run it).
__global__ void leaf_kernel(uint8_t* data, const uint32_t* off, const uint32_t* len, uint32_t count, uint64_t seed,
                            uint64_t j) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < count) bucket_leaf(data + off[t], len[t], seed, j, 2, off[t]);
}

// PhiloxNodeStream noting the first draw (its bound i) with a word whose low part is below
// the bound: bucket_leaf leaves the rest to the exact method from there where i >= 4.
struct CountingNodeStream {
  PhiloxNodeStream rng;
  uint32_t s = 0;
  uint32_t first_maybe = 0;  // i of the first such draw, 0: none
  EA_HD uint32_t next() {
    const uint32_t v = rng.next();
    if (first_maybe == 0 && static_cast<uint32_t>(static_cast<uint64_t>(v) * s) < s) first_maybe = s - 1;
    return v;
  }
  EA_HD uint32_t bounded(uint32_t i) {
    s = i + 1;
    return bounded_inclusive(*this, i);
  }
};

template <class Expect>
void check_bucket_leaf(Expect& expect, bool small) {
  std::vector<uint32_t> off, len;
  uint32_t total = 0;
  for (int copy = 0; copy < 3; ++copy) {
    for (uint32_t m : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 15u, 16u, 17u, 100u, 488u, 1023u, 1024u}) {
      off.push_back(total);
      len.push_back(m);
      total += m + 5;
    }
  }
  for (int big = 0; big < (small ? 1 : 4); ++big) {
    off.push_back(total);
    len.push_back((1u << 20) + 3);
    total += (1u << 20) + 3;
  }
  std::vector<uint8_t> data(total);
  for (uint32_t i = 0; i < total; ++i) data[i] = static_cast<uint8_t>(i * 7 + i / 256);
  const uint64_t seed = 0x1eaf5eedULL, j = 12345;
  const auto count = static_cast<uint32_t>(off.size());
  cuda::DeviceBuffer<uint8_t> d_data(total);
  cuda::DeviceBuffer<uint32_t> d_off(count), d_len(count);
  CHECK_CUDA(cudaMemcpy(d_data.get(), data.data(), total, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_off.get(), off.data(), count * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_len.get(), len.data(), count * 4, cudaMemcpyHostToDevice));
  leaf_kernel<<<(count + 63) / 64, 64>>>(d_data.get(), d_off.get(), d_len.get(), count, seed, j);
  CHECK_CUDA(cudaGetLastError());
  std::vector<uint8_t> got(total);
  CHECK_CUDA(cudaMemcpy(got.data(), d_data.get(), total, cudaMemcpyDeviceToHost));
  uint32_t handed_over = 0;  // leaves whose fast steps stopped at a word they could not accept
  for (uint32_t t = 0; t < count; ++t) {
    CountingNodeStream rng{PhiloxNodeStream(seed, j, 2, off[t])};
    fisher_yates(data.data() + off[t], len[t], 1, rng);
    handed_over += rng.first_maybe >= 4;
  }
  expect(got == data, "bucket_leaf: " + std::to_string(count) + " leaves of 0 to 2^20 + 3 samples equal fisher_yates on "
                      "their PhiloxNodeStream");
  expect(handed_over > 0, "bucket_leaf: " + std::to_string(handed_over) +
                              " leaves handed their draws to the exact method part way");
}

}  // namespace

std::vector<uint32_t> curand_xorwow_streams(uint64_t seed, int count, int words);  // curand_xorwow.cu

// --small: section 4 on short data only (n <= 1000), for compute-sanitizer's racecheck,
// which takes minutes on n = 70,001.
int main(int argc, char** argv) {
  if (const int skip = skip_status_without_gpu()) return skip;
  const bool small = argc > 1 && std::string(argv[1]) == "--small";
  int failures = 0, checks = 0;
  auto expect = [&](bool ok, const std::string& what) {
    ++checks;
    if (!ok) {
      ++failures;
      std::printf("FAIL %s\n", what.c_str());
    }
  };
  const auto lines = kat::read_lines(EA_TEST_KAT_DIR "/prngs.txt");

  // 1. State-based lines in a kernel.
  std::vector<KatJob> jobs;
  std::vector<const kat::Line*> src;
  for (const auto& l : lines) {
    const int kind = kat::kind_code(l.kind);
    if (kind == kat::kUnknownKind) continue;
    KatJob j{kat::gen_code(l.gen), kind, static_cast<int>(l.out.size()), {}};
    for (size_t i = 0; i < l.in.size() && i < kMaxIn; ++i) j.in[i] = l.in[i];
    jobs.push_back(j);
    src.push_back(&l);
  }
  cuda::DeviceBuffer<KatJob> d_jobs(jobs.size());
  cuda::DeviceBuffer<uint64_t> d_out(jobs.size() * kMaxOut);
  cuda::DeviceBuffer<int> d_ok(jobs.size());
  KatJob* djobs = d_jobs.get();
  uint64_t* dout = d_out.get();
  int* dok = d_ok.get();
  CHECK_CUDA(cudaMemcpy(djobs, jobs.data(), jobs.size() * sizeof(KatJob), cudaMemcpyHostToDevice));
  kat_kernel<<<1, 64>>>(djobs, dout, static_cast<int>(jobs.size()), dok);
  CHECK_CUDA(cudaGetLastError());
  std::vector<uint64_t> out(jobs.size() * kMaxOut);
  std::vector<int> ok(jobs.size());
  CHECK_CUDA(cudaMemcpy(out.data(), dout, out.size() * 8, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(ok.data(), dok, ok.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (size_t r = 0; r < jobs.size(); ++r) {
    bool same = ok[r] != 0;
    for (size_t i = 0; i < src[r]->out.size(); ++i) same = same && out[r * kMaxOut + i] == src[r]->out[i];
    expect(same, src[r]->kind + " " + src[r]->gen);
  }

  // 2. xorwow streams: the KAT lines and cuRAND itself.
  for (uint64_t seed : {0ULL, 1234ULL, 0x0123456789abcdefULL}) {
    StreamSet set(PrngId::Xorwow, seed, 64);
    DeviceSet ds(set);
    const int words = 6;
    uint32_t* d1;
    CHECK_CUDA(cudaMalloc(&d1, 64 * words * 4));
    xorwow_kernel<<<2, 32>>>(ds.view, d1, words);
    CHECK_CUDA(cudaGetLastError());
    std::vector<uint32_t> ours(64 * words);
    CHECK_CUDA(cudaMemcpy(ours.data(), d1, ours.size() * 4, cudaMemcpyDeviceToHost));
    cudaFree(d1);
    const std::vector<uint32_t> theirs = curand_xorwow_streams(seed, 64, words);
    expect(ours == theirs, "xorwow streams 0..63 equal cuRAND's curand_init(" + std::to_string(seed) + ", j, 0)");
    for (const auto& l : lines) {
      if (l.kind != "stream-out" || l.gen != "xorwow" || l.in[0] != seed) continue;
      bool same = true;
      for (size_t i = 0; i < l.out.size(); ++i) same = same && theirs[l.in[1] * words + i] == l.out[i];
      expect(same, "cuRAND xorwow KAT seed " + std::to_string(seed) + " stream " + std::to_string(l.in[1]));
    }
  }

  // 3. Every generator: permutation j's shuffle made in a kernel equals the host's.
  for (const PrngInfo& p : prng_table()) {
    const uint32_t count = 96;  // three lane groups
    StreamSet set(p.id, 1234, count);
    std::vector<uint8_t> ten(10), big(1000);
    for (int i = 0; i < 10; ++i) ten[i] = static_cast<uint8_t>(i);
    for (int i = 0; i < 1000; ++i) big[i] = static_cast<uint8_t>(i * 7);
    const auto dten = device_shuffles(set, ten, count), dbig = device_shuffles(set, big, count);
    bool same = true;
    for (uint32_t j = 0; j < count; ++j) {
      std::vector<uint8_t> h = big;
      shuffle_permutation(set, j, h.data(), h.size());
      same = same && h == dbig[j];
    }
    expect(same, std::string(p.name) + ": 96 shuffles of 1000 bytes in a kernel equal the host's");
    for (const auto& l : lines) {
      if (l.kind != "shuffle" || l.gen != p.name || l.in[0] != 1234) continue;
      expect(std::vector<uint64_t>(dten[l.in[1]].begin(), dten[l.in[1]].end()) == l.out,
             std::string(p.name) + " shuffle KAT j=" + std::to_string(l.in[1]));
    }
  }
  // 4. Every generator: targets drawn ahead for rows first .. first+rows-1 (a range that
  // starts and ends inside lane groups), shuffled by reservations, equal the host's.
  for (const PrngInfo& p : prng_table()) {
    const uint64_t first = 37;
    const uint32_t rows = 50;
    StreamSet set(p.id, 99, 96);
    DeviceSet ds(set);
    struct Kernel {
      uint32_t reservations, resident, low_bytes;
      const char* name;
    };
    const Kernel kernels[] = {{3, 0, 0, "rows in global memory"},
                              {5, 0, 992, "lowest 992 places in shared memory"},
                              {4, 4, 0, "rows packed in shared memory"}};
    // (n = 1,000,003: xoshiro256ss's segmented draws against its draws in order only)
    for (size_t n : {size_t{2}, size_t{9}, size_t{1000}, size_t{70001}, size_t{1000003}}) {
      if ((small && n > 1000) || (n > 100000 && p.id != PrngId::Xoshiro256ss)) continue;
      std::vector<uint8_t> start(n);
      for (size_t i = 0; i < n; ++i) start[i] = static_cast<uint8_t>((i * 37 + i / 100) & 15);
      cuda::DeviceBuffer<uint8_t> d_start(n), d_rows(n * rows);
      cuda::DeviceBuffer<uint32_t> d_targets(drawn_target_words(n, rows));
      CHECK_CUDA(cudaMemcpy(d_start.get(), start.data(), n, cudaMemcpyHostToDevice));
      const DrawnTargets src = launch_draw_targets(ds.view, d_targets.get(), n, first, rows, nullptr);
      CHECK_CUDA(cudaGetLastError());
      std::vector<uint32_t> in_order(drawn_target_words(n, rows));
      CHECK_CUDA(cudaMemcpy(in_order.data(), d_targets.get(), in_order.size() * 4, cudaMemcpyDeviceToHost));
      // The segmented draws (cuda/skip_draws.cuh: xoshiro256ss) give the same targets; and
      // the redraw of flagged rows (a rejected word, which practically never happens)
      // redraws exactly those rows, in order.
      if (p.id == PrngId::Xoshiro256ss) {
        const std::vector<uint32_t>& table = skip_table(p.id);
        cuda::DeviceBuffer<uint32_t> d_table(table.size()), d_flags(rows);
        CHECK_CUDA(cudaMemcpy(d_table.get(), table.data(), table.size() * 4, cudaMemcpyHostToDevice));
        const SkipDrawsView sk{d_table.get(), skip_draws_shape(n), d_flags.get()};
        cuda::DeviceBuffer<uint32_t> d_seg(drawn_target_words(n, rows));
        CHECK_CUDA(cudaMemset(d_seg.get(), 0x5a, d_seg.size() * 4));
        launch_draw_targets(ds.view, d_seg.get(), n, first, rows, nullptr, &sk);
        CHECK_CUDA(cudaGetLastError());
        std::vector<uint32_t> seg(d_seg.size());
        CHECK_CUDA(cudaMemcpy(seg.data(), d_seg.get(), seg.size() * 4, cudaMemcpyDeviceToHost));
        auto same_rows = [&](const std::vector<uint32_t>& got, uint32_t from, uint32_t step) {
          bool same = true;
          for (uint32_t q = from; q < rows; q += step)
            for (size_t i = 1; i < n; ++i) {
              const size_t at = src.index(q, static_cast<uint32_t>(i));
              same = same && got[at] == in_order[at];
            }
          return same;
        };
        expect(same_rows(seg, 0, 1), std::string(p.name) + ": segmented draws (" +
                                         std::to_string(sk.shape.segments) + " segments), n=" + std::to_string(n) +
                                         ": the targets of the draws in order");
        std::vector<uint32_t> flags(rows, 0);
        for (uint32_t q = 1; q < rows; q += 3) flags[q] = 1;
        CHECK_CUDA(cudaMemcpy(d_flags.get(), flags.data(), rows * 4, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemset(d_seg.get(), 0x5a, d_seg.size() * 4));
        visit_generator(p.id, [&](auto tag) {
          draw_targets_kernel<decltype(tag)><<<(rows + 31) / 32, 32>>>(d_seg.get(), n, rows, ds.view, first, d_flags.get());
        });
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaMemcpy(seg.data(), d_seg.get(), seg.size() * 4, cudaMemcpyDeviceToHost));
        bool untouched = true;
        for (uint32_t q = 0; q < rows; ++q)
          for (size_t i = 1; i < n && !flags[q]; ++i) untouched = untouched && seg[src.index(q, static_cast<uint32_t>(i))] == 0x5a5a5a5au;
        expect(same_rows(seg, 1, 3) && untouched, std::string(p.name) + ": flagged rows redrawn in order, n=" + std::to_string(n));
      }
      for (const Kernel& k : kernels) {
        if (n > 100000) break;
        if (k.resident && resident_shared(n, 2) == 0) continue;
        CHECK_CUDA(cudaMemset(d_rows.get(), 0xa5, n * rows));
        launch_row_shuffle(ShuffleConfig{32, rows, k.reservations, k.resident, 2, k.low_bytes}, d_rows.get(),
                           d_start.get(), n, src, rows, nullptr);
        CHECK_CUDA(cudaGetLastError());
        std::vector<uint8_t> got(n * rows);
        CHECK_CUDA(cudaMemcpy(got.data(), d_rows.get(), got.size(), cudaMemcpyDeviceToHost));
        bool same = true;
        for (uint32_t q = 0; q < rows; ++q) {
          std::vector<uint8_t> h = start;
          fisher_yates_permutation(set, first + q, h.data(), n);  // (the Fisher-Yates kernels: no bucket room)
          same = same && std::equal(h.begin(), h.end(), got.begin() + static_cast<std::ptrdiff_t>(q * n));
        }
        expect(same, std::string(p.name) + ": drawn targets, " + k.name + ", n=" + std::to_string(n) +
                         ": permutations 37..86 equal the host's");
      }
    }
  }
  // 5. The segmented draws flag exactly the rows with a rejected word, and the redraw of
  // those rows gives the draws in order (RejectingXoshiro above).
  auto check_flags = [&](auto bits) {
    using R = RejectingXoshiro<decltype(bits)::value>;
    const size_t n = (size_t{1} << decltype(bits)::value) + 1;
    const uint32_t rows = 50;
    const uint64_t first = 5;
    StreamSet set(PrngId::Xoshiro256ss, 31, first + rows);
    DeviceSet ds(set);
    const std::vector<uint32_t>& table = skip_table(PrngId::Xoshiro256ss);
    cuda::DeviceBuffer<uint32_t> d_table(table.size()), d_flags(rows), d_seg(drawn_target_words(n, rows)),
        d_in_order(drawn_target_words(n, rows));
    CHECK_CUDA(cudaMemcpy(d_table.get(), table.data(), table.size() * 4, cudaMemcpyHostToDevice));
    const SkipDrawsView sk{d_table.get(), skip_draws_shape(n), d_flags.get()};
    CHECK_CUDA(cudaMemset(d_flags.get(), 0, rows * 4));
    CHECK_CUDA(cudaMemset(d_seg.get(), 0x5a, d_seg.size() * 4));
    const uint64_t threads = uint64_t{rows} * sk.shape.segments;
    draw_words_kernel<R><<<static_cast<unsigned>((threads + 127) / 128), 128>>>(d_seg.get(), n, rows,
                                                                                             ds.view, first, sk);
    std::vector<uint32_t> flags(rows);
    CHECK_CUDA(cudaMemcpy(flags.data(), d_flags.get(), rows * 4, cudaMemcpyDeviceToHost));
    draw_targets_kernel<R><<<(rows + 31) / 32, 32>>>(d_seg.get(), n, rows, ds.view, first, d_flags.get());
    draw_targets_kernel<R><<<(rows + 31) / 32, 32>>>(d_in_order.get(), n, rows, ds.view, first);
    CHECK_CUDA(cudaGetLastError());
    std::vector<uint32_t> seg(d_seg.size()), in_order(d_in_order.size());
    CHECK_CUDA(cudaMemcpy(seg.data(), d_seg.get(), seg.size() * 4, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(in_order.data(), d_in_order.get(), in_order.size() * 4, cudaMemcpyDeviceToHost));
    int flagged = 0;
    bool flags_right = true;
    const DrawnTargets layout{nullptr, rows};
    bool same = true;
    for (uint32_t q = 0; q < rows; ++q) {
      // the host's draws in order: was any word rejected?
      R g = R::make(set.view(), first + q);
      bool rejected = false;
      for (size_t i = n - 1; i >= 1; --i) {
        uint32_t r = 0;
        while (!SkipAhead<R>::accepts(g.next64(), static_cast<uint32_t>(i), r)) rejected = true;
      }
      flags_right = flags_right && (flags[q] != 0) == rejected;
      flagged += rejected ? 1 : 0;
      for (size_t i = 1; i < n; ++i) same = same && seg[layout.index(q, static_cast<uint32_t>(i))] == in_order[layout.index(q, static_cast<uint32_t>(i))];
    }
    expect(flags_right && flagged > 0 && flagged < static_cast<int>(rows),
           "segmented draws flag exactly the rows with a rejected word (" + std::to_string(flagged) + " of 50, n=" +
               std::to_string(n) + ")");
    expect(same, "segmented draws with flagged rows redrawn equal the draws in order, n=" + std::to_string(n));
  };
  small ? check_flags(std::integral_constant<int, 10>{}) : check_flags(std::integral_constant<int, 16>{});
  check_bucket_kernels(expect, small);  // 6.
  check_bucket_leaf(expect, small);     // 7.
  std::printf("%s: %d checks, %d failures\n", failures ? "FAILED" : "passed", checks, failures);
  return failures ? 1 : 0;
}
