// The Burrows-Wheeler transform by numbers (bz::token_bwt's steps, src/stats/token_bwt.hpp,
// the host reference): a block's spaces cut it into numbers (the last one wraps around the
// block's end); the rotations of numbers are sorted (rotation_sort.cuh, pass 0 on the codes
// of 4-5 numbers); then every character, keyed by (block slot, the rest of its number as 6
// base-11 digits), is emitted in its next number's rotation order and sorted stably: the
// sorted characters' preceding characters are the transform.
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "bzip2/bwt.cuh"
#include "bzip2/rotation_sort.cuh"
#include "stats/token_bwt.hpp"

namespace ea::gpubz {

namespace {

__constant__ uint32_t kPow11[7] = {1, 11, 121, 1331, 14641, 161051, 1771561};  // 11^0 .. 11^6
// The final sort's key below the slot: a number's rest by its first 3 base-11 digits (11
// bits), then 2 bits that order the rests longer than 3 digits (only the number that wraps
// around a block's end has any: at most 3 of them) after the others with those 3 digits.
constexpr int kTailBits = 13;
constexpr int kFirstKeyBits = 56;

// The numbers' table: slot b's numbers are kTokenDigits-long runs g = begin[b] ..
// begin[b] + len[b] - 1; a slot without numbers has its successor's begin.
struct TokenTable {
  const uint32_t* begin;
  const uint32_t* len;
  uint32_t slots;
  // The last slot whose first number is at or before g (the one holding it).
  __device__ __forceinline__ uint32_t slot_of(uint32_t g) const {
    uint32_t lo = 0, hi = slots;
    while (hi - lo > 1) {
      const uint32_t mid = (lo + hi) / 2;
      if (begin[mid] <= g) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
};

// Digit i (0 first) of a digits code, 0 past its last digit; its number of digits.
__device__ __forceinline__ uint32_t digit_at(uint32_t code, int i) { return (code / kPow11[5 - i]) % 11; }
__device__ __forceinline__ uint32_t digit_count(uint32_t code) {
  uint32_t n = 0;
  while (n < bz::kTokenDigits && digit_at(code, static_cast<int>(n)) != 0) ++n;
  return n;
}

__global__ void space_flags_kernel(const uint8_t* text, uint32_t total, uint8_t* flags) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) flags[i] = text[i] == ' ';
}

__device__ __forceinline__ uint32_t lower_bound(const uint32_t* a, uint32_t n, uint32_t x) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (a[mid] < x) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Each slot's first number (the one after its first space) and count (its spaces), from
// the `*count` spaces' places.
__global__ void token_slots_kernel(const uint32_t* spaces, const uint32_t* count, BlockTable t, uint32_t slots,
                                   uint32_t* tok_begin, uint32_t* tok_len) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= slots) return;
  const uint32_t s = *count;
  const uint32_t lo = lower_bound(spaces, s, t.begin[b]), hi = lower_bound(spaces, s, t.begin[b] + t.len[b]);
  tok_begin[b] = lo;
  tok_len[b] = hi - lo;
}

// A number of at most 3 digits has a digits code that is a multiple of 11^3: its token code
// (2 x its place among the numbers, + 1 where present) indexed by code / 11^3, so that
// token_kernel looks it up (searching the numbers' table in shared memory at a different
// place per thread collided on banks: 4.6-way on the H200).
constexpr uint32_t kShortCodes = 1331;  // 11^3
struct ShortCodes {
  uint16_t token[kShortCodes];
};

ShortCodes short_codes(const Numbers& numbers) {
  ShortCodes sc{};
  for (uint32_t i = 0; i < kShortCodes; ++i) {
    const uint32_t code = i * kShortCodes;
    const uint32_t lo = static_cast<uint32_t>(std::lower_bound(numbers.code, numbers.code + numbers.count, code) -
                                              numbers.code);
    sc.token[i] = static_cast<uint16_t>(2 * lo + (lo < numbers.count && numbers.code[lo] == code ? 1u : 0u));
  }
  return sc;
}

