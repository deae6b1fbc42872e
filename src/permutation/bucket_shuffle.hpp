// The bucket shuffle (Rao 1961, Sandelius 1962; docs/bucket-shuffle.md): every sample of a
// node gets an independent label in 0..2^b-1, the node is scattered stably by label into
// its buckets, and each bucket is shuffled the same way, recursively, until it holds at most
// L samples; such a leaf is shuffled by fisher_yates(). CPU reference of engine v4 (issue
// 48, item 1): the GPU prototype (scripts/bucket_shuffle.cu) must give the same bytes.
//
// Where the draws come from (the `Streams` policy: at(depth, start) is the stream of the node
// at `depth` whose samples start at place `start` of the row):
// - PhiloxNodes: a counter-based stream of its own for every node (PhiloxNodeStream), so
//   nodes can be shuffled in any order, or in parallel, with the same result;
// - OneStream<G>: one sequential stream of any other generator, consumed in the canonical
//   order (a node's labels, then its children in label order, depth first).
// The root is stream j itself (PhiloxNodeStream at depth 0 is PhiloxStream(seed, j)), so a row
// of at most L samples is shuffled exactly as fisher_yates() shuffles it today.
#pragma once

#include <Random123/philox.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/hd.hpp"
#include "permutation/shuffle.hpp"
#include "permutation/shuffle_choice.hpp"
#include "rng/bounded.hpp"
#include "rng/stream_set.hpp"

namespace ea {

// A node at this depth is a leaf whatever its size (the recursion is finite, and the
// exactness argument an induction over depth; never reached in practice: docs/bucket-shuffle.md).
constexpr uint32_t kBucketMaxDepth = 64;

struct BucketParams {
  uint32_t root_bits = 4;   // b at depth 0: 2^b buckets (1..8)
  uint32_t inner_bits = 8;  // b at every depth below (1..8)
  uint32_t leaf = 1024;     // L: a node of at most L samples is a leaf (L >= 1)
};

// The engine's parameters for a row of n samples (docs/bucket-shuffle.md, "The engine's
// rule"): b0 = 3 up to 2^20 samples and one more per doubling above (at most 8), so that a
// depth-1 node holds about 2^17 samples or fewer (one SM's shared memory on the GPU) up to
// 2^25 samples; b1 = 8; L = 1024.
constexpr size_t kBucketRootTarget = size_t{1} << 17;
EA_HD inline BucketParams engine_bucket_params(size_t n) {
  uint32_t b0 = 3;
  while (b0 < 8 && (n >> b0) > kBucketRootTarget) ++b0;
  return BucketParams{b0, 8, 1024};
}
// Whether the engine shuffles a row of n samples of generator id by bucket passes: above L
// samples (a row of at most L samples is one leaf, i.e. Fisher-Yates on stream j either way),
// for Philox (node streams: the GPU's pass kernels draw any node's labels at once) and the
// sequential generators (one stream in the canonical order, OneStream: its plan is drawn
// first by one walk that needs only the nodes' sizes, then the data moves by the same pass
// kernels: src/permutation/bucket_plan.hpp). Sobol and the lane groups never: a
// low-discrepancy sequence's labels are far from independent (the exactness argument needs
// i.i.d. labels), and the lane groups step 32 lanes in lockstep.
// Binary data (two symbols) keeps Fisher-Yates too: packed 8 samples a byte, a row of up to
// about 1.2 million samples fits one SM, where resident_fused_kernel already shuffles and
// tests it with every random access on chip (GetTickCount_1bit's 10,000 permutations:
// 0.29 s, against 0.44 s by buckets into global memory; H200, session 26).
// With ShuffleChoice::FisherYates (--shuffle fisher-yates) never: every generator then makes
// permutation j by the literal Fisher-Yates of SP 800-90B 5.1 on its stream j (the kernels
// that do so are the ones that serve binary data, short rows, Sobol and the lane groups).
inline bool engine_uses_buckets(PrngId id, size_t n, bool binary, ShuffleChoice shuffle) {
  return shuffle == ShuffleChoice::Bucket && !binary && n > engine_bucket_params(n).leaf && !is_grouped(id) &&
         id != PrngId::Sobol;
}
// permutation.shuffle of the JSON: how the permutations of a row of n samples are made.
inline std::string engine_shuffle_name(PrngId id, size_t n, bool binary, ShuffleChoice shuffle) {
  if (is_grouped(id)) return "Fisher-Yates, Lemire bounded draws (lane groups in lockstep)";
  // (a row of at most L samples: Fisher-Yates on stream j, the bucket shuffle's one leaf)
  if (!engine_uses_buckets(id, n, binary, shuffle)) return "Fisher-Yates, Lemire bounded draws";
  const BucketParams p = engine_bucket_params(n);
  return "bucket b0=" + std::to_string(p.root_bits) + " b1=" + std::to_string(p.inner_bits) +
         " L=" + std::to_string(p.leaf) + " (Rao-Sandelius; Fisher-Yates leaves, Lemire bounded draws)";
}

EA_HD inline uint32_t bucket_bits(const BucketParams& p, uint32_t depth) {
  return depth == 0 ? p.root_bits : p.inner_bits;
}
EA_HD inline bool bucket_is_leaf(const BucketParams& p, size_t m, uint32_t depth) {
  return m <= p.leaf || depth >= kBucketMaxDepth;
}
// Labels per label word of `word_bits` usable bits, b bits each, the low field first.
EA_HD inline uint32_t labels_per_word(uint32_t word_bits, uint32_t b) { return word_bits / b; }
EA_HD inline uint32_t label_field(uint64_t word, uint32_t f, uint32_t b) {
  return static_cast<uint32_t>(word >> (b * f)) & ((1u << b) - 1u);
}

// The Philox4x32-10 stream of node (depth, start) of permutation j under key = seed.
// depth 0 (start 0): counter (lo32(block), hi32(block), lo32(j), hi32(j)), PhiloxStream's.
// depth d >= 1: counter (block, start, lo32(j), 2^31 | d << 24 | (hi32(j) & 0xffffff)): distinct
// from every depth-0 counter of a permutation below 2^63 and from every other node's (a
// depth's nodes have distinct starts); j < 2^56, d < 128, at most 2^32 blocks per node.
class PhiloxNodeStream {
 public:
  EA_HD PhiloxNodeStream(uint64_t seed, uint64_t j, uint32_t depth, uint32_t start)
      : seed_(seed), j_(j), depth_(depth), start_(start) {}
  // The same stream from word `index` of block `next_block - 1`, which `held` holds (a caller
  // that computed its blocks ahead goes on from there: bucket_leaf's exact draws).
  EA_HD PhiloxNodeStream(uint64_t seed, uint64_t j, uint32_t depth, uint32_t start, uint64_t next_block,
                         const philox4x32_ctr_t& held, uint32_t index)
      : seed_(seed), j_(j), depth_(depth), start_(start), block_(next_block), out_(held), index_(index) {}

