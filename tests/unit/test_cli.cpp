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

#include "rng/prng.hpp"

#include "cli_helpers.hpp"

namespace {

using namespace cli_test;

const std::string kSamples = std::string(EA_TEST_DATA_DIR) + "/samples/";

// An error with -o given: one line on stderr, exit 2. An input error (the arguments are
// valid) also goes to -o as JSON; a usage error writes nothing, not even the error JSON (an
// -o argument of a malformed command line may name the sample file itself).
void check_failure(const std::string& args, const std::string& message, bool usage) {
  CAPTURE(args);
  const std::string json = tmp("cli_error-" + std::to_string(::getpid()) + ".json");
  std::remove(json.c_str());
  Result r = run("-o " + json + " " + args);
  CHECK(r.code == 2);
  CHECK(r.err.find(message) != std::string::npos);
  CHECK(r.err.find("ea_iid: error:") == 0);
  CHECK(r.out.empty());
  struct stat st {};
  if (usage) {
    CHECK(::stat(json.c_str(), &st) != 0);
    return;
  }
  auto j = nlohmann::json::parse(slurp(json));
  CHECK(j["errorLevel"] == -1);
  CHECK(j["errorMessage"].get<std::string>().find(message) != std::string::npos);
}

void check_error(const std::string& args, const std::string& message) { check_failure(args, message, false); }
void check_usage_error(const std::string& args, const std::string& message) { check_failure(args, message, true); }

}  // namespace

TEST_CASE("bad input: one line on stderr naming the problem, exit 2, JSON with errorMessage (none for usage errors)") {
  check_error(tmp("does-not-exist.bin"), "does-not-exist.bin: no such file");
  check_error(EA_TEST_TMP_DIR, "is a directory");
  check_error(write_bytes("empty.bin", ""), "empty.bin: file is empty");
  check_error(write_bytes("one-symbol.bin", std::string(100, '\x05')), "1 symbol");
  check_error(write_bytes("wide.bin", "\x01\x02\x80") + " 4", "wider than the given 4 bits");
  check_usage_error(kSamples + "rand8_short.bin 9", "bits per symbol must be between 1 and 8, got '9'");
  check_usage_error(kSamples + "rand8_short.bin 0", "bits per symbol must be between 1 and 8, got '0'");
  check_error("-l 5,10000 " + kSamples + "rand8_short.bin", "past the end of the file");
  check_usage_error("-l 5 " + kSamples + "rand8_short.bin", "-l expects INDEX,COUNT");
  check_usage_error("-l x,3 " + kSamples + "rand8_short.bin", "-l expects INDEX,COUNT");
  check_usage_error("--bitz " + kSamples + "rand8_short.bin", "--bitz");
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

TEST_CASE("too few samples for chi-square: 'cannot be evaluated', never a pass") {
  std::string s;
  for (int i = 0; i < 40; ++i) s.push_back(static_cast<char>((i * 37) % 64));
  Result r = run("--seed 1 --iterations 20 -v -v -v " + write_bytes("tiny.bin", s));
  CHECK(r.code == 0);
  CHECK(r.out.find("Chi square independence: cannot be evaluated: not enough samples") != std::string::npos);
  CHECK(r.out.find("Chi square tests: cannot be evaluated: not enough samples") != std::string::npos);
  CHECK(r.out.find("Chi square tests: Passed") == std::string::npos);
  CHECK(r.out.find("Verdict: IID") == std::string::npos);
  CHECK(r.err.find("less than 1000000 samples") != std::string::npos);
  CHECK(r.err.find("not an SP 800-90B assessment") != std::string::npos);
}

TEST_CASE("JSON: reference fields, verdict, seed, counters and --exit-code") {
  const std::string json = tmp("cli_ok.json");
  Result r = run("--seed 99 -o " + json + " " + kSamples + "rand8_short.bin");
  CHECK(r.code == 0);
  CHECK(r.out.find("Verdict: ") != std::string::npos);
  auto j = nlohmann::json::parse(slurp(json));
  CHECK(j["errorLevel"] == 0);
  CHECK(j["IID"] == true);
  CHECK(j["sha256"].get<std::string>().size() == 64);
  auto tc = j["testCases"][0];
  CHECK(tc["hAssessed"].get<double>() == doctest::Approx(j["assessedMinEntropy"].get<double>()));
  CHECK(tc["hAssessed"].get<double>() < 8.0);  // not the reference's bit-width placeholder
  CHECK(tc["permutationTestResults"].size() == 3);
  CHECK(j["permutation"]["userSeed"] == "99");  // decimal strings: no precision lost in jq
  CHECK(j["permutation"]["seed"].is_string());
  CHECK(j["permutation"]["prng"] == "philox");
  CHECK(j["permutation"]["forCompliance"] == true);
  CHECK(j["permutation"]["tests"].size() == 19);
  CHECK(j["verdict"].contains("iid"));
  // The same seed reproduces the counters exactly.
  const std::string json2 = tmp("cli_ok2.json");
  run("--seed 99 --threads 1 -o " + json2 + " " + kSamples + "rand8_short.bin");
  auto j2 = nlohmann::json::parse(slurp(json2));
  CHECK(j2["testCases"][0]["permutationTestResults"] == tc["permutationTestResults"]);

  // A non-IID file: exit 0 by default, 1 with --exit-code.
  std::string ramp;
  for (int i = 0; i < 20000; ++i) ramp.push_back(static_cast<char>((i / 7) % 256));
  std::string path = write_bytes("ramp.bin", ramp);
  Result plain = run("--seed 1 --iterations 200 " + path);
  CHECK(plain.code == 0);
  CHECK(plain.out.find("Verdict: not IID") != std::string::npos);
  Result strict = run("--seed 1 --iterations 200 --exit-code " + path);
  CHECK(strict.code == 1);
}

TEST_CASE("--no-early-exit runs 10,000 permutations for every test, --help and --version exit 0") {
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
  CHECK(run("--help").code == 0);
  Result v = run("--version");
  CHECK(v.code == 0);
  CHECK(v.out.find("ea_iid") == 0);
}

TEST_CASE("--prng: the generator is named in the output and JSON, non-compliant ones are marked") {
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
  Result bad = run("--prng mt19937 " + kSamples + "rand8_short.bin");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("unknown --prng 'mt19937'") != std::string::npos);
  const std::string json = tmp("cli_sobol.json");
  Result sobol = run("-v --seed 3 --iterations 40 --prng sobol -o " + json + " " + kSamples + "rand8_short.bin");
  CHECK(sobol.code == 0);
  CHECK(sobol.out.find("PRNG Sobol") != std::string::npos);
  CHECK(sobol.out.find("NOT FOR COMPLIANCE") != std::string::npos);
  auto j = nlohmann::json::parse(slurp(json));
  CHECK(j["permutation"]["prng"] == "sobol");
  CHECK(j["permutation"]["forCompliance"] == false);
  CHECK(j["forCompliance"] == false);
  Result mrg = run("--seed 3 --iterations 40 --prng mrg32k3a " + kSamples + "rand8_short.bin");
  CHECK(mrg.code == 0);
  CHECK(mrg.out.find("NOT FOR COMPLIANCE") == std::string::npos);
}
