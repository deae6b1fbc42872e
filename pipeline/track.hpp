// The track in one place: what one data set's item computes, composed from stages. Every
// workflow reaches the stages only through here (the engine's run_item for a file, -l,
// --blocks and ea_calibrate's data sets; assess_source for a noise source's steps), so that
// the rule "which estimates does a verdict need" and the overlap of the estimates with the
// permutation tests are written once.
//
// The stages, each given the data set, the settings and the worker's device slot:
//   IID tests (SP 800-90B section 5)   assess(): estimates, chi-square, LRS, permutation tests
//   non-IID estimates (6.3)            estimates_stage(): the ten estimators
//   restart tests (3.1.4)              assess_restart(): its rows and columns, each with its
//                                      own IID tests or estimates, on the slot and columns slot
// The tracks (Settings::track, Settings::restart):
//   iid        the IID tests alone
//   non-iid    the estimates alone
//   auto       the IID tests, then the estimates when the verdict is "not IID" (EstimatesRule
//              NotIid: an exploratory or inconclusive verdict adds none)
//   restart    the restart tests
//   source     (pipeline/source.cpp) the sequential data set on auto, the estimates for every
//              verdict other than IID (EstimatesRule::UnlessIid: 3.1.3 needs H_I from the
//              non-IID track), the restart tests of H_I, the conditioning chain
//
// Overlap policy (overlap_estimates): with the permutation tests on a GPU, once chi-square or
// LRS has failed the verdict is "not IID" before the permutation tests start, so the estimates
// start then on the worker's CPU threads, beside the GPU's rounds, instead of after them (they
// read only the data: the same numbers either way). Not with --until-decided (nothing is left
// to overlap), not on the CPU (both would share its cores), not on a machine without a GPU,
// and not when no thread can be started (they follow the permutation tests).
//
// The estimators run on the CPU today; the slot is where their device share will come from
// (issue 48: counts on the GPU, NIST's final arithmetic on the host).
#pragma once

#include <string>

#include "assess.hpp"
#include "non_iid.hpp"
#include "result.hpp"

namespace ea {

// When the result of the IID tests needs the non-IID estimates for its entropy.
enum class EstimatesRule {
  NotIid,     // --track auto: a decided "not IID" (not exploratory)
  UnlessIid,  // a noise source (3.1.3): every verdict other than IID, exploratory ones too
};
bool needs_estimates(const Assessment& a, EstimatesRule rule);

// The overlap policy above: whether a run with these settings on this slot may start the
// estimates beside its permutation tests, and whether an assessment so far (Hooks::tested)
// is decided "not IID" by chi-square or LRS, so that they can start now.
bool overlap_estimates(const Settings& s, const DeviceSlot& slot);
bool decided_not_iid(const Assessment& so_far);

// The non-IID estimates of `d` with s.initial_entropy and s.truncate_bitstring, on the slot's
// CPU threads. Error{Interrupted} when `interrupt` is set.
NonIidEstimates estimates_stage(const Dataset& d, const Settings& s, const DeviceSlot& slot, Interrupt interrupt);
// The non-IID track's assessment of `d` (the estimates with the input's facts).
NonIidAssessment non_iid_stage(const Dataset& d, const Settings& s, const DeviceSlot& slot, Interrupt interrupt);

// The track of `s` on the loaded data set `d` (`label` names it in notes). Throws what the
// stages throw (Error{Interrupted} when hooks.interrupt is set).
ItemValue assess_track(const Dataset& d, const Settings& s, const Hooks& hooks, DeviceSlot& slot, DeviceSlot& columns,
                       const std::string& label);

}  // namespace ea
