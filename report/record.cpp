#include "record.hpp"

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <optional>

#include "common/error.hpp"
#include "permutation/bucket_shuffle.hpp"
#include "report.hpp"
#include "schema.hpp"
#include "settings_fields.hpp"

namespace ea {

namespace {

using nlohmann::ordered_json;

// Typed access to a row's fields by dotted path; every failure names the row and the field.
class Fields {
 public:
  // `prefix`: where `root` is in the row ("nonIid."), put before every path a message names.
  Fields(const ordered_json& root, std::string where, std::string prefix = "")
      : root_(root), where_(std::move(where)), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw Error(ErrorKind::Input, where_ + ": " + (path.empty() ? "" : prefix_ + path + ": ") + what +
                                      " (not a row ea_iid wrote, or one that was edited or damaged)");
  }
  // The value at `path` ("a.b.0.c"), or null where any part is missing.
  const ordered_json* find(const ordered_json& from, const std::string& path) const {
    const ordered_json* at = &from;
    size_t pos = 0;
    while (pos <= path.size()) {
      const size_t dot = std::min(path.find('.', pos), path.size());
      const std::string key = path.substr(pos, dot - pos);
      pos = dot + 1;
      if (at->is_object()) {
        auto it = at->find(key);
        if (it == at->end()) return nullptr;
        at = &*it;
      } else if (at->is_array() && !key.empty() && key.find_first_not_of("0123456789") == std::string::npos &&
                 key.size() < 6 && std::stoul(key) < at->size()) {
        at = &(*at)[std::stoul(key)];
      } else {
        return nullptr;
      }
      if (dot == path.size()) break;
    }
    return at;
  }
  const ordered_json& get(const std::string& path, ordered_json::value_t type, const ordered_json* from = nullptr) const {
    const ordered_json* v = find(from ? *from : root_, path);
    if (!v) fail(path, "missing");
    const bool ok = type == ordered_json::value_t::number_unsigned ? v->is_number_unsigned()
                    : type == ordered_json::value_t::number_float  ? v->is_number()
                    : type == ordered_json::value_t::number_integer ? v->is_number_integer()
                                                                    : v->type() == type;
    if (!ok) fail(path, std::string("expected ") + type_name(type) + ", found " + v->type_name());
    return *v;
  }
  std::string str(const std::string& path, const ordered_json* from = nullptr) const {
    return get(path, ordered_json::value_t::string, from).get<std::string>();
  }
  bool flag(const std::string& path, const ordered_json* from = nullptr) const {
    return get(path, ordered_json::value_t::boolean, from).get<bool>();
  }
  uint64_t uint(const std::string& path, uint64_t max, const ordered_json* from = nullptr) const {
    const uint64_t v = get(path, ordered_json::value_t::number_unsigned, from).get<uint64_t>();
    if (v > max) fail(path, std::to_string(v) + " is out of range (at most " + std::to_string(max) + ")");
    return v;
  }
  int64_t integer(const std::string& path, int64_t min, int64_t max, const ordered_json* from = nullptr) const {
    const ordered_json& j = get(path, ordered_json::value_t::number_integer, from);
    if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(max)) {
      fail(path, std::to_string(j.get<uint64_t>()) + " is out of range (" + std::to_string(min) + " to " + std::to_string(max) + ")");
    }
    const int64_t v = j.get<int64_t>();
    if (v < min || v > max) fail(path, std::to_string(v) + " is out of range (" + std::to_string(min) + " to " + std::to_string(max) + ")");
    return v;
  }
  double number(const std::string& path, const ordered_json* from = nullptr) const {
    return get(path, ordered_json::value_t::number_float, from).get<double>();
  }
  const std::string& where() const { return where_; }

 private:
  static const char* type_name(ordered_json::value_t t) {
    switch (t) {
      case ordered_json::value_t::string: return "a string";
      case ordered_json::value_t::boolean: return "true or false";
      case ordered_json::value_t::number_unsigned: return "a non-negative integer";
      case ordered_json::value_t::number_integer: return "an integer";
      case ordered_json::value_t::number_float: return "a number";
      case ordered_json::value_t::array: return "an array";
      case ordered_json::value_t::object: return "an object";
      default: return "a value";
    }
  }
  const ordered_json& root_;
  std::string where_, prefix_;
};

// Two records of one computed double: equal but for the last bits (JSON keeps doubles
// exactly; the margin only spares a product recomputed here).
bool same_number(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b)); }

Verdict parse_verdict(const Fields& f, const std::string& path, const std::string& v) {
  if (v == "IID") return Verdict::Iid;
  if (v == "not IID") return Verdict::NotIid;
  if (v == "inconclusive") return Verdict::Inconclusive;
  f.fail(path, "'" + v + "' is not a verdict");
}

