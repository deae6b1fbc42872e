// The uniformity checks of `ea_calibrate --uniformity` (src/permutation/uniformity.hpp): their
// counts, their independence of the thread count, the chi-square arithmetic, and that they
// fail a generator known to give few orders (sobol).
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "common/error.hpp"
#include "permutation/uniformity.hpp"
#include "rng/prng.hpp"

using namespace ea;

TEST_CASE("uniformity: chi-square p-values against known quantiles") {
  // df 1 at 3.841459: p = 0.05; df 10 at 23.209251: p = 0.01; df 40319 at its mean: about 0.5.
  CHECK(chi_square_p(3.841459, 1) == doctest::Approx(0.05).epsilon(1e-5));
  CHECK(chi_square_p(23.209251, 10) == doctest::Approx(0.01).epsilon(1e-5));
  CHECK(chi_square_p(40319, 40319) == doctest::Approx(0.4985).epsilon(0.002));
  CHECK(chi_square_statistic({10, 30}, {20, 20}) == doctest::Approx(10.0));
}

TEST_CASE("uniformity: orders of 4 and 6 samples, engine and small buckets, every count drawn once") {
  for (PrngId id : {PrngId::Philox, PrngId::Xoshiro256ss, PrngId::Mrg32k3a, PrngId::CiXorlike}) {
    for (OrderRule rule : {OrderRule::Engine, OrderRule::SmallBuckets}) {
      if (!order_rule_applies(id, rule, ShuffleChoice::Bucket)) continue;
      for (int n : {4, 6}) {
        CAPTURE(prng_info(id).name);
        CAPTURE(n);
        // 30,001 draws: three seeds' sets, the last one partial (and a lane group cut short).
        const OrderCheck c = order_check(id, rule, ShuffleChoice::Bucket, n, 30001, 7, 2);
        CHECK(c.counts.size() == (n == 4 ? 24u : 720u));
        CHECK(std::accumulate(c.counts.begin(), c.counts.end(), uint64_t{0}) == 30001);
        CHECK(c.seen == c.counts.size());
        CHECK(c.df == c.counts.size() - 1);
        CHECK(c.p > 1e-4);
      }
    }
  }
  CHECK(!order_rule_applies(PrngId::Sobol, OrderRule::SmallBuckets, ShuffleChoice::Bucket));
  CHECK(!order_rule_applies(PrngId::Philox, OrderRule::SmallBuckets, ShuffleChoice::FisherYates));
  CHECK_THROWS_AS(order_check(PrngId::Sobol, OrderRule::SmallBuckets, ShuffleChoice::Bucket, 4, 10, 1, 1), Error);
  CHECK_THROWS_AS(order_check(PrngId::Philox, OrderRule::Engine, ShuffleChoice::Bucket, 11, 10, 1, 1), Error);
}

TEST_CASE("uniformity: the counts are the same for 1 and 3 threads") {
  const OrderCheck a = order_check(PrngId::Xorwow, OrderRule::SmallBuckets, ShuffleChoice::Bucket, 5, 25000, 3, 1);
  const OrderCheck b = order_check(PrngId::Xorwow, OrderRule::SmallBuckets, ShuffleChoice::Bucket, 5, 25000, 3, 3);
  CHECK(a.counts == b.counts);
  const MarginalCheck m1 = marginal_check(PrngId::Philox, ShuffleChoice::Bucket, 5000, 300, 3, 1);
  const MarginalCheck m3 = marginal_check(PrngId::Philox, ShuffleChoice::Bucket, 5000, 300, 3, 3);
  CHECK(m1.places == m3.places);
}

TEST_CASE("uniformity: the check fails sobol's shuffles, which reach few orders") {
  const OrderCheck c = order_check(PrngId::Sobol, OrderRule::Engine, ShuffleChoice::Bucket, 4, 20000, 1, 2);
  CHECK(c.seen < 24);
  CHECK(c.p < 1e-9);
  CHECK(*prng_info(PrngId::Sobol).uniformity_flag != '\0');
}

TEST_CASE("uniformity: marginals of 255 marked samples over a row of 5,000 (the bucket shuffle) and 2,000") {
  for (size_t n : {size_t{5000}, size_t{2000}}) {
    CAPTURE(n);
    const MarginalCheck m = marginal_check(PrngId::Philox, ShuffleChoice::Bucket, n, 400, 11, 2);
    CHECK(m.shuffle.find(n > 1024 ? "bucket" : "Fisher-Yates") == 0);
    CHECK(m.places.size() == 255u * 10u);
    CHECK(m.from.front() == 0);
    CHECK(m.from.back() == n - 1);
    for (uint32_t t = 0; t < m.tracked; ++t) {
      uint64_t sum = 0;
      for (uint32_t b = 0; b < m.bins; ++b) sum += m.places[t * m.bins + b];
      CHECK(sum == 400);
    }
    CHECK(m.df == 255u * 9u);
    CHECK(m.p > 1e-4);
    CHECK(m.worst_p * 255 > 1e-4);
  }
  CHECK_THROWS_AS(marginal_check(PrngId::Philox, ShuffleChoice::Bucket, 999, 10, 1, 1), Error);
}
