// --help and --help-all of a CLI11 app, laid out here rather than by CLI11: the options in
// groups in a chosen order, one line each in --help (its brief text), every description in
// full and wrapped in --help-all; and the words of a parse error: an unknown option with the
// nearest real one ("did you mean --iterations?") or what NIST's tools mean by it.
#pragma once

#include "io/near_name.hpp"  // (edit_distance)

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ea::cli {

constexpr size_t kHelpWidth = 100;  // no line of --help or --help-all is longer (but a long name)

struct HelpGroup {
  std::string title;
  std::vector<std::string> options;  // names as CLI11's check_name takes them ("--seed", "-l", "files")
  std::string brief;  // not empty: --help prints this line instead of the options (--help-all: them)
};

struct HelpText {
  std::string heading;  // before the groups (wrapped)
  std::vector<HelpGroup> groups;
  std::map<std::string, std::string> brief;  // option name -> its line in --help (else its description)
  std::map<std::string, std::vector<std::string>> more;  // option name -> lines under it in --help-all
  std::string footer_brief, footer_all;  // after the groups (printed as they are)
};

// The help text: `all` false for --help, true for --help-all. Options of the app in no group
// of `h` are listed last under "Other options" (so that none is ever left out).
std::string render_help(const CLI::App& app, const HelpText& h, bool all);

// `text` wrapped at `width` columns, continuation lines indented by `indent` spaces; the first
// line is not indented: it follows what the caller printed, `first_column` columns (default
// `indent`). kGlue between words keeps them on one line; it is printed as a space.
constexpr char kGlue = '\x1f';
std::string wrap_text(const std::string& text, size_t indent, size_t width = kHelpWidth, size_t first_column = SIZE_MAX);


// --version's text: `prefix` ("ea_non_iid: " where run by that name) and version_string(),
// wrapped at kHelpWidth columns, continuation lines indented by 2; ends with a line break.
std::string version_lines(const std::string& prefix);

// `text` wrapped line by line (its own line breaks kept), each line at `width` columns.
std::string wrap_lines(const std::string& text, size_t width);

// CLI11's layout of --help, but every description, the app's and the footer wrapped at
// kHelpWidth columns (the commands whose help CLI11 lays out: calibrate, source, esv, ...).
class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* opt) const override;
  // (without the ":{a,b}" a member check glues to the type name: "vetted|non-vetted" says it)
  std::string make_option_opts(const CLI::Option* opt) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
};
// Gives `app` a WrappingFormatter.
void wrap_help(CLI::App& app);

// The closest of `names` to `typed`: those of which it is a prefix or that are a prefix of it,
// else those at the smallest edit distance when it is at most 2 (1 for names of up to 4
// characters); at most three.
std::vector<std::string> nearest_names(const std::string& typed, const std::vector<std::string>& names);

// What a flag of NIST's tools means here, for a flag this parser does not take.
struct NistHint {
  const char* flag;  // "-s"
  const char* text;  // "-s is ea_restart's (rounds of the cutoff simulation); here: ..."
};

// The hint of the first argument of argv[1..argc) (up to "--") that is a flag of `hints` and
// no option of `app`, with "(run 'HELP_COMMAND --help')"; "" when none. Checked before
// parsing, so that the hint comes first whatever else is wrong (a missing file, a positional
// that the flag's value took).
std::string nist_flag_message(const CLI::App& app, int argc, char* const* argv, const std::string& help_command,
                              const std::vector<NistHint>& hints);

// The message of a CLI11 parse error. For unknown arguments (CLI::ExtrasError), each is named
// with its NIST hint or the nearest options of `app` ("--iteration: unknown option; did you mean
// --iterations?"); `help_command` ("ea_iid") ends it: "(run 'ea_iid --help')". A missing
// positional (CLI::RequiredError) where an option's value names an existing file says which
// option took it ("files is required: --shuffle took 'data.bin' as its value (...)").
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e, const std::string& help_command,
                                const std::vector<NistHint>& hints = {});

}  // namespace ea::cli
