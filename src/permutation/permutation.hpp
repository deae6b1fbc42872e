// The permutation tests of SP 800-90B 5.1: backends compute, per permutation index j, how
// each statistic of shuffle j compares with the original; the driver applies those
// outcomes in order of j with the per-test stopping rule. Counters therefore equal those
// of a sequential pass j = 0, 1, 2, ... whatever the backend, round size or thread count.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/test_id.hpp"
#include "permutation/counters.hpp"
#include "permutation/shuffle_choice.hpp"
#include "rng/stream_set.hpp"
#include "stats/statistics.hpp"

namespace ea {

// Everything a backend needs; the arrays are owned by the caller and outlive the run.
struct PermutationData {
  const uint8_t* symbols = nullptr;  // translated symbols (0/1 for binary data)
  size_t n = 0;
  const uint8_t* raw_of = nullptr;   // 256-entry table: symbol -> raw value
  StatParams params{};
  StatVector original{};             // statistics of the unshuffled data (all 19)
  StreamSetView streams{};           // the shuffling generator and its prepared streams
  ShuffleChoice shuffle = ShuffleChoice::Bucket;  // --shuffle (engine_uses_buckets)
  // A hint for scheduling only (never for results): false when the data already failed
  // another IID test, so the permutation tests will most likely run all permutations.
  bool early_decision_likely = true;
  // A hint for scheduling only: true without early exit (--no-early-exit), where every
  // permutation will be computed (the GPU's compression model then models larger rounds).
  bool every_permutation = false;
  // How the CPU backend computes the compression statistic of a permutation: libbz2 itself,
  // or the bzip2 size model (stats/bzip2_cpu.hpp: the same lengths, 4.5-9x faster), which
  // the caller sets only once the model's length of the original data equals libbz2's.
  bool compression_by_model = false;
};

// Receives the outcomes of permutations [first, first + rows) in order of permutation
// index; returns the tests still active afterwards (0: stop).
using OutcomeSink = std::function<TestMask(uint64_t first, uint32_t rows, const uint8_t* outcomes)>;

class PermutationBackend {
 public:
  virtual ~PermutationBackend() = default;
  virtual std::string name() const = 0;
  // Tests this backend can compute.
  virtual TestMask supported() const = 0;
  // Number of permutations worth computing in round `round_index` of a phase that
  // computes the tests in `mask`.
  virtual uint32_t round_size(uint32_t round_index, TestMask mask) const = 0;
  // Fills outcomes[r * kNumTests + t] for permutations first + r, r < count, for every
  // test t in mask (others: kNotComputed).
  virtual void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) = 0;
  // Computes permutations first, first + 1, ... (at most `count`) for the tests in `mask`
  // and hands their outcomes to `sink` in order, until the sink returns 0. Later work may
  // skip tests that the sink no longer reports active. The default runs rounds of
  // round_size() permutations through run(); a backend may overlap rounds instead.
  virtual void stream(uint64_t first, uint32_t count, TestMask mask, const OutcomeSink& sink);
  // Binds the backend to another data set, keeping its buffers (device memory, streams);
  // false when this backend cannot, and the caller makes a new one.
  virtual bool rebind(const PermutationData&) { return false; }
  // Seconds the device spent on rounds so far (GPU kernels; 0 where not measured).
  virtual double busy_seconds() const { return 0.0; }
  // A one-line breakdown of where the device time went ("" where not measured).
  virtual std::string profile() const { return ""; }
};

struct DriverConfig {
  uint32_t iterations = 10000;
  bool early_exit = true;
  bool all_tests = false;  // run the compression test even when another test failed
  // Start the compression phase at once, beside the statistical tests (when those run on
  // a device, the CPU cores are free); it is discarded if another test fails.
  bool concurrent_compression = false;
  // Run the 18 statistical tests only (the calibration of the generators).
  bool skip_compression = false;
  // One phase of all 19 tests on the compression backend (which must support them all):
  // full counts (no early exit, all_tests), where the GPU's compression backend computes the
  // statistical tests on the permutations it shuffles for its texts. The counters are those
  // of the two phases; `fast` is not used.
  bool one_phase = false;
  // When set and it becomes true, the run stops between rounds with Error{Interrupted}.
  const std::atomic<bool>* interrupt = nullptr;
  // Called after every round with (phase, permutations done in this phase, tests still active,
  // the permutations the phase is expected still to take: expected_permutations_left).
  std::function<void(const char* phase, uint32_t done, int active, uint32_t left)> progress;
};

struct PermutationOutcome {
  Counters counters{};
  bool ran[kNumTests] = {};          // the test was run (compression may be skipped)
  uint32_t fast_permutations = 0;    // permutations generated for tests 0-17
  uint32_t compression_permutations = 0;
  bool compression_run = false;
  std::string compression_note;      // why compression was skipped, or run regardless
  std::string note;                  // why no permutation test ran (--until-decided), else empty
  double fast_seconds = 0, compression_seconds = 0;

  uint32_t threshold = kReferenceThreshold;  // decision_threshold(iterations)

  bool test_passed(int t) const { return counters[t].passed(threshold); }
  bool test_failed(int t) const { return ran[t] && !test_passed(t); }
  bool fast_tests_passed() const;
  bool passed() const;  // every test that ran passed, and compression ran
};

// Runs tests 0-17 on `fast`, then compression (test 18) on `compression` when all of them
// passed (or always with all_tests); with config.one_phase, all 19 on `compression`.
PermutationOutcome run_permutation_tests(PermutationBackend& fast, PermutationBackend& compression,
                                         const DriverConfig& config);

// Statistics of one symbol buffer on the CPU (conversions materialised in `scratch`).
struct CpuScratch {
  std::vector<uint8_t> conv1, conv2, raw;
};
void cpu_statistics(const uint8_t* symbols, size_t n, const uint8_t* raw_of, const StatParams& params,
                    TestMask mask, StatVector& out, CpuScratch& scratch);

// The OpenMP backend: every test, compression included. Its per-thread buffers serve one
// caller at a time: two threads that run permutations at once need two backends.
std::unique_ptr<PermutationBackend> make_cpu_backend(const PermutationData& data, int threads);

}  // namespace ea
