#include "assess.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <future>
#include <limits>
#include <map>
#include <optional>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "permutation/deferred.hpp"
#include "permutation/split.hpp"
#include "permutation/verify.hpp"
#include "stats/compression.hpp"

namespace ea {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Iid: return "IID";
    case Verdict::NotIid: return "not IID";
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

PermutationBackend& DeviceSlot::bind(Group& g, Factory make, const PermutationData& pd, const Settings& s) {
  if (warming_.valid()) warming_.get();
  bool bound = g.parts.size() == gpus_.size();
  for (auto& p : g.parts) bound = bound && p->rebind(pd);
  if (!bound) {
    // Their memory goes back before new backends size their rounds; a failure leaves the
    // group empty (never a part of it).
    g.split.reset();
    g.parts.clear();
    std::vector<std::unique_ptr<PermutationBackend>> parts(gpus_.size());
    if (gpus_.size() == 1) {
      parts[0] = make(pd, gpus_[0].gpu, s.tuning, gpus_[0].memory_share);
    } else {
      // Several GPUs: their contexts and buffers are set up at the same time (a CUDA
      // context takes a few hundred milliseconds); every one is waited for.
      std::vector<std::future<std::unique_ptr<PermutationBackend>>> making;
      for (const GpuShare& gs : gpus_) {
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
    if (g.parts.size() > 1) {
      std::vector<PermutationBackend*> raw;
      for (auto& p : g.parts) raw.push_back(p.get());
      g.split = make_split_backend(std::move(raw));
    }
  }
  return g.split ? *g.split : *g.parts.front();
}

PermutationBackend& DeviceSlot::gpu(const PermutationData& pd, const Settings& s) {
  return bind(fast_, &make_gpu_backend, pd, s);
}

PermutationBackend& DeviceSlot::gpu_compression(const PermutationData& pd, const Settings& s) {
  return bind(compression_, &make_gpu_compression_backend, pd, s);
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

Assessment assess(const Dataset& d, const Settings& cfg, const Hooks& hooks, DeviceSlot& slot) {
  using clock = std::chrono::steady_clock;
  auto seconds = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  const auto start = clock::now();

  Assessment a;
  set_input_facts(a, d);
  a.binary = d.binary();
  a.narrower_than_given = d.narrower_than_given;
  a.subset = d.subset;
  a.settings = cfg;
  a.seed = assessment_seed(cfg.seed, d);
  if (d.narrower_than_given) a.warnings.push_back("Symbols appear to be narrower than described.");
  if (d.size() < kMinSamples) {
    a.warnings.push_back("data contains less than " + std::to_string(kMinSamples) + " samples");
  }
  if (cfg.iterations != kReferenceIterations) {
    a.warnings.push_back("--iterations " + std::to_string(cfg.iterations) +
                         ": exploratory, not an SP 800-90B assessment (the standard requires 10,000 permutations; "
                         "the decision rule is scaled to keep its tail probability)");
  }

  // Baseline and most common value estimates (6.3.1).
  a.base = baseline(d);
  std::vector<uint64_t> counts(static_cast<size_t>(d.alphabet), 0);
  for (uint8_t s : d.symbols) ++counts[s];
  for (int s = 0; s < d.alphabet; ++s) a.value_counts.emplace_back(d.raw_of[static_cast<size_t>(s)], counts[static_cast<size_t>(s)]);
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
  auto t1 = clock::now();
  a.timings.estimates = seconds(start, t1);

  // The compression statistic of the original data (bzip2, about half a second for a
  // million samples) is computed beside the other tests and the device set-up.
  std::future<double> original_compression;
  if (cfg.compression_test) {
    original_compression = std::async(std::launch::async, [&d] {
      Compressor c;
      return static_cast<double>(c.compressed_length(d.symbols.data(), d.size(), d.raw_of.data()));
    });
  }

  a.independence = chi_square_independence(d.symbols, d.alphabet);
  a.goodness_of_fit = chi_square_goodness_of_fit(d.symbols, d.alphabet);
  auto t2 = clock::now();
  a.timings.chi_square = seconds(t1, t2);

  a.lrs = longest_repeated_substring(d.symbols, d.alphabet);
  auto t3 = clock::now();
  a.timings.lrs = seconds(t2, t3);

  // Permutation tests.
  PermutationData pd;
  pd.symbols = d.symbols.data();
  pd.n = d.size();
  pd.raw_of = d.raw_of.data();
  pd.params = StatParams{a.base.mean, a.base.median, d.binary(), static_cast<uint32_t>(d.alphabet)};
  // Start states of every permutation's stream, made on the host in order of j.
  const StreamSet streams(cfg.prng, a.seed, cfg.iterations);
  pd.streams = streams.view();
  pd.early_decision_likely = !a.chi_square_failed() && a.lrs.passed();
  {
    CpuScratch scratch;
    cpu_statistics(pd.symbols, pd.n, pd.raw_of, pd.params, kAllFastTests, pd.original, scratch);
  }

  PermutationBackend* gpu = nullptr;
  const auto setup_start = clock::now();
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
  if (!gpu) a.device = "cpu (" + std::to_string(cfg.threads) + " threads)";
  // The compression test on the GPU too, when the data will most likely reach it (data that
  // already failed chi-square or LRS keeps the CPU, where it runs only if needed, unless
  // --all-tests runs it anyway). Its backend is made now, while libbz2 still compresses the
  // original data on a CPU core (about half a second for a million samples): it compares the
  // permutations with its own model's length of the original, and libbz2's length must equal
  // it before any result is used (below). A failure to make it leaves the test to the CPU
  // cores, with a note.
  PermutationBackend* gpu_compression = nullptr;
  if (gpu && cfg.compression_test && cfg.gpu_compression && (pd.early_decision_likely || cfg.all_tests)) {
    try {
      PermutationData model_pd = pd;
      model_pd.original.v[kNumFastTests] = std::numeric_limits<double>::quiet_NaN();
      gpu_compression = &slot.gpu_compression(model_pd, cfg);
    } catch (const Error& e) {
      if (hooks.note) hooks.note(std::string("compression test on the CPU: ") + e.what());
    }
  }
  if (gpu) a.timings.device_setup = seconds(setup_start, clock::now());
  std::optional<double> bzip2_original;
  auto original_bzip2 = [&]() {
    if (!bzip2_original) bzip2_original = original_compression.valid() ? original_compression.get() : 0.0;
    return *bzip2_original;
  };
  // The compression test's backend on the CPU cores copies pd with libbz2's length of the
  // original data. It is made when the compression phase starts (DeferredBackend; often
  // never: data that already failed chi-square or LRS), so the statistical tests, on the
  // GPU or on the CPU cores, do not wait for libbz2 (up to 0.45 s of a data.pi run on the
  // H100, docs/performance.md); a CPU run's statistical tests get a backend of their own.
  pd.original.v[kNumFastTests] = std::numeric_limits<double>::quiet_NaN();  // set after the run
  std::unique_ptr<PermutationBackend> cpu, cpu_fast;
  if (!gpu_compression) {
    cpu = std::make_unique<DeferredBackend>("cpu (libbz2)", [&pd, &original_bzip2, threads = cfg.threads] {
      PermutationData with_length = pd;
      with_length.original.v[kNumFastTests] = original_bzip2();
      return make_cpu_backend(with_length, threads);
    });
  }
  if (!gpu) cpu_fast = make_cpu_backend(pd, cfg.threads);
  PermutationBackend* compression = gpu_compression ? gpu_compression : cpu.get();
  a.compression_device = gpu_compression ? gpu_compression->name() + ", checked against libbz2 on the original data"
                                         : "cpu (libbz2)";

  DriverConfig dc;
  dc.iterations = cfg.iterations;
  dc.early_exit = cfg.early_exit;
  dc.all_tests = cfg.all_tests;
  dc.skip_compression = !cfg.compression_test;
  dc.progress = hooks.progress;
  // The compression test runs beside the GPU's rounds when the data will most likely need
  // it (or --all-tests runs it anyway); data that already failed chi-square or LRS almost
  // surely fails a statistical test too, so its compression test (libbz2 on the CPU cores)
  // waits for them and usually never runs: speculative compressions there only took the
  // cores from other work (a batch's other assessments). The counters are the same either way.
  dc.concurrent_compression = gpu != nullptr && (pd.early_decision_likely || cfg.all_tests || compression != cpu.get());
  dc.interrupt = hooks.interrupt;
  // --verify gets a CPU backend of its own: the compression phase uses `cpu` at the same
  // time, and a backend's per-thread buffers serve one caller at a time.
  std::unique_ptr<PermutationBackend> verify_cpu, verified;
  if (gpu && cfg.verify) {
    verify_cpu = make_cpu_backend(pd, 1);
    verified = make_verifying_backend(*gpu, *verify_cpu, 4);
  }
  PermutationBackend& fast = verified ? *verified : gpu ? *gpu : *cpu_fast;
  a.permutation = run_permutation_tests(fast, *compression, dc);
  pd.original.v[kNumFastTests] = original_bzip2();
  a.original = pd.original;
  if (gpu_compression && a.permutation.compression_run &&
      slot.gpu_compression_model_original() != pd.original.v[kNumFastTests]) {
    // The model disagrees with libbz2 (never seen on the sample files): its counters are
    // dropped and the whole permutation testing is run again with libbz2 on the CPU cores
    // (the statistical tests give the same counters again).
    if (hooks.note) {
      hooks.note("compression test on the CPU: the GPU bzip2 model gives " +
                 std::to_string(slot.gpu_compression_model_original()) +
                 " bytes for the original data where libbz2 gives " + std::to_string(pd.original.v[kNumFastTests]));
    }
    cpu = make_cpu_backend(pd, cfg.threads);
    compression = cpu.get();
    a.compression_device = "cpu (libbz2)";
    dc.concurrent_compression = false;
    a.permutation = run_permutation_tests(fast, *compression, dc);
  }
  a.timings.device_busy = fast.busy_seconds();
  a.timings.device_profile = fast.profile();
  if (compression != cpu.get() && a.permutation.compression_run) {
    a.timings.device_profile += (a.timings.device_profile.empty() ? "" : "; ") + compression->profile();
  }
  a.verified = verified != nullptr;
  a.timings.permutation = a.permutation.fast_seconds;
  a.timings.compression = a.permutation.compression_seconds;
  a.timings.total = seconds(start, clock::now());
  return a;
}

}  // namespace ea
