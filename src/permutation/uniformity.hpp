// The uniformity checks of the engine's permutations (issue 48 item 1; docs/prngs.md,
// "Uniformity"): `ea_calibrate --uniformity` runs them for every generator.
//  - Orders: many permutations of n = 4..8 distinct samples, counted by which of the n! orders
//    each made, against equal counts (chi-square over all n! outcomes). Two rules: the engine's
//    own for such short rows (Fisher-Yates on stream j, or a lane group's lockstep), and the
//    bucket recursion with small parameters (b0 = 2, b1 = 1, L = 2: root, inner nodes and
//    leaves all met at n = 4..8) through the generator's label words, for the generators the
//    engine shuffles by buckets.
//  - Marginals: rows of n samples (10^6 by default) permuted by the engine's rule, with 255
//    samples spread over the row marked; the place each marked sample went, by tenths of the
//    row, against even counts (a chi-square per marked sample, and their sum).
// Draw d is permutation j = d mod kUniformitySetStreams of the streams under seed + d div
// kUniformitySetStreams, as the CPU backend makes it (engine_shuffle.hpp; the GPU's rows are
// the same). The counts do not depend on the thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/interrupt.hpp"
#include "permutation/shuffle_choice.hpp"
#include "rng/stream_set.hpp"

namespace ea {

constexpr uint64_t kUniformitySetStreams = 10240;  // streams a seed (a multiple of the lane group)

enum class OrderRule { Engine, SmallBuckets };

struct OrderCheck {
  PrngId prng = PrngId::Philox;
  OrderRule rule = OrderRule::Engine;
  std::string shuffle;  // what made the permutations, in words
  int n = 0;
  uint64_t draws = 0, seed = 0;
  std::vector<uint64_t> counts;  // by the order's Lehmer rank, n! of them
  uint64_t seen = 0;             // orders met at least once
  double chi_square = 0, p = 0;
  uint64_t df = 0;
};

// Whether `rule` applies to the generator (SmallBuckets: the generators the engine shuffles by
// buckets, with ShuffleChoice::Bucket).
bool order_rule_applies(PrngId id, OrderRule rule, ShuffleChoice choice);

// The fewest draws a check takes: 5 expected a cell (an order of n samples, a tenth of the row),
// below which chi-square's approximation fails (10 marginal draws "failed" philox's check at
// p = 7.8e-9 for one marked sample, session 41).
constexpr uint64_t kUniformityPerCell = 5;
uint64_t order_min_draws(int n);  // 5 n!
constexpr uint64_t kMarginalBins = 10;
constexpr uint64_t kMarginalMinDraws = kUniformityPerCell * kMarginalBins;

// `draws` permutations of 0..n-1 (n = 2..10) by `rule`; Error{Usage} for a rule that does not
// apply, n out of range or fewer than order_min_draws(n) draws; Error{Interrupted} once
// *interrupt is set.
OrderCheck order_check(PrngId id, OrderRule rule, ShuffleChoice choice, int n, uint64_t draws, uint64_t seed,
                       int threads, Interrupt interrupt = nullptr);

struct MarginalCheck {
  PrngId prng = PrngId::Philox;
  std::string shuffle;
  size_t n = 0;
  uint64_t draws = 0, seed = 0;
  uint32_t tracked = 0, bins = 0;
  std::vector<uint64_t> places;  // the marked samples' places: [marked sample][bin]
  std::vector<size_t> from;      // each marked sample's place before the shuffle
  double chi_square = 0, p = 0;  // the sum over the marked samples, and its p-value
  uint64_t df = 0;
  double worst_p = 1;  // the smallest p-value of one marked sample (bins - 1 degrees of freedom)
  size_t worst_from = 0;
};

// `draws` permutations of a row of n samples (n >= 1,000) by the engine's rule; Error{Usage} for
// fewer than kMarginalMinDraws draws.
MarginalCheck marginal_check(PrngId id, ShuffleChoice choice, size_t n, uint64_t draws, uint64_t seed, int threads,
                             Interrupt interrupt = nullptr);

// The pass rules (`ea_calibrate --uniformity`; about 80 criteria a full run of 73 checks, so a
// false alarm in about 1% of runs): an orders check fails below p = 10^-4, or when an order
// expected 20 times or more never occurred; a marginals check fails when the sum's p-value or
// the smallest of its marked samples' p-values, Bonferroni-corrected, is below 10^-4.
constexpr double kUniformityFailP = 1e-4;
// Why a check failed, in words ("" when it passed).
std::string order_check_failure(const OrderCheck& c);
std::string marginal_check_failure(const MarginalCheck& c);
inline bool order_check_passed(const OrderCheck& c) { return order_check_failure(c).empty(); }
inline bool marginal_check_passed(const MarginalCheck& c) { return marginal_check_failure(c).empty(); }

// The chi-square statistic of `counts` against `expected` (the same length) and its p-value.
double chi_square_statistic(const std::vector<uint64_t>& counts, const std::vector<double>& expected);
double chi_square_p(double chi_square, uint64_t df);

}  // namespace ea
