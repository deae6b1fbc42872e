#include "lab.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "files.hpp"
#include "summary.hpp"
#include "version.hpp"

namespace ea {

using nlohmann::ordered_json;

namespace {

std::string text_of(const ordered_json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string number_of(const ordered_json& v) {
  if (!v.is_number()) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", v.get<double>() + 0.0);
  return buf;
}

// j[key], or null where j is not an object or lacks it (a row kept by --resume may have been edited).
const ordered_json& field(const ordered_json& j, const char* key) {
  static const ordered_json none;
  if (!j.is_object()) return none;
  const auto it = j.find(key);
  return it == j.end() ? none : *it;
}

bool is_source(const ordered_json& r) { return r.is_object() && text_of(r, "type") == "Source" && r.contains("flow"); }

std::string joined(const ordered_json& list) {
  std::string s;
  if (!list.is_array()) return s;
  for (const auto& x : list) s += (s.empty() ? "" : "; ") + (x.is_string() ? x.get<std::string>() : x.dump());
  return s;
}

// "not for compliance (the first of complianceNotes)".
std::string not_for_compliance(const LabLine& l) {
  return "not for compliance" + (l.compliance_note.empty() ? std::string() : " (" + l.compliance_note + ")");
}

// The record's dateTimeStamp (YYYYMMDDhhmmss) as the per-source page writes it.
std::string date_words(const std::string& t) {
  return t.size() == 14 ? t.substr(0, 4) + "-" + t.substr(4, 2) + "-" + t.substr(6, 2) + " " + t.substr(8, 2) + ":" +
                              t.substr(10, 2) + ":" + t.substr(12, 2) + " UTC"
                        : t;
}

// The lab page's run table: tool, date, command and seed, as each source's page gives them.
std::string run_table(const LabRun& run, const std::string& command_line) {
  const std::string seed = run.seed ? std::to_string(*run.seed) : "";
  return "<table>\n<tr><th>tool</th><td>" + html_text(std::string(kVersion) + " (commit " + kGitCommit + ", " + kBuildDevice + ")") +
         "</td></tr>\n<tr><th>date</th><td>" + html_text(date_words(run.started)) +
         "</td></tr>\n<tr><th>command</th><td><code>" + html_text(command_line) +
         "</code></td></tr>\n<tr><th>seed</th><td>" +
         (seed.empty() ? std::string("none (no source draws random numbers)")
                       : seed + " (repeat the run with <code>--seed " + seed + "</code>)") +
         "</td></tr>\n</table>\n";
}

// The lab page's "for compliance" cell: yes, or no with the first reason.
std::string compliance_cell(const LabLine& l) {
  if (l.result == "error") return "";
  if (l.for_compliance) return "yes";
  return l.compliance_note.empty() ? "no" : "no: " + html_text(l.compliance_note);
}

// Padded to `width` characters (a UTF-8 name is as wide as its characters, not its bytes).
std::string padded(const std::string& s, size_t width) {
  const size_t cells = text_cells(s);
  return cells >= width ? s : s + std::string(width - cells, ' ');
}

}  // namespace

LabLine lab_line(const LabRow& row) {
  LabLine l;
  l.name = row.name;
  const ordered_json& r = row.record;
  if (!is_source(r)) {
    l.result = "error";
    l.failed = "error: " + (text_of(r, "errorMessage").empty() ? std::string("no result") : text_of(r, "errorMessage"));
    return l;
  }
  const ordered_json& flow = field(r, "flow");
  l.track = text_of(flow, "track");
  l.verdict = field(flow, "verdict").is_string() ? field(flow, "verdict").get<std::string>() : "not run";
  l.entropy = number_of(field(flow, "claimed"));  // 6 decimals, as the text report's entropy
  l.unit = text_of(flow, "claimedUnit");
  l.h_i = number_of(field(flow, "hI"));
  if (l.unit.rfind("bits ", 0) == 0) l.unit = l.unit.substr(5);
  const bool passed = field(r, "passed").is_boolean() && field(r, "passed").get<bool>();
  l.result = !passed ? "FAILED" : field(flow, "restart").is_null() ? "untested" : "passed";
  l.failed = joined(field(r, "failed"));
  l.for_compliance = field(r, "forCompliance").is_boolean() && field(r, "forCompliance").get<bool>();
  const ordered_json& notes = field(r, "complianceNotes");
  if (!l.for_compliance && notes.is_array() && !notes.empty()) {
    l.compliance_note = notes[0].is_string() ? notes[0].get<std::string>() : notes[0].dump();
  }
  if (row.iid_claim && *row.iid_claim && l.verdict != "IID") {
    l.note = "IID claim not confirmed (" + l.verdict + "): the non-IID track's entropy";
  }
  return l;
}

std::string lab_page_link(const std::string& page, const std::string& html) {
  namespace fs = std::filesystem;
  if (page.empty() || html.empty() || html == "-") return "";
  std::error_code ec;
  const fs::path from = fs::absolute(fs::path(html), ec).parent_path();
  const fs::path rel = fs::proximate(fs::absolute(page, ec), from, ec);
  return ec ? page : rel.generic_string();
}

std::string lab_counts(const std::vector<LabRow>& rows) {
  size_t passed = 0, failed = 0, untested = 0, errors = 0;
  for (const LabRow& row : rows) {
    const std::string r = lab_line(row).result;
    (r == "passed" ? passed : r == "FAILED" ? failed : r == "untested" ? untested : errors)++;
  }
  return std::to_string(rows.size()) + (rows.size() == 1 ? " source: " : " sources: ") + std::to_string(passed) +
         " passed, " + std::to_string(failed) + " FAILED, " + std::to_string(untested) + " untested (no restart data), " +
         std::to_string(errors) + (errors == 1 ? " error" : " errors");
}

std::string lab_text(const std::vector<LabRow>& rows) {
  std::vector<LabLine> lines;
  size_t name_w = 6, entropy_w = 7;
  for (const LabRow& row : rows) {
    lines.push_back(lab_line(row));
    name_w = std::max(name_w, text_cells(lines.back().name));
    entropy_w = std::max(entropy_w, text_cells(lines.back().entropy));
  }
  std::string t = padded("Source", name_w) + "  " + padded("Track", 7) + "  " + padded("Entropy", entropy_w) + "  " +
                  padded("Unit", 18) + "  " + padded("Result", 8) + "  Failed step; notes\n";
  for (const LabLine& l : lines) {
    std::string why = l.failed;
    if (!l.note.empty()) why += (why.empty() ? "" : "; ") + l.note;
    if (!l.for_compliance && l.result != "error") why += (why.empty() ? "" : "; ") + not_for_compliance(l);
    t += padded(l.name, name_w) + "  " + padded(l.track.empty() ? "-" : l.track, 7) + "  " +
         padded(l.entropy.empty() ? "-" : l.entropy, entropy_w) + "  " + padded(l.unit.empty() ? "-" : l.unit, 18) + "  " +
         padded(l.result, 8) + "  " + (why.empty() ? "-" : why) + "\n";
  }
  return t + lab_counts(rows) + "\n";
}

std::string lab_csv(const std::vector<LabRow>& rows) {
  std::string out =
      "source,track,iid_tests,h_i_bits_per_sample,h_validated_bits_per_sample,entropy,unit,result,failed,note,"
      "for_compliance,compliance_note,sha256,seed\r\n";
  for (const LabRow& row : rows) {
    const LabLine l = lab_line(row);
    const ordered_json& r = row.record;
    const bool src = is_source(r);
    const std::vector<std::string> c = {
        l.name, l.track, l.verdict, src ? number_of(field(field(r, "flow"), "hI")) : "", src ? number_of(field(field(r, "flow"), "hValidated")) : "",
        l.entropy, l.unit, l.result, l.failed, l.note, src ? (l.for_compliance ? "yes" : "no") : "", l.compliance_note, text_of(r, "sha256"),
        text_of(r, "userSeed")};
    for (size_t k = 0; k < c.size(); ++k) out += csv_cell(c[k]) + (k + 1 < c.size() ? "," : "\r\n");
  }
  return out;
}

std::string lab_html(const std::vector<LabRow>& rows, const std::string& command_line, const LabRun& run) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>SP 800-90B assessment: " +
      std::to_string(rows.size()) +
      " noise sources</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
      "th,td{border:1px solid #bbb;padding:3px 8px;font-size:13px;text-align:left;vertical-align:top}th{background:#f3f3f3}"
      "code{font-size:12px;word-break:break-all}.passed{color:#060}.FAILED,.error{color:#b00;font-weight:bold}"
      ".untested{color:#a60}</style></head><body>\n<h1>SP 800-90B assessment of " +
      std::to_string(rows.size()) + (rows.size() == 1 ? " noise source" : " noise sources") + "</h1>\n<p>" +
      html_text(lab_counts(rows)) + "</p>\n" + run_table(run, command_line);
  h += "<table>\n<tr><th>source</th><th>track</th><th>IID tests</th><th>H_I, bits per sample</th>"
       "<th>entropy that stands</th><th>unit</th>"
       "<th>result</th><th>failed step; notes</th><th>for compliance</th></tr>\n";
  for (const LabRow& row : rows) {
    const LabLine l = lab_line(row);
    const std::string name = row.page.empty() ? html_text(l.name)
                                              : "<a href=\"" + html_text(row.page) + "\">" + html_text(l.name) + "</a>";
    std::string why = html_text(l.failed);
    if (!l.note.empty()) why += (why.empty() ? "" : "<br/>") + html_text(l.note);
    h += "<tr><td>" + name + "</td><td>" + html_text(l.track) + "</td><td>" + html_text(l.verdict) + "</td><td>" +
         html_text(l.h_i) + "</td><td>" + html_text(l.entropy) + "</td><td>" + html_text(l.unit) + "</td><td class=\"" + l.result + "\">" + l.result +
         "</td><td>" + why + "</td><td>" + compliance_cell(l) + "</td></tr>\n";
  }
  return h + "</table>\n</body></html>\n";
}

}  // namespace ea
