#include "summary.hpp"

#include <algorithm>
#include <cstring>
#include <map>

#include "files.hpp"
#include "rows.hpp"

namespace ea {


std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

namespace {

// The bytes of the character that starts at s[at]: 2-4 for a valid UTF-8 sequence, else 1.
size_t char_bytes(const std::string& s, size_t at) {
  const auto b = static_cast<unsigned char>(s[at]);
  const size_t n = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 1;
  if (at + n > s.size()) return 1;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[at + k]) & 0xC0) != 0x80) return 1;
  }
  return n;
}

// Where each character of `s` starts, and s.size() last.
std::vector<size_t> char_starts(const std::string& s) {
  std::vector<size_t> at;
  for (size_t i = 0; i < s.size(); i += char_bytes(s, i)) at.push_back(i);
  at.push_back(s.size());
  return at;
}

}  // namespace

size_t text_cells(const std::string& s) { return char_starts(s).size() - 1; }

std::string first_cells(const std::string& s, size_t cells) {
  const std::vector<size_t> at = char_starts(s);
  return cells + 1 >= at.size() ? s : s.substr(0, at[cells]);
}

std::string last_cells(const std::string& s, size_t cells) {
  const std::vector<size_t> at = char_starts(s);
  return cells + 1 >= at.size() ? s : s.substr(at[at.size() - 1 - cells]);
}

namespace {

// The table fits 100 columns (CSV, JSONL and -o hold every column in full): the verdict's
// cell has at most 36, the file's what the other columns leave (at least 18).
constexpr size_t kTableCells = 100, kVerdictCells = 36, kMinFileCells = 18;

// The folder every file is in ("dir/sub/"), printed once under the table; "" when none.
std::string common_folder(const std::vector<Row>& rows) {
  if (rows.empty()) return "";
  std::string prefix = rows.front().file.substr(0, rows.front().file.rfind('/') + 1);
  for (const Row& r : rows) {
    while (!prefix.empty() && r.file.compare(0, prefix.size(), prefix) != 0) {
      prefix = prefix.substr(0, prefix.rfind('/', prefix.size() - 2) + 1);
      if (prefix.size() == 1 && r.file.compare(0, 1, prefix) != 0) prefix.clear();
    }
  }
  return prefix;
}

// `text` in at most `cells` columns: a file name keeps its base name whole where it can
// (".../name.bin"), else the base name's start and end ("sample...85-degrees.bin");
// other text keeps its start. `shared_end`: the characters the name shares at its end with another name of the table
// ("-degrees.bin"): the part before them, which tells the files apart, is kept.
// Cells and cuts count characters (text_cells), not bytes: a UTF-8 name is never cut inside a
// character.
std::string fit(const std::string& text, size_t cells, bool file, size_t shared_end = 0) {
  if (text_cells(text) <= cells) return text;
  if (!file) return first_cells(text, cells - 3) + "...";
  const std::string base = text.substr(text.rfind('/') + 1);
  if (text_cells(base) + 4 <= cells) return ".../" + base;
  const size_t tail = std::min(cells - 6, std::max((cells - 3) * 2 / 3, shared_end + 4));
  return first_cells(base, cells - 3 - tail) + "..." + last_cells(base, tail);
}

// For each file name of the table, the longest end it shares with another name ("-degrees.bin"
// of ...-25-degrees.bin and ...-85-degrees.bin): the names sorted by their reversed text,
// each compared with its neighbours.
std::map<std::string, size_t> shared_ends(const std::vector<std::vector<std::string>>& table) {
  std::vector<std::string> reversed;
  for (size_t k = 1; k < table.size(); ++k) reversed.emplace_back(table[k][0].rbegin(), table[k][0].rend());
  std::sort(reversed.begin(), reversed.end());
  reversed.erase(std::unique(reversed.begin(), reversed.end()), reversed.end());
  auto common = [](const std::string& a, const std::string& b) {
    size_t n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
    return n;
  };
  std::map<std::string, size_t> out;
  for (size_t k = 0; k < reversed.size(); ++k) {
    size_t n = k > 0 ? common(reversed[k], reversed[k - 1]) : 0;
    if (k + 1 < reversed.size()) n = std::max(n, common(reversed[k], reversed[k + 1]));
    const std::string name(reversed[k].rbegin(), reversed[k].rend());
    out[name] = text_cells(name.substr(name.size() - n));  // in characters, as fit() counts
  }
  return out;
}

// The verdict with the tests that failed, as many names as fit and the count of the rest:
// "not IID (chi-square,+2)".
std::string verdict_cell(const Row& given) {
  Row r = given;
  // An error's message names the file, which the row's first cell shows already.
  if (const size_t at = r.verdict.find(r.file + ": "); at != std::string::npos && !r.file.empty()) {
    r.verdict.erase(at, r.file.size() + 2);
  }
  // "skipped: short block (500 of 1000 samples) skipped; --keep-short assesses it": "short
  // block skipped (500 of 1000)" (the whole reason: CSV, JSONL).
  const std::string pre = "skipped: ", post = " skipped";
  if (r.verdict.rfind(pre, 0) == 0) {
    std::string reason = r.verdict.substr(pre.size());
    reason = reason.substr(0, reason.find(';'));
    if (reason.size() > post.size() && reason.compare(reason.size() - post.size(), post.size(), post) == 0) {
      reason.erase(reason.size() - post.size());
    }
    const size_t paren = std::min(reason.find(" ("), reason.size());
    std::string detail = reason.substr(paren);
    if (const size_t unit = detail.find(" samples)"); unit != std::string::npos) detail.replace(unit, 9, ")");
    r.verdict = reason.substr(0, paren) + post + detail;
  }
  if (r.failed.empty() || r.failed == "-") return fit(r.verdict, kVerdictCells, false);
  std::vector<std::string> names;
  for (size_t at = 0; at <= r.failed.size();) {
    const size_t comma = std::min(r.failed.find(',', at), r.failed.size());
    names.push_back(r.failed.substr(at, comma - at));
    at = comma + 1;
  }
  if (r.verdict.size() + 8 > kVerdictCells) return fit(r.verdict, kVerdictCells, false);
  const size_t room = kVerdictCells - r.verdict.size() - 3;  // " (" and ")"
  std::string list;
  for (size_t k = 0; k < names.size(); ++k) {
    const size_t rest = names.size() - k - 1;
    const std::string next = list + (list.empty() ? "" : ",") + names[k];
    if (next.size() + (rest ? 2 + std::to_string(rest).size() : 0) > room) {
      list += (list.empty() ? "+" : ",+") + std::to_string(names.size() - k);
      break;
    }
    list = next;
  }
  return fit(r.verdict + " (" + list + ")", kVerdictCells, false);
}

}  // namespace

