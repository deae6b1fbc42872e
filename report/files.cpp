#include "files.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ea {

namespace {

using nlohmann::ordered_json;

// A --restart row (its errorLevel is -1 when the sanity check or the validation failed, as
// NIST writes it, but it is a result, not an error).
bool is_restart(const ordered_json& r) { return r.value("type", std::string()) == "Restart" && r.contains("restart"); }
// A --non-iid row: the ten estimates, no IID tests.
bool is_non_iid(const ordered_json& r) {
  return r.value("type", std::string()) == "Non-IID" && r.contains("nonIid") && r.value("errorLevel", 0) == 0;
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

}  // namespace

std::string verdict_of(const ordered_json& r) {
  if (is_restart(r)) return "restart " + r["verdict"]["result"].get<std::string>();
  if (r.contains("skipped")) return "skipped";
  if (r.value("errorLevel", 0) != 0) return "error";
  if (is_non_iid(r)) return "non-IID estimate";
  return r["verdict"]["result"].get<std::string>();
}

std::string verdict_counts(const std::vector<ordered_json>& rows) {
  // Fixed order: the IID verdicts first, then the other kinds of row.
  const char* order[] = {"IID", "not IID", "inconclusive", "non-IID estimate", "restart passed", "restart failed",
                         "skipped", "error"};
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

namespace {

std::string note_of(const ordered_json& r) {
  if (r.contains("skipped")) return r["skipped"].get<std::string>();
  if (r.value("errorLevel", 0) != 0) return r.value("errorMessage", std::string());
  std::string n;
  std::vector<const ordered_json*> parts = parts_of(r);
  if (is_non_iid(r)) parts = {&r};
  for (const ordered_json* a : parts) {
    for (const auto& c : (*a)["complianceNotes"]) n += (n.empty() ? "" : "; ") + c.get<std::string>();
  }
  // Which non-IID estimate sets the assessed min-entropy (--non-iid, or after "not IID").
  const ordered_json* ni = r.contains("nonIid") && !r["nonIid"].is_null() ? &r["nonIid"] : nullptr;
  if (ni && !(*ni)["lowest"].is_null()) {
    n += std::string(n.empty() ? "" : "; ") + "min-entropy set by the " + (*ni)["lowest"]["input"].get<std::string>() +
         " " + (*ni)["lowest"]["estimator"].get<std::string>() + " estimate";
  }
  return n;
}

// A bar per non-IID estimate, literal (bits per sample) and bitstring (times the bits per
// sample), on one scale; the one that sets the minimum in red.
std::string estimates_svg(const ordered_json& ni, int bits) {
  const int left = 150, bar = 300, row = 16;
  const auto& list = ni["estimators"];
  const std::string low_key = ni["lowest"].is_null() ? "" : ni["lowest"]["estimator"].get<std::string>();
  const std::string low_in = ni["lowest"].is_null() ? "" : ni["lowest"]["input"].get<std::string>();
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"estimates\" width=\"" +
                  std::to_string(left + bar + 80) + "\" height=\"" + std::to_string(row * 2 * (list.size() + 1)) + "\">";
  int y = 12;
  for (const auto& e : list) {
    for (const char* in : {"literal", "bitstring"}) {
      const auto& x = e[in];
      if (x.is_null()) continue;
      const bool evaluated = x["evaluated"].get<bool>();
      const double h = evaluated ? x["minEntropy"].get<double>() * (std::string(in) == "bitstring" ? bits : 1) : 0;
      const bool low = e["estimator"].get<std::string>() == low_key && low_in == in;
      char buf[400];
      std::snprintf(buf, sizeof buf,
                    "<text x=\"0\" y=\"%d\" font-size=\"11\">%s %s</text><rect x=\"%d\" y=\"%d\" width=\"%d\" "
                    "height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>",
                    y, e["estimator"].get<std::string>().c_str(), in, left, y - 9,
                    static_cast<int>(std::max(0.0, std::min(1.0, h / bits)) * bar), low ? "#c00" : "#06c", left + bar + 6,
                    y, evaluated ? number(ordered_json(h), "%.4f").c_str() : "n/a");
      s += buf;
      y += row;
    }
  }
  s += "<text x=\"0\" y=\"" + std::to_string(y + 2) + "\" font-size=\"10\">bits per sample (bitstring estimates x " +
       std::to_string(bits) + "), 0 to " + std::to_string(bits) + "</text></svg>";
  return s;
}

// Where the original statistic sits among its permutations: the share of permutations below
// it (C2), ties counted half.
double rank_of(const ordered_json& t) {
  const double c0 = t["C0"].get<double>(), c1 = t["C1"].get<double>(), c2 = t["C2"].get<double>();
  const double n = c0 + c1 + c2;
  return n > 0 ? (c2 + c1 / 2) / n : 0.5;
}

std::string rank_svg(const ordered_json& r) {
  const auto& tests = r["permutation"]["tests"];
  const int row = 16, width = 460, left = 150, bar = width - left - 10;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ranks\" width=\"" + std::to_string(width) +
                  "\" height=\"" + std::to_string(row * static_cast<int>(tests.size()) + 20) + "\">";
  int y = 14;
  for (const auto& t : tests) {
    const bool ran = t["ran"].get<bool>();
    const bool failed = t["result"].get<std::string>() == "failed";
    s += "<text x=\"0\" y=\"" + std::to_string(y) + "\" font-size=\"11\">" + html_escape(t["name"].get<std::string>()) +
         "</text>";
    s += "<rect x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y - 9) + "\" width=\"" + std::to_string(bar) +
         "\" height=\"10\" fill=\"#eee\"/>";
    if (ran) {
      const int x = left + static_cast<int>(rank_of(t) * bar);
      s += "<rect x=\"" + std::to_string(std::max(left, x - 2)) + "\" y=\"" + std::to_string(y - 11) +
           "\" width=\"4\" height=\"14\" fill=\"" + (failed ? "#c00" : "#06c") + "\"/>";
    } else {
      s += "<text x=\"" + std::to_string(left + 4) + "\" y=\"" + std::to_string(y) + "\" font-size=\"10\">not run</text>";
    }
    y += row;
  }
  s += "<text x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y + 2) +
       "\" font-size=\"10\">0: every permutation above the original ... 1: every one below</text></svg>";
  return s;
}

std::string histogram_svg(const ordered_json& r) {
  const auto& counts = r["input"]["valueCounts"];
  const int width = 460, height = 120;
  uint64_t top = 1;
  for (const auto& c : counts) top = std::max(top, c[1].get<uint64_t>());
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"histogram\" width=\"" + std::to_string(width) +
                  "\" height=\"" + std::to_string(height + 16) + "\">";
  const int bits = r["input"]["bitsPerSymbol"].get<int>();
  const double slot = static_cast<double>(width) / (1 << bits);
  for (const auto& c : counts) {
    const int v = c[0].get<int>();
    const int h = static_cast<int>(static_cast<double>(c[1].get<uint64_t>()) / static_cast<double>(top) * height);
    char buf[160];
    std::snprintf(buf, sizeof buf, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"#06c\"/>", v * slot,
                  height - h, std::max(1.0, slot - 0.5), h);
    s += buf;
  }
  s += "<text x=\"0\" y=\"" + std::to_string(height + 13) + "\" font-size=\"10\">sample values 0 to " +
       std::to_string((1 << bits) - 1) + "; tallest bar " + std::to_string(top) + "</text></svg>";
  return s;
}

}  // namespace

std::string html_text(const std::string& s) { return html_escape(s); }
std::string estimates_figure(const ordered_json& estimates, int bits) { return estimates_svg(estimates, bits); }
std::string ranks_figure(const ordered_json& assessment) { return rank_svg(assessment); }
std::string histogram_figure(const ordered_json& assessment) { return histogram_svg(assessment); }

std::vector<std::string> failed_tests(const ordered_json& r) {
  std::vector<std::string> f;
  if (is_restart(r)) {
    for (const auto& x : r["verdict"]["failed"]) f.push_back(x.get<std::string>());
    return f;
  }
  if (!is_assessment(r)) return f;
  if (!r["testCases"][0]["passedChiSquareTests"].get<bool>() && r["chiSquare"]["independence"]["evaluable"].get<bool>() &&
      r["chiSquare"]["goodnessOfFit"]["evaluable"].get<bool>()) {
    f.push_back("chi-square");
  }
  if (!r["longestRepeatedSubstring"]["passed"].get<bool>()) f.push_back("LRS");
  for (const auto& t : r["permutation"]["tests"]) {
    if (t["result"].get<std::string>() == "failed") f.push_back(t["name"].get<std::string>());
  }
  return f;
}

namespace {

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
  const std::string s = r.value("dateTimeStamp", std::string());
  if (s.size() != 14 || s.find_first_not_of("0123456789") != std::string::npos) return s;
  return s.substr(0, 4) + "-" + s.substr(4, 2) + "-" + s.substr(6, 2) + "T" + s.substr(8, 2) + ":" + s.substr(10, 2) + ":" +
         s.substr(12, 2) + "Z";
}

}  // namespace

std::string csv_report(const std::vector<ordered_json>& rows) {
  // Units in the headers; seeds in hex and hashes as text; each row's tool and date.
  std::string out =
      "file,block,samples,bits_per_sample,h_original_bits_per_sample,h_bitstring_bits_per_bit,"
      "h_assessed_bits_per_sample,chi_square,lrs,permutation,failed_tests,verdict,for_compliance,seconds,sha256,seed,"
      "note,tool_version,date_utc\r\n";
  for (const auto& r : rows) {
    std::vector<std::string> c(19);
    c[0] = r.value("filename", std::string());
    c[1] = block_of(r);
    c[11] = verdict_of(r);
    c[14] = r.value("sha256", std::string());
    c[16] = note_of(r);
    c[17] = r.value("toolVersion", std::string());
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
      c[7] = r["testCases"][0]["passedChiSquareTests"].get<bool>() ? "passed" : "failed";
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
        c[7] = tcs[0]["passedChiSquareTests"].get<bool>() ? "passed" : "failed";
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

std::string html_report(const std::vector<ordered_json>& rows, const std::string& command_line) {
  std::map<std::string, int> verdicts;
  for (const auto& r : rows) ++verdicts[verdict_of(r)];
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>ea_iid report</title>"
      "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}tr.failed td{background:#fee}"
      "section{margin-top:2em}</style></head><body>\n";
  h += "<h1>ea_iid report</h1><p>" + html_escape(command_line) + "</p>\n<p class=\"counts\">";
  for (const auto& [v, n] : verdicts) h += html_escape(v) + ": " + std::to_string(n) + "; ";
  h += std::to_string(rows.size()) + " items</p>\n";
  h += "<table class=\"summary\"><thead><tr><th>#</th><th>file</th><th>block</th><th>samples</th><th>bits</th>"
       "<th>H_assessed</th><th>verdict</th><th>failed tests</th><th>note</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const bool assessed = is_assessment(r) || is_non_iid(r) || (is_restart(r) && !r["restart"]["result"].is_null());
    const ordered_json& in = r.contains("input") ? r["input"] : is_restart(r) && assessed ? r["rows"]["input"] : r;
    const ordered_json& h_assessed = !is_restart(r) ? r.value("assessedMinEntropy", ordered_json())
                                     : r["verdict"]["result"] == "passed" ? r["restart"]["result"]
                                                                          : ordered_json();
    std::string failed;
    for (const auto& f : failed_tests(r)) failed += (failed.empty() ? "" : ", ") + f;
    const bool plain = verdict_of(r) == "IID" || verdict_of(r) == "skipped" || verdict_of(r) == "restart passed" || is_non_iid(r);
    h += std::string("<tr class=\"item") + (plain ? "" : " failed") +
         "\"><td><a href=\"#item" + std::to_string(i) + "\">" + std::to_string(i) + "</a></td><td>" +
         html_escape(r.value("filename", std::string())) + "</td><td>" + block_of(r) + "</td><td>" +
         (assessed ? std::to_string(in["samples"].get<uint64_t>()) : "") + "</td><td>" +
         (assessed ? std::to_string(in["bitsPerSymbol"].get<int>()) : "") + "</td><td>" +
         (assessed ? number(h_assessed, "%.6f") : "") + "</td><td>" + html_escape(verdict_of(r)) +
         "</td><td>" + html_escape(failed) + "</td><td>" + html_escape(note_of(r)) + "</td></tr>\n";
  }
  h += "</tbody></table>\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto parts = parts_of(r);
    const bool estimates = r.contains("nonIid") && !r["nonIid"].is_null() && r.value("errorLevel", 0) == 0;
    // A restart run for a non-IID claim: each data set's estimates.
    const bool restart_estimates = is_restart(r) && r.contains("rowEstimates") && !r["rowEstimates"].is_null();
    if (parts.empty() && !estimates && !restart_estimates) continue;
    std::string title = r.value("filename", std::string());
    if (!block_of(r).empty()) title += " block " + block_of(r);
    h += "<section id=\"item" + std::to_string(i) + "\"><h2>" + std::to_string(i) + ". " + html_escape(title) + ": " +
         html_escape(verdict_of(r)) + "</h2>\n<p>SHA-256 " + html_escape(r["sha256"].get<std::string>()) + "</p>\n";
    for (const ordered_json* a : parts) {
      // A restart run: the row data set, then the column data set.
      if (is_restart(r)) h += std::string("<h3>") + (a == &r["rows"] ? "rows" : "columns") + "</h3>\n";
      h += "<p>seed " + html_escape((*a)["permutation"]["seed"].get<std::string>()) + "</p>\n" + rank_svg(*a) + "\n" +
           histogram_svg(*a) + "\n";
    }
    if (restart_estimates) {
      const int bits = r["input"]["bitsPerSymbol"].get<int>();
      for (const char* k : {"rowEstimates", "columnEstimates"}) {
        h += std::string("<h3>") + (k[0] == 'r' ? "rows" : "columns") + ": non-IID estimates, minimum " +
             number(r[k]["hOriginal"], "%.6f") + " bits per sample</h3>\n" + estimates_svg(r[k], bits) + "\n";
      }
    }
    if (estimates) {  // --non-iid, or the estimates after a "not IID" verdict
      h += "<h3>non-IID estimates (SP 800-90B 6.3): assessed min-entropy " + number(r["assessedMinEntropy"], "%.6f") +
           " bits per sample</h3>\n" + estimates_svg(r["nonIid"], r["input"]["bitsPerSymbol"].get<int>()) + "\n";
    }
    h += "</section>\n";
  }
  h += "</body></html>\n";
  return h;
}

}  // namespace ea
