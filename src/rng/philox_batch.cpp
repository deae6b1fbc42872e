#include "rng/philox_batch.hpp"

#include <immintrin.h>

namespace ea {

namespace {

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;

// One block, as Random123's philox4x32_R(10): a round, then nine times a key bump and a
// round.
// Counter (x0, x1, low half of x23, high half of x23).
void philox_one_counter(uint64_t seed, uint32_t x0, uint32_t x1, uint64_t x23, uint32_t* out) {
  uint32_t x2 = static_cast<uint32_t>(x23), x3 = static_cast<uint32_t>(x23 >> 32);
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    const uint64_t p0 = static_cast<uint64_t>(kM0) * x0;
    const uint64_t p1 = static_cast<uint64_t>(kM1) * x2;
    const uint32_t y0 = static_cast<uint32_t>(p1 >> 32) ^ x1 ^ k0;
    const uint32_t y2 = static_cast<uint32_t>(p0 >> 32) ^ x3 ^ k1;
    x1 = static_cast<uint32_t>(p1);
    x3 = static_cast<uint32_t>(p0);
    x0 = y0;
    x2 = y2;
  }
  out[0] = x0;
  out[1] = x1;
  out[2] = x2;
  out[3] = x3;
}
void philox_one(uint64_t seed, uint64_t stream, uint64_t b, uint32_t* out) {
  philox_one_counter(seed, static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32), stream, out);
}

#define EA_AVX2 __attribute__((target("avx2")))

// The high and low 32-bit halves of m * x in each of 8 lanes.
EA_AVX2 inline void mulhilo8(__m256i m, __m256i x, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(m, x);                                               // lanes 0, 2, 4, 6
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(m, 32), _mm256_srli_epi64(x, 32));  // lanes 1, 3, 5, 7
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xaa);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xaa);
}

// The 32-bit lanes of a and b interleaved: a's low halves in the even lanes, b's in the odd.
EA_AVX2 inline __m256i interleave_low(__m256i a, __m256i b) {
  return _mm256_blend_epi32(a, _mm256_slli_epi64(b, 32), 0xaa);
}

// Writes blocks 0..7 (32-bit lanes of x0..x3) as 32 words in stream order: block k's words
// x0[k], x1[k], x2[k], x3[k] are out[4k .. 4k+3].
EA_AVX2 inline void store_transposed(__m256i x0, __m256i x1, __m256i x2, __m256i x3, uint32_t* out) {
  const __m256i a = _mm256_unpacklo_epi32(x0, x1);  // b0: x0 x1, b1: x0 x1 | b4, b5
  const __m256i b = _mm256_unpackhi_epi32(x0, x1);  // b2, b3 | b6, b7
  const __m256i c = _mm256_unpacklo_epi32(x2, x3);
  const __m256i d = _mm256_unpackhi_epi32(x2, x3);
  const __m256i q0 = _mm256_unpacklo_epi64(a, c);  // b0 | b4
  const __m256i q1 = _mm256_unpackhi_epi64(a, c);  // b1 | b5
  const __m256i q2 = _mm256_unpacklo_epi64(b, d);  // b2 | b6
  const __m256i q3 = _mm256_unpackhi_epi64(b, d);  // b3 | b7
  __m256i* o = reinterpret_cast<__m256i*>(out);
  _mm256_storeu_si256(o, _mm256_permute2x128_si256(q0, q1, 0x20));
  _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(q2, q3, 0x20));
  _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(q0, q1, 0x31));
  _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(q2, q3, 0x31));
}

// Blocks first .. first+15, one per 64-bit lane of four groups (group g holds blocks
// 8 (g / 2) + (g % 2) + 2 t, t = 0..3), written as 64 words in stream order. Each word
// lives in the low half of its lane: _mm256_mul_epu32 reads only that half, so the high
// halves (whatever the xors leave there) are never cleared. rk0, rk1: the ten round keys.
// kFixedX1: counter word 1 is `x1` for every block (philox_counter_blocks), else the
// block number's high half.
template <bool kFixedX1 = false>
EA_AVX2 inline void philox_sixteen(const __m256i* rk0, const __m256i* rk1, uint64_t stream, uint64_t first,
                                   uint32_t* out, uint32_t fixed_x1 = 0) {
  constexpr int kGroups = 4;
  const __m256i m0 = _mm256_set1_epi64x(kM0), m1 = _mm256_set1_epi64x(kM1);
  __m256i x0[kGroups], x1[kGroups], x2[kGroups], x3[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    const int64_t o = 8 * (g / 2) + (g % 2);
    const __m256i b =
        _mm256_add_epi64(_mm256_set1_epi64x(static_cast<int64_t>(first)), _mm256_setr_epi64x(o, o + 2, o + 4, o + 6));
    x0[g] = b;
    x1[g] = kFixedX1 ? _mm256_set1_epi64x(fixed_x1) : _mm256_srli_epi64(b, 32);
    x2[g] = _mm256_set1_epi64x(static_cast<int64_t>(stream));
    x3[g] = _mm256_srli_epi64(x2[g], 32);
  }
  for (int r = 0; r < 10; ++r) {
    for (int g = 0; g < kGroups; ++g) {
      const __m256i p0 = _mm256_mul_epu32(x0[g], m0);
      const __m256i p1 = _mm256_mul_epu32(x2[g], m1);
      x0[g] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), x1[g]), rk0[r]);
      x2[g] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), x3[g]), rk1[r]);
      x1[g] = p1;
      x3[g] = p0;
    }
  }
  for (int h = 0; h < 2; ++h) {
    store_transposed(interleave_low(x0[2 * h], x0[2 * h + 1]), interleave_low(x1[2 * h], x1[2 * h + 1]),
                     interleave_low(x2[2 * h], x2[2 * h + 1]), interleave_low(x3[2 * h], x3[2 * h + 1]), out + 32 * h);
  }
}

