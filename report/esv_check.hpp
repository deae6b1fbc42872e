// `ea_iid esv check DIR`'s findings engine: an ESV submission package (docs/esv.md, ours or a
// lab's hand-made one) against NIST's two published registration schemas, the protocol's and
// the server's rules (docs/esv-notes.md), and the package's files (sizes, sample values,
// hashes, run.json's paths). Library only: it prints nothing; cli/esv_check.cpp prints the
// findings and picks the exit status. The rehearsal (the server's runs on the package's own
// files) is not here.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema.hpp"

namespace ea {

// error: the server or NIST's client refuses it, the tool cannot run on it, or the package
// contradicts itself (hashes, sizes); warning: worth a look, not known to be refused (e.g. a
// rule only the main branch's schema S18 has, a document the lab still has to add); note: a
// known defect of schema S18 (docs/esv-notes.md "Disagreements"), shown so that a lab
// validating with that file knows why it complains.
enum class EsvSeverity { Error, Warning, Note };
const char* esv_severity_name(EsvSeverity s);  // "error", "warning", "note"

// One finding. source: the source's name ("" for the package as a whole); file: relative to
// the source's folder (to DIR for package findings); field: where in that file
// ("conditioningComponent[1].sequencePosition", "byte 1234", "" for the whole file); rule: the
// rule in a few words; origin: where the rule comes from ("schema 38490704", "schema 4b69a04c",
// "schemas 38490704 and 4b69a04c", "protocol", "server rule <script>", "NIST client <file>",
// "SP 800-90B", "package": our own layout); message: what was found.
struct EsvFinding {
  std::string source, file, field, rule, origin, message;
  EsvSeverity severity = EsvSeverity::Error;
};

// "src-a: registration.json: conditioningComponent[1].sequencePosition: 3 where 2 was
// expected (positions run 1..n in the array's order; protocol)".
std::string esv_finding_text(const EsvFinding& f);

// NIST's registration schemas as built into the library (esv/schemas/README.md): SN, the
// newest (commit 38490704), and S18, the main branch's (4b69a04c).
const SchemaValidator& esv_schema_sn();
const SchemaValidator& esv_schema_s18();

// The findings of one registration document ([{"esvVersion": "1.0"}, {registration}]): its
// shape, both schemas (a finding both give is one finding naming both; one only S18 gives is
// a note when it is one of S18's known defects, else a warning), and the protocol's and the
// server's rules. `source` names the source in the findings; their file is registration.json.
std::vector<EsvFinding> check_registration(const nlohmann::ordered_json& doc, const std::string& source);

// The findings of the package in folder `dir`: the marker (ea_iid-package.json; a package
// without one is read as a lab's: every folder holding a registration.json is a source),
// SHA256SUMS, and per source its registration (check_registration), run.json, data files and
// supporting documents. `sources`, when given, receives the sources' names in order, and
// `folders` their folders (absolute). Throws Error{Input} only when `dir` is not a readable folder.
std::vector<EsvFinding> check_package(const std::string& dir, std::vector<std::string>* sources = nullptr,
                                      std::vector<std::string>* folders = nullptr);

struct ReportOptions;
// `ea_iid esv check --json`'s record (type "EsvCheck", docs/json.md): the package, its
// sources, the counts by severity, passed (no error) and every finding.
nlohmann::ordered_json esv_check_json(const std::string& dir, const std::vector<std::string>& sources,
                                      const std::vector<EsvFinding>& findings, const ReportOptions& o);

// `p`'s path under `root` ("s1/run.json"): a link's own path, where std::filesystem::relative
// would give its target's.
std::string esv_path_under(const std::filesystem::path& p, const std::filesystem::path& root);

}  // namespace ea
