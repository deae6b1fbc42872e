#include "stats/decimal_bwt.hpp"

#include <algorithm>
#include <cstring>

namespace ea::bz {

namespace {

constexpr uint32_t kCodes3 = 1331;     // 3-digit codes: base 11, a digit d as d + 1, 0 = none
constexpr uint32_t kSlotsPerCode = 4;  // a tail's slot: 4 x its 3-digit code (+1..3: the wrapped token's longer tails)

uint32_t code_of(const uint8_t* digits, uint32_t len, uint32_t width) {
  uint32_t c = 0;
  for (uint32_t i = 0; i < width; ++i) c = c * 11 + (i < len ? digits[i] - '0' + 1u : 0u);
  return c;
}

}  // namespace

uint16_t DecimalBwt::code_of3(const uint8_t* digits, uint32_t len) {
  return static_cast<uint16_t>(code_of(digits, len, 3));
}

bool DecimalBwt::read_tokens(const uint8_t* block, size_t len) {
  spaces_.clear();
  for (size_t p = 0; p < len; ++p) {
    const uint8_t c = block[p];
    if (c == ' ') {
      spaces_.push_back(static_cast<uint32_t>(p));
    } else if (static_cast<uint8_t>(c - '0') > 9) {
      return false;
    }
  }
  const size_t s = spaces_.size();
  if (s < 2 || s >= (size_t{1} << kIndexBits)) return false;
  own_numbers_.resize(s - 1);
  for (size_t k = 0; k + 1 < s; ++k) {
    const uint32_t l = spaces_[k + 1] - spaces_[k] - 1;
    if (l > 3) return false;
    own_numbers_[k] = code_of3(block + spaces_[k] + 1, l);
  }
  const auto wrapped_len = static_cast<uint32_t>(spaces_[0] + len - spaces_[s - 1] - 1);
  if (wrapped_len > 6) return false;
  uint8_t wrapped[6];
  for (uint32_t i = 0; i < wrapped_len; ++i) wrapped[i] = block[(spaces_[s - 1] + 1 + i) % len];
  s_ = s;
  number_ = own_numbers_.data();
  set_wrapped(wrapped, wrapped_len);
  return true;
}

void DecimalBwt::set_wrapped(const uint8_t* wrapped, uint32_t wrapped_len) {
  wrapped_len_ = wrapped_len;
  std::copy(wrapped, wrapped + wrapped_len, wrapped_);
  wrapped_code6_ = code_of(wrapped_, wrapped_len_, 6);
}

// Codes in the string order of the tokens' digits: 2 x rank + 1 for the inner numbers; the
// wrapped token 2 x (the inner numbers below it) + 1 if it equals one of them, else + 0.
// A key holds the fewest codes that leave about one rotation in 32 s tied (s rotations, the
// numbers' collision probability p2: p2^k <= 1 / (32 s)), at most what 2^kKeyBits holds: fewer
// radix passes where the numbers are many, the ties' doubling where they are few.
void DecimalBwt::assign_codes() {
  std::fill(std::begin(count3_), std::end(count3_), 0u);
  for (size_t k = 0; k + 1 < s_; ++k) ++count3_[number_[k]];
  uint32_t r = 0, wrapped_code = UINT32_MAX;
  double p2 = 0;
  const double inner = static_cast<double>(s_ - 1);
  for (uint32_t c = 0; c < kCodes3; ++c) {
    const uint32_t c6 = c * kCodes3;  // the same digits as a 6-digit code
    if (wrapped_code == UINT32_MAX && c6 >= wrapped_code6_)
      wrapped_code = 2 * r + (c6 == wrapped_code6_ && count3_[c] > 0);
    if (count3_[c] > 0) {
      rank_code_[c] = 2 * r++ + 1;
      p2 += (count3_[c] / inner) * (count3_[c] / inner);
    }
  }
  if (wrapped_code == UINT32_MAX) wrapped_code = 2 * r;
  base_ = 2 * r + 1;
  per_key_ = 1;
  double tied = p2 * 32.0 * static_cast<double>(s_);
  for (uint64_t v = base_; v * base_ <= (uint64_t{1} << kKeyBits) && tied > 1.0; v *= base_) {
    ++per_key_;
    tied *= p2;
  }
  const size_t ext = s_ + per_key_;
  code_.resize(ext);
  for (size_t k = 0; k + 1 < s_; ++k) code_[k] = rank_code_[number_[k]];
  code_[s_ - 1] = wrapped_code;
  for (size_t i = s_; i < ext; ++i) code_[i] = code_[i % s_];
}

// The token rotations by their first per_key_ codes: 64-bit keys (the codes as the digits of a
// number in base base_, below 2^kKeyBits, then the rotation's index in the low kIndexBits)
// sorted by a least-significant-digit radix sort of 11-bit digits; then the ties refined.
void DecimalBwt::sort_rotations() {
  uint64_t top = 1;  // base_^(per_key_ - 1): the first code's weight
  for (uint32_t i = 1; i < per_key_; ++i) top *= base_;
  uint32_t key_bits = 1;
  while (key_bits < kKeyBits && (top * base_ - 1) >> key_bits) ++key_bits;
  keys_.resize(s_);
  uint64_t codes = 0;
  for (uint32_t i = 0; i < per_key_; ++i) codes = codes * base_ + code_[i];
  for (size_t u = 0; u < s_; ++u) {
    keys_[u] = codes << kIndexBits | u;
    codes = (codes - code_[u] * top) * base_ + code_[u + per_key_];
  }
  constexpr uint32_t kDigit = 11, kBuckets = 1u << kDigit;
  const uint32_t passes = (key_bits + kDigit - 1) / kDigit;
  count_.assign(static_cast<size_t>(passes) * kBuckets, 0);
  for (size_t u = 0; u < s_; ++u) {
    for (uint32_t p = 0; p < passes; ++p)
      ++count_[p * kBuckets + ((keys_[u] >> (kIndexBits + kDigit * p)) & (kBuckets - 1))];
  }
  sorted_.resize(s_);
  for (uint32_t p = 0; p < passes; ++p) {
    uint32_t* at = count_.data() + static_cast<size_t>(p) * kBuckets;
    uint32_t total = 0;
    bool one_bucket = false;
    for (uint32_t d = 0; d < kBuckets; ++d) {
      one_bucket = one_bucket || at[d] == s_;
      const uint32_t c = at[d];
      at[d] = total;
      total += c;
    }
    if (one_bucket) continue;  // every key has this digit
    const uint32_t shift = kIndexBits + kDigit * p;
    for (size_t i = 0; i < s_; ++i) sorted_[at[(keys_[i] >> shift) & (kBuckets - 1)]++] = keys_[i];
    keys_.swap(sorted_);
  }
  // Ranks (a group's first place) and the groups still tied on the key's codes.
  order_.resize(s_);
  rank_.resize(s_);
  groups_.clear();
  uint32_t first = 0;
  for (uint32_t i = 0; i < s_; ++i) {
    order_[i] = static_cast<uint32_t>(keys_[i] & ((1u << kIndexBits) - 1));
    if (i > 0 && (keys_[i] >> kIndexBits) != (keys_[i - 1] >> kIndexBits)) {
      if (i - first > 1) groups_.emplace_back(first, i);
      first = i;
    }
    rank_[order_[i]] = first;
  }
  if (s_ - first > 1) groups_.emplace_back(first, static_cast<uint32_t>(s_));
  refine_ties(per_key_);
}

// Prefix doubling on the tied groups: rotations tied on h tokens are ordered by the rank of
// the rotation h tokens on (the ranks of the previous round), which orders them on 2h.
void DecimalBwt::refine_ties(size_t h) {
  while (!groups_.empty() && h < s_) {
    rank_prev_ = rank_;
    next_groups_.clear();
    for (const auto& [begin, end] : groups_) {
      keys_.resize(end - begin);
      for (uint32_t i = begin; i < end; ++i) {
        const uint32_t u = order_[i];
        size_t v = u + h;
        if (v >= s_) v -= s_;
        keys_[i - begin] = static_cast<uint64_t>(rank_prev_[v]) << 32 | u;
      }
      sort_group_keys();
      uint32_t first = begin;
      for (uint32_t i = begin; i < end; ++i) {
        order_[i] = static_cast<uint32_t>(keys_[i - begin]);
        if (i > begin && (keys_[i - begin] >> 32) != (keys_[i - begin - 1] >> 32)) {
          if (i - first > 1) next_groups_.emplace_back(first, i);
          first = i;
        }
        rank_[order_[i]] = first;
      }
      if (end - first > 1) next_groups_.emplace_back(first, end);
    }
    groups_.swap(next_groups_);
    h *= 2;
  }
}

// keys_ (rank << 32 | index) in order: a radix sort of the ranks (below 2^20) for large
// groups, std::sort for small ones.
void DecimalBwt::sort_group_keys() {
  constexpr size_t kRadixFrom = 256;
  constexpr uint32_t kDigit = 10, kBuckets = 1u << kDigit;
  if (keys_.size() < kRadixFrom) {
    std::sort(keys_.begin(), keys_.end());
    return;
  }
  sorted_.resize(keys_.size());
  uint32_t at[kBuckets];
  for (uint32_t shift = 32; shift < 32 + kIndexBits; shift += kDigit) {
    std::fill(std::begin(at), std::end(at), 0u);
    for (uint64_t k : keys_) ++at[(k >> shift) & (kBuckets - 1)];
    uint32_t total = 0;
    for (uint32_t& a : at) {
      const uint32_t c = a;
      a = total;
      total += c;
    }
    for (uint64_t k : keys_) sorted_[at[(k >> shift) & (kBuckets - 1)]++] = k;
    keys_.swap(sorted_);
  }
}

// Every rotation (token k, digit j) goes to the slot of its tail T_k[j..] (digits left-aligned
// as a 3-digit code, x 4; the wrapped token's tails of 4-6 digits in the 3 slots after their
// first 3 digits' slot, in order), visited in the order of the token rotation after token k:
// a counting sort, stable within a tail. The character before (k, j) is T_k[j - 1], or the
// space before token k when j = 0.
void DecimalBwt::emit(uint8_t* out) {
  tails_.resize(kCodes3 + 1);
  std::vector<uint32_t>& next = next_;
  next.assign(kCodes3 * kSlotsPerCode, 0u);
  for (uint32_t c = 0; c < kCodes3; ++c) {
    const uint32_t occurrences = count3_[c];
    if (occurrences == 0) continue;
    const uint32_t d[3] = {c / 121, c / 11 % 11, c % 11};
    Tails& t = tails_[c];
    t.len = static_cast<uint8_t>((d[0] != 0) + (d[1] != 0) + (d[2] != 0));
    for (uint32_t j = 0; j <= t.len; ++j) {
      uint32_t tail = 0;
      for (uint32_t i = 0; i < 3; ++i) tail = tail * 11 + (j + i < 3 ? d[j + i] : 0u);
      t.slot[j] = static_cast<uint16_t>(tail * kSlotsPerCode);
      t.before[j] = j == 0 ? ' ' : static_cast<uint8_t>('0' + d[j - 1] - 1);
    }
    for (uint32_t j = 0; j <= t.len; ++j) next[t.slot[j]] += occurrences;
  }
  Tails wrapped{};
  wrapped.len = static_cast<uint8_t>(wrapped_len_);
  for (uint32_t j = 0; j <= wrapped_len_; ++j) {
    const uint32_t left = wrapped_len_ - j;
    uint32_t slot = code_of(wrapped_ + j, left, 3) * kSlotsPerCode;
    if (left > 3) {  // after the tails of its first 3 digits, and after its longer tails below it
      const uint32_t mine = code_of(wrapped_ + j, left, 6);
      slot += 1;
      for (uint32_t o = 0; o + 3 < wrapped_len_; ++o) {
        const uint32_t other = code_of(wrapped_ + o, wrapped_len_ - o, 6);
        if (o != j && other / kCodes3 == mine / kCodes3 && other < mine) ++slot;
      }
    }
    wrapped.slot[j] = static_cast<uint16_t>(slot);
    wrapped.before[j] = j == 0 ? ' ' : wrapped_[j - 1];
    ++next[slot];
  }
  uint32_t total = 0;
  for (uint32_t& v : next) {
    const uint32_t c = v;
    v = total;
    total += c;
  }
  // The tokens before the sorted rotations, gathered first (independent loads), then emitted.
  constexpr uint32_t kWrapped = kCodes3;  // tails_[kWrapped]: the wrapped token
  tails_.resize(kCodes3 + 1);
  tails_[kWrapped] = wrapped;
  before_.resize(s_);
  for (size_t i = 0; i < s_; ++i) {
    const uint32_t u = order_[i];
    before_[i] = static_cast<uint16_t>(u == 0 ? kWrapped : number_[u - 1]);
  }
  for (size_t i = 0; i < s_; ++i) {
    const Tails& t = tails_[before_[i]];
    for (uint32_t j = 0; j <= t.len; ++j) out[next[t.slot[j]]++] = t.before[j];
  }
}

bool DecimalBwt::transform(const uint8_t* block, size_t len, uint8_t* out) {
  if (!read_tokens(block, len)) return false;
  assign_codes();
  sort_rotations();
  emit(out);
  return true;
}

bool DecimalBwt::transform_tokens(const uint16_t* numbers, size_t count, const uint8_t* wrapped, uint32_t wrapped_len,
                                  uint8_t* out) {
  if (count == 0 || count + 1 >= (size_t{1} << kIndexBits) || wrapped_len > 6) return false;
  s_ = count + 1;
  number_ = numbers;
  set_wrapped(wrapped, wrapped_len);
  assign_codes();
  sort_rotations();
  emit(out);
  return true;
}

}  // namespace ea::bz
