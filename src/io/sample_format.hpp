// How a capture's samples are stored (--sample-format) and the rule that makes them
// symbols of at most 8 bits (--select-bits, --bin): the one place that knows a capture
// can be wider than a byte. Above src/io, every data set is symbols of 1-8 bits; the rule
// and what it found (the mask, the bin edges, the search) travel as a SampleMapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ea {

enum class SampleFormat { U8, U16LE, U16BE, U32LE, U32BE, Text };

const char* sample_format_name(SampleFormat f);  // "u8", "u16le", ..., "text"
std::optional<SampleFormat> sample_format_from_name(const std::string& name);
// Bytes per sample of a binary format; 0 for text (one integer a line).
int sample_bytes(SampleFormat f);
// The widest value the format holds, in bits (text: 32).
int sample_format_bits(SampleFormat f);

// The rule that turns a capture value into a symbol.
struct SymbolRule {
  enum class Kind {
    None,  // the value itself (it must fit 8 bits)
    Mask,  // --select-bits MASK: the bits of `mask`, packed in order (lowest bit first)
    Auto,  // --select-bits auto[:B]: the mask of at most `bits` bits found by a search
    Bin,   // --bin B: order-preserving equal-count bins, 2^`bits` of them
  };
  Kind kind = Kind::None;
  uint32_t mask = 0;  // Mask only
  int bits = 0;       // Auto: the most bits of the mask (1-8); Bin: B (1-8)
  // Bin: the lowest value of each bin, from the data set the bins were made for (a
  // source's restart data is binned with its sequential data's bins); empty: made here.
  std::vector<uint32_t> edges;
  bool operator==(const SymbolRule& o) const {
    return kind == o.kind && mask == o.mask && bits == o.bits && edges == o.edges;
  }
  bool operator!=(const SymbolRule& o) const { return !(*this == o); }
};

// The setting: how samples are stored and made symbols (one Settings member).
struct SampleInput {
  SampleFormat format = SampleFormat::U8;
  SymbolRule rule;
  bool is_default() const { return format == SampleFormat::U8 && rule.kind == SymbolRule::Kind::None; }
  bool operator==(const SampleInput& o) const { return format == o.format && rule == o.rule; }
  bool operator!=(const SampleInput& o) const { return !(*this == o); }
};

// "u8", "u16le", "u16le, select-bits 0x0ff0", "text, bin 4", "u32be, select-bits auto:8":
// the canonical text of the setting, as records keep it (input.sampleRule).
std::string sample_input_text(const SampleInput& s);
// "0x0ff0": a mask as hex digits of the format's width (at least 2).
std::string mask_text(uint32_t mask, int format_bits);
// Parses --select-bits' value: a mask (decimal, 0x-hex or 0b-binary) or auto[:B].
// Throws Error{Usage} naming `flag`.
SymbolRule select_bits_rule(const std::string& text, const std::string& flag);
// The rule's own range checks against a format (a mask of 1-8 bits inside the format's
// width; B in 1-8). Throws Error{Usage} naming `flag`.
void check_symbol_rule(const SymbolRule& rule, SampleFormat format, const std::string& flag);

// The search of --select-bits auto (src/io/select_bits.hpp).
struct MaskSearch {
  std::string method;         // how candidates are scored and pruned, in words
  uint64_t candidates = 0;    // masks considered
  uint64_t scored = 0;        // masks whose score was computed (the others pruned)
  uint64_t samples_scored = 0;  // samples each score read
  double score = 0;           // the chosen mask's score (min-entropy per sample, bits)
  // The best masks found, best first: (mask, score).
  std::vector<std::pair<uint32_t, double>> best;
};

// What the rule did to these samples (recorded with every result).
struct SampleMapping {
  SampleInput input;
  uint32_t capture_max = 0;   // the largest capture value read
  int capture_bits = 0;       // bits that the capture's values need (0 when all are 0)
  uint32_t varying = 0;       // the bits that are not the same in every sample
  uint32_t mask = 0;          // Mask and Auto: the mask applied
  // Bin: the lowest capture value of each bin, increasing (bin b holds [lower[b],
  // lower[b+1]) ); fewer than 2^B when there are fewer distinct values.
  std::vector<uint32_t> bin_lower;
  std::optional<MaskSearch> search;  // Auto
  // u8 samples as read: the bits that vary, set and clear each in at least 1% of the bytes, at
  // even offsets and at odd ones (wide_capture_hint() tells a 16-bit capture read as bytes by them).
  uint32_t varying_even = 0, varying_odd = 0;
};

// For u8 samples (`m` of load_dataset, 1,000 or more) whose bytes at even and odd offsets vary
// in bits of very different counts (3 or more apart, as a 12-bit capture's low and high
// bytes: 8 and 4): a warning that the file may hold 16-bit samples read as bytes; else "".
std::string wide_capture_hint(const SampleMapping& m, uint64_t samples);

// The rule that maps other data of the same source exactly as these samples were mapped:
// auto becomes the mask it found, bins keep their edges.
SampleInput resolved_input(const SampleMapping& m);

// Capture values of a binary format from `n` bytes (a whole number of samples; the caller
// checks).
std::vector<uint32_t> decode_samples(const uint8_t* p, size_t n, SampleFormat f);
// One unsigned integer a line (decimal, or hex after 0x/0X), blanks around it and a CR
// before the newline ignored, the last newline optional. Throws Error{Input} naming
// `path` and the line (a line that is not a number, a value above 2^32 - 1, an empty line).
std::vector<uint32_t> parse_text_samples(const uint8_t* p, size_t n, const std::string& path);

// The capture values of `n` bytes in `format`, as a file of them is read: a binary format's
// bytes must be a whole number of samples (else ragged_capture), text at least one line.
// Throws Error{Input} naming `path`.
std::vector<uint32_t> decode_capture(const uint8_t* p, size_t n, SampleFormat format, const std::string& path);
// Error{Input}: `size` bytes are not a whole number of `format`'s samples (the bytes left over
// and their offset).
[[noreturn]] void ragged_capture(const std::string& path, uint64_t size, SampleFormat format);

// Applies the rule (Auto: searches first) and returns the symbols, one byte each, filling
// `m`. Throws Error{Input} naming `path` for a value that does not fit (kind None: a value
// above 255, with the sample's index).
std::vector<uint8_t> map_samples(const std::vector<uint32_t>& values, const SampleInput& input,
                                 const std::string& path, SampleMapping& m, int threads = 1);

// The bits of `mask` of `v`, packed in order (the lowest bit of the mask becomes bit 0).
inline uint32_t pack_bits(uint32_t v, uint32_t mask) {
  uint32_t out = 0;
  int at = 0;
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    const uint32_t low = m & (~m + 1);
    if (v & low) out |= uint32_t{1} << at;
    ++at;
  }
  return out;
}

// Equal-count bins: the lowest value of each of at most 2^bits bins over `values`, in
// increasing order. A value is never split; each bin, left to right, takes values while
// the next one's middle stays within its target (the samples not yet binned over the bins
// left), leaving one value for each later bin; the last takes the rest. All 2^bits bins
// are used when there are that many distinct values.
std::vector<uint32_t> equal_count_bins(const std::vector<uint32_t>& values, int bits);

}  // namespace ea
