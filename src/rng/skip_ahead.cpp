#include "rng/skip_ahead.hpp"

namespace ea {

namespace {

// The table of a GF(2)-linear generator from the columns of its one-step matrix.
template <int W>
std::vector<uint32_t> gf2_table(std::vector<uint32_t> m) {
  std::vector<uint32_t> table;
  table.reserve(static_cast<size_t>(kSkipBits) * m.size());
  for (int b = 0; b < kSkipBits; ++b) {
    table.insert(table.end(), m.begin(), m.end());
    if (b + 1 < kSkipBits) m = gf2_square<W>(m);
  }
  return table;
}

std::vector<uint32_t> xoshiro_step_matrix() {
  std::vector<uint32_t> m(256 * 8);
  for (int c = 0; c < 256; ++c) {
    Xoshiro256ss g{};
    const int k = c / 64, bit = c % 64;
    g.s[k] = uint64_t{1} << bit;
    g.next64();
    for (int w = 0; w < 4; ++w) {
      m[c * 8 + 2 * w] = static_cast<uint32_t>(g.s[w]);
      m[c * 8 + 2 * w + 1] = static_cast<uint32_t>(g.s[w] >> 32);
    }
  }
  return m;
}

}  // namespace

const std::vector<uint32_t>& skip_table(PrngId id) {
  static const std::vector<uint32_t> none;
  if (id != PrngId::Xoshiro256ss) return none;
  static const std::vector<uint32_t> xoshiro = gf2_table<8>(xoshiro_step_matrix());  // (made once, thread-safe)
  return xoshiro;
}

}  // namespace ea
