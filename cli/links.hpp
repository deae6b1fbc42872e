// The links under NIST's program names (ea_non_iid, ea_restart, ea_conditioning; cmake
// --install makes them): one table, one scanner of NIST's getopt command lines, and each
// link's own usage and --help in NIST's option names. A link reads NIST's command line and
// runs ea_iid's assessment or conditioning with it; its messages name NIST's flags.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ea::cli {

// A NIST command line as NIST's getopt reads it (GNU order: options anywhere, -vq clusters,
// -s1000 or -s 1000, "--" ends the options), with ea_iid's long options (--seed S, --device
// cpu, ...) passed on where the link takes them.
struct NistArgs {
  std::vector<std::pair<char, std::string>> flags;  // in order, with their values
  std::vector<std::string> positionals;
  std::vector<std::string> long_options;  // ea_iid's, each with its value where it takes one
  // The last of `set` given ("in": -i or -n; NIST's getopt lets the last win), or 0.
  char last_of(const char* set) const;
  int count(char flag) const;
  std::optional<std::string> value(char flag) const;  // the last one given
};

// What a link needs from main(): the command line as typed, the signal flags, and ea_iid's
// assessment run with an argument list (after the program's name).
struct LinkEnv {
  std::string command_line;
  const std::atomic<bool>* interrupt = nullptr;
  const std::atomic<int>* signal_number = nullptr;
  void (*install_signal_handlers)() = nullptr;
  std::function<int(const std::vector<std::string>&)> assess;
};

struct NistLink {
  const char* name;     // "ea_restart"
  const char* getopt;   // NIST's getopt string: "invqo:s:"
  bool long_options;    // takes ea_iid's long options too (the assessment's engine, outputs)
  const char* usage;    // NIST's usage line, with NIST's names ("ea_restart [-i|-n] ...")
  const char* help;     // --help after the usage line
  int (*run)(const NistLink&, const NistArgs&, const LinkEnv&);
};

const std::vector<NistLink>& nist_links();
const NistLink* find_link(const std::string& program);

// "usage: " + the link's usage line(s), for the end of its usage errors.
std::string link_usage(const NistLink& link);

// Reads `args` (args[0] the program) as NIST's getopt would. Throws Error{Usage} naming an
// unknown flag or one without its value, with the link's usage.
NistArgs scan_nist_args(const NistLink& link, const std::vector<std::string>& args);

// The link's main: --help and --version, the scan, then its run; usage errors exit 2.
int run_link(const NistLink& link, const std::vector<std::string>& args, const LinkEnv& env);

// ea_conditioning's run (cli/conditioning.cpp).
int ea_conditioning_link(const NistLink& link, const NistArgs& a, const LinkEnv& env);

}  // namespace ea::cli
