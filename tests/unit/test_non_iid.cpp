// The non-IID estimators (SP 800-90B 6.3) on small sequences whose values are worked out by
// hand from the definitions (the golden tests check every file of testdata against NIST).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <array>
#include <functional>
#include <map>
#include <tuple>
#include <string>
#include <unordered_map>
#include <set>
#include <vector>

#include "estimators/non_iid.hpp"
#include "estimators/non_iid_mmc_bits.hpp"

using namespace ea;

namespace {

long double value(const Estimate& e, const char* label) {
  for (const auto& l : e.lines) {
    if (l.label == label) return l.value;
  }
  FAIL("no line " << label);
  return 0;
}
bool has_note(const Estimate& e, const char* label) {
  for (const auto& l : e.lines) {
    if (l.kind == EstimateLine::Kind::Note && l.label == label) return true;
  }
  return false;
}
std::vector<uint8_t> period3(size_t n) {
  std::vector<uint8_t> s(n);
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<uint8_t>(i % 3);
  return s;
}

}  // namespace

TEST_CASE("most common value (6.3.1): mode 5 of 8") {
  const std::vector<uint8_t> s{0, 1, 1, 2, 1, 0, 1, 1};
  const Estimate e = most_common_value_estimate(s.data(), s.size(), 3);
  REQUIRE(e.evaluated);
  CHECK(value(e, "Mode count") == 5);
  CHECK(value(e, "p-hat") == 0.625);
  const double pu = std::min(1.0, 0.625 + 2.5758293035489008 * std::sqrt(0.625 * 0.375 / 7.0));
  CHECK(static_cast<double>(value(e, "p_u")) == doctest::Approx(pu).epsilon(1e-15));
  CHECK(e.entropy == doctest::Approx(-std::log2(pu)).epsilon(1e-15));
}

TEST_CASE("collision (6.3.2): t = 2,3,2,3,2; X-bar' clamped to 2 gives p = 1") {
  const std::vector<uint8_t> bits{0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0};
  const Estimate e = collision_estimate(bits.data(), bits.size());
  REQUIRE(e.evaluated);
  CHECK(value(e, "v") == 5);
  CHECK(value(e, "Sum t_i") == 12);
  CHECK(static_cast<double>(value(e, "X-bar")) == doctest::Approx(2.4));
  CHECK(static_cast<double>(value(e, "sigma-hat")) == doctest::Approx(std::sqrt(0.3)));
  CHECK(value(e, "X-bar'") == 2.0);  // 2.4 - 2.576 sqrt(0.3/5) < 2
  CHECK(value(e, "p") == 1.0);
  CHECK(e.entropy == 0.0);
  // Too few collisions: not evaluated, never a crash.
  const std::vector<uint8_t> two{0, 1};
  CHECK_FALSE(collision_estimate(two.data(), two.size()).evaluated);
}

TEST_CASE("Markov (6.3.3): an alternating sequence is one 128-bit path: 1/128 bit per bit") {
  const std::vector<uint8_t> bits{0, 1, 0, 1, 0, 1, 0, 1};
  const Estimate e = markov_estimate(bits.data(), bits.size());
  REQUIRE(e.evaluated);
  CHECK(value(e, "P_0") == 0.5);
  CHECK(value(e, "P_{0,0}") == 0.0);
  CHECK(value(e, "P_{0,1}") == 1.0);
  CHECK(value(e, "P_{1,0}") == 1.0);
  CHECK(value(e, "P_{1,1}") == 0.0);
  CHECK(value(e, "p-hat_max") == 0.5);
  CHECK(e.entropy == 1.0 / 128.0);
}

TEST_CASE("compression (6.3.4): 1000 blocks of 6 bits or fewer cannot be evaluated") {
  const std::vector<uint8_t> bits(6006, 0);  // 1001 blocks: evaluated
  CHECK(compression_estimate(bits.data(), bits.size()).evaluated);
  const Estimate e = compression_estimate(bits.data(), 6005);  // 1000 blocks
  CHECK_FALSE(e.evaluated);
  CHECK(e.unlabelled.find("not enough samples to run compression test") != std::string::npos);
  // 1001 blocks leave one distance: its deviation divides 0 by 0, and the reference's
  // search then falls back to p = 1/64 (min-entropy 1), as NIST's code does.
  const Estimate one = compression_estimate(bits.data(), bits.size());
  CHECK(std::isnan(static_cast<double>(value(one, "sigma-hat"))));
  CHECK(has_note(one, "Could Not Find p. Proceeding with the lower bound for p."));
  CHECK(one.entropy == 1.0);
  // 2000 equal blocks: every distance is 1, X-bar = 0, and the root is p = 1: no entropy.
  const std::vector<uint8_t> zeros(12000, 0);
  const Estimate c = compression_estimate(zeros.data(), zeros.size());
  CHECK(value(c, "X-bar") == 0.0);
  CHECK(value(c, "p") == 1.0);
  CHECK(c.entropy == 0.0);
}

TEST_CASE("compression (6.3.4): the search's points evaluated a pass at a time give one thread's values") {
  // 1, 2, 4 and 8 threads evaluate 1, 1, 3 and 7 of the search's points a pass; the lines and
  // the entropy are the same to the last bit, for a search near p = 1/64 (fair bits) and one
  // that goes far up (long runs of zeros).
  for (int kind = 0; kind < 2; ++kind) {
    std::vector<uint8_t> bits(120000);
    uint32_t x = 20261130u + static_cast<uint32_t>(kind);
    for (auto& b : bits) {
      x = x * 1664525u + 1013904223u;
      b = kind == 0 ? static_cast<uint8_t>(x >> 31) : static_cast<uint8_t>((x >> 24) < 12);
    }
    const Estimate one = compression_estimate(bits.data(), bits.size());
    REQUIRE(one.evaluated);
    CHECK(has_note(one, "Found p."));  // (the search ran)
    for (int threads : {2, 4, 8}) {
      const Estimate e = compression_estimate(bits.data(), bits.size(), nullptr, threads);
      CAPTURE(kind);
      CAPTURE(threads);
      CHECK(e.entropy == one.entropy);
      REQUIRE(e.lines.size() == one.lines.size());
      for (size_t i = 0; i < e.lines.size(); ++i) CHECK(e.lines[i].value == one.lines[i].value);
    }
    CHECK(one.entropy < (kind == 0 ? 1.01 : 0.9));
  }
}

