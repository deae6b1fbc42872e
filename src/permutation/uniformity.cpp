#include "permutation/uniformity.hpp"

#include <omp.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <numeric>
#include <type_traits>

#include "common/error.hpp"
#include "estimators/estimators.hpp"
#include "permutation/bucket_shuffle.hpp"
#include "permutation/engine_shuffle.hpp"
#include "rng/generators.hpp"
#include "rng/philox_stream.hpp"
#include "rng/prng.hpp"

namespace ea {

namespace {

// The small parameters of OrderRule::SmallBuckets: 4 buckets at the root, 2 below, leaves of 2.
constexpr BucketParams kSmallBuckets{2, 1, 2};

uint64_t factorial(int n) {
  uint64_t f = 1;
  for (int i = 2; i <= n; ++i) f *= static_cast<uint64_t>(i);
  return f;
}

// The Lehmer rank of v[0..n), a permutation of 0..n-1, in [0, n!).
uint64_t lehmer_rank(const uint8_t* v, int n) {
  uint64_t r = 0;
  for (int i = 0; i < n; ++i) {
    uint64_t smaller = 0;
    for (int j = i + 1; j < n; ++j) smaller += v[j] < v[i];
    r = r * static_cast<uint64_t>(n - i) + smaller;
  }
  return r;
}

// body(set, begin, end, counts) for the draws of each stream set (draw d: stream d mod
// kUniformitySetStreams of the set under seed + d div kUniformitySetStreams), in pieces of a
// set (whole lane groups) where there are fewer sets than threads, on `threads` threads,
// each adding into its own counts; returns their sum. The first exception is rethrown once
// every thread has stopped.
template <class Body>
std::vector<uint64_t> over_sets(PrngId id, uint64_t draws, uint64_t seed, size_t cells, int threads,
                                Interrupt interrupt, const Body& body) {
  threads = std::max(1, threads);
  const uint64_t sets = (draws + kUniformitySetStreams - 1) / kUniformitySetStreams;
  const uint64_t pieces = sets >= static_cast<uint64_t>(threads) ? 1 : 8 * static_cast<uint64_t>(threads);
  const uint64_t span = std::min(draws, kUniformitySetStreams);  // the draws of the largest set
  const uint64_t step =
      std::max<uint64_t>(kLaneGroup, ((span + pieces - 1) / pieces + kLaneGroup - 1) / kLaneGroup * kLaneGroup);
  const uint64_t per_set = (span + step - 1) / step;
  const int64_t units = static_cast<int64_t>(sets * per_set);
  std::vector<std::vector<uint64_t>> per(static_cast<size_t>(threads), std::vector<uint64_t>(cells, 0));
  std::exception_ptr failure;
  std::mutex failure_mutex;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (int64_t u = 0; u < units; ++u) {
    try {
      throw_if_interrupted(interrupt);
      const uint64_t k = static_cast<uint64_t>(u) / per_set, piece = static_cast<uint64_t>(u) % per_set;
      const uint64_t count = std::min<uint64_t>(kUniformitySetStreams, draws - k * kUniformitySetStreams);
      const uint64_t begin = piece * step, end = std::min(count, begin + step);
      if (begin >= end) continue;
      const StreamSet set(id, seed + k, kUniformitySetStreams);
      body(set, begin, end, per[static_cast<size_t>(omp_get_thread_num())]);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
  std::vector<uint64_t> sum(cells, 0);
  for (const auto& c : per) {
    for (size_t i = 0; i < cells; ++i) sum[i] += c[i];
  }
  return sum;
}

// Permutations begin .. end-1 of `set` (begin a multiple of kLaneGroup) of rows[k] (each of n
// bytes holding `start` on entry) by the engine's rule; each finished row goes to tally(row).
// A lane group's generator shuffles kLaneGroup rows at a time (`rows` holds that many).
template <class Tally>
void engine_rows(const StreamSet& set, ShuffleChoice choice, uint64_t begin, uint64_t end,
                 const std::vector<uint8_t>& start, std::vector<std::vector<uint8_t>>& rows,
                 EngineShuffleScratch& scratch, Interrupt interrupt, const Tally& tally) {
  const size_t n = start.size();
  const StreamSetView v = set.view();
  if (is_grouped(set.id())) {
    rows.resize(kLaneGroup);
    uint8_t* ptr[kLaneGroup];
    for (uint64_t g = begin / kLaneGroup; g * kLaneGroup < end; ++g) {
      throw_if_interrupted(interrupt);
      for (uint32_t k = 0; k < kLaneGroup; ++k) {
        rows[k] = start;
        ptr[k] = rows[k].data();
      }
      engine_shuffle_group_cpu(v, g, ptr, n);
      for (uint32_t k = 0; k < kLaneGroup && g * kLaneGroup + k < end; ++k) tally(rows[k].data());
    }
    return;
  }
  rows.resize(1);
  for (uint64_t j = begin; j < end; ++j) {
    throw_if_interrupted_at(interrupt, static_cast<size_t>(j));
    rows[0] = start;
    engine_shuffle_cpu(v, choice, false, j, rows[0].data(), n, scratch);
    tally(rows[0].data());
  }
}

// Permutations begin .. end-1 of `set` of 0..n-1 by the bucket recursion with kSmallBuckets.
template <class Tally>
void small_bucket_rows(const StreamSet& set, uint64_t begin, uint64_t end, int n, const Tally& tally) {
  const StreamSetView v = set.view();
  std::vector<uint8_t> row(static_cast<size_t>(n)), scratch;
  visit_generator(set.id(), [&](auto tag) {
    using G = decltype(tag);
    for (uint64_t j = begin; j < end; ++j) {
      std::iota(row.begin(), row.end(), uint8_t{0});
      if constexpr (std::is_same_v<G, PhiloxGen>) {
        PhiloxNodes nodes{v.seed, j};
        bucket_shuffle(row.data(), row.size(), kSmallBuckets, nodes, scratch);
      } else if constexpr (!G::kGrouped) {
        G g = G::make(v, j);
        OneStream<G> s{g};
        bucket_shuffle(row.data(), row.size(), kSmallBuckets, s, scratch);
      }
      tally(row.data());
    }
  });
}

}  // namespace

double chi_square_statistic(const std::vector<uint64_t>& counts, const std::vector<double>& expected) {
  double chi = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const double d = static_cast<double>(counts[i]) - expected[i];
    chi += d * d / expected[i];
  }
  return chi;
}

double chi_square_p(double chi_square, uint64_t df) { return gamma_q(static_cast<double>(df) / 2.0, chi_square / 2.0); }

std::string order_check_failure(const OrderCheck& c) {
  const uint64_t orders = c.counts.size();
  if (c.p < kUniformityFailP) return "chi-square p below 1e-4";
  if (c.seen < orders && c.draws >= 20 * orders) {
    return std::to_string(orders - c.seen) + " of the " + std::to_string(orders) +
           " orders never met, each expected 20 times or more";
  }
  return "";
}

std::string marginal_check_failure(const MarginalCheck& c) {
  if (c.p < kUniformityFailP) return "the summed chi-square's p below 1e-4";
  if (c.worst_p * c.tracked < kUniformityFailP) {
    return "the marked sample from place " + std::to_string(c.worst_from) + ": p times " + std::to_string(c.tracked) +
           " below 1e-4";
  }
  return "";
}

uint64_t order_min_draws(int n) { return kUniformityPerCell * factorial(n); }

bool order_rule_applies(PrngId id, OrderRule rule, ShuffleChoice choice) {
  if (rule == OrderRule::Engine) return true;
  // The generators the engine shuffles by buckets (a row above L of non-binary data).
  return engine_uses_buckets(id, size_t{1} << 20, false, choice);
}

OrderCheck order_check(PrngId id, OrderRule rule, ShuffleChoice choice, int n, uint64_t draws, uint64_t seed,
                       int threads, Interrupt interrupt) {
  if (n < 2 || n > 10)
    throw Error(ErrorKind::Usage, "orders are counted for 2 to 10 samples, not " + std::to_string(n));
  if (draws < order_min_draws(n)) {
    throw Error(ErrorKind::Usage, "orders of " + std::to_string(n) + " samples need at least " +
                                      std::to_string(order_min_draws(n)) + " draws (5 for each order), not " +
                                      std::to_string(draws));
  }
  if (!order_rule_applies(id, rule, choice)) {
    throw Error(ErrorKind::Usage, std::string(prng_info(id).name) + " is never shuffled by buckets");
  }
  OrderCheck c;
  c.prng = id, c.rule = rule, c.n = n, c.draws = draws, c.seed = seed;
  const uint64_t orders = factorial(n);
  std::vector<uint8_t> start(static_cast<size_t>(n));
  std::iota(start.begin(), start.end(), uint8_t{0});
  if (rule == OrderRule::Engine) {
    c.shuffle = engine_shuffle_name(id, static_cast<size_t>(n), false, choice);
    c.counts = over_sets(id, draws, seed, orders, threads, interrupt,
                         [&](const StreamSet& set, uint64_t begin, uint64_t end, auto& cnt) {
                           std::vector<std::vector<uint8_t>> rows;
                           EngineShuffleScratch scratch;
                           engine_rows(set, choice, begin, end, start, rows, scratch, interrupt,
                                       [&](const uint8_t* r) { ++cnt[lehmer_rank(r, n)]; });
                         });
  } else {
    c.shuffle = "bucket b0=" + std::to_string(kSmallBuckets.root_bits) +
                " b1=" + std::to_string(kSmallBuckets.inner_bits) + " L=" + std::to_string(kSmallBuckets.leaf) +
                " (the recursion at small n)";
    c.counts = over_sets(id, draws, seed, orders, threads, interrupt,
                         [&](const StreamSet& set, uint64_t begin, uint64_t end, auto& cnt) {
                           small_bucket_rows(set, begin, end, n, [&](const uint8_t* r) { ++cnt[lehmer_rank(r, n)]; });
                         });
  }
  c.seen = static_cast<uint64_t>(std::count_if(c.counts.begin(), c.counts.end(), [](uint64_t x) { return x > 0; }));
  const std::vector<double> expected(orders, static_cast<double>(draws) / static_cast<double>(orders));
  c.chi_square = chi_square_statistic(c.counts, expected);
  c.df = orders - 1;
  c.p = chi_square_p(c.chi_square, c.df);
  return c;
}

MarginalCheck marginal_check(PrngId id, ShuffleChoice choice, size_t n, uint64_t draws, uint64_t seed, int threads,
                             Interrupt interrupt) {
  if (n < 1000 || n > (size_t{1} << 31)) {
    throw Error(ErrorKind::Usage, "marginals are counted for rows of 1,000 to 2^31 samples, not " + std::to_string(n));
  }
  if (draws < kMarginalMinDraws) {
    throw Error(ErrorKind::Usage, "the marginals need at least " + std::to_string(kMarginalMinDraws) +
                                      " draws (5 for each tenth of the row), not " + std::to_string(draws));
  }
  MarginalCheck c;
  c.prng = id, c.n = n, c.draws = draws, c.seed = seed, c.tracked = 255, c.bins = kMarginalBins;
  c.shuffle = engine_shuffle_name(id, n, false, choice);
  // Marked sample t (value t + 1) starts at place t (n - 1) / 254: the first, the last and 253
  // between; every other sample is 0.
  std::vector<uint8_t> start(n, 0);
  c.from.resize(c.tracked);
  for (uint32_t t = 0; t < c.tracked; ++t) {
    c.from[t] = static_cast<size_t>(static_cast<uint64_t>(t) * (n - 1) / (c.tracked - 1));
    start[c.from[t]] = static_cast<uint8_t>(t + 1);
  }
  const uint32_t bins = c.bins;
  c.places = over_sets(id, draws, seed, size_t{c.tracked} * bins, threads, interrupt,
                       [&](const StreamSet& set, uint64_t begin, uint64_t end, auto& cnt) {
                         std::vector<std::vector<uint8_t>> rows;
                         EngineShuffleScratch scratch;
                         engine_rows(set, choice, begin, end, start, rows, scratch, interrupt, [&](const uint8_t* r) {
                           for (size_t i = 0; i < n; ++i) {
                             if (r[i] != 0)
                               ++cnt[(r[i] - 1u) * size_t{bins} + static_cast<size_t>(uint64_t{i} * bins / n)];
                           }
                         });
                       });
  // Bin b holds places [ceil(b n / bins), ceil((b + 1) n / bins)).
  std::vector<double> expected(bins);
  for (uint32_t b = 0; b < bins; ++b) {
    const uint64_t lo = (uint64_t{b} * n + bins - 1) / bins, hi = (uint64_t{b + 1} * n + bins - 1) / bins;
    expected[b] = static_cast<double>(draws) * static_cast<double>(hi - lo) / static_cast<double>(n);
  }
  for (uint32_t t = 0; t < c.tracked; ++t) {
    const std::vector<uint64_t> one(c.places.begin() + t * bins, c.places.begin() + (t + 1) * bins);
    const double chi = chi_square_statistic(one, expected);
    c.chi_square += chi;
    const double p = chi_square_p(chi, bins - 1);
    if (p < c.worst_p) c.worst_p = p, c.worst_from = c.from[t];
  }
  c.df = uint64_t{c.tracked} * (bins - 1);
  c.p = chi_square_p(c.chi_square, c.df);
  return c;
}

}  // namespace ea