  static EA_HD EA_FORCEINLINE philox4x32_ctr_t block(uint64_t seed, uint64_t j, uint32_t depth, uint32_t start,
                                                     uint64_t b) {
    philox4x32_ctr_t ctr;
    if (depth == 0) {
      ctr.v[0] = static_cast<uint32_t>(b);
      ctr.v[1] = static_cast<uint32_t>(b >> 32);
      ctr.v[3] = static_cast<uint32_t>(j >> 32);
    } else {
      ctr.v[0] = static_cast<uint32_t>(b);
      ctr.v[1] = start;
      ctr.v[3] = 0x80000000u | (depth << 24) | (static_cast<uint32_t>(j >> 32) & 0xffffffu);
    }
    ctr.v[2] = static_cast<uint32_t>(j);
    philox4x32_key_t key;
    key.v[0] = static_cast<uint32_t>(seed);
    key.v[1] = static_cast<uint32_t>(seed >> 32);
    return philox4x32_R(10, ctr, key);
  }
  EA_HD EA_FORCEINLINE uint32_t next() {
    if (index_ == 4) {
      out_ = block(seed_, j_, depth_, start_, block_++);
      index_ = 0;
    }
    const uint32_t i = index_++;  // (a select, not an index: out_ stays in registers on the GPU)
    return i == 0 ? out_.v[0] : i == 1 ? out_.v[1] : i == 2 ? out_.v[2] : out_.v[3];
  }
  EA_HD EA_FORCEINLINE uint32_t bounded(uint32_t i) { return bounded_inclusive(*this, i); }

