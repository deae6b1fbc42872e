// One IID-track assessment of a data set (SP 800-90B section 5 and 6.3.1): the library's
// entry point. It computes and throws; printing and exit codes belong to the CLI.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "estimators/estimators.hpp"
#include "estimators/non_iid.hpp"
#include "gpu_backends.hpp"
#include "io/samples.hpp"
#include "permutation/permutation.hpp"
#include "rng/prng.hpp"

namespace ea {

enum class DeviceChoice { Auto, Cpu, Gpu };

// --restart H_I: the restart tests (SP 800-90B 3.1.4) of a 1000 x 1000 row data set.
enum class CutoffMethod { Exact, Simulation };
struct RestartSpec {
  double h_i = 0;                               // the entropy claim H_I, bits per sample
  CutoffMethod cutoff = CutoffMethod::Exact;    // --restart-cutoff exact|simulation
  uint64_t simulations = 5000000;               // --restart-simulations (NIST's -s; its default)
};

// ea_iid health-tests H: the continuous health tests' cutoffs (SP 800-90B 4.4,
// pipeline/health.hpp) for a claimed min-entropy and a false-positive rate.
struct HealthSpec {
  double h = 0;            // the claimed min-entropy H, bits per sample
  double alpha = 0x1p-20;  // --alpha: the false-positive rate (2^-N or a decimal)
  // --simulate N: the Monte Carlo check's samples (health/simulate.hpp; 0: none), drawn from
  // Settings::seed on Settings::threads threads.
  uint64_t simulate = 0;
};

// Everything that decides how an assessment is read, computed and where it runs: plain
// values, held by value from the CLI to the report (the report records them), complete
// after the CLI resolves the seed and threads once and never edited afterwards. A new option
// is a field here, its line in settings_fields.cpp (what it changes, where the record holds
// it: a unit test fails until it is listed), a flag in an option group of cli/, and its use.
// Which track an assessment takes (--track, --non-iid): Auto, the default, runs the IID
// tests and, when their verdict is "not IID" (with the reference's 10,000 iterations), the
// non-IID estimates, whose minimum is then the assessed min-entropy; Iid stops at the IID
// verdict and its MCV estimate; NonIid runs the non-IID estimates alone.
enum class TrackChoice { Auto, Iid, NonIid };
const char* track_choice_name(TrackChoice t);  // "auto", "iid", "non-iid" (JSON trackChoice)

struct Settings {
  // What is computed.
  TrackChoice track = TrackChoice::Auto;
  bool initial_entropy = true;      // -i (default) or -c
  bool truncate_bitstring = false;  // -t: H_bitstring from the first 1,000,000 bits only
  uint64_t seed = 0;                // the user's seed (--seed); assess() derives the data's own
  PrngId prng = PrngId::Philox;     // the shuffling generator (--prng)
  ShuffleChoice shuffle = ShuffleChoice::Bucket;  // --shuffle: bucket (where it applies) or fisher-yates
  uint32_t iterations = 10000;
  bool early_exit = true;
  bool all_tests = false;
  // --until-decided: no permutation tests when chi-square or LRS already failed (the
  // verdict "not IID" cannot change); their counters are then not computed.
  bool until_decided = false;
  bool compression_test = true;     // false: the 18 other permutation tests only (ea_calibrate --fast-only)
  // How the samples are read.
  int width = 0;                    // bits per symbol; 0: inferred
  SampleInput sample_input;         // --sample-format, --select-bits, --bin (src/io/sample_format.hpp)
  bool allow_stream = false;        // --allow-stream: FIFOs and devices too
  // Where it runs.
  int threads = 1;
  DeviceChoice device = DeviceChoice::Auto;
  std::vector<int> gpus{0};         // --gpu: the GPUs used (an index may repeat: --gpu 0,0)
  bool verify = false;              // recompute some GPU permutations on the CPU
  // Run the compression test by the exact bzip2 size model (on the GPU with a GPU, else on
  // the CPU cores; checked against libbz2 on the original data) rather than by libbz2
  // itself on the CPU cores; false: --cpu-compression. (The name is from when only the
  // GPU had the model.)
  bool gpu_compression = true;
  GpuTuning tuning;                 // --round-size, --gpu-tuning
  // The restart tests instead of one assessment (pipeline/restart.hpp).
  std::optional<RestartSpec> restart;
  // The health tests' cutoffs instead of an assessment (pipeline/health.hpp; no data set).
  std::optional<HealthSpec> health;
};

// What a run reports back while it works; none of it changes a result.
struct Hooks {
  std::function<void(const char* phase, uint32_t done, int active, uint32_t left)> progress;
  std::function<void(const std::string&)> note;  // informational messages (device choice)
  const std::atomic<bool>* interrupt = nullptr;  // stop between rounds (Error{Interrupted})
  // The estimates and the chi-square and LRS tests, as soon as they are known (before the
  // permutation tests): the assessment so far, its permutation fields still empty.
  std::function<void(const struct Assessment&)> tested;
};

// One GPU a worker uses, and the share of that GPU's free memory its rounds may take.
struct GpuShare {
  int gpu = 0;
  double memory_share = 0.85;
};

// The GPUs of each of `workers` workers: with at least as many workers as listed GPUs,
// worker w uses gpus[w mod K] alone (every GPU busy, each with its own workers); with fewer,
// worker w uses gpus[w], gpus[w + workers], ... and splits each of its assessments' rounds
// across them (one assessment on every GPU). Each GPU's `memory_share` is divided among the
// entries that name it, so `--gpu 0,0` gives two halves of GPU 0.
std::vector<std::vector<GpuShare>> assign_gpus(const std::vector<int>& gpus, int workers, double memory_share);

// The device backends and CPU share of one worker (the backend provider): made on first use and rebound
// to each new data set, so that device memory, streams and pinned buffers are allocated
// once per worker. A single assessment is a run of one item on one worker, whose slot
// lives as long as that item; a batch keeps one slot per worker. With several GPUs the
// slot holds one backend per GPU and hands out one that splits every round across them.
class DeviceSlot {
 public:
  // warm_up: start creating the GPUs' contexts and loading their kernels at once, on a
  // thread of its own (warm_up_gpu), while the worker reads and tests its first data set.
  explicit DeviceSlot(std::vector<GpuShare> gpus, bool warm_up = false);
  // The permutation backend of tests 0-17 bound to `pd`. Throws Error{Device}.
  PermutationBackend& gpu(const PermutationData& pd, const Settings& s);
  // The GPU compression test bound to `pd` (make_gpu_compression_backend): s.tuning.bz_lanes
  // backends a GPU for full counts (one, from then on, where they did not fit). Throws Error{Device}.
  PermutationBackend& gpu_compression(const PermutationData& pd, const Settings& s);
  // Its model's length of the original data (every GPU entry models the same data).
  double gpu_compression_model_original() const;
  // The CPU threads this worker's assessments use (a batch divides the cores among its
  // workers; the engine sets each worker's share): `n`, or 0 for settings.threads.
  void set_cpu_threads(int n) { cpu_threads_ = n; }
  int cpu_threads(const Settings& s) const { return cpu_threads_ > 0 ? cpu_threads_ : s.threads; }
  int cpu_threads_set() const { return cpu_threads_; }
  // The threads of the compression test on the CPU (the bzip2 size model or libbz2):
  // cpu_threads unless set (`n` > 0). A restart assessment's two data sets each get half the
  // threads for their statistical tests but all of them for the compression test: the data
  // set whose tests end first would otherwise leave half the cores idle while the other
  // one's compressions run on one thread.
  void set_compression_threads(int n) { compression_threads_ = n; }
  int compression_threads(const Settings& s) const {
    return compression_threads_ > 0 ? compression_threads_ : cpu_threads(s);
  }
  int compression_threads_set() const { return compression_threads_; }
  // Whether this worker has GPU entries (a run may still fall back to the CPU).
  bool has_gpus() const { return !gpus_.empty(); }
  // Counts from the worker's first GPU: the t-tuple and LRS estimates' LCPs (gpu_suffix_lcps)
  // for texts of s.tuning.suffixes symbols or more, MultiMMC's and LZ78Y's states on bits
  // (gpu_predictors.hpp) for s.tuning.predictors bits or more with --device gpu; the LCPs
  // with --device gpu, and on auto once this
  // worker has made a GPU backend (a batch's later items: its context exists and its CPU
  // cores are the batch's limit); empty (the CPU's) otherwise. A CUDA context alone costs a
  // short non-IID run more than the CPU's sort, and a single default-track run, whose
  // estimates start before its backend is made, gained nothing (docs/performance-history.md,
  // sessions 33 and 35).
  CountSources count_sources(const Settings& s) const;

