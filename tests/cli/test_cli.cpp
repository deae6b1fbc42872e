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

#include "common/error.hpp"
#include "options.hpp"
#include "outcome.hpp"
#include "rng/prng.hpp"

#include "cli_helpers.hpp"

namespace {

using namespace cli_test;

const std::string kSamples = std::string(EA_TEST_DATA_DIR) + "/samples/";

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
  for (const char* group : {"Input:", "Assessment:", "Output:", "Batch:", "Permutation engine:", "GPU tuning:", "Subcommands"}) {
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
    CHECK(r.out.find("Verdict") == std::string::npos);
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
