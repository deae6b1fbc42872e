// ea_iid conditioning (and the ea_conditioning link): the output entropy of a conditioning
// component (SP 800-90B 3.1.5), its text and its JSON.
#include "help.hpp"
#include "conditioning_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <functional>
#include <iostream>

#include "common/error.hpp"
#include "common/numbers.hpp"
#include "common/interrupt.hpp"
#include "links.hpp"
#include "logging.hpp"
#include "option_groups.hpp"
#include "messages.hpp"
#include "outcome.hpp"
#include "output.hpp"
#include "report.hpp"
#include "version.hpp"

namespace ea::cli {

namespace {

struct ConditioningOptions {
  ConditioningInput input;
  std::optional<std::string> conditioned;  // h' from this file
  bool conditioned_iid = false;
  int width = 0;                           // bits per sample of the conditioned file (0: inferred)
  std::optional<std::string> json_path;
  bool force = false, quiet = false, timing = false, nist = false;
  int verbose = 0;
  int nist_level = -1;  // run as ea_conditioning: 0 with -q, else 1
};

// N_IN, N_OUT, NW as NIST's strtoul(s, 0) reads them (decimal, 0x hexadecimal, 0 and octal),
// strictly: no sign, no space, nothing after the number (src/common/numbers.hpp).
uint32_t parse_bits(const std::string& text, const char* what) {
  return static_cast<uint32_t>(parse_integer(text, what, 0, UINT32_MAX, IntegerForm::C));
}

// N_IN N_OUT NW H_IN [H_PRIME]
void apply_numbers(const std::vector<std::string>& p, ConditioningOptions& c) {
  const size_t want = c.input.vetted || c.conditioned ? 4 : 5;
  if (p.size() != want) {
    throw Error(ErrorKind::Usage,
                std::string(c.input.vetted ? "a vetted component takes N_IN N_OUT NW H_IN"
                            : c.conditioned ? "with --conditioned, a non-vetted component takes N_IN N_OUT NW H_IN (h' comes from the file)"
                                            : "a non-vetted component takes N_IN N_OUT NW H_IN H_PRIME (or --conditioned FILE for h')") +
                    "; got " + std::to_string(p.size()) + " number" + (p.size() == 1 ? "" : "s"));
  }
  c.input.n_in = parse_bits(p[0], "n_in");
  c.input.n_out = parse_bits(p[1], "n_out");
  c.input.nw = parse_bits(p[2], "nw");
  c.input.h_in = parse_conditioning_number(p[3], "h_in");
  if (p.size() == 5) c.input.h_prime = parse_conditioning_number(p[4], "h'");
}

// The settings' names in this command's words (check_conditioning_settings).
std::string conditioning_names(const std::string& key, const std::string& value) {
  const std::string flag = key == "conditioned_iid" ? "--conditioned-iid" : key == "h_prime" ? "H_PRIME" : "--" + key;
  return value.empty() ? flag : flag + " " + value;
}

// Interrupted (SIGINT/SIGTERM while the MPFR computation or the --conditioned file's
// estimates run): Error{Interrupted}, and neither the text nor -o is written.
int run_conditioning(const ConditioningOptions& c, const std::string& command_line,
                     const std::atomic<bool>& interrupt) {
  ReportOptions ro;
  ro.track = Track::Iid;
  ro.started = timestamp_now();
  ro.command_line = command_line;
  ro.verbose = c.verbose;
  ro.quiet = c.quiet;
  ro.timing = c.timing;
  ro.nist_format = c.nist;
  ro.nist_level = c.nist_level;
  InputSet inputs;
  if (c.conditioned) inputs.add(*c.conditioned);
  if (c.json_path) {
    check_output_path(*c.json_path, inputs, "-o");
    check_replaceable(*c.json_path, c.force, "-o");
  }
  Settings s;
  s.width = c.width;
  s.threads = 0;
  ConditioningAssessment a;
  try {
    a = assess_conditioning(c.input, c.conditioned, c.conditioned_iid, s, &interrupt);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted || interrupt.load()) throw Error(ErrorKind::Interrupted, "interrupted");
    // -o was checked: the error is recorded there as for an assessment.
    if (c.json_path && *c.json_path != "-" && e.kind() != ErrorKind::Usage) {
      write_file_atomically(*c.json_path, dump_json(error_json(ro, worded(e), e.kind()), 2) + "\n", inputs, "-o");
    }
    throw;
  }
  throw_if_interrupted(&interrupt);  // a result that came as the signal did is not shown or written
  const bool json_on_stdout = c.json_path && *c.json_path == "-";
  std::FILE* text = json_on_stdout ? stderr : stdout;
  print_conditioning_text(text, a, ro);
  flush_checked(text, json_on_stdout ? "standard error" : "standard output");
  if (c.json_path) write_file_atomically(*c.json_path, dump_json(conditioning_json(a, ro), 2) + "\n", inputs, "-o");
  return 0;
}

int guarded(const std::atomic<int>& signal_number, const std::function<int()>& body) {
  try {
    init_logging("info");
    return body();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted) {  // nothing was written
      logger().error("interrupted; no result");
      return exit_status(Outcome::interrupted(), {}, signal_number.load());
    }
    logger().error("{}", worded(e));
    // A --conditioned file of one value: exit 5, as ea_iid's degenerate source (cli/outcome.hpp).
    if (e.kind() == ErrorKind::Degenerate) return exit_status(Outcome::degenerate_source(), {}, 0);
  } catch (const std::exception& e) {
    logger().error("internal error: {}", e.what());
  }
  return exit_status(Outcome::error(), {}, 0);
}

}  // namespace

