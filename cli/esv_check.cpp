// ea_iid esv check DIR [--json FILE] [--force] [-q]: an ESV submission package's findings
// (report/esv_check.hpp: NIST's two registration schemas, the protocol's and server's rules,
// the files' sizes, sample values and hashes), grouped by source, and a summary line. Exit
// status 0 when no finding is an error, 1 when one is, 2 for a usage error (no DIR, DIR not a
// folder, an output that cannot be written).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <fstream>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "help.hpp"
#include "commands.hpp"
#include "common/error.hpp"
#include "esv.hpp"
#include "esv_check.hpp"
#include "esv_rehearsal.hpp"
#include "logging.hpp"
#include "messages.hpp"
#include "option_groups.hpp"
#include "outcome.hpp"
#include "output.hpp"
#include "report.hpp"

namespace ea::cli {

namespace {

using nlohmann::ordered_json;

struct CheckFlags {
  std::string dir, json;
  bool force = false, quiet = false, no_rehearsal = false;
  CLI::Option* json_opt = nullptr;
  EngineOptionText engine;
};

void add_check_options(CLI::App& app, CheckFlags& f) {
  app.add_option("DIR", f.dir, "the package's folder (ea_iid esv's, or a lab's own: then each folder holding a "
                               "registration.json is a source)")
      ->required()
      ->type_name("DIR");
  f.json_opt = app.add_option("--json", f.json, "write the findings as JSON (type EsvCheck) to FILE ('-': standard output)")
                   ->type_name("FILE.json");
  app.add_flag("--force", f.force, "with --json: replace an existing file that is not an ea_iid result");
  app.add_flag("-q", f.quiet, "no findings on standard output, only the summary line on standard error");
  app.add_flag("--no-rehearsal", f.no_rehearsal,
               "only the registration and the files: do not run the server's steps on the package's files");
  add_engine_options(app, f.engine, Program::EaIid);
  app.footer(
      "Examples:\n"
      "  ea_iid esv check esv-package/\n"
      "  ea_iid esv check lab-package/ --json findings.json\n"
      "Each finding names the source, the file, the field and the rule, and where the rule comes from:\n"
      "NIST's schemas (38490704, the newest; 4b69a04c, the main branch's), the ESV protocol, a server\n"
      "rule script, NIST's client or tool, SP 800-90B, or the package's own layout (hashes, marker).\n"
      "Severities: error (the server or NIST's client refuses it, or the files contradict the\n"
      "package), warning, note (a known defect of schema 4b69a04c). docs/esv.md lists every rule.\n"
      "The rehearsal (unless --no-rehearsal) runs the server's steps on the package's own files (the IID\n"
      "tests or the non-IID estimators, the restart tests with H_I = hminEstimate, each component's h_out;\n"
      "NIST's numbers) and checks every claim against them; --seed, --iterations and --device as for ea_iid.\n"
      "Exit status: 0 no error finding; 1 some error finding; 2 usage (no DIR, not a folder); 130/143 interrupted.");
}

// The rehearsal: each source read as the server reads it (esv_rehearsal_source), assessed as
// `ea_iid source` assesses one, and its claims against the result; a source that cannot be
// read or assessed is an error finding. Its findings name each source as check_package does
// (`sources`, beside `folders`: the marker's name, or a lab package's folder), so that they
// are listed under that source.
void rehearse(const CheckFlags& f, const CommandEnv& env, const std::vector<std::string>& sources,
              const std::vector<std::string>& folders, std::vector<EsvFinding>& findings) {
  Manifest m;
  m.path = f.dir;
  std::vector<size_t> of;  // the package's source each rehearsed one is
  for (size_t k = 0; k < folders.size(); ++k) {
    try {
      m.sources.push_back(esv_rehearsal_source(folders[k], m.sources.size()));
      of.push_back(k);
    } catch (const Error& e) {
      findings.push_back({sources[k], "rehearsal", "", "the server's steps run on the package's files", "rehearsal",
                          std::string("cannot run: ") + e.what(), EsvSeverity::Error});
    }
  }
  if (m.sources.empty()) return;
  // The IID tests' options apply to the sources that claim IID (the rules refuse them where
  // none runs), said in the package's words.
  const bool any_iid = std::any_of(m.sources.begin(), m.sources.end(),
                                   [](const ManifestSource& s) { return s.track() == TrackChoice::Auto; });
  for (const CLI::Option* o : {f.engine.iterations_opt}) {
    if (!any_iid && o && o->count()) {
      throw Error(ErrorKind::Usage, o->get_name() + ": no source of " + f.dir + " claims IID (iidClaim), so the rehearsal "
                                                                             "runs no IID test: leave " + o->get_name() + " out");
    }
  }
  const std::vector<Settings> settings = esv_settings(f.engine, m);
  if (!f.quiet) {
    logger().info("rehearsal: {} source{}, the server's steps on the package's files", m.sources.size(),
                  m.sources.size() == 1 ? "" : "s");
  }
  const std::vector<ordered_json> records = esv_assess(m, settings, env.command_line, f.quiet, *env.interrupt);
  for (size_t k = 0; k < records.size(); ++k) {
    const std::string& name = sources[of[k]];
    if (records[k].value("type", std::string()) != "Source") {
      findings.push_back({name, "rehearsal", "", "the server's steps run on the package's files", "rehearsal",
                          "the assessment failed: " + records[k].value("errorMessage", std::string("no record")),
                          EsvSeverity::Error});
      continue;
    }
    std::ifstream in(std::filesystem::path(folders[of[k]]) / "registration.json");
    const ordered_json reg = ordered_json::parse(in, nullptr, false);
    const std::vector<EsvFinding> r = esv_rehearsal_findings(reg, records[k], name);
    findings.insert(findings.end(), r.begin(), r.end());
  }
}

std::string plural(size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

// The findings grouped by source: the package's own first, then each source in order.
std::string findings_text(const std::vector<std::string>& sources, const std::vector<EsvFinding>& findings) {
  std::vector<std::string> groups = {""};
  groups.insert(groups.end(), sources.begin(), sources.end());
  std::string out;
  for (const std::string& g : groups) {
    std::string lines;
    for (const EsvFinding& f : findings) {
      if (f.source != g) continue;
      EsvFinding local = f;
      local.source.clear();
      std::string t = esv_finding_text(local);
      t = t.substr(t.find(": ") + 2);  // the group's heading names the source
      lines += std::string("  ") + esv_severity_name(f.severity) + ": " + t + "\n";
    }
    if (g.empty() && lines.empty()) continue;
    out += (g.empty() ? std::string("package") : "source " + g) + (lines.empty() ? ": no findings\n" : ":\n" + lines);
  }
  return out;
}

std::string esv_summary_line(const std::string& dir, size_t sources, const std::vector<EsvFinding>& findings) {
  size_t n[3] = {0, 0, 0};
  for (const EsvFinding& f : findings) ++n[static_cast<int>(f.severity)];
  return "esv check: " + dir + ": " + plural(sources, "source") + ", " + plural(n[0], "error") + ", " +
         plural(n[1], "warning") + ", " + plural(n[2], "note") +
         (n[0] ? ": not ready to upload" : ": no error found");
}

int run_check(const CheckFlags& f, const CommandEnv& env) {
  std::error_code ec;
  if (!std::filesystem::is_directory(f.dir, ec)) {
    throw Error(ErrorKind::Usage, "esv check: DIR '" + f.dir + "' is not a folder");
  }
  std::optional<std::string> json;
  if (f.json_opt->count()) json = output_name(f.json);
  if (f.force && !json) throw Error(ErrorKind::Usage, "--force applies to --json, which is not given");
  InputSet inputs;
  if (json && *json != "-" && descriptor_of(*json) < 0) {
    // The record is never written into the package it describes (it would replace one of its
    // files, or add one that is not the package's, and the verdict would describe another).
    std::error_code e1, e2;
    const auto dir = std::filesystem::weakly_canonical(f.dir, e1);
    const auto out = std::filesystem::weakly_canonical(std::filesystem::absolute(*json), e2);
    const std::string rel = std::filesystem::relative(out, dir, e1).generic_string();
    if (!e1 && !e2 && !rel.empty() && rel != "." && rel.rfind("..", 0) != 0) {
      throw Error(ErrorKind::Usage, "--json: " + *json + " is inside the package being checked (" + f.dir +
                                        "); write the check's record outside it");
    }
  }
  if (json) {
    check_output_path(*json, inputs, "--json");
    check_replaceable(*json, f.force, "--json");
  }
  ReportOptions ro;
  ro.started = timestamp_now();
  ro.command_line = env.command_line;
  std::vector<std::string> sources, folders;
  std::vector<EsvFinding> findings = check_package(f.dir, &sources, &folders);
  if (!f.no_rehearsal) rehearse(f, env, sources, folders, findings);
  const bool json_on_stdout = json && *json == "-";
  std::FILE* text = json_on_stdout || f.quiet ? stderr : stdout;
  if (!f.quiet) write_text(text, findings_text(sources, findings), json_on_stdout ? "standard error" : "standard output");
  write_text(text, esv_summary_line(f.dir, sources.size(), findings) + "\n", text == stderr ? "standard error" : "standard output");
  flush_checked(text, text == stderr ? "standard error" : "standard output");
  if (json) write_file_atomically(*json, dump_json(esv_check_json(f.dir, sources, findings, ro), 2) + "\n", inputs, "--json");
  for (const EsvFinding& x : findings) {
    if (x.severity == EsvSeverity::Error) return 1;
  }
  return 0;
}

}  // namespace

int esv_check_main(std::vector<char*> args, const CommandEnv& env) {
  try {
    init_logging("info");
    CheckFlags f;
    CLI::App app{"ea_iid esv check: an ESV submission package's registration against NIST's two published schemas "
                 "and the protocol's and server's rules, and its files (sizes, sample values, run.json's paths, "
                 "SHA256SUMS), each finding with the rule's origin.",
                 "ea_iid esv check"};
    ea::cli::wrap_help(app);
    add_check_options(app, f);
    if (const int done = parse_subcommand(app, args, "ea_iid esv check"); done >= 0) return done;
    {  // (the engine's values checked now: a package without sources runs no rehearsal to check them)
      Settings probe;
      apply_engine_options(f.engine, probe, Program::EaIid);
    }
    env.install_signal_handlers();
    return run_check(f, env);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted || env.interrupt->load()) {
      logger().error("interrupted");
      return env.signal_number->load() == SIGTERM ? 143 : 130;
    }
    logger().error("{}", worded(e));
  } catch (const std::exception& e) {
    logger().error("internal error: {}", e.what());
  }
  return exit_status(Outcome::error(), {}, 0);
}

}  // namespace ea::cli
