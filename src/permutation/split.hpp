// Several backends as one: each round of permutations is cut into contiguous pieces, one
// per part, computed at the same time (one thread per part) and handed on in order of
// permutation index. Used for one assessment on several GPUs (--gpu 0,1 or --gpu 0,0).
// Permutation j is still computed from (prng, seed, j) alone, so the counters equal those of
// any single backend.
#pragma once

#include <memory>
#include <vector>

#include "permutation/permutation.hpp"

namespace ea {

// `parts` must outlive the result and must not be used elsewhere while it runs. A round's
// size is the sum of the parts' round sizes; each part gets a piece proportional to its
// own round size (at most that). name() is "N <noun>: " and the parts' names joined with
// " + " (noun: "devices", or "lanes" for several backends on each GPU).
std::unique_ptr<PermutationBackend> make_split_backend(std::vector<PermutationBackend*> parts,
                                                       const char* noun = "devices");

// The pieces of `count` permutations for parts whose full rounds are `capacity`: contiguous,
// in part order, proportional to capacity, none larger than its part's capacity. Throws
// Error{Internal} when count exceeds the sum of the capacities.
std::vector<uint32_t> split_round(uint32_t count, const std::vector<uint32_t>& capacity);

}  // namespace ea
