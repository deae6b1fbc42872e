// The formulation cuda/bit_predictors.cu counts by (each step's counts over the earlier steps
// of its context; the caps' admitted pairs and contexts as the first ones by first step,
// found from a sorted table of first steps; LZ78Y's candidate keys and their maximum), here
// on the host, against the CPU's paths: every order's found / right bits of MultiMMC
// (multi_mmc_order_bits, pinned to the reference in test_non_iid.cpp) and LZ78Y's counts
// through lz78y_from_hits (against lz78y_estimate). Data that reaches MultiMMC's cap at
// order 16, fills LZ78Y's dictionary, never fills it, and short inputs. tests/gpu's
// gpu_predictors checks the GPU's kernels against the same CPU paths.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "estimators/non_iid.hpp"
#include "estimators/non_iid_mmc_bits.hpp"
#include "../common/lz78y_bits_reference.hpp"

using namespace ea;

namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr uint32_t kSlots = 2u << 16;

uint32_t context_before(const std::vector<uint8_t>& s, size_t t, int m) {
  uint32_t c = 0;
  for (int i = m; i >= 1; --i) c = (c << 1) | (s[t - static_cast<size_t>(i)] & 1u);
  return c;
}

// At each step t >= lo: the earlier steps (>= lo) with its context of m bits, and the ones
// among them followed by a 1 (what the sorted steps' scan by key gives).
struct Before {
  uint32_t steps = 0, ones = 0;
};
std::vector<Before> before_of(const std::vector<uint8_t>& s, int m, size_t lo) {
  std::vector<Before> out(s.size());
  std::vector<Before> seen(size_t{1} << m);
  for (size_t t = lo; t < s.size(); ++t) {
    Before& c = seen[context_before(s, t, m)];
    out[t] = c;
    ++c.steps;
    c.ones += s[t] & 1u;
  }
  return out;
}

template <class T>
T ranked(std::vector<T> v, size_t at) {
  std::sort(v.begin(), v.end());
  return v[at];
}

// MultiMMC's order m (1-16): found / right words (bit i: step i + 2).
void mmc_model(const std::vector<uint8_t>& s, int m, uint64_t* found, uint64_t* right) {
  const std::vector<Before> b = before_of(s, m, static_cast<size_t>(m));
  std::vector<uint32_t> first(kSlots, kNone);
  uint32_t last = kNone;
  if (m == 16) {
    for (size_t t = 16; t < s.size(); ++t) {
      const uint32_t pair = 2 * context_before(s, t, 16) + (s[t] & 1u);
      first[pair] = std::min(first[pair], static_cast<uint32_t>(t));
    }
    last = ranked(first, 100000 - 1);
  }
  for (size_t t = static_cast<size_t>(m); t < s.size(); ++t) {
    uint32_t zeros = b[t].steps - b[t].ones, ones = b[t].ones;
    if (m == 16) {
      const uint32_t pair = 2 * context_before(s, t, 16);
      if (first[pair] > last) zeros = 0;
      if (first[pair + 1] > last) ones = 0;
    }
    if (t < 2) continue;  // (order 1's first pair: no step)
    const bool known = (zeros | ones) != 0;
    const bool ok = known && (ones >= zeros ? 1u : 0u) == (s[t] & 1u);
    const size_t i = t - 2;
    found[i / 64] |= static_cast<uint64_t>(known) << (i % 64);
    right[i / 64] |= static_cast<uint64_t>(ok) << (i % 64);
  }
}

// LZ78Y's hits (bit t - 17: step t predicted and right).
std::vector<uint64_t> lz_model(const std::vector<uint8_t>& s) {
  const size_t n = s.size();
  std::vector<uint32_t> first(kSlots, kNone);
  for (size_t t = 16; t < n; ++t) {
    uint32_t& f = first[(1u << 16) | context_before(s, t, 16)];
    f = std::min(f, static_cast<uint32_t>(t));
  }
  for (int m = 15; m >= 1; --m) {
    for (uint32_t c = 0; c < (1u << m); ++c) {
      first[(1u << m) | c] = std::min(first[(2u << m) | c], first[(2u << m) | (1u << m) | c]);
    }
  }
  std::vector<uint64_t> key(kSlots, ~uint64_t{0});
  for (uint32_t slot = 2; slot < kSlots; ++slot) {
    const int m = 31 - __builtin_clz(slot);
    if (first[slot] != kNone) key[slot] = (uint64_t{first[slot]} << 5) | static_cast<uint64_t>(16 - m);
  }
  const uint64_t last = ranked(key, 65536 - 1);
  std::vector<uint64_t> best(n, 0);
  for (int m = 16; m >= 1; --m) {
    const std::vector<Before> b = before_of(s, m, 16);
    for (size_t t = 16; t < n; ++t) {
      if (key[(1u << m) | context_before(s, t, m)] > last || b[t].steps == 0) continue;
      const uint32_t zeros = b[t].steps - b[t].ones, ones = b[t].ones;
      const uint64_t k = uint64_t{std::max(zeros, ones)} << 13 | static_cast<uint64_t>(m) << 8 | (zeros > ones ? 0u : 1u);
      best[t] = std::max(best[t], k);
    }
  }
  std::vector<uint64_t> hits((n - 17 + 63) / 64, 0);
  for (size_t t = 17; t < n; ++t) {
    const bool hit = best[t] != 0 && static_cast<uint8_t>(best[t]) == s[t];
    hits[(t - 17) / 64] |= static_cast<uint64_t>(hit) << ((t - 17) % 64);
  }
  return hits;
}

