// The compression statistic (SP 800-90B 5.1.11) on the CPU by the bzip2 size model: the
// length of libbz2's output for the samples' decimal text (block size 5), computed without
// compressing and without writing the text:
//  - the blocks' cuts and tokens come from the samples (a number's digits and the space
//    after it), each block's transform from DecimalBwt (radix sorts of its numbers);
//  - move-to-front by each symbol's last use (mtf_places: 16 lanes compared at once), the
//    model's zero-run coding, and the Huffman tables chosen from each group's counts of
//    its values (block_bits_grouped) instead of its 50 values, 4 times.
// Each step is pinned to the reference formulation by tests/unit/test_bzip2_model.cpp, and
// the whole to libbz2's lengths (Compressor). The CPU backend uses it for the permutations
// once its length of the original data equals libbz2's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "stats/bzip2_model.hpp"
#include "stats/decimal_bwt.hpp"

namespace ea {

namespace bz {

// Move-to-front places of last[0..len) (seq_of: byte -> index, n_in_use <= 16) from the
// identity list: packed_places' output. A symbol's place is the number of symbols used
// since its last use (symbols never used yet rank in their index order behind them).
void mtf_places(const uint8_t* last, int32_t len, const uint8_t* seq_of, int n_in_use, uint8_t* places);

// block_bits_from_mtf's value (alpha = n_in_use + 2 <= 32) from each group's counts of its
// values: a group's cost under every table is one sum of counts x packed lengths.
struct GroupScratch {
  std::vector<uint8_t> counts;  // counts[g * 32 + v]: group g's values v
  std::vector<uint8_t> selectors;
  TableState tables;
};
uint64_t block_bits_grouped(const uint16_t* mtfv, int32_t n_mtf, const int32_t* freq, int n_in_use, int ranges_in_use,
                            GroupScratch& scratch);

}  // namespace bz

class Bzip2SizeModel {
 public:
  // Compressor::compressed_length's value for the same arguments.
  uint64_t compressed_length(const uint8_t* symbols, size_t n, const uint8_t* table);

 private:
  struct Number {
    uint8_t len;       // digits
    uint8_t digit[3];  // characters
    uint16_t code3;    // DecimalBwt::code_of3
    uint16_t used;     // bit d: digit d occurs
  };
  // Samples i at text offset o walked forward: sample i's digits are [o, o + len), its space at o + len.
  struct Cursor {
    size_t i = 0;
    uint64_t o = 0;
  };
  uint64_t block_end(uint64_t begin, uint64_t text_len);
  char char_at(Cursor& c, uint64_t q) const;
  uint64_t block_bits(uint64_t begin, uint64_t end);
  uint64_t small_block_bits(uint64_t begin, uint64_t end);
  uint64_t transform_bits(size_t len, uint16_t digits_used);

  const uint8_t* symbols_ = nullptr;
  size_t n_ = 0;
  Number number_[256];
  Cursor cut_, tokens_at_;
  std::vector<uint16_t> tokens_;
  std::vector<uint8_t> last_, places_, small_;
  std::vector<uint16_t> mtfv_;
  bz::DecimalBwt bwt_;
  bz::GroupScratch groups_;
};

}  // namespace ea
