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
  CHECK(std::abs(chi_square_p(40319, 40319) - 0.49906) < 1e-5);  // Q(20159.5, 20159.5)
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
  CHECK_THROWS_AS(order_check(PrngId::Sobol, OrderRule::SmallBuckets, ShuffleChoice::Bucket, 4, 1000, 1, 1), Error);
  CHECK_THROWS_AS(order_check(PrngId::Philox, OrderRule::Engine, ShuffleChoice::Bucket, 11, 10, 1, 1), Error);
}

TEST_CASE("uniformity: the counts are the same for 1 and 4 threads (one seed's draws split between them)") {
  // 5,001 draws: fewer seeds than threads, so the draws of one seed are cut into pieces.
  for (PrngId id : {PrngId::Xorwow, PrngId::CiXorlike}) {
    CAPTURE(prng_info(id).name);
    const OrderCheck a = order_check(id, OrderRule::Engine, ShuffleChoice::Bucket, 5, 5001, 3, 1);
    const OrderCheck b = order_check(id, OrderRule::Engine, ShuffleChoice::Bucket, 5, 5001, 3, 4);
    CHECK(a.counts == b.counts);
    CHECK(std::accumulate(b.counts.begin(), b.counts.end(), uint64_t{0}) == 5001);
  }
  const OrderCheck a = order_check(PrngId::Xorwow, OrderRule::SmallBuckets, ShuffleChoice::Bucket, 5, 5001, 3, 1);
  const OrderCheck b = order_check(PrngId::Xorwow, OrderRule::SmallBuckets, ShuffleChoice::Bucket, 5, 5001, 3, 4);
  CHECK(a.counts == b.counts);
  const MarginalCheck m1 = marginal_check(PrngId::Philox, ShuffleChoice::Bucket, 5000, 300, 3, 1);
  const MarginalCheck m4 = marginal_check(PrngId::Philox, ShuffleChoice::Bucket, 5000, 300, 3, 4);
  CHECK(m1.places == m4.places);
}

TEST_CASE("uniformity: the pass rules") {
  OrderCheck o;
  o.counts.assign(24, 1000);
  o.draws = 24000, o.seen = 24, o.p = 0.5;
  CHECK(order_check_passed(o));
  o.p = 0.9e-4;
  CHECK(!order_check_passed(o));
  o.p = 0.5, o.seen = 23;  // an order expected 1,000 times never met
  CHECK(!order_check_passed(o));
  o.draws = 24 * 19;  // expected 19 times: a missing order alone does not fail it
  CHECK(order_check_passed(o));
  MarginalCheck m;
  m.tracked = 255, m.p = 0.5, m.worst_p = 1e-6;  // 255e-6 after the correction
  CHECK(marginal_check_passed(m));
  m.worst_p = 1e-7;
  CHECK(!marginal_check_passed(m));
  m.worst_p = 0.5, m.p = 0.5e-4;
  CHECK(!marginal_check_passed(m));
  CHECK(marginal_check_failure(m) == "the summed chi-square's p below 1e-4");
  o.p = 0.5, o.seen = 23, o.draws = 24000;
  CHECK(order_check_failure(o) == "1 of the 24 orders never met, each expected 20 times or more");
  // Too few draws for chi-square (under 5 a cell): refused, not judged.
  CHECK(order_min_draws(8) == 201600);
  CHECK_THROWS_AS(order_check(PrngId::Philox, OrderRule::Engine, ShuffleChoice::Bucket, 5, 599, 1, 1), Error);
  CHECK_NOTHROW(order_check(PrngId::Philox, OrderRule::Engine, ShuffleChoice::Bucket, 5, 600, 1, 1));
  CHECK_THROWS_AS(marginal_check(PrngId::Philox, ShuffleChoice::Bucket, 2000, 49, 1, 1), Error);
}

TEST_CASE("uniformity: the check fails sobol's shuffles, which reach few orders") {
  const OrderCheck c = order_check(PrngId::Sobol, OrderRule::Engine, ShuffleChoice::Bucket, 4, 20000, 1, 2);
  CHECK(c.seen < 24);
  CHECK(c.p < 1e-9);
  CHECK(*prng_info(PrngId::Sobol).uniformity_flag != '\0');
}

TEST_CASE("uniformity: marginals of 255 marked samples over rows of 5,000 (buckets), 1,000 (Fisher-Yates) and 1,001") {
  for (size_t n : {size_t{5000}, size_t{1000}, size_t{1001}}) {
    CAPTURE(n);
    const MarginalCheck m = marginal_check(PrngId::Philox, ShuffleChoice::Bucket, n, 400, 11, 2);
    CHECK(m.shuffle.find(n > 1024 ? "bucket" : "Fisher-Yates") == 0);
    CHECK(m.places.size() == 255u * 10u);
    CHECK(m.from.front() == 0);
    CHECK(m.from.back() == n - 1);
    // The chi-square again from the counts, with each tenth's places counted one by one.
    std::vector<double> expected(10, 0.0);
    for (size_t i = 0; i < n; ++i) expected[i * 10 / n] += 400.0 / static_cast<double>(n);
    double chi = 0;
    for (uint32_t t = 0; t < m.tracked; ++t) {
      uint64_t sum = 0;
      for (uint32_t b = 0; b < m.bins; ++b) {
        const double c = static_cast<double>(m.places[t * m.bins + b]);
        sum += m.places[t * m.bins + b];
        chi += (c - expected[b]) * (c - expected[b]) / expected[b];
      }
      CHECK(sum == 400);
    }
    CHECK(m.chi_square == doctest::Approx(chi).epsilon(1e-9));
    CHECK(m.df == 255u * 9u);
    CHECK(m.p > 1e-4);
    CHECK(m.worst_p * 255 > 1e-4);
  }
  CHECK_THROWS_AS(marginal_check(PrngId::Philox, ShuffleChoice::Bucket, 999, 10, 1, 1), Error);
}