TEST_CASE("t-tuple and LRS (6.3.5, 6.3.6) of 0101010101: no 35-fold tuple; the LRS at W = v = 8") {
  const std::vector<uint8_t> s{0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
  const auto [tt, lrs] = tuple_estimates(s.data(), s.size());
  CHECK_FALSE(tt.evaluated);
  CHECK(tt.unlabelled.find("No strings are repeated 35 times") != std::string::npos);
  REQUIRE(lrs.evaluated);
  CHECK(value(lrs, "u") == 1);
  CHECK(value(lrs, "v") == 8);
  // P_W = (pairs of equal W-tuples / pairs of W-tuples)^(1/W): largest at W = 8, 1 of 3.
  CHECK(static_cast<double>(value(lrs, "p-hat")) == doctest::Approx(std::pow(1.0 / 3.0, 1.0 / 8.0)).epsilon(1e-15));
  CHECK(value(lrs, "p_u") == 1.0L);
  CHECK(lrs.entropy == 0.0);
}

TEST_CASE("t-tuple and LRS of 100 zeros: t = 66 (the last t seen 35 times), u = 67, v = 99") {
  const std::vector<uint8_t> s(100, 0);
  const auto [tt, lrs] = tuple_estimates(s.data(), s.size());
  REQUIRE(tt.evaluated);
  CHECK(value(tt, "t") == 66);
  CHECK(value(tt, "p-hat_max") == 1.0L);
  CHECK(value(lrs, "u") == 67);
  CHECK(value(lrs, "v") == 99);
  CHECK(value(lrs, "p-hat") == 1.0L);
  // No symbol repeated at all: neither can be evaluated (NIST's code stops on an assertion).
  const std::vector<uint8_t> once{0, 1, 2, 3};
  const auto [t2, l2] = tuple_estimates(once.data(), once.size());
  CHECK_FALSE(t2.evaluated);
  CHECK_FALSE(l2.evaluated);
}

TEST_CASE("lag (6.3.8) on a period-3 sequence: lag 3 wins at t = 3 and is right from t = 4 on") {
  const auto s = period3(30);
  const Estimate e = lag_estimate(s.data(), s.size(), 3);
  REQUIRE(e.evaluated);
  CHECK(value(e, "N") == 29);
  CHECK(value(e, "C") == 26);
  CHECK(value(e, "r") == 27);  // the longest run + 1, as the reference prints it
  CHECK(static_cast<double>(value(e, "P_global")) == doctest::Approx(26.0 / 29.0));
}

TEST_CASE("MultiMMC (6.3.9) on a period-3 sequence: order 1 right from t = 4; misses before count nothing") {
  const auto s = period3(100);
  const Estimate e = multi_mmc_estimate(s.data(), s.size(), 3);
  REQUIRE(e.evaluated);
  CHECK(value(e, "N") == 98);
  CHECK(value(e, "C") == 96);
  CHECK(value(e, "r") == 97);
  // The same counts from the dense tables of bits (a period-3 bit pattern 0,1,1).
  std::vector<uint8_t> bits(100);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = i % 3 == 0 ? 0 : 1;
  const Estimate b = multi_mmc_estimate(bits.data(), bits.size(), 2);
  CHECK(value(b, "N") == 98);
  CHECK(value(b, "C") > 90);
}

TEST_CASE("LZ78Y (6.3.10) on a period-3 sequence: every context is known from t = 19 on") {
  const auto s = period3(100);
  const Estimate e = lz78y_estimate(s.data(), s.size(), 3);
  REQUIRE(e.evaluated);
  CHECK(value(e, "N") == 83);
  CHECK(value(e, "C") == 81);
  CHECK(value(e, "r") == 82);
  // Bits take the dense tables: the same sequence as bits of two values gives the same counts.
  std::vector<uint8_t> bits(100);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = i % 2;
  const Estimate b = lz78y_estimate(bits.data(), bits.size(), 2);
  CHECK(value(b, "N") == 83);
  CHECK(value(b, "C") == 82);  // period 2: known from t = 18
  CHECK(lz78y_estimate(s.data(), 17, 3).unlabelled.find("LZ78Y test") != std::string::npos);
}

TEST_CASE("MultiMCW (6.3.7) needs 4096 samples; the prediction bound's local term") {
  const auto s = period3(4095);
  CHECK_FALSE(multi_mcw_estimate(s.data(), s.size(), 3).evaluated);
  // All predictions right: P_global = 1, so P_global' = 1 and -log2(1) = 0; no P_local.
  Estimate e;
  prediction_estimate(e, 1000, 1000, 1000, 2);
  CHECK(value(e, "P_global'") == 1.0);
  CHECK(has_note(e, "P_local can't change the result."));
  CHECK(e.entropy == 0.0);
  // A long run among mostly wrong predictions: P_local exceeds P_global' and sets the bound.
  Estimate f;
  prediction_estimate(f, 600, 10000, 100, 2);
  CHECK(static_cast<double>(value(f, "P_local")) > static_cast<double>(value(f, "P_global'")));
  CHECK(f.entropy == doctest::Approx(-std::log2(static_cast<double>(value(f, "P_local")))));
}

TEST_CASE("lag and t-tuple/LRS fast paths give the general paths' counts") {
  // Correlated bits (runs of random lengths): the 64-step blocks of the bit path of Lag
  // against the one-step path (k = 3 takes it; k only sets the 1/k floor of the bound).
  std::vector<uint8_t> bits(50000);
  uint32_t x = 12345;
  uint8_t b = 0;
  for (size_t i = 0; i < bits.size(); ++i) {
    x = x * 1664525u + 1013904223u;
    if ((x >> 24) % 5 == 0) b ^= 1;
    bits[i] = b;
  }
  const Estimate fast = lag_estimate(bits.data(), bits.size(), 2);
  const Estimate slow = lag_estimate(bits.data(), bits.size(), 3);
  CHECK(value(fast, "C") == value(slow, "C"));
  CHECK(value(fast, "r") == value(slow, "r"));
  // The t-tuple and LRS estimates from sorted 64-bit windows (no repeat of 64 bits here)
  // against the suffix array's: the same lines to the last bit; and for bytes (8 per key).
  std::vector<uint8_t> bytes(20000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>((bits[i] << 2) | (bits[i / 3] << 1) | bits[i / 7]);
  for (const auto* data : {&bits, &bytes}) {
    const auto [tt, lrs] = tuple_estimates(data->data(), data->size());
    const auto [tt2, lrs2] = tuple_estimates(data->data(), data->size(), true);
    REQUIRE(tt.lines.size() == tt2.lines.size());
    REQUIRE(lrs.lines.size() == lrs2.lines.size());
    for (size_t i = 0; i < tt.lines.size(); ++i) CHECK(tt.lines[i].value == tt2.lines[i].value);
    for (size_t i = 0; i < lrs.lines.size(); ++i) CHECK(lrs.lines[i].value == lrs2.lines[i].value);
  }
  // A repeat of 100 bits: longer than a sort key's window (suffixes ordered on their next
  // windows).
  std::vector<uint8_t> repeated = bits;
  repeated.insert(repeated.end(), bits.begin(), bits.begin() + 100);
  CHECK(value(tuple_estimates(repeated.data(), repeated.size()).second, "v") >= 100);
}

namespace {

// SP 800-90B 6.3.8 as NIST ea_non_iid 1.1.8 loops it, one lag at a time with the live
// ">=" comparison against the current winner's score: the reference formulation that
// lag_estimate's fast paths (vectorized steps, 64-step blocks of bits) are pinned to.
struct LagCounts {
  uint64_t correct = 0, longest = 0;
};
LagCounts reference_lag(const std::vector<uint8_t>& s) {
  constexpr size_t kLags = 128;
  std::vector<uint64_t> board(kLags + 1, 0);
  size_t winner = 1;
  LagCounts c;
  uint64_t run = 0;
  for (size_t t = 1; t < s.size(); ++t) {
    if (s[t - winner] == s[t]) {
      ++c.correct;
      c.longest = std::max(c.longest, ++run);
    } else {
      run = 0;
    }
    for (size_t d = 1; d <= kLags && d <= t; ++d) {
      if (s[t - d] != s[t]) continue;
      ++board[d];
      if (board[d] >= board[winner]) winner = d;
    }
  }
  return c;
}

// Data of `bits` bits per sample: uniform, or runs (correlated), or one period.
std::vector<uint8_t> small_data(size_t n, int bits, int kind, uint32_t seed) {
  std::vector<uint8_t> s(n);
  uint32_t x = seed * 2654435761u + 1;
  uint8_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    const auto r = static_cast<uint8_t>((x >> 24) & ((1u << bits) - 1));
    if (kind == 0) v = r;
    if (kind == 1 && (x >> 20) % 4 == 0) v = r;
    if (kind == 2) v = static_cast<uint8_t>((i % 7) & ((1u << bits) - 1));
    s[i] = v;
  }
  return s;
}

}  // namespace

TEST_CASE("lag (6.3.8) at 1-200 samples of 1, 2, 4 and 8 bits: the reference's counts, never past the samples") {
  // Binary data below 128 samples once ran the 128 warm-up steps whatever n was (reading
  // past the samples: P_global 24.0 and a min-entropy of -0.0 from 3 samples).
  for (int bits : {1, 2, 4, 8}) {
    for (int kind = 0; kind < 3; ++kind) {
      for (size_t n = 1; n <= 200; ++n) {
        const auto s = small_data(n, bits, kind, static_cast<uint32_t>(n));
        const int k = 1 << bits;
        const Estimate e = lag_estimate(s.data(), n, k);
        CAPTURE(bits);
        CAPTURE(kind);
        CAPTURE(n);
        if (n < 3) {
          CHECK_FALSE(e.evaluated);
          CHECK_FALSE(e.reason.empty());
          continue;
        }
        REQUIRE(e.evaluated);
        const LagCounts ref = reference_lag(s);
        CHECK(value(e, "N") == n - 1);
        CHECK(value(e, "C") == ref.correct);
        CHECK(value(e, "r") == ref.longest + 1);
        CHECK(e.entropy >= 0.0);
        CHECK(e.entropy <= bits);
      }
    }
  }
}

TEST_CASE("every non-IID estimator at 1-200 samples: a bound within [0, bits] or a reason, never a number from outside the data") {
  // The sanitizer build (scripts/ci-sanitize.sh) runs this too: every read stays inside.
  for (int bits : {1, 2, 4, 8}) {
    for (int kind = 0; kind < 3; ++kind) {
      for (size_t n = 1; n <= 200; ++n) {
        auto s = small_data(n, bits, kind, static_cast<uint32_t>(7 * n + bits));
        CAPTURE(bits);
        CAPTURE(kind);
        CAPTURE(n);
        const int k = 1 << bits;
        std::vector<Estimate> all;
        all.push_back(most_common_value_estimate(s.data(), n, k));
        all.push_back(multi_mcw_estimate(s.data(), n, k));
        all.push_back(lag_estimate(s.data(), n, k));
        all.push_back(multi_mmc_estimate(s.data(), n, k));
        all.push_back(lz78y_estimate(s.data(), n, k));
        const auto [tt, lrs] = tuple_estimates(s.data(), n);
        all.push_back(tt);
        all.push_back(lrs);
        if (bits == 1) {
          all.push_back(collision_estimate(s.data(), n));
          all.push_back(markov_estimate(s.data(), n));
          all.push_back(compression_estimate(s.data(), n));
        }
        for (const Estimate& e : all) {
          CAPTURE(estimator_key(e.which));
          if (!e.evaluated) {
            CHECK_FALSE(e.reason.empty());
            continue;
          }
          CHECK(std::isfinite(e.entropy));
          CHECK(e.entropy >= 0.0);
          CHECK(e.entropy <= bits + 1e-12);
          for (const auto& l : e.lines) {  // the predictors' probabilities are probabilities
            if (l.label.rfind("P_global", 0) != 0 && l.label != "P_local") continue;
            CAPTURE(l.label);
            CHECK(l.value >= 0);
            CHECK(l.value <= 1);
          }
        }
      }
    }
  }
}

namespace {

// SP 800-90B 6.3.9 as NIST ea_non_iid 1.1.8 loops it, step by step over all 16 orders with
// one map per order, the cascade of lookups (an order is looked up only while the lower ones
// were found) and the cap of 100,000 (context, next value) pairs per order: the reference
// formulation that multi_mmc_estimate's bit path (16 passes, a replayed scoreboard) is
// pinned to. `states`, when given: per order, per step t - 2, 0 (context unknown), 1 (known,
// predicted wrong) or 3 (predicted right).
LagCounts reference_mmc(const std::vector<uint8_t>& s, std::vector<std::vector<uint8_t>>* states = nullptr) {
  constexpr size_t kOrders = 16;
  using Context = std::pair<uint64_t, uint64_t>;  // the last 16 symbols, a byte each
  std::vector<std::map<Context, std::map<uint8_t, uint64_t>>> dict(kOrders);
  std::vector<uint64_t> entries(kOrders, 0), board(kOrders, 0);
  auto context = [&s](size_t end, size_t m) {  // s[end - m .. end - 1]
    Context c{0, 0};
    for (size_t i = end - m; i < end; ++i) {
      c.first = (c.first << 8) | (c.second >> 56);
      c.second = (c.second << 8) | s[i];
    }
    return c;
  };
  for (size_t d = 0; d < kOrders && d + 2 < s.size(); ++d) {
    dict[d][context(d + 1, d + 1)][s[d + 1]] = 1;
    entries[d] = 1;
  }
  if (states) states->assign(kOrders, std::vector<uint8_t>(s.size() - 2, 0));
  size_t winner = 0;
  LagCounts c;
  uint64_t run = 0;
  for (size_t t = 2; t < s.size(); ++t) {
    const size_t counted = winner;
    bool found = false;
    for (size_t d = 0; d < kOrders && d + 2 <= t; ++d) {
      auto& order = dict[d];
      auto it = order.end();
      if (d == 0 || found) {
        it = order.find(context(t, d + 1));
        found = it != order.end();
      }
      if (!found) {
        if (entries[d] < 100000) {
          ++order[context(t, d + 1)][s[t]];
          ++entries[d];
        }
        continue;
      }
      // The most frequent next value, ties to the largest.
      uint8_t best = 0;
      uint64_t most = 0;
      for (const auto& [y, n] : it->second) {
        if (n >= most) {
          best = y;
          most = n;
        }
      }
      if (states) (*states)[d][t - 2] = best == s[t] ? 3 : 1;
      if (best == s[t]) {
        ++board[d];
        if (board[d] >= board[winner]) winner = d;
      }
      if (d == counted && best == s[t]) {
        ++c.correct;
        c.longest = std::max(c.longest, ++run);
      } else if (d == counted) {
        run = 0;
      }
      auto y = it->second.find(s[t]);
      if (y != it->second.end()) {
        ++y->second;
      } else if (entries[d] < 100000) {
        it->second[s[t]] = 1;
        ++entries[d];
      }
    }
  }
  return c;
}

// Steps where order d's bits (found, right: order d at d x words) differ from the reference's
// states.
size_t state_differences(const std::vector<std::vector<uint8_t>>& states, const std::vector<uint64_t>& found,
                         const std::vector<uint64_t>& right, size_t d) {
  const size_t steps = states[d].size(), words = (steps + 63) / 64;
  size_t differences = 0;
  for (size_t i = 0; i < steps; ++i) {
    const uint64_t f = (found[d * words + i / 64] >> (i % 64)) & 1u, r = (right[d * words + i / 64] >> (i % 64)) & 1u;
    differences += (f | (r << 1)) != states[d][i];
  }
  return differences;
}

}  // namespace

TEST_CASE("MultiMMC (6.3.9) on bits: the orders' passes and the replayed scoreboard give the reference's counts") {
  // 1-300 bits of each kind (uniform, runs, period 7 as bits).
  for (int kind = 0; kind < 3; ++kind) {
    for (size_t n = 3; n <= 300; ++n) {
      const auto s = small_data(n, 1, kind, static_cast<uint32_t>(3 * n + 1));
      CAPTURE(kind);
      CAPTURE(n);
      const Estimate e = multi_mmc_estimate(s.data(), n, 2);
      const LagCounts ref = reference_mmc(s);
      CHECK(value(e, "C") == ref.correct);
      CHECK(value(e, "r") == ref.longest + 1);
    }
  }
  // 400,000 bits: 300,000 uniform ones, whose (16-bit context, next bit) pairs pass order 16's
  // cap of 100,000, then runs, where the orders overtake one another. The same counts on 1 and
  // on 4 threads (the orders are tasks of the caller's team), and from the one-step path of
  // the general tables (k = 3 takes it; k only sets the 1/k floor of the bound).
  std::vector<uint8_t> bits = small_data(300000, 1, 0, 11);
  const auto runs = small_data(100000, 1, 1, 12);
  bits.insert(bits.end(), runs.begin(), runs.end());
  std::set<uint32_t> pairs;
  for (size_t t = 16; t < 300000; ++t) {
    uint32_t key = 0;
    for (size_t i = t - 16; i <= t; ++i) key = (key << 1) | bits[i];
    pairs.insert(key);
  }
  REQUIRE(pairs.size() > 100000);
  std::vector<std::vector<uint8_t>> states;
  const LagCounts ref = reference_mmc(bits, &states);
  // Each order's pass: the reference's state at every step (order 16's cap included).
  const size_t words = (bits.size() - 2 + 63) / 64;
  std::vector<uint64_t> found(16 * words, 0), right(16 * words, 0);
  for (size_t d = 0; d < 16; ++d) {
    multi_mmc_order_bits(bits.data(), bits.size(), static_cast<int>(d), &found[d * words], &right[d * words]);
    CAPTURE(d);
    CHECK(state_differences(states, found, right, d) == 0);
  }
  const Estimate one = multi_mmc_estimate(bits.data(), bits.size(), 2);
  Estimate four;
#pragma omp parallel num_threads(4)
#pragma omp single
  four = multi_mmc_estimate(bits.data(), bits.size(), 2);
  const Estimate general = multi_mmc_estimate(bits.data(), bits.size(), 3);
  for (const Estimate* e : {&one, static_cast<const Estimate*>(&four), &general}) {
    CHECK(value(*e, "C") == ref.correct);
    CHECK(value(*e, "r") == ref.longest + 1);
  }
}

TEST_CASE("MultiMMC (6.3.9) on 2-8 bit symbols: the orders' pipeline of tasks gives the reference's counts") {
  for (int bits : {2, 4, 8}) {
    for (int kind = 0; kind < 3; ++kind) {
      for (size_t n = 3; n <= 300; ++n) {
        const auto s = small_data(n, bits, kind, static_cast<uint32_t>(5 * n + 2));
        CAPTURE(bits);
        CAPTURE(kind);
        CAPTURE(n);
        const Estimate e = multi_mmc_estimate(s.data(), n, 1 << bits);
        const LagCounts ref = reference_mmc(s);
        CHECK(value(e, "C") == ref.correct);
        CHECK(value(e, "r") == ref.longest + 1);
      }
    }
  }
  // 110,000 uniform bytes (orders 2 to 16 reach the cap of 100,000 pairs), then 20,000 runs
  // of 4-bit values: many chunks of 4,096 steps, on 1 and on 4 threads. Every order's state
  // at every step, and the counts.
  std::vector<uint8_t> s = small_data(110000, 8, 0, 41);
  const auto runs = small_data(20000, 4, 1, 42);
  s.insert(s.end(), runs.begin(), runs.end());
  std::vector<std::vector<uint8_t>> states;
  const LagCounts ref = reference_mmc(s, &states);
  std::vector<uint64_t> found, right;
  multi_mmc_symbol_states(s.data(), s.size(), found, right);
  for (size_t d = 0; d < 16; ++d) {
    CAPTURE(d);
    CHECK(state_differences(states, found, right, d) == 0);
  }
  std::vector<Estimate> runs_of(2);
  runs_of[0] = multi_mmc_estimate(s.data(), s.size(), 256);
#pragma omp parallel num_threads(4)
#pragma omp single
  runs_of[1] = multi_mmc_estimate(s.data(), s.size(), 256);
  for (const Estimate& e : runs_of) {
    CHECK(value(e, "C") == ref.correct);
    CHECK(value(e, "r") == ref.longest + 1);
  }
}

TEST_CASE("MultiMCW (6.3.7) on bits: the windows' majorities and the replayed scoreboard give the one-step path's counts") {
  // The one-step path of the general windows (k = 3 takes it; k only sets the 1/k floor of
  // the bound) at 4,096-4,300 bits of each kind, and at 300,000 bits: uniform, then runs.
  for (int kind = 0; kind < 3; ++kind) {
    for (size_t n = 4096; n <= 4300; ++n) {
      const auto s = small_data(n, 1, kind, static_cast<uint32_t>(n + 9));
      CAPTURE(kind);
      CAPTURE(n);
      const Estimate bits = multi_mcw_estimate(s.data(), n, 2), general = multi_mcw_estimate(s.data(), n, 3);
      CHECK(value(bits, "C") == value(general, "C"));
      CHECK(value(bits, "r") == value(general, "r"));
      CHECK(value(bits, "N") == n - 63);
    }
  }
  std::vector<uint8_t> s = small_data(150000, 1, 0, 51);
  const auto runs = small_data(150000, 1, 1, 52);
  s.insert(s.end(), runs.begin(), runs.end());
  const Estimate bits = multi_mcw_estimate(s.data(), s.size(), 2), general = multi_mcw_estimate(s.data(), s.size(), 3);
  CHECK(value(bits, "C") == value(general, "C"));
  CHECK(value(bits, "r") == value(general, "r"));
}

TEST_CASE("t-tuple and LRS from sorted windows past 65,536 keys (the MSD pass and the digits' sorts as tasks) equal the suffix array's") {
  // 300,000 bits, 1 with probability 3/4 (the most common t-tuples, runs of 1s, are seen 35
  // times up to t = 31: their counts need the order past the first 16 bits; no repeat is 64
  // bits long), and 200,000 4-bit symbols, 0 with probability 1/2; on 1 and on 4 threads.
  std::vector<uint8_t> bits(300000), nibbles(200000);
  uint32_t x = 31;
  for (auto& b : bits) {
    x = x * 1664525u + 1013904223u;
    b = (x >> 30) != 0;
  }
  for (auto& v : nibbles) {
    x = x * 1664525u + 1013904223u;
    v = static_cast<uint8_t>((x >> 31) != 0 ? 0 : (x >> 24) & 15);
  }
  CHECK(value(tuple_estimates(bits.data(), bits.size()).first, "t") > 16);
  for (const std::vector<uint8_t>* data : {&bits, &nibbles}) {
    const auto reference = tuple_estimates(data->data(), data->size(), true);
    std::vector<std::pair<Estimate, Estimate>> runs(2);
    runs[0] = tuple_estimates(data->data(), data->size());
#pragma omp parallel num_threads(4)
#pragma omp single
    runs[1] = tuple_estimates(data->data(), data->size());
    for (const auto& windows : runs) {
      REQUIRE(windows.first.lines.size() == reference.first.lines.size());
      REQUIRE(windows.second.lines.size() == reference.second.lines.size());
      for (size_t i = 0; i < windows.first.lines.size(); ++i) CHECK(windows.first.lines[i].value == reference.first.lines[i].value);
      for (size_t i = 0; i < windows.second.lines.size(); ++i) CHECK(windows.second.lines[i].value == reference.second.lines[i].value);
    }
  }
}

namespace {

// Every count the t-tuple and LRS estimates read, by sorted windows (and their ties) against
// libdivsufsort's suffix array.
void check_tuple_counts(const std::vector<uint8_t>& s, TupleCounts::Path path, const char* what) {
  INFO(what);
  const TupleCounts reference = tuple_counts(s.data(), s.size(), true);
  std::vector<TupleCounts> runs(2);
  runs[0] = tuple_counts(s.data(), s.size());
#pragma omp parallel num_threads(4)
#pragma omp single
  runs[1] = tuple_counts(s.data(), s.size());
  REQUIRE(reference.path == TupleCounts::Path::SuffixArray);
  for (const TupleCounts& c : runs) {
    CHECK(c.path == path);
    CHECK(c.v == reference.v);
    CHECK(c.most == reference.most);
    CHECK(c.pairs == reference.pairs);
  }
}

std::vector<uint8_t> random_symbols(size_t n, uint32_t top, uint32_t seed) {
  std::vector<uint8_t> s(n);
  uint64_t x = seed;
  for (auto& v : s) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<uint8_t>((x >> 33) % (top + 1));
  }
  return s;
}

// `copies` copies of s[from, from + len) written over s at pseudo-random places (the last
// one ending at the text's end).
void plant_repeats(std::vector<uint8_t>& s, size_t from, size_t len, int copies, uint32_t seed) {
  uint64_t x = seed;
  const std::vector<uint8_t> piece(s.begin() + static_cast<std::ptrdiff_t>(from), s.begin() + static_cast<std::ptrdiff_t>(from + len));
  for (int c = 0; c < copies; ++c) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const size_t at = c + 1 == copies ? s.size() - len : (x >> 20) % (s.size() - len);
    std::copy(piece.begin(), piece.end(), s.begin() + static_cast<std::ptrdiff_t>(at));
  }
}

}  // namespace

