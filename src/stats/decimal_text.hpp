// The compression test's text (SP 800-90B 5.1.11): each sample value in decimal, no
// leading zeros, separated by single spaces, no trailing space. The one implementation,
// used by libbz2's input on the host (stats/compression.cpp), the host model and the GPU
// kernels (cuda/bzip2/text.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/hd.hpp"

namespace ea {

// Characters of value v (0-255) in decimal.
EA_HD inline uint32_t decimal_digits(uint32_t v) { return v >= 100 ? 3 : v >= 10 ? 2 : 1; }

// Writes v in decimal at out; returns the characters written (1-3).
EA_HD inline uint32_t write_decimal(uint32_t v, uint8_t* out) {
  uint32_t k = 0;
  if (v >= 100) out[k++] = static_cast<uint8_t>('0' + v / 100);
  if (v >= 10) out[k++] = static_cast<uint8_t>('0' + (v / 10) % 10);
  out[k++] = static_cast<uint8_t>('0' + v % 10);
  return k;
}

// Characters of sample i (of n) in the text: its digits and the separator after it.
EA_HD inline uint32_t sample_text_length(uint32_t v, size_t i, size_t n) {
  return decimal_digits(v) + (i + 1 < n ? 1 : 0);
}

// Length of the whole text of table[x[0]] .. table[x[n-1]].
inline uint64_t decimal_text_length(const uint8_t* x, size_t n, const uint8_t* table) {
  uint64_t len = 0;
  for (size_t i = 0; i < n; ++i) len += sample_text_length(table[x[i]], i, n);
  return len;
}

}  // namespace ea
