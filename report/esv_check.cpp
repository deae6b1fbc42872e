// The registration's findings (report/esv_check.hpp): its shape, NIST's two schemas, and the
// protocol's and server's rules as docs/esv-notes.md cites them (P = the protocol @ 035b11d1,
// V = the server's rule scripts). The package's files: report/esv_files.cpp.
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "esv_check.hpp"
#include "esv_sink.hpp"
#include "report.hpp"

namespace ea {

using nlohmann::ordered_json;
using esv::Sink;

const char* esv_severity_name(EsvSeverity s) {
  switch (s) {
    case EsvSeverity::Error: return "error";
    case EsvSeverity::Warning: return "warning";
    default: return "note";
  }
}

std::string esv_finding_text(const EsvFinding& f) {
  std::string t = f.source.empty() ? std::string("package") : f.source;
  if (!f.file.empty()) t += ": " + f.file;
  if (!f.field.empty()) t += ": " + f.field;
  return t + ": " + f.message + " (" + f.rule + "; " + f.origin + ")";
}

const SchemaValidator& esv_schema_sn() {
  static const SchemaValidator schema(ordered_json::parse(
#include "esv_schema_sn.inc"
      ));
  return schema;
}

const SchemaValidator& esv_schema_s18() {
  static const SchemaValidator schema(ordered_json::parse(
#include "esv_schema_s18.inc"
      ));
  return schema;
}

namespace {

// P L206-218 @ 035b11d1: the vetted components' exact ACVTS names the server accepts.
const std::set<std::string>& vetted_names() {
  static const std::set<std::string> names = {
      "SHA1", "SHA2-224", "SHA2-256", "SHA2-384", "SHA2-512", "SHA2-512t224", "SHA2-512t256", "SHA3-224", "SHA3-256",
      "SHA3-384", "SHA3-512", "Ascon-Hash256", "SHAKE-128", "SHAKE-256", "HMAC-SHA1", "HMAC-SHA2-224", "HMAC-SHA2-256",
      "HMAC-SHA2-384", "HMAC-SHA2-512", "HMAC-SHA2-512t224", "HMAC-SHA2-512t256", "HMAC-SHA3-224", "HMAC-SHA3-256",
      "HMAC-SHA3-384", "HMAC-SHA3-512", "AES-CMAC", "AES-CBC-MAC", "AES-128-CTR-DRBG", "AES-192-CTR-DRBG",
      "AES-256-CTR-DRBG", "SHA2-224-Hash-DRBG", "SHA2-256-Hash-DRBG", "SHA2-384-Hash-DRBG", "SHA2-512-Hash-DRBG",
      "SHA2-512t224-Hash-DRBG", "SHA2-512t256-Hash-DRBG", "SHA3-224-Hash-DRBG", "SHA3-256-Hash-DRBG",
      "SHA3-384-Hash-DRBG", "SHA3-512-Hash-DRBG", "SHA2-224-HMAC-DRBG", "SHA2-256-HMAC-DRBG", "SHA2-384-HMAC-DRBG",
      "SHA2-512-HMAC-DRBG", "SHA2-512t224-HMAC-DRBG", "SHA2-512t256-HMAC-DRBG", "SHA3-224-HMAC-DRBG",
      "SHA3-256-HMAC-DRBG", "SHA3-384-HMAC-DRBG", "SHA3-512-HMAC-DRBG", "Hash_DF", "BlockCipher_DF"};
  return names;
}

// "/1/conditioningComponent/0/vetted" -> "conditioningComponent[0].vetted" (the registration
// object's fields by name; "/0/esvVersion" -> "[0].esvVersion").
std::string field_of(const std::string& pointer) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < pointer.size();) {
    size_t j = pointer.find('/', i + 1);
    if (j == std::string::npos) j = pointer.size();
    std::string t;
    for (size_t k = i + 1; k < j; ++k) {
      if (pointer[k] == '~' && k + 1 < j) t += pointer[++k] == '1' ? '/' : '~';
      else t += pointer[k];
    }
    parts.push_back(t);
    i = j;
  }
  std::string out;
  for (size_t i = parts.size() > 0 && parts[0] == "1" ? 1 : 0; i < parts.size(); ++i) {
    const bool index = !parts[i].empty() && std::all_of(parts[i].begin(), parts[i].end(), [](unsigned char ch) { return std::isdigit(ch) != 0; });
    out += index ? "[" + parts[i] + "]" : (out.empty() ? "" : ".") + parts[i];
  }
  return out;
}

