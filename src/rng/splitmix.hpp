// SplitMix64 (Steele, Lea & Flood 2014; Vigna's splitmix64.c): the seed expander of the
// generators that have no stream mechanism of their own (docs/prngs.md).
#pragma once

#include <cstdint>

#include "common/hd.hpp"

namespace ea {

// The SplitMix64 output finaliser.
EA_HD inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct SplitMix64 {
  uint64_t state;
  EA_HD uint64_t next() {
    state += 0x9e3779b97f4a7c15ULL;
    return mix64(state);
  }
  EA_HD uint32_t next32() { return static_cast<uint32_t>(next()); }  // the low half
};

// The SplitMix64 that seeds stream j under `seed` where a generator has no jump-ahead:
// it starts at mix64(seed ^ mix64(j)).
EA_HD inline SplitMix64 stream_seeder(uint64_t seed, uint64_t j) { return SplitMix64{mix64(seed ^ mix64(j))}; }

}  // namespace ea
