// Diagnostics on stderr through spdlog: "ea_iid: <level>: <message>". Results never go
// through the logger (they go to stdout or the JSON files).
#pragma once

#include <spdlog/spdlog.h>

#include <string>

namespace ea::cli {

// Creates the logger once; `level` is a spdlog level name (trace, debug, info, warning,
// error, critical, off). Throws Error{Usage} for an unknown name.
void init_logging(const std::string& level);

spdlog::logger& logger();

// The name the diagnostics start with ("ea_iid"; "ea_non_iid" when run under that name).
void set_program_name(const std::string& name);
const std::string& program_name();

}  // namespace ea::cli
