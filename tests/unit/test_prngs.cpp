// Every shuffling generator (--prng): known answers from tests/kat/prngs.txt, the stream
// derivations, the lane groups, and the uniformity of 4- and 5-element shuffles.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <type_traits>
#include <string>
#include <vector>

#include "../common/prng_kat.hpp"
#include "estimators/estimators.hpp"
#include "permutation/shuffle.hpp"
#include "rng/lane_group.hpp"
#include "rng/prng.hpp"
#include "rng/skip_ahead.hpp"

using namespace ea;

namespace {
std::vector<kat::Line> lines(const std::string& kind) {
  std::vector<kat::Line> out;
  for (auto& l : kat::read_lines(EA_TEST_KAT_DIR "/prngs.txt"))
    if (l.kind == kind) out.push_back(l);
  REQUIRE(!out.empty());
  return out;
}
PrngId prng(const std::string& name) {
  auto id = parse_prng(name);
  REQUIRE(id.has_value());
  return *id;
}
}  // namespace

TEST_CASE("generator outputs, jumps, draws and NIST's shuffles from given states") {
  int checked = 0;
  for (const char* kind : {"raw", "jump", "draw", "fy10"}) {
    for (const auto& l : lines(kind)) {
      CAPTURE(l.kind);
      CAPTURE(l.gen);
      std::vector<uint64_t> got(l.out.size());
      REQUIRE(kat::kat_eval(kat::gen_code(l.gen), kat::kind_code(l.kind), l.in.data(), got.data(),
                            static_cast<int>(got.size())));
      CHECK(got == l.out);
      ++checked;
    }
  }
  CHECK(checked == 16);  // every raw, jump, draw and fy10 line
}

TEST_CASE("stream start states and first outputs of permutation j (xoshiro jumps, cuRAND's curand_init)") {
  for (const auto& l : lines("stream")) {
    StreamSet set(prng(l.gen), l.in[0], l.in[1] + 1);
    Xoshiro256ss g = Xoshiro256ss::make(set.view(), l.in[1]);
    CHECK(std::vector<uint64_t>(g.s, g.s + 4) == l.out);
  }
  for (const auto& l : lines("stream-out")) {
    CAPTURE(l.gen);
    CAPTURE(l.in[0]);
    CAPTURE(l.in[1]);
    StreamSet set(prng(l.gen), l.in[0], l.in[1] + 1);
    std::vector<uint64_t> got;
    if (l.gen == "xoshiro256ss") {
      Xoshiro256ss g = Xoshiro256ss::make(set.view(), l.in[1]);
      for (size_t i = 0; i < l.out.size(); ++i) got.push_back(g.next64());
    } else {
      Xorwow g = Xorwow::make(set.view(), l.in[1]);
      for (size_t i = 0; i < l.out.size(); ++i) got.push_back(g.next());
    }
    CHECK(got == l.out);
  }
}

TEST_CASE("MRG jump matrices reproduce clRNG's streams and substreams and RngStreams' streams") {
  for (const auto& l : lines("mrg-jump")) {
    const bool p31 = l.gen == "mrg31k3p";
    const uint64_t m1 = p31 ? Mrg31k3p::kM1 : Mrg32k3a::kM1, m2 = p31 ? Mrg31k3p::kM2 : Mrg32k3a::kM2;
    const Mat3 a1 = p31 ? Mat3{{{0, 4194304, 129}, {1, 0, 0}, {0, 1, 0}}}
                        : Mat3{{{0, 1, 0}, {0, 0, 1}, {m1 - 810728, 1403580, 0}}};
    const Mat3 a2 = p31 ? Mat3{{{32768, 0, 32769}, {1, 0, 0}, {0, 1, 0}}}
                        : Mat3{{{0, 1, 0}, {0, 0, 1}, {m2 - 1370589, 0, 527612}}};
    const int e = static_cast<int>(l.in[0]);
    const Mat3 j1 = mat3_pow2(a1, e, m1), j2 = mat3_pow2(a2, e, m2);
    uint32_t g[6];
    for (int k = 0; k < 6; ++k) g[k] = static_cast<uint32_t>(l.in[1 + k]);
    for (uint64_t j = 0; j < l.in[7]; ++j) {
      mat3_apply(j1, g, m1);
      mat3_apply(j2, g + 3, m2);
    }
    CHECK(std::vector<uint64_t>(g, g + 6) == l.out);
  }
  // One step of the matrix equals one step of the generator.
  Mrg32k3a g{{1, 2, 3, 4, 5, 6}};
  uint32_t v[6] = {1, 2, 3, 4, 5, 6};
  g.next_z();
  mat3_apply(Mat3{{{0, 1, 0}, {0, 0, 1}, {Mrg32k3a::kM1 - 810728ULL, 1403580, 0}}}, v, Mrg32k3a::kM1);
  CHECK(std::vector<uint32_t>(g.c, g.c + 3) == std::vector<uint32_t>(v, v + 3));
}

