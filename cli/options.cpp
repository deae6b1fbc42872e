#include "options.hpp"

#include <CLI/CLI.hpp>

#include <sys/stat.h>

#include <cstring>
#include <iostream>

#include "common/error.hpp"
#include "version.hpp"

namespace ea::cli {

std::string join_command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

std::optional<std::string> scan_json_path(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o" || a == "--output") {
      if (i + 1 < argc) return std::string(argv[i + 1]);
    } else if (a.rfind("--output=", 0) == 0) {
      return a.substr(9);
    } else if (a.size() > 2 && a[0] == '-' && a[1] == 'o') {
      return a.substr(2);
    }
  }
  return std::nullopt;
}

void print_prng_list(std::ostream& out) {
  out << "Shuffling generators (--prng NAME); docs/prngs.md has the definitions and the calibration.\n";
  for (const PrngInfo& p : prng_table()) {
    out << "\n" << p.name << (p.id == PrngId::Philox ? " (default)" : "") << ": " << p.full_name << "\n";
    out << "  family:      " << p.family << "\n";
    out << "  state:       " << p.state << "\n";
    out << "  period:      " << p.period << "\n";
    out << "  streams:     " << p.streams << "\n";
    out << "  draws:       " << p.draw << "\n";
    out << "  compliance:  " << (p.compliance ? "yes, may be used for an SP 800-90B verdict" : "no: ")
        << (p.compliance ? "" : p.caveat) << "\n";
    out << "  uniformity:  " << (*p.uniformity_flag ? p.uniformity_flag : "4- and 5-element shuffles uniform") << "\n";
    out << "  calibration: " << (p.calibration_flagged ? "FLAGGED: " : "") << (*p.calibration ? p.calibration : "not calibrated yet")
        << "\n";
  }
}

