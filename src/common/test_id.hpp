// The 19 permutation statistics of SP 800-90B section 5.1, in the reference tool's order.
// One table gives the names used by text output, logs and JSON.
#pragma once

#include <cstdint>

#include "common/hd.hpp"

namespace ea {

enum class TestId : int {
  kExcursion = 0,
  kNumDirectionalRuns,
  kLenDirectionalRuns,
  kNumIncreasesDecreases,
  kNumRunsMedian,
  kLenRunsMedian,
  kAvgCollision,
  kMaxCollision,
  kPeriodicity1,
  kPeriodicity2,
  kPeriodicity8,
  kPeriodicity16,
  kPeriodicity32,
  kCovariance1,
  kCovariance2,
  kCovariance8,
  kCovariance16,
  kCovariance32,
  kCompression,
};

constexpr int kNumTests = 19;
// Tests 0..17 are computed by the shared (host/device) statistics code; 18 is bzip2.
constexpr int kNumFastTests = 18;
constexpr int kNumLags = 5;
// The lags of the periodicity and covariance tests: 1, 2, 8, 16, 32 (a function, not an
// array, so that device code can use it).
EA_HD constexpr uint32_t lag(int k) { return k == 0 ? 1u : k == 1 ? 2u : 8u << (k - 2); }

using TestMask = uint32_t;
constexpr TestMask kAllFastTests = (1u << kNumFastTests) - 1u;
constexpr TestMask kAllTests = (1u << kNumTests) - 1u;

EA_HD constexpr TestMask bit(TestId t) { return 1u << static_cast<int>(t); }
EA_HD constexpr TestMask bit(int t) { return 1u << t; }

// Names as the reference prints them ("periodicity(1)").
const char* test_name(int t);
// Keys of the reference's JSON permutationTestResults ("periodicity1").
const char* test_json_key(int t);

}  // namespace ea