TEST_CASE("tuple_counts: sorted windows and their ties give the suffix array's counts for every t") {
  using Path = TupleCounts::Path;
  // No repeat as long as a key's window (45 symbols of 1 bit, 19 bits of start, for 300,000
  // bits): one sort.
  check_tuple_counts(random_symbols(300000, 1, 7), Path::Windows, "random bits");
  // Repeats longer than the window, two copies (SuffixCompare) and 5 or 40 (windows sorted
  // level by level, groups past 16), up to 700 bits (11 windows deep), one ending at the end.
  for (size_t len : {60, 130, 700}) {
    for (int copies : {2, 5, 40}) {
      std::vector<uint8_t> bits = random_symbols(300000, 1, 11);
      plant_repeats(bits, 1000, len, copies, static_cast<uint32_t>(len) + copies);
      plant_repeats(bits, 5000, len / 2 + 50, copies, 3);
      check_tuple_counts(bits, Path::WindowsAndTies, ("bits, repeats of " + std::to_string(len)).c_str());
    }
  }
  // A repeat that is the text's last L symbols: for some L the shorter suffix ends exactly
  // where a window would start (by SuffixCompare for 2 copies, by the sorted windows for 3).
  for (int copies : {2, 3}) {
    for (size_t len = 100; len < 170; ++len) {
      std::vector<uint8_t> bits = random_symbols(20000, 1, static_cast<uint32_t>(len));
      plant_repeats(bits, 100, len, copies, 5);
      check_tuple_counts(bits, Path::WindowsAndTies, ("bits, the last " + std::to_string(len) + " repeated").c_str());
    }
  }
  // Symbols of 3 bits (keys and windows not a multiple of the symbol: 21 symbols, 63 bits),
  // 4 bits and 8 bits, with repeats.
  for (uint32_t top : {5u, 15u, 200u}) {
    std::vector<uint8_t> s = random_symbols(100000, top, top);
    plant_repeats(s, 300, 40, 30, top);
    plant_repeats(s, 900, 9, 3, top + 1);
    check_tuple_counts(s, Path::WindowsAndTies, ("symbols up to " + std::to_string(top)).c_str());
  }
  // Biased bits (runs of 1s: most windows alike at the start, many groups).
  std::vector<uint8_t> biased = random_symbols(200000, 7, 5);
  for (auto& v : biased) v = v != 0;
  check_tuple_counts(biased, Path::WindowsAndTies, "bits, 1 with probability 7/8");
  // A third of the text copied once (too many windows read for the ties: the suffix array),
  // and a period of 7 (more than half the windows alike: the suffix array at once).
  std::vector<uint8_t> twice = random_symbols(110000, 1, 9);
  std::copy(twice.begin(), twice.begin() + 40000, twice.begin() + 40000);
  check_tuple_counts(twice, Path::SuffixArray, "40,000 bits twice");
  std::vector<uint8_t> periodic(50000);
  for (size_t i = 0; i < periodic.size(); ++i) periodic[i] = static_cast<uint8_t>(i % 7 == 0);
  check_tuple_counts(periodic, Path::SuffixArray, "period 7");
  // A de Bruijn sequence of order 16 (every 16 bits once: v = 15, every level counted
  // directly) and one of order 3 over 64 symbols (6 bits: v = 2 = m).
  for (const auto& [k, order, n] : {std::tuple{2, 16, size_t{65551}}, std::tuple{64, 3, size_t{70000}}}) {
    std::vector<uint8_t> cyclic, a(static_cast<size_t>(order) + 1, 0);
    std::function<void(int, int)> db = [&](int t, int p) {  // (Fredricksen, Kessler, Maiorana)
      if (t > order) {
        if (order % p == 0) cyclic.insert(cyclic.end(), a.begin() + 1, a.begin() + p + 1);
        return;
      }
      a[static_cast<size_t>(t)] = a[static_cast<size_t>(t - p)];
      db(t + 1, p);
      for (int j = a[static_cast<size_t>(t - p)] + 1; j < k; ++j) {
        a[static_cast<size_t>(t)] = static_cast<uint8_t>(j);
        db(t + 1, t);
      }
    };
    db(1, 1);
    std::vector<uint8_t> s;
    while (s.size() < n) s.insert(s.end(), cyclic.begin(), cyclic.end());
    s.resize(n);
    const TupleCounts c = tuple_counts(s.data(), s.size());
    CHECK(c.v == static_cast<uint64_t>(order - 1) + (n > cyclic.size() + order - 1 ? n - cyclic.size() : 0));
    check_tuple_counts(s, Path::Windows, ("de Bruijn, order " + std::to_string(order)).c_str());
  }
}

