// The MultiMMC and LZ78Y predictors' per-step states on bits, counted on a GPU
// (cuda/bit_predictors.cu), for the estimates' final arithmetic on the host
// (src/estimators/non_iid.hpp: MmcBitsSource, Lz78yBitsSource), as the layers above see
// them: no CUDA type. Defined by cuda/bit_predictors.cu when CUDA is built, otherwise by
// cuda/gpu_unavailable.cpp (which throws Error{Device}).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/interrupt.hpp"

namespace ea {

// MultiMMC (6.3.9) on n bits (bytes whose lowest bit is read), on GPU gpu_id: every order's
// `found` and `right` bits as multi_mmc_order_bits gives them (16 x ceil((n - 2) / 64) words
// each, order d at d x words; non_iid_mmc_bits.hpp). False where the device memory is short
// or n is outside [18, 2^31) (the caller counts on the CPU). Throws Error{Device} (no usable
// GPU, a CUDA failure) or Error{Interrupted} (`interrupt`, looked at between orders).
bool gpu_mmc_bit_states(const uint8_t* bits, size_t n, int gpu_id, std::vector<uint64_t>& found,
                        std::vector<uint64_t>& right, Interrupt interrupt = nullptr);

// LZ78Y (6.3.10) on n bits (bytes 0 or 1), on GPU gpu_id: bit t - 17 of `hits`
// (ceil((n - 17) / 64) words) set where the prediction of step t (17 .. n - 1) was made and
// right, as lz78y_estimate's dictionary makes them. False and throws as above.
bool gpu_lz78y_bit_hits(const uint8_t* bits, size_t n, int gpu_id, std::vector<uint64_t>& hits,
                        Interrupt interrupt = nullptr);

}  // namespace ea
