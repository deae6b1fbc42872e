#include "permutation/permutation.hpp"

#include <algorithm>
#include <chrono>

#include "common/error.hpp"

namespace ea {

namespace {

int popcount(TestMask m) { return __builtin_popcount(m); }

// One phase: rounds of the backend until no test in `mask` is active or the iteration
// limit is reached. Returns the number of permutations whose outcomes were applied.
uint32_t run_phase(PermutationBackend& backend, const char* phase, TestMask mask, const DriverConfig& cfg,
                   Counters& counters) {
  if ((mask & backend.supported()) != mask) {
    throw Error(ErrorKind::Internal, "backend " + backend.name() + " cannot compute the requested tests");
  }
  TestMask active = mask;
  uint32_t done = 0;
  std::vector<uint8_t> outcomes;
  for (uint32_t round = 0; active && done < cfg.iterations; ++round) {
    uint32_t count = std::min(backend.round_size(round, active), cfg.iterations - done);
    count = std::max<uint32_t>(count, 1);
    outcomes.assign(static_cast<size_t>(count) * kNumTests, kNotComputed);
    backend.run(done, count, active, outcomes.data());
    // Rows after the one that decided the last active test are computed but not counted.
    uint32_t applied = 0;
    for (; applied < count && active; ++applied) {
      const uint8_t* row = outcomes.data() + static_cast<size_t>(applied) * kNumTests;
      active = apply_outcomes(counters, active, cfg.early_exit, row, 1);
    }
    done += applied;
    if (cfg.progress) cfg.progress(phase, done, popcount(active));
  }
  return done;
}

}  // namespace

bool PermutationOutcome::fast_tests_passed() const {
  for (int t = 0; t < kNumFastTests; ++t)
    if (test_failed(t)) return false;
  return true;
}

bool PermutationOutcome::passed() const { return compression_run && fast_tests_passed() && !test_failed(kNumFastTests); }

PermutationOutcome run_permutation_tests(PermutationBackend& fast, PermutationBackend& compression,
                                         const DriverConfig& cfg) {
  using clock = std::chrono::steady_clock;
  PermutationOutcome out;
  auto t0 = clock::now();
  for (int t = 0; t < kNumFastTests; ++t) out.ran[t] = true;
  out.fast_permutations = run_phase(fast, "statistical tests", kAllFastTests, cfg, out.counters);
  auto t1 = clock::now();
  out.fast_seconds = std::chrono::duration<double>(t1 - t0).count();
  const bool fast_ok = out.fast_tests_passed();
  if (fast_ok || cfg.all_tests) {
    out.ran[kNumFastTests] = true;
    out.compression_run = true;
    out.compression_permutations =
        run_phase(compression, "compression test", bit(TestId::kCompression), cfg, out.counters);
    out.compression_seconds = std::chrono::duration<double>(clock::now() - t1).count();
    if (!fast_ok) out.compression_note = "run although another permutation test failed (--all-tests)";
  } else {
    out.compression_note = "skipped: another permutation test already failed (use --all-tests to run it)";
  }
  return out;
}

}  // namespace ea