ParseStatus parse_options(int argc, char** argv, Options& o) {
  o.command_line = join_command_line(argc, argv);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0) {
      std::cout << version_string() << "\n";
      return ParseStatus::Exit0;
    }
    if (std::strcmp(argv[i], "--list-prngs") == 0) {
      print_prng_list(std::cout);
      return ParseStatus::Exit0;
    }
  }
  CLI::App app{"ea_iid: SP 800-90B IID track (section 5) with the most common value estimate, "
               "number for number with NIST ea_iid 1.1.7; permutation tests on the GPU or the CPU.",
               "ea_iid"};
  bool flag_i = false, flag_c = false, flag_a = false, flag_t = false;
  std::string device = "auto", bits_text, subset, json;
  uint64_t seed = 0;
  app.add_flag("-i", flag_i, "initial entropy estimate H_I (default)");
  app.add_flag("-c", flag_c, "conditioned sequential dataset estimate h' (H_bitstring only)");
  app.add_flag("-a", flag_a, "H_bitstring from all bits (default)");
  app.add_flag("-t", flag_t, "H_bitstring from the first 1,000,000 bits only");
  app.add_flag("-v", o.verbose, "more output; -v -v -v prints every value as the reference's highest verbosity");
  app.add_flag("-q", o.quiet, "quiet: nothing on stdout (errors still go to stderr)");
  auto* l = app.add_option("-l", subset, "assess only samples [INDEX*COUNT, INDEX*COUNT+COUNT)")->type_name("INDEX,COUNT");
  auto* out = app.add_option("-o,--output", json, "write the results as JSON to FILE")->type_name("FILE.json");
  auto* seed_opt = app.add_option("--seed", seed, "64-bit seed of the shuffles (default: drawn from the OS, then printed)");
  std::string prng = "philox";
  app.add_option("--prng", prng, "generator of the shuffles: " + prng_names() + " (default philox; see --list-prngs)")
      ->type_name("NAME");
  app.add_flag("--list-prngs", "list the shuffling generators with their properties, then exit");
  app.add_option("--threads", o.threads, "CPU threads (default: all cores, or OMP_NUM_THREADS)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--device", device, "where the permutation tests run: auto (GPU if usable), cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  app.add_option("--gpu", o.gpu_id, "GPU index (with --device auto|gpu)")->check(CLI::Range(0, 1024));
  app.add_option("--round-size", o.round_size, "GPU permutations per round (default: from free memory)")
      ->check(CLI::Range(1u, 1u << 20));
  app.add_flag("--all-tests", o.all_tests, "run the compression test even when another test already failed");
  app.add_flag("--no-early-exit", o.no_early_exit, "run all permutations for every test (full counts)");
  app.add_flag("--exit-code", o.exit_code, "exit 1 when the data is not judged IID (default: 0 when the run completed)");
  app.add_option("--iterations", o.iterations, "permutations (default 10000; other values are not an SP 800-90B assessment)")
      ->check(CLI::Range(1u, 100000000u));
  app.add_flag("--timing", o.timing, "print per-stage times");
  app.add_option("--log-level", o.log_level,
                 "diagnostics on stderr: trace, debug, info (default), warning, error, critical, off")
      ->type_name("LEVEL");
  app.add_flag("--cpu-compression", o.cpu_compression,
               "with a GPU, still run the compression test with libbz2 on the CPU cores (by default the GPU runs it "
               "with an exact bzip2 size model, checked against libbz2 on each data set's original)");
  app.add_flag("--verify", o.verify, "recompute some GPU permutations of every round on the CPU; any difference is an error");
  std::vector<std::string> positionals;
  int bits_all = 0;
  uint64_t blocks = 0;
  std::string jsonl;
  app.add_option("files", positionals,
                 "sample files (one sample per byte); the reference's form FILE [bits_per_symbol] also works")
      ->required()
      ->type_name("FILE...");
  auto* bits_opt = app.add_option("--bits", bits_all, "bits per sample (1-8) for every file (default: inferred)")
                       ->check(CLI::Range(1, 8));
  auto* blocks_opt = app.add_option("--blocks", blocks, "assess every consecutive block of COUNT samples of each file")
                         ->check(CLI::Range(static_cast<uint64_t>(1), static_cast<uint64_t>(UINT32_MAX)))
                         ->type_name("COUNT");
  app.add_option("--jobs", o.jobs,
                 "batch: assessments in flight at once, each with its own CUDA stream and buffers "
                 "(default: 8 with a GPU, else 1)")
      ->check(CLI::Range(1, 64))
      ->type_name("K");
  app.add_flag("--keep-short", o.keep_short, "with --blocks: also assess the last block when it is shorter");
  auto* jsonl_opt = app.add_option("--jsonl", jsonl, "write one JSON object per assessment, one per line ('-': stdout)")
                        ->type_name("PATH");
  app.footer(
      "Exit status: 0 when the assessment completed (whatever the verdict; with --exit-code, 0 only when IID),\n"
      "1 with --exit-code when the data is not judged IID, 2 on errors (bad input, usage, device failure).");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return ParseStatus::Exit0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help();
    return ParseStatus::Exit0;
  } catch (const CLI::ParseError& e) {
    throw Error(ErrorKind::Usage, std::string(e.what()) + " (run 'ea_iid --help')");
  }
  // The reference's form: FILE BITS, where BITS is a number and not a file.
  if (positionals.size() == 2) {
    const std::string& last = positionals[1];
    bool digits = !last.empty() && last.size() <= 3;
    for (char ch : last) digits = digits && ch >= '0' && ch <= '9';
    struct stat st {};
    if (digits && ::stat(last.c_str(), &st) != 0) {
      bits_text = last;
      positionals.pop_back();
    }
  }
  o.files = positionals;
  o.file = positionals.front();
  if (bits_opt->count()) {
    if (!bits_text.empty()) throw Error(ErrorKind::Usage, "give the bit width either as --bits or after the file, not both");
    bits_text = std::to_string(bits_all);
  }
  if (blocks_opt->count()) o.blocks = blocks;
  if (jsonl_opt->count()) o.jsonl_path = jsonl;
  if (flag_i && flag_c) throw Error(ErrorKind::Usage, "-i and -c exclude each other");
  if (flag_a && flag_t) throw Error(ErrorKind::Usage, "-a and -t exclude each other");
  o.initial_entropy = !flag_c;
  o.truncate_bitstring = flag_t;
  if (l->count()) o.subset_text = subset;
  if (out->count()) o.json_path = json;
  if (seed_opt->count()) o.seed = seed;
  if (auto id = parse_prng(prng)) {
    o.prng = *id;
  } else {
    throw Error(ErrorKind::Usage, "unknown --prng '" + prng + "'; choose one of: " + prng_names());
  }
  o.device = device == "cpu" ? DeviceChoice::Cpu : device == "gpu" ? DeviceChoice::Gpu : DeviceChoice::Auto;
  if (!bits_text.empty()) {
    bool digits = bits_text.size() <= 3;
    for (char ch : bits_text) digits = digits && ch >= '0' && ch <= '9';
    int b = digits ? std::stoi(bits_text) : -1;
    if (b < 1 || b > 8) {
      throw Error(ErrorKind::Usage, "bits per symbol must be between 1 and 8, got '" + bits_text + "'");
    }
    o.bits = b;
  }
  return ParseStatus::Run;
}

}  // namespace ea::cli
