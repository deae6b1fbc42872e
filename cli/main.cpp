// ea_iid: parse -> check outputs -> run the items (cli/run.cpp) -> exit status. The only place where errors
// become messages and outcomes become exit codes (cli/outcome.hpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstring>
#include <cstdio>

#include "assess.hpp"
#include "commands.hpp"
#include "conditioning_command.hpp"
#include "common/error.hpp"
#include "logging.hpp"
#include "messages.hpp"
#include "options.hpp"
#include "outcome.hpp"
#include "output.hpp"
#include "report.hpp"
#include "run.hpp"

namespace {

using ea::cli::Outcome;

// SIGINT/SIGTERM: the first asks the run to stop between rounds (finished results are
// kept); a second one ends the process at once. No SA_RESTART: a blocking call returns
// EINTR and the run sees the flag.
std::atomic<bool> g_interrupt{false};
std::atomic<int> g_signal{0};

extern "C" void on_signal(int sig) {
  if (g_interrupt.load()) _exit(128 + sig);
  g_signal.store(sig);  // before the flag, so that whoever sees the flag sees the signal
  g_interrupt.store(true);
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// Standard output redirected into an input (`ea_iid a.bin >> a.bin`) would modify it.
void check_stdout(const ea::cli::InputSet& inputs) {
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
    if (const std::string* in = inputs.find(st)) {
      throw ea::Error(ea::ErrorKind::Output, "standard output is the input file " + *in +
                                                 "; ea_iid never writes into an input (redirect it elsewhere)");
    }
  }
}

// An error of a run whose arguments were valid: one line on stderr and, in single-file
// mode with an -o path already checked, the error JSON there.
Outcome report_error(const ea::cli::Options& o, const std::string& started, const std::string& message,
                     ea::ErrorKind kind, const ea::cli::InputSet* checked_inputs) {
  ea::cli::logger().error("{}", message);
  if (o.json_path && checked_inputs && !o.batch()) {
    try {
      const ea::ReportOptions ro = ea::cli::report_options(o, started);
      ea::cli::write_file_atomically(*o.json_path, ea::dump_json(ea::error_json(ro, message, kind), 2) + "\n", *checked_inputs,
                                     "-o");
    } catch (const std::exception& e) {
      ea::cli::logger().error("{}", e.what());
    }
  }
  return kind == ea::ErrorKind::Degenerate ? Outcome::degenerate_source() : Outcome::error();
}

Outcome run(const ea::cli::Options& given, const std::string& started) {
  using namespace ea;
  cli::Options o = given;
  cli::InputSet inputs;
  bool outputs_checked = false;
  try {
    cli::init_logging(!o.log_level.empty() ? o.log_level : o.quiet ? "error" : "info");
    for (const auto& f : o.files) inputs.add(f);
    check_stdout(inputs);
    // -o DIR/ of one file: DIR/NAME.json, as in a batch; checked below as any -o FILE is.
    if (o.json_path && !o.batch()) o.json_path = cli::single_json_path(o, inputs);
    // Outputs against each other, before any work ("-" is standard output).
    std::vector<std::pair<std::string, std::string>> outputs;
    const bool json_file = o.json_path && (!o.batch() || cli::batch_document(o));  // one file, not a folder
    if (json_file) outputs.emplace_back("-o", *o.json_path);
    if (o.jsonl_path) outputs.emplace_back("--jsonl", *o.jsonl_path);
    if (o.csv_path) outputs.emplace_back("--csv", *o.csv_path);
    if (o.html_path) outputs.emplace_back("--html", *o.html_path);
    cli::check_distinct_outputs(outputs);
    // Before any work: an -o that cannot be written fails now, not after the assessment.
    if (json_file) {
      cli::check_output_path(*o.json_path, inputs, "-o");
      cli::check_replaceable(*o.json_path, o.jsonl_force, "-o");
    }
    if (o.csv_path) cli::check_replaceable_report(*o.csv_path, o.jsonl_force, "--csv");
    if (o.html_path) cli::check_replaceable_report(*o.html_path, o.jsonl_force, "--html");
    outputs_checked = true;
    Engine engine;  // the process's one engine: its workers' device slots
    return cli::run_assessments(engine, o, started, inputs, g_interrupt, g_signal);
  } catch (const Error& e) {
    // Whatever failed while a signal was pending (an EINTR, a stopped round) is the interrupt.
    if (e.kind() == ErrorKind::Interrupted || g_interrupt.load()) {
      std::fprintf(stderr, "\n");
      cli::logger().error("interrupted; no result");
      return Outcome::interrupted();
    }
    const bool json_ok = outputs_checked && e.kind() != ErrorKind::Output;
    return report_error(o, started, cli::worded(e), e.kind(), json_ok ? &inputs : nullptr);
  } catch (const std::exception& e) {
    return report_error(o, started, std::string("internal error: ") + e.what(), ErrorKind::Internal,
                        outputs_checked ? &inputs : nullptr);
  }
}

}  // namespace

