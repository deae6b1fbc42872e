// Step 3 of the GPU bzip2 size model: the Burrows-Wheeler transform of every block of a
// round at once, by prefix doubling over cyclic rotations of numbers (cuda/bzip2/tokens.cu)
// or of characters (cuda/bzip2/bwt.cu).
#pragma once

#include <vector>

#include "bzip2/common.cuh"

namespace ea::gpubz {

// The places of a text's spaces are selected by this predicate (tokens.cu).
struct IsSpace {
  const uint8_t* text;
  __device__ bool operator()(uint32_t i) const { return text[i] == ' '; }
};

constexpr uint32_t kTailKeys = 1u << 13;  // the transform by numbers' keys of rests (tokens.cu)
constexpr uint32_t kWrapRests = 8;        // a block's rests beyond its numbers' (tokens.cu)
constexpr uint32_t kShortTokens = 1331;   // the digits codes of up to 3 digits, by code / 11^3 (tokens.cu)

// The numbers of a round's texts as bz::token_bwt codes them (kTokenDigits base-11 digits,
// digit d as d + 1, padded with 0), sorted, distinct: the transform by numbers codes each
// of a block's numbers by its place among them (2 x place + 1; the number that wraps around
// the block's end, 2 x the numbers below it where it is none of them).
constexpr uint32_t kMaxNumbers = 257;  // the 256 values' numbers and the empty one
struct Numbers {
  uint32_t code[kMaxNumbers];
  uint32_t count;
};

// Device memory of the transform of up to `total` characters (< 2^31) in up to `slots` blocks. allocate() is
// all or nothing for the caller: on false, the object is dropped and with it what it holds.
struct BwtWorkspace {
  cuda::DeviceBuffer<uint64_t> keys[2];
  cuda::DeviceBuffer<uint32_t> vals[2], rank, head_a, head_b, list, selected;
  cuda::DeviceBuffer<uint32_t> order0;  // pass 0's order, its tied rotations marked (rotation_sort.cuh)
  cuda::DeviceBuffer<uint8_t> flags, temp;
  // The transform by numbers (tokens.cu): each number's digits and code; each slot's first
  // number and its count.
  cuda::DeviceBuffer<uint32_t> tok_digits, tok_code, tok_begin, tok_len;
  // The final sort's classes of rests (tokens.cu's RestClasses): kTailKeys entries, and
  // kWrapRests a slot.
  cuda::DeviceBuffer<uint32_t> short_class, wrap_rests;
  // The token codes of the numbers of up to 3 digits (tokens.cu's short_tokens).
  cuda::DeviceBuffer<uint16_t> short_tokens;
  cuda::PinnedBuffer<uint16_t> host_short_tokens;
  cuda::PinnedBuffer<uint32_t> host_selected, host_lens, host_text_lens;
  // The last round's numbers and what they alone decide (tokens.cu's number_tables): the
  // short numbers' tokens and the classes of their rests on the device, the bits of a block's
  // classes; kept while a round's numbers are the same.
  Numbers numbers{};
  bool numbers_kept = false;
  int class_bits = 0;
  uint32_t by_characters = 0;  // rounds bwt_blocks sorted by characters though given numbers
  bool allocate(uint32_t total, uint32_t slots);
};

// From the values (0-255) present in the samples.
Numbers numbers_of_values(const bool (&present)[256]);
// From decimal text: false where a number has more than 3 digits or there are more than kMaxNumbers
// distinct ones (the transform then sorts characters).
bool numbers_of_text(const std::vector<uint8_t>& text, Numbers& numbers);

// The transform by numbers (tokens.cu; bz::token_bwt's steps) of every block of `t`, into
// `last` as bwt_blocks; false, with nothing written, where a used block has no space or
// there are more than 2^19 slots (bwt_blocks then sorts characters). `tied`: rotations of
// numbers tied at the end (identical).
bool token_transform(const uint8_t* text, uint32_t total, const BlockTable& t, uint32_t slots, const Numbers& numbers,
                     BwtWorkspace& ws, uint8_t* last, cudaStream_t st, StageTimer& timer, uint32_t& tied);

// The characters a round's texts use, numbered in sort order: pass 0's keys hold the first
// characters of a rotation as digits in base `radix` (decimal text of 1-bit samples uses 3
// characters, of wider samples up to 11).
struct CharCodes {
  uint8_t code[256];
  uint32_t radix;
};
CharCodes char_codes(const bool (&used)[256]);

// last[i] = the character before the i-th smallest rotation of its block, for the blocks of
// `t` (slots 0 .. slots-1; blocks in slot order, each block's rotations at its own
// positions), whose characters are all among `codes`; by numbers (token_transform) where
// `numbers` holds every number of the texts, else by characters. Rotations still tied when the
// doubling reaches the longest block are identical (periodic blocks) and are ordered by
// position: any order gives the same transform. Marks stages 3, 4 and 5 of `timer`.
// Returns the number of tied rotations.
uint32_t bwt_blocks(const uint8_t* text, uint32_t total, const BlockTable& t, uint32_t slots, const CharCodes& codes,
                    const Numbers* numbers, BwtWorkspace& ws, uint8_t* last, cudaStream_t st, StageTimer& timer);

}  // namespace ea::gpubz
