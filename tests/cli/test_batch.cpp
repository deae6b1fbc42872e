// Batch mode: several files with a bad one, --blocks, JSONL equal to single-file JSON,
// exit codes, SIGINT.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_helpers.hpp"

using namespace cli_test;

namespace {

std::vector<nlohmann::json> jsonl(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

std::string head_of(const std::string& sample, size_t n, const std::string& name) {
  std::ifstream in(kSamples + sample, std::ios::binary);
  std::string bytes(n, '\0');
  in.read(&bytes[0], static_cast<std::streamsize>(n));
  return write_bytes(name, bytes);
}

// The fields that differ between two runs of the same assessment (times, the command
// line, and the device description, which includes the free GPU memory).
nlohmann::json stable(nlohmann::json j) {
  j.erase("dateTimeStamp");
  j.erase("commandline");
  j.erase("timings");
  if (j.contains("permutation")) {
    j["permutation"].erase("device");
    j["permutation"].erase("workerThreads");  // a batch divides the cores among its --jobs
    j["permutation"].erase("threads");
  }
  j.erase("run");  // a batch row's place in its list
  return j;
}

// Runs ea_iid with `args`, waits for the first line of the JSONL file `out`, sends SIGINT
// and returns the exit status (-1 when it did not exit normally).
int interrupted_run(const std::vector<std::string>& args, const std::string& out) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::vector<const char*> argv{EA_IID_EXE};
    for (const auto& a : args) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    execv(EA_IID_EXE, const_cast<char* const*>(argv.data()));
    _exit(127);
  }
  // Until the first row is there or the run ended (no fixed wait: a loaded machine may take
  // minutes to write it).
  int status = 0;
  bool ended = false;
  while (jsonl(out).empty()) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      ended = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!ended) {
    kill(pid, SIGINT);
    waitpid(pid, &status, 0);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("several files with a bad one: every result written, the batch goes on, exit 2") {
  const std::string a = head_of("truerand_4bit.bin", 3000, "b1.bin");
  const std::string empty = write_bytes("b-empty.bin", "");
  const std::string out = tmp(std::to_string(::getpid()) + "-b1.jsonl");
  // A folder exists and fails to load: its error row (a name that names nothing is refused
  // before any work: usage-batch-name-not-a-file.case).
  const std::string folder = tmp(std::to_string(::getpid()) + "-b1-folder");
  REQUIRE(std::system(("mkdir -p '" + folder + "'").c_str()) == 0);
  Result r = run("--seed 3 --iterations 100 --jsonl " + out + " " + a + " " + empty + " " + folder + " " + a);
  CHECK(r.code == 2);
  auto lines = jsonl(out);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0]["errorLevel"] == 0);
  CHECK(lines[1]["errorLevel"] == -1);
  CHECK(lines[1]["errorMessage"].get<std::string>().find("file is empty") != std::string::npos);
  CHECK(lines[2]["errorMessage"].get<std::string>().find("is a directory") != std::string::npos);
  CHECK(lines[3]["errorLevel"] == 0);
  // Seeds come from the batch seed and the data, not the position: the same file twice
  // gets the same seed and the same counters.
  CHECK(lines[0]["permutation"]["seed"] == lines[3]["permutation"]["seed"]);
  CHECK(lines[0]["testCases"] == lines[3]["testCases"]);
  CHECK(r.out.find("file") == 0);  // the summary table
  CHECK(r.out.find("some assessments had errors") != std::string::npos);
}

TEST_CASE("--blocks on a file whose length is not a multiple of COUNT") {
  const std::string f = head_of("truerand_8bit.bin", 2500, "b2.bin");
  const std::string out = tmp(std::to_string(::getpid()) + "-b2.jsonl");
  Result r = run("--seed 9 --iterations 50 --blocks 1000 --jsonl " + out + " " + f);
  CHECK(r.code == 0);
  auto lines = jsonl(out);
  REQUIRE(lines.size() == 3);  // blocks 0 and 1; the 500-sample block 2 is skipped, and says so
  CHECK(lines[0]["input"]["block"] == 0);
  CHECK(lines[1]["input"]["block"] == 1);
  CHECK(lines[1]["input"]["samples"] == 1000);
  CHECK(lines[2]["input"]["block"] == 2);
  CHECK(lines[2]["skipped"].get<std::string>().find("short block (500 of 1000 samples)") != std::string::npos);
  CHECK(lines[2]["run"]["item"] == 2);
  CHECK(r.out.find("short block skipped (500 of 1000)") != std::string::npos);  // the table's words
  // The file now holds three lines: --force replaces them (without it the run is refused).
  Result keep = run("--seed 9 --iterations 50 --blocks 1000 --keep-short --force --jsonl " + out + " " + f);
  CHECK(keep.code == 0);
  lines = jsonl(out);
  REQUIRE(lines.size() == 3);
  CHECK(lines[2]["input"]["samples"] == 500);
}

TEST_CASE("a JSONL line equals the single-file JSON of the same input and seed") {
  const std::string f = head_of("truerand_1bit.bin", 4000, "b3.bin");
  const std::string out = tmp(std::to_string(::getpid()) + "-b3.jsonl");
  REQUIRE(run("--seed 77 --iterations 300 --blocks 2000 --jsonl " + out + " " + f).code == 0);
  auto lines = jsonl(out);
  REQUIRE(lines.size() == 2);
  const std::string single = tmp(std::to_string(::getpid()) + "-b3.json");
  const std::string seed = lines[1]["permutation"]["userSeed"];  // the recorded string, fed back
  CHECK(seed == "77");
  REQUIRE(run("--seed " + seed + " --iterations 300 -l 1,2000 -o " + single + " " + f).code == 0);
  nlohmann::json one = nlohmann::json::parse(slurp(single));
  nlohmann::json batch = lines[1];
  batch["input"].erase("block");
  CHECK(stable(batch) == stable(one));
}