TEST_CASE("Sobol direction integers and the first points of dimensions 1-3") {
  const std::vector<uint32_t> dirs = sobol_directions();
  for (const auto& l : lines("sobol-dir")) {
    const size_t d = l.in[0] - 1;
    for (size_t k = 0; k < l.out.size(); ++k) CHECK(dirs[32 * d + k] == l.out[k]);
  }
  // Unshifted Gray-code points (Joe & Kuo's asserted 3-D points).
  const double expect[10][3] = {{0, 0, 0},           {.5, .5, .5},         {.75, .25, .25},    {.25, .75, .75},
                                {.375, .375, .625},  {.875, .875, .125},   {.625, .125, .875}, {.125, .625, .375},
                                {.1875, .3125, .9375}, {.6875, .8125, .4375}};
  for (int d = 0; d < 3; ++d) {
    SobolStream s{dirs.data() + 32 * d, 0, 0};
    for (int n = 0; n < 10; ++n) CHECK(s.next() / 4294967296.0 == expect[n][d]);
  }
}

TEST_CASE("permutation j's shuffle of 0..9 for every generator, and the chaotic-iteration lane groups") {
  int n = 0;
  for (const auto& l : lines("shuffle")) {
    CAPTURE(l.gen);
    CAPTURE(l.in[1]);
    StreamSet set(prng(l.gen), l.in[0], 64);
    std::vector<uint8_t> a(10);
    for (int i = 0; i < 10; ++i) a[i] = static_cast<uint8_t>(i);
    shuffle_permutation(set, l.in[1], a.data(), a.size());
    CHECK(std::vector<uint64_t>(a.begin(), a.end()) == l.out);
    ++n;
  }
  CHECK(n == 3 * kNumPrngs);
  for (const auto& l : lines("group")) {
    StreamSet set(prng(l.gen), l.in[0], 64);
    std::vector<uint64_t> got;
    uint32_t w[kLaneGroup];
    auto steps = [&](auto& g) {
      for (int s = 0; s < 3; ++s) {
        g.step(w);
        got.push_back(w[0]);
        got.push_back(w[5]);
      }
    };
    if (l.gen == "ci-xorlike") {
      LaneGroup<CiXorLane> g(set.view(), l.in[1]);
      steps(g);
    } else {
      LaneGroup<CiBbsLane> g(set.view(), l.in[1]);
      steps(g);
    }
    CHECK(got == l.out);
  }
  // The combination arrays are derangements, and ci-xorlike's two differ everywhere.
  for (PrngId id : {PrngId::CiXorlike, PrngId::CiBbs}) {
    StreamSet set(id, 77, 1);
    const auto& aux = set.aux();
    for (size_t a = 0; a < aux.size() / kLaneGroup; ++a) {
      std::vector<int> seen(kLaneGroup, 0);
      for (uint32_t k = 0; k < kLaneGroup; ++k) {
        CHECK(aux[a * kLaneGroup + k] != k);
        ++seen.at(aux[a * kLaneGroup + k]);
        if (id == PrngId::CiXorlike && a == 1) CHECK(aux[kLaneGroup + k] != aux[k]);
      }
      CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(kLaneGroup));
    }
  }
}

TEST_CASE("the group rule for rejected draws: only rejecting lanes take the next step's word") {
  // With s = 2^31 + 1, a word w is rejected when (w * s) mod 2^32 < (2^32 - s) mod s, i.e.
  // for about half of all words: rejections on most steps.
  StreamSet set(PrngId::CiXorlike, 5, 32);
  LaneGroup<CiXorLane> a(set.view(), 0), b(set.view(), 0);
  const uint32_t i = 0x80000000u;
  const uint32_t s = i + 1u, threshold = (0u - s) % s;
  uint32_t got[kLaneGroup];
  a.bounded(i, got);
  // Replay: step b until every lane has an accepted word, lane by lane.
  uint32_t w[kLaneGroup], want[kLaneGroup];
  bool done[kLaneGroup] = {};
  int pending = kLaneGroup;
  while (pending) {
    b.step(w);
    for (uint32_t k = 0; k < kLaneGroup; ++k) {
      if (done[k]) continue;
      const uint64_t m = static_cast<uint64_t>(w[k]) * s;
      if (static_cast<uint32_t>(m) >= threshold) {
        want[k] = static_cast<uint32_t>(m >> 32);
        done[k] = true;
        --pending;
      }
    }
  }
  CHECK(std::vector<uint32_t>(got, got + kLaneGroup) == std::vector<uint32_t>(want, want + kLaneGroup));
}

