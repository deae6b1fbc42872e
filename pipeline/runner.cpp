#include "runner.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <system_error>
#include <thread>

#include "gpu_backends.hpp"
#include "track.hpp"

namespace ea {

struct SharedFile {
  std::mutex m;
  bool done = false;
  uint64_t listed_size = 0;
  FileFingerprint fingerprint;
  std::string error;
};

std::vector<Item> expand_items(const std::vector<std::string>& files, const std::optional<SubsetSpec>& subset,
                               const std::optional<uint64_t>& blocks, bool keep_short, int sample_size) {
  const uint64_t unit = sample_size > 0 ? static_cast<uint64_t>(sample_size) : 1;
  std::vector<Item> items;
  uint64_t total = files.size();
  for (const auto& path : files) {  // the count first: refused before any item is made
    struct stat st {};
    if (!blocks || path == kStdinPath || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const uint64_t n = (static_cast<uint64_t>(st.st_size) / unit + *blocks - 1) / *blocks;
    total += n > 0 ? n - 1 : 0;
    if (total > kMaxItems) {
      throw Error(ErrorKind::Usage, path + ": blocks of " + std::to_string(*blocks) + " samples cut it into " +
                                        std::to_string(n) + " items; a run holds at most " + std::to_string(kMaxItems) +
                                        " items in all: cut larger blocks, or list fewer files");
    }
  }
  if (total > kMaxItems) {
    throw Error(ErrorKind::Usage, std::to_string(total) + " items; a run holds at most " + std::to_string(kMaxItems) +
                                      ": list fewer files per run");
  }
  for (const auto& path : files) {
    Item whole;
    whole.path = path;
    if (!blocks) {
      whole.subset = subset;
      struct stat st {};
      if (path != kStdinPath && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        whole.weight = subset ? subset->count : static_cast<uint64_t>(st.st_size) / unit;
      }
      items.push_back(std::move(whole));
      continue;
    }
    if (path == kStdinPath) {
      whole.error = "standard input: blocks are cut from regular files only (save the samples to a file first)";
      items.push_back(std::move(whole));
      continue;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_size == 0)) {
      items.push_back(std::move(whole));  // not readable as blocks: the loader says why
      continue;
    }
    if (!S_ISREG(st.st_mode)) {
      whole.error = path + ": not a regular file; blocks are cut from regular files only";
      items.push_back(std::move(whole));
      continue;
    }
    auto file = std::make_shared<SharedFile>();
    file->listed_size = static_cast<uint64_t>(st.st_size);
    const uint64_t size = static_cast<uint64_t>(st.st_size) / unit, count = *blocks;  // samples
    for (uint64_t k = 0; k * count < size; ++k) {
      Item it;
      it.path = path;
      it.subset = SubsetSpec{k, count};
      it.block = static_cast<int64_t>(k);
      it.file = file;
      const uint64_t have = std::min(count, size - k * count);
      it.weight = have;
      if (have < count && !keep_short) {
        it.weight = 0;
        it.skipped = "short block (" + std::to_string(have) + " of " + std::to_string(count) + " samples) skipped";
        it.skipped_remedy = Remedy::KeepShort;
      }
      items.push_back(std::move(it));
    }
  }
  return items;
}

std::vector<size_t> share_of(const std::vector<Item>& items, uint64_t k, uint64_t n) {
  if (n == 0 || k >= n) throw Error(ErrorKind::Usage, "a share is K/N with 0 <= K < N");
  // Weights: samples; where nothing is known (streams, missing files), 1 each.
  long double total = 0;
  for (const Item& it : items) total += it.weight;
  const bool by_count = total == 0;
  if (by_count) total = static_cast<long double>(items.size());
  std::vector<size_t> mine;
  long double before = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const long double w = by_count ? 1 : items[i].weight;
    const long double mid = before + w / 2;
    const uint64_t share = std::min<uint64_t>(n - 1, static_cast<uint64_t>(n * mid / total));
    if (share == k) mine.push_back(i);
    before += w;
  }
  return mine;
}

namespace {

// The item's data set: generated, or read (a block checks its file's fingerprint, taken once).
Dataset load_item(const Item& it, const Settings& s, const std::atomic<bool>* interrupt, std::string& sha256) {
  if (it.generate) {
    Dataset d = it.generate();
    sha256 = d.sha256;
    return d;
  }
  if (!it.error.empty()) throw Error(ErrorKind::Input, it.error);
  LoadOptions load;
  load.width = s.width;
  load.subset = it.subset;
  load.allow_stream = s.allow_stream;
  load.sample_input = s.sample_input;
  load.threads = s.threads;
  load.interrupt = interrupt;
  load.sha256_read = &sha256;
  if (it.file) {
    SharedFile& f = *it.file;
    std::lock_guard<std::mutex> lock(f.m);
    if (!f.done) {
      try {
        f.fingerprint = fingerprint_file(it.path, interrupt);
        if (f.fingerprint.size != f.listed_size) {
          f.error = it.path + ": the file changed after its blocks were listed; assess a file that is no longer "
                              "being written";
        }
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::Interrupted) throw;
        f.error = e.what();
      }
      f.done = true;
    }
    if (!f.error.empty()) throw Error(ErrorKind::Input, f.error);
    load.known = &f.fingerprint;
  }
  return load_dataset(it.path, load);
}

