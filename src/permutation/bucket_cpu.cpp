#include "permutation/bucket_cpu.hpp"

#include <algorithm>
#include <array>
#include <type_traits>

#include "permutation/bucket_shuffle.hpp"
#include "permutation/shuffle.hpp"
#include "rng/philox_batch.hpp"

// (a word's label bytes are read in place, the low byte first: draw_labels()'s order)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "bucket_cpu reads label bytes in little-endian order");

namespace ea {

namespace {

// The counter words 1 and 2-3 of node (depth, start) of permutation j (PhiloxNodeStream::block;
// at depth 0 PhiloxStream(seed, j), below 2^32 blocks).
void node_counter(uint64_t j, uint32_t depth, uint32_t start, uint32_t& x1, uint64_t& x23) {
  if (depth == 0) {
    x1 = 0;
    x23 = j;
  } else {
    x1 = start;
    const uint64_t hi = 0x80000000u | (depth << 24) | (static_cast<uint32_t>(j >> 32) & 0xffffffu);
    x23 = hi << 32 | static_cast<uint32_t>(j);
  }
}

// PhiloxNodeStream's words (node (depth, start) of permutation j), kBlocks blocks at a time.
class NodeWords {
 public:
  static constexpr uint32_t kBlocks = 256;
  static constexpr uint32_t kWords = 4 * kBlocks;

  // `words`: about how many words the node will take (its first refills compute no more
  // blocks than that, in multiples of 16; a leaf of 490 samples would otherwise compute
  // 1,024 words).
  NodeWords(uint64_t seed, uint64_t j, uint32_t depth, uint32_t start, size_t words) : seed_(seed), want_(words) {
    node_counter(j, depth, start, x1_, x23_);
  }
  EA_FORCEINLINE uint32_t next() {
    if (index_ == kWords) refill();
    return words_[index_++];
  }
  EA_FORCEINLINE uint32_t bounded(uint32_t i) { return bounded_inclusive(*this, i); }
  // t[k] = bounded(top - k), k = 0 .. m-1 (fisher_yates_blocked's draws).
  void draw(uint32_t* t, size_t m, uint32_t top) {
    size_t k = 0;
    while (k < m) {
      if (index_ == kWords) refill();
      k += philox_draw_eights(words_, kWords, index_, t + k, m - k, top - static_cast<uint32_t>(k));
      const size_t stop = m - k < 8 ? m : k + 8;
      for (; k < stop; ++k) t[k] = bounded(top - static_cast<uint32_t>(k));
    }
  }

