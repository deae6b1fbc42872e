#include "esv_package.hpp"

#include <cmath>

#include "common/error.hpp"

namespace ea {

namespace {

using nlohmann::ordered_json;

[[noreturn]] void bad_record(const ManifestSource& m, const std::string& what) {
  throw Error(ErrorKind::Input, m.where() + ": " + what);
}

// One conditioningComponent entry from the manifest's component and the assessed chain's.
ordered_json esv_component(const ManifestSource& m, size_t k, const ordered_json& assessed) {
  const SourceConditioning& c = m.spec.conditioning[k];
  ordered_json j;
  j["sequencePosition"] = k + 1;
  j["vetted"] = c.vetted;
  j["description"] = c.description.value_or(c.vetted ? "" : "non-vetted conditioning component " + std::to_string(k + 1));
  if (c.vetted && c.validation_number) j["validationNumber"] = *c.validation_number;
  if (!c.vetted) j["bijectiveClaim"] = c.bijective.value_or(false);
  j["minNin"] = c.n_in;
  j["minHin"] = assessed.value("hIn", 0.0);
  j["nw"] = c.nw;
  j["nOut"] = c.n_out;
  const ordered_json& h_out = assessed.contains("hOut") ? assessed["hOut"] : ordered_json();
  double h = h_out.is_number() ? h_out.get<double>() : 0.0;  // no entropy stood before it
  // The server's rule for a non-vetted, non-bijective component is hOut < minHin strictly
  // (docs/esv-notes.md); SP 800-90B's h_out can equal h_in when h_in is far below n_out: the
  // claim is then the next double below it (a lower claim always stands).
  const double h_in = j["minHin"].get<double>();
  if (!c.vetted && !c.bijective.value_or(false) && h > 0 && h >= h_in) h = std::nextafter(h_in, 0.0);
  j["hOut"] = h;
  return j;
}

}  // namespace

ordered_json esv_registration(const ManifestSource& m, const ordered_json& record) {
  if (!record.is_object() || record.value("type", std::string()) != "Source" || !record.contains("flow")) {
    bad_record(m, "no assessment to register (its record is an error)");
  }
  const ordered_json& flow = record["flow"];
  const ordered_json chain = flow["conditioning"].is_null() ? ordered_json::array() : flow["conditioning"];
  if (!chain.is_array() || chain.size() != m.spec.conditioning.size()) {
    bad_record(m, "the assessed conditioning chain differs from the manifest's");
  }
  ordered_json r;
  r["primaryNoiseSource"] = m.spec.name;
  r["iidClaim"] = m.iid_claim.value_or(flow.value("track", std::string()) == "IID");
  r["bitsPerSample"] = flow["bitsPerSample"];
  r["hminEstimate"] = flow["hValidated"];
  r["physical"] = m.registration.physical.value_or(true);
  r["numberOfRestarts"] = m.registration.restarts.value_or(1000);
  r["samplesPerRestart"] = m.registration.samples_per_restart.value_or(1000);
  r["additionalNoiseSources"] = m.registration.additional_noise_sources.value_or(false);
  r["numberOfOEs"] = m.registration.oes.value_or(1);
  ordered_json components = ordered_json::array();
  for (size_t k = 0; k < chain.size(); ++k) components.push_back(esv_component(m, k, chain[k]));
  r["conditioningComponent"] = components;
  return ordered_json::array({ordered_json{{"esvVersion", "1.0"}}, r});
}

ordered_json esv_run_file(const ordered_json& registration, const EsvFiles& files) {
  const int bits = registration.at(1).at("bitsPerSample").get<int>();
  ordered_json data{{"oeID", 1}, {"rawNoisePath", files.raw}, {"rawNoiseSampleSize", bits}};
  if (!files.restart.empty()) {
    data["restartTestPath"] = files.restart;
    data["restartSampleSize"] = bits;
  }
  data["unvettedConditionedPaths"] = files.conditioned;
  ordered_json run;
  run["AssessmentRegistrationPath"] = files.registration;
  run["DataFiles"] = ordered_json::array({data});
  run["SupportingDocuments"] = ordered_json::array(
      {ordered_json{{"filePath", files.report}, {"comment", "Entropy assessment report (ea_iid)"},
                    {"sdType", "EntropyAssessmentReport"}},
       ordered_json{{"filePath", "PublicUseDocument.pdf"}, {"comment", "Public use document (the lab's)"},
                    {"sdType", "PublicUseDocument"}}});
  run["Certify"] = ordered_json{{"Certify", false}};
  run["Assessment"] = ordered_json{{"numberOfAssessments", 1}, {"limitEntropyAssessmentToSingleModule", false}};
  return ordered_json::array({run});
}

std::string esv_readme(const std::vector<std::string>& stems, const std::string& tool_version) {
  std::string t =
      "ESV submission package written by " + tool_version +
      " (docs/esv.md)\n\n"
      "One folder per noise source:\n";
  for (const std::string& s : stems) t += "  " + s + "/\n";
  t +=
      "\nEach holds:\n"
      "  registration.json            the registration: [{\"esvVersion\": \"1.0\"}, {...}]\n"
      "  rawNoise.bin                 1,000,000 samples, one a byte\n"
      "  restart.bin                  1,000 restarts x 1,000 samples (bytes 1000 i .. 1000 i + 999: restart i)\n"
      "  conditioned-P.bin            a source with a non-vetted component at sequencePosition P: its output\n"
      "  EntropyAssessmentReport.pdf  the assessment report (supporting document EntropyAssessmentReport)\n"
      "  EntropyAssessmentReport.html the same report as a web page (not uploaded)\n"
      "  assessment.json              ea_iid's record of the assessment the registration's numbers come from\n"
      "  run.json                     the run file of NIST's client (usnistgov/ESV-Server client/), paths\n"
      "                               relative to the source's folder\n"
      "SHA256SUMS lists every file's SHA-256 (sha256sum -c SHA256SUMS).\n\n"
      "Before uploading:\n"
      "  1. ea_iid esv check DIR: the registration against ESV's schema and rules, the files, the hashes,\n"
      "     and a rehearsal of the server's assessment on these files.\n"
      "  2. Add the lab's PublicUseDocument.pdf to each source's folder (run.json names it), and a\n"
      "     DataCollectionAttestation if the module needs one.\n"
      "  3. Fill run.json's Certify (moduleID, vendorID, entropyID) when certifying.\n"
      "  4. From each source's folder (NIST's client resolves run.json's paths from its working folder and\n"
      "     writes its log in jsons/ there: make that folder first), with your config.json (the server, the\n"
      "     certificate, the TOTP seed: see the client's README):\n"
      "       python3 /path/to/ESV-Server/client/client.py full --run_path run.json --config_path /path/to/config.json\n"
      "     The client registers, uploads the data files, waits for their results, then the documents.\n";
  return t;
}

}  // namespace ea
