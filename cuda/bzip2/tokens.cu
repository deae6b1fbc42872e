// The Burrows-Wheeler transform by numbers (bz::token_bwt's steps, src/stats/token_bwt.hpp,
// the host reference): a block's spaces cut it into numbers (the last one wraps around the
// block's end); the rotations of numbers are sorted (rotation_sort.cuh, pass 0 on the codes
// of several numbers, beside each rotation's place in its key where they fit: number_keys);
// then every character, keyed by (block slot, the rest of its number as 6 base-11 digits), is
// emitted in its next number's rotation order and sorted stably: the sorted characters'
// preceding characters are the transform. The final sort's key holds the rest's class (its
// rank among the rests its block can have: RestClasses) instead of the rest, so that it fits
// 16 bits (2 radix passes over 2-byte keys) for a share of the slots.
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

// A digits code's first digit is code / kFirst; its rests' first 3 digits are tail / kHead.
// (Constants, so that divisions by them are multiplications: the powers of 11 read from
// constant memory made emit_kernel's divisions real ones.)
constexpr uint32_t kFirst = 161051;  // 11^5
constexpr uint32_t kHead = 1331;     // 11^3
static_assert(kShortTokens == kHead, "BwtWorkspace's room for the short numbers' tokens");
// A rest's tail key (ranked into its class for the final sort: RestClasses): its first 3
// base-11 digits (11 bits), then 2 bits that order the rests longer than 3 digits (only the
// number that wraps around a block's end has any: at most 3 of them) after the others with
// those 3 digits.
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

