// The bucket shuffle's CPU reference (src/permutation/bucket_shuffle.hpp,
// docs/bucket-shuffle.md): uniform over all n! orders for small n, a permutation of its
// input, even position marginals at n = 10^5, and which parameters its output depends on.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "estimators/estimators.hpp"
#include "permutation/bucket_cpu.hpp"
#include "permutation/bucket_plan.hpp"
#include "permutation/bucket_shuffle.hpp"
#include "permutation/engine_shuffle.hpp"
#include "permutation/shuffle.hpp"
#include "rng/generators.hpp"
#include "rng/philox_stream.hpp"
#include "rng/prng.hpp"

using namespace ea;

namespace {

constexpr uint64_t kSeed = 20261128;

Xoshiro256ss xoshiro(uint64_t seed) {
  Xoshiro256ss g;
  xoshiro_base(seed, g.s);
  return g;
}

std::vector<uint8_t> iota_bytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i);
  return v;
}

// The Lehmer rank of v, a permutation of 0..n-1, in [0, n!).
uint32_t lehmer_rank(const std::vector<uint8_t>& v) {
  uint32_t r = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t smaller = 0;
    for (size_t j = i + 1; j < v.size(); ++j) smaller += v[j] < v[i];
    r = r * static_cast<uint32_t>(v.size() - i) + smaller;
  }
  return r;
}

// The chi-square p-value of `counts` against equal expected counts.
double chi_square_p(const std::vector<uint64_t>& counts) {
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const double e = total / static_cast<double>(counts.size());
  double chi = 0;
  for (uint64_t c : counts) chi += (static_cast<double>(c) - e) * (static_cast<double>(c) - e) / e;
  return gamma_q((static_cast<double>(counts.size()) - 1) / 2.0, chi / 2.0);
}

// `draws` shuffles of 0..n-1, shuffle(v, d) making draw d; the chi-square p-value over the
// n! orders and how many of them were seen.
template <class Shuffle>
double permutations_p(int n, uint32_t draws, Shuffle&& shuffle, size_t* seen) {
  uint32_t orders = 1;
  for (int i = 2; i <= n; ++i) orders *= static_cast<uint32_t>(i);
  std::vector<uint64_t> counts(orders, 0);
  const std::vector<uint8_t> start = iota_bytes(static_cast<size_t>(n));
  std::vector<uint8_t> v;
  for (uint32_t d = 0; d < draws; ++d) {
    v = start;
    shuffle(v, d);
    ++counts[lehmer_rank(v)];
  }
  *seen = static_cast<size_t>(std::count_if(counts.begin(), counts.end(), [](uint64_t c) { return c > 0; }));
  return chi_square_p(counts);
}

// A stream whose labels are correlated: each word is all zeros or all ones in alternate
// bits (one random bit per word), so within a word the labels of neighbours always differ
// (b = 1). Its Fisher-Yates draws are fine (the inner stream's).
struct AlternatingLabels {
  PhiloxNodeStream inner;
  uint32_t next() { return (inner.next() & 1u) ? 0x55555555u : 0xaaaaaaaau; }
  uint32_t bounded(uint32_t i) { return inner.bounded(i); }
};
struct AlternatingNodes {
  uint64_t seed, j;
  AlternatingLabels at(uint32_t depth, uint32_t start) const { return {PhiloxNodeStream(seed, j, depth, start)}; }
};
// Draws on [0, i - 1] for the leaves' step i: Sattolo's shuffle, only cyclic orders.
struct SattoloLeaves {
  PhiloxNodeStream inner;
  uint32_t next() { return inner.next(); }
  uint32_t bounded(uint32_t i) { return inner.bounded(i - 1); }
};
struct SattoloNodes {
  uint64_t seed, j;
  SattoloLeaves at(uint32_t depth, uint32_t start) const { return {PhiloxNodeStream(seed, j, depth, start)}; }
};

// 10^6 draws per n (10^7, the figure, took about 10 times as long as this whole
// file on the 2-core CI machine; 10^6 still gives 25 per order at n = 8).
constexpr uint32_t kDraws = 1000000;

}  // namespace

