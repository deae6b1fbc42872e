// The shuffling generators a user can pick with --prng: names, facts for --list-prngs and
// the JSON, and the host-side preparation of the permutation streams (StreamSet).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rng/stream_set.hpp"

namespace ea {

struct PrngInfo {
  PrngId id;
  const char* name;         // the --prng value
  const char* full_name;    // with version or parameters
  const char* family;
  const char* state;        // state per stream
  const char* period;
  const char* streams;      // how the stream of permutation j is made
  const char* draw;         // how Fisher-Yates draws are bounded
  bool compliance;          // may be used for an SP 800-90B verdict
  const char* caveat;       // why not, or "" when compliant
  // The calibration (docs/prngs.md): what it showed ("" = not calibrated yet).
  const char* calibration;
  bool calibration_flagged;  // its false-rejection interval excludes Philox's rate
  // "" when its shuffles pass the uniformity checks (tests/unit/test_prngs.cpp: 4 and 5
  // elements; `ea_calibrate --uniformity`: 4-8 elements in 10^7 shuffles and rows of 10^6,
  // docs/prngs.md), otherwise how they fail.
  const char* uniformity_flag;
};

const std::array<PrngInfo, kNumPrngs>& prng_table();
const PrngInfo& prng_info(PrngId id);
// nullopt for an unknown name.
std::optional<PrngId> parse_prng(const std::string& name);
std::string prng_names();  // "philox, xoshiro256ss, ..."

// Linear algebra for the jump-ahead of the MRGs: 3x3 matrices modulo m.
using Mat3 = std::array<std::array<uint64_t, 3>, 3>;
Mat3 mat3_mul(const Mat3& a, const Mat3& b, uint64_t m);
Mat3 mat3_pow2(Mat3 a, int e, uint64_t m);  // a^(2^e) mod m
void mat3_apply(const Mat3& a, uint32_t v[3], uint64_t m);

// The transition matrix of one XORWOW step on v[0..4], raised to 2^e (GF(2)): column b
// (bit b % 32 of word b / 32) is words [5 b, 5 b + 5).
std::vector<uint32_t> xorwow_matrix_pow2(int e);
void xorwow_apply(const std::vector<uint32_t>& matrix, uint32_t v[5]);

// The start states (and constants) of streams 0 .. count-1 of a generator under a seed:
// computed on the host in order of j, as clRNG creates its streams, then used by the CPU
// backend and uploaded by the GPU backend.
class StreamSet {
 public:
  StreamSet(PrngId id, uint64_t seed, uint64_t count);
  StreamSetView view() const;
  PrngId id() const { return id_; }
  uint64_t seed() const { return seed_; }
  uint64_t count() const { return count_; }
  const std::vector<uint32_t>& states() const { return states_; }
  const std::vector<uint32_t>& aux() const { return aux_; }
  uint32_t words_per_stream() const { return words_; }

 private:
  PrngId id_;
  uint64_t seed_, count_;
  uint32_t words_ = 0;
  std::vector<uint32_t> states_, aux_;
};

// Base states from a 64-bit seed (the successive outputs of SplitMix64 started at seed).
void xoshiro_base(uint64_t seed, uint64_t s[4]);
void mrg_base(uint64_t seed, uint32_t m1, uint32_t m2, uint32_t g[6]);
// `count` derangements of 0..31 drawn from SplitMix64(seed ^ 0xC1) by Fisher-Yates with the
// 32-bit Lemire draw, each redrawn until it has no fixed point (and, with `distinct_pairs`,
// until array 1 differs from array 0 at every position).
std::vector<uint32_t> combination_arrays(uint64_t seed, int count, bool distinct_pairs);
// Direction integers V_1..V_32 of Sobol dimensions 1..kSobolDims (Joe & Kuo 6.21201).
std::vector<uint32_t> sobol_directions();

// Shuffles a[0..n) as permutation j of the set, by the engine's rule (any generator; the
// bucket shuffle of src/permutation/bucket_shuffle.hpp, grouped generators' Fisher-Yates on
// the whole group of j on scratch copies). `binary`: the data's alphabet has two symbols
// (engine_uses_buckets). For tests and tools; the backends shuffle directly.
void shuffle_permutation(const StreamSet& set, uint64_t j, uint8_t* a, size_t n, bool binary = false);
// The same with Fisher-Yates on stream j for every generator (the kernels that carry out
// Fisher-Yates steps: lane groups, and rows of at most L samples, where both rules agree).
void fisher_yates_permutation(const StreamSet& set, uint64_t j, uint8_t* a, size_t n);

}  // namespace ea
