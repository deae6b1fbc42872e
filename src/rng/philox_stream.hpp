// The Philox4x32-10 word stream of one permutation (Random123's philox4x32).
//
// Stream j under a 64-bit seed, in cuRAND's curand_init(seed, j, 0) layout:
//   key = (lo32(seed), hi32(seed)); block b uses counter (lo32(b), hi32(b), lo32(j), hi32(j));
//   the words are out(block 0).x, .y, .z, .w, out(block 1).x, ...
// So permutation j depends on (seed, j) alone, on every target.
#pragma once

#include <cstdint>

#include <Random123/philox.h>

#include "common/hd.hpp"
#include "rng/bounded.hpp"

namespace ea {

class PhiloxStream {
 public:
  EA_HD PhiloxStream(uint64_t seed, uint64_t stream) : block_(0), index_(4) {
    key_.v[0] = static_cast<uint32_t>(seed);
    key_.v[1] = static_cast<uint32_t>(seed >> 32);
    stream_lo_ = static_cast<uint32_t>(stream);
    stream_hi_ = static_cast<uint32_t>(stream >> 32);
  }

  EA_HD EA_FORCEINLINE uint32_t next() {
    if (index_ == 4) refill();
    return out_.v[index_++];
  }
  // Uniform on [0, i] (Lemire, 32-bit words).
  EA_HD EA_FORCEINLINE uint32_t bounded(uint32_t i) { return bounded_inclusive(*this, i); }

  // Word w of stream `stream` (the (w+1)-th next() of a fresh PhiloxStream(seed, stream)),
  // computed alone: what lets many threads draw one permutation's targets at once.
  static EA_HD EA_FORCEINLINE uint32_t word(uint64_t seed, uint64_t stream, uint64_t w) {
    return block(seed, stream, w >> 2).v[w & 3];
  }
  // Words 4b .. 4b+3 of the stream.
  static EA_HD EA_FORCEINLINE philox4x32_ctr_t block(uint64_t seed, uint64_t stream, uint64_t b) {
    philox4x32_ctr_t ctr;
    ctr.v[0] = static_cast<uint32_t>(b);
    ctr.v[1] = static_cast<uint32_t>(b >> 32);
    ctr.v[2] = static_cast<uint32_t>(stream);
    ctr.v[3] = static_cast<uint32_t>(stream >> 32);
    philox4x32_key_t key;
    key.v[0] = static_cast<uint32_t>(seed);
    key.v[1] = static_cast<uint32_t>(seed >> 32);
    return philox4x32_R(10, ctr, key);
  }

 private:
  EA_HD void refill() {
    philox4x32_ctr_t ctr;
    ctr.v[0] = static_cast<uint32_t>(block_);
    ctr.v[1] = static_cast<uint32_t>(block_ >> 32);
    ctr.v[2] = stream_lo_;
    ctr.v[3] = stream_hi_;
    out_ = philox4x32_R(10, ctr, key_);
    ++block_;
    index_ = 0;
  }

  philox4x32_key_t key_;
  philox4x32_ctr_t out_;
  uint64_t block_;
  uint32_t stream_lo_, stream_hi_;
  uint32_t index_;
};

}  // namespace ea