// The code of digits 1.. of a digits code (its first digit dropped, the rest moved up); a
// digits code's number of digits.
__host__ __device__ __forceinline__ uint32_t shift_digits(uint32_t code) { return code % kFirst * 11; }
__host__ __device__ __forceinline__ uint32_t digit_count(uint32_t code) {
  uint32_t n = 0;
  for (; n < bz::kTokenDigits && code / kFirst != 0; ++n) code = shift_digits(code);
  return n;
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

// The token code (2 x its place among the numbers, + 1 where it is one) of each digits code
// of at most 3 digits (a multiple of 11^3), by code / 11^3: token_kernel looks those up in
// global memory (searching a shared copy of the numbers' table collided on banks, 4.6-way
// on the H200; a shared copy of this table per CTA took longer than the search).
void short_tokens(const Numbers& numbers, uint16_t* token) {
  for (uint32_t i = 0; i < kShortTokens; ++i) {
    const uint32_t code = i * kHead;
    const uint32_t lo = static_cast<uint32_t>(std::lower_bound(numbers.code, numbers.code + numbers.count, code) -
                                              numbers.code);
    token[i] = static_cast<uint16_t>(2 * lo + (lo < numbers.count && numbers.code[lo] == code ? 1u : 0u));
  }
}

// Number g: its digits (after space g, up to the next space of its block, the last one
// around the block's end) as a digits code, and its code among `numbers`.
__global__ void token_kernel(const uint8_t* text, const uint32_t* spaces, uint32_t s, TokenTable tt, BlockTable t,
                             Numbers numbers, const uint16_t* short_token, uint32_t* tok_digits, uint32_t* tok_code) {
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
  if (code % kHead == 0) {
    tok_code[g] = __ldg(short_token + code / kHead);
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

// Pass 0's keys (rotation_sort.cuh's Pass0) of the numbers' rotations: slot, then the codes
// (< radix) of `tokens` numbers from g on (cyclic in its block) in base radix, then the top
// `extra` bits of the next one's (code x 2^extra / radix: an order-keeping part of it). Packed
// (pos_bits > 0): the slot at bit tok_bits, the codes below it, all above g's place in its
// block in the low pos_bits bits; else the slot times radix^tokens, and vals[g] = g.
struct NumberKeys {
  uint32_t radix;
  int tokens, extra, pos_bits, tok_bits;
};
__global__ void token_first_keys_kernel(const uint32_t* tok_code, uint32_t s, TokenTable tt, NumberKeys nk,
                                        uint64_t* keys, uint32_t* vals) {
  const uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= s) return;
  const uint32_t b = tt.slot_of(g);
  const uint32_t first = tt.begin[b], count = tt.len[b];
  uint32_t o = g - first;
  uint64_t key = nk.pos_bits > 0 ? 0 : b;
  for (int i = 0; i < nk.tokens; ++i) {
    key = key * nk.radix + tok_code[first + o];
    o = o + 1 == count ? 0 : o + 1;
  }
  if (nk.extra > 0) key = key << nk.extra | (tok_code[first + o] << nk.extra) / nk.radix;
  if (nk.pos_bits > 0) {
    keys[g] = ((static_cast<uint64_t>(b) << nk.tok_bits | key) << nk.pos_bits) | (g - first);
  } else {
    keys[g] = key;
    vals[g] = g;
  }
}

// The number before the one at sorted place r (cyclic in its block).
__device__ __forceinline__ uint32_t number_before(const uint32_t* order, uint32_t r, const TokenTable& tt,
                                                  uint32_t& b) {
  b = tt.slot_of(r);
  const uint32_t u = order[r];
  return u == tt.begin[b] ? tt.begin[b] + tt.len[b] - 1 : u - 1;
}

// Characters each sorted number rotation emits to the final sort: one per digit of its
// preceding number (the rotation at the space after it, of class 0, is placed by emit_kernel
// itself); prev[r] = that number's digits code (read in order by emit_kernel, which gathered it again
// by the rotation's place: 1.53 ms of a round of 70 copies of GetTickCount_8bit on the H200).
__global__ void emit_counts_kernel(const uint32_t* order, uint32_t s, TokenTable tt, const uint32_t* tok_digits,
                                   uint32_t* counts, uint32_t* prev) {
  const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= s) return;
  uint32_t b = 0;
  const uint32_t code = tok_digits[number_before(order, r, tt, b)];
  prev[r] = code;
  counts[r] = digit_count(code);
}

// The 13-bit key (kTailBits) of the rest of a number (digits code `code`, n digits) whose
// digits code is `tail` (code with j digits shifted out).
__device__ __forceinline__ uint32_t tail_key_of(uint32_t code, uint32_t n, uint32_t tail) {
  const uint32_t head = tail / kHead;
  if (tail % kHead == 0) return head << 2;
  uint32_t below = 0;  // the same number's longer rests with this head and less
  uint32_t other = code;
  for (uint32_t i = 0; i <= n; ++i, other = shift_digits(other)) {
    below += other / kHead == head && other % kHead != 0 && other < tail;
  }
  return head << 2 | (1 + below);
}

// The same for rest j.
__device__ __forceinline__ uint32_t tail_key(uint32_t code, uint32_t n, uint32_t j) {
  uint32_t tail = code;
  for (uint32_t i = 0; i < j; ++i) tail = shift_digits(tail);
  return tail_key_of(code, n, tail);
}

// The final sort's classes of rests. A block's characters have the rests of the round's
// numbers (the same in every block: classes_kernel ranks their tail keys) and those of the
// block's number around its end that are none of them (at most kTokenDigits + 1 a block:
// wrap_rests_kernel). A rest's class is the count of those below it in its block, so that
// classes order a block's rests as their tail keys do, in fewer bits; a rest that is none of
// them is a device error (never a size).
static_assert(kTailKeys == 1u << kTailBits && bz::kTokenDigits + 1 <= kWrapRests, "BwtWorkspace's room for classes");

struct RestClasses {
  uint32_t* short_class;  // kTailKeys: (the numbers' rests below key) << 1 | (key is one of them)
  uint32_t* wrap;         // kWrapRests a slot: its other tail keys, then ~0u
  int class_bits;         // a block's classes fit these bits
  int piece_bits;         // the slot's place in its piece of slots: the key's top bits
  // Slot b's other tail keys, read once for all the characters of a number.
  __device__ __forceinline__ void load_wrap(uint32_t b, uint32_t (&w)[kWrapRests]) const {
    const uint4* p = reinterpret_cast<const uint4*>(wrap + b * kWrapRests);
    const uint4 x = p[0], y = p[1];
    const uint32_t v[kWrapRests] = {x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w};
#pragma unroll
    for (uint32_t i = 0; i < kWrapRests; ++i) w[i] = v[i];
  }
  __device__ __forceinline__ uint32_t key(uint32_t b, uint32_t tk, const uint32_t (&w)[kWrapRests]) const {
    const uint32_t own = short_class[tk];
    uint32_t c = own >> 1;
    bool known = own & 1;
#pragma unroll
    for (uint32_t i = 0; i < kWrapRests; ++i) {
      c += w[i] < tk;
      known |= w[i] == tk;
    }
    if (!known || (c >> class_bits) != 0) __trap();
    return (b & ((1u << piece_bits) - 1)) << class_bits | c;
  }
};

// One CTA: RestClasses::short_class from the numbers' rests.
__global__ void classes_kernel(Numbers numbers, uint32_t* short_class) {
  __shared__ uint32_t present[kTailKeys / 32], below[kTailKeys / 32];
  for (uint32_t k = threadIdx.x; k < kTailKeys / 32; k += blockDim.x) present[k] = 0;
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < numbers.count; i += blockDim.x) {
    const uint32_t code = numbers.code[i], n = digit_count(code);
    for (uint32_t j = 0; j <= n; ++j) {
      const uint32_t k = tail_key(code, n, j);
      atomicOr(&present[k / 32], 1u << (k % 32));
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t sum = 0;
    for (uint32_t k = 0; k < kTailKeys / 32; ++k) {
      below[k] = sum;
      sum += __popc(present[k]);
    }
  }
  __syncthreads();
  for (uint32_t k = threadIdx.x; k < kTailKeys; k += blockDim.x) {
    const uint32_t w = present[k / 32], bit = k % 32;
    short_class[k] = (below[k / 32] + __popc(w & ((1u << bit) - 1))) << 1 | ((w >> bit) & 1);
  }
}

// A thread a slot: RestClasses::wrap, the rests of its last number (the one around its end)
// that are not the numbers'.
__global__ void wrap_rests_kernel(TokenTable tt, const uint32_t* tok_digits, RestClasses rc) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= tt.slots) return;
  uint32_t* own = rc.wrap + b * kWrapRests;
  uint32_t k = 0;
  if (tt.len[b] > 0) {
    const uint32_t code = tok_digits[tt.begin[b] + tt.len[b] - 1], n = digit_count(code);
    for (uint32_t j = 0; j <= n; ++j) {
      const uint32_t tk = tail_key(code, n, j);
      if (!(rc.short_class[tk] & 1)) own[k++] = tk;
    }
  }
  for (; k < kWrapRests; ++k) own[k] = ~0u;
}

