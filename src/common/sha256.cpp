#include "common/sha256.hpp"

#include <openssl/evp.h>

#include "common/error.hpp"

namespace ea {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
  if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) {
    throw Error(ErrorKind::Internal, "OpenSSL: cannot initialise SHA-256");
  }
}

Sha256::~Sha256() = default;

void Sha256::update(const void* p, size_t n) {
  if (n && EVP_DigestUpdate(ctx_.get(), p, n) != 1) throw Error(ErrorKind::Internal, "OpenSSL: SHA-256 failed");
}

Digest Sha256::finish() {
  Digest out{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_.get(), out.data(), &len) != 1 || len != out.size()) {
    throw Error(ErrorKind::Internal, "OpenSSL: SHA-256 failed");
  }
  return out;
}

Digest sha256(const void* p, size_t n) {
  Sha256 h;
  h.update(p, n);
  return h.finish();
}

std::string to_hex(const Digest& d) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * d.size());
  for (uint8_t b : d) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

SeedDerivation& SeedDerivation::u64(uint64_t v) {
  for (int i = 0; i < 8; ++i) message_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return *this;
}

SeedDerivation& SeedDerivation::digest(const Digest& d) {
  message_.append(reinterpret_cast<const char*>(d.data()), d.size());
  return *this;
}

uint64_t SeedDerivation::finish() const {
  const Digest out = sha256(message_);
  uint64_t seed = 0;
  for (int i = 7; i >= 0; --i) seed = (seed << 8) | out[static_cast<size_t>(i)];
  return seed;
}

}  // namespace ea
