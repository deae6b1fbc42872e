// Every assessment of ea_iid runs here: the items of the command line (one file, an -l
// range, several files, --blocks) through ea::run_items(), and their results written as
// the mode asks: a single item's text report and -o FILE, or a batch's --jsonl, -o DIR/
// and summary table.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "assess.hpp"
#include "options.hpp"
#include "outcome.hpp"
#include "output.hpp"
#include "record.hpp"
#include "report_options.hpp"
#include "runner.hpp"

namespace ea::cli {

// A seed drawn from the operating system (a run without --seed records and prints it).
uint64_t os_seed();

// The progress of one assessment on standard error (RunObserver::progress): a line redrawn
// on a terminal; without one (a log, CI) plain lines, at verbose >= 1 one per round at most
// once a second (and the last), else one every 10 seconds of a long run, with the time the
// phase is expected still to take. Null when `quiet`. `label`: before each line ("NAME: "), to
// tell apart the sources of a manifest run with --jobs; "" for none.
std::function<void(int, const char*, uint32_t, int, uint32_t)> progress_lines(bool quiet, int verbose, uint32_t iterations,
                                                                         const std::string& label = "");

// The report options of a run (the library's ReportOptions) from the command line.
ReportOptions report_options(const Options& o, const std::string& started);

// Runs the items of `o` with the settings of `o` made complete once (the seed: --seed, else
// with --resume the earlier run's, else drawn from the OS; the threads: --threads, else
// every core). `signal_number` becomes
// non-zero on SIGINT/SIGTERM and `interrupt` true: no new assessment starts, the running
// ones stop, and the finished ones stay written. No output touches an input of `inputs`; a
// write that fails is that item's error. Throws Error{Usage|Output} before any work when an
// output cannot be used.
Outcome run_assessments(Engine& engine, const Options& o, const std::string& started, const InputSet& inputs,
                        const std::atomic<bool>& interrupt, const std::atomic<int>& signal_number);

// -o of a single assessment that names a folder (ends in '/', or is an existing folder): the
// file a batch would write for it there, DIR/NAME.json (the folder made if missing; an input
// there refused), so that -o DIR/ means the same for one file as for several. Any other -o:
// unchanged. Throws Error{Usage|Output} as a batch's -o DIR/ does.
std::string single_json_path(const Options& o, const InputSet& inputs);
// A batch's -o that names a file (not ending in '/', not a folder): one JSON document of the
// whole batch (batch_json), written at its end.
bool batch_document(const Options& o);

// The exit outcome of a set of rows (errors, verdicts, nothing assessed), and the batch's
// last line for them.
Outcome outcome_of(const Tally& t);
std::string summary_line(const Tally& t, size_t rows, bool any_error);

// ea_iid merge [--force] [-q] OUT.jsonl IN.jsonl...: the JSONL files of the shares of one
// list (--shard K/N) joined into OUT in list order, after checking that they come from one
// list and hold every item exactly once; the summary table; the batch's outcome. Throws
// Error{Usage|Input|Output} (a missing share, a duplicate, a cut-off last line). `interrupt`
// (SIGINT/SIGTERM) is looked at once the shares are read and before each output: Error{Interrupted},
// each file written so far whole, no temporary file left. Its command line: merge_main
// (cli/commands.hpp).
struct MergeOptions {
  std::vector<std::string> files;  // OUT first, then the shares
  std::optional<std::string> csv, html;
  bool force = false, quiet = false;
  const std::atomic<bool>* interrupt = nullptr;
};
Outcome merge_shares(const MergeOptions& m);

}  // namespace ea::cli
