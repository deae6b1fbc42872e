// A chaotic-iteration lane of src/rng/generators.hpp driven by a warp (device code only).
#pragma once

#include <cstdint>

#include "rng/bounded.hpp"

namespace ea {

// A chaotic-iteration lane (src/rng/generators.hpp) in a warp: the 32 lanes of the group
// step together and read each other's published words with warp shuffles; a rejected
// draw makes the whole warp step again (the rule LaneGroup emulates on the host).
template <class Lane>
struct WarpLaneStream {
  Lane lane;
  __device__ __forceinline__ uint32_t step() {
    const uint32_t q = lane.begin();
    const uint32_t a = __shfl_sync(0xffffffffu, q, lane.o1);
    const uint32_t b = __shfl_sync(0xffffffffu, q, lane.o2);
    return lane.finish(a, b);
  }
  __device__ __forceinline__ uint32_t bounded(uint32_t i) {
    const uint32_t s = i + 1u;
    uint64_t m = static_cast<uint64_t>(step()) * s;
    uint32_t threshold = 0;
    bool reject = false;
    if (static_cast<uint32_t>(m) < s) {
      threshold = (0u - s) % s;
      reject = static_cast<uint32_t>(m) < threshold;
    }
    while (__any_sync(0xffffffffu, reject)) {
      const uint32_t w = step();
      if (reject) {
        m = static_cast<uint64_t>(w) * s;
        reject = static_cast<uint32_t>(m) < threshold;
      }
    }
    return static_cast<uint32_t>(m >> 32);
  }
  // One attempt of bounded() from one step, without its rejection loop (rng/bounded.hpp,
  // bounded_attempt): draw_targets_kernel takes eight at a time, and where any lane's word
  // might be rejected every lane restores its state and the warp draws the eight by
  // bounded() (so the group steps exactly as it would have).
  __device__ __forceinline__ uint32_t attempt(uint32_t i, bool& maybe) { return bounded_attempt(step(), i, maybe); }
};

}  // namespace ea