std::vector<uint8_t> random_bits(size_t n, uint32_t seed, int ones_in = 2) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> s(n);
  for (auto& v : s) v = static_cast<uint8_t>(rng() % static_cast<uint32_t>(ones_in) != 0);
  return s;
}

// MultiMMC's and LZ78Y's bits by `paths` while it lives (set_bit_paths).
struct Paths {
  explicit Paths(BitPaths paths) { set_bit_paths(paths); }
  ~Paths() { set_bit_paths(BitPaths::fastest); }
  Paths(const Paths&) = delete;
  Paths& operator=(const Paths&) = delete;
};

// LZ78Y's bits in `k` spans (set_lz78y_spans), each by the loop of `paths`, while it lives.
struct Spans {
  Spans(int k, BitPaths paths) {
    set_lz78y_spans(k);
    set_bit_paths(paths);
  }
  ~Spans() {
    set_bit_paths(BitPaths::fastest);
    set_lz78y_spans(0);
  }
  Spans(const Spans&) = delete;
  Spans& operator=(const Spans&) = delete;
};

void check_both(const std::vector<uint8_t>& s) {
  CAPTURE(s.size());
  const size_t words = (s.size() - 2 + 63) / 64;
  // multi_mmc_bit_states every way: orders 1-15 side by side (by AVX-512 where the CPU has it),
  // in one loop without vectors (`portable`), and a task an order (`tasks`) in a team of 8.
  if (!__builtin_cpu_supports("avx512f")) MESSAGE("no AVX-512 here: the default runs take the portable paths");
  std::vector<uint64_t> alone_f, alone_r, team_f, team_r, portable_f, portable_r;
  multi_mmc_bit_states(s.data(), s.size(), alone_f, alone_r);
  {
    const Paths portable(BitPaths::portable);  // orders 1-15 in one loop without vectors, in a team
#pragma omp parallel num_threads(4)
#pragma omp single
    multi_mmc_bit_states(s.data(), s.size(), portable_f, portable_r);
  }
  {
    const Paths tasks(BitPaths::tasks);
#pragma omp parallel num_threads(8)
#pragma omp single
    multi_mmc_bit_states(s.data(), s.size(), team_f, team_r);
  }
  REQUIRE(alone_f.size() == 16 * words);
  for (int d = 0; d < 16 && static_cast<size_t>(d) < s.size() - 2; ++d) {
    std::vector<uint64_t> f(words, 0), r(words, 0), mf(words, 0), mr(words, 0);
    multi_mmc_order_bits(s.data(), s.size(), d, f.data(), r.data());
    mmc_model(s, d + 1, mf.data(), mr.data());
    CAPTURE(d);
    CHECK(f == mf);
    CHECK(r == mr);
    const auto at = alone_f.begin() + static_cast<std::ptrdiff_t>(d * words);
    CHECK(std::vector<uint64_t>(at, at + static_cast<std::ptrdiff_t>(words)) == mf);
    const auto ar = alone_r.begin() + static_cast<std::ptrdiff_t>(d * words);
    CHECK(std::vector<uint64_t>(ar, ar + static_cast<std::ptrdiff_t>(words)) == mr);
  }
  CHECK(team_f == alone_f);
  CHECK(team_r == alone_r);
  CHECK(portable_f == alone_f);
  CHECK(portable_r == alone_r);
  if (s.size() < 18) return;
  const std::vector<uint64_t> hits = lz_model(s);
  CHECK(hits == test::lz78y_bits_reference_hits(s));  // hit for hit
  const Estimate model = lz78y_from_hits(hits, s.size(), 2);
  // Every path of lz78y_full: the 16 lengths side by side (where the CPU has AVX-512), a task
  // a length (bit_paths() `tasks`) in a team of 8, and the loop without vectors in one thread
  // (`portable`, what a CPU without AVX-512 runs).
  Estimate team;
  {
    const Paths tasks(BitPaths::tasks);
#pragma omp parallel num_threads(8)
#pragma omp single
    team = lz78y_estimate(s.data(), s.size(), 2);
  }
  std::vector<Estimate> spans;
  {
    const Paths portable(BitPaths::portable);
    spans.push_back(lz78y_estimate(s.data(), s.size(), 2));
  }
  // And in spans side by side (lz78y_bits_spans) from where the dictionary settles: 3 and 7
  // spans (runs of hits across them, spans of one step at the short sizes), each span by the
  // AVX-512 loop where the CPU has it and by the loop without vectors (`portable`).
  for (const int k : {3, 7}) {
    for (const BitPaths paths : {BitPaths::fastest, BitPaths::portable}) {
      const Spans forced(k, paths);
#pragma omp parallel num_threads(4)
#pragma omp single
      spans.push_back(lz78y_estimate(s.data(), s.size(), 2));
    }
  }
  spans.push_back(lz78y_estimate(s.data(), s.size(), 2));
  spans.push_back(team);
  for (const Estimate& cpu : spans) {
    REQUIRE(model.lines.size() == cpu.lines.size());
    for (size_t i = 0; i < cpu.lines.size(); ++i) {
      CAPTURE(cpu.lines[i].label);
      CHECK(model.lines[i].value == cpu.lines[i].value);
    }
    CHECK(model.entropy == cpu.entropy);
  }
}

}  // namespace

