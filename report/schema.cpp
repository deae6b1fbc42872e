#include "schema.hpp"

#include "common/error.hpp"

namespace ea {

namespace {

using nlohmann::ordered_json;

const char* const kKeywords[] = {"$schema", "$id", "title", "description", "$defs", "$ref", "type", "const",
                                 "enum", "anyOf", "oneOf", "properties", "required", "additionalProperties",
                                 "items", "additionalItems", "minimum", "maximum", "minItems", "maxItems", "minLength",
                                 "maxLength", "pattern"};

// A "type" as bits (one for each of JSON Schema's seven names), found when the schema is loaded.
enum TypeBit : unsigned { kObject = 1, kArray = 2, kString = 4, kBoolean = 8, kNull = 16, kInteger = 32, kNumber = 64 };

unsigned type_bit(const std::string& t) {
  if (t == "object") return kObject;
  if (t == "array") return kArray;
  if (t == "string") return kString;
  if (t == "boolean") return kBoolean;
  if (t == "null") return kNull;
  if (t == "integer") return kInteger;
  if (t == "number") return kNumber;
  throw Error(ErrorKind::Input, "schema: unsupported type " + t);
}

bool has_type(const ordered_json& v, unsigned types) {
  if (((types & kObject) && v.is_object()) || ((types & kArray) && v.is_array()) ||
      ((types & kString) && v.is_string()) || ((types & kBoolean) && v.is_boolean()) ||
      ((types & kNull) && v.is_null()) || ((types & kNumber) && v.is_number())) {
    return true;
  }
  return (types & kInteger) &&
         (v.is_number_integer() ||
          (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>()))));
}

// A key as a JSON pointer's part (RFC 6901).
std::string pointer_part(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

// A failed check: its error (the place's pointer and the message made only when the caller
// collects errors; anyOf's probes do not).
template <class Why>
bool fail(std::vector<SchemaError>* errors, const SchemaValidator::Place& at, const char* keyword, const Why& why) {
  if (errors) errors->push_back({at.pointer(), why(), keyword});
  return false;
}

// A string's length as JSON Schema counts it: Unicode code points (UTF-8 lead bytes).
size_t code_points(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

}  // namespace

const SchemaValidator::Node SchemaValidator::kEmpty{};

std::string SchemaValidator::Place::pointer() const {
  if (!parent) return "";
  return parent->pointer() + "/" + (key ? pointer_part(*key) : std::to_string(index));
}

SchemaValidator::SchemaValidator(ordered_json schema) : root_(std::move(schema)) {
  if (!root_.is_object()) throw Error(ErrorKind::Input, "schema: not a JSON object");
  compile(root_);
  index(root_);
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
    if (key == "pattern" && value.is_string())
      patterns_.emplace(value.get<std::string>(), std::regex(value.get<std::string>()));
    if (key == "$ref") resolve(s);
    if (key == "properties" || key == "$defs") {
      for (const auto& [_, sub] : value.items()) compile(sub);
    } else if (key == "anyOf" || key == "oneOf" || key == "items" || key == "additionalItems" ||
               key == "additionalProperties") {
      compile(value);
    }
  }
}

// Every schema object's Node (a $ref's: its target's keywords), after compile checked them.
void SchemaValidator::index(const ordered_json& s) {
  if (s.is_array()) {
    for (const auto& x : s) index(x);
    return;
  }
  if (!s.is_object() || nodes_.count(&s) != 0) return;
  const ordered_json& r = resolve(s);
  Node& n = nodes_[&s];
  const auto at = [&r](const char* key) { return r.contains(key) ? &r[key] : nullptr; };
  n.type = at("type");
  if (n.type && n.type->is_array()) {
    for (const auto& t : *n.type) n.types |= type_bit(t.get<std::string>());
  } else if (n.type) {
    n.types = type_bit(n.type->get<std::string>());
  }
  n.constant = at("const");
  n.enumeration = at("enum");
  n.any_of = at("anyOf");
  n.one_of = at("oneOf");
  n.required = at("required");
  n.additional_properties = at("additionalProperties");
  n.items = at("items");
  n.additional_items = at("additionalItems");
  n.minimum = at("minimum");
  n.maximum = at("maximum");
  n.min_items = at("minItems");
  n.max_items = at("maxItems");
  n.min_length = at("minLength");
  n.max_length = at("maxLength");
  n.pattern = at("pattern");
  if (n.pattern) n.pattern_regex = &patterns_.at(n.pattern->get<std::string>());
  if (const ordered_json* props = at("properties")) {
    n.has_properties = true;
    for (const auto& [key, sub] : props->items()) n.properties.emplace(key, &sub);
  }
  for (const char* key : {"$defs", "properties"}) {
    if (!s.contains(key)) continue;
    for (const auto& [_, sub] : s[key].items()) index(sub);
  }
  for (const ordered_json* sub : {n.any_of, n.one_of, n.items, n.additional_items, n.additional_properties}) {
    if (sub) index(*sub);
  }
  if (&r != &s) index(r);
}

const SchemaValidator::Node& SchemaValidator::node(const ordered_json& s) const {
  const auto it = nodes_.find(&s);
  return it == nodes_.end() ? kEmpty : it->second;
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
  validate(doc, def.empty() ? root_ : root_["$defs"][def], Place{}, &errors);
  return errors;
}

bool SchemaValidator::validate(const ordered_json& v, const ordered_json& schema, const Place& at,
                               std::vector<SchemaError>* errors) const {
  const Node& n = node(schema);
  if ((n.any_of || n.one_of) && !validate_alternatives(v, n, at, errors)) return false;
  if (!validate_value(v, n, at, errors)) return false;
  bool ok = true;
  if (v.is_object()) ok = validate_object(v, n, at, errors);
  if (v.is_array() && n.items) ok = validate_items(v, n, at, errors) && ok;
  return ok;
}

