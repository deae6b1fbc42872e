#include "rng/prng.hpp"

#include <string>

#include "common/error.hpp"

#include "rng/generators.hpp"
#include "rng/gf2.hpp"
#include "permutation/bucket_shuffle.hpp"
#include "permutation/shuffle.hpp"
#include "rng/lane_group.hpp"

namespace ea {

namespace {

const std::array<PrngInfo, kNumPrngs> kTable = {{
    {PrngId::Philox, "philox", "Philox4x32-10 (Random123)", "counter-based (Salmon et al. 2011)",
     "128-bit counter, 64-bit key", "2^66 words per stream",
     "key = seed, counter = (block, j): cuRAND's curand_init(seed, j, 0) layout", "Lemire 32-bit", true, "", "8-bit (bucket shuffle) 145/7367 = 2.0% [1.7, 2.3]; 1-bit 5/300 = 1.7% [0.7, 3.8] (reference rates)", false, ""},
    {PrngId::Xoshiro256ss, "xoshiro256ss", "xoshiro256** 1.0", "xor/shift/rotate, GF(2)-linear (Blackman & Vigna)",
     "256 bits", "2^256 - 1", "jump (2^128 steps) j times from 4 SplitMix64(seed) words, on the host",
     "Lemire 64-bit (NIST randomRange64)", true, "", "8-bit (bucket shuffle, 18 tests) 19/902 = 2.1% [1.4, 3.3]; 1-bit 6/300 = 2.0% [0.9, 4.3]; agrees with philox", false, ""},
    {PrngId::Xorwow, "xorwow", "XORWOW (cuRAND curandState_t)", "xorshift + Weyl sequence (Marsaglia 2003)",
     "192 bits", "2^192 - 2^32", "cuRAND curand_init(seed, j, 0): 2^67 j steps ahead, on the host",
     "Lemire 32-bit", false, "GF(2)-linear with known statistical test failures; for cuRAND parity checks", "8-bit (bucket shuffle, 18 tests) 20/902 = 2.2% [1.4, 3.4]; 1-bit 9/300 = 3.0% [1.6, 5.6]; agrees with philox", false, ""},
    {PrngId::Mrg31k3p, "mrg31k3p", "MRG31k3p (clRNG)", "combined multiple recursive (L'Ecuyer & Touzin 2000)",
     "6 x 31 bits", "about 2^185", "clRNG streams: 2^134 j steps ahead of SplitMix64(seed) words, on the host",
     "Lemire generalised to R = 2^31 - 1", true, "", "8-bit (bucket shuffle, 18 tests) 17/902 = 1.9% [1.2, 3.0]; 1-bit 1/300 = 0.3% [0.1, 1.9]; agrees with philox", false, ""},
    {PrngId::Mrg32k3a, "mrg32k3a", "MRG32k3a (RngStreams)", "combined multiple recursive (L'Ecuyer 1999)",
     "6 x 32 bits", "about 2^191", "RngStreams streams: 2^127 j steps ahead of SplitMix64(seed) words, on the host",
     "Lemire generalised to R = 2^32 - 209", true, "", "8-bit (bucket shuffle, 18 tests) 21/901 = 2.3% [1.5, 3.5]; 1-bit 7/300 = 2.3% [1.1, 4.7]; agrees with philox", false, ""},
    {PrngId::CiXorlike, "ci-xorlike", "CI-xorlike, efficient GPU version (Bahi, Couturier, Guyeux & Heam)",
     "chaotic iterations over xorshift5, xor128, xorwow; 32 lanes mix outputs", "17 words per lane",
     "not established", "lane seeds from SplitMix64(seed, j); lockstep groups of 32 permutations",
     "Lemire 32-bit, group redraw", false, "research generator: the papers leave its definition open", "8-bit 35/1002 = 3.5% [2.5, 4.8] excludes philox's 1.6% of that calibration (Fisher-Yates, 2026-11-22): too many false rejections; 1-bit 8/300 = 2.7% [1.4, 5.2]", true, ""},
    {PrngId::CiBbs, "ci-bbs", "CI-BBS (Bahi, Couturier, Guyeux & Heam)",
     "chaotic iterations over 8 Blum-Blum-Shub with moduli < 2^16; 32 lanes mix outputs", "10 words per lane",
     "not established (BBS cycles of a few hundred to a few thousand steps)",
     "lane seeds from SplitMix64(seed, j); lockstep groups of 32 permutations", "Lemire 32-bit, group redraw", false,
     "research generator: tiny moduli, definition partly ours", "8-bit 14/1000 = 1.4% [0.8, 2.3]; 1-bit 4/300 = 1.3% [0.5, 3.4]; agrees with philox", false, ""},
    {PrngId::Sobol, "sobol", "Sobol (Joe & Kuo 6.21201), random digital shift", "low-discrepancy sequence, not random",
     "2 words", "2^32 points", "dimension 1 + j mod 10, digital shift from SplitMix64(seed, j)", "Lemire 32-bit",
     false, "NOT FOR SP 800-90B COMPLIANCE: a quasi-random sequence does not give uniform shuffles", "8-bit 20/1000 = 2.0% [1.3, 3.1]; 1-bit 4/300 = 1.3% [0.5, 3.4]; verdicts agree with philox although the shuffles are not uniform", false,
     "FAILS: 10^5 shuffles of 4 (5) elements reach only 12 of 24 (20 of 120) orders, 10^7 of 8 only 168 of "
     "40,320; in rows of 10^6 samples land unevenly (ea_calibrate --uniformity)"},
}};

// 32-bit words (the low halves) of a SplitMix64, for the Lemire draw.
struct SplitMixWords {
  SplitMix64 sm;
  uint32_t next() { return sm.next32(); }
  uint32_t bounded(uint32_t i) { return bounded_inclusive(*this, i); }
};

}  // namespace

const std::array<PrngInfo, kNumPrngs>& prng_table() { return kTable; }

const PrngInfo& prng_info(PrngId id) { return kTable[static_cast<size_t>(id)]; }

std::optional<PrngId> parse_prng(const std::string& name) {
  for (const auto& p : kTable)
    if (name == p.name) return p.id;
  return std::nullopt;
}

std::string prng_names() {
  std::string s;
  for (const auto& p : kTable) s += (s.empty() ? "" : ", ") + std::string(p.name);
  return s;
}

Mat3 mat3_mul(const Mat3& a, const Mat3& b, uint64_t m) {
  Mat3 c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      uint64_t s = 0;
      for (int k = 0; k < 3; ++k) s = (s + (a[i][k] % m) * (b[k][j] % m) % m) % m;
      c[i][j] = s;
    }
  return c;
}

