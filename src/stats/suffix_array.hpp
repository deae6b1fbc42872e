// The suffix array of a symbol sequence (libdivsufsort) and its longest-common-prefix array:
// one module for every string statistic that needs them (the LRS test now; the t-tuple and
// LRS estimates of the non-IID track next).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ea {

struct SuffixArrays {
  // sa[r]: the start of the suffix of rank r (suffixes in lexicographic order).
  std::vector<int32_t> sa;
  // plcp[i]: the length of the longest common prefix of the suffix starting at i and the
  // suffix just before it in sorted order (0 for the smallest suffix): the LCP array in text
  // order, so that LCP[r] = plcp[sa[r]]. Made in place of the Φ array (Kärkkäinen, Manzini,
  // Puglisi 2009): 8 bytes per symbol in all.
  std::vector<int32_t> plcp;
};

// Throws Error{Input} above 2^31 - 1 symbols, Error{Internal} if libdivsufsort fails.
SuffixArrays suffix_arrays(const uint8_t* s, size_t n);

// The length of the longest substring that occurs at least twice (overlaps allowed): the
// largest LCP value.
uint64_t longest_repeat_length(const std::vector<uint8_t>& s);

}  // namespace ea
