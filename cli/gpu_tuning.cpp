#include "gpu_tuning.hpp"

#include <cctype>
#include <cstdlib>

#include "common/error.hpp"
#include "options.hpp"

namespace ea::cli {

namespace {

struct Key {
  const char* name;
  const char* help;
  uint64_t min, max;             // integer keys; memory-share is a fraction in (0, 1]
  uint64_t GpuTuning::*u64;      // one of these three is set
  uint32_t GpuTuning::*u32;
  bool GpuTuning::*flag;
};

const Key kKeys[] = {
    {"round", "permutations per round (0: from free memory, at most 10000; same as --round-size)", 0, 1u << 20,
     nullptr, &GpuTuning::round_size, nullptr},
    {"first-round", "first round of data that passed chi-square and LRS (the next is four times larger, then full rounds)", 1, 1u << 20, nullptr, &GpuTuning::first_round,
     nullptr},
    {"lookahead", "reads in flight per shuffling thread: 0, 2, 4 or 8", 0, 8, nullptr, &GpuTuning::lookahead, nullptr},
    {"shuffle-block", "threads per block of the shuffle kernel", 1, 1024, nullptr, &GpuTuning::shuffle_block, nullptr},
    {"parallel-shuffle", "permutations shuffled at once by a thread block each (Philox; 0: one thread per permutation)",
     0, 1u << 20, nullptr, &GpuTuning::parallel_shuffle, nullptr},
    {"block-statistics", "rounds of at most this many permutations get their statistics from a thread block per "
     "permutation, behind the block-per-permutation shuffle (0: never; larger rounds use one thread per permutation "
     "and test group)", 0, 1u << 20, nullptr, &GpuTuning::block_statistics, nullptr},
    {"reservations", "blocks per SM of the block-per-permutation shuffle by deterministic reservations (Philox, "
     "parallel-shuffle above 0; 0: the chunked kernel instead)", 0, 64,
     nullptr, &GpuTuning::reservations, nullptr},
    {"resident", "0 or 1: the shuffle by reservations keeps a row packed in shared memory where it fits (binary data "
     "up to about 1.2 million samples)", 0, 1, nullptr, nullptr, &GpuTuning::resident},
    {"fused-statistics", "0 or 1: non-binary data gets all its statistics from one pass over each thread's piece of a "
     "permutation, and binary data is shuffled and tested in shared memory where its row fits, in rounds of every size "
     "(block-statistics then applies only to longer binary data)", 0, 1, nullptr, nullptr,
     &GpuTuning::fused_statistics},
    {"low-shared", "0 or 1: a row shuffled in global memory keeps its lowest places in shared memory, as many as fit "
     "(rows too long for resident: 8-bit data of more than about 150,000 samples, 4-bit of more than about 300,000; "
     "with reservations=1)", 0, 1, nullptr, nullptr, &GpuTuning::low_shared},
    {"bz-chars", "text characters the GPU compression model holds at once", 1, uint64_t{1} << 31,
     &GpuTuning::bz_chars, nullptr, nullptr},
    {"bz-shuffle", "permutations the GPU compression test shuffles at once", 1, 10000, nullptr,
     &GpuTuning::bz_shuffle, nullptr},
    {"profile", "0 or 1: time each statistics group and compression stage (slower; --timing shows it)", 0, 1,
     nullptr, nullptr, &GpuTuning::profile},
    {"warm-up", "0 or 1: create the CUDA context and load the kernels while the first data set is read and tested",
     0, 1, nullptr, nullptr, &GpuTuning::warm_up},
};

std::string value_of(const Key& k, const GpuTuning& t) {
  if (k.u64) return std::to_string(t.*k.u64);
  if (k.u32) return std::to_string(t.*k.u32);
  return t.*k.flag ? "1" : "0";
}

}  // namespace

std::string gpu_tuning_help() {
  const GpuTuning d;
  std::string s = "GPU speed and memory, KEY=VALUE,... (every value gives the same results): memory-share (share of the "
                  "free device memory, 0-1, default 0.85)";
  for (const Key& k : kKeys) s += "; " + std::string(k.name) + " (" + k.help + ", default " + value_of(k, d) + ")";
  return s;
}

void parse_gpu_tuning(const std::string& text, GpuTuning& t) {
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    pos = comma + 1;
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(ErrorKind::Usage, "--gpu-tuning: '" + item + "' is not KEY=VALUE (keys: see --help)");
    }
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    const std::string option = "--gpu-tuning " + key;
    if (key == "memory-share") {
      char* end = nullptr;
      const double v = value.empty() ? 0 : std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(v > 0 && v <= 1)) {
        throw Error(ErrorKind::Usage, option + ": '" + value + "' is not a fraction in (0, 1]");
      }
      t.memory_share = v;
      continue;
    }
    const Key* found = nullptr;
    for (const Key& k : kKeys) found = key == k.name ? &k : found;
    if (!found) {
      std::string keys = "memory-share";
      for (const Key& k : kKeys) keys += std::string(", ") + k.name;
      throw Error(ErrorKind::Usage, "--gpu-tuning: unknown key '" + key + "' (keys: " + keys + ")");
    }
    const uint64_t v = parse_unsigned(value, option, found->min, found->max);
    if (key == "lookahead" && v != 0 && v != 2 && v != 4 && v != 8) {
      throw Error(ErrorKind::Usage, option + ": " + value + " is not 0, 2, 4 or 8");
    }
    if (found->u64) t.*found->u64 = v;
    if (found->u32) t.*found->u32 = static_cast<uint32_t>(v);
    if (found->flag) t.*found->flag = v != 0;
  }
}

// "first-round" -> "firstRound": the JSON's style.
static std::string camel(const char* key) {
  std::string s;
  for (const char* c = key; *c; ++c) {
    if (*c == '-' && c[1]) {
      s.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(*++c))));
    } else {
      s.push_back(*c);
    }
  }
  return s;
}

nlohmann::ordered_json gpu_tuning_json(const GpuTuning& t) {
  nlohmann::ordered_json j;
  j["memoryShare"] = t.memory_share;
  for (const Key& k : kKeys) {
    if (k.flag) {
      j[camel(k.name)] = t.*k.flag;
    } else {
      j[camel(k.name)] = k.u64 ? t.*k.u64 : t.*k.u32;
    }
  }
  return j;
}

}  // namespace ea::cli