// o[key] is true (absent, or another type: false; nlohmann's value() would throw).
bool is_true(const ordered_json& o, const char* key) { return o.is_object() && o.contains(key) && o[key] == true; }

std::string join(const std::string& field, const std::string& child) { return field.empty() ? child : field + "." + child; }

// `missing required field "x"` -> x.
std::string missing_name(const SchemaError& e) {
  const size_t a = e.what.find('"'), b = e.what.rfind('"');
  return a == std::string::npos || b <= a ? std::string() : e.what.substr(a + 1, b - a - 1);
}

const ordered_json* at_pointer(const ordered_json& doc, const std::string& pointer) {
  try {
    return &doc.at(ordered_json::json_pointer(pointer));
  } catch (const std::exception&) {
    return nullptr;
  }
}

// An S18 finding that is one of S18's known defects (docs/esv-notes.md "Disagreements"): the
// reason, else "".
std::string s18_defect(const SchemaError& e, const ordered_json& doc) {
  const std::string name = e.keyword == "required" ? missing_name(e) : "";
  if (e.pointer == "/1" && (name == "alphabetSize" || name == "itar")) {
    return "S18 requires a field it never declares and the protocol removed on 2023-03-08 (Disagreements 1)";
  }
  if (e.pointer == "/1" && name == "conditioningComponent") {
    return "S18 requires it; SN does not, and the server only when additionalNoiseSources is true (Disagreements 9)";
  }
  if (name == "bijectiveClaim") {
    const ordered_json* c = at_pointer(doc, e.pointer);
    if (c && is_true(*c, "vetted")) {
      return "S18 requires it of every component; the protocol only of non-vetted ones (Disagreements 4)";
    }
  }
  const bool min_hin = e.pointer.size() >= 7 && e.pointer.compare(e.pointer.size() - 7, 7, "/minHin") == 0;
  if (e.keyword == "type" && min_hin) return "S18 types minHin integer; SN a number, the protocol a float (Disagreements 3)";
  if (e.keyword == "maximum" && e.pointer == "/1/bitsPerSample") {
    return "S18 caps bitsPerSample at 8; SN and the protocol do not (Disagreements 5)";
  }
  return "";
}

void add_schema_error(Sink& sink, EsvSeverity severity, const SchemaError& e, const std::string& origin,
                      const std::string& why = "") {
  const std::string field = field_of(e.pointer);
  if (e.keyword == "required") {
    sink.add(severity, join(field, missing_name(e)), "missing", why.empty() ? "required" : "required: " + why, origin);
  } else {
    sink.add(severity, field.empty() ? "(document)" : field, e.what, why.empty() ? e.keyword : e.keyword + ": " + why,
             origin);
  }
}

// Both schemas; a finding both give is one, naming both.
void check_schemas(const ordered_json& doc, Sink& sink) {
  const std::vector<SchemaError> sn = esv_schema_sn().check(doc), s18 = esv_schema_s18().check(doc);
  auto same = [](const SchemaError& a, const SchemaError& b) { return a.pointer == b.pointer && a.what == b.what; };
  for (const SchemaError& e : sn) {
    const bool both = std::any_of(s18.begin(), s18.end(), [&](const SchemaError& x) { return same(e, x); });
    add_schema_error(sink, EsvSeverity::Error, e, both ? esv::kBoth : esv::kSn);
  }
  for (const SchemaError& e : s18) {
    if (std::any_of(sn.begin(), sn.end(), [&](const SchemaError& x) { return same(e, x); })) continue;
    const std::string defect = s18_defect(e, doc);
    add_schema_error(sink, defect.empty() ? EsvSeverity::Warning : EsvSeverity::Note, e, esv::kS18,
                     defect.empty() ? "only the main branch's schema has this rule" : defect);
  }
}

