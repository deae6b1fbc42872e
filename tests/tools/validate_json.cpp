// Validates JSON documents against a JSON Schema (the subset docs/ea_iid.schema.json uses:
// $ref to #/$defs, type, const, enum, anyOf, oneOf, properties, required,
// additionalProperties, items, minimum, pattern). Arguments after the schema are files or
// folders (searched recursively for *.json and *.jsonl; a .jsonl file is one document per
// line). Files that are not JSON at all are skipped and counted (tests also write
// non-JSON files with these names on purpose). Exit 0 when every document is valid, 1
// otherwise (each error printed with its file, line and JSON pointer), 2 on bad usage.
//
// usage: validate_json SCHEMA PATH...
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

class Validator {
 public:
  explicit Validator(json schema) : root_(std::move(schema)) {}

  // Errors of `doc` against the root schema ("" pointer = the document).
  std::vector<std::string> check(const json& doc) {
    errors_.clear();
    validate(doc, root_, "");
    return errors_;
  }

 private:
  const json& resolve(const json& s) const {
    if (!s.is_object() || !s.contains("$ref")) return s;
    const std::string ref = s["$ref"];
    const std::string prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0 || !root_["$defs"].contains(ref.substr(prefix.size()))) {
      throw std::runtime_error("unsupported $ref " + ref);
    }
    return resolve(root_["$defs"][ref.substr(prefix.size())]);
  }

  static bool has_type(const json& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    if (t == "integer") return v.is_number_integer() || (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
    if (t == "number") return v.is_number();
    throw std::runtime_error("unsupported type " + t);
  }

  // True when valid; errors are added only when `report`.
  bool validate(const json& v, const json& schema_in, const std::string& at, bool report = true) {
    const json& s = resolve(schema_in);
    auto fail = [&](const std::string& why) {
      if (report) errors_.push_back((at.empty() ? "/" : at) + ": " + why);
      return false;
    };
    for (const auto& [key, _] : s.items()) {
      static const char* known[] = {"$schema", "$id", "title", "description", "$defs", "$ref", "type", "const", "enum",
                                    "anyOf", "oneOf", "properties", "required", "additionalProperties", "items",
                                    "minimum", "maximum", "maxItems", "pattern"};
      bool ok = false;
      for (const char* k : known) ok = ok || key == k;
      if (!ok) throw std::runtime_error("unsupported schema keyword " + key);
    }
    if (s.contains("anyOf") || s.contains("oneOf")) {
      const json& alts = s.contains("anyOf") ? s["anyOf"] : s["oneOf"];
      int matched = 0;
      for (const auto& alt : alts) matched += validate(v, alt, at, false) ? 1 : 0;
      if (matched == 0) {
        // Report against the alternative that fits best: the one with the fewest errors.
        size_t best = SIZE_MAX;
        std::vector<std::string> best_errors;
        for (const auto& alt : alts) {
          std::vector<std::string> saved;
          saved.swap(errors_);
          validate(v, alt, at, true);
          if (errors_.size() < best) {
            best = errors_.size();
            best_errors = errors_;
          }
          errors_.swap(saved);
        }
        if (report) errors_.insert(errors_.end(), best_errors.begin(), best_errors.end());
        return false;
      }
      if (s.contains("oneOf") && matched > 1) return fail("matches more than one alternative of oneOf");
    }
    if (s.contains("type")) {
      bool ok = false;
      if (s["type"].is_array()) {
        for (const auto& t : s["type"]) ok = ok || has_type(v, t.get<std::string>());
      } else {
        ok = has_type(v, s["type"].get<std::string>());
      }
      if (!ok) return fail("expected type " + s["type"].dump() + ", got " + v.dump());
    }
    if (s.contains("const") && v != s["const"]) return fail("expected " + s["const"].dump() + ", got " + v.dump());
    if (s.contains("enum")) {
      bool ok = false;
      for (const auto& e : s["enum"]) ok = ok || v == e;
      if (!ok) return fail(v.dump() + " is not one of " + s["enum"].dump());
    }
    if (s.contains("minimum") && v.is_number() && v.get<double>() < s["minimum"].get<double>()) {
      return fail(v.dump() + " is below the minimum " + s["minimum"].dump());
    }
    if (s.contains("maximum") && v.is_number() && v.get<double>() > s["maximum"].get<double>()) {
      return fail(v.dump() + " is above the maximum " + s["maximum"].dump());
    }
    if (s.contains("maxItems") && v.is_array() && v.size() > s["maxItems"].get<size_t>()) {
      return fail("more than " + s["maxItems"].dump() + " items");
    }
    if (s.contains("pattern") && v.is_string() &&
        !std::regex_search(v.get<std::string>(), std::regex(s["pattern"].get<std::string>()))) {
      return fail(v.dump() + " does not match " + s["pattern"].dump());
    }
    bool ok = true;
    if (v.is_object()) {
      if (s.contains("required")) {
        for (const auto& r : s["required"]) {
          if (!v.contains(r.get<std::string>())) ok = fail("missing required field \"" + r.get<std::string>() + "\"");
        }
      }
      for (const auto& [key, value] : v.items()) {
        const std::string child = at + "/" + key;
        if (s.contains("properties") && s["properties"].contains(key)) {
          ok = validate(value, s["properties"][key], child, report) && ok;
        } else if (s.contains("additionalProperties")) {
          const json& extra = s["additionalProperties"];
          if (extra.is_boolean()) {
            if (!extra.get<bool>()) ok = fail("undocumented field \"" + key + "\"") && ok;
          } else {
            ok = validate(value, extra, child, report) && ok;
          }
        }
      }
    }
    if (v.is_array() && s.contains("items")) {
      for (size_t i = 0; i < v.size(); ++i) ok = validate(v[i], s["items"], at + "/" + std::to_string(i), report) && ok;
    }
    return ok;
  }

  json root_;
  std::vector<std::string> errors_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: validate_json SCHEMA PATH...\n";
    return 2;
  }
  Validator validator(json::parse(std::ifstream(argv[1])));
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    const fs::path p = argv[i];
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied)) {
        const auto ext = e.path().extension();
        // The link's own type first: the safety tests leave links that loop or dangle, and
        // following one would throw (ELOOP).
        if (e.symlink_status().type() != fs::file_type::regular) continue;
        if (ext == ".json" || ext == ".jsonl") files.push_back(e.path());
      }
    } else {
      files.push_back(p);
    }
  }
  size_t documents = 0, invalid = 0, skipped = 0;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream whole;
    whole << in.rdbuf();
    std::vector<std::pair<size_t, std::string>> docs;  // (line, text)
    if (f.extension() == ".jsonl") {
      std::istringstream lines(whole.str());
      size_t n = 0;
      for (std::string line; std::getline(lines, line);) {
        ++n;
        if (!line.empty()) docs.emplace_back(n, line);
      }
    } else {
      docs.emplace_back(0, whole.str());
    }
    for (const auto& [line, text] : docs) {
      json doc = json::parse(text, nullptr, false);
      if (doc.is_discarded() || !doc.is_object()) {
        ++skipped;
        continue;
      }
      ++documents;
      const auto errors = validator.check(doc);
      if (errors.empty()) continue;
      ++invalid;
      for (const auto& e : errors) std::cout << f.string() << (line ? ":" + std::to_string(line) : "") << ": " << e << "\n";
    }
  }
  std::cout << "validate_json: " << documents << " documents in " << files.size() << " files, " << invalid
            << " invalid; " << skipped << " files or lines that are not JSON objects skipped\n";
  return invalid ? 1 : 0;
}
