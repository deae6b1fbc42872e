#include "stats/bzip2_cpu.hpp"

#include <immintrin.h>

#include <algorithm>
#include <climits>

#include "stats/bzip2_size.hpp"

namespace ea {

namespace bz {

namespace {

#define EA_BZ_AVX2 __attribute__((target("avx2,popcnt")))

// Each symbol's last use (unused yet: -1 - its index; lanes past n_in_use never count) in two
// registers of 8 lanes; a symbol's place is the number of lanes used after it.
EA_BZ_AVX2 void mtf_places_avx2(const uint8_t* last, int32_t len, const uint8_t* seq_of, int n_in_use,
                                uint8_t* places) {
  alignas(32) int32_t recent[16];
  alignas(32) int32_t lane[16][16];  // lane[c]: -1 in lane c, 0 elsewhere
  for (int d = 0; d < 16; ++d) {
    recent[d] = d < n_in_use ? -1 - d : INT32_MIN;
    for (int k = 0; k < 16; ++k) lane[d][k] = k == d ? -1 : 0;
  }
  __m256i lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(recent));
  __m256i hi = _mm256_load_si256(reinterpret_cast<const __m256i*>(recent + 8));
  __m256i at = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  for (int32_t i = 0; i < len; ++i) {
    const int c = seq_of[last[i]];
    const __m256i mine = _mm256_set1_epi32(recent[c]);
    const int later = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(lo, mine))) |
                      _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(hi, mine))) << 8;
    places[i] = static_cast<uint8_t>(_mm_popcnt_u32(static_cast<unsigned>(later)));
    recent[c] = i;
    lo = _mm256_blendv_epi8(lo, at, _mm256_load_si256(reinterpret_cast<const __m256i*>(lane[c])));
    hi = _mm256_blendv_epi8(hi, at, _mm256_load_si256(reinterpret_cast<const __m256i*>(lane[c] + 8)));
    at = _mm256_add_epi32(at, one);
  }
}

#undef EA_BZ_AVX2

}  // namespace

void mtf_places(const uint8_t* last, int32_t len, const uint8_t* seq_of, int n_in_use, uint8_t* places) {
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  if (avx2) {
    mtf_places_avx2(last, len, seq_of, n_in_use, places);
  } else {
    uint64_t order = packed_identity(n_in_use);
    packed_places(last, len, seq_of, order, places);
  }
}

uint64_t block_bits_grouped(const uint16_t* mtfv, int32_t n_mtf, const int32_t* freq, int n_in_use, int ranges_in_use,
                            GroupScratch& scratch) {
  constexpr int kRoom = 32;
  const int alpha = n_in_use + 2;
  const int tables = table_count(n_mtf);
  const int32_t groups = (n_mtf + kGroupSize - 1) / kGroupSize;
  scratch.counts.assign(static_cast<size_t>(groups) * kRoom, 0);
  for (int32_t g = 0; g < groups; ++g) {
    uint8_t* c = scratch.counts.data() + static_cast<size_t>(g) * kRoom;
    const int32_t end = std::min(n_mtf, (g + 1) * kGroupSize);
    for (int32_t i = g * kGroupSize; i < end; ++i) ++c[mtfv[i]];
  }
  scratch.selectors.resize(static_cast<size_t>(groups) + 1);
  TableState& st = scratch.tables;
  auto group_sum = [&](int32_t g) {
    const uint8_t* c = scratch.counts.data() + static_cast<size_t>(g) * kRoom;
    uint64_t sum = 0;
    for (int v = 0; v < alpha; ++v) sum += c[v] * st.packed[v];
    return sum;
  };
  initial_tables(st.len, tables, alpha, freq, n_mtf);
  for (int pass = 0; pass < kPasses; ++pass) {
    st.pack(tables, alpha);
    for (int t = 0; t < tables; ++t)
      for (int v = 0; v < alpha; ++v) st.rfreq[t][v] = 0;
    for (int32_t g = 0; g < groups; ++g) {
      const int bt = best_of_costs(group_sum(g), tables);
      scratch.selectors[static_cast<size_t>(g)] = static_cast<uint8_t>(bt);
      const uint8_t* c = scratch.counts.data() + static_cast<size_t>(g) * kRoom;
      for (int v = 0; v < alpha; ++v) st.rfreq[bt][v] += c[v];
    }
    for (int t = 0; t < tables; ++t) code_lengths(st.len[t], st.rfreq[t], alpha, kMaxCodeLength);
  }
  uint64_t bits = block_side_bits(scratch.selectors.data(), groups, st.len, tables, alpha, ranges_in_use);
  st.pack(tables, alpha);
  for (int32_t g = 0; g < groups; ++g) bits += table_cost(group_sum(g), scratch.selectors[static_cast<size_t>(g)]);
  return bits;
}

}  // namespace bz

uint64_t Bzip2SizeModel::compressed_length(const uint8_t* symbols, size_t n, const uint8_t* table) {
  if (n == 0) return bz::stream_bytes(0);
  symbols_ = symbols;
  n_ = n;
  for (int s = 0; s < 256; ++s) {
    Number& num = number_[s];
    const int v = table[s];
    num.len = static_cast<uint8_t>(v >= 100 ? 3 : v >= 10 ? 2 : 1);
    for (int k = num.len - 1, x = v; k >= 0; --k, x /= 10) num.digit[k] = static_cast<uint8_t>('0' + x % 10);
    num.code3 = bz::DecimalBwt::code_of3(num.digit, num.len);
    num.used = 0;
    for (int k = 0; k < num.len; ++k) num.used |= static_cast<uint16_t>(1u << (num.digit[k] - '0'));
  }
  uint64_t text_len = n - 1;  // the spaces
  for (size_t i = 0; i < n; ++i) text_len += number_[symbols[i]].len;
  cut_ = Cursor{};
  tokens_at_ = Cursor{};
  uint64_t bits = 0;
  for (uint64_t begin = 0; begin < text_len;) {
    const uint64_t end = block_end(begin, text_len);
    bits += block_bits(begin, end);
    begin = end;
  }
  return bz::stream_bytes(bits);
}

