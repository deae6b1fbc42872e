#include "help.hpp"

#include "version.hpp"

#include <cctype>
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <set>
#include <sstream>

namespace ea::cli {

namespace {

constexpr size_t kNameColumn = 30;  // descriptions start here

std::string strip_validator(std::string type) {
  const size_t colon = type.find(':');
  if (colon != std::string::npos) type.erase(colon);
  return type;
}

// "-o,--output FILE.json", "--seed S", "FILE..." (a positional: its type name).
std::string option_label(const CLI::Option* opt) {
  const std::string type = strip_validator(opt->get_type_name());
  if (!opt->nonpositional()) return type.empty() ? opt->get_name(true) : type;
  std::string names;
  for (const std::string& s : opt->get_snames()) names += (names.empty() ? "-" : ",-") + s;
  for (const std::string& l : opt->get_lnames()) names += (names.empty() ? "--" : ",--") + l;
  return type.empty() ? names : names + " " + type;
}

const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->check_name(name)) return opt;
  }
  return nullptr;
}

void option_lines(std::ostringstream& out, const std::string& label, const std::string& text) {
  std::string line = "  " + label;
  if (line.size() + 2 > kNameColumn) {
    line += "  ";
  } else {
    line.resize(kNameColumn, ' ');
  }
  out << line << wrap_text(text, kNameColumn, kHelpWidth, line.size()) << "\n";
}

}  // namespace

std::string wrap_text(const std::string& text, size_t indent, size_t width, size_t first_column) {
  std::string out;
  size_t column = first_column == SIZE_MAX ? indent : first_column;
  std::istringstream words(text);
  std::string word;
  bool first = true;
  while (words >> word) {
    if (!first && column + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
      first = true;
    }
    if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
  }
  std::replace(out.begin(), out.end(), kGlue, ' ');
  return out;
}

std::string wrap_lines(const std::string& text, size_t width) {
  std::string out;
  size_t from = 0;
  while (from <= text.size()) {
    const size_t end = std::min(text.find('\n', from), text.size());
    const std::string line = text.substr(from, end - from);
    // (a line's leading spaces are kept: an indented example stays indented)
    const size_t lead = std::min(line.find_first_not_of(' '), line.size());
    out += std::string(lead, ' ') + wrap_text(line.substr(lead), lead, width, lead);
    if (end == text.size()) break;
    out += '\n';
    from = end + 1;
  }
  return out;
}

std::string version_lines(const std::string& prefix) {
  std::string text = prefix + version_string();
  for (size_t at = text.find("SP 800-90B"); at != std::string::npos; at = text.find("SP 800-90B", at + 1)) {
    text[at + 2] = kGlue;  // (never "SP" at a line's end)
  }
  return wrap_text(text, 2, kHelpWidth, 0) + "\n";
}

std::string WrappingFormatter::make_option_desc(const CLI::Option* opt) const {
  // (CLI11 indents every line after the first to the name column's width)
  return wrap_lines(opt->get_description(), kHelpWidth - std::min(column_width_, kHelpWidth / 2));
}

std::string WrappingFormatter::make_option_opts(const CLI::Option* opt) const {
  std::string text = CLI::Formatter::make_option_opts(opt);
  for (size_t at = text.find(":{"); at != std::string::npos; at = text.find(":{", at)) {
    const size_t end = text.find('}', at);
    if (end == std::string::npos) break;
    text.erase(at, end + 1 - at);
  }
  // (a positional's type name repeats its name: "DIR DIR REQUIRED", "name NAME REQUIRED")
  const std::string type = " " + opt->get_type_name(), name = opt->get_name(true, false);
  if (!opt->nonpositional() && type.size() > 1 && text.compare(0, type.size(), type) == 0 &&
      std::equal(type.begin() + 1, type.end(), name.begin(), name.end(),
                 [](char a, char b) { return std::toupper(static_cast<unsigned char>(a)) ==
                                             std::toupper(static_cast<unsigned char>(b)); })) {
    text.erase(0, type.size());
  }
  return text;
}

