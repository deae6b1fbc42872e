#include "stats/token_bwt.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "common/error.hpp"

namespace ea::bz {

namespace {

// The tokens of a cyclic block with at least one space (see the header).
std::vector<std::string> block_tokens(const uint8_t* block, size_t len) {
  std::vector<size_t> spaces;
  for (size_t p = 0; p < len; ++p) {
    if (block[p] == ' ') {
      spaces.push_back(p);
    } else if (block[p] < '0' || block[p] > '9') {
      throw Error(ErrorKind::Usage, "token_bwt: the block must be decimal text");
    }
  }
  std::vector<std::string> tokens(spaces.size());
  for (size_t k = 0; k < spaces.size(); ++k) {
    const size_t next = k + 1 < spaces.size() ? spaces[k + 1] : spaces[0] + len;
    for (size_t p = spaces[k] + 1; p < next; ++p) tokens[k].push_back(static_cast<char>(block[p % len]));
  }
  return tokens;
}

// Dense ranks of values under their order (equal values, equal ranks).
template <class T>
std::vector<uint32_t> dense_ranks(const std::vector<T>& v) {
  std::vector<T> sorted(v);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<uint32_t> r(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    r[i] = static_cast<uint32_t>(std::lower_bound(sorted.begin(), sorted.end(), v[i]) - sorted.begin());
  }
  return r;
}

// The rank of each token rotation R_u among all of them (equal rotations, equal ranks), by
// prefix doubling over the cyclic sequence of token ranks.
std::vector<uint32_t> rotation_ranks(const std::vector<uint32_t>& token_rank) {
  const size_t s = token_rank.size();
  std::vector<uint32_t> rank = token_rank;
  for (size_t h = 1; h < s; h *= 2) {
    std::vector<uint64_t> pair(s);
    for (size_t u = 0; u < s; ++u) pair[u] = (static_cast<uint64_t>(rank[u]) << 32) | rank[(u + h) % s];
    rank = dense_ranks(pair);
    if (*std::max_element(rank.begin(), rank.end()) + 1 == s) break;  // all told apart
  }
  return rank;
}

}  // namespace

std::vector<uint8_t> token_bwt(const uint8_t* block, size_t len) {
  const std::vector<std::string> tokens = block_tokens(block, len);
  const size_t s = tokens.size();
  if (s == 0) return {};
  const std::vector<uint32_t> rank = rotation_ranks(dense_ranks(tokens));
  // Tails in string order (the empty tail, the space after a token, first).
  std::vector<std::string> tails;
  for (const auto& t : tokens)
    for (size_t j = 0; j <= t.size(); ++j) tails.push_back(t.substr(j));
  const std::vector<uint32_t> tail_code = dense_ranks(tails);
  std::vector<size_t> first_tail(s);  // index of token k's tail j = 0 in tails
  for (size_t k = 0, at = 0; k < s; at += tokens[k].size() + 1, ++k) first_tail[k] = at;
  // Token rotations in order; each one's preceding token emits its rotations (every tail,
  // with the character before it), then a stable sort on the tails.
  std::vector<uint32_t> by_rank(s);
  std::iota(by_rank.begin(), by_rank.end(), 0u);
  std::stable_sort(by_rank.begin(), by_rank.end(), [&](uint32_t a, uint32_t b) { return rank[a] < rank[b]; });
  std::vector<std::pair<uint32_t, uint8_t>> rotations;
  rotations.reserve(len);
  for (uint32_t u : by_rank) {
    const size_t k = (u + s - 1) % s;
    const std::string& t = tokens[k];
    for (size_t j = 0; j <= t.size(); ++j) {
      rotations.emplace_back(tail_code[first_tail[k] + j], j == 0 ? ' ' : static_cast<uint8_t>(t[j - 1]));
    }
  }
  std::stable_sort(rotations.begin(), rotations.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<uint8_t> last(len);
  for (size_t i = 0; i < len; ++i) last[i] = rotations[i].second;
  return last;
}

}  // namespace ea::bz
