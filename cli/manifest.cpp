// ea_iid source --manifest sources.json: every source of a manifest through the flow of
// `ea_iid source` (assess_source; --jobs J at once, report/manifest_run.hpp), each with its own
// JSON and HTML report (-o DIR/), one JSONL row (--jsonl, with --resume; --shard K/N for job
// arrays, joined by ea_iid merge), and a lab summary over all of them (a text table, --csv,
// --html). docs/manifest.md.
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "help.hpp"
#include "common/error.hpp"
#include "common/interrupt.hpp"
#include "common/numbers.hpp"
#include "io/samples.hpp"
#include "lab.hpp"
#include "logging.hpp"
#include "manifest.hpp"
#include "manifest_command.hpp"
#include "manifest_progress.hpp"
#include "manifest_run.hpp"
#include "messages.hpp"
#include "option_groups.hpp"
#include "outcome.hpp"
#include "output.hpp"
#include "pdf.hpp"
#include "record.hpp"
#include "report.hpp"
#include "run.hpp"
#include "settings_fields.hpp"
#include "settings_rules.hpp"
#include "source.hpp"
#include "source_settings.hpp"

namespace ea::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

struct ManifestFlags {
  std::string manifest, dir, jsonl, html, csv, shard_text, jobs_text;
  std::string browser;  // --browser; the browser's path once found (run_manifest)
  bool pdf = false;     // --pdf: DIR/NAME.pdf beside each page
  std::optional<Shard> shard;
  int jobs = 1;
  bool resume = false, force = false, quiet = false, timing = false, exit_code = false, strict = false;
  bool until_decided = false, permutation_counters = false;
  int verbose = 0;
  EngineOptionText engine;
  CLI::Option *dir_opt = nullptr, *jsonl_opt = nullptr, *html_opt = nullptr, *csv_opt = nullptr, *shard_opt = nullptr,
              *jobs_opt = nullptr, *browser_opt = nullptr;
};

void add_manifest_options(CLI::App& app, ManifestFlags& f) {
  app.add_option("--manifest", f.manifest,
                 "the sources: {\"sources\": [{\"primaryNoiseSource\": NAME, \"rawNoisePath\": FILE, ...}, ...]} "
                 "(docs/manifest.md; paths from the manifest's folder)")
      ->required()
      ->type_name("FILE.json");
  f.dir_opt = app.add_option("-o,--output", f.dir, "each source's JSON and HTML report: DIR/NAME.json, DIR/NAME.html "
                                                   "(and DIR/NAME.pdf with --pdf)")
                  ->type_name("DIR/");
  app.add_flag("--pdf", f.pdf, "each source's page as PDF too, DIR/NAME.pdf (with -o DIR/), printed by a headless "
                               "Chromium (docs/report.md)");
  f.browser_opt = app.add_option("--browser", f.browser, "--pdf's browser (default: chromium, chromium-browser or "
                                                         "google-chrome on PATH)")
                      ->type_name("PATH");
  f.jsonl_opt = app.add_option("--jsonl", f.jsonl, "one line per source: its JSON report and its place in the run (\"run\")")
                    ->type_name("FILE.jsonl");
  f.html_opt = app.add_option("--html", f.html, "the lab page: every source's result, linking its own page")
                   ->type_name("FILE.html");
  f.csv_opt = app.add_option("--csv", f.csv, "the lab table as CSV, one line per source")->type_name("FILE.csv");
  app.add_flag("--resume", f.resume,
               "continue a run of this manifest: the sources with a row in --jsonl (same manifest, seed and options) are "
               "kept, the others run");
  f.shard_opt = app.add_option("--shard", f.shard_text,
                               "run only share K of N of the sources (0 <= K < N, balanced by their files' bytes), for "
                               "job arrays; ea_iid merge joins the shares' --jsonl files")
                    ->type_name("K/N");
  f.jobs_opt = app.add_option("--jobs", f.jobs_text,
                              "sources assessed at once, each on an engine of its own (default 1); the rows are the same, "
                              "in manifest order")
                   ->type_name("J");
  app.add_flag("--force", f.force, "replace outputs that are not ea_iid results, and the lines of an existing --jsonl");
  app.add_flag("-q", f.quiet, "nothing on standard output, and only errors on standard error");
  app.add_flag("--timing", f.timing, "record and print the time taken");
  app.add_flag("-v", f.verbose, "a line per step of each source, and per round of permutations");
  app.add_flag("--until-decided", f.until_decided, "the default, as for ea_iid source");
  app.add_flag("--permutation-counters", f.permutation_counters, "as for ea_iid source (the sources whose IID tests run)");
  app.add_flag("--exit-code", f.exit_code, "exit 1 when a step of some source failed");
  app.add_flag("--strict", f.strict, "as for ea_iid source, over all sources: 4 when one is not for compliance");
  add_engine_options(app, f.engine, Program::EaIid);
}