Mat3 mat3_pow2(Mat3 a, int e, uint64_t m) {
  for (int i = 0; i < e; ++i) a = mat3_mul(a, a, m);
  return a;
}

void mat3_apply(const Mat3& a, uint32_t v[3], uint64_t m) {
  uint64_t r[3];
  for (int i = 0; i < 3; ++i) {
    uint64_t s = 0;
    for (int k = 0; k < 3; ++k) s = (s + a[i][k] * v[k] % m) % m;
    r[i] = s;
  }
  for (int i = 0; i < 3; ++i) v[i] = static_cast<uint32_t>(r[i]);
}

void xorwow_apply(const std::vector<uint32_t>& matrix, uint32_t v[5]) { gf2_apply<5>(matrix.data(), v); }

std::vector<uint32_t> xorwow_matrix_pow2(int e) {
  std::vector<uint32_t> m(160 * 5);
  for (int b = 0; b < 160; ++b) {
    Xorwow g{};
    g.v[b / 32] = 1u << (b % 32);
    g.next();  // linear in v (d is not part of the matrix)
    for (int w = 0; w < 5; ++w) m[5 * b + w] = g.v[w];
  }
  for (int i = 0; i < e; ++i) m = gf2_square<5>(m);
  return m;
}

void xoshiro_base(uint64_t seed, uint64_t s[4]) {
  SplitMix64 sm{seed};
  for (int k = 0; k < 4; ++k) s[k] = sm.next();
}

