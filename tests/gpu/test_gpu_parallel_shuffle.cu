// The block-per-permutation shuffle (cuda/parallel_shuffle.cuh: by reservations with 3 and
// 64 blocks in flight) against the host: every
// column of a batch shuffled by launch_shuffle() with it, for several sizes, slices and
// stream offsets, equals fisher_yates() with PhiloxGen(seed, first + q) on the host, and the
// columns outside the round are untouched. Then the time of the kernels for rounds of
// 128, 1024 and 10,000 permutations of 1,000,000 samples (information, not a check).
// The resident variant (the row packed in shared memory) is checked for symbols of 1, 2, 4
// and 8 bits wherever the row fits, and timed on binary data; rows in global memory also with
// their lowest places in shared memory (reservation_shuffle_kernel<T, true>), timed for several sizes.
// Exit 77 (ctest: skipped) when no GPU is usable. Options: --no-timing, --small.
#include <cuda_runtime.h>

#include "check_cuda.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "permutation/shuffle.hpp"
#include "rng/generators.hpp"
#include "rng/stream_set.hpp"
#include "shuffle_launch.cuh"

using namespace ea;

namespace {

StreamSetView philox_view(uint64_t seed) {
  StreamSetView v{};
  v.id = PrngId::Philox;
  v.seed = seed;
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (const int skip = skip_status_without_gpu()) return skip;
  // --no-timing: the checks only; --small: only the sizes up to 65,536 samples (for
  // compute-sanitizer racecheck, which is slow).
  const KernelTestOptions opt = kernel_test_options(argc, argv);
  const bool timing = opt.timing, small = opt.small;
  int failures = 0, checks = 0;
  cudaStream_t st;
  CHECK_CUDA(cudaStreamCreate(&st));
  struct Case {
    size_t n;
    uint32_t count, parallel;
    uint64_t seed, first;
  };
  const Case cases[] = {{2, 5, 2, 1, 0},           {3, 40, 7, 2, 11},        {1000, 37, 16, 3, 5},
                        {1000, 37, 37, 4, 0},      {10007, 70, 64, 5, 1000}, {65536, 9, 4, 0xfeedfacecafebeefull, 9999},
                        {1000000, 6, 3, 7, 12345}, {1000000, 3, 1024, 1, 0}};
  // By reservations with the rows in global memory (3 or 64 blocks, 0), and with the rows packed in shared memory (3 or 64 blocks both), the
  // latter for symbols of 1, 2, 4 and 8 bits where the row fits.
  // Rows in global memory also with their lowest 992, 65,536 or as many places as fit
  // (low-shared's choice) in shared memory.
  struct Kernel {
    uint32_t reservations, resident, low_bytes;
  };
  const uint32_t low_max = low_shared_bytes();
  const Kernel kernels[] = {{3, 0, 0},       {64, 0, 0}, {3, 0, 992}, {64, 0, 65536},
                            {64, 0, low_max}, {3, 3, 0},  {64, 64, 0}};
  for (const Case& c : cases)
    for (const Kernel kernel : kernels)
      for (uint32_t log_bits = kernel.resident ? 0 : 3; log_bits < 4; ++log_bits) {
      if (small && c.n > 65536) continue;
      const bool resident = kernel.resident > 0;
      if (resident && resident_shared(c.n, log_bits) == 0) continue;  // the global kernel's case
      const uint32_t reservations = kernel.reservations;
      const size_t stride = c.count + 3;  // columns count .. count+2 must stay as they are
      std::vector<uint8_t> symbols(c.n);
      const uint32_t mask = (2u << ((1u << log_bits) - 1)) - 1;
      for (size_t i = 0; i < c.n; ++i) symbols[i] = static_cast<uint8_t>((i * 131 + i / 256) & mask);
      cuda::DeviceBuffer<uint8_t> d_symbols(c.n), batch(c.n * stride), scratch;
      CHECK_CUDA(cudaMemcpy(d_symbols.get(), symbols.data(), c.n, cudaMemcpyHostToDevice));
      CHECK_CUDA(cudaMemset(batch.get(), 0xa5, c.n * stride));
      ++checks;
      if (symbol_log_bits(symbols.data(), c.n) > log_bits) {  // the packing's requirement
        ++failures;
        std::printf("FAIL n=%zu: symbol_log_bits is above %u\n", c.n, log_bits);
      }
      launch_shuffle(ShuffleConfig{32, c.parallel, reservations, kernel.resident, log_bits, kernel.low_bytes},
                     scratch, st, batch.get(), stride, c.count, d_symbols.get(), c.n, philox_view(c.seed), c.first);
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(cudaStreamSynchronize(st));
      std::vector<uint8_t> got(c.n * stride);
      CHECK_CUDA(cudaMemcpy(got.data(), batch.get(), got.size(), cudaMemcpyDeviceToHost));
      const bool used = scratch.size() > 0;
      ++checks;
      if (!used) {
        ++failures;
        std::printf("FAIL n=%zu: the block-per-permutation kernel did not run\n", c.n);
      }
      for (uint32_t q = 0; q < stride; ++q) {
        std::vector<uint8_t> want = symbols;
        if (q < c.count) {
          PhiloxGen rng(c.seed, c.first + q);
          fisher_yates(want.data(), c.n, 1, rng);
        } else {
          want.assign(c.n, 0xa5);
        }
        size_t bad = 0;
        for (size_t i = 0; i < c.n; ++i) bad += got[i * stride + q] != want[i];
        ++checks;
        if (bad) {
          ++failures;
          std::printf(
              "FAIL n=%zu count=%u parallel=%u reservations=%u resident=%u low=%u bits=%u seed=%llu first=%llu column "
              "%u: %zu samples differ\n",
              c.n, c.count, c.parallel, reservations, kernel.resident, kernel.low_bytes, 1u << log_bits,
              static_cast<unsigned long long>(c.seed), static_cast<unsigned long long>(c.first), q, bad);
        }
      }
    }
  std::printf("%d checks, %d failed\n", checks, failures);
  if (timing && failures == 0) {
    const size_t n = 1000000;
    std::vector<uint8_t> symbols(n);
    for (size_t i = 0; i < n; ++i) symbols[i] = static_cast<uint8_t>(i);
    cuda::DeviceBuffer<uint8_t> d_symbols(n), scratch;
    CHECK_CUDA(cudaMemcpy(d_symbols.get(), symbols.data(), n, cudaMemcpyHostToDevice));
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    for (uint32_t count : {128u, 1024u, 10000u}) {
      cuda::DeviceBuffer<uint8_t> batch(n * count);
      struct Variant {
        uint32_t parallel, reservations;
      };
      for (const Variant v : {Variant{0, 0}, Variant{2048, 33}, Variant{2048, 66}, Variant{2048, 132},
                              Variant{10000, 33}, Variant{10000, 48}, Variant{10000, 66}, Variant{10000, 132}}) {
        if (v.parallel > count && v.parallel != 1024u && v.parallel != 2048u) continue;
        float ms = 0;
        for (int rep = 0; rep < 2; ++rep) {  // the first run loads the kernel
          CHECK_CUDA(cudaEventRecord(a, st));
          launch_shuffle(ShuffleConfig{32, v.parallel, v.reservations}, scratch, st, batch.get(), count, count,
                         d_symbols.get(), n, philox_view(1), 0);
          CHECK_CUDA(cudaEventRecord(b, st));
          CHECK_CUDA(cudaEventSynchronize(b));
          CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        }
        std::printf("timing: %5u permutations of 1,000,000 samples, parallel-shuffle=%u reservations=%u: %8.1f ms\n",
                    count, v.parallel, v.reservations, ms);
      }
      // The reservation kernel with 256 and 1,024 threads (windows of 1,024 and 4,096 steps;
      // the default has 512), one or two blocks per SM, straight into rows (information only).
      if (count >= 1024) {
        int sms = 0;
        CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        auto time_rows = [&](auto kernel, uint32_t threads, size_t shared, uint32_t low_bytes = 0) {
          shared += low_bytes;
          CHECK_CUDA(
              cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
          for (uint32_t per_sm : {1u, 2u}) {
            if (threads * per_sm > 1024 || (per_sm > 1 && low_bytes > 0)) continue;
            float ms = 0;
            for (int rep = 0; rep < 2; ++rep) {
              CHECK_CUDA(cudaEventRecord(a, st));
              kernel<<<per_sm* static_cast<uint32_t>(sms), threads, shared, st>>>(batch.get(), d_symbols.get(), n, PhiloxTargets{1, 0},
                                                                                  count, low_bytes);
              CHECK_CUDA(cudaEventRecord(b, st));
              CHECK_CUDA(cudaEventSynchronize(b));
              CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
            }
            std::printf(
                "timing: %5u permutations of 1,000,000 samples, %u threads by reservations, %u blocks per SM, "
                "lowest %u places in shared memory: %8.1f ms (rows only)\n",
                count, threads, per_sm, low_bytes, ms);
          }
        };
        // Binary data: the row packed in shared memory against the row in global memory.
        {
          std::vector<uint8_t> bits(n);
          for (size_t i = 0; i < n; ++i) bits[i] = static_cast<uint8_t>((i * 2654435761u) >> 31);
          cuda::DeviceBuffer<uint8_t> d_bits(n);
          CHECK_CUDA(cudaMemcpy(d_bits.get(), bits.data(), n, cudaMemcpyHostToDevice));
          for (uint32_t resident : {0u, static_cast<uint32_t>(sms)}) {
            float ms = 0;
            for (int rep = 0; rep < 2; ++rep) {
              CHECK_CUDA(cudaEventRecord(a, st));
              launch_row_shuffle(ShuffleConfig{32, count, static_cast<uint32_t>(sms), resident, 0}, batch.get(),
                                 d_bits.get(), n, 1, 0, count, st);
              CHECK_CUDA(cudaEventRecord(b, st));
              CHECK_CUDA(cudaEventSynchronize(b));
              CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
            }
            std::printf("timing: %5u permutations of 1,000,000 binary samples by reservations, row in %s memory: "
                        "%8.1f ms (rows only)\n",
                        count, resident ? "shared" : "global", ms);
          }
        }
        time_rows(reservation_shuffle_kernel<256>, 256, reservation_shuffle_shared<256>());
        time_rows(reservation_shuffle_kernel<512>, 512, reservation_shuffle_shared<512>());
        for (uint32_t low : {16384u, 32768u, 65536u, 98304u, 131072u, 145408u})
          time_rows(reservation_shuffle_kernel<512, true>, 512, reservation_shuffle_shared<512>(), low);
        time_rows(reservation_shuffle_kernel<1024>, 1024, reservation_shuffle_shared<1024>());
      }
    }
  }
  return failures ? 1 : 0;
}