 private:
  // The words of the next blocks into words_[kWords - 4 b ..] (the draw functions read up
  // to the end of the buffer).
  void refill() {
    const size_t need = (want_ + 3) / 4;
    const uint32_t blocks = static_cast<uint32_t>(need >= kBlocks ? kBlocks : need < 16 ? 16 : (need + 15) / 16 * 16);
    index_ = kWords - 4 * blocks;
    philox_counter_blocks(seed_, x1_, x23_, block_, blocks, words_ + index_);
    block_ += blocks;
    want_ = want_ > 4 * size_t{blocks} ? want_ - 4 * size_t{blocks} : 0;
  }
  uint64_t seed_;
  size_t want_;
  uint32_t x1_ = 0;
  uint64_t x23_ = 0;
  uint32_t block_ = 0;
  uint32_t index_ = kWords;
  alignas(64) uint32_t words_[kWords];
};

inline void draw_targets(NodeWords& rng, uint32_t* t, size_t m, uint32_t top) { rng.draw(t, m, top); }

// The labels of a node of m samples, B < 8 bits each, are never stored: they are counted
// from the node's words w[0 ..] (draw_labels() of the reference: field f of word i is the
// label of sample per i + f, the low field first), then read again by the scatter.
// cnt[c] += how many labels are c.
template <uint32_t B>
void count_fields(const uint32_t* w, size_t m, uint32_t* cnt) {
  constexpr uint32_t per = 32 / B, mask = (1u << B) - 1u;
  uint32_t t[4][1u << B] = {};  // four tables: no chain of increments through one counter
  size_t e = 0, i = 0;
  for (; e + per <= m; e += per, ++i) {
    uint32_t x = w[i];
    for (uint32_t f = 0; f < per; ++f, x >>= B) ++t[f & 3][x & mask];
  }
  for (uint32_t x = e < m ? w[i] : 0; e < m; ++e, x >>= B) ++t[0][x & mask];
  for (uint32_t c = 0; c <= mask; ++c) cnt[c] += t[0][c] + t[1][c] + t[2][c] + t[3][c];
}
// B = 3 (the root of rows up to about 2^21 samples): ten 3-bit labels a word counted by
// five lookups of two labels each, into eight 8-bit counters of one 64-bit word (at most
// 10 a word: emptied every 25 words).
template <>
void count_fields<3>(const uint32_t* w, size_t m, uint32_t* cnt) {
  static const auto pairs = [] {
    std::array<uint64_t, 64> p{};
    for (uint32_t v = 0; v < 64; ++v) p[v] = (uint64_t{1} << (8 * (v & 7))) + (uint64_t{1} << (8 * (v >> 3)));
    return p;
  }();
  const size_t words = m / 10;
  size_t i = 0;
  while (i < words) {
    const size_t stop = std::min(words, i + 25);
    uint64_t acc = 0;
    for (; i < stop; ++i) {
      const uint32_t x = w[i];
      acc += pairs[x & 63] + pairs[(x >> 6) & 63] + pairs[(x >> 12) & 63] + pairs[(x >> 18) & 63] + pairs[(x >> 24) & 63];
    }
    for (uint32_t c = 0; c < 8; ++c) cnt[c] += static_cast<uint32_t>(acc >> (8 * c)) & 0xffu;
  }
  for (uint32_t e = 0, x = words * 10 < m ? w[words] : 0; words * 10 + e < m; ++e, x >>= 3) ++cnt[x & 7];
}
// The stable scatter of src[0..m) into dst by the labels of the words w (next[c]: the next
// place of bucket c).
template <uint32_t B>
void scatter_fields(const uint32_t* w, const uint8_t* src, size_t m, uint8_t* dst, uint32_t* next) {
  constexpr uint32_t per = 32 / B, mask = (1u << B) - 1u;
  size_t e = 0, i = 0;
  for (; e + per <= m; e += per, ++i) {
    uint32_t x = w[i];
    for (uint32_t f = 0; f < per; ++f, x >>= B) dst[next[x & mask]++] = src[e + f];
  }
  for (uint32_t x = e < m ? w[i] : 0; e < m; ++e, x >>= B) dst[next[x & mask]++] = src[e];
}
// A node's split (stable_scatter() of the reference): its m samples in four parts (each
// but the last a whole number of words), the labels counted per part, then the parts
// scattered side by side, four independent chains of bucket places (one chain stalled on
// repeated labels: 5.5 ns a sample for 10^6 samples, session 28). bound[c]: the first place
// of bucket c, bound[2^B] = m. B = 8: the labels are the words' bytes (little-endian).
template <uint32_t B>
void split(const uint32_t* w, const uint8_t* src, size_t m, uint8_t* dst, uint32_t* bound) {
  constexpr uint32_t per = 32 / B, k = 1u << B, mask = k - 1u;
  constexpr size_t kParts = 4;
  const size_t part_words = m / per / kParts, part = part_words * per;
  uint32_t cnt[kParts][k] = {};
  for (size_t q = 0; q < kParts; ++q) count_fields<B>(w + q * part_words, q + 1 < kParts ? part : m - q * part, cnt[q]);
  uint32_t next[kParts][k];
  uint32_t at = 0;
  for (uint32_t c = 0; c < k; ++c) {
    bound[c] = at;
    for (size_t q = 0; q < kParts; ++q) {
      next[q][c] = at;
      at += cnt[q][c];
    }
  }
  bound[k] = at;
  for (size_t i = 0; i < part_words; ++i) {
    uint32_t x[kParts];
    for (size_t q = 0; q < kParts; ++q) x[q] = w[q * part_words + i];
    const uint8_t* from = src + i * per;
    for (uint32_t f = 0; f < per; ++f) {
      for (size_t q = 0; q < kParts; ++q) {
        dst[next[q][x[q] & mask]++] = from[q * part + f];
        x[q] >>= B;
      }
    }
  }
  const size_t rest = kParts * part;  // the last part's samples after its first part_words words
  scatter_fields<B>(w + rest / per, src + rest, m - rest, dst, next[kParts - 1]);
}

// The fused root (Walk::fused_root): the root's samples scattered straight to their places
// among the 2^b0 x 256 grandchildren. A sample's place in its child is its rank among the
// earlier samples of the same root label (the root's scatter is stable), so the child's
// label of it is that child's byte at that rank; the grandchildren's bounds come from each
// child's labels counted before any sample moves. One pass instead of two over the row
// (each of 10^6 samples: 1.4 + 1.2 ns for the two splits, session 28).
template <uint32_t B0>
void fused_scatter(const uint32_t* w0, const uint8_t* const* child_labels, const uint8_t* src, size_t m, uint8_t* dst,
                   std::array<uint32_t, 256>* next) {
  constexpr uint32_t per = 32 / B0, mask = (1u << B0) - 1u;
  const uint8_t* cur[1u << B0];
  for (uint32_t c = 0; c <= mask; ++c) cur[c] = child_labels[c];
  auto place = [&](uint32_t c, uint8_t v) { dst[next[c][*cur[c]++]++] = v; };
  size_t e = 0, i = 0;
  for (; e + per <= m; e += per, ++i) {
    uint32_t x = w0[i];
    for (uint32_t f = 0; f < per; ++f, x >>= B0) place(x & mask, src[e + f]);
  }
  for (uint32_t x = e < m ? w0[i] : 0; e < m; ++e, x >>= B0) place(x & mask, src[e]);
}

// f(std::integral_constant<uint32_t, b>{}) for a label width b of 1..8 (BucketParams):
// the one place the kernels above are instantiated for every width.
template <class F>
void with_bits(uint32_t b, F&& f) {
  switch (b) {
    case 1: f(std::integral_constant<uint32_t, 1>{}); break;
    case 2: f(std::integral_constant<uint32_t, 2>{}); break;
    case 3: f(std::integral_constant<uint32_t, 3>{}); break;
    case 4: f(std::integral_constant<uint32_t, 4>{}); break;
    case 5: f(std::integral_constant<uint32_t, 5>{}); break;
    case 6: f(std::integral_constant<uint32_t, 6>{}); break;
    case 7: f(std::integral_constant<uint32_t, 7>{}); break;
    default: f(std::integral_constant<uint32_t, 8>{}); break;
  }
}

struct Walk {
  uint8_t* a;
  size_t n;
  uint64_t seed, j;
  BucketParams p;
  BucketCpuScratch& s;