TEST_CASE("--jobs: assessments in flight at once give the lines of a one-at-a-time run, in input order") {
  const std::string a = head_of("truerand_8bit.bin", 6000, "b6a.bin");
  const std::string b = head_of("truerand_1bit.bin", 3000, "b6b.bin");
  const std::string empty = write_bytes("b6-empty.bin", "");
  const std::string files = a + " " + empty + " " + b + " " + a;
  const std::string one = tmp(std::to_string(::getpid()) + "-b6-1.jsonl");
  const std::string three = tmp(std::to_string(::getpid()) + "-b6-3.jsonl");
  const std::string common = "--seed 5 --iterations 200 --device cpu --blocks 2000 ";
  Result r1 = run(common + "--jobs 1 --jsonl " + one + " " + files);
  Result r3 = run(common + "--jobs 3 --jsonl " + three + " " + files);
  CHECK(r1.code == 2);  // the empty file
  CHECK(r3.code == 2);
  auto l1 = jsonl(one), l3 = jsonl(three);
  REQUIRE(l1.size() == 3 + 1 + 2 + 3);  // b's short block has its "skipped" line
  REQUIRE(l3.size() == l1.size());
  for (size_t k = 0; k < l1.size(); ++k) {
    CAPTURE(k);
    CHECK(stable(l3[k]) == stable(l1[k]));
  }
  CHECK(l3[3]["errorLevel"] == -1);
  CHECK(l3[4]["input"]["block"] == 0);
  // The same summary table: one row per item (the skipped short block included).
  CHECK(std::count(r3.out.begin(), r3.out.end(), '\n') == std::count(r1.out.begin(), r1.out.end(), '\n'));
  CHECK(r3.out.find("short block skipped (1000 of 2000)") != std::string::npos);
  CHECK(r3.out.find("some assessments had errors") != std::string::npos);
}

TEST_CASE("a batch divides the CPU threads among its --jobs unless --threads is given") {
  const std::string a = head_of("truerand_8bit.bin", 3000, "thr-a.bin");
  const std::string b = head_of("truerand_4bit.bin", 3000, "thr-b.bin");
  const std::string out = tmp(std::to_string(::getpid()) + "-thr.jsonl");
  const std::string common = " --seed 5 --iterations 100 --device cpu --force --jsonl " + out + " " + a + " " + b;
  const std::string env = "env OMP_NUM_THREADS=6 ";
  auto threads_of = [&](const std::string& args) {
    Result r = run_with_env(env, args + common);
    CHECK(r.code == 0);
    std::vector<int> t;
    for (const auto& row : jsonl(out)) {
      t.push_back(row["permutation"]["workerThreads"].get<int>());
      // What was asked is recorded as asked (never edited to a worker's share).
      CHECK(row["permutation"]["threads"].get<int>() == (args.find("--threads 5") != std::string::npos ? 5 : 6));
    }
    return t;
  };
  CHECK(threads_of("--jobs 3") == std::vector<int>{2, 2});
  CHECK(threads_of("--jobs 1") == std::vector<int>{6, 6});
  CHECK(threads_of("--jobs 8") == std::vector<int>{1, 1});
  CHECK(threads_of("--jobs 2 --threads 5") == std::vector<int>{5, 5});
}

TEST_CASE("batch exit codes: 0, and 1 with --exit-code when one is not IID") {
  std::string ramp;
  for (int i = 0; i < 5000; ++i) ramp.push_back(static_cast<char>((i / 5) % 256));
  const std::string bad = write_bytes("b-ramp.bin", ramp);
  const std::string ok = head_of("truerand_4bit.bin", 3000, "b4.bin");
  CHECK(run("--seed 1 --iterations 100 -q " + ok + " " + bad).code == 0);
  CHECK(run("--seed 1 --iterations 100 -q --exit-code " + ok + " " + bad).code == 1);
  // -o FILE in batch mode: one document of the batch (not a file per item).
  const std::string doc = tmp("batch-document.json");
  std::remove(doc.c_str());
  Result r = run("--seed 1 --iterations 100 -q -o " + doc + " " + ok + " " + bad);
  CHECK(r.code == 0);
  const auto j = nlohmann::json::parse(slurp(doc));
  CHECK(j["type"] == "Batch");
  CHECK(j["rows"].size() == 2);
  CHECK(j["counts"]["not IID"] == 1);
}

TEST_CASE("SIGINT: finished assessments stay as complete JSONL lines, exit 130") {
  const std::string out = tmp(std::to_string(::getpid()) + "-b5.jsonl");
  std::remove(out.c_str());
  const std::string f = kSamples + "truerand_8bit.bin";
  // Eight 100,000-sample blocks with full permutation counts: a second or more each (the
  // first row, then SIGINT).
  CHECK(interrupted_run({"--seed", "1", "--threads", "1", "--no-early-exit", "--iterations", "100", "--blocks", "100000",
                         "-q", "--jsonl", out, f},
                        out) == 130);
  auto lines = jsonl(out);  // every line parses
  CHECK(lines.size() >= 1);
  CHECK(lines.size() < 10);
  for (const auto& l : lines) CHECK(l["errorLevel"] == 0);
}

