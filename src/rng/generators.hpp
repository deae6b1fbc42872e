// The shuffling generators (--prng), each one __host__ __device__ implementation, so that
// (generator, seed, permutation j) gives the same Fisher-Yates draws on the CPU and the
// GPU. Definitions, sources and the choices made where the sources are silent:
// docs/prngs.md. Each stream class has
//   static make(view, j)   the stream of permutation j;
//   bounded(i)             a uniform integer in [0, i], by the exact method for its output;
//   attempt(i, maybe)      (not the lanes) one attempt of that method from one output, without
//                          its rejection loop: rng/bounded.hpp, bounded_attempt().
// The chaotic-iteration generators (CiXorLane, CiBbsLane) are lanes of a group of
// kLaneGroup permutations whose outputs are mixed; they are driven by LaneGroup (host) or a
// warp (cuda/), not on their own.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "common/hd.hpp"
#include "rng/bounded.hpp"
#include "rng/philox_stream.hpp"
#include "rng/splitmix.hpp"
#include "rng/stream_set.hpp"

namespace ea {

// Whether stream class G has attempt(i, maybe) (the lanes' warps too: cuda/warp_lane_stream.cuh).
template <class G, class = void>
struct HasAttempt : std::false_type {};
template <class G>
struct HasAttempt<G, std::void_t<decltype(std::declval<G&>().attempt(0u, std::declval<bool&>()))>>
    : std::true_type {};

EA_HD inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

EA_HD inline uint64_t join64(const uint32_t* w) { return static_cast<uint64_t>(w[0]) | (static_cast<uint64_t>(w[1]) << 32); }

// ---- Philox4x32-10: counter-based, stream j is a counter word (rng/philox_stream.hpp).
struct PhiloxGen : PhiloxStream {
  static constexpr bool kGrouped = false;
  EA_HD PhiloxGen(uint64_t seed, uint64_t j) : PhiloxStream(seed, j) {}
  static EA_HD PhiloxGen make(const StreamSetView& v, uint64_t j) { return PhiloxGen(v.seed, j); }
};

// ---- xoshiro256** 1.0 (Blackman & Vigna), 64-bit outputs, NIST's randomRange64 draw.
struct Xoshiro256ss {
  static constexpr bool kGrouped = false;
  static constexpr uint32_t kWords = 8;
  uint64_t s[4];

  EA_HD EA_FORCEINLINE uint64_t next64() {
    const uint64_t result = rotl64(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
  }
  // 2^128 steps ahead (the reference jump() polynomial).
  EA_HD void jump() {
    const uint64_t kJump[4] = {0x180ec6d33cfd0abaULL, 0xd5a61266f0c9392cULL, 0xa9582618e03fc9aaULL,
                               0x39abdc4529b1661cULL};
    uint64_t acc[4] = {0, 0, 0, 0};
    for (int w = 0; w < 4; ++w) {
      for (int b = 0; b < 64; ++b) {
        if (kJump[w] & (1ULL << b)) {
          for (int k = 0; k < 4; ++k) acc[k] ^= s[k];
        }
        next64();
      }
    }
    for (int k = 0; k < 4; ++k) s[k] = acc[k];
  }
  static EA_HD Xoshiro256ss make(const StreamSetView& v, uint64_t j) {
    Xoshiro256ss g;
    const uint32_t* w = v.states + j * kWords;
    for (int k = 0; k < 4; ++k) g.s[k] = join64(w + 2 * k);
    return g;
  }
  EA_HD EA_FORCEINLINE uint32_t bounded(uint32_t i) { return bounded_inclusive64(*this, i); }
  EA_HD EA_FORCEINLINE uint32_t attempt(uint32_t i, bool& maybe) { return bounded_attempt64(next64(), i, maybe); }
};

// ---- XORWOW (Marsaglia 2003) in cuRAND's curandState_t layout: v[0..4] and the Weyl d.
struct Xorwow {
  static constexpr bool kGrouped = false;
  static constexpr uint32_t kWords = 6;
  uint32_t v[5];
  uint32_t d;

