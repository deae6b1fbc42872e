#include "files.hpp"
#include "rejections.hpp"
#include "report.hpp"
#include "rows.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ea {

using nlohmann::ordered_json;

namespace rows {

// A --restart row (its errorLevel is -1 when the sanity check or the validation failed, as
// NIST writes it, but it is a result, not an error).
bool is_restart(const ordered_json& r) { return text(r, "type") == "Restart" && r.contains("restart"); }
// A --non-iid row: the ten estimates, no IID tests.
bool is_non_iid(const ordered_json& r) {
  return text(r, "type") == "Non-IID" && r.contains("nonIid") && r.value("errorLevel", 0) == 0;
}
bool is_assessment(const ordered_json& r) {
  return !is_restart(r) && !is_non_iid(r) && !r.contains("skipped") && r.value("errorLevel", 0) == 0;
}
// The assessments a row holds: itself, or a restart run's rows and columns.
std::vector<const ordered_json*> parts_of(const ordered_json& r) {
  if (is_assessment(r)) return {&r};
  std::vector<const ordered_json*> p;
  if (is_restart(r)) {
    for (const char* k : {"rows", "columns"})
      if (!r[k].is_null()) p.push_back(&r[k]);
  }
  return p;
}

std::string number(const ordered_json& v, const char* f) {
  if (!v.is_number()) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v.get<double>());
  return buf;
}

std::string text(const ordered_json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string csv_field(const std::string& text) {
  // A cell a spreadsheet would run as a formula (= + - @, or a tab or CR first) is kept as
  // text: a leading apostrophe (OWASP's advice for CSV injection).
  const std::string s = !text.empty() && std::string("=+-@\t\r").find(text[0]) != std::string::npos ? "'" + text : text;
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string block_of(const ordered_json& r) {
  return r.contains("input") && r["input"].contains("block") ? std::to_string(r["input"]["block"].get<int64_t>()) : "";
}

std::string chi_square_result(const ordered_json& r) {
  bool failed = false, unevaluated = false;
  for (const ordered_json* a : parts_of(r)) {
    const ordered_json& cs = a->contains("chiSquare") ? (*a)["chiSquare"] : ordered_json::object();
    for (const char* k : {"independence", "goodnessOfFit"}) {
      const std::string result = cs.is_object() && cs.contains(k) ? text(cs[k], "result") : "";
      failed = failed || result == "failed";
      unevaluated = unevaluated || result.rfind("not evaluated", 0) == 0;
    }
  }
  return failed ? "failed" : unevaluated ? "not evaluated" : "passed";
}

}  // namespace rows

using namespace rows;

std::string verdict_of(const ordered_json& r) {
  if (is_restart(r)) return "restart " + r["verdict"]["result"].get<std::string>();
  if (r.contains("skipped")) return "skipped";
  if (r.value("errorLevel", 0) != 0) return text(r, "errorKind") == "degenerate" ? "degenerate" : "error";
  if (is_non_iid(r)) return "non-IID estimate";
  return r["verdict"]["result"].get<std::string>();
}

std::string verdict_counts(const std::vector<ordered_json>& rows) {
  // Fixed order: the IID verdicts first, then the other kinds of row.
  const char* order[] = {"IID", "not IID", "inconclusive", "non-IID estimate", "restart passed", "restart failed",
                         "skipped", "degenerate", "error"};
  std::map<std::string, size_t> n;
  for (const auto& r : rows) ++n[verdict_of(r)];
  std::string s;
  for (const char* v : order) {
    const auto it = n.find(v);
    if (it == n.end()) continue;
    std::string word = v;
    if (it->second != 1 && (word == "error" || word == "non-IID estimate")) word += "s";
    s += (s.empty() ? "" : ", ") + std::to_string(it->second) + " " + word;
  }
  return s;
}

namespace rows {

std::vector<std::string> notes_of(const ordered_json& r) {
  if (r.contains("skipped")) return {r["skipped"].get<std::string>()};
  if (r.value("errorLevel", 0) != 0) return {text(r, "errorMessage")};
  std::vector<std::string> n;
  std::vector<const ordered_json*> parts = parts_of(r);
  if (is_non_iid(r)) parts = {&r};
  for (const ordered_json* a : parts) {
    for (const auto& c : (*a)["complianceNotes"]) {
      const std::string text = c.get<std::string>();
      if (std::find(n.begin(), n.end(), text) == n.end()) n.push_back(text);
    }
  }
  // Which non-IID estimate sets the assessed min-entropy (--non-iid, or after "not IID").
  const ordered_json* ni = r.contains("nonIid") && !r["nonIid"].is_null() ? &r["nonIid"] : nullptr;
  if (ni && !(*ni)["lowest"].is_null()) {
    n.push_back("min-entropy set by the " + (*ni)["lowest"]["input"].get<std::string>() + " " +
                (*ni)["lowest"]["estimator"].get<std::string>() + " estimate");
  }
  return n;
}

std::string note_of(const ordered_json& r) {
  std::string n;
  for (const auto& x : notes_of(r)) n += (n.empty() ? "" : "; ") + x;
  return n;
}

}  // namespace rows

std::string html_text(const std::string& s) { return html_escape(s); }

std::string csv_cell(const std::string& s) { return csv_field(s); }

std::vector<std::string> failed_tests(const ordered_json& r) {
  std::vector<std::string> f;
  if (is_restart(r)) {
    for (const auto& x : r["verdict"]["failed"]) f.push_back(x.get<std::string>());
    return f;
  }
  if (!is_assessment(r)) return f;
  if (chi_square_result(r) == "failed") f.push_back("chi-square");
  if (!r["longestRepeatedSubstring"]["passed"].get<bool>()) f.push_back("LRS");
  for (const auto& t : r["permutation"]["tests"]) {
    if (t["result"].get<std::string>() == "failed") f.push_back(t["name"].get<std::string>());
  }
  return f;
}

namespace rows {

// A seed as a spreadsheet keeps it: 0x and 16 hex digits (a 20-digit decimal becomes
// 1.24801E+19 there); --seed takes this form as it is.
std::string seed_text(const ordered_json& decimal) {
  if (!decimal.is_string()) return "";
  const std::string s = decimal.get<std::string>();
  if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos) return s;
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(std::stoull(s)));
  return buf;
}

