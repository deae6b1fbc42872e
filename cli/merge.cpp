// ea_iid merge: the JSONL files of a job array's shares joined into one (cli/run.hpp).
#include <sys/stat.h>

#include <algorithm>

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "common/error.hpp"
#include "common/interrupt.hpp"
#include "help.hpp"
#include "logging.hpp"
#include "option_groups.hpp"
#include "files.hpp"
#include "manifest_command.hpp"
#include "manifest_run.hpp"
#include "output.hpp"
#include "run.hpp"
#include "record.hpp"
#include "report.hpp"
#include "summary.hpp"

namespace ea::cli {

namespace {

// Every line of every share, by its place in the whole list, checked to come from one list.
struct Shares {
  std::map<size_t, std::pair<Record, std::string>> rows;  // item -> (row, where)
  std::optional<size_t> items;
  std::optional<uint64_t> shares;
  std::set<uint64_t> seen_shares;
};

Shares read_shares(const std::vector<std::string>& files, Interrupt interrupt) {
  RunIdentity identity;
  Shares sh;
  auto& rows = sh.rows;
  auto& items = sh.items;
  auto& shares = sh.shares;
  auto& seen_shares = sh.seen_shares;
  for (size_t f = 1; f < files.size(); ++f) {
    struct stat st {};
    if (::stat(files[f].c_str(), &st) != 0) {
      throw Error(ErrorKind::Input, "merge: " + files[f] + ": cannot open: " + std::strerror(errno));
    }
    JsonlRows share = read_jsonl_rows(files[f], interrupt);
    if (share.torn) {
      throw Error(ErrorKind::Input, "merge: " + files[f] + ": the last line is incomplete (a share that was cut off); "
                                    "run that share again");
    }
    for (size_t r = 0; r < share.rows.size(); ++r) {
      const std::string where = files[f] + ":" + std::to_string(share.lines[r]);
      Record& row = share.rows[r];
      check_same_run(row, where, identity, "merge");  // the one check --resume makes too
      const size_t item = row.run->item;
      items = row.run->items;
      shares = row.run->shares();
      seen_shares.insert(row.run->shard ? row.run->shard->first : 0);
      auto [it, fresh] = rows.emplace(item, std::make_pair(std::move(row), where));
      if (!fresh) {
        throw Error(ErrorKind::Input, "merge: item " + std::to_string(item) + " is in " + it->second.second + " and " +
                                      where + "; each share once");
      }
    }
  }
  return sh;
}

// Every item of the list has its line (else which are missing, and from which shares).
void check_complete(const Shares& sh) {
  const auto& rows = sh.rows;
  const auto& items = sh.items;
  const auto& shares = sh.shares;
  const auto& seen_shares = sh.seen_shares;
  if (!items) throw Error(ErrorKind::Input, "merge: the inputs hold no lines");
  if (rows.size() != *items) {
    std::string missing;
    int shown = 0;
    for (size_t i = 0; i < *items && shown < 5; ++i) {
      if (!rows.count(i)) missing += (shown++ ? ", " : "") + std::to_string(i);
    }
    std::string absent;
    for (uint64_t k = 0; k < *shares; ++k) {
      if (!seen_shares.count(k)) absent += (absent.empty() ? "" : ", ") + std::to_string(k);
    }
    throw Error(ErrorKind::Input, "merge: " + std::to_string(*items - rows.size()) + " of " + std::to_string(*items) +
                                  " items have no line (items " + missing + (shown == 5 ? ", ..." : "") + ")" +
                                  (absent.empty() ? "" : "; no line from share(s) " + absent + " of " +
                                                             std::to_string(*shares)));
  }
}

}  // namespace

Outcome merge_shares(const MergeOptions& m) {
  const std::vector<std::string>& files = m.files;
  const std::optional<std::string>& csv = m.csv;
  const std::optional<std::string>& html = m.html;
  const bool force = m.force, quiet = m.quiet;
  const std::string out = output_name(files.front());
  InputSet inputs;
  for (size_t i = 1; i < files.size(); ++i) inputs.add(files[i]);
  check_output_path(out, inputs, "merge");
  struct stat st {};
  if (!force && descriptor_of(out) < 0 && ::stat(out.c_str(), &st) == 0 && st.st_size > 0) {
    throw Error(ErrorKind::Output, "merge: " + out + " exists and is not empty; --force replaces it");
  }
  std::vector<std::pair<std::string, std::string>> outputs{{"merge", out}};
  if (csv) {
    check_output_path(*csv, inputs, "--csv");
    check_replaceable_report(*csv, force, "--csv");
    outputs.emplace_back("--csv", *csv);
  }
  if (html) {
    check_output_path(*html, inputs, "--html");
    check_replaceable_report(*html, force, "--html");
    outputs.emplace_back("--html", *html);
  }
  check_distinct_outputs(outputs);
  if (holds_source_rows(files)) {
    return merge_source_shares(outputs, files, quiet, inputs, m.interrupt);  // cli/manifest_merge.cpp
  }
  Shares sh = read_shares(files, m.interrupt);
  auto& rows = sh.rows;
  check_complete(sh);
  throw_if_interrupted(m.interrupt);  // each file whole or not written (the handlers only set the flag)
  std::string text;
  std::vector<Row> table;
  std::vector<nlohmann::ordered_json> records;
  Tally tally;
  for (auto& [item, row] : rows) {
    text += dump_json(row.first.json) + "\n";
    table.push_back(row.first.row);
    records.push_back(row.first.json);
    tally.add(row.first);
  }
  const std::optional<Rejections> rejections = count_rejections(records);
  const bool any_error = tally.errors > tally.degenerate;  // degenerate sources: exit 5 (outcome_of)
  OutputsInOrder ordered(outputs, inputs, m.interrupt);
  ordered.write("merge", [&text] { return text; });
  // The reports of the whole run, from its rows (the header shows the run's command line).
  if (csv) ordered.write("--csv", [&records] { return csv_report(records); });
  if (html) {
    ordered.write("--html", [&records] {
      const std::string run_command = records.empty() || !records.front()["commandline"].is_string()
                                          ? ""
                                          : records.front()["commandline"].get<std::string>();
      return html_report(records, run_command);
    });
  }
  if (!quiet) {
    print_summary(stdout, table);
    if (rejections && rejections->items >= 2) print_rejections(stdout, *rejections);
    const std::string counts = verdict_counts(records);
    std::string line = std::to_string(table.size()) + (table.size() == 1 ? " item" : " items") + " from " +
                       std::to_string(*sh.shares) + " shares";
    if (!counts.empty()) line += ": " + with_expected_by_chance(counts, rejections);
    if (any_error || tally.results == 0) line += (counts.empty() ? ": " : "; ") + summary_line(tally, table.size(), any_error);
    std::fprintf(stdout, "%s\n", line.c_str());
    flush_checked(stdout, "standard output");
  }
  return outcome_of(tally);
}

namespace {

const char kMergeHeading[] =
    "ea_iid merge: the JSONL files of a run's --shard shares joined into one, in the list's order\n"
    "(docs/cluster.md)\n"
    "Usage: ea_iid merge [options] OUT.jsonl IN.jsonl...\n"
    "\n"
    "Every share must come from one run (the same list, seed and result-changing options) and\n"
    "together they must hold every item once; otherwise nothing is written (exit 2).\n";
const char kMergeFooter[] =
    "\nExit status: 0 merged (whatever the verdicts; see --exit-code, --strict), 2 errors (a share\n"
    "missing or from another run, a damaged line, an output that is an input), 130/143 interrupted\n"
    "(SIGINT/SIGTERM before the last output: those written are whole and named, the others not\n"
    "written; once the last is written the merge completes).\n";

}  // namespace

int merge_main(std::vector<char*> args, const CommandEnv& env) {
  CLI::App app{"", "ea_iid merge"};
  MergeOptions m;
  OutputOptionText out;
  ExitPolicy policy;
  app.add_option("files", m.files, "OUT.jsonl, then the shares' --jsonl files")->type_name("OUT.jsonl IN.jsonl...");
  add_output_group(app, out, kOutputCsv | kOutputHtml | kOutputForce | kOutputQuiet,
                   {"", "", "also write the HTML report of the whole run (its options, not merge's)",
                    "replace a non-empty OUT.jsonl, or a --csv/--html file that is not an ea_iid report", "no summary table"});
  app.add_flag("--exit-code", policy.exit_code, "exit 1 unless every item is IID");
  app.add_flag("--strict", policy.strict, "as ea_iid --strict");
  HelpText h;
  h.heading = kMergeHeading;
  h.groups = {{"Arguments", {"files"}, ""}, {"Options", {"--csv", "--html", "--force", "--exit-code", "--strict", "-q"}, ""}};
  h.brief = {{"--csv", "also write one CSV row per item (docs/report.md)"}};
  h.footer_brief = h.footer_all = kMergeFooter;
  try {
    init_logging("info");
    // "--csv" last: the message names the missing PATH, as the hand-written parser's did.
    if (const std::string last = args.size() > 1 ? args.back() : ""; last == "--csv" || last == "--html") {
      throw Error(ErrorKind::Usage, "merge: " + last + " needs a PATH (" + find_subcommand("merge")->usage + ")");
    }
    const bool help_all = std::any_of(args.begin() + 1, args.end(), [](const char* a) { return std::string(a) == "--help-all"; });
    try {
      if (help_all) throw CLI::CallForHelp();  // (ea_iid's --help-all: merge's --help holds every option)
      app.parse(static_cast<int>(args.size()), args.data());
    } catch (const CLI::CallForHelp&) {
      std::fputs(render_help(app, h, false).c_str(), stdout);
      return std::fflush(stdout) == 0 && !std::ferror(stdout) ? 0 : 2;
    } catch (const CLI::ParseError& e) {
      throw Error(ErrorKind::Usage, "merge: " + parse_error_message(app, e, "ea_iid merge") + "\n" +
                                        "usage: " + find_subcommand("merge")->usage);
    }
    policy.exit_code = policy.exit_code || policy.strict;
    const OutputFiles o = apply_output_group(out);
    m.csv = o.csv;
    m.html = o.html;
    m.force = o.force;
    m.quiet = o.quiet;
    if (m.files.size() < 2) {
      throw Error(ErrorKind::Usage, "merge needs OUT.jsonl and at least one IN.jsonl\nusage: " +
                                        std::string(find_subcommand("merge")->usage) + " (ea_iid merge --help)");
    }
    // SIGINT/SIGTERM from here on: the flag (merge stops before its next file; no temporary
    // file is left), exit 130/143, as the other commands.
    if (env.install_signal_handlers) env.install_signal_handlers();
    m.interrupt = env.interrupt;
    return exit_status(merge_shares(m), policy, 0);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted || (env.interrupt && env.interrupt->load())) {
      // OutputsInOrder's message names the files written and not; a stop while the shares
      // were read (or checked) wrote none.
      // Another error while the flag is set (a write cut by the signal, say) is said as it is.
      const std::string what = e.what();
      logger().error("{}", e.kind() != ErrorKind::Interrupted ? what + " (after SIGINT/SIGTERM)"
                           : what != "interrupted"            ? what
                                                              : "interrupted while reading the shares: no output written");
      return exit_status(Outcome::interrupted(), policy, env.signal_number ? env.signal_number->load() : 0);
    }
    logger().error("{}", e.what());
    return exit_status(Outcome::error(), policy, 0);
  } catch (const std::exception& e) {
    logger().error("{}", e.what());
    return exit_status(Outcome::error(), policy, 0);
  }
}

}  // namespace ea::cli
