// SHA-256 (OpenSSL's libcrypto) and the one seed derivation built on it: every digest of
// the tree (sample files, seeds, output names) goes through this header.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace ea {

using Digest = std::array<uint8_t, 32>;

// Incremental SHA-256. Throws Error{Internal} when OpenSSL fails.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* p, size_t n);
  Digest finish();

 private:
  std::unique_ptr<evp_md_ctx_st, void (*)(evp_md_ctx_st*)> ctx_;
};

Digest sha256(const void* p, size_t n);
inline Digest sha256(std::string_view s) { return sha256(s.data(), s.size()); }
std::string to_hex(const Digest& d);

// The one seed derivation: the first 8 bytes, little-endian, of
// SHA-256(label || LE64(values[0]) || ... ), each value 8 little-endian bytes, with
// `digest` (when given) after the first value. Every seed the tool derives (the shuffles of
// an assessment, the restart cutoff simulation) is one call with a label of its own; the
// labels and layouts are in docs/design.md ("Seeds").
class SeedDerivation {
 public:
  explicit SeedDerivation(std::string_view label) : message_(label) {}
  SeedDerivation& u64(uint64_t v);
  SeedDerivation& digest(const Digest& d);
  uint64_t finish() const;

 private:
  std::string message_;
};

}  // namespace ea
