#include "stats/suffix_array.hpp"

#include <divsufsort.h>

#include <algorithm>
#include <cstdint>

#include "common/error.hpp"

namespace ea {

SuffixArrays suffix_arrays(const uint8_t* s, size_t n) {
  SuffixArrays a;
  if (n > static_cast<size_t>(INT32_MAX)) {
    throw Error(ErrorKind::Input, "too many samples for the suffix array (at most 2^31 - 1)");
  }
  if (n == 0) return a;
  static_assert(sizeof(saidx_t) == sizeof(int32_t), "libdivsufsort with 32-bit indexes");
  a.sa.resize(n);
  if (divsufsort(s, reinterpret_cast<saidx_t*>(a.sa.data()), static_cast<saidx_t>(n)) != 0) {
    throw Error(ErrorKind::Internal, "divsufsort failed");
  }
  // Φ[i]: the suffix before suffix i in sorted order (-1 for the smallest); then, in text
  // order, each LCP starts at most one below the previous one (the Kasai argument).
  std::vector<int32_t>& phi = a.plcp;
  phi.resize(n);
  phi[static_cast<size_t>(a.sa[0])] = -1;
  for (size_t r = 1; r < n; ++r) phi[static_cast<size_t>(a.sa[r])] = a.sa[r - 1];
  size_t h = 0;
  for (size_t i = 0; i < n; ++i) {
    if (phi[i] < 0) {
      phi[i] = 0;
      h = 0;
      continue;
    }
    const size_t j = static_cast<size_t>(phi[i]);
    while (i + h < n && j + h < n && s[i + h] == s[j + h]) ++h;
    phi[i] = static_cast<int32_t>(h);
    if (h > 0) --h;
  }
  return a;
}

uint64_t longest_repeat_length(const std::vector<uint8_t>& s) {
  if (s.size() < 2) return 0;
  const SuffixArrays a = suffix_arrays(s.data(), s.size());
  return static_cast<uint64_t>(*std::max_element(a.plcp.begin(), a.plcp.end()));
}

}  // namespace ea