// items: one schema for every element, or (draft-07's tuple form) an array of schemas, one
// per position, the elements past them checked against additionalItems when it is given.
bool SchemaValidator::validate_items(const ordered_json& v, const Node& n, const Place& at,
                                     std::vector<SchemaError>* errors) const {
  bool ok = true;
  const ordered_json& items = *n.items;
  for (size_t i = 0; i < v.size(); ++i) {
    const Place child{&at, nullptr, i};
    if (!items.is_array()) {
      ok = validate(v[i], items, child, errors) && ok;
    } else if (i < items.size()) {
      ok = validate(v[i], items[i], child, errors) && ok;
    } else if (n.additional_items) {
      const ordered_json& extra = *n.additional_items;
      if (extra.is_boolean()) {
        if (!extra.get<bool>())
          return fail(errors, at, "additionalItems",
                      [&] { return std::string("more than " + std::to_string(items.size()) + " items"); }) &&
                 ok;
      } else {
        ok = validate(v[i], extra, child, errors) && ok;
      }
    }
  }
  return ok;
}

// anyOf / oneOf: some alternative matches (oneOf: exactly one); else the errors of the
// alternative with the fewest.
bool SchemaValidator::validate_alternatives(const ordered_json& v, const Node& n, const Place& at,
                                            std::vector<SchemaError>* errors) const {
  const ordered_json& alts = n.any_of ? *n.any_of : *n.one_of;
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
      const bool other_kind =
          !mine.empty() && mine[0].pointer == at.pointer() &&
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
  if (n.one_of && matched > 1)
    return fail(errors, at, "oneOf", [&] { return std::string("matches more than one alternative of oneOf"); });
  return true;
}

// The keywords about the value itself: type, const, enum, the bounds, the lengths, pattern.
bool SchemaValidator::validate_value(const ordered_json& v, const Node& n, const Place& at,
                                     std::vector<SchemaError>* errors) const {
  if (n.type) {
    if (!has_type(v, n.types))
      return fail(errors, at, "type",
                  [&] { return std::string("expected type " + n.type->dump() + ", found " + v.dump()); });
  }
  if (n.constant && v != *n.constant)
    return fail(errors, at, "const",
                [&] { return std::string("expected " + n.constant->dump() + ", found " + v.dump()); });
  if (n.enumeration) {
    bool ok = false;
    for (const auto& e : *n.enumeration) ok = ok || v == e;
    if (!ok)
      return fail(errors, at, "enum",
                  [&] { return std::string(v.dump() + " is not one of " + n.enumeration->dump()); });
  }
  if (n.minimum && v.is_number() && v.get<double>() < n.minimum->get<double>()) {
    return fail(errors, at, "minimum",
                [&] { return std::string(v.dump() + " is below the minimum " + n.minimum->dump()); });
  }
  if (n.maximum && v.is_number() && v.get<double>() > n.maximum->get<double>()) {
    return fail(errors, at, "maximum",
                [&] { return std::string(v.dump() + " is above the maximum " + n.maximum->dump()); });
  }
  if (n.min_items && v.is_array() && v.size() < n.min_items->get<size_t>()) {
    return fail(errors, at, "minItems", [&] { return std::string("fewer than " + n.min_items->dump() + " items"); });
  }
  if (n.max_items && v.is_array() && v.size() > n.max_items->get<size_t>()) {
    return fail(errors, at, "maxItems", [&] { return std::string("more than " + n.max_items->dump() + " items"); });
  }
  if (n.min_length && v.is_string() && code_points(v.get<std::string>()) < n.min_length->get<size_t>()) {
    return fail(errors, at, "minLength", [&] {
      return std::string("is " + std::to_string(code_points(v.get<std::string>())) + " characters long, fewer than " +
                         n.min_length->dump());
    });
  }
  if (n.max_length && v.is_string() && code_points(v.get<std::string>()) > n.max_length->get<size_t>()) {
    return fail(errors, at, "maxLength", [&] {
      return std::string("is " + std::to_string(code_points(v.get<std::string>())) + " characters long, more than " +
                         n.max_length->dump());
    });
  }
  if (n.pattern && v.is_string() && !std::regex_search(v.get<std::string>(), *n.pattern_regex)) {
    return fail(errors, at, "pattern", [&] { return std::string(v.dump() + " does not match " + n.pattern->dump()); });
  }
  return true;
}

bool SchemaValidator::validate_object(const ordered_json& v, const Node& n, const Place& at,
                                      std::vector<SchemaError>* errors) const {
  bool ok = true;
  if (n.required) {
    for (const auto& r : *n.required) {
      if (!v.contains(r.get<std::string>()))
        ok = fail(errors, at, "required",
                  [&] { return std::string("missing required field \"" + r.get<std::string>() + "\""); });
    }
  }
  for (const auto& [key, value] : v.items()) {
    const auto prop = n.has_properties ? n.properties.find(key) : n.properties.end();
    if (prop != n.properties.end()) {
      ok = validate(value, *prop->second, Place{&at, &key, 0}, errors) && ok;
    } else if (n.additional_properties) {
      const ordered_json& extra = *n.additional_properties;
      if (extra.is_boolean()) {
        if (!extra.get<bool>())
          ok = fail(errors, at, "additionalProperties",
                    [&] { return std::string("undocumented field \"" + key + "\""); }) &&
               ok;
      } else {
        ok = validate(value, extra, Place{&at, &key, 0}, errors) && ok;
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