// [{"esvVersion": "1.0"}, {registration}] (P L98-138): the registration object, or null.
const ordered_json* check_shape(const ordered_json& doc, Sink& sink) {
  const char* rule = "[{\"esvVersion\": \"1.0\"}, {registration}]";
  if (!doc.is_array()) {
    sink.error("(document)", "not a JSON array", rule, esv::kProtocol);
    return nullptr;
  }
  if (doc.size() != 2) {
    sink.error("(document)", std::to_string(doc.size()) + " elements where 2 were expected", rule, esv::kProtocol);
  }
  return doc.size() >= 2 && doc[1].is_object() ? &doc[1] : nullptr;
}

std::optional<double> number_at(const ordered_json& o, const char* key) {
  return o.contains(key) && o[key].is_number() ? std::optional<double>(o[key].get<double>()) : std::nullopt;
}

std::optional<int64_t> integer(const ordered_json& o, const char* key) {
  if (!o.contains(key) || !o[key].is_number()) return std::nullopt;
  const double v = o[key].get<double>();
  return v == static_cast<double>(static_cast<int64_t>(v)) ? std::optional<int64_t>(static_cast<int64_t>(v)) : std::nullopt;
}

// Fields the protocol does not list (P L170-201) and the spellings of its table.
void check_field_names(const ordered_json& o, const std::set<std::string>& known, const std::string& at, Sink& sink) {
  for (const auto& [key, value] : o.items()) {
    if (known.count(key)) continue;
    const std::string why = key == "minNIn" || key == "minHIn"
                                ? "the protocol's table spells it so, its example and both schemas " +
                                      std::string(key == "minNIn" ? "minNin" : "minHin") + " (Disagreements 7)"
                            : key == "alphabetSize" || key == "itar"
                                ? "removed from the registration on 2023-03-08"
                                : "not a field of the protocol; whether the server refuses unknown fields is unknown";
    sink.warning(join(at, key), "a field the protocol does not list", why, esv::kProtocol);
  }
}

void check_restarts(const ordered_json& reg, const char* key, Sink& sink) {
  const std::optional<int64_t> n = integer(reg, key);
  if (!n) return;
  if (*n < 1000) {
    sink.error(key, std::to_string(*n) + " is below 1000", key + std::string(" >= 1000"), "server rule Shared/minRestart.json");
  } else if (*n != 1000) {
    sink.error(key, std::to_string(*n) + " where the restart file holds 1000 restarts x 1000 samples",
               "1000 restarts of 1000 samples (3.1.4.1; NIST ea_restart reads exactly that)", "SP 800-90B");
  }
}

// The top level's rules (docs/esv-notes.md "Top-level fields").
void check_top_level(const ordered_json& reg, Sink& sink) {
  check_field_names(reg,
                    {"primaryNoiseSource", "iidClaim", "bitsPerSample", "hminEstimate", "physical", "numberOfRestarts",
                     "samplesPerRestart", "additionalNoiseSources", "numberOfOEs", "conditioningComponent"},
                    "", sink);
  const std::optional<int64_t> bits = integer(reg, "bitsPerSample");
  if (bits && *bits > 8) {
    sink.error("bitsPerSample", std::to_string(*bits) + " where the data files hold one sample of at most 8 bits a byte",
               "bitsPerSample is the data files' sample width, 1..8", esv::kPackage);
  }
  const std::optional<double> h = number_at(reg, "hminEstimate");
  if (h && bits && *h > static_cast<double>(*bits)) {
    sink.error("hminEstimate", reg["hminEstimate"].dump() + " is above bitsPerSample " + std::to_string(*bits),
               "0 <= hminEstimate <= bitsPerSample", "server rule RegisterRequest/hMinEstimate.json");
  }
  check_restarts(reg, "numberOfRestarts", sink);
  check_restarts(reg, "samplesPerRestart", sink);
  if (!reg.contains("numberOfOEs")) {
    sink.error("numberOfOEs", "missing", "NIST's main-branch client reads it without a default (the protocol: optional, 1)",
               "NIST client start/parsing.py");
  }
  if (is_true(reg, "additionalNoiseSources")) {
    const ordered_json* cc = reg.contains("conditioningComponent") ? &reg["conditioningComponent"] : nullptr;
    if (!cc || !cc->is_array() || cc->empty()) {
      sink.error("conditioningComponent", "absent or empty while additionalNoiseSources is true",
                 "additional noise sources need at least one conditioning component",
                 "server rule ConditioningComponent/requiredCase.json");
    }
  }
}