int conditioning_command(std::vector<char*> args, const std::string& command_line, const std::atomic<bool>& interrupt,
                         const std::atomic<int>& signal_number) {
  return guarded(signal_number, [&] {
    ConditioningOptions c;
    std::string kind, bits, format = "text";
    std::vector<std::string> numbers;
    CLI::App app{"ea_iid conditioning: the entropy of a conditioning component's output (SP 800-90B 3.1.5), as NIST "
                 "ea_conditioning 1.1.8 computes it (MPFR, its printed digits).",
                 "ea_iid conditioning"};
    ea::cli::wrap_help(app);
    app.add_option("kind", kind, "vetted (3.1.5.1: h_out = Output_Entropy) or non-vetted (3.1.5.2: h_out = "
                                 "min(Output_Entropy, 0.999 n_out, h' n_out))")
        ->required()
        ->check(CLI::IsMember({"vetted", "non-vetted"}))
        ->type_name("vetted|non-vetted");
    app.add_option("numbers", numbers,
                   "N_IN N_OUT NW H_IN [H_PRIME]: input bits per output, output bits, narrowest internal width, "
                   "entropy of the N_IN input bits, and (non-vetted) h', entropy per bit of the conditioned output")
        ->required()
        ->type_name("N_IN N_OUT NW H_IN [H_PRIME]");
    CLI::Option* cond = app.add_option("--conditioned", bits, "non-vetted: h' from this file of conditioned output, "
                                                              "its non-IID bitstring estimates (ea_non_iid -c)")
                            ->type_name("FILE");
    app.add_flag("--conditioned-iid", c.conditioned_iid, "with --conditioned: h' from the MCV estimate alone (an IID "
                                                         "claim for the conditioned output; NIST's -c iid)");
    std::string width_text;
    CLI::Option* width = add_bits_option(app, width_text, "bits per sample of the --conditioned file, 1-8 (default: inferred)");
    OutputOptionText out;
    add_output_group(app, out, kOutputJson | kOutputForce | kOutputQuiet,
                     {"", "", "", "with -o: replace an existing file that is not an ea_iid result", ""});
    app.add_option("--format", format, "text (default) or nist (NIST ea_conditioning's lines)")
        ->check(CLI::IsMember({"text", "nist"}))
        ->type_name("text|nist");
    app.add_flag("-v", c.verbose, "more output (the precision, the conditioned file's estimates)");
    app.add_flag("--timing", c.timing, "print the time taken");
    app.footer(
        "Examples:\n"
        "  ea_iid conditioning vetted 1024 256 256 0.5\n"
        "  ea_iid conditioning non-vetted 1024 256 256 800 0.9\n"
        "  ea_iid conditioning non-vetted 1024 256 256 800 --conditioned conditioned.bin\n"
        "NIST's command line: ea_conditioning -v|-n [-q] [-o FILE] N_IN N_OUT NW H_IN [H' | -i FILE [-c iid]]");
    // NIST ea_conditioning's flags that are spelled otherwise here (its -v, vetted, is the
    // first argument here too, and -v is more output).
    static const std::vector<NistHint> hints = {
        {"-n", "-n is NIST ea_conditioning's non-vetted component; here the first argument: ea_iid conditioning "
               "non-vetted N_IN N_OUT NW H_IN H'"},
        {"-i", "-i FILE is NIST ea_conditioning's conditioned output for h'; here: --conditioned FILE"},
        {"-c", "-c iid is NIST ea_conditioning's IID claim for the -i file; here: --conditioned-iid"},
    };
    if (const int done = parse_subcommand(app, args, "ea_iid conditioning", hints); done >= 0) return done;
    c.input.vetted = kind == "vetted";
    if (cond->count()) c.conditioned = bits;
    ConditioningGiven given;
    given.conditioned = c.conditioned.has_value();
    given.conditioned_iid = c.conditioned_iid;
    given.bits = width->count() > 0;
    check_conditioning_options(c.input.vetted, given, conditioning_names);
    apply_numbers(numbers, c);  // (their count says what h' rule is broken, in this command's words)
    given.h_prime = numbers.size() == 5;
    check_conditioning_h_prime(c.input.vetted, given, conditioning_names);
    if (width->count()) c.width = apply_bits_option(width_text, false);
    const OutputFiles files = apply_output_group(out);  // -o /dev/stdout is -o - (cli/output.hpp)
    c.json_path = files.json;
    c.force = files.force;
    c.quiet = files.quiet;
    if (c.force && !c.json_path) throw Error(ErrorKind::Usage, "--force applies to -o, which is not given");
    c.nist = format == "nist";
    return run_conditioning(c, command_line, interrupt);
  });
}

