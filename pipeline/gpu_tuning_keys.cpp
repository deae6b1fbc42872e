#include "gpu_tuning_keys.hpp"

namespace ea {

const std::vector<GpuTuningKey>& gpu_tuning_keys() {
  static const std::vector<GpuTuningKey> keys = {
    {"round", "permutations per round (0: from free memory, at most 10000; same as --round-size)", 0, 1u << 20,
     nullptr, &GpuTuning::round_size, nullptr},
    {"first-round", "first round of data that passed chi-square and LRS (the next is four times larger, then full "
     "rounds)", 1, 1u << 20, nullptr, &GpuTuning::first_round, nullptr},
    {"parallel-shuffle", "permutations shuffled at once by a thread block each, the default shuffle of every "
     "generator (0: one thread per permutation)", 0, 1u << 20, nullptr, &GpuTuning::parallel_shuffle, nullptr},
    {"shuffle-block", "threads per block of the one-thread-per-permutation shuffle (default for binary data too long "
     "for shared memory in rounds above block-statistics, and for parallel-shuffle=0)", 1, 1024, nullptr,
     &GpuTuning::shuffle_block, nullptr},
    {"block-statistics", "binary data too long for shared memory: rounds of at most this many permutations get their "
     "statistics from a thread block per permutation (0: never; larger rounds use one thread per permutation and "
     "test group)", 0, 1u << 20, nullptr, &GpuTuning::block_statistics, nullptr},
    {"reservations", "blocks per SM of the shuffle by deterministic reservations (every default shuffle)", 1, 64,
     nullptr, &GpuTuning::reservations, nullptr},
    {"resident", "0 or 1: the shuffle by reservations keeps a row packed in shared memory where it fits (at 1: "
     "binary data up to about 1.2 million samples)", 0, 1, nullptr, nullptr, &GpuTuning::resident},
    {"fused-statistics", "0 or 1: non-binary data gets all its statistics from one pass over each thread's piece of a "
     "permutation, and binary data is shuffled and tested in shared memory where its row fits, in rounds of every size "
     "(at 1: both; block-statistics then applies only to longer binary data)", 0, 1, nullptr, nullptr,
     &GpuTuning::fused_statistics},
    {"low-shared", "0 or 1: a row shuffled in global memory keeps its lowest places in shared memory, as many as fit "
     "(at 1: rows too long for resident, 8-bit data of more than about 150,000 samples, 4-bit of more than "
     "about 300,000; with reservations=1)", 0, 1, nullptr, nullptr, &GpuTuning::low_shared},
    {"target-rows", "rows (permutations) of swap targets generators other than Philox draw ahead may hold, 4 bytes a "
     "sample each (0: as memory-share allows, the whole round where it fits: 40 GB for 10,000 permutations of 10^6 "
     "samples; fewer are drawn in two halves or a slice at a time, a slice being parallel-shuffle permutations rounded "
     "down to whole waves, e.g. 1980 on 132 SMs; below one slice the generator is shuffled one thread per permutation)",
     0, 1u << 20, nullptr, &GpuTuning::target_rows, nullptr},
    {"skip-draws", "0 or 1: with --prng xoshiro256ss, each permutation's swap targets are drawn by about 32 threads "
     "from skipped states (1, the default) or by one thread in order (0)", 0, 1, nullptr, nullptr,
     &GpuTuning::skip_draws},
    {"bz-chars", "text characters the GPU compression model holds at once (the compression test on the GPU; four "
     "times that with --no-early-exit; at most 128 copies of the text)", 1,
     uint64_t{1} << 31, &GpuTuning::bz_chars, nullptr, nullptr},
    {"bz-shuffle", "permutations the GPU compression test shuffles at once; 0 (default): 128 with philox, up to 1024 "
     "with the other generators (each permutation made by one thread), fewer where memory is short", 0, 10000, nullptr,
     &GpuTuning::bz_shuffle, nullptr},
    {"bz-statistics", "0 or 1: full counts (--no-early-exit --all-tests) of non-binary data with philox get the 18 "
     "statistical tests from the permutations the GPU compression test shuffles, each permutation made once (with "
     "fused-statistics=1, and not with --verify; 0: made again by the statistics backend)", 0, 1, nullptr, nullptr,
     &GpuTuning::bz_statistics},
    {"bz-lanes", "compression backends a GPU runs side by side for full counts (--no-early-exit), each with its "
     "share of the GPU's memory", 1, 8, nullptr, &GpuTuning::bz_lanes, nullptr},
    {"suffixes", "the shortest text (symbols) whose suffixes the GPU sorts for the t-tuple and LRS estimates, with "
     "--device gpu, and with --device auto once a batch worker's permutation tests have a GPU backend; 0: never, "
     "the CPU's", 0,
     uint64_t{1} << 32, &GpuTuning::suffixes, nullptr, nullptr},
    {"predictors", "the shortest binary input (the bitstring, or binary samples) whose MultiMMC and LZ78Y predictions "
     "the GPU counts, with --device gpu; 0: never, the CPU's",
     0, uint64_t{1} << 32, &GpuTuning::predictors, nullptr, nullptr},
    {"profile", "0 or 1: time each statistics group and compression stage (slower; --timing shows it)", 0, 1,
     nullptr, nullptr, &GpuTuning::profile},
    {"warm-up", "0 or 1: create the CUDA context and load the kernels while the first data set is read and tested",
     0, 1, nullptr, nullptr, &GpuTuning::warm_up},
};
  return keys;
}

std::string gpu_tuning_value(const GpuTuningKey& k, const GpuTuning& t) {
  if (k.u64) return std::to_string(t.*k.u64);
  if (k.u32) return std::to_string(t.*k.u32);
  return t.*k.flag ? "1" : "0";
}

}  // namespace ea
