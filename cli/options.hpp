// Command-line options of ea_iid (CLI11), compatible with NIST ea_iid's
// [-i|-c] [-a|-t] [-v...] [-q] [-l INDEX,COUNT] [-o FILE.json] FILE [bits_per_symbol].
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>

#include "rng/prng.hpp"
#include <string>
#include <vector>

#include "assess.hpp"

namespace ea::cli {

struct Options {
  std::string file;                // the first (or only) file
  std::vector<std::string> files;  // every file given
  std::optional<uint64_t> blocks;  // --blocks COUNT
  bool keep_short = false;         // --keep-short
  int jobs = 0;                    // --jobs K (0: 8 with a GPU, else 1)
  std::optional<std::string> jsonl_path;  // --jsonl PATH ("-": stdout)
  int bits = 0;                  // 0: infer
  bool initial_entropy = true;   // -i / -c
  bool truncate_bitstring = false;  // -a / -t
  int verbose = 0;               // number of -v
  bool quiet = false;
  std::optional<std::string> subset_text;  // -l
  std::optional<std::string> json_path;    // -o
  std::optional<uint64_t> seed;
  PrngId prng = PrngId::Philox;
  int threads = 0;               // 0: all cores (OMP_NUM_THREADS respected)
  DeviceChoice device = DeviceChoice::Auto;
  int gpu_id = 0;
  uint32_t round_size = 0;
  bool all_tests = false;
  bool no_early_exit = false;
  bool exit_code = false;
  uint32_t iterations = 10000;
  bool timing = false;
  bool verify = false;
  bool cpu_compression = false;
  std::string log_level;          // --log-level ("": info, or error with -q)
  std::string command_line;

  // Several assessments (several files, --blocks or --jsonl): batch mode.
  bool batch() const { return files.size() > 1 || blocks.has_value() || jsonl_path.has_value(); }
};

enum class ParseStatus { Run, Exit0 };

// Parses argv. Prints --help/--version to stdout (ParseStatus::Exit0); throws
// Error{Usage} with a message naming the offending argument otherwise.
ParseStatus parse_options(int argc, char** argv, Options& out);

// --list-prngs: every shuffling generator with its properties.
void print_prng_list(std::ostream& out);

// The -o value, found without a full parse, so that a JSON error file can be written even
// when the command line is malformed.
std::optional<std::string> scan_json_path(int argc, char** argv);

std::string join_command_line(int argc, char** argv);

}  // namespace ea::cli
