#include "run.hpp"

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
#include <vector>

#include <openssl/evp.h>

#include "common/error.hpp"
#include "logging.hpp"
#include "report.hpp"
#include "report_files.hpp"
#include "runner.hpp"
#include "summary.hpp"

namespace ea::cli {

namespace {

// Informational notes of the library (device choice): at info with -v, at debug otherwise.
std::function<void(const std::string&)> note_logger(const Options& o) {
  const auto detail = (!o.quiet && o.verbose >= 1) ? spdlog::level::info : spdlog::level::debug;
  return [detail](const std::string& m) { logger().log(detail, "{}", m); };
}

// ---- one item: the text report on stdout, -o FILE ----------------------------------

Outcome run_single(const Options& o, const Settings& settings, const std::string& started, const InputSet& inputs,
                   const std::vector<Item>& items, const std::atomic<bool>& interrupt) {
  RunObserver obs;
  obs.note = note_logger(o);
  if (!o.quiet && ::isatty(STDERR_FILENO)) {
    auto last = std::make_shared<std::chrono::steady_clock::time_point>();
    const uint32_t iterations = settings.iterations;
    obs.progress = [last, iterations](int, const char* phase, uint32_t done, int active) {
      auto now = std::chrono::steady_clock::now();
      if (active > 0 && done < iterations && now - *last < std::chrono::milliseconds(200)) return;
      *last = now;
      std::fprintf(stderr, "\r\033[K%s: %u/%u permutations, %d undecided", phase, done, iterations, active);
      if (active == 0 || done >= iterations) std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
    };
  } else if (!o.quiet && o.verbose >= 1) {
    // No terminal (a log, CI): a line per round, at most one a second (and the last).
    const uint32_t iterations = settings.iterations;
    auto last = std::make_shared<std::chrono::steady_clock::time_point>();
    obs.progress = [iterations, last](int, const char* phase, uint32_t done, int active) {
      const auto now = std::chrono::steady_clock::now();
      if (active > 0 && done < iterations && now - *last < std::chrono::seconds(1)) return;
      *last = now;
      logger().info("{}: {}/{} permutations, {} test{} undecided", phase, done, iterations, active,
                    active == 1 ? "" : "s");
    };
  }
  Outcome outcome = Outcome::error();
  obs.finished = [&](size_t, const Item& it, ItemResult& r) {
    if (r.status != ItemResult::Status::Assessed) {
      // Whatever failed while a signal was pending (an EINTR, a stopped round) is the interrupt.
      if (interrupt.load()) return;
      logger().error("{}", r.message);
      if (o.json_path) {
        try {
          write_file_atomically(*o.json_path, error_json(o, started, r.message, r.error_kind, r.sha256, &it.path).dump(2) + "\n", inputs, "-o");
        } catch (const std::exception& e) {
          logger().error("{}", e.what());
        }
      }
      outcome = Outcome::error();
      return;
    }
    if (r.restart) {
      const RestartAssessment& rs = *r.restart;
      for (const Assessment* part : {rs.rows ? &*rs.rows : nullptr, rs.columns ? &*rs.columns : nullptr}) {
        if (part) for (const auto& w : part->warnings) logger().warn("{}: {}", part->path, w);
      }
      print_restart_text(stdout, rs, o);
      flush_checked(stdout, "standard output");
      if (o.json_path) write_file_atomically(*o.json_path, restart_json(rs, o, started).dump(2) + "\n", inputs, "-o");
      outcome = Outcome{};
      outcome.add(rs.verdict() == Verdict::NotIid, rs.verdict() == Verdict::Inconclusive, !rs.for_compliance());
      return;
    }
    const Assessment& a = *r.assessment;
    for (const auto& w : a.warnings) logger().warn("{}", w);
    print_text(stdout, a, o);
    flush_checked(stdout, "standard output");
    if (o.json_path) {
      write_file_atomically(*o.json_path, assessment_json(a, o, started).dump(2) + "\n", inputs, "-o");
    }
    outcome = Outcome{};
    outcome.add(a.verdict() == Verdict::NotIid, a.verdict() == Verdict::Inconclusive, !a.for_compliance());
  };
  const RunSummary sum = run_items(items, settings, 1, interrupt, obs);
  if (sum.interrupted) {
    std::fprintf(stderr, "\n");
    logger().error("interrupted; no result");
    return Outcome::interrupted();
  }
  if (!sum.stopped_by.empty()) throw Error(ErrorKind::Internal, sum.stopped_by);
  return outcome;
}

// ---- several items: --jsonl, -o DIR/, the summary table ------------------------------

std::string basename_of(const std::string& p) {
  auto slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// -o names a folder in batch mode: checked, and every name checked, before any work.
// Returns each item's output path ("" for skipped items).
std::vector<std::string> output_paths(const std::string& dir, const std::vector<Item>& items, const InputSet& inputs) {
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
  auto short_hash = [](const std::string& text) {
    unsigned char md[32];
    unsigned int len = 0;
    if (EVP_Digest(text.data(), text.size(), md, &len, EVP_sha256(), nullptr) != 1) {
      throw Error(ErrorKind::Internal, "OpenSSL: SHA-256 failed");
    }
    char hex[9];
    std::snprintf(hex, sizeof hex, "%02x%02x%02x%02x", md[0], md[1], md[2], md[3]);
    return std::string(hex);
  };
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

// Where a row stands in the whole list (its JSONL field "run"): what `ea_iid merge` needs to
// put the shares of a job array back together.
struct ListPosition {
  std::vector<size_t> index;  // of each item run, in the whole list
  size_t items = 0;           // the whole list
  std::optional<std::pair<uint64_t, uint64_t>> shard;
  // --resume: rows of an earlier run kept for items of this list (index in the whole list).
  std::vector<std::pair<size_t, nlohmann::ordered_json>> kept;
};

nlohmann::ordered_json run_json(const ListPosition& pos, size_t k) {
  nlohmann::ordered_json j;
  j["item"] = pos.index[k];
  j["items"] = pos.items;
  if (pos.shard) {
    j["shard"] = {{"index", pos.shard->first}, {"count", pos.shard->second}};
  } else {
    j["shard"] = nullptr;
  }
  return j;
}

Outcome run_batch(const Options& o, const Settings& settings, const std::string& started, const InputSet& inputs,
                  const std::vector<Item>& items, const ListPosition& position, const std::atomic<bool>& interrupt,
                  const std::atomic<int>& signal_number) {
  using clock = std::chrono::steady_clock;
  const std::vector<std::string> out_paths = o.json_path ? output_paths(*o.json_path, items, inputs)
                                                         : std::vector<std::string>(items.size());
  // The report files are written at the end; whether they can be is checked now.
  for (const auto* path : {&o.csv_path, &o.html_path}) {
    if (*path) check_output_path(**path, inputs, path == &o.csv_path ? "--csv" : "--html");
  }
  const bool reports = o.csv_path || o.html_path;
  std::vector<std::pair<size_t, nlohmann::ordered_json>> report_rows = position.kept;
  std::unique_ptr<JsonlWriter> jsonl;
  if (o.jsonl_path) {
    const auto existing = o.jsonl_append || o.resume ? JsonlWriter::Existing::Append
                          : o.jsonl_force ? JsonlWriter::Existing::Truncate
                                          : JsonlWriter::Existing::Refuse;
    jsonl = std::make_unique<JsonlWriter>(*o.jsonl_path, existing, inputs);
  }
  std::FILE* table = (jsonl && jsonl->is_stdout()) ? stderr : stdout;
  const char* table_name = table == stderr ? "standard error" : "standard output";
  // A progress bar on a terminal: assessments done/total, current file, elapsed, estimate.
  const bool bar = !o.quiet && ::isatty(STDERR_FILENO);
  const auto batch_start = clock::now();
  // K workers, each with its own device slot (GPU buffers and CUDA stream, rebound to every
  // data set): while one assessment's rounds run on the GPU, the others load, estimate,
  // test chi-square and LRS, or compress on the CPU.
  // With several GPUs (--gpu 0,1 or all), 8 workers for each distinct one.
  const int distinct_gpus = static_cast<int>(std::set<int>(settings.gpus.begin(), settings.gpus.end()).size());
  const int jobs = o.jobs > 0 ? o.jobs
                              : (settings.device != DeviceChoice::Cpu && gpu_count() > 0 ? 8 * std::max(1, distinct_gpus) : 1);
  // The CPU cores are divided among the workers unless --threads says how many each takes
  // (each worker running all of them made 16 workers x 32 threads fight for 32 cores).
  Settings each = settings;
  if (o.threads <= 0) each.threads = std::max(1, settings.threads / jobs);
  logger().debug("batch of {} assessments, {} at a time, {} CPU threads each", items.size(), jobs, each.threads);

  struct Status {
    std::string label, phase;
    uint32_t permutations = 0;
    int active = 0;
    bool busy = false;
  };
  std::vector<Status> status(static_cast<size_t>(jobs));
  std::mutex status_mutex;
  std::vector<std::pair<size_t, Row>> rows;  // (index in the whole list, row)
  bool any_error = false, any_not_iid = false;
  Outcome verdicts;
  for (const auto& [index, json] : position.kept) {
    rows.emplace_back(index, row_of_json(json));
    if (json.contains("skipped")) continue;
    const std::string v = json["verdict"]["result"].get<std::string>();
    verdicts.add(v == "not IID", v == "inconclusive", !json["forCompliance"].get<bool>());
    any_not_iid = any_not_iid || v != "IID";
  }
  if (!position.kept.empty()) logger().info("--resume: {} items kept from the earlier run", position.kept.size());
  size_t finished = 0;
  uint64_t permutations_done = 0;  // of the finished items (the bar's rate)

  RunObserver obs;
  obs.note = note_logger(o);
  obs.started = [&](int w, const Item& it) {
    std::lock_guard<std::mutex> lock(status_mutex);
    status[w] = Status{it.label(), "loading", 0, 0, true};
  };
  obs.progress = [&](int w, const char* phase, uint32_t n, int active) {
    std::lock_guard<std::mutex> lock(status_mutex);
    status[w].phase = phase;
    status[w].permutations = n;
    status[w].active = active;
  };
  obs.idle = [&](int w) {
    std::lock_guard<std::mutex> lock(status_mutex);
    status[w].busy = false;
  };
  // Writes one finished item. A write that fails makes that item an error; the batch goes on.
  obs.finished = [&](size_t k, const Item& it, ItemResult& r) {
    Row row = row_of(it, r);
    if (r.status == ItemResult::Status::Skipped) {
      logger().info("{}: {}", it.label(), r.message);
      nlohmann::ordered_json json = skipped_json(o, started, it.path, it.block, r.message);
      json["run"] = run_json(position, k);
      if (reports) report_rows.emplace_back(position.index[k], json);
      if (jsonl) {  // the list's every item has its line
        try {
          jsonl->write_line(json.dump());
        } catch (const Error& e) {
          logger().error("{}", e.what());
          any_error = true;
          row.verdict = std::string("error: ") + e.what();
        }
      }
    } else {
      nlohmann::ordered_json json;
      if (r.status == ItemResult::Status::Failed) {
        logger().error("{}", r.message);
        json = error_json(o, started, r.message, r.error_kind, r.sha256, &it.path, it.block);
        any_error = true;
      } else if (r.restart) {
        json = restart_json(*r.restart, o, started);
        const Verdict v = r.restart->verdict();
        for (const Assessment* part : {r.restart->rows ? &*r.restart->rows : nullptr, r.restart->columns ? &*r.restart->columns : nullptr}) {
          if (part) permutations_done += part->permutation.fast_permutations + part->permutation.compression_permutations;
        }
        any_not_iid = any_not_iid || v != Verdict::Iid;
        verdicts.add(v == Verdict::NotIid, v == Verdict::Inconclusive, !r.restart->for_compliance());
      } else {
        for (const auto& w : r.assessment->warnings) logger().warn("{}: {}", it.path, w);
        json = assessment_json(*r.assessment, o, started, it.block);
        const Verdict v = r.assessment->verdict();
        permutations_done += r.assessment->permutation.fast_permutations + r.assessment->permutation.compression_permutations;
        any_not_iid = any_not_iid || v != Verdict::Iid;
        verdicts.add(v == Verdict::NotIid, v == Verdict::Inconclusive, !r.assessment->for_compliance());
      }
      json["run"] = run_json(position, k);
      if (reports) report_rows.emplace_back(position.index[k], json);
      try {
        if (jsonl) jsonl->write_line(json.dump());
        if (!out_paths[k].empty()) write_file_atomically(out_paths[k], json.dump(2) + "\n", inputs, "-o");
      } catch (const Error& e) {
        logger().error("{}", e.what());
        any_error = true;
        row.verdict = std::string("error: ") + e.what();
      }
    }
    ++finished;
    if (bar) std::fprintf(stderr, "\r\033[K");
    if (r.status != ItemResult::Status::Skipped) {
      logger().info("[{}/{}] {}: {} ({} s)", finished, items.size(), it.label(), row.verdict, row.seconds);
    }
    rows.emplace_back(position.index[k], std::move(row));
  };
  if (bar) {
    obs.tick = [&] {
      const double elapsed = std::chrono::duration<double>(clock::now() - batch_start).count();
      std::string current;
      int others = 0;
      {
        std::lock_guard<std::mutex> lock(status_mutex);
        for (const auto& st : status) {
          if (!st.busy) continue;
          if (current.empty()) {
            current = st.label + ": " + st.phase;
            if (st.permutations) {
              current += " " + std::to_string(st.permutations) + ", " + std::to_string(st.active) + " undecided";
            }
          } else {
            ++others;
          }
        }
      }
      std::string eta;
      if (finished) {
        eta = ", about " + std::to_string(static_cast<long>(elapsed / finished * (items.size() - finished))) + " s left";
      }
      const double rate = elapsed > 0 ? static_cast<double>(permutations_done) / elapsed : 0;
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %s%s | %.0f permutations/s | %.0f s elapsed%s", finished, items.size(),
                   current.c_str(), others ? (" (+" + std::to_string(others) + " running)").c_str() : "", rate, elapsed,
                   eta.c_str());
      std::fflush(stderr);
    };
  }

  const RunSummary sum = run_items(items, each, jobs, interrupt, obs);
  if (bar) std::fprintf(stderr, "\r\033[K");
  if (jsonl) {
    try {
      jsonl->close();
    } catch (const Error& e) {
      logger().error("{}", e.what());
      any_error = true;
    }
  }
  if (!sum.stopped_by.empty()) logger().error("{}", sum.stopped_by);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (reports) {
    std::sort(report_rows.begin(), report_rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<nlohmann::ordered_json> ordered;
    for (auto& r : report_rows) ordered.push_back(std::move(r.second));
    try {
      if (o.csv_path) write_file_atomically(*o.csv_path, csv_report(ordered), inputs, "--csv");
      if (o.html_path) write_file_atomically(*o.html_path, html_report(ordered, o.command_line), inputs, "--html");
    } catch (const Error& e) {
      logger().error("{}", e.what());
      any_error = true;
    }
  }
  std::vector<Row> table_rows;
  for (auto& r : rows) table_rows.push_back(std::move(r.second));
  if (!o.quiet) print_summary(table, table_rows);
  if (sum.interrupted) {
    const int sig = signal_number.load();
    std::fprintf(table, "Incomplete: interrupted by %s after %zu of %zu assessments\n",
                 sig == SIGTERM ? "SIGTERM" : "SIGINT", finished, items.size());
    std::fflush(table);
    return Outcome::interrupted();
  }
  if (!sum.stopped_by.empty()) {
    std::fprintf(table, "Incomplete: stopped by an error after %zu of %zu assessments\n", finished, items.size());
    any_error = true;
  } else if (!o.quiet) {
    std::fprintf(table, "%zu rows: %s\n", table_rows.size(),
                 any_error ? "some assessments had errors" : any_not_iid ? "not all IID" : "all IID");
  }
  flush_checked(table, table_name);
  if (any_error) return Outcome::error();
  return verdicts;
}

}  // namespace

namespace {

// The lines of a JSONL file; an incomplete last line (cut off by a crash) is left out and
// `torn` says so. Throws Error{Input} for a malformed line before the last.
std::vector<nlohmann::ordered_json> read_jsonl(const std::string& path, bool& torn) {
  torn = false;
  std::vector<nlohmann::ordered_json> rows;
  std::ifstream in(path, std::ios::binary);
  if (!in) return rows;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t line_no = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at);
    const bool last = end == std::string::npos;
    const std::string line = text.substr(at, last ? std::string::npos : end - at);
    at = last ? text.size() : end + 1;
    ++line_no;
    auto j = nlohmann::ordered_json::parse(line, nullptr, false);
    if (last || j.is_discarded() || !j.is_object()) {
      if (last || at >= text.size()) {
        torn = true;
        break;
      }
      throw Error(ErrorKind::Input, path + ":" + std::to_string(line_no) + ": not a JSON line; --resume continues "
                                    "only files that ea_iid --jsonl wrote");
    }
    rows.push_back(std::move(j));
  }
  return rows;
}

int64_t block_of(const nlohmann::ordered_json& j) {
  return j.contains("input") && j["input"].contains("block") ? j["input"]["block"].get<int64_t>() : -1;
}

// Why an earlier complete row of this item cannot be kept with `s` ("" when it can).
std::string mismatch(const nlohmann::ordered_json& j, const Item& it, const Settings& s) {
  const auto& p = j["permutation"];
  const auto& in = j["input"];
  auto differs = [](const std::string& what, const std::string& was, const std::string& now) {
    return what + " was " + was + ", now " + now;
  };
  if (p["userSeed"].get<std::string>() != std::to_string(s.seed)) {
    return differs("--seed", p["userSeed"].get<std::string>(), std::to_string(s.seed));
  }
  if (p["prng"].get<std::string>() != prng_info(s.prng).name) return differs("--prng", p["prng"], prng_info(s.prng).name);
  if (p["iterations"].get<uint32_t>() != s.iterations) {
    return differs("--iterations", std::to_string(p["iterations"].get<uint32_t>()), std::to_string(s.iterations));
  }
  if (p["earlyExit"].get<bool>() != s.early_exit) return "--no-early-exit differs";
  if (p["allTests"].get<bool>() != s.all_tests) return "--all-tests differs";
  if ((j["estimates"]["mode"].get<std::string>() == "initial (-i)") != s.initial_entropy) return "-i/-c differs";
  if (j["estimates"]["bitstringTruncated"].get<bool>() != s.truncate_bitstring) return "-a/-t differs";
  if (s.width != 0 && in["bitsPerSymbol"].get<int>() != s.width) return "the bit width differs";
  const auto subset = in["subset"];
  const bool same_subset = subset.is_null() ? !it.subset
                                            : it.subset && subset["index"].get<uint64_t>() == it.subset->index &&
                                                  subset["count"].get<uint64_t>() == it.subset->count;
  if (!same_subset) return "the -l range or --blocks size differs";
  return "";
}

}  // namespace

// --resume: the rows of the earlier run (the --jsonl file, else the -o DIR/ files) that are
// complete for items of this list are kept, those items leave the list; a cut-off last line
// and error rows of items to run again are dropped from the --jsonl file (rewritten
// atomically, every other row kept). Rows written with other options, or for a file that
// changed since, stop the run with an error rather than mixing results.
static void prepare_resume(const Options& o, Settings& settings, std::vector<Item>& items, ListPosition& position,
                    const std::vector<std::string>& out_paths, const InputSet& inputs) {
  const bool from_jsonl = o.jsonl_path.has_value();
  if (from_jsonl && *o.jsonl_path == "-") throw Error(ErrorKind::Usage, "--resume cannot continue standard output");
  bool torn = false;
  std::vector<nlohmann::ordered_json> rows;
  if (from_jsonl) rows = read_jsonl(*o.jsonl_path, torn);
  // Without --seed: the earlier run's.
  if (!o.seed) {
    std::optional<std::string> seed;
    auto adopt = [&seed](const nlohmann::ordered_json& j) {
      if (!j.contains("permutation")) return;
      const std::string s = j["permutation"]["userSeed"];
      if (seed && *seed != s) throw Error(ErrorKind::Input, "--resume: the earlier rows have different seeds; give --seed");
      seed = s;
    };
    for (const auto& j : rows) adopt(j);
    for (const auto& path : out_paths) {
      if (from_jsonl || path.empty()) continue;
      std::ifstream in(path);
      auto j = nlohmann::ordered_json::parse(in, nullptr, false);
      if (!j.is_discarded() && j.is_object()) adopt(j);
    }
    if (seed) {
      settings.seed = std::stoull(*seed);
      logger().info("--resume: --seed {} (the earlier run's)", *seed);
    }
  }
  // The earlier rows by (path, block).
  std::map<std::pair<std::string, int64_t>, size_t> by_item;
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].contains("input") && rows[r]["input"].contains("path")) {
      by_item[{rows[r]["input"]["path"].get<std::string>(), block_of(rows[r])}] = r;
    }
  }
  std::map<std::string, std::string> file_sha;  // path -> SHA-256 now
  std::vector<bool> drop(rows.size(), false);
  std::vector<Item> rest;
  std::vector<size_t> rest_index;
  for (size_t k = 0; k < items.size(); ++k) {
    const Item& it = items[k];
    std::optional<nlohmann::ordered_json> earlier;
    size_t r = 0;
    if (from_jsonl) {
      auto at = by_item.find({it.path, it.block});
      if (at != by_item.end()) {
        r = at->second;
        earlier = rows[r];
      }
    } else if (!out_paths[k].empty()) {
      std::ifstream in(out_paths[k]);
      auto j = nlohmann::ordered_json::parse(in, nullptr, false);
      if (in && !j.is_discarded() && j.is_object()) earlier = j;
    }
    bool keep = false;
    if (earlier && earlier->contains("skipped")) {
      keep = !it.skipped.empty();
    } else if (earlier && earlier->value("errorLevel", 0) == 0 && earlier->contains("permutation")) {
      const std::string why = mismatch(*earlier, it, settings);
      if (!why.empty()) {
        throw Error(ErrorKind::Usage, "--resume: " + it.label() + " has a result written with other options (" + why +
                                          "); run with the same options, or write to another file");
      }
      auto sha = file_sha.find(it.path);
      if (sha == file_sha.end()) sha = file_sha.emplace(it.path, fingerprint_file(it.path).sha256).first;
      if ((*earlier)["sha256"].get<std::string>() != sha->second) {
        throw Error(ErrorKind::Input, "--resume: " + it.path + " changed since its results were written (SHA-256 " +
                                          (*earlier)["sha256"].get<std::string>() + ", now " + sha->second + ")");
      }
      keep = true;
    }
    if (keep) {
      position.kept.emplace_back(position.index[k], *earlier);
    } else {
      if (earlier && from_jsonl) drop[r] = true;  // an error row: assessed again
      rest.push_back(it);
      rest_index.push_back(position.index[k]);
    }
  }
  items = std::move(rest);
  position.index = std::move(rest_index);
  bool rewrite = torn;
  for (bool d : drop) rewrite = rewrite || d;
  if (from_jsonl && rewrite) {
    std::string text;
    size_t dropped = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
      if (drop[r]) {
        ++dropped;
        continue;
      }
      text += rows[r].dump() + "\n";
    }
    write_file_atomically(*o.jsonl_path, text, inputs, "--jsonl");
    logger().info("--resume: {}{} error rows to assess again dropped from {}", torn ? "a cut-off last line and " : "",
                  dropped, *o.jsonl_path);
  }
}