 private:
  struct Group {
    std::vector<std::unique_ptr<PermutationBackend>> parts;  // `lanes` per GPU entry
    std::unique_ptr<PermutationBackend> split;               // over `parts` (2 or more)
  };
  using Factory = std::unique_ptr<PermutationBackend> (*)(const PermutationData&, int, const GpuTuning&, double);
  PermutationBackend& bind(Group& g, Factory make, const PermutationData& pd, const Settings& s, uint32_t lanes);

  std::vector<GpuShare> gpus_;
  int cpu_threads_ = 0;
  int compression_threads_ = 0;
  std::future<void> warming_;  // waited for before any backend is made (and on destruction)
  std::atomic<bool> made_{false};  // a backend was made (read by the estimates' thread)
  bool one_lane_ = false;          // bz-lanes did not fit these GPUs once: one lane since
  Group fast_, compression_;
};

constexpr uint64_t kMinSamples = 1000000;  // the reference's MIN_SIZE

enum class Verdict { Iid, NotIid, Inconclusive };
const char* verdict_name(Verdict v);

// A pass/fail result (the restart tests; later the health tests): what a check of an entropy
// claim gives, not a verdict on whether data is IID.
enum class Check { Passed, Failed, Inconclusive };
const char* check_name(Check c);  // "passed", "failed", "inconclusive"

struct Timings {
  double estimates = 0, chi_square = 0, lrs = 0, permutation = 0, compression = 0, total = 0;
  double non_iid = 0;  // the non-IID estimates that followed a "not IID" verdict
  double device_busy = 0;  // GPU kernel time of the permutation rounds (0 on the CPU)
  // Getting the GPU backends ready: waiting for the CUDA context (created beside reading
  // the data, DeviceSlot's warm-up) and sizing and filling their buffers (0 on the CPU).
  double device_setup = 0;
  std::string device_profile;  // breakdown of the device time
};

struct Assessment : InputFacts {
  std::vector<std::string> warnings;

