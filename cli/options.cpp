#include "options.hpp"

#include <CLI/CLI.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "common/error.hpp"
#include "gpu_backends.hpp"
#include "gpu_tuning.hpp"
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

uint64_t parse_unsigned(const std::string& text, const std::string& option, uint64_t min, uint64_t max, bool hex) {
  const std::string range = " (" + std::to_string(min) + " to " + std::to_string(max) + ")";
  if (text.empty()) throw Error(ErrorKind::Usage, option + ": empty value; expected a number" + range);
  const bool is_hex = hex && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const unsigned base = is_hex ? 16 : 10;
  uint64_t v = 0;
  bool overflow = false;
  for (size_t i = is_hex ? 2 : 0; i < text.size(); ++i) {
    const char c = text[i];
    unsigned d;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (is_hex && c >= 'a' && c <= 'f') {
      d = static_cast<unsigned>(c - 'a' + 10);
    } else if (is_hex && c >= 'A' && c <= 'F') {
      d = static_cast<unsigned>(c - 'A' + 10);
    } else {
      throw Error(ErrorKind::Usage, option + ": '" + text + "' is not " +
                                        (c == '-' && i == 0 ? "a non-negative integer" : "a number") + range);
    }
    if (v > (UINT64_MAX - d) / base) overflow = true;
    if (!overflow) v = v * base + d;
  }
  if (overflow || v < min || v > max) throw Error(ErrorKind::Usage, option + ": " + text + " is out of range" + range);
  return v;
}

