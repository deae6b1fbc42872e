// Fisher-Yates shuffle (SP 800-90B section 5.1): for i = n-1 down to 1, draw j uniform on
// [0, i] *inclusive* and swap. Drawing on [0, i) instead would give Sattolo's algorithm,
// which produces only cyclic permutations (the defect of Kim & Yeom's GPU code).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/hd.hpp"
#include "rng/bounded.hpp"

namespace ea {

// Shuffles a[0], a[stride], ..., a[(n-1)*stride] in place. n must be below 2^32.
template <class Stream>
EA_HD void fisher_yates(uint8_t* a, size_t n, size_t stride, Stream& rng) {
  for (size_t i = n; i-- > 1;) {
    size_t j = bounded_inclusive(rng, static_cast<uint32_t>(i));
    uint8_t t = a[i * stride];
    a[i * stride] = a[j * stride];
    a[j * stride] = t;
  }
}

}  // namespace ea
