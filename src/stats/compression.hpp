// SP 800-90B 5.1.11 compression statistic (host only): the samples written as decimal
// numbers separated by single spaces (no trailing space), compressed by libbz2 as the
// reference's BZ2_bzBuffToBuffCompress call does (block size 5, verbosity 0, work factor 0);
// the statistic is the compressed length in bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ea {

// The compression test's input: table[x[0]] table[x[1]] ... in decimal, separated by
// single spaces (no trailing space).
void decimal_text(const uint8_t* x, size_t n, const uint8_t* table, std::string& text);
// The same for values written as themselves (no table), as bytes.
std::vector<uint8_t> decimal_text_bytes(const std::vector<uint8_t>& values);

class Compressor {
 public:
  // Compressed length of the values table[x[0]], table[x[1]], ... (table: symbol -> raw).
  uint64_t compressed_length(const uint8_t* symbols, size_t n, const uint8_t* table);

 private:
  std::string text_;
  std::vector<char> out_;
};

}  // namespace ea
