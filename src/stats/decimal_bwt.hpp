// The Burrows-Wheeler transform of a block of decimal text (the compression test's text:
// numbers of at most 3 digits separated by single spaces) by radix sorts of its numbers:
// the CPU's fast path of the bzip2 size model (issue 48; in place of libdivsufsort's suffix
// sort of the block written twice, the reference's). It takes token_bwt's formulation
// (stats/token_bwt.hpp): the block's cyclic rotations in order are its token rotations in
// order (the tokens compared as strings, a proper prefix first), then every character
// sorted stably on the digits left in its token. Here:
//  - tokens get codes in the string order of their digits (2 x rank among the block's
//    inner numbers + 1; the token that wraps around the block's end takes its place
//    between them), one code per token of the cyclic sequence;
//  - the token rotations are sorted by a least-significant-digit radix sort of 64-bit keys:
//    their first codes as the digits of a number below 2^44 (base: the codes' count; as many
//    codes as leave about one rotation in 32 s tied), then their index; then by prefix
//    doubling on the groups still tied (ranks of the previous round, Manber and Myers),
//    until every rotation is told apart or the doubling covers the sequence (equal
//    rotations give equal characters in either order);
//  - the characters go to their tails' slots by a counting sort, visited in the token
//    rotations' order.
// The output equals rotation_bwt's (tests/unit/test_bzip2_model.cpp pins it on cut decimal
// text of every width, periodic blocks and tiny ones).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ea::bz {

class DecimalBwt {
 public:
  // Writes the transform of block[0..len) to out[0..len) and returns true; returns false
  // (out unspecified) when the block is not such text: a byte other than a digit or a
  // space, fewer than 2 spaces, an inner token of more than 3 digits or a wrapped one of
  // more than 6, or 2^20 tokens or more. The caller then uses rotation_bwt.
  bool transform(const uint8_t* block, size_t len, uint8_t* out);

  // The same from the block's tokens, for a caller that knows them (Bzip2SizeModel, from the
  // samples): count >= 1 inner tokens by their 3-digit codes (base 11, a digit d as d + 1,
  // left-aligned, 0-padded: code_of3) in block order, then the wrapped token's digits
  // (characters '0'-'9', at most 6). The block is those tokens with a space after each.
  // False (out unspecified) from 2^20 tokens on.
  bool transform_tokens(const uint16_t* numbers, size_t count, const uint8_t* wrapped, uint32_t wrapped_len,
                        uint8_t* out);

  // The 3-digit code of digits[0..len) (len <= 3).
  static uint16_t code_of3(const uint8_t* digits, uint32_t len);

  // A rotation's sort key: its first per_key_ codes in kKeyBits, its index in kIndexBits.
  static constexpr uint32_t kKeyBits = 44, kIndexBits = 20;

 private:
  bool read_tokens(const uint8_t* block, size_t len);
  void set_wrapped(const uint8_t* wrapped, uint32_t wrapped_len);
  void assign_codes();
  void sort_rotations();
  void refine_ties(size_t h);
  void sort_group_keys();
  void emit(uint8_t* out);

  // A token's rotations: each one's tail slot and the character before it (j = 0..len).
  struct Tails {
    uint16_t slot[7];
    uint8_t before[7];
    uint8_t len;
  };

  // The block's tokens: the inner ones (k < s - 1) by their 3-digit codes (base 11, a digit
  // d as d + 1, padded with 0) and lengths; the wrapped one (k = s - 1) by its digits.
  std::vector<uint32_t> spaces_;
  std::vector<uint16_t> own_numbers_;  // read_tokens' inner tokens
  const uint16_t* number_ = nullptr;   // 3-digit code of inner token k
  uint8_t wrapped_[6] = {};
  uint32_t wrapped_len_ = 0;
  uint32_t wrapped_code6_ = 0;  // its 6-digit code
  uint32_t count3_[1331] = {};  // inner tokens by 3-digit code
  uint32_t rank_code_[1331] = {};
  // The cyclic code sequence, its digits (t codes each) and the sort's state.
  std::vector<uint32_t> code_;  // s + per_key_ entries: code_[i] = code of token i mod s
  std::vector<uint32_t> order_, rank_, rank_prev_, count_;
  std::vector<uint64_t> keys_, sorted_;
  std::vector<std::pair<uint32_t, uint32_t>> groups_, next_groups_;
  std::vector<Tails> tails_;      // by 3-digit code
  std::vector<uint32_t> next_;    // each tail slot's next place in the output
  std::vector<uint16_t> before_;  // the token before each sorted rotation (its 3-digit code; 1331: the wrapped one)
  uint32_t base_ = 0, per_key_ = 1;
  size_t s_ = 0;
};

}  // namespace ea::bz