  EA_HD EA_FORCEINLINE uint32_t next() {
    const uint32_t t = v[0] ^ (v[0] >> 2);
    v[0] = v[1];
    v[1] = v[2];
    v[2] = v[3];
    v[3] = v[4];
    v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
    d += 362437u;
    return v[4] + d;
  }
  // cuRAND's curand_init(seed, 0, 0) before the subsequence jump.
  static EA_HD Xorwow seeded(uint64_t seed) {
    const uint32_t s0 = static_cast<uint32_t>(seed) ^ 0xaad26b49u;
    const uint32_t s1 = static_cast<uint32_t>(seed >> 32) ^ 0xf7dcefddu;
    const uint32_t t0 = 1099087573u * s0, t1 = 2591861531u * s1;
    Xorwow g;
    g.d = 6615241u + t1 + t0;
    g.v[0] = 123456789u + t0;
    g.v[1] = 362436069u ^ t0;
    g.v[2] = 521288629u + t1;
    g.v[3] = 88675123u ^ t1;
    g.v[4] = 5783321u + t0;
    return g;
  }
  static EA_HD Xorwow make(const StreamSetView& v, uint64_t j) {
    Xorwow g;
    const uint32_t* w = v.states + j * kWords;
    for (int k = 0; k < 5; ++k) g.v[k] = w[k];
    g.d = w[5];
    return g;
  }
  EA_HD EA_FORCEINLINE uint32_t bounded(uint32_t i) { return bounded_inclusive(*this, i); }
  EA_HD EA_FORCEINLINE uint32_t attempt(uint32_t i, bool& maybe) { return bounded_attempt(next(), i, maybe); }
};

// ---- MRG31k3p (L'Ecuyer & Touzin 2000) in clRNG's layout: g1, g2 newest first.
struct Mrg31k3p {
  static constexpr bool kGrouped = false;
  static constexpr uint32_t kWords = 6;
  static constexpr uint32_t kM1 = 2147483647u, kM2 = 2147462579u;
  uint32_t g1[3], g2[3];

  // a + b mod m for a, b < m < 2^31.
  static EA_HD EA_FORCEINLINE uint32_t add_mod(uint32_t a, uint32_t b, uint32_t m) {
    const uint32_t t = a + b;
    return t >= m ? t - m : t;
  }
  // 2^k a mod m1 for a < 2^31 (m1 = 2^31 - 1, so 2^31 = 1 mod m1): the bits of a that
  // shift past bit 30 come back at bit 0. At most m1 before the subtraction.
  template <int k>
  static EA_HD EA_FORCEINLINE uint32_t shl_mod1(uint32_t a) {
    const uint32_t t = ((a & ((1u << (31 - k)) - 1u)) << k) + (a >> (31 - k));
    return t >= kM1 ? t - kM1 : t;
  }
  // 2^15 a mod m2 for a < m2 (2^31 = 21069 mod m2): at most 2^31 + 21069 (2^15 - 1) before
  // the subtraction, below 2 m2.
  static EA_HD EA_FORCEINLINE uint32_t shl15_mod2(uint32_t a) {
    const uint32_t t = ((a & 0xffffu) << 15) + 21069u * (a >> 16);
    return t >= kM2 ? t - kM2 : t;
  }
  // z in [1, m1]. The recurrences' products are reduced with shifts and adds (the
  // multipliers are 2^22 + ... of the generator's design: x1 = (2^22 g1[1] + (2^7 + 1)
  // g1[2]) mod m1, x2 = ((2^15) g2[0] + (2^15 + 1) g2[2]) mod m2), with the values of the
  // 64-bit remainders (the unit test compares them): a chain of 32-bit operations instead
  // of a 64-bit division by a constant for every step.
  EA_HD EA_FORCEINLINE uint32_t next_z() {
    const uint32_t x1 = add_mod(add_mod(shl_mod1<22>(g1[1]), shl_mod1<7>(g1[2]), kM1), g1[2], kM1);
    g1[2] = g1[1];
    g1[1] = g1[0];
    g1[0] = x1;
    const uint32_t x2 = add_mod(add_mod(shl15_mod2(g2[0]), shl15_mod2(g2[2]), kM2), g2[2], kM2);
    g2[2] = g2[1];
    g2[1] = g2[0];
    g2[0] = x2;
    return x1 > x2 ? x1 - x2 : x1 - x2 + kM1;
  }
  EA_HD EA_FORCEINLINE uint32_t next_below() { return next_z() - 1u; }  // uniform on [0, m1)
  static EA_HD Mrg31k3p make(const StreamSetView& v, uint64_t j) {
    Mrg31k3p g;
    const uint32_t* w = v.states + j * kWords;
    for (int k = 0; k < 3; ++k) {
      g.g1[k] = w[k];
      g.g2[k] = w[3 + k];
    }
    return g;
  }
  EA_HD EA_FORCEINLINE uint32_t bounded(uint32_t i) { return bounded_inclusive_mod<kM1>(*this, i); }
  EA_HD EA_FORCEINLINE uint32_t attempt(uint32_t i, bool& maybe) {
    return bounded_attempt_mod<kM1>(next_below(), i, maybe);
  }
};

// ---- MRG32k3a (L'Ecuyer 1999) in RngStreams' layout: Cg[0..2], Cg[3..5], oldest first.
struct Mrg32k3a {
  static constexpr bool kGrouped = false;
  static constexpr uint32_t kWords = 6;
  static constexpr uint32_t kM1 = 4294967087u, kM2 = 4294944443u;
  uint32_t c[6];