TEST_CASE("bucket shuffle: every order of n = 4..8 equally likely (philox nodes and xoshiro256ss and mrg32k3a with L = 2 or 3)") {
  std::vector<uint8_t> scratch;
  for (int n = 4; n <= 8; ++n) {
    CAPTURE(n);
    uint32_t orders = 1;
    for (int i = 2; i <= n; ++i) orders *= static_cast<uint32_t>(i);
    size_t seen = 0;
    // Philox: permutation d is stream d; 4 buckets at the root, 2 below, leaves of 2.
    const BucketParams pp{2, 1, 2};
    const double p_philox = permutations_p(n, kDraws, [&](std::vector<uint8_t>& v, uint32_t d) {
      PhiloxNodes s{kSeed, d};
      bucket_shuffle(v.data(), v.size(), pp, s, scratch);
    }, &seen);
    MESSAGE("n = " << n << " philox: p = " << p_philox << ", " << seen << " of " << orders);
    CHECK(seen == orders);
    CHECK(p_philox > 1e-4);
    // xoshiro256**: one sequential stream drives every draw in turn; 2 buckets, then 4, leaves of 3.
    const BucketParams px{1, 2, 3};
    Xoshiro256ss g = xoshiro(kSeed + static_cast<uint64_t>(n));
    const double p_xoshiro = permutations_p(n, kDraws, [&](std::vector<uint8_t>& v, uint32_t) {
      OneStream<Xoshiro256ss> s{g};
      bucket_shuffle(v.data(), v.size(), px, s, scratch);
    }, &seen);
    MESSAGE("n = " << n << " xoshiro256ss: p = " << p_xoshiro << ", " << seen << " of " << orders);
    CHECK(seen == orders);
    CHECK(p_xoshiro > 1e-4);
  }
  // The MRGs' labels (24 bits of a value below floor(m1 / 2^24) 2^24), at n = 6.
  uint32_t m[6];
  mrg_base(kSeed, Mrg32k3a::kM1, Mrg32k3a::kM2, m);
  Mrg32k3a g;
  for (int i = 0; i < 6; ++i) g.c[i] = m[i];
  size_t seen = 0;
  const double p_mrg = permutations_p(6, kDraws, [&](std::vector<uint8_t>& v, uint32_t) {
    OneStream<Mrg32k3a> s{g};
    bucket_shuffle(v.data(), v.size(), BucketParams{1, 1, 2}, s, scratch);
  }, &seen);
  MESSAGE("n = 6 mrg32k3a: p = " << p_mrg);
  CHECK(seen == 720);
  CHECK(p_mrg > 1e-4);
}

TEST_CASE("bucket shuffle: the chi-square check rejects correlated labels and Sattolo leaves") {
  std::vector<uint8_t> scratch;
  size_t seen = 0;
  const double p_labels = permutations_p(6, 100000, [&](std::vector<uint8_t>& v, uint32_t d) {
    AlternatingNodes s{kSeed, d};
    bucket_shuffle(v.data(), v.size(), BucketParams{1, 1, 3}, s, scratch);
  }, &seen);
  MESSAGE("correlated labels: p = " << p_labels << ", " << seen << " of 720");
  CHECK(p_labels < 1e-9);
  const double p_leaves = permutations_p(6, 100000, [&](std::vector<uint8_t>& v, uint32_t d) {
    SattoloNodes s{kSeed, d};
    bucket_shuffle(v.data(), v.size(), BucketParams{1, 1, 3}, s, scratch);
  }, &seen);
  MESSAGE("Sattolo leaves: p = " << p_leaves << ", " << seen << " of 720");
  CHECK(p_leaves < 1e-9);
}

