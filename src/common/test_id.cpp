#include "common/test_id.hpp"

namespace ea {

namespace {
const char* const kNames[kNumTests] = {
    "excursion",      "numDirectionalRuns", "lenDirectionalRuns", "numIncreasesDecreases", "numRunsMedian",
    "lenRunsMedian",  "avgCollision",       "maxCollision",       "periodicity(1)",        "periodicity(2)",
    "periodicity(8)", "periodicity(16)",    "periodicity(32)",    "covariance(1)",         "covariance(2)",
    "covariance(8)",  "covariance(16)",     "covariance(32)",     "compression"};
const char* const kJsonKeys[kNumTests] = {
    "excursion",     "numDirectionalRuns", "lenDirectionalRuns", "numIncreasesDecreases", "numRunsMedian",
    "lenRunsMedian", "avgCollision",       "maxCollision",       "periodicity1",          "periodicity2",
    "periodicity8",  "periodicity16",      "periodicity32",      "covariance1",           "covariance2",
    "covariance8",   "covariance16",       "covariance32",       "compression"};
}  // namespace

const char* test_name(int t) { return (t >= 0 && t < kNumTests) ? kNames[t] : "?"; }
const char* test_json_key(int t) { return (t >= 0 && t < kNumTests) ? kJsonKeys[t] : "?"; }

}  // namespace ea