TEST_CASE("tuple_counts_from_lcps: given LCPs (the GPU's form) give the suffix array's counts") {
  // Each text's LCPs from libdivsufsort in SuffixLcps' form (values of 255 and more apart),
  // counted by tuple_counts_from_lcps, directly and through a source: the levels up to 16 / b
  // from the tuples and walk_above (random bits, repeats of 300 and 700 bits: long LCPs,
  // 8-bit symbols), walk_intervals where v > 4,096 (a third of the text twice, a period of 7)
  // or n < 65,536 (short texts).
  std::vector<std::pair<std::string, std::vector<uint8_t>>> texts;
  texts.emplace_back("random bits", random_symbols(300000, 1, 7));
  for (size_t len : {300, 700}) {
    std::vector<uint8_t> bits = random_symbols(300000, 1, 13);
    plant_repeats(bits, 1000, len, 40, static_cast<uint32_t>(len));
    texts.emplace_back("bits, 40 repeats of " + std::to_string(len), bits);
  }
  std::vector<uint8_t> bytes = random_symbols(200000, 255, 3);
  plant_repeats(bytes, 500, 30, 50, 4);
  texts.emplace_back("8-bit symbols with repeats", bytes);
  std::vector<uint8_t> twice = random_symbols(110000, 1, 9);
  std::copy(twice.begin(), twice.begin() + 40000, twice.begin() + 40000);
  texts.emplace_back("40,000 bits twice", twice);
  std::vector<uint8_t> periodic(70000);
  for (size_t i = 0; i < periodic.size(); ++i) periodic[i] = static_cast<uint8_t>(i % 7 == 0);
  texts.emplace_back("period 7", periodic);
  texts.emplace_back("3,000 4-bit symbols", random_symbols(3000, 15, 21));
  texts.emplace_back("2 symbols", std::vector<uint8_t>{1, 1});
  for (const auto& [what, s] : texts) {
    INFO(what);
    const TupleCounts reference = tuple_counts(s.data(), s.size(), true);
    const SuffixLcps l = suffix_lcps(s.data(), s.size());
    const TupleCounts given = tuple_counts_from_lcps(s.data(), s.size(), l);
    int asked = 0;
    const SuffixLcpSource source = [&](const uint8_t* p, size_t n, Interrupt) -> std::optional<SuffixLcps> {
      ++asked;
      return suffix_lcps(p, n);
    };
    const TupleCounts through = tuple_counts(s.data(), s.size(), false, nullptr, source);
    CHECK(asked == 1);
    for (const TupleCounts* c : {&given, &through}) {
      CHECK(c->path == TupleCounts::Path::Given);
      CHECK(c->v == reference.v);
      CHECK(c->most == reference.most);
      CHECK(c->pairs == reference.pairs);
    }
  }
  // A source that declines leaves the counts to the CPU.
  const std::vector<uint8_t> s = random_symbols(100000, 1, 5);
  const TupleCounts cpu = tuple_counts(s.data(), s.size(), false, nullptr,
                                       [](const uint8_t*, size_t, Interrupt) { return std::optional<SuffixLcps>{}; });
  CHECK(cpu.path == TupleCounts::Path::Windows);
  CHECK(cpu.pairs == tuple_counts(s.data(), s.size(), true).pairs);
  CHECK_THROWS(tuple_counts_from_lcps(s.data(), s.size(), SuffixLcps{}));
  SuffixLcps l = suffix_lcps(s.data(), s.size());
  l.long_lcps.push_back(300);  // (no escape for it)
  CHECK_THROWS(tuple_counts_from_lcps(s.data(), s.size(), l));
}

