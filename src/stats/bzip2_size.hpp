// The bzip2 size model (stats/bzip2_model.hpp) on the host: the reference against which
// the tests check the model with libbz2, and the GPU backend's building blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "stats/bzip2_model.hpp"

namespace ea::bz {

// The blocks libbz2 compresses for input in[0..n) at this block-size limit: the input after
// its first-stage run-length coding (4-255 equal bytes -> 4 bytes + count), cut where
// libbz2 cuts it.
std::vector<std::vector<uint8_t>> split_rle1_blocks(const uint8_t* in, size_t n, uint32_t limit);

// The Burrows-Wheeler transform of a block as bzip2 makes it: its cyclic rotations sorted,
// the character before each: suffix_sort_bwt, or for blocks of at most kDirectRotations
// bytes the rotations compared directly (libdivsufsort's tables cost about 0.1 ms a call:
// gpu_bwt's reference for 200,000 blocks of 5 took 20 s).
constexpr size_t kDirectRotations = 64;
std::vector<uint8_t> rotation_bwt(const uint8_t* block, size_t len);
// The same by a suffix sort of the block written twice (libdivsufsort).
std::vector<uint8_t> suffix_sort_bwt(const uint8_t* block, size_t len);

// Bits of one block (Burrows-Wheeler transform of its cyclic rotations by a suffix sort of
// the block written twice).
uint64_t block_bits(const uint8_t* block, size_t len);

// The steps after the transform: bits of block[0..len) whose transform is last[0..len)
// (move-to-front, zero runs, the Huffman tables), in storage kept across calls.
struct BlockScratch {
  std::vector<uint8_t> places, selectors;
  std::vector<uint16_t> mtfv;
  TableState tables;
};
uint64_t transform_bits(const uint8_t* block, const uint8_t* last, size_t len, BlockScratch& scratch);

// The length in bytes of BZ2_bzBuffToBuffCompress(in, n, level, ...)'s output.
uint64_t modelled_size(const uint8_t* in, size_t n, int level);

}  // namespace ea::bz