// ea_iid merge ...: joins the JSONL files of a job array's shares (cli/run.hpp).
static int merge_main(const std::vector<std::string>& args) {
  using namespace ea;
  cli::ExitPolicy policy;
  for (const auto& a : args) {
    policy.exit_code = policy.exit_code || a == "--exit-code" || a == "--strict";
    policy.strict = policy.strict || a == "--strict";
  }
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs(cli::merge_help(), stdout);
      return std::fflush(stdout) == 0 && !std::ferror(stdout) ? 0 : 2;
    }
  }
  try {
    cli::init_logging("info");
    return cli::exit_status(cli::merge_shares(args), policy, 0);
  } catch (const std::exception& e) {
    cli::logger().error("{}", e.what());
    return cli::exit_status(cli::Outcome::error(), policy, 0);
  }
}

static int calibrate_main(std::vector<char*> args) {
  using namespace ea;
  try {
    return cli::exit_status(cli::calibrate_command(static_cast<int>(args.size()), args.data()), {}, 0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ea_iid calibrate: %s\n", e.what());
    return cli::exit_status(cli::Outcome::error(), {}, 0);
  }
}

// assess (the default) and restart: the options of cli/options.cpp.
static int assess_main(std::vector<char*> args, const std::string& command_line) {
  using namespace ea;
  cli::Options o;
  const std::string started = timestamp_now();
  try {
    if (cli::parse_options(static_cast<int>(args.size()), args.data(), o) == cli::ParseStatus::Exit0) {
      cli::flush_checked(stdout, "standard output");
      return cli::exit_status(cli::Outcome{}, {}, 0);
    }
  } catch (const std::exception& e) {
    // The arguments are not known to be valid: nothing is written but this message (an -o
    // argument may well name the sample file the user meant to assess).
    cli::logger().error("{}", e.what());
    return cli::exit_status(cli::Outcome::error(), {}, 0);
  }
  o.command_line = command_line;  // as the user typed it, subcommand included
  install_signal_handlers();
  const cli::Outcome r = run(o, started);
  return cli::exit_status(r, cli::ExitPolicy{o.exit_code, o.strict}, g_signal.load());
}

// Run as ea_restart (the link cmake --install makes): NIST ea_restart's command line,
// [-i|-n] [-v] [-q] [-s ROUNDS] [-o FILE] FILE [bits_per_symbol] H_I, its text at its
// verbosity, and its exit status (not 0 when the sanity check or the validation fails).
static int restart_link_main(std::vector<char*> args, const std::string& command_line) {
  using namespace ea;
  cli::set_program_name("ea_restart");
  static char format[] = "--format", nist[] = "nist", compat[] = "--nist-compat", track[] = "--track",
              iid[] = "iid", non_iid[] = "non-iid", restart[] = "--restart", cutoff[] = "--restart-cutoff",
              simulation[] = "simulation", rounds[] = "--restart-simulations", exit_code[] = "--exit-code",
              verbose[] = "-v", quiet[] = "-q";
  std::vector<char*> out = {args[0], format, nist, compat, exit_code};
  std::vector<char*> positional;
  bool iid_claim = false, only_positional = false;
  for (size_t k = 1; k < args.size(); ++k) {
    char* a = args[k];
    const std::string s = a;
    if (only_positional || s.size() < 2 || s[0] != '-') {
      positional.push_back(a);
    } else if (s == "--") {
      only_positional = true;
    } else if (s.find_first_not_of("invq", 1) == std::string::npos) {  // -i, -n, -v, -q, -vv, ...
      for (size_t c = 1; c < s.size(); ++c) {
        if (s[c] == 'i' || s[c] == 'n') iid_claim = s[c] == 'i';
        if (s[c] == 'v') out.push_back(verbose);
        if (s[c] == 'q') out.push_back(quiet);
      }
    } else if ((s == "--seed" || s == "--device" || s == "--threads" || s == "--gpu" || s == "--prng" ||
                s == "--iterations" || s == "--log-level") &&
               k + 1 < args.size()) {
      out.insert(out.end(), {a, args[++k]});  // ea_iid's engine options, taken here too
    } else if ((s == "-s" || s == "-o") && k + 1 < args.size()) {
      if (s == "-s") out.insert(out.end(), {cutoff, simulation, rounds, args[++k]});
      if (s == "-o") out.insert(out.end(), {a, args[++k]});
    } else {
      out.push_back(a);  // --help, --version, or what ea_iid's parser will name as unknown
    }
  }
  out.insert(out.end(), {track, iid_claim ? iid : non_iid});
  static const char kUsage[] = "usage: ea_restart [-i|-n] [-v] [-q] [-s ROUNDS] [-o FILE.json] FILE [bits_per_symbol] H_I";
  for (const char* a : out) {
    if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0) {
      std::printf("%s\n"
                  "NIST ea_restart's command line (SP 800-90B 3.1.4): the restart tests of FILE (1,000 restarts x 1,000\n"
                  "samples, row i = restart i) for the entropy claim H_I; -n (default) a non-IID claim, -i an IID claim;\n"
                  "-s ROUNDS: X_cutoff from NIST's simulation (default: exact); -v, -v -v, -v -v -v: NIST's levels.\n"
                  "Exit status 0 when the sanity check and the validation pass, 1 when one fails, 2 on errors.\n"
                  "The same as 'ea_iid --restart H_I' (ea_iid --help).\n",
                  kUsage);
      return 0;
    }
  }
  const bool help = std::find_if(out.begin(), out.end(), [](const char* a) { return std::strcmp(a, "--version") == 0; }) !=
                    out.end();
  if (!help && (positional.size() < 2 || positional.size() > 3)) {
    cli::init_logging("info");
    cli::logger().error("{}", kUsage);
    return cli::exit_status(cli::Outcome::error(), {}, 0);
  }
  if (!positional.empty()) {
    out.insert(out.end(), {restart, positional.back()});
    positional.pop_back();
  }
  out.insert(out.end(), positional.begin(), positional.end());
  return assess_main(out, command_line);
}

