// --gpu-tuning KEY=VALUE,...: the GpuTuning keys (one table for parsing, --help and JSON).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gpu_backends.hpp"

namespace ea::cli {

// The --help text of --gpu-tuning: every key with its meaning, range and default.
std::string gpu_tuning_help();

// Applies "key=value,key=value" to `t`. Throws Error{Usage} naming the key or value.
void parse_gpu_tuning(const std::string& text, GpuTuning& t);

// Every key with its value, as recorded in the JSON ("gpuTuning"; keys in camelCase:
// memoryShare, firstRound, ...).
nlohmann::ordered_json gpu_tuning_json(const GpuTuning& t);

}  // namespace ea::cli
