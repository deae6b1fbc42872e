// The counting rule and the determinism contract of the permutation tests.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <vector>

#include "assess.hpp"
#include "common/error.hpp"
#include "estimators/estimators.hpp"
#include "permutation/bucket_shuffle.hpp"
#include "permutation/counters.hpp"
#include "permutation/deferred.hpp"
#include "permutation/permutation.hpp"
#include "permutation/reservations.hpp"
#include "permutation/shuffle.hpp"
#include "permutation/share.hpp"
#include "permutation/split.hpp"
#include "rng/generators.hpp"
#include "rng/philox_batch.hpp"
#include "rng/philox_stream.hpp"
#include "rng/prng.hpp"
#include "stats/compression.hpp"

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
  DeviceSlot slot(assign_gpus(cfg.gpus, 1, cfg.tuning.memory_share)[0]);
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
  // 2,000 samples: above the bucket shuffle's leaf of 1,024, so that its plans and passes run
  // (5,000 took 55 s of CI's sanitizer job, session 38).
  Dataset d = sample_data(2000);
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

TEST_CASE("batched Philox words and draws equal PhiloxStream's, across refills, rejections and a counter wrap") {
  for (uint64_t seed : {1ull, 0x123456789abcdefull}) {
    PhiloxStream s(seed, 5);
    PhiloxBatchStream b(seed, 5);
    for (int w = 0; w < 3 * static_cast<int>(PhiloxBatchStream::kWords) + 7; ++w) CHECK(b.next() == s.next());
  }
  // Blocks whose low counter word wraps within a group of eight.
  std::vector<uint32_t> out(4 * 21);
  const uint64_t first = 0xfffffff9ull;
  philox_blocks(7, 0x1234567890ull, first, 21, out.data());
  for (uint32_t k = 0; k < 21; ++k) {
    const philox4x32_ctr_t want = PhiloxStream::block(7, 0x1234567890ull, first + k);
    for (int w = 0; w < 4; ++w) CHECK(out[4 * k + w] == want.v[w]);
  }
  // Draws near 2^32 reject often; small ones rarely.
  for (uint32_t top : {0xfffffff0u, 0x9000000fu, 1000000u, 20u}) {
    PhiloxStream s(3, 9);
    PhiloxBatchStream b(3, 9);
    const size_t m = top < 3000 ? top : 3000;
    std::vector<uint32_t> t(m);
    for (int round = 0; round < 3; ++round) {
      b.draw(t.data(), m, top);
      for (size_t k = 0; k < m; ++k) {
        CAPTURE(top);
        CHECK(t[k] == s.bounded(top - static_cast<uint32_t>(k)));
      }
    }
  }
}

TEST_CASE("blocked Fisher-Yates (draws made a block ahead) equals the sequential shuffle") {
  std::vector<uint32_t> targets(kShuffleBlock);
  for (size_t n :
       {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{100}, kShuffleBlock, kShuffleBlock + 1, size_t{70001}}) {
    std::vector<uint8_t> a(n), b(n);
    for (size_t i = 0; i < n; ++i) a[i] = b[i] = static_cast<uint8_t>(i * 7 + i / 256);
    PhiloxStream s(11, 4);
    fisher_yates(a.data(), n, 1, s);
    PhiloxBatchStream p(11, 4);
    fisher_yates_blocked(b.data(), n, p, targets.data());
    CHECK(a == b);
    std::vector<uint8_t> c(n), d(n);
    for (size_t i = 0; i < n; ++i) c[i] = d[i] = static_cast<uint8_t>(i * 13 + i / 256);
    Xorwow x = Xorwow::seeded(5), y = Xorwow::seeded(5);
    fisher_yates(c.data(), n, 1, x);
    fisher_yates_blocked(d.data(), n, y, targets.data());
    CHECK(c == d);
  }
}