ItemResult run_item(const Item& it, const Settings& s, const Hooks& hooks, DeviceSlot& slot, DeviceSlot& column_slot) {
  using clock = std::chrono::steady_clock;
  ItemResult r;
  r.track = track_of(s);
  if (!it.skipped.empty()) {
    r.status = ItemResult::Status::Skipped;
    r.message = it.skipped;
    r.remedy = it.skipped_remedy;
    return r;
  }
  const auto t0 = clock::now();
  try {
    const Dataset d = load_item(it, s, hooks.interrupt, r.sha256);
    r.value = assess_track(d, s, hooks, slot, column_slot, it.label());
    r.status = ItemResult::Status::Assessed;
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted) {
      r.status = ItemResult::Status::Interrupted;
      return r;
    }
    r.status = ItemResult::Status::Failed;
    r.message = e.what();
    r.error_kind = e.kind();
    r.remedy = e.remedy();
  } catch (const std::exception& e) {
    r.status = ItemResult::Status::Failed;
    r.message = std::string("internal error: ") + e.what();
  }
  r.seconds = std::chrono::duration<double>(clock::now() - t0).count();
  return r;
}

}  // namespace

// ---- the engine ------------------------------------------------------------------------

// Worker w's device slots: kept across runs while its GPUs stay the same.
struct Engine::Worker {
  std::vector<GpuShare> gpus;
  std::unique_ptr<DeviceSlot> slot;     // its assessments'
  std::unique_ptr<DeviceSlot> columns;  // --restart: the column data set's (backends made on first use)
};

// The state of one run, shared by its workers and the delivering thread.
struct Engine::Run {
  Run(const std::vector<Item>& i, const Settings& s, const RunObserver& o) : items(i), settings(s), observer(o) {}
  const std::vector<Item>& items;
  const Settings& settings;
  const RunObserver& observer;
  size_t window = 0;
  // `cancel` stops the workers and their assessments: set when `interrupt` is (the delivering
  // thread copies it within 250 ms), when a worker fails outside any item, and on every exit.
  std::atomic<bool> cancel{false};
  std::mutex m;
  std::condition_variable cv;
  struct Done {
    bool ready = false;
    ItemResult result;
  };
  std::vector<Done> done;
  size_t next_item = 0, next_write = 0;
  int alive = 0;
  RunSummary summary;
};

Engine::Engine() = default;
Engine::~Engine() = default;

Engine::Worker& Engine::worker(size_t w, const std::vector<GpuShare>& gpus, const Settings& settings) {
  std::lock_guard<std::mutex> lock(workers_mutex_);
  while (workers_.size() <= w) workers_.push_back(std::make_unique<Worker>());
  Worker& k = *workers_[w];
  const auto same = [](const std::vector<GpuShare>& a, const std::vector<GpuShare>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].gpu != b[i].gpu || a[i].memory_share != b[i].memory_share) return false;
    }
    return true;
  };
  if (!k.slot || !same(k.gpus, gpus)) {
    k.columns.reset();
    k.slot.reset();  // its device memory goes back before the new slot sizes its rounds
    k.gpus = gpus;
    // (the non-IID track shuffles nothing: creating a CUDA context it never uses cost it
    // 0.15 of 0.31 s for truerand_1bit, H200)
    const bool shuffles = track_of(settings) != Track::NonIid;
    k.slot = std::make_unique<DeviceSlot>(gpus, settings.device != DeviceChoice::Cpu && settings.tuning.warm_up && shuffles);
    k.columns = std::make_unique<DeviceSlot>(gpus);
  }
  return k;
}

