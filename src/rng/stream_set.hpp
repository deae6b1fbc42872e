// What a generator needs to make the word stream of permutation j on the host or in a
// kernel: the generator, the seed, and the start states prepared on the host for the
// generators whose streams come from jump-ahead (docs/prngs.md). The arrays are owned by a
// StreamSet (host) or by device buffers holding the same words.
#pragma once

#include <cstdint>

namespace ea {

enum class PrngId : uint8_t { Philox, Xoshiro256ss, Xorwow, Mrg31k3p, Mrg32k3a, CiXorlike, CiBbs, Sobol };
constexpr int kNumPrngs = 8;

// Generators whose lanes exchange outputs advance in lockstep groups of this many
// consecutive permutations (32g .. 32g + 31): one warp on the GPU.
constexpr uint32_t kLaneGroup = 32;
constexpr bool is_grouped(PrngId id) { return id == PrngId::CiXorlike || id == PrngId::CiBbs; }

struct StreamSetView {
  PrngId id = PrngId::Philox;
  uint64_t seed = 0;
  const uint32_t* states = nullptr;  // words_per_stream words for each stream j < count
  uint32_t words_per_stream = 0;
  uint64_t count = 0;                // streams prepared (jump-ahead generators)
  const uint32_t* aux = nullptr;     // generator constants (combination arrays, directions)
  uint32_t aux_words = 0;
};

}  // namespace ea
