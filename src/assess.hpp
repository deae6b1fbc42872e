// One IID-track assessment of a data set (SP 800-90B section 5 and 6.3.1): the library's
// entry point. It computes and throws; printing and exit codes belong to the CLI.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "estimators/estimators.hpp"
#include "io/samples.hpp"
#include "permutation/permutation.hpp"
#include "rng/prng.hpp"

namespace ea {

enum class DeviceChoice { Auto, Cpu, Gpu };

// Device resources that one worker of a batch (or of a calibration) keeps from one
// assessment to the next: the GPU backend, rebound to each new data set, so that device
// memory, streams and pinned buffers are allocated once.
struct DeviceSlot {
  std::unique_ptr<PermutationBackend> gpu;
  double memory_share = 0.85;  // share of the free device memory its rounds may take
  // The slot's backend rebound to `pd`, or (first use, or a backend that cannot rebind) a
  // new one made after the old one's memory went back. Throws Error{Device}.
  PermutationBackend& bind(const PermutationData& pd, int gpu_id, uint32_t round_size);
  // The same for the GPU compression test (make_gpu_compression_backend).
  std::unique_ptr<PermutationBackend> compression;
  PermutationBackend& bind_compression(const PermutationData& pd, int gpu_id);
};

struct AssessConfig {
  bool initial_entropy = true;     // -i (default) or -c
  bool truncate_bitstring = false; // -t: H_bitstring from the first 1,000,000 bits only
  uint64_t seed = 0;                // the user's seed (--seed); assess() derives the data's own
  PrngId prng = PrngId::Philox;    // the shuffling generator (--prng)
  uint32_t iterations = 10000;
  bool early_exit = true;
  bool all_tests = false;
  int threads = 1;
  DeviceChoice device = DeviceChoice::Auto;
  int gpu_id = 0;
  uint32_t round_size = 0;         // GPU permutations per round; 0 = from free memory
  bool verify = false;             // recompute some GPU permutations on the CPU
  // With a GPU: run the compression test there (exact bzip2 size model) rather than with
  // libbz2 on the CPU cores; false: --cpu-compression.
  bool gpu_compression = true;
  std::function<void(const char* phase, uint32_t done, int active)> progress;
  std::function<void(const std::string&)> note;  // informational messages (device choice)
  const std::atomic<bool>* interrupt = nullptr;    // stop between rounds (Error{Interrupted})
  DeviceSlot* slot = nullptr;      // reuse this worker's GPU backend (batch); null: a new one
};

constexpr uint64_t kMinSamples = 1000000;  // the reference's MIN_SIZE

enum class Verdict { Iid, NotIid, Inconclusive };
const char* verdict_name(Verdict v);

struct Timings {
  double estimates = 0, chi_square = 0, lrs = 0, permutation = 0, compression = 0, total = 0;
  double device_busy = 0;  // GPU kernel time of the permutation rounds (0 on the CPU)
  std::string device_profile;  // breakdown of the device time
};

struct Assessment {
  // Input facts (the Dataset's arrays are not kept).
  std::string path, sha256;
  uint64_t samples = 0;
  int width = 0, alphabet = 0;
  bool binary = false, translated = false, narrower_than_given = false;
  std::optional<SubsetSpec> subset;
  std::vector<std::string> warnings;

  Baseline base;
  bool initial_entropy = true;
  std::optional<McvEstimate> h_original;   // -i only
  std::optional<McvEstimate> h_bitstring;  // when k > 2 or -c
  uint64_t bitstring_bits = 0;             // bits used for H_bitstring
  double h_assessed = 0;

  ChiSquareResult independence, goodness_of_fit;
  LrsResult lrs;

  StatVector original{};
  PermutationOutcome permutation;
  uint64_t user_seed = 0;  // --seed (or drawn from the OS)
  uint64_t seed = 0;       // the shuffles' seed: assessment_seed(user_seed, data)
  uint32_t iterations = 10000;
  bool early_exit = true;
  std::string device;      // "cpu" or the GPU's description
  std::string compression_device;  // where the compression test ran (or would have)
  PrngId prng = PrngId::Philox;
  int threads = 1;
  bool verified = false;   // --verify checked GPU permutations against the CPU
  Timings timings;

  bool chi_square_evaluable() const { return independence.evaluable && goodness_of_fit.evaluable; }
  bool chi_square_failed() const {
    return (independence.evaluable && !independence.passed()) ||
           (goodness_of_fit.evaluable && !goodness_of_fit.passed());
  }
  bool chi_square_passed() const { return independence.passed() && goodness_of_fit.passed(); }
  Verdict verdict() const;
  // Names of the test families that failed ("chi-square", "LRS", "permutation").
  std::vector<std::string> failed_families() const;
};

// The seed of the shuffles of one assessment: derived from the user's seed and the data
// alone, never from where the data stands in a list. The first 8 bytes (little-endian) of
// SHA-256("ea_iid assessment seed v1" || LE64(user_seed) || SHA-256(samples assessed) ||
// LE64(first sample's offset in the file) || LE64(samples)). A file assessed alone, in a
// batch in any order, or in any share of a split list gets the same seed and counters;
// `--seed S` on one file (or `-l` on its block) reproduces a batch row run with `--seed S`.
uint64_t assessment_seed(uint64_t user_seed, const Dataset& d);

// The seed of data set `position` (0, 1, ...) of ea_calibrate with seed `batch` (its data
// sets are generated, not read): the SplitMix64 finaliser of
// batch + (position + 1) * 0x9e3779b97f4a7c15.
inline uint64_t derive_seed(uint64_t batch, uint64_t position) {
  uint64_t z = batch + (position + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Runs the whole IID track on a loaded data set.
Assessment assess(const Dataset& data, const AssessConfig& config);

// GPU backend factory, defined by the CUDA library when it is built (cuda/), otherwise by
// a version that throws Error{Device}. Throws Error{Device} when no usable GPU exists.
// round_size 0: rounds as large as `memory_share` of the free device memory allows (at
// most 10,000 permutations).
std::unique_ptr<PermutationBackend> make_gpu_backend(const PermutationData& data, int gpu_id, uint32_t round_size,
                                                     std::string* description, double memory_share = 0.85);

// The compression test alone on a GPU: the exact bzip2 size model (src/stats/bzip2_model.hpp)
// run on the device. data.original must hold libbz2's length of the original data: the
// backend checks that the model gives the same for it and throws Error{Device} if not (or
// when there is no GPU, or for generators with coupled lanes).
std::unique_ptr<PermutationBackend> make_gpu_compression_backend(const PermutationData& data, int gpu_id,
                                                                 double memory_share);

// Number of usable GPUs (0 without CUDA support or without a device).
int gpu_count();

}  // namespace ea