// Number g: its digits (after space g, up to the next space of its block, the last one
// around the block's end) as a digits code, and its code among `numbers`.
__global__ void token_kernel(const uint8_t* text, const uint32_t* spaces, uint32_t s, TokenTable tt, BlockTable t,
                             Numbers numbers, ShortCodes short_tokens, uint32_t* tok_digits, uint32_t* tok_code) {
  __shared__ uint16_t table[kShortCodes];
  for (uint32_t k = threadIdx.x; k < kShortCodes; k += blockDim.x) table[k] = short_tokens.token[k];
  __syncthreads();
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= s) return;
  const uint32_t b = tt.slot_of(g);
  const uint32_t first = tt.begin[b], count = tt.len[b];
  const uint32_t begin = t.begin[b], len = t.len[b];
  const uint32_t start = spaces[g] + 1;
  const uint32_t end = g + 1 < first + count ? spaces[g + 1] : spaces[first] + len;
  const uint32_t n = end - start;  // at most kTokenDigits (numbers of at most 3 digits)
  uint32_t code = 0;
  for (uint32_t i = 0; i < bz::kTokenDigits; ++i) {
    uint32_t at = start + i;
    if (at >= begin + len) at -= len;
    code = code * 11 + (i < n ? text[at] - '0' + 1u : 0u);
  }
  tok_digits[g] = code;
  if (code % kShortCodes == 0) {
    tok_code[g] = table[code / kShortCodes];
    return;
  }
  uint32_t lo = 0, hi = numbers.count;  // (the number around a block's end may be longer)
  while (lo < hi) {
    const uint32_t mid = (lo + hi) / 2;
    if (numbers.code[mid] < code) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  tok_code[g] = 2 * lo + (lo < numbers.count && numbers.code[lo] == code ? 1u : 0u);
}

// Pass 0 keys: slot, then the codes (< radix) of `tokens` numbers from g on (cyclic in its
// block), in base radix.
__global__ void token_first_keys_kernel(const uint32_t* tok_code, uint32_t s, TokenTable tt, uint32_t radix,
                                        int tokens, uint64_t* keys, uint32_t* vals) {
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= s) return;
  const uint32_t b = tt.slot_of(g);
  const uint32_t first = tt.begin[b], count = tt.len[b];
  uint32_t o = g - first;
  uint64_t key = b;
  for (int i = 0; i < tokens; ++i) {
    key = key * radix + tok_code[first + o];
    o = o + 1 == count ? 0 : o + 1;
  }
  keys[g] = key;
  vals[g] = g;
}

// The number before the one at sorted place r (cyclic in its block).
__device__ __forceinline__ uint32_t number_before(const uint32_t* order, uint32_t r, const TokenTable& tt,
                                                  uint32_t& b) {
  b = tt.slot_of(r);
  const uint32_t u = order[r];
  return u == tt.begin[b] ? tt.begin[b] + tt.len[b] - 1 : u - 1;
}

// Characters each sorted number rotation emits: its preceding number's digits and the space.
__global__ void emit_counts_kernel(const uint32_t* order, uint32_t s, TokenTable tt, const uint32_t* tok_digits,
                                   uint32_t* counts) {
  const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= s) return;
  uint32_t b = 0;
  counts[r] = digit_count(tok_digits[number_before(order, r, tt, b)]) + 1;
}

// The 13-bit key of rest j of a number with digits code `code` and n digits (kTailBits).
__device__ __forceinline__ uint32_t tail_key(uint32_t code, uint32_t n, uint32_t j) {
  const uint32_t tail = static_cast<uint32_t>((static_cast<uint64_t>(code) * kPow11[j]) % kPow11[6]);
  const uint32_t head = tail / kPow11[3];
  if (tail % kPow11[3] == 0) return head << 2;
  uint32_t below = 0;  // the same number's longer rests with this head and less
  for (uint32_t i = 0; i <= n; ++i) {
    const uint32_t other = static_cast<uint32_t>((static_cast<uint64_t>(code) * kPow11[i]) % kPow11[6]);
    below += other / kPow11[3] == head && other % kPow11[3] != 0 && other < tail;
  }
  return head << 2 | (1 + below);
}

