#include "batch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <csignal>
#include <vector>

#include "common/error.hpp"
#include "logging.hpp"
#include "report.hpp"

namespace ea::cli {

namespace {

struct Item {
  std::string path;
  std::optional<SubsetSpec> subset;
  int64_t block = -1;         // with --blocks
  std::string skipped;        // why it is not assessed ("" = assessed)
};

struct Row {
  std::string file, block, samples, width, h_original, h_bitstring, chi, lrs, perm, verdict, seconds;
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string basename_of(const std::string& p) {
  auto slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::vector<Item> list_items(const Options& o) {
  std::vector<Item> items;
  std::optional<SubsetSpec> subset;
  if (o.subset_text) subset = parse_subset(*o.subset_text);
  for (const auto& path : o.files) {
    if (!o.blocks) {
      items.push_back(Item{path, subset, -1, ""});
      continue;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode) || st.st_size == 0) {
      // Not readable as blocks: the loader reports it with the usual message.
      items.push_back(Item{path, std::nullopt, -1, ""});
      continue;
    }
    const uint64_t size = static_cast<uint64_t>(st.st_size), count = *o.blocks;
    for (uint64_t k = 0; k * count < size; ++k) {
      Item it{path, SubsetSpec{k, count}, static_cast<int64_t>(k), ""};
      const uint64_t have = std::min(count, size - k * count);
      if (have < count && !o.keep_short) {
        it.skipped = "short block (" + std::to_string(have) + " of " + std::to_string(count) +
                     " samples) skipped; --keep-short assesses it";
      }
      items.push_back(it);
    }
  }
  return items;
}

void print_summary(std::FILE* f, const std::vector<Row>& rows) {
  const char* head[] = {"file", "block", "samples", "width", "H_original", "H_bitstring", "chi-square",
                        "LRS", "permutation", "verdict", "seconds"};
  size_t w[11];
  for (int c = 0; c < 11; ++c) w[c] = std::strlen(head[c]);
  auto cells = [](const Row& r) {
    return std::vector<const std::string*>{&r.file, &r.block, &r.samples, &r.width, &r.h_original, &r.h_bitstring,
                                           &r.chi, &r.lrs, &r.perm, &r.verdict, &r.seconds};
  };
  for (const auto& r : rows) {
    auto c = cells(r);
    for (int k = 0; k < 11; ++k) w[k] = std::max(w[k], c[k]->size());
  }
  for (int c = 0; c < 11; ++c) std::fprintf(f, "%-*s%s", static_cast<int>(w[c]), head[c], c == 10 ? "\n" : "  ");
  for (const auto& r : rows) {
    auto c = cells(r);
    for (int k = 0; k < 11; ++k) std::fprintf(f, "%-*s%s", static_cast<int>(w[k]), c[k]->c_str(), k == 10 ? "\n" : "  ");
  }
}

}  // namespace

int run_batch(const Options& o, const std::string& started, const AssessConfig& base,
              const std::atomic<bool>& interrupt, const std::atomic<int>& signal_number) {
  using clock = std::chrono::steady_clock;
  const std::vector<Item> items = list_items(o);

  // -o names a folder in batch mode.
  std::string out_dir;
  if (o.json_path) {
    out_dir = *o.json_path;
    struct stat st {};
    const bool is_dir = ::stat(out_dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    if (!is_dir) {
      if (out_dir.empty() || out_dir.back() != '/') {
        throw Error(ErrorKind::Usage, "-o " + out_dir +
                                          ": with several assessments -o names a folder (end it with '/')");
      }
      if (::mkdir(out_dir.c_str(), 0777) != 0 && errno != EEXIST) {
        throw Error(ErrorKind::Input, out_dir + ": cannot create the output folder: " + std::strerror(errno));
      }
    }
    if (out_dir.back() != '/') out_dir += '/';
  }
  std::FILE* jsonl = nullptr;
  if (o.jsonl_path) {
    jsonl = *o.jsonl_path == "-" ? stdout : std::fopen(o.jsonl_path->c_str(), "w");
    if (!jsonl) throw Error(ErrorKind::Input, *o.jsonl_path + ": cannot write: " + std::strerror(errno));
  }
  std::FILE* table = (o.jsonl_path && *o.jsonl_path == "-") ? stderr : stdout;
  // A progress bar on a terminal: assessments done/total, current file, elapsed, estimate.
  const bool bar = !o.quiet && ::isatty(STDERR_FILENO);
  const auto batch_start = clock::now();

  std::vector<Row> rows;
  bool any_error = false, any_not_iid = false;
  size_t finished = 0, position = 0;
  for (const Item& it : items) {
    const uint64_t my_position = position++;
    if (interrupt.load()) break;
    const std::string block = it.block >= 0 ? std::to_string(it.block) : "-";
    if (!it.skipped.empty()) {
      rows.push_back(Row{it.path, block, "-", "-", "-", "-", "-", "-", "-", "skipped: " + it.skipped, "-"});
      logger().info("{} block {}: {}", it.path, block, it.skipped);
      ++finished;
      continue;
    }
    const auto t0 = clock::now();
    nlohmann::ordered_json j;
    Row row{it.path, block, "-", "-", "-", "-", "-", "-", "-", "", "-"};
    try {
      Dataset d = load_dataset(it.path, o.bits, it.subset);
      AssessConfig cfg = base;
      cfg.seed = derive_seed(base.seed, my_position);
      if (bar) {
        const size_t done_before = finished, total = items.size();
        const std::string label = it.path + (it.block >= 0 ? " block " + block : "");
        cfg.progress = [=](const char* phase, uint32_t done, int active) {
          const double elapsed = std::chrono::duration<double>(clock::now() - batch_start).count();
          const double eta = done_before ? elapsed / static_cast<double>(done_before) *
                                               static_cast<double>(total - done_before) : 0.0;
          std::fprintf(stderr, "\r\033[K[%zu/%zu] %s: %s %u, %d undecided | %.0f s elapsed%s", done_before, total,
                       label.c_str(), phase, done, active, elapsed,
                       done_before ? (", about " + std::to_string(static_cast<long>(eta)) + " s left").c_str() : "");
          std::fflush(stderr);
        };
      }
      Assessment a = assess(d, cfg);
      for (const auto& w : a.warnings) {
        logger().warn("{}: {}", it.path, w);
      }
      j = assessment_json(a, o, started, it.block);
      const Verdict v = a.verdict();
      any_not_iid = any_not_iid || v != Verdict::Iid;
      row.samples = std::to_string(a.samples);
      row.width = std::to_string(a.width);
      row.h_original = a.h_original ? fmt("%.6f", a.h_original->entropy) : "-";
      row.h_bitstring = a.h_bitstring ? fmt("%.6f", a.h_bitstring->entropy) : "-";
      row.chi = a.chi_square_failed() ? "failed" : a.chi_square_evaluable() ? "passed" : "not evaluated";
      row.lrs = a.lrs.passed() ? "passed" : "failed";
      row.perm = a.permutation.passed() ? "passed" : "failed";
      row.verdict = verdict_name(v);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Interrupted) break;  // not a result: the run is incomplete
      any_error = true;
      j = error_json(o, started, e.what(), &it.path, it.block);
      row.verdict = std::string("error: ") + e.what();
      logger().error("{}", e.what());
    }
    row.seconds = fmt("%.2f", std::chrono::duration<double>(clock::now() - t0).count());
    if (jsonl) {
      const std::string line = j.dump();
      std::fprintf(jsonl, "%s\n", line.c_str());
      std::fflush(jsonl);
    }
    if (!out_dir.empty()) {
      std::string name = basename_of(it.path);
      if (it.block >= 0) name += ".block" + std::to_string(it.block);
      write_json_atomically(out_dir + name + ".json", j);
    }
    ++finished;
    if (bar) std::fprintf(stderr, "\r\033[K");
    logger().info("[{}/{}] {}{}{}: {} ({} s)", finished, items.size(), it.path, it.block >= 0 ? " block " : "",
                  it.block >= 0 ? block : "", row.verdict, row.seconds);
    rows.push_back(row);
  }
  if (jsonl && jsonl != stdout) std::fclose(jsonl);

  if (!o.quiet) print_summary(table, rows);
  const int sig = signal_number.load();
  if (interrupt.load()) {
    std::fprintf(table, "Incomplete: interrupted by %s after %zu of %zu assessments\n",
                 sig == SIGTERM ? "SIGTERM" : "SIGINT", finished, items.size());
    return sig == SIGTERM ? 143 : 130;
  }
  if (!o.quiet) {
    std::fprintf(table, "%zu rows: %s\n", rows.size(),
                 any_error ? "some assessments had errors" : any_not_iid ? "not all IID" : "all IID");
  }
  if (any_error) return 2;
  if (o.exit_code && any_not_iid) return 1;
  return 0;
}

}  // namespace ea::cli
