// The one orchestration (pipeline/runner.hpp): item lists, in-order delivery, errors per
// item, interruption, and results that do not depend on the number of workers.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "runner.hpp"

using namespace ea;

namespace {

Settings small_settings() {
  Settings s;
  s.seed = 7;
  s.iterations = 200;
  s.device = DeviceChoice::Cpu;
  s.threads = 1;
  return s;
}

// Item k: 3000 pseudo-random bytes from seed k (k = 3: an error instead).
std::vector<Item> generated_items(size_t n) {
  std::vector<Item> items(n);
  for (size_t k = 0; k < n; ++k) {
    items[k].path = "generated " + std::to_string(k);
    items[k].generate = [k] {
      if (k == 3) throw Error(ErrorKind::Input, "item 3 cannot be made");
      std::mt19937 rng(static_cast<uint32_t>(k));
      std::vector<uint8_t> bytes(3000);
      for (auto& b : bytes) b = static_cast<uint8_t>(rng());
      return make_dataset(std::move(bytes), 8);
    };
  }
  return items;
}

struct Collected {
  std::vector<size_t> order;
  std::vector<ItemResult> results;
};

Collected run_all(const std::vector<Item>& items, const Settings& s, int jobs, const std::atomic<bool>& stop) {
  Collected c;
  RunObserver obs;
  obs.finished = [&](size_t k, const Item&, ItemResult& r) {
    c.order.push_back(k);
    c.results.push_back(std::move(r));
  };
  run_items(items, s, jobs, stop, obs);
  return c;
}

}  // namespace

TEST_CASE("runner: results in item order, an item's error is its own, any number of workers gives the same") {
  const std::vector<Item> items = generated_items(7);
  std::atomic<bool> stop{false};
  const Collected one = run_all(items, small_settings(), 1, stop);
  const Collected three = run_all(items, small_settings(), 3, stop);
  REQUIRE(one.order.size() == 7);
  REQUIRE(three.order.size() == 7);
  for (size_t k = 0; k < 7; ++k) {
    CAPTURE(k);
    CHECK(one.order[k] == k);
    CHECK(three.order[k] == k);
    if (k == 3) {
      CHECK(one.results[k].status == ItemResult::Status::Failed);
      CHECK(one.results[k].message == "item 3 cannot be made");
      CHECK(one.results[k].error_kind == ErrorKind::Input);
      continue;
    }
    REQUIRE(one.results[k].status == ItemResult::Status::Assessed);
    REQUIRE(three.results[k].status == ItemResult::Status::Assessed);
    const Assessment& a = *one.results[k].iid();
    const Assessment& b = *three.results[k].iid();
    CHECK(a.seed == b.seed);
    CHECK(a.settings.seed == 7);
    for (int t = 0; t < kNumTests; ++t) {
      for (int i = 0; i < 3; ++i) CHECK(a.permutation.counters[t].c[i] == b.permutation.counters[t].c[i]);
    }
  }
  // Different data, different derived seeds.
  CHECK(one.results[0].iid()->seed != one.results[1].iid()->seed);
}

TEST_CASE("runner: an item's own settings override the run's") {
  std::vector<Item> items = generated_items(2);
  auto own = std::make_shared<Settings>(small_settings());
  own->iterations = 100;
  items[1].settings = own;
  std::atomic<bool> stop{false};
  const Collected c = run_all(items, small_settings(), 2, stop);
  REQUIRE(c.results.size() == 2);
  CHECK(c.results[0].iid()->settings.iterations == 200);
  CHECK(c.results[1].iid()->settings.iterations == 100);
}

TEST_CASE("runner: interrupted before it starts, nothing runs; may_start false, nothing starts") {
  const std::vector<Item> items = generated_items(3);
  std::atomic<bool> stop{true};
  RunObserver obs;
  size_t delivered = 0;
  obs.finished = [&](size_t, const Item&, ItemResult&) { ++delivered; };
  RunSummary sum = run_items(items, small_settings(), 2, stop, obs);
  CHECK(sum.interrupted);
  CHECK(delivered == 0);
  stop = false;
  obs.may_start = [] { return false; };
  sum = run_items(items, small_settings(), 2, stop, obs);
  CHECK(!sum.interrupted);
  CHECK(sum.finished == 0);
  CHECK(delivered == 0);
}

TEST_CASE("runner: --blocks items, a short last block skipped unless kept; missing files fail in place") {
  const std::string path = std::string(EA_TEST_TMP_DIR) + "/runner-blocks.bin";
  {
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 2500; ++i) out.put(static_cast<char>((i * 131) % 256));
  }
  auto items = expand_items({path, path + ".missing"}, std::nullopt, uint64_t{1000}, false);
  REQUIRE(items.size() == 4);
  CHECK(items[0].block == 0);
  CHECK(items[2].block == 2);
  CHECK(items[2].skipped.find("short block (500 of 1000 samples)") != std::string::npos);
  CHECK(items[3].block == -1);
  CHECK(expand_items({path}, std::nullopt, uint64_t{1000}, true)[2].skipped.empty());
  std::atomic<bool> stop{false};
  const Collected c = run_all(items, small_settings(), 2, stop);
  REQUIRE(c.results.size() == 4);
  CHECK(c.results[0].status == ItemResult::Status::Assessed);
  CHECK(c.results[0].iid()->samples == 1000);
  CHECK(c.results[2].status == ItemResult::Status::Skipped);
  CHECK(c.results[3].status == ItemResult::Status::Failed);
  CHECK(c.results[3].message.find("no such file") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("one engine runs several lists, keeping its slots, with the results of fresh ones") {
  const auto items = generated_items(5);
  std::atomic<bool> stop{false};
  Engine engine;
  std::vector<ItemResult> first, second;
  RunObserver a, b;
  a.finished = [&](size_t, const Item&, ItemResult& r) { first.push_back(std::move(r)); };
  b.finished = [&](size_t, const Item&, ItemResult& r) { second.push_back(std::move(r)); };
  engine.run(items, small_settings(), RunPlan{2, 1}, stop, a);
  engine.run(items, small_settings(), RunPlan{3, 1}, stop, b);
  const Collected fresh = run_all(items, small_settings(), 1, stop);
  REQUIRE(first.size() == 5);
  REQUIRE(second.size() == 5);
  for (size_t k = 0; k < 5; ++k) {
    if (k == 3) {
      CHECK(second[k].status == ItemResult::Status::Failed);
      continue;
    }
    for (int t = 0; t < kNumTests; ++t) {
      for (int i = 0; i < 3; ++i) {
        const uint32_t want = fresh.results[k].iid()->permutation.counters[t].c[i];
        CHECK(first[k].iid()->permutation.counters[t].c[i] == want);
        CHECK(second[k].iid()->permutation.counters[t].c[i] == want);
      }
    }
    // What was asked is recorded; the worker's share is the plan's.
    CHECK(second[k].iid()->settings.threads == 1);
    CHECK(second[k].iid()->worker_threads == 1);
  }
}
