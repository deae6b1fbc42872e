// What `ea_iid source` and `ea_iid source --manifest` were given of the settings that the
// rules judge (settings_rules.hpp's SettingsGiven), filled from their shared flags in one place.
#pragma once

#include "option_groups.hpp"
#include "settings_rules.hpp"

namespace ea::cli {

// From the engine options (`engine` as apply_engine_options made it, `s` after it), and
// --until-decided / --permutation-counters. track and bits: the caller's (`ea_iid source`
// takes --track and --bits; a manifest gives them per source).
SettingsGiven source_settings_given(const EngineOptionText& text, const EngineChoice& engine, const Settings& s,
                                    bool until_decided, bool permutation_counters);

}  // namespace ea::cli
