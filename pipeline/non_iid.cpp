#include "non_iid.hpp"

#include <chrono>

namespace ea {

std::vector<std::string> NonIidAssessment::compliance_issues() const {
  std::vector<std::string> why;
  if (samples < kMinSamples) {
    why.push_back(std::to_string(samples) + " samples (SP 800-90B requires at least " + std::to_string(kMinSamples) + ")");
  }
  return why;
}

NonIidAssessment assess_non_iid(const Dataset& d, const Settings& settings, int threads, Interrupt interrupt,
                                const CountSources& sources) {
  const auto start = std::chrono::steady_clock::now();
  NonIidAssessment a;
  set_input_facts(a, d);
  a.settings = settings;
  if (d.narrower_than_given) a.warnings.push_back("Symbols appear to be narrower than described.");
  if (const std::string hint = wide_capture_hint(d.mapping, d.size()); !hint.empty()) a.warnings.push_back(hint);
  if (d.size() < kMinSamples) a.warnings.push_back("data contains less than " + std::to_string(kMinSamples) + " samples");
  a.estimates = non_iid_estimates(d, settings.initial_entropy, settings.truncate_bitstring,
                                  threads > 0 ? threads : settings.threads, interrupt, sources);
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return a;
}

}  // namespace ea