  // x mod m for m = 2^32 - d and x < 2^54: x = h 2^32 + l = h d + l (mod m), twice, then
  // one subtraction (after the second fold the value is below 2^32 + 32 d < 2 m).
  template <uint32_t d>
  static EA_HD EA_FORCEINLINE uint32_t fold_mod(uint64_t x) {
    constexpr uint64_t m = (uint64_t{1} << 32) - d;
    x = (x >> 32) * d + (x & 0xffffffffu);
    x = (x >> 32) * d + (x & 0xffffffffu);
    return static_cast<uint32_t>(x >= m ? x - m : x);
  }
  // z in [1, m1]. a c[1] - b c[0] mod m1 is a c[1] + b (m1 - c[0]) mod m1, a value below
  // 2^54 with no sign, reduced by fold_mod (the values of the signed 64-bit remainders:
  // the unit test compares them) instead of a 64-bit division by a constant for every step.
  EA_HD EA_FORCEINLINE uint32_t next_z() {
    const int64_t p1 = fold_mod<209u>(1403580ULL * c[1] + 810728ULL * (kM1 - c[0]));
    c[0] = c[1];
    c[1] = c[2];
    c[2] = static_cast<uint32_t>(p1);
    const int64_t p2 = fold_mod<22853u>(527612ULL * c[5] + 1370589ULL * (kM2 - c[3]));
    c[3] = c[4];
    c[4] = c[5];
    c[5] = static_cast<uint32_t>(p2);
    return p1 > p2 ? static_cast<uint32_t>(p1 - p2) : static_cast<uint32_t>(p1 - p2 + kM1);
  }
  EA_HD EA_FORCEINLINE uint32_t next_below() { return next_z() - 1u; }
  static EA_HD Mrg32k3a make(const StreamSetView& v, uint64_t j) {
    Mrg32k3a g;
    const uint32_t* w = v.states + j * kWords;
    for (int k = 0; k < 6; ++k) g.c[k] = w[k];
    return g;
  }
  EA_HD EA_FORCEINLINE uint32_t bounded(uint32_t i) { return bounded_inclusive_mod<kM1>(*this, i); }
  EA_HD EA_FORCEINLINE uint32_t attempt(uint32_t i, bool& maybe) {
    return bounded_attempt_mod<kM1>(next_below(), i, maybe);
  }
};

// ---- Marsaglia's 32-bit xor-like generators (the parts of the chaotic-iteration lane).
struct Xorshift5 {  // "xorshift" with five words, output (2y + 1) v
  uint32_t x, y, z, w, v;
  EA_HD EA_FORCEINLINE uint32_t next() {
    const uint32_t t = x ^ (x >> 7);
    x = y;
    y = z;
    z = w;
    w = v;
    v = (v ^ (v << 6)) ^ (t ^ (t << 13));
    return (y + y + 1u) * v;
  }
};
struct Xor128 {
  uint32_t x, y, z, w;
  EA_HD EA_FORCEINLINE uint32_t next() {
    const uint32_t t = x ^ (x << 11);
    x = y;
    y = z;
    z = w;
    w = (w ^ (w >> 19)) ^ (t ^ (t >> 8));
    return w;
  }
};

// ---- CI-xorlike lane (Bahi, Couturier, Guyeux & Heam): x(n) = x(n-1) ^ lo(t) ^ hi(t) ^
// P[o1] ^ P[o2], where t = the XOR of one 64-bit draw (two successive 32-bit outputs, the
// first in the high half) of xorshift5, xor128 and xorwow, and P[k] = lo(t) of lane k in
// the same step (published, then read).
struct CiXorLane {
  static constexpr bool kGrouped = true;
  Xorshift5 a;
  Xor128 b;
  Xorwow c;
  uint32_t x;
  uint32_t hi_lo;  // lo(t) ^ hi(t) of the current step
  uint8_t o1, o2;