// dateTimeStamp (YYYYMMDDhhmmss, UTC) as ISO 8601: 2026-11-25T19:47:00Z.
std::string iso_date(const ordered_json& r) {
  const std::string s = text(r, "dateTimeStamp");
  if (s.size() != 14 || s.find_first_not_of("0123456789") != std::string::npos) return s;
  return s.substr(0, 4) + "-" + s.substr(4, 2) + "-" + s.substr(6, 2) + "T" + s.substr(8, 2) + ":" + s.substr(10, 2) + ":" +
         s.substr(12, 2) + "Z";
}

}  // namespace rows

ordered_json batch_json(const std::vector<ordered_json>& rows, const ReportOptions& o) {
  ordered_json j = json_envelope(o, "", "", 0, nullptr, "Batch");
  j.erase("filename");
  j.erase("sha256");
  j["schemaVersion"] = kSchemaVersion;
  j["items"] = rows.size();
  ordered_json counts = ordered_json::object();
  for (const auto& r : rows) {
    const std::string v = verdict_of(r);
    counts[v] = counts.value(v, 0) + 1;
  }
  j["counts"] = counts;
  j["summary"] = verdict_counts(rows);
  const auto rej = count_rejections(rows);
  j["rejections"] = rej ? rejections_json(*rej) : ordered_json(nullptr);
  j["rows"] = rows;
  return j;
}

namespace {

// The record's --sample-format and symbol rule, with the mask that auto found ("u16le,
// select-bits auto:8 = 0x0db6"); "u8" for a record made before the key existed.
std::string sample_rule_cell(const ordered_json& r) {
  const ordered_json* in = r.contains("input") && r["input"].is_object() ? &r["input"]
                           : r.contains("rows") && r["rows"].is_object() ? &r["rows"]["input"]
                                                                         : nullptr;
  if (!in || !in->contains("samples")) return "";  // an error or skipped row: nothing was read
  std::string rule = in->value("sampleRule", std::string("u8"));
  const auto m = in->find("mapping");
  if (m != in->end() && m->is_object() && m->value("rule", std::string()) == "select-bits auto") {
    rule += " = " + m->value("mask", std::string());
  }
  return rule;
}

}  // namespace

