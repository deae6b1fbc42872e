#include "stats/compression.hpp"

#include <bzlib.h>

#include <cmath>

#include "common/error.hpp"

namespace ea {

void decimal_text(const uint8_t* x, size_t n, const uint8_t* table, std::string& text) {
  text.clear();
  text.reserve(n * 4);
  char digits[4];
  for (size_t i = 0; i < n; ++i) {
    unsigned v = table[x[i]];
    int len = 0;
    if (v >= 100) digits[len++] = static_cast<char>('0' + v / 100);
    if (v >= 10) digits[len++] = static_cast<char>('0' + (v / 10) % 10);
    digits[len++] = static_cast<char>('0' + v % 10);
    text.append(digits, static_cast<size_t>(len));
    if (i + 1 < n) text.push_back(' ');
  }
}

uint64_t Compressor::compressed_length(const uint8_t* x, size_t n, const uint8_t* table) {
  decimal_text(x, n, table, text_);
  unsigned int dest_len = static_cast<unsigned int>(std::ceil(1.01 * static_cast<double>(text_.size()))) + 600;
  out_.resize(dest_len);
  int rc = BZ2_bzBuffToBuffCompress(out_.data(), &dest_len, text_.data(),
                                    static_cast<unsigned int>(text_.size()), 5, 0, 0);
  if (rc != BZ_OK) throw Error(ErrorKind::Internal, "bzip2 compression failed (code " + std::to_string(rc) + ")");
  return dest_len;
}

}  // namespace ea
