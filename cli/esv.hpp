// What `ea_iid esv` (the package) and `ea_iid esv check` (its rehearsal) share: the settings of
// a package's sources and their assessment, as `ea_iid source --manifest` makes them.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "manifest.hpp"
#include "option_groups.hpp"

namespace ea::cli {

// `ea_iid esv`'s options (and `ea_iid source --esv DIR`'s, for one source).
struct EsvPackageOptions {
  std::string dir, manifest, browser;
  bool force = false, quiet = false;
  bool command_line = false;  // ea_iid source --esv: messages name its options, not a manifest's fields
  EngineOptionText engine;
};

// The package of `m`'s sources in o.dir (docs/esv.md "The package"): the refusals first
// (Error{Usage}/Error{Output} naming the source and field; nothing written), then the data
// files, their assessment, the documents, and the whole package put in place. Throws
// Error{Interrupted} (nothing written) and the assessment's errors.
void make_esv_package(EsvPackageOptions o, const Manifest& m, const std::string& command_line,
                      const std::atomic<bool>& interrupt);

// The engine options (--seed, --iterations, --device, ...) checked by the one set of rules
// for the sources of `m`, and each source's settings; a seed drawn from the OS (and logged)
// when some source draws random numbers and --seed is not given.
std::vector<Settings> esv_settings(const EngineOptionText& text, const Manifest& m);

// Every source of `m` assessed with `settings` (one at a time): its record (source_json), or
// an error record for a source that could not be assessed. Throws Error{Interrupted}.
std::vector<nlohmann::ordered_json> esv_assess(const Manifest& m, const std::vector<Settings>& settings,
                                               const std::string& command_line, bool quiet,
                                               const std::atomic<bool>& interrupt);

}  // namespace ea::cli
