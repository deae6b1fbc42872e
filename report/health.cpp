// The health tests' cutoffs, their scans of files and their Monte Carlo check
// (pipeline/health.hpp): our text and the JSON record (docs/json.md "ea_iid health-tests").
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>

#include "common/numbers.hpp"
#include "report.hpp"

namespace ea {

using nlohmann::ordered_json;

// A probability as 2^x with x to 2 decimals ("2^-20.00"), 0 as "0".
std::string health_probability_text(double p) {
  if (p <= 0) return "0";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g (2^%.2f)", p, std::log2(p));
  return buf;
}

std::string health_alpha_text(double alpha) {
  int e = 0;
  char buf[48];
  if (std::frexp(alpha, &e) == 0.5) {
    std::snprintf(buf, sizeof buf, "2^%d", e - 1);
  } else {
    std::snprintf(buf, sizeof buf, "%s", shortest_number(alpha).c_str());
  }
  return buf;
}

namespace {

std::string log2_text(double p) { return health_probability_text(p); }
std::string alpha_text(double alpha) { return health_alpha_text(alpha); }

void print_file_text(std::FILE* f, const HealthFileScan& s, const HealthCutoffs& c) {
  std::fprintf(f, "\nFile: %s\n  SHA-256 %s, %" PRIu64 " samples of %d bit%s\n", s.path.c_str(), s.sha256.c_str(), s.samples,
               s.width, s.width == 1 ? "" : "s");
  // How the samples were read and made symbols ("" for u8 samples as they are).
  if (const std::string samples = mapping_line(s.mapping); !samples.empty()) std::fprintf(f, "  %s", samples.c_str());
  std::fprintf(f, "  Repetition Count Test (C = %" PRIu64 "): %" PRIu64 " failure%s", c.rct.cutoff, s.rct.failures,
               s.rct.failures == 1 ? "" : "s");
  if (s.rct.first_failure) std::fprintf(f, ", the first at sample %" PRIu64, *s.rct.first_failure);
  std::fprintf(f, "; longest run %" PRIu64 " from sample %" PRIu64 "\n", s.rct.longest_run, s.rct.longest_run_offset);
  std::fprintf(f, "  Adaptive Proportion Test (W = %" PRIu32 ", C = %" PRIu64 "): %" PRIu64 " failure%s in %" PRIu64 " window%s",
               c.apt.window, c.apt.cutoff, s.apt.failures, s.apt.failures == 1 ? "" : "s", s.apt.windows,
               s.apt.windows == 1 ? "" : "s");
  if (s.apt.first_failure) std::fprintf(f, ", the first at sample %" PRIu64, *s.apt.first_failure);
  std::fprintf(f, "; largest count %" PRIu64 " in the window from sample %" PRIu64 "\n", s.apt.largest_count,
               s.apt.largest_window_offset);
  std::fprintf(f, "  Health tests: %s\n", s.failed() ? "FAILED" : "passed");
}

void print_rate_text(std::FILE* f, const char* name, const char* per, const SimulatedRate& r, double bound) {
  std::fprintf(f, "  %s: %" PRIu64 " failures in %" PRIu64 " %ss: %.4g per %s, 99%% interval [%.4g, %.4g]\n", name,
               r.failures, r.trials, per, r.observed, per, r.low, r.high);
  std::fprintf(f, "    exact for this source %.4g (%.6g failures expected): %s; SP 800-90B's bound %s\n", r.expected,
               r.expected_failures, r.within() ? "within the interval" : "OUTSIDE the interval", log2_text(bound).c_str());
}

void print_simulation_text(std::FILE* f, const HealthSimulation& s, const HealthCutoffs& c, const std::string& device) {
  std::fprintf(f, "\nMonte Carlo check (%s): %" PRIu64 " samples, seed %" PRIu64 ", in %" PRIu64 " independent runs of %" PRIu64
               " samples at most\n  a source of %" PRIu32
               " values: the most likely at p = %s, each other at %s\n",
               device.c_str(), s.samples, s.seed, s.chunks, s.chunk, s.alphabet, shortest_number(s.p_max).c_str(),
               shortest_number(s.p_other).c_str());
  print_rate_text(f, "Repetition Count Test", "sample", s.rct, c.rct.false_positive);
  print_rate_text(f, "Adaptive Proportion Test", "window", s.apt, c.apt.false_positive_first_counted);
}

}  // namespace

void print_health_text(std::FILE* f, const HealthAssessment& a, const ReportOptions& o) {
  if (o.quiet) return;
  const HealthCutoffs& c = a.cutoffs;
  std::fprintf(f, "Health tests (SP 800-90B 4.4) for H = %s bits per sample, alpha = %s, a %s source\n", shortest_number(c.h).c_str(),
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
  if (c.apt.can_fail()) {
    std::fprintf(f, "  a stuck source fails it within %" PRIu64 " samples (%" PRIu64 " when a window starts with it)\n",
                 c.apt.stuck_samples_worst, c.apt.stuck_samples);
  } else {
    std::fprintf(f, "  a stuck source never fails it (C > W): the Repetition Count Test alone catches one\n");
  }
  std::fprintf(f, "  entropy dropped to H/2: fails per window with %s\n", log2_text(c.apt.detect_half_entropy).c_str());
  for (const std::string& n : a.notes) std::fprintf(f, "Note: %s\n", n.c_str());
  for (const HealthFileScan& s : a.files) print_file_text(f, s, c);
  if (a.simulation) print_simulation_text(f, *a.simulation, c, a.simulation_device == "gpu" ? a.simulation_gpu : "CPU");
}

namespace {

ordered_json offset_json(const std::optional<uint64_t>& at) { return at ? ordered_json(*at) : ordered_json(nullptr); }

ordered_json file_json(const HealthFileScan& s) {
  ordered_json j;
  j["path"] = s.path;
  j["sha256"] = s.sha256;
  j["samples"] = s.samples;
  j["bits"] = s.width;
  j["sampleRule"] = sample_input_text(s.mapping.input);
  j["mapping"] = mapping_json(s.mapping);
  j["rct"] = {{"failures", s.rct.failures},
              {"firstFailure", offset_json(s.rct.first_failure)},
              {"longestRun", s.rct.longest_run},
              {"longestRunOffset", s.rct.longest_run_offset}};
  j["apt"] = {{"windows", s.apt.windows},
              {"failures", s.apt.failures},
              {"firstFailure", offset_json(s.apt.first_failure)},
              {"largestCount", s.apt.largest_count},
              {"largestWindowOffset", s.apt.largest_window_offset}};
  j["failed"] = s.failed();
  return j;
}

ordered_json rate_json(const SimulatedRate& r, double bound) {
  ordered_json j;
  j["trials"] = r.trials;
  j["failures"] = r.failures;
  j["observed"] = r.observed;
  j["interval99"] = {r.low, r.high};
  j["expectedFailures"] = r.expected_failures;
  j["expected"] = r.expected;
  j["stationary"] = r.stationary;
  j["bound"] = bound;
  j["within"] = r.within();
  return j;
}

ordered_json simulation_json(const HealthSimulation& s, const HealthCutoffs& c, const HealthAssessment& a) {
  ordered_json j;
  const bool gpu = a.simulation_device == "gpu";
  j["device"] = gpu ? "gpu" : "cpu";
  j["gpu"] = gpu ? ordered_json(a.simulation_gpu) : ordered_json(nullptr);
  j["samples"] = s.samples;
  j["seed"] = std::to_string(s.seed);
  j["chunkSamples"] = s.chunk;
  j["chunks"] = s.chunks;
  j["alphabet"] = s.alphabet;
  j["pMax"] = s.p_max;
  j["pOther"] = s.p_other;
  j["rct"] = rate_json(s.rct, c.rct.false_positive);
  j["apt"] = rate_json(s.apt, c.apt.false_positive_first_counted);
  return j;
}

}  // namespace

ordered_json health_cutoffs_json(const HealthAssessment& a) {
  const HealthCutoffs& c = a.cutoffs;
  ordered_json j;
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
  apt["stuckSamples"] = c.apt.can_fail() ? ordered_json(c.apt.stuck_samples) : ordered_json(nullptr);
  apt["stuckSamplesWorst"] = c.apt.can_fail() ? ordered_json(c.apt.stuck_samples_worst) : ordered_json(nullptr);
  apt["detectHalfEntropy"] = c.apt.detect_half_entropy;
  j["apt"] = apt;
  j["notes"] = a.notes;
  return j;
}

ordered_json health_json(const HealthAssessment& a, const ReportOptions& o) {
  ordered_json j = json_envelope(o, "", "", 0, nullptr, "HealthTests");
  j["schemaVersion"] = kSchemaVersion;
  const ordered_json cutoffs = health_cutoffs_json(a);
  for (auto it = cutoffs.begin(); it != cutoffs.end(); ++it) j[it.key()] = *it;
  const HealthCutoffs& c = a.cutoffs;
  j["files"] = ordered_json::array();
  for (const HealthFileScan& s : a.files) j["files"].push_back(file_json(s));
  j["failed"] = a.failed();
  j["simulation"] = a.simulation ? simulation_json(*a.simulation, c, a) : ordered_json(nullptr);
  return j;
}

}  // namespace ea