void print_summary(std::FILE* f, const std::vector<Row>& rows) {
  const std::string folder = common_folder(rows);
  const bool blocks = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.block != "-"; });
  std::vector<std::vector<std::string>> table = {{"file", "block", "samples", "bits", "H_assessed", "verdict", "seconds"}};
  for (const Row& r : rows) {
    table.push_back({r.file.substr(folder.size()), r.block, r.samples, r.width, r.h_assessed, verdict_cell(r), r.seconds});
  }
  std::vector<size_t> w(table.front().size(), 0);
  for (const auto& line : table) {
    for (size_t k = 0; k < line.size(); ++k) w[k] = std::max(w[k], text_cells(line[k]));
  }
  size_t others = 0;  // the columns after the file's, with their gaps
  for (size_t k = 1; k < w.size(); ++k) others += k == 1 && !blocks ? 0 : w[k] + 2;
  const size_t file_cells = std::max(kMinFileCells, kTableCells > others + 2 ? kTableCells - others - 2 : 0);
  w[0] = 4;
  const std::map<std::string, size_t> shared = shared_ends(table);
  for (auto& line : table) {
    const auto it = shared.find(line[0]);
    line[0] = fit(line[0], file_cells, true, it == shared.end() ? 0 : it->second);
    w[0] = std::max(w[0], text_cells(line[0]));
  }
  for (const auto& line : table) {
    std::string text;
    for (size_t k = 0; k < line.size(); ++k) {
      if (k == 1 && !blocks) continue;
      text += k + 1 == line.size() ? line[k] : line[k] + std::string(w[k] - text_cells(line[k]) + 2, ' ');
    }
    std::fprintf(f, "%s\n", text.c_str());
  }
  if (!folder.empty()) std::fprintf(f, "(files in %s; every column of every row: --csv, --jsonl, -o)\n", folder.c_str());
}