  // Node (depth, start)'s label words for m samples of b bits into words[0 ..) (blocks 0 ..
  // of its stream: a non-leaf node's stream serves its labels alone).
  void label_words(uint32_t depth, size_t start, size_t m, uint32_t b, std::vector<uint32_t>& words, size_t at) {
    const uint32_t per = labels_per_word(32, b);
    const size_t blocks = ((m + per - 1) / per + 3) / 4;
    if (words.size() < at + 4 * blocks) words.resize(at + 4 * blocks);
    uint32_t x1 = 0;
    uint64_t x23 = 0;
    node_counter(j, depth, static_cast<uint32_t>(start), x1, x23);
    philox_counter_blocks(seed, x1, x23, 0, static_cast<uint32_t>(blocks), words.data() + at);
  }

  // The root and its children split in one pass (fused_scatter), where every child is an
  // inner node of 256 buckets (the engine's rows above about 2^b0 x 1024 samples); the
  // grandchildren then from `out`. False (nothing done) otherwise.
  bool fused_root(size_t m) {
    const uint32_t b0 = bucket_bits(p, 0), k0 = 1u << b0;
    if (bucket_bits(p, 1) != 8 || b0 < 3 || bucket_is_leaf(p, m, 0)) return false;
    label_words(0, 0, m, b0, s.words, 0);
    uint32_t cnt[256] = {};
    with_bits(b0, [&](auto B) { count_fields<B()>(s.words.data(), m, cnt); });
    uint32_t start[257];
    start[0] = 0;
    for (uint32_t c = 0; c < k0; ++c) {
      if (bucket_is_leaf(p, cnt[c], 1)) return false;
      start[c + 1] = start[c] + cnt[c];
    }
    // Each child's labels (a byte each), counted: its grandchildren's places.
    size_t at[257];
    at[0] = 0;
    for (uint32_t c = 0; c < k0; ++c) {
      label_words(1, start[c], cnt[c], 8, s.child_words, at[c]);
      at[c + 1] = at[c] + (cnt[c] + 15) / 16 * 4;
    }
    std::vector<std::array<uint32_t, 257>>& bound = s.bounds;
    bound.resize(k0);
    std::vector<std::array<uint32_t, 256>>& next = s.next;
    next.resize(k0);
    const uint8_t* child_labels[256];
    for (uint32_t c = 0; c < k0; ++c) {
      uint32_t g[256] = {};
      count_fields<8>(s.child_words.data() + at[c], cnt[c], g);
      child_labels[c] = reinterpret_cast<const uint8_t*>(s.child_words.data() + at[c]);
      bound[c][0] = start[c];
      for (uint32_t d = 0; d < 256; ++d) {
        next[c][d] = bound[c][d];
        bound[c][d + 1] = bound[c][d] + g[d];
      }
    }
    uint8_t* const out = s.bytes.data();
    std::array<uint32_t, 256>* const nx = next.data();
    with_bits(b0, [&](auto B) { fused_scatter<B()>(s.words.data(), child_labels, a, m, out, nx); });
    for (uint32_t c = 0; c < k0; ++c) {
      for (uint32_t d = 0; d < 256; ++d) {
        const size_t size = bound[c][d + 1] - bound[c][d];
        if (size >= 2) {
          node(bound[c][d], size, 2, true);
        } else if (size == 1) {  // (its one sample is in `out`)
          a[bound[c][d]] = out[bound[c][d]];
        }
      }
    }
    return true;
  }

