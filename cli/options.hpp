// Command-line options of ea_iid (CLI11), compatible with NIST ea_iid's
// [-i|-c] [-a|-t] [-v...] [-q] [-l INDEX,COUNT] [-o FILE.json] FILE [bits_per_symbol].
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>

#include <string>
#include <vector>

#include "assess.hpp"
#include "io/samples.hpp"
#include "rng/prng.hpp"

namespace ea::cli {

enum class TextFormat { Text, Nist };

struct Options {
  std::string file;                // the first (or only) file
  std::vector<std::string> files;  // every file given
  std::vector<std::string> warnings;  // said once logging is set (-q, --log-level): the options' readings
  std::optional<uint64_t> blocks;  // --blocks COUNT
  bool keep_short = false;         // --keep-short
  int jobs = 0;                    // --jobs K (0: 8 per listed GPU with a GPU, else 1)
  std::optional<std::string> jsonl_path;  // --jsonl PATH ("-": stdout)
  std::optional<std::pair<uint64_t, uint64_t>> shard;  // --shard K/N (0 <= K < N)
  std::optional<std::string> csv_path, html_path;      // --csv, --html: the batch's report files
  // What the assessments compute and where (bits, -i/-c, -a/-t, --prng, --iterations,
  // --device, --gpu, --round-size, --gpu-tuning, ...). settings.seed and settings.threads
  // are set by main() from `seed` and `threads`.
  Settings settings;
  int verbose = 0;
  TextFormat format = TextFormat::Text;  // --format text|nist               // number of -v
  bool quiet = false;
  bool nist_compat = false;  // run as ea_non_iid: NIST's command line and text (its levels: 1 + -v count, -q 0)
  std::optional<SubsetSpec> subset;        // -l INDEX,COUNT
  bool jsonl_append = false;               // --append: add lines to an existing --jsonl file
  bool jsonl_force = false;                // --force: replace an existing --jsonl file's contents
  bool resume = false;                     // --resume: keep the complete rows of an earlier run
  std::optional<std::string> json_path;    // -o
  std::optional<std::string> write_symbols;  // --write-symbols FILE
  std::optional<uint64_t> seed;  // --seed (else drawn from the OS)
  int threads = 0;               // 0: all cores (OMP_NUM_THREADS respected)
  bool exit_code = false;        // --exit-code
  bool strict = false;           // --strict (implies --exit-code)
  bool timing = false;
  std::string log_level;          // --log-level ("": info, or error with -q)
  std::string command_line;

  // Several assessments (several files, --blocks or --jsonl): batch mode.
  bool batch() const {
    return files.size() > 1 || blocks.has_value() || jsonl_path.has_value() || shard.has_value() ||
           csv_path.has_value() || html_path.has_value();
  }
};

enum class ParseStatus { Run, Exit0 };

// Parses argv. Prints --help/--version to stdout (ParseStatus::Exit0); throws
// Error{Usage} with a message naming the offending argument otherwise.
ParseStatus parse_options(int argc, char** argv, Options& out);

// --list-prngs: every shuffling generator with its properties.
void print_prng_list(std::ostream& out);

// Strict unsigned integer of an option: decimal digits (and 0x hex where `hex`), no sign,
// no spaces, no empty value, within [min, max]. Throws Error{Usage} naming the option.
// (ea::parse_integer, src/common/numbers.hpp: the one parser of numbers; reals: parse_real.)
uint64_t parse_unsigned(const std::string& text, const std::string& option, uint64_t min, uint64_t max,
                        bool hex = false);

// --gpu: "all" (every GPU the machine has; GPU 0 when none is found, so that the usual
// fallback or error follows), or indexes separated by commas ("0", "0,1", "0,0": an index
// may repeat). Throws Error{Usage} naming the option.
std::vector<int> parse_gpu_list(const std::string& text, const std::string& option);

std::string join_command_line(int argc, char** argv);

// Whether ea_iid's option `name` ("--seed") takes a value (false for a flag or no option):
// the links pass ea_iid's long options on with their values (cli/links.cpp).
bool option_takes_value(const std::string& name);

// -l INDEX,COUNT. Throws Error{Usage} naming -l.
SubsetSpec parse_subset(const std::string& text);

// The warning of an -l range that starts inside the input and runs past its end (assessed as
// far as it goes, as NIST's tools do): "-l 1,6000: F holds 10000 samples: samples 6000 to 9999
// are assessed, 4000 of the 6000 asked for (the last whole range of 6000: -l 0,6000)". `verb`:
// "holds" for a file (known before any work), "gave" for a stream (known once it ended).
std::string subset_shortened(const SubsetSpec& s, const std::string& path, uint64_t size, const char* verb);

}  // namespace ea::cli
