// One run (chunk) of the health tests' Monte Carlo check (health/simulate.hpp), for the host
// and the device alike (cuda/health_simulate.cuh): the simulated source's draw and both tests
// counted online, by the conventions of health/scan.hpp (test_health_scan checks the counts
// equal scan_rct's and scan_apt's over the same samples).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/hd.hpp"
#include "rng/philox_stream.hpp"

namespace ea {

// Value 0 when a 64-bit word (two Philox outputs, the first the high half) is below
// `threshold` (p = threshold / 2^64), else one of the other alphabet - 1 values, exactly
// uniform (Lemire's bounded draw on a further word; none for a binary source).
struct SimulatedSourceDraw {
  uint64_t threshold = 0;
  uint32_t alphabet = 2;
  EA_HD EA_FORCEINLINE uint8_t next(PhiloxStream& s) const {
    const uint64_t hi = s.next();
    const uint64_t u = (hi << 32) | s.next();
    if (u < threshold) return 0;
    return alphabet == 2 ? uint8_t{1} : static_cast<uint8_t>(1 + s.bounded(alphabet - 2));
  }
};

struct ChunkFailures {
  uint64_t rct = 0, apt = 0;
};

// The failures of both tests over the n samples of run `chunk_index` (Philox stream
// chunk_index of `seed`), the tests starting afresh at its first sample.
EA_HD inline ChunkFailures simulate_chunk(uint64_t seed, uint64_t chunk_index, uint64_t n, const SimulatedSourceDraw& src,
                                          uint64_t rct_cutoff, uint32_t window, uint64_t apt_cutoff) {
  PhiloxStream s(seed, chunk_index);
  ChunkFailures f;
  uint8_t run_value = 0, window_value = 0;
  uint64_t run = 0, count = 0;
  uint32_t position = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t x = src.next(s);
    run = run > 0 && x == run_value ? run + 1 : 1;
    run_value = x;
    if (run == rct_cutoff) ++f.rct;
    if (position == 0) {
      window_value = x;
      count = 0;
    }
    if (x == window_value && ++count == apt_cutoff) ++f.apt;
    if (++position == window) position = 0;
  }
  return f;
}

// The same run's samples into `out` (tests: the scans of health/scan.hpp over them).
inline void draw_chunk(uint64_t seed, uint64_t chunk_index, const SimulatedSourceDraw& src, uint8_t* out, size_t n) {
  PhiloxStream s(seed, chunk_index);
  for (size_t i = 0; i < n; ++i) out[i] = src.next(s);
}

}  // namespace ea
