#include "batch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
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

// What one assessment leaves for the writer: its JSON and its summary row.
struct Finished {
  bool ready = false;        // done (a result, an error or an interruption)
  bool interrupted = false;  // stopped by SIGINT/SIGTERM: no result, nothing written
  bool error = false, not_iid = false;
  nlohmann::ordered_json json;
  Row row;
};

// One item of the batch, on a worker thread with its own device slot.
Finished assess_item(const Item& it, uint64_t position, const Options& o, const std::string& started,
                     const AssessConfig& base, DeviceSlot& slot,
                     const std::function<void(const char*, uint32_t, int)>& progress) {
  using clock = std::chrono::steady_clock;
  Finished f;
  f.ready = true;
  const std::string block = it.block >= 0 ? std::to_string(it.block) : "-";
  if (!it.skipped.empty()) {
    f.row = Row{it.path, block, "-", "-", "-", "-", "-", "-", "-", "skipped: " + it.skipped, "-"};
    logger().info("{} block {}: {}", it.path, block, it.skipped);
    return f;
  }
  const auto t0 = clock::now();
  f.row = Row{it.path, block, "-", "-", "-", "-", "-", "-", "-", "", "-"};
  auto fail = [&](const std::string& message) {
    f.error = true;
    f.json = error_json(o, started, message, &it.path, it.block);
    f.row.verdict = "error: " + message;
    logger().error("{}", message);
  };
  try {
    Dataset d = load_dataset(it.path, o.bits, it.subset);
    AssessConfig cfg = base;
    cfg.seed = derive_seed(base.seed, position);
    cfg.progress = progress;
    cfg.slot = &slot;
    Assessment a = assess(d, cfg);
    for (const auto& w : a.warnings) logger().warn("{}: {}", it.path, w);
    f.json = assessment_json(a, o, started, it.block);
    const Verdict v = a.verdict();
    f.not_iid = v != Verdict::Iid;
    f.row.samples = std::to_string(a.samples);
    f.row.width = std::to_string(a.width);
    f.row.h_original = a.h_original ? fmt("%.6f", a.h_original->entropy) : "-";
    f.row.h_bitstring = a.h_bitstring ? fmt("%.6f", a.h_bitstring->entropy) : "-";
    f.row.chi = a.chi_square_failed() ? "failed" : a.chi_square_evaluable() ? "passed" : "not evaluated";
    f.row.lrs = a.lrs.passed() ? "passed" : "failed";
    f.row.perm = a.permutation.passed() ? "passed" : "failed";
    f.row.verdict = verdict_name(v);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted) {
      f.interrupted = true;  // not a result: the run is incomplete
      return f;
    }
    fail(e.what());
  } catch (const std::exception& e) {
    fail(std::string("internal error: ") + e.what());
  }
  f.row.seconds = fmt("%.2f", std::chrono::duration<double>(clock::now() - t0).count());
  return f;
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

  // K workers take the items in order, each with its own device slot (GPU buffers and
  // CUDA stream, rebound to every data set): while one assessment's rounds run on the
  // GPU, the others load, estimate, test chi-square and LRS, or compress on the CPU. This
  // thread writes the results in input order as soon as each one and all before it are
  // done. A worker does not start an item more than `window` places ahead of the oldest
  // unwritten one, so memory stays bounded however many files are given.
  const int jobs = o.jobs > 0 ? o.jobs : (base.device != DeviceChoice::Cpu && gpu_count() > 0 ? 8 : 1);
  const size_t window = 4 * static_cast<size_t>(jobs);
  std::mutex m;
  std::condition_variable cv;
  std::vector<Finished> done(items.size());
  size_t next_item = 0, next_write = 0;
  int alive = jobs;
  struct Status {
    std::string label, phase;
    uint32_t permutations = 0;
    int active = 0;
    bool busy = false;
  };
  std::vector<Status> status(static_cast<size_t>(jobs));
  std::mutex status_mutex;
  logger().debug("batch of {} assessments, {} at a time", items.size(), jobs);

  auto worker = [&](int w) {
    DeviceSlot slot;
    slot.memory_share = 0.85 / jobs;
    while (true) {
      size_t idx;
      {
        std::unique_lock<std::mutex> lock(m);
        while (!interrupt.load() && next_item < items.size() && next_item >= next_write + window) {
          cv.wait_for(lock, std::chrono::milliseconds(200));
        }
        if (interrupt.load() || next_item >= items.size()) break;
        idx = next_item++;
      }
      const Item& it = items[idx];
      {
        std::lock_guard<std::mutex> lock(status_mutex);
        status[w] = Status{it.path + (it.block >= 0 ? " block " + std::to_string(it.block) : ""), "loading", 0, 0, true};
      }
      auto progress = [&, w](const char* phase, uint32_t n, int active) {
        std::lock_guard<std::mutex> lock(status_mutex);
        status[w].phase = phase;
        status[w].permutations = n;
        status[w].active = active;
      };
      Finished f = assess_item(it, idx, o, started, base, slot, progress);
      {
        std::lock_guard<std::mutex> lock(status_mutex);
        status[w].busy = false;
      }
      std::lock_guard<std::mutex> lock(m);
      done[idx] = std::move(f);
      cv.notify_all();
    }
    std::lock_guard<std::mutex> lock(m);
    --alive;
    cv.notify_all();
  };
  std::vector<std::thread> threads;
  for (int w = 0; w < jobs; ++w) threads.emplace_back(worker, w);

  std::vector<Row> rows;
  bool any_error = false, any_not_iid = false;
  size_t finished = 0;
  auto write = [&](Finished& f, const Item& it) {
    if (f.interrupted) return;
    any_error = any_error || f.error;
    any_not_iid = any_not_iid || f.not_iid;
    if (it.skipped.empty()) {
      if (jsonl) {
        const std::string line = f.json.dump();
        std::fprintf(jsonl, "%s\n", line.c_str());
        std::fflush(jsonl);
      }
      if (!out_dir.empty()) {
        std::string name = basename_of(it.path);
        if (it.block >= 0) name += ".block" + std::to_string(it.block);
        write_json_atomically(out_dir + name + ".json", f.json);
      }
    }
    ++finished;
    if (bar) std::fprintf(stderr, "\r\033[K");
    if (it.skipped.empty()) {
      logger().info("[{}/{}] {}{}{}: {} ({} s)", finished, items.size(), it.path, it.block >= 0 ? " block " : "",
                    it.block >= 0 ? std::to_string(it.block) : "", f.row.verdict, f.row.seconds);
    }
    rows.push_back(std::move(f.row));
  };
  auto draw_bar = [&] {
    const double elapsed = std::chrono::duration<double>(clock::now() - batch_start).count();
    std::string current;
    int others = 0;
    {
      std::lock_guard<std::mutex> lock(status_mutex);
      for (const auto& st : status) {
        if (!st.busy) continue;
        if (current.empty()) {
          current = st.label + ": " + st.phase;
          if (st.permutations) current += " " + std::to_string(st.permutations) + ", " + std::to_string(st.active) + " undecided";
        } else {
          ++others;
        }
      }
    }
    std::string eta;
    if (finished) eta = ", about " + std::to_string(static_cast<long>(elapsed / finished * (items.size() - finished))) + " s left";
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s%s | %.0f s elapsed%s", finished, items.size(), current.c_str(),
                 others ? (" (+" + std::to_string(others) + " running)").c_str() : "", elapsed, eta.c_str());
    std::fflush(stderr);
  };

  std::unique_lock<std::mutex> lock(m);
  while (true) {
    cv.wait_for(lock, std::chrono::milliseconds(250), [&] {
      return (next_write < items.size() && done[next_write].ready) || alive == 0;
    });
    while (next_write < items.size() && done[next_write].ready) {
      Finished f = std::move(done[next_write]);
      done[next_write] = Finished{};
      done[next_write].ready = true;
      const size_t k = next_write++;
      cv.notify_all();  // the window moved
      lock.unlock();
      write(f, items[k]);
      lock.lock();
    }
    if (alive == 0) {
      // Interrupted: the items finished after a gap are written too, in order.
      for (; next_write < items.size(); ++next_write) {
        if (!done[next_write].ready) continue;
        Finished f = std::move(done[next_write]);
        lock.unlock();
        write(f, items[next_write]);
        lock.lock();
      }
      break;
    }
    if (bar) {
      lock.unlock();
      draw_bar();
      lock.lock();
    }
  }
  lock.unlock();
  for (auto& t : threads) t.join();
  if (bar) std::fprintf(stderr, "\r\033[K");
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