std::string WrappingFormatter::make_description(const CLI::App* app) const {
  return wrap_lines(CLI::Formatter::make_description(app), kHelpWidth);
}

std::string WrappingFormatter::make_footer(const CLI::App* app) const {
  return wrap_lines(CLI::Formatter::make_footer(app), kHelpWidth);
}

std::string WrappingFormatter::make_subcommand(const CLI::App* sub) const {
  std::stringstream out;
  CLI::detail::format_help(out, sub->get_display_name(true),
                           wrap_lines(sub->get_description(), kHelpWidth - std::min(column_width_, kHelpWidth / 2)),
                           column_width_);
  return out.str();
}

void wrap_help(CLI::App& app) { app.formatter(std::make_shared<WrappingFormatter>()); }

std::string render_help(const CLI::App& app, const HelpText& h, bool all) {
  std::ostringstream out;
  out << h.heading;
  std::set<const CLI::Option*> listed;
  for (const CLI::Option* opt : {app.get_help_ptr(), app.get_help_all_ptr()}) {
    if (opt) listed.insert(opt);
  }
  for (const HelpGroup& g : h.groups) {
    out << "\n" << g.title << ":\n";
    if (!all && !g.brief.empty()) {
      out << "  " << wrap_text(g.brief, 2) << "\n";
      for (const std::string& name : g.options) listed.insert(find_option(app, name));
      continue;
    }
    for (const std::string& name : g.options) {
      const CLI::Option* opt = find_option(app, name);
      if (!opt || !listed.insert(opt).second) continue;
      const auto brief = h.brief.find(name);
      const bool use_brief = !all && brief != h.brief.end();
      option_lines(out, option_label(opt), use_brief ? brief->second : opt->get_description());
      const auto more = h.more.find(name);
      if (all && more != h.more.end()) {
        for (const std::string& line : more->second) {
          out << std::string(kNameColumn + 2, ' ') << wrap_text(line, kNameColumn + 4, kHelpWidth, kNameColumn + 2) << "\n";
        }
      }
    }
  }
  bool other = false;
  for (const CLI::Option* opt : app.get_options()) {
    if (listed.count(opt) || opt->get_group().empty()) continue;  // group "": hidden
    if (!other) out << "\nOther options:\n";
    other = true;
    option_lines(out, option_label(opt), opt->get_description());
  }
  out << (all ? h.footer_all : h.footer_brief);
  return out.str();
}

std::vector<std::string> nearest_names(const std::string& typed, const std::vector<std::string>& names) {
  // A prefix counts from three characters past the dashes ("--ite" for --iterations); names
  // that `typed` begins (--iteration) come first, then the longest name it begins with
  // (--seeds: --seed).
  const size_t dashes = typed.find_first_not_of('-');
  if (dashes != std::string::npos && typed.size() >= dashes + 3) {
    std::vector<std::string> longer;
    std::string shorter;
    for (const std::string& n : names) {
      if (n.size() > typed.size() && n.compare(0, typed.size(), typed) == 0) longer.push_back(n);
      if (n.size() < typed.size() && typed.compare(0, n.size(), n) == 0 && n.size() >= dashes + 3 &&
          n.size() > shorter.size()) {
        shorter = n;
      }
    }
    if (!longer.empty() && longer.size() <= 3) return longer;
    if (longer.empty() && !shorter.empty()) return {shorter};
  }
  size_t best = typed.size() <= 4 + 2 ? 1 : 2;  // "--sed" -> --seed; short names: one edit only
  std::vector<std::string> near;
  for (const std::string& n : names) {
    const size_t d = edit_distance(typed, n);
    if (d < best) {
      best = d;
      near.clear();
    }
    if (d == best) near.push_back(n);
  }
  if (near.size() > 3) near.resize(3);
  return near;
}

