#include "assess.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "gpu_predictors.hpp"
#include "gpu_suffixes.hpp"
#include "permutation/bucket_shuffle.hpp"
#include "permutation/counters.hpp"
#include "permutation/deferred.hpp"
#include "permutation/share.hpp"
#include "permutation/split.hpp"
#include "permutation/verify.hpp"
#include "stats/bzip2_cpu.hpp"
#include "stats/compression.hpp"

namespace ea {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Iid: return "IID";
    case Verdict::NotIid: return "not IID";
    default: return "inconclusive";
  }
}

const char* check_name(Check c) {
  switch (c) {
    case Check::Passed: return "passed";
    case Check::Failed: return "failed";
    default: return "inconclusive";
  }
}

Verdict Assessment::verdict() const {
  if (!failed_families().empty()) return Verdict::NotIid;
  if (!chi_square_evaluable() || !permutation.passed()) return Verdict::Inconclusive;
  return Verdict::Iid;
}

std::vector<std::string> Assessment::compliance_issues() const {
  std::vector<std::string> why;
  if (exploratory()) {
    why.push_back("exploratory: --iterations " + std::to_string(settings.iterations) +
                  " (SP 800-90B requires 10,000 permutations; the decision rule was scaled to fail when C0+C1 or "
                  "C1+C2 <= " + std::to_string(permutation.threshold) + ")");
  }
  if (samples < kMinSamples) {
    why.push_back(std::to_string(samples) + " samples (SP 800-90B requires at least " + std::to_string(kMinSamples) + ")");
  }
  const PrngInfo& p = prng_info(settings.prng);
  if (!p.compliance) why.push_back(std::string("--prng ") + p.name + ": " + p.caveat);
  if (!chi_square_evaluable()) why.push_back("the chi-square tests could not be evaluated (not enough samples)");
  return why;
}

std::vector<std::string> Assessment::failed_families() const {
  std::vector<std::string> f;
  if (chi_square_failed()) f.push_back("chi-square");
  if (!lrs.passed()) f.push_back("longest repeated substring");
  bool perm_failed = false;
  for (int t = 0; t < kNumTests; ++t) perm_failed = perm_failed || permutation.test_failed(t);
  if (perm_failed) f.push_back("permutation");
  return f;
}

std::vector<std::vector<GpuShare>> assign_gpus(const std::vector<int>& gpus, int workers, double memory_share) {
  if (gpus.empty()) throw Error(ErrorKind::Usage, "no GPU listed");
  workers = std::max(1, workers);
  const size_t k = gpus.size(), w = static_cast<size_t>(workers);
  std::vector<std::vector<int>> ids(w);
  if (w >= k) {
    for (size_t i = 0; i < w; ++i) ids[i].push_back(gpus[i % k]);
  } else {
    for (size_t i = 0; i < k; ++i) ids[i % w].push_back(gpus[i]);
  }
  std::map<int, int> uses;
  for (const auto& one : ids)
    for (int g : one) ++uses[g];
  std::vector<std::vector<GpuShare>> out(w);
  for (size_t i = 0; i < w; ++i)
    for (int g : ids[i]) out[i].push_back(GpuShare{g, memory_share / uses[g]});
  return out;
}

DeviceSlot::DeviceSlot(std::vector<GpuShare> gpus, bool warm_up) : gpus_(std::move(gpus)) {
  if (!warm_up || gpus_.empty()) return;
  std::vector<int> ids;
  for (const GpuShare& g : gpus_)
    if (std::find(ids.begin(), ids.end(), g.gpu) == ids.end()) ids.push_back(g.gpu);
  warming_ = std::async(std::launch::async, [ids] {
    for (int id : ids) (void)warm_up_gpu(id);
  });
}