// The options of `ea_iid source` that a manifest gives per source: refused with the field
// that says it instead.
void refuse_source_options(const std::vector<char*>& args) {
  static const std::pair<const char*, const char*> per_source[] = {
      {"--track", "iidClaim (false: the non-IID track)"}, {"--bits", "bitsPerSample"},
      {"--restart-data", "restartTestPath"},            {"--h-submitter", "hminEstimate"},
      {"--conditioning", "conditioningComponent"},      {"--n-in", "conditioningComponent[].minNin"},
      {"--n-out", "conditioningComponent[].nOut"},      {"--nw", "conditioningComponent[].nw"},
      {"--h-prime", "conditioningComponent[].hPrime"},  {"--conditioned", "conditioningComponent[].unvettedConditionedPaths"},
      {"--sample-format", "sampleFormat"},              {"--select-bits", "selectBits"},
      {"--bin", "binBits"}};
  for (size_t k = 1; k < args.size(); ++k) {
    const std::string a = args[k];
    for (const auto& [flag, field] : per_source) {
      if (a == flag || a.rfind(std::string(flag) + "=", 0) == 0) {
        throw Error(ErrorKind::Usage, std::string(flag) + " is given per source with --manifest: its field " + field +
                                          " (docs/manifest.md)");
      }
    }
  }
}

// The per-source files (-o DIR/), by source; empty without -o.
struct SourcePaths {
  std::vector<std::string> json, html, pdf;  // pdf: with --pdf
};

std::string folder_path(const std::string& dir) {
  struct stat st {};
  const bool folder = !dir.empty() && (dir.back() == '/' || (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)));
  if (!folder) {
    throw Error(ErrorKind::Usage, "-o " + dir + ": with --manifest, -o names a folder (DIR/): each source's reports are "
                                                "DIR/NAME.json and DIR/NAME.html");
  }
  return dir.back() == '/' ? dir : dir + "/";
}