// bz::slice_block_end on the text without writing it.
uint64_t Bzip2SizeModel::block_end(uint64_t begin, uint64_t text_len) {
  uint64_t q = begin + bz::block_limit(5);
  if (q + 1 >= text_len) return text_len;
  while (q < text_len && char_at(cut_, q) == char_at(cut_, q - 1)) ++q;
  return q + 2 <= text_len ? q : text_len;
}

// The text's character at q, for q at or after the space before cursor c's sample (c moves
// forward to q's sample).
char Bzip2SizeModel::char_at(Cursor& c, uint64_t q) const {
  while (q > c.o + number_[symbols_[c.i]].len) {
    c.o += number_[symbols_[c.i]].len + 1u;
    ++c.i;
  }
  if (q < c.o) return ' ';  // the space before the cursor's sample
  const Number& num = number_[symbols_[c.i]];
  const uint64_t p = q - c.o;
  return p < num.len ? static_cast<char>(num.digit[p]) : ' ';
}

// Block [begin, end) of the text: the samples whose spaces it holds, the first one's digits
// from `begin` and the next one's up to `end` (the wrapped token, head then tail).
uint64_t Bzip2SizeModel::block_bits(uint64_t begin, uint64_t end) {
  Cursor& c = tokens_at_;
  auto len_of = [&](size_t i) { return static_cast<uint64_t>(number_[symbols_[i]].len); };
  while (c.i + 1 < n_ && c.o + len_of(c.i) < begin) {
    c.o += len_of(c.i) + 1;
    ++c.i;
  }
  const size_t a = c.i;
  const uint64_t oa = c.o;
  if (!(a + 1 < n_ && oa + len_of(a) < end)) return small_block_bits(begin, end);
  tokens_.clear();
  uint16_t used = 1u << 10;  // the space
  size_t j = a;
  uint64_t oj = oa;
  while (j + 2 < n_ && oj + len_of(j) + 1 + len_of(j + 1) < end) {
    oj += len_of(j) + 1;
    ++j;
    const Number& num = number_[symbols_[j]];
    tokens_.push_back(num.code3);
    used |= num.used;
  }
  if (tokens_.size() + 1 >= (size_t{1} << bz::DecimalBwt::kIndexBits)) return small_block_bits(begin, end);
  if (tokens_.empty()) return small_block_bits(begin, end);
  c.i = j + 1;
  c.o = oj + len_of(j) + 1;
  uint8_t wrapped[6];
  const auto head = static_cast<uint32_t>(end - c.o), tail = static_cast<uint32_t>(oa + len_of(a) - begin);
  const Number& next = number_[symbols_[c.i]];
  const Number& first = number_[symbols_[a]];
  for (uint32_t k = 0; k < head; ++k) wrapped[k] = next.digit[k];
  for (uint32_t k = 0; k < tail; ++k) wrapped[head + k] = first.digit[first.len - tail + k];
  for (uint32_t k = 0; k < head + tail; ++k) used |= static_cast<uint16_t>(1u << (wrapped[k] - '0'));
  const auto len = static_cast<size_t>(end - begin);
  last_.resize(len);
  bwt_.transform_tokens(tokens_.data(), tokens_.size(), wrapped, head + tail, last_.data());  // checked above
  return transform_bits(len, used);
}

// A block with fewer than 2 spaces (a few characters at the text's end), or too many tokens for
// DecimalBwt's keys (a block of 2 MB or more): written out.
uint64_t Bzip2SizeModel::small_block_bits(uint64_t begin, uint64_t end) {
  small_.clear();
  Cursor c = tokens_at_;
  for (uint64_t q = begin; q < end; ++q) small_.push_back(static_cast<uint8_t>(char_at(c, q)));
  last_.resize(small_.size());
  if (!bwt_.transform(small_.data(), small_.size(), last_.data()))
    last_ = bz::rotation_bwt(small_.data(), small_.size());
  uint16_t used = 0;
  for (uint8_t ch : small_) used |= static_cast<uint16_t>(ch == ' ' ? 1u << 10 : 1u << (ch - '0'));
  return transform_bits(small_.size(), used);
}

// The steps after the transform last_[0..len): bit d of `used` for digit d, bit 10 for the
// space (set whenever the block has a space).
uint64_t Bzip2SizeModel::transform_bits(size_t len, uint16_t digits_used) {
  bool used[256] = {};
  for (int d = 0; d < 10; ++d) used['0' + d] = (digits_used >> d) & 1u;
  used[' '] = (digits_used >> 10) & 1u;
  uint8_t seq_of[256];
  int ranges = 0;
  const int in_use = bz::map_used_bytes(used, seq_of, ranges);
  places_.resize(len);
  bz::mtf_places(last_.data(), static_cast<int32_t>(len), seq_of, in_use, places_.data());
  mtfv_.resize(len + 1);
  int32_t freq[bz::kMaxAlpha];
  const int32_t n_mtf = bz::zero_run_code(places_.data(), static_cast<int32_t>(len), in_use, mtfv_.data(), freq);
  return bz::block_bits_grouped(mtfv_.data(), n_mtf, freq, in_use, ranges, groups_);
}

}  // namespace ea
