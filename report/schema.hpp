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

  // The errors of `doc` against the schema's root, or against `#/$defs/DEF` when `def` is
  // given; empty when it is valid. Of anyOf/oneOf alternatives none of which matches, the
  // errors of the one that fits best (the fewest errors). Thread-safe.
  std::vector<SchemaError> check(const nlohmann::ordered_json& doc, const std::string& def = "") const;
  bool has_def(const std::string& def) const;

 private:
  const nlohmann::ordered_json& resolve(const nlohmann::ordered_json& s) const;
  bool validate(const nlohmann::ordered_json& v, const nlohmann::ordered_json& s, const std::string& at,
                std::vector<SchemaError>* errors) const;
  bool validate_alternatives(const nlohmann::ordered_json& v, const nlohmann::ordered_json& s, const std::string& at,
                             std::vector<SchemaError>* errors) const;
  bool validate_value(const nlohmann::ordered_json& v, const nlohmann::ordered_json& s, const std::string& at,
                      std::vector<SchemaError>* errors) const;
  bool validate_object(const nlohmann::ordered_json& v, const nlohmann::ordered_json& s, const std::string& at,
                       std::vector<SchemaError>* errors) const;
  bool validate_items(const nlohmann::ordered_json& v, const nlohmann::ordered_json& s, const std::string& at,
                      std::vector<SchemaError>* errors) const;
  void compile(const nlohmann::ordered_json& s);

  nlohmann::ordered_json root_;
  std::map<std::string, std::regex> patterns_;  // every "pattern", compiled once
};

// docs/ea_iid.schema.json as built into the library (the schema of schemaVersion kSchemaVersion).
const SchemaValidator& record_schema();

}  // namespace ea
