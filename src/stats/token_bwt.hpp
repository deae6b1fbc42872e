// The Burrows-Wheeler transform of a block of decimal text by its numbers instead of its
// characters: the host reference of the GPU bzip2 model's planned transform (issue 48 item
// 2; docs/design.md, "The compression test on the GPU").
//
// A block is a cyclic string of digits and spaces. Its spaces cut it into tokens: token k
// is the digits after the k-th space up to the next one (the last token wraps around the
// block's end; a token may be empty). Every rotation starts at digit j of some token k, or
// at the space after it (j = its length): it reads T_k[j..] + ' ' + R_{k+1}, where R_u is
// the rotation of tokens from u on (T_u ' ' T_{u+1} ' ' ...). Since ' ' sorts below every
// digit, two rotations compare by their tails T_k[j..] as strings (a proper prefix first),
// then by R_{k+1}; and R's compare token by token in the same string order. So the block's
// sorted rotations are its token rotations sorted (a block of about 0.28 of its characters
// for 8-bit samples' text), then every character sorted stably on its tail in the token
// rotations' order. The character before rotation (k, j) is T_k[j-1], or the space before
// token k when j = 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ea::bz {

// The longest token handled: a number of 3 digits cut by the block's end joined to one of
// 3 at its start (decimal text of 8-bit values).
constexpr size_t kTokenDigits = 6;

// The transform of block[0..len) (decimal text: digits and ' '), equal to rotation_bwt's,
// by the steps the GPU is to take: tokens coded in 10 bits (2 x a number's rank among the
// block's inner numbers + 1; the wrapped token even where it is none of them), pass 0 on 5
// tokens' codes and prefix doubling over the token rotations, then every character keyed
// by its tail as 6 base-11 digits, emitted in the token rotations' order and sorted stably.
// Empty when the block has no space (one number), a token of more than kTokenDigits
// digits or more than 511 distinct numbers: the caller uses rotation_bwt.
std::vector<uint8_t> token_bwt(const uint8_t* block, size_t len);

}  // namespace ea::bz
