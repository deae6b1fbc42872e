// --select-bits auto[:B]: the search for the mask of a wide capture that keeps the most
// min-entropy per sample (docs/sample-formats.md says how it compares with Theseus'
// selectbits).
#pragma once

#include <cstdint>
#include <vector>

#include "io/sample_format.hpp"

namespace ea {

// The score of one mask, bits per sample: the lowest of three min-entropy estimates, each
// -log2 of the 99% upper confidence bound of a probability (as SP 800-90B's estimators):
// the packed symbols' most common value (6.3.1); a first-order predictor of them (the most
// common successor of the previous symbol, counted over the whole sequence: 6.3.9's MultiMMC
// with D = 1, global accuracy only); and the sum over the mask's bits of each bit's own
// predictability from its 8 previous values (a counter's bits, slowly changing bits: the
// first-order predictor alone would not see a bit whose period is longer than 2).
double mask_score(const std::vector<uint32_t>& values, uint32_t mask);

// The capture bits that carry information: those that vary, less every bit that always
// equals (or always differs from) a higher varying bit.
uint32_t active_bits(const std::vector<uint32_t>& values, uint32_t varying);

// Searches the masks of min(B, active bits) bits for the highest mask_score; ties go to
// the numerically smallest mask. Exhaustive (with a true bound: the lower of the first
// and third estimates is at least the score and cheap, so a mask whose bound is below the
// best is skipped) when there are at most kExhaustiveMasks candidates over at most 20 active
// bits, else greedy (add the best bit B times, then swap bits while the score rises).
// Deterministic for any `threads`.
constexpr uint64_t kExhaustiveMasks = 200000;
MaskSearch search_mask(const std::vector<uint32_t>& values, uint32_t varying, int bits, int threads = 1);

}  // namespace ea
