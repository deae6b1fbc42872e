#include "commands.hpp"

#include <algorithm>

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
    // Levenshtein distance, with adjacent transpositions counted as one edit.
    const std::string t = s.name;
    std::vector<std::vector<size_t>> d(word.size() + 1, std::vector<size_t>(t.size() + 1));
    for (size_t i = 0; i <= word.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= t.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= word.size(); ++i) {
      for (size_t j = 1; j <= t.size(); ++j) {
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (word[i - 1] == t[j - 1] ? 0 : 1)});
        if (i > 1 && j > 1 && word[i - 1] == t[j - 2] && word[i - 2] == t[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
    if (d[word.size()][t.size()] <= 2) return &s;
  }
  return nullptr;
}

}  // namespace ea::cli
