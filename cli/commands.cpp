#include "commands.hpp"

#include <algorithm>

#include "help.hpp"

namespace ea::cli {

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table = {
      {"assess", "ea_iid [assess] [options] FILE... [bits_per_symbol]"},
      {"restart", "ea_iid restart H_I [options] FILE... (the same as --restart H_I)"},
      {"source", "ea_iid source NAME SAMPLES [--restart-data FILE] [--h-submitter H] [--conditioning ...] [-o F.json] [--html F.html]"},
      {"conditioning", "ea_iid conditioning vetted|non-vetted [options] N_IN N_OUT NW H_IN [H_PRIME]"},
      {"merge", "ea_iid merge [--csv PATH] [--html PATH] [--force] [--exit-code|--strict] [-q] OUT.jsonl IN.jsonl..."},
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

const Subcommand* near_subcommand(const std::string& word) {
  if (word.empty() || word[0] == '-' || word.size() > 12 || find_subcommand(word)) return nullptr;
  for (const Subcommand& s : subcommands()) {
    if (edit_distance(word, s.name) <= 2) return &s;
  }
  return nullptr;
}

}  // namespace ea::cli
