// Issue "Never destroy a user's file": every case of the audit, as the CLI sees it.
// Data-loss cases compare the input's SHA-256 before and after the run.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <cerrno>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli_helpers.hpp"
#include "common/error.hpp"
#include "io/samples.hpp"
#include "output.hpp"

using namespace cli_test;

namespace {

// The first n samples of a bundled file, written to `path`.
std::string sample_file(const std::string& path, const std::string& sample = "truerand_8bit.bin", size_t n = 20000) {
  std::ifstream in(kSamples + sample, std::ios::binary);
  std::string bytes(n, '\0');
  in.read(&bytes[0], static_cast<std::streamsize>(n));
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string sha(const std::string& path) { return ea::sha256_file(path); }

// Runs ea_iid with `args` in `dir`; standard output goes to `stdout_to` (a shell
// redirection such as ">/dev/full") or is captured.
Result run_in(const std::string& dir, const std::string& args, const std::string& stdout_to = "") {
  const std::string out = dir + "/.stdout", err = dir + "/.stderr";
  const std::string cmd = "cd '" + dir + "' && " + EA_IID_EXE + " " + args + " " +
                          (stdout_to.empty() ? ">" + out : stdout_to) + " 2>" + err;
  const int status = std::system(cmd.c_str());
  Result r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

// The target of a symbolic link ("" when `p` is not one).
std::string link_of(const std::string& p) {
  char buf[4096];
  const ssize_t n = ::readlink(p.c_str(), buf, sizeof buf);
  return n < 0 ? "" : std::string(buf, static_cast<size_t>(n));
}

// Whether `p` exists, a dangling link included (lstat).
bool present(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    ::closedir(d);
  }
  return names;
}

// A background ea_iid (exec'ed, so that the pid is ea_iid's own) that a test signals.
struct SignalledChild {
  pid_t pid = -1;
  SignalledChild(const std::string& dir, const std::vector<std::string>& args, const std::string& out) {
    pid = fork();
    if (pid == 0) {
      if (::chdir(dir.c_str()) != 0) _exit(126);
      const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      std::vector<char*> argv{const_cast<char*>(EA_IID_EXE)};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(EA_IID_EXE, argv.data());
      _exit(127);
    }
  }
  // The exit status (128 + the signal when a signal ended it). No time limit: a hang is
  // ctest's timeout, and no test here asserts a wall time (a loaded 2-core machine is slow).
  int wait() {
    int status = 0;
    while (::waitpid(pid, &status, 0) != pid) {
      if (errno != EINTR) return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

}  // namespace

TEST_CASE("case 1: the input sample file is never overwritten (-o, --jsonl, stdout)") {
  const std::string d = scratch("safe1");
  sample_file(d + "/a.bin");
  sample_file(d + "/c.bin", "truerand_4bit.bin");
  sample_file(d + "/x.bin", "truerand_8bit.bin", 3000);
  sample_file(d + "/y.bin", "truerand_1bit.bin", 3000);
  const std::string a = sha(d + "/a.bin"), c = sha(d + "/c.bin"), y = sha(d + "/y.bin"), x = sha(d + "/x.bin");

  Result r = run_in(d, "-o a.bin");  // the file argument forgotten
  CHECK(r.code == 2);
  CHECK(sha(d + "/a.bin") == a);
  r = run_in(d, "--iterations 0 -o a.bin a.bin");  // a usage error
  CHECK(r.code == 2);
  CHECK(r.err.find("--iterations: 0 is out of range") != std::string::npos);
  CHECK(sha(d + "/a.bin") == a);
  r = run_in(d, "-q --seed 1 --iterations 200 -o a.bin a.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("-o a.bin: is the input file a.bin") != std::string::npos);
  CHECK(sha(d + "/a.bin") == a);
  r = run_in(d, "-q --seed 1 --iterations 200 -o ./a.bin a.bin");  // another name, the same file
  CHECK(r.code == 2);
  CHECK(sha(d + "/a.bin") == a);

  // --jsonl naming a sample file that is not an input: an existing non-empty file is refused.
  r = run_in(d, "--seed 1 --iterations 200 --jsonl c.bin x.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("exists and is not empty") != std::string::npos);
  CHECK(sha(d + "/c.bin") == c);
  // ... and one that is an input, even with --force or through a symlink or hard link.
  r = run_in(d, "--seed 1 --iterations 200 --force --jsonl y.bin x.bin y.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("is the input file y.bin") != std::string::npos);
  REQUIRE(::symlink("y.bin", (d + "/y-link").c_str()) == 0);
  REQUIRE(::link((d + "/y.bin").c_str(), (d + "/y-hard").c_str()) == 0);
  CHECK(run_in(d, "--seed 1 --iterations 200 --append --jsonl y-link x.bin y.bin").code == 2);
  CHECK(run_in(d, "--seed 1 --iterations 200 --append --jsonl y-hard x.bin y.bin").code == 2);
  r = run_in(d, "--seed 1 --iterations 200 -o y-link x.bin");  // not an input of this run, but a link
  CHECK(r.code == 2);
  CHECK(r.err.find("-o y-link: is a symbolic link to ") != std::string::npos);
  CHECK(sha(d + "/y.bin") == y);
  // -o DIR/ of one file: DIR/NAME.json that is the input (here through a hard link) is refused.
  REQUIRE(::mkdir((d + "/out").c_str(), 0777) == 0);
  REQUIRE(::link((d + "/y.bin").c_str(), (d + "/out/y.bin.json").c_str()) == 0);
  r = run_in(d, "-q --seed 1 --iterations 200 -o out/ y.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("out/y.bin.json: is the input file y.bin") != std::string::npos);
  CHECK(sha(d + "/y.bin") == y);
  // Standard output appended to an input.
  r = run_in(d, "--seed 1 --iterations 200 x.bin", ">>x.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("standard output is the input file x.bin") != std::string::npos);
  CHECK(sha(d + "/x.bin") == x);
}

TEST_CASE("case 2: a per-file write failure in batch -o DIR/ is that item's error; no crash, summary kept") {
  const std::string d = scratch("safe2");
  sample_file(d + "/x.bin", "truerand_8bit.bin", 3000);
  sample_file(d + "/y.bin", "truerand_4bit.bin", 3000);
  std::ofstream(d + "/afile") << "keep me";
  Result r = run_in(d, "-q --seed 1 --iterations 200 -o afile/ x.bin y.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("afile/") != std::string::npos);
  CHECK(slurp(d + "/afile") == "keep me");
  r = run_in(d, "--seed 1 --iterations 200 -o afile x.bin y.bin");  // a regular file, not a folder
  CHECK(r.code == 2);
  CHECK(slurp(d + "/afile") == "keep me");

  REQUIRE(::mkdir((d + "/od").c_str(), 0755) == 0);
  REQUIRE(::mkdir((d + "/od/x.bin.json").c_str(), 0755) == 0);
  r = run_in(d, "--seed 1 --iterations 200 -o od/ x.bin y.bin");  // a folder in the way: refused before any work
  CHECK(r.code == 2);
  CHECK(r.err.find("-o od/x.bin.json: is a folder") != std::string::npos);
  CHECK(r.out == "");
  CHECK_FALSE(present(d + "/od/y.bin.json"));
  // A folder put in the way after the checks (while ea_iid waits on the FIFO ff): the write
  // of ff's result fails when it finishes; that is its error, the batch goes on.
  REQUIRE(::mkfifo((d + "/ff").c_str(), 0644) == 0);
  SignalledChild c(d, {"--allow-stream", "--seed", "1", "--iterations", "200", "-o", "od/", "ff", "y.bin"}, d + "/od.log");
  {
    int fd = -1;  // opens once the reader is there: every check is done by then
    for (int i = 0; i < 400 && fd < 0; ++i) {
      fd = ::open((d + "/ff").c_str(), O_WRONLY | O_NONBLOCK);
      if (fd < 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    REQUIRE(fd >= 0);
    ::fcntl(fd, F_SETFL, 0);
    REQUIRE(::mkdir((d + "/od/ff.json").c_str(), 0755) == 0);
    const std::string bytes = slurp(d + "/x.bin");
    CHECK(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    ::close(fd);
  }
  CHECK(c.wait() == 2);  // was 134 (SIGABRT: an exception left run_batch with joinable threads)
  const std::string log = slurp(d + "/od.log");
  CHECK(log.find("2 items: ") != std::string::npos);
  CHECK(log.find("; some assessments had errors") != std::string::npos);
  CHECK(log.find("od/ff.json: is a folder") != std::string::npos);
  auto j = nlohmann::json::parse(slurp(d + "/od/y.bin.json"));
  CHECK(j["errorLevel"] == 0);
}

TEST_CASE("case 3: two inputs with one base name get two output names (a short hash of their paths)") {
  const std::string d = scratch("safe3");
  ::mkdir((d + "/d1").c_str(), 0755);
  ::mkdir((d + "/d2").c_str(), 0755);
  sample_file(d + "/d1/s.bin", "truerand_8bit.bin", 3000);
  sample_file(d + "/d2/s.bin", "truerand_4bit.bin", 3000);
  Result r = run_in(d, "-q --iterations 200 --blocks 1500 -o out/ d1/s.bin d2/s.bin");
  CHECK(r.code == 0);
  CHECK_FALSE(present(d + "/out/s.bin.block0.json"));
  // SHA-256("d1/s.bin") and SHA-256("d2/s.bin") begin with these 8 hex digits.
  const std::string h1 = "49bc9e28", h2 = "f45ffac3";
  for (const std::string& h : {h1, h2}) {
    for (int b = 0; b < 2; ++b) {
      const std::string name = d + "/out/s.bin." + h + ".block" + std::to_string(b) + ".json";
      CAPTURE(name);
      REQUIRE(present(name));
      auto j = nlohmann::json::parse(slurp(name));
      CHECK(j["input"]["path"] == (h == h1 ? "d1/s.bin" : "d2/s.bin"));
    }
  }
}

TEST_CASE("case 4: -o never replaces what is not a regular file") {
  const std::string d = scratch("safe4");
  sample_file(d + "/x.bin", "truerand_8bit.bin", 3000);
  REQUIRE(::mkfifo((d + "/fifo").c_str(), 0644) == 0);
  Result r = run_in(d, "-q --seed 1 --iterations 200 -o fifo x.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("is a FIFO") != std::string::npos);
  struct stat st {};
  REQUIRE(::lstat((d + "/fifo").c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  if (::mknod((d + "/myfull").c_str(), S_IFCHR | 0644, makedev(1, 7)) == 0) {  // as root: /dev/full's numbers
    r = run_in(d, "-q --seed 1 --iterations 200 -o myfull x.bin");
    CHECK(r.code == 2);
    CHECK(r.err.find("is a character device") != std::string::npos);
    REQUIRE(::lstat((d + "/myfull").c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
  } else {
    MESSAGE("mknod not permitted (not root): the character-device case is covered by the FIFO case only");
  }
  // A folder is not replaced either: -o names a folder then, and the result goes into it.
  r = run_in(d, "-q --seed 1 --iterations 200 -o . x.bin");
  CHECK(r.code == 0);
  REQUIRE(::lstat(d.c_str(), &st) == 0);
  CHECK(S_ISDIR(st.st_mode));
  CHECK(nlohmann::json::parse(slurp(d + "/x.bin.json"))["errorLevel"] == 0);
}

TEST_CASE("case 5: temp files cannot be redirected by a planted symlink") {
  const std::string d = scratch("safe5");
  sample_file(d + "/x.bin", "truerand_8bit.bin", 3000);
  std::ofstream(d + "/victim.txt") << "precious";
  // The old temp name was PATH.tmp-PID: plant it for the next pids this test can spawn.
  for (int p = ::getpid(); p < ::getpid() + 400; ++p) {
    REQUIRE(::symlink("victim.txt", (d + "/out.json.tmp-" + std::to_string(p)).c_str()) == 0);
  }
  Result r = run_in(d, "-q --seed 1 --iterations 200 -o out.json x.bin");
  CHECK(r.code == 0);
  CHECK(slurp(d + "/victim.txt") == "precious");
  CHECK(nlohmann::json::parse(slurp(d + "/out.json"))["errorLevel"] == 0);
  // An output that is a symlink: refused (case 12), the link and its target untouched.
  REQUIRE(::symlink("victim.txt", (d + "/link.json").c_str()) == 0);
  CHECK(run_in(d, "-q --seed 1 --iterations 200 -o link.json x.bin").code == 2);
  CHECK(slurp(d + "/victim.txt") == "precious");
  struct stat st {};
  REQUIRE(::lstat((d + "/link.json").c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  // No temp file is left behind.
  for (const auto& n : entries(d)) CHECK_MESSAGE(n.rfind(".out.json.", 0) != 0, n);
}

TEST_CASE("case 6: write errors are errors; concurrent --append lines stay whole") {
  const std::string d = scratch("safe6");
  sample_file(d + "/x.bin", "truerand_8bit.bin", 3000);
  Result r = run_in(d, "--seed 1 --iterations 200 --jsonl /dev/full x.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("No space left on device") != std::string::npos);
  r = run_in(d, "--seed 1 --iterations 200 --jsonl - x.bin", ">/dev/full");
  CHECK(r.code == 2);
  r = run_in(d, "--seed 1 --iterations 200 x.bin", ">/dev/full");
  CHECK(r.code == 2);
  CHECK(r.err.find("cannot write to standard output: No space left on device") != std::string::npos);
  r = run_in(d, "--seed 1 --iterations 200 -v -v -v x.bin", ">/dev/full");
  CHECK(r.code == 2);

  // Two processes appending to one file: every line parses, none is lost.
  std::string files;
  for (int k = 0; k < 12; ++k) files += " x.bin";
  SignalledChild one(d, {"-q", "--seed", "1", "--iterations", "20", "--device", "cpu", "--jobs", "4", "--append", "--jsonl",
                "shared.jsonl", "--blocks", "300", "x.bin", "x.bin"},
            d + "/one.log");
  SignalledChild two(d, {"-q", "--seed", "2", "--iterations", "20", "--device", "cpu", "--jobs", "4", "--append", "--jsonl",
                "shared.jsonl", "--blocks", "300", "x.bin", "x.bin"},
            d + "/two.log");
  CHECK(one.wait() == 0);
  CHECK(two.wait() == 0);
  std::ifstream in(d + "/shared.jsonl");
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    CHECK_NOTHROW(nlohmann::json::parse(line));
  }
  CHECK(lines == 40);  // 2 processes x 2 files x 10 blocks
}

TEST_CASE("case 6: --resume's rewrite and a concurrent appender lose no row (one lock, the name followed)") {
  const std::string d = scratch("safe6b");
  const std::string path = d + "/r.lines";  // not a result file: the schema check skips it
  std::ofstream(path) << "{\"a\":1}\n{\"error\":1}\n";
  ea::cli::InputSet inputs;
  // A writer that opened the file before the rewrite appends to the new file, not the old one.
  ea::cli::JsonlWriter writer(path, ea::cli::JsonlWriter::Existing::Append, inputs);
  ea::cli::rewrite_jsonl(path, 20, "{\"a\":1}\n", inputs);
  writer.write_line("{\"b\":2}");
  writer.close();
  CHECK(slurp(path) == "{\"a\":1}\n{\"b\":2}\n");
  // Rows appended after --resume read the file: the rewrite refuses and changes nothing.
  std::ofstream(path, std::ios::app) << "{\"c\":3}\n";
  const std::string before = slurp(path);
  try {
    ea::cli::rewrite_jsonl(path, 16, "{\"a\":1}\n", inputs);
    FAIL("a file changed since it was read was rewritten");
  } catch (const ea::Error& e) {
    CHECK(e.kind() == ea::ErrorKind::Input);
    CHECK(std::string(e.what()).find("changed while --resume read it") != std::string::npos);
  }
  CHECK(slurp(path) == before);
}

TEST_CASE("case 6c: outputs in order: an interrupt stops before the next one and names those written; none after the last") {
  const std::string d = scratch("safe6c");
  ea::cli::InputSet inputs;
  std::atomic<bool> flag{false};
  ea::cli::OutputsInOrder files({{"merge", d + "/a.lines"}, {"--csv", d + "/b.csv"}, {"--html", d + "/c.html"}}, inputs,
                                &flag);
  files.write("merge", [] { return std::string("a\n"); });
  flag = true;
  bool made = false;
  try {
    files.write("--csv", [&made] {
      made = true;
      return std::string("b\n");
    });
    FAIL("an output was written after the interrupt");
  } catch (const ea::Error& e) {
    CHECK(e.kind() == ea::ErrorKind::Interrupted);
    CHECK(std::string(e.what()) == "interrupted: " + d + "/a.lines (merge) written (whole), " + d + "/b.csv (--csv) and " +
                                       d + "/c.html (--html) not written");
  }
  CHECK(!made);  // its text not even made
  CHECK(slurp(d + "/a.lines") == "a\n");
  CHECK(!std::filesystem::exists(d + "/b.csv"));
  // Set before the first: none written, all named; out of order: an internal error.
  ea::cli::OutputsInOrder none({{"merge", d + "/x.lines"}}, inputs, &flag);
  try {
    none.write("merge", [] { return std::string("x\n"); });
    FAIL("written after the interrupt");
  } catch (const ea::Error& e) {
    CHECK(std::string(e.what()) == "interrupted before any output was written: " + d + "/x.lines (merge) not written");
  }
  flag = false;
  ea::cli::OutputsInOrder order({{"merge", d + "/y.lines"}, {"--csv", d + "/y.csv"}}, inputs, &flag);
  CHECK_THROWS_AS(order.write("--csv", [] { return std::string(); }), ea::Error);
  order.write("merge", [] { return std::string("y\n"); });
  order.write("--csv", [] { return std::string("y\n"); });
  CHECK(slurp(d + "/y.csv") == "y\n");
}

TEST_CASE("case 7: FIFOs never hang; SIGINT/SIGTERM end a wait with 130/143, in batch mode too") {
  const std::string d = scratch("safe7");
  sample_file(d + "/x.bin", "truerand_8bit.bin", 3000);
  REQUIRE(::mkfifo((d + "/ff").c_str(), 0644) == 0);
  SignalledChild refused(d, {"ff"}, d + "/refused.log");
  CHECK(refused.wait() == 2);
  CHECK(slurp(d + "/refused.log").find("is a FIFO (named pipe), not a regular file; pass --allow-stream") !=
        std::string::npos);

  SignalledChild single(d, {"--allow-stream", "--seed", "1", "ff"}, d + "/single.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(single.pid, SIGINT);
  CHECK(single.wait() == 130);

  SignalledChild term(d, {"--allow-stream", "--seed", "1", "ff"}, d + "/term.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(term.pid, SIGTERM);
  CHECK(term.wait() == 143);

  SignalledChild batch(d, {"--allow-stream", "--seed", "1", "--iterations", "50", "--jsonl", "b.jsonl", "x.bin", "ff"},
              d + "/batch.log");
  for (int i = 0; i < 200 && slurp(d + "/b.jsonl").empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ::kill(batch.pid, SIGINT);  // the first signal ends it (the worker waits on the FIFO)
  CHECK(batch.wait() == 130);
  CHECK(slurp(d + "/batch.log").find("Incomplete: interrupted by SIGINT after 1 of 2") != std::string::npos);
}

TEST_CASE("case 8: more samples than the engine supports are refused at once, naming the file and the limit") {
  const std::string d = scratch("safe8");
  const std::string big = d + "/big.bin";
  std::ofstream(big).close();
  REQUIRE(::truncate(big.c_str(), static_cast<off_t>(ea::kMaxSamples) + 1) == 0);  // sparse
  // Refused before any sample is read (the messages below are the size checks'); no wall
  // time is asserted.
  Result r = run_in(d, "big.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("big.bin: 2147483648 samples to assess, more than the 2147483647") != std::string::npos);
  CHECK(r.err.find("-l INDEX,COUNT or --blocks COUNT") != std::string::npos);
  r = run_in(d, "-l 0,2147483648 big.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("more than the 2147483647") != std::string::npos);
  // Blocks of 1 sample would make 2^31 items: refused before any is made.
  r = run_in(d, "--blocks 1 --jsonl out.jsonl big.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("blocks of 1 samples cut it into 2147483648 items; a run holds at most 1000000") != std::string::npos);
  std::remove(big.c_str());
  // A stream that never ends is refused after kMaxStreamSamples, naming the bound.
  r = run_in(d, "--allow-stream /dev/zero");
  CHECK(r.code == 2);
  CHECK(r.err.find("a stream is read up to 268435456 samples unless a range of it is given") != std::string::npos);
  CHECK(r.err.find("-l INDEX,COUNT") != std::string::npos);
}

TEST_CASE("case 8: a sparse file over 4 GiB cut by --blocks reads the block past 2^32 exactly") {
  // 2^32 zero bytes (sparse: 16 blocks of 2^28, each a one-symbol error), then 20,000 real
  // samples as block 16, which must give the same result as those samples alone.
  const std::string d = scratch("safe8b");
  const std::string tail = sample_file(d + "/tail.bin", "truerand_8bit.bin", 20000);
  const std::string big = d + "/sparse.bin";
  {
    std::ofstream(big).close();
    REQUIRE(::truncate(big.c_str(), static_cast<off_t>(1) << 32) == 0);
    std::ofstream out(big, std::ios::binary | std::ios::app);
    out << slurp(tail);
  }
  Result r = run_in(d, "--seed 1 --iterations 20 --device cpu --blocks 268435456 --keep-short --jsonl blocks.jsonl "
                       "sparse.bin");
  CHECK(r.code == 5);  // the zero blocks have one symbol: degenerate sources, and no other error
  std::ifstream in(d + "/blocks.jsonl");
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  REQUIRE(lines.size() == 17);
  CHECK(lines[0]["errorMessage"].get<std::string>().find("1 symbol") != std::string::npos);
  const nlohmann::json& last = lines[16];
  CHECK(last["errorLevel"] == 0);
  CHECK(last["input"]["block"] == 16);
  CHECK(last["input"]["samples"] == 20000);
  REQUIRE(run_in(d, "--seed 1 --iterations 20 --device cpu -o tail.json tail.bin").code == 0);
  auto alone = nlohmann::json::parse(slurp(d + "/tail.json"));
  // Every deterministic number (the seed also depends on the offset, 2^32 here).
  for (const char* key : {"hOriginal", "hBitstring", "mean", "median", "passedChiSquareTests",
                          "passedLongestRepeatedSubstringTest"}) {
    CAPTURE(key);
    CHECK(last["testCases"][0][key] == alone["testCases"][0][key]);
  }
  CHECK(last["chiSquare"] == alone["chiSquare"]);
  CHECK(last["longestRepeatedSubstring"] == alone["longestRepeatedSubstring"]);
  std::remove(big.c_str());
}

TEST_CASE("case 9: the recorded SHA-256 is that of exactly the bytes assessed") {
  const std::string d = scratch("safe9");
  const std::string x = sample_file(d + "/x.bin", "truerand_8bit.bin", 5000);
  REQUIRE(::mkfifo((d + "/ff").c_str(), 0644) == 0);
  SignalledChild c(d, {"--allow-stream", "--seed", "1", "--iterations", "20", "-q", "-o", "ff.json", "ff"}, d + "/c.log");
  {
    // Opens once the reader is there (never blocks the test if it is not).
    int fd = -1;
    for (int i = 0; i < 400 && fd < 0; ++i) {
      fd = ::open((d + "/ff").c_str(), O_WRONLY | O_NONBLOCK);
      if (fd < 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    REQUIRE(fd >= 0);
    ::fcntl(fd, F_SETFL, 0);
    const std::string bytes = slurp(x);
    CHECK(::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    ::close(fd);
  }
  CHECK(c.wait() == 0);
  const auto j = nlohmann::json::parse(slurp(d + "/ff.json"));
  CHECK(j["sha256"] == sha(x));
  CHECK(j["input"]["samples"] == 5000);

  // A file that changes after it was fingerprinted is an error, never a silent mix.
  ea::FileFingerprint fp = ea::fingerprint_file(x);
  CHECK(fp.sha256 == sha(x));
  ea::LoadOptions opt;
  opt.subset = ea::SubsetSpec{1, 1000};
  opt.known = &fp;
  CHECK(ea::load_dataset(x, opt).sha256 == fp.sha256);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  { std::ofstream(x, std::ios::binary | std::ios::app) << "more"; }
  CHECK_THROWS_WITH_AS(ea::load_dataset(x, opt), doctest::Contains("changed while it was being read"), ea::Error);
}

TEST_CASE("case 10: numbers are parsed strictly: no wrap-around, no empty values") {
  const std::string d = scratch("safe10");
  sample_file(d + "/x.bin", "truerand_8bit.bin", 3000);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--seed=-1", "'-1' is not a non-negative integer"},
      {"--seed 18446744073709551616", "out of range"},
      {"--seed 99999999999999999999999", "out of range"},
      {"--seed ''", "empty value"},
      {"--seed=-0x10", "not a non-negative integer"},
      {"--seed 12abc", "is not a number"},
      {"--iterations abc", "--iterations: 'abc' is not a number"},
      {"--iterations 4294967297", "out of range"},
      {"--threads 0", "out of range"},
      {"--jobs 1.5", "is not a number"},
      {"--bits ' 8'", "is not a number"},
      {"--blocks 0", "out of range"},
      {"--round-size -3", "not a non-negative integer"},
      {"--gpu ''", "empty value"},
  };
  for (const auto& [args, message] : bad) {
    CAPTURE(args);
    Result r = run_in(d, args + " x.bin");
    CHECK(r.code == 2);
    CHECK(r.err.find(message) != std::string::npos);
  }
  // 0x hex is a seed too: the same counters as its decimal value.
  REQUIRE(run_in(d, "-q --seed 0x10 --iterations 50 -o hex.json x.bin").code == 0);
  REQUIRE(run_in(d, "-q --seed 16 --iterations 50 -o dec.json x.bin").code == 0);
  const auto hex = nlohmann::json::parse(slurp(d + "/hex.json")), dec = nlohmann::json::parse(slurp(d + "/dec.json"));
  CHECK(hex["permutation"]["userSeed"] == "16");
  CHECK(hex["testCases"][0]["permutationTestResults"] == dec["testCases"][0]["permutationTestResults"]);
}

TEST_CASE("case 11: -l with --blocks, devices without --allow-stream, a stream with -l") {
  const std::string d = scratch("safe11");
  sample_file(d + "/x.bin", "truerand_8bit.bin", 3000);
  Result r = run_in(d, "--blocks 1000 -l 1,1000 x.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("-l and --blocks exclude each other") != std::string::npos);
  r = run_in(d, "/dev/zero");
  CHECK(r.code == 2);
  CHECK(r.err.find("/dev/zero: is a character device, not a regular file") != std::string::npos);
  r = run_in(d, "--allow-stream -l 0,1000 /dev/zero");  // read 1,000 bytes, then: one symbol
  CHECK(r.code == 5);  // a degenerate source
  CHECK(r.err.find("1 symbol") != std::string::npos);
  r = run_in(d, "--allow-stream -l 2,3000 --seed 1 --iterations 20 -q -o u.json /dev/urandom");
  CHECK(r.code == 0);
  CHECK(nlohmann::json::parse(slurp(d + "/u.json"))["input"]["samples"] == 3000);
}

// Issue "Trust v3", item 2. Only private links made here: a test never names the system's
// /dev/stdout (the old code, run as root, replaced it with a regular file).
TEST_CASE("case 12: an output that names a descriptor (a link to /proc/self/fd/1, /dev/fd/N) is written through") {
  const std::string d = scratch("safe12");
  sample_file(d + "/x.bin", "truerand_8bit.bin", 3000);
  REQUIRE(::symlink("/proc/self/fd/1", (d + "/to-stdout").c_str()) == 0);
  REQUIRE(::mkdir((d + "/sub").c_str(), 0755) == 0);
  REQUIRE(::symlink("../to-stdout", (d + "/sub/chain").c_str()) == 0);  // relative, two links
  REQUIRE(::symlink("/dev/stdout", (d + "/to-dev-stdout").c_str()) == 0);
  for (const std::string name : {"to-stdout", "sub/chain", "to-dev-stdout"}) {
    CAPTURE(name);
    const Result r = run_in(d, "--seed 1 --iterations 200 -o " + name + " x.bin");
    CHECK(r.code == 0);
    // As -o -: the JSON alone on standard output, the text report on standard error.
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    CHECK(j.is_object());
    if (j.is_object()) CHECK(j["errorLevel"] == 0);
    CHECK(r.err.find("H_original: ") != std::string::npos);
    CHECK(link_of(d + "/" + name) == (name == "to-stdout"   ? "/proc/self/fd/1"
                                      : name == "sub/chain" ? "../to-stdout"
                                                            : "/dev/stdout"));
  }
  CHECK(link_of(d + "/to-stdout") == "/proc/self/fd/1");
  // Two outputs on standard output, one of them through the link: refused as for two "-".
  Result r = run_in(d, "--seed 1 --iterations 200 --csv to-stdout --jsonl - x.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("both write to standard output") != std::string::npos);
  // ea_iid conditioning's -o too.
  r = run_in(d, "conditioning vetted 1024 256 256 0.5 -o sub/chain");
  CHECK(r.code == 0);
  CHECK(nlohmann::json::parse(r.out, nullptr, false).is_object());
  CHECK(link_of(d + "/sub/chain") == "../to-stdout");

  // A pipe on descriptor 3 (as bash's -o >(gzip > x.gz) gives /dev/fd/63): -o /dev/fd/3 and a
  // link to it write into the pipe; --jsonl too.
  REQUIRE(::symlink("/dev/fd/3", (d + "/to-fd3").c_str()) == 0);
  for (const std::string args : {"-o /dev/fd/3 x.bin", "-o to-fd3 x.bin", "--jsonl to-fd3 x.bin x.bin"}) {
    CAPTURE(args);
    std::remove((d + "/piped.json").c_str());
    const std::string cmd = "cd '" + d + "' && { " + EA_IID_EXE + " -q --seed 1 --iterations 200 " + args +
                            " 3>&1 >/dev/null 2>err.txt; echo $? >rc.txt; } | cat >piped.json";
    REQUIRE(std::system(cmd.c_str()) == 0);
    CHECK(slurp(d + "/rc.txt") == "0\n");
    CHECK(slurp(d + "/err.txt") == "");
    std::string piped = slurp(d + "/piped.json");
    if (args.rfind("--jsonl", 0) == 0) piped = piped.substr(0, piped.find('\n') + 1);  // the first row
    const auto j = nlohmann::json::parse(piped, nullptr, false);
    CHECK(j.is_object());
    CHECK(link_of(d + "/to-fd3") == "/dev/fd/3");
  }
  // A descriptor that is not open for writing is refused before any work.
  r = run_in(d, "--seed 1 --iterations 200 -o to-fd3 x.bin", ">out.txt 3</dev/null");
  CHECK(r.code == 2);
  CHECK(r.err.find("-o to-fd3: names descriptor 3, which is open only for reading") != std::string::npos);
  CHECK(slurp(d + "/out.txt") == "");
  r = run_in(d, "--seed 1 --iterations 200 -o to-fd3 x.bin", ">out.txt 3>&-");
  CHECK(r.code == 2);
  CHECK(r.err.find("-o to-fd3: names descriptor 3, which is not open") != std::string::npos);
  CHECK(link_of(d + "/to-fd3") == "/dev/fd/3");
}

TEST_CASE("case 12: any other link, FIFO or device at an output is refused before any work and left as it was") {
  const std::string d = scratch("safe12b");
  sample_file(d + "/x.bin", "truerand_8bit.bin", 3000);
  sample_file(d + "/y.bin", "truerand_4bit.bin", 3000);
  std::ofstream(d + "/victim.txt") << "precious";
  REQUIRE(::symlink("victim.txt", (d + "/link.json").c_str()) == 0);
  REQUIRE(::symlink("nowhere.json", (d + "/dangling.json").c_str()) == 0);
  REQUIRE(::symlink("/dev/null", (d + "/null-link").c_str()) == 0);
  REQUIRE(::mkfifo((d + "/fifo").c_str(), 0644) == 0);
  REQUIRE(::mkdir((d + "/out").c_str(), 0755) == 0);
  REQUIRE(::symlink("../victim.txt", (d + "/out/x.bin.json").c_str()) == 0);
  char real[4096];
  REQUIRE(::realpath((d + "/victim.txt").c_str(), real) != nullptr);
  const std::string victim = real;
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"--seed 1 --iterations 200 -o link.json x.bin", "-o link.json: is a symbolic link to " + victim +
                                 "; ea_iid does not replace links or write through them: name " + victim + " itself"},
      {"--seed 1 --iterations 200 -o dangling.json x.bin", "-o dangling.json: is a symbolic link to nowhere.json"},
      {"--seed 1 --iterations 200 -o null-link x.bin", "-o null-link: is a symbolic link to /dev/null, a character device"},
      {"--seed 1 --iterations 200 -o fifo x.bin", "-o fifo: is a FIFO"},
      {"--seed 1 --iterations 200 --jsonl link.json x.bin", "--jsonl link.json: is a symbolic link to " + victim},
      {"--seed 1 --iterations 200 --append --jsonl link.json x.bin", "--jsonl link.json: is a symbolic link to " + victim},
      {"--seed 1 --iterations 200 --csv link.json x.bin y.bin", "--csv link.json: is a symbolic link to " + victim},
      {"--seed 1 --iterations 200 --html dangling.json x.bin y.bin", "--html dangling.json: is a symbolic link to "},
      {"--seed 1 --iterations 200 --csv fifo x.bin y.bin", "--csv fifo: is a FIFO"},
      {"--seed 1 --iterations 200 --html fifo x.bin y.bin", "--html fifo: is a FIFO"},
      {"--seed 1 --iterations 200 -o out/ x.bin y.bin", "-o out/x.bin.json: is a symbolic link to " + victim},
      {"--resume --seed 1 --iterations 200 -o out/ x.bin y.bin", "-o out/x.bin.json: is a symbolic link to " + victim},
      {"merge link.json a.jsonl b.jsonl", "merge link.json: is a symbolic link to " + victim},
      {"merge --csv fifo o.jsonl a.jsonl b.jsonl", "--csv fifo: is a FIFO"},
      {"conditioning vetted 1024 256 256 0.5 -o link.json", "-o link.json: is a symbolic link to " + victim},
      {"source s1 x.bin --seed 1 --iterations 200 -o link.json", "-o link.json: is a symbolic link to " + victim},
      {"source s1 x.bin --seed 1 --iterations 200 --html fifo", "--html fifo: is a FIFO"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const Result r = run_in(d, c.args);
    CHECK(r.code == 2);
    CHECK_MESSAGE(r.err.find(c.message) != std::string::npos, r.err);
    CHECK(r.out == "");  // before any work: no text report, no summary table
    CHECK(slurp(d + "/victim.txt") == "precious");
    CHECK(link_of(d + "/link.json") == "victim.txt");
    CHECK(link_of(d + "/dangling.json") == "nowhere.json");
    CHECK(link_of(d + "/null-link") == "/dev/null");
    CHECK(link_of(d + "/out/x.bin.json") == "../victim.txt");
    CHECK_FALSE(present(d + "/nowhere.json"));
    struct stat st {};
    REQUIRE(::lstat((d + "/fifo").c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
  }
}

TEST_CASE("case 12: descriptor_of: the names of a descriptor, read without writing anything") {
  using ea::cli::descriptor_of;
  const std::string pid = std::to_string(::getpid());
  CHECK(descriptor_of("/dev/stdout") == 1);
  CHECK(descriptor_of("/dev/stderr") == 2);
  CHECK(descriptor_of("/dev/stdin") == 0);
  CHECK(descriptor_of("//dev/./stdout") == 1);
  CHECK(descriptor_of("/dev/fd/63") == 63);
  CHECK(descriptor_of("/proc/self/fd/5") == 5);
  CHECK(descriptor_of("/proc/thread-self/fd/4") == 4);
  CHECK(descriptor_of("/proc/" + pid + "/fd/3") == 3);
  CHECK(ea::cli::output_name("/dev/stdout") == "-");
  CHECK(ea::cli::output_name("/dev/fd/1") == "-");
  CHECK(ea::cli::output_name("/dev/stderr") == "/dev/stderr");
  for (const char* other : {"-", "", "/dev/null", "/dev/fd", "/dev/fd/x1", "/proc/self/fd", "out.json", "/dev/stdout/x"}) {
    CAPTURE(other);
    CHECK(descriptor_of(other) == -1);
  }
  const std::string d = scratch("safe12c");
  REQUIRE(::symlink("/dev/fd/9", (d + "/a").c_str()) == 0);
  REQUIRE(::symlink("a", (d + "/b").c_str()) == 0);
  REQUIRE(::symlink("b", (d + "/loop1").c_str()) == 0);
  REQUIRE(::symlink("loop2", (d + "/loop2").c_str()) == 0);
  REQUIRE(::symlink("plain.json", (d + "/dangling").c_str()) == 0);
  CHECK(descriptor_of(d + "/b") == 9);
  CHECK(descriptor_of(d + "/loop1") == 9);
  CHECK(descriptor_of(d + "/loop2") == -1);  // a loop ends
  CHECK(descriptor_of(d + "/dangling") == -1);
}
