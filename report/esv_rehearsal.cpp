#include "esv_rehearsal.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/error.hpp"

namespace ea {

namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

ordered_json read_document(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  const ordered_json j = ordered_json::parse(in, nullptr, false);
  if (!in.is_open() || j.is_discarded()) throw Error(ErrorKind::Input, p.string() + ": no JSON to rehearse from");
  return j;
}

// j[key] of the type `is` accepts, else Error{Input} "FILE: FIELD: ...".
const ordered_json& need(const ordered_json& j, const char* key, bool (ordered_json::*is)() const noexcept,
                         const std::string& where) {
  if (!j.is_object() || !j.contains(key) || !(j[key].*is)()) {
    throw Error(ErrorKind::Input, where + ": " + key + ": missing or of the wrong type (esv check names the problem)");
  }
  return j[key];
}

// The registration's components in sequence order, with their conditioned files (run.json's
// unvettedConditionedPaths, in the order of the non-vetted components).
std::vector<SourceConditioning> chain_of(const ordered_json& reg, const ordered_json& data, const fs::path& folder) {
  std::map<int64_t, ordered_json> by_position;
  if (reg.contains("conditioningComponent") && reg["conditioningComponent"].is_array()) {
    for (const ordered_json& c : reg["conditioningComponent"]) {
      by_position[need(c, "sequencePosition", &ordered_json::is_number_integer, "registration.json").get<int64_t>()] = c;
    }
  }
  const ordered_json files = data.contains("unvettedConditionedPaths") ? data["unvettedConditionedPaths"] : ordered_json::array();
  std::vector<SourceConditioning> chain;
  size_t next_file = 0;
  for (const auto& [position, c] : by_position) {
    const std::string at = "registration.json: conditioningComponent (sequencePosition " + std::to_string(position) + ")";
    SourceConditioning s;
    s.vetted = need(c, "vetted", &ordered_json::is_boolean, at).get<bool>();
    s.n_in = need(c, "minNin", &ordered_json::is_number_unsigned, at).get<uint32_t>();
    s.n_out = need(c, "nOut", &ordered_json::is_number_unsigned, at).get<uint32_t>();
    s.nw = need(c, "nw", &ordered_json::is_number_unsigned, at).get<uint32_t>();
    if (!s.vetted) {
      if (!files.is_array() || next_file >= files.size() || !files[next_file].is_string()) {
        throw Error(ErrorKind::Input, "run.json: unvettedConditionedPaths: no file for the non-vetted component at " + at);
      }
      s.conditioned = (folder / files[next_file++].get<std::string>()).string();
    }
    chain.push_back(s);
  }
  return chain;
}

bool above(double claim, double found) { return claim > found + 1e-9 * std::max(1.0, std::fabs(found)); }

std::string json_number(const ordered_json& v) {
  if (!v.is_number()) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.6f", v.get<double>());
  return b;
}

// The note with every number the rehearsal computed.
std::string numbers_of(const ordered_json& flow) {
  std::string t = "IID tests " + (flow["verdict"].is_null() ? std::string("not run (non-IID claim)") : flow["verdict"].get<std::string>()) +
                  "; H_original " + json_number(flow["hOriginal"]) + ", H_bitstring " + json_number(flow["hBitstring"]) + ", assessed " +
                  json_number(flow["hAssessed"]) + "; H_I " + json_number(flow["hI"]);
  if (flow["restart"].is_object()) {
    const ordered_json& r = flow["restart"];
    t += "; restart tests " + r.value("result", std::string("?")) + " (H_r " + json_number(r["hR"]) + ", H_c " + json_number(r["hC"]) + ")";
  }
  t += "; entropy that stands " + json_number(flow["hValidated"]);
  const ordered_json& chain = flow["conditioning"];
  for (size_t k = 0; chain.is_array() && k < chain.size(); ++k) {
    t += "; component " + std::to_string(k + 1) + " h_in " + json_number(chain[k]["hIn"]) + ", h_out " + json_number(chain[k]["hOut"]);
  }
  return t;
}

}  // namespace

