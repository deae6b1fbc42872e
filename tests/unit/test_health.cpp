// SP 800-90B 4.4's health-test cutoffs (src/health) against SP 800-90B Table 2 and against
// tests/tools/health-cutoffs.json, which tests/tools/health_cutoffs_reference.py computes a
// second way (Fraction and mpmath, the CDF summed upward; ctest unit/health-cutoffs-reference
// checks the file is still the script's).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "health.hpp"
#include "health/health.hpp"
#include "report.hpp"
#include "settings_rules.hpp"

using namespace ea;

namespace {

double alpha_of(const std::string& text) {
  if (text.rfind("2^-", 0) == 0) return std::ldexp(1.0, -std::stoi(text.substr(3)));
  return std::stod(text);
}

// Equal to 1e-12 relative (the reference's doubles come from 300-digit decimals).
bool same(double a, double b) { return a == b || std::fabs(a - b) <= 1e-12 * std::fabs(b); }

}  // namespace

TEST_CASE("the APT cutoffs of SP 800-90B Table 2 (W = 512, alpha = 2^-20)") {
  const double h[] = {0.5, 1, 2, 4, 8};
  const uint64_t table2[] = {410, 311, 177, 62, 13};
  for (int k = 0; k < 5; ++k) {
    const HealthCutoffs c = health_cutoffs(h[k], 0x1p-20, false);
    CHECK(c.apt.window == 512);
    CHECK_MESSAGE(c.apt.cutoff == table2[k], "H = " << h[k]);
    // The cutoff is the least with a rate at most alpha.
    CHECK(c.apt.false_positive <= 0x1p-20);
    CHECK(binomial_tail(512, h[k], c.apt.cutoff - 1) > 0x1p-20);
  }
  // The RCT at H = 0.5: C = 1 + 20 / 0.5 (Go's crypto/internal/entropy uses 41 and 410).
  CHECK(health_cutoffs(0.5, 0x1p-20, false).rct.cutoff == 41);
}

TEST_CASE("the cutoffs and rates equal the reference's second computation") {
  std::ifstream in(EA_TEST_DATA_DIR "/../tests/tools/health-cutoffs.json");
  REQUIRE(in.good());
  const auto table = nlohmann::json::parse(in);
  REQUIRE(table["cases"].size() >= 10);
  for (const auto& x : table["cases"]) {
    const std::string what = "H = " + x["h"].get<std::string>() + ", alpha = " + x["alpha"].get<std::string>() +
                             (x["binary"].get<bool>() ? ", binary" : "");
    const HealthCutoffs c = health_cutoffs(std::stod(x["h"].get<std::string>()), alpha_of(x["alpha"]), x["binary"]);
    const auto& r = x["rct"];
    const auto& a = x["apt"];
    CHECK_MESSAGE(c.rct.cutoff == r["cutoff"].get<uint64_t>(), what);
    CHECK_MESSAGE(same(c.rct.false_positive, r["falsePositive"]), what);
    CHECK_MESSAGE(same(c.rct.detect_half_entropy, r["detectHalfEntropy"]), what);
    CHECK_MESSAGE(c.apt.window == a["window"].get<uint32_t>(), what);
    CHECK_MESSAGE(c.apt.cutoff == a["cutoff"].get<uint64_t>(), what);
    CHECK_MESSAGE(same(c.apt.false_positive, a["falsePositive"]), what);
    CHECK_MESSAGE(same(c.apt.false_positive_first_counted, a["falsePositiveFirstCounted"]), what);
    CHECK_MESSAGE(c.apt.cutoff_corrected == a["cutoffCorrected"].get<uint64_t>(), what);
    CHECK_MESSAGE(same(c.apt.false_positive_corrected, a["falsePositiveCorrected"]), what);
    CHECK_MESSAGE(same(c.apt.detect_half_entropy, a["detectHalfEntropy"]), what);
  }
}

