// ea_iid source --manifest sources.json [-o DIR/] [--jsonl F] [--html F] [--csv F] [--resume]
// [engine options]: every source of a manifest (pipeline/manifest.hpp) through the flow of
// `ea_iid source` (cli/manifest.cpp; docs/manifest.md).
#pragma once

#include <atomic>
#include <string>
#include <optional>
#include <string>
#include <vector>

#include "lab.hpp"
#include "manifest.hpp"
#include "outcome.hpp"
#include "output.hpp"

namespace ea::cli {

// The inputs of a manifest run or package: the manifest (`path`, where given) and every
// source's files (samples, restart data, conditioned data), so that no output touches one.
InputSet manifest_inputs(const Manifest& m, const std::string& path);

// Whether the arguments of `ea_iid source` ask for a manifest (--manifest or --manifest=F).
bool manifest_requested(const std::vector<char*>& args);

// `args`: after the program's name (args[0] "ea_iid source"). `interrupt` and `signal_number`
// as for source_command: an interrupted run stops between sources, keeps the rows written,
// and exits 130/143.
int manifest_command(std::vector<char*> args, const std::string& command_line, const std::atomic<bool>& interrupt,
                     const std::atomic<int>& signal_number);

// The exit outcome over a manifest run's sources: an error (2; a degenerate source alone: 5),
// else a step failed (1 with --exit-code) and not for compliance (4 with --strict).
Outcome lab_outcome(const std::vector<LabRow>& rows);

// `ea_iid merge OUT IN...` of the shares of a manifest run (ea_iid source --manifest --shard
// K/N --jsonl), called by merge_shares when the inputs hold source rows (report/manifest_run.hpp's
// holds_source_rows): `files` as merge_shares gets them (OUT first), `outputs` the checked
// (option, path) pairs in the order they are written ("merge": OUT, then --csv and --html if
// given). Writes OUT (the rows in manifest order), --csv and --html (the lab summary) and,
// unless `quiet`, the lab table. Throws Error{Input} for shares of another run,
// Error{Interrupted} when `interrupt` is set while the shares are read or before an output
// (naming those written: OutputsInOrder).
Outcome merge_source_shares(const std::vector<std::pair<std::string, std::string>>& outputs,
                            const std::vector<std::string>& files, bool quiet, const InputSet& inputs,
                            const std::atomic<bool>* interrupt);

}  // namespace ea::cli
