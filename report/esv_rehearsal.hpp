// The rehearsal of `ea_iid esv check` (docs/esv.md "The rehearsal"): what the ESV server runs
// on a package's own files, run here, and each claim of the registration against it. The
// source is read as the server reads it: run.json's raw noise, restart and conditioned files,
// one sample a byte of bitsPerSample bits, hminEstimate as H_submitter (the H_I of the restart
// tests), the IID claim choosing the track, the components of the registration in order. The
// assessment is `ea_iid source`'s (SP 800-90B 3.1: the IID tests or the non-IID estimators,
// the restart tests, each component's h_out); its numbers are NIST's (1.1.7's IID track,
// 1.1.8's non-IID estimators, restart tests and conditioning).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "esv_check.hpp"
#include "manifest.hpp"

namespace ea {

// The source in package folder `folder` (its registration.json and run.json) as the server
// assesses it; `index` its place in the package. Throws Error{Input} naming the file and field
// when the registration or run.json cannot give it (check_package says why in detail).
ManifestSource esv_rehearsal_source(const std::string& folder, size_t index);

// The claims of `registration` against the rehearsal's record (source_json of the source
// esv_rehearsal_source made): the IID claim against the IID tests, hminEstimate against the
// raw noise's estimate, the restart tests, each component's minHin and hOut against what the
// rehearsal computes; and one note with every number the rehearsal computed.
std::vector<EsvFinding> esv_rehearsal_findings(const nlohmann::ordered_json& registration,
                                               const nlohmann::ordered_json& record, const std::string& source);

}  // namespace ea