namespace {
// Over `draws` shuffles of n samples: the decile of the place where sample s went, for
// s = 0, n / 2 and n - 1 (marked 1, 2, 3 in a row of zeros); the smallest chi-square p-value
// of the three.
template <class Shuffle>
double marginals_p(size_t n, uint32_t draws, Shuffle&& shuffle) {
  std::array<std::vector<uint64_t>, 3> deciles;
  for (auto& d : deciles) d.assign(10, 0);
  std::vector<uint8_t> row(n);
  for (uint32_t d = 0; d < draws; ++d) {
    std::fill(row.begin(), row.end(), uint8_t{0});
    row[0] = 1;
    row[n / 2] = 2;
    row[n - 1] = 3;
    shuffle(row, d);
    for (size_t i = 0; i < n; ++i) {
      if (row[i] != 0) ++deciles[row[i] - 1][i * 10 / n];
    }
  }
  double p = 1;
  for (const auto& d : deciles) p = std::min(p, chi_square_p(d));
  return p;
}
}  // namespace

TEST_CASE("bucket shuffle: position marginals at n = 100003 (16 buckets then 256 and leaves of at most 1024)") {
  const size_t n = 100003;
  const BucketParams p{4, 8, 1024};
  std::vector<uint8_t> scratch;
  const double p_philox = marginals_p(n, 1000, [&](std::vector<uint8_t>& row, uint32_t d) {
    PhiloxNodes s{kSeed, d};
    bucket_shuffle(row.data(), row.size(), p, s, scratch);
  });
  MESSAGE("philox: smallest p = " << p_philox);
  CHECK(p_philox > 1e-4);
  const double p_xoshiro = marginals_p(n, 1000, [&](std::vector<uint8_t>& row, uint32_t d) {
    Xoshiro256ss g = xoshiro(kSeed + d);
    OneStream<Xoshiro256ss> s{g};
    bucket_shuffle(row.data(), row.size(), p, s, scratch);
  });
  MESSAGE("xoshiro256ss: smallest p = " << p_xoshiro);
  CHECK(p_xoshiro > 1e-4);
  // The check can fail: Fisher-Yates stopped halfway leaves sample 0 at place 0 half the time.
  const double p_half = marginals_p(n, 1000, [&](std::vector<uint8_t>& row, uint32_t d) {
    PhiloxStream rng(kSeed, d);
    for (size_t i = row.size() - 1; i >= row.size() / 2; --i) std::swap(row[i], row[rng.bounded(static_cast<uint32_t>(i))]);
  });
  MESSAGE("half a Fisher-Yates: smallest p = " << p_half);
  CHECK(p_half < 1e-9);
}

TEST_CASE("bucket shuffle: a permutation of its input at n = 10^6 (philox nodes and xoshiro256ss)") {
  const size_t n = 1000000;
  std::vector<uint8_t> data(n), scratch;
  PhiloxStream fill(7, 7);
  for (auto& x : data) x = static_cast<uint8_t>(fill.next() % 251);
  std::array<uint64_t, 256> want{};
  for (uint8_t x : data) ++want[x];
  for (uint64_t j : {0ull, 9999ull}) {
    std::vector<uint8_t> a = data, b = data;
    PhiloxNodes s{kSeed, j};
    bucket_shuffle(a.data(), n, BucketParams{}, s, scratch);
    Xoshiro256ss g = xoshiro(kSeed + j);
    OneStream<Xoshiro256ss> x{g};
    bucket_shuffle(b.data(), n, BucketParams{}, x, scratch);
    for (const auto* v : {&a, &b}) {
      std::array<uint64_t, 256> got{};
      for (uint8_t c : *v) ++got[c];
      CHECK(got == want);
      CHECK(*v != data);
    }
  }
}

