// The ea_iid executable: bad input (message, exit code, JSON error file), JSON output,
// exit codes and the verdict line.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "options.hpp"
#include "outcome.hpp"
#include "rng/prng.hpp"

#include "cli_helpers.hpp"

namespace {

using namespace cli_test;

// An input error with -o given: one line on stderr, exit 2, the error JSON in -o.
void check_error(const std::string& args, const std::string& message) {
  CAPTURE(args);
  const std::string json = tmp("cli_error-" + std::to_string(::getpid()) + ".json");
  std::remove(json.c_str());
  Result r = run("-o " + json + " " + args);
  CHECK(r.code == 2);
  CHECK(r.err.find(message) != std::string::npos);
  CHECK(r.err.find("ea_iid: error:") == 0);
  CHECK(r.out.empty());
  auto j = nlohmann::json::parse(slurp(json));
  CHECK(j["errorLevel"] == -1);
  CHECK(j["errorMessage"].get<std::string>().find(message) != std::string::npos);
}

}  // namespace

TEST_CASE("--help: the groups in a CPU user's order, at most 80 lines of at most 100 columns") {
  const Result r = run("--help");
  REQUIRE(r.code == 0);
  size_t at = 0;
  for (const char* group : {"Input:", "Assessment:", "Output:", "Batch:", "Permutation engine:", "Engine tuning:", "Subcommands"}) {
    const size_t found = r.out.find(group, at);
    CHECK_MESSAGE(found != std::string::npos, group);
    if (found != std::string::npos) at = found;
  }
  size_t lines = 0, longest = 0, start = 0;
  for (size_t end = r.out.find('\n'); end != std::string::npos; start = end + 1, end = r.out.find('\n', start)) {
    ++lines;
    longest = std::max(longest, end - start);
  }
  CHECK(lines <= 80);
  CHECK(longest <= 100);
  const Result all = run("--help-all");
  size_t all_lines = 0;
  for (char c : all.out) all_lines += c == '\n';
  CHECK(all_lines > lines);  // --help-all holds the rest
}

TEST_CASE("every subcommand's --help fits 100 columns (CLI11's layout with the descriptions wrapped)") {
  // (the links' usage lines mirror NIST's tools: ea_non_iid --help and ea_restart --help are theirs)
  for (const char* args : {"calibrate --help", "calibrate --uniformity --help", "source --help",
                           "source --manifest m.json --help", "esv --help", "esv check --help", "health-tests --help",
                           "conditioning --help", "merge --help", "--help-all"}) {
    CAPTURE(args);
    const Result r = run(args);
    REQUIRE(r.code == 0);
    CHECK(r.out.size() > 200);
    size_t longest = 0, start = 0;
    std::string line;
    for (size_t end = r.out.find('\n'); end != std::string::npos; start = end + 1, end = r.out.find('\n', start)) {
      if (end - start > longest) line = r.out.substr(start, end - start);
      longest = std::max(longest, end - start);
    }
    CAPTURE(line);
    CHECK(longest <= 100);
    CHECK(r.out.find(":{") == std::string::npos);  // (CLI11's member list glued to a type name)
  }
}

TEST_CASE("an unreadable file is an error (skipped when running as root)") {
  if (::geteuid() == 0) {
    MESSAGE("running as root: permissions do not stop reads, case skipped");
    return;
  }
  std::string p = write_bytes("unreadable.bin", "\x01\x02");
  ::chmod(p.c_str(), 0);
  check_error(p, "cannot open file");
}

TEST_CASE("--device gpu without a GPU build or device fails clearly, never a verdict") {
  Result r = run("--device gpu --seed 1 " + kSamples + "rand8_short.bin");
#ifndef EA_HAVE_CUDA
  CHECK(r.code == 2);
#endif
  if (r.code != 0) {  // a CUDA build on a machine with a GPU runs instead
    CHECK(r.code == 2);
    CHECK(r.err.find("GPU") != std::string::npos);
    CHECK(r.out.empty());  // (refused before the estimates' lines: no part of a report)
  }
}