// Rotation (k, j) of the number k before sorted place r (digits code prev[r]), j < its digits:
// key (slot, the class of digits j.. of k), the character before it (digit j - 1, or the
// space before k). Rotation (k, n), at the space after k, has the empty rest, class 0, the
// smallest: a block's class-0 rotations come first in its sorted order, one a number, in
// their next number's order (the order of r), so the character before it (k's last digit, or
// the space before an empty k) goes straight to its place in `last`.
__global__ void emit_kernel(const uint32_t* prev, const uint32_t* offsets, uint32_t s, TokenTable tt, BlockTable t,
                            RestClasses rc, uint16_t* keys, uint8_t* chars, uint8_t* last) {
  const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= s) return;
  const uint32_t b = tt.slot_of(r);
  const uint32_t code = prev[r];
  const uint32_t n = digit_count(code), at = offsets[r];
  uint32_t wrap[kWrapRests];
  rc.load_wrap(b, wrap);
  uint32_t tail = code;  // digits j.. of the number
  uint8_t before = ' ';   // the character before them
  for (uint32_t j = 0; j < n; ++j) {
    keys[at + j] = static_cast<uint16_t>(rc.key(b, tail_key_of(code, n, tail), wrap));
    chars[at + j] = before;
    before = static_cast<uint8_t>('0' + tail / kFirst - 1);
    tail = shift_digits(tail);
  }
  last[t.begin[b] + (r - tt.begin[b])] = before;
}