std::vector<int> parse_gpu_list(const std::string& text, const std::string& option) {
  std::vector<int> ids;
  if (text == "all") {
    const int n = gpu_count();
    for (int g = 0; g < std::max(1, n); ++g) ids.push_back(g);
    return ids;
  }
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string one = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (one.empty()) {
      throw Error(ErrorKind::Usage, option + (text.empty() ? ": empty value" : ": '" + text + "' has an empty index") +
                                        "; expected all or GPU indexes such as 0 or 0,1");
    }
    ids.push_back(static_cast<int>(parse_unsigned(one, option, 0, 1023)));
    if (ids.size() > 64) throw Error(ErrorKind::Usage, option + ": at most 64 GPUs");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ids;
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
  std::string seed_text, threads_text, gpu_text, round_text, iterations_text, bits_all_text, blocks_text, jobs_text;
  app.add_flag("-i", flag_i, "initial entropy estimate H_I (default)");
  app.add_flag("-c", flag_c, "conditioned sequential dataset estimate h' (H_bitstring only)");
  app.add_flag("-a", flag_a, "H_bitstring from all bits (default)");
  app.add_flag("-t", flag_t, "H_bitstring from the first 1,000,000 bits only");
  Settings& st = o.settings;
  app.add_flag("-v", o.verbose, "more output; -v -v -v prints every value as the reference's highest verbosity");
  std::string format = "text";
  app.add_option("--format", format,
                 "text layout: text (default) or nist (NIST ea_iid's output line for line: with -v its -v, with -v -v "
                 "or more its -v -v; counters and progress aside)")
      ->check(CLI::IsMember({"text", "nist"}))
      ->type_name("text|nist");
  app.add_flag("-q", o.quiet, "quiet: nothing on stdout (errors still go to stderr)");
  auto* l = app.add_option("-l", subset, "assess only samples [INDEX*COUNT, INDEX*COUNT+COUNT)")->type_name("INDEX,COUNT");
  auto* out = app.add_option("-o,--output", json, "write the results as JSON to FILE")->type_name("FILE.json");
  auto* seed_opt = app.add_option("--seed", seed_text, "64-bit seed (decimal or 0x hex) of the shuffles (default: drawn from the OS, then printed)");
  std::string prng = "philox";
  app.add_option("--prng", prng, "generator of the shuffles: " + prng_names() + " (default philox; see --list-prngs)")
      ->type_name("NAME");
  app.add_flag("--list-prngs", "list the shuffling generators with their properties, then exit");
  auto* threads_opt = app.add_option("--threads", threads_text, "CPU threads, 1-4096 (default: all cores, or OMP_NUM_THREADS; a batch divides them among its --jobs)")
                          ->type_name("N");
  app.add_option("--device", device, "where the permutation tests run: auto (GPU if usable), cpu or gpu")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  auto* gpu_opt = app.add_option("--gpu", gpu_text, "GPUs: an index, indexes such as 0,1 (one assessment's rounds are split across them; a batch keeps each busy), or all")->type_name("ID|ID,ID,...|all");
  auto* round_opt = app.add_option("--round-size", round_text, "GPU permutations per round, 1-1048576 (default: from free memory)")
                        ->type_name("N");
  std::string tuning_text;
  auto* tuning_opt = app.add_option("--gpu-tuning", tuning_text, gpu_tuning_help())->type_name("KEY=VALUE,...");
  app.add_flag("--all-tests", st.all_tests, "run the compression test even when another test already failed");
  bool no_early_exit = false, cpu_compression = false;
  app.add_flag("--no-early-exit", no_early_exit, "run all permutations for every test (full counts)");
  app.add_flag("--exit-code", o.exit_code, "exit 1 when the data is not judged IID (default: 0 when the run completed)");
  app.add_flag("--strict", o.strict,
               "for CI: exit 0 only for an IID verdict of a compliant assessment; 1 not IID, 3 inconclusive, 4 when "
               "a result cannot be an SP 800-90B assessment (--iterations other than 10000, fewer than 1000000 "
               "samples, a generator not for compliance, chi-square not evaluable)");
  auto* iterations_opt =
      app.add_option("--iterations", iterations_text,
                     "permutations, 1-100000000 (default 10000; other counts make an exploratory run with the decision rule scaled, not an SP 800-90B assessment)")
          ->type_name("N");
  app.add_flag("--timing", o.timing, "print per-stage times");
  app.add_option("--log-level", o.log_level,
                 "diagnostics on stderr: trace, debug, info (default), warning, error, critical, off")
      ->type_name("LEVEL");
  app.add_flag("--cpu-compression", cpu_compression,
               "with a GPU, still run the compression test with libbz2 on the CPU cores (by default the GPU runs it "
               "with an exact bzip2 size model, checked against libbz2 on each data set's original)");
  app.add_flag("--verify", st.verify, "recompute some GPU permutations of every round on the CPU; any difference is an error");
  std::vector<std::string> positionals;
  std::string jsonl;
  app.add_option("files", positionals,
                 "sample files (one sample per byte; '-' reads standard input); the reference's form FILE [bits_per_symbol] also works")
      ->required()
      ->type_name("FILE...");
  auto* bits_opt = app.add_option("--bits", bits_all_text, "bits per sample (1-8) for every file (default: inferred)")
                       ->type_name("N");
  auto* blocks_opt = app.add_option("--blocks", blocks_text, "assess every consecutive block of COUNT samples of each file")
                         ->type_name("COUNT");
  auto* jobs_opt = app.add_option("--jobs", jobs_text,
                                  "batch: assessments in flight at once, 1-64, each with its own CUDA stream and "
                                  "buffers (default: 8 per listed GPU with a GPU, else 1)")
                       ->type_name("K");
  std::string csv_text, html_text;
  auto* csv_opt = app.add_option("--csv", csv_text, "batch: write one CSV row per item to PATH (docs/report.md)")
                      ->type_name("PATH");
  auto* html_opt = app.add_option("--html", html_text,
                                  "batch: write a self-contained HTML report to PATH (summary, verdict counts, per item "
                                  "each statistic's rank among its permutations and a histogram of the values)")
                       ->type_name("PATH");
  std::string shard_text;
  auto* shard_opt = app.add_option("--shard", shard_text,
                                   "assess only share K (0 to N-1) of N of the items (files x blocks), balanced by "
                                   "samples, for job arrays (Slurm: --shard $SLURM_ARRAY_TASK_ID/N); join the shares' "
                                   "JSONL files with 'ea_iid merge'")
                       ->type_name("K/N");
  app.add_flag("--keep-short", o.keep_short, "with --blocks: also assess the last block when it is shorter");
  auto* jsonl_opt = app.add_option("--jsonl", jsonl, "write one JSON object per assessment, one per line ('-': stdout)")
                        ->type_name("PATH");
  app.add_flag("--append", o.jsonl_append, "with --jsonl: add lines to an existing file (without it a non-empty file is refused)");
  app.add_flag("--force", o.jsonl_force, "with --jsonl: replace the contents of an existing file");
  app.add_flag("--resume", o.resume,
               "with --jsonl (and -o DIR/): keep the items an earlier run of the same command completed (same file, "
               "block, samples' SHA-256, seed and result-changing options), assess only the rest and append them; a "
               "cut-off last line is dropped and redone; without --seed the earlier run's seed is reused");
  app.add_flag("--allow-stream", st.allow_stream,
               "also read FIFOs and character devices (to their end, or to the end of -l INDEX,COUNT); "
               "without it they are refused");
  std::string restart_text, cutoff_text = "exact", simulations_text;
  auto* restart_opt = app.add_option("--restart", restart_text,
                                     "restart tests (SP 800-90B 3.1.4) of each FILE, a 1000 x 1000 row data set (row i "
                                     "= restart i), for the entropy claim H_I: sanity check, IID tests of rows and of "
                                     "columns, validation min(H_r, H_c) >= H_I/2")
                          ->type_name("H_I");
  auto* cutoff_opt = app.add_option("--restart-cutoff", cutoff_text,
                                    "how X_cutoff is found: exact (default; the quantile of the largest count) or "
                                    "simulation (NIST's rule, seeded from --seed)")
                         ->check(CLI::IsMember({"exact", "simulation"}));
  auto* simulations_opt = app.add_option("--restart-simulations", simulations_text,
                                         "rounds of the cutoff simulation, 1000-1000000000 (default 5000000, NIST's -s)")
                              ->type_name("N");
  // --help in groups.
  const std::pair<const char*, std::vector<const char*>> groups[] = {
      {"Input", {"files", "--bits", "-l", "--allow-stream"}},
      {"Assessment", {"-i", "-c", "-a", "-t", "--iterations", "--all-tests", "--no-early-exit"}},
      {"Permutation engine",
       {"--seed", "--prng", "--list-prngs", "--device", "--gpu", "--round-size", "--gpu-tuning", "--threads",
        "--cpu-compression", "--verify"}},
      {"Output", {"-v", "-q", "--format", "-o", "--timing", "--log-level", "--exit-code", "--strict"}},
      {"Restart tests", {"--restart", "--restart-cutoff", "--restart-simulations"}},
      {"Batch", {"--blocks", "--keep-short", "--jobs", "--jsonl", "--append", "--force", "--resume", "--shard", "--csv", "--html"}},
  };
  for (CLI::Option* opt : app.get_options()) {
    for (const auto& [group, names] : groups) {
      for (const char* name : names) {
        if (opt->check_name(name)) opt->group(group);
      }
    }
  }
  app.footer(
      "Examples:\n"
      "  ea_iid -v --seed 1 samples.bin                   one file, bit width inferred\n"
      "  ea_iid samples.bin 4                             the reference's form: FILE BITS\n"
      "  ea_iid --strict -q -o result.json samples.bin    CI: exit 0 only for a compliant IID verdict\n"
      "  ea_iid --jsonl out.jsonl --bits 8 a.bin b.bin    several files, one JSON line each\n"
      "  ea_iid --blocks 1000000 --jsonl out.jsonl cap.bin  every block of a long capture\n"
      "  head -c 1000000 /dev/hwrng | ea_iid -            samples from standard input\n"
      "  ea_iid --restart 7.8 restarts.bin 8              restart tests of 1000 restarts x 1000 samples\n"
      "\n"
      "Exit status: 0 when the assessment completed (whatever the verdict; with --exit-code, 0 only when IID),\n"
      "1 with --exit-code when the data is not judged IID, 2 on errors (bad input, usage, device failure),\n"
      "130/143 when interrupted. With --strict: 0 compliant and IID, 1 not IID, 3 inconclusive, 4 not a\n"
      "compliant assessment (checked first), 2 errors.");
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
  // FILE FILE... BITS: the reference's form takes one file only.
  if (positionals.size() > 2) {
    const std::string& last = positionals.back();
    bool digits = !last.empty() && last.size() <= 3;
    for (char ch : last) digits = digits && ch >= '0' && ch <= '9';
    struct stat st {};
    if (digits && ::stat(last.c_str(), &st) != 0) {
      throw Error(ErrorKind::Usage, "'" + last + "' is not a file; with several files give the bit width as --bits " +
                                        last);
    }
  }
  o.files = positionals;
  o.file = positionals.front();
  if (bits_opt->count()) {
    if (!bits_text.empty()) throw Error(ErrorKind::Usage, "give the bit width either as --bits or after the file, not both");
    bits_text = std::to_string(parse_unsigned(bits_all_text, "--bits", 1, 8));
  }
  if (seed_opt->count()) o.seed = parse_unsigned(seed_text, "--seed", 0, UINT64_MAX, true);
  if (threads_opt->count()) o.threads = static_cast<int>(parse_unsigned(threads_text, "--threads", 1, 4096));
  if (gpu_opt->count()) st.gpus = parse_gpu_list(gpu_text, "--gpu");
  if (tuning_opt->count()) parse_gpu_tuning(tuning_text, st.tuning);
  if (round_opt->count()) {
    st.tuning.round_size = static_cast<uint32_t>(parse_unsigned(round_text, "--round-size", 1, 1u << 20));
  }
  if (iterations_opt->count()) {
    st.iterations = static_cast<uint32_t>(parse_unsigned(iterations_text, "--iterations", 1, 100000000));
  }
  st.early_exit = !no_early_exit;
  o.format = format == "nist" ? TextFormat::Nist : TextFormat::Text;
  st.gpu_compression = !cpu_compression;
  if (jobs_opt->count()) o.jobs = static_cast<int>(parse_unsigned(jobs_text, "--jobs", 1, 64));
  if (blocks_opt->count()) o.blocks = parse_unsigned(blocks_text, "--blocks", 1, kMaxSamples);
  if (jsonl_opt->count()) o.jsonl_path = jsonl;
  if (csv_opt->count()) o.csv_path = csv_text;
  if (html_opt->count()) o.html_path = html_text;
  if (shard_opt->count()) {
    const size_t slash = shard_text.find('/');
    if (slash == std::string::npos) throw Error(ErrorKind::Usage, "--shard: '" + shard_text + "' is not K/N");
    const uint64_t n = parse_unsigned(shard_text.substr(slash + 1), "--shard N", 1, 1000000);
    const uint64_t k = parse_unsigned(shard_text.substr(0, slash), "--shard K", 0, n - 1);
    o.shard = std::make_pair(k, n);
  }
  if ((o.jsonl_append || o.jsonl_force) && !o.jsonl_path) {
    throw Error(ErrorKind::Usage, std::string(o.jsonl_append ? "--append" : "--force") + " applies to --jsonl, which is not given");
  }
  if (o.jsonl_append && o.jsonl_force) throw Error(ErrorKind::Usage, "--append and --force exclude each other");
  if (o.blocks && l->count()) {
    throw Error(ErrorKind::Usage, "-l and --blocks exclude each other: -l assesses one part of a file, --blocks every part");
  }
  if (flag_i && flag_c) throw Error(ErrorKind::Usage, "-i and -c exclude each other");
  if (flag_a && flag_t) throw Error(ErrorKind::Usage, "-a and -t exclude each other");
  st.initial_entropy = !flag_c;
  st.truncate_bitstring = flag_t;
  if (l->count()) o.subset = parse_subset(subset);
  if (out->count()) o.json_path = json;
  if (auto id = parse_prng(prng)) {
    st.prng = *id;
  } else {
    throw Error(ErrorKind::Usage, "unknown --prng '" + prng + "'; choose one of: " + prng_names());
  }
  st.device = device == "cpu" ? DeviceChoice::Cpu : device == "gpu" ? DeviceChoice::Gpu : DeviceChoice::Auto;
  if (!bits_text.empty()) {
    bool digits = bits_text.size() <= 3;
    for (char ch : bits_text) digits = digits && ch >= '0' && ch <= '9';
    int b = digits ? std::stoi(bits_text) : -1;
    if (b < 1 || b > 8) {
      throw Error(ErrorKind::Usage, "bits per symbol must be between 1 and 8, got '" + bits_text + "'");
    }
    st.width = b;
  }
  if (restart_opt->count()) {
    RestartSpec spec;
    char* end = nullptr;
    spec.h_i = std::strtod(restart_text.c_str(), &end);
    if (restart_text.empty() || !end || *end != '\0' || !(spec.h_i > 0) || spec.h_i > 8) {
      throw Error(ErrorKind::Usage, "--restart: '" + restart_text + "': H_I must be a number greater than 0 and at most 8");
    }
    spec.cutoff = cutoff_text == "simulation" ? CutoffMethod::Simulation : CutoffMethod::Exact;
    if (simulations_opt->count()) {
      spec.simulations = parse_unsigned(simulations_text, "--restart-simulations", 1000, 1000000000);
      if (spec.cutoff != CutoffMethod::Simulation) {
        throw Error(ErrorKind::Usage, "--restart-simulations applies to --restart-cutoff simulation");
      }
    }
    if (o.subset || o.blocks) {
      throw Error(ErrorKind::Usage, std::string("--restart reads a whole file of 1,000,000 samples; ") +
                                        (o.subset ? "-l" : "--blocks") + " does not apply");
    }
    if (flag_c || flag_t) throw Error(ErrorKind::Usage, "--restart: -c and -t do not apply (the restart tests use the MCV estimate)");
    if (o.resume) throw Error(ErrorKind::Usage, "--restart: --resume does not apply to restart tests yet");
    st.restart = spec;
  } else if (cutoff_opt->count() || simulations_opt->count()) {
    throw Error(ErrorKind::Usage, std::string(cutoff_opt->count() ? "--restart-cutoff" : "--restart-simulations") +
                                      " applies to --restart H_I, which is not given");
  }
  // After every option is known (-o is read above).
  if (o.resume && !o.jsonl_path && !(o.json_path && o.batch())) {
    throw Error(ErrorKind::Usage, "--resume needs --jsonl PATH or -o DIR/ (the results it continues)");
  }
  if (o.resume && (o.jsonl_append || o.jsonl_force)) {
    throw Error(ErrorKind::Usage, "--resume appends to the --jsonl file itself; --append and --force do not apply");
  }
  return ParseStatus::Run;
}

}  // namespace ea::cli