CountSources DeviceSlot::count_sources(const Settings& s) const {
  if (gpus_.empty() || s.device == DeviceChoice::Cpu) return {};
  // auto: once this worker's permutation tests have made a backend, so its context exists.
  // A batch of 64 8-bit files, default track, --jobs 8, H200, whose workers' CPU cores were
  // the limit: 378.6 / 395.6 a minute with the CPU's sort, 410.0 / 411.3 with the GPU's
  // (.device/run35e.sh, session 35); a single default-track run, whose estimates start
  // before its backend is made: 0.54-0.59 s against 0.52-0.56 s with the CPU's (run35f).
  if (s.device == DeviceChoice::Auto && !made_.load()) return {};
  const int gpu = gpus_.front().gpu;
  const uint64_t from = s.tuning.suffixes, bits = s.tuning.predictors;
  constexpr auto most = static_cast<size_t>(std::numeric_limits<int>::max());  // (CUB's int counts)
  CountSources out;
  if (from != 0) {
    out.lcps = [gpu, from](const uint8_t* p, size_t n, Interrupt interrupt) -> std::optional<SuffixLcps> {
      if (n < from || n > most) return std::nullopt;
      return gpu_suffix_lcps(p, n, gpu, interrupt);
    };
  }
  // The predictors' states: with --device gpu only. On auto a batch's GPU is the limit once
  // the suffixes are sorted there: 64 8-bit files, --jobs 8, H200, three runs alternately,
  // 395.5 / 413.0 / 392.4 a minute with them on the GPU, 429.7 / 431.0 / 417.7 without, the
  // workers' CPU time 83-84 s against 102-113 s (.device/run36c.sh, session 36).
  if (bits != 0 && s.device == DeviceChoice::Gpu) {
    out.mmc_bits = [gpu, bits](const uint8_t* p, size_t n, std::vector<uint64_t>& found, std::vector<uint64_t>& right,
                               Interrupt interrupt) {
      return n >= bits && n <= most && gpu_mmc_bit_states(p, n, gpu, found, right, interrupt);
    };
    out.lz78y_bits = [gpu, bits](const uint8_t* p, size_t n, std::vector<uint64_t>& hits, Interrupt interrupt) {
      return n >= bits && n <= most && gpu_lz78y_bit_hits(p, n, gpu, hits, interrupt);
    };
  }
  return out;
}

PermutationBackend& DeviceSlot::bind(Group& g, Factory make, const PermutationData& pd, const Settings& s,
                                     uint32_t lanes) {
  if (warming_.valid()) warming_.get();
  // `lanes` backends a GPU entry, each with that share of its memory.
  std::vector<GpuShare> entries;
  for (const GpuShare& gs : gpus_) {
    for (uint32_t k = 0; k < lanes; ++k) entries.push_back(GpuShare{gs.gpu, gs.memory_share / lanes});
  }
  bool bound = g.parts.size() == entries.size();
  for (auto& p : g.parts) bound = bound && p->rebind(pd);
  if (!bound) {
    // Their memory goes back before new backends size their rounds; a failure leaves the
    // group empty (never a part of it).
    g.split.reset();
    g.parts.clear();
    std::vector<std::unique_ptr<PermutationBackend>> parts(entries.size());
    if (entries.size() == 1) {
      parts[0] = make(pd, entries[0].gpu, s.tuning, entries[0].memory_share);
    } else {
      // Several GPUs: their contexts and buffers are set up at the same time (a CUDA
      // context takes a few hundred milliseconds); every one is waited for.
      std::vector<std::future<std::unique_ptr<PermutationBackend>>> making;
      for (const GpuShare& gs : entries) {
        making.push_back(std::async(std::launch::async, [&, gs] { return make(pd, gs.gpu, s.tuning, gs.memory_share); }));
      }
      std::exception_ptr error;
      for (size_t k = 0; k < making.size(); ++k) {
        try {
          parts[k] = making[k].get();
        } catch (...) {
          if (!error) error = std::current_exception();
        }
      }
      if (error) std::rethrow_exception(error);
    }
    g.parts = std::move(parts);
    made_.store(true);
    if (g.parts.size() > 1) {
      std::vector<PermutationBackend*> raw;
      for (auto& p : g.parts) raw.push_back(p.get());
      g.split = make_split_backend(std::move(raw), lanes > 1 ? "lanes" : "devices");
    }
  }
  return g.split ? *g.split : *g.parts.front();
}

PermutationBackend& DeviceSlot::gpu(const PermutationData& pd, const Settings& s) {
  return bind(fast_, &make_gpu_backend, pd, s, 1);
}