TEST_CASE("bucket shuffle: what the output depends on") {
  const size_t n = 100000;
  std::vector<uint8_t> data(n), scratch;
  PhiloxStream fill(3, 3);
  for (auto& x : data) x = static_cast<uint8_t>(fill.next());
  const BucketParams p{4, 8, 1024};
  auto philox = [&](uint64_t seed, uint64_t j, const BucketParams& q, ChildOrder order) {
    std::vector<uint8_t> a = data;
    PhiloxNodes s{seed, j};
    bucket_shuffle(a.data(), n, q, s, scratch, order);
    return a;
  };
  auto xoshiro_run = [&](uint64_t seed, ChildOrder order) {
    std::vector<uint8_t> a = data;
    Xoshiro256ss g = xoshiro(seed);
    OneStream<Xoshiro256ss> s{g};
    bucket_shuffle(a.data(), n, p, s, scratch, order);
    return a;
  };
  const auto base = philox(kSeed, 5, p, ChildOrder::kForward);
  // (prng, seed, j) and the parameters: the same again, another j or seed differs.
  CHECK(philox(kSeed, 5, p, ChildOrder::kForward) == base);
  CHECK(philox(kSeed, 6, p, ChildOrder::kForward) != base);
  CHECK(philox(kSeed + 1, 5, p, ChildOrder::kForward) != base);
  CHECK(philox(kSeed, 5, BucketParams{5, 8, 1024}, ChildOrder::kForward) != base);
  // Not the order in which nodes are shuffled, with a stream per node (what lets the GPU
  // shuffle the buckets in parallel); a single sequential stream is defined by its order.
  CHECK(philox(kSeed, 5, p, ChildOrder::kReverse) == base);
  CHECK(xoshiro_run(kSeed, ChildOrder::kForward) == xoshiro_run(kSeed, ChildOrder::kForward));
  CHECK(xoshiro_run(kSeed, ChildOrder::kReverse) != xoshiro_run(kSeed, ChildOrder::kForward));
  // L only through which nodes are leaves: the 16 buckets of about 6,250 stay inner nodes and
  // their 256 buckets of about 24 leaves for L = 1024 and 4096, not for L = 8192.
  CHECK(philox(kSeed, 5, BucketParams{4, 8, 4096}, ChildOrder::kForward) == base);
  CHECK(philox(kSeed, 5, BucketParams{4, 8, 8192}, ChildOrder::kForward) != base);
  // A row of at most L samples is today's Fisher-Yates on stream j.
  std::vector<uint8_t> a(data.begin(), data.begin() + 1000), b = a;
  PhiloxNodes s{kSeed, 5};
  bucket_shuffle(a.data(), a.size(), p, s, scratch);
  PhiloxStream rng(kSeed, 5);
  fisher_yates(b.data(), b.size(), 1, rng);
  CHECK(a == b);
  // The root's stream is PhiloxStream(seed, j).
  PhiloxNodeStream root(kSeed, 1ull << 40, 0, 0);
  PhiloxStream same(kSeed, 1ull << 40);
  for (int w = 0; w < 100; ++w) REQUIRE(root.next() == same.next());
}