Outcome run_assessments(const Options& o, const Settings& settings, const std::string& started,
                        const InputSet& inputs, const std::atomic<bool>& interrupt,
                        const std::atomic<int>& signal_number) {
  std::vector<Item> items = expand_items(o.files, o.subset, o.blocks, o.keep_short);
  if (!o.batch()) return run_single(o, settings, started, inputs, items, interrupt);
  ListPosition position;
  position.items = items.size();
  position.shard = o.shard;
  if (o.shard) {
    position.index = share_of(items, o.shard->first, o.shard->second);
    std::vector<Item> mine;
    for (size_t i : position.index) mine.push_back(items[i]);
    items = std::move(mine);
    logger().info("share {}/{}: {} of {} items", o.shard->first, o.shard->second, items.size(), position.items);
  } else {
    for (size_t i = 0; i < items.size(); ++i) position.index.push_back(i);
  }
  if (o.resume) {
    Settings resumed = settings;
    const std::vector<std::string> out_paths = o.json_path ? output_paths(*o.json_path, items, inputs)
                                                           : std::vector<std::string>(items.size());
    prepare_resume(o, resumed, items, position, out_paths, inputs);
    return run_batch(o, resumed, started, inputs, items, position, interrupt, signal_number);
  }
  return run_batch(o, settings, started, inputs, items, position, interrupt, signal_number);
}

}  // namespace ea::cli
