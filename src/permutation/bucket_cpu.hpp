// The CPU's fast path of the engine's bucket shuffle for Philox (docs/bucket-shuffle.md):
// the same permutation as bucket_shuffle() with PhiloxNodes (src/permutation/bucket_shuffle.hpp,
// pinned by tests/unit/test_bucket_shuffle.cpp), with each node's Philox words computed 256
// blocks at a time (AVX2 where the CPU has it: philox_counter_blocks) and each leaf shuffled
// by fisher_yates_blocked (its draws eight at a time). The reference draws one block at a
// time and took 10.9 ms per permutation of 10^6 samples against Fisher-Yates' 1.75 ms
// (session 26, this 2-core machine); this path 5.5 ms in session 26, 4.2-4.3 ms since
// session 28 (labels counted, never stored; splits of four parts side by side; the root and
// its children split in one pass).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "permutation/bucket_shuffle.hpp"

namespace ea {

// Scratch of one thread: n bytes for the scatters, a leaf's targets, a node's label words
// and the root's children's (about n bytes more: the fused root).
struct BucketCpuScratch {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> targets;
  std::vector<uint32_t> words;  // a node's label words
  std::vector<uint32_t> child_words;  // the root's children's label words (fused root)
  std::vector<std::array<uint32_t, 257>> bounds;  // the grandchildren's places (fused root)
  std::vector<std::array<uint32_t, 256>> next;    // their next places in the pass
  std::vector<uint8_t> plan;  // a sequential generator's plan row (bucket_plan.hpp)
};

// a[0..n) (n < 2^32) becomes permutation j of the Philox streams under `seed` by the engine's
// rule: the bucket shuffle with engine_bucket_params(n) (one Fisher-Yates leaf at n <= L).
void bucket_shuffle_philox_cpu(uint8_t* a, size_t n, uint64_t seed, uint64_t j, BucketCpuScratch& scratch);
// The same with other parameters (the tests' way to every branch: b0 below 3, b1 other than 8,
// small leaves); bucket_shuffle() with PhiloxNodes and `params`.
void bucket_shuffle_philox_cpu(uint8_t* a, size_t n, uint64_t seed, uint64_t j, BucketCpuScratch& scratch,
                               const BucketParams& params);

}  // namespace ea
