// The bucket shuffle of a sequential generator (OneStream<G>: one stream consumed in the
// canonical order, src/permutation/bucket_shuffle.hpp) in two steps, so that the data can
// move the way Philox's does (bucket passes on the GPU, fused splits on the CPU):
//
// 1. The plan (bucket_plan_walk): one walk of the canonical order that needs only the
//    nodes' sizes, never the data: the root's label words (its 2^b0 sizes counted), then
//    for each child in label order its label words (256 sizes counted) and each of its
//    leaves' Fisher-Yates draws, or the child's own draws where it is a leaf. What it
//    records, at the places the nodes will occupy in the permuted row of n samples:
//      lab0[e]      the root's label of sample e (input order);
//      lab1[s + e]  the label of sample e of the depth-1 node at place s (its order after
//                   the root's stable scatter);
//      tgt[s + k]   draw k of the leaf at place s: the target of its step i = m - 1 - k.
//    The places are increasing in the walk's order within each array, so a device thread
//    can write each 16-byte chunk once (BucketPlanWriter in cuda/bucket_shuffle.cuh).
// 2. The data moved by the plan: the root's stable scatter by lab0, each depth-1 node's by
//    lab1, each leaf's swaps by tgt (bucket_plan_apply on the CPU; the GPU's pass kernels
//    with a plan source).
//
// The walk draws exactly the words the reference draws, in its order (draw_labels, then
// fisher_yates' bounded draws), so the permutation is bucket_shuffle()'s with OneStream<G>
// and the engine's parameters. It covers nodes down to depth 2 with every depth-2 node a
// leaf (L = 1024; a depth-2 node holds 2^9 samples on average at the engine's parameters,
// so a larger one is over 20 standard deviations above its mean): otherwise it returns
// false and the caller shuffles that row by the reference (CPU) or reports an error (GPU).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/hd.hpp"
#include "permutation/bucket_shuffle.hpp"
#include "rng/generators.hpp"