// A CTA a slot: the slot's sorted characters of classes above 0 (`rests`, slots back to back:
// slot b's from t.begin[b] - tt.begin[b], its characters less its numbers before it) after
// its class-0 ones in `last`.
__global__ void place_rests_kernel(const uint8_t* rests, TokenTable tt, BlockTable t, uint8_t* last) {
  const uint32_t b = blockIdx.x;
  const uint32_t numbers = tt.len[b], count = t.len[b] - numbers;
  const uint8_t* from = rests + (t.begin[b] - tt.begin[b]);
  uint8_t* to = last + t.begin[b] + numbers;
  for (uint32_t i = threadIdx.x; i < count; i += blockDim.x) to[i] = from[i];
}

// The numbers' distinct rests (digits j.. of each, as tails of 6 base-11 digits): at least
// classes_kernel's count of their tail keys.
uint32_t rests_of_numbers(const Numbers& numbers) {
  std::set<uint32_t> tails;
  for (uint32_t i = 0; i < numbers.count; ++i) {
    const uint32_t code = numbers.code[i], n = digit_count(code);
    uint32_t tail = code;
    for (uint32_t j = 0; j <= n; ++j, tail = shift_digits(tail)) tails.insert(tail);
  }
  return static_cast<uint32_t>(tails.size());
}

// What a round's numbers alone decide, kept in `ws` while the next rounds' numbers are the
// same (the rounds of one data set): the short numbers' tokens (copied to the device), the
// classes of the numbers' rests (classes_kernel) and the bits of a block's classes.
// (token_transform has waited for the stream: no copy from host_short_tokens is pending.)
int number_tables(const Numbers& numbers, BwtWorkspace& ws, cudaStream_t st) {
  if (ws.numbers_kept && ws.numbers.count == numbers.count &&
      std::equal(numbers.code, numbers.code + numbers.count, ws.numbers.code)) {
    return ws.class_bits;
  }
  ws.numbers_kept = false;
  short_tokens(numbers, ws.host_short_tokens.get());
  EA_CUDA_CHECK(cudaMemcpyAsync(ws.short_tokens.get(), ws.host_short_tokens.get(), kShortTokens * sizeof(uint16_t),
                                cudaMemcpyHostToDevice, st));
  classes_kernel<<<1, kThreads, 0, st>>>(numbers, ws.short_class.get());
  EA_CUDA_CHECK(cudaGetLastError());
  ws.class_bits = bits_for(rests_of_numbers(numbers) + bz::kTokenDigits);
  ws.numbers = numbers;
  ws.numbers_kept = true;
  return ws.class_bits;
}

// The characters of classes above 0 sorted stably on their keys, in pieces of 2^piece_bits
// slots (a piece's characters are contiguous: emitted in slot order), into `rests` (a slot's
// text length less its numbers, the class-0 characters emit_kernel placed).
void sort_pieces(uint32_t slots, int piece_bits, int key_bits, BwtWorkspace& ws, uint8_t* rests, cudaStream_t st) {
  const uint32_t* lens = ws.host_text_lens.get();
  const uint32_t* numbers = ws.host_lens.get();
  uint32_t from = 0;
  for (uint32_t first = 0; first < slots; first += 1u << piece_bits) {
    const uint32_t end = std::min<uint64_t>(slots, uint64_t{first} + (1u << piece_bits));
    uint32_t n = 0;
    for (uint32_t b = first; b < end; ++b) n += lens[b] - numbers[b];
    if (n == 0) continue;
    cub::DoubleBuffer<uint16_t> keys(reinterpret_cast<uint16_t*>(ws.keys[0].get()) + from,
                                     reinterpret_cast<uint16_t*>(ws.keys[1].get()) + from);
    cub::DoubleBuffer<uint8_t> chars(ws.flags.get() + from, rests + from);
    size_t bytes = ws.temp.size();
    EA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(ws.temp.get(), bytes, keys, chars, static_cast<int>(n), 0, key_bits,
                                                  st));
    if (chars.Current() != rests + from) {
      EA_CUDA_CHECK(cudaMemcpyAsync(rests + from, chars.Current(), n, cudaMemcpyDeviceToDevice, st));
    }
    from += n;
  }
}