// Descriptors 0-2 closed at start (cron, some CI wrappers: `2>&-`) would be taken by the
// first files opened, and diagnostics would go into a JSONL file: they are opened on
// /dev/null first. SIGPIPE (a reader that went away) makes a write fail (exit 2) instead of
// ending the process with 141.
static void standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      const int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
      if (got != fd && got >= 0) ::close(got);
    }
  }
  std::signal(SIGPIPE, SIG_IGN);
}

int main(int argc, char** argv) {
  using namespace ea;
  standard_descriptors();
  const std::string command_line = cli::join_command_line(argc, argv);
  std::vector<char*> args(argv, argv + argc);
  const char* slash = std::strrchr(argv[0], '/');
  if (std::strcmp(slash ? slash + 1 : argv[0], "ea_non_iid") == 0) {
    // Run as ea_non_iid (the link cmake --install makes): NIST ea_non_iid's command line,
    // [-i|-c] [-a|-t] [-v] [-q] [-l INDEX,COUNT] [-o FILE] FILE [bits], and its text.
    static char non_iid[] = "--non-iid", format[] = "--format", nist[] = "nist", compat[] = "--nist-compat";
    cli::set_program_name("ea_non_iid");
    // NIST's getopt lets the last of -i/-c and of -a/-t win; ours refuses both: keep the last.
    for (const auto& pair : {std::make_pair("-i", "-c"), std::make_pair("-a", "-t")}) {
      int last = -1;
      for (size_t k = 1; k < args.size(); ++k) {
        if (std::strcmp(args[k], pair.first) == 0 || std::strcmp(args[k], pair.second) == 0) last = static_cast<int>(k);
      }
      for (size_t k = args.size(); k-- > 1;) {
        const bool either = std::strcmp(args[k], pair.first) == 0 || std::strcmp(args[k], pair.second) == 0;
        if (either && static_cast<int>(k) != last) args.erase(args.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
    args.insert(args.begin() + 1, {non_iid, format, nist, compat});
    return assess_main(args, command_line);
  }
  const char* program = slash ? slash + 1 : argv[0];
  if (std::strcmp(program, "ea_restart") == 0) return restart_link_main(args, command_line);
  if (std::strcmp(program, "ea_conditioning") == 0) {
    install_signal_handlers();
    return cli::ea_conditioning_main(argc, argv, command_line, g_interrupt, g_signal);
  }
  if (argc > 1 && std::strcmp(argv[1], "--conditioning") == 0) {  // the subcommand as an option
    static char name[] = "conditioning";
    args[1] = name;
  }
  const cli::Subcommand* sub = args.size() > 1 ? cli::find_subcommand(args[1]) : nullptr;
  if (!sub && argc > 2) {
    // A mistyped subcommand ("mrege") would be read as a missing sample file.
    struct stat st {};
    const cli::Subcommand* near = cli::near_subcommand(argv[1]);
    if (near && ::stat(argv[1], &st) != 0) {
      cli::logger().error("'{}' is neither a file nor a subcommand; did you mean '{} {}'?", argv[1], argv[0], near->name);
      return cli::exit_status(cli::Outcome::error(), {}, 0);
    }
  }
  if (!sub) return assess_main(args, command_line);
  args.erase(args.begin() + 1);  // the subcommand's own arguments follow the program's name
  const std::string name = sub->name;
  if (name == "merge") return merge_main(std::vector<std::string>(args.begin() + 1, args.end()));
  static std::string calibrate_name = std::string(argv[0]) + " calibrate";
  if (name == "calibrate") {
    args[0] = calibrate_name.data();
    return calibrate_main(args);
  }
  if (name == "source") {
    static std::string source_name = std::string(argv[0]) + " source";
    args[0] = source_name.data();
    install_signal_handlers();
    return cli::source_command(args, command_line, g_interrupt, g_signal);
  }
  if (name == "conditioning") {
    static std::string conditioning_name = std::string(argv[0]) + " conditioning";
    args[0] = conditioning_name.data();
    install_signal_handlers();
    return cli::conditioning_command(args, command_line, g_interrupt, g_signal);
  }
  if (name == "restart") {
    // restart H_I [options] FILE...: --restart H_I.
    static char restart_flag[] = "--restart";
    const bool help = args.size() >= 2 && (std::strcmp(args[1], "--help") == 0 || std::strcmp(args[1], "-h") == 0);
    if (help) return assess_main(args, command_line);
    if (args.size() < 2 || args[1][0] == '-') {
      cli::logger().error("usage: {}", sub->usage);
      return cli::exit_status(cli::Outcome::error(), {}, 0);
    }
    args.insert(args.begin() + 1, restart_flag);
  }
  return assess_main(args, command_line);
}