// The ten round keys of `seed` in every lane.
EA_AVX2 inline void round_keys(uint64_t seed, __m256i* rk0, __m256i* rk1) {
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    rk0[r] = _mm256_set1_epi64x(k0);
    rk1[r] = _mm256_set1_epi64x(k1);
    k0 += kW0;
    k1 += kW1;
  }
}

EA_AVX2 void philox_counter_blocks_avx2(uint64_t seed, uint32_t x1, uint64_t x23, uint32_t first, uint32_t blocks,
                                        uint32_t* out) {
  __m256i rk0[10], rk1[10];
  round_keys(seed, rk0, rk1);
  uint32_t done = 0;
  for (; done + 16 <= blocks; done += 16) philox_sixteen<true>(rk0, rk1, x23, first + done, out + 4 * done, x1);
  for (; done < blocks; ++done) philox_one_counter(seed, first + done, x1, x23, out + 4 * done);
}

EA_AVX2 void philox_blocks_avx2(uint64_t seed, uint64_t stream, uint64_t first, uint32_t blocks, uint32_t* out) {
  __m256i rk0[10], rk1[10];
  round_keys(seed, rk0, rk1);
  uint32_t done = 0;
  for (; done + 16 <= blocks; done += 16) philox_sixteen(rk0, rk1, stream, first + done, out + 4 * done);
  for (; done < blocks; ++done) philox_one(seed, stream, first + done, out + 4 * done);
}

// See philox_draw_eights(). Lane l of a group draws on [0, top - l]: s = top - l + 1, and
// the word w is taken as (w s) >> 32 unless the low half of w s is below s (where Lemire's
// method may reject it: the group is left to the one-at-a-time draws).
EA_AVX2 size_t draw_eights_avx2(const uint32_t* words, uint32_t words_size, uint32_t& idx, uint32_t* t, size_t m,
                                uint32_t top) {
  const __m256i sign = _mm256_set1_epi32(INT32_MIN);
  __m256i s =
      _mm256_sub_epi32(_mm256_set1_epi32(static_cast<int>(top + 1u)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256i eight = _mm256_set1_epi32(8);
  size_t k = 0;
  uint32_t i = idx;
  for (; k + 8 <= m && i + 8 <= words_size; k += 8, i += 8) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + i));
    __m256i hi, lo;
    mulhilo8(s, w, hi, lo);
    // lo < s (unsigned) in any lane: leave this group.
    const __m256i below = _mm256_cmpgt_epi32(_mm256_xor_si256(s, sign), _mm256_xor_si256(lo, sign));
    if (!_mm256_testz_si256(below, below)) break;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t + k), hi);
    s = _mm256_sub_epi32(s, eight);
  }
  idx = i;
  return k;
}

}  // namespace

size_t philox_draw_eights(const uint32_t* words, uint32_t words_size, uint32_t& idx, uint32_t* t, size_t m,
                          uint32_t top) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2 ? draw_eights_avx2(words, words_size, idx, t, m, top) : 0;
}

void philox_counter_blocks(uint64_t seed, uint32_t x1, uint64_t x23, uint32_t first, uint32_t blocks, uint32_t* out) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) {
    philox_counter_blocks_avx2(seed, x1, x23, first, blocks, out);
    return;
  }
  for (uint32_t done = 0; done < blocks; ++done) philox_one_counter(seed, first + done, x1, x23, out + 4 * done);
}

void philox_blocks(uint64_t seed, uint64_t stream, uint64_t first, uint32_t blocks, uint32_t* out) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) {
    philox_blocks_avx2(seed, stream, first, blocks, out);
    return;
  }
  for (uint32_t done = 0; done < blocks; ++done) philox_one(seed, stream, first + done, out + 4 * done);
}

}  // namespace ea

#undef EA_AVX2  // (this source's alone: a unity batch compiles several sources as one)
