// The report files of a batch: --csv (one row per item) and --html (one self-contained
// page). Both are made from the items' JSON (assessment, error or skipped), so rows kept by
// --resume and rows joined by ea_iid merge are reported like new ones.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ea {

// The failed tests of an item's JSON: "chi-square", "LRS" and the permutation tests' names.
std::vector<std::string> failed_tests(const nlohmann::ordered_json& row);

// The verdict of a row in words: "IID", "not IID", "inconclusive", "non-IID estimate",
// "restart passed", "restart failed", "skipped", "degenerate" (one symbol only), "error".
std::string verdict_of(const nlohmann::ordered_json& row);
// "991 IID, 9 not IID, 2 errors": the rows' verdicts counted, in a fixed order.
std::string verdict_counts(const std::vector<nlohmann::ordered_json>& rows);

// CSV (RFC 4180), a header and one line per row, in the given order. Columns (docs/report.md):
// file, block, samples, bits_per_sample, h_original_bits_per_sample, h_bitstring_bits_per_bit,
// h_assessed_bits_per_sample, chi_square, lrs, permutation, failed_tests, verdict,
// for_compliance, seconds, sha256, seed (0x and 16 hex digits), note, tool_version, date_utc.
std::string csv_report(const std::vector<nlohmann::ordered_json>& rows);

// One HTML page (no script, no external resource): the summary table, the count of each
// verdict, and per assessed item an SVG of each statistic's rank among its permutations and
// an SVG histogram of the sample values.
std::string html_report(const std::vector<nlohmann::ordered_json>& rows, const std::string& command_line);

// A batch's one JSON document (-o FILE.json with several items): the run's envelope, the
// verdicts counted, the rejections against chance (rejections_json; null without IID
// results) and every item's record in list order ("rows").
nlohmann::ordered_json batch_json(const std::vector<nlohmann::ordered_json>& rows, const struct ReportOptions& o);

// Pieces of the pages, for other reports (the per-source report): text made safe for HTML;
// the SVG bars of a "nonIid" object's estimates; an assessment record's rank and histogram
// figures.
std::string html_text(const std::string& s);
// A CSV cell (RFC 4180 quoting; a cell a spreadsheet would run as a formula kept as text).
std::string csv_cell(const std::string& s);
std::string estimates_figure(const nlohmann::ordered_json& estimates, int bits);
std::string ranks_figure(const nlohmann::ordered_json& assessment);
std::string histogram_figure(const nlohmann::ordered_json& assessment);

}  // namespace ea
