// The CPU's fast path of the engine's bucket shuffle for Philox (docs/bucket-shuffle.md):
// the same permutation as bucket_shuffle() with PhiloxNodes (src/permutation/bucket_shuffle.hpp,
// pinned by tests/unit/test_bucket_shuffle.cpp), with each node's Philox words computed 256
// blocks at a time (AVX2 where the CPU has it: philox_counter_blocks) and each leaf shuffled
// by fisher_yates_blocked (its draws eight at a time). The reference draws one block at a
// time and took 10.9 ms per permutation of 10^6 samples against Fisher-Yates' 1.75 ms
// (session 26, this 2-core machine).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ea {

// Scratch of one thread: 2 n bytes and a leaf's targets.
struct BucketCpuScratch {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> targets;
  std::vector<uint32_t> words;  // a node's label words
};

// a[0..n) (n < 2^32) becomes permutation j of the Philox streams under `seed` by the engine's
// rule: the bucket shuffle with engine_bucket_params(n) (one Fisher-Yates leaf at n <= L).
void bucket_shuffle_philox_cpu(uint8_t* a, size_t n, uint64_t seed, uint64_t j, BucketCpuScratch& scratch);

}  // namespace ea