namespace ea {

// A plan row for n samples: lab0 at 0, lab1 at bucket_plan_stride(n), tgt (16-bit) at twice
// that, every part 16-byte aligned where the row is.
EA_HD inline size_t bucket_plan_stride(size_t n) { return (n + 15) / 16 * 16; }
EA_HD inline size_t bucket_plan_bytes(size_t n) { return 4 * bucket_plan_stride(n); }

// A leaf of m samples at place s: fisher_yates' draws for steps m - 1 .. 1, eight at a time
// from eight words without a branch per draw where the generator has attempt() (the stream
// restored and the eight drawn by the exact method where one of the words might be
// rejected: the same draws, as draw_targets_kernel makes them).
template <class G, class Sink>
EA_HD EA_FORCEINLINE void bucket_plan_leaf(G& g, Sink& sink, uint32_t s, uint32_t m) {
  uint32_t k = 0;
  if constexpr (HasAttempt<G>::value) {
    for (; k + 8 < m; k += 8) {
      const G saved = g;
      bool maybe = false;
      uint32_t r[8];
      EA_UNROLL
      for (uint32_t e = 0; e < 8; ++e) r[e] = g.attempt(m - 1 - k - e, maybe);
      if (maybe) {
        g = saved;
        EA_UNROLL
        for (uint32_t e = 0; e < 8; ++e) r[e] = g.bounded(m - 1 - k - e);
      }
      EA_UNROLL
      for (uint32_t e = 0; e < 8; ++e) sink.tgt(s + k + e, r[e]);
    }
  }
  for (; k + 1 < m; ++k) sink.tgt(s + k, g.bounded(m - 1 - k));
}

// The labels of the node of m samples at place s and depth D (0 or 1), b bits each, from the
// stream's label words (draw_labels() of the reference): counted at cnt[l * cs], recorded by
// sink.lab0 / sink.lab1.
template <uint32_t D, class G, class Sink>
EA_HD EA_FORCEINLINE void bucket_plan_labels(G& g, Sink& sink, uint32_t s, uint32_t m, uint32_t b, uint32_t* cnt,
                                             uint32_t cs) {
  using W = LabelWords<G>;
  const uint32_t per = labels_per_word(W::kBits, b);
  for (uint32_t c = 0; c < (1u << b); ++c) cnt[c * cs] = 0;
  for (uint32_t e = 0; e < m; e += per) {
    const uint64_t w = W::next(g);
    for (uint32_t f = 0; f < per && e + f < m; ++f) {
      const uint32_t l = label_field(w, f, b);
      ++cnt[l * cs];
      if constexpr (D == 0) {
        sink.lab0(s + e + f, l);
      } else {
        sink.lab1(s + e + f, l);
      }
    }
  }
}

// Walks the canonical order of generator g's stream for a row of n samples (n above the
// leaf size L of engine_bucket_params(n)), calling sink.lab0(e, label), sink.lab1(place,
// label) and sink.tgt(place, draw) as above. False where a depth-2 node is no leaf (the
// sinks then hold a partial plan). The counts of the root's and a depth-1 node's labels
// are kept at cnt0[c * cs] and cnt1[c * cs] (256 each; a GPU thread's slots in shared
// memory, cs = 32, so that a warp's counts meet no bank conflict).
template <class G, class Sink>
EA_HD EA_FORCEINLINE bool bucket_plan_walk(G& g, uint32_t n, Sink& sink, uint32_t* cnt0, uint32_t* cnt1, uint32_t cs) {
  const BucketParams p = engine_bucket_params(n);
  const uint32_t b0 = p.root_bits, k0 = 1u << b0, b1 = p.inner_bits, k1 = 1u << b1;
  bucket_plan_labels<0>(g, sink, 0, n, b0, cnt0, cs);
  uint32_t s = 0;
  for (uint32_t c = 0; c < k0; ++c) {
    const uint32_t m = cnt0[c * cs];
    if (m >= 2 && bucket_is_leaf(p, m, 1)) {
      bucket_plan_leaf(g, sink, s, m);
    } else if (m >= 2) {
      bucket_plan_labels<1>(g, sink, s, m, b1, cnt1, cs);
      uint32_t s2 = s;
      for (uint32_t d = 0; d < k1; ++d) {
        const uint32_t m2 = cnt1[d * cs];
        if (m2 >= 2) {
          if (!bucket_is_leaf(p, m2, 2)) return false;
          bucket_plan_leaf(g, sink, s2, m2);
        }
        s2 += m2;
      }
    }
    s += m;
  }
  return true;
}
template <class G, class Sink>
bool bucket_plan_walk(G& g, uint32_t n, Sink& sink) {
  uint32_t cnt0[256], cnt1[256];
  return bucket_plan_walk(g, n, sink, cnt0, cnt1, 1);
}

// The host's sink: plain stores into a plan row of bucket_plan_bytes(n) bytes.
struct BucketPlanRow {
  uint8_t* lab0_;
  uint8_t* lab1_;
  uint16_t* tgt_;
  BucketPlanRow(uint8_t* row, size_t n)
      : lab0_(row), lab1_(row + bucket_plan_stride(n)),
        tgt_(reinterpret_cast<uint16_t*>(row + 2 * bucket_plan_stride(n))) {}
  void lab0(uint32_t e, uint32_t l) { lab0_[e] = static_cast<uint8_t>(l); }
  void lab1(uint32_t e, uint32_t l) { lab1_[e] = static_cast<uint8_t>(l); }
  void tgt(uint32_t e, uint32_t r) { tgt_[e] = static_cast<uint16_t>(r); }
};

// a[0 .. n) moved by the plan row `plan` (bucket_plan_walk's for n): the same permutation as
// bucket_shuffle() with that generator's OneStream. `scratch` grows to n bytes.
void bucket_plan_apply(uint8_t* a, size_t n, const uint8_t* plan, std::vector<uint8_t>& scratch);

// The CPU's bucket shuffle of permutation j for a sequential generator: the plan into
// `plan` (grown to bucket_plan_bytes(n)), then bucket_plan_apply; a row whose walk fails
// is shuffled by the reference (engine_bucket_shuffle) from a copy of the stream's start.
template <class G>
void bucket_shuffle_planned(uint8_t* a, size_t n, G g, std::vector<uint8_t>& plan, std::vector<uint8_t>& scratch) {
  if (n <= engine_bucket_params(n).leaf) {
    fisher_yates(a, n, 1, g);
    return;
  }
  if (plan.size() < bucket_plan_bytes(n)) plan.resize(bucket_plan_bytes(n));
  G walker = g;
  BucketPlanRow sink(plan.data(), n);
  if (!bucket_plan_walk(walker, static_cast<uint32_t>(n), sink)) {
    engine_bucket_shuffle(a, n, g, scratch);
    return;
  }
  bucket_plan_apply(a, n, plan.data(), scratch);
}

}  // namespace ea