// Rotation (k, j) of the number k before sorted place r: key (slot, digits j.. of k: tail_key),
// the character before it (digit j - 1, or the space before k). A CTA's places emit one
// contiguous range (offsets is their exclusive scan): staged in shared memory, then stored
// side by side (each thread storing its own places at offsets[r] touched 3 times the
// sectors it used on the H200).
constexpr uint32_t kMaxEmitted = bz::kTokenDigits + 1;  // a number's digits and its space
__global__ void __launch_bounds__(kThreads) emit_kernel(const uint32_t* order, const uint32_t* offsets, uint32_t s,
                                                        TokenTable tt, const uint32_t* tok_digits, uint32_t* keys,
                                                        uint8_t* chars) {
  __shared__ uint32_t staged_keys[kThreads * kMaxEmitted];
  __shared__ uint8_t staged_chars[kThreads * kMaxEmitted];
  __shared__ uint32_t emitted;
  const uint32_t r0 = blockIdx.x * blockDim.x, r = r0 + threadIdx.x;
  const uint32_t base = offsets[r0];  // (r0 < s: grid_for(s))
  if (r < s) {
    uint32_t b = 0;
    const uint32_t code = tok_digits[number_before(order, r, tt, b)];
    const uint32_t n = digit_count(code), at = offsets[r] - base;
    for (uint32_t j = 0; j <= n; ++j) {
      staged_keys[at + j] = b << kTailBits | tail_key(code, n, j);
      staged_chars[at + j] = j == 0 ? static_cast<uint8_t>(' ') : static_cast<uint8_t>('0' + digit_at(code, j - 1) - 1);
    }
    if (r + 1 == min(s, r0 + blockDim.x)) emitted = at + n + 1;
  }
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < emitted; i += blockDim.x) {
    keys[base + i] = staged_keys[i];
    chars[base + i] = staged_chars[i];
  }
}

}  // namespace

Numbers numbers_of_values(const bool (&present)[256]) {
  std::vector<uint32_t> codes;
  for (uint32_t v = 0; v < 256; ++v) {
    if (!present[v]) continue;
    const uint32_t d[3] = {v / 100, (v / 10) % 10, v % 10};
    const uint32_t first = v >= 100 ? 0 : v >= 10 ? 1 : 2;  // no leading zeros
    uint32_t code = 0;
    for (uint32_t i = 0; i < bz::kTokenDigits; ++i) code = code * 11 + (first + i < 3 ? d[first + i] + 1 : 0);
    codes.push_back(code);
  }
  std::sort(codes.begin(), codes.end());
  Numbers n{};
  n.count = static_cast<uint32_t>(codes.size());
  std::copy(codes.begin(), codes.end(), n.code);
  return n;
}

bool numbers_of_text(const std::vector<uint8_t>& text, Numbers& numbers) {
  std::set<uint32_t> codes = {0};  // the empty number: between two spaces in a row
  for (size_t i = 0; i < text.size();) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    size_t j = i;
    uint32_t code = 0;
    while (j < text.size() && text[j] != ' ') code = code * 11 + (text[j++] - '0' + 1u);
    if (j - i > 3) return false;
    for (size_t k = j - i; k < bz::kTokenDigits; ++k) code *= 11;
    codes.insert(code);
    i = j;
  }
  if (codes.size() > kMaxNumbers) return false;
  numbers = Numbers{};
  numbers.count = static_cast<uint32_t>(codes.size());
  std::copy(codes.begin(), codes.end(), numbers.code);
  return true;
}

