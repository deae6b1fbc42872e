// The summary table of a batch (and of ea_iid merge): one row per item, from its JSON record
// (report/record.hpp reads every row, new or kept or merged, the same way).
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rejections.hpp"
#include "result.hpp"

namespace ea {

struct Row {
  std::string file, block, samples, width, h_original, h_bitstring, h_assessed, chi, lrs, perm, failed, verdict, seconds;
};

std::string fmt(const char* f, double v);  // snprintf of one number
// The terminal cells of text: one per UTF-8 character (code point), one per byte that is not
// part of a valid UTF-8 character; the tables pad and cut by them, never inside a character.
size_t text_cells(const std::string& s);
// The first / last `cells` characters of `s` (all of it when it has fewer).
std::string first_cells(const std::string& s, size_t cells);
std::string last_cells(const std::string& s, size_t cells);
void print_summary(std::FILE* f, const std::vector<Row>& rows);
// The rejection counts of many IID results against chance: the sentence, a line for the
// rule when it is not SP 800-90B's, and a line per test that rejected any item.
void print_rejections(std::FILE* f, const Rejections& r);
// The verdict counts with the chance expectation after the "not IID" count: "991 IID, 9 not
// IID (at most 25.8 expected by chance for IID data), 2 errors"; as given without IID results.
std::string with_expected_by_chance(const std::string& counts, const std::optional<Rejections>& r);
// The row of a JSON record (read_record checked it first).
Row row_of_json(const nlohmann::ordered_json& j);

}  // namespace ea
