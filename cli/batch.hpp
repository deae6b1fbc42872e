// Batch mode: several files and/or --blocks, --jsonl, a summary table, one exit code.
#pragma once

#include <atomic>
#include <string>

#include "assess.hpp"
#include "options.hpp"
#include "outcome.hpp"
#include "output.hpp"

namespace ea::cli {

// Runs every assessment of the batch in input order with `base` (seed = the batch seed,
// from which each assessment's seed is derived). `signal_number` becomes non-zero on
// SIGINT/SIGTERM, and `interrupt` true: no new assessment starts, the one running stops,
// and the finished ones stay written. No output touches an input of `inputs`; a write that
// fails is that item's error. Throws Error{Usage|Output} before any work when an output
// cannot be used.
Outcome run_batch(const Options& o, const std::string& started, const AssessConfig& base, const InputSet& inputs,
                  const std::atomic<bool>& interrupt, const std::atomic<int>& signal_number);

}  // namespace ea::cli