// -o's folder, made for the checks of the outputs in it; the folders it made are removed
// again (when still empty) unless the run started: a run refused before any work (--resume of
// rows of other options, say) leaves nothing behind.
class MadeFolder {
 public:
  explicit MadeFolder(const std::string& dir) {
    std::vector<fs::path> missing;
    fs::path p = fs::path(dir).lexically_normal();
    if (!p.has_filename()) p = p.parent_path();  // "DIR/"
    for (; !p.empty() && p != p.root_path(); p = p.parent_path()) {
      std::error_code ec;
      if (fs::exists(p, ec) || ec) break;
      missing.push_back(p);
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw Error(ErrorKind::Output, "-o " + dir + ": cannot make the folder: " + ec.message());
    made_ = std::move(missing);  // deepest first
  }
  MadeFolder(const MadeFolder&) = delete;
  MadeFolder& operator=(const MadeFolder&) = delete;
  ~MadeFolder() {
    for (const fs::path& p : made_) {
      if (::rmdir(p.c_str()) != 0) break;  // not empty (or gone): kept
    }
  }
  void keep() { made_.clear(); }

 private:
  std::vector<fs::path> made_;
};

// Before any work: every output against the others and the inputs. -o's folder is made
// (`made`, removed again if the run is refused before any work).
SourcePaths check_manifest_outputs(const ManifestFlags& f, const Manifest& m, const InputSet& inputs,
                                   std::unique_ptr<MadeFolder>& made) {
  SourcePaths p;
  std::vector<std::pair<std::string, std::string>> outs;
  if (f.dir_opt->count()) {
    const std::string dir = folder_path(f.dir);
    for (const ManifestSource& s : m.sources) {
      p.json.push_back(dir + s.stem + ".json");
      p.html.push_back(dir + s.stem + ".html");
      outs.emplace_back("-o (" + s.spec.name + ")", p.json.back());
      outs.emplace_back("-o (" + s.spec.name + " page)", p.html.back());
      if (f.pdf) {
        p.pdf.push_back(dir + s.stem + ".pdf");
        outs.emplace_back("-o (" + s.spec.name + " PDF)", p.pdf.back());
      }
    }
  }
  if (f.jsonl_opt->count()) outs.emplace_back("--jsonl", f.jsonl);
  if (f.html_opt->count()) outs.emplace_back("--html", f.html);
  if (f.csv_opt->count()) outs.emplace_back("--csv", f.csv);
  check_distinct_outputs(outs);
  if (f.dir_opt->count()) made = std::make_unique<MadeFolder>(f.dir);
  // --jsonl by JsonlWriter's own rules, as ea_iid --jsonl (a device such as /dev/null is taken).
  for (const auto& [what, path] : outs) {
    if (what != "--jsonl") check_output_path(path, inputs, what);
  }
  for (const auto& path : p.json) check_replaceable(path, f.force, "-o");
  for (const auto& path : p.html) check_replaceable_report(path, f.force, "-o");
  for (const auto& path : p.pdf) check_pdf_output(path, inputs, f.force, "-o");
  if (f.html_opt->count()) check_replaceable_report(f.html, f.force, "--html");
  if (f.csv_opt->count()) check_replaceable_report(f.csv, f.force, "--csv");
  return p;
}

// --resume: the rows of the earlier run, by source; error rows and a cut-off last line are
// dropped (those sources run again).
struct EarlierSources {
  std::map<size_t, ordered_json> kept;
  std::optional<uint64_t> seed;
  bool rewrite = false;  // the file loses a cut-off line or error rows
  std::string text;      // what it keeps
  uint64_t bytes = 0;    // its size as read
};

// One earlier row (read by read_record) checked against this manifest: a source's row or an
// error row, its place (in this run's share), the manifest's digest, the seed.
void check_earlier_row(const Record& row, const std::string& at, const Manifest& m, const std::optional<Shard>& shard,
                       const std::vector<size_t>& mine, EarlierSources& e) {
  const auto bad = [&at](const std::string& what) {
    throw Error(ErrorKind::Input, "--resume: " + at + ": " + what + "; resume with the same manifest and options, or write "
                                                                     "to another file");
  };
  if (!row.run || (row.kind != Record::Kind::Source && row.kind != Record::Kind::Error)) {
    bad("not a row of ea_iid source --manifest");
  }
  if (row.run->list != m.digest) bad("a row of another manifest (run.list differs from its SHA-256)");
  if (row.run->items != m.sources.size()) bad("a row of a manifest of another length");
  const ordered_json share = manifest_run_json(m, 0, std::nullopt, shard)["shard"];
  if (row.run->shard != shard) {
    bad("a row of another share (run.shard " + row.json["run"]["shard"].dump() + ", this run's " + share.dump() + ")");
  }
  const size_t k = row.run->item;
  if (!std::binary_search(mine.begin(), mine.end(), k)) bad("run.item " + std::to_string(k) + " is not a source of this share");
  const ordered_json& seed = row.json["run"]["userSeed"];
  if (!seed.is_null()) {  // null: the run drew no random numbers
    uint64_t s = 0;
    try {
      s = parse_integer(seed.get<std::string>(), "run.userSeed", 0, UINT64_MAX);
    } catch (const Error& err) {
      bad(m.sources[k].where() + ": " + err.what());  // "run.userSeed: ... is out of range (...)"
    }
    if (e.seed && *e.seed != s) bad("--seed " + std::to_string(s) + " differs from the earlier rows' " + std::to_string(*e.seed));
    e.seed = s;
  }
  if (e.kept.count(k)) bad("a second row for " + m.sources[k].where());
  if (row.kind == Record::Kind::Source && row.json["source"] != m.sources[k].spec.name) {
    bad("the row of " + m.sources[k].where() + " names the source " + row.json["source"].get<std::string>());
  }
  check_row_shuffle(row, "--resume: " + at + ": ");
}

EarlierSources read_earlier_sources(const std::string& path, const Manifest& m, const std::optional<Shard>& shard,
                                    const std::vector<size_t>& mine, Interrupt interrupt) {
  if (path == "-" || descriptor_of(path) >= 0) throw Error(ErrorKind::Usage, "--resume continues a --jsonl file: name the file");
  EarlierSources e;
  std::ifstream in(path, std::ios::binary);
  if (!in) return e;  // a new file: nothing to keep
  std::ostringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  e.bytes = text.size();
  size_t begin = 0, line = 0;
  while (begin < text.size()) {
    throw_if_interrupted(interrupt);  // (a SIGINT while thousands of rows are read)
    const size_t end = text.find('\n', begin);
    ++line;
    if (end == std::string::npos) {  // cut off while it was written
      e.rewrite = true;
      break;
    }
    const std::string body = text.substr(begin, end - begin);
    begin = end + 1;
    const std::string at = path + ":" + std::to_string(line);
    Record row;
    try {  // an error names the source where the row says which it is
      ordered_json j = ordered_json::parse(body, nullptr, false);
      const ordered_json* item = j.is_object() && j.contains("run") && j["run"].is_object() ? &j["run"]["item"] : nullptr;
      const bool named = item && item->is_number_unsigned() && item->get<uint64_t>() < m.sources.size();
      row = read_record(std::move(j), named ? at + ": " + m.sources[item->get<size_t>()].where() : at);
    } catch (const Error& err) {
      throw Error(ErrorKind::Input, std::string("--resume: ") + err.what());
    }
    check_earlier_row(row, at, m, shard, mine, e);
    if (row.kind == Record::Kind::Error) {  // that source runs again
      e.rewrite = true;
      continue;
    }
    e.kept[row.run->item] = std::move(row.json);
    e.text += body + "\n";
  }
  return e;
}

// A kept row against this run: the same track and result-changing settings (settings_fields,
// as ea_iid --resume compares them), and files unchanged since.
void check_kept(const ordered_json& row, const ManifestSource& src, const Settings& s) {
  const auto refuse = [&src](const std::string& why) {
    throw Error(ErrorKind::Usage, "--resume: " + src.where() + " has a row written with other options or files (" + why +
                                      "); run with the same options, or write to another file");
  };
  const bool non_iid = s.track == TrackChoice::NonIid;
  if (recorded_text(row, "flow.trackChoice") != track_choice_name(s.track)) refuse("the track differs (iidClaim)");
  std::string differ;  // every setting that differs, not only the first
  for (const SettingField& f : settings_fields()) {
    const char* path = f.record_in(non_iid);
    if (f.effect != SettingEffect::Result || !path || !f.value) continue;
    const std::string now = f.value(s), was = recorded_setting(row, f, std::string("steps.sequential.") + path);
    if (!now.empty() && was != now) {
      differ += (differ.empty() ? "" : "; ") + setting_in_record(f, path) +
                (was.empty() ? " is not in the row" : " was " + was) + ", now " + now;
    }
  }
  if (!differ.empty()) refuse(differ);
  const auto files = row.find("files");
  if (files == row.end() || !files->is_array() || files->empty()) refuse("the row lists no files");
  for (const auto& file : *files) {
    const std::string path = recorded_text(file, "path"), was = recorded_text(file, "sha256");
    const std::string now = fingerprint_file(path).sha256;
    if (was != now) refuse(path + " changed since (SHA-256 " + was + ", now " + now + ")");
  }
}

// What one run holds while its sources go through.
struct ManifestRun {
  const ManifestFlags& f;
  const Manifest& m;
  const SourcePaths& paths;
  const InputSet& inputs;
  std::vector<size_t> mine;        // the sources of this run's share (all without --shard)
  std::vector<Settings> settings;  // by source
  std::optional<uint64_t> seed;    // the run's seed; none when no source draws random numbers
  ReportOptions ro;
  std::unique_ptr<JsonlWriter> jsonl;
  std::map<size_t, LabRow> lab;    // by source: kept and new
  size_t ran = 0;
  bool interrupted = false;
  const std::atomic<bool>* interrupt = nullptr;  // polled while the browser prints a PDF
};

// -o DIR/: a source's JSON (its record without "run") and, for a result, its page (and with
// --pdf the page as PDF).
void write_source_files(ManifestRun& r, size_t k, const ordered_json& record) {
  if (r.paths.json.empty()) return;
  write_file_atomically(r.paths.json[k], dump_json(record, 2) + "\n", r.inputs, "-o");
  if (record.value("type", std::string()) == "Source") {
    const std::string sibling = fs::path(r.paths.json[k]).filename().string();
    const std::string page = source_html(record, sibling);
    write_file_atomically(r.paths.html[k], page, r.inputs, "-o");
    if (!r.paths.pdf.empty()) {
      write_pdf_from_page(page, r.paths.pdf[k], r.f.browser, kPdfTimeoutSeconds, r.inputs, r.interrupt, "-o");
    }
  }
}

// Source k's page (-o DIR/NAME.html): none without -o, nor for an error record (no page is
// written for it: write_source_files).
std::optional<std::string> page_of(const ManifestRun& r, size_t k, const ordered_json& record) {
  if (r.paths.html.empty() || record.value("type", std::string()) != "Source") return std::nullopt;
  return r.paths.html[k];
}

// A kept row's page (its run.page) must be the one this run names for its source, so that the
// file's rows all link their pages or none do (merge's lab summary reads them): a resume
// without -o DIR/ of rows written with it (or into another folder) is refused, nothing changed.
void check_kept_page(const ManifestRun& r, size_t k, const ordered_json& row) {
  const auto run = row.find("run");
  const ordered_json* page = nullptr;
  if (run != row.end() && run->is_object() && run->contains("page")) page = &(*run)["page"];
  const std::string was = page != nullptr && page->is_string() ? page->get<std::string>() : "";
  const std::string now = page_of(r, k, row).value_or("");
  if (was.empty() && now.empty()) return;
  std::error_code e1, e2;
  if (!was.empty() && !now.empty() && fs::weakly_canonical(was, e1) == fs::weakly_canonical(now, e2) && !e1 && !e2) {
    return;
  }
  const std::string where = r.m.sources[k].where();
  const std::string as_before = was.empty() ? "resume without -o" : "give -o " + fs::path(was).parent_path().string() + "/";
  throw Error(ErrorKind::Usage, "--resume: " + where + "'s row " +
                                    (was.empty() ? "was written without -o (run.page null)"
                                                 : "links its page " + was + " (run.page)") +
                                    (now.empty() ? "" : ", where this run writes " + now) + ": " + as_before +
                                    " as the run that wrote it did" +
                                    (was.empty() || fs::path(was).is_absolute() ? "" : " (from its working folder)") +
                                    ", or write to another file");
}

// The lab page's link to a source's page: relative to the lab page's folder.
std::string page_link(const ManifestRun& r, size_t k, const ordered_json& record) {
  return lab_page_link(page_of(r, k, record).value_or(""), r.f.html_opt->count() ? r.f.html : "");
}

void add_lab_row(ManifestRun& r, size_t k, ordered_json record) {
  record.erase("run");
  write_source_files(r, k, record);
  std::string link = page_link(r, k, record);
  r.lab[k] = LabRow{r.m.sources[k].spec.name, std::move(record), std::move(link), r.m.sources[k].iid_claim};
}

std::vector<LabRow> lab_rows(const ManifestRun& r) {
  std::vector<LabRow> rows;
  for (const auto& [k, row] : r.lab) rows.push_back(row);
  return rows;
}

// What the run shows and writes of each source: its first line, its progress (one line for
// the whole run with --jobs on a terminal: cli/manifest_progress.hpp), its error, and its row
// (JSONL, -o DIR/ files) as it ends, in manifest order.
ManifestHooks hooks_of(ManifestRun& r, ManifestProgress& progress) {
  ManifestHooks h;
  h.started = [&progress](size_t k) { progress.started(k); };
  h.watch = [&r, &progress](size_t k) { return progress.watch(k, r.settings[k].iterations); };
  h.ended = [&progress](size_t k) { progress.ended(k); };
  h.failed = [&r, &progress](size_t k, const Error& e) {
    progress.say([&] { logger().error("{}: {}", r.m.sources[k].where(), worded(e)); });
    return worded(e);
  };
  h.finished = [&r](size_t k, ordered_json record) {
    ordered_json row = record;
    row["run"] = manifest_run_json(r.m, k, r.seed, r.f.shard, page_of(r, k, record));
    if (r.jsonl) r.jsonl->write_line(dump_json(row));
    ++r.ran;
    add_lab_row(r, k, std::move(record));
  };
  return h;
}

// The sources of this run in manifest order: kept rows reported again, the others assessed,
// --jobs at once. Stops at a signal (the sources that ended are still written).
void run_sources(ManifestRun& r, const EarlierSources& earlier, const std::atomic<bool>& interrupt) {
  std::vector<size_t> todo;
  for (size_t k : r.mine) {
    if (auto at = earlier.kept.find(k); at != earlier.kept.end()) {
      add_lab_row(r, k, at->second);
    } else {
      todo.push_back(k);
    }
  }
  Engine engine;
  const int jobs = static_cast<int>(std::min<size_t>(static_cast<size_t>(r.f.jobs), std::max<size_t>(todo.size(), 1)));
  ManifestProgress progress(r.m, r.mine.size() - todo.size(), r.mine.size(), jobs, r.f.quiet, r.f.verbose,
                            ::isatty(STDERR_FILENO) != 0);
  const ManifestSummary sum = run_manifest_sources(engine, jobs, r.m, todo, r.settings, r.ro, interrupt, hooks_of(r, progress));
  r.interrupted = sum.interrupted;
}

// The lab summary: the table on standard output (standard error when an output is "-"),
// --csv and --html.
void write_lab(const ManifestRun& r, const std::string& command_line) {
  const std::vector<LabRow> lab = lab_rows(r);
  const bool stdout_taken = r.f.jsonl == "-" || r.f.html == "-" || r.f.csv == "-";
  if (!r.f.quiet) {
    write_text(stdout_taken ? stderr : stdout, lab_text(lab), stdout_taken ? "standard error" : "standard output");
    flush_checked(stdout_taken ? stderr : stdout, stdout_taken ? "standard error" : "standard output");
  }
  if (r.f.csv_opt->count()) write_file_atomically(r.f.csv, lab_csv(lab), r.inputs, "--csv");
  if (r.f.html_opt->count()) {
    write_file_atomically(r.f.html, lab_html(lab, command_line, LabRun{r.ro.started, r.seed}), r.inputs, "--html");
  }
}

}  // namespace