void Engine::work(Run& run, int w, const std::vector<GpuShare>& gpus, int threads_each) {
  try {
    Worker& k = worker(static_cast<size_t>(w), gpus, run.settings);
    k.slot->set_cpu_threads(threads_each);
    k.columns->set_cpu_threads(threads_each);
    Hooks hooks;
    hooks.interrupt = &run.cancel;
    hooks.note = run.observer.note;
    if (run.observer.tested) {
      hooks.tested = [&run, w](const Assessment& a) { run.observer.tested(w, a); };
    }
    if (run.observer.progress) {
      hooks.progress = [&run, w](const char* phase, uint32_t n, int active, uint32_t left) {
        run.observer.progress(w, phase, n, active, left);
      };
    }
    while (true) {
      size_t idx;
      {
        std::unique_lock<std::mutex> lock(run.m);
        while (!run.cancel.load() && run.next_item < run.items.size() && run.next_item >= run.next_write + run.window) {
          run.cv.wait_for(lock, std::chrono::milliseconds(200));
        }
        if (run.cancel.load() || run.next_item >= run.items.size()) break;
        if (run.observer.may_start && !run.observer.may_start()) break;
        idx = run.next_item++;
      }
      if (run.observer.started) run.observer.started(w, run.items[idx]);
      const Item& it = run.items[idx];
      ItemResult r = run_item(it, it.settings ? *it.settings : run.settings, hooks, *k.slot, *k.columns);
      if (run.observer.idle) run.observer.idle(w);
      std::lock_guard<std::mutex> lock(run.m);
      run.done[idx].result = std::move(r);
      run.done[idx].ready = true;
      run.cv.notify_all();
    }
  } catch (const std::exception& e) {
    // Outside any item (memory, the observer): stop the run, keep what is delivered.
    std::lock_guard<std::mutex> lock(run.m);
    if (run.summary.stopped_by.empty()) run.summary.stopped_by = e.what();
    run.cancel.store(true);
  }
  std::lock_guard<std::mutex> lock(run.m);
  --run.alive;
  run.cv.notify_all();
}

// The calling thread delivers the results in item order as soon as each one and all before
// it are done; after an interruption, also those finished after a gap.
void Engine::deliver(Run& run, const std::atomic<bool>& interrupt) {
  auto hand_over = [&run](std::unique_lock<std::mutex>& lock, size_t k) {
    ItemResult r = std::move(run.done[k].result);
    run.done[k].result = ItemResult{};
    lock.unlock();
    if (r.status != ItemResult::Status::Interrupted) {
      ++run.summary.finished;
      if (run.observer.finished) run.observer.finished(k, run.items[k], r);
    }
    lock.lock();
  };
  std::unique_lock<std::mutex> lock(run.m);
  const size_t n = run.items.size();
  while (true) {
    run.cv.wait_for(lock, std::chrono::milliseconds(250), [&] {
      return (run.next_write < n && run.done[run.next_write].ready) || run.alive == 0 ||
             (interrupt.load() && !run.cancel.load());
    });
    if (interrupt.load()) run.cancel.store(true);
    while (run.next_write < n && run.done[run.next_write].ready) {
      const size_t k = run.next_write++;
      run.cv.notify_all();  // the window moved
      hand_over(lock, k);
    }
    if (run.alive == 0) {
      for (; run.next_write < n; ++run.next_write) {
        if (run.done[run.next_write].ready) hand_over(lock, run.next_write);
      }
      return;
    }
    if (run.observer.tick) {
      lock.unlock();
      run.observer.tick();
      lock.lock();
    }
  }
}

RunSummary Engine::run(const std::vector<Item>& items, const Settings& settings, const RunPlan& plan,
                       const std::atomic<bool>& interrupt, const RunObserver& observer) {
  const int jobs = std::max(1, std::min<int>(plan.jobs, static_cast<int>(std::max<size_t>(1, items.size()))));
  Run run(items, settings, observer);
  run.window = 4 * static_cast<size_t>(jobs);
  run.done.resize(items.size());
  run.alive = jobs;
  const auto gpus = assign_gpus(settings.gpus, jobs, settings.tuning.memory_share);
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
  } join_all{threads, run.cancel};
  for (int w = 0; w < jobs; ++w) {
    threads.emplace_back([this, &run, w, &gpus, &plan] { work(run, w, gpus[static_cast<size_t>(w)], plan.threads_each); });
  }
  deliver(run, interrupt);
  for (auto& t : threads) t.join();
  run.summary.interrupted = interrupt.load();
  return run.summary;
}

RunSummary run_items(const std::vector<Item>& items, const Settings& settings, int jobs,
                     const std::atomic<bool>& interrupt, const RunObserver& observer) {
  Engine engine;
  return engine.run(items, settings, RunPlan{jobs, 0}, interrupt, observer);
}

void require_gpus(const Settings& s, const SettingNames& names) {
  if (s.device != DeviceChoice::Gpu) return;
  const int found = gpu_count();
  if (found == 0) {
    throw Error(ErrorKind::Device, names("device", "gpu") + ": no usable GPU here (no CUDA device, a driver too old for "
                                   "this build, or a build without CUDA); " + names("device", "auto") + " or " +
                                   names("device", "cpu") + " runs on the CPU cores");
  }
  for (int id : s.gpus) {
    if (id >= found) {
      throw Error(ErrorKind::Device, names("gpus", std::to_string(id)) + ": no GPU with that index (" +
                                         std::to_string(found) + " found: 0 to " + std::to_string(found - 1) + ")");
    }
  }
}

}  // namespace ea
