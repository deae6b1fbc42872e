#include "permutation/permutation.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>

#include "common/error.hpp"

namespace ea {

namespace {

// The compression test's note where it ran after a statistical test failed.
constexpr const char* kRunAnyway = "run although another permutation test failed (--all-tests)";

int tests_in(TestMask m) { return __builtin_popcount(m); }

// One phase: the backend's permutations until no test in `mask` is active or the
// iteration limit is reached. Returns the number of permutations whose outcomes were
// applied. `cancel` (optional) stops the phase early; its counters are then meaningless.
uint32_t run_phase(PermutationBackend& backend, const char* phase, TestMask mask, const DriverConfig& cfg,
                   Counters& counters, const std::atomic<bool>* cancel = nullptr) {
  if ((mask & backend.supported()) != mask) {
    throw Error(ErrorKind::Internal, "backend " + backend.name() + " cannot compute the requested tests");
  }
  TestMask active = mask;
  uint32_t done = 0;
  backend.stream(0, cfg.iterations, mask, [&](uint64_t first, uint32_t rows, const uint8_t* outcomes) -> TestMask {
    if (first != done) throw Error(ErrorKind::Internal, "permutation outcomes out of order");
    // Rows after the one that decided the last active test are computed but not counted.
    for (uint32_t r = 0; r < rows && active; ++r) {
      active = apply_outcomes(counters, active, cfg.early_exit, decision_threshold(cfg.iterations), outcomes + static_cast<size_t>(r) * kNumTests, 1);
      ++done;
    }
    if (cfg.progress) {
      const uint32_t left = expected_permutations_left(counters, active, done, cfg.iterations,
                                                       decision_threshold(cfg.iterations), cfg.early_exit);
      cfg.progress(phase, done, tests_in(active), left);
    }
    if (cfg.interrupt && cfg.interrupt->load()) throw Error(ErrorKind::Interrupted, "interrupted");
    if (cancel && cancel->load()) return 0;
    return active;
  });
  return done;
}

}  // namespace

void PermutationBackend::stream(uint64_t first, uint32_t count, TestMask mask, const OutcomeSink& sink) {
  std::vector<uint8_t> outcomes;
  uint32_t done = 0;
  for (uint32_t round = 0; mask && done < count; ++round) {
    const uint32_t n = std::max<uint32_t>(1, std::min(round_size(round, mask), count - done));
    outcomes.assign(static_cast<size_t>(n) * kNumTests, kNotComputed);
    run(first + done, n, mask, outcomes.data());
    mask = sink(first + done, n, outcomes.data());
    done += n;
  }
}

bool PermutationOutcome::fast_tests_passed() const {
  for (int t = 0; t < kNumFastTests; ++t)
    if (test_failed(t)) return false;
  return true;
}

bool PermutationOutcome::passed() const { return compression_run && fast_tests_passed() && !test_failed(kNumFastTests); }

namespace {

// Full counts in one phase: every test on `backend` over every permutation (no early exit,
// --all-tests), so each permutation is made once for all 19 tests.
PermutationOutcome run_one_phase(PermutationBackend& backend, const DriverConfig& cfg) {
  if (cfg.early_exit || !cfg.all_tests || cfg.skip_compression) {
    throw Error(ErrorKind::Internal, "one phase of permutation tests is for full counts (no early exit, --all-tests)");
  }
  PermutationOutcome out;
  out.threshold = decision_threshold(cfg.iterations);
  const auto t0 = std::chrono::steady_clock::now();
  const uint32_t n = run_phase(backend, "permutation tests", kAllTests, cfg, out.counters);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (int t = 0; t < kNumTests; ++t) out.ran[t] = true;
  out.fast_permutations = out.compression_permutations = n;
  out.fast_seconds = out.compression_seconds = seconds;
  out.compression_run = true;
  if (!out.fast_tests_passed()) out.compression_note = kRunAnyway;
  return out;
}

}  // namespace

PermutationOutcome run_permutation_tests(PermutationBackend& fast, PermutationBackend& compression,
                                         const DriverConfig& cfg_in) {
  using clock = std::chrono::steady_clock;
  if (cfg_in.one_phase) return run_one_phase(compression, cfg_in);
  PermutationOutcome out;
  out.threshold = decision_threshold(cfg_in.iterations);
  // Progress may be reported from two phases at once.
  DriverConfig cfg = cfg_in;
  std::mutex progress_mutex;
  if (cfg_in.progress) {
    cfg.progress = [&](const char* phase, uint32_t done, int active, uint32_t left) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      cfg_in.progress(phase, done, active, left);
    };
  }
  const auto t0 = clock::now();
  for (int t = 0; t < kNumFastTests; ++t) out.ran[t] = true;

  // The compression phase (CPU) may run while the statistical tests run on a device. Its
  // counters do not depend on when it runs; it is cancelled and discarded when another
  // test fails (unless --all-tests).
  std::atomic<bool> cancel{false};
  std::future<uint32_t> early;
  double compression_seconds = 0;
  auto compress = [&]() {
    const auto c0 = clock::now();
    uint32_t n = run_phase(compression, "compression test", bit(TestId::kCompression), cfg, out.counters, &cancel);
    compression_seconds = std::chrono::duration<double>(clock::now() - c0).count();
    return n;
  };
  if (cfg.concurrent_compression && !cfg.skip_compression) early = std::async(std::launch::async, compress);

  try {
    out.fast_permutations = run_phase(fast, "statistical tests", kAllFastTests, cfg, out.counters);
  } catch (...) {
    cancel = true;
    if (early.valid()) early.wait();
    throw;
  }
  out.fast_seconds = std::chrono::duration<double>(clock::now() - t0).count();
  const bool fast_ok = out.fast_tests_passed();
  if (cfg.skip_compression) {
    out.compression_note = "not run (statistical tests only)";
  } else if (fast_ok || cfg.all_tests) {
    out.ran[kNumFastTests] = true;
    out.compression_run = true;
    out.compression_permutations = early.valid() ? early.get() : compress();
    out.compression_seconds = compression_seconds;
    if (!fast_ok) out.compression_note = kRunAnyway;
  } else {
    if (early.valid()) {
      cancel = true;
      early.get();
      out.counters[kNumFastTests] = RankCounter{};
    }
    out.compression_note = "skipped: another permutation test already failed (use --all-tests to run it)";
  }
  return out;
}

}  // namespace ea
