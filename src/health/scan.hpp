// The continuous health tests (SP 800-90B 4.4) run over a sequence of samples with given
// cutoffs: what `ea_iid health-tests H FILE...` reports per file, and what the Monte Carlo
// check (health/simulate.hpp) counts. The conventions (docs/health-tests.md):
// - RCT (4.4.1): A run of identical samples fails the test at its C-th sample (NIST's loop
//   signals when B reaches C). A run of C or more samples is one failure: its further samples
//   are the same failure going on, not new ones.
// - APT (4.4.2): disjoint windows of W samples from the first (0, W, 2W, ...); a window's
//   count B starts at 1 with its first sample (A) and adds each of the next W - 1 samples equal
//   to A; the window fails at the sample where B reaches C (once per window). A last window
//   cut short by the data's end is scanned as far as it goes (a source's test would signal
//   there too).
// Offsets are 0-based sample indices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace ea {

struct RctScan {
  uint64_t failures = 0;                 // runs of at least C identical samples
  std::optional<uint64_t> first_failure; // the C-th sample of the first such run
  uint64_t longest_run = 0;              // the longest run (0 for no samples)
  uint64_t longest_run_offset = 0;       // its first sample (the first of the longest)
};

struct AptScan {
  uint64_t windows = 0;                  // windows scanned (the last may be short)
  uint64_t failures = 0;                 // windows whose count reached C
  std::optional<uint64_t> first_failure; // the sample where the first failing window's count reached C
  uint64_t largest_count = 0;            // the largest count B of any window
  uint64_t largest_window_offset = 0;    // that window's first sample (the first of the largest)
};

RctScan scan_rct(const uint8_t* samples, size_t n, uint64_t cutoff);
AptScan scan_apt(const uint8_t* samples, size_t n, uint32_t window, uint64_t cutoff);

}  // namespace ea