Check parse_check(const Fields& f, const std::string& path, const std::string& v) {
  for (Check c : {Check::Passed, Check::Failed, Check::Inconclusive}) {
    if (v == check_name(c)) return c;
  }
  f.fail(path, "'" + v + "' is not a result (passed, failed or inconclusive)");
}

void check_iid_headline(const Fields& f, const ordered_json& a, const std::string& prefix);

// The fields of one IID assessment that the reports and resume read (`a` is the row itself
// or a restart's "rows"/"columns"), and its verdict against its tests.
Verdict check_assessment(const Fields& f, const ordered_json& a, const std::string& prefix) {
  auto p = [&prefix](const std::string& s) { return prefix + s; };
  for (const auto& c : f.get("input.valueCounts", ordered_json::value_t::array, &a)) {
    if (c[0].get<uint64_t>() > 255) f.fail(p("input.valueCounts"), "expected [value, count] pairs with values 0-255");
  }
  const bool independence_evaluable = f.flag("chiSquare.independence.evaluable", &a);  // both checked
  const bool chi_evaluable = f.flag("chiSquare.goodnessOfFit.evaluable", &a) && independence_evaluable;
  const bool chi_failed = f.str("chiSquare.independence.result", &a) == "failed" || f.str("chiSquare.goodnessOfFit.result", &a) == "failed";
  const bool lrs = f.flag("longestRepeatedSubstring.passed", &a);
  if (f.flag("testCases.0.passedLongestRepeatedSubstringTest", &a) != lrs) {
    f.fail(p("testCases.0.passedLongestRepeatedSubstringTest"), "contradicts longestRepeatedSubstring.passed");
  }
  const bool perm = f.flag("permutation.passed", &a);
  bool perm_failed = false;
  for (const auto& test : f.get("permutation.tests", ordered_json::value_t::array, &a)) {
    perm_failed = perm_failed || test["result"] == "failed";
  }
  if (perm && perm_failed) f.fail(p("permutation.passed"), "contradicts the results of permutation.tests");
  const Verdict v = parse_verdict(f, p("verdict.result"), f.str("verdict.result", &a));
  if (f.flag("verdict.iid", &a) != (v == Verdict::Iid)) f.fail(p("verdict.iid"), "contradicts verdict.result");
  const bool failed = chi_failed || !lrs || perm_failed;
  if (failed != (v == Verdict::NotIid)) f.fail(p("verdict.result"), "contradicts the results of its tests");
  if (v == Verdict::Iid && (!chi_evaluable || !perm)) f.fail(p("verdict.result"), "IID although a test did not pass");
  if (const ordered_json* ni = f.find(a, "nonIid"); ni && !ni->is_null()) {  // the estimates after "not IID"
    if (v != Verdict::NotIid) f.fail(p("nonIid"), "non-IID estimates although the verdict is not 'not IID'");
    if (f.number("nonIid.hAssessed", &a) != f.number("assessedMinEntropy", &a)) {
      f.fail(p("assessedMinEntropy"), "contradicts nonIid.hAssessed");
    }
  }
  check_iid_headline(f, a, prefix);
  return v;
}

// A "nonIid" object (non_iid_estimates_json) `x`, named `prefix` in messages ("nonIid."):
// its ten estimators in order, H_original and H_bitstring the minima of what they say, and
// hAssessed min(width, H_original, width x H_bitstring).
void check_estimates(const Fields& parent, const ordered_json* x, const std::string& prefix, double width) {
  if (!x || !x->is_object()) parent.fail(prefix.substr(0, prefix.size() - 1), "expected an object");
  const Fields f(*x, parent.where(), prefix);
  const double assessed = f.number("hAssessed");
  double original = width, bitstring = 1.0;
  bool any_bitstring = false;
  const auto& list = f.get("estimators", ordered_json::value_t::array);
  if (list.size() != kNonIidEstimators) f.fail("estimators", "expected the 10 estimators");
  for (size_t e = 0; e < list.size(); ++e) {
    const std::string k = "estimators." + std::to_string(e) + ".";
    if (f.str(k + "estimator") != estimator_key(static_cast<NonIidEstimator>(e))) f.fail(k + "estimator", "out of order");
    for (const char* in : {"literal", "bitstring"}) {
      const ordered_json* one = f.find(*x, k + in);
      if (!one) f.fail(k + in, "missing");
      if (one->is_null()) continue;
      if (std::strcmp(in, "bitstring") == 0) any_bitstring = true;
      if (!f.flag(k + in + ".evaluated")) continue;
      const double h = f.number(k + in + ".minEntropy");
      double& low = std::strcmp(in, "bitstring") == 0 ? bitstring : original;
      low = std::min(low, h);
    }
  }
  // hAssessed first (the number anything reads), then the minima it is made of.
  const ordered_json* h_original = f.find(*x, "hOriginal");
  if (!h_original) f.fail("hOriginal", "missing");
  double expected = width;
  if (any_bitstring) expected = std::min(expected, bitstring * width);
  if (!h_original->is_null()) expected = std::min(expected, original);
  if (!same_number(assessed, expected)) f.fail("hAssessed", "contradicts the estimates in " + prefix + "estimators");
  if (!h_original->is_null() && !same_number(f.number("hOriginal"), original)) {
    f.fail("hOriginal", "contradicts the literal estimates");
  }
  const ordered_json* h_bitstring = f.find(*x, "hBitstring");
  if (!h_bitstring) f.fail("hBitstring", "missing");
  if (h_bitstring->is_null() != !any_bitstring) f.fail("hBitstring", "contradicts the bitstring estimates");
  if (any_bitstring) {
    if (!same_number(f.number("hBitstring"), bitstring)) f.fail("hBitstring", "contradicts the bitstring estimates");
    const ordered_json* per_symbol = f.find(*x, "hBitstringPerSymbol");
    if (per_symbol && !per_symbol->is_null() && !same_number(f.number("hBitstringPerSymbol"), bitstring * width)) {
      f.fail("hBitstringPerSymbol", "contradicts hBitstring");
    }
  }
}

