// ea_calibrate: the false-rejection rate of the permutation tests with a shuffling
// generator. It draws independent IID data sets from OpenSSL's RAND_bytes (a CSPRNG that is
// none of the shuffling generators) and runs each through the pipeline ea_iid runs
// (ea::run_items and assess(): the same rounds, the same compression device), then reports
// the share of data sets the permutation tests reject, with a Wilson 95% interval.
// scripts/calibrate-prngs.sh runs it for every generator; docs/prngs.md has the results.
#include <omp.h>
#include <openssl/rand.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "commands.hpp"
#include "gpu_tuning.hpp"
#include "help.hpp"
#include "common/error.hpp"
#include "common/numbers.hpp"
#include "messages.hpp"
#include "option_groups.hpp"
#include "report.hpp"
#include "options.hpp"
#include "outcome.hpp"
#include "runner.hpp"

using namespace ea;

namespace {

struct CalibrateOptions {
  std::string datasets = "1000", samples = "1000000", bits = "8", jobs = "8";
  cli::EngineOptionText engine;  // --seed, --prng (a list), --device, --gpu, --threads, --iterations, ...
  bool fast_only = false;
  std::string max_seconds;  // "": no limit
  double max_seconds_value = 0;
};

struct CalibrationTally {
  uint32_t done = 0, rejected = 0, errors = 0;
  uint64_t permutations = 0;
  uint32_t per_test[kNumTests] = {};
  std::string device, compression_device, shuffle;
};

// The data set of one item: `samples` bytes of RAND_bytes, masked to `bits`.
Dataset random_dataset(uint64_t samples, int bits) {
  std::vector<uint8_t> bytes(samples);
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    throw Error(ErrorKind::Internal, "RAND_bytes failed");
  }
  if (bits < 8) {
    for (auto& b : bytes) b = static_cast<uint8_t>(b & ((1u << bits) - 1u));
  }
  return make_dataset(std::move(bytes), bits);
}

nlohmann::ordered_json row_json(const std::string& prng, const CalibrationTally& t, uint64_t samples, const Settings& s,
                                double seconds) {
  // Wilson score interval, 95%.
  const double n = t.done, p = n > 0 ? t.rejected / n : 0, z = 1.959963984540054;
  const double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
  const double half = z / (1 + z * z / n) * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n));
  nlohmann::ordered_json j;
  j["prng"] = prng;
  j["bits"] = s.width;
  j["samples"] = samples;
  j["datasets"] = t.done;
  j["rejected"] = t.rejected;
  j["rate"] = p;
  j["wilson95"] = {std::max(0.0, centre - half), std::min(1.0, centre + half)};
  j["compression"] = s.compression_test;
  j["iterations"] = s.iterations;
  j["decisionThreshold"] = decision_threshold(s.iterations);
  j["seed"] = std::to_string(s.seed);
  j["device"] = t.device;
  j["compressionDevice"] = t.compression_device;
  j["shuffle"] = t.shuffle;
  j["gpuTuning"] = gpu_tuning_json(s.tuning);
  j["permutations"] = t.permutations;
  nlohmann::ordered_json per = nlohmann::ordered_json::object();
  for (int k = 0; k < kNumTests; ++k) {
    if (t.per_test[k]) per[test_name(k)] = t.per_test[k];
  }
  j["failedTests"] = per;
  j["seconds"] = seconds;  // of the whole run (generators run interleaved)
  return j;
}

// The options, checked: the run's base Settings and the generators' names.
struct Plan {
  Settings base;
  uint64_t datasets = 0, samples = 0;
  int jobs = 1;
};

Plan parse_calibrate(int argc, char** argv, CalibrateOptions& o, bool& help) {
  CLI::App app{"ea_calibrate: false-rejection rate of the permutation tests on CSPRNG data, per shuffling generator, "
               "through the pipeline ea_iid runs (also: ea_iid calibrate)"};
  ea::cli::wrap_help(app);
  app.add_option("--datasets", o.datasets, "independent IID data sets per generator (default 1000)")->type_name("N");
  app.add_option("--samples", o.samples, "samples per data set (default 1000000)")->type_name("N");
  app.add_option("--bits", o.bits, "bits per sample, 1-8 (default 8)")->type_name("B");
  app.add_option("--jobs", o.jobs, "data sets in flight at once, 1-256 (GPU: one CUDA stream each; default 8)")
      ->type_name("N");
  cli::add_engine_options(app, o.engine, cli::Program::Calibrate);
  app.add_flag("--fast-only", o.fast_only,
               "the 18 statistical tests only, without the compression test (by default it runs as in ea_iid: on "
               "the GPU with the bzip2 size model, when the other 18 passed)");
  bool uniformity = false;  // (calibrate_command hands --uniformity on before this parse: listed for --help)
  app.add_flag("--uniformity", uniformity,
               "the permutations' uniformity checks instead of the calibration (their options: ea_calibrate "
               "--uniformity --help; docs/prngs.md, Uniformity)");
  app.add_option("--max-seconds", o.max_seconds,
                 "start no new data set after this many seconds; the result then counts fewer data sets. "
                 "The data sets in flight still finish: leave a margin under any outer time limit")
      ->type_name("S");
  // (--help, --help-all, --version and --gpu-tuning help as every subcommand takes them)
  std::vector<char*> args(argv, argv + argc);
  if (cli::parse_subcommand(app, args, cli::program_name() == "ea_calibrate" ? "ea_calibrate" : "ea_iid calibrate") >= 0) {
    help = true;
    return {};
  }
  Plan p;
  p.datasets = cli::parse_unsigned(o.datasets, "--datasets", 1, 100000000);
  p.samples = cli::parse_unsigned(o.samples, "--samples", 1, kMaxSamples);
  p.base.width = static_cast<int>(cli::parse_unsigned(o.bits, "--bits", 1, 8));
  p.jobs = static_cast<int>(cli::parse_unsigned(o.jobs, "--jobs", 1, 256));
  if (app.count("--max-seconds")) {
    o.max_seconds_value = parse_real<double>(o.max_seconds, "--max-seconds");
    if (o.max_seconds_value < 0) throw Error(ErrorKind::Usage, "--max-seconds: '" + o.max_seconds + "' is negative");
  }
  const cli::EngineChoice engine = cli::apply_engine_options(o.engine, p.base, cli::Program::Calibrate);
  SettingsGiven given;  // (the one set of rules: GPU settings with --device cpu change nothing)
  given.gpus = o.engine.gpu_opt->count() > 0;
  given.round_size = o.engine.round_opt->count() > 0;
  given.tuning = o.engine.tuning_opt->count() > 0;
  const SettingNames names = cli::cli_setting_names();
  check_settings(p.base, given, names);
  p.base.seed = engine.seed.value_or(1);
  p.base.threads = engine.threads.value_or(std::max(1, omp_get_max_threads() / p.jobs));
  p.base.compression_test = !o.fast_only;
  return p;
}

}  // namespace

