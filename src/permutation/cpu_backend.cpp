#include <omp.h>

#include <algorithm>
#include <exception>
#include <mutex>

#include "common/error.hpp"
#include "permutation/permutation.hpp"
#include "permutation/shuffle.hpp"
#include "rng/generators.hpp"
#include "rng/lane_group.hpp"
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
    // Generators whose lanes are coupled make 32 permutations at a time: whole groups
    // for every thread.
    if (grouped_) return kLaneGroup * static_cast<uint32_t>(threads_);
    // A bzip2 compression takes a few hundred milliseconds: rounds of one permutation per
    // thread waste at most threads-1 of them when the test is decided.
    if (mask & bit(TestId::kCompression)) return static_cast<uint32_t>(threads_);
    // Start small (IID data decides most tests within a few dozen permutations), then
    // grow so that long runs keep every thread busy.
    uint32_t base = static_cast<uint32_t>(std::max(16, 2 * threads_));
    return base << std::min<uint32_t>(round, 5);
  }

  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    if (count == 0) return;
    std::exception_ptr failure;
    std::mutex failure_mutex;
    // Units of work: single permutations, or the lane groups that overlap the range.
    const uint64_t unit = grouped_ ? kLaneGroup : 1;
    const uint64_t u0 = first / unit, u1 = (first + count - 1) / unit + 1;
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
    for (int64_t u = static_cast<int64_t>(u0); u < static_cast<int64_t>(u1); ++u) {
      try {
        Worker& w = workers_[static_cast<size_t>(omp_get_thread_num())];
        if (grouped_) {
          group(static_cast<uint64_t>(u), first, count, mask, w, outcomes);
        } else {
          const uint64_t j = static_cast<uint64_t>(u);
          w.buffer.assign(data_.symbols, data_.symbols + data_.n);
          visit_generator(data_.streams.id, [&](auto tag) {
            using G = decltype(tag);
            if constexpr (!G::kGrouped) {
              G rng = G::make(data_.streams, j);
              fisher_yates_prefetched(w.buffer.data(), data_.n, rng);
            }
          });
          evaluate(w.buffer.data(), mask, w, outcomes + (j - first) * kNumTests);
        }
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
    std::vector<std::vector<uint8_t>> lanes;
    CpuScratch scratch;
    Compressor compressor;
  };

  // Lane group g in lockstep; the outcomes of its permutations inside [first, first+count).
  void group(uint64_t g, uint64_t first, uint32_t count, TestMask mask, Worker& w, uint8_t* outcomes) {
    w.lanes.resize(kLaneGroup);
    uint8_t* buffers[kLaneGroup];
    for (uint32_t k = 0; k < kLaneGroup; ++k) {
      w.lanes[k].assign(data_.symbols, data_.symbols + data_.n);
      buffers[k] = w.lanes[k].data();
    }
    visit_generator(data_.streams.id, [&](auto tag) {
      using G = decltype(tag);
      if constexpr (G::kGrouped) {
        LaneGroup<G> lanes(data_.streams, g);
        fisher_yates_group(buffers, data_.n, lanes);
      }
    });
    for (uint32_t k = 0; k < kLaneGroup; ++k) {
      const uint64_t j = g * kLaneGroup + k;
      if (j >= first && j < first + count) evaluate(buffers[k], mask, w, outcomes + (j - first) * kNumTests);
    }
  }

  void evaluate(const uint8_t* shuffled, TestMask mask, Worker& w, uint8_t* row) {
    StatVector sv;
    cpu_statistics(shuffled, data_.n, data_.raw_of, data_.params, mask & kAllFastTests, sv, w.scratch);
    if (mask & bit(TestId::kCompression)) {
      sv.v[kNumFastTests] = static_cast<double>(w.compressor.compressed_length(shuffled, data_.n, data_.raw_of));
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
  bool grouped_ = is_grouped(data_.streams.id);
  std::vector<Worker> workers_;
};

}  // namespace

std::unique_ptr<PermutationBackend> make_cpu_backend(const PermutationData& data, int threads) {
  return std::make_unique<CpuBackend>(data, threads);
}

}  // namespace ea
