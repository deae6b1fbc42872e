// Unbiased integers in [0, i] from a stream of 32-bit words.
#pragma once

#include <cstdint>

#include "common/hd.hpp"

namespace ea {

// Lemire's nearly divisionless method (D. Lemire, "Fast random integer generation in an
// interval", ACM TOMACS 29(1), 2019; arXiv:1805.10941). Exactly uniform on [0, i]
// (inclusive) for i < 2^32 - 1: the rare low products below (2^32 - s) mod s are rejected
// and redrawn, consuming further words of the stream.
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

}  // namespace ea
