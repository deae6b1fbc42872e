// Step 3 of the GPU bzip2 size model: the Burrows-Wheeler transform of every block of a
// round at once, by prefix doubling over cyclic rotations (cuda/bzip2/bwt.cu).
#pragma once

#include "bzip2/common.cuh"

namespace ea::gpubz {

// Device memory of the transform of up to `total` characters in up to `slots` blocks. allocate() is all or
// nothing for the caller: on false, the object is dropped and with it what it holds.
struct BwtWorkspace {
  cuda::DeviceBuffer<uint64_t> keys[2];
  cuda::DeviceBuffer<uint32_t> vals[2], rank, head_a, head_b, list, selected;
  cuda::DeviceBuffer<uint8_t> flags, temp;
  cuda::PinnedBuffer<uint32_t> host_selected, host_lens;
  bool allocate(uint32_t total, uint32_t slots);
};

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
// positions), whose characters are all among `codes`. Rotations still tied when the
// doubling reaches the longest block are identical (periodic blocks) and are ordered by
// position: any order gives the same transform. Marks stages 3, 4 and 5 of `timer`.
// Returns the number of tied rotations.
uint32_t bwt_blocks(const uint8_t* text, uint32_t total, const BlockTable& t, uint32_t slots, const CharCodes& codes,
                    BwtWorkspace& ws, uint8_t* last, cudaStream_t st, StageTimer& timer);

}  // namespace ea::gpubz