TEST_CASE("engine rule: b0 by n, the JSON's name, every generator with independent words on non-binary data") {
  CHECK(engine_bucket_params(1000000).root_bits == 3);
  CHECK(engine_bucket_params(size_t{1} << 20).root_bits == 3);
  CHECK(engine_bucket_params((size_t{1} << 20) + 8).root_bits == 4);
  CHECK(engine_bucket_params(size_t{1} << 25).root_bits == 8);
  CHECK(engine_bucket_params(size_t{1} << 30).root_bits == 8);
  CHECK(engine_bucket_params(1000000).inner_bits == 8);
  CHECK(engine_bucket_params(1000000).leaf == 1024);
  CHECK(!engine_uses_buckets(PrngId::Philox, 1024, false, ShuffleChoice::Bucket));
  CHECK(engine_uses_buckets(PrngId::Philox, 1025, false, ShuffleChoice::Bucket));
  CHECK(!engine_uses_buckets(PrngId::Philox, 1000000, true, ShuffleChoice::Bucket));
  CHECK(engine_uses_buckets(PrngId::Mrg31k3p, 1000000, false, ShuffleChoice::Bucket));
  CHECK(engine_uses_buckets(PrngId::Xoshiro256ss, 1025, false, ShuffleChoice::Bucket));
  CHECK(!engine_uses_buckets(PrngId::Xorwow, 1000000, true, ShuffleChoice::Bucket));
  CHECK(!engine_uses_buckets(PrngId::Mrg32k3a, 1024, false, ShuffleChoice::Bucket));
  CHECK(!engine_uses_buckets(PrngId::CiBbs, 1000000, false, ShuffleChoice::Bucket));
  CHECK(!engine_uses_buckets(PrngId::CiXorlike, 1000000, false, ShuffleChoice::Bucket));
  CHECK(!engine_uses_buckets(PrngId::Sobol, 1000000, false, ShuffleChoice::Bucket));
  CHECK(engine_shuffle_name(PrngId::Philox, 1000000, false, ShuffleChoice::Bucket) ==
        "bucket b0=3 b1=8 L=1024 (Rao-Sandelius; Fisher-Yates leaves, Lemire bounded draws)");
  CHECK(engine_shuffle_name(PrngId::Philox, 1000000, true, ShuffleChoice::Bucket) == "Fisher-Yates, Lemire bounded draws");
  CHECK(engine_shuffle_name(PrngId::Philox, 1024, false, ShuffleChoice::Bucket) == "Fisher-Yates, Lemire bounded draws");
  CHECK(engine_shuffle_name(PrngId::CiXorlike, 1000000, false, ShuffleChoice::Bucket).rfind("Fisher-Yates", 0) == 0);
  CHECK(engine_shuffle_name(PrngId::Sobol, 1000000, false, ShuffleChoice::Bucket).rfind("Fisher-Yates", 0) == 0);
  CHECK(engine_shuffle_name(PrngId::Xoshiro256ss, 1000000, false, ShuffleChoice::Bucket) ==
        "bucket b0=3 b1=8 L=1024 (Rao-Sandelius; Fisher-Yates leaves, Lemire bounded draws)");
  CHECK(engine_shuffle_name(PrngId::Mrg32k3a, 1000000, true, ShuffleChoice::Bucket).rfind("Fisher-Yates", 0) == 0);
  // --shuffle fisher-yates: never the bucket shuffle, for any generator, length or alphabet.
  for (const PrngInfo& p : prng_table()) {
    for (size_t n : {size_t{1024}, size_t{1025}, size_t{1000000}, size_t{1} << 25}) {
      for (bool binary : {false, true}) {
        CHECK(!engine_uses_buckets(p.id, n, binary, ShuffleChoice::FisherYates));
        CHECK(engine_shuffle_name(p.id, n, binary, ShuffleChoice::FisherYates).rfind("Fisher-Yates", 0) == 0);
      }
    }
  }
  CHECK(engine_shuffle_name(PrngId::Philox, 1000000, false, ShuffleChoice::FisherYates) ==
        "Fisher-Yates, Lemire bounded draws");
  CHECK(parse_shuffle_choice("fisher-yates") == ShuffleChoice::FisherYates);
  CHECK(parse_shuffle_choice("bucket") == ShuffleChoice::Bucket);
  CHECK(!parse_shuffle_choice("Fisher-Yates"));
  CHECK(std::string(shuffle_choice_name(ShuffleChoice::FisherYates)) == "fisher-yates");
}

namespace {
// bucket_column on a column of a strided batch (stride 3, scratch stride 2) against
// bucket_shuffle on a contiguous copy.
template <class MakeStreams>
bool column_equals_reference(const std::vector<uint8_t>& symbols, const BucketParams& p, MakeStreams make) {
  const size_t n = symbols.size();
  std::vector<uint8_t> want = symbols, scratch;
  {
    auto s = make();
    bucket_shuffle(want.data(), n, p, s.streams, scratch);
  }
  std::vector<uint8_t> batch(3 * n + 3, 0xee), out(2 * n + 2, 0xdd);
  auto s = make();
  if (!bucket_column(batch.data() + 1, 3, out.data() + 1, 2, symbols.data(), static_cast<uint32_t>(n), p, s.streams))
    return false;
  for (size_t i = 0; i < n; ++i)
    if (batch[1 + 3 * i] != want[i]) return false;
  return true;
}
struct PhiloxMaker {
  uint64_t j;
  struct Out {
    PhiloxNodes streams;
  };
  Out operator()() const { return Out{PhiloxNodes{kSeed, j}}; }
};
template <class G>
struct OneMaker {
  G start;
  struct Out {
    G g;
    OneStream<G> streams{g};
    explicit Out(const G& s) : g(s) {}
  };
  Out operator()() const { return Out(start); }
};
}  // namespace