TEST_CASE("the binary window (W = 1024) and the first sample counted") {
  const HealthCutoffs b = health_cutoffs(1, 0x1p-20, true);
  CHECK(b.apt.window == 1024);
  CHECK(b.apt.cutoff == 589);
  // Counting the window's first sample raises the rate of 4.4.2's cutoff above alpha here;
  // the corrected cutoff is one more and keeps it at most alpha.
  const HealthCutoffs h2 = health_cutoffs(2, 0x1p-20, false);
  CHECK(h2.apt.false_positive_first_counted > 0x1p-20);
  CHECK(h2.apt.cutoff_corrected == h2.apt.cutoff + 1);
  CHECK(h2.apt.false_positive_corrected <= 0x1p-20);
  // Where the rate stays at most alpha, the corrected cutoff is the same (H = 1, W = 512).
  const HealthCutoffs h1 = health_cutoffs(1, 0x1p-20, false);
  CHECK(h1.apt.false_positive_first_counted <= 0x1p-20);
  CHECK(h1.apt.cutoff_corrected == h1.apt.cutoff);
}

TEST_CASE("H and alpha are read as the decimals they print as") {
  // -log2(2^-30) / 0.3 = 100 exactly: C = 101 (the double nearest 0.3 would give 102).
  CHECK(health_cutoffs(0.3, 0x1p-30, false).rct.cutoff == 101);
  // 2^-20 written as a decimal is the same alpha.
  CHECK(health_cutoffs(2, 9.5367431640625e-07, false).apt.cutoff == 177);
}

TEST_CASE("the power: a stuck source and a drop to H/2") {
  const HealthCutoffs c = health_cutoffs(4, 0x1p-20, false);
  CHECK(c.rct.stuck_samples == c.rct.cutoff);
  CHECK(c.apt.stuck_samples == c.apt.cutoff);
  CHECK(c.apt.stuck_samples_worst == 511 + c.apt.cutoff);
  CHECK(c.rct.detect_half_entropy == std::exp2(-2.0 * (c.rct.cutoff - 1)));
  CHECK(c.apt.detect_half_entropy == binomial_tail(512, 2, c.apt.cutoff));
  CHECK(c.apt.detect_half_entropy > 0.99);
  // A claim so low that W of W equal samples is likelier than alpha: the APT cannot fail.
  const HealthCutoffs low = health_cutoffs(0.01, 0x1p-20, false);
  CHECK(low.apt.cutoff == 513);
  CHECK_FALSE(low.apt.can_fail());
  CHECK(low.apt.false_positive == 0);
}