ManifestSource esv_rehearsal_source(const std::string& folder_text, size_t index) {
  const fs::path folder(folder_text);
  const ordered_json doc = read_document(folder / "registration.json");
  if (!doc.is_array() || doc.size() != 2) throw Error(ErrorKind::Input, "registration.json: not [{\"esvVersion\"}, {...}]");
  const ordered_json& reg = doc[1];
  const ordered_json run = read_document(folder / "run.json");
  if (!run.is_array() || run.empty()) throw Error(ErrorKind::Input, "run.json: not an array of one object");
  // (copies, not references: GCC 13's -Wdangling-reference takes the temporary `where`
  // string for what need() returns a reference into)
  const ordered_json files = need(run[0], "DataFiles", &ordered_json::is_array, "run.json");
  if (files.empty()) throw Error(ErrorKind::Input, "run.json: DataFiles: empty");
  const ordered_json& data = files[0];
  ManifestSource m;
  m.index = index;
  m.spec.name = need(reg, "primaryNoiseSource", &ordered_json::is_string, "registration.json").get<std::string>();
  m.spec.samples = (folder / need(data, "rawNoisePath", &ordered_json::is_string, "run.json").get<std::string>()).string();
  if (data.contains("restartTestPath") && data["restartTestPath"].is_string()) {
    m.spec.restart_data = (folder / data["restartTestPath"].get<std::string>()).string();
  }
  const int bits = need(reg, "bitsPerSample", &ordered_json::is_number_unsigned, "registration.json").get<int>();
  m.bits = bits;
  if (data.contains("rawNoiseSampleSize")) {  // a lab's run.json may hold any JSON there: check_package names it
    const ordered_json size = need(data, "rawNoiseSampleSize", &ordered_json::is_number_unsigned, "run.json: DataFiles[0]");
    m.bits = static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(bits), size.get<uint64_t>()));
  }
  m.iid_claim = need(reg, "iidClaim", &ordered_json::is_boolean, "registration.json").get<bool>();
  m.spec.h_submitter = need(reg, "hminEstimate", &ordered_json::is_number, "registration.json").get<double>();
  m.spec.conditioning = chain_of(reg, data, folder);
  m.stem = folder.filename().string();
  return m;
}

std::vector<EsvFinding> esv_rehearsal_findings(const ordered_json& registration, const ordered_json& record,
                                               const std::string& source) {
  std::vector<EsvFinding> out;
  auto add = [&](EsvSeverity s, const std::string& field, const std::string& rule, const std::string& origin,
                 const std::string& message) { out.push_back({source, "registration.json", field, rule, origin, message, s}); };
  const ordered_json& reg = registration[1];
  const ordered_json& flow = record["flow"];
  if (reg.value("iidClaim", false) && flow["verdict"] != "IID") {
    add(EsvSeverity::Error, "iidClaim", "an IID claim stands only when the IID tests find the data IID", "SP 800-90B 3.1.1, 5",
        "the rehearsal's IID tests say " + (flow["verdict"].is_null() ? std::string("nothing") : flow["verdict"].get<std::string>()));
  }
  const double claim = reg.value("hminEstimate", 0.0);
  if (above(claim, flow["hAssessed"].get<double>())) {
    add(EsvSeverity::Error, "hminEstimate", "at most the entropy the raw noise is assessed at", "SP 800-90B 3.1.3",
        json_number(reg["hminEstimate"]) + " is above the rehearsal's estimate " + json_number(flow["hAssessed"]) + " of rawNoise");
  }
  if (flow["restart"].is_object() && flow["restart"].value("result", std::string()) != "passed") {
    add(EsvSeverity::Error, "hminEstimate", "the restart tests pass with H_I = hminEstimate", "SP 800-90B 3.1.4",
        "the rehearsal's restart tests " + flow["restart"].value("result", std::string("did not pass")) + " (sanity check " +
            flow["restart"].value("sanityCheck", std::string("?")) + ", H_r " + json_number(flow["restart"]["hR"]) + ", H_c " +
            json_number(flow["restart"]["hC"]) + ", H_I " + json_number(flow["hI"]) + ")");
  }
  const ordered_json& comps = reg.contains("conditioningComponent") ? reg["conditioningComponent"] : ordered_json::array();
  const ordered_json& chain = flow["conditioning"];
  for (size_t k = 0; comps.is_array() && chain.is_array() && k < comps.size() && k < chain.size(); ++k) {
    const std::string at = "conditioningComponent[" + std::to_string(k) + "].";
    if (comps[k].contains("minHin") && comps[k]["minHin"].is_number() && above(comps[k]["minHin"].get<double>(), chain[k].value("hIn", 0.0))) {
      add(EsvSeverity::Error, at + "minHin", "at most the entropy that stands at its input", "SP 800-90B 3.1.5",
          json_number(comps[k]["minHin"]) + " is above the rehearsal's h_in " + json_number(chain[k]["hIn"]));
    }
    if (comps[k].contains("hOut") && comps[k]["hOut"].is_number() &&
        (!chain[k]["hOut"].is_number() || above(comps[k]["hOut"].get<double>(), chain[k]["hOut"].get<double>()))) {
      add(EsvSeverity::Error, at + "hOut", "at most the component's output entropy", "SP 800-90B 3.1.5",
          json_number(comps[k]["hOut"]) + " is above the rehearsal's h_out " + json_number(chain[k]["hOut"]));
    }
  }
  out.push_back({source, "rehearsal", "", "what the server's steps compute on the package's files", "rehearsal",
                 numbers_of(flow), EsvSeverity::Note});
  return out;
}

}  // namespace ea