TEST_CASE("seeds depend on the data, not on the list: alone == in a batch of 5 in two orders == -l range") {
  const std::string a = head_of("truerand_8bit.bin", 3000, "s1a.bin");
  const std::string b = head_of("truerand_4bit.bin", 2500, "s1b.bin");
  const std::string c = head_of("truerand_1bit.bin", 4000, "s1c.bin");
  const std::string two = head_of("truerand_8bit.bin", 6000, "s1two.bin");  // a's 3,000 samples, then 3,000 more
  const std::string common = "--seed 4242 --iterations 300 --device cpu -q ";
  const std::string alone = tmp(std::to_string(::getpid()) + "-s1-alone.json");
  REQUIRE(run(common + "-o " + alone + " " + a).code == 0);
  const auto one = nlohmann::json::parse(slurp(alone));
  const std::string j1 = tmp(std::to_string(::getpid()) + "-s1-order1.jsonl");
  const std::string j2 = tmp(std::to_string(::getpid()) + "-s1-order2.jsonl");
  REQUIRE(run(common + "--force --jsonl " + j1 + " " + a + " " + b + " " + c + " " + two + " " + b).code == 0);
  REQUIRE(run(common + "--force --jobs 3 --jsonl " + j2 + " " + c + " " + b + " " + two + " " + b + " " + a).code == 0);
  const auto l1 = jsonl(j1), l2 = jsonl(j2);
  REQUIRE(l1.size() == 5);
  REQUIRE(l2.size() == 5);
  CHECK(l1[0]["permutation"]["seed"] == one["permutation"]["seed"]);
  CHECK(l1[0]["testCases"] == one["testCases"]);
  CHECK(l2[4]["testCases"] == one["testCases"]);
  CHECK(l2[4]["permutation"]["seed"] == one["permutation"]["seed"]);
  CHECK(l1[1]["testCases"] == l2[1]["testCases"]);  // b
  CHECK(l1[2]["testCases"] == l2[0]["testCases"]);  // c
  CHECK(l1[3]["testCases"] == l2[2]["testCases"]);  // two
  CHECK(l1[1]["permutation"]["seed"] != l1[2]["permutation"]["seed"]);
  // The same samples by -l at the same place: the first 3,000 samples of `two` are a's.
  const std::string range = tmp(std::to_string(::getpid()) + "-s1-range.json");
  REQUIRE(run(common + "-l 0,3000 -o " + range + " " + two).code == 0);
  const auto r = nlohmann::json::parse(slurp(range));
  CHECK(r["permutation"]["seed"] == one["permutation"]["seed"]);
  CHECK(r["testCases"][0]["permutationTestResults"] == one["testCases"][0]["permutationTestResults"]);
  // A block of a batch == the same range alone; the recorded seed strings fed back reproduce it.
  const std::string blocks = tmp(std::to_string(::getpid()) + "-s1-blocks.jsonl");
  REQUIRE(run(common + "--force --blocks 3000 --jsonl " + blocks + " " + two).code == 0);
  const auto bl = jsonl(blocks);
  REQUIRE(bl.size() == 2);
  CHECK(bl[0]["testCases"][0]["permutationTestResults"] == one["testCases"][0]["permutationTestResults"]);
  const std::string again = tmp(std::to_string(::getpid()) + "-s1-again.json");
  REQUIRE(run("--seed " + bl[1]["permutation"]["userSeed"].get<std::string>() +
              " --iterations 300 --device cpu -q -l 1,3000 -o " + again + " " + two).code == 0);
  const auto ag = nlohmann::json::parse(slurp(again));
  CHECK(ag["permutation"]["seed"] == bl[1]["permutation"]["seed"]);
  CHECK(ag["testCases"] == bl[1]["testCases"]);
}

