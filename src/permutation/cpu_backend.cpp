#include <omp.h>

#include <algorithm>
#include <exception>
#include <mutex>

#include "common/error.hpp"
#include "permutation/permutation.hpp"
#include "permutation/shuffle.hpp"
#include "rng/philox_stream.hpp"
#include "stats/compression.hpp"

namespace ea {

void cpu_statistics(const uint8_t* sym, size_t n, const uint8_t* raw_of, const StatParams& params, TestMask mask,
                    StatVector& out, CpuScratch& scratch) {
  const ByteView s = byte_view(sym, n);
  if (params.binary) {
    const MappedView<ByteView> raw{s, raw_of};
    const ConversionOneView<ByteView> c1{s};
    const ConversionTwoView<ByteView> c2{s};
    scratch.conv1.resize(c1.size());
    scratch.conv2.resize(c2.size());
    // Materialised once per permutation: cheaper on the CPU than recomputing per test.
    for (size_t b = 0; b < c1.size(); ++b) {
      scratch.conv1[b] = static_cast<uint8_t>(c1[b]);
      scratch.conv2[b] = static_cast<uint8_t>(c2[b]);
    }
    compute_statistics(s, raw, byte_view(scratch.conv1.data(), scratch.conv1.size()),
                       byte_view(scratch.conv2.data(), scratch.conv2.size()), params, mask, out);
  } else {
    // Raw values materialised once, so that the excursion and covariance loops read
    // plain bytes (and vectorise); skipped when translation is the identity.
    bool identity = true;
    for (uint32_t v = 0; v < params.alphabet; ++v) identity = identity && raw_of[v] == v;
    const uint8_t* raw = sym;
    if (!identity && (mask & (bit(TestId::kExcursion) | kLagMask))) {
      scratch.raw.resize(n);
      for (size_t i = 0; i < n; ++i) scratch.raw[i] = raw_of[sym[i]];
      raw = scratch.raw.data();
    }
    compute_statistics(s, byte_view(raw, n), s, s, params, mask, out);
  }
}

namespace {

class CpuBackend final : public PermutationBackend {
 public:
  CpuBackend(const PermutationData& data, int threads) : data_(data), threads_(std::max(1, threads)) {
    workers_.resize(static_cast<size_t>(threads_));
  }

  std::string name() const override { return "cpu"; }
  TestMask supported() const override { return kAllTests; }

  uint32_t round_size(uint32_t round, TestMask mask) const override {
    // A bzip2 compression takes a few hundred milliseconds: rounds of one permutation per
    // thread waste at most threads-1 of them when the test is decided.
    if (mask & bit(TestId::kCompression)) return static_cast<uint32_t>(threads_);
    // Start small (IID data decides most tests within a few dozen permutations), then
    // grow so that long runs keep every thread busy.
    uint32_t base = static_cast<uint32_t>(std::max(16, 2 * threads_));
    return base << std::min<uint32_t>(round, 5);
  }

  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    std::exception_ptr failure;
    std::mutex failure_mutex;
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
    for (int64_t r = 0; r < static_cast<int64_t>(count); ++r) {
      try {
        Worker& w = workers_[static_cast<size_t>(omp_get_thread_num())];
        permutation(first + static_cast<uint64_t>(r), mask, w, outcomes + r * kNumTests);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
  }

 private:
  struct Worker {
    std::vector<uint8_t> buffer;
    CpuScratch scratch;
    Compressor compressor;
  };

  void permutation(uint64_t j, TestMask mask, Worker& w, uint8_t* row) {
    w.buffer.assign(data_.symbols, data_.symbols + data_.n);
    PhiloxStream rng(data_.seed, j);
    fisher_yates_prefetched(w.buffer.data(), data_.n, rng);
    StatVector sv;
    cpu_statistics(w.buffer.data(), data_.n, data_.raw_of, data_.params, mask & kAllFastTests, sv, w.scratch);
    if (mask & bit(TestId::kCompression)) {
      sv.v[kNumFastTests] =
          static_cast<double>(w.compressor.compressed_length(w.buffer.data(), data_.n, data_.raw_of));
    }
    for (int t = 0; t < kNumTests; ++t) {
      if (!(mask & bit(t))) {
        row[t] = kNotComputed;
      } else {
        double a = sv.v[t], b = data_.original.v[t];
        row[t] = a > b ? kGreater : (a == b ? kEqual : kLess);
      }
    }
  }

  PermutationData data_;
  int threads_;
  std::vector<Worker> workers_;
};

}  // namespace

std::unique_ptr<PermutationBackend> make_cpu_backend(const PermutationData& data, int threads) {
  return std::make_unique<CpuBackend>(data, threads);
}

}  // namespace ea
