// Read-only views of a sample sequence, used by the statistics in statistics.hpp.
//
// A view has size() and operator[](i) returning the value as uint32_t. The statistics are
// templates over views, so one implementation serves contiguous CPU buffers, interleaved
// GPU batches (copy p of sample i at base[i * stride]) and the binary conversions of
// SP 800-90B section 5.1, computed on the fly or materialised.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/hd.hpp"

namespace ea {

// Contiguous bytes (the CPU path; loops over it vectorise).
struct ByteView {
  const uint8_t* data;
  size_t n;

  EA_HD size_t size() const { return n; }
  EA_HD uint32_t operator[](size_t i) const { return data[i]; }
};

// Bytes `stride` apart: sample i of one copy in an interleaved batch (data[i * stride]).
struct StridedByteView {
  const uint8_t* data;
  size_t n;
  size_t stride;

  EA_HD size_t size() const { return n; }
  EA_HD uint32_t operator[](size_t i) const { return data[i * stride]; }
};

EA_HD inline ByteView byte_view(const uint8_t* data, size_t n) { return ByteView{data, n}; }

// Values of a view mapped through a 256-entry table (translated symbol -> raw byte).
template <class Seq>
struct MappedView {
  Seq seq;
  const uint8_t* table;

  EA_HD size_t size() const { return seq.size(); }
  EA_HD uint32_t operator[](size_t i) const { return table[seq[i]]; }
};

// Conversion I (section 5.1): number of ones in each non-overlapping 8-bit block of a
// 0/1 sequence; the last, partial block counts the bits it has.
template <class Seq>
struct ConversionOneView {
  Seq bits;

  EA_HD size_t size() const { return (bits.size() + 7) / 8; }
  EA_HD uint32_t operator[](size_t b) const {
    size_t begin = b * 8, end = begin + 8;
    if (end > bits.size()) end = bits.size();
    uint32_t s = 0;
    for (size_t i = begin; i < end; ++i) s += bits[i];
    return s;
  }
};

// Conversion II (section 5.1): each 8-bit block read as a byte, first bit most
// significant; a partial last block is padded with zero bits at the low end.
template <class Seq>
struct ConversionTwoView {
  Seq bits;

  EA_HD size_t size() const { return (bits.size() + 7) / 8; }
  EA_HD uint32_t operator[](size_t b) const {
    size_t begin = b * 8;
    uint32_t v = 0;
    for (size_t k = 0; k < 8; ++k) {
      size_t i = begin + k;
      uint32_t bit = i < bits.size() ? (bits[i] & 1u) : 0u;
      v |= bit << (7 - k);
    }
    return v;
  }
};

// Conversion I from Conversion II: the number of ones of each byte (the padding bits of
// a partial last block are zeros, so the counts agree).
template <class Seq>
struct PopcountView {
  Seq bytes;

  EA_HD size_t size() const { return bytes.size(); }
  EA_HD uint32_t operator[](size_t b) const {
#if defined(__CUDA_ARCH__)
    return static_cast<uint32_t>(__popc(bytes[b]));
#else
    return static_cast<uint32_t>(__builtin_popcount(bytes[b]));
#endif
  }
};

}  // namespace ea