 private:
  uint64_t seed_, j_;
  uint32_t depth_, start_;
  uint64_t block_ = 0;
  philox4x32_ctr_t out_{};
  uint32_t index_ = 4;
};

struct PhiloxNodes {
  uint64_t seed, j;
  EA_HD PhiloxNodeStream at(uint32_t depth, uint32_t start) const { return PhiloxNodeStream(seed, j, depth, start); }
};

// One sequential stream for the whole permutation (any generator but the lane groups).
template <class G>
struct OneStream {
  G& g;
  EA_HD G& at(uint32_t, uint32_t) const { return g; }
};

// The label words of a stream: kBits uniform bits per word. 32-bit words (next()), 64-bit
// words (next64(): xoshiro256**), or for a source uniform on [0, R) (next_below(), R = kM1:
// the MRGs) the low 24 bits of a value below floor(R / 2^24) 2^24, the others rejected.
template <class S, class = void>
struct HasNext64 : std::false_type {};
template <class S>
struct HasNext64<S, std::void_t<decltype(std::declval<S&>().next64())>> : std::true_type {};
template <class S, class = void>
struct HasNextBelow : std::false_type {};
template <class S>
struct HasNextBelow<S, std::void_t<decltype(std::declval<S&>().next_below())>> : std::true_type {};

template <class S>
struct LabelWords {
  static constexpr uint32_t kBits = HasNext64<S>::value ? 64 : HasNextBelow<S>::value ? 24 : 32;
  static EA_HD uint64_t next(S& s) {
    if constexpr (HasNext64<S>::value) {
      return s.next64();
    } else if constexpr (HasNextBelow<S>::value) {
      constexpr uint64_t kAccept = static_cast<uint64_t>(S::kM1) >> 24 << 24;
      uint32_t u = s.next_below();
      while (u >= kAccept) u = s.next_below();
      return u & 0xffffffu;
    } else {
      return s.next();
    }
  }
};

// lab[e] = label of sample e of a node of m samples, b bits each: word e / per of the
// node's stream (per = labels_per_word(kBits, b)), field e % per; a last word's unused
// fields are discarded.
template <class S>
void draw_labels(S& rng, uint8_t* lab, size_t m, uint32_t b) {
  const uint32_t per = labels_per_word(LabelWords<S>::kBits, b);
  for (size_t e = 0; e < m; e += per) {
    const uint64_t w = LabelWords<S>::next(rng);
    for (uint32_t f = 0; f < per && e + f < m; ++f) lab[e + f] = static_cast<uint8_t>(label_field(w, f, b));
  }
}

// a[0..m) scattered stably by lab into out[0..m) (m < 2^32); start[c] = first place of
// bucket c (start[k] = m).
inline void stable_scatter(const uint8_t* a, const uint8_t* lab, size_t m, uint32_t k, uint8_t* out,
                           uint32_t* start) {
  for (uint32_t c = 0; c <= k; ++c) start[c] = 0;
  for (size_t e = 0; e < m; ++e) ++start[lab[e] + 1];
  for (uint32_t c = 0; c < k; ++c) start[c + 1] += start[c];
  uint32_t next[256];
  for (uint32_t c = 0; c < k; ++c) next[c] = start[c];
  for (size_t e = 0; e < m; ++e) out[next[lab[e]]++] = a[e];
}

// The order in which a node's children are visited. A single sequential stream is defined
// by kForward; counter-based streams give the same permutation either way.
enum class ChildOrder { kForward, kReverse };

namespace detail {
// Shuffles the node a[start .. start + m) at `depth`; scratch holds 2 n bytes (n: the row):
// the node uses [start, start + m) for its labels and [n + start, ...) for the scatter.
template <class Streams>
void bucket_node(uint8_t* a, size_t n, size_t start, size_t m, uint32_t depth, const BucketParams& p,
                 Streams& streams, uint8_t* scratch, ChildOrder order) {
  auto&& rng = streams.at(depth, static_cast<uint32_t>(start));
  if (bucket_is_leaf(p, m, depth)) {
    fisher_yates(a + start, m, 1, rng);
    return;
  }
  const uint32_t b = bucket_bits(p, depth), k = 1u << b;
  uint8_t* lab = scratch + start;
  uint8_t* out = scratch + n + start;
  draw_labels(rng, lab, m, b);
  uint32_t bound[257];
  stable_scatter(a + start, lab, m, k, out, bound);
  for (size_t e = 0; e < m; ++e) a[start + e] = out[e];
  for (uint32_t i = 0; i < k; ++i) {
    const uint32_t c = order == ChildOrder::kForward ? i : k - 1 - i;
    const size_t size = bound[c + 1] - bound[c];
    if (size >= 2) bucket_node(a, n, start + bound[c], size, depth + 1, p, streams, scratch, order);
  }
}
}  // namespace detail

// Shuffles a[0..n) (n < 2^32) as the bucket shuffle with parameters p and the draws of
// `streams`; `scratch` is resized to 2 n bytes.
template <class Streams>
void bucket_shuffle(uint8_t* a, size_t n, const BucketParams& p, Streams& streams, std::vector<uint8_t>& scratch,
                    ChildOrder order = ChildOrder::kForward) {
  if (n < 2) return;
  if (scratch.size() < 2 * n) scratch.resize(2 * n);
  detail::bucket_node(a, n, 0, n, 0, p, streams, scratch.data(), order);
}

// The same permutation as bucket_shuffle() (with ChildOrder::kForward) by one thread, without
// recursion, on a column: sample i of the row at a[i * stride]; `out` (n places, sample i at
// out[i * out_stride]) is scratch. The root is scattered straight from `symbols` (the
// unshuffled row, whatever a holds), so a needs no copy first. A node's labels are drawn
// twice from a copy of its stream (counted, then scattered), so no label is stored: the
// stream's state is all it keeps. Non-leaf nodes deeper than kBucketColumnLevels - 1 are
// not walked: false then (a is not the permutation; the engine reports an error). With the
// engine's parameters a depth-2 node holds 2^9 samples on average against L = 2^10, so such
// a node would be over 20 standard deviations above its mean.
// (The GPU's one-thread-per-permutation shuffle for the sequential generators; pinned to
// bucket_shuffle() by tests/unit/test_bucket_shuffle.cpp.)
constexpr uint32_t kBucketColumnLevels = 3;

template <class Streams>
EA_HD bool bucket_column(uint8_t* a, size_t stride, uint8_t* out, size_t out_stride, const uint8_t* symbols,
                         uint32_t n, const BucketParams& p, const Streams& streams) {
  struct Frame {
    uint32_t start, m, depth, k, c;
    uint32_t end[256];  // end[c]: one past bucket c's last place in the node
  };
  Frame stack[kBucketColumnLevels];
  int top = -1;
  // Shuffles node (depth, start, m) if it is a leaf, else scatters it and pushes it.
  auto visit = [&](uint32_t depth, uint32_t start, uint32_t m) -> bool {
    auto&& rng = streams.at(depth, start);
    if (bucket_is_leaf(p, m, depth)) {
      if (depth == 0)
        for (uint32_t e = 0; e < m; ++e) a[e * stride] = symbols[e];
      fisher_yates(a + start * stride, m, stride, rng);
      return true;
    }
    if (top + 1 == static_cast<int>(kBucketColumnLevels)) return false;
    using S = std::remove_reference_t<decltype(rng)>;
    Frame& f = stack[++top];
    const uint32_t b = bucket_bits(p, depth), per = labels_per_word(LabelWords<S>::kBits, b);
    f.start = start;
    f.m = m;
    f.depth = depth;
    f.k = 1u << b;
    f.c = 0;
    for (uint32_t c = 0; c < f.k; ++c) f.end[c] = 0;
    const S saved = rng;
    for (uint32_t e = 0; e < m; e += per) {  // counts
      const uint64_t w = LabelWords<S>::next(rng);
      for (uint32_t g = 0; g < per && e + g < m; ++g) ++f.end[label_field(w, g, b)];
    }
    uint32_t run = 0;  // starts
    for (uint32_t c = 0; c < f.k; ++c) {
      const uint32_t size = f.end[c];
      f.end[c] = run;
      run += size;
    }
    rng = saved;
    // Scattered into a (the root, from symbols) or into out and back; f.end[c] then ends bucket c.
    uint8_t* to = depth == 0 ? a : out + static_cast<size_t>(start) * out_stride;
    const size_t to_stride = depth == 0 ? stride : out_stride;
    for (uint32_t e = 0; e < m; e += per) {
      const uint64_t w = LabelWords<S>::next(rng);
      for (uint32_t g = 0; g < per && e + g < m; ++g) {
        const uint8_t v = depth == 0 ? symbols[e + g] : a[(static_cast<size_t>(start) + e + g) * stride];
        to[static_cast<size_t>(f.end[label_field(w, g, b)]++) * to_stride] = v;
      }
    }
    if (depth != 0)
      for (uint32_t e = 0; e < m; ++e) a[(static_cast<size_t>(start) + e) * stride] = to[static_cast<size_t>(e) * to_stride];
    return true;
  };
  if (n < 2) {
    if (n == 1) a[0] = symbols[0];
    return true;
  }
  if (!visit(0, 0, n)) return false;
  while (top >= 0) {
    Frame& f = stack[top];
    if (f.c == f.k) {
      --top;
      continue;
    }
    const uint32_t c = f.c++;
    const uint32_t lo = c == 0 ? 0 : f.end[c - 1], hi = f.end[c];
    if (hi - lo >= 2 && !visit(f.depth + 1, f.start + lo, hi - lo)) return false;
  }
  return true;
}

// The bucket shuffle with the engine's parameters of permutation j on a contiguous row
// a[0..n): bucket passes above L samples, one Fisher-Yates leaf otherwise. Philox draws
// from its node streams (seed, j); any other generator with independent words from its one
// stream g in the canonical order (the engine's way to it: bucket_plan.hpp, pinned to this).
// `scratch` grows to 2 n bytes.
inline void engine_bucket_shuffle_philox(uint8_t* a, size_t n, uint64_t seed, uint64_t j,
                                         std::vector<uint8_t>& scratch) {
  PhiloxNodes s{seed, j};
  bucket_shuffle(a, n, engine_bucket_params(n), s, scratch);
}
template <class G>
void engine_bucket_shuffle(uint8_t* a, size_t n, G& g, std::vector<uint8_t>& scratch) {
  OneStream<G> s{g};
  bucket_shuffle(a, n, engine_bucket_params(n), s, scratch);
}

}  // namespace ea
