// The summary table of a batch (and of ea_iid merge): one row per item, from its JSON record
// (report/record.hpp reads every row, new or kept or merged, the same way).
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "result.hpp"

namespace ea {

struct Row {
  std::string file, block, samples, width, h_original, h_bitstring, h_assessed, chi, lrs, perm, failed, verdict, seconds;
};

std::string fmt(const char* f, double v);  // snprintf of one number
void print_summary(std::FILE* f, const std::vector<Row>& rows);
// The row of a JSON record (read_record checked it first).
Row row_of_json(const nlohmann::ordered_json& j);

}  // namespace ea
