#include "run.hpp"

#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "logging.hpp"
#include "messages.hpp"
#include "option_groups.hpp"
#include "files.hpp"
#include "record.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "settings_fields.hpp"
#include "settings_rules.hpp"
#include "summary.hpp"

namespace ea::cli {

uint64_t os_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ static_cast<uint64_t>(rd());
}

namespace {

// Informational notes of the library (device choice): at info with -v, at debug otherwise.
std::function<void(const std::string&)> note_logger(const Options& o) {
  const auto detail = (!o.quiet && o.verbose >= 1) ? spdlog::level::info : spdlog::level::debug;
  return [detail](const std::string& m) { logger().log(detail, "{}", m); };
}

}  // namespace

// ---- one item: the text report on stdout, -o FILE ----------------------------------

std::function<void(int, const char*, uint32_t, int, uint32_t)> progress_lines(bool quiet, int verbose, uint32_t iterations,
                                                                         const std::string& label) {
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  const std::string named = label.empty() ? "" : label + ": ";
  if (!quiet && ::isatty(STDERR_FILENO)) {
    return [last, iterations, named](int, const char* phase, uint32_t done, int active, uint32_t) {
      auto now = std::chrono::steady_clock::now();
      if (active > 0 && done < iterations && now - *last < std::chrono::milliseconds(200)) return;
      *last = now;
      std::fprintf(stderr, "\r\033[K%s%s: %u/%u permutations, %d undecided", named.c_str(), phase, done, iterations, active);
      if (active == 0 || done >= iterations) std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
    };
  }
  if (!quiet) {
    const auto every = verbose >= 1 ? std::chrono::seconds(1) : std::chrono::seconds(10);
    if (verbose < 1) *last = std::chrono::steady_clock::now();  // nothing for a short run
    // Each phase's start, for its rate and the time it is expected still to take (its
    // undecided tests' remaining permutations at their pace so far: expected_permutations_left).
    struct Phase {
      std::string name;
      std::chrono::steady_clock::time_point start;
    };
    auto current = std::make_shared<Phase>();
    return [iterations, last, every, current, named, all = verbose >= 1](int, const char* phase, uint32_t done, int active,
                                                                            uint32_t left) {
      const auto now = std::chrono::steady_clock::now();
      if (current->name != phase) *current = Phase{phase, now};
      if (now - *last < every && (!all || (active > 0 && done < iterations))) return;
      *last = now;
      const double seconds = std::chrono::duration<double>(now - current->start).count();
      std::string pace;
      if (seconds > 0.5 && done > 0 && active > 0 && done < iterations) {
        const double rate = done / seconds;
        pace = fmt::format(" ({:.0f} per s; about {:.0f} s left)", rate, left / rate);
      }
      logger().info("{}{}: {}/{} permutations, {} test{} undecided{}", named, phase, done, iterations, active,
                    active == 1 ? "" : "s", pace);
    };
  }
  return nullptr;
}

// A block's error named by its block ("big.bin block 3: symbol alphabet ..."), where the
// loader's message names the file only ("big.bin: symbol alphabet ...").
static std::string block_error(const Item& it, const std::string& message) {
  const std::string file = it.path + ": ";
  if (it.block < 0 || message.rfind(file, 0) != 0) return message;
  return it.label() + ": " + message.substr(file.size());
}

// An item's verdict for its progress line, which names the item already: "degenerate: X:
// symbol alphabet ..." without the file X that the loader's message names.
static std::string verdict_for_line(const Item& it, const std::string& verdict) {
  for (const char* kind : {"degenerate: ", "error: "}) {
    const std::string named = std::string(kind) + it.path + ": ";
    if (verdict.rfind(named, 0) == 0) return kind + verdict.substr(named.size());
  }
  return verdict;
}

// The exit outcome of a set of rows.
// (Errors of degenerate sources alone: exit 5, not 2.)
Outcome outcome_of(const Tally& t) {
  if (t.errors > t.degenerate) return Outcome::error();
  Outcome out;
  out.add(t.not_iid || t.failed, t.inconclusive, t.not_compliant);  // (a failed check exits as "not IID" does)
  out.nothing_assessed = t.results == 0;
  out.degenerate = t.degenerate > 0;
  return out;
}

// The batch's last line: what its rows say, never "all IID" for rows that assessed nothing.
std::string summary_line(const Tally& t, size_t rows, bool any_error) {
  if (any_error) return "some assessments had errors";
  std::string verdicts;
  if (t.results == 0) {
    verdicts = rows == 0               ? "nothing was assessed (no item in this list or share)"
               : t.degenerate == 0     ? "nothing was assessed (every item was skipped)"
                                       : "nothing was assessed";
  } else if (t.judged == 0) {
    verdicts = "non-IID estimates (no IID verdicts)";
  } else {
    verdicts = t.all_iid() ? "all IID" : "not all IID";
  }
  if (t.degenerate == 0) return verdicts;
  return verdicts + "; " + std::to_string(t.degenerate) + " degenerate (one symbol only: no entropy)";
}

