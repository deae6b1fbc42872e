// --gpu-tuning KEY=VALUE,...: the GpuTuning keys (one table for parsing, --help and JSON).
#pragma once

#include <string>
#include <vector>

#include "gpu_backends.hpp"

namespace ea::cli {

// --gpu-tuning's keys, one line each: "KEY: meaning (default D)" (--help-all, --gpu-tuning help).
std::vector<std::string> gpu_tuning_key_lines();

// `--gpu-tuning help` (or --gpu-tuning=help) among the arguments: prints the keys on standard
// output and returns true (the caller exits 0).
bool print_gpu_tuning_help(int argc, char** argv);

// Applies "key=value,key=value" to `t`. Throws Error{Usage} naming the key or value.
void parse_gpu_tuning(const std::string& text, GpuTuning& t);

}  // namespace ea::cli