TEST_CASE("exit status: precedence of interrupt, error, non-compliance, not IID, inconclusive") {
  using ea::cli::ExitPolicy;
  using ea::cli::Outcome;
  using ea::cli::exit_status;
  Outcome iid, not_iid, inconclusive, both, noncompliant_iid, noncompliant_not_iid;
  not_iid.add(true, false, false);
  inconclusive.add(false, true, false);
  both.add(true, true, false);
  noncompliant_iid.add(false, false, true);
  noncompliant_not_iid.add(true, false, true);
  const ExitPolicy plain{}, code{true, false}, strict{false, true};
  // Without --exit-code: 0 whatever the verdicts.
  for (const Outcome& o : {iid, not_iid, inconclusive, noncompliant_not_iid}) CHECK(exit_status(o, plain, 0) == 0);
  // --exit-code: 1 for not IID and for inconclusive; compliance does not matter.
  CHECK(exit_status(iid, code, 0) == 0);
  CHECK(exit_status(not_iid, code, 0) == 1);
  CHECK(exit_status(inconclusive, code, 0) == 1);
  CHECK(exit_status(noncompliant_iid, code, 0) == 0);
  // --strict: 4 first, then 1, then 3.
  CHECK(exit_status(iid, strict, 0) == 0);
  CHECK(exit_status(not_iid, strict, 0) == 1);
  CHECK(exit_status(inconclusive, strict, 0) == 3);
  CHECK(exit_status(both, strict, 0) == 1);
  CHECK(exit_status(noncompliant_iid, strict, 0) == 4);
  CHECK(exit_status(noncompliant_not_iid, strict, 0) == 4);
  // Errors and interrupts before any verdict.
  CHECK(exit_status(Outcome::error(), strict, 0) == 2);
  CHECK(exit_status(Outcome::interrupted(), strict, SIGINT) == 130);
  CHECK(exit_status(Outcome::interrupted(), plain, SIGTERM) == 143);
}

// (Simple cases of the executable are files in tests/cli/cases; these need code.)
TEST_CASE("JSON: the same seed reproduces the counters exactly") {
  const std::string json = tmp("cli_ok.json"), json2 = tmp("cli_ok2.json");
  CHECK(run("--seed 99 -o " + json + " " + kSamples + "rand8_short.bin").code == 0);
  CHECK(run("--seed 99 --threads 1 -o " + json2 + " " + kSamples + "rand8_short.bin").code == 0);
  auto j = nlohmann::json::parse(slurp(json)), j2 = nlohmann::json::parse(slurp(json2));
  CHECK(j2["testCases"][0]["permutationTestResults"] == j["testCases"][0]["permutationTestResults"]);
  CHECK(j2["permutation"]["seed"] == j["permutation"]["seed"]);
}

TEST_CASE("--no-early-exit runs 10,000 permutations for every test") {
  std::string s;
  for (int i = 0; i < 200; ++i) s.push_back(static_cast<char>((i * 73 + i / 3) % 16));
  const std::string json = tmp("cli_full.json");
  Result r = run("--seed 5 --no-early-exit --all-tests -o " + json + " " + write_bytes("small.bin", s));
  CHECK(r.code == 0);
  auto j = nlohmann::json::parse(slurp(json));
  CHECK(j["permutation"]["permutationsRun"] == 10000);
  for (const auto& t : j["permutation"]["tests"]) {
    CHECK(t["C0"].get<int>() + t["C1"].get<int>() + t["C2"].get<int>() == 10000);
  }
}

TEST_CASE("--list-prngs: every generator with its calibration") {
  Result list = run("--list-prngs");
  CHECK(list.code == 0);
  for (const ea::PrngInfo& p : ea::prng_table()) {
    CHECK(list.out.find(std::string("\n") + p.name) != std::string::npos);
    CHECK(*p.calibration != '\0');  // every generator has been calibrated (docs/prngs.md)
    CHECK(p.calibration_flagged == (p.id == ea::PrngId::CiXorlike));
  }
  // The calibration flagged ci-xorlike alone (its 8-bit interval excludes Philox's rate).
  CHECK(list.out.find("FLAGGED") != std::string::npos);
  CHECK(list.out.find("not calibrated yet") == std::string::npos);
}

TEST_CASE("malformed -l values are usage errors") {
  for (const char* bad : {"", "5", "a,b", "1,", ",3", "1,0", "-1,5", "1;5", "99999999999999999999999,1"}) {
    CHECK_THROWS_AS(ea::cli::parse_subset(bad), ea::Error);
  }
  const ea::SubsetSpec s = ea::cli::parse_subset("7,1000");
  CHECK(s.index == 7);
  CHECK(s.count == 1000);
}