TEST_CASE("split_round: contiguous pieces in proportion to the parts, none over its capacity") {
  CHECK(split_round(10000, {10000, 10000}) == std::vector<uint32_t>{5000, 5000});
  CHECK(split_round(2048, {1024, 1024}) == std::vector<uint32_t>{1024, 1024});
  CHECK(split_round(7, {10, 10}) == std::vector<uint32_t>{4, 3});
  CHECK(split_round(1, {10, 10}) == std::vector<uint32_t>{1, 0});
  CHECK(split_round(0, {10, 10}) == std::vector<uint32_t>{0, 0});
  CHECK(split_round(30, {10, 20}) == std::vector<uint32_t>{10, 20});
  CHECK(split_round(9, {1, 100}) == std::vector<uint32_t>{1, 8});
  CHECK(split_round(5, {5}) == std::vector<uint32_t>{5});
  for (uint32_t count = 0; count <= 31; ++count) {
    const std::vector<uint32_t> cap{3, 17, 11};
    const auto p = split_round(count, cap);
    uint32_t sum = 0;
    for (size_t k = 0; k < cap.size(); ++k) {
      CHECK(p[k] <= cap[k]);
      sum += p[k];
    }
    CHECK(sum == count);
  }
  CHECK_THROWS_AS(split_round(21, {10, 10}), Error);
}

TEST_CASE("assign_gpus: every listed GPU gets workers, memory divided among the entries that name it") {
  // One assessment (one worker) on two GPUs: both in its slot, each with the whole share.
  auto one = assign_gpus({0, 1}, 1, 0.8);
  REQUIRE(one.size() == 1);
  REQUIRE(one[0].size() == 2);
  CHECK(one[0][0].gpu == 0);
  CHECK(one[0][1].gpu == 1);
  CHECK(one[0][0].memory_share == doctest::Approx(0.8));
  // --gpu 0,0: two halves of GPU 0.
  auto twice = assign_gpus({0, 0}, 1, 0.8);
  REQUIRE(twice[0].size() == 2);
  CHECK(twice[0][0].gpu == 0);
  CHECK(twice[0][1].gpu == 0);
  CHECK(twice[0][1].memory_share == doctest::Approx(0.4));
  // A batch: 8 workers on 2 GPUs, 4 each, a quarter of each GPU's share apiece.
  auto batch = assign_gpus({0, 1}, 8, 0.8);
  REQUIRE(batch.size() == 8);
  int on[2] = {0, 0};
  for (const auto& w : batch) {
    REQUIRE(w.size() == 1);
    ++on[w[0].gpu];
    CHECK(w[0].memory_share == doctest::Approx(0.2));
  }
  CHECK(on[0] == 4);
  CHECK(on[1] == 4);
  // Three GPUs, two workers: one worker splits across two of them.
  auto three = assign_gpus({0, 1, 2}, 2, 0.9);
  CHECK(three[0].size() == 2);
  CHECK(three[1].size() == 1);
  // One GPU, the old default: each of 4 workers gets a quarter.
  auto single = assign_gpus({0}, 4, 0.8);
  for (const auto& w : single) CHECK(w[0].memory_share == doctest::Approx(0.2));
  CHECK_THROWS_AS(assign_gpus({}, 1, 0.8), Error);
}

namespace {

// The permutation data of d with the given streams (both must outlive it) and the
// statistics of the unshuffled data (the compression statistic left unset).
PermutationData permutation_data(const Dataset& d, const StreamSet& streams) {
  PermutationData pd;
  const Baseline base = baseline(d);
  pd.symbols = d.symbols.data();
  pd.n = d.size();
  pd.raw_of = d.raw_of.data();
  pd.params = StatParams{base.mean, base.median, d.binary(), static_cast<uint32_t>(d.alphabet)};
  pd.streams = streams.view();
  CpuScratch scratch;
  cpu_statistics(pd.symbols, pd.n, pd.raw_of, pd.params, kAllFastTests, pd.original, scratch);
  return pd;
}

// permutation_data() with libbz2's length of the unshuffled data.
PermutationData permutation_data_with_length(const Dataset& d, const StreamSet& streams) {
  PermutationData pd = permutation_data(d, streams);
  Compressor bz;
  pd.original.v[kNumFastTests] = static_cast<double>(bz.compressed_length(pd.symbols, pd.n, pd.raw_of));
  return pd;
}

}  // namespace

