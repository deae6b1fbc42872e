// The summary table of a batch (and of ea_iid merge): one row per item, from its result or
// from its JSON line.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner.hpp"

namespace ea::cli {

struct Row {
  std::string file, block, samples, width, h_original, h_bitstring, h_assessed, chi, lrs, perm, failed, verdict, seconds;
};

std::string fmt(const char* f, double v);  // snprintf of one number
void print_summary(std::FILE* f, const std::vector<Row>& rows);
Row row_of(const Item& it, const ItemResult& r);
Row row_of_json(const nlohmann::ordered_json& j);  // a JSONL line (resume, merge)

}  // namespace ea::cli