void print_rejections(std::FILE* f, const Rejections& r) {
  if (r.files.size() == 1) {
    std::fprintf(f, "Rejections: %s\n", rejections_sentence(r).c_str());
  } else {
    // Each file on its own count (a file of one item has its verdict in the table), then
    // the total, which judges no file.
    constexpr size_t kShown = 20;
    std::fprintf(f, "Rejections, each file against its own chance bound:\n");
    size_t shown = 0, single = 0;
    for (const auto& x : r.files) {
      if (x.items < 2) {
        ++single;
      } else if (shown++ < kShown) {
        std::fprintf(f, "  %s: %s\n", x.file.c_str(), file_rejections_sentence(x).c_str());
      }
    }
    if (shown > kShown) std::fprintf(f, "  (%zu more files: the HTML report and the batch JSON list each)\n", shown - kShown);
    if (single > 0) std::fprintf(f, "  (%zu file%s of one item: the verdict in the table)\n", single, single == 1 ? "" : "s");
    std::fprintf(f, "  %s\n", rejections_sentence(r).c_str());
  }
  if (r.iterations != 10000 || r.mixed) {
    std::fprintf(f, "  %s: each permutation test rejects IID data with probability up to %.4g (SP 800-90B's 10,000 "
                 "permutations and threshold 5: %.4g)\n",
                 r.mixed ? "mixed --iterations" : ("--iterations " + std::to_string(r.iterations) + ", threshold " +
                                                   std::to_string(r.threshold)).c_str(),
                 permutation_false_rejection_rate(r.iterations, r.threshold), permutation_false_rejection_rate(10000, 5));
  }
  const bool pooled = r.files.size() > 1;
  for (const auto& t : r.tests) {
    if (t.rejected > 0) std::fprintf(f, "  %s%s\n", pooled ? "all files, " : "", test_rejections_line(t, !pooled).c_str());
  }
}

std::string with_expected_by_chance(const std::string& counts, const std::optional<Rejections>& r) {
  if (!r) return counts;
  const std::string tail = " (at most " + expectation_text(r->expected) + " expected by chance for IID data)";
  const std::string key = " not IID";
  const size_t at = counts.find(key);
  if (at != std::string::npos) return counts.substr(0, at + key.size()) + tail + counts.substr(at + key.size());
  // No item was "not IID": say so where the IID count is.
  const size_t iid = counts.find(" IID");
  if (iid != std::string::npos) return counts.substr(0, iid + 4) + ", 0 not IID" + tail + counts.substr(iid + 4);
  return counts;
}

namespace {

std::string number_or_dash(const nlohmann::ordered_json& v, const char* f) {
  return v.is_number() ? fmt(f, v.get<double>()) : std::string("-");
}

// A source row's line: its sequential data, the entropy that stands (hValidated), its IID
// tests' results where they ran, and passed or the steps that failed.
Row source_row(const nlohmann::ordered_json& j, Row row) {
  const auto& flow = j["flow"];
  row.samples = std::to_string(j["files"][0].value("samples", uint64_t{0}));
  row.width = std::to_string(flow.value("bitsPerSample", 0));
  row.h_original = number_or_dash(flow["hOriginal"], "%.6f");
  row.h_bitstring = number_or_dash(flow["hBitstring"], "%.6f");
  row.h_assessed = number_or_dash(flow["hValidated"], "%.6f");
  const auto& seq = j["steps"]["sequential"];
  if (seq.value("type", std::string()) == "IID") {
    row.chi = rows::chi_square_result(seq);
    row.lrs = seq["testCases"][0]["passedLongestRepeatedSubstringTest"].get<bool>() ? "passed" : "failed";
    row.perm = seq["permutation"]["passed"].get<bool>() ? "passed" : "failed";
  } else {
    row.chi = row.lrs = row.perm = "not run";
  }
  std::string failed;
  for (const auto& f : j["failed"]) failed += (failed.empty() ? "" : ",") + f.get<std::string>();
  row.failed = failed.empty() ? "-" : failed;
  row.verdict = std::string("source ") + (j["passed"].get<bool>() ? "passed" : "failed");
  row.seconds = number_or_dash(j["timings"]["total"], "%.2f");
  return row;
}

// A conditioning row's line: h_out per n_out-bit output.
Row conditioning_row(const nlohmann::ordered_json& j, Row row) {
  const auto& c = j["conditioning"];
  row.width = std::to_string(c.value("nOut", uint64_t{0}));
  row.h_assessed = number_or_dash(c["hOut"], "%.6f");
  row.chi = row.lrs = row.perm = "not run";
  row.verdict = std::string("conditioning (") + (c.value("vetted", false) ? "vetted" : "non-vetted") + ")";
  row.seconds = number_or_dash(j["timings"]["total"], "%.2f");
  return row;
}

}  // namespace

