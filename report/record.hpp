// The one reader of result rows: a JSON record (a --jsonl line, an -o file) checked against
// the schema's fields that anything downstream reads and against its own consistency (the
// verdict against its tests), then summarised. Resume, merge, the summary table, the verdict
// counts and the exit status all read rows through it, new results included (their record
// is made by result_json and read back here), so a row is judged the same wherever it
// comes from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/interrupt.hpp"
#include "report_options.hpp"
#include "settings_fields.hpp"
#include "result.hpp"
#include "summary.hpp"

namespace ea {

// A batch row's place in its run: its "run" object (docs/json.md), checked by read_record
// wherever a row has one.
struct RunPlace {
  uint64_t item = 0, items = 0;       // its index in the whole list, and the list's length
  std::optional<std::string> list;    // the list's digest (absent in rows of older versions)
  std::optional<std::pair<uint64_t, uint64_t>> shard;  // --shard K/N
  uint64_t shares() const { return shard ? shard->second : 1; }
};

struct Record {
  // Source: a row of `ea_iid source` (its steps each read as a record); Conditioning: a row of
  // `ea_iid conditioning`.
  enum class Kind { Assessment, Restart, NonIid, Source, Conditioning, Skipped, Error };
  Kind kind = Kind::Error;
  nlohmann::ordered_json json;  // the row as written
  std::string path;             // input.path, else filename
  int64_t block = -1;
  std::optional<Verdict> verdict;      // Assessment; Source: its IID tests' (a non-IID result has none)
  std::optional<Check> check;          // Restart: the restart tests passed, failed or inconclusive; Source: passed or failed
  bool for_compliance = false;         // Assessment, Restart, NonIid and Source
  std::optional<std::string> user_seed;  // the run's --seed, where the row records it
  bool degenerate = false;             // Error: errorKind "degenerate" (the samples hold one value)
  std::optional<RunPlace> run;         // a batch row's "run"
  Row row;                             // its line of the summary table

  bool result() const { return kind != Kind::Skipped && kind != Kind::Error; }
};

// The value at a dotted path of a row ("permutation.userSeed") as text: a string's contents,
// else its JSON; "" where any part is missing. (resume and merge compare settings with it.)
std::string recorded_text(const nlohmann::ordered_json& j, const std::string& path);
// A setting's value in a record at `path` (f.record_in(...), perhaps under a prefix): the
// key's text, or the field's `absent` text for a record written before the setting existed.
std::string recorded_setting(const nlohmann::ordered_json& j, const SettingField& f, const std::string& path);

// Checks and summarises one row: first against its kind's definition in the schema
// (record_schema(): every field's type and range, the required fields, no undocumented
// one), then by hand what the schema cannot say (a verdict against its tests, a minimum
// against its estimates, a source's flow against its steps). Throws Error{Input} "WHERE:
// FIELD: what is wrong" (WHERE is FILE:LINE or a file name) for a row that is not an ea_iid
// record, breaks the schema, or contradicts itself.
Record read_record(nlohmann::ordered_json j, const std::string& where);

// The record of a new result (result_json read back through read_record); `seconds` is the
// item's whole time (its summary row shows it).
Record record_of(const ItemResult& r, const std::string& path, int64_t block, const ReportOptions& o);

// The lines of a JSONL file, each read by read_record. A last line without its newline (cut
// off by a crash) is left out and `torn` set; any other line that is not a record throws
// Error{Input} with FILE:LINE (the first such line). A missing file is empty. The lines are
// read on every core (OpenMP). `interrupt` set: throws Error{Interrupted}, each thread
// reading no further line (a merge of thousands of rows reads for seconds).
struct JsonlRows {
  std::vector<Record> rows;
  std::vector<size_t> lines;  // each row's line number
  bool torn = false;
  uint64_t bytes = 0;  // the size of the file as read
};
JsonlRows read_jsonl_rows(const std::string& path, Interrupt interrupt = nullptr);

// What the rows of one batch run share: the list's digest, the seed, the list's length, the
// number of shares and the result-changing settings their assessments record
// (settings_fields). `ea_iid merge` starts with none set (the first row sets them);
// `--resume` sets list, seed, items and shares to this run's first.
struct RunIdentity {
  std::optional<std::string> list, seed, settings_from;
  std::optional<uint64_t> items, shares;
  std::map<std::string, std::string> settings;  // option -> the recorded value
  std::string set_by = "the first line's";      // whose the values are, for messages
};
// The one check of a row's "run" against the run it is read into (merge and --resume):
// a row without a valid "run", without the list digest or the seed, or whose list, seed,
// length, shares or settings differ from `id`'s, or an assessment row whose permutations
// this ea_iid would make by another shuffle (permutation.shuffle against
// engine_shuffle_name: a row of an older ea_iid), throws Error{Input} "WHO: WHERE: ...";
// what `id` lacks is set from the row.
void check_same_run(const Record& row, const std::string& where, RunIdentity& id, const std::string& who);

// The IID assessments a row holds (the row itself, a restart row's rows and columns, a
// source row's sequential step and its restart test's rows and columns): one whose
// permutation.shuffle is not the one this ea_iid makes for its generator, sample count and
// alphabet (engine_shuffle_name: a row of an ea_iid before the bucket shuffle) throws
// Error{Input} "WHERE-PREFIX[what: ]its permutations were made by ...". check_same_run calls
// it; so do the manifest's --resume and merge.
void check_row_shuffle(const Record& row, const std::string& at);

// The verdicts of a set of rows, for the summary line and the exit status.
struct Tally {
  size_t results = 0, errors = 0, skipped = 0;
  size_t degenerate = 0;  // of the errors, those of a degenerate source (errorKind "degenerate")
  size_t judged = 0;  // results with an IID verdict or a check (not --non-iid ones)
  bool not_iid = false;  // an IID verdict "not IID"
  bool failed = false;   // a check (restart tests) failed
  bool inconclusive = false, not_compliant = false;  // a verdict or check inconclusive
  void add(const Record& r);
  bool all_iid() const { return !not_iid && !failed && !inconclusive; }
};

}  // namespace ea