void mrg_base(uint64_t seed, uint32_t m1, uint32_t m2, uint32_t g[6]) {
  SplitMix64 sm{seed};
  for (int c = 0; c < 2; ++c) {
    const uint32_t m = c == 0 ? m1 : m2;
    do {
      for (int k = 0; k < 3; ++k) g[3 * c + k] = static_cast<uint32_t>(sm.next() % m);
    } while ((g[3 * c] | g[3 * c + 1] | g[3 * c + 2]) == 0);
  }
}

std::vector<uint32_t> combination_arrays(uint64_t seed, int count, bool distinct_pairs) {
  SplitMixWords rng{SplitMix64{seed ^ 0xC1}};
  std::vector<uint32_t> out(static_cast<size_t>(count) * kLaneGroup);
  for (int a = 0; a < count; ++a) {
    uint32_t* p = out.data() + static_cast<size_t>(a) * kLaneGroup;
    bool ok = false;
    while (!ok) {
      uint8_t perm[kLaneGroup];
      for (uint32_t k = 0; k < kLaneGroup; ++k) perm[k] = static_cast<uint8_t>(k);
      fisher_yates(perm, kLaneGroup, 1, rng);
      ok = true;
      for (uint32_t k = 0; k < kLaneGroup; ++k) {
        p[k] = perm[k];
        ok = ok && perm[k] != k && !(distinct_pairs && a == 1 && perm[k] == out[k]);
      }
    }
  }
  return out;
}

std::vector<uint32_t> sobol_directions() {
  struct Row {
    uint32_t s, a;
    uint32_t m[5];
  };
  // Joe & Kuo, new-joe-kuo-6.21201, dimensions 2..10 (d s a m_i).
  static const Row kRows[kSobolDims - 1] = {
      {1, 0, {1}},          {2, 1, {1, 3}},        {3, 1, {1, 3, 1}},
      {3, 2, {1, 1, 1}},    {4, 1, {1, 1, 3, 3}},  {4, 4, {1, 3, 5, 13}},
      {5, 2, {1, 1, 5, 5, 17}}, {5, 4, {1, 1, 5, 5, 5}}, {5, 7, {1, 1, 7, 11, 19}},
  };
  std::vector<uint32_t> v(kSobolDims * kLaneGroup);
  for (uint32_t k = 1; k <= 32; ++k) v[k - 1] = 1u << (32 - k);
  for (uint32_t d = 1; d < kSobolDims; ++d) {
    const Row& r = kRows[d - 1];
    uint32_t* V = v.data() + d * 32;  // V[k - 1] = V_k
    for (uint32_t k = 1; k <= 32; ++k) {
      if (k <= r.s) {
        V[k - 1] = r.m[k - 1] << (32 - k);
      } else {
        uint32_t x = V[k - r.s - 1] ^ (V[k - r.s - 1] >> r.s);
        for (uint32_t i = 1; i + 1 <= r.s; ++i)
          if ((r.a >> (r.s - 1 - i)) & 1u) x ^= V[k - i - 1];
        V[k - 1] = x;
      }
    }
  }
  return v;
}

