#include "batch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <csignal>
#include <vector>

#include "common/error.hpp"
#include "logging.hpp"
#include "output.hpp"
#include "report.hpp"

namespace ea::cli {

namespace {

// A file cut into --blocks: hashed once (by the first worker that needs it), then every
// block reads only its own bytes and checks that the file still has this fingerprint.
struct BlockedFile {
  std::mutex m;
  bool done = false;
  uint64_t listed_size = 0;
  FileFingerprint fingerprint;
  std::string error;
};

struct Item {
  std::string path;
  std::optional<SubsetSpec> subset;
  int64_t block = -1;         // with --blocks
  std::string skipped;        // why it is not assessed ("" = assessed)
  std::string error;          // known to fail before loading ("" = none)
  std::shared_ptr<BlockedFile> file;  // with --blocks
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
  for (const auto& path : o.files) {
    if (!o.blocks) {
      items.push_back(Item{path, o.subset, -1, "", "", nullptr});
      continue;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_size == 0)) {
      // Not readable as blocks: the loader reports it with the usual message.
      items.push_back(Item{path, std::nullopt, -1, "", "", nullptr});
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      items.push_back(Item{path, std::nullopt, -1, "", path + ": not a regular file; --blocks cuts regular files only", nullptr});
      continue;
    }
    auto file = std::make_shared<BlockedFile>();
    file->listed_size = static_cast<uint64_t>(st.st_size);
    const uint64_t size = static_cast<uint64_t>(st.st_size), count = *o.blocks;
    for (uint64_t k = 0; k * count < size; ++k) {
      Item it{path, SubsetSpec{k, count}, static_cast<int64_t>(k), "", "", file};
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
Finished assess_item(const Item& it, const Options& o, const std::string& started,
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
    if (!it.error.empty()) throw Error(ErrorKind::Input, it.error);
    LoadOptions load;
    load.width = o.bits;
    load.subset = it.subset;
    load.allow_stream = o.allow_stream;
    load.interrupt = base.interrupt;
    if (it.file) {
      std::lock_guard<std::mutex> lock(it.file->m);
      if (!it.file->done) {
        try {
          it.file->fingerprint = fingerprint_file(it.path, base.interrupt);
          if (it.file->fingerprint.size != it.file->listed_size) {
            it.file->error = it.path + ": the file changed after its blocks were listed; assess a file that is no "
                                       "longer being written";
          }
        } catch (const Error& e) {
          if (e.kind() == ErrorKind::Interrupted) throw;
          it.file->error = e.what();
        }
        it.file->done = true;
      }
      if (!it.file->error.empty()) throw Error(ErrorKind::Input, it.file->error);
      load.known = &it.file->fingerprint;
    }
    Dataset d = load_dataset(it.path, load);
    AssessConfig cfg = base;
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

Outcome run_batch(const Options& o, const std::string& started, const AssessConfig& base, const InputSet& inputs,
                  const std::atomic<bool>& interrupt, const std::atomic<int>& signal_number) {
  using clock = std::chrono::steady_clock;
  const std::vector<Item> items = list_items(o);

  // -o names a folder in batch mode: checked, and every name checked, before any work.
  std::string out_dir;
  std::vector<std::string> out_paths(items.size());
  if (o.json_path) {
    out_dir = *o.json_path;
    struct stat st {};
    if (::stat(out_dir.c_str(), &st) != 0 && errno == ENOTDIR) {
      throw Error(ErrorKind::Output, "-o " + out_dir + ": a part of this path is a file, not a folder");
    }
    if (::stat(out_dir.c_str(), &st) != 0) {
      if (out_dir.empty() || out_dir.back() != '/') {
        throw Error(ErrorKind::Usage, "-o " + out_dir +
                                          ": with several assessments -o names a folder (end it with '/')");
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
    std::map<std::string, size_t> first_of;
    for (size_t k = 0; k < items.size(); ++k) {
      if (!items[k].skipped.empty()) continue;
      std::string name = basename_of(items[k].path);
      if (items[k].block >= 0) name += ".block" + std::to_string(items[k].block);
      out_paths[k] = out_dir + name + ".json";
      auto [at, fresh] = first_of.emplace(out_paths[k], k);
      if (!fresh && items[at->second].path != items[k].path) {
        throw Error(ErrorKind::Output, "-o " + out_dir + ": " + items[at->second].path + " and " + items[k].path +
                                           " would both be written to " + out_paths[k] +
                                           "; rename one, run them separately, or use --jsonl");
      }
      struct stat target {};
      if (::stat(out_paths[k].c_str(), &target) == 0) {
        if (const std::string* in = inputs.find(target)) {
          throw Error(ErrorKind::Output, "-o " + out_paths[k] + ": is the input file " + *in +
                                             "; ea_iid never writes over an input");
        }
      }
    }
  }
  std::unique_ptr<JsonlWriter> jsonl;
  if (o.jsonl_path) {
    const auto existing = o.jsonl_append ? JsonlWriter::Existing::Append
                          : o.jsonl_force ? JsonlWriter::Existing::Truncate
                                          : JsonlWriter::Existing::Refuse;
    jsonl = std::make_unique<JsonlWriter>(*o.jsonl_path, existing, inputs);
  }
  std::FILE* table = (jsonl && jsonl->is_stdout()) ? stderr : stdout;
  const char* table_name = table == stderr ? "standard error" : "standard output";
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
  // `cancel` stops the workers and their assessments: set on SIGINT/SIGTERM (this thread
  // copies the flag within 250 ms) and when this thread fails.
  std::atomic<bool> cancel{false};
  AssessConfig worker_base = base;
  worker_base.interrupt = &cancel;
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
    try {
      DeviceSlot slot;
      slot.memory_share = 0.85 / jobs;
      while (true) {
        size_t idx;
        {
          std::unique_lock<std::mutex> lock(m);
          while (!cancel.load() && next_item < items.size() && next_item >= next_write + window) {
            cv.wait_for(lock, std::chrono::milliseconds(200));
          }
          if (cancel.load() || next_item >= items.size()) break;
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
        Finished f = assess_item(it, o, started, worker_base, slot, progress);
        {
          std::lock_guard<std::mutex> lock(status_mutex);
          status[w].busy = false;
        }
        std::lock_guard<std::mutex> lock(m);
        done[idx] = std::move(f);
        cv.notify_all();
      }
    } catch (const std::exception& e) {
      // Outside any item (the device slot, memory): stop the batch, keep what is written.
      logger().error("batch worker {}: {}", w, e.what());
      cancel.store(true);
    }
    std::lock_guard<std::mutex> lock(m);
    --alive;
    cv.notify_all();
  };
  std::vector<std::thread> threads;
  // Whatever leaves this function, the workers are stopped and joined first.
  struct JoinAll {
    std::vector<std::thread>& threads;
    std::atomic<bool>& cancel;
    ~JoinAll() {
      cancel.store(true);
      for (auto& t : threads) {
        if (t.joinable()) t.join();
      }
    }
  } join_all{threads, cancel};
  for (int w = 0; w < jobs; ++w) threads.emplace_back(worker, w);

  std::vector<Row> rows;
  bool any_error = false, any_not_iid = false;
  size_t finished = 0;
  // Writes one finished item. A write that fails makes that item an error; the batch goes on.
  auto write = [&](Finished& f, const Item& it, size_t k) {
    if (f.interrupted) return;
    if (it.skipped.empty()) {
      try {
        if (jsonl) jsonl->write_line(f.json.dump());
        if (!out_dir.empty()) write_file_atomically(out_paths[k], f.json.dump(2) + "\n", inputs, "-o");
      } catch (const Error& e) {
        logger().error("{}", e.what());
        f.error = true;
        f.row.verdict = std::string("error: ") + e.what();
      }
    }
    any_error = any_error || f.error;
    any_not_iid = any_not_iid || f.not_iid;
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
      return (next_write < items.size() && done[next_write].ready) || alive == 0 || (interrupt.load() && !cancel.load());
    });
    if (interrupt.load()) cancel.store(true);
    while (next_write < items.size() && done[next_write].ready) {
      Finished f = std::move(done[next_write]);
      done[next_write] = Finished{};
      done[next_write].ready = true;
      const size_t k = next_write++;
      cv.notify_all();  // the window moved
      lock.unlock();
      write(f, items[k], k);
      lock.lock();
    }
    if (alive == 0) {
      // Interrupted: the items finished after a gap are written too, in order.
      for (; next_write < items.size(); ++next_write) {
        if (!done[next_write].ready) continue;
        Finished f = std::move(done[next_write]);
        lock.unlock();
        write(f, items[next_write], next_write);
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
  if (jsonl) {
    try {
      jsonl->close();
    } catch (const Error& e) {
      logger().error("{}", e.what());
      any_error = true;
    }
  }

  const bool stopped = cancel.load() && !interrupt.load();  // a worker failed outside any item
  if (!o.quiet) print_summary(table, rows);
  if (interrupt.load()) {
    const int sig = signal_number.load();
    std::fprintf(table, "Incomplete: interrupted by %s after %zu of %zu assessments\n",
                 sig == SIGTERM ? "SIGTERM" : "SIGINT", finished, items.size());
    std::fflush(table);
    return Outcome::Interrupted;
  }
  if (stopped) {
    std::fprintf(table, "Incomplete: stopped by an error after %zu of %zu assessments\n", finished, items.size());
    any_error = true;
  } else if (!o.quiet) {
    std::fprintf(table, "%zu rows: %s\n", rows.size(),
                 any_error ? "some assessments had errors" : any_not_iid ? "not all IID" : "all IID");
  }
  flush_checked(table, table_name);
  if (any_error) return Outcome::Error;
  return any_not_iid ? Outcome::NotIid : Outcome::Completed;
}

}  // namespace ea::cli
