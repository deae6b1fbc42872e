// ea_iid health-tests H [--alpha 2^-20] [--bits N] [--simulate N] [--exit-code] [-o FILE.json]
// [-q] [FILE...]: the continuous health tests' cutoffs (SP 800-90B 4.4) for a claimed
// min-entropy H per sample, both tests run over each FILE's samples, and their Monte Carlo
// check (pipeline/health.hpp; the arithmetic in src/health). One document: no batch, JSONL
// or resume.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>

#include "help.hpp"
#include "commands.hpp"
#include "common/error.hpp"
#include "common/interrupt.hpp"
#include "common/numbers.hpp"
#include "health.hpp"
#include "runner.hpp"
#include "logging.hpp"
#include "messages.hpp"
#include "options.hpp"
#include "option_groups.hpp"
#include "outcome.hpp"
#include "output.hpp"
#include "report.hpp"
#include "run.hpp"
#include "settings_rules.hpp"
#include "version.hpp"

namespace ea::cli {

namespace {

struct HealthFlags {
  std::string h, alpha = "2^-20", bits, simulate, seed, threads, device = "auto", gpu;
  std::vector<std::string> files;
  bool exit_code = false;
  SampleOptionText sample;  // --sample-format, --select-bits, --bin: how FILEs are read
  CLI::Option *alpha_opt = nullptr, *bits_opt = nullptr, *simulate_opt = nullptr, *seed_opt = nullptr,
              *threads_opt = nullptr, *device_opt = nullptr, *gpu_opt = nullptr;
  OutputOptionText out;
};

void add_run_options(CLI::App& app, HealthFlags& f) {
  app.add_option("FILE", f.files, "sample files (one sample per byte, --bits wide, or --sample-format): both tests run "
                                  "over each file's symbols with the cutoffs")
      ->type_name("FILE...");
  add_sample_options(app, f.sample, false);
  f.simulate_opt = app.add_option("--simulate", f.simulate,
                                  "the Monte Carlo check: N samples of a source of min-entropy exactly H through both "
                                  "tests, the observed false-positive rates against the exact ones (at least 1e9 for a "
                                  "check; on the GPU when one is usable, else CPU threads: the same counts)")
                       ->type_name("N");
  f.device_opt = app.add_option("--device", f.device, "with --simulate: where it runs: auto (the GPU if usable, else the "
                                                      "CPU; default), cpu or gpu (an error without one)")
                     ->type_name("auto|cpu|gpu");
  f.gpu_opt = app.add_option("--gpu", f.gpu, "with --simulate: the GPU's index (default 0)")->type_name("ID");
  f.seed_opt = app.add_option("--seed", f.seed, "with --simulate: 64-bit seed (decimal or 0x hex; default: drawn from "
                                                "the OS, recorded in the JSON)")
                   ->type_name("SEED");
  f.threads_opt = app.add_option("--threads", f.threads, "with --simulate or FILEs: CPU threads (of the simulation and "
                                                         "of --select-bits auto's search; default: all cores; the result "
                                                         "does not depend on it)")
                      ->type_name("N");
  app.add_flag("--exit-code", f.exit_code, "exit 1 when either test failed on some FILE (default: 0 when the run completed)");
}

void add_health_options(CLI::App& app, HealthFlags& f) {
  app.add_option("H", f.h, "the claimed min-entropy per sample, greater than 0 and at most the bits per sample")
      ->required()
      ->type_name("H");
  f.alpha_opt = app.add_option("--alpha", f.alpha,
                               "the false-positive rate of each test: 2^-N or a decimal (default 2^-20; SP 800-90B "
                               "recommends 2^-40 to 2^-20)")
                    ->type_name("ALPHA");
  f.bits_opt = add_bits_option(app, f.bits,
                               "bits per sample, 1-8: 1 is a binary source (the APT's window of 1024 samples, else 512); "
                               "H at most this (default: a non-binary source, H at most 8)");
  add_output_group(app, f.out, kOutputJson | kOutputForce | kOutputQuiet,
                   {"write the JSON record (type HealthTests) to FILE ('-': standard output)", "", "",
                    "with -o: replace an existing file that is not an ea_iid result", ""});
  add_run_options(app, f);
  app.footer(
      "Examples:\n"
      "  ea_iid health-tests 0.5\n"
      "  ea_iid health-tests 1 --bits 1 --alpha 2^-30 -o cutoffs.json\n"
      "  ea_iid health-tests 4 --bits 8 --exit-code capture1.bin capture2.bin\n"
      "  ea_iid health-tests 2 --sample-format u16le --select-bits 0x0ff0 adc.bin\n"
      "  ea_iid health-tests 2 --alpha 2^-8 --simulate 1e9 --seed 1 --device gpu\n"
      "The cutoffs of SP 800-90B 4.4.1 (RCT: C = 1 + ceil(-log2(alpha)/H)) and 4.4.2 (APT: C = 1 +\n"
      "CRITBINOM(W, 2^-H, 1-alpha)), each with its exact false-positive rate, the APT cutoff that keeps\n"
      "the rate at most alpha when the window's first sample is counted, and the power of each test.\n"
      "Over a FILE: a run of C identical samples is one RCT failure; the APT's windows are disjoint,\n"
      "from the first sample, each counting its first sample (4.4.2's B = 1). Offsets are 0-based.\n"
      "Exit status: 0 completed, whatever the tests found; 1 a test failed on some FILE (with\n"
      "--exit-code); 2 an error (usage, a FILE missing or unreadable); 130/143 interrupted. A FILE of\n"
      "one value (a stuck source) is scanned: the RCT fails on it, and the APT unless it cannot fail.");
}

// --simulate N: a whole number of samples, also written 1e9.
uint64_t simulate_samples(const std::string& text) {
  if (text.find_first_of("eE") != std::string::npos) {
    const double v = parse_real<double>(text, "--simulate");
    if (v != std::floor(v)) throw Error(ErrorKind::Usage, "--simulate: '" + text + "' is not a whole number of samples");
    if (v < 1 || v > static_cast<double>(kSimulateRange.max)) {
      throw Error(ErrorKind::Usage, "--simulate: '" + text + "' is out of range (" + std::to_string(kSimulateRange.min) +
                                        " to " + std::to_string(kSimulateRange.max) + " samples)");
    }
    return static_cast<uint64_t>(v);
  }
  return parse_unsigned(text, "--simulate", kSimulateRange.min, kSimulateRange.max);
}

// --simulate and the options of the simulation: --seed, --device, --gpu (check_settings says
// where they apply).
void apply_simulate_options(const HealthFlags& f, Settings& s) {
  if (f.simulate_opt->count()) s.health->simulate = simulate_samples(f.simulate);
  if (f.seed_opt->count()) s.seed = parse_unsigned(f.seed, "--seed", 0, UINT64_MAX, true);
  s.device = device_setting(f.device, cli_setting_names());
  if (f.gpu_opt->count()) s.gpus = parse_gpu_list(f.gpu, "--gpu");
}

// The settings of the flags through the one set of rules (pipeline/settings_rules.hpp).
Settings health_settings(const HealthFlags& f) {
  Settings s;
  s.health = HealthSpec{parse_real<double>(f.h, "H"), alpha_setting(f.alpha, cli_setting_names())};
  if (f.bits_opt->count()) s.width = apply_bits_option(f.bits);
  apply_simulate_options(f, s);
  s.threads = f.threads_opt->count()
                  ? static_cast<int>(parse_unsigned(f.threads, "--threads", kThreadsRange.min, kThreadsRange.max))
                  : omp_get_max_threads();
  SettingsGiven given;
  apply_sample_options(f.sample, s, given);
  for (const std::string& w : f.sample.warnings) logger().warn("{}", w);
  given.sample_format = f.sample.format_opt->count() > 0;
  given.inputs = !f.files.empty();
  given.seed = f.seed_opt->count() > 0;
  given.simulate = f.simulate_opt->count() > 0;
  given.device = f.device_opt->count() > 0;
  given.alpha = f.alpha_opt->count() > 0;
  given.bits = f.bits_opt->count() > 0;
  given.threads = f.threads_opt->count() > 0;
  given.gpus = f.gpu_opt->count() > 0;
  check_settings(s, given, cli_setting_names());
  require_gpus(s, cli_setting_names());
  if (!f.seed_opt->count() && draws_random_numbers(s)) s.seed = os_seed();
  return s;
}

int run_health(const HealthFlags& f, const CommandEnv& env) {
  const Settings s = health_settings(f);
  if (!f.seed_opt->count() && draws_random_numbers(s)) {
    logger().info("--seed {} (drawn from the OS; pass --seed to repeat this run)", s.seed);
  }
  const OutputFiles files = apply_output_group(f.out);
  if (files.force && !files.json) throw Error(ErrorKind::Usage, "--force applies to -o, which is not given");
  ReportOptions ro;
  ro.started = timestamp_now();
  ro.command_line = env.command_line;
  ro.quiet = files.quiet;
  InputSet inputs;
  for (const std::string& path : f.files) inputs.add(path);
  if (files.json) {
    check_output_path(*files.json, inputs, "-o");
    check_replaceable(*files.json, files.force, "-o");
  }
  const HealthAssessment a =
      assess_health(s, f.files, env.interrupt, [](const std::string& m) { logger().info("{}", m); });
  throw_if_interrupted(env.interrupt);  // a result that came as the signal did is not shown or written
  const bool json_on_stdout = files.json && *files.json == "-";
  std::FILE* text = json_on_stdout ? stderr : stdout;
  print_health_text(text, a, ro);
  flush_checked(text, json_on_stdout ? "standard error" : "standard output");
  if (files.json) write_file_atomically(*files.json, dump_json(health_json(a, ro), 2) + "\n", inputs, "-o");
  Outcome r;
  r.add(a.failed(), false, false);
  return exit_status(r, ExitPolicy{f.exit_code, false}, 0);
}

}  // namespace

int health_main(std::vector<char*> args, const CommandEnv& env) {
  try {
    init_logging("info");
    HealthFlags f;
    CLI::App app{"ea_iid health-tests: the Repetition Count Test's and the Adaptive Proportion Test's cutoffs "
                 "(SP 800-90B 4.4) for a claimed min-entropy H per sample, both tests run over the samples of FILEs, "
                 "and a Monte Carlo check of their false-positive rates.",
                 "ea_iid health-tests"};
    ea::cli::wrap_help(app);
    add_health_options(app, f);
    if (const int done = parse_subcommand(app, args, "ea_iid health-tests"); done >= 0) return done;
    env.install_signal_handlers();
    return run_health(f, env);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted) {  // nothing was written
      logger().error("interrupted; no result");
      return exit_status(Outcome::interrupted(), {}, env.signal_number->load());
    }
    logger().error("{}", worded(e));
    // A FILE of one value (a stuck source): exit 5, as ea_iid's degenerate source (cli/outcome.hpp).
    if (e.kind() == ErrorKind::Degenerate) return exit_status(Outcome::degenerate_source(), {}, 0);
  } catch (const std::exception& e) {
    logger().error("internal error: {}", e.what());
  }
  return exit_status(Outcome::error(), {}, 0);
}

}  // namespace ea::cli