namespace {
// Chi-square p-value of the shuffles of 0..n-1 made as permutations 0 .. trials-1.
double uniformity_p(PrngId id, int n, uint32_t trials, size_t* distinct) {
  StreamSet set(id, 20261122, trials);
  std::map<std::vector<uint8_t>, int> seen;
  const std::vector<uint8_t> start = [n] {
    std::vector<uint8_t> v(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i);
    return v;
  }();
  visit_generator(id, [&](auto tag) {
    using G = decltype(tag);
    if constexpr (G::kGrouped) {
      for (uint64_t g = 0; g < trials / kLaneGroup; ++g) {
        std::vector<std::vector<uint8_t>> c(kLaneGroup, start);
        uint8_t* buffers[kLaneGroup];
        for (uint32_t k = 0; k < kLaneGroup; ++k) buffers[k] = c[k].data();
        LaneGroup<G> lanes(set.view(), g);
        fisher_yates_group(buffers, start.size(), lanes);
        for (auto& v : c) ++seen[v];
      }
    } else {
      for (uint64_t j = 0; j < trials; ++j) {
        std::vector<uint8_t> v = start;
        G g = G::make(set.view(), j);
        fisher_yates(v.data(), v.size(), 1, g);
        ++seen[v];
      }
    }
  });
  int perms = 1;
  for (int i = 2; i <= n; ++i) perms *= i;
  *distinct = seen.size();
  const double e = static_cast<double>(trials / (is_grouped(id) ? kLaneGroup : 1) * (is_grouped(id) ? kLaneGroup : 1)) / perms;
  double chi = 0;
  for (const auto& kv : seen) chi += (kv.second - e) * (kv.second - e) / e;
  chi += (perms - static_cast<double>(seen.size())) * e;  // permutations never produced
  return gamma_q((perms - 1) / 2.0, chi / 2.0);
}
}  // namespace

TEST_CASE("shuffles of 4 and 5 elements are uniform over the 24 and 120 permutations (every generator)") {
  for (const PrngInfo& p : prng_table()) {
    CAPTURE(std::string(p.name));
    for (int n : {4, 5}) {
      CAPTURE(n);
      size_t distinct = 0;
      const double pv = uniformity_p(p.id, n, 100000, &distinct);
      MESSAGE(std::string(p.name) << ", " << n << " elements: chi-square p = " << pv << ", " << distinct << " distinct");
      if (p.id == PrngId::Sobol) {
        // Sobol fails, as --list-prngs says: consecutive draws come from one shifted
        // (0,1)-sequence, so few orders are reachable (12 of 24, 20 of 120 here).
        CHECK(*p.uniformity_flag != '\0');
        CHECK(distinct < static_cast<size_t>(n == 4 ? 24 : 120));
        CHECK(pv < 1e-9);
        continue;
      }
      CHECK(*p.uniformity_flag == '\0');
      CHECK(distinct == static_cast<size_t>(n == 4 ? 24 : 120));  // Sattolo's shuffle gives (n-1)!
      CHECK(pv > 0.001);
    }
  }
}

TEST_CASE("pipelined (GPU) and blocked (CPU) Fisher-Yates equal the plain shuffle for every generator") {
  for (const PrngInfo& p : prng_table()) {
    if (is_grouped(p.id)) continue;  // run in lockstep groups (LaneGroup / warps) instead
    CAPTURE(std::string(p.name));
    StreamSet set(p.id, 31, 8);
    visit_generator(p.id, [&](auto tag) {
      using G = decltype(tag);
      if constexpr (!G::kGrouped) {
        for (size_t n : {1u, 5u, 17u, 1000u, 4099u}) {
          for (uint64_t j = 0; j < 8; ++j) {
            std::vector<uint8_t> plain(n);
            for (size_t i = 0; i < n; ++i) plain[i] = static_cast<uint8_t>(i * 7 + i / 256);
            std::vector<uint8_t> piped = plain, blocked = plain;
            std::vector<uint32_t> targets(kShuffleBlock);
            G a = G::make(set.view(), j), b = a, c = a;
            fisher_yates(plain.data(), n, 1, a);
            fisher_yates_pipelined<4>(piped.data(), n, 1, b);
            fisher_yates_blocked(blocked.data(), n, c, targets.data());
            CHECK(piped == plain);
            CHECK(blocked == plain);
          }
        }
      }
    });
  }
}