struct Inequality {
  const char *a, *op, *b;
};

bool holds(double a, const std::string& op, double b) {
  return op == "<" ? a < b : op == "<=" ? a <= b : op == "==" ? a == b : op == ">=" ? a >= b : a > b;
}

// The server's inequalities between a component's numbers (docs/esv-notes.md, V).
void check_inequalities(const ordered_json& c, const std::string& at, bool vetted, bool bijective, Sink& sink) {
  static const std::vector<Inequality> kVetted = {
      {"hOut", "<=", "nOut"}, {"hOut", "<=", "minHin"}, {"hOut", "<=", "minNin"}, {"minHin", "<=", "minNin"},
      {"nOut", "<=", "minNin"}};
  static const std::vector<Inequality> kBijective = {
      {"hOut", "<=", "nOut"}, {"minHin", "==", "hOut"}, {"hOut", "<=", "minNin"}, {"minNin", "<=", "nOut"},
      {"nOut", "==", "nw"},   {"nw", "==", "minNin"}};
  static const std::vector<Inequality> kNonBijective = {
      {"hOut", "<", "nOut"}, {"hOut", "<", "minHin"}, {"hOut", "<", "minNin"}, {"minNin", ">=", "nw"},
      {"nw", ">=", "nOut"},  {"minNin", ">=", "nOut"}};
  const std::vector<Inequality>& rules = vetted ? kVetted : bijective ? kBijective : kNonBijective;
  const std::string kind = vetted ? "vetted" : bijective ? "non-vetted, bijective" : "non-vetted, not bijective";
  const std::string origin = vetted      ? "server rule Vetted/nonBijective.json"
                             : bijective ? "server rule NonVetted/bijective.json"
                                         : "server rule NonVetted/nonBijective.json";
  for (const Inequality& q : rules) {
    const std::optional<double> a = number_at(c, q.a), b = number_at(c, q.b);
    if (!a || !b || holds(*a, q.op, *b)) continue;
    const std::string rel = std::string(q.a) + " " + q.op + " " + q.b;
    sink.error(join(at, q.a), std::string(q.a) + " = " + c[q.a].dump() + ", " + q.b + " = " + c[q.b].dump() + ": " + rel +
                                  " does not hold",
               rel + " (" + kind + ")", origin);
  }
}

void check_vetted(const ordered_json& c, const std::string& at, Sink& sink) {
  const ordered_json* vn = c.contains("validationNumber") ? &c["validationNumber"] : nullptr;
  if (!vn || !vn->is_string() || vn->get<std::string>().empty()) {
    sink.error(join(at, "validationNumber"), vn ? "not a non-empty string: " + vn->dump() : "missing",
               "a vetted component names its ACVTS validation (P L195)", "server rule Vetted/validationNumber.json");
  }
  if (c.contains("bijectiveClaim") && c["bijectiveClaim"] == true) {
    sink.error(join(at, "bijectiveClaim"), "true on a vetted component", "bijectiveClaim absent or false when vetted",
               "server rule Vetted/bijectiveClaimIsNotApplicable.json");
  }
  if (c.contains("description") && c["description"].is_string()) {
    const std::string d = c["description"].get<std::string>();
    if (d.empty()) {
      sink.error(join(at, "description"), "empty", "a vetted component's description is its exact ACVTS name (P L194)",
                 esv::kProtocol);
    } else if (!vetted_names().count(d)) {
      sink.error(join(at, "description"), "\"" + d + "\" is not one of the protocol's vetted names (e.g. SHA2-256, "
                                                     "SHA2-256-HMAC-DRBG, AES-256-CTR-DRBG)",
                 "exactly the ACVTS name of P L206-218", "server rule Vetted/description.json");
    }
  }
}

