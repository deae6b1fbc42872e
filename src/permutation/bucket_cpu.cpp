#include "permutation/bucket_cpu.hpp"

#include <algorithm>

#include "permutation/bucket_shuffle.hpp"
#include "permutation/shuffle.hpp"
#include "rng/philox_batch.hpp"

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

// lab[e] = label e of a node of m samples, B bits each, from its words w[0 ..] (draw_labels()
// of the reference); cnt[e % 4][c] counts label c.
template <uint32_t B>
void labels(const uint32_t* w, uint8_t* lab, size_t m, uint32_t (&cnt)[4][256]) {
  constexpr uint32_t per = 32 / B, mask = (1u << B) - 1u;
  for (size_t e = 0, i = 0; e < m; e += per, ++i) {
    const uint32_t x = w[i];
    const uint32_t fields = m - e < per ? static_cast<uint32_t>(m - e) : per;
    for (uint32_t f = 0; f < fields; ++f) {
      const uint32_t c = (x >> (B * f)) & mask;
      lab[e + f] = static_cast<uint8_t>(c);
      ++cnt[f & 3][c];
    }
  }
}
// B = 8: the labels are the words' bytes (little-endian, the low field first), counted in place.
inline const uint8_t* byte_labels(const uint32_t* w, size_t m, uint32_t (&cnt)[4][256]) {
  const uint8_t* lab = reinterpret_cast<const uint8_t*>(w);
  size_t e = 0;
  for (; e + 4 <= m; e += 4) {
    ++cnt[0][lab[e]];
    ++cnt[1][lab[e + 1]];
    ++cnt[2][lab[e + 2]];
    ++cnt[3][lab[e + 3]];
  }
  for (; e < m; ++e) ++cnt[0][lab[e]];
  return lab;
}

struct Walk {
  uint8_t* a;
  size_t n;
  uint64_t seed, j;
  BucketParams p;
  BucketCpuScratch& s;

  // bucket_node() of the reference with PhiloxNodes and ChildOrder::kForward, scattering
  // between a and the scratch half `out` in turn (no copy back): the node's samples are in
  // `out` where in_out, else in a; a leaf's end in a.
  void node(size_t start, size_t m, uint32_t depth, bool in_out) {
    uint8_t* const out_base = s.bytes.data() + n;
    const bool leaf = bucket_is_leaf(p, m, depth);
    if (leaf) {
      NodeWords rng(seed, j, depth, static_cast<uint32_t>(start), m);
      if (in_out) std::copy(out_base + start, out_base + start + m, a + start);
      fisher_yates_blocked(a + start, m, rng, s.targets.data());
      return;
    }
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
    // The labels, counted as they are made (four tables: no chain of increments through
    // one counter).
    uint32_t cnt[4][256];
    for (auto& t : cnt) std::fill(t, t + k, 0u);
    const uint8_t* lab = s.bytes.data() + start;
    switch (b) {
      case 3: labels<3>(s.words.data(), s.bytes.data() + start, m, cnt); break;
      case 4: labels<4>(s.words.data(), s.bytes.data() + start, m, cnt); break;
      case 5: labels<5>(s.words.data(), s.bytes.data() + start, m, cnt); break;
      case 6: labels<6>(s.words.data(), s.bytes.data() + start, m, cnt); break;
      case 7: labels<7>(s.words.data(), s.bytes.data() + start, m, cnt); break;
      default: lab = byte_labels(s.words.data(), m, cnt); break;
    }
    // The stable scatter (stable_scatter() without its counting pass).
    uint32_t bound[257], next[256];
    bound[0] = 0;
    for (uint32_t c = 0; c < k; ++c) {
      next[c] = bound[c];
      bound[c + 1] = bound[c] + cnt[0][c] + cnt[1][c] + cnt[2][c] + cnt[3][c];
    }
    for (size_t i = 0; i < m; ++i) dst[next[lab[i]]++] = src[i];
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

void bucket_shuffle_philox_cpu(uint8_t* a, size_t n, uint64_t seed, uint64_t j, BucketCpuScratch& scratch) {
  if (n < 2) return;
  if (scratch.bytes.size() < 2 * n) scratch.bytes.resize(2 * n);
  if (scratch.targets.size() < kShuffleBlock) scratch.targets.resize(kShuffleBlock);
  Walk w{a, n, seed, j, engine_bucket_params(n), scratch};
  w.node(0, n, 0, false);
}

}  // namespace ea
