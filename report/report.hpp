// The renderers of a result: our text and NIST's (to a FILE* the caller gives), and the
// JSON record. Library code: they print only where the caller says.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "assess.hpp"
#include "conditioning.hpp"
#include "health.hpp"
#include "restart.hpp"
#include "source.hpp"
#include "common/error.hpp"
#include "report_options.hpp"
#include "result.hpp"

namespace ea {

// The version of every JSON record ea_iid writes (`schemaVersion`; docs/json.md,
// docs/ea_iid.schema.json): bumped when a field changes meaning or is removed.
inline constexpr int kSchemaVersion = 2;

void print_text(std::FILE* out, const Assessment& a, const ReportOptions& o);
// A result's warning that NIST's own text prints where NIST prints it (the narrower-symbols
// and short-data warnings): at --format nist the caller says it no second time.
bool warning_in_nist_text(const std::string& warning);
// Our text's first part (the estimates, chi-square and LRS), which a single run prints as soon
// as it is known (Hooks::tested); print_text then leaves it out (ReportOptions::head_shown).
void print_text_head(std::FILE* out, const Assessment& a, const ReportOptions& o);

// Pieces of NIST's -v -v -v text of one assessment, which ea_restart prints for the rows
// and then the columns: the chi-square lines, the LRS lines, and the unpermuted
// statistics with the table of counters.
void nist_chi_square_lines(std::FILE* f, const Assessment& a);
void nist_lrs_lines(std::FILE* f, const Assessment& a);
void nist_permutation_block(std::FILE* f, const Assessment& a);
// The same at NIST's level 2 (-v): the MCV line, the chi-square blocks, the LRS block, the
// initial test results and the table; and the level-3 MCV lines ("Literal Most Common Value
// Estimate: Mode count = ...").
void nist_mcv_line_v(std::FILE* f, const char* kind, const McvEstimate& m);
void nist_chi_square_lines_v(std::FILE* f, const Assessment& a);
void nist_lrs_lines_v(std::FILE* f, const Assessment& a);
void nist_permutation_block_v(std::FILE* f, const Assessment& a);
void nist_mcv_lines(std::FILE* f, const McvEstimate& m);

// `block`: the block index with --blocks, else -1.
nlohmann::ordered_json assessment_json(const Assessment& a, const ReportOptions& o,
                                       int64_t block = -1);
// `filename`: the file the error belongs to (default: the first file); `sha256`: of the
// bytes read before the error ("" when none were).
nlohmann::ordered_json error_json(const ReportOptions& o, const std::string& message,
                                  ErrorKind kind, const std::string& sha256 = "", const std::string* filename = nullptr,
                                  int64_t block = -1);

// A JSONL row for an item that was not assessed (a short last block), and why.
nlohmann::ordered_json skipped_json(const ReportOptions& o, const std::string& path,
                                    int64_t block, const std::string& reason);

// --restart: the text (ours, or NIST ea_restart's with --format nist or -v -v -v) and the JSON.
void print_restart_text(std::FILE* out, const RestartAssessment& r, const ReportOptions& o);
nlohmann::ordered_json restart_json(const RestartAssessment& r, const ReportOptions& o);

// One noise source through SP 800-90B 3.1 (report/source.cpp): our text, the JSON (each
// step's own record inside it), and a self-contained HTML page made from that JSON.
void print_source_text(std::FILE* f, const SourceAssessment& a, const ReportOptions& o);
nlohmann::ordered_json source_json(const SourceAssessment& a, const ReportOptions& o);
// `json_path`: where the JSON report was written with the page ("" none, "-" standard output).
std::string source_html(const nlohmann::ordered_json& report, const std::string& json_path = "");

// The conditioning component (report/conditioning.cpp): NIST ea_conditioning's text (with
// `quiet`, its -q: only the precision lines), our text (NIST's with o.nist_level >= 0 or
// o.nist_format), and the JSON record.
void print_nist_conditioning(std::FILE* f, const ConditioningAssessment& a, bool quiet);
void print_conditioning_text(std::FILE* f, const ConditioningAssessment& a, const ReportOptions& o);
nlohmann::ordered_json conditioning_json(const ConditioningAssessment& a, const ReportOptions& o);

// The health tests' cutoffs (report/health.cpp; ea_iid health-tests H): our text and the JSON
// record (type "HealthTests"; docs/json.md).
void print_health_text(std::FILE* f, const HealthAssessment& a, const ReportOptions& o);
nlohmann::ordered_json health_json(const HealthAssessment& a, const ReportOptions& o);
// The cutoffs alone (h, alpha, alphaLog2, bits, binary, rct, apt, notes): the record's keys,
// and the source report's healthTests section.
nlohmann::ordered_json health_cutoffs_json(const HealthAssessment& a);
// "9.54e-07 (2^-20.00)" ("0" for 0), and alpha as "2^-20" when a power of two (else %.17g).
std::string health_probability_text(double p);
std::string health_alpha_text(double alpha);

// The non-IID track (report/non_iid.cpp): NIST ea_non_iid's text at its verbosity `level`
// (1: its default, 2: -v, 3: -v -v), our text, our JSON record, and the "nonIid" object
// (also part of an IID record whose verdict sent it on to the non-IID track).
void print_nist_non_iid(std::FILE* f, const NonIidAssessment& a, int level);
void print_non_iid_text(std::FILE* out, const NonIidAssessment& a, const ReportOptions& o);
nlohmann::ordered_json non_iid_json(const NonIidAssessment& a, const ReportOptions& o, int64_t block);
nlohmann::ordered_json non_iid_estimates_json(const NonIidEstimates& x, int width);
// NIST's testCaseDesc of an estimator ("Most Common Value", "Collision Test (for bit strings
// only)", ...), as ea_non_iid and ea_restart -n write it.
const char* estimator_test_case_desc(NonIidEstimator e);
// Our estimate tables: a cell ("7.865118", "n/a", "" when not run) and a line (the name and
// two cells, without trailing blanks).
std::string estimate_cell(const std::optional<Estimate>& est);
void estimate_table_line(std::FILE* f, const std::string& name, const std::string& a, const std::string& b);
// NIST ea_restart -n's lines of the row and column data sets' estimates at its verbosity
// `level` (2: -v, the summary lines with "(Rows)"/"(Cols)"; 3: -v -v, each estimate's
// values too); nothing at level 1.
void print_nist_restart_estimates(std::FILE* f, const NonIidEstimates& rows, const NonIidEstimates& cols, int width,
                                  int level);
// Our text lines of a set of non-IID estimates: a line per estimator (literal, bitstring),
// H_original, H_bitstring, and which estimate sets the minimum.
void print_non_iid_estimates(std::FILE* f, const NonIidEstimates& x, int width, const ReportOptions& o);

// The fields every JSON record opens with, in NIST's order: dateTimeStamp, filename,
// commandline, sha256, errorLevel (then errorMessage when given), type, toolVersion, build.
nlohmann::ordered_json json_envelope(const ReportOptions& o, const std::string& filename, const std::string& sha256,
                                     int error_level, const std::string* error_message, const char* type);

// The one JSON record of an item (an IID assessment, a restart run, an error or a skipped
// item), as -o writes it and as every --jsonl line holds it (without "run"). `path` and
// `block` are the item's (block -1: not a block).
nlohmann::ordered_json result_json(const ItemResult& r, const std::string& path, int64_t block,
                                   const ReportOptions& o);

// The JSON "input" object's facts of any result (path, block when >= 0, samples,
// bitsPerSymbol, alphabetSize, translated, subset, warnings, sampleRule, mapping).
nlohmann::ordered_json input_facts_json(const InputFacts& a, int64_t block, const std::vector<std::string>& warnings);
// The text header's line of the sample format and the symbol rule ("" for u8 samples taken
// as they are, so NIST's text stays NIST's), ending in a newline.
std::string mapping_line(const SampleMapping& m);
// What the symbol rule did (input.mapping): null for u8 samples taken as they are.
nlohmann::ordered_json mapping_json(const SampleMapping& m);

// The text of a record for a file: bytes of a name that are not UTF-8 become U+FFFD rather
// than abort the write (the row, and every other row, is kept).
// Names that are not valid UTF-8 also get "filenameBytes" (json_envelope), read back by
// read_record.
std::string dump_json(const nlohmann::ordered_json& j, int indent = -1);

// Whether `s` is valid UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
bool valid_utf8(const std::string& s);

// The text of an assessed result on `out` (nothing for other statuses, or with o.quiet).
void print_result_text(std::FILE* out, const ItemResult& r, const ReportOptions& o);

// Every key of --gpu-tuning with its value, as recorded in the JSON ("gpuTuning"; keys in
// camelCase: memoryShare, firstRound, ...).
nlohmann::ordered_json gpu_tuning_json(const GpuTuning& t);

}  // namespace ea