TEST_CASE("H and alpha outside their ranges are refused") {
  auto kind = [](double h, double alpha, bool binary) {
    try {
      health_cutoffs(h, alpha, binary);
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::Internal;
  };
  CHECK(kind(0, 0x1p-20, false) == ErrorKind::Usage);
  CHECK(kind(8.5, 0x1p-20, false) == ErrorKind::Usage);
  CHECK(kind(1.5, 0x1p-20, true) == ErrorKind::Usage);
  CHECK(kind(1, 0, false) == ErrorKind::Usage);
  CHECK(kind(1, 1, false) == ErrorKind::Usage);
  CHECK(kind(1e-300, 0x1p-20, false) == ErrorKind::Usage);  // an RCT cutoff past 2^53
}

// pipeline/ and report/: the settings' rules, the result, its JSON.

namespace {

std::string refusal(const Settings& s, const SettingsGiven& g) {
  try {
    check_settings(s, g, keyword_name);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("the health tests' settings by the one set of rules") {
  Settings s;
  SettingsGiven g;
  s.health = HealthSpec{0.5};
  CHECK(refusal(s, g) == "accepted");
  CHECK_FALSE(draws_random_numbers(s));
  s.health->h = 9;
  CHECK(refusal(s, g) == "health_tests: '9': H must be a number greater than 0 and at most 8 bits per sample");
  s.width = 1;
  g.bits = true;
  s.health->h = 1.5;
  CHECK(refusal(s, g) == "health_tests: '1.5': H must be a number greater than 0 and at most 1 bits per sample (bits=1)");
  s.health->h = 1;
  s.health->alpha = 1;
  CHECK(refusal(s, g).find("alpha: '1' is not a false-positive rate") == 0);
  s.health->alpha = 0x1p-20;
  g.iterations = true;
  CHECK(refusal(s, g) == "iterations applies to the IID tests, which health_tests does not run");
  g.iterations = false;
  g.conditioned = true;
  CHECK(refusal(s, g) == "conditioned=true applies to the entropy estimates, which health_tests does not run");
  g.conditioned = false;
  s.restart = RestartSpec{1};
  CHECK(refusal(s, g) == "health_tests and restart exclude each other");
  // alpha without the health tests.
  Settings plain;
  SettingsGiven alpha_given;
  alpha_given.alpha = true;
  CHECK(refusal(plain, alpha_given) == "alpha applies to health_tests (the health tests' cutoffs)");
}

TEST_CASE("alpha is written 2^-N or as a decimal") {
  CHECK(alpha_setting("2^-20", keyword_name) == 0x1p-20);
  CHECK(alpha_setting("2^-40", keyword_name) == 0x1p-40);
  CHECK(alpha_setting("1e-6", keyword_name) == 1e-6);
  CHECK(alpha_setting("0.001", keyword_name) == 0.001);
  auto message = [](const std::string& text) {
    try {
      alpha_setting(text, keyword_name);
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Usage);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(message("2^-0").find("alpha 2^-N: N: 0 is out of range (1 to 1022)") == 0);
  CHECK(message("2^20").find("is neither 2^-N (such as 2^-20) nor a decimal (such as 1e-6)") != std::string::npos);
  CHECK(message("1/1024").find("is neither 2^-N (such as 2^-20) nor a decimal (such as 1e-6)") != std::string::npos);
  CHECK(message("2**-20").find("'2**-20' is neither 2^-N") != std::string::npos);
  CHECK(message("1e-6") == "accepted");
}

TEST_CASE("health tests: the result, its notes, text and JSON") {
  Settings s;
  s.health = HealthSpec{2, 0x1p-41};
  const HealthAssessment a = assess_health(s);
  CHECK(a.cutoffs.apt.cutoff == health_cutoffs(2, 0x1p-41, false).apt.cutoff);
  REQUIRE(a.notes.size() == 2);
  CHECK(a.notes[0] == "alpha = 2^-41 is outside SP 800-90B 4.4's recommended range 2^-40 <= alpha <= 2^-20");
  CHECK(a.notes[1].find("taken as non-binary") != std::string::npos);
  s.width = 1;
  s.health = HealthSpec{1};
  // A binary file with a run of 25 zeros from sample 1000 (between ones) (RCT C = 21 at H = 1) and the
  // Monte Carlo check of a few windows: the JSON has every part.
  std::vector<char> bits(3000);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<char>(i >= 1000 && i < 1025 ? 0 : i % 2);
  const std::string path = EA_TEST_TMP_DIR "/health-run25.bin";
  std::ofstream(path, std::ios::binary).write(bits.data(), static_cast<std::streamsize>(bits.size()));
  s.health->simulate = 5000;
  s.seed = 9;
  s.device = DeviceChoice::Cpu;  // the text below names the CPU
  const HealthAssessment b = assess_health(s, {path});
  CHECK(b.notes.empty());
  CHECK(b.cutoffs.apt.window == 1024);
  REQUIRE(b.files.size() == 1);
  CHECK(b.files[0].samples == 3000);
  CHECK(b.files[0].width == 1);
  CHECK(b.files[0].rct.failures == 1);
  CHECK(b.files[0].rct.first_failure == 1020);
  CHECK(b.files[0].rct.longest_run == 25);
  CHECK(b.files[0].rct.longest_run_offset == 1000);
  CHECK(b.files[0].apt.failures == 0);
  CHECK(b.files[0].apt.windows == 3);
  CHECK(b.failed());
  REQUIRE(b.simulation);
  CHECK(b.simulation->samples == 5120);
  CHECK(b.simulation->seed == 9);
  ReportOptions o;
  o.started = "20250101000000";
  o.command_line = "ea_iid health-tests 1 --bits 1";
  const auto j = health_json(b, o);
  CHECK(j["type"] == "HealthTests");
  CHECK(j["schemaVersion"] == kSchemaVersion);
  CHECK(j["h"] == 1.0);
  CHECK(j["alpha"] == 0x1p-20);
  CHECK(j["bits"] == 1);
  CHECK(j["rct"]["cutoff"] == 21);
  CHECK(j["apt"]["window"] == 1024);
  CHECK(j["apt"]["cutoff"] == 589);
  CHECK(j["apt"]["cutoffCorrected"] == b.cutoffs.apt.cutoff_corrected);
  CHECK(j["apt"]["falsePositive"] == b.cutoffs.apt.false_positive);
  CHECK(j["files"][0]["rct"]["longestRunOffset"] == 1000);
  CHECK(j["files"][0]["apt"]["firstFailure"].is_null());
  CHECK(j["files"][0]["sampleRule"] == "u8");  // one byte a sample, as they are
  CHECK(j["files"][0]["mapping"].is_null());
  CHECK(j["failed"] == true);
  CHECK(j["simulation"]["seed"] == "9");
  CHECK(j["simulation"]["device"] == "cpu");
  CHECK(j["simulation"]["gpu"].is_null());
  CHECK(j["simulation"]["apt"]["trials"] == 5);
  // Written where ctest schema/health-tests validates it against docs/ea_iid.schema.json.
  std::ofstream(EA_TEST_TMP_DIR "/health-tests.json") << dump_json(j, 2);
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  print_health_text(f, b, o);
  std::rewind(f);
  std::string text(8192, '\0');
  text.resize(std::fread(&text[0], 1, text.size(), f));
  std::fclose(f);
  CHECK(text.find("Repetition Count Test: cutoff C = 21\n") != std::string::npos);
  CHECK(text.find("Adaptive Proportion Test: window W = 1024, cutoff C = 589\n") != std::string::npos);
  CHECK(text.find("  Repetition Count Test (C = 21): 1 failure, the first at sample 1020; longest run 25 from sample "
                  "1000\n") != std::string::npos);
  CHECK(text.find("  Health tests: FAILED\n") != std::string::npos);
  CHECK(text.find("Monte Carlo check (CPU): 5120 samples, seed 9") != std::string::npos);
  // A missing file is the loader's input error, naming it.
  try {
    assess_health(s, {EA_TEST_TMP_DIR "/no-such-health-file.bin"});
    CHECK(false);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Input);
    CHECK(std::string(e.what()).find("no-such-health-file.bin") != std::string::npos);
  }
}

TEST_CASE("health tests: the Monte Carlo check's device (--device): the same counts on a GPU, else the CPU or an error") {
  Settings s;
  s.width = 8;
  s.health = HealthSpec{2, 0x1p-8, 300000};
  s.seed = 46;
  s.device = DeviceChoice::Cpu;
  const HealthAssessment cpu = assess_health(s);
  REQUIRE(cpu.simulation);
  CHECK(cpu.simulation_device == "cpu");
  CHECK(cpu.simulation->rct.failures > 0);
  s.device = DeviceChoice::Auto;
  std::vector<std::string> notes;
  const HealthAssessment any = assess_health(s, {}, nullptr, [&](const std::string& m) { notes.push_back(m); });
  REQUIRE(any.simulation);
  // Either device: the counts of independent Philox runs do not depend on it.
  CHECK(any.simulation->rct.failures == cpu.simulation->rct.failures);
  CHECK(any.simulation->apt.failures == cpu.simulation->apt.failures);
  s.device = DeviceChoice::Gpu;
  if (gpu_count() > 0) {
    CHECK(any.simulation_device == "gpu");
    CHECK(any.simulation_gpu.rfind("GPU 0: ", 0) == 0);
    CHECK(notes.empty());
    CHECK(assess_health(s).simulation->rct.failures == cpu.simulation->rct.failures);
  } else {
    // auto falls back to the CPU, saying why; gpu is an error.
    CHECK(any.simulation_device == "cpu");
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].rfind("the Monte Carlo check runs on the CPU: ", 0) == 0);
    try {
      assess_health(s);
      CHECK(false);
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Device);
    }
  }
}