  // bucket_node() of the reference with PhiloxNodes and ChildOrder::kForward, scattering
  // between a and the scratch half `out` in turn (no copy back): the node's samples are in
  // `out` where in_out, else in a; a leaf's end in a.
  void node(size_t start, size_t m, uint32_t depth, bool in_out) {
    uint8_t* const out_base = s.bytes.data();
    const bool leaf = bucket_is_leaf(p, m, depth);
    if (leaf) {
      NodeWords rng(seed, j, depth, static_cast<uint32_t>(start), m);
      if (in_out) std::copy(out_base + start, out_base + start + m, a + start);
      fisher_yates_blocked(a + start, m, rng, s.targets.data());
      return;
    }
    if (depth == 0 && fused_root(m)) return;
    const uint32_t b = bucket_bits(p, depth), k = 1u << b, per = labels_per_word(32, b);
    // The node's label words at once: blocks 0 .. of its stream (a non-leaf node's stream
    // serves its labels alone).
    const size_t words = (m + per - 1) / per, blocks = (words + 3) / 4;
    if (s.words.size() < 4 * blocks) s.words.resize(4 * blocks);
    uint32_t x1 = 0;
    uint64_t x23 = 0;
    node_counter(j, depth, static_cast<uint32_t>(start), x1, x23);
    philox_counter_blocks(seed, x1, x23, 0, static_cast<uint32_t>(blocks), s.words.data());
    const uint8_t* src = (in_out ? out_base : a) + start;
    uint8_t* dst = (in_out ? a : out_base) + start;
    uint32_t bound[257];
    const uint32_t* w = s.words.data();
    with_bits(b, [&](auto B) { split<B()>(w, src, m, dst, bound); });
    for (uint32_t c = 0; c < k; ++c) {
      const size_t size = bound[c + 1] - bound[c];
      if (size >= 2) {
        node(start + bound[c], size, depth + 1, !in_out);
      } else if (size == 1 && !in_out) {  // (its one sample is in `out`)
        a[start + bound[c]] = dst[bound[c]];
      }
    }
  }
};

}  // namespace

void bucket_shuffle_philox_cpu(uint8_t* a, size_t n, uint64_t seed, uint64_t j, BucketCpuScratch& scratch,
                               const BucketParams& params) {
  if (n < 2) return;
  if (scratch.bytes.size() < n) scratch.bytes.resize(n);
  if (scratch.targets.size() < kShuffleBlock) scratch.targets.resize(kShuffleBlock);
  Walk w{a, n, seed, j, params, scratch};
  w.node(0, n, 0, false);
}

void bucket_shuffle_philox_cpu(uint8_t* a, size_t n, uint64_t seed, uint64_t j, BucketCpuScratch& scratch) {
  bucket_shuffle_philox_cpu(a, n, seed, j, scratch, engine_bucket_params(n));
}

}  // namespace ea
