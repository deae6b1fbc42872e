// The non-IID track (SP 800-90B 6.3): one data set's ten estimates (src/estimators/
// non_iid.hpp) with the facts of its input and the settings it ran with; what --non-iid
// (and ea_non_iid) assesses, and what a default run adds to an IID result whose verdict is
// "not IID".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "assess.hpp"
#include "estimators/non_iid.hpp"

namespace ea {

struct NonIidAssessment : InputFacts {
  Settings settings;
  NonIidEstimates estimates;
  std::vector<std::string> warnings;  // fewer than 1,000,000 samples; narrower symbols
  double seconds = 0;

  double min_entropy() const { return estimates.h_assessed; }
  // Why the result cannot stand as an SP 800-90B assessment (empty: it can).
  std::vector<std::string> compliance_issues() const;
  bool for_compliance() const { return compliance_issues().empty(); }
};

// The estimates of a loaded data set with settings.initial_entropy (-i/-c) and
// settings.truncate_bitstring (-t), on settings.threads threads (`threads` > 0 overrides).
// `interrupt` set: Error{Interrupted}, within a fraction of a second (no assessment).
// `sources`: counts from another engine (DeviceSlot::count_sources: the GPU's suffix LCPs and
// binary predictors' states), none: the CPU's.
NonIidAssessment assess_non_iid(const Dataset& data, const Settings& settings, int threads = 0,
                                Interrupt interrupt = nullptr, const CountSources& sources = {});

}  // namespace ea
