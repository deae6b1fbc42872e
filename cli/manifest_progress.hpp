// The progress of ea_iid source --manifest on standard error (docs/manifest.md).
// - One job: as `ea_iid source` shows one source: each source's first line ("[2/8] NAME:
//   FILE"), then its progress (progress_lines: a line redrawn on a terminal, plain lines
//   without one).
// - Several jobs (--jobs J): on a terminal, one line for the whole run rewritten in place,
//   cut to the terminal's width, under the sources' first lines ("3/8 sources done, 2 running:
//   a (statistical tests 300/10000), b"); without a terminal, plain lines: each source's
//   first line, its progress lines named by the source ("a: statistical tests: ..."), and at
//   each end the same count of the run ("3/8 sources done, 2 running: a, b").
// Its calls come from the workers (started, progress, ended, say) and the calling thread
// (say, clear); one mutex orders them.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "manifest.hpp"
#include "runner.hpp"

namespace ea::cli {

class ManifestProgress {
 public:
  // `done`: the sources of this run already done (kept by --resume), of `total`; `terminal`:
  // standard error is one (a redrawn line with several jobs).
  ManifestProgress(const Manifest& m, size_t done, size_t total, int jobs, bool quiet, int verbose, bool terminal);
  ManifestProgress(const ManifestProgress&) = delete;
  ManifestProgress& operator=(const ManifestProgress&) = delete;
  ~ManifestProgress() { clear(); }

  void started(size_t k);  // source k's assessment starts (its first line)
  // Source k's progress and notes (assess_source's observer): `iterations` of its permutations.
  RunObserver watch(size_t k, uint32_t iterations);
  void ended(size_t k);  // source k's assessment ended (a record, an error or interrupted)
  // Writes a log line: with the run's line shown, it is cleared first and drawn again after.
  void say(const std::function<void()>& write);
  // Clears the run's line (before the lab table or the last words); drawn again at the next call.
  void clear();

 private:
  struct Running {
    std::string phase;
    uint32_t done = 0, iterations = 0;
  };
  void progress(size_t k, const char* phase, uint32_t done, uint32_t iterations, int active);
  // The run's line, at most `width` characters: "3/8 sources done, 2 running: a (...), b". Under mu_.
  std::string line(size_t width) const;
  void draw();  // under mu_

  const Manifest& m_;
  const size_t total_;
  const int jobs_;
  const bool quiet_, board_;  // board_: several jobs on a terminal
  const int verbose_;
  size_t done_;
  std::map<size_t, Running> running_;  // by source, in manifest order
  bool shown_ = false;                 // the run's line is on the terminal
  std::chrono::steady_clock::time_point drawn_{};
  mutable std::mutex mu_;
};

}  // namespace ea::cli
