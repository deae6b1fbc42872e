// ea_iid source NAME SAMPLES [options]: one noise source through SP 800-90B 3.1, with one
// JSON and one HTML report.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "help.hpp"
#include "common/error.hpp"
#include "common/numbers.hpp"
#include "conditioning_command.hpp"
#include "logging.hpp"
#include "manifest_command.hpp"
#include "messages.hpp"
#include "option_groups.hpp"
#include "outcome.hpp"
#include "output.hpp"
#include "esv.hpp"
#include "pdf.hpp"
#include "report.hpp"
#include "run.hpp"
#include "source.hpp"
#include "runner.hpp"
#include "source_settings.hpp"
#include "version.hpp"

namespace ea::cli {

namespace {

struct SourceFlags {
  std::string track, name, samples, restart_data, h_submitter, conditioning, h_prime, conditioned, json, html, bits;
  std::string pdf, browser;  // --pdf, --browser
  std::string esv;           // --esv DIR
  std::string n_in, n_out, nw;
  bool conditioned_iid = false, quiet = false, strict = false, exit_code = false, force = false, timing = false;
  bool until_decided = false, permutation_counters = false;
  int verbose = 0;
  EngineOptionText engine;
  SampleOptionText sample;  // --sample-format, --select-bits, --bin
  std::string health_alpha = "2^-20";  // --health-alpha
  CLI::Option *restart_opt = nullptr, *submitter_opt = nullptr, *conditioning_opt = nullptr, *n_in_opt = nullptr,
              *n_out_opt = nullptr, *nw_opt = nullptr, *h_prime_opt = nullptr, *conditioned_opt = nullptr,
              *json_opt = nullptr, *html_opt = nullptr, *bits_opt = nullptr, *track_opt = nullptr,
              *pdf_opt = nullptr, *browser_opt = nullptr, *esv_opt = nullptr;
};

void add_options(CLI::App& app, SourceFlags& f) {
  app.add_option("name", f.name, "the noise source's name, as the report gives it")->required()->type_name("NAME");
  app.add_option("samples", f.samples, "its sequential data set (one sample per byte, or --sample-format)")->required()->type_name("SAMPLES");
  f.track_opt = app.add_option("--track", f.track,
                 "auto (default): the IID tests decide the track (IID: the IID claim; otherwise the non-IID "
                 "estimates and claim); non-iid: the non-IID track without the IID tests (a submitter's non-IID "
                 "claim)")
      ->type_name("auto|non-iid");
  f.bits_opt = app.add_option("--bits", f.bits, "bits per sample (1-8; default: inferred)")->type_name("N");
  add_sample_options(app, f.sample, false);
  f.restart_opt = app.add_option("--restart-data", f.restart_data,
                                 "its restart data set: 1,000 restarts x 1,000 samples (row i = restart i)")
                      ->type_name("FILE");
  f.submitter_opt = app.add_option("--h-submitter", f.h_submitter,
                                   "the submitter's entropy estimate per sample; H_I = min(H_original, bits x "
                                   "H_bitstring, this)")
                        ->type_name("H");
  app.add_option("--health-alpha", f.health_alpha, "the health tests' false-positive rate, 2^-N or a decimal: their "
                                                   "cutoffs for the entropy that stands (4.4; default 2^-20)")
      ->type_name("ALPHA");
  f.conditioning_opt = app.add_option("--conditioning", f.conditioning,
                                      "a conditioning component after the source: vetted or non-vetted (with --n-in, "
                                      "--n-out, --nw; h_in = entropy per sample x n_in / bits)")
                           ->check(CLI::IsMember({"vetted", "non-vetted"}))
                           ->type_name("vetted|non-vetted");
  f.n_in_opt = app.add_option("--n-in", f.n_in, "conditioning: input bits per output")->type_name("N");
  f.n_out_opt = app.add_option("--n-out", f.n_out, "conditioning: output bits")->type_name("N");
  f.nw_opt = app.add_option("--nw", f.nw, "conditioning: narrowest internal width")->type_name("N");
  f.h_prime_opt = app.add_option("--h-prime", f.h_prime, "non-vetted: h', entropy per bit of the conditioned output")
                      ->type_name("H");
  f.conditioned_opt = app.add_option("--conditioned", f.conditioned, "non-vetted: h' from this file of conditioned "
                                                                     "output (its non-IID -c estimates)")
                          ->type_name("FILE");
  app.add_flag("--conditioned-iid", f.conditioned_iid, "with --conditioned: h' from its MCV estimate alone");
  f.json_opt = app.add_option("-o,--output", f.json, "write the report's JSON to FILE")->type_name("FILE.json");
  f.html_opt = app.add_option("--html", f.html, "write the report as one self-contained HTML page")->type_name("FILE.html");
  f.pdf_opt = app.add_option("--pdf", f.pdf, "write the page as PDF too, printed by a headless Chromium (text selectable, "
                                             "figures as vectors; docs/report.md)")
                  ->type_name("FILE.pdf");
  f.browser_opt = app.add_option("--browser", f.browser, "--pdf's browser (default: chromium, chromium-browser or "
                                                         "google-chrome on PATH)")
                      ->type_name("PATH");
  f.esv_opt = app.add_option("--esv", f.esv, "write an ESV submission package of this source instead (docs/esv.md: "
                                             "its first 1,000,000 samples, their assessment, the registration, the PDF)")
                  ->type_name("DIR");
  app.add_flag("--force", f.force, "replace an existing -o or --html file that is not an ea_iid result, or a --pdf file that is "
                               "not a PDF (--esv: a folder that is not an ea_iid package)");
  app.add_flag("-q", f.quiet, "nothing on standard output");
  app.add_flag("--timing", f.timing, "print the time taken");
  app.add_flag("-v", f.verbose, "more progress lines (one per round of permutations, at most one a second)");
  app.add_flag("--until-decided", f.until_decided,
               "the default: no permutation tests once chi-square or LRS has failed (the verdict is then not IID "
               "whatever they give; the non-IID estimates follow at once)");
  app.add_flag("--permutation-counters", f.permutation_counters,
               "run the permutation tests to their end even when chi-square or LRS has already decided the verdict, "
               "for their counters in the report");
  app.add_flag("--exit-code", f.exit_code, "exit 1 when a step failed (the restart tests)");
  app.add_flag("--strict", f.strict,
               "for CI: 0 only when every step passed and can stand for compliance (restart data given, 10,000 "
               "permutations, ...); 4 not for compliance (checked first), 1 a step failed, 2 errors");
  add_engine_options(app, f.engine, Program::EaIid);
}

SourceSpec spec_of(const SourceFlags& f) {
  SourceSpec s;
  s.name = f.name;
  s.samples = f.samples;
  if (f.restart_opt->count()) s.restart_data = f.restart_data;
  if (f.submitter_opt->count()) {
    const double h = parse_real<double>(f.h_submitter, "--h-submitter");
    if (!(h > 0) || h > 8) {
      throw Error(ErrorKind::Usage, "--h-submitter: '" + f.h_submitter + "' must be a number greater than 0 and at most 8");
    }
    s.h_submitter = h;
  }
  s.health_alpha = alpha_setting(f.health_alpha, [](const std::string&, const std::string&) { return "--health-alpha"; });
  check_health_alpha(s.health_alpha, "--health-alpha");
  const bool sizes = f.n_in_opt->count() || f.n_out_opt->count() || f.nw_opt->count();
  const bool prime = f.h_prime_opt->count() || f.conditioned_opt->count() || f.conditioned_iid;
  if (!f.conditioning_opt->count()) {
    if (sizes || prime) throw Error(ErrorKind::Usage, "--n-in, --n-out, --nw, --h-prime and --conditioned apply to --conditioning");
    return s;
  }
  if (!f.n_in_opt->count() || !f.n_out_opt->count() || !f.nw_opt->count()) {
    throw Error(ErrorKind::Usage, "--conditioning needs --n-in, --n-out and --nw");
  }
  SourceConditioning c;
  c.vetted = f.conditioning == "vetted";
  c.n_in = static_cast<uint32_t>(parse_integer(f.n_in, "--n-in", 0, UINT32_MAX));
  c.n_out = static_cast<uint32_t>(parse_integer(f.n_out, "--n-out", 0, UINT32_MAX));
  c.nw = static_cast<uint32_t>(parse_integer(f.nw, "--nw", 0, UINT32_MAX));
  if (c.vetted && prime) throw Error(ErrorKind::Usage, "--h-prime and --conditioned apply to --conditioning non-vetted");
  if (!c.vetted) {
    if (f.h_prime_opt->count() == f.conditioned_opt->count()) {
      throw Error(ErrorKind::Usage, "--conditioning non-vetted needs h': --h-prime H or --conditioned FILE (one of them)");
    }
    if (f.h_prime_opt->count()) c.h_prime = parse_conditioning_number(f.h_prime, "--h-prime");
    if (f.conditioned_opt->count()) c.conditioned = f.conditioned;
    if (f.conditioned_iid && !c.conditioned) throw Error(ErrorKind::Usage, "--conditioned-iid applies to --conditioned FILE");
    c.conditioned_iid = f.conditioned_iid;
  }
  s.conditioning.push_back(c);
  return s;
}

// Before any work: the outputs against each other and against the inputs.
void check_outputs(const SourceFlags& f, const InputSet& inputs) {
  std::vector<std::pair<std::string, std::string>> outputs;
  if (f.json_opt->count()) outputs.emplace_back("-o", f.json);
  if (f.html_opt->count()) outputs.emplace_back("--html", f.html);
  if (f.pdf_opt->count()) outputs.emplace_back("--pdf", f.pdf);
  check_distinct_outputs(outputs);
  if (f.json_opt->count()) {
    check_output_path(f.json, inputs, "-o");
    check_replaceable(f.json, f.force, "-o");
  }
  if (f.html_opt->count()) {
    check_output_path(f.html, inputs, "--html");
    check_replaceable_report(f.html, f.force, "--html");
  }
  if (f.pdf_opt->count()) check_pdf_output(f.pdf, inputs, f.force, "--pdf");
}

// The settings of `f` (engine options, --bits, --track, --until-decided), checked by the one
// set of rules (settings_rules.hpp); the seed and threads resolved.
Settings settings_of(const SourceFlags& f) {
  Settings s;
  const EngineChoice engine = apply_engine_options(f.engine, s, Program::EaIid);
  if (f.bits_opt->count()) s.width = apply_bits_option(f.bits);
  if (f.track_opt->count()) {
    try {
      s.track = track_setting(f.track, cli_setting_names());
    } catch (const Error&) {  // (its list names iid, which source refuses below)
      throw Error(ErrorKind::Usage, "--track: '" + f.track + "' is not a track of ea_iid source; expected auto or non-iid");
    }
  }
  if (s.track == TrackChoice::Iid) {
    throw Error(ErrorKind::Usage, "--track iid does not apply to ea_iid source: auto (the IID tests decide the track) "
                                  "or non-iid (a submitter's non-IID claim)");
  }
  s.until_decided = s.track == TrackChoice::Auto && !f.permutation_counters;  // source's default
  s.threads = engine.threads ? *engine.threads : omp_get_max_threads();
  SettingsGiven g = source_settings_given(f.engine, engine, s, f.until_decided, f.permutation_counters);
  g.track = f.track_opt->count() > 0;
  g.bits = f.bits_opt->count() > 0;
  apply_sample_options(f.sample, s, g);
  for (const std::string& w : f.sample.warnings) logger().warn("{}", w);
  check_settings(s, g, cli_setting_names());
  require_gpus(s, cli_setting_names());
  // A run that draws no random numbers (--track non-iid) records no seed.
  s.seed = engine.seed ? *engine.seed : draws_random_numbers(s) ? os_seed() : 0;
  return s;
}

// --esv DIR: the one source as a manifest of one (its flags in the manifest's fields), packaged
// as `ea_iid esv` packages a manifest's. The package holds the report: -o, --html and --pdf are
// refused with it.
int esv_of_source(const SourceFlags& f, const SourceSpec& spec, const Settings& s, const std::string& command_line,
                  const std::atomic<bool>& interrupt) {
  for (const CLI::Option* o : {f.json_opt, f.html_opt, f.pdf_opt}) {
    if (o->count()) throw Error(ErrorKind::Usage, o->get_name() + " with --esv: the package holds the report (its JSON, "
                                                                   "HTML and PDF); write them without --esv");
  }
  ManifestSource m;
  m.spec = spec;
  if (f.bits_opt->count()) m.bits = s.width;
  if (s.track == TrackChoice::NonIid) m.iid_claim = false;
  if (!s.sample_input.is_default()) m.sample_input = s.sample_input;
  m.stem = manifest_stem(spec.name);
  Manifest one;
  one.path = "the command line";
  one.sources.push_back(m);
  EsvPackageOptions o;
  o.dir = f.esv;
  o.browser = f.browser;
  o.force = f.force;
  o.quiet = f.quiet;
  o.engine = f.engine;
  o.command_line = true;
  make_esv_package(o, one, command_line, interrupt);
  return 0;
}

}  // namespace

int source_command(std::vector<char*> args, const std::string& command_line, const std::atomic<bool>& interrupt,
                   const std::atomic<int>& signal_number) {
  if (manifest_requested(args)) return manifest_command(args, command_line, interrupt, signal_number);
  SourceFlags f;
  ExitPolicy policy;
  ReportOptions ro;
  InputSet inputs;
  bool json_checked = false;  // -o was checked: an error is written there too
  auto error_record = [&](const std::string& message, ErrorKind kind) {
    // As for an assessment: an error of a run whose arguments were valid (an input that
    // cannot be read) is recorded in -o too; bad arguments write nothing.
    if (!json_checked || kind == ErrorKind::Usage || kind == ErrorKind::Output || f.json == "-") return;
    try {
      write_file_atomically(f.json, dump_json(error_json(ro, message, kind), 2) + "\n", inputs, "-o");
    } catch (const std::exception& e) {
      logger().error("{}", e.what());
    }
  };
  try {
    init_logging("info");
    CLI::App app{"ea_iid source: one noise source through SP 800-90B section 3.1 (IID tests and track, H_I, restart "
                 "tests, conditioning), with one JSON and one self-contained HTML report.",
                 "ea_iid source"};
    ea::cli::wrap_help(app);
    add_options(app, f);
    app.footer(
        "Example:\n"
        "  ea_iid source ring-osc-1 samples.bin --restart-data restarts.bin --conditioning vetted \\\n"
        "      --n-in 512 --n-out 256 --nw 256 -o ring-osc-1.json --html ring-osc-1.html --strict\n"
        "Exit status: 0 completed (--exit-code: and passed; --strict: and for compliance), 1 a step failed,\n"
        "4 (--strict) not for compliance, 2 errors, 130/143 interrupted.\n"
        "Many sources: ea_iid source --manifest sources.json (ea_iid source --manifest x --help).");
    if (const int done = parse_subcommand(app, args, "ea_iid source"); done >= 0) return done;
    f.json = output_name(f.json);  // -o /dev/stdout is -o - (cli/output.hpp)
    f.html = output_name(f.html);
    policy.exit_code = f.exit_code || f.strict;
    policy.strict = f.strict;
    const SourceSpec spec = spec_of(f);
    const Settings s = settings_of(f);
    for (const auto* p : {&spec.samples, spec.restart_data ? &*spec.restart_data : nullptr}) {
      if (p) inputs.add(*p);
    }
    for (const SourceConditioning& c : spec.conditioning) {
      if (c.conditioned) inputs.add(*c.conditioned);
    }
    if (f.esv_opt->count()) return esv_of_source(f, spec, s, command_line, interrupt);
    if (f.browser_opt->count() && !f.pdf_opt->count()) throw Error(ErrorKind::Usage, "--browser applies to --pdf FILE");
    check_outputs(f, inputs);
    const std::string browser = f.pdf_opt->count() ? find_browser(f.browser, "--pdf") : "";  // before any work
    ro.started = timestamp_now();
    ro.command_line = command_line;
    ro.first_file = f.samples;
    ro.quiet = f.quiet;
    ro.timing = f.timing;
    json_checked = f.json_opt->count() > 0;
    if (!f.engine.seed_opt->count() && draws_random_numbers(s)) {
      logger().info("--seed {} (drawn from the OS; pass --seed to repeat this run)", s.seed);
    }
    Engine eng;
    auto note = [&f](const std::string& line) {
      if (!f.quiet) logger().info("{}", line);
    };
    RunObserver watch;
    watch.note = note;
    watch.progress = progress_lines(f.quiet, f.verbose, s.iterations);
    const SourceAssessment a = assess_source(eng, spec, s, interrupt, watch);
    // A result that came as the signal did is neither shown nor written (-o, --html).
    if (interrupt.load()) throw Error(ErrorKind::Interrupted, "interrupted");
    const nlohmann::ordered_json j = source_json(a, ro);
    const bool stdout_taken = (f.json_opt->count() && f.json == "-") || (f.html_opt->count() && f.html == "-");
    print_source_text(stdout_taken ? stderr : stdout, a, ro);
    flush_checked(stdout_taken ? stderr : stdout, stdout_taken ? "standard error" : "standard output");
    const std::string page = source_html(j, f.json_opt->count() ? f.json : "");
    // The PDF first: a browser that fails or a signal while it prints leaves no file written.
    if (f.pdf_opt->count()) write_pdf_from_page(page, f.pdf, browser, kPdfTimeoutSeconds, inputs, &interrupt, "--pdf");
    if (f.json_opt->count()) write_file_atomically(f.json, dump_json(j, 2) + "\n", inputs, "-o");
    if (f.html_opt->count()) write_file_atomically(f.html, page, inputs, "--html");
    Outcome out;
    out.not_iid = !a.passed();
    out.not_compliant = !a.compliance_issues().empty();
    return exit_status(out, policy, 0);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted || interrupt.load()) {
      logger().error("interrupted; no result");
      return exit_status(Outcome::interrupted(), policy, signal_number.load());
    }
    logger().error("{}", worded(e));
    error_record(worded(e), e.kind());
    // A stuck source: exit 5, as ea_iid's (cli/outcome.hpp).
    if (e.kind() == ErrorKind::Degenerate) return exit_status(Outcome::degenerate_source(), policy, 0);
  } catch (const std::exception& e) {
    logger().error("internal error: {}", e.what());
    error_record(std::string("internal error: ") + e.what(), ErrorKind::Internal);
  }
  return exit_status(Outcome::error(), policy, 0);
}

}  // namespace ea::cli