TEST_CASE("bucket_column (the GPU's one thread per permutation) equals bucket_shuffle for every kind of stream") {
  for (size_t n : {size_t{1}, size_t{2}, size_t{1000}, size_t{1025}, size_t{5000}, size_t{100003}, size_t{1000000}}) {
    std::vector<uint8_t> symbols(n);
    for (size_t i = 0; i < n; ++i) symbols[i] = static_cast<uint8_t>((i * 37 + i / 100) & 0xff);
    const BucketParams p = engine_bucket_params(n);
    CHECK_MESSAGE(column_equals_reference(symbols, p, PhiloxMaker{7}), "philox n=" << n);
    CHECK_MESSAGE(column_equals_reference(symbols, p, OneMaker<Xoshiro256ss>{xoshiro(n)}), "xoshiro256ss n=" << n);
    StreamSet mrg(PrngId::Mrg32k3a, kSeed, 4);
    CHECK_MESSAGE(column_equals_reference(symbols, p, OneMaker<Mrg32k3a>{Mrg32k3a::make(mrg.view(), 3)}),
                  "mrg32k3a n=" << n);
  }
  // Parameters that need more levels than it keeps: it says so instead of giving a wrong row.
  std::vector<uint8_t> symbols = iota_bytes(200);
  std::vector<uint8_t> batch(200), out(200);
  PhiloxNodes s{kSeed, 1};
  CHECK(!bucket_column(batch.data(), 1, out.data(), 1, symbols.data(), 200, BucketParams{1, 1, 2}, s));
  CHECK(bucket_column(batch.data(), 1, out.data(), 1, symbols.data(), 200, BucketParams{8, 8, 2}, s));
}

TEST_CASE("shuffle_permutation is the engine's rule: the bucket shuffle above L, Fisher-Yates at or below it") {
  for (PrngId id : {PrngId::Philox, PrngId::Xoshiro256ss, PrngId::Xorwow, PrngId::Mrg31k3p, PrngId::Sobol}) {
    StreamSet set(id, kSeed, 3);
    for (size_t n : {size_t{1024}, size_t{1025}, size_t{70001}}) {
      std::vector<uint8_t> a(n), b;
      for (size_t i = 0; i < n; ++i) a[i] = static_cast<uint8_t>(i * 11);
      b = a;
      std::vector<uint8_t> fy = a;
      shuffle_permutation(set, 2, a.data(), n);
      fisher_yates_permutation(set, 2, fy.data(), n);
      std::vector<uint8_t> scratch;
      visit_generator(id, [&](auto tag) {
        using G = decltype(tag);
        if constexpr (std::is_same_v<G, PhiloxGen>) {
          engine_bucket_shuffle_philox(b.data(), n, kSeed, 2, scratch);
        } else if constexpr (!G::kGrouped) {
          G g = G::make(set.view(), 2);
          if (engine_uses_buckets(id, n, false, ShuffleChoice::Bucket)) {
            engine_bucket_shuffle(b.data(), n, g, scratch);
          } else {
            fisher_yates(b.data(), n, 1, g);
          }
        }
      });
      CHECK_MESSAGE(a == b, prng_info(id).name << " n=" << n);
      CHECK_MESSAGE((a == fy) == !engine_uses_buckets(id, n, false, ShuffleChoice::Bucket), prng_info(id).name << " n=" << n);
    }
  }
}