// A non-IID result: the fields the reports read, and its minimum against its estimates
// (NIST's "Overall" test case says the same).
void check_non_iid(const Fields& f, const ordered_json& j) {
  const double width = static_cast<double>(f.integer("input.bitsPerSymbol", 1, 8));
  const double assessed = f.number("assessedMinEntropy");
  if (f.number("nonIid.hAssessed") != assessed) f.fail("nonIid.hAssessed", "contradicts assessedMinEntropy");
  const std::string overall = "testCases." + std::to_string(kNonIidEstimators) + ".";
  if (f.str(overall + "testCaseDesc") != "Overall") f.fail(overall + "testCaseDesc", "expected \"Overall\"");
  if (f.number(overall + "hAssessed") != assessed) f.fail(overall + "hAssessed", "contradicts assessedMinEntropy");
  check_estimates(f, f.find(j, "nonIid"), "nonIid.", width);
}

// The headline of an IID assessment (`a`, at `prefix` in the row): assessedMinEntropy and
// NIST's testCases[0].hAssessed are one number, the IID track's min(width, H_original,
// width x H_bitstring) of the MCV estimates it records; after a "not IID" verdict, the
// minimum of its non-IID estimates ("nonIid"), which include the same MCV estimates and so
// never exceed it.
void check_iid_headline(const Fields& f, const ordered_json& a, const std::string& prefix) {
  auto p = [&prefix](const std::string& s) { return prefix + s; };
  const double width = static_cast<double>(f.integer("input.bitsPerSymbol", 1, 8, &a));
  const double assessed = f.number("assessedMinEntropy", &a);
  if (f.number("testCases.0.hAssessed", &a) != assessed) f.fail(p("testCases.0.hAssessed"), "contradicts assessedMinEntropy");
  double iid = width;
  const bool original = !f.find(a, "estimates.hOriginal")->is_null();
  const bool bitstring = !f.find(a, "estimates.hBitstring")->is_null();
  const double h_original = original ? f.number("estimates.hOriginal.minEntropy", &a) : width;
  const double h_bitstring = bitstring ? f.number("estimates.hBitstring.minEntropy", &a) : 1.0;
  if (!original && !bitstring) f.fail(p("estimates"), "neither hOriginal nor hBitstring");
  if (original) iid = std::min(iid, h_original);
  if (bitstring) iid = std::min(iid, h_bitstring * width);
  // NIST's fields, with its placeholders where an estimate was not made.
  if (f.number("testCases.0.hOriginal", &a) != h_original) f.fail(p("testCases.0.hOriginal"), "contradicts estimates.hOriginal");
  if (f.number("testCases.0.hBitstring", &a) != h_bitstring) {
    f.fail(p("testCases.0.hBitstring"), "contradicts estimates.hBitstring");
  }
  const ordered_json* per_symbol = f.find(a, "estimates.hBitstringPerSymbol");
  if (per_symbol && (!bitstring || !same_number(f.number("estimates.hBitstringPerSymbol", &a), h_bitstring * width))) {
    f.fail(p("estimates.hBitstringPerSymbol"), "contradicts estimates.hBitstring");
  }
  const ordered_json* ni = f.find(a, "nonIid");
  if (ni && !ni->is_null()) {
    check_estimates(f, ni, p("nonIid."), width);
    if (assessed > iid && !same_number(assessed, iid)) {
      f.fail(p("assessedMinEntropy"), "above the IID track's min(H_original, width x H_bitstring) of its estimates");
    }
  } else if (!same_number(assessed, iid)) {
    f.fail(p("assessedMinEntropy"), "contradicts min(H_original, width x H_bitstring) of its estimates");
  }
}