TEST_CASE("--shard K/N: the shares merged by 'ea_iid merge' equal one run, row for row, for N = 1, 3, 4") {
  const std::string dir = tmp("shards-" + std::to_string(::getpid()));
  REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()) == 0);
  // 12 items of uneven sizes: three files in blocks of 3,000 (short last blocks skipped),
  // and a whole file.
  const std::string args = "--seed 3 --device cpu --iterations 200 -q --blocks 3000 " + kSamples + "rand8_short.bin " +
                           kSamples + "rand4_short.bin " + kSamples + "rand1_short.bin";
  REQUIRE(run(args + " --jsonl " + dir + "/full.jsonl").code == 0);
  const auto full = jsonl(dir + "/full.jsonl");
  REQUIRE(full.size() == 12);
  CHECK(full[3]["skipped"].get<std::string>().find("short block") != std::string::npos);  // skipped items have lines
  for (int n : {1, 3, 4}) {
    CAPTURE(n);
    std::string shares;
    size_t lines = 0;
    for (int k = 0; k < n; ++k) {
      const std::string part = dir + "/s" + std::to_string(n) + "-" + std::to_string(k) + ".jsonl";
      REQUIRE(run(args + " --shard " + std::to_string(k) + "/" + std::to_string(n) + " --jsonl " + part).code == 0);
      lines += jsonl(part).size();
      shares += " " + part;
    }
    CHECK(lines == full.size());  // every item in exactly one share
    const std::string merged = dir + "/merged" + std::to_string(n) + ".jsonl";
    Result m = run("merge -q " + merged + shares);
    REQUIRE(m.code == 0);
    const auto rows = jsonl(merged);
    REQUIRE(rows.size() == full.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      CAPTURE(i);
      CHECK(rows[i]["run"]["shard"]["count"] == n);
      CHECK(rows[i]["run"]["item"] == full[i]["run"]["item"]);
      CHECK(rows[i]["run"]["items"] == full[i]["run"]["items"]);
      CHECK(stable(rows[i]) == stable(full[i]));
    }
  }
  // merge --csv and --html: the whole run's reports, headed by the run's command line.
  const std::string three = " " + dir + "/s3-0.jsonl " + dir + "/s3-1.jsonl " + dir + "/s3-2.jsonl";
  Result reports = run("merge -q --csv " + dir + "/m.csv --html " + dir + "/m.html " + dir + "/mr.jsonl" + three);
  REQUIRE(reports.code == 0);
  const std::string merged_csv = slurp(dir + "/m.csv");
  CHECK(static_cast<size_t>(std::count(merged_csv.begin(), merged_csv.end(), '\n')) == 1 + full.size());
  const std::string merged_html = slurp(dir + "/m.html");
  CHECK(merged_html.find("--iterations 200") != std::string::npos);
  CHECK(merged_html.find("merge -q") == std::string::npos);
  // A missing share, a duplicate and a cut-off line are errors that say so.
  Result missing = run("merge " + dir + "/m.jsonl " + dir + "/s3-0.jsonl " + dir + "/s3-2.jsonl");
  CHECK(missing.code == 2);
  CHECK(missing.err.find("no line from share(s) 1 of 3") != std::string::npos);
  Result twice = run("merge " + dir + "/m.jsonl " + dir + "/s3-0.jsonl " + dir + "/s3-0.jsonl " + dir + "/s3-1.jsonl " +
                     dir + "/s3-2.jsonl");
  CHECK(twice.code == 2);
  CHECK(twice.err.find("each share once") != std::string::npos);
  std::string text;
  {
    std::ifstream in(dir + "/s3-1.jsonl");
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  std::ofstream(dir + "/torn.jsonl") << text.substr(0, text.size() - 20);
  Result torn = run("merge " + dir + "/m.jsonl " + dir + "/s3-0.jsonl " + dir + "/torn.jsonl " + dir + "/s3-2.jsonl");
  CHECK(torn.code == 2);
  CHECK(torn.err.find("the last line is incomplete") != std::string::npos);
  // An existing output is never replaced without --force.
  Result again = run("merge " + dir + "/merged3.jsonl " + dir + "/s3-0.jsonl " + dir + "/s3-1.jsonl " + dir + "/s3-2.jsonl");
  CHECK(again.code == 2);
  CHECK(again.err.find("--force replaces it") != std::string::npos);
}

TEST_CASE("--resume: interrupted mid-batch, resumed without --seed, equals an uninterrupted run; a cut-off line is redone") {
  const std::string dir = tmp("resume-" + std::to_string(::getpid()));
  REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()) == 0);
  const std::string f = head_of("truerand_8bit.bin", 165000, "resume.bin");
  const std::vector<std::string> common = {"--seed", "11", "--threads", "1", "--no-early-exit", "--iterations", "300",
                                           "--blocks", "10000", "--device", "cpu", "-q"};
  // The uninterrupted run: 16 blocks and a short one.
  std::string line;
  for (const auto& a : common) line += a + " ";
  REQUIRE(run(line + "--jsonl " + dir + "/full.jsonl " + f).code == 0);
  const auto full = jsonl(dir + "/full.jsonl");
  REQUIRE(full.size() == 17);
  // The same, interrupted after its first line.
  const std::string part = dir + "/part.jsonl";
  std::vector<std::string> args = common;
  for (const std::string& a : {std::string("--jsonl"), part, f}) args.push_back(a);
  CHECK(interrupted_run(args, part) == 130);
  const size_t before = jsonl(part).size();
  CHECK(before >= 1);
  CHECK(before < 17);
  // A crash in the middle of a line: cut the last line short.
  {
    std::ifstream in(part);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::ofstream(part, std::ios::trunc) << text << text.substr(0, 40);
  }
  // Resume without --seed: the earlier seed is reused; nothing done is recomputed.
  std::string resume_line;
  for (size_t i = 2; i < common.size(); ++i) resume_line += common[i] + " ";
  Result r = run(resume_line + "--resume --jsonl " + part + " " + f);
  CHECK(r.code == 0);
  auto rows = jsonl(part);  // every line parses: the cut-off one was dropped
  REQUIRE(rows.size() == full.size());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a["run"]["item"] < b["run"]["item"]; });
  for (size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    CHECK(stable(rows[i]) == stable(full[i]));
  }
  // Another seed would mix results: refused, the file unchanged.
  Result other = run("--seed 12 " + resume_line + "--resume --jsonl " + part + " " + f);
  CHECK(other.code == 2);
  CHECK_MESSAGE(other.err.find(":1: --seed 11 differs from this run's 12") != std::string::npos, other.err);
  CHECK(jsonl(part).size() == full.size());
  // Other result settings: every one named, with the record's values (the earlier rows were
  // written with --no-early-exit, so their earlyExit is false; it said "--no-early-exit was
  // false, now true" before session 48, and named only the first difference).
  Result settings = run("--threads 1 --iterations 200 --blocks 10000 --device cpu -q --resume --jsonl " + part + " " + f);
  CHECK(settings.code == 2);
  CHECK_MESSAGE(settings.err.find("(permutation.iterations (--iterations) was 300, now 200; permutation.earlyExit "
                                  "(--no-early-exit) was false, now true)") != std::string::npos,
                settings.err);
  CHECK(jsonl(part).size() == full.size());
}