TEST_CASE("numbers: one strict parser, decimal only: no spaces, hexadecimal floats, subnormals or trailing junk") {
  const std::string f = " " + kSamples + "rand8_short.bin";
  const std::pair<std::string, std::string> refused[] = {
      {"--restart ' 7.8'" + f, "--restart: ' 7.8' is not a decimal number"},
      {"--restart '7.8 '" + f, "--restart: '7.8 ' is not a decimal number"},
      {"--restart 0x1p3" + f, "--restart: '0x1p3' is not a decimal number"},
      {"--restart 1e-320" + f, "--restart: '1e-320' is out of the range of a double"},
      {"--restart 7.8x" + f, "--restart: '7.8x' is not a decimal number"},
      {"--restart inf" + f, "--restart: 'inf' is not a decimal number"},
      {"--gpu-tuning memory-share=0x1p-1" + f, "--gpu-tuning memory-share: '0x1p-1' is not a decimal number"},
      {"source s" + f + " --h-submitter ' 7'", "--h-submitter: ' 7' is not a decimal number"},
      {"source s" + f + " --bits ' 8'", "--bits: ' 8' is not a number"},
      {"source s" + f + " --conditioning vetted --n-in ' 512' --n-out 256 --nw 256", "--n-in: ' 512' is not a number"},
      {"source s" + f + " --conditioning vetted --n-in 0x200 --n-out 256 --nw 256", "--n-in: '0x200' is not a number"},
      {"conditioning vetted 1024 256 256 0x1p3", "h_in: '0x1p3' is not a decimal number"},
      {"conditioning vetted 1024 256 256 1e-4940", "h_in: '1e-4940' is out of the range of a long double"},
      {"conditioning vetted ' 1024' 256 256 800", "n_in: ' 1024' is not a number"},
      {"conditioning vetted 1024x 256 256 800", "n_in: '1024x' is not a number"},
      {"conditioning vetted 09 8 8 4", "n_in: '09' is not a number (a leading 0 makes it octal"},
      {"conditioning non-vetted 1024 256 256 800 ' 0.5'", "h': ' 0.5' is not a decimal number"},
      {"calibrate --max-seconds ' 5'", "--max-seconds: ' 5' is not a decimal number"},
  };
  for (const auto& [args, words] : refused) {
    CAPTURE(args);
    const Result r = run(args);
    CHECK(r.code == 2);
    CHECK_MESSAGE(r.err.find(words) != std::string::npos, r.err);
    CHECK(r.out.empty());
  }
  // N_IN, N_OUT, NW as NIST ea_conditioning reads them (strtoul base 0): 0x400 and 02000 are 1024.
  const Result dec = run("conditioning vetted 1024 256 256 800");
  REQUIRE(dec.code == 0);
  CHECK(run("conditioning vetted 0x400 256 256 800").out == dec.out);
  CHECK(run("conditioning vetted 02000 256 256 800").out == dec.out);
}

namespace {

std::vector<nlohmann::json> jsonl_rows(const std::string& path) {
  std::vector<nlohmann::json> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

void write_rows(const std::string& path, const std::vector<nlohmann::json>& rows) {
  std::ofstream out(path, std::ios::trunc);
  for (const auto& r : rows) out << r.dump() << "\n";
}

}  // namespace

TEST_CASE("--resume checks every earlier row's run as merge does: another seed, list or place is refused") {
  const std::string dir = tmp("resume-run-" + std::to_string(::getpid()));
  REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()) == 0);
  const std::string files = " " + kSamples + "rand8_short.bin " + kSamples + "rand4_short.bin";
  // Non-IID rows without --seed record seed 0; resumed with --seed 5 they were kept, and the
  // file then mixed two seeds that merge refuses.
  const std::string n = dir + "/n.jsonl";
  REQUIRE(run("--non-iid -q --jsonl " + n + files).code == 0);
  const std::string before = slurp(n);
  Result r = run("--non-iid -q --seed 5 --resume --jsonl " + n + files);
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.err.find("--resume: " + n + ":1: --seed 0 differs from this run's 5; rows of one run only") !=
                    std::string::npos,
                r.err);
  CHECK(slurp(n) == before);
  CHECK(run("--non-iid -q --resume --jsonl " + n + files).code == 0);  // the same run: kept
  // An IID batch's rows edited: another list digest; a row moved to another place.
  const std::string i = dir + "/i.jsonl";
  REQUIRE(run("--device cpu -q --iterations 50 --seed 3 --jsonl " + i + files).code == 0);
  const auto rows = jsonl_rows(i);
  REQUIRE(rows.size() == 2);
  auto edited = rows;
  edited[0]["run"]["list"] = std::string(64, '0');
  write_rows(i, edited);
  r = run("--device cpu -q --iterations 50 --resume --jsonl " + i + files);
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.err.find(i + ":1: the list digest (the files in their order, -l, --blocks) " + std::string(64, '0') + " differs from this run's") != std::string::npos,
                r.err);
  edited = rows;
  edited[0]["run"]["item"] = 1;
  edited[1]["run"]["item"] = 0;
  write_rows(i, edited);
  r = run("--device cpu -q --iterations 50 --resume --jsonl " + i + files);
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.err.find(i + ":1: run.item 1 differs from this run's 0") != std::string::npos, r.err);
  edited = rows;
  edited[1].erase("run");
  write_rows(i, edited);
  r = run("--device cpu -q --iterations 50 --resume --jsonl " + i + files);
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.err.find(i + ":2: not a line of ea_iid --jsonl") != std::string::npos, r.err);
  // A row of an ea_iid before the bucket shuffle (10,000 8-bit samples were shuffled by
  // Fisher-Yates then): its counters cannot be reproduced now, so it is not kept as this
  // run's; the file is left as it was.
  REQUIRE(rows[0]["permutation"]["shuffle"].get<std::string>().rfind("bucket b0=", 0) == 0);
  edited = rows;
  edited[0]["permutation"]["shuffle"] = "Fisher-Yates, Lemire bounded draws";
  write_rows(i, edited);
  const std::string old_rows = slurp(i);
  r = run("--device cpu -q --iterations 50 --resume --jsonl " + i + files);
  CHECK(r.code == 2);
  CHECK_MESSAGE(r.err.find(i + ":1: its permutations were made by \"Fisher-Yates, Lemire bounded draws\", where this "
                               "ea_iid makes them by \"bucket b0=") != std::string::npos,
                r.err);
  CHECK(slurp(i) == old_rows);
}

