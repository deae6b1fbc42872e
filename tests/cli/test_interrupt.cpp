// SIGINT/SIGTERM while the long computations run (the non-IID estimates of --non-iid, of the
// default track after a "not IID" verdict, of `source`; the conditioning's MPFR loop; merge
// reading its shares): exit 130/143, nothing written, an earlier -o kept byte for byte, no
// result shown. The signal
// is sent once the run is inside the computation; no wall time is asserted (a hang is
// ctest's timeout).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_helpers.hpp"

using namespace cli_test;

namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// ea_iid started in `dir` with `args`, its standard output and error in dir/out.txt and
// dir/err.txt.
struct Child {
  pid_t pid = -1;
  std::string out, err;
  bool ended = false;
  int status = 0;
  Child(const std::string& dir, const std::vector<std::string>& args) : out(dir + "/out.txt"), err(dir + "/err.txt") {
    pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      if (::chdir(dir.c_str()) != 0) _exit(126);
      ::dup2(::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 1);
      ::dup2(::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
      std::vector<char*> argv{const_cast<char*>(EA_IID_EXE)};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(EA_IID_EXE, argv.data());
      _exit(127);
    }
  }
  ~Child() {
    if (!ended) {
      ::kill(pid, SIGKILL);
      wait();
    }
  }
  double cpu_at_signal = 0, cpu_at_exit = 0;
  void reaped(const struct rusage& ru) {
    ended = true;
    cpu_at_exit = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                  static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  }
  bool running() {
    struct rusage ru {};
    if (!ended && ::wait4(pid, &status, WNOHANG, &ru) == pid) reaped(ru);
    return !ended;
  }
  // Sends `sig`, noting the CPU time used so far: the CPU time it uses after the signal says
  // whether the computation stopped or ran to its end (CPU time, not wall time: a loaded
  // machine slows the wall clock, not the work).
  void signal(int sig) {
    cpu_at_signal = cpu_seconds();
    ::kill(pid, sig);
  }
  double cpu_after_signal() const { return cpu_at_exit - cpu_at_signal; }
  // Its CPU time so far (user + system), in seconds.
  double cpu_seconds() const {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), {});
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream fields(stat.substr(close + 2));
    std::string f;
    unsigned long long utime = 0, stime = 0;
    for (int k = 3; k <= 15 && fields >> f; ++k) {  // state is field 3, utime 14, stime 15
      if (k == 14) utime = std::stoull(f);
      if (k == 15) stime = std::stoull(f);
    }
    return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }
  // Whether it catches `sig` now (its handler installed: SigCgt of /proc/PID/status).
  bool catches(int sig) const {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1;
    }
    return false;
  }
  // Until it catches SIGINT and SIGTERM and has worked `seconds` of CPU time (past its start,
  // inside the computation); false when it ended first. (Its handlers first: under the
  // sanitizers on a slow machine a start took 0.2 s of CPU before them, and SIGINT killed
  // it: session 35's CI.)
  bool busy_for(double seconds) {
    while (running() && (!catches(SIGINT) || !catches(SIGTERM) || cpu_seconds() < seconds)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return running();
  }
  // Until its standard error holds `text`; false when it ended first.
  bool said(const std::string& text) {
    while (running() && slurp(err).find(text) == std::string::npos) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return running();
  }
  // The exit status; -1 when a signal ended it (the handlers were not there).
  int wait() {
    while (!ended) {
      struct rusage ru {};
      if (::wait4(pid, &status, 0, &ru) == pid) reaped(ru);
      else if (errno != EINTR) return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

void copy_sample(const std::string& sample, const std::string& to) {
  std::ifstream in(kSamples + sample, std::ios::binary);
  std::ofstream(to, std::ios::binary) << in.rdbuf();
}

}  // namespace

TEST_CASE("SIGINT during --non-iid's estimates: exit 130, the earlier -o kept byte for byte, no result") {
  const std::string d = scratch("int1");
  copy_sample("truerand_8bit.bin", d + "/big.bin");
  // An earlier result in out.json (a file ea_iid may replace).
  REQUIRE(run("--non-iid -q -o " + d + "/out.json " + kSamples + "rand8_short.bin").code == 0);
  const std::string earlier = slurp(d + "/out.json");
  REQUIRE(earlier.find("\"nonIid\"") != std::string::npos);

  Child c(d, {"--non-iid", "--threads", "2", "-o", "out.json", "big.bin"});
  REQUIRE(c.busy_for(0.5));  // loaded (a few ms) and estimating (seconds of CPU in all)
  c.signal(SIGINT);
  CHECK(c.wait() == 130);
  // The estimates stopped: the rest of them is several CPU seconds (about 5 in all here).
  CHECK(c.cpu_after_signal() < 1.5);
  CHECK(slurp(d + "/out.json") == earlier);
  CHECK(slurp(c.out).find("min-entropy") == std::string::npos);  // it ended before its result
  CHECK(slurp(c.err).find("interrupted; no result") != std::string::npos);
}

TEST_CASE("SIGTERM during a --non-iid batch under -q: exit 143, no row for the item, nothing on standard output") {
  const std::string d = scratch("int2");
  copy_sample("truerand_8bit.bin", d + "/a.bin");
  copy_sample("truerand_4bit.bin", d + "/b.bin");
  // (2 threads, as the cases above: on 16 cores a.bin's estimates took 0.3 s, and 1 run in 6
  // finished them as the signal came; with 4 copies, 2 runs in 6 used more than 1.5 s of CPU
  // after it, session 42)
  Child c(d, {"--non-iid", "-q", "--jobs", "1", "--threads", "2", "--jsonl", "rows.jsonl", "a.bin", "b.bin"});
  REQUIRE(c.busy_for(0.5));
  c.signal(SIGTERM);
  CHECK(c.wait() == 143);
  CHECK(c.cpu_after_signal() < 1.5);  // a.bin's estimates did not run to their end
  CHECK(slurp(d + "/rows.jsonl").empty());
  CHECK(slurp(c.out).empty());
  CHECK(slurp(c.err).find("Incomplete: interrupted by SIGTERM after 0 of 2 assessments") != std::string::npos);
}

TEST_CASE("SIGINT during the non-IID estimates after a not-IID verdict: exit 130, the earlier -o kept") {
  const std::string d = scratch("int3");
  copy_sample("GetTickCount_8bit.bin", d + "/g.bin");
  REQUIRE(run("--seed 1 --iterations 20 -q -o " + d + "/out.json " + kSamples + "rand8_short.bin").code == 0);
  const std::string earlier = slurp(d + "/out.json");
  // Chi-square and LRS fail: with --until-decided the estimates follow at once.
  Child c(d, {"--seed", "1", "--until-decided", "--device", "cpu", "--threads", "2", "-v", "-o", "out.json", "g.bin"});
  REQUIRE(c.said("the non-IID estimates follow"));
  c.signal(SIGINT);
  CHECK(c.wait() == 130);
  CHECK(c.cpu_after_signal() < 1.5);  // the estimates stopped (several CPU seconds in all)
  CHECK(slurp(d + "/out.json") == earlier);
  CHECK(slurp(c.out).find("Non-IID min-entropy") == std::string::npos);
}

TEST_CASE("SIGTERM during `source`'s non-IID estimates: exit 143, neither -o nor --html written") {
  const std::string d = scratch("int4");
  copy_sample("truerand_8bit.bin", d + "/s.bin");
  Child c(d, {"source", "osc", "s.bin", "--track", "non-iid", "--threads", "2", "-o", "s.json", "--html", "s.html"});
  REQUIRE(c.said("the non-IID estimates"));
  c.signal(SIGTERM);
  CHECK(c.wait() == 143);
  CHECK(c.cpu_after_signal() < 1.5);  // the estimates stopped (several CPU seconds in all)
  CHECK(!exists(d + "/s.json"));
  CHECK(!exists(d + "/s.html"));
}

TEST_CASE("SIGINT during the conditioning's precision loop (n_in 2^24, minutes uncancelled): exit 130, -o kept") {
  const std::string d = scratch("int5");
  REQUIRE(run("conditioning vetted 1024 256 256 0.5 -o " + d + "/c.json").code == 0);
  const std::string earlier = slurp(d + "/c.json");
  REQUIRE(!earlier.empty());
  Child c(d, {"conditioning", "vetted", "16777216", "8388608", "16777216", "8388608", "-o", "c.json"});
  REQUIRE(c.busy_for(0.5));  // inside the MPFR loop (its arguments take microseconds)
  c.signal(SIGINT);
  CHECK(c.wait() == 130);
  CHECK(slurp(d + "/c.json") == earlier);
  CHECK(slurp(c.out).find("h_out") == std::string::npos);
}

TEST_CASE("SIGINT while merge reads its shares: exit 130, neither OUT nor --csv written, no temporary file") {
  // (out.txt and err.txt are the child's standard output and error.)
  const std::string d = scratch("int6");
  REQUIRE(run("--seed 1 --iterations 100 -q --jsonl " + d + "/one.txt " + kSamples + "rand8_short.bin").code == 0);
  // 2,000 rows of one run (the row of one item, numbered 0..1999): a second or more of CPU
  // time to read and check. (.txt: the schema check of the tests' outputs reads *.jsonl.)
  // The same rows as a run of 20 merge without an error (a merge of all 2,000 took 48 s
  // under the sanitizers, session 31's CI; of 200, most of this case's 31 s, session 42).
  // The row is written once with marks for its numbers, then copied with them replaced
  // (a dump a row took most of this test's 39 s in the sanitizers' -O0 build, session 42).
  nlohmann::ordered_json row = nlohmann::ordered_json::parse(slurp(d + "/one.txt"));
  row["run"]["item"] = 987654321;
  row["run"]["items"] = 987654322;
  const std::string text = row.dump();
  const size_t at_item = text.find("987654321"), at_items = text.find("987654322");
  REQUIRE(at_item != std::string::npos);
  REQUIRE(at_items != std::string::npos);
  REQUIRE(at_item < at_items);
  const auto write_rows = [&](const std::string& path, int count) {
    std::ofstream rows(path, std::ios::binary);
    for (int k = 0; k < count; ++k) {
      rows << text.substr(0, at_item) << k << text.substr(at_item + 9, at_items - at_item - 9) << count
           << text.substr(at_items + 9) << "\n";
    }
  };
  write_rows(d + "/rows.txt", 2000);
  write_rows(d + "/few.txt", 20);
  REQUIRE(run("merge " + d + "/whole.txt " + d + "/few.txt -q").code == 0);  // such rows merge
  Child c(d, {"merge", "merged.txt", "rows.txt", "--csv", "merged.csv"});
  REQUIRE(c.busy_for(0.2));  // reading the rows (their checks take most of its CPU time)
  c.signal(SIGINT);
  CHECK(c.wait() == 130);  // -1 when SIGINT ended it (no handler)
  // It stopped reading at the next line: the rest of the 2,000 took about 2 s of CPU in a
  // Release build and 27 s under the sanitizers while merge looked at the flag only after
  // reading every share (session 48).
  CHECK(c.cpu_after_signal() < 0.5);
  CHECK(!exists(d + "/merged.txt"));
  CHECK(!exists(d + "/merged.csv"));
  for (const auto& e : std::filesystem::directory_iterator(d)) {
    CHECK_MESSAGE(e.path().filename().string()[0] != '.', "a temporary file was left: " << e.path());
  }
  CHECK(slurp(c.err).find("interrupted while reading the shares: no output written") != std::string::npos);
  std::filesystem::remove(d + "/rows.txt");
  std::filesystem::remove(d + "/few.txt");
  std::filesystem::remove(d + "/whole.txt");
}