// NIST's ea_conditioning -v|-n [-q] [-o FILE] N_IN N_OUT NW H_IN [H' | -i FILE [-c iid]], read by
// the links' scanner (cli/links.cpp: "vnqo:i:c:", the last of -v/-n wins).
int ea_conditioning_link(const NistLink& link, const NistArgs& a, const LinkEnv& env) {
  env.install_signal_handlers();
  return guarded(*env.signal_number, [&] {
    const std::string usage = link_usage(link);
    ConditioningOptions c;
    c.nist_level = a.count('q') ? 0 : 1;
    if (const char vn = a.last_of("vn")) c.input.vetted = vn == 'v';  // neither: vetted, NIST's default
    if (const auto o = a.value('o')) c.json_path = output_name(*o);
    const std::optional<std::string> input_file = a.value('i');
    bool iid = false;
    if (const auto claim = a.value('c')) {  // NIST's only value; NIST took any other as the non-IID default
      if (*claim != "iid") {
        throw Error(ErrorKind::Usage, "-c '" + *claim + "': -c takes iid (an IID claim for the -i file: its MCV " +
                                          "estimate); without -c, its non-IID estimates\n" + usage);
      }
      iid = true;
    }
    const std::vector<std::string>& numbers = a.positionals;
    if (iid && !input_file) throw Error(ErrorKind::Usage, "-c iid applies to -i FILE\n" + usage);
    if (input_file && (c.input.vetted || numbers.size() == 5)) {
      throw Error(ErrorKind::Usage, "-i FILE gives h' of a non-vetted component (-n) when h' is not given\n" + usage);
    }
    if (!c.input.vetted && numbers.size() == 4) {
      if (!input_file) throw Error(ErrorKind::Usage, "a non-vetted component needs h' or -i FILE\n" + usage);
      c.conditioned = input_file;
      c.conditioned_iid = iid;
    }
    if (numbers.size() < 4 || numbers.size() > 5) {
      throw Error(ErrorKind::Usage, "expected N_IN N_OUT NW H_IN" + std::string(c.input.vetted ? "" : " [H']") + ", got " +
                                        std::to_string(numbers.size()) + " numbers\n" + usage);
    }
    apply_numbers(numbers, c);
    return run_conditioning(c, env.command_line, *env.interrupt);
  });
}

}  // namespace ea::cli