// The numbers of a restart row whose sanity check passed: H_r and H_c those of its data sets
// (an IID claim: min(width, the MCV estimate of each), as NIST ea_restart -i), the result
// min(H_r, H_c, H_I), the validation min(H_r, H_c) >= H_I/2, NIST's "Overall" test case the
// same, and the result against them.
void check_restart_result(const Fields& f, bool iid_claim, Check c) {
  const double h_i = f.number("restart.hI"), h_r = f.number("restart.hR"), h_c = f.number("restart.hC");
  if (!(h_i > 0) || h_i > 8) f.fail("restart.hI", "out of range (greater than 0, at most 8)");
  const bool valid = std::min(h_r, h_c) >= h_i / 2.0;
  Check expected = valid ? Check::Passed : Check::Failed;
  if (iid_claim) {
    for (const char* part : {"rows", "columns"}) {
      const std::string e = std::string(part) + ".estimates.hOriginal.minEntropy", h = part[0] == 'r' ? "hR" : "hC";
      const double width = static_cast<double>(f.integer(std::string(part) + ".input.bitsPerSymbol", 1, 8));
      if (f.number("restart." + h) != std::min(width, f.number(e))) f.fail("restart." + h, "contradicts " + e);
      const Verdict set = parse_verdict(f, std::string(part) + ".verdict.result", f.str(std::string(part) + ".verdict.result"));
      if (set == Verdict::NotIid) expected = Check::Failed;
      if (set == Verdict::Inconclusive && expected == Check::Passed) expected = Check::Inconclusive;
    }
  }
  if (f.number("restart.result") != std::min(std::min(h_r, h_c), h_i)) f.fail("restart.result", "is not min(hR, hC, hI)");
  if (f.str("restart.validation") != (valid ? "passed" : "failed")) f.fail("restart.validation", "contradicts hR, hC and hI");
  if (c != expected) f.fail("verdict.result", "contradicts the validation and the data sets' verdicts");
  for (const auto& tc : f.get("testCases", ordered_json::value_t::array)) {
    if (!tc.is_object() || tc.value("testCaseDesc", ordered_json()) != "Overall") continue;
    for (const auto& [key, h] : {std::pair<const char*, double>{"h_r", h_r}, {"h_c", h_c}, {"h_i", h_i}}) {
      if (tc.contains(key) && (!tc[key].is_number() || tc[key].get<double>() != h)) {
        f.fail(std::string("testCases.Overall.") + key, "contradicts the restart object");
      }
    }
  }
}

// A restart row: its claim, its data sets' IID assessments or estimates, and its result.
void check_restart(const Fields& f, const ordered_json& j, Record& r) {
  r.kind = Record::Kind::Restart;
  const ordered_json& rs = f.get("restart", ordered_json::value_t::object);
  r.check = parse_check(f, "verdict.result", f.str("verdict.result"));
  if (f.flag("verdict.passed") != (*r.check == Check::Passed)) f.fail("verdict.passed", "contradicts verdict.result");
  const bool sane = rs["sanityCheck"] == "passed";
  // The claim: IID (the rows' and columns' IID tests) or non-IID (their estimates).
  const bool iid_claim = !rs.contains("claim") || f.str("restart.claim") == restart_claim_name(RestartClaim::Iid);
  if (!iid_claim && f.str("restart.claim") != restart_claim_name(RestartClaim::NonIid)) {
    f.fail("restart.claim", "expected \"IID\" or \"non-IID\"");
  }
  if (f.flag("IID") != iid_claim) f.fail("IID", "contradicts restart.claim");
  for (const char* part : {"rows", "columns"}) {
    const ordered_json* a = f.find(j, part);
    if (!a) f.fail(part, "missing");
    if (a->is_null()) {
      if (sane && iid_claim) f.fail(part, "null although the sanity check passed");
      continue;
    }
    if (!iid_claim) f.fail(part, "an IID assessment in a restart row for a non-IID claim");
    if (!a->is_object()) f.fail(part, "expected an object or null");
    check_assessment(f, *a, std::string(part) + ".");
  }
  for (const char* part : {"rowEstimates", "columnEstimates"}) {
    const ordered_json* x = f.find(j, part);
    const bool expected = sane && !iid_claim;
    if (!x || x->is_null()) {
      if (expected) f.fail(part, "missing although the sanity check passed");
      continue;
    }
    if (!expected) f.fail(part, "estimates in a restart row that has none");
    check_estimates(f, x, std::string(part) + ".", static_cast<double>(f.integer("input.bitsPerSymbol", 1, 8)));
  }
  if (!sane && *r.check != Check::Failed) f.fail("verdict.result", "not failed although the sanity check failed");
  if (sane && !iid_claim) {
    const double h_r = f.number("restart.hR"), h_c = f.number("restart.hC");
    if (h_r != f.number("rowEstimates.hOriginal")) f.fail("restart.hR", "contradicts rowEstimates.hOriginal");
    if (h_c != f.number("columnEstimates.hOriginal")) f.fail("restart.hC", "contradicts columnEstimates.hOriginal");
  }
  if (sane) check_restart_result(f, iid_claim, *r.check);
  r.for_compliance = f.flag("forCompliance");
  if (sane && iid_claim) r.user_seed = f.str("rows.permutation.userSeed");
}

