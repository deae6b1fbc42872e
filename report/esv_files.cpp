// The package's findings (report/esv_check.hpp's check_package): the marker, SHA256SUMS, and
// per source its registration, run.json, data files and supporting documents. The layout
// is docs/esv.md's; the rules' origins docs/esv-notes.md's.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "esv_check.hpp"
#include "esv_sink.hpp"

namespace ea {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace esv {

std::optional<ordered_json> read_json(const fs::path& path, Sink& sink, bool required) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    if (required) sink.error("", "missing", "the package's layout (docs/esv.md)", esv::kPackage);
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  try {
    return ordered_json::parse(in);
  } catch (const std::exception& e) {
    sink.error("", std::string("not JSON: ") + e.what(), "a JSON document", esv::kPackage);
    return std::nullopt;
  }
}

bool inside(const fs::path& root, const fs::path& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(p, ec);
  if (ec) return false;
  auto r = root.begin(), i = c.begin();
  for (; r != root.end(); ++r, ++i) {
    if (i == c.end() || *r != *i) return false;
  }
  return true;
}

std::optional<fs::path> package_file(const fs::path& root, const fs::path& folder, const ordered_json& value,
                                     const std::string& field, Sink& sink, EsvSeverity missing_severity) {
  if (!value.is_string() || value.get<std::string>().empty()) {
    sink.error(field, value.is_null() ? "missing" : "not a path: " + value.dump(), "a path to a file of the package",
               "NIST client start/parsing.py");
    return std::nullopt;
  }
  const fs::path p = fs::path(value.get<std::string>()).is_absolute() ? fs::path(value.get<std::string>())
                                                                       : folder / value.get<std::string>();
  if (!inside(root, p)) {
    sink.error(field, value.dump() + " is outside the package", "every path of run.json names a file of the package",
               esv::kPackage);
    return std::nullopt;
  }
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) {
    sink.add(missing_severity, field, value.dump() + " does not exist",
             missing_severity == EsvSeverity::Error ? "every path of run.json names a file of the package"
                                                    : "a document the lab adds before uploading (README.txt)",
             esv::kPackage);
    return std::nullopt;
  }
  return p;
}

}  // namespace esv

std::string esv_path_under(const fs::path& p, const fs::path& root) {
  const fs::path up = fs::relative(p.parent_path(), root);
  return (up == "." ? p.filename() : up / p.filename()).generic_string();
}

namespace {

using esv::Claim;
using esv::Sink;
using esv::inside;
using esv::read_json;

constexpr const char* kMarker = "ea_iid-package.json";
constexpr const char* kSums = "SHA256SUMS";

struct Source {
  std::string name, folder;
};

// The sources: the marker's, or (a lab's package) the folders holding a registration.json.
std::string field_text(const ordered_json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
}

std::vector<Source> find_sources(const fs::path& root, Sink& sink, bool* has_marker) {
  std::vector<Source> sources;
  Sink marker = sink.for_file(kMarker);
  const std::optional<ordered_json> m = read_json(root / kMarker, marker, false);
  *has_marker = m.has_value();
  if (m) {
    if (field_text(*m, "tool") != "ea_iid" || !m->contains("sources") || !(*m)["sources"].is_array()) {
      marker.error("", "not an ea_iid package index (tool \"ea_iid\", sources[])", "the package's marker", esv::kPackage);
    } else {
      for (const ordered_json& s : (*m)["sources"]) {
        const std::string name = field_text(s, "name"), folder = field_text(s, "folder");
        if (folder.empty() || folder.find('/') != std::string::npos || folder == "." || folder == "..") {
          marker.error("sources", "a source without a folder of its own: " + s.dump(), "sources[].folder", esv::kPackage);
        } else {
          sources.push_back({name.empty() ? folder : name, folder});
        }
      }
    }
    return sources;
  }
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(root, ec)) {
    if (e.is_directory() && fs::is_regular_file(e.path() / esv::kRegistration)) {
      sources.push_back({e.path().filename().string(), e.path().filename().string()});
    }
  }
  std::sort(sources.begin(), sources.end(), [](const Source& a, const Source& b) { return a.folder < b.folder; });
  marker.note("", "absent: read as a hand-made package, its sources the folders holding a registration.json",
              "the package's marker", esv::kPackage);
  if (sources.empty()) sink.error("", "no source: no folder holds a registration.json", "the package's layout", esv::kPackage);
  return sources;
}

std::string file_sha256(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  Sha256 h;
  std::vector<char> buf(1 << 16);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    h.update(buf.data(), static_cast<size_t>(in.gcount()));
  }
  return to_hex(h.finish());
}

// Every regular file under the package but SHA256SUMS, relative to it ("a/b.bin").
std::set<std::string> package_files(const fs::path& root) {
  std::set<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_regular_file()) files.insert(esv_path_under(it->path(), root));
  }
  files.erase(kSums);
  return files;
}

