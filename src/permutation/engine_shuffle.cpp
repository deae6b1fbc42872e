#include "permutation/engine_shuffle.hpp"

#include <type_traits>

#include "common/error.hpp"
#include "permutation/bucket_plan.hpp"
#include "permutation/bucket_shuffle.hpp"
#include "permutation/shuffle.hpp"
#include "rng/generators.hpp"
#include "rng/lane_group.hpp"
#include "rng/philox_batch.hpp"

namespace ea {

EngineShuffleScratch::EngineShuffleScratch() : targets(kShuffleBlock) {}
EngineShuffleScratch::~EngineShuffleScratch() = default;
EngineShuffleScratch::EngineShuffleScratch(EngineShuffleScratch&&) noexcept = default;
EngineShuffleScratch& EngineShuffleScratch::operator=(EngineShuffleScratch&&) noexcept = default;

void engine_shuffle_cpu(const StreamSetView& streams, ShuffleChoice choice, bool binary, uint64_t j, uint8_t* a,
                        size_t n, EngineShuffleScratch& s) {
  const bool buckets = engine_uses_buckets(streams.id, n, binary, choice);
  visit_generator(streams.id, [&](auto tag) {
    using G = decltype(tag);
    if constexpr (std::is_same_v<G, PhiloxGen>) {
      if (buckets) {
        bucket_shuffle_philox_cpu(a, n, streams.seed, j, s.bucket);
      } else {
        // The same words as PhiloxGen's, computed many blocks at a time.
        if (s.batch) {
          *s.batch = PhiloxBatchStream(streams.seed, j);
        } else {
          s.batch = std::make_unique<PhiloxBatchStream>(streams.seed, j);
        }
        fisher_yates_blocked(a, n, *s.batch, s.targets.data());
      }
    } else if constexpr (!G::kGrouped) {
      G rng = G::make(streams, j);
      if (buckets) {
        bucket_shuffle_planned(a, n, rng, s.bucket.plan, s.bucket.bytes);
      } else {
        fisher_yates_blocked(a, n, rng, s.targets.data());
      }
    } else {
      throw Error(ErrorKind::Internal, "engine_shuffle_cpu: a lane group's generator shuffles whole groups");
    }
  });
}

void engine_shuffle_group_cpu(const StreamSetView& streams, uint64_t g, uint8_t* const rows[], size_t n) {
  visit_generator(streams.id, [&](auto tag) {
    using G = decltype(tag);
    if constexpr (G::kGrouped) {
      LaneGroup<G> group(streams, g);
      fisher_yates_group(rows, n, group);
    } else {
      throw Error(ErrorKind::Internal, "engine_shuffle_group_cpu: not a lane group's generator");
    }
  });
}

}  // namespace ea
