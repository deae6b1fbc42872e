// Rendering an Assessment: text on stdout, JSON to a file. Only cli/ prints.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "assess.hpp"
#include "restart.hpp"
#include "common/error.hpp"
#include "options.hpp"

namespace ea::cli {

void print_text(std::FILE* out, const Assessment& a, const Options& o);

// Pieces of NIST's -v -v -v text of one assessment, which ea_restart prints for the rows
// and then the columns: the chi-square lines, the LRS lines, and the unpermuted
// statistics with the table of counters.
void nist_chi_square_lines(std::FILE* f, const Assessment& a);
void nist_lrs_lines(std::FILE* f, const Assessment& a);
void nist_permutation_block(std::FILE* f, const Assessment& a);

// `block`: the block index with --blocks, else -1.
nlohmann::ordered_json assessment_json(const Assessment& a, const Options& o, const std::string& started,
                                       int64_t block = -1);
// `filename`: the file the error belongs to (default: the first file); `sha256`: of the
// bytes read before the error ("" when none were).
nlohmann::ordered_json error_json(const Options& o, const std::string& started, const std::string& message,
                                  ErrorKind kind, const std::string& sha256 = "", const std::string* filename = nullptr,
                                  int64_t block = -1);

// A JSONL row for an item that was not assessed (a short last block), and why.
nlohmann::ordered_json skipped_json(const Options& o, const std::string& started, const std::string& path,
                                    int64_t block, const std::string& reason);

// --restart: the text (ours, or NIST ea_restart's with --format nist or -v -v -v) and the JSON.
void print_restart_text(std::FILE* out, const RestartAssessment& r, const Options& o);
nlohmann::ordered_json restart_json(const RestartAssessment& r, const Options& o, const std::string& started);

std::string timestamp_now();

}  // namespace ea::cli
