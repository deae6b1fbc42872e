// The non-binary statistics of compute_statistics() on the host, with AVX2 (issue 31): the
// excursion, both run counts and the ten lag sums of a permutation from byte-wide vector
// passes, the collisions from suffix minima of next positions. Every value equals
// compute_statistics()'s exactly: the integer statistics are counts, and the excursion's
// candidates |S_i - (i+1) mean| are computed with the same double operations (the maximum
// of a set does not depend on the order in which it is taken).
#pragma once

#include <cstddef>
#include <cstdint>

#include "stats/statistics.hpp"

namespace ea {

// Whether this CPU runs host_statistics_bytes().
bool host_statistics_available();

// compute_statistics(byte_view(sym, n), byte_view(raw, n), ..., params, mask, out) for
// non-binary params (raw: the raw value of each symbol, or sym itself). Call only where
// host_statistics_available().
void host_statistics_bytes(const uint8_t* sym, const uint8_t* raw, size_t n, const StatParams& params, TestMask mask,
                           StatVector& out);

// What each statistic reads (compute_statistics()'s choices): the excursion raw[0 .. n),
// median runs sym[0 .. n); directional runs and the lags runs[0 .. runs_n) (the lags' products
// of lag_values), collisions collisions[0 .. collisions_n). Non-binary data: runs = sym,
// lag_values = raw, collisions = sym; binary data: runs = lag_values = Conversion I,
// collisions = Conversion II.
struct HostStatInputs {
  const uint8_t* raw;
  const uint8_t* sym;
  size_t n;
  const uint8_t* runs;
  const uint8_t* lag_values;
  size_t runs_n;
  const uint8_t* collisions;
  size_t collisions_n;
};
void host_statistics_parts(const HostStatInputs& in, double mean, double median, TestMask mask, StatVector& out);

// Conversions I and II of a 0/1 sequence (section 5.1), (n + 7) / 8 bytes each.
void host_conversions(const uint8_t* bits, size_t n, uint8_t* conv1, uint8_t* conv2);

// The pieces, exposed for the unit tests.
double host_excursion(const uint8_t* raw, size_t n, double mean);
RunStats host_directional_runs(const uint8_t* sym, size_t n);
RunStats host_median_runs(const uint8_t* sym, size_t n, double median);
LagStats host_lagged(const uint8_t* sym, const uint8_t* raw, size_t n);
CollisionStats host_collisions(const uint8_t* sym, size_t n);  // n < 2^32

}  // namespace ea