// A batch row's "run" object: its place in the whole list, the list's digest and its share.
RunPlace run_place(const Fields& f, const ordered_json& j) {
  if (!f.find(j, "run")->is_object()) f.fail("run", "expected an object");
  RunPlace p;
  p.items = f.uint("run.items", UINT64_MAX);
  p.item = f.uint("run.item", UINT64_MAX);
  if (p.item >= p.items) f.fail("run.item", "item " + std::to_string(p.item) + " of " + std::to_string(p.items));
  if (f.find(j, "run.list")) p.list = f.str("run.list");
  const ordered_json* shard = f.find(j, "run.shard");
  if (!shard) f.fail("run.shard", "missing");
  if (!shard->is_null()) {
    const uint64_t count = f.uint("run.shard.count", UINT64_MAX);
    if (count == 0) f.fail("run.shard.count", "0 shares");
    p.shard = std::make_pair(f.uint("run.shard.index", count - 1), count);
  }
  return p;
}

// The schema's definition a row is read against: by its type, errorLevel and "skipped".
std::string schema_def_of(const Fields& f, const ordered_json& j) {
  const std::string type = f.str("type");
  if (j.contains("skipped")) return "skipped";
  if (type == track_name(Track::Restart) && j.contains("restart")) return "restart";
  const ordered_json* level = f.find(j, "errorLevel");
  if (level && level->is_number_integer() && level->get<int64_t>() != 0) return "error";
  if (type == track_name(Track::Iid)) return "assessment";
  if (type == track_name(Track::NonIid)) return "nonIid";
  if (type == "Source") return "source";
  if (type == "Conditioning") return "conditioning";
  f.fail("type", "'" + type + "' is not a result ea_iid reads (IID, Non-IID, Restart, Source or Conditioning)");
}

// The row against its definition in the schema (types, ranges, required and undocumented
// fields): the first difference, named by its field.
void check_schema(const Fields& f, const ordered_json& j, const std::string& def) {
  const std::vector<SchemaError> errors = record_schema().check(j, def);
  if (errors.empty()) return;
  std::string path = errors[0].pointer.empty() ? "" : errors[0].pointer.substr(1), what = errors[0].what;
  for (char& c : path) c = c == '/' ? '.' : c;
  for (const char* lead : {"missing required field \"", "undocumented field \""}) {  // name the field itself
    if (what.rfind(lead, 0) != 0) continue;
    path += (path.empty() ? "" : ".") + what.substr(std::strlen(lead), what.size() - std::strlen(lead) - 1);
    what = lead[0] == 'm' ? "missing" : "not a field of this kind of row";
  }
  if (errors.size() > 1) what += " (and " + std::to_string(errors.size() - 1) + " more)";
  f.fail(path, what);
}

// One step of a source row (`key` of "steps", a whole record), read as a row of its own.
Record read_step(const Fields& f, const ordered_json& step, const std::string& key) {
  return read_record(step, f.where() + ": " + key);
}

// A source row: each step read as a record, the flow against them, the result against its
// failed steps.
void check_source(const Fields& f, const ordered_json& j, Record& r) {
  r.kind = Record::Kind::Source;
  const Record seq = read_step(f, j["steps"]["sequential"], "steps.sequential");
  r.verdict = seq.verdict;
  const ordered_json& verdict = j["flow"]["verdict"];
  if (verdict.is_null() != !seq.verdict ||
      (seq.verdict && parse_verdict(f, "flow.verdict", verdict.get<std::string>()) != *seq.verdict)) {
    f.fail("flow.verdict", "contradicts steps.sequential's verdict");
  }
  if (!j["steps"]["estimates"].is_null()) read_step(f, j["steps"]["estimates"], "steps.estimates");
  const ordered_json& restart = j["steps"]["restart"];
  if (restart.is_null() != j["flow"]["restart"].is_null()) f.fail("flow.restart", "contradicts steps.restart");
  if (!restart.is_null()) {
    const Record rs = read_step(f, restart, "steps.restart");
    if (rs.kind != Record::Kind::Restart || j["flow"]["restart"]["result"] != check_name(*rs.check)) {
      f.fail("flow.restart.result", "contradicts steps.restart");
    }
  }
  const ordered_json& chain = j["steps"]["conditioning"];
  if (chain.is_null() != j["flow"]["conditioning"].empty()) f.fail("steps.conditioning", "contradicts flow.conditioning");
  if (chain.is_array()) {
    if (chain.size() != j["flow"]["conditioning"].size()) f.fail("steps.conditioning", "contradicts flow.conditioning");
    for (size_t k = 0; k < chain.size(); ++k) {
      if (!chain[k].is_null()) read_step(f, chain[k], "steps.conditioning." + std::to_string(k));
    }
  }
  r.check = f.flag("passed") ? Check::Passed : Check::Failed;
  if ((*r.check == Check::Passed) != j["failed"].empty()) f.fail("passed", "contradicts failed");
  r.for_compliance = f.flag("forCompliance");
  if (r.for_compliance != j["complianceNotes"].empty()) f.fail("forCompliance", "contradicts complianceNotes");
  if (j["userSeed"].is_string()) r.user_seed = j["userSeed"].get<std::string>();
}