bool token_transform(const uint8_t* text, uint32_t total, const BlockTable& t, uint32_t slots, const Numbers& numbers,
                     BwtWorkspace& ws, uint8_t* last, cudaStream_t st, StageTimer& timer, uint32_t& tied) {
  const int slot_bits = bits_for(slots - 1);
  if (slots == 0 || slot_bits + kTailBits > 32 || numbers.count == 0) return false;
  // The spaces' places (a block's numbers follow them), then each slot's numbers.
  space_flags_kernel<<<grid_for(total), kThreads, 0, st>>>(text, total, ws.flags.get());
  size_t bytes = ws.temp.size();
  EA_CUDA_CHECK(cub::DeviceSelect::Flagged(ws.temp.get(), bytes, thrust::counting_iterator<uint32_t>(0),
                                           ws.flags.get(), ws.list.get(), ws.selected.get(), static_cast<int>(total),
                                           st));
  token_slots_kernel<<<grid_for(slots, 64), 64, 0, st>>>(ws.list.get(), ws.selected.get(), t, slots,
                                                         ws.tok_begin.get(), ws.tok_len.get());
  EA_CUDA_CHECK(cudaGetLastError());
  EA_CUDA_CHECK(cudaMemcpyAsync(ws.host_selected.get(), ws.selected.get(), sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
  EA_CUDA_CHECK(cudaMemcpyAsync(ws.host_lens.get(), ws.tok_len.get(), slots * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                st));
  EA_CUDA_CHECK(cudaMemcpyAsync(ws.host_text_lens.get(), t.len, slots * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
  timer.sync(st);
  for (uint32_t b = 0; b < slots; ++b) {
    if (ws.host_text_lens.get()[b] > 0 && ws.host_lens.get()[b] == 0) return false;  // a block of one number
  }
  const uint32_t s = *ws.host_selected.get();
  const TokenTable tt{ws.tok_begin.get(), ws.tok_len.get(), slots};
  token_kernel<<<grid_for(s), kThreads, 0, st>>>(text, ws.list.get(), s, tt, t, numbers, short_codes(numbers),
                                                 ws.tok_digits.get(), ws.tok_code.get());
  // The rotations of numbers in order (ws.host_lens still holds each slot's count).
  // Codes (2 x count + 1 of them: present numbers odd, absent ones even) beside the slot: as
  // many as fit in 48 bits (6 radix passes) where random data's numbers there carry at least
  // 8 bits more than log2 of a block's numbers (rotations then seldom tie), else as many as
  // fit in kFirstKeyBits. On the H200 (10,000 permutations, sort and doubling): 8-bit values
  // 4 numbers 0.12 s faster than 5; 4-bit 7 numbers 0.12 s faster than 9; 1-bit 17 numbers
  // (17 bits for 2^19 numbers a block) 0.73 s slower than 20.
  const uint32_t radix = 2 * numbers.count + 1;
  const uint32_t most = *std::max_element(ws.host_lens.get(), ws.host_lens.get() + slots);
  const double needed = std::log2(std::max(most, 1u)) + 8, per_number = std::log2(numbers.count);
  int tokens = 0;
  uint64_t span = 1;
  for (const int bits : {48, kFirstKeyBits}) {
    const uint64_t room = bits > slot_bits ? (uint64_t{1} << bits) >> slot_bits : 1;
    tokens = 1;
    span = radix;
    while (span <= room / radix) {
      span *= radix;
      ++tokens;
    }
    if (tokens * per_number >= needed) break;
  }
  token_first_keys_kernel<<<grid_for(s), kThreads, 0, st>>>(ws.tok_code.get(), s, tt, radix, tokens,
                                                            ws.keys[0].get(), ws.vals[0].get());
  EA_CUDA_CHECK(cudaGetLastError());
  const int key_bits = bits_for(static_cast<uint64_t>(slots) * span - 1);
  tied = sort_rotations(tt, s, slots, key_bits, static_cast<uint64_t>(tokens), ws, st, timer);
  // Every character from its number's rotation, then stably on (slot, the rest of its number).
  emit_counts_kernel<<<grid_for(s), kThreads, 0, st>>>(ws.head_a.get(), s, tt, ws.tok_digits.get(), ws.list.get());
  bytes = ws.temp.size();
  EA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(ws.temp.get(), bytes, ws.list.get(), ws.head_b.get(), static_cast<int>(s),
                                              st));
  cub::DoubleBuffer<uint32_t> keys(reinterpret_cast<uint32_t*>(ws.keys[0].get()),
                                   reinterpret_cast<uint32_t*>(ws.keys[1].get()));
  cub::DoubleBuffer<uint8_t> chars(ws.flags.get(), last);
  emit_kernel<<<grid_for(s), kThreads, 0, st>>>(ws.head_a.get(), ws.head_b.get(), s, tt, ws.tok_digits.get(),
                                                keys.Current(), chars.Current());
  EA_CUDA_CHECK(cudaGetLastError());
  bytes = ws.temp.size();
  EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(ws.temp.get(), bytes, keys, chars, static_cast<int>(total), 0,
                                                slot_bits + kTailBits, st));
  if (chars.Current() != last) {
    EA_CUDA_CHECK(cudaMemcpyAsync(last, chars.Current(), total, cudaMemcpyDeviceToDevice, st));
  }
  timer.mark(5, st);
  return true;
}

}  // namespace ea::gpubz