TEST_CASE("--shuffle fisher-yates: the CPU backend's permutation j is Fisher-Yates on stream j, for every generator") {
  Dataset d = sample_data(3000);  // non-binary, above the bucket shuffle's leaf of 1,024
  constexpr uint32_t kRows = 40;
  for (const PrngInfo& p : prng_table()) {
    CAPTURE(std::string(p.name));
    const StreamSet streams(p.id, 5, kRows);
    PermutationData pd = permutation_data(d, streams);
    pd.shuffle = ShuffleChoice::FisherYates;
    std::vector<uint8_t> got(kRows * kNumTests), bucket(kRows * kNumTests), want(kRows * kNumTests, kNotComputed);
    make_cpu_backend(pd, 2)->run(0, kRows, kAllFastTests, got.data());
    pd.shuffle = ShuffleChoice::Bucket;
    make_cpu_backend(pd, 2)->run(0, kRows, kAllFastTests, bucket.data());
    CpuScratch scratch;
    for (uint64_t j = 0; j < kRows; ++j) {
      std::vector<uint8_t> a(d.symbols);
      // The lane groups' rule is Fisher-Yates already (lanes in lockstep: shuffle_permutation).
      if (is_grouped(p.id)) {
        shuffle_permutation(streams, j, a.data(), a.size());
      } else {
        fisher_yates_permutation(streams, j, a.data(), a.size());
      }
      StatVector sv;
      cpu_statistics(a.data(), a.size(), pd.raw_of, pd.params, kAllFastTests, sv, scratch);
      for (int t = 0; t < kNumFastTests; ++t) want[j * kNumTests + t] = compare_outcome(sv.v[t], pd.original.v[t]);
    }
    CHECK(got == want);
    // The bucket shuffle (the default) makes other permutations where it applies.
    CHECK((bucket == want) == !engine_uses_buckets(p.id, d.size(), false, ShuffleChoice::Bucket));
  }
}

TEST_CASE("a split backend gives the counters of one backend (rounds cut across parts)") {
  Dataset d = sample_data(20000);
  const StreamSet streams(PrngId::Philox, 77, 10000);
  PermutationData pd = permutation_data(d, streams);
  pd.original.v[kNumFastTests] = 1e9;  // compression: never reached below (skip_compression)
  DriverConfig dc;
  dc.skip_compression = true;
  for (bool early : {true, false}) {
    CAPTURE(early);
    dc.early_exit = early;
    dc.iterations = early ? 10000 : 700;
    auto single = make_cpu_backend(pd, 1);
    auto unused = make_cpu_backend(pd, 1);
    const PermutationOutcome want = run_permutation_tests(*single, *unused, dc);
    // Three parts of different round sizes (1, 2 and 3 threads).
    auto a = make_cpu_backend(pd, 1), b = make_cpu_backend(pd, 2), c = make_cpu_backend(pd, 3);
    auto split = make_split_backend({a.get(), b.get(), c.get()});
    CHECK(split->name() == "3 devices: cpu + cpu + cpu");
    const PermutationOutcome got = run_permutation_tests(*split, *unused, dc);
    CHECK(got.fast_permutations == want.fast_permutations);
    for (int t = 0; t < kNumFastTests; ++t) {
      CAPTURE(t);
      for (int k = 0; k < 3; ++k) CHECK(got.counters[t].c[k] == want.counters[t].c[k]);
    }
    // run() directly, as --verify calls it: the same outcome rows as the single backend.
    std::vector<uint8_t> x(64 * kNumTests), y(64 * kNumTests);
    single->run(100, 64, kAllFastTests, x.data());
    split->run(100, 64, kAllFastTests, y.data());
    CHECK(x == y);
  }
}