// The codes (< radix) and the top `extra` bits of the next one that fit `room` = 2^bits.
void fill_codes(uint64_t room, NumberKeys& nk) {
  uint64_t span = 1;
  nk.tokens = 0;
  while (span <= room / nk.radix) {
    span *= nk.radix;
    ++nk.tokens;
  }
  nk.extra = 0;
  while ((span << (nk.extra + 1)) <= room) ++nk.extra;
}

// Pass 0's keys: codes (2 x count + 1 of them: present numbers odd, absent ones even)
// beside the slot, enough that random data's numbers there carry at least 8 bits more than
// log2 of a block's numbers (rotations then seldom tie). Packed (the keys sorted alone,
// rotation_sort.cuh's Pass0; 8 bytes a rotation a radix pass) where that many fit in 40
// compared bits (5 radix passes), else in 48 (6), or in fewer where a block's places leave
// less; else in pairs (12 bytes), as many codes as fit in 48 bits or, where those carry too
// little, in kFirstKeyBits. Then the doubling (sort_rotations).
// Measured on the H200, 10,000 permutations, the whole GPU model:
// - session 49, with pass 0's tie-break: GetTickCount_8bit / truerand_8bit in 40 bits
//   3.02-3.04 / 2.97-3.00 s against 48 bits 3.10-3.17 / 3.04-3.06 s (the sort stage
//   0.83-0.90 -> 0.76-0.79 s); truerand_4bit, whose codes in 40 bits carry too few, 2.69-2.71 s
//   when forced there against 2.54-2.58 s in 48; 32 bits slower for both.
// - session 45, before the tie-break: GetTickCount_8bit and truerand_8bit packed in 46 bits
//   3.83-3.87 s against 3.99-4.09 s in pairs, in 40 bits (3 codes and 5 bits of the fourth:
//   twice the doubling then) 3.79-3.86 s; truerand_4bit packed in 45 bits 3.08-3.10 s against
//   3.19-3.24 s. In pairs: 8-bit values 4 numbers 0.12 s faster than 5; 4-bit 7 numbers 0.12 s
//   faster than 9; 1-bit 17 numbers (17 bits for 2^19 numbers a block) 0.73 s slower than 20.
Pass0 number_keys(uint32_t slots, int slot_bits, uint32_t radix, uint32_t most, uint32_t count, NumberKeys& nk) {
  const double needed = std::log2(std::max(most, 1u)) + 8, per_number = std::log2(count);
  nk.radix = radix;
  nk.pos_bits = bits_for(std::max(most, 1u) - 1);
  for (const int width : {40, 48}) {
    const int packed_bits = std::min(width, 64 - nk.pos_bits);
    nk.tok_bits = packed_bits - slot_bits;
    if (nk.tok_bits < 1) continue;
    fill_codes(uint64_t{1} << nk.tok_bits, nk);
    if (nk.tokens >= 1 && nk.tokens * per_number + std::min<double>(nk.extra, per_number) >= needed) {
      return Pass0{packed_bits, static_cast<uint64_t>(nk.tokens), nk.pos_bits, nk.pos_bits + nk.tok_bits};
    }
  }
  nk.pos_bits = 0;
  nk.tok_bits = 0;
  for (const int bits : {48, kFirstKeyBits}) {
    const uint64_t room = bits > slot_bits ? (uint64_t{1} << bits) >> slot_bits : 1;
    fill_codes(room, nk);
    nk.tokens = std::max(nk.tokens, 1);
    nk.extra = 0;
    if (nk.tokens * per_number >= needed) break;
  }
  uint64_t span = 1;
  for (int i = 0; i < nk.tokens; ++i) span *= radix;
  return Pass0{bits_for(static_cast<uint64_t>(slots) * span - 1), static_cast<uint64_t>(nk.tokens)};
}

uint32_t sort_numbers(const TokenTable& tt, uint32_t s, uint32_t slots, int slot_bits, uint32_t radix, uint32_t most,
                      uint32_t count, bool tie_break, BwtWorkspace& ws, cudaStream_t st, StageTimer& timer) {
  NumberKeys nk{};
  const Pass0 p0 = number_keys(slots, slot_bits, radix, most, count, nk);
  token_first_keys_kernel<<<grid_for(s), kThreads, 0, st>>>(ws.tok_code.get(), s, tt, nk, ws.keys[0].get(),
                                                            ws.vals[0].get());
  EA_CUDA_CHECK(cudaGetLastError());
  return sort_rotations(tt, s, slots, p0, ws, st, timer, tie_break ? ws.tok_code.get() : nullptr);
}