// A conditioning row: NIST's test case and the "conditioning" object are one computation,
// h_out at most n_out, and the conditioned data's estimates (when given) a record of its own.
void check_conditioning(const Fields& f, const ordered_json& j, Record& r) {
  r.kind = Record::Kind::Conditioning;
  r.for_compliance = true;  // a calculation: nothing in it speaks against a submission
  for (const auto& [nist, ours] : {std::pair<const char*, const char*>{"h_in", "hIn"}, {"h_out", "hOut"}, {"n_in", "nIn"},
                                   {"n_out", "nOut"}, {"nw", "nwUsed"}}) {
    if (f.number(std::string("testCases.0.") + nist) != f.number(std::string("conditioning.") + ours)) {
      f.fail(std::string("testCases.0.") + nist, std::string("contradicts conditioning.") + ours);
    }
  }
  if (f.number("conditioning.hOut") > f.number("conditioning.nOut")) f.fail("conditioning.hOut", "above nOut");
  if (!j["conditioned"].is_null()) read_step(f, j["conditioned"], "conditioned");
}

// The file a row is of: input.path, else filename; a name that is not UTF-8 exactly from
// filenameBytes.
std::string path_of(const Fields& f, const ordered_json& j) {
  std::string path = f.str("filename");
  if (const ordered_json* p = f.find(j, "input.path")) path = p->get<std::string>();
  if (!f.find(j, "filenameBytes")) return path;
  const std::string hex = f.str("filenameBytes");
  std::string name;
  auto nibble = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    const int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) break;
    name += static_cast<char>(hi * 16 + lo);
  }
  if (hex.empty() || hex.size() % 2 || name.size() * 2 != hex.size() || valid_utf8(name)) {
    f.fail("filenameBytes", "expected the hexadecimal bytes of a name that is not UTF-8");
  }
  return name;
}

// The seed a row records: its assessment's, its batch place's (the two must agree).
void read_seed(const Fields& f, const ordered_json& j, Record& r) {
  const ordered_json* run_seed = f.find(j, "run.userSeed");
  if (!run_seed || run_seed->is_null()) return;
  if (r.user_seed && *r.user_seed != run_seed->get<std::string>()) {
    f.fail("run.userSeed", "contradicts the row's own seed (userSeed, permutation.userSeed)");
  }
  r.user_seed = run_seed->get<std::string>();
}

}  // namespace

Record read_record(ordered_json j, const std::string& where) {
  const Fields f(j, where);
  if (!j.is_object()) f.fail("", "not a JSON object");
  const std::string def = schema_def_of(f, j);
  check_schema(f, j, def);
  Record r;
  r.path = path_of(f, j);
  if (f.find(j, "input.block")) r.block = f.integer("input.block", 0, INT64_MAX);
  if (def == "skipped") {
    r.kind = Record::Kind::Skipped;
  } else if (def == "restart") {
    check_restart(f, j, r);
  } else if (def == "error") {
    r.kind = Record::Kind::Error;
    r.degenerate = j["errorKind"] == "degenerate";
  } else if (def == "nonIid") {
    r.kind = Record::Kind::NonIid;
    check_non_iid(f, j);
    r.for_compliance = f.flag("forCompliance");
  } else if (def == "source") {
    check_source(f, j, r);
  } else if (def == "conditioning") {
    check_conditioning(f, j, r);
  } else {
    r.kind = Record::Kind::Assessment;
    r.verdict = check_assessment(f, j, "");
    r.for_compliance = f.flag("forCompliance");
    r.user_seed = f.str("permutation.userSeed");
  }
  read_seed(f, j, r);
  if (f.find(j, "run")) r.run = run_place(f, j);
  r.row = row_of_json(j);
  r.json = std::move(j);
  return r;
}

