// What the report files read from a row (an item's JSON record): its kind and the pieces
// the CSV and the HTML share (report/files.cpp defines them).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ea::rows {

using nlohmann::ordered_json;

// A --restart row (its errorLevel is -1 when the sanity check or the validation failed, as
// NIST writes it, but it is a result, not an error).
bool is_restart(const ordered_json& r);
bool is_non_iid(const ordered_json& r);     // a --non-iid row: the ten estimates, no IID tests
bool is_assessment(const ordered_json& r);  // an IID-track result
// The assessments a row holds: itself, or a restart run's rows and columns.
std::vector<const ordered_json*> parts_of(const ordered_json& r);
std::string number(const ordered_json& v, const char* printf_format);  // "" for a non-number
// j[key] when j is an object and that is a string, else "": for fields the record reader does
// not check (a damaged row reaches the reports as its reader let it).
std::string text(const ordered_json& j, const char* key);
std::string csv_field(const std::string& text);
std::string html_escape(const std::string& s);
std::string block_of(const ordered_json& r);  // "" without --blocks
// The chi-square tests of an item read together from their JSON "result" fields (one source
// for the CSV, the summary table and the failed tests): "failed" when either failed, else
// "not evaluated" when either could not be (too few samples), else "passed"; a restart row's
// rows and columns together the same way.
std::string chi_square_result(const ordered_json& r);
// Why not for compliance, why skipped, the error message, which non-IID estimate sets the
// minimum: "; "-separated.
std::string note_of(const ordered_json& r);
std::vector<std::string> notes_of(const ordered_json& r);  // the same, one per entry
std::string seed_text(const ordered_json& decimal);        // "0x" and 16 hex digits
std::string iso_date(const ordered_json& r);               // dateTimeStamp as 2026-11-25T19:47:00Z

}  // namespace ea::rows