TEST_CASE("shared_piece: a part's round, and near the end its share of what is left by rate") {
  CHECK(shared_piece(3334, 10000, 0, 0) == 3334);  // rate not measured: its round
  CHECK(shared_piece(3334, 100, 0, 0) == 100);     // never more than is left
  CHECK(shared_piece(0, 100, 0, 0) == 1);          // a round of 0 still takes one
  CHECK(shared_piece(3334, 10000, 2000, 2300) == 3334);
  CHECK(shared_piece(3334, 2000, 2000, 2300) == 1740);  // ceil(2000 x 2000 / 2300)
  CHECK(shared_piece(16, 2000, 300, 2300) == 16);
  CHECK(shared_piece(3334, 1, 2000, 2300) == 1);
  CHECK(shared_piece(3334, 3, 10, 1e9) == 1);            // a slow part: at least one
  CHECK(shared_piece(3334, 5000, 2000, 2000) == 3334);   // the only measured part: its round
}

namespace {
// A part that takes `ms` milliseconds more per piece of at most 3 permutations (and fails
// where asked): the shared backend's pieces then finish out of order. `active` counts the
// parts' run() calls in progress.
class SlowPart final : public PermutationBackend {
 public:
  SlowPart(PermutationBackend& inner, int ms, bool fail, std::atomic<int>* active = nullptr)
      : inner_(inner), ms_(ms), fail_(fail), active_(active) {}
  std::string name() const override { return "slow " + inner_.name(); }
  TestMask supported() const override { return inner_.supported(); }
  uint32_t round_size(uint32_t, TestMask) const override { return 3; }
  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    struct Active {
      std::atomic<int>* n;
      explicit Active(std::atomic<int>* a) : n(a) {
        if (n) ++*n;
      }
      ~Active() {
        if (n) --*n;
      }
    } in_run(active_);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
    if (fail_) throw Error(ErrorKind::Device, "the slow part failed");
    inner_.run(first, count, mask, outcomes);
  }

 private:
  PermutationBackend& inner_;
  int ms_;
  bool fail_;
  std::atomic<int>* active_;
};
}  // namespace

TEST_CASE("a shared backend gives the counters of one backend (parts take pieces as they are free)") {
  Dataset d = sample_data(20000);
  const StreamSet streams(PrngId::Philox, 79, 10000);
  PermutationData pd = permutation_data_with_length(d, streams);
  for (bool early : {true, false}) {
    CAPTURE(early);
    DriverConfig dc;
    dc.early_exit = early;
    dc.all_tests = true;
    dc.iterations = early ? 10000 : 120;
    auto single = make_cpu_backend(pd, 1);
    const PermutationOutcome want = run_permutation_tests(*single, *single, dc);
    auto a = make_cpu_backend(pd, 2), inner = make_cpu_backend(pd, 1), fast = make_cpu_backend(pd, 2);
    SlowPart slow(*inner, 5, false);
    // A third part made on its first piece (as the CPU's part of a GPU run): asking the shared
    // backend what it supports does not make it.
    DeferredBackend deferred("later", [&pd] { return make_cpu_backend(pd, 1); }, kAllTests);
    auto shared = make_shared_backend({a.get(), &slow, &deferred});
    CHECK(shared->name() == "cpu + slow cpu + later");
    CHECK(shared->supported() == kAllTests);
    CHECK(!deferred.made());
    const PermutationOutcome got = run_permutation_tests(*fast, *shared, dc);
    CHECK(got.compression_permutations == want.compression_permutations);
    for (int t = 0; t < kNumTests; ++t) {
      CAPTURE(t);
      for (int k = 0; k < 3; ++k) CHECK(got.counters[t].c[k] == want.counters[t].c[k]);
    }
    // Both parts took pieces (the profile names each part's permutations).
    const std::string profile = shared->profile();
    CAPTURE(profile);
    CHECK(profile.find("part 0: ") != std::string::npos);
    CHECK(profile.find("part 1: ") != std::string::npos);
    CHECK(profile.find("part 1: 0 permutations") == std::string::npos);
    // run() directly: the same outcome rows as the single backend.
    std::vector<uint8_t> x(40 * kNumTests), y(40 * kNumTests);
    single->run(100, 40, kAllTests, x.data());
    shared->run(100, 40, kAllTests, y.data());
    CHECK(x == y);
  }
}

