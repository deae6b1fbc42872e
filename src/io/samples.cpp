#include "io/samples.hpp"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "common/error.hpp"

namespace ea {

namespace {

[[noreturn]] void input_error(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::Input, path + ": " + what);
}

bool parse_u64(const std::string& s, uint64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

}  // namespace

SubsetSpec parse_subset(const std::string& text) {
  auto comma = text.find(',');
  SubsetSpec s;
  if (comma == std::string::npos || !parse_u64(text.substr(0, comma), s.index) ||
      !parse_u64(text.substr(comma + 1), s.count) || s.count == 0) {
    throw Error(ErrorKind::Usage, "-l expects INDEX,COUNT (two non-negative integers, COUNT > 0), got '" +
                                      text + "'");
  }
  return s;
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) input_error(path, std::string("cannot open file: ") + std::strerror(errno));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    throw Error(ErrorKind::Internal, "OpenSSL: cannot initialise SHA-256");
  }
  std::vector<char> buf(1 << 16);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    std::streamsize got = in.gcount();
    if (got > 0) EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(got));
  }
  if (in.bad()) input_error(path, "read error while hashing");
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &len);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

Dataset make_dataset(std::vector<uint8_t> samples, int width) {
  Dataset d;
  uint32_t all = 0;
  for (uint8_t b : samples) all |= b;
  int needed = 1;
  while (needed < 8 && (all >> needed) != 0) ++needed;
  if (width == 0) {
    d.width = needed;
  } else {
    if (width < 1 || width > 8) {
      throw Error(ErrorKind::Usage, "bits per symbol must be between 1 and 8, got " + std::to_string(width));
    }
    if (needed > width) {
      throw Error(ErrorKind::Input, "data is wider than the given " + std::to_string(width) +
                                        " bits per symbol (values need " + std::to_string(needed) +
                                        " bits): incorrect bit width specification");
    }
    d.width = width;
    d.width_given = true;
    d.narrower_than_given = needed < width;
  }
  // Translation to ranks among the values present (a bijection that keeps the order).
  std::array<uint64_t, 256> count{};
  for (uint8_t b : samples) ++count[b];
  std::array<uint8_t, 256> rank{};
  int k = 0;
  for (int v = 0; v < 256; ++v) {
    if (count[v]) {
      rank[v] = static_cast<uint8_t>(k);
      d.raw_of[k] = static_cast<uint8_t>(v);
      d.max_raw = static_cast<uint8_t>(v);
      ++k;
    }
  }
  d.alphabet = k;
  d.translated = k < (1 << d.width);
  d.symbols.resize(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) d.symbols[i] = rank[samples[i]];
  d.raw = std::move(samples);
  return d;
}

Dataset load_dataset(const std::string& path, int width, const std::optional<SubsetSpec>& subset) {
  if (width != 0 && (width < 1 || width > 8)) {
    throw Error(ErrorKind::Usage, "bits per symbol must be between 1 and 8, got " + std::to_string(width));
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    input_error(path, errno == ENOENT ? "no such file" : std::string("cannot access: ") + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) input_error(path, "is a directory, not a sample file");
  std::ifstream in(path, std::ios::binary);
  if (!in) input_error(path, std::string("cannot open file: ") + std::strerror(errno));
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) input_error(path, "cannot determine the file size");
  if (size == 0) input_error(path, "file is empty: no samples");
  uint64_t begin = 0, count = static_cast<uint64_t>(size);
  if (subset) {
    if (subset->index > 0 && subset->count > UINT64_MAX / subset->index) {
      input_error(path, "-l block start overflows");
    }
    begin = subset->index * subset->count;
    if (begin >= static_cast<uint64_t>(size)) {
      input_error(path, "-l " + std::to_string(subset->index) + "," + std::to_string(subset->count) +
                            " starts at sample " + std::to_string(begin) + ", past the end of the file (" +
                            std::to_string(size) + " samples)");
    }
    count = std::min<uint64_t>(subset->count, static_cast<uint64_t>(size) - begin);
  }
  std::vector<uint8_t> samples(count);
  in.seekg(static_cast<std::streamoff>(begin));
  in.read(reinterpret_cast<char*>(samples.data()), static_cast<std::streamsize>(count));
  if (static_cast<uint64_t>(in.gcount()) != count) {
    input_error(path, std::string("read error: ") + std::strerror(errno));
  }
  Dataset d;
  try {
    d = make_dataset(std::move(samples), width);
  } catch (const Error& e) {
    throw Error(e.kind(), path + ": " + e.what());
  }
  if (d.alphabet <= 1) {
    input_error(path, "symbol alphabet consists of 1 symbol; no entropy awarded");
  }
  d.path = path;
  d.file_size = static_cast<uint64_t>(size);
  d.subset = subset;
  d.sha256 = sha256_file(path);
  return d;
}

}  // namespace ea
