#include "commands.hpp"

namespace ea::cli {

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table = {
      {"assess", "ea_iid [assess] [options] FILE... [bits_per_symbol]"},
      {"restart", "ea_iid restart H_I [options] FILE... (the same as --restart H_I)"},
      {"merge", "ea_iid merge [--force] [--exit-code|--strict] [-q] OUT.jsonl IN.jsonl..."},
      {"calibrate", "ea_iid calibrate [options] (the same as ea_calibrate)"},
  };
  return table;
}

const Subcommand* find_subcommand(const std::string& name) {
  for (const Subcommand& s : subcommands()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

}  // namespace ea::cli