// Full counts: bz-lanes compression backends a GPU, side by side (GpuTuning::bz_lanes); where
// they do not all fit (a GPU short of memory), one, and one for the worker's later items too
// (a batch does not try again for each).
PermutationBackend& DeviceSlot::gpu_compression(const PermutationData& pd, const Settings& s) {
  const uint32_t lanes = pd.every_permutation && !one_lane_ ? s.tuning.bz_lanes : 1;
  if (lanes > 1) {
    try {
      return bind(compression_, &make_gpu_compression_backend, pd, s, lanes);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Device) throw;
      one_lane_ = true;
    }
  }
  return bind(compression_, &make_gpu_compression_backend, pd, s, 1);
}

double DeviceSlot::gpu_compression_model_original() const {
  if (compression_.parts.empty()) throw Error(ErrorKind::Internal, "no GPU compression backend bound");
  return ea::gpu_compression_model_original(*compression_.parts.front());
}

uint64_t assessment_seed(uint64_t user_seed, const Dataset& d) {
  return SeedDerivation("ea_iid assessment seed v1")
      .u64(user_seed)
      .digest(sha256(d.raw.data(), d.raw.size()))
      .u64(d.subset ? d.subset->index * d.subset->count : 0)
      .u64(d.raw.size())
      .finish();
}

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }

// Stage 1, input facts: what the data set is, and the warnings every report shows.
void describe_input(Assessment& a, const Dataset& d, const Settings& cfg, const DeviceSlot& slot) {
  set_input_facts(a, d);
  a.settings = cfg;
  a.seed = assessment_seed(cfg.seed, d);
  a.worker_threads = slot.cpu_threads(cfg);
  if (d.narrower_than_given) a.warnings.push_back("Symbols appear to be narrower than described.");
  if (const std::string hint = wide_capture_hint(d.mapping, d.size()); !hint.empty()) a.warnings.push_back(hint);
  if (d.size() < kMinSamples) {
    a.warnings.push_back("data contains less than " + std::to_string(kMinSamples) + " samples");
  }
  if (cfg.iterations != kReferenceIterations) {
    // The rule's real rate for IID data, computed (rejections.hpp explains it): the
    // standard's 12/10001 can be kept only from about 1,667 permutations up.
    const uint32_t t = decision_threshold(cfg.iterations);
    char rate[160];
    std::snprintf(rate, sizeof rate, "each permutation test now rejects IID data with probability up to %.4g, "
                  "SP 800-90B's rule %.2g", permutation_false_rejection_rate(cfg.iterations, t),
                  permutation_false_rejection_rate(kReferenceIterations, kReferenceThreshold));
    a.warnings.push_back("--iterations " + std::to_string(cfg.iterations) +
                         ": exploratory, not an SP 800-90B assessment (the standard requires 10,000 permutations; with "
                         "the rule C0+C1 or C1+C2 <= " + std::to_string(t) + " " + rate + ")");
  }
}

// Stage 2, estimates: the value counts, the baseline statistics and the most common value
// estimates (6.3.1) of the symbols (-i) and of the bitstring (k > 2 or -c).
void estimate_entropy(Assessment& a, const Dataset& d, const Settings& cfg) {
  a.base = baseline(d);
  std::vector<uint64_t> counts(static_cast<size_t>(d.alphabet), 0);
  for (uint8_t s : d.symbols) ++counts[s];
  for (int s = 0; s < d.alphabet; ++s) {
    a.value_counts.emplace_back(d.raw_of[static_cast<size_t>(s)], counts[static_cast<size_t>(s)]);
  }
  std::sort(a.value_counts.begin(), a.value_counts.end());
  a.h_assessed = d.width;
  if (cfg.initial_entropy) {
    a.h_original = most_common_value(counts, d.size());
    a.h_assessed = std::min(a.h_assessed, a.h_original->entropy);
  }
  if (d.alphabet > 2 || !cfg.initial_entropy) {
    auto bits = bitstring_counts(d, cfg.truncate_bitstring ? kMinSamples : 0);
    a.bitstring_bits = bits[0] + bits[1];
    a.h_bitstring = most_common_value(bits, a.bitstring_bits);
    a.h_assessed = std::min(a.h_assessed, a.h_bitstring->entropy * d.width);
  }
}