TEST_CASE("-q: an interrupted batch's 'Incomplete' line goes to standard error, nothing to standard output") {
  const std::string d = tmp("quiet-interrupt-" + std::to_string(::getpid()));
  REQUIRE(std::system(("rm -rf '" + d + "' && mkdir -p '" + d + "' && mkfifo '" + d + "/ff'").c_str()) == 0);
  // The second item waits on the FIFO (no writer) until the signal, sent once the first row
  // is written (no fixed wait).
  const std::string script = d + "/run.sh";
  std::ofstream(script) << "cd '" << d << "' || exit 9\n'" << EA_IID_EXE
                        << "' -q --allow-stream --device cpu --jobs 1 --seed 1 --iterations 50 --jsonl b.jsonl '" << kSamples
                        << "rand8_short.bin' ff >out.txt 2>err.txt &\npid=$!\n"
                        << "while [ ! -s b.jsonl ] && kill -0 $pid 2>/dev/null; do sleep 0.05; done\n"
                        << "kill -TERM $pid\nwait $pid\nexit $?\n";
  const int status = std::system(("bash '" + script + "'").c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 143);
  CHECK(slurp(d + "/out.txt").empty());
  CHECK(slurp(d + "/err.txt").find("Incomplete: interrupted by SIGTERM after 1 of 2 assessments") != std::string::npos);
}

TEST_CASE("-l past the end of a FIFO: partly past warns as for a regular file, fully past is an error") {
  const std::string d = scratch("fifo-range");
  REQUIRE(::mkfifo((d + "/ff").c_str(), 0644) == 0);
  // The writer feeds the FIFO's 10,000 samples and ends; ea_iid reads to the end of -l's range.
  auto through_fifo = [&](const std::string& range) {
    const std::string feed = "(head -c 10000 '" + kSamples + "rand8_short.bin' > '" + d + "/ff' &) && ";
    return run_with_env(feed, "--allow-stream --device cpu --seed 1 --iterations 20 -l " + range + " -o " + d +
                                  "/r.json " + d + "/ff");
  };
  const Result part = through_fifo("1,6000");
  CHECK(part.code == 0);
  CHECK_MESSAGE(part.err.find("-l 1,6000: " + d + "/ff gave 10000 samples: samples 6000 to 9999 are assessed, 4000 of "
                              "the 6000 asked for (the last whole range of 6000: -l 0,6000)") != std::string::npos,
                part.err);
  CHECK(nlohmann::json::parse(slurp(d + "/r.json"))["input"]["samples"] == 4000);
  const Result past = through_fifo("5,10000");
  CHECK(past.code == 2);
  CHECK_MESSAGE(past.err.find("past the end") != std::string::npos, past.err);
}
