// The cancel flag (common/interrupt.hpp) in the long computations: the ten non-IID
// estimators, the pool that runs them, the restart cutoffs and the conditioning precision
// loop. A set flag gives Error{Interrupted}, never a number; an unset one changes nothing.
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "common/interrupt.hpp"
#include "conditioning/conditioning.hpp"
#include "estimators/non_iid.hpp"
#include "estimators/non_iid_mmc_bits.hpp"
#include "estimators/restart.hpp"
#include "io/samples.hpp"

using namespace ea;

namespace {

// n samples of `bits` bits each, from a fixed generator.
std::vector<uint8_t> random_symbols(size_t n, int bits) {
  std::mt19937_64 g(7);
  std::vector<uint8_t> s(n);
  for (auto& x : s) x = static_cast<uint8_t>(g() & ((1u << bits) - 1));
  return s;
}

bool interrupted(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.kind() == ErrorKind::Interrupted;
  }
  return false;
}

// The same estimate: its value and every intermediate line.
bool same_estimate(const Estimate& a, const Estimate& b) {
  if (a.evaluated != b.evaluated || a.entropy != b.entropy || a.lines.size() != b.lines.size()) return false;
  for (size_t i = 0; i < a.lines.size(); ++i) {
    if (a.lines[i].label != b.lines[i].label || a.lines[i].value != b.lines[i].value) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("each non-IID estimator given a set flag throws Interrupted on a large input, and an unset flag changes nothing") {
  // 2,000,000 bits and 300,000 bytes: every estimator's loop passes several checks.
  const std::vector<uint8_t> bits = random_symbols(2000000, 1), bytes = random_symbols(300000, 8);
  const uint8_t* b = bits.data();
  const uint8_t* l = bytes.data();
  const size_t nb = bits.size(), nl = bytes.size();
  std::atomic<bool> set{true}, unset{false};
  using Call = std::function<Estimate(Interrupt)>;
  const std::vector<std::pair<const char*, Call>> calls = {
      {"most common value", [&](Interrupt f) { return most_common_value_estimate(b, nb, 2, f); }},
      {"collision", [&](Interrupt f) { return collision_estimate(b, nb, f); }},
      {"Markov", [&](Interrupt f) { return markov_estimate(b, nb, f); }},
      {"compression", [&](Interrupt f) { return compression_estimate(b, nb, f); }},
      {"t-tuple", [&](Interrupt f) { return tuple_estimates(b, nb, false, f).first; }},
      {"LRS (suffix array)", [&](Interrupt f) { return tuple_estimates(l, nl, true, f).second; }},
      {"MultiMCW", [&](Interrupt f) { return multi_mcw_estimate(l, nl, 256, f); }},
      {"Lag (bits)", [&](Interrupt f) { return lag_estimate(b, nb, 2, f); }},
      {"Lag (bytes)", [&](Interrupt f) { return lag_estimate(l, nl, 256, f); }},
      {"MultiMMC (bits)", [&](Interrupt f) { return multi_mmc_estimate(b, nb, 2, f); }},
      {"MultiMMC (bytes)", [&](Interrupt f) { return multi_mmc_estimate(l, nl, 256, f); }},
      {"LZ78Y (bits)", [&](Interrupt f) { return lz78y_estimate(b, nb, 2, f); }},
      {"LZ78Y (bytes)", [&](Interrupt f) { return lz78y_estimate(l, nl, 256, f); }},
  };
  for (const auto& [name, call] : calls) {
    CAPTURE(name);
    CHECK(interrupted([&] { call(&set); }));
    const Estimate plain = call(nullptr);
    CHECK(plain.evaluated);
    CHECK(same_estimate(call(&unset), plain));
  }
}

TEST_CASE("MultiMMC's scoreboard (a popcnt clone, which must not throw itself) given a set flag throws Interrupted") {
  // (an exception thrown inside a target_clones function of these files ended the process:
  // GCC's dispatcher is taken for nothrow; Lag's bit blocks did, session 27)
  const size_t words = 4;
  std::vector<uint64_t> found(16 * words, ~uint64_t{0}), right(16 * words, 0x5555555555555555ull);
  std::atomic<bool> set{true}, unset{false};
  CHECK(interrupted([&] { multi_mmc_scoreboard(found, right, words, &set); }));
  const MmcCounts plain = multi_mmc_scoreboard(found, right, words, nullptr);
  const MmcCounts again = multi_mmc_scoreboard(found, right, words, &unset);
  CHECK(plain.correct == again.correct);
  CHECK(plain.correct > 0);
}

TEST_CASE("the pool of estimates given a set flag throws Interrupted (any thread count)") {
  const Dataset d = make_dataset(random_symbols(200000, 8), 8);
  std::atomic<bool> set{true};
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    CHECK(interrupted([&] { non_iid_estimates(d, true, false, threads, &set); }));
    CHECK(interrupted([&] { literal_estimates({&d, &d}, threads, &set); }));
  }
  std::atomic<bool> unset{false};
  CHECK(non_iid_estimates(d, true, true, 2, &unset).h_assessed == non_iid_estimates(d, true, true, 2).h_assessed);
}

TEST_CASE("the restart cutoffs given a set flag throw Interrupted") {
  std::atomic<bool> set{true}, unset{false};
  const double alpha = restart_alpha();
  CHECK(interrupted([&] { restart_cutoff_exact(7.5, alpha, &set); }));
  // NIST's 5,000,000 rounds: every round is skipped, and no histogram of skipped rounds leaves.
  CHECK(interrupted([&] { restart_cutoff_simulated(7.5, alpha, kNistCutoffSimulations, 1, 2, &set); }));
  CHECK(restart_cutoff_exact(7.5, alpha, &unset) == restart_cutoff_exact(7.5, alpha));
  CHECK(restart_cutoff_simulated(7.5, alpha, 2000, 1, 2, &unset) == restart_cutoff_simulated(7.5, alpha, 2000, 1, 2));
}

TEST_CASE("the conditioning precision loop given a set flag throws Interrupted (2^24 bits: minutes uncancelled)") {
  ConditioningInput in;
  in.vetted = true;
  in.n_in = 16777216;
  in.n_out = 8388608;
  in.nw = 16777216;
  in.h_in = 8388608;
  std::atomic<bool> set{true}, unset{false};
  CHECK(interrupted([&] { conditioning_entropy(in, &set); }));
  ConditioningInput small;
  small.vetted = true;
  small.n_in = 1024;
  small.n_out = 256;
  small.nw = 256;
  small.h_in = 0.5L;
  CHECK(conditioning_entropy(small, &unset).h_out == conditioning_entropy(small).h_out);
}