  static EA_HD CiXorLane defaults() {
    CiXorLane l;
    l.a = Xorshift5{123456789u, 362436069u, 521288629u, 88675123u, 886756453u};
    l.b = Xor128{123456789u, 362436069u, 521288629u, 88675123u};
    l.c.v[0] = 123456789u;
    l.c.v[1] = 362436069u;
    l.c.v[2] = 521288629u;
    l.c.v[3] = 88675123u;
    l.c.v[4] = 5783321u;
    l.c.d = 6615241u;
    l.x = 123123123u;
    l.hi_lo = 0;
    l.o1 = l.o2 = 0;
    return l;
  }
  // The 64-bit xor-like draw t.
  EA_HD EA_FORCEINLINE uint64_t draw() {
    uint64_t t1 = static_cast<uint64_t>(a.next()) << 32;
    t1 |= a.next();
    uint64_t t2 = static_cast<uint64_t>(b.next()) << 32;
    t2 |= b.next();
    uint64_t t3 = static_cast<uint64_t>(c.next()) << 32;
    t3 |= c.next();
    return t1 ^ t2 ^ t3;
  }
  // The paper's sequential generator (no exchange between lanes).
  EA_HD uint32_t next_sequential() {
    const uint64_t t = draw();
    x ^= static_cast<uint32_t>(t) ^ static_cast<uint32_t>(t >> 32);
    return x;
  }
  // Group step: begin() returns the value this lane publishes; finish() gets the values
  // published by lanes o1 and o2 in the same step and returns the lane's output.
  EA_HD EA_FORCEINLINE uint32_t begin() {
    const uint64_t t = draw();
    hi_lo = static_cast<uint32_t>(t) ^ static_cast<uint32_t>(t >> 32);
    return static_cast<uint32_t>(t);
  }
  EA_HD EA_FORCEINLINE uint32_t finish(uint32_t q1, uint32_t q2) {
    x ^= hi_lo ^ q1 ^ q2;
    return x;
  }
  // Lane of permutation j: 16 words (low halves) of stream_seeder(seed, j) seed xorshift5,
  // xor128, xorwow (v[0..4], d) and x; an all-zero part keeps its default seeds.
  // aux[0..31], aux[32..63]: the group's two combination arrays.
  static EA_HD CiXorLane make(const StreamSetView& v, uint64_t j) {
    CiXorLane l = defaults();
    SplitMix64 sm = stream_seeder(v.seed, j);
    uint32_t w[16];
    for (int k = 0; k < 16; ++k) w[k] = sm.next32();
    if (w[0] | w[1] | w[2] | w[3] | w[4]) l.a = Xorshift5{w[0], w[1], w[2], w[3], w[4]};
    if (w[5] | w[6] | w[7] | w[8]) l.b = Xor128{w[5], w[6], w[7], w[8]};
    if (w[9] | w[10] | w[11] | w[12] | w[13]) {
      for (int k = 0; k < 5; ++k) l.c.v[k] = w[9 + k];
    }
    l.c.d = w[14];
    l.x = w[15];
    const uint32_t lane = static_cast<uint32_t>(j % kLaneGroup);
    l.o1 = static_cast<uint8_t>(v.aux[lane]);
    l.o2 = static_cast<uint8_t>(v.aux[kLaneGroup + lane]);
    return l;
  }
};

// ---- CI-BBS lane: eight Blum-Blum-Shub generators with moduli below 2^16 give 4 bits
// each, and two more shifts add up to 6 bits; the word is mixed with the previous step's
// published words of lanes o1 and o2 (combination arrays chosen by the lane's first two
// BBS states), published, and XORed into x.
struct CiBbsLane {
  static constexpr bool kGrouped = true;
  uint32_t b[8];
  uint32_t x;
  uint32_t pub;    // the word published in the previous step (0 before the first)
  uint32_t local;  // the current step's BBS word
  uint8_t o1, o2;