// Stage 3a, the IID tests that need no permutation: chi-square (5.2) and LRS (5.2.5).
void test_chi_square_and_lrs(Assessment& a, const Dataset& d) {
  auto t = Clock::now();
  a.independence = chi_square_independence(d.symbols, d.alphabet);
  a.goodness_of_fit = chi_square_goodness_of_fit(d.symbols, d.alphabet);
  a.timings.chi_square = seconds_since(t);
  t = Clock::now();
  a.lrs = longest_repeated_substring(d.symbols, d.alphabet);
  a.timings.lrs = seconds_since(t);
}

// The permutation tests' view of the data: its statistics' parameters, the streams and the
// 18 fast statistics of the original (the compression statistic is set after the run).
PermutationData permutation_data(const Assessment& a, const Dataset& d, const StreamSet& streams) {
  PermutationData pd;
  pd.symbols = d.symbols.data();
  pd.n = d.size();
  pd.raw_of = d.raw_of.data();
  pd.params = StatParams{a.base.mean, a.base.median, d.binary(), static_cast<uint32_t>(d.alphabet)};
  pd.streams = streams.view();
  pd.shuffle = a.settings.shuffle;
  pd.early_decision_likely = !a.chi_square_failed() && a.lrs.passed();
  CpuScratch scratch;
  cpu_statistics(pd.symbols, pd.n, pd.raw_of, pd.params, kAllFastTests, pd.original, scratch);
  pd.original.v[kNumFastTests] = std::numeric_limits<double>::quiet_NaN();
  return pd;
}

// Where the permutation tests run: the one backend policy. `fast` computes tests 0-17,
// `compression` test 18; the owners keep what was made here.
struct Backends {
  PermutationBackend* gpu = nullptr;              // tests 0-17 on the GPU (null: the CPU)
  PermutationBackend* gpu_compression = nullptr;  // the exact bzip2 model on the GPU
  std::unique_ptr<PermutationBackend> cpu_compression, cpu_fast, verify_cpu, verified;
  // Full counts: the GPU's model and the CPU cores' share the compression test's permutations.
  std::unique_ptr<PermutationBackend> shared_compression;
  PermutationBackend* fast = nullptr;
  PermutationBackend* compression = nullptr;
  // Full counts where `compression` computes every test (the GPU's model with bz-statistics):
  // one phase of all 19 tests on it, each permutation made once (DriverConfig::one_phase).
  bool one_phase = false;
  // The CPU's compression test: the bzip2 size model unless --cpu-compression, used once its
  // length of the original data equals libbz2's; on a difference (never seen on the sample
  // files) libbz2 itself, with a note. Set when the deferred backend is made.
  struct CpuCompression {
    std::string device;  // what permutation.compressionDevice reports
    std::string note;    // the model's difference from libbz2, if any
  };
  std::shared_ptr<CpuCompression> cpu_compression_used;
};

// permutation.compressionDevice: the model's check is named only where it was made (the
// test ran); otherwise the device says where it would have run.
constexpr const char* kCpuModelDevice = "cpu (bzip2 size model)";
constexpr const char* kChecked = ", checked against libbz2 on the original data";
// permutation.device's words where one phase ran every test on the compression test's backends.
constexpr const char* kOnePhase = "; one phase: the 18 statistical tests on the compression test's permutations";

// The CPU's compression device after the run: the backend, made when the compression phase
// started, names the model's check; a phase cancelled before its end (another test failed
// first) ran no test, so the device says where it would have run, without the check (a
// model that differed from libbz2 stays "cpu (libbz2)", with its note).
std::string cpu_part_device(const Settings& cfg, const PermutationOutcome& outcome,
                            const Backends::CpuCompression& used) {
  if (outcome.compression_run || !cfg.gpu_compression || !used.note.empty()) return used.device;
  return kCpuModelDevice;
}