bool manifest_requested(const std::vector<char*>& args) {
  for (size_t k = 1; k < args.size(); ++k) {
    if (std::strcmp(args[k], "--manifest") == 0 || std::strncmp(args[k], "--manifest=", 11) == 0) return true;
  }
  return false;
}

}  // namespace ea::cli

namespace ea::cli {

namespace {

// --shard K/N and --jobs J; --resume with --jsonl, without --force.
void apply_run_flags(ManifestFlags& f) {
  if (f.shard_opt->count()) {
    const size_t slash = f.shard_text.find('/');
    if (slash == std::string::npos) throw Error(ErrorKind::Usage, "--shard: '" + f.shard_text + "' is not K/N");
    const uint64_t n = parse_integer(f.shard_text.substr(slash + 1), "--shard N", 1, 1000000);
    f.shard = Shard{parse_integer(f.shard_text.substr(0, slash), "--shard K", 0, n - 1), n};
  }
  if (f.jobs_opt->count()) f.jobs = static_cast<int>(parse_integer(f.jobs_text, "--jobs", 1, 64));
  if (f.resume && f.force) throw Error(ErrorKind::Usage, "--resume keeps the rows of --jsonl, --force replaces them: one of them");
  if (f.resume && !f.jsonl_opt->count()) throw Error(ErrorKind::Usage, "--resume continues the rows of a --jsonl file: give --jsonl");
  if (f.pdf && !f.dir_opt->count()) {
    throw Error(ErrorKind::Usage, "--pdf with --manifest writes DIR/NAME.pdf beside each source's page: give -o DIR/");
  }
  if (f.browser_opt->count() && !f.pdf) throw Error(ErrorKind::Usage, "--browser applies to --pdf");
  if (f.pdf) f.browser = find_browser(f.browser, "--pdf");  // before any work
}

// The run-wide settings, checked by the one set of rules (settings_rules.hpp) as `ea_iid
// source` checks them: on the track of the sources whose IID tests run, or the non-IID track
// when no source runs them (then --iterations, --prng, ... are refused naming iidClaim false).
Settings base_settings(ManifestFlags& f, const Manifest& m, EngineChoice& engine) {
  Settings s;
  engine = apply_engine_options(f.engine, s, Program::EaIid);
  Settings probe = s;
  probe.threads = engine.threads ? *engine.threads : 1;
  const SettingsGiven g = source_settings_given(f.engine, engine, s, f.until_decided, f.permutation_counters);
  check_manifest_settings(m, probe, g, f.permutation_counters, cli_setting_names());
  apply_run_flags(f);
  s.threads = engine.threads ? *engine.threads : omp_get_max_threads();
  return s;
}

// The sources of this run: share K of N with --shard, else all.
std::vector<size_t> sources_of(const ManifestFlags& f, const Manifest& m) {
  std::vector<size_t> mine;
  if (f.shard) {
    mine = manifest_share(m, f.shard->first, f.shard->second);
    logger().info("share {}/{}: {} of {} sources", f.shard->first, f.shard->second, mine.size(), m.sources.size());
  } else {
    for (size_t k = 0; k < m.sources.size(); ++k) mine.push_back(k);
  }
  return mine;
}

}  // namespace

InputSet manifest_inputs(const Manifest& m, const std::string& path) {
  InputSet inputs;
  if (!path.empty()) inputs.add(path);
  for (const ManifestSource& s : m.sources) {
    inputs.add(s.spec.samples);
    if (s.spec.restart_data) inputs.add(*s.spec.restart_data);
    for (const SourceConditioning& c : s.spec.conditioning) {
      if (c.conditioned) inputs.add(*c.conditioned);
    }
  }
  return inputs;
}

namespace {

// The run's seed: --seed, else the earlier rows', else drawn from the OS; none (nothing
// drawn, nothing logged, --seed not compared) when no source draws random numbers.
std::optional<uint64_t> run_seed(const EngineChoice& engine, const EarlierSources& earlier, bool draws, bool resume,
                                 const std::string& jsonl) {
  if (!draws) return std::nullopt;
  if (resume && !engine.seed && !earlier.seed) {  // a mistyped name would start over on another seed
    throw Error(ErrorKind::Usage, "--resume: no row of " + jsonl + " records the run's seed (" +
                                      (fs::exists(jsonl) ? "it stopped before its first row" : "no such file") +
                                      "); give --seed to start or continue the run");
  }
  if (engine.seed && earlier.seed && *engine.seed != *earlier.seed) {
    throw Error(ErrorKind::Usage, "--resume: --seed " + std::to_string(*engine.seed) + " differs from the earlier rows' " +
                                      std::to_string(*earlier.seed) + "; resume with the same seed, or write to another file");
  }
  if (engine.seed) return *engine.seed;
  if (earlier.seed) {
    logger().info("--resume: --seed {} (the earlier run's)", *earlier.seed);
    return *earlier.seed;
  }
  const uint64_t seed = os_seed();
  logger().info("--seed {} (drawn from the OS; pass --seed to repeat this run)", seed);
  return seed;
}

int run_manifest(ManifestFlags& f, const std::string& command_line, const std::atomic<bool>& interrupt,
                 const std::atomic<int>& signal_number, ExitPolicy& policy) {
  f.jsonl = output_name(f.jsonl);
  f.html = output_name(f.html);
  f.csv = output_name(f.csv);
  policy.exit_code = f.exit_code || f.strict;
  policy.strict = f.strict;
  const Manifest m = read_manifest(f.manifest);
  EngineChoice engine;
  const Settings base = base_settings(f, m, engine);
  const InputSet inputs = manifest_inputs(m, f.manifest);
  std::unique_ptr<MadeFolder> made;  // -o's folder: removed if the run is refused before any work
  const SourcePaths paths = check_manifest_outputs(f, m, inputs, made);
  ManifestRun r{f, m, paths, inputs, sources_of(f, m), {}, std::nullopt, {}, nullptr, {}, 0, false, &interrupt};
  const EarlierSources earlier = f.resume ? read_earlier_sources(f.jsonl, m, f.shard, r.mine, &interrupt) : EarlierSources{};
  for (const ManifestSource& s : m.sources) r.settings.push_back(manifest_source_settings(s, base, f.permutation_counters));
  r.seed = run_seed(engine, earlier, std::any_of(r.settings.begin(), r.settings.end(), draws_random_numbers), f.resume,
                    f.jsonl);
  for (Settings& s : r.settings) s.seed = r.seed ? *r.seed : engine.seed.value_or(0);
  for (const auto& [k, row] : earlier.kept) {
    if (row.value("type", std::string()) == "Source") {
      check_kept(row, m.sources[k], r.settings[k]);
      check_kept_page(r, k, row);
    }
  }
  if (f.resume && earlier.rewrite) {
    rewrite_jsonl(f.jsonl, earlier.bytes, earlier.text, inputs);
    logger().info("--resume: a cut-off last line or error rows dropped from {} (those sources run again)", f.jsonl);
  }
  if (f.jsonl_opt->count()) {
    const auto existing = f.resume ? JsonlWriter::Existing::Append
                          : f.force ? JsonlWriter::Existing::Truncate
                                    : JsonlWriter::Existing::Refuse;
    r.jsonl = std::make_unique<JsonlWriter>(f.jsonl, existing, inputs);
  }
  if (f.resume && !f.quiet) logger().info("--resume: {} of {} sources kept", earlier.kept.size(), r.mine.size());
  r.ro.started = timestamp_now();
  r.ro.command_line = command_line;
  r.ro.quiet = true;
  r.ro.timing = f.timing;
  if (made) made->keep();
  run_sources(r, earlier, interrupt);
  if (r.jsonl) r.jsonl->close();
  if (r.interrupted) {
    // Not an error: said as the batch says it (cli/run.cpp), where the table goes (-q: stderr).
    const bool stdout_taken = f.jsonl == "-" || f.html == "-" || f.csv == "-";
    std::FILE* where = f.quiet || stdout_taken ? stderr : stdout;
    std::fprintf(where, "Incomplete: interrupted by %s after %zu of %zu sources (their rows kept); --resume continues the run\n",
                 signal_number.load() == SIGTERM ? "SIGTERM" : "SIGINT", r.lab.size(), r.mine.size());
    std::fflush(where);
    return exit_status(Outcome::interrupted(), policy, signal_number.load());
  }
  write_lab(r, command_line);
  return exit_status(lab_outcome(lab_rows(r)), policy, 0);
}

}  // namespace

int manifest_command(std::vector<char*> args, const std::string& command_line, const std::atomic<bool>& interrupt,
                     const std::atomic<int>& signal_number) {
  ManifestFlags f;
  ExitPolicy policy;
  try {
    init_logging("info");
    CLI::App app{"ea_iid source --manifest: every noise source of a manifest through SP 800-90B section 3.1, as ea_iid "
                 "source runs one: its JSON and HTML report, a JSONL row, and a lab summary over all of them.",
                 "ea_iid source --manifest"};
    ea::cli::wrap_help(app);
    add_manifest_options(app, f);
    refuse_source_options(args);
    app.footer(
        "Example:\n"
        "  ea_iid source --manifest sources.json -o reports/ --jsonl run.jsonl --html lab.html --csv lab.csv\n"
        "The manifest (docs/manifest.md):\n"
        "  {\"sources\": [{\"primaryNoiseSource\": \"ring-osc-1\", \"rawNoisePath\": \"a.bin\",\n"
        "    \"restartTestPath\": \"r.bin\", \"iidClaim\": false, \"conditioningComponent\": [...]}, ...]}\n"
        "Exit status: 0 completed (--exit-code: and every step passed; --strict: and for compliance),\n"
        "1 a step failed, 4 (--strict) not for compliance, 2 errors (a manifest error: before any work),\n"
        "130/143 interrupted (the rows written so far are kept: --resume continues).");
    // `ea_iid source --manifest --help` (the hint of a mistyped option says so): --manifest
    // would take --help as its file.
    for (size_t i = 1; i < args.size() && std::strcmp(args[i], "--") != 0; ++i) {
      if (std::strcmp(args[i], "--help") == 0 || std::strcmp(args[i], "-h") == 0) {
        std::cout << app.help();
        return 0;
      }
    }
    if (const int done = parse_subcommand(app, args, "ea_iid source --manifest"); done >= 0) return done;
    if (f.quiet) init_logging("error");  // (as ea_iid -q: its info lines, the seed and the share, too)
    return run_manifest(f, command_line, interrupt, signal_number, policy);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted || interrupt.load()) {
      logger().error("interrupted");
      return exit_status(Outcome::interrupted(), policy, signal_number.load());
    }
    logger().error("{}", worded(e));
    if (e.kind() == ErrorKind::Degenerate) return exit_status(Outcome::degenerate_source(), policy, 0);
  } catch (const std::exception& e) {
    logger().error("internal error: {}", e.what());
  }
  return exit_status(Outcome::error(), policy, 0);
}

}  // namespace ea::cli