namespace {

// An IID assessment whose permutations this ea_iid would make by another shuffle (one of an
// ea_iid before issue 48's bucket shuffle, c12ea72: its counters cannot be reproduced here,
// so its row cannot stand beside rows made now as one run). `what` names the assessment
// inside the row ("" for the row itself). Assessments without the fields are left to the
// schema's checks.
void check_assessment_shuffle(const ordered_json* a, const std::string& at, const std::string& what) {
  if (!a || !a->is_object()) return;
  const auto perm = a->find("permutation");
  const auto input = a->find("input");
  const auto cases = a->find("testCases");
  if (perm == a->end() || input == a->end() || cases == a->end() || !perm->is_object() || !input->is_object() ||
      !cases->is_array() || cases->empty() || !(*cases)[0].is_object()) {
    return;
  }
  const auto prng = perm->find("prng"), shuffle = perm->find("shuffle");
  const auto samples = input->find("samples"), binary = (*cases)[0].find("binary");
  if (prng == perm->end() || shuffle == perm->end() || samples == input->end() || binary == (*cases)[0].end() ||
      !prng->is_string() || !shuffle->is_string() || !samples->is_number_unsigned() || !binary->is_boolean()) {
    return;
  }
  const std::optional<PrngId> id = parse_prng(prng->get<std::string>());
  if (!id) return;
  // The shuffle the row asked for (--shuffle; a row without the key: before it, the bucket
  // shuffle's rule). A value this ea_iid does not know is the schema's error, not this one's.
  std::optional<ShuffleChoice> choice = ShuffleChoice::Bucket;
  const auto asked = perm->find("shuffleChoice");
  if (asked != perm->end()) choice = asked->is_string() ? parse_shuffle_choice(asked->get<std::string>()) : std::nullopt;
  if (!choice) return;
  const std::string now = engine_shuffle_name(*id, samples->get<uint64_t>(), binary->get<bool>(), *choice);
  if (shuffle->get<std::string>() != now) {
    throw Error(ErrorKind::Input, at + what + "its permutations were made by \"" + shuffle->get<std::string>() +
                                      "\", where this ea_iid makes them by \"" + now +
                                      "\" (a row of an older ea_iid: its counters cannot be reproduced by this one); "
                                      "rows of one run only: remove that line (or the file) and run again, or finish "
                                      "the run with the ea_iid that wrote it");
  }
}

}  // namespace

void check_row_shuffle(const Record& row, const std::string& at) {
  auto member = [](const ordered_json* o, const char* key) -> const ordered_json* {
    if (!o || !o->is_object()) return nullptr;
    const auto it = o->find(key);
    return it == o->end() ? nullptr : &*it;
  };
  const ordered_json* j = &row.json;
  if (row.kind == Record::Kind::Assessment) check_assessment_shuffle(j, at, "");
  if (row.kind == Record::Kind::Restart) {
    check_assessment_shuffle(member(j, "rows"), at, "rows: ");
    check_assessment_shuffle(member(j, "columns"), at, "columns: ");
  }
  if (row.kind == Record::Kind::Source) {
    const ordered_json* steps = member(j, "steps");
    check_assessment_shuffle(member(steps, "sequential"), at, "steps.sequential: ");
    check_assessment_shuffle(member(member(steps, "restart"), "rows"), at, "steps.restart.rows: ");
    check_assessment_shuffle(member(member(steps, "restart"), "columns"), at, "steps.restart.columns: ");
  }
}

void check_same_run(const Record& row, const std::string& where, RunIdentity& id, const std::string& who) {
  const std::string at = who + ": " + where + ": ";
  if (!row.run) throw Error(ErrorKind::Input, at + "not a line of ea_iid --jsonl (no valid \"run\" field)");
  if (!row.run->list) {
    throw Error(ErrorKind::Input, at + "run.list is missing (a share written by an older ea_iid, or edited); run that "
                                       "share again");
  }
  auto same = [&at, &id](auto& first, const auto& now, const char* what, auto text) {
    if (first && *first != now) {
      throw Error(ErrorKind::Input, at + what + " " + text(now) + " differs from " + id.set_by + " " + text(*first) +
                                        "; rows of one run only");
    }
    first = now;
  };
  const auto as_is = [](const std::string& s) { return s; };
  const auto number = [](uint64_t n) { return std::to_string(n); };
  same(id.list, *row.run->list, "the list digest (the files in their order, -l, --blocks)", as_is);
  if (!row.user_seed) throw Error(ErrorKind::Input, at + "the row records no seed");
  same(id.seed, *row.user_seed, "--seed", as_is);
  same(id.items, row.run->items, "the list's length", number);
  same(id.shares, row.run->shares(), "the number of shares", number);
  check_row_shuffle(row, at);
  // The assessments' result-changing settings (a restart row's are in its "rows").
  const bool non_iid = row.kind == Record::Kind::NonIid;
  const ordered_json* a = row.kind == Record::Kind::Assessment || non_iid ? &row.json
                          : row.kind == Record::Kind::Restart && row.json["rows"].is_object() ? &row.json["rows"]
                                                                                             : nullptr;
  if (!a) return;
  for (const SettingField& f : settings_fields()) {
    const char* path = f.record_in(non_iid);
    if (f.effect != SettingEffect::Result || !path || f.per_item) continue;
    const std::string now = recorded_setting(*a, f, path);
    auto [it, fresh] = id.settings.emplace(f.option, now);
    if (fresh) continue;
    if (it->second != now) {
      throw Error(ErrorKind::Input, at + setting_in_record(f, path) + " is " + now + " where " +
                                        id.settings_from.value_or("the first line") + " has " + it->second +
                                        "; rows of one run only");
    }
  }
  if (!id.settings_from) id.settings_from = where;
}