namespace {
// A backend that counts the permutations asked of it, by the tests asked.
class CountingBackend final : public PermutationBackend {
 public:
  explicit CountingBackend(PermutationBackend& inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  TestMask supported() const override { return inner_.supported(); }
  uint32_t round_size(uint32_t r, TestMask m) const override { return inner_.round_size(r, m); }
  void run(uint64_t first, uint32_t count, TestMask mask, uint8_t* outcomes) override {
    asked[mask] += count;
    inner_.run(first, count, mask, outcomes);
  }
  std::string profile() const override { return profile_text; }
  std::map<TestMask, uint64_t> asked;
  std::string profile_text;

 private:
  PermutationBackend& inner_;
};
}  // namespace

TEST_CASE("full counts in one phase: the two phases' outcome, every permutation made once for all 19 tests") {
  Dataset passing = sample_data(20000);
  std::vector<uint8_t> ramp(20000);
  for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<uint8_t>((i / 7) % 256);  // fails runs tests
  for (int which = 0; which < 2; ++which) {
    CAPTURE(which);
    const Dataset d = which == 0 ? passing : make_dataset(ramp, 0);
    const StreamSet streams(PrngId::Philox, 81, 10000);
    PermutationData pd = permutation_data_with_length(d, streams);
    DriverConfig dc;
    dc.early_exit = false;
    dc.all_tests = true;
    dc.iterations = 90;
    auto single = make_cpu_backend(pd, 2);
    const PermutationOutcome want = run_permutation_tests(*single, *single, dc);
    if (which == 1) CHECK_FALSE(want.fast_tests_passed());  // (the compression test's note then)
    auto inner = make_cpu_backend(pd, 2), unused = make_cpu_backend(pd, 1);
    CountingBackend counting(*inner);
    dc.one_phase = true;
    const PermutationOutcome got = run_permutation_tests(*unused, counting, dc);
    CHECK(counting.asked.size() == 1);
    CHECK(counting.asked[kAllTests] == 90);
    CHECK(got.fast_permutations == 90);
    CHECK(got.compression_permutations == 90);
    CHECK(got.compression_run == want.compression_run);
    CHECK(got.compression_note == want.compression_note);
    CHECK(got.passed() == want.passed());
    for (int t = 0; t < kNumTests; ++t) {
      CAPTURE(t);
      CHECK(got.ran[t] == want.ran[t]);
      for (int k = 0; k < 3; ++k) CHECK(got.counters[t].c[k] == want.counters[t].c[k]);
    }
    // One phase is for full counts only.
    dc.early_exit = true;
    CHECK_THROWS_AS(run_permutation_tests(*unused, counting, dc), Error);
  }
}

TEST_CASE("lanes: a split part's name and profile inside a shared backend's") {
  Dataset d = sample_data(20000);
  const StreamSet streams(PrngId::Philox, 83, 10000);
  PermutationData pd = permutation_data_with_length(d, streams);
  auto a = make_cpu_backend(pd, 1), b = make_cpu_backend(pd, 1), c = make_cpu_backend(pd, 1);
  CountingBackend la(*a), lb(*b);
  la.profile_text = "busy A";
  lb.profile_text = "busy B";
  auto lanes = make_split_backend({&la, &lb}, "lanes");
  CHECK(lanes->name() == "2 lanes: cpu + cpu");
  auto shared = make_shared_backend({lanes.get(), c.get()});
  std::vector<uint8_t> rows(30 * kNumTests);
  shared->run(0, 30, kAllTests, rows.data());
  const std::string profile = shared->profile();
  CAPTURE(profile);
  CHECK(profile.rfind("part 0: [part 0: busy A; part 1: busy B], ", 0) == 0);
  CHECK(profile.find("; part 1: ") != std::string::npos);
}

TEST_CASE("a shared backend passes a part's error on once every part has stopped") {
  Dataset d = sample_data(20000);
  const StreamSet streams(PrngId::Philox, 80, 10000);
  PermutationData pd = permutation_data(d, streams);
  pd.original.v[kNumFastTests] = 1e9;
  auto a = make_cpu_backend(pd, 1), inner = make_cpu_backend(pd, 1);
  std::atomic<int> active{0};
  SlowPart working(*a, 2, false, &active), failing(*inner, 1, true, &active);
  auto shared = make_shared_backend({&working, &failing});
  uint32_t seen = 0;
  try {
    shared->stream(0, 500, kAllFastTests, [&](uint64_t first, uint32_t rows, const uint8_t*) {
      CHECK(first == seen);  // in order, and never past the failed piece
      seen += rows;
      return kAllFastTests;
    });
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Device);
    CHECK(std::string(e.what()) == "the slow part failed");
  }
  CHECK(seen < 500);
  CHECK(active.load() == 0);  // every part had stopped when the error came out
}

