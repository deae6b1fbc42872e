// Several backends on one phase's permutations, each taking the next piece of work as soon as
// it is free: a GPU beside the CPU cores, for the compression test of a run without early
// exit (full counts), where the cores would otherwise wait for the GPU. Unlike
// make_split_backend's rounds, no part waits for another: a part takes a piece of its own
// round size (near the end, its share of what is left by the parts' measured rates), and the
// pieces reach the sink in order of permutation index. Permutation j is still computed from
// (prng, seed, j) alone, so the counters equal those of any single backend.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "permutation/permutation.hpp"

namespace ea {

// `parts` must outlive the result and must not be used elsewhere while it runs. name() joins
// the parts' names with " + "; busy_seconds() is the busiest part's.
std::unique_ptr<PermutationBackend> make_shared_backend(std::vector<PermutationBackend*> parts);

// The next piece of a part whose round is `round` permutations, with `left` permutations not
// yet taken: its round (at least 1), but no more than its share of what is left where its
// rate (permutations a second of its own time; 0: not measured yet) is below `total_rate`,
// the measured parts' rates summed; never 0 while left > 0.
uint32_t shared_piece(uint32_t round, uint32_t left, double rate, double total_rate);

}  // namespace ea
