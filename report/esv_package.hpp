// The documents of an ESV submission package (`ea_iid esv DIR --manifest`, docs/esv.md) made
// from a manifest source and its assessment's record: NIST's registration, the run file of
// NIST's main-branch client, and the package's README. Library only: cli/esv.cpp writes them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "manifest.hpp"

namespace ea {

// The package's data files as the ESV server reads them: exactly this many samples, one a byte.
inline constexpr uint64_t kEsvSamples = 1000000;

// A source's files in its folder DIR/STEM/ (names fixed by docs/esv.md).
struct EsvFiles {
  std::string raw = "rawNoise.bin";
  std::string restart;                   // "restart.bin", or "" without restart data
  std::vector<std::string> conditioned;  // "conditioned-P.bin" per non-vetted component with data
  std::string report = "EntropyAssessmentReport.pdf";
  std::string record = "assessment.json";
  std::string registration = "registration.json";
};

// [{"esvVersion": "1.0"}, {registration}] for source `m` from its record (source_json, type
// "Source"): hminEstimate the entropy that stands (flow.hValidated), bitsPerSample the data
// files' symbol width, each conditioning component with minNin, minHin (the entropy of its
// input, flow.conditioning[].hIn), nw, nOut, hOut as assessed, and what the manifest says of
// it (description, validationNumber, bijectiveClaim). Throws Error{Input} for a record that is
// not a source's or whose chain does not match the manifest's.
nlohmann::ordered_json esv_registration(const ManifestSource& m, const nlohmann::ordered_json& record);

// run.json of NIST's main-branch client (usnistgov/ESV-Server client/jsons/run.json): an array
// of one object, its paths relative to the source's folder; the supporting documents the lab
// adds (PublicUseDocument) are listed with the names README.txt asks for.
nlohmann::ordered_json esv_run_file(const nlohmann::ordered_json& registration, const EsvFiles& files);

// README.txt: what the package holds, what the lab adds, and the upload steps; `tool_version`
// as version_string() words it ("ea_iid 0.2.0 (...)").
std::string esv_readme(const std::vector<std::string>& stems, const std::string& tool_version);

}  // namespace ea