// The compression test's backend on the CPU cores, with libbz2's length of the original data;
// on the worker's compression threads but `spared` (at least one).
std::unique_ptr<PermutationBackend> cpu_compression_backend(const PermutationData& pd, const Settings& cfg,
                                                            DeviceSlot& slot,
                                                            const std::function<double()>& original_bzip2,
                                                            std::shared_ptr<Backends::CpuCompression> used,
                                                            int spared = 0) {
  const bool model = cfg.gpu_compression;  // false: --cpu-compression
  used->device = model ? kCpuModelDevice : "cpu (libbz2)";
  const int threads = std::max(1, slot.compression_threads(cfg) - spared);
  auto make = [pd, original_bzip2, model, used, threads] {
    PermutationData with_length = pd;
    const double libbz2 = original_bzip2();
    with_length.original.v[kNumFastTests] = libbz2;
    if (model) {
      Bzip2SizeModel m;
      const uint64_t modelled = m.compressed_length(pd.symbols, pd.n, pd.raw_of);
      with_length.compression_by_model = static_cast<double>(modelled) == libbz2;
      if (with_length.compression_by_model) {
        used->device = std::string("cpu (bzip2 size model") + kChecked + ")";
      } else {
        used->device = "cpu (libbz2)";
        used->note = "compression test by libbz2: the bzip2 size model gives " + std::to_string(modelled) +
                     " bytes for the original data where libbz2 gives " + std::to_string(libbz2);
      }
    }
    return make_cpu_backend(with_length, threads);
  };
  return std::make_unique<DeferredBackend>(used->device, make, kAllTests);  // (supported() without making it)
}

// The GPU for tests 0-17 unless --device cpu (auto: the CPU cores when no GPU is usable,
// with a note). Returns null for the CPU; throws Error{Device} with --device gpu.
PermutationBackend* gpu_for_fast_tests(Assessment& a, const PermutationData& pd, const Settings& cfg,
                                       const Hooks& hooks, DeviceSlot& slot) {
  PermutationBackend* gpu = nullptr;
  if (cfg.device != DeviceChoice::Cpu) {
    try {
      gpu = &slot.gpu(pd, cfg);
      a.device = gpu->name();
      if (hooks.note) hooks.note("using " + a.device + " for the permutation tests");
    } catch (const Error& e) {
      if (cfg.device == DeviceChoice::Gpu) throw;
      if (hooks.note) hooks.note(std::string("running on the CPU: ") + e.what());
    }
  }
  if (!gpu) {
    const int threads = slot.cpu_threads(cfg);
    a.device = "cpu (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
  }
  return gpu;
}

// The compression test on the GPU too, when the data will most likely reach it (data that
// already failed chi-square or LRS keeps the CPU, where it runs only if needed, unless
// --all-tests runs it anyway). Its backend is made now, while libbz2 still compresses the
// original data on a CPU core (about half a second for a million samples): it compares the
// permutations with its own model's length of the original, and libbz2's length must equal
// it before any result is used (run_permutation_stage). A failure to make it leaves the
// test to the CPU cores, with a note.
PermutationBackend* gpu_for_compression(const PermutationData& pd, const Settings& cfg, const Hooks& hooks,
                                        DeviceSlot& slot) {
  if (!cfg.compression_test || !cfg.gpu_compression || !(pd.early_decision_likely || cfg.all_tests)) return nullptr;
  try {
    return &slot.gpu_compression(pd, cfg);
  } catch (const Error& e) {
    if (hooks.note) hooks.note(std::string("compression test on the CPU: ") + e.what());
    return nullptr;
  }
}

Backends choose_backends(Assessment& a, const PermutationData& pd, const Settings& cfg, const Hooks& hooks,
                         DeviceSlot& slot, const std::function<double()>& original_bzip2) {
  Backends b;
  const auto setup_start = Clock::now();
  b.gpu = gpu_for_fast_tests(a, pd, cfg, hooks, slot);
  if (b.gpu) b.gpu_compression = gpu_for_compression(pd, cfg, hooks, slot);
  if (b.gpu) a.timings.device_setup = seconds_since(setup_start);
  // The compression test's backend on the CPU cores copies pd with libbz2's length of the
  // original data. It is made when the compression phase starts (DeferredBackend; often
  // never: data that already failed chi-square or LRS), so the statistical tests, on the
  // GPU or on the CPU cores, do not wait for libbz2 (up to 0.45 s of a data.pi run on the
  // H100, docs/performance-history.md); a CPU run's statistical tests get a backend of their own.
  // Without early exit (full counts) every permutation's compression statistic is computed:
  // the host's cores take pieces of them beside the GPU's model (make_shared_backend), all but
  // one core (the GPU's rounds are driven from the host too).
  const bool share = b.gpu_compression && !cfg.early_exit && slot.compression_threads(cfg) > 1;
  if (!b.gpu_compression || share) {
    b.cpu_compression_used = std::make_shared<Backends::CpuCompression>();
    b.cpu_compression = cpu_compression_backend(pd, cfg, slot, original_bzip2, b.cpu_compression_used, share ? 1 : 0);
  }
  if (share) b.shared_compression = make_shared_backend({b.gpu_compression, b.cpu_compression.get()});
  if (!b.gpu) b.cpu_fast = make_cpu_backend(pd, slot.cpu_threads(cfg));
  b.compression = b.shared_compression ? b.shared_compression.get()
                  : b.gpu_compression  ? b.gpu_compression
                                       : b.cpu_compression.get();
  a.compression_device = b.gpu_compression ? b.gpu_compression->name() : b.cpu_compression_used->device;
  // --verify gets a CPU backend of its own: the compression phase uses the CPU backend at the
  // same time, and a backend's per-thread buffers serve one caller at a time.
  if (b.gpu && cfg.verify) {
    b.verify_cpu = make_cpu_backend(pd, 1);
    b.verified = make_verifying_backend(*b.gpu, *b.verify_cpu, 4);
  }
  b.fast = b.verified ? b.verified.get() : b.gpu ? b.gpu : b.cpu_fast.get();
  b.one_phase = b.gpu && b.gpu_compression && !b.verified && !cfg.early_exit && cfg.all_tests &&
                cfg.compression_test && b.compression->supported() == kAllTests;
  if (b.one_phase) b.fast = b.compression;  // (the GPU's part, and the host cores' where shared)
  return b;
}

