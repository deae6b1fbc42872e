// The shuffle a run asks for (--shuffle; JSON permutation.shuffleChoice): the bucket shuffle
// where the engine's rule allows it (engine_uses_buckets, src/permutation/bucket_shuffle.hpp),
// or the literal Fisher-Yates of SP 800-90B 5.1 for every permutation. Both are exact uniform
// shuffles of permutation j drawn from (generator, seed, j) alone; they give different
// permutations, so different counters (docs/validation.md).
#pragma once

#include <optional>
#include <string>

namespace ea {

enum class ShuffleChoice { Bucket, FisherYates };

inline const char* shuffle_choice_name(ShuffleChoice c) {
  return c == ShuffleChoice::FisherYates ? "fisher-yates" : "bucket";
}
inline std::optional<ShuffleChoice> parse_shuffle_choice(const std::string& text) {
  if (text == "bucket") return ShuffleChoice::Bucket;
  if (text == "fisher-yates") return ShuffleChoice::FisherYates;
  return std::nullopt;
}

}  // namespace ea
