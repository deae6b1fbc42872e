#include "permutation/bucket_plan.hpp"

#include <cstring>

#include "common/error.hpp"

namespace ea {

namespace {

// The k-th of the leaf's draws is the target of its step i = m - 1 - k (fisher_yates' order).
inline void leaf_by_targets(uint8_t* x, uint32_t m, const uint16_t* t) {
  for (uint32_t k = 0; k + 1 < m; ++k) {
    const uint32_t i = m - 1 - k, r = t[k];
    const uint8_t v = x[i];
    x[i] = x[r];
    x[r] = v;
  }
}

// cnt[l] += how many of s[0 .. m) are l (four tables: no chain of increments through one counter).
void count_bytes(const uint8_t* s, size_t m, uint32_t* cnt) {
  uint32_t t[4][256] = {};
  size_t e = 0;
  for (; e + 4 <= m; e += 4) {
    ++t[0][s[e]];
    ++t[1][s[e + 1]];
    ++t[2][s[e + 2]];
    ++t[3][s[e + 3]];
  }
  for (; e < m; ++e) ++t[0][s[e]];
  for (uint32_t c = 0; c < 256; ++c) cnt[c] += t[0][c] + t[1][c] + t[2][c] + t[3][c];
}

// The stable scatter of src[0 .. m) by the byte labels lab[0 .. m) into dst (stable_scatter()
// of the reference; bound[c]: the first place of bucket c, bound[256] = m), in four parts
// scattered side by side: four independent chains of bucket places (bucket_cpu's split).
void split_bytes(const uint8_t* lab, const uint8_t* src, size_t m, uint8_t* dst, uint32_t* bound) {
  constexpr size_t kParts = 4;
  const size_t part = m / kParts;
  uint32_t cnt[kParts][256] = {};
  for (size_t q = 0; q < kParts; ++q) count_bytes(lab + q * part, q + 1 < kParts ? part : m - q * part, cnt[q]);
  uint32_t next[kParts][256];
  uint32_t at = 0;
  for (uint32_t c = 0; c < 256; ++c) {
    bound[c] = at;
    for (size_t q = 0; q < kParts; ++q) {
      next[q][c] = at;
      at += cnt[q][c];
    }
  }
  bound[256] = at;
  for (size_t i = 0; i < part; ++i) {
    for (size_t q = 0; q < kParts; ++q) dst[next[q][lab[q * part + i]]++] = src[q * part + i];
  }
  for (size_t i = kParts * part; i < m; ++i) dst[next[kParts - 1][lab[i]]++] = src[i];
}

}  // namespace

// The root's split by lab0 into the scratch, each depth-1 node's by lab1 back into a (a node
// that is a leaf copied back), then the leaves' swaps in a.
void bucket_plan_apply(uint8_t* a, size_t n, const uint8_t* plan, std::vector<uint8_t>& scratch) {
  const BucketParams p = engine_bucket_params(n);
  if (p.inner_bits != 8) throw Error(ErrorKind::Internal, "bucket_plan_apply: inner nodes of other than 256 buckets");
  const size_t stride = bucket_plan_stride(n);
  const uint8_t* lab0 = plan;
  const uint8_t* lab1 = plan + stride;
  const uint16_t* tgt = reinterpret_cast<const uint16_t*>(plan + 2 * stride);
  const uint32_t k0 = 1u << p.root_bits;
  if (scratch.size() < n) scratch.resize(n);
  uint8_t* out = scratch.data();
  uint32_t bound0[257], bound1[257];
  split_bytes(lab0, a, n, out, bound0);
  for (uint32_t c = 0; c < k0; ++c) {
    const uint32_t s = bound0[c], m = bound0[c + 1] - s;
    if (bucket_is_leaf(p, m, 1)) {
      std::memcpy(a + s, out + s, m);
      if (m >= 2) leaf_by_targets(a + s, m, tgt + s);
      continue;
    }
    split_bytes(lab1 + s, out + s, m, a + s, bound1);
    for (uint32_t d = 0; d < 256; ++d) {
      const uint32_t m2 = bound1[d + 1] - bound1[d];
      if (m2 >= 2) leaf_by_targets(a + s + bound1[d], m2, tgt + s + bound1[d]);
    }
  }
}

}  // namespace ea
