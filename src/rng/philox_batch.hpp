// Philox4x32-10 words computed many blocks at a time on the host (issue 31): the same
// words as PhiloxStream, in the same order, 16 counters at a time with AVX2 where the CPU
// has it (chosen at run time), one block at a time elsewhere.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rng/bounded.hpp"

namespace ea {

// Writes words 4*first .. 4*(first+blocks)-1 of stream `stream` under `seed` (blocks
// first .. first+blocks-1 of PhiloxStream(seed, stream)) to out[0 .. 4*blocks-1].
void philox_blocks(uint64_t seed, uint64_t stream, uint64_t first, uint32_t blocks, uint32_t* out);

// The same for the counters (first + k, x1, low half of x23, high half of x23), k = 0 ..
// blocks-1 (first + blocks <= 2^32): the bucket shuffle's node streams
// (src/permutation/bucket_cpu.hpp).
void philox_counter_blocks(uint64_t seed, uint32_t x1, uint64_t x23, uint32_t first, uint32_t blocks, uint32_t* out);

// Draws bounded(top), bounded(top - 1), ... into t from words[idx ..], eight at a time, as
// long as eight draws are left (of m), eight words are left in the buffer (of words_size)
// and no word w of the eight could be rejected by Lemire's method (the low half of w s
// below s, s = the draw's bound + 1); returns the number of draws made
// (a multiple of 8) and advances idx by it. 0 where the CPU lacks AVX2.
size_t philox_draw_eights(const uint32_t* words, uint32_t words_size, uint32_t& idx, uint32_t* t, size_t m,
                          uint32_t top);

// PhiloxStream's words drawn kBlocks blocks ahead: next() and bounded() give exactly what
// PhiloxStream(seed, stream) gives.
class PhiloxBatchStream {
 public:
  static constexpr uint32_t kBlocks = 256;
  static constexpr uint32_t kWords = 4 * kBlocks;

  PhiloxBatchStream(uint64_t seed, uint64_t stream) : seed_(seed), stream_(stream) {}

  EA_FORCEINLINE uint32_t next() {
    if (index_ == kWords) refill();
    return words_[index_++];
  }
  EA_FORCEINLINE uint32_t bounded(uint32_t i) { return bounded_inclusive(*this, i); }

  // t[k] = bounded(top - k) for k = 0 .. m-1, in that order (top - m + 1 >= 1). Eight draws
  // at a time where none of their words is a candidate for rejection, one at a time
  // otherwise.
  void draw(uint32_t* t, size_t m, uint32_t top);

 private:
  void refill() {
    philox_blocks(seed_, stream_, block_, kBlocks, words_);
    block_ += kBlocks;
    index_ = 0;
  }

  uint64_t seed_, stream_;
  uint64_t block_ = 0;  // the first block not yet in words_
  uint32_t index_ = kWords;
  alignas(64) uint32_t words_[kWords];
};

inline void draw_targets(PhiloxBatchStream& rng, uint32_t* t, size_t m, uint32_t top) { rng.draw(t, m, top); }

inline void PhiloxBatchStream::draw(uint32_t* t, size_t m, uint32_t top) {
  size_t k = 0;
  while (k < m) {
    k += philox_draw_eights(words_, kWords, index_, t + k, m - k, top - static_cast<uint32_t>(k));
    const size_t stop = m - k < 8 ? m : k + 8;
    for (; k < stop; ++k) t[k] = bounded(top - static_cast<uint32_t>(k));
  }
}

}  // namespace ea