std::string csv_report(const std::vector<ordered_json>& rows) {
  // Units in the headers; seeds in hex and hashes as text; each row's tool and date.
  std::string out =
      "file,block,samples,bits_per_sample,h_original_bits_per_sample,h_bitstring_bits_per_bit,"
      "h_assessed_bits_per_sample,chi_square,lrs,permutation,failed_tests,verdict,for_compliance,seconds,sha256,seed,"
      "note,tool_version,date_utc,sample_rule\r\n";
  for (const auto& r : rows) {
    std::vector<std::string> c(20);
    c[19] = sample_rule_cell(r);
    c[0] = text(r, "filename");
    c[1] = block_of(r);
    c[11] = verdict_of(r);
    c[14] = text(r, "sha256");
    c[16] = note_of(r);
    c[17] = text(r, "toolVersion");
    c[18] = iso_date(r);
    if (is_non_iid(r)) {
      const auto& ni = r["nonIid"];
      c[2] = std::to_string(r["input"]["samples"].get<uint64_t>());
      c[3] = std::to_string(r["input"]["bitsPerSymbol"].get<int>());
      c[4] = number(ni["hOriginal"], "%.17g");
      c[5] = number(ni["hBitstring"], "%.17g");
      c[6] = number(r["assessedMinEntropy"], "%.17g");
      c[7] = c[8] = c[9] = "not run";
      c[12] = r["forCompliance"].get<bool>() ? "true" : "false";
      c[13] = number(r["timings"]["total"], "%.3f");
    } else if (is_assessment(r)) {
      const auto& est = r["estimates"];
      c[2] = std::to_string(r["input"]["samples"].get<uint64_t>());
      c[3] = std::to_string(r["input"]["bitsPerSymbol"].get<int>());
      c[4] = est["hOriginal"].is_null() ? "" : number(est["hOriginal"]["minEntropy"], "%.17g");
      c[5] = est["hBitstring"].is_null() ? "" : number(est["hBitstring"]["minEntropy"], "%.17g");
      c[6] = number(r["assessedMinEntropy"], "%.17g");
      c[7] = chi_square_result(r);
      c[8] = r["longestRepeatedSubstring"]["passed"].get<bool>() ? "passed" : "failed";
      c[9] = r["permutation"]["passed"].get<bool>() ? "passed" : "failed";
      for (const auto& f : failed_tests(r)) c[10] += (c[10].empty() ? "" : ";") + f;
      c[12] = r["forCompliance"].get<bool>() ? "true" : "false";
      c[13] = number(r["timings"]["total"], "%.3f");
      c[15] = seed_text(r["permutation"]["userSeed"]);
    } else if (is_restart(r)) {
      // H_assessed: min(H_r, H_c, H_I); each family: rows and columns both passed.
      const auto& tcs = r["testCases"];
      if (!r["rows"].is_null()) {
        c[2] = std::to_string(r["rows"]["input"]["samples"].get<uint64_t>());
        c[3] = std::to_string(r["rows"]["input"]["bitsPerSymbol"].get<int>());
        c[15] = seed_text(r["rows"]["permutation"]["userSeed"]);
      } else if (r.contains("input")) {  // a non-IID claim, or a failed sanity check
        c[2] = std::to_string(r["input"]["samples"].get<uint64_t>());
        c[3] = std::to_string(r["input"]["bitsPerSymbol"].get<int>());
      }
      // min(H_r, H_c, H_I) stands only when the restart tests passed.
      if (r["verdict"]["result"] == "passed") c[6] = number(r["restart"]["result"], "%.17g");
      if (r["rows"].is_null()) {
        c[7] = c[8] = c[9] = "not run";  // a non-IID claim, or a failed sanity check
      } else if (!tcs.empty()) {
        c[7] = chi_square_result(r);
        c[8] = tcs[0]["passedLongestRepeatedSubstringTest"].get<bool>() ? "passed" : "failed";
        c[9] = tcs[0]["passedIidPermutationTests"].get<bool>() ? "passed" : "failed";
      }
      for (const auto& f : failed_tests(r)) c[10] += (c[10].empty() ? "" : ";") + f;
      c[12] = r["forCompliance"].get<bool>() ? "true" : "false";
      c[13] = number(r["timings"]["total"], "%.3f");
    }
    for (size_t k = 0; k < c.size(); ++k) out += csv_field(c[k]) + (k + 1 < c.size() ? "," : "\r\n");
  }
  return out;
}

}  // namespace ea