// SHA256SUMS in `sha256sum -c` format lists every file with its hash.
void check_sums(const fs::path& root, bool has_marker, Sink& sink) {
  Sink sums = sink.for_file(kSums);
  std::ifstream in(root / kSums);
  if (!in) {
    sums.add(has_marker ? EsvSeverity::Error : EsvSeverity::Warning, "", "missing: the files' hashes cannot be checked",
             "SHA256SUMS lists every file", esv::kPackage);
    return;
  }
  std::set<std::string> listed;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string field = "line " + std::to_string(n);
    const bool ok = line.size() > 66 && line.find_first_not_of("0123456789abcdef") == 64 && line[64] == ' ' &&
                    (line[65] == ' ' || line[65] == '*');
    if (!ok) {
      sums.error(field, "not \"HEX  PATH\": " + line.substr(0, 80), "sha256sum -c format", esv::kPackage);
      continue;
    }
    const std::string path = line.substr(66), hex = line.substr(0, 64);
    if (!listed.insert(path).second) sums.error(field, path + " is listed twice", "SHA256SUMS lists every file once", esv::kPackage);
    std::error_code ec;
    if (fs::path(path).is_absolute() || !inside(fs::canonical(root), root / path) || !fs::is_regular_file(root / path, ec)) {
      sums.error(field, path + ": no such file in the package", "SHA256SUMS lists the package's files", esv::kPackage);
    } else if (const std::string actual = file_sha256(root / path); actual != hex) {
      sums.error(field, path + ": SHA-256 " + actual + " where " + hex + " is listed (changed since it was written: run ea_iid "
                               "esv again, or, for an edit made on purpose, replace its line with `sha256sum " + path + "`)",
                 "the files' SHA-256", esv::kPackage);
    }
  }
  for (const std::string& f : package_files(root)) {
    // A file added after the package was written (the lab's PublicUseDocument.pdf, as README.txt
    // asks): worth a line, not a reason to refuse the package.
    if (!listed.count(f)) {
      sums.add(EsvSeverity::Warning, "", f + " is not listed (added later? add its line: sha256sum " + f + " >> SHA256SUMS)",
               "SHA256SUMS lists every file", esv::kPackage);
    }
  }
}

// The assessment the registration's numbers come from must be one SP 800-90B accepts: a
// package built with exploratory settings (--iterations 200, a short file) says so here,
// as its report does, rather than passing the check unremarked.
void check_compliance(const fs::path& folder, Sink& sink) {
  Sink file = sink.for_file("assessment.json");
  const std::optional<ordered_json> a = read_json(folder / "assessment.json", file);
  if (!a || !a->is_object() || !a->contains("forCompliance") || (*a)["forCompliance"] != false) return;
  std::string why = "false";
  const auto notes = a->find("complianceNotes");
  if (notes != a->end() && notes->is_array() && !notes->empty() && (*notes)[0].is_string()) {
    why += ": " + (*notes)[0].get<std::string>();
  }
  file.warning("forCompliance", why + " (the registration's numbers come from it: build the package again with the "
                                      "standard's settings before upload)",
               "an assessment SP 800-90B accepts", esv::kPackage);
}

Claim claim_of(const ordered_json& doc) {
  Claim c;
  if (!doc.is_array() || doc.size() < 2 || !doc[1].is_object()) return c;
  const ordered_json& reg = doc[1];
  if (reg.contains("bitsPerSample") && reg["bitsPerSample"].is_number_integer()) {
    const int64_t b = reg["bitsPerSample"].get<int64_t>();
    if (b >= 1 && b <= 8) c.bits = static_cast<int>(b);
  }
  if (reg.contains("numberOfOEs") && reg["numberOfOEs"].is_number_integer()) c.oes = reg["numberOfOEs"].get<int64_t>();
  if (reg.contains("conditioningComponent") && reg["conditioningComponent"].is_array()) {
    for (const ordered_json& k : reg["conditioningComponent"]) {
      if (!k.is_object() || !k.contains("vetted") || k["vetted"] != false) continue;
      const bool has = k.contains("sequencePosition") && k["sequencePosition"].is_number_integer();
      c.non_vetted.push_back(has ? k["sequencePosition"].get<int64_t>() : 0);
    }
  }
  return c;
}

}  // namespace

std::vector<EsvFinding> check_package(const std::string& dir, std::vector<std::string>* names,
                                      std::vector<std::string>* folders) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(ErrorKind::Input, dir + ": not a folder");
  const fs::path root = fs::canonical(dir, ec);
  if (ec) throw Error(ErrorKind::Input, dir + ": " + ec.message());
  std::vector<EsvFinding> out;
  Sink package("", "", &out);
  bool has_marker = false;
  const std::vector<Source> sources = find_sources(root, package, &has_marker);
  if (has_marker && !fs::is_regular_file(root / "README.txt", ec)) {
    package.for_file("README.txt").warning("", "missing", "what to upload, in which order (docs/esv.md)", esv::kPackage);
  }
  check_sums(root, has_marker, package);
  for (const Source& s : sources) {
    if (names) names->push_back(s.name);
    if (folders) folders->push_back((root / s.folder).string());
    const fs::path folder = root / s.folder;
    Sink sink(s.name, esv::kRegistration, &out);
    if (!fs::is_directory(folder, ec)) {
      sink.for_file(s.folder).error("", "missing", "a folder per source", esv::kPackage);
      continue;
    }
    const std::optional<ordered_json> reg = read_json(folder / esv::kRegistration, sink);
    Claim claim;
    if (reg) {
      const std::vector<EsvFinding> r = check_registration(*reg, s.name);
      out.insert(out.end(), r.begin(), r.end());
      claim = claim_of(*reg);
    }
    Sink run_sink = sink.for_file("run.json");
    const std::optional<ordered_json> run = read_json(folder / "run.json", run_sink);
    esv::check_run_file(root, folder, run, claim, run_sink);
    if (has_marker && !fs::is_regular_file(folder / "assessment.json", ec)) {
      sink.for_file("assessment.json").warning("", "missing", "the source record the package's numbers came from",
                                               esv::kPackage);
    } else if (fs::is_regular_file(folder / "assessment.json", ec)) {
      check_compliance(folder, sink);
    }
  }
  return out;
}

}  // namespace ea