DriverConfig driver_config(const Settings& cfg, const Hooks& hooks, const PermutationData& pd, const Backends& b) {
  DriverConfig dc;
  dc.iterations = cfg.iterations;
  dc.early_exit = cfg.early_exit;
  dc.all_tests = cfg.all_tests;
  dc.skip_compression = !cfg.compression_test;
  dc.progress = hooks.progress;
  // The compression test runs beside the GPU's rounds when the data will most likely need
  // it (or --all-tests runs it anyway); data that already failed chi-square or LRS almost
  // surely fails a statistical test too, so its compression test (on the CPU cores)
  // waits for them and usually never runs: speculative compressions there only took the
  // cores from other work (a batch's other assessments). The counters are the same either way.
  dc.concurrent_compression =
      b.gpu != nullptr && (pd.early_decision_likely || cfg.all_tests || b.compression != b.cpu_compression.get());
  dc.one_phase = b.one_phase;
  dc.interrupt = hooks.interrupt;
  return dc;
}

// Stage 3b, the permutation tests (5.1): the rounds on the chosen backends, then the check of
// the GPU's bzip2 model against libbz2 on the original data (on a difference, never seen on
// the sample files, its counters are dropped and the whole testing runs again with libbz2 on
// the CPU cores; the statistical tests give the same counters again).
void run_permutation_stage(Assessment& a, PermutationData& pd, const Settings& cfg, const Hooks& hooks,
                           DeviceSlot& slot, const std::function<double()>& original_bzip2) {
  Backends b = choose_backends(a, pd, cfg, hooks, slot, original_bzip2);
  DriverConfig dc = driver_config(cfg, hooks, pd, b);
  a.permutation = run_permutation_tests(*b.fast, *b.compression, dc);
  pd.original.v[kNumFastTests] = original_bzip2();
  a.original = pd.original;
  if (b.gpu_compression && a.permutation.compression_run &&
      slot.gpu_compression_model_original() != pd.original.v[kNumFastTests]) {
    if (hooks.note) {
      hooks.note("compression test on the CPU: the GPU bzip2 model gives " +
                 std::to_string(slot.gpu_compression_model_original()) +
                 " bytes for the original data where libbz2 gives " + std::to_string(pd.original.v[kNumFastTests]));
    }
    b.shared_compression.reset();  // (before the CPU part it holds)
    b.cpu_compression_used.reset();   // (libbz2 below, never the model)
    b.cpu_compression = make_cpu_backend(pd, slot.compression_threads(cfg));
    b.compression = b.cpu_compression.get();
    if (b.one_phase) b.fast = b.gpu;  // (one phase is never verified: b.verified is null then)
    b.one_phase = dc.one_phase = false;
    a.compression_device = "cpu (libbz2)";
    dc.concurrent_compression = false;
    a.permutation = run_permutation_tests(*b.fast, *b.compression, dc);
  }
  if (b.gpu_compression && b.compression == b.gpu_compression && a.permutation.compression_run) {
    a.compression_device += kChecked;  // (the check above passed)
  }
  if (b.shared_compression && b.compression == b.shared_compression.get()) {
    a.compression_device = b.gpu_compression->name() + (a.permutation.compression_run ? kChecked : "") + " + " +
                           cpu_part_device(cfg, a.permutation, *b.cpu_compression_used);
    if (!b.cpu_compression_used->note.empty() && hooks.note) hooks.note(b.cpu_compression_used->note);
  }
  if (b.cpu_compression_used && b.compression == b.cpu_compression.get()) {
    a.compression_device = cpu_part_device(cfg, a.permutation, *b.cpu_compression_used);
    if (!b.cpu_compression_used->note.empty() && hooks.note) hooks.note(b.cpu_compression_used->note);
  }
  if (b.one_phase) a.device += kOnePhase;
  a.timings.device_busy = b.fast->busy_seconds();
  a.timings.device_profile = b.fast->profile();
  if (b.compression != b.cpu_compression.get() && b.compression != b.fast && a.permutation.compression_run) {
    a.timings.device_profile += (a.timings.device_profile.empty() ? "" : "; ") + b.compression->profile();
  }
  a.verified = b.verified != nullptr;
  a.timings.permutation = a.permutation.fast_seconds;
  a.timings.compression = a.permutation.compression_seconds;
}

}  // namespace

