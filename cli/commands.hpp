// ea_iid's subcommands: one table, read by main() (the first argument names one; without
// one, assess) and by --help. A subcommand is a function from its arguments to an Outcome.
#pragma once

#include <string>
#include <vector>

#include "outcome.hpp"

namespace ea::cli {

// ea_calibrate's options and run (also `ea_iid calibrate`): argv[0] is the program's name.
Outcome calibrate_command(int argc, char** argv);

struct Subcommand {
  const char* name;
  const char* usage;
};
// assess, restart, merge, calibrate (in --help's order).
const std::vector<Subcommand>& subcommands();
const Subcommand* find_subcommand(const std::string& name);
// The subcommand `word` is a typo of (at most two edits, and not itself one), or null.
const Subcommand* near_subcommand(const std::string& word);

}  // namespace ea::cli