// Every character from its number's rotation (the rotations' order in ws.head_a): those of
// class 0 straight into `last`, the others stably sorted on (slot, the class of the rest of
// its number), in pieces of slots whose keys fit 16 bits where a round's do not, then placed
// after their slot's class-0 ones.
void emit_characters(const TokenTable& tt, const BlockTable& t, uint32_t s, uint32_t slots, int slot_bits,
                     int class_bits, BwtWorkspace& ws, uint8_t* last, cudaStream_t st) {
  const int piece_bits = slot_bits + class_bits <= 16 ? slot_bits : std::max(16 - class_bits, 1);
  const RestClasses rc{ws.short_class.get(), ws.wrap_rests.get(), class_bits, piece_bits};
  wrap_rests_kernel<<<grid_for(slots, 64), 64, 0, st>>>(tt, ws.tok_digits.get(), rc);
  // (tok_code, pass 0's, is free: it takes each rotation's preceding number)
  emit_counts_kernel<<<grid_for(s), kThreads, 0, st>>>(ws.head_a.get(), s, tt, ws.tok_digits.get(), ws.list.get(),
                                                       ws.tok_code.get());
  size_t bytes = ws.temp.size();
  EA_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(ws.temp.get(), bytes, ws.list.get(), ws.head_b.get(), static_cast<int>(s),
                                              st));
  emit_kernel<<<grid_for(s), kThreads, 0, st>>>(ws.tok_code.get(), ws.head_b.get(), s, tt, t, rc,
                                                reinterpret_cast<uint16_t*>(ws.keys[0].get()), ws.flags.get(), last);
  EA_CUDA_CHECK(cudaGetLastError());
  // (ws.list, the counts, is free once scanned: 4 bytes a character, the sorted rests' room)
  uint8_t* rests = reinterpret_cast<uint8_t*>(ws.list.get());
  sort_pieces(slots, piece_bits, piece_bits + class_bits, ws, rests, st);
  place_rests_kernel<<<slots, kThreads, 0, st>>>(rests, tt, t, last);
  EA_CUDA_CHECK(cudaGetLastError());
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
  size_t bytes = ws.temp.size();
  EA_CUDA_CHECK(cub::DeviceSelect::If(ws.temp.get(), bytes, thrust::counting_iterator<uint32_t>(0), ws.list.get(),
                                      ws.selected.get(), static_cast<int>(total), IsSpace{text}, st));
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
  const int class_bits = number_tables(numbers, ws, st);
  if (class_bits > 15) return false;  // (the characters' keys are 16 bits: emit_characters; at most 11 here)
  token_kernel<<<grid_for(s), kThreads, 0, st>>>(text, ws.list.get(), s, tt, t, numbers, ws.short_tokens.get(),
                                                 ws.tok_digits.get(), ws.tok_code.get());
  // The rotations of numbers in order (ws.host_lens still holds each slot's count).
  const uint32_t radix = 2 * numbers.count + 1;
  const uint32_t most = *std::max_element(ws.host_lens.get(), ws.host_lens.get() + slots);
  // Pass 0's ties broken by codes only where more than two numbers other than the empty one
  // occur (numbers_of_text lists the empty number too; numbers_of_values never does): a 1-bit
  // text's groups are mostly hard (long equal runs of two codes), so it paid both the
  // tie-break and the doubling there (H200, full counts of truerand_1bit: 3.58-3.63 s before
  // the tie-break, 3.64-3.75 s with it, session 47; 3.57-3.63 s without it again, session 48).
  const uint32_t present = numbers.count - (numbers.count > 0 && numbers.code[0] == 0 ? 1u : 0u);
  tied = sort_numbers(tt, s, slots, slot_bits, radix, most, numbers.count, present > 2, ws, st, timer);
  emit_characters(tt, t, s, slots, slot_bits, class_bits, ws, last, st);
  timer.mark(5, st);
  return true;
}

}  // namespace ea::gpubz
