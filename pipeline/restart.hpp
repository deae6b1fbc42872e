// The restart tests (SP 800-90B 3.1.4): a file of 1,000 restarts x 1,000 samples (row i =
// restart i) read as NIST ea_restart reads it; the sanity check (3.1.4.3); then, for the
// claim the entropy H_I rests on,
// - IID (NIST ea_restart -i): the IID tests of section 5 on the row data set and on the
//   column data set (each an assess() of its own: chi-square, LRS, permutation tests with
//   the same engine, generators, seed rule and early exit as ea_iid, on the GPU when one is
//   usable), H_r and H_c their MCV estimates;
// - non-IID (NIST ea_restart -n, its default): the non-IID estimates of section 6.3 on the
//   literal symbols of each data set (all of them one pool of CPU tasks), H_r and H_c their
//   minima;
// the validation test (3.1.4.2) min(H_r, H_c) >= H_I / 2; the result min(H_r, H_c, H_I).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "assess.hpp"
#include "estimators/restart.hpp"
#include "non_iid.hpp"

namespace ea {

// The claim the restart tests check: the track of the source's sequential data set.
enum class RestartClaim { Iid, NonIid };
// --track iid: Iid; auto (the default) and non-iid: NonIid, as NIST ea_restart's default
// (-n). An IID claim rests on an IID verdict of the sequential data set, which a run of the
// restart data alone does not have: it is asked for by name.
RestartClaim restart_claim(const Settings& s);
const char* restart_claim_name(RestartClaim c);  // "IID", "non-IID"

struct RestartAssessment : InputFacts {
  Settings settings;         // as given; settings.restart holds H_I and the cutoff method
  double h_i = 0;
  RestartClaim claim = RestartClaim::Iid;

  double alpha = 0;
  int x_cutoff = 0;
  CutoffMethod cutoff_method = CutoffMethod::Exact;
  uint64_t cutoff_simulations = 0;  // Simulation only
  uint64_t cutoff_seed = 0;         // Simulation only: derived from settings.seed
  RestartCounts counts;
  bool sanity_passed() const { return counts.x_max() <= x_cutoff; }

  // An IID claim: the IID tests of each data set; a non-IID claim: the literal non-IID
  // estimates of each. All absent when the sanity check failed (NIST's ea_restart stops
  // there).
  std::optional<Assessment> rows, columns;
  std::optional<NonIidEstimates> row_estimates, column_estimates;
  bool tested() const { return rows.has_value() || row_estimates.has_value(); }
  // IID: min(width, MCV estimate) of rows and of columns; non-IID: min(width, every literal
  // estimate) of each.
  double h_r = 0, h_c = 0;
  bool validation_passed() const { return tested() && std::min(h_r, h_c) >= h_i / 2.0; }
  double result() const { return std::min(std::min(h_r, h_c), h_i); }  // min(H_r, H_c, H_I)

  double seconds = 0;

  // What failed: "sanity check", "rows: chi-square", "columns: permutation", ...,
  // "validation"; empty when everything passed.
  std::vector<std::string> failures() const;
  // passed: nothing failed and (IID claim) both data sets' IID verdicts are IID; failed:
  // something failed; inconclusive: nothing failed but a data set's IID verdict is
  // inconclusive.
  Check check() const;
  bool for_compliance() const;  // both data sets' assessments can stand as SP 800-90B ones
};

// Runs the restart tests on a loaded data set (exactly 1,000,000 samples; Error{Input}
// otherwise) with settings.restart set, for the claim restart_claim(settings). IID claim:
// the rows run on `slot`, the columns at the same time on a slot of their own with the same
// GPUs; non-IID claim: the estimates on slot's CPU threads.
RestartAssessment assess_restart(const Dataset& data, const Settings& settings, const Hooks& hooks, DeviceSlot& slot,
                                 DeviceSlot& column_slot);

// The seed of the cutoff simulation: derived from the user's seed alone (the simulation
// does not depend on the data).
uint64_t restart_cutoff_seed(uint64_t user_seed);

}  // namespace ea
