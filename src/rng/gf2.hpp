// Matrices over GF(2) in columns, for the jumps of the GF(2)-linear generators (XORWOW's
// streams, src/rng/prng.cpp; xoshiro256ss's skip-ahead, src/rng/skip_ahead.hpp). Column c
// of a W-word matrix is W words: the image of bit c % 32 of word c / 32.
#pragma once

#include <cstdint>
#include <vector>

#include "common/hd.hpp"

namespace ea {

// v = M v.
template <int W>
EA_HD EA_FORCEINLINE void gf2_apply(const uint32_t* columns, uint32_t v[W]) {
  uint32_t r[W];
  for (int w = 0; w < W; ++w) r[w] = 0;
  for (int c = 0; c < 32 * W; ++c) {
    const uint32_t mask = 0u - ((v[c >> 5] >> (c & 31)) & 1u);
    const uint32_t* col = columns + c * W;
    for (int w = 0; w < W; ++w) r[w] ^= col[w] & mask;
  }
  for (int w = 0; w < W; ++w) v[w] = r[w];
}

// M^2 (host): column c of M^2 is M applied to column c of M.
template <int W>
inline std::vector<uint32_t> gf2_square(const std::vector<uint32_t>& m) {
  std::vector<uint32_t> sq(m.size());
  for (int c = 0; c < 32 * W; ++c) {
    uint32_t col[W];
    for (int w = 0; w < W; ++w) col[w] = m[c * W + w];
    gf2_apply<W>(m.data(), col);
    for (int w = 0; w < W; ++w) sq[c * W + w] = col[w];
  }
  return sq;
}

}  // namespace ea
