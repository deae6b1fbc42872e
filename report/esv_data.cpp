// run.json and the files it names (report/esv_sink.hpp's check_run_file): the data files'
// sizes and sample values, the conditioned files' count and order, the supporting documents.
#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "esv_sink.hpp"

namespace ea::esv {

namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

constexpr uint64_t kSamples = 1000000;
constexpr const char* kClient = "NIST client start/parsing.py";

enum class DataKind { Raw, Restart, Conditioned };

std::string name_in(const fs::path& folder, const fs::path& p) {
  std::error_code ec;
  const fs::path r = fs::relative(p, folder, ec);
  return ec || r.empty() ? p.string() : r.generic_string();
}

// The samples' values against bitsPerSample: the first byte too wide, and data narrower
// than claimed (NIST's reader refuses the one and warns of the other: T shared/utils.h L281-291).
void check_values(const std::vector<unsigned char>& data, int bits, Sink& sink) {
  const unsigned limit = 1u << bits;
  size_t first = data.size(), wide = 0;
  unsigned top = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    top = std::max<unsigned>(top, data[i]);
    if (data[i] >= limit) {
      first = std::min(first, i);
      ++wide;
    }
  }
  if (wide) {
    sink.error("byte " + std::to_string(first),
               std::to_string(data[first]) + " does not fit in bitsPerSample " + std::to_string(bits) + " bits (at most " +
                   std::to_string(limit - 1) + "); " + std::to_string(wide) + (wide == 1 ? " byte" : " bytes") + " in all",
               "every sample fits in bitsPerSample bits", "NIST tool 1.1.7 shared/utils.h");
  } else if (bits > 1 && top < (1u << (bits - 1))) {
    int used = 0;
    while ((1u << used) <= top) ++used;
    sink.warning("", "the samples use at most " + std::to_string(used) + " of bitsPerSample " + std::to_string(bits) + " bits",
                 "data narrower than claimed: NIST's tool warns, the server's results differed (#21, #22)",
                 "NIST tool 1.1.7 shared/utils.h");
  }
}

// A data file: exactly 1,000,000 bytes (P L230; T restart_main.cpp L392), and for raw noise
// and restart data every sample within bitsPerSample (0: not checked).
void check_data_file(const fs::path& folder, const fs::path& p, DataKind kind, int bits, Sink& run_sink) {
  Sink sink = run_sink.for_file(name_in(folder, p));
  std::error_code ec;
  const uint64_t size = fs::file_size(p, ec);
  if (size != kSamples) {
    sink.error("", std::to_string(size) + " bytes where exactly 1000000 were expected",
               kind == DataKind::Restart ? "exactly 1,000,000 samples, one a byte: 1000 restarts x 1000 samples"
                                         : "exactly 1,000,000 samples, one a byte",
               kProtocol);
  }
  if (kind == DataKind::Conditioned || bits == 0) return;
  std::vector<unsigned char> data(static_cast<size_t>(std::min<uint64_t>(size, 2 * kSamples)));
  std::ifstream in(p, std::ios::binary);
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size()));
  data.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  check_values(data, bits, sink);
}

// unvettedConditionedPaths: one file per non-vetted component, in ascending sequencePosition
// (NIST's client uploads the i-th to the i-th conditionedBits URL: C threads/thread_functions.py).
void check_conditioned(const fs::path& root, const fs::path& folder, const ordered_json& entry, const std::string& at,
                       const Claim& claim, Sink& sink) {
  const std::string field = at + ".unvettedConditionedPaths";
  const ordered_json none = ordered_json::array();
  const ordered_json& paths = entry.contains("unvettedConditionedPaths") ? entry["unvettedConditionedPaths"] : none;
  if (!paths.is_array()) {
    sink.error(field, "not an array: " + paths.dump(), "a list of paths", kClient);
    return;
  }
  if (paths.size() != claim.non_vetted.size()) {
    sink.error(field, std::to_string(paths.size()) + " files for " + std::to_string(claim.non_vetted.size()) +
                          " non-vetted components",
               "one conditioned file per non-vetted component (P L159-162)", kProtocol);
  }
  static const std::regex kName("conditioned-([0-9]+)\\.bin");
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string f = field + "[" + std::to_string(i) + "]";
    const std::optional<fs::path> p = package_file(root, folder, paths[i], f, sink);
    if (!p) continue;
    check_data_file(folder, *p, DataKind::Conditioned, 0, sink);
    std::smatch m;
    const std::string name = p->filename().string();
    if (i < claim.non_vetted.size() && std::regex_match(name, m, kName) && m[1].length() <= 9 && std::stoll(m[1].str()) != claim.non_vetted[i]) {
      sink.error(f, name + " where the non-vetted component at sequencePosition " + std::to_string(claim.non_vetted[i]) +
                        " comes",
                 "conditioned files in ascending sequencePosition", "NIST client threads/thread_functions.py");
    }
  }
}

