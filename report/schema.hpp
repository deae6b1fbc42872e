// The JSON schema of every record ea_iid writes (docs/ea_iid.schema.json, built into the
// library) and the one validator of it: the record reader (read_record) checks each row's
// fields' types and ranges with it, and tests/tools/validate_json checks every JSON the tests
// write. The validator knows the keywords that schema uses ($ref to #/$defs, type, const,
// enum, anyOf, oneOf, properties, required, additionalProperties, items, minimum, maximum,
// minItems, maxItems, pattern) and those NIST's ESV registration schemas use (draft-07's
// tuple `items`, an array of schemas, with additionalItems; minLength, maxLength; their
// "$schema" is only a keyword: one validator for both drafts' subsets, report/esv_check.hpp);
// a schema with any other keyword is refused when it is loaded.
#pragma once

#include <map>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace ea {

// One way a document differs from the schema: where (a JSON pointer, "" for the document),
// what ("missing required field \"x\"", "expected type ..., got ...") and the keyword that
// refused it ("required", "type", "maxLength", ...).
struct SchemaError {
  std::string pointer;
  std::string what;
  std::string keyword;
};

class SchemaValidator {
 public:
  // Throws Error{Input} for a schema that uses a keyword the validator does not know or a
  // $ref outside #/$defs.
  explicit SchemaValidator(nlohmann::ordered_json schema);
  // (Its index points into its own copy of the schema: neither copied nor moved.)
  SchemaValidator(const SchemaValidator&) = delete;
  SchemaValidator& operator=(const SchemaValidator&) = delete;

  // The errors of `doc` against the schema's root, or against `#/$defs/DEF` when `def` is
  // given; empty when it is valid. Of anyOf/oneOf alternatives none of which matches, the
  // errors of the one that fits best (the fewest errors). Thread-safe.
  std::vector<SchemaError> check(const nlohmann::ordered_json& doc, const std::string& def = "") const;
  bool has_def(const std::string& def) const;

  // Where a value is, as a JSON pointer made only for an error: its parent's place and its
  // key or index (the pointers of every value checked were most of a merge's allocations).
  struct Place {
    const Place* parent = nullptr;
    const std::string* key = nullptr;  // else `index`
    size_t index = 0;
    std::string pointer() const;
  };

 private:
  // A schema object's keywords found once (compile): a row's thousands of values are each
  // checked by pointers and a hash lookup, not by searching the schema's keys (an ordered
  // map's linear search: 58% of a merge's time before, session 49).
  struct Node {
    const nlohmann::ordered_json *type = nullptr, *constant = nullptr, *enumeration = nullptr, *any_of = nullptr,
                                 *one_of = nullptr, *required = nullptr, *additional_properties = nullptr,
                                 *items = nullptr, *additional_items = nullptr, *minimum = nullptr, *maximum = nullptr,
                                 *min_items = nullptr, *max_items = nullptr, *min_length = nullptr,
                                 *max_length = nullptr, *pattern = nullptr;
    unsigned types = 0;  // "type" as bits (schema.cpp's TypeBit)
    const std::regex* pattern_regex = nullptr;
    bool has_properties = false;
    std::unordered_map<std::string, const nlohmann::ordered_json*> properties;
  };
  static const Node kEmpty;  // a schema that is not an object (true, say): no keyword

  const nlohmann::ordered_json& resolve(const nlohmann::ordered_json& s) const;
  const Node& node(const nlohmann::ordered_json& s) const;
  bool validate(const nlohmann::ordered_json& v, const nlohmann::ordered_json& s, const Place& at,
                std::vector<SchemaError>* errors) const;
  bool validate_alternatives(const nlohmann::ordered_json& v, const Node& n, const Place& at,
                             std::vector<SchemaError>* errors) const;
  bool validate_value(const nlohmann::ordered_json& v, const Node& n, const Place& at,
                      std::vector<SchemaError>* errors) const;
  bool validate_object(const nlohmann::ordered_json& v, const Node& n, const Place& at,
                       std::vector<SchemaError>* errors) const;
  bool validate_items(const nlohmann::ordered_json& v, const Node& n, const Place& at,
                      std::vector<SchemaError>* errors) const;
  void compile(const nlohmann::ordered_json& s);
  void index(const nlohmann::ordered_json& s);

  nlohmann::ordered_json root_;
  std::map<std::string, std::regex> patterns_;                     // every "pattern", compiled once
  std::unordered_map<const nlohmann::ordered_json*, Node> nodes_;  // by schema object ($ref: its target's)
};

// docs/ea_iid.schema.json as built into the library (the schema of schemaVersion kSchemaVersion).
const SchemaValidator& record_schema();

}  // namespace ea
