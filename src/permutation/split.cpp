#include "permutation/split.hpp"

#include <algorithm>
#include <exception>
#include <future>
#include <numeric>

#include "common/error.hpp"
#include "permutation/parts.hpp"

namespace ea {

std::vector<uint32_t> split_round(uint32_t count, const std::vector<uint32_t>& capacity) {
  const uint64_t total = std::accumulate(capacity.begin(), capacity.end(), uint64_t{0});
  if (count > total) throw Error(ErrorKind::Internal, "split round larger than its parts' rounds");
  std::vector<uint32_t> piece(capacity.size(), 0);
  uint32_t left = count;
  for (size_t k = 0; k < capacity.size() && left; ++k) {
    // Rounded up, so that the last parts never get more than their share.
    const uint64_t share = (static_cast<uint64_t>(count) * capacity[k] + total - 1) / total;
    piece[k] = static_cast<uint32_t>(std::min<uint64_t>({share, capacity[k], left}));
    left -= piece[k];
  }
  // Rounding can leave a few permutations: the first parts with room take them.
  for (size_t k = 0; k < capacity.size() && left; ++k) {
    const uint32_t more = std::min(left, capacity[k] - piece[k]);
    piece[k] += more;
    left -= more;
  }
  return piece;
}

namespace {

class SplitBackend final : public PartsBackend {
 public:
  SplitBackend(std::vector<PermutationBackend*> parts, const char* noun)
      : PartsBackend(std::move(parts), "a split backend"), noun_(noun) {}

  std::string name() const override { return std::to_string(parts_.size()) + " " + noun_ + ": " + joined_names(); }

  // Round r: every part computes a piece of its own round-r size (the last round of a run
  // is cut in proportion).
  void stream(uint64_t first, uint32_t count, TestMask mask, const OutcomeSink& sink) override {
    std::vector<uint8_t> outcomes;
    uint32_t done = 0;
    for (uint32_t round = 0; mask && done < count; ++round) {
      std::vector<uint32_t> sizes;
      uint64_t sum = 0;
      for (auto* p : parts_) {
        sizes.push_back(std::max<uint32_t>(1, p->round_size(round, mask)));
        sum += sizes.back();
      }
      const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(sum, count - done));
      outcomes.assign(static_cast<size_t>(n) * kNumTests, kNotComputed);
      run_pieces(first + done, split_round(n, sizes), mask, outcomes.data());
      mask = sink(first + done, n, outcomes.data());
      done += n;
    }
  }

  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    // A part's largest piece is its steady round size (rounds grow, if at all, only in the
    // first few rounds of a phase).
    std::vector<uint32_t> capacity;
    for (auto* p : parts_) capacity.push_back(std::max<uint32_t>(1, p->round_size(kSteadyRound, mask)));
    run_pieces(first, split_round(count, capacity), mask, outcomes);
  }

 private:
  static constexpr uint32_t kSteadyRound = 64;

  // Part k computes piece[k] permutations after those of parts 0..k-1, all parts at once
  // (the last one on the calling thread).
  void run_pieces(uint64_t first, const std::vector<uint32_t>& piece, TestMask mask, uint8_t* outcomes) {
    struct Job {
      PermutationBackend* part;
      uint64_t at;
      uint32_t n;
      uint8_t* rows;
    };
    std::vector<Job> jobs;
    uint64_t offset = 0;
    for (size_t k = 0; k < parts_.size(); ++k) {
      if (piece[k] == 0) continue;
      jobs.push_back(Job{parts_[k], first + offset, piece[k], outcomes + offset * kNumTests});
      offset += piece[k];
    }
    if (jobs.empty()) return;
    std::vector<std::future<void>> running;
    for (size_t i = 0; i + 1 < jobs.size(); ++i) {
      const Job j = jobs[i];
      running.push_back(std::async(std::launch::async, [j, mask] { j.part->run(j.at, j.n, mask, j.rows); }));
    }
    // Every part is waited for before the first error is passed on: none may still write
    // into `outcomes` afterwards.
    std::exception_ptr error;
    try {
      const Job& j = jobs.back();
      j.part->run(j.at, j.n, mask, j.rows);
    } catch (...) {
      error = std::current_exception();
    }
    for (auto& f : running) {
      try {
        f.get();
      } catch (...) {
        if (!error) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
  }

  const char* noun_;
};

}  // namespace

std::unique_ptr<PermutationBackend> make_split_backend(std::vector<PermutationBackend*> parts, const char* noun) {
  return std::make_unique<SplitBackend>(std::move(parts), noun);
}

}  // namespace ea