  Settings settings;  // as given (settings.seed is the user's seed)
  uint64_t seed = 0;  // the shuffles' seed: assessment_seed(settings.seed, data)

  // How often each value occurs: (raw value, count), in increasing value order.
  std::vector<std::pair<uint8_t, uint64_t>> value_counts;

  Baseline base;
  std::optional<McvEstimate> h_original;   // -i only
  std::optional<McvEstimate> h_bitstring;  // when k > 2 or -c
  uint64_t bitstring_bits = 0;             // bits used for H_bitstring
  double h_assessed = 0;  // the IID track's: min(width, MCV estimates)
  // TrackChoice::Auto and the verdict "not IID": the non-IID track's estimates, whose
  // minimum is then the assessed min-entropy.
  std::optional<NonIidEstimates> non_iid;
  double min_entropy() const { return non_iid ? non_iid->h_assessed : h_assessed; }

  ChiSquareResult independence, goodness_of_fit;
  LrsResult lrs;

  StatVector original{};
  PermutationOutcome permutation;
  int worker_threads = 0;  // the CPU threads it used (the worker's share of settings.threads)
  std::string device;      // "cpu (N threads)" or the GPU backend's name, + kOnePhase's words where one phase ran
  std::string shuffle;     // how the permutations are made (engine_shuffle_name)
  std::string compression_device;  // where the compression test ran (or would have)
  bool verified = false;   // --verify checked GPU permutations against the CPU
  Timings timings;

  bool chi_square_evaluable() const { return independence.evaluable && goodness_of_fit.evaluable; }
  bool chi_square_failed() const {
    return (independence.evaluable && !independence.passed()) ||
           (goodness_of_fit.evaluable && !goodness_of_fit.passed());
  }
  bool chi_square_passed() const { return independence.passed() && goodness_of_fit.passed(); }
  Verdict verdict() const;
  // --iterations other than 10,000: the decision rule is scaled (decision_threshold) and the
  // result is exploratory, never an SP 800-90B assessment.
  bool exploratory() const { return settings.iterations != kReferenceIterations; }
  // Why this result cannot stand as an SP 800-90B IID-track assessment (empty: it can):
  // an exploratory permutation count, fewer than 1,000,000 samples, a generator not for
  // compliance, chi-square tests that could not be evaluated.
  std::vector<std::string> compliance_issues() const;
  bool for_compliance() const { return compliance_issues().empty(); }
  // Names of the test families that failed ("chi-square", "LRS", "permutation").
  std::vector<std::string> failed_families() const;
};

// The facts of the input that every result shows (each result kind is an InputFacts).
inline void set_input_facts(InputFacts& r, const Dataset& d) { r = input_facts(d); }

// The seed of the shuffles of one assessment: derived from the user's seed and the data
// alone, never from where the data stands in a list. The first 8 bytes (little-endian) of
// SHA-256("ea_iid assessment seed v1" || LE64(user_seed) || SHA-256(samples assessed) ||
// LE64(first sample's offset in the file) || LE64(samples)). A file assessed alone, in a
// batch in any order, or in any share of a split list gets the same seed and counters;
// `--seed S` on one file (or `-l` on its block) reproduces a batch row run with `--seed S`.
uint64_t assessment_seed(uint64_t user_seed, const Dataset& d);

// Runs the whole IID track on a loaded data set, with the GPU backends of `slot`.
Assessment assess(const Dataset& data, const Settings& settings, const Hooks& hooks, DeviceSlot& slot);

}  // namespace ea