namespace {
// Tags of an XHTML-style page are balanced: every <x> has its </x>, "/>" closes itself.
bool balanced(const std::string& html, std::string& why) {
  std::vector<std::string> open;
  for (size_t at = html.find('<'); at != std::string::npos; at = html.find('<', at + 1)) {
    const size_t end = html.find('>', at);
    if (end == std::string::npos) {
      why = "unterminated tag";
      return false;
    }
    const std::string tag = html.substr(at + 1, end - at - 1);
    if (tag.empty() || tag[0] == '!' || tag.back() == '/') continue;
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) {
        why = "</" + name + "> closes <" + (open.empty() ? std::string("nothing") : open.back()) + ">";
        return false;
      }
      open.pop_back();
    } else {
      open.push_back(tag.substr(0, tag.find_first_of(" \t\n")));
    }
  }
  why = open.empty() ? "" : "<" + open.back() + "> not closed";
  return open.empty();
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// A report page's summary rows and figures; the page must be well-formed.
struct HtmlCounts {
  size_t rows = 0, svgs = 0;
};
HtmlCounts html_counts(const std::string& html) {
  std::string why;
  CHECK_MESSAGE(balanced(html, why), why);
  HtmlCounts c;
  for (size_t at = html.find("<tr class=\"item"); at != std::string::npos; at = html.find("<tr class=\"item", at + 1)) ++c.rows;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) ++c.svgs;
  return c;
}
}  // namespace

TEST_CASE("--csv and --html: one row per item (skipped and errors included), plots for every assessed item") {
  const std::string dir = tmp("report-" + std::to_string(::getpid()));
  REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()) == 0);
  const std::string empty = write_bytes("report-empty.bin", "");
  Result r = run("--seed 2 --device cpu --iterations 200 -q --blocks 4000 --csv " + dir + "/r.csv --html " + dir +
                 "/r.html " + kSamples + "rand8_short.bin " + empty);
  CHECK(r.code == 2);  // the empty file
  // 2 blocks of 4,000, a short one skipped, and the error.
  const std::vector<std::string> lines = lines_of(dir + "/r.csv");
  REQUIRE(lines.size() == 1 + 4);
  CHECK(lines[0].rfind("file,block,samples,bits_per_sample,h_original_bits_per_sample,h_bitstring_bits_per_bit,"
                       "h_assessed_bits_per_sample,", 0) == 0);
  CHECK(lines[0].find(",seed,note,tool_version,date_utc,sample_rule") != std::string::npos);
  CHECK(lines[1].find(",0x0000000000000002,") != std::string::npos);  // the seed as a spreadsheet keeps it
  CHECK(lines[1].find("Z,u8\r") != std::string::npos);  // the ISO date (UTC), then the sample rule
  CHECK(lines[3].find("Z,\r") != std::string::npos);    // a skipped row read nothing: no rule
  CHECK(lines[1].find(",chi-square,not IID,false,") != std::string::npos);  // rand8_short fails chi-square
  CHECK(lines[3].find(",skipped,") != std::string::npos);
  CHECK(lines[4].find(",error,") != std::string::npos);
  const std::string html = slurp(dir + "/r.html");
  const HtmlCounts counts = html_counts(html);
  CHECK(counts.rows == 4);
  CHECK(counts.svgs == 2 * 2 + 1);  // ranks and histogram for each assessed block, the min-entropy along the file
  CHECK(html.find("<script>") != std::string::npos);  // inline only (sorting, filtering)
  CHECK(html.find("http://www.w3.org/2000/svg") != std::string::npos);  // the only URL: the SVG namespace
  CHECK(html.find("http", html.find("http") + 1) == html.find("http://www.w3.org/2000/svg", html.find("http") + 1));
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("id=\"item1\"") != std::string::npos);  // items numbered from 1
  CHECK(html.find("id=\"item0\"") == std::string::npos);
  for (const char* section : {"id=\"run\"", "id=\"files\"", "id=\"summary\"", "id=\"trend\"", "id=\"items\"", "id=\"details\""}) {
    CHECK_MESSAGE(html.find(section) != std::string::npos, section);
  }
}

TEST_CASE("--restart with --csv and --html: a row per restart file, plots of its rows and columns") {
  const std::string dir = tmp("report-restart-" + std::to_string(::getpid()));
  REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()) == 0);
  std::string alternating;
  for (int k = 0; k < 1000000; ++k) alternating.push_back(static_cast<char>(k & 1));
  const std::string alt = write_bytes("report-restart-alt.bin", alternating);
  Result r = run("--restart 1 --track iid --bits 8 --seed 2 --device cpu --iterations 200 -q --csv " + dir + "/r.csv --html " +
                 dir + "/r.html " + alt + " " + EA_TEST_DATA_DIR "/restart/restart_carryover_8bit.bin");
  CHECK(r.code == 0);
  const std::vector<std::string> lines = lines_of(dir + "/r.csv");
  REQUIRE(lines.size() == 1 + 2);
  CHECK(lines[1].find(",sanity check,restart failed,") != std::string::npos);
  CHECK(lines[2].find(",1000000,8,") != std::string::npos);
  CHECK(lines[2].find(",passed,passed,failed,columns: permutation,restart failed,") != std::string::npos);
  const std::string html = slurp(dir + "/r.html");
  const HtmlCounts counts = html_counts(html);
  CHECK(counts.rows == 2);
  CHECK(counts.svgs == 2 * 2);  // ranks and histogram of the carry-over file's rows and columns
  CHECK(html.find("<h4>columns</h4>") != std::string::npos);
}

