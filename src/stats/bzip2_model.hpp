// An exact model of the size of libbz2's output (BZ2_bzBuffToBuffCompress, any block
// size, work factor irrelevant), without writing the bits: the compression statistic of
// SP 800-90B 5.1.11 needs only the length. Written from the bzip2 1.0.8 format and
// algorithm description; every size it gives is checked against libbz2 in the tests, and
// the GPU backend checks it against libbz2 on each data set's original before use.
//
// A bzip2 stream is "BZh" + level, its blocks, an end-of-stream marker and a CRC, padded
// to a byte. Each block is compressed on its own:
//  1. run-length coding of 4-255 equal bytes, and cutting into blocks of at most
//     100,000 * level - 19 bytes (split_rle1_blocks; slice_block_end for input that has no
//     run longer than 3, such as decimal text, where a block is a slice of the input);
//  2. the Burrows-Wheeler transform over cyclic rotations (done by the caller: a suffix
//     sort on the host, prefix doubling on the GPU);
//  3. move-to-front with zero runs written in bijective base 2 (mtf_encode);
//  4. Huffman coding with 2-6 tables chosen per group of 50 symbols, refined in 4 passes
//     (initial_tables, best_table_packed, code_lengths), selectors move-to-front coded, tables
//     delta coded (block_bits_from_mtf; the GPU runs the same steps with one group per
//     thread).
// Everything here is integer arithmetic, so the host and the device agree exactly.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/hd.hpp"

