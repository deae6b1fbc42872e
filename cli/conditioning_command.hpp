// ea_iid conditioning ... and the ea_conditioning link (NIST's command line and text).
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace ea::cli {

// `args`: the subcommand's arguments after the program's name (args[0]).
int conditioning_command(std::vector<char*> args, const std::string& command_line);
int ea_conditioning_main(int argc, char** argv, const std::string& command_line);
// ea_iid source NAME SAMPLES [options] (cli/source.cpp).
int source_command(std::vector<char*> args, const std::string& command_line, const std::atomic<bool>& interrupt);

}  // namespace ea::cli
