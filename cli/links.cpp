#include "links.hpp"

#include <algorithm>
#include <cstring>
#include <iostream>

#include "common/error.hpp"
#include "common/numbers.hpp"
#include "help.hpp"
#include "logging.hpp"
#include "options.hpp"
#include "outcome.hpp"
#include "version.hpp"

namespace ea::cli {

char NistArgs::last_of(const char* set) const {
  char last = 0;
  for (const auto& f : flags) {
    if (std::strchr(set, f.first)) last = f.first;
  }
  return last;
}

int NistArgs::count(char flag) const {
  int n = 0;
  for (const auto& f : flags) n += f.first == flag;
  return n;
}

std::optional<std::string> NistArgs::value(char flag) const {
  std::optional<std::string> v;
  for (const auto& f : flags) {
    if (f.first == flag) v = f.second;
  }
  return v;
}

// "usage: " and each form of link.usage on its own line, a second form under the first; a form
// longer than 100 columns goes on under its arguments (after the program's name), broken
// between arguments, never inside brackets.
std::string link_usage(const NistLink& link) {
  constexpr size_t kColumns = 100;
  const std::string lead = "usage: ", cont(lead.size() + std::strlen(link.name) + 1, ' ');
  std::string text;
  std::string forms = link.usage;
  for (size_t at = 0; at <= forms.size();) {
    const size_t end = std::min(forms.find('\n', at), forms.size());
    std::string line = (text.empty() ? lead : std::string(lead.size(), ' ')) + forms.substr(at, end - at);
    while (line.size() > kColumns) {
      size_t cut = 0;  // the last space within the columns outside brackets, after the name
      int depth = 0;
      for (size_t i = 0; i <= kColumns; ++i) {
        depth += (line[i] == '[' || line[i] == '(' || line[i] == '<') - (line[i] == ']' || line[i] == ')' || line[i] == '>');
        if (line[i] == ' ' && depth == 0 && i > cont.size()) cut = i;
      }
      if (cut == 0) break;
      const size_t kept = line.find_last_not_of(' ', cut) + 1;  // no spaces left at a line's end
      text += line.substr(0, kept) + "\n";
      line = cont + line.substr(line.find_first_not_of(' ', cut));
    }
    text += line;
    if (end < forms.size()) text += "\n";
    at = end + 1;
  }
  return text;
}

namespace {

Error usage_error(const NistLink& link, const std::string& what) {
  return Error(ErrorKind::Usage, what + "\n" + link_usage(link) + "\n(" + link.name + " --help)");
}

// One argument that starts with '-' (not "-" or "--"): its flags, a value attached or next.
void scan_flags(const NistLink& link, const std::vector<std::string>& args, size_t& k, NistArgs& out) {
  const std::string& a = args[k];
  for (size_t c = 1; c < a.size(); ++c) {
    const char* spec = a[c] == ':' ? nullptr : std::strchr(link.getopt, a[c]);
    if (!spec) {
      throw usage_error(link, "-" + std::string(1, a[c]) + " is not an option of " + link.name);
    }
    if (spec[1] != ':') {
      out.flags.emplace_back(a[c], "");
      continue;
    }
    if (c + 1 < a.size()) {
      out.flags.emplace_back(a[c], a.substr(c + 1));  // -s1000
    } else if (k + 1 < args.size()) {
      out.flags.emplace_back(a[c], args[++k]);  // -s 1000 (any next argument, as getopt takes it)
    } else {
      throw usage_error(link, "-" + std::string(1, a[c]) + " needs a value");
    }
    return;
  }
}

}  // namespace

NistArgs scan_nist_args(const NistLink& link, const std::vector<std::string>& args) {
  NistArgs out;
  bool only_positional = false;
  for (size_t k = 1; k < args.size(); ++k) {
    const std::string& a = args[k];
    if (only_positional || a.size() < 2 || a[0] != '-') {
      out.positionals.push_back(a);
    } else if (a == "--") {
      only_positional = true;
    } else if (a.rfind("--", 0) == 0) {
      const std::string name = a.substr(0, a.find('='));
      if (!link.long_options) {
        throw usage_error(link, name + " is not an option of " + link.name + " (NIST's flags only)");
      }
      out.long_options.push_back(a);
      if (a.find('=') == std::string::npos && option_takes_value(name) && k + 1 < args.size()) {
        out.long_options.push_back(args[++k]);
      }
    } else {
      scan_flags(link, args, k, out);
    }
  }
  return out;
}

namespace {

// -l INDEX,SAMPLES as NIST ea_non_iid reads them (strtoull base 0: 0x hexadecimal, a leading 0
// octal), forwarded in decimal; a value that is not two such numbers goes on as given, and
// ea_iid's -l says what is wrong with it.
std::string nist_subset(const std::string& v) {
  const size_t comma = v.find(',');
  if (comma == std::string::npos) return v;
  try {
    return std::to_string(parse_integer(v.substr(0, comma), "-l", 0, UINT64_MAX, IntegerForm::C)) + "," +
           std::to_string(parse_integer(v.substr(comma + 1), "-l", 0, UINT64_MAX, IntegerForm::C));
  } catch (const Error&) {
    return v;
  }
}

// ea_non_iid [-i|-c] [-a|-t] [-v] [-q] [-l INDEX,COUNT] [-o FILE] FILE [bits]: ea_iid --non-iid
// --format nist, the last of -i/-c and of -a/-t (ours refuses both; NIST's getopt keeps the last).
int non_iid_link(const NistLink& link, const NistArgs& a, const LinkEnv& env) {
  if (a.positionals.empty()) throw usage_error(link, std::string(link.name) + " needs <file_name>");
  std::vector<std::string> out = {"--non-iid", "--format", "nist", "--nist-compat"};
  if (const char ic = a.last_of("ic")) out.push_back(std::string("-") + ic);
  if (const char at = a.last_of("at")) out.push_back(std::string("-") + at);
  for (int k = 0; k < a.count('v'); ++k) out.push_back("-v");
  if (a.count('q')) out.push_back("-q");
  if (const auto l = a.value('l')) out.insert(out.end(), {"-l", nist_subset(*l)});  // (two words: '' stays one)
  if (const auto o = a.value('o')) out.push_back("--output=" + *o);
  out.insert(out.end(), a.long_options.begin(), a.long_options.end());
  out.push_back("--");
  out.insert(out.end(), a.positionals.begin(), a.positionals.end());
  return env.assess(out);
}

// ea_restart [-i|-n] [-v] [-q] [-s ROUNDS] [-o FILE] FILE [bits] H_I: ea_iid --restart H_I
// --format nist with NIST's exit status (not 0 when the sanity check or the validation fails).
int restart_link(const NistLink& link, const NistArgs& a, const LinkEnv& env) {
  const size_t n = a.positionals.size();
  if (n < 2 || n > 3) {
    throw usage_error(link, std::string(link.name) + " takes <file_name> [bits_per_symbol] <H_I>; got " +
                                std::to_string(n) + (n == 1 ? " argument" : " arguments"));
  }
  std::vector<std::string> out = {"--format", "nist", "--nist-compat", "--exit-code"};
  for (int k = 0; k < a.count('v'); ++k) out.push_back("-v");
  if (a.count('q')) out.push_back("-q");
  if (const auto s = a.value('s')) {  // checked here, so that the message names -s
    const uint64_t rounds = parse_unsigned(*s, "-s", 5000000, 1000000000);  // NIST's least: its default
    out.insert(out.end(), {"--restart-cutoff", "simulation", "--restart-simulations", std::to_string(rounds)});
  }
  if (const auto o = a.value('o')) out.push_back("--output=" + *o);
  out.insert(out.end(), a.long_options.begin(), a.long_options.end());
  out.insert(out.end(), {"--track", a.last_of("in") == 'i' ? "iid" : "non-iid", "--restart=" + a.positionals.back(), "--"});
  out.insert(out.end(), a.positionals.begin(), a.positionals.end() - 1);
  return env.assess(out);
}

}  // namespace

const std::vector<NistLink>& nist_links() {
  static const std::vector<NistLink> table = {
      {"ea_non_iid", "icatvql:o:", true,
       "ea_non_iid [-i|-c] [-a|-t] [-v] [-q] [-l <index>,<samples>] [-o <file>.json] <file_name> [bits_per_symbol]",
       "NIST ea_non_iid's command line: the ten min-entropy estimators of SP 800-90B 6.3 (the non-IID track).\n"
       "  <file_name>           the samples, one per byte ('-': standard input)\n"
       "  [bits_per_symbol]     1-8; by default inferred from the data\n"
       "  -i | -c               -i: the initial entropy estimate H_I (default); -c: the conditioned sequential\n"
       "                        data set's estimate h' (its bit string only)\n"
       "  -a | -t               -a: H_bitstring from all bits (default); -t: from the first 1,000,000 bits\n"
       "  -v                    more output (-v -v, -v -v -v: NIST's higher levels)\n"
       "  -q                    quiet: NIST's -q\n"
       "  -l <index>,<samples>  assess only samples [index*samples, index*samples + samples)\n"
       "  -o <file>.json        write the result as JSON to <file>.json ('-': standard output)\n"
       "  --version             the version\n"
       "The last of -i/-c and of -a/-t wins, as in NIST's tool. ea_iid's long options also apply (--threads,\n"
       "--jsonl, ...: ea_iid --help); the same run as 'ea_iid --non-iid --format nist'.\n"
       "Exit status: 0 when the estimates were made, 2 on usage or input errors, 5 for samples of one value.\n",
       non_iid_link},
      {"ea_restart", "invqo:s:", true,
       "ea_restart [-i|-n] [-v] [-q] [-s <simulation count>] [-o <file>.json] <file_name> [bits_per_symbol] <H_I>",
       "NIST ea_restart's command line: the restart tests of SP 800-90B 3.1.4 for the entropy claim <H_I>.\n"
       "  <file_name>           1,000 restarts x 1,000 samples, one per byte (row i = restart i)\n"
       "  [bits_per_symbol]     1-8; by default inferred from the data\n"
       "  <H_I>                 the initial entropy estimate the restarts must support\n"
       "  -i | -n               -i: an IID claim (the IID tests); -n: a non-IID claim (default)\n"
       "  -s <simulation count> X_cutoff from NIST's simulation of this many rounds, 5000000-1000000000\n"
       "                        (default: the exact quantile)\n"
       "  -v                    more output (-v -v, -v -v -v: NIST's higher levels)\n"
       "  -q                    quiet: NIST's -q\n"
       "  -o <file>.json        write the result as JSON to <file>.json ('-': standard output)\n"
       "  --version             the version\n"
       "ea_iid's long options also apply (--seed, --device, ...: ea_iid --help); the same run as\n"
       "'ea_iid --restart H_I --format nist'.\n"
       "Exit status: 0 when the sanity check and the validation pass, 1 when one fails, 2 on errors.\n",
       restart_link},
      {"ea_conditioning", "vnqo:i:c:", false,
       "ea_conditioning [-v] [-q] [-o <file>.json] <n_in> <n_out> <nw> <h_in>   (-v, vetted: the default)\n"
       "ea_conditioning -n [-q] [-o <file>.json] <n_in> <n_out> <nw> <h_in> [<h'> | -i <file> [-c iid]]",
       "NIST ea_conditioning's command line: the output entropy of a conditioning component (SP 800-90B 3.1.5).\n"
       "  -v | -n               -v: a vetted component (h_out = Output_Entropy); -n: a non-vetted one\n"
       "                        (h_out = min(Output_Entropy, 0.999 n_out, h' n_out))\n"
       "  <n_in> <n_out> <nw>   input bits per output, output bits, narrowest internal width\n"
       "  <h_in>                the entropy of the n_in input bits\n"
       "  <h'>                  (-n) the entropy per bit of the conditioned output, or:\n"
       "  -i <file>             (-n) h' from <file>'s non-IID bit string estimates (-c iid: its MCV estimate)\n"
       "  -q                    quiet: NIST's -q\n"
       "  -o <file>.json        write the result as JSON to <file>.json ('-': standard output)\n"
       "  --version             the version\n"
       "The last of -v/-n wins, as in NIST's tool; the same as 'ea_iid conditioning' (ea_iid conditioning --help).\n",
       ea_conditioning_link},
  };
  return table;
}

const NistLink* find_link(const std::string& program) {
  for (const NistLink& l : nist_links()) {
    if (program == l.name) return &l;
  }
  return nullptr;
}

int run_link(const NistLink& link, const std::vector<std::string>& args, const LinkEnv& env) {
  set_program_name(link.name);
  for (size_t k = 1; k < args.size() && args[k] != "--"; ++k) {
    if (args[k] == "--version") {
      std::cout << version_lines(std::string(link.name) + ": ");
      return exit_status(Outcome{}, {}, 0);
    }
    if (args[k] == "--help" || args[k] == "-h") {
      std::cout << link_usage(link) << "\n\n" << link.help;
      std::cout.flush();
      return std::cout ? 0 : 2;
    }
  }
  try {
    const NistArgs a = scan_nist_args(link, args);
    return link.run(link, a, env);
  } catch (const Error& e) {
    init_logging("info");
    logger().error("{}", e.what());
    return exit_status(Outcome::error(), {}, 0);
  }
}

}  // namespace ea::cli