TEST_CASE("--resume with -o DIR/ alone: the files present are kept, the missing ones are made") {
  const std::string dir = tmp("resume-dir-" + std::to_string(::getpid()));
  REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()) == 0);
  const std::string args = "--device cpu --iterations 100 -q --blocks 4000 -o " + dir + "/out/ " + kSamples +
                           "rand8_short.bin";
  REQUIRE(run("--seed 2 " + args).code == 0);
  const std::string kept = slurp(dir + "/out/rand8_short.bin.block0.json");
  const std::string redo = slurp(dir + "/out/rand8_short.bin.block1.json");
  REQUIRE(std::remove((dir + "/out/rand8_short.bin.block1.json").c_str()) == 0);
  CHECK(run("--resume " + args).code == 0);  // the seed comes from the kept file
  CHECK(slurp(dir + "/out/rand8_short.bin.block0.json") == kept);
  auto a = nlohmann::json::parse(slurp(dir + "/out/rand8_short.bin.block1.json")), b = nlohmann::json::parse(redo);
  CHECK(stable(a) == stable(b));
  CHECK(run("--resume " + kSamples + "rand8_short.bin").code == 2);  // nothing to continue
}

TEST_CASE("merge refuses shares of another seed, generator, iteration count, list or shuffle, and edited rows") {
  const std::string dir = tmp("mixed-" + std::to_string(::getpid()));
  REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()) == 0);
  const std::string files = " " + kSamples + "rand8_short.bin " + kSamples + "rand4_short.bin";
  auto share = [&](const std::string& name, const std::string& opts, int k) {
    const std::string path = dir + "/" + name + ".jsonl";
    const std::string iterations = opts.find("--iterations") == std::string::npos ? " --iterations 100" : "";
    const Result r = run("--device cpu -q" + iterations + " " + opts + " --shard " + std::to_string(k) + "/2 --jsonl " + path + files);
    CHECK_MESSAGE(r.code == 0, r.err);
    return path;
  };
  const std::string a0 = share("a0", "--seed 1", 0), a1 = share("a1", "--seed 1", 1);
  REQUIRE(run("merge -q " + dir + "/ok.jsonl " + a0 + " " + a1).code == 0);
  auto refused = [&](const std::string& other, const std::string& words) {
    Result m = run("merge -q --force " + dir + "/bad.jsonl " + a0 + " " + other);
    CHECK(m.code == 2);
    CHECK_MESSAGE(m.err.find(words) != std::string::npos, m.err);
  };
  refused(share("seed", "--seed 2", 1), "--seed 2 differs from the first line's 1");
  refused(share("prng", "--seed 1 --prng xoshiro256ss", 1), "permutation.prng (--prng) is xoshiro256ss");
  refused(share("iter", "--seed 1 --iterations 200", 1), "permutation.iterations (--iterations) is 200");
  refused(share("fy", "--seed 1 --shuffle fisher-yates", 1), "permutation.shuffleChoice (--shuffle) is fisher-yates where");
  // The same share count over another list (one more file): another list digest.
  const std::string other = dir + "/list.jsonl";
  REQUIRE(run("--device cpu -q --iterations 100 --seed 1 --shard 1/2 --jsonl " + other + files + " " + kSamples +
              "rand1_short.bin")
              .code == 0);
  refused(other, "the list digest");
  // A verdict edited by hand contradicts the row's own tests; a row without its run, or with
  // a width no sample has, is named with its file and line, never a crash.
  auto edited = [&](const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    auto rows = jsonl(a1);
    edit(rows[0]);
    const std::string path = dir + "/" + name + ".damaged";  // not *.jsonl: schema/outputs checks those
    std::ofstream out(path);
    for (const auto& r : rows) out << r.dump() << "\n";
    return path;
  };
  refused(edited("verdict", [](nlohmann::json& r) {
            r["verdict"]["result"] = r["verdict"]["result"] == "IID" ? "not IID" : "IID";
            r["verdict"]["iid"] = r["verdict"]["result"] == "IID";
          }),
          ":1: verdict.result: contradicts");
  refused(edited("run", [](nlohmann::json& r) { r["run"] = nlohmann::json::object(); }), ":1: run.item: missing (and 4 more)");
  refused(edited("no-run", [](nlohmann::json& r) { r.erase("run"); }), ":1: not a line of ea_iid --jsonl");
  refused(edited("bits", [](nlohmann::json& r) { r["input"]["bitsPerSymbol"] = 40; }), ":1: input.bitsPerSymbol: 40 is not one of [1,2,3,4,5,6,7,8]");
  // A share of an ea_iid before the bucket shuffle (Fisher-Yates for every row then).
  refused(edited("shuffle", [](nlohmann::json& r) { r["permutation"]["shuffle"] = "Fisher-Yates, Lemire bounded draws"; }),
          ":1: its permutations were made by \"Fisher-Yates, Lemire bounded draws\", where this ea_iid makes them by "
          "\"bucket b0=");
  // A share written before --shuffle existed (no permutation.shuffleChoice) reads as the
  // bucket shuffle: merged with today's default rows.
  {
    const std::string old = edited("no-choice", [](nlohmann::json& r) {
      REQUIRE(r["permutation"].contains("shuffleChoice"));
      r["permutation"].erase("shuffleChoice");
    });
    const Result m = run("merge -q --force " + dir + "/old.jsonl " + a0 + " " + old);
    CHECK_MESSAGE(m.code == 0, m.err);
  }
  // A restart row's IID assessments of its rows and columns: today's merge (no false
  // refusal), an older shuffle in its columns refused.
  const std::string restart = dir + "/restart.jsonl";
  REQUIRE(run("--restart 1 --track iid --bits 8 --seed 1 --device cpu --iterations 50 -q --jsonl " + restart + " " +
              EA_TEST_DATA_DIR "/restart/restart_carryover_8bit.bin")
              .code == 0);
  CHECK(run("merge -q --force " + dir + "/restart-merged.jsonl " + restart).code == 0);
  auto rows = jsonl(restart);
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0]["columns"]["permutation"]["shuffle"].get<std::string>().rfind("bucket b0=", 0) == 0);
  rows[0]["columns"]["permutation"]["shuffle"] = "Fisher-Yates, Lemire bounded draws";
  {
    std::ofstream out(dir + "/restart.damaged");
    out << rows[0].dump() << "\n";
  }
  Result m = run("merge -q --force " + dir + "/bad.jsonl " + dir + "/restart.damaged");
  CHECK(m.code == 2);
  CHECK_MESSAGE(m.err.find(":1: columns: its permutations were made by \"Fisher-Yates") != std::string::npos, m.err);
}

