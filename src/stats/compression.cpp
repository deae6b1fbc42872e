#include "stats/compression.hpp"

#include <bzlib.h>


#include "common/error.hpp"
#include "stats/decimal_text.hpp"

namespace ea {

void decimal_text(const uint8_t* x, size_t n, const uint8_t* table, std::string& text) {
  text.clear();
  text.reserve(n * 4);
  uint8_t digits[4];
  for (size_t i = 0; i < n; ++i) {
    text.append(reinterpret_cast<const char*>(digits), write_decimal(table[x[i]], digits));
    if (i + 1 < n) text.push_back(' ');
  }
}

std::vector<uint8_t> decimal_text_bytes(const std::vector<uint8_t>& values) {
  uint8_t identity[256];
  for (int i = 0; i < 256; ++i) identity[i] = static_cast<uint8_t>(i);
  std::string text;
  decimal_text(values.data(), values.size(), identity, text);
  return std::vector<uint8_t>(text.begin(), text.end());
}

// Streams the text through libbz2 in chunks: no buffer grows with n, and lengths are 64-bit
// (BZ2_bzBuffToBuffCompress takes 32-bit lengths, which a text over 4 GiB would overflow).
// libbz2's output does not depend on how its input is split, so the length equals
// BZ2_bzBuffToBuffCompress's (tests/unit/test_statistics.cpp checks it).
uint64_t Compressor::compressed_length(const uint8_t* x, size_t n, const uint8_t* table) {
  constexpr size_t kTextChunk = size_t{1} << 16, kOutChunk = size_t{1} << 16;
  text_.resize(kTextChunk + 4);
  out_.resize(kOutChunk);
  bz_stream s{};
  int rc = BZ2_bzCompressInit(&s, 5, 0, 0);
  if (rc != BZ_OK) throw Error(ErrorKind::Internal, "bzip2 initialisation failed (code " + std::to_string(rc) + ")");
  struct End {
    bz_stream* s;
    ~End() { BZ2_bzCompressEnd(s); }
  } end{&s};
  size_t i = 0;
  while (true) {
    size_t len = 0;
    while (i < n && len < kTextChunk) {
      len += write_decimal(table[x[i]], reinterpret_cast<uint8_t*>(text_.data() + len));
      if (++i < n) text_[len++] = ' ';
    }
    const int action = i == n ? BZ_FINISH : BZ_RUN;
    s.next_in = text_.data();
    s.avail_in = static_cast<unsigned int>(len);
    while (true) {
      s.next_out = out_.data();
      s.avail_out = static_cast<unsigned int>(out_.size());
      rc = BZ2_bzCompress(&s, action);
      if (rc != BZ_RUN_OK && rc != BZ_FINISH_OK && rc != BZ_STREAM_END) {
        throw Error(ErrorKind::Internal, "bzip2 compression failed (code " + std::to_string(rc) + ")");
      }
      if (action == BZ_RUN ? s.avail_in == 0 : rc == BZ_STREAM_END) break;
    }
    if (action == BZ_FINISH) break;
  }
  return (static_cast<uint64_t>(s.total_out_hi32) << 32) | s.total_out_lo32;
}

}  // namespace ea
