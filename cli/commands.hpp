// ea_iid's subcommands: one table, read by main() (the first argument names one; without
// one, assess), by --help and by the typo check. Each row holds the subcommand's name, its
// usage line and its main: a function from its arguments (args[0] "ea_iid NAME") to the
// process's exit status. The NIST-name links have their own table (cli/links.hpp).
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "outcome.hpp"

namespace ea::cli {

// ea_calibrate's options and run (also `ea_iid calibrate`): argv[0] is the program's name.
Outcome calibrate_command(int argc, char** argv);
// ea_calibrate --uniformity (calibrate_command passes it on): the permutations' uniformity checks
// (cli/uniformity.cpp); not_iid when a check failed.
Outcome uniformity_command(int argc, char** argv);

// What a subcommand gets from main(): the command line as typed, the flags main()'s
// SIGINT/SIGTERM handlers set, and the function that installs those handlers (called by the
// subcommands that take an interrupt, once their arguments are valid).
struct CommandEnv {
  std::string command_line;
  const std::atomic<bool>* interrupt = nullptr;
  const std::atomic<int>* signal_number = nullptr;
  void (*install_signal_handlers)() = nullptr;
};

using CommandMain = int (*)(std::vector<char*> args, const CommandEnv& env);

struct Subcommand {
  const char* name;
  const char* usage;
  CommandMain run;
};
// assess, restart, source, conditioning, health-tests, esv, merge, calibrate (in --help's order).
const std::vector<Subcommand>& subcommands();
const Subcommand* find_subcommand(const std::string& name);
// The subcommand `word` is a typo of (at most two edits, and not itself one), or null.
const Subcommand* near_subcommand(const std::string& word);

// assess (the default, and ea_iid without a subcommand): ea_iid's options (cli/options.cpp);
// args[0] the program. cli/assess_command.cpp.
int assess_main(std::vector<char*> args, const CommandEnv& env);
// merge OUT.jsonl IN.jsonl... (cli/merge.cpp).
int merge_main(std::vector<char*> args, const CommandEnv& env);
// health-tests H: the health tests' cutoffs (cli/health.cpp).
int health_main(std::vector<char*> args, const CommandEnv& env);
// esv check DIR: an ESV package's findings (cli/esv_check.cpp; esv_main passes "esv check" here).
int esv_check_main(std::vector<char*> args, const CommandEnv& env);
// esv DIR --manifest M: an ESV submission package (cli/esv.cpp).
int esv_package_command(std::vector<char*> args, const std::string& command_line, const std::atomic<bool>& interrupt,
                        const std::atomic<int>& signal_number);

}  // namespace ea::cli
