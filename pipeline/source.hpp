// One noise source through SP 800-90B section 3.1 end to end: the sequential data set's IID
// tests and estimates (the track they decide: H_original, H_bitstring, then H_I with the
// submitter's estimate), the restart tests of H_I for that track's claim (sanity check,
// validation, min(H_r, H_c, H_I)), and the conditioning chain's output entropy, component by
// component, h_in of the first from the validated entropy. Each step is the result the single commands give
// (ItemResult, ConditioningAssessment); this adds what links them.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "conditioning.hpp"
#include "health.hpp"
#include "result.hpp"
#include "runner.hpp"

namespace ea {

struct SourceConditioning {
  bool vetted = true;
  uint32_t n_in = 0, n_out = 0, nw = 0;
  std::optional<long double> h_prime;          // non-vetted: h' given
  std::optional<std::string> conditioned;      // non-vetted: h' from this file
  bool conditioned_iid = false;
  // What NIST's ESV registration says of the component and the assessment does not use
  // (a manifest's fields; `ea_iid esv` writes them into the registration).
  std::optional<std::string> description;        // vetted: the ACVTS name of the algorithm
  std::optional<std::string> validation_number;  // vetted: its ACVTS validation
  std::optional<bool> bijective;                 // non-vetted: bijectiveClaim
};

struct SourceSpec {
  std::string name;                            // the noise source, as the report names it
  std::string samples;                         // the sequential data set
  std::optional<std::string> restart_data;     // 1,000 restarts x 1,000 samples
  std::optional<double> h_submitter;           // the submitter's entropy estimate per sample
  // The health tests' false-positive rate (4.4; `ea_iid source --health-alpha`): the RCT's and
  // APT's cutoffs for the entropy that stands are computed at it. No ESV field holds it: a
  // manifest's sources take this default.
  double health_alpha = 0x1p-20;
  // The conditioning chain in sequence order (empty: none): each component's input is the
  // previous one's output.
  std::vector<SourceConditioning> conditioning;
};

// One component of the chain as assessed: h_in (3.1.5: the first's from the validated
// entropy, h_validated x n_in / bits; a later one's from the previous output's rate,
// h_out x n_in / n_out of the previous; each at most n_in) and its assessment (none once no
// entropy stands before it: h_in 0).
struct ConditioningStep {
  long double h_in = 0;
  std::optional<ConditioningAssessment> assessed;
};

// The sequential data set's input facts are its InputFacts.
struct SourceAssessment : InputFacts {
  SourceSpec spec;
  Settings settings;          // of the sequential data set (seed, engine, track)
  // Its assessment: settings.track auto (the default): the IID tests, the non-IID estimates
  // after "not IID"; iid: the IID tests alone; non-iid: the non-IID estimates alone.
  ItemResult sequential;
  // The non-IID estimates of the sequential data set when its IID run did not make them
  // (a verdict other than IID from exploratory --iterations, or inconclusive): the non-IID
  // track needs them for H_I.
  std::optional<ItemResult> estimates;
  std::optional<ItemResult> restart;
  std::vector<ConditioningStep> conditioning;  // one per component of spec.conditioning
  // 4.4: the health tests' cutoffs (ea_iid health-tests h --bits width --alpha
  // spec.health_alpha) for the entropy per sample that stands, h_validated, or H_I when the
  // restart tests failed (health_from_h_i); none when no entropy is claimed (H_I 0) or a run
  // of 2^53 samples would be needed.
  std::optional<HealthAssessment> health;
  bool health_from_h_i = false;

  // With the IID tests run (not --track non-iid), their verdict; H_original and
  // H_bitstring (per bit) of the track that set H_assessed.
  std::optional<Verdict> verdict;
  std::optional<double> h_original, h_bitstring;
  // 3.1.3: H_I = min(H_original, bits x H_bitstring, H_submitter), per sample.
  bool iid = false;               // the IID track: the verdict is IID (and the track not forced)
  double h_assessed = 0;          // min(H_original, bits x H_bitstring) of the track
  double h_i = 0;                 // with H_submitter
  // The entropy per sample that stands: min(H_r, H_c, H_I) when the restart tests passed,
  // H_I without restart data (not for compliance), 0 when they failed.
  double h_validated = 0;
  double seconds = 0;

  // What failed ("restart tests: sanity check", ...), and why the whole cannot stand for
  // an SP 800-90B submission (no restart data, a step not for compliance).
  std::vector<std::string> failures() const;
  std::vector<std::string> compliance_issues() const;
  bool passed() const { return failures().empty(); }
  // The entropy claimed for the source's output: the last component's h_out per its n_out
  // bits with conditioning (0 when a component had no entropy to condition), else
  // h_validated per sample.
  long double claimed() const;
};

// Refuses a health tests' false-positive rate outside (0, 1) (Error{Usage} naming it `name`).
void check_health_alpha(double alpha, const std::string& name);

// Runs the steps in order on `engine` (the sequential data set and the restart data each a
// run of their own; plan.jobs 1). Throws Error for a step that cannot be run (a file that
// cannot be read: its item's message; bad conditioning sizes), Error{Interrupted} when
// `interrupt` is set. `watch.note` gets one line per step as it starts, `watch.progress` each
// step's rounds of permutations (either may be empty; the other callbacks are not used).
SourceAssessment assess_source(Engine& engine, const SourceSpec& spec, const Settings& settings,
                               const std::atomic<bool>& interrupt, const RunObserver& watch);

}  // namespace ea