// rawNoiseSampleSize, restartSampleSize: when given, 1..8 and the package's bitsPerSample.
void check_sample_size(const ordered_json& entry, const std::string& at, const char* key, const Claim& claim, Sink& sink) {
  if (!entry.contains(key)) return;
  const ordered_json& v = entry[key];
  if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 8) {
    sink.error(at + "." + key, v.dump() + " is not 1..8", "dataFileSampleSize 1..8 (P L236)", kProtocol);
  } else if (claim.bits && v.get<int64_t>() != claim.bits) {
    sink.error(at + "." + key, v.dump() + " where bitsPerSample is " + std::to_string(claim.bits),
               "the data files' width is bitsPerSample", kPackage);
  }
}

void check_data_entries(const fs::path& root, const fs::path& folder, const ordered_json& run, const Claim& claim,
                        Sink& sink) {
  if (!run.contains("DataFiles") || !run["DataFiles"].is_array()) {
    sink.error("DataFiles", "missing or not an array", "DataFiles[] of {oeID, rawNoisePath, restartTestPath, ...}", kClient);
    return;
  }
  const ordered_json& files = run["DataFiles"];
  if (static_cast<int64_t>(files.size()) != claim.oes) {
    sink.error("DataFiles", std::to_string(files.size()) + " entries where numberOfOEs is " + std::to_string(claim.oes),
               "one DataFiles entry per operating environment", kClient);
  }
  for (size_t k = 0; k < files.size(); ++k) {
    const ordered_json& e = files[k];
    const std::string at = "DataFiles[" + std::to_string(k) + "]";
    if (!e.is_object()) {
      sink.error(at, "not an object", "DataFiles[] of objects", kClient);
      continue;
    }
    const ordered_json null;
    if (const auto p = package_file(root, folder, e.contains("rawNoisePath") ? e["rawNoisePath"] : null, at + ".rawNoisePath", sink)) {
      check_data_file(folder, *p, DataKind::Raw, claim.bits, sink);
    }
    const ordered_json& restart = e.contains("restartTestPath") ? e["restartTestPath"] : null;
    if (restart.is_null() || restart == "") {
      sink.error(at + ".restartTestPath", "no restart data",
                 "the server runs the restart tests on the restartTestBits file (P L152-163) and certifies only when "
                 "they succeed",
                 kProtocol);
    } else if (const auto p = package_file(root, folder, restart, at + ".restartTestPath", sink)) {
      check_data_file(folder, *p, DataKind::Restart, claim.bits, sink);
    }
    check_sample_size(e, at, "rawNoiseSampleSize", claim, sink);
    check_sample_size(e, at, "restartSampleSize", claim, sink);
    check_conditioned(root, folder, e, at, claim, sink);
  }
}

// A document's content matches its extension (the server refuses others: #8).
void check_signature(const fs::path& folder, const fs::path& p, Sink& sink) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  const std::string magic = ext == ".pdf" ? "%PDF-" : ext == ".docx" ? std::string("PK\x03\x04", 4) : "\xD0\xCF\x11\xE0";
  std::string head(magic.size(), '\0');
  std::ifstream in(p, std::ios::binary);
  in.read(&head[0], static_cast<std::streamsize>(head.size()));
  if (!in || head != magic) {
    sink.for_file(name_in(folder, p))
        .error("", "does not start as a " + ext.substr(1) + " file does" + (ext == ".pdf" ? " (%PDF-)" : ""),
               "the file's signature matches its extension (#8)", "server");
  }
}

