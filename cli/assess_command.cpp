// ea_iid assess (the default): parse -> check outputs -> run the items (cli/run.cpp) -> exit
// status. Errors become one message and outcomes an exit code here (cli/outcome.hpp).
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "assess.hpp"
#include "commands.hpp"
#include "common/error.hpp"
#include "logging.hpp"
#include "messages.hpp"
#include "options.hpp"
#include "outcome.hpp"
#include "output.hpp"
#include "report.hpp"
#include "run.hpp"

namespace ea::cli {

namespace {

using ea::cli::Outcome;

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

Outcome run(const ea::cli::Options& given, const std::string& started, const std::atomic<bool>& interrupt,
            const std::atomic<int>& signal_number) {
  using namespace ea;
  cli::Options o = given;
  cli::InputSet inputs;
  bool outputs_checked = false;
  try {
    cli::init_logging(!o.log_level.empty() ? o.log_level : o.quiet ? "error" : "info");
    for (const std::string& w : o.warnings) cli::logger().warn("{}", w);
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
    if (o.write_symbols) outputs.emplace_back("--write-symbols", *o.write_symbols);
    cli::check_distinct_outputs(outputs);
    // Before any work: an -o that cannot be written fails now, not after the assessment.
    if (json_file) {
      cli::check_output_path(*o.json_path, inputs, "-o");
      cli::check_replaceable(*o.json_path, o.jsonl_force, "-o");
    }
    if (o.csv_path) cli::check_replaceable_report(*o.csv_path, o.jsonl_force, "--csv");
    if (o.html_path) cli::check_replaceable_report(*o.html_path, o.jsonl_force, "--html");
    if (o.write_symbols) {
      cli::check_output_path(*o.write_symbols, inputs, "--write-symbols");
      cli::check_replaceable_symbols(*o.write_symbols, o.jsonl_force, "--write-symbols");
    }
    outputs_checked = true;
    Engine engine;  // the process's one engine: its workers' device slots
    return cli::run_assessments(engine, o, started, inputs, interrupt, signal_number);
  } catch (const Error& e) {
    // Whatever failed while a signal was pending (an EINTR, a stopped round) is the interrupt.
    if (e.kind() == ErrorKind::Interrupted || interrupt.load()) {
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

// assess (the default) and restart: the options of cli/options.cpp.
int assess_main(std::vector<char*> args, const CommandEnv& env) {
    Options o;
  const std::string started = timestamp_now();
  try {
    if (parse_options(static_cast<int>(args.size()), args.data(), o) == ParseStatus::Exit0) {
      flush_checked(stdout, "standard output");
      return exit_status(Outcome{}, {}, 0);
    }
  } catch (const std::exception& e) {
    // The arguments are not known to be valid: nothing is written but this message (an -o
    // argument may well name the sample file the user meant to assess).
    logger().error("{}", e.what());
    return exit_status(Outcome::error(), {}, 0);
  }
  o.command_line = env.command_line;  // as the user typed it, subcommand included
  env.install_signal_handlers();
  const Outcome r = run(o, started, *env.interrupt, *env.signal_number);
  return exit_status(r, ExitPolicy{o.exit_code, o.strict}, env.signal_number->load());
}

}  // namespace ea::cli
