// The keys of --gpu-tuning (GpuTuning): one table for parsing and --help (cli/) and the
// JSON record (report/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_backends.hpp"

namespace ea {

struct GpuTuningKey {
  const char* name;
  const char* help;
  uint64_t min, max;             // integer keys; memory-share is a fraction in (0, 1] (not listed)
  uint64_t GpuTuning::*u64;      // one of these three is set
  uint32_t GpuTuning::*u32;
  bool GpuTuning::*flag;
};

// Every key but memory-share, in --help's order.
const std::vector<GpuTuningKey>& gpu_tuning_keys();
// The key's value in `t` as text ("1"/"0" for flags).
std::string gpu_tuning_value(const GpuTuningKey& k, const GpuTuning& t);

}  // namespace ea
