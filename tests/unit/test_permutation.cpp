// The counting rule and the determinism contract of the permutation tests.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <vector>

#include "assess.hpp"
#include "common/error.hpp"
#include "permutation/counters.hpp"
#include "permutation/permutation.hpp"

using namespace ea;

TEST_CASE("a test stops being counted once C0+C1 > 5 and C1+C2 > 5") {
  Counters c{};
  std::vector<uint8_t> rows;
  // Test 0 sees greater, greater, ... then less; test 1 always equal.
  for (int r = 0; r < 20; ++r) {
    for (int t = 0; t < kNumTests; ++t) rows.push_back(kNotComputed);
    rows[r * kNumTests + 0] = r < 6 ? kGreater : kLess;
    rows[r * kNumTests + 1] = kEqual;
  }
  TestMask active = apply_outcomes(c, bit(0) | bit(1), true, 5, rows.data(), 20);
  CHECK(active == 0);
  CHECK(c[0].c[0] == 6);
  CHECK(c[0].c[2] == 6);  // decided at the 12th permutation
  CHECK(c[1].c[1] == 6);  // equal counts on both sides: decided after 6
  CHECK(c[0].passed(5));
  Counters full{};
  CHECK(apply_outcomes(full, bit(0), false, 5, rows.data(), 20) == bit(0));
  CHECK(full[0].total() == 20);
  CHECK_THROWS_AS(apply_outcomes(full, bit(2), true, 5, rows.data(), 1), Error);
}

TEST_CASE("the decision rule scaled to other permutation counts keeps the reference's tail probability") {
  CHECK(decision_threshold(10000) == 5);  // the reference: C0+C1 <= 5 or C1+C2 <= 5 fails
  CHECK(decision_threshold(500) == 0);    // 1/501: the closest N = 500 allows to 6/10001
  CHECK(decision_threshold(2000) == 0);   // 1/2001 = 0.00050, nearer 6/10001 = 0.00060 than 2/2001
  CHECK(decision_threshold(2500) == 1);
  CHECK(decision_threshold(20000) == 11);  // 12/20001 = 6/10001
  CHECK(decision_threshold(1) == 0);
  for (uint32_t n : {500u, 2000u, 10000u, 20000u, 100000u}) {
    // (t+1)/(N+1) is the nearest such fraction to 6/10001 (t >= 0).
    const uint32_t t = decision_threshold(n);
    const double target = 6.0 / 10001.0, got = (t + 1.0) / (n + 1.0);
    CHECK(std::abs(got - target) <= std::abs((t + 2.0) / (n + 1.0) - target));
    if (t > 0) CHECK(std::abs(got - target) <= std::abs(t / (n + 1.0) - target));
  }
  // At N = 500 (t = 0): the most extreme original fails, one equal or more extreme
  // permutation passes.
  RankCounter extreme{{0, 0, 500}}, one{{1, 0, 499}}, tie{{0, 1, 499}};
  CHECK_FALSE(extreme.passed(0));
  CHECK(one.passed(0));
  CHECK(tie.passed(0));
  CHECK_FALSE(one.passed(5));  // the unscaled rule failed it
}

namespace {
Dataset sample_data(size_t n) {
  std::ifstream in(EA_TEST_DATA_DIR "/samples/truerand_8bit.bin", std::ios::binary);
  std::vector<uint8_t> bytes(n);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(n));
  REQUIRE(static_cast<size_t>(in.gcount()) == n);
  return make_dataset(bytes, 0);
}

PermutationOutcome run(const Dataset& d, uint64_t seed, int threads, bool early_exit, uint32_t iterations,
                       PrngId prng = PrngId::Philox) {
  Settings cfg;
  cfg.seed = seed;
  cfg.prng = prng;
  cfg.threads = threads;
  cfg.device = DeviceChoice::Cpu;
  cfg.early_exit = early_exit;
  cfg.iterations = iterations;
  cfg.all_tests = true;
  DeviceSlot slot(cfg.tuning.memory_share);
  return assess(d, cfg, Hooks{}, slot).permutation;
}
}  // namespace

TEST_CASE("the same seed gives identical counters with 1 and 2 threads") {
  Dataset d = sample_data(20000);
  PermutationOutcome one = run(d, 42, 1, true, 10000);
  PermutationOutcome two = run(d, 42, 2, true, 10000);
  for (int t = 0; t < kNumTests; ++t) {
    CAPTURE(t);
    for (int k = 0; k < 3; ++k) CHECK(one.counters[t].c[k] == two.counters[t].c[k]);
  }
  CHECK(one.fast_permutations == two.fast_permutations);
  PermutationOutcome other = run(d, 43, 2, true, 10000);
  bool differs = false;
  for (int t = 0; t < kNumTests; ++t)
    for (int k = 0; k < 3; ++k) differs = differs || other.counters[t].c[k] != one.counters[t].c[k];
  CHECK(differs);  // a different seed gives different shuffles
}

TEST_CASE("without early exit every test runs all 10,000 permutations") {
  Dataset d = sample_data(300);
  PermutationOutcome o = run(d, 7, 2, false, 10000);
  for (int t = 0; t < kNumTests; ++t) {
    CAPTURE(t);
    CHECK(o.ran[t]);
    CHECK(o.counters[t].total() == 10000);
  }
}

TEST_CASE("every generator: the same counters with 1 and 2 threads, and different generators differ") {
  Dataset d = sample_data(5000);
  // Without early exit, so that the counters cover 300 permutations (partial lane groups
  // at the round ends included).
  const PermutationOutcome philox = run(d, 9, 1, false, 300);
  for (const PrngInfo& p : prng_table()) {
    CAPTURE(std::string(p.name));
    PermutationOutcome one = run(d, 9, 1, false, 300, p.id);
    PermutationOutcome two = run(d, 9, 2, false, 300, p.id);
    bool same = true, differs = false;
    for (int t = 0; t < kNumTests; ++t)
      for (int k = 0; k < 3; ++k) {
        same = same && one.counters[t].c[k] == two.counters[t].c[k];
        differs = differs || one.counters[t].c[k] != philox.counters[t].c[k];
      }
    CHECK(same);
    CHECK(one.counters[0].total() == 300);
    if (p.id != PrngId::Philox) CHECK(differs);
  }
}
