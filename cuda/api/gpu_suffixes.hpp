// The LCPs of a text's sorted suffixes on a GPU (cuda/suffix_lcps.cu), for the t-tuple and
// LRS estimates (src/estimators/non_iid.hpp: SuffixLcps, tuple_counts_from_lcps), as the
// layers above see it: no CUDA type. Defined by cuda/suffix_lcps.cu when CUDA is built,
// otherwise by cuda/gpu_unavailable.cpp (which throws Error{Device}).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "estimators/non_iid.hpp"

namespace ea {

// The suffixes of s[0 .. n) (symbols of at most 8 bits) sorted on GPU gpu_id by prefix
// doubling, and the LCP of each with the one before it, equal to suffix_lcps(s, n) (the
// reference: libdivsufsort). Nullopt where the device memory is short, n < 2 or n >= 2^32 - 1
// (the caller counts on the CPU). n must be below 2^31 (CUB's counts are int): the caller
// checks that (DeviceSlot::count_sources does). Throws Error{Device} (no usable GPU, a CUDA
// failure: with --device gpu an error, as for the permutation tests) or Error{Interrupted}
// (`interrupt`, looked at between passes).
std::optional<SuffixLcps> gpu_suffix_lcps(const uint8_t* s, size_t n, int gpu_id, Interrupt interrupt = nullptr);

}  // namespace ea
