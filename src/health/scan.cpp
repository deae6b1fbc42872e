#include "health/scan.hpp"

namespace ea {

RctScan scan_rct(const uint8_t* samples, size_t n, uint64_t cutoff) {
  RctScan r;
  uint64_t start = 0, length = 0;
  for (size_t i = 0; i < n; ++i) {
    if (length > 0 && samples[i] == samples[start]) {
      ++length;
    } else {
      start = i;
      length = 1;
    }
    if (length == cutoff) {
      ++r.failures;
      if (!r.first_failure) r.first_failure = i;
    }
    if (length > r.longest_run) {
      r.longest_run = length;
      r.longest_run_offset = start;
    }
  }
  return r;
}

AptScan scan_apt(const uint8_t* samples, size_t n, uint32_t window, uint64_t cutoff) {
  AptScan a;
  if (window == 0) return a;
  for (size_t start = 0; start < n; start += window) {
    const size_t end = n - start < window ? n : start + window;
    const uint8_t first = samples[start];
    uint64_t count = 0;
    for (size_t i = start; i < end; ++i) {
      if (samples[i] != first) continue;
      if (++count == cutoff) {
        ++a.failures;
        if (!a.first_failure) a.first_failure = i;
      }
    }
    ++a.windows;
    if (count > a.largest_count) {
      a.largest_count = count;
      a.largest_window_offset = start;
    }
  }
  return a;
}

}  // namespace ea