namespace {

// -l past the end of a stream or standard input: known once the stream ended (a regular
// file's is known before any work, cli/options.cpp), and said as for a file, never silently.
void warn_stream_range(const Options& o, const Item& it, const ItemResult& r) {
  if (!o.subset || !r.assessed()) return;
  struct stat st {};
  if (it.path != kStdinPath && ::stat(it.path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return;
  const uint64_t samples = r.iid() ? r.iid()->samples : r.non_iid() ? r.non_iid()->samples : 0;
  if (samples == 0 || samples >= o.subset->count) return;
  logger().warn("{}", subset_shortened(*o.subset, it.path, o.subset->index * o.subset->count + samples, "gave"));
}

Outcome run_single(Engine& engine, const Options& o, const Settings& settings, const ReportOptions& run_ro,
                   const InputSet& inputs, const std::vector<Item>& items, const std::atomic<bool>& interrupt) {
  RunObserver obs;
  obs.note = note_logger(o);
  obs.progress = progress_lines(o.quiet, o.verbose, settings.iterations);
  // Our text's estimates, chi-square and LRS lines as soon as they are known: the permutation
  // tests may take minutes on a CPU.
  ReportOptions ro = run_ro;
  const bool json_on_stdout = o.json_path && *o.json_path == "-";
  if (!ro.quiet && !ro.nist_format && ro.nist_level < 0 && ro.verbose < 3 && !settings.restart) {
    obs.tested = [&ro, json_on_stdout](int, const Assessment& a) {
      std::FILE* f = json_on_stdout ? stderr : stdout;
      print_text_head(f, a, ro);
      std::fflush(f);
      ro.head_shown = true;
      if ((a.chi_square_failed() || !a.lrs.passed()) && !a.settings.until_decided) {
        logger().info("the verdict is not IID whatever the permutation tests give (--until-decided skips them)");
      }
    };
  }
  Outcome outcome = Outcome::error();
  obs.finished = [&](size_t, const Item& it, ItemResult& r) {
    r.message = worded(r.message, r.remedy);
    // Whatever ended while a signal was pending (an EINTR, a stopped round, a result that came
    // as the signal did) is the interrupt: nothing is shown or written, an earlier -o is kept.
    if (interrupt.load()) return;
    warn_stream_range(o, it, r);
    if (!r.assessed()) {
      logger().error("{}", r.message);
    } else {
      // (Run as ea_non_iid, NIST's text carries its own warnings.)
      for (const auto& [label, w] : r.warnings()) {
        if (o.nist_compat) continue;
        if (ro.nist_format && warning_in_nist_text(w)) continue;  // NIST's text has it, in its place
        if (r.restart()) {
          logger().warn("{}: {}", label, w);
        } else {
          logger().warn("{}", w);
        }
      }
      // -o - writes the JSON to standard output: the text goes to standard error then.
      print_result_text(json_on_stdout ? stderr : stdout, r, ro);
      flush_checked(json_on_stdout ? stderr : stdout, json_on_stdout ? "standard error" : "standard output");
    }
    const Record record = record_of(r, it.path, -1, ro);
    if (o.json_path) {
      try {
        write_file_atomically(*o.json_path, dump_json(record.json, 2) + "\n", inputs, "-o");
      } catch (const std::exception& e) {
        if (r.assessed()) throw;
        logger().error("{}", e.what());
      }
    }
    Tally t;
    t.add(record);
    outcome = outcome_of(t);
  };
  const RunSummary sum = engine.run(items, settings, RunPlan{1, 0}, interrupt, obs);
  if (sum.interrupted) {
    std::fprintf(stderr, "\n");
    logger().error("interrupted; no result");
    return Outcome::interrupted();
  }
  if (!sum.stopped_by.empty()) throw Error(ErrorKind::Internal, sum.stopped_by);
  return outcome;
}

// --write-symbols: the file read with the run's format and rule, its symbols written whole
// (one byte each) before the assessment; the file is read again, so not a stream.
void write_symbols(const Options& o, const Settings& s, const InputSet& inputs, const std::atomic<bool>& interrupt) {
  if (o.file == kStdinPath || s.allow_stream) {
    throw Error(ErrorKind::Usage, "--write-symbols reads the sample file twice (once to write the symbols): give a "
                                  "regular file, not standard input or --allow-stream");
  }
  LoadOptions load;
  load.width = s.width;
  load.subset = o.subset;
  load.sample_input = s.sample_input;
  load.threads = s.threads;
  load.interrupt = &interrupt;
  const Dataset d = load_dataset(o.file, load);
  const std::string symbols(d.raw.begin(), d.raw.end());
  if (same_symbols_there(*o.write_symbols, symbols, o.jsonl_force, "--write-symbols")) {
    logger().info("--write-symbols: {} already holds these {} symbols of {} bits (left as it is)", *o.write_symbols,
                  d.raw.size(), d.width);
    return;
  }
  write_file_atomically(*o.write_symbols, symbols, inputs, "--write-symbols");
  logger().info("--write-symbols: {} symbols of {} bits written to {}", d.raw.size(), d.width, *o.write_symbols);
}

// ---- several items: --jsonl, -o DIR/, the summary table ------------------------------

std::string basename_of(const std::string& p) {
  auto slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// -o names a folder in batch mode: checked, and every name checked, before any work.
// Returns each item's output path ("" for skipped items).
std::vector<std::string> output_paths(const std::string& dir, const std::vector<Item>& items, const InputSet& inputs) {
  if (dir == "-") {
    throw Error(ErrorKind::Usage, "-o -: with several assessments -o names a folder; --jsonl - writes every result to "
                                  "standard output");
  }
  std::string out_dir = dir;
  struct stat st {};
  if (::stat(out_dir.c_str(), &st) != 0 && errno == ENOTDIR) {
    throw Error(ErrorKind::Output, "-o " + out_dir + ": a part of this path is a file, not a folder");
  }
  if (::stat(out_dir.c_str(), &st) != 0) {
    if (out_dir.empty() || out_dir.back() != '/') {
      throw Error(ErrorKind::Usage, "-o " + out_dir + ": with several assessments -o names a folder (end it with '/')");
    }
    if (::mkdir(out_dir.c_str(), 0777) != 0 && errno != EEXIST) {
      throw Error(ErrorKind::Output, "-o " + out_dir + ": cannot create the output folder: " + std::strerror(errno));
    }
    if (::stat(out_dir.c_str(), &st) != 0) {
      throw Error(ErrorKind::Output, "-o " + out_dir + ": cannot access the output folder: " + std::strerror(errno));
    }
  }
  if (!S_ISDIR(st.st_mode)) {
    throw Error(ErrorKind::Output, "-o " + out_dir + ": exists and is not a folder; with several assessments -o names a folder");
  }
  if (out_dir.back() != '/') out_dir += '/';
  std::vector<std::string> paths(items.size());
  // Inputs with one base name in different folders (a/x.bin, b/x.bin): each name gets the
  // first 8 hex digits of the SHA-256 of its path as given, so no file overwrites another.
  std::map<std::string, std::set<std::string>> folders_of;
  for (const auto& it : items) folders_of[basename_of(it.path)].insert(it.path);
  auto short_hash = [](const std::string& text) { return to_hex(sha256(text)).substr(0, 8); };
  std::map<std::string, size_t> first_of;
  for (size_t k = 0; k < items.size(); ++k) {
    if (!items[k].skipped.empty()) continue;
    std::string name = basename_of(items[k].path);
    if (folders_of[name].size() > 1) name += "." + short_hash(items[k].path);
    if (items[k].block >= 0) name += ".block" + std::to_string(items[k].block);
    paths[k] = out_dir + name + ".json";
    auto [at, fresh] = first_of.emplace(paths[k], k);
    if (!fresh && items[at->second].path != items[k].path) {
      throw Error(ErrorKind::Output, "-o " + out_dir + ": " + items[at->second].path + " and " + items[k].path +
                                         " would both be written to " + paths[k] +
                                         "; rename one, run them separately, or use --jsonl");
    }
    struct stat target {};
    if (::stat(paths[k].c_str(), &target) == 0) {
      if (const std::string* in = inputs.find(target)) {
        throw Error(ErrorKind::Output, "-o " + paths[k] + ": is the input file " + *in + "; ea_iid never writes over an input");
      }
    }
  }
  return paths;
}

}  // namespace

bool batch_document(const Options& o) {
  if (!o.batch() || !o.json_path || *o.json_path == "-" || o.json_path->empty() || o.json_path->back() == '/') return false;
  struct stat st {};
  return !(::stat(o.json_path->c_str(), &st) == 0 && S_ISDIR(st.st_mode));
}

std::string single_json_path(const Options& o, const InputSet& inputs) {
  const std::string& path = *o.json_path;
  struct stat st {};
  const bool folder = path != "-" && ((!path.empty() && path.back() == '/') ||
                                      (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)));
  if (!folder) return path;
  return output_paths(path, expand_items(o.files, o.subset, o.blocks, o.keep_short), inputs).front();
}

namespace {

// Where a row stands in the whole list (its JSONL field "run"): what `ea_iid merge` needs to
// put the shares of a job array back together.
struct ListPosition {
  std::vector<size_t> index;  // of each item run, in the whole list
  size_t items = 0;           // the whole list
  std::optional<std::pair<uint64_t, uint64_t>> shard;
  // --resume: rows of an earlier run kept for items of this list (index in the whole list).
  std::vector<std::pair<size_t, Record>> kept;
  std::string list;      // digest of the whole expanded list (list_digest)
  uint64_t user_seed = 0;  // the run's --seed, recorded in every row (errors and skipped ones too)
};

// The SHA-256 of the whole expanded list, before any share is taken: every item's path,
// block and range. Shares of one command line share it; merge refuses rows of another list.
std::string list_digest(const std::vector<Item>& items) {
  Sha256 h;
  for (const Item& it : items) {
    const std::string line = it.path + '\0' + std::to_string(it.block) + '\0' +
                             (it.subset ? std::to_string(it.subset->index) + "," + std::to_string(it.subset->count) : "") +
                             '\n';
    h.update(line.data(), line.size());
  }
  return to_hex(h.finish());
}

nlohmann::ordered_json run_json(const ListPosition& pos, size_t k) {
  nlohmann::ordered_json j;
  j["item"] = pos.index[k];
  j["items"] = pos.items;
  j["list"] = pos.list;
  j["userSeed"] = std::to_string(pos.user_seed);
  if (pos.shard) {
    j["shard"] = {{"index", pos.shard->first}, {"count", pos.shard->second}};
  } else {
    j["shard"] = nullptr;
  }
  return j;
}

// The workers of a batch: K of them, each with its own device slot (GPU buffers and CUDA
// stream, rebound to every data set): while one assessment's rounds run on the GPU, the
// others load, estimate, test chi-square and LRS, or compress on the CPU. With several GPUs
// (--gpu 0,1 or all), 8 workers for each distinct one.
int batch_jobs(const Options& o, const Settings& settings) {
  if (o.jobs > 0) return o.jobs;
  const int distinct_gpus = static_cast<int>(std::set<int>(settings.gpus.begin(), settings.gpus.end()).size());
  return settings.device != DeviceChoice::Cpu && gpu_count() > 0 ? 8 * std::max(1, distinct_gpus) : 1;
}

// What each worker of a batch is doing, for the progress bar on a terminal: assessments
// done/total, the current file, the rate, elapsed and estimated time.
class ProgressBoard {
 public:
  // `kept`: rows --resume kept from an earlier run, counted as done ([kept + k/kept + items]).
  ProgressBoard(int jobs, size_t items, size_t kept) : status_(static_cast<size_t>(jobs)), items_(items), kept_(kept) {}

  void attach(RunObserver& obs) {
    obs.started = [this](int w, const Item& it) {
      std::lock_guard<std::mutex> lock(m_);
      status_[static_cast<size_t>(w)] = Status{it.label(), "loading", 0, 0, true};
    };
    obs.progress = [this](int w, const char* phase, uint32_t n, int active, uint32_t) {
      std::lock_guard<std::mutex> lock(m_);
      auto& st = status_[static_cast<size_t>(w)];
      st.phase = phase;
      st.permutations = n;
      st.active = active;
    };
    obs.idle = [this](int w) {
      std::lock_guard<std::mutex> lock(m_);
      status_[static_cast<size_t>(w)].busy = false;
    };
  }
  void finished(uint64_t permutations) {
    ++finished_;
    permutations_ += permutations;
  }
  size_t done() const { return finished_; }
  // The progress in the whole list: rows kept by --resume count as done.
  std::string counter() const { return "[" + std::to_string(kept_ + finished_) + "/" + std::to_string(kept_ + items_) + "]"; }
  void draw() const {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string current;
    int others = 0;
    {
      std::lock_guard<std::mutex> lock(m_);
      for (const auto& st : status_) {
        if (!st.busy) continue;
        if (!current.empty()) {
          ++others;
          continue;
        }
        current = st.label + ": " + st.phase;
        if (st.permutations) {
          current += " " + std::to_string(st.permutations) + ", " + std::to_string(st.active) + " undecided";
        }
      }
    }
    std::string eta;
    if (finished_) {
      eta = ", about " + std::to_string(static_cast<long>(elapsed / finished_ * (items_ - finished_))) + " s left";
    }
    const double rate = elapsed > 0 ? static_cast<double>(permutations_) / elapsed : 0;
    std::fprintf(stderr, "\r\033[K%s %s%s | %.0f permutations/s | %.0f s elapsed%s", counter().c_str(),
                 current.c_str(), others ? (" (+" + std::to_string(others) + " running)").c_str() : "", rate, elapsed,
                 eta.c_str());
    std::fflush(stderr);
  }

 private:
  struct Status {
    std::string label, phase;
    uint32_t permutations = 0;
    int active = 0;
    bool busy = false;
  };
  mutable std::mutex m_;
  std::vector<Status> status_;
  size_t items_, kept_, finished_ = 0;
  uint64_t permutations_ = 0;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The outputs of a batch: the --jsonl lines and -o DIR/ files as each item finishes, then
// the --csv and --html files and the summary table. Every one of them is made from the
// items' records (new, or kept by --resume).
class BatchOutputs {
 public:
  BatchOutputs(const Options& o, const ReportOptions& ro, const InputSet& inputs, const std::vector<Item>& items,
               const ListPosition& position)
      : o_(o), ro_(ro), inputs_(inputs), position_(position) {
    document_ = batch_document(o);
    out_paths_ = o.json_path && !document_ ? output_paths(*o.json_path, items, inputs)
                                           : std::vector<std::string>(items.size());
    for (const auto& p : out_paths_) {  // -o DIR/'s files against the other outputs
      if (p.empty()) continue;
      check_output_path(p, inputs, "-o");  // a link, a FIFO, ... at DIR/NAME.json: refused now
      if (!o.resume) check_replaceable(p, o.jsonl_force, "-o");
      std::vector<std::pair<std::string, std::string>> outputs{{"-o", p}};
      if (o.jsonl_path) outputs.emplace_back("--jsonl", *o.jsonl_path);
      if (o.csv_path) outputs.emplace_back("--csv", *o.csv_path);
      if (o.html_path) outputs.emplace_back("--html", *o.html_path);
      check_distinct_outputs(outputs);
    }
    // The report files are written at the end; whether they can be is checked now.
    for (const auto* path : {&o.csv_path, &o.html_path}) {
      if (*path) check_output_path(**path, inputs, path == &o.csv_path ? "--csv" : "--html");
    }
    if (o.jsonl_path) {
      const auto existing = o.jsonl_append || o.resume ? JsonlWriter::Existing::Append
                            : o.jsonl_force            ? JsonlWriter::Existing::Truncate
                                                       : JsonlWriter::Existing::Refuse;
      jsonl_ = std::make_unique<JsonlWriter>(*o.jsonl_path, existing, inputs);
    }
    for (const auto& [index, record] : position.kept) {
      rows_.emplace_back(index, record);
      tally_.add(record);
    }
    if (!position.kept.empty()) logger().info("--resume: {} items kept from the earlier run", position.kept.size());
  }
  // The summary table: standard error when an output goes to standard output.
  std::FILE* table() const {
    const bool stdout_taken = (jsonl_ && jsonl_->is_stdout()) || (o_.csv_path && *o_.csv_path == "-") ||
                              (o_.html_path && *o_.html_path == "-");
    return stdout_taken ? stderr : stdout;
  }

  // Writes one finished item. A write that fails makes that item an error; the batch goes on.
  // Returns its summary row's verdict.
  std::string write(size_t k, const Item& it, const ItemResult& r) {
    if (r.status == ItemResult::Status::Skipped) {
      logger().info("{}: {}", it.label(), r.message);
    } else if (!r.assessed()) {
      logger().error("{}", block_error(it, r.message));
    } else if (!r.restart()) {
      // A warning many items share (--iterations, short blocks) is said in full for the
      // first one only; the end of the batch counts them (every row's JSON keeps its own).
      for (const auto& [label, w] : r.warnings()) {
        if (warned_[w]++ == 0) logger().warn("{}: {}", label, w);
      }
    }
    Record record = record_of(r, it.path, it.block, ro_);
    record.json["run"] = run_json(position_, k);
    try {
      if (jsonl_) jsonl_->write_line(dump_json(record.json));
      if (!out_paths_[k].empty() && r.status != ItemResult::Status::Skipped) {
        write_file_atomically(out_paths_[k], dump_json(record.json, 2) + "\n", inputs_, "-o");
      }
    } catch (const Error& e) {
      logger().error("{}", e.what());
      write_failed_ = true;
      record.row.verdict = std::string("error: ") + e.what();
    }
    tally_.add(record);
    std::string verdict = record.row.verdict;
    rows_.emplace_back(position_.index[k], std::move(record));
    return verdict;
  }

  // The --csv and --html files and the summary table, in list order.
  void finish(bool quiet) {
    if (jsonl_) {
      try {
        jsonl_->close();
      } catch (const Error& e) {
        logger().error("{}", e.what());
        write_failed_ = true;
      }
    }
    std::sort(rows_.begin(), rows_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<nlohmann::ordered_json> ordered;
    for (const auto& r : rows_) ordered.push_back(r.second.json);
    rejections_ = count_rejections(ordered);
    counts_ = verdict_counts(ordered);
    if (document_) {
      try {
        write_file_atomically(*o_.json_path, dump_json(batch_json(ordered, ro_), 2) + "\n", inputs_, "-o");
      } catch (const Error& e) {
        logger().error("{}", e.what());
        write_failed_ = true;
      }
    }
    if (o_.csv_path || o_.html_path) {
      try {
        if (o_.csv_path) write_file_atomically(*o_.csv_path, csv_report(ordered), inputs_, "--csv");
        if (o_.html_path) write_file_atomically(*o_.html_path, html_report(ordered, o_.command_line), inputs_, "--html");
      } catch (const Error& e) {
        logger().error("{}", e.what());
        write_failed_ = true;
      }
    }
    std::vector<Row> table_rows;
    for (const auto& r : rows_) table_rows.push_back(r.second.row);
    if (!quiet) print_summary(table(), table_rows);
    if (!quiet && rejections_ && rejections_->items >= 2) print_rejections(table(), *rejections_);
  }
  // The last line: "1000 items: 991 IID, 9 not IID (at most 25.8 expected by chance for IID
  // data)", and what went wrong, if anything.
  // The warnings said once, with the number of items that had each.
  void repeated_warnings() const {
    for (const auto& [w, n] : warned_) {
      if (n > 1) logger().warn("{} items: {}", n, w);
    }
  }
  std::string last_line(bool any_error) const {
    std::string line = std::to_string(rows_.size()) + (rows_.size() == 1 ? " item" : " items");
    if (!counts_.empty()) line += ": " + with_expected_by_chance(counts_, rejections_);
    const std::string special = summary_line(tally_, rows_.size(), any_error);
    if (any_error || tally_.results == 0) line += (counts_.empty() ? ": " : "; ") + special;
    return line;
  }
  size_t rows() const { return rows_.size(); }
  // An error other than a degenerate source's (those make exit 5, through outcome_of).
  bool any_error() const { return write_failed_ || tally_.errors > tally_.degenerate; }
  const Tally& tally() const { return tally_; }

 private:
  const Options& o_;
  const ReportOptions& ro_;
  const InputSet& inputs_;
  const ListPosition& position_;
  std::vector<std::string> out_paths_;
  std::unique_ptr<JsonlWriter> jsonl_;
  std::vector<std::pair<size_t, Record>> rows_;  // (index in the whole list, record)
  Tally tally_;
  std::optional<Rejections> rejections_;
  std::map<std::string, size_t> warned_;  // each warning's text and the items that had it
  bool document_ = false;                  // -o FILE.json: the batch's one document
  std::string counts_;
  bool write_failed_ = false;
};

Outcome run_batch(Engine& engine, const Options& o, const Settings& settings, const ReportOptions& ro,
                  const InputSet& inputs, const std::vector<Item>& items, const ListPosition& position,
                  const std::atomic<bool>& interrupt, const std::atomic<int>& signal_number) {
  BatchOutputs out(o, ro, inputs, items, position);
  std::FILE* table = out.table();
  const bool bar = !o.quiet && ::isatty(STDERR_FILENO);
  const int jobs = batch_jobs(o, settings);
  // The CPU cores are divided among the workers unless --threads says how many each takes
  // (each worker running all of them made 16 workers x 32 threads fight for 32 cores).
  const RunPlan plan{jobs, o.threads <= 0 ? std::max(1, settings.threads / jobs) : settings.threads};
  logger().debug("batch of {} assessments, {} at a time, {} CPU threads each", items.size(), jobs, plan.threads_each);

  ProgressBoard board(jobs, items.size(), position.kept.size());
  RunObserver obs;
  obs.note = note_logger(o);
  board.attach(obs);
  obs.finished = [&](size_t k, const Item& it, ItemResult& r) {
    r.message = worded(r.message, r.remedy);
    warn_stream_range(o, it, r);
    const std::string verdict = out.write(k, it, r);
    board.finished(r.assessed() ? r.permutations_run() : 0);
    if (bar) std::fprintf(stderr, "\r\033[K");
    if (r.status != ItemResult::Status::Skipped) {
      logger().info("{} {}: {} ({} s)", board.counter(), it.label(), verdict_for_line(it, verdict),
                    fmt("%.2f", r.seconds));
    }
  };
  if (bar) obs.tick = [&board] { board.draw(); };

  const RunSummary sum = engine.run(items, settings, plan, interrupt, obs);
  if (bar) std::fprintf(stderr, "\r\033[K");
  if (!sum.stopped_by.empty()) logger().error("{}", sum.stopped_by);
  out.repeated_warnings();
  out.finish(o.quiet);
  if (sum.interrupted) {
    const int sig = signal_number.load();
    std::FILE* where = o.quiet ? stderr : table;  // -q: nothing on standard output
    std::fprintf(where, "Incomplete: interrupted by %s after %zu of %zu assessments\n",
                 sig == SIGTERM ? "SIGTERM" : "SIGINT", board.done(), items.size());
    std::fflush(where);
    return Outcome::interrupted();
  }
  const bool any_error = out.any_error() || !sum.stopped_by.empty();
  if (!sum.stopped_by.empty()) {
    std::fprintf(o.quiet ? stderr : table, "Incomplete: stopped by an error after %zu of %zu assessments\n", board.done(),
                 items.size());  // (-q: nothing on standard output)
  } else if (!o.quiet) {
    std::fprintf(table, "%s\n", out.last_line(any_error).c_str());
  }
  flush_checked(table, table == stderr ? "standard error" : "standard output");
  if (any_error) return Outcome::error();
  return outcome_of(out.tally());
}

}  // namespace

namespace {

// Why an earlier complete row of this item cannot be kept with `s` ("" when it can): every
// setting that changes results (settings_fields) against the row's record, and the range.
std::string mismatch(const Record& row, const Item& it, const Settings& s) {
  const bool non_iid = row.kind == Record::Kind::NonIid;
  if (non_iid != (s.track == TrackChoice::NonIid)) return "--non-iid was given to one of the runs only";
  std::string differ;  // every setting that differs, not only the first
  for (const SettingField& f : settings_fields()) {
    const char* path = f.record_in(non_iid);
    if (f.effect != SettingEffect::Result || !path) continue;
    const std::string now = f.value(s);
    const std::string was = recorded_setting(row.json, f, path);
    if (!now.empty() && was != now) {
      differ += (differ.empty() ? "" : "; ") + setting_in_record(f, path) + " was " + was + ", now " + now;
    }
  }
  if (!differ.empty()) return differ;
  const auto& subset = row.json["input"]["subset"];
  const bool same_subset = subset.is_null() ? !it.subset
                                            : it.subset && subset["index"].get<uint64_t>() == it.subset->index &&
                                                  subset["count"].get<uint64_t>() == it.subset->count;
  if (!same_subset) return "the -l range or --blocks size differs";
  return "";
}

// The rows of an earlier run: the --jsonl file's, or the -o DIR/ files' (one per item,
// absent or unreadable ones skipped).
struct EarlierRows {
  JsonlRows jsonl;
  std::vector<std::optional<Record>> files;  // -o DIR/: by item
  std::vector<std::string> paths;            // -o DIR/: each item's file
  bool from_jsonl = false;
};

EarlierRows read_earlier(const Options& o, const std::vector<std::string>& out_paths, Interrupt interrupt) {
  EarlierRows e;
  e.from_jsonl = o.jsonl_path.has_value();
  if (e.from_jsonl && *o.jsonl_path == "-") throw Error(ErrorKind::Usage, "--resume cannot continue standard output");
  if (e.from_jsonl && descriptor_of(*o.jsonl_path) >= 0) {
    throw Error(ErrorKind::Usage, "--resume cannot continue --jsonl " + *o.jsonl_path + ", a descriptor: name the file");
  }
  if (e.from_jsonl) {
    e.jsonl = read_jsonl_rows(*o.jsonl_path, interrupt);
    return e;
  }
  e.files.resize(out_paths.size());
  e.paths = out_paths;
  for (size_t k = 0; k < out_paths.size(); ++k) {
    if (out_paths[k].empty()) continue;
    struct stat st {};
    if (::stat(out_paths[k].c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // never wait on a FIFO
    std::ifstream in(out_paths[k]);
    auto j = nlohmann::ordered_json::parse(in, nullptr, false);
    if (in && !j.is_discarded() && j.is_object()) e.files[k] = read_record(std::move(j), out_paths[k]);
  }
  return e;
}

// Without --seed: the earlier run's (empty when it recorded none).
std::optional<uint64_t> earlier_seed(const EarlierRows& e) {
  std::optional<std::string> seed;
  auto adopt = [&seed](const Record& r) {
    if (!r.user_seed) return;
    if (seed && *seed != *r.user_seed) {
      throw Error(ErrorKind::Input, "--resume: the earlier rows have different seeds; give --seed");
    }
    seed = r.user_seed;
  };
  for (const auto& r : e.jsonl.rows) adopt(r);
  for (const auto& r : e.files)
    if (r) adopt(*r);
  if (!seed) return std::nullopt;
  return std::stoull(*seed);
}

}  // namespace

// --resume: every earlier row's "run" checked as merge checks it (check_same_run), against
// this run's list digest, seed, length and shares.
static void check_earlier_runs(const Settings& settings, const EarlierRows& earlier, const ListPosition& position,
                               const std::function<std::string(size_t)>& where) {
  RunIdentity run;
  run.list = position.list;
  run.seed = std::to_string(settings.seed);
  run.items = position.items;
  run.shares = position.shard ? position.shard->second : 1;
  run.set_by = "this run's";
  for (size_t r = 0; r < earlier.jsonl.rows.size(); ++r) check_same_run(earlier.jsonl.rows[r], where(r), run, "--resume");
  for (size_t k = 0; k < earlier.files.size(); ++k) {
    if (earlier.files[k]) check_same_run(*earlier.files[k], earlier.paths[k], run, "--resume");
  }
}

// --resume: the rows of the earlier run (the --jsonl file, else the -o DIR/ files) that are
// complete for items of this list are kept, those items leave the list; a cut-off last line
// and error rows of items to run again are dropped from the --jsonl file (rewritten
// atomically, every other row kept). Rows written with other options, or for a file that
// changed since, stop the run with an error rather than mixing results.
static void prepare_resume(const Options& o, const Settings& settings, const EarlierRows& earlier,
                           std::vector<Item>& items, ListPosition& position, const InputSet& inputs) {
  const auto& rows = earlier.jsonl.rows;
  std::map<std::pair<std::string, int64_t>, size_t> by_item;  // the earlier rows by (path, block)
  const auto where = [&](size_t r) { return *o.jsonl_path + ":" + std::to_string(earlier.jsonl.lines[r]); };
  check_earlier_runs(settings, earlier, position, where);
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto [at, fresh] = by_item.emplace(std::make_pair(rows[r].path, rows[r].block), r);
    if (!fresh) {
      throw Error(ErrorKind::Input, "--resume: " + where(r) + ": a second row for " + rows[r].path +
                                        (rows[r].block >= 0 ? " block " + std::to_string(rows[r].block) : "") +
                                        " (the first is line " + std::to_string(earlier.jsonl.lines[at->second]) +
                                        "); keep one of them");
    }
  }
  std::vector<bool> listed(rows.size(), false);
  std::map<std::string, std::string> file_sha;  // path -> SHA-256 now
  std::vector<bool> drop(rows.size(), false);
  std::vector<Item> rest;
  std::vector<size_t> rest_index;
  for (size_t k = 0; k < items.size(); ++k) {
    const Item& it = items[k];
    const Record* row = nullptr;
    size_t r = 0;
    if (earlier.from_jsonl) {
      auto at = by_item.find({it.path, it.block});
      if (at != by_item.end()) {
        row = &rows[r = at->second];
        listed[r] = true;
      }
    } else if (earlier.files[k]) {
      row = &*earlier.files[k];
    }
    if (row && row->run->item != position.index[k]) {
      throw Error(ErrorKind::Input, "--resume: " + (earlier.from_jsonl ? where(r) : earlier.paths[k]) + ": run.item " +
                                        std::to_string(row->run->item) + " differs from this run's " +
                                        std::to_string(position.index[k]) + " for " + it.label());
    }
    bool keep = false;
    if (row && row->kind == Record::Kind::Skipped) {
      keep = !it.skipped.empty();
    } else if (row && (row->kind == Record::Kind::Assessment || row->kind == Record::Kind::NonIid)) {
      const std::string why = mismatch(*row, it, settings);
      if (!why.empty()) {
        throw Error(ErrorKind::Usage, "--resume: " + it.label() + " has a result written with other options (" + why +
                                          "); run with the same options, or write to another file");
      }
      auto sha = file_sha.find(it.path);
      if (sha == file_sha.end()) sha = file_sha.emplace(it.path, fingerprint_file(it.path).sha256).first;
      const std::string was = row->json["sha256"].get<std::string>();
      if (was != sha->second) {
        throw Error(ErrorKind::Input, "--resume: " + it.path + " changed since its results were written (SHA-256 " +
                                          was + ", now " + sha->second + ")");
      }
      keep = true;
    }
    if (keep) {
      position.kept.emplace_back(position.index[k], *row);
    } else {
      if (row && earlier.from_jsonl) drop[r] = true;  // an error row: assessed again
      rest.push_back(it);
      rest_index.push_back(position.index[k]);
    }
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!listed[r]) {
      throw Error(ErrorKind::Input, "--resume: " + where(r) + ": " + rows[r].path +
                                        (rows[r].block >= 0 ? " block " + std::to_string(rows[r].block) : "") +
                                        " is not an item of this run's list; resume with the same files and options, "
                                        "or write to another file");
    }
  }
  items = std::move(rest);
  position.index = std::move(rest_index);
  const size_t dropped = static_cast<size_t>(std::count(drop.begin(), drop.end(), true));
  if (earlier.from_jsonl && (earlier.jsonl.torn || dropped)) {
    std::string text;
    for (size_t r = 0; r < rows.size(); ++r) {
      if (!drop[r]) text += dump_json(rows[r].json) + "\n";
    }
    rewrite_jsonl(*o.jsonl_path, earlier.jsonl.bytes, text, inputs);
    logger().info("--resume: {}{} error rows to assess again dropped from {}",
                  earlier.jsonl.torn ? "a cut-off last line and " : "", dropped, *o.jsonl_path);
  }
}

ReportOptions report_options(const Options& o, const std::string& started) {
  ReportOptions ro;
  ro.started = started;
  ro.command_line = o.command_line;
  ro.first_file = o.file;
  ro.track = track_of(o.settings);
  ro.verbose = o.verbose;
  ro.nist_format = o.format == TextFormat::Nist;
  ro.quiet = o.quiet;
  if (o.nist_compat || ro.nist_format) {  // NIST's levels, one for one: its -q still prints its warnings
    ro.nist_level = o.quiet ? 0 : 1 + o.verbose;
    ro.quiet = false;
    ro.nist_stderr = stderr;  // NIST's "igamc: UNDERFLOW" is on its standard error
  }
  ro.timing = o.timing;
  return ro;
}

Settings resolve_settings(const Options& o, std::optional<uint64_t> earlier_seed) {
  const bool random = draws_random_numbers(o.settings);  // the one rule of the seed (settings_rules.hpp)
  if (o.resume && !o.seed && !earlier_seed && random) {
    throw Error(ErrorKind::Usage, "--resume: no earlier row records the run's seed (it stopped before its first row, "
                                  "or the file is new); give --seed");
  }
  Settings settings = o.settings;
  // A run that draws no random numbers (the non-IID track, restart tests for a non-IID claim
  // with the exact cutoff): without --seed its rows record 0, so that the shares of one run agree.
  const bool drawn = !o.seed && !earlier_seed && random;
  settings.seed = o.seed ? *o.seed : earlier_seed ? *earlier_seed : random ? os_seed() : 0;
  settings.threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  if (!o.seed && earlier_seed) logger().info("--resume: --seed {} (the earlier run's)", settings.seed);
  // The seed is logged at info with -v, at debug otherwise.
  const auto detail = (!o.quiet && o.verbose >= 1) ? spdlog::level::info : spdlog::level::debug;
  if (random || o.seed) {  // the non-IID estimates use no random numbers
    logger().log(detail, "--seed {}{}", settings.seed, drawn ? " (drawn from the OS; pass --seed to repeat this run)" : "");
  }
  return settings;
}

Outcome run_assessments(Engine& engine, const Options& o, const std::string& started, const InputSet& inputs,
                        const std::atomic<bool>& interrupt, const std::atomic<int>& signal_number) {
  require_gpus(o.settings, cli_setting_names());
  const ReportOptions ro = report_options(o, started);
  std::vector<Item> items =
      expand_items(o.files, o.subset, o.blocks, o.keep_short, sample_bytes(o.settings.sample_input.format));
  if (!o.batch()) {
    const Settings settings = resolve_settings(o, std::nullopt);
    if (o.write_symbols) write_symbols(o, settings, inputs, interrupt);
    return run_single(engine, o, settings, ro, inputs, items, interrupt);
  }
  ListPosition position;
  position.items = items.size();
  position.shard = o.shard;
  position.list = list_digest(items);
  if (o.shard) {
    position.index = share_of(items, o.shard->first, o.shard->second);
    std::vector<Item> mine;
    for (size_t i : position.index) mine.push_back(items[i]);
    items = std::move(mine);
    logger().info("share {}/{}: {} of {} items", o.shard->first, o.shard->second, items.size(), position.items);
  } else {
    for (size_t i = 0; i < items.size(); ++i) position.index.push_back(i);
  }
  if (!o.resume) {
    const Settings settings = resolve_settings(o, std::nullopt);
    position.user_seed = settings.seed;
    return run_batch(engine, o, settings, ro, inputs, items, position, interrupt, signal_number);
  }
  if (batch_document(o) && !o.jsonl_path) {
    throw Error(ErrorKind::Usage, "--resume continues --jsonl PATH or -o DIR/; -o " + *o.json_path +
                                      " is one document written whole at the end (add --jsonl PATH to resume)");
  }
  const std::vector<std::string> out_paths = o.json_path && !batch_document(o) ? output_paths(*o.json_path, items, inputs)
                                                                               : std::vector<std::string>(items.size());
  const EarlierRows earlier = read_earlier(o, out_paths, &interrupt);
  const Settings settings = resolve_settings(o, o.seed ? std::nullopt : earlier_seed(earlier));
  position.user_seed = settings.seed;
  prepare_resume(o, settings, earlier, items, position, inputs);
  return run_batch(engine, o, settings, ro, inputs, items, position, interrupt, signal_number);
}

}  // namespace ea::cli
