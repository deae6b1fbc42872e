#include "record.hpp"

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "common/error.hpp"
#include "report.hpp"

namespace ea {

namespace {

using nlohmann::ordered_json;

// Typed access to a row's fields by dotted path; every failure names the row and the field.
class Fields {
 public:
  Fields(const ordered_json& root, std::string where) : root_(root), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw Error(ErrorKind::Input, where_ + ": " + (path.empty() ? "" : path + ": ") + what +
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
  // A number or null.
  void number_or_null(const std::string& path, const ordered_json* from = nullptr) const {
    const ordered_json* v = find(from ? *from : root_, path);
    if (!v) fail(path, "missing");
    if (!v->is_null() && !v->is_number()) fail(path, std::string("expected a number or null, found ") + v->type_name());
  }
  void strings(const std::string& path, const ordered_json* from = nullptr) const {
    for (const auto& s : get(path, ordered_json::value_t::array, from)) {
      if (!s.is_string()) fail(path, "expected an array of strings");
    }
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
  std::string where_;
};

Verdict parse_verdict(const Fields& f, const std::string& path, const std::string& v, bool restart) {
  if (v == (restart ? "passed" : "IID")) return Verdict::Iid;
  if (v == (restart ? "failed" : "not IID")) return Verdict::NotIid;
  if (v == "inconclusive") return Verdict::Inconclusive;
  f.fail(path, "'" + v + "' is not a verdict");
}

// The fields of one IID assessment that the reports and resume read (`a` is the row itself
// or a restart's "rows"/"columns"), and its verdict against its tests.
Verdict check_assessment(const Fields& f, const ordered_json& a, const std::string& prefix) {
  auto p = [&prefix](const std::string& s) { return prefix + s; };
  f.str("filename", &a);
  f.str("sha256", &a);
  f.str("input.path", &a);
  f.uint("input.samples", UINT64_MAX, &a);
  f.integer("input.bitsPerSymbol", 1, 8, &a);
  const ordered_json* subset = f.find(a, "input.subset");
  if (!subset) f.fail(p("input.subset"), "missing");
  if (!subset->is_null()) {
    f.uint("input.subset.index", UINT64_MAX, &a);
    f.uint("input.subset.count", UINT64_MAX, &a);
  }
  for (const auto& c : f.get("input.valueCounts", ordered_json::value_t::array, &a)) {
    if (!c.is_array() || c.size() != 2 || !c[0].is_number_unsigned() || c[0].get<uint64_t>() > 255 ||
        !c[1].is_number_unsigned()) {
      f.fail(p("input.valueCounts"), "expected [value, count] pairs with values 0-255");
    }
  }
  f.str("estimates.mode", &a);
  f.flag("estimates.bitstringTruncated", &a);
  for (const char* e : {"estimates.hOriginal", "estimates.hBitstring"}) {
    const ordered_json* v = f.find(a, e);
    if (!v) f.fail(p(e), "missing");
    if (!v->is_null()) f.number(std::string(e) + ".minEntropy", &a);
  }
  f.number("assessedMinEntropy", &a);
  f.flag("forCompliance", &a);
  f.strings("complianceNotes", &a);
  f.flag("testCases.0.passedChiSquareTests", &a);
  const bool independence_evaluable = f.flag("chiSquare.independence.evaluable", &a);  // both checked
  const bool chi_evaluable = f.flag("chiSquare.goodnessOfFit.evaluable", &a) && independence_evaluable;
  const bool chi_failed = f.str("chiSquare.independence.result", &a) == "failed" || f.str("chiSquare.goodnessOfFit.result", &a) == "failed";
  const bool lrs = f.flag("longestRepeatedSubstring.passed", &a);
  if (f.flag("testCases.0.passedLongestRepeatedSubstringTest", &a) != lrs) {
    f.fail(p("testCases.0.passedLongestRepeatedSubstringTest"), "contradicts longestRepeatedSubstring.passed");
  }
  const bool perm = f.flag("permutation.passed", &a);
  f.str("permutation.userSeed", &a);
  f.str("permutation.seed", &a);
  f.str("permutation.prng", &a);
  f.uint("permutation.iterations", UINT32_MAX, &a);
  f.flag("permutation.earlyExit", &a);
  f.flag("permutation.allTests", &a);
  bool perm_failed = false;
  const auto& tests = f.get("permutation.tests", ordered_json::value_t::array, &a);
  for (size_t t = 0; t < tests.size(); ++t) {
    const std::string k = "permutation.tests." + std::to_string(t) + ".";
    f.str(k + "name", &a);
    f.flag(k + "ran", &a);
    for (const char* c : {"C0", "C1", "C2"}) f.uint(k + c, UINT32_MAX, &a);
    const std::string result = f.str(k + "result", &a);
    if (result != "passed" && result != "failed" && result != "not run") f.fail(p(k + "result"), "'" + result + "' is not a test result");
    perm_failed = perm_failed || result == "failed";
  }
  if (perm && perm_failed) f.fail(p("permutation.passed"), "contradicts the results of permutation.tests");
  f.number_or_null("timings.total", &a);
  const Verdict v = parse_verdict(f, p("verdict.result"), f.str("verdict.result", &a), false);
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
  return v;
}

// A non-IID result: the fields the reports read, and its minimum against its estimates.
void check_estimates(const Fields& f, const ordered_json& j, const std::string& prefix, double width);

void check_non_iid(const Fields& f, const ordered_json& j) {
  f.str("input.path");
  f.uint("input.samples", UINT64_MAX);
  const double width = static_cast<double>(f.integer("input.bitsPerSymbol", 1, 8));
  const ordered_json* subset = f.find(j, "input.subset");
  if (!subset) f.fail("input.subset", "missing");
  f.strings("complianceNotes");
  const double assessed = f.number("assessedMinEntropy");
  if (f.number("nonIid.hAssessed") != assessed) f.fail("nonIid.hAssessed", "contradicts assessedMinEntropy");
  check_estimates(f, j, "nonIid.", width);
  f.number_or_null("timings.total");
}

// A "nonIid" object (non_iid_estimates_json) at `prefix`: its ten estimators in order, and
// hAssessed the minimum of what they say.
void check_estimates(const Fields& f, const ordered_json& j, const std::string& prefix, double width) {
  const ordered_json& x = *f.find(j, prefix.substr(0, prefix.size() - 1));
  if (!x.is_object()) f.fail(prefix, "expected an object");
  const double assessed = f.number(prefix + "hAssessed");
  double original = width, bitstring = 1.0;
  bool any_bitstring = false;
  const auto& list = f.get(prefix + "estimators", ordered_json::value_t::array);
  if (list.size() != kNonIidEstimators) f.fail(prefix + "estimators", "expected the 10 estimators");
  for (size_t e = 0; e < list.size(); ++e) {
    const std::string k = prefix + "estimators." + std::to_string(e) + ".";
    if (f.str(k + "estimator") != estimator_key(static_cast<NonIidEstimator>(e))) f.fail(k + "estimator", "out of order");
    for (const char* in : {"literal", "bitstring"}) {
      const ordered_json* x = f.find(j, k + in);
      if (!x) f.fail(k + in, "missing");
      if (x->is_null()) continue;
      if (std::strcmp(in, "bitstring") == 0) any_bitstring = true;
      if (!f.flag(k + in + ".evaluated")) continue;
      const double h = f.number(k + in + ".minEntropy");
      double& low = std::strcmp(in, "bitstring") == 0 ? bitstring : original;
      low = std::min(low, h);
    }
  }
  double expected = width;
  if (any_bitstring) expected = std::min(expected, bitstring * width);
  const ordered_json* h_original = f.find(x, "hOriginal");
  if (!h_original) f.fail(prefix + "hOriginal", "missing");
  if (!h_original->is_null()) expected = std::min(expected, original);
  if (std::fabs(expected - assessed) > 1e-12 * std::max(1.0, std::fabs(expected))) {
    f.fail(prefix + "hAssessed", "contradicts the estimates in " + prefix + "estimators");
  }
}

// A restart row: its claim, its data sets' IID assessments or estimates, and its verdict.
void check_restart(const Fields& f, const ordered_json& j, Record& r) {
  r.kind = Record::Kind::Restart;
  const ordered_json& rs = f.get("restart", ordered_json::value_t::object);
  f.number_or_null("restart.result");
  f.str("restart.sanityCheck");
  r.verdict = parse_verdict(f, "verdict.result", f.str("verdict.result"), true);
  if (f.flag("verdict.passed") != (*r.verdict == Verdict::Iid)) f.fail("verdict.passed", "contradicts verdict.result");
  f.strings("verdict.failed");
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
    check_estimates(f, j, std::string(part) + ".", static_cast<double>(f.integer("input.bitsPerSymbol", 1, 8)));
  }
  if (!sane && *r.verdict != Verdict::NotIid) f.fail("verdict.result", "not failed although the sanity check failed");
  if (sane && !iid_claim) {
    const double h_r = f.number("restart.hR"), h_c = f.number("restart.hC");
    if (h_r != f.number("rowEstimates.hOriginal")) f.fail("restart.hR", "contradicts rowEstimates.hOriginal");
    if (h_c != f.number("columnEstimates.hOriginal")) f.fail("restart.hC", "contradicts columnEstimates.hOriginal");
  } else if (sane) {
    for (const char* k : {"testCases.0.passedChiSquareTests", "testCases.0.passedLongestRepeatedSubstringTest",
                          "testCases.0.passedIidPermutationTests"}) {
      f.flag(k);
    }
  }
  r.for_compliance = f.flag("forCompliance");
  f.number_or_null("timings.total");
  if (sane && iid_claim) r.user_seed = f.str("rows.permutation.userSeed");
}

}  // namespace

Record read_record(ordered_json j, const std::string& where) {
  const Fields f(j, where);
  if (!j.is_object()) f.fail("", "not a JSON object");
  Record r;
  r.path = f.str("filename");
  f.str("sha256");  // every record has it ("" where nothing was read)
  if (const ordered_json* in = f.find(j, "input")) {
    if (!in->is_object()) f.fail("input", "expected an object");
  }
  if (const ordered_json* p = f.find(j, "input.path")) {
    if (!p->is_string()) f.fail("input.path", "expected a string");
    r.path = p->get<std::string>();
  }
  if (const ordered_json* bytes = f.find(j, "filenameBytes")) {  // a name that is not UTF-8, exactly
    const std::string hex = f.str("filenameBytes");
    (void)bytes;
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
    r.path = name;
  }
  if (const ordered_json* b = f.find(j, "input.block")) {
    (void)b;
    r.block = f.integer("input.block", 0, INT64_MAX);
  }
  const std::string type = f.str("type");
  if (type != track_name(Track::Iid) && type != track_name(Track::Restart) && type != track_name(Track::NonIid)) {
    f.fail("type", "'" + type + "' is not a track");
  }
  if (j.contains("skipped")) {
    f.str("skipped");
    r.kind = Record::Kind::Skipped;
  } else if (type == track_name(Track::Restart) && j.contains("restart")) {
    check_restart(f, j, r);
  } else if (f.integer("errorLevel", -1, 0) != 0) {
    f.str("errorMessage");
    r.kind = Record::Kind::Error;
    const ordered_json* kind = f.find(j, "errorKind");
    r.degenerate = kind && kind->is_string() && kind->get<std::string>() == "degenerate";
  } else if (type == track_name(Track::NonIid)) {
    r.kind = Record::Kind::NonIid;
    check_non_iid(f, j);
    r.for_compliance = f.flag("forCompliance");
  } else {
    r.kind = Record::Kind::Assessment;
    r.verdict = check_assessment(f, j, "");
    r.for_compliance = f.flag("forCompliance");
    r.user_seed = f.str("permutation.userSeed");
  }
  // Batch rows record the run's seed in "run" too (errors and skipped rows included).
  if (const ordered_json* run_seed = f.find(j, "run.userSeed")) {
    if (!run_seed->is_string()) f.fail("run.userSeed", "expected a string");
    if (r.user_seed && *r.user_seed != run_seed->get<std::string>()) {
      f.fail("run.userSeed", "contradicts the assessment's permutation.userSeed");
    }
    r.user_seed = run_seed->get<std::string>();
  }
  if (r.user_seed && (r.user_seed->empty() || r.user_seed->size() > 20 ||
                      r.user_seed->find_first_not_of("0123456789") != std::string::npos)) {
    f.fail("permutation.userSeed", "'" + *r.user_seed + "' is not a decimal seed");
  }
  r.row = row_of_json(j);
  r.json = std::move(j);
  return r;
}

Record record_of(const ItemResult& res, const std::string& path, int64_t block, const ReportOptions& o) {
  Record r = read_record(result_json(res, path, block, o), path);
  if (res.status != ItemResult::Status::Skipped) r.row.seconds = fmt("%.2f", res.seconds);
  return r;
}

JsonlRows read_jsonl_rows(const std::string& path) {
  JsonlRows out;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return out;  // a missing file is empty
  if (!S_ISREG(st.st_mode)) {
    // Opening a FIFO to read would wait for a writer (forever): refused at once.
    throw Error(ErrorKind::Input, path + ": not a regular file; results are read back from regular files only");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(ErrorKind::Input, path + ": cannot be read");
  out.bytes = text.size();
  size_t line_no = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at);
    ++line_no;
    if (end == std::string::npos) {  // no newline: cut off while it was written
      out.torn = true;
      break;
    }
    const std::string where = path + ":" + std::to_string(line_no);
    auto j = ordered_json::parse(text.begin() + static_cast<std::ptrdiff_t>(at), text.begin() + static_cast<std::ptrdiff_t>(end),
                                 nullptr, false);
    at = end + 1;
    if (j.is_discarded()) throw Error(ErrorKind::Input, where + ": not a JSON line (not a file ea_iid --jsonl wrote?)");
    out.rows.push_back(read_record(std::move(j), where));
    out.lines.push_back(line_no);
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
  if (!r.verdict) return;  // a non-IID result: no IID verdict
  ++judged;
  not_iid = not_iid || *r.verdict == Verdict::NotIid;
  inconclusive = inconclusive || *r.verdict == Verdict::Inconclusive;
  not_compliant = not_compliant || !r.for_compliance;
}

}  // namespace ea
