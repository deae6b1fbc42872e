// LZ78Y (SP 800-90B 6.3.10) on bits step by step, as NIST ea_non_iid 1.1.8's loop runs it:
// contexts of lengths 1-16 added while the dictionary holds fewer than 65,536 (all 16 at
// step 16), the longest context with the most frequent next bit predicting (ties to 1, and
// among contexts to the longer). The hits it gives, bit t - 17 for step t (17 .. n - 1), are
// what cuda/bit_predictors.cu's gpu_lz78y_bit_hits and the unit test's model of it must give,
// hit for hit (tests/unit/test_bit_predictors.cpp, tests/gpu/test_gpu_predictors.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace ea::test {

inline std::vector<uint64_t> lz78y_bits_reference_hits(const std::vector<uint8_t>& s) {
  const size_t n = s.size();
  std::vector<uint64_t> hits(n > 17 ? (n - 17 + 63) / 64 : 0, 0);
  if (n < 18) return hits;
  std::array<std::vector<std::array<uint32_t, 2>>, 17> dict;  // [length][context] = counts of 0, 1
  for (size_t m = 1; m <= 16; ++m) dict[m].assign(size_t{1} << m, {0, 0});
  auto context = [&s](size_t t, size_t m) {
    uint32_t c = 0;
    for (size_t i = t - m; i < t; ++i) c = (c << 1) | (s[i] & 1u);
    return c;
  };
  size_t size = 0;
  for (size_t t = 16; t < n; ++t) {
    const uint32_t y = s[t] & 1u;
    uint32_t most = 0;
    int prediction = -1;
    for (size_t m = 16; m >= 1; --m) {
      std::array<uint32_t, 2>& c = dict[m][context(t, m)];
      if (c[0] + c[1] != 0) {
        const uint32_t best = c[0] > c[1] ? 0 : 1, count = c[best];
        if (count > most) {
          most = count;
          prediction = static_cast<int>(best);
        }
        ++c[y];
      } else if (size < 65536) {
        c[y] = 1;
        ++size;
      }
    }
    if (t >= 17 && prediction == static_cast<int>(s[t])) hits[(t - 17) / 64] |= uint64_t{1} << ((t - 17) % 64);
  }
  return hits;
}

}  // namespace ea::test