TEST_CASE("tuple_counts: short texts, lengths about powers of two and symbols of 1 to 8 bits equal the suffix array's") {
  // Random, a period of 3 and a repeat at the end; every symbol width; n from 2 (a window
  // longer than the text) past the key's width and about powers of two (the start's bits).
  std::vector<size_t> lengths;
  for (size_t n = 2; n <= 80; ++n) lengths.push_back(n);
  for (size_t p = 7; p <= 17; p += 2) {
    for (size_t d : {size_t{0}, size_t{1}, size_t{2}}) lengths.push_back((size_t{1} << p) - 1 + d);
  }
  for (uint32_t top : {1u, 2u, 5u, 9u, 17u, 40u, 100u, 255u}) {
    for (size_t n : lengths) {
      for (int kind = 0; kind < 3; ++kind) {
        std::vector<uint8_t> s = random_symbols(n, top, static_cast<uint32_t>(n * 3 + kind));
        if (kind == 1) {
          for (size_t i = 3; i < n; ++i) s[i] = s[i - 3];
        } else if (kind == 2 && n >= 8) {
          plant_repeats(s, 0, n / 4 + 1, 2, static_cast<uint32_t>(n));
        }
        INFO("symbols up to " << top << ", n = " << n << ", kind " << kind);
        const TupleCounts reference = tuple_counts(s.data(), n, true), c = tuple_counts(s.data(), n);
        CHECK(c.v == reference.v);
        CHECK(c.most == reference.most);
        CHECK(c.pairs == reference.pairs);
      }
    }
  }
}

