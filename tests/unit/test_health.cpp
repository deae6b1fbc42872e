// SP 800-90B 4.4's health-test cutoffs (src/health) against SP 800-90B Table 2 and against
// tests/tools/health-cutoffs.json, which tests/tools/health_cutoffs_reference.py computes a
// second way (Fraction and mpmath, the CDF summed upward; ctest unit/health-cutoffs-reference
// checks the file is still the script's).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "health/health.hpp"

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

