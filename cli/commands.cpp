#include "commands.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "conditioning_command.hpp"
#include "help.hpp"
#include "logging.hpp"
#include "run.hpp"

namespace ea::cli {

namespace {

// restart H_I [options] FILE...: assess with --restart H_I.
int restart_main(std::vector<char*> args, const CommandEnv& env) {
  static char restart_flag[] = "--restart";
  const bool help = args.size() >= 2 && (std::strcmp(args[1], "--help") == 0 || std::strcmp(args[1], "-h") == 0 ||
                                         std::strcmp(args[1], "--help-all") == 0);
  if (!help && (args.size() < 2 || args[1][0] == '-')) {
    logger().error("usage: {}", find_subcommand("restart")->usage);
    return exit_status(Outcome::error(), {}, 0);
  }
  if (!help) args.insert(args.begin() + 1, restart_flag);
  return assess_main(args, env);
}

int calibrate_main(std::vector<char*> args, const CommandEnv&) {
  try {
    return exit_status(calibrate_command(static_cast<int>(args.size()), args.data()), ExitPolicy{true, false}, 0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ea_iid calibrate: %s\n", e.what());
    return exit_status(Outcome::error(), {}, 0);
  }
}

int source_main(std::vector<char*> args, const CommandEnv& env) {
  env.install_signal_handlers();
  return source_command(args, env.command_line, *env.interrupt, *env.signal_number);
}

int esv_main(std::vector<char*> args, const CommandEnv& env) {
  if (args.size() >= 2 && std::strcmp(args[1], "check") == 0) {  // esv check DIR (a package named check: ./check)
    static std::string name = std::string(args[0]) + " check";
    args.erase(args.begin() + 1);
    args[0] = name.data();
    return esv_check_main(args, env);
  }
  env.install_signal_handlers();
  return esv_package_command(args, env.command_line, *env.interrupt, *env.signal_number);
}

int conditioning_main(std::vector<char*> args, const CommandEnv& env) {
  env.install_signal_handlers();
  return conditioning_command(args, env.command_line, *env.interrupt, *env.signal_number);
}

}  // namespace

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table = {
      {"assess", "ea_iid [assess] [options] FILE... [bits_per_symbol]", assess_main},
      {"restart", "ea_iid restart H_I [options] FILE... (the same as --restart H_I)", restart_main},
      {"source", "ea_iid source NAME SAMPLES [--restart-data FILE] [--h-submitter H] [--conditioning ...] [-o F.json] [--html F.html]",
       source_main},
      {"conditioning", "ea_iid conditioning vetted|non-vetted [options] N_IN N_OUT NW H_IN [H_PRIME]", conditioning_main},
      {"health-tests", "ea_iid health-tests H [--alpha 2^-20] [--bits N] [--simulate N] [--exit-code] [-o F.json] [FILE...]",
       health_main},
      {"esv", "ea_iid esv DIR --manifest sources.json [--browser PATH] [--force] | esv check DIR [--json F.json]",
       esv_main},
      {"merge", "ea_iid merge [--csv PATH] [--html PATH] [--force] [--exit-code|--strict] [-q] OUT.jsonl IN.jsonl...",
       merge_main},
      {"calibrate", "ea_iid calibrate [options] (the same as ea_calibrate)", calibrate_main},
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
