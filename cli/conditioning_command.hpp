// ea_iid conditioning ... and the ea_conditioning link (NIST's command line and text).
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace ea::cli {

// `args`: the subcommand's arguments after the program's name (args[0]). `interrupt` and
// `signal_number`: set by cli/main.cpp's SIGINT/SIGTERM handlers; an interrupted run writes
// nothing and exits 130/143.
int conditioning_command(std::vector<char*> args, const std::string& command_line, const std::atomic<bool>& interrupt,
                         const std::atomic<int>& signal_number);
// ea_iid source NAME SAMPLES [options] (cli/source.cpp).
int source_command(std::vector<char*> args, const std::string& command_line, const std::atomic<bool>& interrupt,
                   const std::atomic<int>& signal_number);

}  // namespace ea::cli