// The summary row of a JSONL line (ea_iid merge).
Row row_of_json(const nlohmann::ordered_json& j) {
  auto str = [](const nlohmann::ordered_json& v, const char* f) {
    return v.is_null() ? std::string("-") : fmt(f, v.get<double>());
  };
  const auto& in = j.contains("input") ? j["input"] : nlohmann::ordered_json::object();
  Row row{j.value("filename", std::string("-")),
          in.contains("block") ? std::to_string(in["block"].get<int64_t>()) : "-",
          "-", "-", "-", "-", "-", "-", "-", "-", "-", "", "-"};
  if (j.value("type", std::string()) == "Source" && j.value("errorLevel", 0) == 0) return source_row(j, row);
  if (j.value("type", std::string()) == "Conditioning" && j.value("errorLevel", 0) == 0) return conditioning_row(j, row);
  if (j.value("type", std::string()) == "Restart" && j.contains("restart")) {
    const auto& rs = j["restart"];
    const auto& rows = j["rows"];
    if (!rows.is_null()) {
      row.samples = std::to_string(rows["input"].value("samples", uint64_t{0}));
      row.width = std::to_string(rows["input"].value("bitsPerSymbol", 0));
      if (j["verdict"]["result"] == "passed") row.h_assessed = str(rs["result"], "%.6f");
      const auto& tc = j["testCases"][0];
      row.chi = rows::chi_square_result(j);
      row.lrs = tc["passedLongestRepeatedSubstringTest"].get<bool>() ? "passed" : "failed";
      row.perm = tc["passedIidPermutationTests"].get<bool>() ? "passed" : "failed";
    } else if (in.contains("samples")) {  // a non-IID claim (no IID tests), or a failed sanity check
      row.samples = std::to_string(in.value("samples", uint64_t{0}));
      row.width = std::to_string(in.value("bitsPerSymbol", 0));
      if (j["verdict"]["result"] == "passed") row.h_assessed = str(rs["result"], "%.6f");
      row.chi = row.lrs = row.perm = "not run";
    }
    std::string failed;
    for (const auto& f : j["verdict"]["failed"]) failed += (failed.empty() ? "" : ",") + f.get<std::string>();
    row.failed = failed.empty() ? "-" : failed;
    row.verdict = "restart " + j["verdict"]["result"].get<std::string>();
    row.seconds = str(j["timings"]["total"], "%.2f");
  } else if (j.value("type", std::string()) == "Non-IID" && j.contains("nonIid")) {
    const auto& x = j["nonIid"];
    row.samples = std::to_string(in.value("samples", uint64_t{0}));
    row.width = std::to_string(in.value("bitsPerSymbol", 0));
    row.h_original = x["hOriginal"].is_null() ? "-" : str(x["hOriginal"], "%.6f");
    row.h_bitstring = x["hBitstring"].is_null() ? "-" : str(x["hBitstring"], "%.6f");
    row.h_assessed = str(j["assessedMinEntropy"], "%.6f");
    row.chi = row.lrs = row.perm = "not run";
    row.failed = "-";
    const auto& low = x["lowest"];
    row.verdict = low.is_null() ? "non-IID estimate"
                                : "non-IID estimate (" + low["input"].get<std::string>() + " " +
                                      low["estimator"].get<std::string>() + ")";
    row.seconds = str(j["timings"]["total"], "%.2f");
  } else if (j.contains("skipped")) {
    row.verdict = "skipped: " + j["skipped"].get<std::string>();
  } else if (j.value("errorLevel", 0) != 0) {
    row.verdict = (rows::text(j, "errorKind") == "degenerate" ? "degenerate: " : "error: ") + rows::text(j, "errorMessage");
  } else {
    row.samples = std::to_string(in.value("samples", uint64_t{0}));
    row.width = std::to_string(in.value("bitsPerSymbol", 0));
    row.h_original = j["estimates"]["hOriginal"].is_null() ? "-" : str(j["estimates"]["hOriginal"]["minEntropy"], "%.6f");
    row.h_bitstring =
        j["estimates"]["hBitstring"].is_null() ? "-" : str(j["estimates"]["hBitstring"]["minEntropy"], "%.6f");
    const auto& tc = j["testCases"][0];
    row.chi = rows::chi_square_result(j);
    row.lrs = tc["passedLongestRepeatedSubstringTest"].get<bool>() ? "passed" : "failed";
    row.perm = j["permutation"]["passed"].get<bool>() ? "passed" : "failed";
    row.verdict = j["verdict"]["result"].get<std::string>();
    row.seconds = str(j["timings"]["total"], "%.2f");
    row.h_assessed = str(j["assessedMinEntropy"], "%.6f");
    // At most a few names: more are counted (the list is in the JSON, CSV and HTML).
    const auto names = failed_tests(j);
    std::string failed;
    for (const auto& t : names) failed += (failed.empty() ? "" : ",") + t;
    if (failed.size() > 32) failed = std::to_string(names.size()) + " tests";
    row.failed = failed.empty() ? "-" : failed;
  }
  return row;
}

}  // namespace ea