cli::Outcome cli::calibrate_command(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    // (also --uniformity=VALUE, which CLI11 would take for a flag)
    const std::string a = argv[i];
    if (a == "--uniformity" || a.rfind("--uniformity=", 0) == 0) return cli::uniformity_command(argc, argv);
  }
  CalibrateOptions o;
  bool help = false;
  const Plan plan = parse_calibrate(argc, argv, o, help);
  if (help) return cli::Outcome{};
  const Settings& base = plan.base;
  const uint64_t datasets = plan.datasets, samples = plan.samples;
  const int jobs = plan.jobs;
  // Several generators (--prng a,b,...) share one run, interleaved, so that their data sets
  // keep the GPU busy together and a --max-seconds limit cuts them alike.
  std::vector<std::string> names;
  std::vector<std::shared_ptr<const Settings>> per_prng;
  const std::string& prngs = o.engine.prng;
  for (size_t pos = 0; pos <= prngs.size();) {
    const size_t comma = std::min(prngs.find(',', pos), prngs.size());
    const std::string name = prngs.substr(pos, comma - pos);
    pos = comma + 1;
    auto s = std::make_shared<Settings>(base);
    s->prng = prng_setting(name, cli::cli_setting_names());  // (its error names the nearest generator)
    names.push_back(name);
    per_prng.push_back(s);
  }
  if (base.iterations != kReferenceIterations) {
    const unsigned t = decision_threshold(base.iterations);
    std::fprintf(stderr,
                 "ea_calibrate: warning: --iterations %u is exploratory: a test fails when C0+C1 <= %u or C1+C2 <= %u "
                 "(SP 800-90B's rule at 10,000 permutations, scaled); the rates are not the standard's\n",
                 base.iterations, t, t);
  }
  // Item k: data set k / P of generator k % P.
  std::vector<Item> items(datasets * names.size());
  for (size_t k = 0; k < items.size(); ++k) {
    const size_t g = k % names.size();
    items[k].path = names[g] + " data set " + std::to_string(k / names.size());
    items[k].settings = per_prng[g];
    const int bits = base.width;
    items[k].generate = [samples, bits] { return random_dataset(samples, bits); };
  }

  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&t0] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  std::vector<CalibrationTally> totals(names.size());
  uint64_t done_all = 0, rejected_all = 0;
  std::string first_error;
  RunObserver obs;
  if (o.max_seconds_value > 0) obs.may_start = [&] { return elapsed() <= o.max_seconds_value; };
  obs.finished = [&](size_t k, const Item&, ItemResult& r) {
    CalibrationTally& t = totals[k % names.size()];
    if (r.status != ItemResult::Status::Assessed) {
      ++t.errors;
      if (first_error.empty()) first_error = cli::worded(r.message, r.remedy);
      return;
    }
    const Assessment& a = *r.iid();
    const bool rejected = base.compression_test ? !a.permutation.passed() : !a.permutation.fast_tests_passed();
    ++t.done;
    t.rejected += rejected ? 1 : 0;
    rejected_all += rejected ? 1 : 0;
    t.permutations += a.permutation.fast_permutations;
    for (int i = 0; i < kNumTests; ++i) t.per_test[i] += a.permutation.test_failed(i) ? 1 : 0;
    t.device = a.device;
    t.compression_device = a.compression_device;
    t.shuffle = a.shuffle;
    if (++done_all % std::max<uint64_t>(1, items.size() / 10) == 0) {
      std::fprintf(stderr, "ea_calibrate %s %d-bit: %" PRIu64 "/%zu data sets, %" PRIu64 " rejected, %.0f s\n",
                   prngs.c_str(), base.width, done_all, items.size(), rejected_all, elapsed());
    }
  };
  static std::atomic<bool> never{false};
  const RunSummary sum = run_items(items, base, jobs, never, obs);
  if (!sum.stopped_by.empty()) throw Error(ErrorKind::Internal, sum.stopped_by);
  if (!first_error.empty()) {
    // A data set that could not be assessed (a device failure) is an error, not a rate.
    throw Error(ErrorKind::Device, first_error);
  }
  const double seconds = elapsed();
  for (size_t g = 0; g < names.size(); ++g) {
    std::cout << row_json(names[g], totals[g], samples, *per_prng[g], seconds).dump() << "\n";
  }
  std::cout.flush();
  if (!std::cout) throw Error(ErrorKind::Output, "standard output: write failed");
  return cli::Outcome{};
}
