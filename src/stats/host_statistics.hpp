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

// The pieces, exposed for the unit tests.
double host_excursion(const uint8_t* raw, size_t n, double mean);
RunStats host_directional_runs(const uint8_t* sym, size_t n);
RunStats host_median_runs(const uint8_t* sym, size_t n, double median);
LagStats host_lagged(const uint8_t* sym, const uint8_t* raw, size_t n);
CollisionStats host_collisions(const uint8_t* sym, size_t n);  // n < 2^32

}  // namespace ea
