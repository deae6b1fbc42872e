// The schema validator (report/schema.hpp) on small schemas, the schema built into the
// library, and the record reader's conditioning rows (a result kind the reader knows since
// issue 45: read against the schema, then its own numbers against each other).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "common/error.hpp"
#include "conditioning.hpp"
#include "esv_package.hpp"
#include "esv_check.hpp"
#include "record.hpp"
#include "report.hpp"
#include "schema.hpp"

using namespace ea;
using nlohmann::ordered_json;

namespace {

std::string first_error(const SchemaValidator& v, const ordered_json& doc) {
  const auto errors = v.check(doc);
  return errors.empty() ? std::string() : errors[0].pointer + ": " + errors[0].what;
}

}  // namespace

TEST_CASE("schema validator: types, bounds, required and undocumented fields, with their JSON pointers") {
  const SchemaValidator v(ordered_json::parse(R"({
    "type": "object", "additionalProperties": false, "required": ["n"],
    "properties": {
      "n": {"type": "integer", "minimum": 1, "maximum": 8},
      "s": {"type": "string", "pattern": "^[0-9a-f]{4}$"},
      "pair": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"$ref": "#/$defs/count"}},
      "either": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/count"}]}
    },
    "$defs": {"count": {"type": "integer", "minimum": 0}}})"));
  CHECK(first_error(v, ordered_json::parse(R"({"n": 3, "s": "00ff", "pair": [1, 2], "either": null})")).empty());
  CHECK(first_error(v, ordered_json::parse(R"({"n": 9})")) == "/n: 9 is above the maximum 8");
  CHECK(first_error(v, ordered_json::parse(R"({"n": 0})")) == "/n: 0 is below the minimum 1");
  CHECK(first_error(v, ordered_json::parse(R"({"n": 2.5})")).find("/n: expected type \"integer\"") == 0);
  CHECK(first_error(v, ordered_json::parse(R"({})")) == ": missing required field \"n\"");
  CHECK(first_error(v, ordered_json::parse(R"({"n": 1, "x": 1})")) == ": undocumented field \"x\"");
  CHECK(first_error(v, ordered_json::parse(R"({"n": 1, "s": "00fg"})")) == "/s: \"00fg\" does not match \"^[0-9a-f]{4}$\"");
  CHECK(first_error(v, ordered_json::parse(R"({"n": 1, "pair": [1]})")) == "/pair: fewer than 2 items");
  CHECK(first_error(v, ordered_json::parse(R"({"n": 1, "pair": [1, -1]})")) == "/pair/1: -1 is below the minimum 0");
  CHECK(first_error(v, ordered_json::parse(R"({"n": 1, "either": -4})")) == "/either: -4 is below the minimum 0");
  CHECK_THROWS_AS(SchemaValidator(ordered_json::parse(R"({"type": "object", "if": {}})")), Error);  // a keyword it does not know
  CHECK_THROWS_AS(SchemaValidator(ordered_json::parse(R"({"$ref": "#/elsewhere"})")), Error);
}

TEST_CASE("schema validator: draft-07's tuple items with additionalItems, and string lengths in characters") {
  const SchemaValidator v(ordered_json::parse(R"({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "array", "additionalItems": false,
    "items": [{"type": "object", "required": ["v"], "properties": {"v": {"const": "1.0"}}},
              {"type": "string", "minLength": 2, "maxLength": 4}]})"));
  CHECK(first_error(v, ordered_json::parse(R"([{"v": "1.0"}, "abcd"])")).empty());
  CHECK(first_error(v, ordered_json::parse(R"([{"v": "1.0"}])")).empty());  // tuple items do not make the elements required
  CHECK(first_error(v, ordered_json::parse(R"([{"v": "2.0"}, "ab"])")) == "/0/v: expected \"1.0\", found \"2.0\"");
  CHECK(first_error(v, ordered_json::parse(R"([{}, "ab"])")) == "/0: missing required field \"v\"");
  CHECK(first_error(v, ordered_json::parse(R"([{"v": "1.0"}, "abcde"])")) == "/1: is 5 characters long, more than 4");
  CHECK(first_error(v, ordered_json::parse(R"([{"v": "1.0"}, "a"])")) == "/1: is 1 characters long, fewer than 2");
  CHECK(first_error(v, ordered_json::parse("[{\"v\": \"1.0\"}, \"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"]")).empty());  // 4 characters, 8 bytes
  CHECK(first_error(v, ordered_json::parse(R"([{"v": "1.0"}, "ab", 3])")) == ": more than 2 items");
  const SchemaValidator extra(ordered_json::parse(R"({"items": [{"type": "string"}], "additionalItems": {"type": "integer"}})"));
  CHECK(first_error(extra, ordered_json::parse(R"(["a", 1, 2])")).empty());
  CHECK(first_error(extra, ordered_json::parse(R"(["a", 1, "b"])")).find("/2: expected type \"integer\"") == 0);
  const SchemaValidator open(ordered_json::parse(R"({"items": [{"type": "string"}]})"));
  CHECK(first_error(open, ordered_json::parse(R"(["a", 1, {}])")).empty());  // without additionalItems, anything past the tuple
}

TEST_CASE("NIST's ESV schemas built into the library: the protocol's example passes 38490704 and fails 4b69a04c only for its defects") {
  // A registration like P L99-138's (its shape and its two components' kinds; docs/esv-notes.md
  // "Validation results": valid under 38490704, under 4b69a04c refused for alphabetSize, itar and
  // the vetted component's bijectiveClaim).
  const ordered_json p = ordered_json::parse(R"([{"esvVersion": "1.0"}, {
    "primaryNoiseSource": "ring oscillator", "iidClaim": false, "bitsPerSample": 8, "hminEstimate": 7.5,
    "physical": true, "numberOfRestarts": 1000, "samplesPerRestart": 1000, "additionalNoiseSources": false,
    "numberOfOEs": 1, "conditioningComponent": [
      {"sequencePosition": 1, "vetted": false, "bijectiveClaim": false, "description": "xor", "minNin": 8,
       "minHin": 4, "nw": 8, "nOut": 8, "hOut": 7.5},
      {"sequencePosition": 2, "vetted": true, "description": "SHA2-256", "validationNumber": "A1", "minNin": 512,
       "minHin": 4, "nw": 256, "nOut": 256, "hOut": 120}]}])");
  CHECK(esv_schema_sn().check(p).empty());
  std::vector<std::string> s18;
  for (const SchemaError& e : esv_schema_s18().check(p)) s18.push_back(e.pointer + " " + e.keyword + " " + e.what);
  CHECK(s18 == std::vector<std::string>{"/1 required missing required field \"alphabetSize\"",
                                        "/1 required missing required field \"itar\"",
                                        "/1/conditioningComponent/1 required missing required field \"bijectiveClaim\""});
  // The same through the findings: S18's defects are notes; the example breaks the server's
  // inequalities (docs/esv-notes.md: not a fixture that must pass), each an error naming its script.
  std::vector<std::string> errors;
  size_t notes = 0;
  for (const EsvFinding& f : check_registration(p, "ex")) {
    if (f.severity == EsvSeverity::Note) ++notes;
    if (f.severity == EsvSeverity::Error) errors.push_back(esv_finding_text(f));
  }
  CHECK(notes == 3);
  REQUIRE(errors.size() == 2);
  CHECK(errors[0] == "ex: registration.json: conditioningComponent[0].hOut: hOut = 7.5, minHin = 4: hOut < minHin does not "
                     "hold (hOut < minHin (non-vetted, not bijective); server rule NonVetted/nonBijective.json)");
  CHECK(errors[1] == "ex: registration.json: conditioningComponent[1].hOut: hOut = 120, minHin = 4: hOut <= minHin does not "
                     "hold (hOut <= minHin (vetted); server rule Vetted/nonBijective.json)");
  ordered_json bad = p;
  bad[1]["conditioningComponent"][1]["sequencePosition"] = 3;
  bool named = false;
  for (const EsvFinding& f : check_registration(bad, "ex")) {
    named = named || esv_finding_text(f) == "ex: registration.json: conditioningComponent[1].sequencePosition: 3 where 2 "
                                            "was expected (positions run 1..n in the array's order; protocol)";
  }
  CHECK(named);
}

TEST_CASE("the schema built into the library is docs/ea_iid.schema.json, with a definition per result kind") {
  for (const char* def : {"assessment", "nonIid", "restart", "error", "skipped", "source", "conditioning", "healthTests"}) {
    CHECK(record_schema().has_def(def));
  }
  CHECK_FALSE(record_schema().check(ordered_json::object()).empty());
}

TEST_CASE("conditioning rows: read as a result kind; NIST's test case against the conditioning object") {
  ConditioningInput in;
  in.n_in = 1024;
  in.n_out = 256;
  in.nw = 256;
  in.h_in = 800;
  Settings s;
  ReportOptions o;
  o.started = "20261128000000";
  o.command_line = "ea_iid conditioning";
  const ordered_json good = conditioning_json(assess_conditioning(in, std::nullopt, false, s), o);
  const Record r = read_record(good, "c.json");
  CHECK(r.kind == Record::Kind::Conditioning);
  CHECK(r.result());
  CHECK(r.row.verdict == "conditioning (vetted)");
  ordered_json edited = good;
  edited["testCases"][0]["h_out"] = 255.0;
  try {
    read_record(edited, "c.json");
    FAIL("an edited h_out was read");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("c.json: testCases.0.h_out: contradicts conditioning.hOut") == 0);
  }
  edited = good;
  edited["conditioning"]["hOut"] = edited["testCases"][0]["h_out"] = 300.0;
  CHECK_THROWS_WITH_AS(read_record(edited, "c.json"), doctest::Contains("conditioning.hOut: above nOut"), Error);
}

TEST_CASE("esv_registration: a non-vetted, non-bijective component's hOut stays below minHin (the server's strict rule)") {
  ManifestSource m;
  m.spec.name = "s";
  SourceConditioning c;
  c.vetted = false;
  c.n_in = c.n_out = c.nw = 64;
  m.spec.conditioning.push_back(c);
  ordered_json record = {{"type", "Source"},
                         {"flow",
                          {{"bitsPerSample", 1},
                           {"hValidated", 0.2},
                           {"track", "non-IID"},
                           {"conditioning", ordered_json::array({{{"hIn", 12.5}, {"hOut", 12.5}}})}}}};
  ordered_json r = esv_registration(m, record);
  const ordered_json& comp = r[1]["conditioningComponent"][0];
  CHECK(comp["minHin"].get<double>() == 12.5);
  CHECK(comp["hOut"].get<double>() < 12.5);
  CHECK(comp["hOut"].get<double>() == std::nextafter(12.5, 0.0));
  m.spec.conditioning[0].bijective = true;  // bijective: hOut == minHin is the rule
  CHECK(esv_registration(m, record)[1]["conditioningComponent"][0]["hOut"].get<double>() == 12.5);
  record["flow"]["conditioning"][0]["hOut"] = 10.0;  // below: as assessed
  m.spec.conditioning[0].bijective = false;
  CHECK(esv_registration(m, record)[1]["conditioningComponent"][0]["hOut"].get<double>() == 10.0);
}