namespace ea::bz {

constexpr int kMaxAlpha = 258;     // 256 symbols + RUNA/RUNB - 1 + EOB
constexpr int kMaxTables = 6;
constexpr int kGroupSize = 50;
constexpr int kPasses = 4;
constexpr int kMaxCodeLength = 17;
constexpr uint16_t kRunA = 0, kRunB = 1;
// Stream bits outside the blocks: "BZh5" (32), end-of-stream magic (48), combined CRC (32).
constexpr uint64_t kStreamBits = 32 + 48 + 32;
// Block bits before the symbol map: magic (48), CRC (32), randomised flag (1), origin (24).
constexpr uint64_t kBlockHeaderBits = 48 + 32 + 1 + 24;

EA_HD inline uint32_t block_limit(int level) { return 100000u * static_cast<uint32_t>(level) - 19u; }

// Bytes of a stream whose blocks take `block_bits` bits in all.
EA_HD inline uint64_t stream_bytes(uint64_t block_bits) { return (kStreamBits + block_bits + 7) / 8; }

// For input in which no byte value repeats more than 3 times in a row (the first stage
// then copies it unchanged): the end of the block that starts at `begin`. libbz2 closes a
// block before reading a byte once the runs already written fill it (>= limit bytes), and
// the run still open moves to the next block; the last byte of the input always joins the
// last block.
EA_HD inline size_t slice_block_end(const uint8_t* in, size_t n, size_t begin, uint32_t limit) {
  size_t q = begin + limit;  // the earliest start of the next block
  if (q + 1 >= n) return n;
  while (q < n && in[q] == in[q - 1]) ++q;  // a block starts where a run starts
  return q + 2 <= n ? q : n;
}

// Zero run of length z >= 1 as bijective base-2 digits (RUNA = 1, RUNB = 2), least
// significant first: emit(s) for each digit s.
template <class Emit>
EA_HD inline void zero_run_emit(uint32_t z, Emit&& emit) {
  --z;
  for (;;) {
    emit(static_cast<uint16_t>((z & 1) ? kRunB : kRunA));
    if (z < 2) break;
    z = (z - 2) / 2;
  }
}

// The same digits written at out[w..] (w advanced); count(s) is called for each digit s.
template <class Count>
EA_HD inline void put_zero_run_counted(uint32_t z, uint16_t* out, int32_t& w, Count&& count) {
  zero_run_emit(z, [&](uint16_t s) {
    out[w++] = s;
    count(s);
  });
}

EA_HD inline void put_zero_run(uint32_t z, uint16_t* out, int32_t& w, int32_t* freq) {
  put_zero_run_counted(z, out, w, [freq](uint16_t s) { ++freq[s]; });
}

// How many digits put_zero_run writes for a run of z >= 1 zeros: floor(log2(z + 1)), the
// place of the top bit of z + 1 (z < 2^32 - 1: a block is shorter). (A loop of shifts made the
// GPU's segment kernels diverge: one count per zero run.)
EA_HD inline uint32_t zero_run_digits(uint32_t z) {
#ifdef __CUDA_ARCH__
  return 31u - static_cast<uint32_t>(__clz(z + 1));
#else
  return 31u - static_cast<uint32_t>(__builtin_clz(z + 1));
#endif
}

// Digit k of a run of z zeros as zero_run_emit writes them (k < zero_run_digits(z)): bit k of
// z + 1 (bijective base 2: z + 1 = 2^D + the digits' bits, RUNA = 0, RUNB = 1).
EA_HD inline uint16_t zero_run_digit(uint32_t z, uint32_t k) { return static_cast<uint16_t>(((z + 1) >> k) & 1u); }

// Move-to-front coding of a block's transform `last[0..len)` over the symbols in use
// (seq_of: byte -> index among the bytes in use, n_in_use of them). Writes the values
// (zero runs as RUNA/RUNB, then symbol index + 1, then EOB = n_in_use + 1) to out, counts
// them in freq[0 .. n_in_use + 2) and returns how many there are (at most len + 1).
EA_HD inline int32_t mtf_encode(const uint8_t* last, int32_t len, const uint8_t* seq_of, int n_in_use,
                                uint16_t* out, int32_t* freq) {
  uint8_t order[256];
  for (int i = 0; i < n_in_use; ++i) order[i] = static_cast<uint8_t>(i);
  for (int i = 0; i < n_in_use + 2; ++i) freq[i] = 0;
  int32_t w = 0;
  uint32_t zeros = 0;
  for (int32_t i = 0; i < len; ++i) {
    const uint8_t c = seq_of[last[i]];
    if (order[0] == c) {
      ++zeros;
      continue;
    }
    if (zeros) {
      put_zero_run(zeros, out, w, freq);
      zeros = 0;
    }
    uint8_t carried = order[0];
    int j = 1;
    while (order[j] != c) {
      const uint8_t t = order[j];
      order[j] = carried;
      carried = t;
      ++j;
    }
    order[j] = carried;
    order[0] = c;
    out[w++] = static_cast<uint16_t>(j + 1);
    ++freq[j + 1];
  }
  if (zeros) put_zero_run(zeros, out, w, freq);
  out[w++] = static_cast<uint16_t>(n_in_use + 1);
  ++freq[n_in_use + 1];
  return w;
}

EA_HD inline int lowest_set_bit(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

// Move-to-front with the list packed in the 4-bit nibbles of one word (front at the low end;
// at most 16 symbols), so that finding a symbol and moving it to the front are a few
// register operations. The GPU splits a block into segments: the
// move-to-front list after a segment is the segment's symbols by last occurrence (most
// recent first), then the other symbols in their order before it. So each segment's
// "signature" (its list when started from any list, and the set of symbols it has) can be
// computed in parallel and the list at each segment's start found by composing signatures
// (a scan); each segment's places come from the same pass, from the identity list, with its
// symbols' first uses fixed from that start (FirstUses, first_use_place).
EA_HD inline uint64_t packed_identity(int n_in_use) {
  uint64_t order = 0;
  for (int k = 0; k < 16; ++k) order |= static_cast<uint64_t>(k < n_in_use ? k : 15) << (4 * k);
  return order;
}

// Moves symbol c to the front of the packed list; returns its place before (0: it was in
// front).
EA_HD inline int packed_move_to_front(uint64_t& order, uint64_t c) {
  constexpr uint64_t kOnes = 0x1111111111111111ull;
  uint64_t x = order ^ (kOnes * c);  // zero nibble where c is
  x |= x >> 1;
  x |= x >> 2;
  const int j = lowest_set_bit(~x & kOnes) / 4;
  const uint64_t below = (uint64_t{1} << (4 * j)) - 1;
  const uint64_t above = j == 15 ? 0 : ~((uint64_t{1} << (4 * (j + 1))) - 1);
  order = (order & above) | ((order & below) << 4) | c;
  return j;
}

// The list after a segment with signature (sig: its list when started from the identity;
// seen: bit s set for each symbol s it contains), started from `start`.
EA_HD inline uint64_t packed_compose(uint64_t sig, uint32_t seen, uint64_t start, int n_in_use) {
  int d = 0;
  for (uint32_t m = seen; m; m &= m - 1) ++d;
  uint64_t out = d == 16 ? sig : (sig & ((uint64_t{1} << (4 * d)) - 1));
  int place = d;
  for (int k = 0; k < 16; ++k) {
    const int v = static_cast<int>((start >> (4 * k)) & 0xf);
    if (v < n_in_use && !((seen >> v) & 1)) out |= static_cast<uint64_t>(v) << (4 * place++);
  }
  for (; place < 16; ++place) out |= uint64_t{15} << (4 * place);
  return out;
}

// The move-to-front effect of a run of segments: (sig, seen) as for one segment.
// then_segment(a, b) is a followed by b; it is associative with (packed_identity(n), 0) as
// its identity, so the lists at the segments' starts are an exclusive scan (the GPU's).
struct MtfEffect {
  uint64_t sig;
  uint32_t seen;
};
EA_HD inline MtfEffect then_segment(const MtfEffect& a, const MtfEffect& b, int n_in_use) {
  return {packed_compose(b.sig, b.seen, a.sig, n_in_use), a.seen | b.seen};
}

// One move-to-front pass a segment (the GPU's): its places as if it started from the
// identity list are right except at each symbol's first use in the segment (at most 16), a
// place that depends on the list the segment really starts with: the symbols already used
// in the segment stand before it, then those of the start list not used yet, in its order.
// FirstUses records those uses as the pass meets them; first_use_place gives their places.
struct FirstUses {
  uint32_t count = 0;
  uint8_t symbol[16] = {};
  uint16_t at[16] = {};  // index in the segment (segments of at most 65,536 symbols)
  EA_HD void note(uint32_t seen_before, uint32_t c, uint32_t i) {
    if ((seen_before >> c) & 1) return;
    symbol[count] = static_cast<uint8_t>(c);
    at[count] = static_cast<uint16_t>(i);
    ++count;
  }
};
EA_HD inline uint32_t first_use_place(const FirstUses& f, uint32_t k, uint64_t start) {
  uint32_t before = 0;  // the symbols the segment used before its first use k
  for (uint32_t j = 0; j < k; ++j) before |= 1u << f.symbol[j];
  uint32_t place = k;
  for (int p = 0; p < 16; ++p) {
    const uint32_t v = static_cast<uint32_t>((start >> (4 * p)) & 0xf);
    if (v == f.symbol[k]) break;
    place += ((before >> v) & 1) ? 0u : 1u;
  }
  return place;
}

// Zero-run coding of move-to-front places[0..n) (0 = the front symbol again) that follow
// `pending` zeros not yet written: writes the values (zero runs as RUNA/RUNB, place r as
// r + 1) at out[w..], advancing w, calls count(v) for each, and returns the zeros after the
// last non-zero place (not written: they belong to the run that what follows ends).
// zero_run_values_emitted calls emit(v) for each value in order instead; load16 fetches 16
// places at a time (the GPU's reads one aligned 16-byte word).
struct BytewiseLoad16 {
  EA_HD void operator()(const uint8_t* p, uint8_t (&r)[16]) const {
    EA_UNROLL
    for (int k = 0; k < 16; ++k) r[k] = p[k];
  }
};
template <class Emit, class Load16 = BytewiseLoad16>
EA_HD inline uint32_t zero_run_values_emitted(const uint8_t* places, uint32_t n, uint32_t pending, Emit&& emit,
                                              Load16 load16 = {}) {
  auto step = [&](uint32_t r) {
    if (r == 0) {
      ++pending;
      return;
    }
    if (pending) {
      zero_run_emit(pending, emit);
      pending = 0;
    }
    emit(static_cast<uint16_t>(r + 1));
  };
  uint32_t i = 0;
  for (; i + 16 <= n; i += 16) {  // 16 fetched ahead of the chain of updates
    uint8_t r[16];
    load16(places + i, r);
    EA_UNROLL
    for (int k = 0; k < 16; ++k) step(r[k]);
  }
  for (; i < n; ++i) step(places[i]);
  return pending;
}

template <class Count>
EA_HD inline uint32_t zero_run_values(const uint8_t* places, uint32_t n, uint32_t pending, uint16_t* out, int32_t& w,
                                      Count&& count) {
  return zero_run_values_emitted(places, n, pending, [&](uint16_t v) {
    out[w++] = v;
    count(v);
  });
}

// The end of a block's values: the last zero run (`pending` zeros) and EOB.
template <class Count>
EA_HD inline void zero_run_finish(uint32_t pending, int n_in_use, uint16_t* out, int32_t& w, Count&& count) {
  if (pending) put_zero_run_counted(pending, out, w, count);
  out[w++] = static_cast<uint16_t>(n_in_use + 1);
  count(static_cast<uint16_t>(n_in_use + 1));
}

// Zero-run coding of a block's move-to-front places: the values of mtf_encode from its
// places, counted in freq[0 .. n_in_use + 2). Returns how many there are.
EA_HD inline int32_t zero_run_code(const uint8_t* places, int32_t len, int n_in_use, uint16_t* out, int32_t* freq) {
  int32_t counts[kMaxAlpha];
  for (int i = 0; i < n_in_use + 2; ++i) counts[i] = 0;
  auto count = [&counts](uint16_t v) { ++counts[v]; };
  int32_t w = 0;
  const uint32_t pending = zero_run_values(places, static_cast<uint32_t>(len), 0, out, w, count);
  zero_run_finish(pending, n_in_use, out, w, count);
  for (int i = 0; i < n_in_use + 2; ++i) freq[i] = counts[i];
  return w;
}

// Zero-run coding of a block in segments, in parallel: each segment's summary (ZeroRunSummary,
// one pass over its places), then the offsets in order (zero_run_offsets: the values before
// each segment and the zeros carried into it), then every segment's values written from its
// offset (zero_run_values), and the block's end (zero_run_finish).
struct ZeroRunSummary {
  uint32_t lead = 0;   // zeros before the first non-zero place (all of them when none is)
  uint32_t inner = 0;  // values from the first non-zero place to the last (0: none)
  uint32_t trail = 0;  // zeros after the last non-zero place
  EA_HD void add(uint32_t r) {
    if (r == 0) {
      ++trail;
      return;
    }
    if (inner == 0) {
      lead = trail;
    } else if (trail) {
      inner += zero_run_digits(trail);
    }
    ++inner;
    trail = 0;
  }
  // After the last place: a segment without a non-zero place is all lead.
  EA_HD void close() {
    if (inner == 0) lead = trail;
  }
};

// Segments a then b as one summary (the empty summary is its identity; associative), so that
// the offsets are an exclusive scan (the GPU's): offsets_after gives segment k's offsets
// from the summary of segments 0 .. k-1, as zero_run_offsets does in order.
EA_HD inline ZeroRunSummary then_summary(const ZeroRunSummary& a, const ZeroRunSummary& b) {
  ZeroRunSummary r;
  if (b.inner == 0) {  // b is all zeros
    if (a.inner == 0) {
      r.lead = r.trail = a.lead + b.lead;
    } else {
      r = a;
      r.trail = a.trail + b.lead;
    }
    return r;
  }
  r.trail = b.trail;
  if (a.inner == 0) {
    r.lead = a.lead + b.lead;
    r.inner = b.inner;
    return r;
  }
  const uint32_t z = a.trail + b.lead;
  r.lead = a.lead;
  r.inner = a.inner + (z ? zero_run_digits(z) : 0) + b.inner;
  return r;
}

EA_HD inline void offsets_after(const ZeroRunSummary& before, uint32_t& out_at, uint32_t& carry_at) {
  if (before.inner == 0) {
    out_at = 0;
    carry_at = before.lead;
    return;
  }
  out_at = (before.lead ? zero_run_digits(before.lead) : 0) + before.inner;
  carry_at = before.trail;
}

// Segment k's summary at (lead[k], inner[k], trail[k]); writes the values before segment k
// (out_at[k]) and the zeros carried into it (carry_at[k]), and returns the values of all the
// segments with the zeros after the last non-zero place in `pending`.
EA_HD inline uint32_t zero_run_offsets(const uint32_t* lead, const uint32_t* inner, const uint32_t* trail,
                                       uint32_t segments, uint32_t* out_at, uint32_t* carry_at, uint32_t& pending) {
  uint32_t w = 0, carry = 0;
  for (uint32_t k = 0; k < segments; ++k) {
    out_at[k] = w;
    carry_at[k] = carry;
    if (inner[k] == 0) {
      carry += lead[k];
      continue;
    }
    const uint32_t z = carry + lead[k];
    if (z) w += zero_run_digits(z);
    w += inner[k];
    carry = trail[k];
  }
  pending = carry;
  return w;
}

// Move-to-front places of last[0..len) from the packed list `order` (updated), for blocks
// with at most 16 byte values (decimal text has 11); zero_run_code of the places is then
// mtf_encode's output.
EA_HD inline void packed_places(const uint8_t* last, int32_t len, const uint8_t* seq_of, uint64_t& order,
                                uint8_t* places) {
  for (int32_t i = 0; i < len; ++i) places[i] = static_cast<uint8_t>(packed_move_to_front(order, seq_of[last[i]]));
}

EA_HD inline int table_count(int32_t n_mtf) {
  return n_mtf < 200 ? 2 : n_mtf < 600 ? 3 : n_mtf < 1200 ? 4 : n_mtf < 2400 ? 5 : 6;
}

// The starting tables: the symbol range cut into `tables` parts of about equal frequency
// (every other inner part gives its last symbol back); a table costs 0 bits for its part
// and 15 for the rest.
EA_HD inline void initial_tables(uint8_t (*len)[kMaxAlpha], int tables, int alpha, const int32_t* freq,
                                 int32_t n_mtf) {
  int32_t remaining = n_mtf;
  int gs = 0;
  for (int part = tables; part > 0; --part) {
    const int32_t target = remaining / part;
    int ge = gs - 1;
    int32_t got = 0;
    while (got < target && ge < alpha - 1) got += freq[++ge];
    if (ge > gs && part != tables && part != 1 && (tables - part) % 2 == 1) got -= freq[ge--];
    for (int v = 0; v < alpha; ++v) len[part - 1][v] = (v >= gs && v <= ge) ? 0 : 15;
    gs = ge + 1;
    remaining -= got;
  }
}

// The table that codes values v[0..count) in the fewest bits (the first one on a tie).
EA_HD inline int best_table(const uint16_t* v, int count, const uint8_t (*len)[kMaxAlpha], int tables) {
  uint32_t cost[kMaxTables] = {0, 0, 0, 0, 0, 0};
  for (int i = 0; i < count; ++i)
    for (int t = 0; t < tables; ++t) cost[t] += len[t][v[i]];
  int best = 0;
  for (int t = 1; t < tables; ++t)
    if (cost[t] < cost[best]) best = t;
  return best;
}

// Every table's length of value v side by side, table t in bits kCostBits * t and up: a
// group's cost under all the tables is then one sum of its values' packed lengths (50
// values of at most 17 bits each: a table's cost fits its 10 bits).
constexpr int kCostBits = 10;
static_assert(kGroupSize * kMaxCodeLength < (1 << kCostBits) && kCostBits * kMaxTables <= 64,
              "a group's cost under one table must fit its field");
EA_HD inline uint64_t packed_lengths(const uint8_t (*len)[kMaxAlpha], int tables, int v) {
  uint64_t p = 0;
  for (int t = 0; t < tables; ++t) p |= static_cast<uint64_t>(len[t][v]) << (kCostBits * t);
  return p;
}

// A group's cost under table t from the sum of its values' packed lengths.
EA_HD inline uint32_t table_cost(uint64_t sum, int t) {
  return static_cast<uint32_t>((sum >> (kCostBits * t)) & ((uint64_t{1} << kCostBits) - 1));
}

// The table of fewest bits (the first one on a tie) from the sum of a group's packed lengths.
EA_HD inline int best_of_costs(uint64_t sum, int tables) {
  int best = 0;
  uint32_t best_cost = table_cost(sum, 0);
  for (int t = 1; t < tables; ++t) {
    const uint32_t c = table_cost(sum, t);
    if (c < best_cost) {
      best = t;
      best_cost = c;
    }
  }
  return best;
}

// best_table's choice from the packed lengths (packed[v] = packed_lengths(len, tables, v)).
EA_HD inline int best_table_packed(const uint16_t* v, int count, const uint64_t* packed, int tables) {
  uint64_t sum = 0;
  for (int i = 0; i < count; ++i) sum += packed[v[i]];
  return best_of_costs(sum, tables);
}

// Huffman code lengths for freq[0..alpha) (a zero count weighs as 1), built with a binary
// heap of nodes whose weight carries the subtree depth in its low 8 bits (so that equal
// counts prefer shallow subtrees); when a code is longer than max_len, every count is
// halved (count / 2 + 1) and the tree rebuilt. The heap order on ties decides lengths, so
// the sift-up and sift-down rules matter: strict comparisons, right child on a tie only if
// lighter.
EA_HD inline void code_lengths(uint8_t* len, const int32_t* freq, int alpha, int max_len) {
  int32_t heap[kMaxAlpha + 2];
  int32_t weight[kMaxAlpha * 2];
  int32_t parent[kMaxAlpha * 2];
  for (int i = 0; i < alpha; ++i) weight[i + 1] = (freq[i] == 0 ? 1 : freq[i]) << 8;
  for (;;) {
    int nodes = alpha, size = 0;
    heap[0] = 0;
    weight[0] = 0;
    parent[0] = -2;
    auto sift_up = [&](int z) {
      const int32_t item = heap[z];
      while (weight[item] < weight[heap[z >> 1]]) {
        heap[z] = heap[z >> 1];
        z >>= 1;
      }
      heap[z] = item;
    };
    auto sift_down = [&](int z) {
      const int32_t item = heap[z];
      for (;;) {
        int child = z << 1;
        if (child > size) break;
        if (child < size && weight[heap[child + 1]] < weight[heap[child]]) ++child;
        if (weight[item] < weight[heap[child]]) break;
        heap[z] = heap[child];
        z = child;
      }
      heap[z] = item;
    };
    for (int i = 1; i <= alpha; ++i) {
      parent[i] = -1;
      heap[++size] = i;
      sift_up(size);
    }
    while (size > 1) {
      const int32_t a = heap[1];
      heap[1] = heap[size--];
      sift_down(1);
      const int32_t b = heap[1];
      heap[1] = heap[size--];
      sift_down(1);
      ++nodes;
      parent[a] = parent[b] = nodes;
      const int32_t da = weight[a] & 0xff, db = weight[b] & 0xff;
      weight[nodes] = static_cast<int32_t>((static_cast<uint32_t>(weight[a]) & 0xffffff00u) +
                                           (static_cast<uint32_t>(weight[b]) & 0xffffff00u)) |
                      (1 + (da > db ? da : db));
      parent[nodes] = -1;
      heap[++size] = nodes;
      sift_up(size);
    }
    bool too_long = false;
    for (int i = 1; i <= alpha; ++i) {
      int depth = 0;
      for (int k = i; parent[k] >= 0; k = parent[k]) ++depth;
      len[i - 1] = static_cast<uint8_t>(depth);
      too_long = too_long || depth > max_len;
    }
    if (!too_long) return;
    for (int i = 1; i <= alpha; ++i) weight[i] = (1 + (weight[i] >> 8) / 2) << 8;
  }
}

// The side bits but the selectors': header, symbol map (16 bits + 16 per 16-byte range in
// use), table count and selector count, and the delta-coded tables.
EA_HD inline uint64_t side_bits_but_selectors(const uint8_t (*len)[kMaxAlpha], int tables, int alpha,
                                              int ranges_in_use) {
  uint64_t bits = kBlockHeaderBits + 16 + 16 * static_cast<uint64_t>(ranges_in_use) + 3 + 15;
  for (int t = 0; t < tables; ++t) {
    int curr = len[t][0];
    bits += 5;
    for (int v = 0; v < alpha; ++v) {
      const int d = len[t][v] - curr;
      bits += 2 * static_cast<uint64_t>(d < 0 ? -d : d) + 1;
      curr = len[t][v];
    }
  }
  return bits;
}

// Bits of the block parts that do not depend on the groups' data: those and the
// move-to-front coded selectors.
EA_HD inline uint64_t block_side_bits(const uint8_t* selectors, int32_t n_selectors, const uint8_t (*len)[kMaxAlpha],
                                      int tables, int alpha, int ranges_in_use) {
  uint64_t bits = side_bits_but_selectors(len, tables, alpha, ranges_in_use);
  uint8_t pos[kMaxTables];
  for (int t = 0; t < tables; ++t) pos[t] = static_cast<uint8_t>(t);
  for (int32_t i = 0; i < n_selectors; ++i) {
    const uint8_t s = selectors[i];
    int j = 0;
    uint8_t carried = pos[0];
    while (carried != s) {
      ++j;
      const uint8_t t = pos[j];
      pos[j] = carried;
      carried = t;
    }
    pos[0] = carried;
    bits += static_cast<uint64_t>(j) + 1;
  }
  return bits;
}

// The selectors' move-to-front in pieces (the GPU's warp): the list at any point holds the
// tables by their last use, latest first, then the unused ones in order. So a piece's state
// is each table's last use (-1: none), pieces combine by the later use (then_use: associative,
// no_selector_use its identity), and a piece's bits follow from the state before it.
struct SelectorUse {
  int32_t last[kMaxTables];
};
EA_HD inline SelectorUse no_selector_use() {
  SelectorUse u;
  for (int t = 0; t < kMaxTables; ++t) u.last[t] = -1;
  return u;
}
EA_HD inline SelectorUse then_use(const SelectorUse& a, const SelectorUse& b) {
  SelectorUse u;
  for (int t = 0; t < kMaxTables; ++t) u.last[t] = a.last[t] > b.last[t] ? a.last[t] : b.last[t];
  return u;
}
// The last uses in selectors[from, to).
EA_HD inline SelectorUse selector_use(const uint8_t* selectors, int32_t from, int32_t to) {
  SelectorUse u = no_selector_use();
  for (int32_t i = from; i < to; ++i) u.last[selectors[i]] = i;
  return u;
}
// The move-to-front bits (place + 1 each) of selectors[from, to) after the uses `before`.
EA_HD inline uint64_t selector_bits(const uint8_t* selectors, int32_t from, int32_t to, SelectorUse use, int tables) {
  uint64_t bits = 0;
  for (int32_t i = from; i < to; ++i) {
    const int s = selectors[i];
    const int32_t mine = use.last[s];
    int place = 0;
    for (int t = 0; t < tables; ++t) place += mine >= 0 ? use.last[t] > mine : (use.last[t] >= 0 || t < s);
    bits += static_cast<uint64_t>(place) + 1;
    use.last[s] = i;
  }
  return bits;
}

// Bits of the data of group g under its selected table.
EA_HD inline uint64_t group_data_bits(const uint16_t* mtfv, int32_t n_mtf, int32_t g, const uint8_t* selectors,
                                      const uint8_t (*len)[kMaxAlpha]) {
  const int32_t gs = g * kGroupSize;
  const int32_t ge = gs + kGroupSize < n_mtf ? gs + kGroupSize : n_mtf;
  const uint8_t* l = len[selectors[g]];
  uint64_t bits = 0;
  for (int32_t i = gs; i < ge; ++i) bits += l[mtfv[i]];
  return bits;
}

// From the set of bytes in use (used[256]): seq_of[byte] = index among them; returns their
// number and the number of 16-byte ranges with a byte in use.
EA_HD inline int map_used_bytes(const bool* used, uint8_t* seq_of, int& ranges_in_use) {
  int n = 0;
  ranges_in_use = 0;
  for (int r = 0; r < 16; ++r) {
    bool any = false;
    for (int k = 0; k < 16; ++k) {
      if (used[r * 16 + k]) {
        seq_of[r * 16 + k] = static_cast<uint8_t>(n++);
        any = true;
      }
    }
    ranges_in_use += any ? 1 : 0;
  }
  return n;
}

// The same for a block's bytes. used: scratch of 256 entries.
EA_HD inline int map_bytes_in_use(const uint8_t* block, int32_t len, uint8_t* seq_of, int& ranges_in_use,
                                  bool* used) {
  for (int i = 0; i < 256; ++i) used[i] = false;
  for (int32_t i = 0; i < len; ++i) used[block[i]] = true;
  return map_used_bytes(used, seq_of, ranges_in_use);
}

// Working storage of block_bits_from_mtf (too large for a GPU thread's stack).
struct TableState {
  uint8_t len[kMaxTables][kMaxAlpha];
  int32_t rfreq[kMaxTables][kMaxAlpha];
  uint64_t packed[kMaxAlpha];  // packed_lengths of each value
  EA_HD void pack(int tables, int alpha) {
    for (int v = 0; v < alpha; ++v) packed[v] = packed_lengths(len, tables, v);
  }
};

// Bits of one block from its move-to-front values, sequentially (the host; the GPU kernel
// runs the same steps with its threads sharing the groups). selectors: room for
// (n_mtf + 49) / 50 entries.
EA_HD inline uint64_t block_bits_from_mtf(const uint16_t* mtfv, int32_t n_mtf, const int32_t* freq, int n_in_use,
                                          int ranges_in_use, uint8_t* selectors, TableState& st) {
  const int alpha = n_in_use + 2;
  const int tables = table_count(n_mtf);
  const int32_t groups = (n_mtf + kGroupSize - 1) / kGroupSize;
  initial_tables(st.len, tables, alpha, freq, n_mtf);
  for (int pass = 0; pass < kPasses; ++pass) {
    st.pack(tables, alpha);
    for (int t = 0; t < tables; ++t)
      for (int v = 0; v < alpha; ++v) st.rfreq[t][v] = 0;
    for (int32_t g = 0; g < groups; ++g) {
      const int32_t gs = g * kGroupSize;
      const int count = n_mtf - gs < kGroupSize ? static_cast<int>(n_mtf - gs) : kGroupSize;
      const int bt = best_table_packed(mtfv + gs, count, st.packed, tables);
      selectors[g] = static_cast<uint8_t>(bt);
      for (int i = 0; i < count; ++i) ++st.rfreq[bt][mtfv[gs + i]];
    }
    for (int t = 0; t < tables; ++t) code_lengths(st.len[t], st.rfreq[t], alpha, kMaxCodeLength);
  }
  uint64_t bits = block_side_bits(selectors, groups, st.len, tables, alpha, ranges_in_use);
  for (int32_t g = 0; g < groups; ++g) bits += group_data_bits(mtfv, n_mtf, g, selectors, st.len);
  return bits;
}

}  // namespace ea::bz
