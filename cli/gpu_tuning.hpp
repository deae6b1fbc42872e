// --gpu-tuning KEY=VALUE,...: the GpuTuning keys (one table for parsing, --help and JSON).
#pragma once

#include <string>

#include "gpu_backends.hpp"

namespace ea::cli {

// The --help text of --gpu-tuning: every key with its meaning, range and default.
std::string gpu_tuning_help();

// Applies "key=value,key=value" to `t`. Throws Error{Usage} naming the key or value.
void parse_gpu_tuning(const std::string& text, GpuTuning& t);

}  // namespace ea::cli
