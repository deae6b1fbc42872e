// ea_iid health-tests H [--alpha 2^-20] [--bits N] [-o FILE.json] [-q]: the continuous health
// tests' cutoffs (SP 800-90B 4.4) for a claimed min-entropy H per sample (pipeline/health.hpp;
// the arithmetic in src/health). A result without a data set: no batch, JSONL or resume.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands.hpp"
#include "common/error.hpp"
#include "common/numbers.hpp"
#include "health.hpp"
#include "logging.hpp"
#include "messages.hpp"
#include "option_groups.hpp"
#include "outcome.hpp"
#include "output.hpp"
#include "report.hpp"
#include "settings_rules.hpp"
#include "version.hpp"

namespace ea::cli {

namespace {

struct HealthFlags {
  std::string h, alpha = "2^-20", bits;
  CLI::Option *alpha_opt = nullptr, *bits_opt = nullptr;
  OutputOptionText out;
};

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
  app.footer(
      "Examples:\n"
      "  ea_iid health-tests 0.5\n"
      "  ea_iid health-tests 1 --bits 1 --alpha 2^-30 -o cutoffs.json\n"
      "The cutoffs of SP 800-90B 4.4.1 (RCT: C = 1 + ceil(-log2(alpha)/H)) and 4.4.2 (APT: C = 1 +\n"
      "CRITBINOM(W, 2^-H, 1-alpha)), each with its exact false-positive rate, the APT cutoff that keeps\n"
      "the rate at most alpha when the window's first sample is counted, and the power of each test.");
}

// The settings of the flags through the one set of rules (pipeline/settings_rules.hpp).
Settings health_settings(const HealthFlags& f) {
  Settings s;
  s.health = HealthSpec{parse_real<double>(f.h, "H"), alpha_setting(f.alpha, cli_setting_names())};
  if (f.bits_opt->count()) s.width = apply_bits_option(f.bits);
  SettingsGiven given;
  given.alpha = f.alpha_opt->count() > 0;
  given.bits = f.bits_opt->count() > 0;
  check_settings(s, given, cli_setting_names());
  return s;
}

int run_health(const HealthFlags& f, const CommandEnv& env) {
  const Settings s = health_settings(f);
  const OutputFiles files = apply_output_group(f.out);
  if (files.force && !files.json) throw Error(ErrorKind::Usage, "--force applies to -o, which is not given");
  ReportOptions ro;
  ro.started = timestamp_now();
  ro.command_line = env.command_line;
  ro.quiet = files.quiet;
  InputSet inputs;  // none: nothing is read
  if (files.json) {
    check_output_path(*files.json, inputs, "-o");
    check_replaceable(*files.json, files.force, "-o");
  }
  const HealthAssessment a = assess_health(s);
  const bool json_on_stdout = files.json && *files.json == "-";
  std::FILE* text = json_on_stdout ? stderr : stdout;
  print_health_text(text, a, ro);
  flush_checked(text, json_on_stdout ? "standard error" : "standard output");
  if (files.json) write_file_atomically(*files.json, dump_json(health_json(a, ro), 2) + "\n", inputs, "-o");
  return 0;
}

}  // namespace

int health_main(std::vector<char*> args, const CommandEnv& env) {
  try {
    init_logging("info");
    HealthFlags f;
    CLI::App app{"ea_iid health-tests: the Repetition Count Test's and the Adaptive Proportion Test's cutoffs "
                 "(SP 800-90B 4.4) for a claimed min-entropy H per sample.",
                 "ea_iid health-tests"};
    add_health_options(app, f);
    if (const int done = parse_subcommand(app, args, "ea_iid health-tests"); done >= 0) return done;
    return run_health(f, env);
  } catch (const Error& e) {
    logger().error("{}", worded(e));
  } catch (const std::exception& e) {
    logger().error("internal error: {}", e.what());
  }
  return exit_status(Outcome::error(), {}, 0);
}

}  // namespace ea::cli
