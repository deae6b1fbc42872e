// Option groups shared by ea_iid's subcommands and ea_calibrate: each group adds its
// options to a CLI11 app (text only), then checks and applies them to Settings in one place,
// so that a flag has one spelling, one range and one message wherever it is taken.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "assess.hpp"
#include "help.hpp"
#include "settings_rules.hpp"

namespace ea::cli {

enum class Program { EaIid, Calibrate };

// The permutation engine: --seed, --prng, --shuffle, --device, --gpu, --round-size, --gpu-tuning,
// --threads, --iterations; ea_iid also --cpu-compression and --verify.
struct EngineOptionText {
  std::string seed, prng = "philox", shuffle = "bucket", device, gpu, round_size, tuning, threads, iterations;
  bool cpu_compression = false, verify = false;
  CLI::Option *seed_opt = nullptr, *gpu_opt = nullptr, *round_opt = nullptr, *tuning_opt = nullptr,
              *threads_opt = nullptr, *iterations_opt = nullptr;
};
void add_engine_options(CLI::App& app, EngineOptionText& t, Program p);

// What the group decided outside Settings: the seed and threads as given (absent: the
// caller's default), so that Settings is made complete once, by the caller.
struct EngineChoice {
  std::optional<uint64_t> seed;
  std::optional<int> threads;
};
// The command line's names of the settings in the rules' messages (settings_rules.hpp): the
// flag of settings_fields(), the spellings of defaults (-i, -a, --permutation-counters), and
// a value where the flag is the value (-c, -t, --no-early-exit, --track non-iid; with
// `non_iid_flag` the track was given as --non-iid).
SettingNames cli_setting_names(bool non_iid_flag = false);

// Checks the group's values and applies them to `s` (ea_calibrate's --prng takes a list and
// is applied by it). Throws Error{Usage} naming the option.
EngineChoice apply_engine_options(const EngineOptionText& t, Settings& s, Program p);

// Output files and their switches, shared by assess, conditioning and merge: -o/--output
// FILE, --csv PATH, --html PATH, --force and -q, each added by the commands that take it
// (`which`), with the command's own description where it says more (empty: the group's).
enum OutputOption : unsigned { kOutputJson = 1, kOutputCsv = 2, kOutputHtml = 4, kOutputForce = 8, kOutputQuiet = 16 };
struct OutputOptionText {
  std::string json, csv, html;
  bool force = false, quiet = false;
  CLI::Option *json_opt = nullptr, *csv_opt = nullptr, *html_opt = nullptr, *force_opt = nullptr;
};
struct OutputDescriptions {
  std::string json, csv, html, force, quiet;
};
void add_output_group(CLI::App& app, OutputOptionText& t, unsigned which, const OutputDescriptions& d = {});
// The paths given, each through output_name() (-o /dev/stdout is -o -: cli/output.hpp).
struct OutputFiles {
  std::optional<std::string> json, csv, html;
  bool force = false, quiet = false;
};
OutputFiles apply_output_group(const OutputOptionText& t);

// The bit width of the samples, --bits N (assess and conditioning's --conditioned file):
// added with the command's description, read as an integer 1-8 naming --bits.
CLI::Option* add_bits_option(CLI::App& app, std::string& text, const std::string& description);
// --bits N (1-8); with `wide_hint`, 9-32 says how a wide capture is read (not for a command
// that reads no captures: conditioning).
int apply_bits_option(const std::string& text, bool wide_hint = true);

// How the samples are stored and made symbols (assess, source, health-tests): --sample-format
// F, --select-bits MASK|auto[:B], --bin B; with `write_symbols` also --write-symbols FILE.
struct SampleOptionText {
  std::string format, select_bits, bin, write_symbols;
  CLI::Option *format_opt = nullptr, *select_opt = nullptr, *bin_opt = nullptr, *write_opt = nullptr;
  // Said once the command's logging is set (-q silences them): a decimal mask's reading.
  mutable std::vector<std::string> warnings;
};
void add_sample_options(CLI::App& app, SampleOptionText& t, bool write_symbols);
// Applies them to s.sample_input and records which were given; the rules (the mask's width,
// --select-bits with --bin) are check_settings'. Throws Error{Usage} naming the option.
void apply_sample_options(const SampleOptionText& t, Settings& s, SettingsGiven& given);

// Parses a subcommand's arguments: --version prints the version, --help the app's help
// (both: returns 0, the exit status); a parse error throws Error{Usage} pointing at
// `help_command` ("ea_iid source"); otherwise returns -1 (go on).
// A flag of `hints` (NIST's spellings) among the arguments throws Error{Usage} with its hint
// first; an unknown option is named with the nearest ones (cli/help.hpp).
int parse_subcommand(CLI::App& app, std::vector<char*>& args, const std::string& help_command,
                     const std::vector<NistHint>& hints = {});

}  // namespace ea::cli