TEST_CASE("a deferred backend is made when its phase starts, then counts as the backend it makes") {
  Dataset d = sample_data(20000);
  const StreamSet streams(PrngId::Philox, 78, 10000);
  PermutationData pd = permutation_data(d, streams);
  Compressor bz;
  const double length = static_cast<double>(bz.compressed_length(pd.symbols, pd.n, pd.raw_of));
  // The fast backend never sees the compression length (as on a GPU run).
  pd.original.v[kNumFastTests] = std::numeric_limits<double>::quiet_NaN();
  int made = 0;
  auto factory = [&] {
    ++made;
    PermutationData with_length = pd;
    with_length.original.v[kNumFastTests] = length;
    return make_cpu_backend(with_length, 2);
  };
  DriverConfig dc;
  dc.iterations = 300;
  dc.all_tests = true;  // the compression phase runs whatever the other tests say
  auto fast = make_cpu_backend(pd, 2);
  DeferredBackend deferred("cpu (libbz2)", factory);
  CHECK(deferred.name() == "cpu (libbz2)");
  CHECK(deferred.busy_seconds() == 0.0);
  CHECK(!deferred.made());
  const PermutationOutcome got = run_permutation_tests(*fast, deferred, dc);
  CHECK(made == 1);
  CHECK(deferred.made());
  CHECK(got.compression_run);
  CHECK(got.counters[kNumFastTests].total() > 0);
  // The same counters as the backend made at once.
  auto direct = factory();
  const PermutationOutcome want = run_permutation_tests(*fast, *direct, dc);
  for (int t = 0; t < kNumTests; ++t) {
    CAPTURE(t);
    for (int k = 0; k < 3; ++k) CHECK(got.counters[t].c[k] == want.counters[t].c[k]);
  }
  // A run without the compression phase never makes it.
  made = 0;
  DeferredBackend unused("cpu (libbz2)", factory);
  dc.skip_compression = true;
  (void)run_permutation_tests(*fast, unused, dc);
  CHECK(made == 0);
  CHECK(!unused.made());
}

TEST_CASE("the CPU backend's compression outcomes by the bzip2 size model equal libbz2's") {
  Dataset d = sample_data(20000);
  const StreamSet streams(PrngId::Philox, 79, 10000);
  PermutationData pd = permutation_data_with_length(d, streams);
  constexpr uint32_t kRows = 24;
  const TestMask compression = bit(TestId::kCompression);
  std::vector<uint8_t> by_libbz2(kRows * kNumTests), by_model(kRows * kNumTests);
  make_cpu_backend(pd, 2)->run(0, kRows, compression, by_libbz2.data());
  pd.compression_by_model = true;
  make_cpu_backend(pd, 2)->run(0, kRows, compression, by_model.data());
  CHECK(by_model == by_libbz2);
  // Both above and below the original somewhere: the comparison is not all one outcome.
  std::vector<int> seen(3, 0);
  for (uint32_t r = 0; r < kRows; ++r) {
    const uint8_t o = by_model[r * kNumTests + kNumFastTests];
    if (o < 3) ++seen[o];
  }
  CHECK(seen[0] + seen[1] + seen[2] == static_cast<int>(kRows));
  CHECK(seen[kGreater] > 0);
  CHECK(seen[kLess] > 0);
}