TEST_CASE("standard error closed: diagnostics never reach the JSONL; a closed pipe is exit 2") {
  const std::string out = tmp(std::to_string(::getpid()) + "-closed.jsonl");
  const std::string cmd = std::string("'") + EA_IID_EXE + "' --seed 1 --device cpu --iterations 50 --force --jsonl '" + out +
                          "' " + kSamples + "rand4_short.bin " + kSamples + "rand1_short.bin >/dev/null 2>&-";
  CHECK(std::system(("sh -c \"" + cmd + "\"").c_str()) == 0);
  const auto rows = jsonl(out);  // every line parses as JSON
  CHECK(rows.size() == 2);
  // A reader that goes away (SIGPIPE): the write fails, exit 2 (never 141).
  const std::string script = tmp(std::to_string(::getpid()) + "-pipe.sh");
  {
    std::ofstream(script) << "'" << EA_IID_EXE << "' --seed 1 --device cpu --iterations 50 --jsonl - " << kSamples
                          << "rand4_short.bin " << kSamples << "rand1_short.bin " << kSamples
                          << "rand8_short.bin | head -c 1 >/dev/null\nexit ${PIPESTATUS[0]}\n";
  }
  const int status = std::system(("bash '" + script + "' 2>/dev/null").c_str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
}

TEST_CASE("--resume and merge refuse a FIFO at once instead of waiting for a writer") {
  const std::string dir = tmp("fifo-" + std::to_string(::getpid()));
  REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "' && mkfifo '" + dir + "/f'").c_str()) == 0);
  // Refused, not waiting for a writer (a wait would never end: ctest's timeout, no wall time here).
  Result r = run("--resume --seed 1 --device cpu --iterations 50 --jsonl " + dir + "/f " + kSamples + "rand4_short.bin " +
                 kSamples + "rand1_short.bin");
  CHECK(r.code == 2);
  CHECK(r.err.find("not a regular file") != std::string::npos);
  Result m = run("merge " + dir + "/out.jsonl " + dir + "/f");
  CHECK(m.code == 2);
  CHECK(m.err.find("not a regular file") != std::string::npos);
}

TEST_CASE("a name that is not UTF-8 keeps its bytes: rows are written, resume and merge find the file") {
  const std::string dir = tmp("bytes-" + std::to_string(::getpid()));
  REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()) == 0);
  const std::string name = dir + "/caf\xe9.bin";
  REQUIRE(std::system(("head -c 4000 '" + kSamples + "truerand_8bit.bin' > '" + name + "'").c_str()) == 0);
  const std::string args = "--device cpu --iterations 50 -q --seed 3 --blocks 1000 --jsonl " + dir + "/r.jsonl '" + name + "'";
  REQUIRE(run(args).code == 0);
  const auto rows = jsonl(dir + "/r.jsonl");
  REQUIRE(rows.size() == 4);
  std::string hex;
  for (unsigned char c : name) {
    char b[3];
    std::snprintf(b, sizeof b, "%02x", c);
    hex += b;
  }
  CHECK(rows[0]["filenameBytes"] == hex);
  CHECK(rows[0]["filename"].get<std::string>().find("caf\xef\xbf\xbd.bin") != std::string::npos);  // U+FFFD shown
  // Resume finds every row's file (nothing to do); merge joins the share.
  const Result again = run("--resume " + args);
  CHECK(again.code == 0);
  CHECK(jsonl(dir + "/r.jsonl").size() == 4);
  CHECK(run("merge " + dir + "/m.jsonl " + dir + "/r.jsonl").code == 0);
}

