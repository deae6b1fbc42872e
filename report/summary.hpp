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
void print_summary(std::FILE* f, const std::vector<Row>& rows);
// The rejection counts of many IID results against chance: the sentence, a line for the
// rule when it is not SP 800-90B's, and a line per test that rejected any item.
void print_rejections(std::FILE* f, const Rejections& r);
// The last line's tail for rows whose IID results were counted: " (at most 6.6 expected by
// chance for IID data)"; empty without IID results.
std::string expected_by_chance(const std::optional<Rejections>& r);
// The row of a JSON record (read_record checked it first).
Row row_of_json(const nlohmann::ordered_json& j);

}  // namespace ea