Record record_of(const ItemResult& res, const std::string& path, int64_t block, const ReportOptions& o) {
  Record r = read_record(result_json(res, path, block, o), path);
  if (res.status != ItemResult::Status::Skipped) r.row.seconds = fmt("%.2f", res.seconds);
  return r;
}

JsonlRows read_jsonl_rows(const std::string& path, Interrupt interrupt) {
  JsonlRows out;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return out;  // a missing file is empty
  if (!S_ISREG(st.st_mode)) {
    // Opening a FIFO to read would wait for a writer (forever): refused at once.
    throw Error(ErrorKind::Input, path + ": not a regular file; results are read back from regular files only");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  // Read in blocks, the flag looked at between them (a character at a time through
  // istreambuf_iterator took 2 s for 20 MB under the sanitizers, deaf to SIGINT).
  std::string text;
  constexpr size_t kBlock = size_t{1} << 20;
  for (size_t got = 0;; got = text.size()) {
    throw_if_interrupted(interrupt);
    text.resize(got + kBlock);
    in.read(&text[got], static_cast<std::streamsize>(kBlock));
    text.resize(got + static_cast<size_t>(in.gcount()));
    if (!in) break;
  }
  if (in.bad()) throw Error(ErrorKind::Input, path + ": cannot be read");
  out.bytes = text.size();
  // The whole lines (a last one without its newline was cut off while it was written).
  std::vector<std::pair<size_t, size_t>> spans;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at);
    if (end == std::string::npos) {
      out.torn = true;
      break;
    }
    spans.emplace_back(at, end);
    at = end + 1;
  }
  // Read on every core (parsing and the schema's checks are nearly all of a merge's time:
  // 6,000 rows of 9.5 KB 2.2-2.5 s on one thread, session 49); the first bad line is the
  // one reported, as when read in order.
  const int64_t n = static_cast<int64_t>(spans.size());
  std::vector<std::optional<Record>> rows(spans.size());
  std::vector<std::exception_ptr> errors(spans.size());
#pragma omp parallel for schedule(dynamic, 8)
  for (int64_t i = 0; i < n; ++i) {
    if (interrupt_requested(interrupt)) continue;
    const std::string where = path + ":" + std::to_string(i + 1);
    try {
      auto j = ordered_json::parse(text.begin() + static_cast<std::ptrdiff_t>(spans[i].first),
                                   text.begin() + static_cast<std::ptrdiff_t>(spans[i].second), nullptr, false);
      if (j.is_discarded()) throw Error(ErrorKind::Input, where + ": not a JSON line (not a file ea_iid --jsonl wrote?)");
      rows[i] = read_record(std::move(j), where);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  }
  throw_if_interrupted(interrupt);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    out.rows.push_back(std::move(*rows[i]));
    out.lines.push_back(i + 1);
  }
  return out;
}

std::string recorded_text(const ordered_json& j, const std::string& path) {
  const ordered_json* at = &j;
  for (size_t pos = 0; pos <= path.size();) {
    const size_t dot = std::min(path.find('.', pos), path.size());
    if (!at->is_object()) return "";
    const auto it = at->find(path.substr(pos, dot - pos));
    if (it == at->end()) return "";
    at = &*it;
    pos = dot + 1;
  }
  return at->is_string() ? at->get<std::string>() : at->dump();
}

std::string recorded_setting(const ordered_json& j, const SettingField& f, const std::string& path) {
  std::string text = recorded_text(j, path);
  if (text.empty() && f.absent) text = f.absent;
  return text;
}

void Tally::add(const Record& r) {
  switch (r.kind) {
    case Record::Kind::Skipped: ++skipped; return;
    case Record::Kind::Error:
      ++errors;
      if (r.degenerate) ++degenerate;
      return;
    default: break;
  }
  ++results;
  not_compliant = not_compliant || !r.for_compliance;
  if (r.check) {  // a restart row: passed, failed or inconclusive
    ++judged;
    failed = failed || *r.check == Check::Failed;
    inconclusive = inconclusive || *r.check == Check::Inconclusive;
    return;
  }
  if (!r.verdict) return;  // a non-IID result: no IID verdict
  ++judged;
  not_iid = not_iid || *r.verdict == Verdict::NotIid;
  inconclusive = inconclusive || *r.verdict == Verdict::Inconclusive;
}

}  // namespace ea