TEST_CASE("--non-iid batch: CSV, HTML, summary and the merge of two shares without --seed") {
  const std::string dir = tmp("noniid-" + std::to_string(::getpid()));
  REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()) == 0);
  const std::string file = kSamples + "rand8_short.bin";
  const Result r = run("--non-iid --blocks 5000 --jsonl " + dir + "/r.jsonl --csv " + dir + "/r.csv --html " + dir +
                       "/r.html " + file);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("2 items: 2 non-IID estimates\n") != std::string::npos);
  const std::string csv = slurp(dir + "/r.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);
  CHECK(csv.find(",non-IID estimate,") != std::string::npos);
  CHECK(csv.find("min-entropy set by the") != std::string::npos);
  const std::string html = slurp(dir + "/r.html");
  size_t bars = 0;
  for (size_t at = html.find("class=\"estimates\""); at != std::string::npos; at = html.find("class=\"estimates\"", at + 1)) {
    ++bars;
  }
  CHECK(bars == 2);
  for (const auto& row : jsonl(dir + "/r.jsonl")) {
    CHECK(row["type"] == "Non-IID");
    CHECK(row["run"]["userSeed"] == "0");  // nothing random: no seed drawn
  }
  // Two shares made without --seed merge (their rows agree on everything that matters).
  const std::string args = "--non-iid -q --blocks 5000 " + file;
  REQUIRE(run("--shard 0/2 --jsonl " + dir + "/p0.jsonl " + args).code == 0);
  REQUIRE(run("--shard 1/2 --jsonl " + dir + "/p1.jsonl " + args).code == 0);
  CHECK(run("merge " + dir + "/m.jsonl " + dir + "/p0.jsonl " + dir + "/p1.jsonl").code == 0);
  CHECK(jsonl(dir + "/m.jsonl").size() == 2);
  // The permutation tests' options are refused with --non-iid, naming the option.
  const Result bad = run("--non-iid --iterations 100 " + file);
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--iterations applies to the IID tests") != std::string::npos);
}

TEST_CASE("--resume counts the kept rows in its progress: the one item left is [3/3], not [1/1]") {
  const std::string dir = tmp("resume-count-" + std::to_string(::getpid()));
  REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()) == 0);
  const std::string args = "--seed 5 --device cpu --iterations 50 --jsonl " + dir + "/r.jsonl " + kSamples +
                           "rand8_short.bin " + kSamples + "rand4_short.bin " + kSamples + "rand1_short.bin";
  REQUIRE(run(args).code == 0);
  // Drop the last row: --resume assesses that item alone.
  const std::string text = slurp(dir + "/r.jsonl");
  const size_t cut = text.rfind('\n', text.size() - 2);
  REQUIRE(cut != std::string::npos);
  std::ofstream(dir + "/r.jsonl", std::ios::trunc) << text.substr(0, cut + 1);
  Result r = run("--resume " + args);
  CHECK(r.code == 0);
  CHECK(r.err.find("[3/3] ") != std::string::npos);
  CHECK(r.err.find("[1/1] ") == std::string::npos);
}

TEST_CASE("the batch summary table fits 100 columns: long names, failed tests, errors and blocks") {
  // (It was 192-246 columns: every number of every test in its own column; CSV/JSONL keep them.)
  const std::string d = scratch("a-folder-whose-name-is-long-enough-to-matter/another-long-sub-folder");
  const std::string a = d + "/samples-of-the-first-noise-source-at-25-degrees.bin";
  const std::string b = d + "/samples-of-the-second-noise-source-at-85-degrees.bin";
  REQUIRE(std::system(("cp '" + kSamples + "rand8_short.bin' '" + a + "' && cp '" + kSamples + "rand4_short.bin' '" + b +
                       "' && : > '" + d + "/an-empty-capture-file-with-a-long-name.bin'")
                          .c_str()) == 0);
  const std::string files = " '" + a + "' '" + b + "' '" + kSamples + "rand1_short.bin' '" + d +
                            "/an-empty-capture-file-with-a-long-name.bin'";
  for (const std::string& mode : {std::string(""), std::string("--blocks 5000 ")}) {
    CAPTURE(mode);
    const Result r = run("--seed 1 --device cpu --iterations 50 " + mode + files);
    CHECK(r.code == 2);  // the empty file's error row
    std::istringstream lines(r.out);
    size_t widest = 0, table_lines = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("(files in", 0) == 0) break;  // the table's end (then the folder, rejections, counts)
      ++table_lines;
      CHECK_MESSAGE(line.size() <= 100, line);
      widest = std::max(widest, line.size());
    }
    CHECK(table_lines >= 5);
    // The names stay recognisable (their start and end), the error says what is wrong.
    const std::string table = r.out.substr(0, r.out.find("(files in"));
    CHECK(table.find("sam") != std::string::npos);
    CHECK(table.find("25-degrees.bin") != std::string::npos);
    CHECK(table.find("85-degrees.bin") != std::string::npos);
    CHECK(table.find("error: file is empty") != std::string::npos);
  }
}

TEST_CASE("the batch HTML's words: an exploratory banner, flags as given, 'not run' statistics, its column titles") {
  const std::string d = scratch("html-words");
  const Result r = run("--seed 2 --device cpu --iterations 200 --no-early-exit --until-decided -q --html " + d +
                       "/r.html " + kSamples + "rand8_short.bin " + kSamples + "rand1_short.bin");
  REQUIRE(r.code == 0);
  const std::string html = slurp(d + "/r.html");
  // Exploratory (200 permutations): said above everything, not only in a note.
  CHECK(html.find("<p class=\"banner\" role=\"alert\">Exploratory run, not for compliance: 2 of 2 assessments ran 200 "
                  "permutations") != std::string::npos);
  CHECK(html.find("class=\"banner\"") < html.find("id=\"run\""));
  // --no-early-exit is recorded as earlyExit false: shown as given, never as "--no-early-exit ... true".
  CHECK(html.find("<td><code>--no-early-exit</code></td><td><code>permutation.earlyExit</code></td><td>false "
                  "(--no-early-exit given)</td>") != std::string::npos);
  // rand8_short fails chi-square: --until-decided computes no statistic of it ("nan" before).
  CHECK(html.find(">nan<") == std::string::npos);
  CHECK(html.find("<td>compression</td><td class=\"n\">not run</td>") != std::string::npos);
  CHECK(html.find("<th>items with IID tests</th>") != std::string::npos);
  CHECK(html.find("IID results") == std::string::npos);
}
