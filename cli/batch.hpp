// Batch mode: several files and/or --blocks, --jsonl, a summary table, one exit code.
#pragma once

#include <atomic>
#include <string>

#include "assess.hpp"
#include "options.hpp"

namespace ea::cli {

// Runs every assessment of the batch in input order with `base` (seed = the batch seed,
// from which each assessment's seed is derived). `signal_number` becomes non-zero on
// SIGINT/SIGTERM, and `interrupt` true: no new assessment starts, the one running stops,
// and the finished ones stay written. Returns the exit code.
int run_batch(const Options& o, const std::string& started, const AssessConfig& base,
              const std::atomic<bool>& interrupt, const std::atomic<int>& signal_number);

}  // namespace ea::cli