  EA_HD EA_FORCEINLINE uint32_t bbs(int k) {
    b[k] = (b[k] * b[k]) % modulus(k);
    return b[k];
  }
  static EA_HD EA_FORCEINLINE uint32_t modulus(int k) {
    // Safe primes = 3 mod 4 near 256: 227*263, 179*263, 167*263, 179*227, 167*227,
    // 107*263, 167*179, 107*227.
    switch (k) {
      case 0: return 59701u;
      case 1: return 47077u;
      case 2: return 43921u;
      case 3: return 40633u;
      case 4: return 37909u;
      case 5: return 28141u;
      case 6: return 29893u;
      default: return 24289u;
    }
  }
  EA_HD EA_FORCEINLINE uint32_t word() {
    uint32_t t = 0;
EA_UNROLL
    for (int k = 0; k < 8; ++k) t = (t << 4) | (bbs(k) & 15u);
    uint32_t sh = bbs(2) & 3u;
    t = (t << sh) | (bbs(0) & ((1u << sh) - 1u));
    sh = bbs(6) & 3u;
    t = (t << sh) | (bbs(1) & ((1u << sh) - 1u));
    return t;
  }
  EA_HD EA_FORCEINLINE uint32_t begin() {
    local = word();
    return pub;
  }
  EA_HD EA_FORCEINLINE uint32_t finish(uint32_t q1, uint32_t q2) {
    pub = local ^ q1 ^ q2;
    x ^= pub;
    return x;
  }
  static EA_HD uint32_t gcd(uint32_t a, uint32_t c) {
    while (c) {
      const uint32_t r = a % c;
      a = c;
      c = r;
    }
    return a;
  }
  // Lane of permutation j: 9 words (low halves) of stream_seeder(seed, j); BBS k starts at
  // 2 + (w_k mod (M_k - 3)), moved up to the next value prime to M_k, squared once; x = w_8.
  // aux[32 a + k]: combination array a (16 arrays); this lane reads arrays b_0 & 7 and
  // 8 + (b_1 & 7).
  static EA_HD CiBbsLane make(const StreamSetView& v, uint64_t j) {
    CiBbsLane l;
    SplitMix64 sm = stream_seeder(v.seed, j);
    for (int k = 0; k < 8; ++k) {
      const uint32_t m = modulus(k);
      uint32_t s = 2u + sm.next32() % (m - 3u);
      while (gcd(s, m) != 1u) ++s;
      l.b[k] = (s * s) % m;
    }
    l.x = sm.next32();
    l.pub = 0;
    l.local = 0;
    const uint32_t lane = static_cast<uint32_t>(j % kLaneGroup);
    l.o1 = static_cast<uint8_t>(v.aux[kLaneGroup * (l.b[0] & 7u) + lane]);
    l.o2 = static_cast<uint8_t>(v.aux[kLaneGroup * (8u + (l.b[1] & 7u)) + lane]);
    return l;
  }
};

// ---- Sobol (Joe & Kuo new-joe-kuo-6.21201 direction numbers), one dimension per
// permutation (j mod kSobolDims), Gray-code order, XORed with a per-permutation random
// digital shift: a low-discrepancy sequence, not a random one (never for compliance).
constexpr uint32_t kSobolDims = 10;
struct SobolStream {
  static constexpr bool kGrouped = false;
  const uint32_t* dir;  // 32 direction integers of the dimension
  uint32_t x;           // the current point, shifted
  uint32_t n;           // its index

  EA_HD EA_FORCEINLINE uint32_t next() {
    const uint32_t r = x;
#if defined(__CUDA_ARCH__)
    const int c = __ffs(~n) - 1;
#else
    const int c = __builtin_ctz(~n);
#endif
    x ^= dir[c & 31];
    ++n;
    return r;
  }
  // aux[32 d + k]: direction integer V_{k+1} of dimension d + 1.
  static EA_HD SobolStream make(const StreamSetView& v, uint64_t j) {
    SobolStream s;
    s.dir = v.aux + kLaneGroup * (j % kSobolDims);
    s.x = stream_seeder(v.seed, j).next32();
    s.n = 0;
    return s;
  }
  EA_HD EA_FORCEINLINE uint32_t bounded(uint32_t i) { return bounded_inclusive(*this, i); }
  EA_HD EA_FORCEINLINE uint32_t attempt(uint32_t i, bool& maybe) { return bounded_attempt(next(), i, maybe); }
};

// Calls f(G{}) with a value-initialised object of the stream class of `id`. Host code
// only (kernels are instantiated per class in cuda/).
template <class F>
decltype(auto) visit_generator(PrngId id, F&& f) {
  switch (id) {
    case PrngId::Xoshiro256ss: return f(Xoshiro256ss{});
    case PrngId::Xorwow: return f(Xorwow{});
    case PrngId::Mrg31k3p: return f(Mrg31k3p{});
    case PrngId::Mrg32k3a: return f(Mrg32k3a{});
    case PrngId::CiXorlike: return f(CiXorLane{});
    case PrngId::CiBbs: return f(CiBbsLane{});
    case PrngId::Sobol: return f(SobolStream{});
    default: return f(PhiloxGen(0, 0));
  }
}

}  // namespace ea