void check_non_vetted(const ordered_json& c, const std::string& at, Sink& sink) {
  if (c.contains("validationNumber") && !c["validationNumber"].is_null() &&
      !(c["validationNumber"].is_string() && c["validationNumber"].get<std::string>().find_first_not_of(" \t") ==
                                                 std::string::npos)) {
    sink.error(join(at, "validationNumber"), c["validationNumber"].dump() + " on a non-vetted component",
               "validationNumber null or blank when not vetted", "server rule NonVetted/validationNumberIsNotApplicable.json");
  }
  if (!c.contains("bijectiveClaim")) {
    sink.error(join(at, "bijectiveClaim"), "missing", "a non-vetted component says whether it is bijective (P L220)",
               esv::kProtocol);
  }
  if (c.contains("description") && c["description"].is_string() && c["description"].get<std::string>().empty()) {
    sink.warning(join(at, "description"), "empty", "a brief description of the component", esv::kProtocol);
  }
}

void check_components(const ordered_json& reg, Sink& sink) {
  if (!reg.contains("conditioningComponent") || !reg["conditioningComponent"].is_array()) return;
  const ordered_json& cc = reg["conditioningComponent"];
  const bool additional = is_true(reg, "additionalNoiseSources");
  for (size_t i = 0; i < cc.size(); ++i) {
    const ordered_json& c = cc[i];
    const std::string at = "conditioningComponent[" + std::to_string(i) + "]";
    if (!c.is_object()) continue;  // the schemas say so
    check_field_names(c,
                      {"sequencePosition", "vetted", "bijectiveClaim", "description", "validationNumber", "minNin",
                       "minHin", "nw", "nOut", "hOut"},
                      at, sink);
    const std::optional<int64_t> p = integer(c, "sequencePosition");
    if (p && *p != static_cast<int64_t>(i) + 1) {
      sink.error(join(at, "sequencePosition"), std::to_string(*p) + " where " + std::to_string(i + 1) + " was expected",
                 "positions run 1..n in the array's order", esv::kProtocol);
    }
    if (!c.contains("vetted") || !c["vetted"].is_boolean()) continue;
    const bool vetted = c["vetted"].get<bool>();
    if (vetted) {
      check_vetted(c, at, sink);
    } else {
      check_non_vetted(c, at, sink);
      if (additional) {
        sink.error(join(at, "vetted"), "false while additionalNoiseSources is true",
                   "with additional noise sources every component is vetted", "server rule Vetted/isVettedRequiredCase.json");
      }
    }
    check_inequalities(c, at, vetted, !vetted && is_true(c, "bijectiveClaim"), sink);
  }
}

}  // namespace

std::vector<EsvFinding> check_registration(const ordered_json& doc, const std::string& source) {
  std::vector<EsvFinding> out;
  Sink sink(source, esv::kRegistration, &out);
  const ordered_json* reg = check_shape(doc, sink);
  if (doc.is_array()) check_schemas(doc, sink);  // not an array: the shape's finding says it
  if (reg) {
    check_top_level(*reg, sink);
    check_components(*reg, sink);
  }
  return out;
}

ordered_json esv_check_json(const std::string& dir, const std::vector<std::string>& sources,
                            const std::vector<EsvFinding>& findings, const ReportOptions& o) {
  ordered_json j = json_envelope(o, "", "", 0, nullptr, "EsvCheck");
  j["schemaVersion"] = kSchemaVersion;
  j["package"] = dir;
  j["sources"] = sources;
  size_t counts[3] = {0, 0, 0};
  ordered_json list = ordered_json::array();
  for (const EsvFinding& f : findings) {
    ++counts[static_cast<int>(f.severity)];
    list.push_back({{"severity", esv_severity_name(f.severity)},
                    {"source", f.source},
                    {"file", f.file},
                    {"field", f.field},
                    {"rule", f.rule},
                    {"origin", f.origin},
                    {"message", f.message}});
  }
  j["errors"] = counts[0];
  j["warnings"] = counts[1];
  j["notes"] = counts[2];
  j["passed"] = counts[0] == 0;
  j["findings"] = list;
  return j;
}

}  // namespace ea
