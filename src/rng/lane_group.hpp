// The host's emulation of a warp of chaotic-iteration lanes (CiXorLane, CiBbsLane): the
// kLaneGroup permutations 32g .. 32g+31 advance in lockstep, one group step per draw, as
// the kernel's warp does with shuffles (cuda/gpu_backend.cu). The rule for a rejected
// Lemire draw (docs/prngs.md): while any lane rejected, the whole group steps again and
// only the lanes that rejected use their new word.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rng/generators.hpp"

namespace ea {

template <class Lane>
class LaneGroup {
 public:
  LaneGroup(const StreamSetView& v, uint64_t group) {
    for (uint32_t k = 0; k < kLaneGroup; ++k) lanes_[k] = Lane::make(v, group * kLaneGroup + k);
  }

  // One group step: every lane's output word.
  void step(uint32_t out[kLaneGroup]) {
    uint32_t q[kLaneGroup];
    for (uint32_t k = 0; k < kLaneGroup; ++k) q[k] = lanes_[k].begin();
    for (uint32_t k = 0; k < kLaneGroup; ++k) out[k] = lanes_[k].finish(q[lanes_[k].o1], q[lanes_[k].o2]);
  }

  // Every lane's uniform draw on [0, i] (32-bit Lemire with the group's rejection rule).
  void bounded(uint32_t i, uint32_t out[kLaneGroup]) {
    const uint32_t s = i + 1u;
    const uint32_t threshold = (0u - s) % s;
    uint32_t w[kLaneGroup];
    uint64_t m[kLaneGroup];
    bool reject[kLaneGroup];
    bool any = false;
    step(w);
    for (uint32_t k = 0; k < kLaneGroup; ++k) {
      m[k] = static_cast<uint64_t>(w[k]) * s;
      reject[k] = static_cast<uint32_t>(m[k]) < threshold;
      any = any || reject[k];
    }
    while (any) {
      step(w);
      any = false;
      for (uint32_t k = 0; k < kLaneGroup; ++k) {
        if (!reject[k]) continue;
        m[k] = static_cast<uint64_t>(w[k]) * s;
        reject[k] = static_cast<uint32_t>(m[k]) < threshold;
        any = any || reject[k];
      }
    }
    for (uint32_t k = 0; k < kLaneGroup; ++k) out[k] = static_cast<uint32_t>(m[k] >> 32);
  }

 private:
  Lane lanes_[kLaneGroup];
};

// Fisher-Yates of the group's kLaneGroup buffers of n bytes each (buffer k is permutation
// 32g + k), in lockstep.
template <class Lane>
void fisher_yates_group(uint8_t* const buffers[kLaneGroup], size_t n, LaneGroup<Lane>& group) {
  uint32_t r[kLaneGroup];
  for (size_t i = n; i-- > 1;) {
    group.bounded(static_cast<uint32_t>(i), r);
    for (uint32_t k = 0; k < kLaneGroup; ++k) {
      uint8_t* a = buffers[k];
      const uint8_t t = a[i];
      a[i] = a[r[k]];
      a[r[k]] = t;
    }
  }
}

}  // namespace ea