StreamSet::StreamSet(PrngId id, uint64_t seed, uint64_t count) : id_(id), seed_(seed), count_(count) {
  switch (id) {
    case PrngId::Xoshiro256ss: {
      words_ = Xoshiro256ss::kWords;
      states_.resize(count * words_);
      Xoshiro256ss g;
      xoshiro_base(seed, g.s);
      for (uint64_t j = 0; j < count; ++j) {
        for (int k = 0; k < 4; ++k) {
          states_[j * words_ + 2 * k] = static_cast<uint32_t>(g.s[k]);
          states_[j * words_ + 2 * k + 1] = static_cast<uint32_t>(g.s[k] >> 32);
        }
        g.jump();
      }
      break;
    }
    case PrngId::Xorwow: {
      words_ = Xorwow::kWords;
      states_.resize(count * words_);
      const std::vector<uint32_t> jump = xorwow_matrix_pow2(67);
      Xorwow g = Xorwow::seeded(seed);
      for (uint64_t j = 0; j < count; ++j) {
        for (int k = 0; k < 5; ++k) states_[j * words_ + k] = g.v[k];
        states_[j * words_ + 5] = g.d;  // 362437 * 2^67 = 0 mod 2^32: d is the same
        xorwow_apply(jump, g.v);
      }
      break;
    }
    case PrngId::Mrg31k3p:
    case PrngId::Mrg32k3a: {
      const bool p = id == PrngId::Mrg31k3p;
      const uint64_t m1 = p ? Mrg31k3p::kM1 : Mrg32k3a::kM1, m2 = p ? Mrg31k3p::kM2 : Mrg32k3a::kM2;
      const Mat3 a1 = p ? Mat3{{{0, 4194304, 129}, {1, 0, 0}, {0, 1, 0}}}
                        : Mat3{{{0, 1, 0}, {0, 0, 1}, {m1 - 810728, 1403580, 0}}};
      const Mat3 a2 = p ? Mat3{{{32768, 0, 32769}, {1, 0, 0}, {0, 1, 0}}}
                        : Mat3{{{0, 1, 0}, {0, 0, 1}, {m2 - 1370589, 0, 527612}}};
      const int e = p ? 134 : 127;
      const Mat3 j1 = mat3_pow2(a1, e, m1), j2 = mat3_pow2(a2, e, m2);
      words_ = 6;
      states_.resize(count * words_);
      uint32_t g[6];
      mrg_base(seed, static_cast<uint32_t>(m1), static_cast<uint32_t>(m2), g);
      for (uint64_t j = 0; j < count; ++j) {
        for (int k = 0; k < 6; ++k) states_[j * words_ + k] = g[k];
        mat3_apply(j1, g, m1);
        mat3_apply(j2, g + 3, m2);
      }
      break;
    }
    case PrngId::CiXorlike: aux_ = combination_arrays(seed, 2, true); break;
    case PrngId::CiBbs: aux_ = combination_arrays(seed, 16, false); break;
    case PrngId::Sobol: aux_ = sobol_directions(); break;
    default: break;
  }
}

StreamSetView StreamSet::view() const {
  StreamSetView v;
  v.id = id_;
  v.seed = seed_;
  v.states = states_.empty() ? nullptr : states_.data();
  v.words_per_stream = words_;
  v.count = count_;
  v.aux = aux_.empty() ? nullptr : aux_.data();
  v.aux_words = static_cast<uint32_t>(aux_.size());
  return v;
}

namespace {
// Permutation j of the set as fisher_yates() on stream j (every generator; grouped
// generators run the whole group of j on scratch copies), or as the engine's bucket shuffle.
void permute(const StreamSet& set, uint64_t j, uint8_t* a, size_t n, bool engine, bool binary = false) {
  if (j >= set.count()) {
    throw Error(ErrorKind::Internal, "permutation " + std::to_string(j) + " beyond the " + std::to_string(set.count()) +
                                         " prepared generator streams");
  }
  const StreamSetView v = set.view();
  visit_generator(set.id(), [&](auto tag) {
    using G = decltype(tag);
    if constexpr (G::kGrouped) {
      const uint64_t group = j / kLaneGroup;
      std::vector<std::vector<uint8_t>> copies(kLaneGroup, std::vector<uint8_t>(a, a + n));
      uint8_t* buffers[kLaneGroup];
      for (uint32_t k = 0; k < kLaneGroup; ++k) buffers[k] = copies[k].data();
      LaneGroup<G> lanes(v, group);
      fisher_yates_group(buffers, n, lanes);
      const auto& mine = copies[j % kLaneGroup];
      std::copy(mine.begin(), mine.end(), a);
    } else if (engine && engine_uses_buckets(set.id(), n, binary, ShuffleChoice::Bucket)) {
      std::vector<uint8_t> scratch;
      if constexpr (std::is_same_v<G, PhiloxGen>) {
        engine_bucket_shuffle_philox(a, n, v.seed, j, scratch);
      } else {
        G g = G::make(v, j);
        engine_bucket_shuffle(a, n, g, scratch);
      }
    } else {
      G g = G::make(v, j);
      fisher_yates(a, n, 1, g);
    }
  });
}
}  // namespace

void shuffle_permutation(const StreamSet& set, uint64_t j, uint8_t* a, size_t n, bool binary) {
  permute(set, j, a, n, true, binary);
}
void fisher_yates_permutation(const StreamSet& set, uint64_t j, uint8_t* a, size_t n) { permute(set, j, a, n, false); }

}  // namespace ea