// attempt(i, maybe) (rng/bounded.hpp: bounded_attempt*; the GPU draws eight targets at a
// time with it): wherever it leaves `maybe` alone, it gave the exact method's draw from one
// word, so the stream is where bounded() leaves it; a word the exact method rejects always
// sets `maybe`. Small bounds make both outcomes frequent.
TEST_CASE("one attempt from one word is the exact draw wherever it does not flag the word (every generator)") {
  int generators = 0;
  for (const PrngInfo& p : prng_table()) {
    CAPTURE(std::string(p.name));
    StreamSet set(p.id, 5, 2);
    visit_generator(p.id, [&](auto tag) {
      using G = decltype(tag);
      if constexpr (HasAttempt<G>::value) {
        ++generators;
        G exact = G::make(set.view(), 1);
        uint64_t flagged = 0, plain = 0;
        const uint32_t bounds[] = {1u, 2u, 6u, 40u, 1000u, 999999u, 0x40000001u, 0x7ffffffdu};  // (below every range R)
        for (int round = 0; round < 20000; ++round) {
          for (uint32_t i : bounds) {
            G tried = exact;
            bool maybe = false;
            const uint32_t r = tried.attempt(i, maybe);
            const uint32_t want = exact.bounded(i);
            if (maybe) {
              ++flagged;
            } else {
              ++plain;
              CHECK(r == want);
              CHECK(std::memcmp(&tried, &exact, sizeof(G)) == 0);  // one word, as bounded() took
            }
          }
        }
        // (64-bit words: a flag has probability (i + 1) / 2^64, never seen here)
        if (!std::is_same_v<G, Xoshiro256ss>) CHECK(flagged > 0);
        CHECK(plain > flagged);
      }
    });
  }
  CHECK(generators == 5);  // xoshiro256ss, xorwow, mrg31k3p, mrg32k3a, sobol
}

// The MRGs' reductions by shifts and folds (src/rng/generators.hpp) against the 64-bit
// remainders they replaced, from random valid states and the extreme ones, many steps each.
TEST_CASE("the MRGs' shift-and-fold reductions give the 64-bit remainders' values") {
  struct Ref31 {
    uint32_t g1[3], g2[3];
    uint32_t next_z() {
      const uint32_t x1 = static_cast<uint32_t>((4194304ULL * g1[1] + 129ULL * g1[2]) % Mrg31k3p::kM1);
      g1[2] = g1[1], g1[1] = g1[0], g1[0] = x1;
      const uint32_t x2 = static_cast<uint32_t>((32768ULL * g2[0] + 32769ULL * g2[2]) % Mrg31k3p::kM2);
      g2[2] = g2[1], g2[1] = g2[0], g2[0] = x2;
      return x1 > x2 ? x1 - x2 : x1 - x2 + Mrg31k3p::kM1;
    }
  };
  struct Ref32 {
    uint32_t c[6];
    uint32_t next_z() {
      int64_t p1 = (1403580LL * c[1] - 810728LL * c[0]) % static_cast<int64_t>(Mrg32k3a::kM1);
      if (p1 < 0) p1 += Mrg32k3a::kM1;
      c[0] = c[1], c[1] = c[2], c[2] = static_cast<uint32_t>(p1);
      int64_t p2 = (527612LL * c[5] - 1370589LL * c[3]) % static_cast<int64_t>(Mrg32k3a::kM2);
      if (p2 < 0) p2 += Mrg32k3a::kM2;
      c[3] = c[4], c[4] = c[5], c[5] = static_cast<uint32_t>(p2);
      return p1 > p2 ? static_cast<uint32_t>(p1 - p2) : static_cast<uint32_t>(p1 - p2 + Mrg32k3a::kM1);
    }
  };
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  auto below = [&x](uint32_t m) {  // splitmix64 words reduced below m
    x += 0x9e3779b97f4a7c15ULL;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<uint32_t>((z ^ (z >> 31)) % m);
  };
  int mismatches = 0;
  for (int state = 0; state < 2000; ++state) {
    Mrg31k3p a{};
    Mrg32k3a b{};
    for (int k = 0; k < 3; ++k) {
      // (the first states: all zero but one component's last word, and all m - 1)
      a.g1[k] = state == 0 ? 0 : state == 1 ? Mrg31k3p::kM1 - 1 : below(Mrg31k3p::kM1);
      a.g2[k] = state == 0 ? 0 : state == 1 ? Mrg31k3p::kM2 - 1 : below(Mrg31k3p::kM2);
      b.c[k] = state == 0 ? 0 : state == 1 ? Mrg32k3a::kM1 - 1 : below(Mrg32k3a::kM1);
      b.c[3 + k] = state == 0 ? 0 : state == 1 ? Mrg32k3a::kM2 - 1 : below(Mrg32k3a::kM2);
    }
    if (state == 0) a.g1[2] = a.g2[2] = b.c[0] = b.c[3] = 1;
    Ref31 ra{{a.g1[0], a.g1[1], a.g1[2]}, {a.g2[0], a.g2[1], a.g2[2]}};
    Ref32 rb{{b.c[0], b.c[1], b.c[2], b.c[3], b.c[4], b.c[5]}};
    for (int step = 0; step < 500; ++step) {
      mismatches += a.next_z() != ra.next_z();
      mismatches += b.next_z() != rb.next_z();
    }
  }
  CHECK(mismatches == 0);
}

