// The GPU Burrows-Wheeler transform alone (cuda/bzip2/bwt.cu), for tests: the blocks of
// `text` (decimal text: ' ' and digits; consecutive, of the given positive lengths) each
// transformed as bzip2 does (cyclic rotations sorted, the character before each), the
// results back to back. Only in CUDA builds. Throws Error{Usage} for other input,
// Error{Device} without a GPU.
#pragma once

#include <cstdint>
#include <vector>

namespace ea {

// by_numbers (when given): whether the transform by numbers (cuda/bzip2/tokens.cu) made it,
// rather than the sort of characters.
std::vector<uint8_t> gpu_bwt(const std::vector<uint8_t>& text, const std::vector<uint32_t>& block_lengths,
                             int gpu_id = 0, bool* by_numbers = nullptr);

}  // namespace ea
