// Step 4 of the GPU bzip2 size model: move-to-front, zero-run and Huffman coding of every
// block of a round, giving each block's bits (cuda/bzip2/coding.cu).
#pragma once

#include "bzip2/common.cuh"
#include "stats/bzip2_model.hpp"

namespace ea::gpubz {

// Device memory of the coding of up to `total` transformed characters in `slots` blocks.
struct CodingBuffers {
  // Bytes the transform's buffer (code_blocks' `last`) must hold after its last block: its
  // readers load aligned 16-byte words.
  static constexpr uint32_t kPad = 16;
  cuda::DeviceBuffer<uint16_t> values;
  cuda::DeviceBuffer<int32_t> freq, count, in_use, ranges;
  cuda::DeviceBuffer<uint8_t> selectors, places, seq_maps;
  cuda::DeviceBuffer<uint32_t> group_counts;  // each group's counts of its values (small alphabets)
  cuda::DeviceBuffer<unsigned long long> bits, byte_masks;
  cuda::DeviceBuffer<uint64_t> seg_sig, seg_start;
  cuda::DeviceBuffer<uint32_t> seg_seen, seg_lead, seg_inner, seg_trail, seg_out, seg_carry;
  cuda::DeviceBuffer<bz::FirstUses> seg_first;
  cuda::DeviceBuffer<uint8_t> huff_len;   // each slot's Huffman tables' code lengths
  cuda::DeviceBuffer<int32_t> huff_freq;  // and the counts under them in a pass
  cuda::PinnedBuffer<unsigned long long> host_bits;
  uint32_t seg_per_slot = 0, max_groups = 0;
  // False when the device memory is short (the object is then dropped whole).
  bool allocate(uint32_t total, uint32_t slots, uint32_t block_limit);
};

// The bits of every block slot of `t` (0 for unused slots), from `last` (the transform,
// in a buffer of CodingBuffers::kPad bytes more);
// copied to host_bits on stream st (valid after the stream is synchronised). Marks stages 6
// and 7 of `timer`.
void code_blocks(const uint8_t* last, const BlockTable& t, uint32_t slots, CodingBuffers& cb, cudaStream_t st,
                 StageTimer& timer);

}  // namespace ea::gpubz
