#include "permutation/share.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <future>
#include <map>
#include <mutex>

#include "common/error.hpp"
#include "permutation/parts.hpp"

namespace ea {

uint32_t shared_piece(uint32_t round, uint32_t left, double rate, double total_rate) {
  uint32_t n = std::min(std::max<uint32_t>(round, 1), left);
  if (rate > 0 && total_rate > rate) {
    const double share = std::ceil(static_cast<double>(left) * rate / total_rate);
    n = std::min(n, static_cast<uint32_t>(std::max(1.0, share)));
  }
  return n;
}

namespace {

class SharedBackend final : public PartsBackend {
 public:
  explicit SharedBackend(std::vector<PermutationBackend*> parts) : PartsBackend(std::move(parts), "a shared backend") {}

  std::string name() const override { return joined_names(); }

  void stream(uint64_t first, uint32_t count, TestMask mask, const OutcomeSink& sink) override {
    Run state(first, count, mask, sink, parts_.size());
    // Every part on a thread of its own but the first, which works on the calling thread;
    // work() keeps its errors in `state`, so every thread is joined before one is passed on.
    std::vector<std::future<void>> others;
    for (size_t k = 1; k < parts_.size(); ++k) {
      others.push_back(std::async(std::launch::async, [this, &state, k] { work(k, state); }));
    }
    work(0, state);
    for (auto& f : others) f.get();
    last_done_ = state.done;
    if (state.error) std::rethrow_exception(state.error);
  }

  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    stream(first, count, mask, [&](uint64_t at, uint32_t rows, const uint8_t* o) {
      std::copy(o, o + static_cast<size_t>(rows) * kNumTests, outcomes + (at - first) * kNumTests);
      return mask;
    });
  }

 private:
  using Clock = std::chrono::steady_clock;

  // One stream() call's shared state, guarded by `m`: the next permutation to take, the
  // pieces done but not yet handed on (by their first permutation), what each part has done.
  struct Run {
    Run(uint64_t f, uint32_t c, TestMask mk, const OutcomeSink& s, size_t parts)
        : first(f), count(c), mask(mk), sink(s), done(parts, 0), seconds(parts, 0.0) {}
    std::mutex m;
    const uint64_t first;
    const uint32_t count;
    TestMask mask;
    const OutcomeSink& sink;
    uint32_t next = 0, delivered = 0;
    bool stop = false;
    std::exception_ptr error;
    std::map<uint32_t, std::vector<uint8_t>> ready;
    std::vector<uint64_t> done;
    std::vector<double> seconds;
    double rate(size_t k) const { return seconds[k] > 0 ? static_cast<double>(done[k]) / seconds[k] : 0.0; }
    double total_rate() const {
      double r = 0;
      for (size_t k = 0; k < done.size(); ++k) r += rate(k);
      return r;
    }
    void fail() {
      if (!error) error = std::current_exception();
      stop = true;
    }
  };

  // Part k takes pieces until every permutation is taken or the run stops; its error (or
  // any other, e.g. memory) stops the run and is kept for stream().
  void work(size_t k, Run& st) {
    try {
      take_pieces(k, st);
    } catch (...) {
      std::lock_guard<std::mutex> lock(st.m);
      st.fail();
    }
  }

  void take_pieces(size_t k, Run& st) {
    std::vector<uint8_t> rows;
    for (uint32_t round = 0;; ++round) {
      TestMask mask = 0;
      {
        std::lock_guard<std::mutex> lock(st.m);
        if (st.stop || st.next >= st.count) return;
        mask = st.mask;
      }
      // Outside the lock: a deferred part is made on this call (the other parts go on).
      const uint32_t size = parts_[k]->round_size(round, mask);
      uint32_t at = 0, n = 0;
      {
        std::lock_guard<std::mutex> lock(st.m);
        if (st.stop || st.next >= st.count) return;
        n = shared_piece(size, st.count - st.next, st.rate(k), st.total_rate());
        at = st.next;
        st.next += n;
        mask = st.mask;
      }
      rows.assign(static_cast<size_t>(n) * kNumTests, kNotComputed);
      const auto t0 = Clock::now();
      parts_[k]->run(st.first + at, n, mask, rows.data());
      std::lock_guard<std::mutex> lock(st.m);
      st.done[k] += n;
      st.seconds[k] += std::chrono::duration<double>(Clock::now() - t0).count();
      st.ready.emplace(at, std::move(rows));
      rows = {};
      deliver(st);
    }
  }

  // (Under st.m) the pieces that continue the permutations handed on, in order.
  static void deliver(Run& st) {
    while (!st.stop && !st.ready.empty() && st.ready.begin()->first == st.delivered) {
      auto piece = st.ready.extract(st.ready.begin());
      const uint32_t n = static_cast<uint32_t>(piece.mapped().size() / kNumTests);
      try {
        st.mask = st.sink(st.first + st.delivered, n, piece.mapped().data());
      } catch (...) {
        st.fail();
        return;
      }
      st.delivered += n;
      if (!st.mask) st.stop = true;
    }
  }

  // Each part's permutations in the last stream(), after its profile line.
  std::string part_note(size_t k) const override {
    return k < last_done_.size() ? std::to_string(last_done_[k]) + " permutations" : "";
  }

  std::vector<uint64_t> last_done_;  // each part's permutations in the last stream()
};

}  // namespace

std::unique_ptr<PermutationBackend> make_shared_backend(std::vector<PermutationBackend*> parts) {
  return std::make_unique<SharedBackend>(std::move(parts));
}

}  // namespace ea