TEST_CASE("engine_shuffle_cpu (the CPU backend's rows) equals shuffle_permutation for every generator and --shuffle") {
  EngineShuffleScratch scratch;
  for (const PrngInfo& info : prng_table()) {
    const StreamSet set(info.id, kSeed, 64);
    for (ShuffleChoice choice : {ShuffleChoice::Bucket, ShuffleChoice::FisherYates}) {
      for (size_t n : {size_t{1024}, size_t{1025}, size_t{70001}}) {
        CAPTURE(info.name);
        CAPTURE(shuffle_choice_name(choice));
        CAPTURE(n);
        std::vector<uint8_t> start(n);
        for (size_t i = 0; i < n; ++i) start[i] = static_cast<uint8_t>(i * 7);
        for (uint64_t j : {uint64_t{0}, uint64_t{33}}) {
          std::vector<uint8_t> want = start;
          if (choice == ShuffleChoice::Bucket) {
            shuffle_permutation(set, j, want.data(), n);
          } else {
            fisher_yates_permutation(set, j, want.data(), n);
          }
          if (is_grouped(info.id)) {
            // The group of j, all kLaneGroup rows at once.
            std::vector<std::vector<uint8_t>> rows(kLaneGroup, start);
            uint8_t* ptr[kLaneGroup];
            for (uint32_t k = 0; k < kLaneGroup; ++k) ptr[k] = rows[k].data();
            engine_shuffle_group_cpu(set.view(), j / kLaneGroup, ptr, n);
            CHECK(rows[j % kLaneGroup] == want);
            CHECK_THROWS_AS(engine_shuffle_cpu(set.view(), choice, false, j, rows[0].data(), n, scratch), Error);
          } else {
            std::vector<uint8_t> got = start;
            engine_shuffle_cpu(set.view(), choice, false, j, got.data(), n, scratch);
            CHECK(got == want);
          }
        }
      }
    }
  }
}

TEST_CASE("bucket_shuffle_philox_cpu (the CPU backend's fast path) equals the reference with Philox nodes") {
  BucketCpuScratch scratch;
  // (4000: the root's children all leaves; 8192 and 8500: some leaves, some inner nodes of
  // 256 buckets, so the root is split alone; 12000 and up: the fused root)
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{1000}, size_t{1024}, size_t{1025}, size_t{4000}, size_t{8192},
                   size_t{8500}, size_t{12000}, size_t{70001}, size_t{1000000}, (size_t{1} << 21) + 3, (size_t{1} << 22) + 1, (size_t{1} << 23) + 1,
                   (size_t{1} << 24) + 1, (size_t{1} << 25) + 1}) {
    std::vector<uint8_t> symbols(n);
    for (size_t i = 0; i < n; ++i) symbols[i] = static_cast<uint8_t>((i * 37 + i / 100) & 0xff);
    for (uint64_t j : {uint64_t{0}, uint64_t{5}, (uint64_t{1} << 40) + 3}) {
      if (n > 2500000 && j != 5) continue;  // (b0 = 5 .. 8 below: one permutation each)
      std::vector<uint8_t> want = symbols, got = symbols, ref_scratch;
      PhiloxNodes s{kSeed, j};
      bucket_shuffle(want.data(), n, engine_bucket_params(n), s, ref_scratch);
      bucket_shuffle_philox_cpu(got.data(), n, kSeed, j, scratch);
      CHECK_MESSAGE(got == want, "n=" << n << " j=" << j);
    }
  }
  // Other parameters reach the rest: small leaves under the fused root (inner nodes at depth
  // 2 and below, buckets of one sample), a root of fewer than 3 bits and inner nodes of other
  // than 8 bits (no fused root), 4..8-bit roots split alone.
  for (const BucketParams& p : {BucketParams{3, 8, 16}, BucketParams{2, 8, 64}, BucketParams{1, 8, 64},
                                BucketParams{3, 7, 64}, BucketParams{4, 5, 64}, BucketParams{6, 8, 16},
                                BucketParams{8, 8, 4}, BucketParams{5, 2, 300}}) {
    for (size_t n : {size_t{3}, size_t{500}, size_t{70001}}) {
      std::vector<uint8_t> symbols(n);
      for (size_t i = 0; i < n; ++i) symbols[i] = static_cast<uint8_t>((i * 41 + i / 7) & 0xff);
      std::vector<uint8_t> want = symbols, got = symbols, ref_scratch;
      PhiloxNodes s{kSeed, 9};
      bucket_shuffle(want.data(), n, p, s, ref_scratch);
      bucket_shuffle_philox_cpu(got.data(), n, kSeed, 9, scratch, p);
      CHECK_MESSAGE(got == want, "b0=" << p.root_bits << " b1=" << p.inner_bits << " L=" << p.leaf << " n=" << n);
    }
  }
}

