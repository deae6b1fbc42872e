// --verify: a backend that recomputes some of another backend's permutations on the CPU
// and throws Error{Device} on the first difference.
#pragma once

#include <memory>

#include "permutation/permutation.hpp"

namespace ea {

// Checks `per_round` permutations of every round of `device` (the first, the last and
// evenly spaced ones) against `cpu`.
std::unique_ptr<PermutationBackend> make_verifying_backend(PermutationBackend& device, PermutationBackend& cpu,
                                                           uint32_t per_round);

}  // namespace ea
