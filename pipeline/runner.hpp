// The one orchestration: every workflow (a file, -l, a batch of files and --blocks,
// ea_calibrate's generated data sets) is a list of items run by an Engine with one
// Settings value and one DeviceSlot per worker. The library computes; what is written and
// printed is the caller's (cli/), through the observer.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "assess.hpp"
#include "restart.hpp"
#include "result.hpp"
#include "settings_rules.hpp"
#include "common/error.hpp"
#include "io/samples.hpp"

namespace ea {

// A file cut into --blocks: fingerprinted (hashed) once, by the first worker that needs
// it; every block then reads only its own bytes and checks the file is unchanged.
struct SharedFile;

// One assessment to run.
struct Item {
  std::string path;                   // the file; for generated data a label
  std::optional<SubsetSpec> subset;   // -l INDEX,COUNT, or the block
  int64_t block = -1;                 // --blocks: the block's index
  std::string skipped;                // not assessed, and why ("" = assessed)
  Remedy skipped_remedy = Remedy::None;  // what would assess it
  std::string error;                  // known to fail before loading ("" = none)
  std::shared_ptr<SharedFile> file;   // --blocks: the file its blocks share
  std::function<Dataset()> generate;  // generated data (ea_calibrate) instead of a file
  // Settings of this item alone (ea_calibrate interleaves generators); null: the run's.
  std::shared_ptr<const Settings> settings;
  uint64_t weight = 0;                // samples it will assess (0 when skipped): balances shares

  std::string label() const { return block >= 0 ? path + " block " + std::to_string(block) : path; }
};

// The items of files, each whole (or its -l range), or cut into blocks of `blocks` samples
// (a last, shorter block is skipped unless `keep_short`). A file that cannot be cut (not
// found, empty, not a regular file) is one item that fails with the loader's message.
// The most items one run holds (files x blocks): more is refused (Error{Usage}) before any
// is made, so that blocks of 1 sample of a 4 GB file never exhaust memory. `sample_size`: the
// bytes of one sample of the format (sample_bytes(); blocks and weights count samples).
constexpr uint64_t kMaxItems = 1000000;
std::vector<Item> expand_items(const std::vector<std::string>& files, const std::optional<SubsetSpec>& subset,
                               const std::optional<uint64_t>& blocks, bool keep_short,
                               int sample_size = 1);

// Share k (0 <= k < n) of a list for cluster job arrays (Slurm's array index, Kubernetes'
// completion index): the indexes of a contiguous run of
// items, the shares balanced by samples (item i goes to share floor(n x (samples before i +
// half its own) / all samples)). Deterministic: every job that expands the same command line
// computes the same shares, which together hold every item exactly once, in order.
std::vector<size_t> share_of(const std::vector<Item>& items, uint64_t k, uint64_t n);

// The device gpu where no GPU is usable, or a GPU index that is not there: Error{Device}
// before anything runs (so that no part of a report comes before it), each setting named by
// `names` and the way out said (device auto or cpu).
void require_gpus(const Settings& s, const SettingNames& names);

// What the caller sees of a run. finished() and tick() run on the thread that called
// run_items(); started(), progress() and note() on worker threads (at most one call at a
// time per worker).
struct RunObserver {
  // Every item's result, in item order (skipped and failed ones too; interrupted ones only
  // when the run stopped). The result may be moved from.
  std::function<void(size_t index, const Item& item, ItemResult& result)> finished;
  std::function<void()> tick;  // about every 250 ms while the run lasts (progress bars)
  std::function<void(int worker, const Item& item)> started;
  // (left: the permutations the phase is expected still to take, expected_permutations_left)
  std::function<void(int worker, const char* phase, uint32_t done, int active, uint32_t left)> progress;
  std::function<void(int worker)> idle;          // the worker finished its item
  // An IID assessment's estimates and chi-square and LRS results, before its permutation
  // tests (Hooks::tested).
  std::function<void(int worker, const Assessment& so_far)> tested;
  std::function<void(const std::string&)> note;  // from assess(): device choice
  std::function<bool()> may_start;               // false: start no new item (ea_calibrate --max-seconds)
};

struct RunSummary {
  size_t finished = 0;      // results delivered (not counting interrupted items)
  bool interrupted = false; // `interrupt` was set: the rest was not run
  std::string stopped_by;   // a worker failed outside any item (memory): the rest was not run
};

// How a run uses the machine.
struct RunPlan {
  int jobs = 1;          // workers, each with its own device slot (at most one per item)
  int threads_each = 0;  // CPU threads of each worker's assessments (0: settings.threads)
};

// The engine: made once per process (cli/ makes one; so will the C++ API and the Python
// module), it owns each worker's device slots (GPU contexts' buffers, streams, pinned
// memory: its GPUs from assign_gpus(settings.gpus, jobs, ...), every listed GPU busy) and
// keeps them across runs, so a second run (the next command of a script using the library,
// a restart's two data sets, ea_calibrate's generators) does not set the devices up again.
// Worker threads are started per run (cheap beside an assessment) and always joined before
// run() returns.
class Engine {
 public:
  Engine();
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Runs `items` with `settings` on plan.jobs workers, never more than 4 x jobs items ahead of
  // the oldest result not yet delivered. An item's error (bad input, a device failure) is
  // that item's Failed result; the others go on. `interrupt`: no new item starts, the running
  // ones stop between rounds, and the finished ones are still delivered. Returns once every
  // worker is joined; exceptions from the observer propagate (after the join). One run at a
  // time per engine.
  RunSummary run(const std::vector<Item>& items, const Settings& settings, const RunPlan& plan,
                 const std::atomic<bool>& interrupt, const RunObserver& observer);

 private:
  struct Worker;
  struct Run;
  Worker& worker(size_t w, const std::vector<GpuShare>& gpus, const Settings& settings);
  void work(Run& run, int w, const std::vector<GpuShare>& gpus, int threads_each);
  void deliver(Run& run, const std::atomic<bool>& interrupt);

  std::mutex workers_mutex_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

// A run on an engine of its own (tests, one-off callers).
RunSummary run_items(const std::vector<Item>& items, const Settings& settings, int jobs,
                     const std::atomic<bool>& interrupt, const RunObserver& observer);

}  // namespace ea
