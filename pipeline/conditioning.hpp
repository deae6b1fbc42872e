// The conditioning component's output entropy (SP 800-90B 3.1.5), with h' of a non-vetted
// component given or assessed from a file of its conditioned output (the non-IID track's
// conditioned assessment, -c: the bitstring estimates; or its MCV estimate alone for an IID
// claim), as NIST ea_conditioning -n ... -i FILE [-c iid] does.
#pragma once

#include <optional>
#include <string>

#include "conditioning/conditioning.hpp"
#include "non_iid.hpp"
#include "settings_rules.hpp"

namespace ea {

// What a conditioning run was given besides the component (one place for the rules of
// `ea_iid conditioning` and the library's conditioning()).
struct ConditioningGiven {
  bool h_prime = false;          // h' as a number
  bool conditioned = false;      // h' from a file of conditioned output
  bool conditioned_iid = false;  // ... from its MCV estimate alone
  bool bits = false;             // the file's bits per sample
};

// Refuses (Error{Usage}, each setting named by `names`) a conditioned file for a vetted
// component, and conditioned_iid or bits without a conditioned file ...
void check_conditioning_options(bool vetted, const ConditioningGiven& given, const SettingNames& names);
// ... h' for a vetted component, and a non-vetted one with neither h' nor a file, or both
// (the command line's count of its numbers says this first, in its own words) ...
void check_conditioning_h_prime(bool vetted, const ConditioningGiven& given, const SettingNames& names);
// ... both.
void check_conditioning_settings(bool vetted, const ConditioningGiven& given, const SettingNames& names);

struct ConditioningAssessment {
  ConditioningResult result;
  // h' from a file: the file's non-IID assessment (-c), and whether only its MCV estimate
  // counted (an IID claim for the conditioned data).
  std::optional<NonIidAssessment> conditioned;
  bool conditioned_iid = false;
  double seconds = 0;
};

// `conditioned_path`: non-vetted only, h' from that file (in.h_prime is then ignored);
// `settings` says how it is read and on how many threads. Throws Error{Usage} for bad
// arguments, Error{Input} for a file that cannot be read, Error{Interrupted} once
// `interrupt` is set (reading the file, its estimates, the MPFR computation).
ConditioningAssessment assess_conditioning(ConditioningInput in, const std::optional<std::string>& conditioned_path,
                                           bool conditioned_iid, const Settings& settings,
                                           Interrupt interrupt = nullptr);

}  // namespace ea