namespace {

// SP 800-90B 6.3.10 step by step as the sequential code runs it (NIST ea_non_iid 1.1.8's
// loop: the dictionary of contexts of lengths 1-16, at most 65,536 contexts, the longest
// context with the most frequent next value predicting, ties to the larger value): the
// reference formulation of lz78y_estimate's side-by-side lengths (once the dictionary is
// full, or from the start for bits that never fill it).
Estimate reference_lz78y(const std::vector<uint8_t>& s, int k) {
  std::array<std::unordered_map<std::string, std::map<uint8_t, uint32_t>>, 17> dict;
  auto context = [&s](size_t t, size_t j) { return std::string(s.begin() + static_cast<std::ptrdiff_t>(t - j), s.begin() + static_cast<std::ptrdiff_t>(t)); };
  for (size_t j = 1; j <= 16; ++j) dict[j][context(16, j)][s[16]] = 1;
  size_t size = 16;
  uint64_t correct = 0, run = 0, longest = 0;
  for (size_t t = 17; t < s.size(); ++t) {
    uint32_t most = 0;
    int prediction = -1;
    for (size_t j = 16; j >= 1; --j) {
      auto it = dict[j].find(context(t, j));
      if (it != dict[j].end()) {
        uint32_t bc = 0;
        int best = 0;
        for (const auto& [y, c] : it->second) {
          if (c >= bc) {  // (values in increasing order: ties to the larger)
            bc = c;
            best = y;
          }
        }
        if (bc > most) {
          most = bc;
          prediction = best;
        }
        ++it->second[s[t]];
      } else if (size < 65536) {
        dict[j][context(t, j)][s[t]] = 1;
        ++size;
      }
    }
    if (prediction == s[t]) {
      ++correct;
      longest = std::max(longest, ++run);
    } else {
      run = 0;
    }
  }
  Estimate e;
  e.which = NonIidEstimator::Lz78y;
  prediction_estimate(e, correct, s.size() - 17, longest, k);
  return e;
}

}  // namespace