// Skip-ahead (src/rng/skip_ahead.hpp, used by the GPU's segmented draws): a stream
// skipped by `steps` outputs gives the outputs of the same stream stepped one by one.
TEST_CASE("skip-ahead equals stepping for every generator that has it") {
  for (const PrngInfo& p : prng_table()) {
    CHECK_MESSAGE(skip_table(p.id).empty() == (p.id != PrngId::Xoshiro256ss), p.name);
    const StreamSet set(p.id, 20261126, 12);
    const StreamSetView v = set.view();
    visit_generator(p.id, [&](auto tag) {
      using G = decltype(tag);
      if constexpr (SkipAhead<G>::kHas) {
        const std::vector<uint32_t>& table = skip_table(p.id);
        CHECK(table.size() == static_cast<size_t>(kSkipBits) * SkipAhead<G>::kEntryWords);
        for (uint64_t j : {uint64_t{0}, uint64_t{11}}) {
          G stepped = G::make(v, j);
          uint64_t at = 0;
          for (uint64_t steps : {0, 1, 2, 3, 7, 8, 31, 1000, 4096, 4097, 65535, 100003, 1 << 20}) {
            // each skip from the start; the reference stepping continues from the last
            G skipped = G::make(v, j);
            skip_ahead(skipped, steps, table.data());
            while (at < steps) {
              SkipAhead<G>::word(stepped);
              ++at;
            }
            G copy = stepped;
            bool same = true;
            for (int k = 0; k < 5; ++k) same = same && SkipAhead<G>::word(skipped) == SkipAhead<G>::word(copy);
            CHECK_MESSAGE(same, p.name << " stream " << j << ": " << steps << " outputs skipped");
          }
        }
        // a skip of 2^33 + 5 outputs in one go equals two skips that add up to it
        G a = G::make(v, 3), b = G::make(v, 3);
        skip_ahead(a, (uint64_t{1} << 33) + 5, table.data());
        skip_ahead(b, uint64_t{1} << 32, table.data());
        skip_ahead(b, (uint64_t{1} << 32) + 5, table.data());
        CHECK_MESSAGE(SkipAhead<G>::word(a) == SkipAhead<G>::word(b), p.name << ": 2^33 + 5 outputs in one or two skips");
      }
    });
  }
}

// The 64-bit words' acceptance test (SkipAhead<G>::accepts, the segmented draws of
// xoshiro256ss) agrees with the generator's own draw: drawing on [0, i] by bounded()
// equals feeding its words to accepts() until one passes.
TEST_CASE("skip-ahead words: accepts() reproduces bounded() for xoshiro256ss") {
  const StreamSet set(PrngId::Xoshiro256ss, 7, 2);
  Xoshiro256ss a = Xoshiro256ss::make(set.view(), 1), b = a;
  bool same = true;
  for (uint32_t i : {1u, 2u, 9u, 1000u, 999999u, 0x40000000u, 0x7ffffff0u, 0x80000000u, 0xfffffffeu}) {
    for (int k = 0; k < 200; ++k) {
      const uint32_t want = a.bounded(i);
      uint32_t got = 0;
      while (!SkipAhead<Xoshiro256ss>::accepts(SkipAhead<Xoshiro256ss>::word(b), i, got)) {
      }
      same = same && got == want;
    }
  }
  CHECK(same);
  // the rejection itself: on [0, 2] (s = 3) a word is rejected where its low product
  // w * 3 mod 2^64 is below 2^64 mod 3 = 1: the word 0 is, the word 1 is not
  uint32_t r = 7;
  CHECK(!SkipAhead<Xoshiro256ss>::accepts(0, 2, r));
  CHECK(SkipAhead<Xoshiro256ss>::accepts(1, 2, r));
}