TEST_CASE("bit predictors: the GPU's formulation gives MultiMMC's order states and LZ78Y's counts (caps reached and not)") {
  // 300,000 uniform bits (order 16 passes 100,000 pairs; LZ78Y's dictionary fills) and then
  // 100,000 of long runs, where the contexts' counts turn.
  std::vector<uint8_t> s = random_bits(300000, 11);
  const auto runs = random_bits(100000, 12, 9);
  s.insert(s.end(), runs.begin(), runs.end());
  std::vector<char> pair(kSlots / 2 * 2, 0), slot(kSlots, 0);
  for (size_t t = 16; t < s.size(); ++t) {
    pair[2 * context_before(s, t, 16) + s[t]] = 1;
    for (int m = 1; m <= 16; ++m) slot[(1u << m) | context_before(s, t, m)] = 1;
  }
  REQUIRE(std::count(pair.begin(), pair.end(), 1) > 100000);  // the caps are reached
  REQUIRE(std::count(slot.begin(), slot.end(), 1) > 65536);
  check_both(s);
  // A period of 97 with a bit flipped every 500 or so: LZ78Y's dictionary never fills.
  std::vector<uint8_t> few = random_bits(60000, 29);
  const auto flips = random_bits(60000, 31, 499);
  for (size_t i = 97; i < few.size(); ++i) few[i] = static_cast<uint8_t>(few[i - 97] ^ (flips[i] == 0));
  check_both(few);
  check_both(std::vector<uint8_t>(5000, 1));  // one context a length
}

TEST_CASE("bit predictors: the GPU's formulation at 3-300 bits, and lz78y_from_hits' runs across words") {
  for (size_t n = 3; n <= 300; n += (n < 80 ? 1 : 7)) check_both(random_bits(n, static_cast<uint32_t>(n), n % 3 + 2));
  for (size_t n : {80, 81, 82, 145, 209, 273, 274}) check_both(random_bits(n, static_cast<uint32_t>(n), 2));  // whole words of hits
  // Hits of every pattern: runs that end inside a word, fill words, and go on across them.
  const size_t n = 17 + 64 * 5 + 9;
  for (const uint64_t pattern : {~uint64_t{0}, uint64_t{0}, uint64_t{0xF0F0F0F0F0F0F0F0}, uint64_t{1} << 63}) {
    std::vector<uint64_t> hits(6, pattern);
    hits[2] = ~uint64_t{0};
    uint64_t correct = 0, run = 0, longest = 0;
    for (size_t t = 0; t < n - 17; ++t) {
      const bool hit = (hits[t / 64] >> (t % 64)) & 1u;
      correct += hit;
      run = hit ? run + 1 : 0;
      longest = std::max(longest, run);
    }
    const Estimate e = lz78y_from_hits(hits, n, 2);
    CAPTURE(pattern);
    CHECK(e.lines.at(0).value == static_cast<long double>(correct));
    CHECK(e.lines.at(1).value == static_cast<long double>(longest + 1));
  }
}