void check_documents(const fs::path& root, const fs::path& folder, const ordered_json& run, Sink& sink) {
  static const std::set<std::string> kTypes = {"EntropyAssessmentReport", "PublicUseDocument", "DataCollectionAttestation",
                                               "Other"};
  if (!run.contains("SupportingDocuments") || !run["SupportingDocuments"].is_array()) {
    sink.error("SupportingDocuments", "missing or not an array", "SupportingDocuments[] of {filePath, comment, sdType}", kClient);
    return;
  }
  std::map<std::string, int> count;
  const ordered_json& docs = run["SupportingDocuments"];
  for (size_t i = 0; i < docs.size(); ++i) {
    const std::string at = "SupportingDocuments[" + std::to_string(i) + "]";
    const ordered_json& d = docs[i];
    const std::string type = d.is_object() && d.contains("sdType") && d["sdType"].is_string() ? d["sdType"].get<std::string>() : "";
    if (!kTypes.count(type)) {
      sink.error(at + ".sdType", d.is_object() && d.contains("sdType") ? d["sdType"].dump() : "missing",
                 "EntropyAssessmentReport, PublicUseDocument, DataCollectionAttestation or Other (P L253)", kProtocol);
    }
    ++count[type];
    const bool lab = type == "PublicUseDocument" || type == "DataCollectionAttestation";
    const ordered_json null;
    const auto p = package_file(root, folder, d.is_object() && d.contains("filePath") ? d["filePath"] : null, at + ".filePath",
                                sink, lab ? EsvSeverity::Warning : EsvSeverity::Error);
    if (!p) continue;
    std::string ext = p->extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
    if (ext != ".pdf" && ext != ".doc" && ext != ".docx") {
      sink.error(at + ".filePath", p->filename().string() + " is not .pdf, .doc or .docx", "document types (P L250)", kProtocol);
    } else {
      check_signature(folder, *p, sink);
    }
  }
  for (const char* t : {"EntropyAssessmentReport", "PublicUseDocument"}) {
    if (count[t] != 1) {
      sink.error("SupportingDocuments", std::to_string(count[t]) + " of type " + t + " where exactly one is needed",
                 "one EntropyAssessmentReport and one PublicUseDocument", kClient);
    }
  }
  if (count["DataCollectionAttestation"] > 1) {
    sink.error("SupportingDocuments", "more than one DataCollectionAttestation", "at most one",
               "server rule CertifyRequest/supportingDocumentTypesCount.json");
  }
}

// Without a usable run.json: the layout's fixed names (docs/esv.md).
void check_layout_names(const fs::path& root, const fs::path& folder, const Claim& claim, Sink& sink) {
  std::vector<std::pair<std::string, DataKind>> files = {{"rawNoise.bin", DataKind::Raw}, {"restart.bin", DataKind::Restart}};
  for (int64_t p : claim.non_vetted) files.push_back({"conditioned-" + std::to_string(p) + ".bin", DataKind::Conditioned});
  for (const auto& [name, kind] : files) {
    if (const auto p = package_file(root, folder, ordered_json(name), name, sink)) check_data_file(folder, *p, kind, claim.bits, sink);
  }
  if (const auto p = package_file(root, folder, ordered_json("EntropyAssessmentReport.pdf"), "EntropyAssessmentReport.pdf", sink)) {
    check_signature(folder, *p, sink);
  }
}

}  // namespace

void check_run_file(const fs::path& root, const fs::path& folder, const std::optional<ordered_json>& run, const Claim& claim,
                    Sink& sink) {
  const ordered_json* r = run ? &*run : nullptr;
  if (r && r->is_array() && r->size() == 1 && (*r)[0].is_object()) {
    r = &(*r)[0];
  } else if (r && r->is_object()) {
    sink.error("", "an object where NIST's main-branch client reads an array of one object", "run_file[0] (Disagreements 12)",
               kClient);
  } else if (r) {
    sink.error("", "not an array of one object", "run_file[0]", kClient);
    r = nullptr;
  }
  if (!r) {
    check_layout_names(root, folder, claim, sink);
    return;
  }
  const ordered_json null;
  const auto reg = package_file(root, folder, r->contains("AssessmentRegistrationPath") ? (*r)["AssessmentRegistrationPath"] : null,
                                "AssessmentRegistrationPath", sink);
  std::error_code ec;
  if (reg && !fs::equivalent(*reg, folder / kRegistration, ec)) {
    sink.warning("AssessmentRegistrationPath", (*r)["AssessmentRegistrationPath"].dump() + " is not this folder's registration.json",
                 "a source's run file registers its own registration", kPackage);
  }
  check_data_entries(root, folder, *r, claim, sink);
  check_documents(root, folder, *r, sink);
}

}  // namespace ea::esv
