// ea_iid: parse -> load -> assess -> report. The only place where errors become messages
// and exit codes.
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <random>

#include <atomic>
#include <csignal>

#include "assess.hpp"
#include "batch.hpp"
#include "logging.hpp"
#include "common/error.hpp"
#include "options.hpp"
#include "report.hpp"

namespace {

constexpr int kExitOk = 0, kExitNotIid = 1, kExitError = 2;

// SIGINT/SIGTERM: the first asks the run to stop between rounds (finished results are
// kept); a second one ends the process at once.
std::atomic<bool> g_interrupt{false};
std::atomic<int> g_signal{0};

extern "C" void on_signal(int sig) {
  if (g_interrupt.load()) _exit(128 + sig);
  g_signal.store(sig);  // before the flag, so that whoever sees the flag sees the signal
  g_interrupt.store(true);
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

uint64_t os_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ static_cast<uint64_t>(rd());
}


int fail(const ea::cli::Options& o, const std::string& started, const std::string& message) {
  ea::cli::logger().error("{}", message);
  if (o.json_path) {
    try {
      ea::cli::write_json_atomically(*o.json_path, ea::cli::error_json(o, started, message));
    } catch (const std::exception& e) {
      ea::cli::logger().error("{}", e.what());
    }
  }
  return kExitError;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ea;
  cli::Options o;
  const std::string started = cli::timestamp_now();
  try {
    if (cli::parse_options(argc, argv, o) == cli::ParseStatus::Exit0) return kExitOk;
  } catch (const Error& e) {
    o.json_path = cli::scan_json_path(argc, argv);
    o.command_line = cli::join_command_line(argc, argv);
    return fail(o, started, e.what());
  }

  install_signal_handlers();
  try {
    cli::init_logging(!o.log_level.empty() ? o.log_level : o.quiet ? "error" : "info");
    AssessConfig cfg;
    cfg.initial_entropy = o.initial_entropy;
    cfg.truncate_bitstring = o.truncate_bitstring;
    cfg.seed = o.seed ? *o.seed : os_seed();
    cfg.prng = o.prng;
    cfg.iterations = o.iterations;
    cfg.early_exit = !o.no_early_exit;
    cfg.all_tests = o.all_tests;
    cfg.threads = o.threads > 0 ? o.threads : omp_get_max_threads();
    cfg.device = o.device;
    cfg.gpu_id = o.gpu_id;
    cfg.round_size = o.round_size;
    cfg.verify = o.verify;
    cfg.gpu_compression = !o.cpu_compression;
    cfg.interrupt = &g_interrupt;
    // The seed and the device choice are logged at info with -v, at debug otherwise.
    const auto detail = (!o.quiet && o.verbose >= 1) ? spdlog::level::info : spdlog::level::debug;
    cfg.note = [detail](const std::string& m) { cli::logger().log(detail, "{}", m); };
    cli::logger().log(detail, "seed {}{}", cfg.seed, o.seed ? "" : " (drawn from the OS; pass --seed to repeat this run)");
    if (o.batch()) {
      return cli::run_batch(o, started, cfg, g_interrupt, g_signal);
    }

    std::optional<SubsetSpec> subset;
    if (o.subset_text) subset = parse_subset(*o.subset_text);
    Dataset data = load_dataset(o.file, o.bits, subset);

    const bool show_progress = !o.quiet && ::isatty(STDERR_FILENO);
    if (show_progress) {
      auto last = std::make_shared<std::chrono::steady_clock::time_point>();
      uint32_t iterations = cfg.iterations;
      cfg.progress = [last, iterations](const char* phase, uint32_t done, int active) {
        auto now = std::chrono::steady_clock::now();
        if (active > 0 && done < iterations && now - *last < std::chrono::milliseconds(200)) return;
        *last = now;
        std::fprintf(stderr, "\r\033[K%s: %u/%u permutations, %d undecided", phase, done, iterations, active);
        if (active == 0 || done >= iterations) std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
      };
    }

    Assessment a = assess(data, cfg);
    for (const auto& w : a.warnings) cli::logger().warn("{}", w);
    cli::print_text(stdout, a, o);
    std::fflush(stdout);
    if (o.json_path) cli::write_json_atomically(*o.json_path, cli::assessment_json(a, o, started));
    if (o.exit_code && a.verdict() != Verdict::Iid) return kExitNotIid;
    return kExitOk;
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted) {
      std::fprintf(stderr, "\n");
      cli::logger().error("interrupted; no result");
      return g_signal.load() == SIGTERM ? 143 : 130;
    }
    return fail(o, started, e.what());
  } catch (const std::exception& e) {
    return fail(o, started, std::string("internal error: ") + e.what());
  }
}
