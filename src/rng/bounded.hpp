// Unbiased integers in [0, i] for the Fisher-Yates draws, one exact method per output kind
// of generator (docs/prngs.md). Every method rejects the few biased outputs and redraws,
// consuming further outputs of the stream; nothing is skipped or realigned.
#pragma once

#include <cstdint>

#include "common/hd.hpp"

namespace ea {

// Lemire's nearly divisionless method (D. Lemire, "Fast random integer generation in an
// interval", ACM TOMACS 29(1), 2019; arXiv:1805.10941) on 32-bit words: exactly uniform on
// [0, i] (inclusive) for i < 2^32 - 1. Stream::next() returns a uniform 32-bit word.
template <class Stream>
EA_HD EA_FORCEINLINE uint32_t bounded_inclusive(Stream& rng, uint32_t i) {
  const uint32_t s = i + 1u;
  uint64_t m = static_cast<uint64_t>(rng.next()) * s;
  uint32_t low = static_cast<uint32_t>(m);
  if (low < s) {
    const uint32_t threshold = (0u - s) % s;
    while (low < threshold) {
      m = static_cast<uint64_t>(rng.next()) * s;
      low = static_cast<uint32_t>(m);
    }
  }
  return static_cast<uint32_t>(m >> 32);
}

// One word's part in bounded_inclusive(): the method accepts word v for the draw on [0, i]
// exactly when this returns true (low < s is only the fast path of low < threshold, and
// threshold < s), and every rejected word is followed by a fresh one for the same draw. So
// a draw consumes words until one is accepted, and words can be judged independently.
EA_HD EA_FORCEINLINE bool bounded_inclusive_accepts(uint32_t v, uint32_t i, uint32_t& result) {
  const uint32_t s = i + 1u;
  const uint64_t m = static_cast<uint64_t>(v) * s;
  const uint32_t low = static_cast<uint32_t>(m);
  if (low < s && low < (0u - s) % s) return false;
  result = static_cast<uint32_t>(m >> 32);
  return true;
}

// One attempt of the methods below from one word, without their rejection loop, for
// drawing several targets at once (cuda/shuffle_launch.cuh): the method's result whenever
// `maybe` is left alone, which is whenever the word's low part is at least s (the exact
// rejection test, low < threshold, needs low < s: threshold < s). When it sets `maybe`
// (the word might be rejected, probability below s / 2^32) the caller restores the stream
// and draws these targets with the exact method.
EA_HD EA_FORCEINLINE uint32_t bounded_attempt(uint32_t v, uint32_t i, bool& maybe) {
  const uint32_t s = i + 1u;
  const uint64_t m = static_cast<uint64_t>(v) * s;
  maybe |= static_cast<uint32_t>(m) < s;
  return static_cast<uint32_t>(m >> 32);
}

// The same method on 64-bit words (NIST's randomRange64): Stream::next64() returns a
// uniform 64-bit word; i < 2^32 here, so the result fits 32 bits.
EA_HD EA_FORCEINLINE void mul64x64(uint64_t a, uint64_t b, uint64_t& hi, uint64_t& lo) {
#if defined(__CUDA_ARCH__)
  hi = __umul64hi(a, b);
  lo = a * b;
#else
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  hi = static_cast<uint64_t>(p >> 64);
  lo = static_cast<uint64_t>(p);
#endif
}

template <class Stream>
EA_HD EA_FORCEINLINE uint32_t bounded_inclusive64(Stream& rng, uint32_t i) {
  const uint64_t s = static_cast<uint64_t>(i) + 1u;
  uint64_t hi, lo;
  mul64x64(rng.next64(), s, hi, lo);
  if (lo < s) {
    const uint64_t threshold = (0ULL - s) % s;
    while (lo < threshold) mul64x64(rng.next64(), s, hi, lo);
  }
  return static_cast<uint32_t>(hi);
}

// bounded_attempt() for bounded_inclusive64().
EA_HD EA_FORCEINLINE uint32_t bounded_attempt64(uint64_t v, uint32_t i, bool& maybe) {
  const uint64_t s = static_cast<uint64_t>(i) + 1u;
  uint64_t hi, lo;
  mul64x64(v, s, hi, lo);
  maybe |= lo < s;
  return static_cast<uint32_t>(hi);
}

// Lemire's method generalised to a source uniform on [0, R) with R not a power of two (the
// MRGs: u = z - 1 with z in [1, m1], R = m1). With m = u * s, q = floor(m / R) and
// l = m mod R, the draw q is accepted unless l < R mod s; exactly R - (R mod s) values of u
// are accepted and each result takes floor(R / s) of them. Stream::next_below() returns u.
template <uint64_t R, class Stream>
EA_HD EA_FORCEINLINE uint32_t bounded_inclusive_mod(Stream& rng, uint32_t i) {
  static_assert(R > 1 && R <= (1ULL << 32), "range of the source out of bounds");
  const uint64_t s = static_cast<uint64_t>(i) + 1u;
  uint64_t m = static_cast<uint64_t>(rng.next_below()) * s;
  uint64_t q = m / R, l = m - q * R;
  if (l < s) {
    const uint64_t threshold = R % s;
    while (l < threshold) {
      m = static_cast<uint64_t>(rng.next_below()) * s;
      q = m / R;
      l = m - q * R;
    }
  }
  return static_cast<uint32_t>(q);
}

// bounded_attempt() for bounded_inclusive_mod<R>() (u uniform on [0, R); threshold = R mod s < s).
template <uint64_t R>
EA_HD EA_FORCEINLINE uint32_t bounded_attempt_mod(uint32_t u, uint32_t i, bool& maybe) {
  const uint64_t s = static_cast<uint64_t>(i) + 1u;
  const uint64_t m = static_cast<uint64_t>(u) * s;
  const uint64_t q = m / R, l = m - q * R;
  maybe |= l < s;
  return static_cast<uint32_t>(q);
}

}  // namespace ea
