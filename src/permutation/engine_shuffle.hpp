// Permutation j of a row as the CPU backend makes it (src/permutation/cpu_backend.cpp), the
// one owner of that choice: above L samples of non-binary data the bucket shuffle
// (Philox's fast path, bucket_cpu.hpp; the sequential generators' plan, bucket_plan.hpp),
// otherwise Fisher-Yates on stream j (the blocked form: the same draws); the lane groups'
// generators by whole groups of kLaneGroup rows. Pinned row for row to the reference
// (shuffle_permutation, fisher_yates_permutation) for every generator and --shuffle by
// tests/unit/test_bucket_shuffle.cpp ("engine_shuffle_cpu ..."); the GPU's rows equal the
// reference's (tests/gpu/test_gpu_prngs.cu, gpu/cpu_gpu_parity).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "permutation/bucket_cpu.hpp"
#include "permutation/shuffle_choice.hpp"
#include "rng/stream_set.hpp"

namespace ea {

class PhiloxBatchStream;

// One thread's scratch for engine_shuffle_cpu.
struct EngineShuffleScratch {
  EngineShuffleScratch();
  ~EngineShuffleScratch();
  EngineShuffleScratch(EngineShuffleScratch&&) noexcept;
  EngineShuffleScratch& operator=(EngineShuffleScratch&&) noexcept;
  std::vector<uint32_t> targets;             // Fisher-Yates' drawn targets (kShuffleBlock)
  BucketCpuScratch bucket;                   // the bucket shuffle's (about 2.4 n bytes)
  std::unique_ptr<PhiloxBatchStream> batch;  // 4 kB of Philox words: kept off the stack
};

// a[0..n) becomes permutation j of `streams` (any generator but a lane group's) by the engine's
// rule for `choice` and the data's kind (`binary`: two symbols).
void engine_shuffle_cpu(const StreamSetView& streams, ShuffleChoice choice, bool binary, uint64_t j, uint8_t* a,
                        size_t n, EngineShuffleScratch& scratch);

// The kLaneGroup rows of lane group g (permutations g kLaneGroup .. + kLaneGroup - 1) of a
// lane group's generator, each rows[k][0..n) holding the data on entry: Fisher-Yates in
// lockstep (rng/lane_group.hpp). Throws Error{Internal} for other generators.
void engine_shuffle_group_cpu(const StreamSetView& streams, uint64_t g, uint8_t* const rows[], size_t n);

}  // namespace ea
