#include "rng/skip_ahead.hpp"

#include <array>
#include <mutex>

#include "rng/prng.hpp"

namespace ea {

namespace {

// Columns of M^2 from those of M (W words each): column c of M^2 is M applied to column c.
template <int W>
std::vector<uint32_t> gf2_square(const std::vector<uint32_t>& m) {
  std::vector<uint32_t> sq(m.size());
  for (int c = 0; c < 32 * W; ++c) {
    uint32_t col[W];
    for (int w = 0; w < W; ++w) col[w] = m[c * W + w];
    gf2_apply<W>(m.data(), col);
    for (int w = 0; w < W; ++w) sq[c * W + w] = col[w];
  }
  return sq;
}

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

std::vector<uint32_t> mrg_table(const Mat3& a1, uint64_t m1, const Mat3& a2, uint64_t m2) {
  std::vector<uint32_t> table;
  Mat3 p1 = a1, p2 = a2;
  for (int b = 0; b < kSkipBits; ++b) {
    for (const Mat3* p : {&p1, &p2})
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) table.push_back(static_cast<uint32_t>((*p)[i][k]));
    p1 = mat3_mul(p1, p1, m1);
    p2 = mat3_mul(p2, p2, m2);
  }
  return table;
}

std::vector<uint32_t> make_table(PrngId id) {
  switch (id) {
    case PrngId::Xoshiro256ss: return gf2_table<8>(xoshiro_step_matrix());
    case PrngId::Xorwow: return gf2_table<5>(xorwow_matrix_pow2(0));
    case PrngId::Mrg31k3p:
      return mrg_table(Mat3{{{0, 4194304, 129}, {1, 0, 0}, {0, 1, 0}}}, Mrg31k3p::kM1,
                       Mat3{{{32768, 0, 32769}, {1, 0, 0}, {0, 1, 0}}}, Mrg31k3p::kM2);
    case PrngId::Mrg32k3a:
      return mrg_table(Mat3{{{0, 1, 0}, {0, 0, 1}, {Mrg32k3a::kM1 - 810728, 1403580, 0}}}, Mrg32k3a::kM1,
                       Mat3{{{0, 1, 0}, {0, 0, 1}, {Mrg32k3a::kM2 - 1370589, 0, 527612}}}, Mrg32k3a::kM2);
    default: return {};
  }
}

}  // namespace

bool has_skip_ahead(PrngId id) {
  switch (id) {
    case PrngId::Xoshiro256ss:
    case PrngId::Xorwow:
    case PrngId::Mrg31k3p:
    case PrngId::Mrg32k3a:
    case PrngId::Sobol: return true;
    default: return false;
  }
}

const std::vector<uint32_t>& skip_table(PrngId id) {
  static std::array<std::vector<uint32_t>, kNumPrngs> tables;
  static std::array<std::once_flag, kNumPrngs> once;
  const size_t k = static_cast<size_t>(id);
  std::call_once(once[k], [&] { tables[k] = make_table(id); });
  return tables[k];
}

}  // namespace ea