namespace {
// A plan sink that records the row and checks that each array's places only increase (the
// GPU's writer stores each 16-byte chunk once on that condition).
struct CheckedPlanRow {
  BucketPlanRow row;
  int64_t last[3] = {-1, -1, -1};
  bool increasing = true;
  void at(int k, uint32_t e) {
    increasing = increasing && static_cast<int64_t>(e) > last[k];
    last[k] = e;
  }
  void lab0(uint32_t e, uint32_t l) { at(0, e), row.lab0(e, l); }
  void lab1(uint32_t e, uint32_t l) { at(1, e), row.lab1(e, l); }
  void tgt(uint32_t e, uint32_t r) { at(2, e), row.tgt(e, r); }
};

template <class G>
void check_planned(const char* name, const G& start) {
  std::vector<uint8_t> plan, scratch, ref_scratch;
  // (1025 and 4000: the root's children all leaves; 8500: some leaves, some inner nodes;
  // 2^21 + 3: a root of 4 bits)
  for (size_t n : {size_t{1025}, size_t{4000}, size_t{8500}, size_t{70001}, size_t{1000000}, (size_t{1} << 21) + 3}) {
    std::vector<uint8_t> symbols(n);
    for (size_t i = 0; i < n; ++i) symbols[i] = static_cast<uint8_t>((i * 37 + i / 100) & 0xff);
    std::vector<uint8_t> want = symbols, got = symbols;
    G a = start, b = start, c = start;
    engine_bucket_shuffle(want.data(), n, a, ref_scratch);
    bucket_shuffle_planned(got.data(), n, b, plan, scratch);
    CHECK_MESSAGE(got == want, name << " n=" << n);
    std::vector<uint8_t> row(bucket_plan_bytes(n));
    CheckedPlanRow sink{BucketPlanRow(row.data(), n)};
    CHECK(bucket_plan_walk(c, static_cast<uint32_t>(n), sink));
    CHECK_MESSAGE(sink.increasing, name << " n=" << n);
    CHECK_MESSAGE(sink.last[0] == static_cast<int64_t>(n) - 1, name << " n=" << n);
    // The walk drew what the reference drew: the streams are in the same state after it.
    CHECK_MESSAGE(LabelWords<G>::next(a) == LabelWords<G>::next(c), name << " n=" << n);
  }
  // At or below L: one leaf, Fisher-Yates on the stream.
  std::vector<uint8_t> fy = iota_bytes(1000), got = fy;
  G a = start;
  fisher_yates(fy.data(), fy.size(), 1, a);
  bucket_shuffle_planned(got.data(), got.size(), start, plan, scratch);
  CHECK(got == fy);
}
}  // namespace

TEST_CASE("bucket_shuffle_planned (the plan, then the data) equals the reference for the sequential generators") {
  check_planned("xoshiro256ss", xoshiro(kSeed));
  StreamSet xw(PrngId::Xorwow, kSeed, 4), m31(PrngId::Mrg31k3p, kSeed, 4), m32(PrngId::Mrg32k3a, kSeed, 4);
  check_planned("xorwow", Xorwow::make(xw.view(), 3));
  check_planned("mrg31k3p", Mrg31k3p::make(m31.view(), 1));
  check_planned("mrg32k3a", Mrg32k3a::make(m32.view(), 2));
}
