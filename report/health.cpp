// The health tests' cutoffs (pipeline/health.hpp): our text and the JSON record
// (docs/json.md "ea_iid health-tests").
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>

#include "report.hpp"

namespace ea {

using nlohmann::ordered_json;

namespace {

// A probability as 2^x with x to 2 decimals ("2^-20.00"), 0 as "0".
std::string log2_text(double p) {
  if (p <= 0) return "0";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g (2^%.2f)", p, std::log2(p));
  return buf;
}

std::string alpha_text(double alpha) {
  int e = 0;
  char buf[48];
  if (std::frexp(alpha, &e) == 0.5) {
    std::snprintf(buf, sizeof buf, "2^%d", e - 1);
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", alpha);
  }
  return buf;
}

}  // namespace

void print_health_text(std::FILE* f, const HealthAssessment& a, const ReportOptions& o) {
  if (o.quiet) return;
  const HealthCutoffs& c = a.cutoffs;
  std::fprintf(f, "Health tests (SP 800-90B 4.4) for H = %.17g bits per sample, alpha = %s, a %s source\n", c.h,
               alpha_text(c.alpha).c_str(), c.binary ? "binary" : "non-binary");
  std::fprintf(f, "Repetition Count Test: cutoff C = %" PRIu64 "\n", c.rct.cutoff);
  std::fprintf(f, "  false positive per sample: %s\n", log2_text(c.rct.false_positive).c_str());
  std::fprintf(f, "  a stuck source fails it after %" PRIu64 " identical samples\n", c.rct.stuck_samples);
  std::fprintf(f, "  entropy dropped to H/2: fails per sample with %s\n", log2_text(c.rct.detect_half_entropy).c_str());
  std::fprintf(f, "Adaptive Proportion Test: window W = %" PRIu32 ", cutoff C = %" PRIu64 "%s\n", c.apt.window,
               c.apt.cutoff, c.apt.can_fail() ? "" : " (cannot fail)");
  std::fprintf(f, "  false positive per window: %s\n", log2_text(c.apt.false_positive).c_str());
  std::fprintf(f, "  with the window's first sample counted: %s; the cutoff that keeps it at most alpha: %" PRIu64
               " (%s)\n", log2_text(c.apt.false_positive_first_counted).c_str(), c.apt.cutoff_corrected,
               log2_text(c.apt.false_positive_corrected).c_str());
  std::fprintf(f, "  a stuck source fails it within %" PRIu64 " samples (%" PRIu64 " when a window starts with it)\n",
               c.apt.stuck_samples_worst, c.apt.stuck_samples);
  std::fprintf(f, "  entropy dropped to H/2: fails per window with %s\n", log2_text(c.apt.detect_half_entropy).c_str());
  for (const std::string& n : a.notes) std::fprintf(f, "Note: %s\n", n.c_str());
}

ordered_json health_json(const HealthAssessment& a, const ReportOptions& o) {
  const HealthCutoffs& c = a.cutoffs;
  ordered_json j = json_envelope(o, "", "", 0, nullptr, "HealthTests");
  j["schemaVersion"] = kSchemaVersion;
  j["h"] = c.h;
  j["alpha"] = c.alpha;
  j["alphaLog2"] = std::log2(c.alpha);
  j["bits"] = a.settings.width > 0 ? ordered_json(a.settings.width) : ordered_json(nullptr);
  j["binary"] = c.binary;
  ordered_json rct;
  rct["cutoff"] = c.rct.cutoff;
  rct["falsePositive"] = c.rct.false_positive;
  rct["stuckSamples"] = c.rct.stuck_samples;
  rct["detectHalfEntropy"] = c.rct.detect_half_entropy;
  j["rct"] = rct;
  ordered_json apt;
  apt["window"] = c.apt.window;
  apt["cutoff"] = c.apt.cutoff;
  apt["canFail"] = c.apt.can_fail();
  apt["falsePositive"] = c.apt.false_positive;
  apt["falsePositiveFirstCounted"] = c.apt.false_positive_first_counted;
  apt["cutoffCorrected"] = c.apt.cutoff_corrected;
  apt["falsePositiveCorrected"] = c.apt.false_positive_corrected;
  apt["stuckSamples"] = c.apt.stuck_samples;
  apt["stuckSamplesWorst"] = c.apt.stuck_samples_worst;
  apt["detectHalfEntropy"] = c.apt.detect_half_entropy;
  j["apt"] = apt;
  j["notes"] = a.notes;
  return j;
}

}  // namespace ea