namespace {

// n bytes in a pattern (`base`) and their sequential shuffle (`want`) by Philox stream 5
// under `seed`: what the parallel shuffles below must reproduce.
struct ShuffleCase {
  std::vector<uint8_t> base, want;
};
ShuffleCase sequential_case(size_t n, uint64_t seed) {
  ShuffleCase c;
  c.base.resize(n);
  for (size_t k = 0; k < n; ++k) c.base[k] = static_cast<uint8_t>(k * 131 + k / 256);
  c.want = c.base;
  PhiloxStream rng(seed, 5);
  fisher_yates(c.want.data(), n, 1, rng);
  return c;
}

}  // namespace

TEST_CASE("Fisher-Yates by deterministic reservations equals the sequential shuffle, for every window and rule") {
  for (size_t n : {size_t{1}, size_t{2}, size_t{3}, size_t{17}, size_t{1000}, size_t{100000}}) {
    for (uint64_t seed : {1ull, 2ull, 3ull}) {
      const auto [base, want] = sequential_case(n, seed);
      // The same draws as targets, then the rounds.
      PhiloxStream rng_b(seed, 5);
      std::vector<uint32_t> h;
      fisher_yates_targets(n, rng_b, h);
      for (size_t window : {size_t{0}, size_t{1}, size_t{7}, size_t{1024}, size_t{2045}})
        for (ReservationRule rule : {ReservationRule::kBothPlaces, ReservationRule::kTargets}) {
          CAPTURE(n);
          CAPTURE(seed);
          CAPTURE(window);
          CAPTURE(static_cast<int>(rule));
          std::vector<uint8_t> got = base;
          const ReservationStats st = fisher_yates_by_reservations(got.data(), n, 1, h, window, rule);
          CHECK(got == want);
          if (n > 1 && window == 0) CHECK(st.rounds < n);  // many steps per round
        }
    }
  }
  // A strided layout (a column of an interleaved batch) gives the same.
  const size_t n = 5000, stride = 3;
  std::vector<uint8_t> batch(n * stride, 0), want(n);
  for (size_t k = 0; k < n; ++k) batch[k * stride + 1] = want[k] = static_cast<uint8_t>(k);
  PhiloxStream a(9, 0), b(9, 0);
  fisher_yates(want.data(), n, 1, a);
  std::vector<uint32_t> h;
  fisher_yates_targets(n, b, h);
  fisher_yates_by_reservations(batch.data() + 1, n, stride, h, 0);
  bool same = true;
  for (size_t k = 0; k < n; ++k) same = same && batch[k * stride + 1] == want[k];
  CHECK(same);
}

TEST_CASE("reservations: rounds grow about logarithmically with n (all steps at once)") {
  // The dependence depth of the Knuth shuffle is O(log n) w.h.p. (Shun et al. 2015); print
  // what a GPU block would face for 1,000,000 samples.
  std::vector<size_t> rounds;
  for (size_t n : {size_t{1000}, size_t{1000000}}) {
    std::vector<uint8_t> a(n, 0);
    PhiloxStream rng(1, 0);
    std::vector<uint32_t> h;
    fisher_yates_targets(n, rng, h);
    const ReservationStats st = fisher_yates_by_reservations(a.data(), n, 1, h, 0);
    MESSAGE("n = " << n << ": " << st.rounds << " rounds, " << st.reserved / 2 << " step visits (" << (n - 1)
                   << " steps)");
    rounds.push_back(st.rounds);
  }
  CHECK(rounds[1] < 200);  // not thousands: the steps are highly parallel
  CHECK(rounds[1] > rounds[0]);
}

TEST_CASE("PhiloxStream::word and bounded_inclusive_accepts: the stream's words and draws, one at a time") {
  for (uint64_t seed : {1ull, 0x123456789abcdefull}) {
    PhiloxStream s(seed, 77);
    for (uint64_t w = 0; w < 40; ++w) CHECK(PhiloxStream::word(seed, 77, w) == s.next());
  }
  // A draw consumes words until one is accepted, and then gives what bounded() gives.
  const uint32_t bounds[] = {1, 2, 5, 999999, 0x7fffffffu, 0xfffffffdu};
  for (uint32_t i : bounds) {
    PhiloxStream seq(3, 9);
    uint64_t w = 0;
    for (int d = 0; d < 200; ++d) {
      const uint32_t want = seq.bounded(i);
      uint32_t got = 0;
      while (!bounded_inclusive_accepts(PhiloxStream::word(3, 9, w++), i, got)) {
      }
      CAPTURE(i);
      CHECK(got == want);
    }
  }
}

