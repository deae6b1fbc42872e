#include "stats/token_bwt.hpp"

#include <algorithm>
#include <numeric>

#include "common/error.hpp"

namespace ea::bz {

namespace {

struct Token {
  size_t start;  // offset in the block of its first digit (cyclic)
  size_t len;    // its digits (0: two spaces in a row, where the block wraps)
};

// The tokens of a cyclic block with at least one space (see the header); none when it has
// no space.
std::vector<Token> block_tokens(const uint8_t* block, size_t len) {
  std::vector<size_t> spaces;
  for (size_t p = 0; p < len; ++p) {
    if (block[p] == ' ') {
      spaces.push_back(p);
    } else if (block[p] < '0' || block[p] > '9') {
      throw Error(ErrorKind::Usage, "token_bwt: the block must be decimal text");
    }
  }
  std::vector<Token> tokens(spaces.size());
  for (size_t k = 0; k < spaces.size(); ++k) {
    const size_t next = k + 1 < spaces.size() ? spaces[k + 1] : spaces[0] + len;
    tokens[k] = Token{(spaces[k] + 1) % len, next - spaces[k] - 1};
  }
  return tokens;
}

// Digits block[at..at+n) (cyclic) as kTokenDigits base-11 digits, digit d as d + 1, padded
// with 0: codes compare as the digit strings do, a proper prefix first.
uint32_t digits_code(const uint8_t* block, size_t len, size_t at, size_t n) {
  uint32_t code = 0;
  for (size_t i = 0; i < kTokenDigits; ++i) code = code * 11 + (i < n ? block[(at + i) % len] - '0' + 1u : 0u);
  return code;
}

// Ranks of the cyclic sequence's rotations: pass 0 on kKeyTokens codes of kCodeBits bits,
// then prefix doubling on (rank, rank h tokens on) until every rotation is told apart or h
// covers the sequence (equal rotations, equal ranks). A rank is its group's first place.
constexpr int kKeyTokens = 5, kCodeBits = 10;
std::vector<uint32_t> rotation_ranks(const std::vector<uint32_t>& code) {
  const size_t s = code.size();
  std::vector<uint64_t> key(s);
  for (size_t u = 0; u < s; ++u)
    for (int i = 0; i < kKeyTokens; ++i) key[u] = key[u] << kCodeBits | code[(u + i) % s];
  std::vector<uint32_t> rank(s);
  for (size_t h = kKeyTokens;; h *= 2) {
    std::vector<uint32_t> order(s);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
    bool tied = false;
    for (size_t r = 0; r < s; ++r) {
      const bool same = r > 0 && key[order[r]] == key[order[r - 1]];
      rank[order[r]] = same ? rank[order[r - 1]] : static_cast<uint32_t>(r);
      tied = tied || same;
    }
    if (!tied || h >= s) return rank;
    for (size_t u = 0; u < s; ++u) key[u] = static_cast<uint64_t>(rank[u]) << 32 | rank[(u + h) % s];
  }
}

}  // namespace

std::vector<uint8_t> token_bwt(const uint8_t* block, size_t len) {
  const std::vector<Token> tokens = block_tokens(block, len);
  const size_t s = tokens.size();
  if (s == 0) return {};
  std::vector<uint32_t> digits(s);
  for (size_t k = 0; k < s; ++k) {
    if (tokens[k].len > kTokenDigits) return {};
    digits[k] = digits_code(block, len, tokens[k].start, tokens[k].len);
  }
  // Token codes of kCodeBits bits: 2 x the rank of an inner token's digits among the
  // distinct inner ones (at most 256 numbers) + 1; the wrapped token (the last) takes its
  // place among them, even where it equals none (between its neighbours' odd codes).
  std::vector<uint32_t> inner(digits.begin(), digits.end() - 1);
  std::sort(inner.begin(), inner.end());
  inner.erase(std::unique(inner.begin(), inner.end()), inner.end());
  if (2 * inner.size() + 1 >= (size_t{1} << kCodeBits)) return {};
  std::vector<uint32_t> code(s);
  for (size_t k = 0; k < s; ++k) {
    const auto it = std::lower_bound(inner.begin(), inner.end(), digits[k]);
    code[k] = 2 * static_cast<uint32_t>(it - inner.begin()) + (it != inner.end() && *it == digits[k] ? 1 : 0);
  }
  const std::vector<uint32_t> rank = rotation_ranks(code);
  // Token rotations in order; each one's preceding token emits its rotations (the code of
  // every tail, with the character before it), then a stable sort on the tails.
  std::vector<uint32_t> by_rank(s);
  std::iota(by_rank.begin(), by_rank.end(), 0u);
  std::stable_sort(by_rank.begin(), by_rank.end(), [&](uint32_t a, uint32_t b) { return rank[a] < rank[b]; });
  std::vector<std::pair<uint32_t, uint8_t>> rotations;
  rotations.reserve(len);
  for (uint32_t u : by_rank) {
    const Token& t = tokens[(u + s - 1) % s];
    for (size_t j = 0; j <= t.len; ++j) {
      const uint8_t before = j == 0 ? static_cast<uint8_t>(' ') : block[(t.start + j - 1) % len];
      rotations.emplace_back(digits_code(block, len, t.start + j, t.len - j), before);
    }
  }
  std::stable_sort(rotations.begin(), rotations.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<uint8_t> last(len);
  for (size_t i = 0; i < len; ++i) last[i] = rotations[i].second;
  return last;
}

}  // namespace ea::bz