TEST_CASE("LZ78Y: the lengths side by side once the dictionary is full (or for bits that never fill it) give the step-by-step counts") {
  // 40,000 bytes (the dictionary full after about 4,400 steps), 90,000 bits (after about
  // 24,000) and bits that are mostly runs (18,278 contexts: they never fill it), on 1 and 4
  // threads: C, N, r and the bound.
  std::vector<uint8_t> bytes = random_symbols(40000, 255, 17), bits = random_symbols(90000, 1, 19);
  std::vector<uint8_t> runs = random_symbols(90000, 7, 23);
  for (auto& v : runs) v = v != 0;
  // Bits whose contexts never fill the dictionary (a period of 97 with a bit flipped every
  // 500 or so: the lengths side by side from the first step, adding contexts).
  std::vector<uint8_t> few = random_symbols(60000, 1, 29), flips = random_symbols(60000, 499, 31);
  for (size_t i = 97; i < few.size(); ++i) few[i] = static_cast<uint8_t>(few[i - 97] ^ (flips[i] == 0));
  for (const auto& [data, k] : {std::pair{&bytes, 256}, std::pair{&bits, 2}, std::pair{&runs, 2}, std::pair{&few, 2}}) {
    const Estimate reference = reference_lz78y(*data, k);
    Estimate e[2];
    e[0] = lz78y_estimate(data->data(), data->size(), k);
#pragma omp parallel num_threads(4)
#pragma omp single
    e[1] = lz78y_estimate(data->data(), data->size(), k);
    for (const Estimate& x : e) {
      REQUIRE(x.lines.size() == reference.lines.size());
      for (size_t i = 0; i < x.lines.size(); ++i) CHECK(x.lines[i].value == reference.lines[i].value);
    }
  }
}