// The stages of the IID track in order; the decision (stage 4) is Assessment::verdict(),
// made from the stages' results alone.
Assessment assess(const Dataset& d, const Settings& cfg, const Hooks& hooks, DeviceSlot& slot) {
  const auto start = Clock::now();
  Assessment a;
  describe_input(a, d, cfg, slot);
  estimate_entropy(a, d, cfg);
  a.timings.estimates = seconds_since(start);
  // The compression statistic of the original data (bzip2, about half a second for a
  // million samples) is computed beside the other tests and the device set-up; with
  // --until-decided only once chi-square and LRS have passed (it is not needed otherwise).
  std::shared_future<double> original_compression;
  auto start_original_compression = [&] {
    original_compression = std::async(std::launch::async, [&d] {
                             Compressor c;
                             return static_cast<double>(c.compressed_length(d.symbols.data(), d.size(), d.raw_of.data()));
                           }).share();
  };
  if (cfg.compression_test && !cfg.until_decided) start_original_compression();
  test_chi_square_and_lrs(a, d);
  if (hooks.tested) hooks.tested(a);
  const bool decided = cfg.until_decided && (a.chi_square_failed() || !a.lrs.passed());
  if (cfg.compression_test && cfg.until_decided && !decided) start_original_compression();
  const std::function<double()> original_bzip2 = [original_compression] {
    return original_compression.valid() ? original_compression.get() : 0.0;
  };
  if (decided) {
    // The verdict is "not IID" whatever the permutation tests would say: they are not run,
    // and the report says so (their unpermuted statistics are still given).
    const StreamSet none(cfg.prng, a.seed, 0);
    const PermutationData pd = permutation_data(a, d, none);
    a.shuffle = engine_shuffle_name(cfg.prng, pd.n, pd.params.binary, cfg.shuffle);
    a.original = pd.original;
    a.permutation.threshold = decision_threshold(cfg.iterations);
    const std::vector<std::string> failed = a.failed_families();
    std::string which;
    for (size_t k = 0; k < failed.size(); ++k) which += (k ? " and " : "") + failed[k];
    a.permutation.note = "not run: " + which + " failed, so the verdict is not IID whatever they give (--until-decided)";
    a.permutation.compression_note = "not run (--until-decided)";
    a.device = "none (--until-decided)";
    a.compression_device = "none (--until-decided)";
  } else {
    // Start states of every permutation's stream, made on the host in order of j.
    const StreamSet streams(cfg.prng, a.seed, cfg.iterations);
    PermutationData pd = permutation_data(a, d, streams);
    pd.every_permutation = !cfg.early_exit;
    a.shuffle = engine_shuffle_name(cfg.prng, pd.n, pd.params.binary, cfg.shuffle);
    run_permutation_stage(a, pd, cfg, hooks, slot, original_bzip2);
  }
  a.timings.total = seconds_since(start);
  return a;
}

}  // namespace ea
