#include "schema.hpp"

#include "common/error.hpp"

namespace ea {

namespace {

using nlohmann::ordered_json;

const char* const kKeywords[] = {"$schema", "$id", "title", "description", "$defs", "$ref", "type", "const",
                                 "enum", "anyOf", "oneOf", "properties", "required", "additionalProperties",
                                 "items", "additionalItems", "minimum", "maximum", "minItems", "maxItems", "minLength",
                                 "maxLength", "pattern"};

bool has_type(const ordered_json& v, const std::string& t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  if (t == "integer") {
    return v.is_number_integer() ||
           (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
  }
  if (t == "number") return v.is_number();
  throw Error(ErrorKind::Input, "schema: unsupported type " + t);
}

// A key as a JSON pointer's part (RFC 6901).
std::string pointer_part(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

bool fail(std::vector<SchemaError>* errors, const std::string& at, const char* keyword, std::string why) {
  if (errors) errors->push_back({at, std::move(why), keyword});
  return false;
}

// A string's length as JSON Schema counts it: Unicode code points (UTF-8 lead bytes).
size_t code_points(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

}  // namespace

SchemaValidator::SchemaValidator(ordered_json schema) : root_(std::move(schema)) {
  if (!root_.is_object()) throw Error(ErrorKind::Input, "schema: not a JSON object");
  compile(root_);
}

// Checks every keyword and compiles every pattern once (check() then only reads).
void SchemaValidator::compile(const ordered_json& s) {
  if (s.is_array()) {
    for (const auto& x : s) compile(x);
    return;
  }
  if (!s.is_object()) return;
  for (const auto& [key, value] : s.items()) {
    bool known = false;
    for (const char* k : kKeywords) known = known || key == k;
    if (!known) throw Error(ErrorKind::Input, "schema: unsupported keyword " + key);
    if (key == "pattern" && value.is_string()) patterns_.emplace(value.get<std::string>(), std::regex(value.get<std::string>()));
    if (key == "$ref") resolve(s);
    if (key == "properties" || key == "$defs") {
      for (const auto& [_, sub] : value.items()) compile(sub);
    } else if (key == "anyOf" || key == "oneOf" || key == "items" || key == "additionalItems" ||
               key == "additionalProperties") {
      compile(value);
    }
  }
}

bool SchemaValidator::has_def(const std::string& def) const {
  return root_.contains("$defs") && root_["$defs"].contains(def);
}

const ordered_json& SchemaValidator::resolve(const ordered_json& s) const {
  if (!s.is_object() || !s.contains("$ref")) return s;
  const std::string ref = s["$ref"].get<std::string>();
  const std::string prefix = "#/$defs/";
  if (ref.rfind(prefix, 0) != 0 || !has_def(ref.substr(prefix.size()))) {
    throw Error(ErrorKind::Input, "schema: unsupported $ref " + ref);
  }
  return resolve(root_["$defs"][ref.substr(prefix.size())]);
}

std::vector<SchemaError> SchemaValidator::check(const ordered_json& doc, const std::string& def) const {
  std::vector<SchemaError> errors;
  if (!def.empty() && !has_def(def)) throw Error(ErrorKind::Input, "schema: no definition " + def);
  validate(doc, def.empty() ? root_ : root_["$defs"][def], "", &errors);
  return errors;
}

bool SchemaValidator::validate(const ordered_json& v, const ordered_json& schema, const std::string& at,
                               std::vector<SchemaError>* errors) const {
  const ordered_json& s = resolve(schema);
  if ((s.contains("anyOf") || s.contains("oneOf")) && !validate_alternatives(v, s, at, errors)) return false;
  if (!validate_value(v, s, at, errors)) return false;
  bool ok = true;
  if (v.is_object()) ok = validate_object(v, s, at, errors);
  if (v.is_array() && s.contains("items")) ok = validate_items(v, s, at, errors) && ok;
  return ok;
}

// items: one schema for every element, or (draft-07's tuple form) an array of schemas, one
// per position, the elements past them checked against additionalItems when it is given.
bool SchemaValidator::validate_items(const ordered_json& v, const ordered_json& s, const std::string& at,
                                     std::vector<SchemaError>* errors) const {
  bool ok = true;
  const ordered_json& items = s["items"];
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string child = at + "/" + std::to_string(i);
    if (!items.is_array()) {
      ok = validate(v[i], items, child, errors) && ok;
    } else if (i < items.size()) {
      ok = validate(v[i], items[i], child, errors) && ok;
    } else if (s.contains("additionalItems")) {
      const ordered_json& extra = s["additionalItems"];
      if (extra.is_boolean()) {
        if (!extra.get<bool>()) return fail(errors, at, "additionalItems", "more than " + std::to_string(items.size()) + " items") && ok;
      } else {
        ok = validate(v[i], extra, child, errors) && ok;
      }
    }
  }
  return ok;
}

// anyOf / oneOf: some alternative matches (oneOf: exactly one); else the errors of the
// alternative with the fewest.
bool SchemaValidator::validate_alternatives(const ordered_json& v, const ordered_json& s, const std::string& at,
                                            std::vector<SchemaError>* errors) const {
  const ordered_json& alts = s.contains("anyOf") ? s["anyOf"] : s["oneOf"];
  int matched = 0;
  for (const auto& alt : alts) matched += validate(v, alt, at, nullptr) ? 1 : 0;
  if (matched == 0) {
    if (!errors) return false;
    // The fewest errors; an alternative of another type or constant fits worst (its one
    // error says less than the errors inside one of the right type).
    std::vector<SchemaError> best;
    size_t best_score = SIZE_MAX;
    for (const auto& alt : alts) {
      std::vector<SchemaError> mine;
      validate(v, alt, at, &mine);
      const bool other_kind = !mine.empty() && mine[0].pointer == at &&
                              (mine[0].what.rfind("expected ", 0) == 0 || mine[0].what.find(" is not one of ") != std::string::npos);
      const size_t score = mine.size() + (other_kind ? 1000000 : 0);
      if (score < best_score) {
        best = std::move(mine);
        best_score = score;
      }
    }
    errors->insert(errors->end(), best.begin(), best.end());
    return false;
  }
  if (s.contains("oneOf") && matched > 1) return fail(errors, at, "oneOf", "matches more than one alternative of oneOf");
  return true;
}

// The keywords about the value itself: type, const, enum, the bounds, the lengths, pattern.
bool SchemaValidator::validate_value(const ordered_json& v, const ordered_json& s, const std::string& at,
                                     std::vector<SchemaError>* errors) const {
  if (s.contains("type")) {
    bool ok = false;
    if (s["type"].is_array()) {
      for (const auto& t : s["type"]) ok = ok || has_type(v, t.get<std::string>());
    } else {
      ok = has_type(v, s["type"].get<std::string>());
    }
    if (!ok) return fail(errors, at, "type", "expected type " + s["type"].dump() + ", found " + v.dump());
  }
  if (s.contains("const") && v != s["const"]) return fail(errors, at, "const", "expected " + s["const"].dump() + ", found " + v.dump());
  if (s.contains("enum")) {
    bool ok = false;
    for (const auto& e : s["enum"]) ok = ok || v == e;
    if (!ok) return fail(errors, at, "enum", v.dump() + " is not one of " + s["enum"].dump());
  }
  if (s.contains("minimum") && v.is_number() && v.get<double>() < s["minimum"].get<double>()) {
    return fail(errors, at, "minimum", v.dump() + " is below the minimum " + s["minimum"].dump());
  }
  if (s.contains("maximum") && v.is_number() && v.get<double>() > s["maximum"].get<double>()) {
    return fail(errors, at, "maximum", v.dump() + " is above the maximum " + s["maximum"].dump());
  }
  if (s.contains("minItems") && v.is_array() && v.size() < s["minItems"].get<size_t>()) {
    return fail(errors, at, "minItems", "fewer than " + s["minItems"].dump() + " items");
  }
  if (s.contains("maxItems") && v.is_array() && v.size() > s["maxItems"].get<size_t>()) {
    return fail(errors, at, "maxItems", "more than " + s["maxItems"].dump() + " items");
  }
  if (s.contains("minLength") && v.is_string() && code_points(v.get<std::string>()) < s["minLength"].get<size_t>()) {
    return fail(errors, at, "minLength", "is " + std::to_string(code_points(v.get<std::string>())) + " characters long, fewer than " +
                                s["minLength"].dump());
  }
  if (s.contains("maxLength") && v.is_string() && code_points(v.get<std::string>()) > s["maxLength"].get<size_t>()) {
    return fail(errors, at, "maxLength", "is " + std::to_string(code_points(v.get<std::string>())) + " characters long, more than " +
                                s["maxLength"].dump());
  }
  if (s.contains("pattern") && v.is_string() &&
      !std::regex_search(v.get<std::string>(), patterns_.at(s["pattern"].get<std::string>()))) {
    return fail(errors, at, "pattern", v.dump() + " does not match " + s["pattern"].dump());
  }
  return true;
}

bool SchemaValidator::validate_object(const ordered_json& v, const ordered_json& s, const std::string& at,
                                      std::vector<SchemaError>* errors) const {
  bool ok = true;
  if (s.contains("required")) {
    for (const auto& r : s["required"]) {
      if (!v.contains(r.get<std::string>())) ok = fail(errors, at, "required", "missing required field \"" + r.get<std::string>() + "\"");
    }
  }
  for (const auto& [key, value] : v.items()) {
    const std::string child = at + "/" + pointer_part(key);
    if (s.contains("properties") && s["properties"].contains(key)) {
      ok = validate(value, s["properties"][key], child, errors) && ok;
    } else if (s.contains("additionalProperties")) {
      const ordered_json& extra = s["additionalProperties"];
      if (extra.is_boolean()) {
        if (!extra.get<bool>()) ok = fail(errors, at, "additionalProperties", "undocumented field \"" + key + "\"") && ok;
      } else {
        ok = validate(value, extra, child, errors) && ok;
      }
    }
  }
  return ok;
}

const SchemaValidator& record_schema() {
  static const SchemaValidator schema(ordered_json::parse(
#include "record_schema.inc"
      ));
  return schema;
}

}  // namespace ea