std::string nist_flag_message(const CLI::App& app, int argc, char* const* argv, const std::string& help_command,
                              const std::vector<NistHint>& hints) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;
    const std::string flag = arg[1] == '-' ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
    if (find_option(app, flag)) continue;
    for (const NistHint& h : hints) {
      if (flag == h.flag) return std::string(h.text) + " (run '" + help_command + " --help')";
    }
  }
  return "";
}

namespace {

// A required positional missing because an option that takes no file took the file as its
// value (`--shuffle data.bin`: the option's own value left out): "--shuffle took 'data.bin'
// as its value", or "" where no positional is missing (another required option) or no such
// option's value names an existing regular file. Options whose value is a file or folder
// (FILE, DIR, PATH in their type name: -o, --html, --manifest, ...) are never named: their
// value may well be the file meant.
// The type name of a required positional not given ("FILE" for "FILE..."), or "".
std::string missing_positional(const CLI::App& app) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->nonpositional() || !opt->get_required() || opt->count() != 0) continue;
    std::string type = opt->get_type_name();
    if (type.size() > 3 && type.compare(type.size() - 3, 3, "...") == 0) type.resize(type.size() - 3);
    return type.empty() ? opt->get_name() : type;
  }
  return "";
}

std::string file_taken_as_value(const CLI::App& app) {
  if (missing_positional(app).empty()) return "";
  for (const CLI::Option* opt : app.get_options()) {
    if (!opt->nonpositional() || opt->get_expected_min() == 0 || opt->count() == 0) continue;  // (flags too)
    const std::string type = opt->get_type_name();
    if (type.find("FILE") != std::string::npos || type.find("DIR") != std::string::npos ||
        type.find("PATH") != std::string::npos) {
      continue;
    }
    for (const std::string& v : opt->results()) {
      std::error_code ec;
      if (v.empty() || v == "-" || !std::filesystem::is_regular_file(v, ec)) continue;
      return opt->get_name() + " took '" + v + "' as its value (was " + opt->get_name() + "'s own value left out?)";
    }
  }
  return "";
}

}  // namespace

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e, const std::string& help_command,
                                const std::vector<NistHint>& hints) {
  const std::string run_help = " (run '" + help_command + " --help')";
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    // "no FILE given" for a missing positional (CLI11 says "files is required").
    const std::string positional = missing_positional(app);
    const std::string what = positional.empty() ? std::string(e.what()) : "no " + positional + " given";
    if (const std::string taken = file_taken_as_value(app); !taken.empty()) return what + ": " + taken + run_help;
    return what + run_help;
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    // "--seed: At Most 1 required but received 2": an option given more than once
    const std::string what = e.what();
    const size_t colon = what.find(": At Most 1 required but received ");
    if (colon != std::string::npos) return what.substr(0, colon) + " is given more than once: give it once" + run_help;
  }
  if (!dynamic_cast<const CLI::ExtrasError*>(&e)) return std::string(e.what()) + run_help;
  std::vector<std::string> names;  // every long option of the app
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
  }
  names.push_back("--version");
  std::string message;
  for (const std::string& arg : app.remaining()) {
    if (!message.empty()) message += "; ";
    if (arg.size() < 2 || arg[0] != '-') {
      message += "unexpected argument '" + arg + "'";
      continue;
    }
    // "--name=value": the name; "-sVALUE" or "-vx": the unknown letter as CLI11 left it.
    const std::string flag = arg[1] == '-' ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
    const auto hint = std::find_if(hints.begin(), hints.end(), [&](const NistHint& h) { return flag == h.flag; });
    if (hint != hints.end()) {
      message += hint->text;
      continue;
    }
    message += flag + ": unknown option";
    const std::vector<std::string> near = flag[1] == '-' ? nearest_names(flag, names) : std::vector<std::string>{};
    for (size_t k = 0; k < near.size(); ++k) {
      message += (k == 0 ? "; did you mean " : k + 1 == near.size() ? " or " : ", ") + near[k];
    }
    if (!near.empty()) message += "?";
  }
  if (message.empty()) message = e.what();
  return message + run_help;
}

}  // namespace ea::cli
