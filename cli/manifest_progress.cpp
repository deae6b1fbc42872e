#include "manifest_progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

#include "logging.hpp"
#include "run.hpp"
#include "summary.hpp"

namespace ea::cli {

namespace {

// The terminal's width on standard error (80 when it does not say).
size_t terminal_width() {
  struct winsize ws {};
  return ::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

}  // namespace

ManifestProgress::ManifestProgress(const Manifest& m, size_t done, size_t total, int jobs, bool quiet, int verbose,
                                   bool terminal)
    : m_(m), total_(total), jobs_(jobs), quiet_(quiet), board_(jobs > 1 && terminal && !quiet), verbose_(verbose),
      done_(done) {}

void ManifestProgress::started(size_t k) {
  std::lock_guard<std::mutex> lock(mu_);
  running_[k] = Running{};
  if (quiet_) return;
  if (shown_) std::fputs("\r\033[K", stderr);
  shown_ = false;
  const ManifestSource& src = m_.sources[k];
  logger().info("[{}/{}] {}: {}", k + 1, m_.sources.size(), src.spec.name, src.spec.samples);
  if (board_) draw();
}

RunObserver ManifestProgress::watch(size_t k, uint32_t iterations) {
  RunObserver w;
  if (!quiet_ && verbose_) {
    const std::string named = jobs_ > 1 ? m_.sources[k].spec.name + ": " : "";  // several at once: whose
    w.note = [this, named](const std::string& line) { say([&] { logger().info("  {}{}", named, line); }); };
  }
  if (board_) {
    w.progress = [this, k, iterations](int, const char* phase, uint32_t done, int active, uint32_t) {
      progress(k, phase, done, iterations, active);
    };
  } else {
    // Each source's own lines, named by the source when several run at once.
    w.progress = progress_lines(quiet_, verbose_, iterations, jobs_ > 1 ? m_.sources[k].spec.name : "");
  }
  return w;
}

void ManifestProgress::progress(size_t k, const char* phase, uint32_t done, uint32_t iterations, int active) {
  std::lock_guard<std::mutex> lock(mu_);
  Running& r = running_[k];
  r.phase = active > 0 && done < iterations ? phase : "";
  r.done = done;
  r.iterations = iterations;
  if (std::chrono::steady_clock::now() - drawn_ >= std::chrono::milliseconds(200)) draw();
}

void ManifestProgress::ended(size_t k) {
  std::lock_guard<std::mutex> lock(mu_);
  running_.erase(k);
  ++done_;
  if (quiet_ || jobs_ == 1) return;
  if (board_) {
    draw();
  } else {
    logger().info("{}", line(SIZE_MAX));
  }
}

void ManifestProgress::say(const std::function<void()>& write) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shown_) std::fputs("\r\033[K", stderr);
  shown_ = false;
  write();
  if (board_ && !running_.empty()) draw();
}

void ManifestProgress::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!shown_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

std::string ManifestProgress::line(size_t width) const {
  std::string s = std::to_string(done_) + "/" + std::to_string(total_) + " sources done";
  if (!running_.empty()) {
    s += ", " + std::to_string(running_.size()) + " running: ";
    bool first = true;
    for (const auto& [k, r] : running_) {
      s += (first ? "" : ", ") + m_.sources[k].spec.name;
      if (!r.phase.empty()) s += " (" + r.phase + " " + std::to_string(r.done) + "/" + std::to_string(r.iterations) + ")";
      first = false;
    }
  }
  return width < 4 || text_cells(s) <= width ? s : first_cells(s, width - 3) + "...";
}

void ManifestProgress::draw() {
  // One character short of the width: a line that fills it would wrap on some terminals.
  std::fprintf(stderr, "\r\033[K%s", line(terminal_width() - 1).c_str());
  std::fflush(stderr);
  shown_ = true;
  drawn_ = std::chrono::steady_clock::now();
}

}  // namespace ea::cli