namespace {

// One test's counters after `done` permutations of an original statistic near the bottom:
// a permuted one is smaller (C2, a hit of the slow side C1+C2) when hit(j) says so, and
// greater (C0) otherwise.
ea::Counters paced_counters(uint32_t done, const std::function<bool(uint32_t)>& hit) {
  ea::Counters c{};
  for (uint32_t j = 0; j < done; ++j) ++c[0].c[hit(j) ? 2 : 0];
  return c;
}

}  // namespace

TEST_CASE("expected_permutations_left: the undecided tests' pace, not every test to the last permutation") {
  const uint32_t n = 10000, t = ea::decision_threshold(n);  // 5: a side is decided at 6 hits
  // A hit every 10th permutation (j = 9, 19, ...): decided at permutation 60; after 30 (3
  // hits) it needs 3 more at one in 10: exactly the 30 it takes.
  auto every10 = [](uint32_t j) { return j % 10 == 9; };
  CHECK(ea::expected_permutations_left(paced_counters(30, every10), 1u, 30, n, t, true) == 30);
  // The compression test of a short run (issue 44: "at most 5507 s left" on a run that ended
  // seconds later): 3 hits in the first 50 permutations say about 50 more, not 9,950.
  auto early3 = [](uint32_t j) { return j == 10 || j == 30 || j == 45; };
  CHECK(ea::expected_permutations_left(paced_counters(50, early3), 1u, 50, n, t, true) == 50);
  // A side without a hit (a failing test) may run to the end; so does a run without early exit.
  auto never = [](uint32_t) { return false; };
  CHECK(ea::expected_permutations_left(paced_counters(500, never), 1u, 500, n, t, true) == n - 500);
  CHECK(ea::expected_permutations_left(paced_counters(30, every10), 1u, 30, n, t, false) == n - 30);
  // Decided or done: nothing left; never more than the permutations left.
  CHECK(ea::expected_permutations_left(paced_counters(60, every10), 0u, 60, n, t, true) == 0);
  CHECK(ea::expected_permutations_left(paced_counters(9990, [](uint32_t j) { return j == 9000; }), 1u, 9990, n, t, true) == 10);
  // Random paces (hits with probability 1/p, seeded): an expected value, not a bound (a
  // geometric wait can be short or long), so its middle is checked: once a side has 3 of its
  // 6 hits, the median ratio of the estimate to the permutations the test really took still
  // lies within [0.5, 2] (about 1.4: the mean of a geometric wait over its median).
  uint64_t x = 88172645463325252ull;
  for (uint32_t p : {2u, 5u, 20u, 100u}) {
    std::vector<double> ratios;
    for (int run = 0; run < 200; ++run) {
      std::vector<bool> hits;
      uint32_t seen = 0;
      while (seen <= t) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        hits.push_back(x % p == 0);
        seen += hits.back() ? 1 : 0;
      }
      const auto decided_at = static_cast<uint32_t>(hits.size());
      auto hit = [&hits](uint32_t j) { return j < hits.size() && hits[j]; };
      for (uint32_t done = 1; done < decided_at; done += 1 + done / 16) {
        uint32_t h = 0;
        for (uint32_t j = 0; j < done; ++j) h += hits[j] ? 1 : 0;
        if (h < 3) continue;
        const uint32_t left = ea::expected_permutations_left(paced_counters(done, hit), 1u, done, n, t, true);
        ratios.push_back(static_cast<double>(left) / (decided_at - done));
      }
    }
    REQUIRE(ratios.size() > 100);
    std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2), ratios.end());
    CAPTURE(p);
    CHECK(ratios[ratios.size() / 2] >= 0.5);
    CHECK(ratios[ratios.size() / 2] <= 2.0);
  }
}
