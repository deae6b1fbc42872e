#include <omp.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>

#include "common/error.hpp"
#include "permutation/engine_shuffle.hpp"
#include "permutation/permutation.hpp"
#include "permutation/shuffle.hpp"
#include "rng/generators.hpp"
#include "rng/lane_group.hpp"
#include "stats/bzip2_cpu.hpp"
#include "stats/compression.hpp"
#include "stats/host_statistics.hpp"

namespace ea {

void cpu_statistics(const uint8_t* sym, size_t n, const uint8_t* raw_of, const StatParams& params, TestMask mask,
                    StatVector& out, CpuScratch& scratch) {
  const ByteView s = byte_view(sym, n);
  if (params.binary) {
    const size_t blocks = (n + 7) / 8;
    scratch.conv1.resize(blocks);
    scratch.conv2.resize(blocks);
    if (host_statistics_available()) {
      // The conversions 8 bits at a time; raw values materialised for the excursion.
      host_conversions(sym, n, scratch.conv1.data(), scratch.conv2.data());
      bool identity = raw_of[0] == 0 && raw_of[1] == 1;
      const uint8_t* raw = sym;
      if (!identity && (mask & bit(TestId::kExcursion))) {
        scratch.raw.resize(n);
        for (size_t i = 0; i < n; ++i) scratch.raw[i] = raw_of[sym[i]];
        raw = scratch.raw.data();
      }
      const HostStatInputs in{raw,   sym, n, scratch.conv1.data(), scratch.conv1.data(), blocks, scratch.conv2.data(),
                              blocks};
      host_statistics_parts(in, params.mean, 0.5, mask, out);
      return;
    }
    const MappedView<ByteView> raw{s, raw_of};
    const ConversionOneView<ByteView> c1{s};
    const ConversionTwoView<ByteView> c2{s};
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
    if (host_statistics_available()) {
      host_statistics_bytes(sym, raw, n, params, mask, out);
    } else {
      compute_statistics(s, byte_view(raw, n), s, s, params, mask, out);
    }
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
    // thread waste at most threads-1 of them when the test is decided. Generators whose
    // lanes are coupled make 32 permutations at a time: one lane group then.
    if (mask & bit(TestId::kCompression)) return grouped_ ? kLaneGroup : static_cast<uint32_t>(threads_);
    // Whole groups for every thread.
    if (grouped_) return kLaneGroup * static_cast<uint32_t>(threads_);
    // Start small (IID data decides most tests within a few dozen permutations), then
    // grow so that long runs keep every thread busy, but to rounds of about kRoundSeconds
    // at most: an interrupt is seen between rounds (with one thread on a 2-core machine a
    // round of 512 permutations of 10^6 samples took 2 s; a Ctrl-C must act within a
    // second). The counters do not depend on the round sizes.
    const uint32_t base = static_cast<uint32_t>(std::max(16, 2 * threads_));
    const uint32_t grown = base << std::min<uint32_t>(round, 5);
    if (seconds_per_permutation_ <= 0) return grown;
    const double fit = kRoundSeconds * threads_ / seconds_per_permutation_;
    const uint32_t cap = static_cast<uint32_t>(std::min<double>(grown, std::max<double>(threads_, fit)));
    return std::max<uint32_t>(1, cap / static_cast<uint32_t>(threads_) * static_cast<uint32_t>(threads_));
  }

  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    if (count == 0) return;
    if (grouped_) {
      run_grouped(first, count, mask, outcomes);
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    parallel_for(first, first + count, [&](uint64_t j, Worker& w) {
      w.buffer.assign(data_.symbols, data_.symbols + data_.n);
      engine_shuffle_cpu(data_.streams, data_.shuffle, data_.params.binary, j, w.buffer.data(), data_.n, w.shuffle);
      evaluate(w.buffer.data(), mask, w, outcomes + (j - first) * kNumTests);
    });
    if (!(mask & bit(TestId::kCompression))) {
      // Wall seconds per permutation on each thread (a round of fewer permutations than
      // threads leaves some idle: counted as if it had filled them).
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      seconds_per_permutation_ = wall * std::min<uint32_t>(count, static_cast<uint32_t>(threads_)) / count;
    }
  }

 private:
  static constexpr double kRoundSeconds = 0.25;
  struct Worker {
    std::vector<uint8_t> buffer;
    EngineShuffleScratch shuffle;  // the engine's shuffle's (engine_shuffle.hpp)
    CpuScratch scratch;
    Compressor compressor;
    Bzip2SizeModel model;
  };

  // body(i, worker) for i in [begin, end) on the backend's threads; the first exception
  // is rethrown once every thread has finished.
  template <class Body>
  void parallel_for(uint64_t begin, uint64_t end, const Body& body) {
    std::exception_ptr failure;
    std::mutex failure_mutex;
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
    for (int64_t i = static_cast<int64_t>(begin); i < static_cast<int64_t>(end); ++i) {
      try {
        body(static_cast<uint64_t>(i), workers_[static_cast<size_t>(omp_get_thread_num())]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
  }

  // Coupled lanes: the lane groups overlapping [first, first + count), a chunk of them at
  // a time. Each group is shuffled by one thread (its lanes advance in lockstep), then
  // the chunk's permutations are evaluated one per thread, so that a round's bzip2 runs
  // spread over every thread. A chunk holds at most `threads` groups and about 1 GiB.
  void run_grouped(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) {
    const uint64_t g0 = first / kLaneGroup, g1 = (first + count - 1) / kLaneGroup + 1;
    const size_t group_bytes = static_cast<size_t>(kLaneGroup) * data_.n;
    const uint64_t chunk = std::max<uint64_t>(
        1, std::min<uint64_t>(static_cast<uint64_t>(threads_), (size_t{1} << 30) / std::max<size_t>(1, group_bytes)));
    for (uint64_t c0 = g0; c0 < g1; c0 += chunk) {
      const uint64_t c1 = std::min(g1, c0 + chunk);
      lanes_.resize(static_cast<size_t>(c1 - c0) * group_bytes);
      parallel_for(c0, c1, [&](uint64_t g, Worker&) {
        uint8_t* buffers[kLaneGroup];
        for (uint32_t k = 0; k < kLaneGroup; ++k) {
          buffers[k] = lanes_.data() + (g - c0) * group_bytes + static_cast<size_t>(k) * data_.n;
          std::copy(data_.symbols, data_.symbols + data_.n, buffers[k]);
        }
        engine_shuffle_group_cpu(data_.streams, g, buffers, data_.n);
      });
      const uint64_t j0 = std::max(first, c0 * kLaneGroup), j1 = std::min(first + count, c1 * kLaneGroup);
      parallel_for(j0, j1, [&](uint64_t j, Worker& w) {
        evaluate(lanes_.data() + (j - c0 * kLaneGroup) * data_.n, mask, w, outcomes + (j - first) * kNumTests);
      });
    }
  }

  void evaluate(const uint8_t* shuffled, TestMask mask, Worker& w, uint8_t* row) {
    StatVector sv;
    cpu_statistics(shuffled, data_.n, data_.raw_of, data_.params, mask & kAllFastTests, sv, w.scratch);
    if (mask & bit(TestId::kCompression)) {
      sv.v[kNumFastTests] = static_cast<double>(data_.compression_by_model
                                                    ? w.model.compressed_length(shuffled, data_.n, data_.raw_of)
                                                    : w.compressor.compressed_length(shuffled, data_.n, data_.raw_of));
    }
    for (int t = 0; t < kNumTests; ++t) {
      if (!(mask & bit(t))) {
        row[t] = kNotComputed;
      } else {
        row[t] = compare_outcome(sv.v[t], data_.original.v[t]);
      }
    }
  }

  PermutationData data_;
  int threads_;
  bool grouped_ = is_grouped(data_.streams.id);
  std::vector<Worker> workers_;
  std::vector<uint8_t> lanes_;  // the shuffled lane groups of a chunk (coupled generators)
  double seconds_per_permutation_ = 0;  // on one thread, from the last round of the statistical tests (0: none yet)
};

}  // namespace

std::unique_ptr<PermutationBackend> make_cpu_backend(const PermutationData& data, int threads) {
  return std::make_unique<CpuBackend>(data, threads);
}

}  // namespace ea
