// The statistics by a block per permutation (cuda/block_statistics.cuh: the block kernel,
// and the fused one-pass kernel for non-binary data) against the CPU: for data sets of 1, 4
// and 8 bits (binary ones through the conversions), short ones
// (fewer samples than threads, partial conversion blocks) and a million samples, every row
// of random permutations gives exactly cpu_statistics()'s 18 values, and outcomes that
// compare them with the original as the CPU does; tests outside the mask stay untouched.
// Rows lie n bytes apart, so odd n puts them at every alignment. Then the kernels' time for rounds of 1,024 and 2,048
// permutations of 1,000,000 samples (information, not a check). Exit 77 (ctest: skipped) when no GPU is usable.
// Options: --no-timing; --small: only the cases up to 100,003 samples (compute-sanitizer).
#include <cuda_runtime.h>

#include "check_cuda.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "block_statistics.cuh"
#include "device_buffer.cuh"
#include "permutation/permutation.hpp"
#include "permutation/shuffle.hpp"
#include "rng/generators.hpp"

using namespace ea;

namespace {

struct Case {
  size_t n;
  int bits;  // 1, 4 or 8
  uint32_t rows;
  TestMask mask;
  const char* pattern;  // "random", "runs" (repeated values), "ramp"
};

// Translated symbols 0..k-1 of a data set, its raw values and parameters, as the pipeline
// makes them (raw_of maps symbol -> raw byte; here raw = 3 * symbol + 1, except for random 8-bit
// data, whose raw values are the symbols, as in a file that uses all 256 values).
struct Data {
  std::vector<uint8_t> symbols;
  uint8_t raw_of[256];
  StatParams params;
};

Data make_data(const Case& c, std::mt19937_64& rng) {
  Data d;
  const uint32_t k = 1u << c.bits;
  d.symbols.resize(c.n);
  const std::string p = c.pattern;
  for (size_t i = 0; i < c.n; ++i) {
    uint32_t v = static_cast<uint32_t>(rng() % k);
    if (p == "runs" && i > 0 && rng() % 3 == 0) v = d.symbols[i - 1];
    if (p == "ramp") v = static_cast<uint32_t>((i / 7) % k);
    d.symbols[i] = static_cast<uint8_t>(v);
  }
  for (int s = 0; s < 256; ++s)
    d.raw_of[s] = static_cast<uint8_t>(c.bits == 1 || (c.bits == 8 && p == "random") ? s : 3 * s + 1);
  double sum = 0;
  for (uint8_t s : d.symbols) sum += d.raw_of[s];
  std::vector<uint8_t> sorted = d.symbols;
  std::sort(sorted.begin(), sorted.end());
  const double median = c.n == 0 ? 0.0 : (c.n % 2 ? sorted[c.n / 2] : (sorted[c.n / 2 - 1] + sorted[c.n / 2]) / 2.0);
  d.params = StatParams{c.n ? sum / static_cast<double>(c.n) : 0.0, median, c.bits == 1, k};
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  if (const int skip = skip_status_without_gpu()) return skip;
  const KernelTestOptions opt = kernel_test_options(argc, argv);
  const bool timing = opt.timing, small = opt.small;
  constexpr int T = kBlockStatisticsThreads;
  const TestMask some = kCollisionMask | bit(TestId::kPeriodicity1) | bit(TestId::kCovariance1) |
                        bit(static_cast<int>(TestId::kPeriodicity1) + 3) | kMedianMask;
  const Case cases[] = {
      {2, 8, 3, kAllFastTests, "random"},       {3, 8, 3, kAllFastTests, "random"},
      {17, 4, 4, kAllFastTests, "runs"},        {255, 8, 4, kAllFastTests, "random"},
      {256, 1, 4, kAllFastTests, "random"},     {257, 8, 4, kAllFastTests, "runs"},
      {1001, 1, 5, kAllFastTests, "runs"},      {4097, 4, 5, kAllFastTests, "random"},
      {65537, 8, 5, kAllFastTests, "runs"},     {65537, 8, 5, some, "random"},
      {100003, 4, 5, kAllFastTests, "ramp"},    {1000000, 8, 4, kAllFastTests, "random"},
      {1000000, 1, 4, kAllFastTests, "random"}, {1000000, 1, 3, some, "runs"},
      {1000000, 4, 3, kAllFastTests, "runs"},
  };
  std::mt19937_64 rng(20261124);
  int failures = 0, checks = 0;
  CpuScratch scratch;
  for (const Case& c : cases) {
    if (small && c.n > 100003) continue;
    const Data d = make_data(c, rng);
    // Row 0 is the data itself (every outcome kEqual), the others random permutations.
    std::vector<uint8_t> rows(c.n * c.rows);
    std::vector<uint8_t> perm = d.symbols;
    for (uint32_t r = 0; r < c.rows; ++r) {
      if (r > 0) std::shuffle(perm.begin(), perm.end(), rng);
      std::copy(perm.begin(), perm.end(), rows.begin() + static_cast<ptrdiff_t>(r * c.n));
    }
    DeviceStatInput in{};
    in.params = d.params;
    std::memcpy(in.raw_of, d.raw_of, 256);
    cpu_statistics(d.symbols.data(), c.n, d.raw_of, d.params, kAllFastTests, in.original, scratch);
    ea::cuda::DeviceBuffer<uint8_t> d_rows(rows.size() + kFusedRowPad), d_out(c.rows * kNumTests);
    ea::cuda::DeviceBuffer<double> d_values(c.rows * kNumTests);
    ea::cuda::DeviceBuffer<DeviceStatInput> d_in(1);
    CHECK_CUDA(cudaMemcpy(d_rows.get(), rows.data(), rows.size(), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_in.get(), &in, sizeof in, cudaMemcpyHostToDevice));
    for (int fused = 0; fused < (c.bits == 1 ? 1 : 2); ++fused) {
      const char* kernel = fused ? "fused" : "block";
      CHECK_CUDA(cudaMemset(d_out.get(), kNotComputed, c.rows * kNumTests));
      if (fused) {
        fused_statistics_kernel<T>
            <<<c.rows, T, kBlockStatisticsShared>>>(d_rows.get(), c.n, c.mask, d_in.get(), d_out.get(), d_values.get());
      } else {
        block_statistics_kernel<T>
            <<<c.rows, T, kBlockStatisticsShared>>>(d_rows.get(), c.n, c.mask, d_in.get(), d_out.get(), d_values.get());
      }
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(cudaDeviceSynchronize());
      std::vector<uint8_t> out(c.rows * kNumTests);
      std::vector<double> values(c.rows * kNumTests);
      CHECK_CUDA(cudaMemcpy(out.data(), d_out.get(), out.size(), cudaMemcpyDeviceToHost));
      CHECK_CUDA(cudaMemcpy(values.data(), d_values.get(), values.size() * sizeof(double), cudaMemcpyDeviceToHost));
      int bad = 0;
      for (uint32_t r = 0; r < c.rows; ++r) {
        StatVector want{};
        cpu_statistics(rows.data() + r * c.n, c.n, d.raw_of, d.params, kAllFastTests, want, scratch);
        for (int t = 0; t < kNumFastTests; ++t) {
          const uint8_t o = out[r * kNumTests + t];
          ++checks;
          if (!(c.mask & bit(t))) {
            if (o != kNotComputed) {
              ++bad;
              std::printf("FAIL %s n=%zu bits=%d row %u test %d: outside the mask but written\n", kernel, c.n, c.bits,
                          r, t);
            }
            continue;
          }
          const double got = values[r * kNumTests + t], w = want.v[t], orig = in.original.v[t];
          const uint8_t want_o = w > orig ? kGreater : (w == orig ? kEqual : kLess);
          if (got != w || o != want_o) {
            ++bad;
            std::printf("FAIL %s n=%zu bits=%d %s row %u test %d: GPU %.17g (outcome %d), CPU %.17g (outcome %d)\n",
                        kernel, c.n, c.bits, c.pattern, r, t, got, o, w, want_o);
          }
        }
      }
      failures += bad;
      std::printf("%s %s n=%zu bits=%d %s, %u rows: %s\n", bad ? "FAIL" : "ok  ", kernel, c.n, c.bits, c.pattern,
                  c.rows, bad ? "differences above" : "every statistic equals the CPU's");
    }
  }
  // Binary data shuffled and tested in shared memory (resident_fused_kernel): every row's
  // statistics equal cpu_statistics() of fisher_yates() with PhiloxGen(seed, first + q) on
  // the host; 3 blocks (several rows each, the table cleared between them) and 64.
  for (const Case& c : cases) {
    if (c.bits != 1 || (small && c.n > 100003)) continue;
    const Data d = make_data(c, rng);
    DeviceStatInput in{};
    in.params = d.params;
    std::memcpy(in.raw_of, d.raw_of, 256);
    cpu_statistics(d.symbols.data(), c.n, d.raw_of, d.params, kAllFastTests, in.original, scratch);
    const uint32_t count = c.rows + 4;
    const uint64_t seed = 7 + c.n, first = 100;
    ea::cuda::DeviceBuffer<uint8_t> d_symbols(c.n), d_out(count * kNumTests);
    ea::cuda::DeviceBuffer<double> d_values(count * kNumTests);
    ea::cuda::DeviceBuffer<DeviceStatInput> d_in(1);
    CHECK_CUDA(cudaMemcpy(d_symbols.get(), d.symbols.data(), c.n, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_in.get(), &in, sizeof in, cudaMemcpyHostToDevice));
    for (uint32_t blocks : {3u, 64u}) {
      CHECK_CUDA(cudaMemset(d_out.get(), kNotComputed, count * kNumTests));
      const bool ran = launch_resident_fused(d_symbols.get(), c.n, seed, first, count, blocks, c.mask, d_in.get(),
                                             d_out.get(), d_values.get(), 0);
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(cudaDeviceSynchronize());
      ++checks;
      if (!ran) {
        ++failures;
        std::printf("FAIL resident fused n=%zu: the row does not fit shared memory\n", c.n);
        continue;
      }
      std::vector<uint8_t> out(count * kNumTests);
      std::vector<double> values(count * kNumTests);
      CHECK_CUDA(cudaMemcpy(out.data(), d_out.get(), out.size(), cudaMemcpyDeviceToHost));
      CHECK_CUDA(cudaMemcpy(values.data(), d_values.get(), values.size() * sizeof(double), cudaMemcpyDeviceToHost));
      int bad = 0;
      for (uint32_t q = 0; q < count; ++q) {
        std::vector<uint8_t> perm = d.symbols;
        PhiloxGen gen(seed, first + q);
        fisher_yates(perm.data(), c.n, 1, gen);
        StatVector want{};
        cpu_statistics(perm.data(), c.n, d.raw_of, d.params, kAllFastTests, want, scratch);
        for (int t = 0; t < kNumFastTests; ++t) {
          ++checks;
          const uint8_t o = out[q * kNumTests + t];
          if (!(c.mask & bit(t))) {
            bad += o != kNotComputed;
            continue;
          }
          const double got = values[q * kNumTests + t], w = want.v[t], orig = in.original.v[t];
          const uint8_t want_o = w > orig ? kGreater : (w == orig ? kEqual : kLess);
          if (got != w || o != want_o) {
            ++bad;
            std::printf(
                "FAIL resident fused n=%zu %s blocks %u row %u test %d: GPU %.17g (outcome %d), CPU %.17g "
                "(outcome %d)\n",
                c.n, c.pattern, blocks, q, t, got, o, w, want_o);
          }
        }
      }
      failures += bad;
      std::printf("%s resident fused n=%zu bits=1 %s, %u rows, %u blocks: %s\n", bad ? "FAIL" : "ok  ", c.n, c.pattern,
                  count, blocks, bad ? "differences above" : "every statistic equals the CPU's");
    }
  }
  std::printf("%d checks, %d failed\n", checks, failures);
  if (timing && failures == 0) {
    const size_t n = 1000000;
    for (int bits : {8, 1}) {
      const Case c{n, bits, 1, kAllFastTests, "random"};
      const Data d = make_data(c, rng);
      DeviceStatInput in{};
      in.params = d.params;
      std::memcpy(in.raw_of, d.raw_of, 256);
      cpu_statistics(d.symbols.data(), n, d.raw_of, d.params, kAllFastTests, in.original, scratch);
      ea::cuda::DeviceBuffer<DeviceStatInput> d_in(1);
      CHECK_CUDA(cudaMemcpy(d_in.get(), &in, sizeof in, cudaMemcpyHostToDevice));
      for (uint32_t count : {1024u, 2048u, 10000u}) {
        ea::cuda::DeviceBuffer<uint8_t> d_rows(n * count + kFusedRowPad), d_out(count * kNumTests);
        for (uint32_t r = 0; r < count; ++r) {
          CHECK_CUDA(cudaMemcpy(d_rows.get() + r * n, d.symbols.data(), n, cudaMemcpyHostToDevice));
        }
        cudaEvent_t a, b;
        CHECK_CUDA(cudaEventCreate(&a));
        CHECK_CUDA(cudaEventCreate(&b));
        float ms = 0;
        for (int rep = 0; rep < 2; ++rep) {
          CHECK_CUDA(cudaEventRecord(a));
          block_statistics_kernel<T>
              <<<count, T, kBlockStatisticsShared>>>(d_rows.get(), n, kAllFastTests, d_in.get(), d_out.get(), nullptr);
          CHECK_CUDA(cudaEventRecord(b));
          CHECK_CUDA(cudaEventSynchronize(b));
          CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        }
        std::printf("timing: block statistics, %u permutations of 1,000,000 %d-bit samples: %.1f ms\n", count, bits,
                    ms);
        if (bits != 1) {
          for (int rep = 0; rep < 2; ++rep) {
            CHECK_CUDA(cudaEventRecord(a));
            fused_statistics_kernel<T><<<count, T, kBlockStatisticsShared>>>(d_rows.get(), n, kAllFastTests, d_in.get(),
                                                                             d_out.get(), nullptr);
            CHECK_CUDA(cudaEventRecord(b));
            CHECK_CUDA(cudaEventSynchronize(b));
            CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
          }
          std::printf("timing: fused statistics, %u permutations of 1,000,000 %d-bit samples: %.1f ms\n", count, bits,
                      ms);
        } else {
          int sms = 0;
          CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
          for (int rep = 0; rep < 2; ++rep) {
            CHECK_CUDA(cudaEventRecord(a));
            (void)launch_resident_fused(d_rows.get(), n, 1, 0, count, static_cast<uint32_t>(sms), kAllFastTests,
                                        d_in.get(), d_out.get(), nullptr, 0);
            CHECK_CUDA(cudaEventRecord(b));
            CHECK_CUDA(cudaEventSynchronize(b));
            CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
          }
          std::printf(
              "timing: shuffled and tested in shared memory (resident fused), %u permutations of 1,000,000 "
              "binary samples: %.1f ms\n",
              count, ms);
        }
        if (count != 1024) continue;  // (10,000: a full round)
        // Where the time goes: each merged test group alone.
        const struct {
          const char* name;
          TestMask mask;
        } groups[] = {{"excursion", bit(TestId::kExcursion)},
                      {"directional", kDirectionalMask},
                      {"median", kMedianMask},
                      {"collisions", kCollisionMask},
                      {"lag 1", bit(TestId::kPeriodicity1) | bit(TestId::kCovariance1)},
                      {"lag 32", bit(static_cast<int>(TestId::kPeriodicity1) + 4) |
                                     bit(static_cast<int>(TestId::kCovariance1) + 4)}};
        for (const auto& g : groups) {
          for (int rep = 0; rep < 2; ++rep) {
            CHECK_CUDA(cudaEventRecord(a));
            block_statistics_kernel<T>
                <<<count, T, kBlockStatisticsShared>>>(d_rows.get(), n, g.mask, d_in.get(), d_out.get(), nullptr);
            CHECK_CUDA(cudaEventRecord(b));
            CHECK_CUDA(cudaEventSynchronize(b));
            CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
          }
          std::printf("timing:   %s alone: %.1f ms\n", g.name, ms);
        }
      }
    }
  }
  return failures ? 1 : 0;
}
