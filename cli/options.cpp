#include "options.hpp"

#include "logging.hpp"

#include <CLI/CLI.hpp>

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "common/error.hpp"
#include "common/numbers.hpp"
#include "io/near_name.hpp"
#include "gpu_backends.hpp"
#include "gpu_tuning.hpp"
#include "help.hpp"
#include "links.hpp"
#include "logging.hpp"
#include "option_groups.hpp"
#include "output.hpp"
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
  return parse_integer(text, option, min, max, hex ? IntegerForm::DecimalOrHex : IntegerForm::Decimal);
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
    ids.push_back(static_cast<int>(parse_unsigned(one, option, kGpuIndexRange.min, kGpuIndexRange.max)));
    if (ids.size() > kMaxGpuEntries) {
      throw Error(ErrorKind::Usage, option + ": at most " + std::to_string(kMaxGpuEntries) + " GPUs");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ids;
}

void print_prng_list(std::ostream& out) {
  out << "Shuffling generators (--prng NAME); docs/prngs.md has the definitions and the calibration.\n";
  // (each field's text wrapped at kHelpWidth columns, under its value column)
  const auto field = [&out](const char* label, const std::string& text) {
    std::string head = std::string("  ") + label + ":";
    head.resize(15, ' ');
    out << head << wrap_text(text, 15, kHelpWidth, 15) << "\n";
  };
  for (const PrngInfo& p : prng_table()) {
    out << "\n" << p.name << (p.id == PrngId::Philox ? " (default)" : "") << ": " << p.full_name << "\n";
    field("family", p.family);
    field("state", p.state);
    field("period", p.period);
    field("streams", p.streams);
    field("draws", p.draw);
    field("compliance", p.compliance ? "yes, may be used for an SP 800-90B verdict" : std::string("no: ") + p.caveat);
    field("uniformity", *p.uniformity_flag ? p.uniformity_flag
                                           : "passes: every order of 4-8 elements even in 10^7 shuffles, samples' "
                                             "places even in rows of 10^6 (ea_calibrate --uniformity)");
    field("calibration", std::string(p.calibration_flagged ? "FLAGGED: " : "") +
                             (*p.calibration ? p.calibration : "not calibrated yet"));
  }
}

namespace {

// The text of ea_iid's options before they are checked (the engine's are in EngineOptionText).
struct Flags {
  bool i = false, c = false, a = false, t = false, no_early_exit = false, non_iid = false;
  std::string track;
  std::string format = "text", subset, bits, bits_all, blocks, jobs, shard, jsonl;
  OutputOptionText outputs;  // -o, --csv, --html, --force, -q (option_groups.hpp)
  SampleOptionText sample;   // --sample-format, --select-bits, --bin, --write-symbols
  std::string restart, cutoff = "exact", simulations;
  std::vector<std::string> positionals;
  EngineOptionText engine;
  CLI::Option *l = nullptr, *bits_opt = nullptr, *blocks_opt = nullptr, *jobs_opt = nullptr, *shard_opt = nullptr,
              *jsonl_opt = nullptr,
              *restart_opt = nullptr, *cutoff_opt = nullptr, *simulations_opt = nullptr, *track_opt = nullptr;
};

void add_input_options(CLI::App& app, Flags& f, Options& o) {
  f.l = app.add_option("-l", f.subset, "assess only samples [INDEX*COUNT, INDEX*COUNT+COUNT)")->type_name("INDEX,COUNT");
  app.add_option("files", f.positionals,
                 "sample files (one sample per byte; '-' reads standard input); the reference's form FILE "
                 "[bits_per_symbol] also works")
      ->required()
      ->type_name("FILE...");
  f.bits_opt = app.add_option("--bits", f.bits_all, "bits per sample (1-8) for every file (default: inferred)")->type_name("N");
  app.add_flag("--allow-stream", o.settings.allow_stream,
               "also read FIFOs and character devices (to their end, or to the end of -l INDEX,COUNT); "
               "without it they are refused");
  add_sample_options(app, f.sample, true);
}

void add_assessment_options(CLI::App& app, Flags& f, Options& o) {
  app.add_flag("-i", f.i, "initial entropy estimate H_I (default)");
  app.add_flag("-c", f.c, "conditioned sequential dataset estimate h' (H_bitstring only)");
  app.add_flag("-a", f.a, "H_bitstring from all bits (default)");
  app.add_flag("-t", f.t, "H_bitstring from the first 1,000,000 bits only");
  app.add_flag("--non-iid", f.non_iid,
               "the non-IID track (SP 800-90B 6.3): the ten min-entropy estimators, as NIST ea_non_iid; no IID tests");
  f.track_opt = app.add_option("--track", f.track,
                 "auto (default): the IID tests, then the non-IID estimates when the verdict is not IID; iid: the IID "
                 "tests and the MCV estimate alone; non-iid: as --non-iid. With --restart, the claim: non-IID (auto, "
                 "non-iid) or IID (iid)")
      ->type_name("auto|iid|non-iid");
  app.add_flag("--all-tests", o.settings.all_tests, "run the compression test even when another test already failed");
  app.add_flag("--no-early-exit", f.no_early_exit, "run all permutations for every test (full counts)");
  app.add_flag("--until-decided", o.settings.until_decided,
               "skip the permutation tests when chi-square or LRS already failed: the verdict (not IID) is the same, "
               "their counters are not computed");
}

void add_output_options(CLI::App& app, Flags& f, Options& o) {
  app.add_flag("-v", o.verbose, "more output; -v -v -v prints every value as the reference's highest verbosity");
  app.add_option("--format", f.format,
                 "text layout: text (default) or nist: NIST's own text at NIST's level, one for one (none: its "
                 "default, -v: its -v, -v -v: its -v -v, -v -v -v: its -v -v -v, -q: its -q), line for line "
                 "but for the permutation counters and progress lines")
      ->check(CLI::IsMember({"text", "nist"}))
      ->type_name("text|nist");
  app.add_flag("--nist-compat", o.nist_compat, "")->group("");  // set when run as ea_non_iid
  add_output_group(app, f.outputs, kOutputJson | kOutputQuiet,
                   {"write the result as JSON to FILE ('-': standard output); a batch's FILE is one document "
                         "(type Batch: the verdicts counted, the rejections against chance and every row); a name "
                         "ending in '/' (or an existing folder) is a folder: DIR/NAME.json per assessment", "", "", "",
                    "quiet: nothing on stdout (errors still go to stderr; with --format nist NIST's -q)"});
  f.outputs.json_opt->type_name("FILE.json|DIR/");
  app.add_flag("--list-prngs", "list the shuffling generators with their properties, then exit");
  app.add_flag("--exit-code", o.exit_code, "exit 1 when the data is not judged IID (default: 0 when the run completed)");
  app.add_flag("--strict", o.strict,
               "for CI: exit 0 only for an IID verdict of a compliant assessment; 1 not IID, 3 inconclusive, 4 when "
               "a result cannot be an SP 800-90B assessment (--iterations other than 10000, fewer than 1000000 "
               "samples, a generator not for compliance, chi-square not evaluable)");
  app.add_flag("--timing", o.timing, "print per-stage times");
  app.add_option("--log-level", o.log_level,
                 "diagnostics on stderr: trace, debug, info (default), warning, error, critical, off")
      ->type_name("LEVEL");
}

void add_batch_options(CLI::App& app, Flags& f, Options& o) {
  f.blocks_opt = app.add_option("--blocks", f.blocks, "assess every consecutive block of COUNT samples of each file")
                     ->type_name("COUNT");
  f.jobs_opt = app.add_option("--jobs", f.jobs,
                              "batch: assessments in flight at once, 1-64, each with its own CUDA stream and "
                              "buffers (default: 8 per listed GPU with a GPU, else 1)")
                   ->type_name("K");
  add_output_group(app, f.outputs, kOutputCsv | kOutputHtml | kOutputForce,
                   {"", "batch: write one CSV row per item to PATH (docs/report.md)",
                    "batch: write a self-contained HTML report to PATH (summary, verdict counts, per item "
                              "each statistic's rank among its permutations and a histogram of the values)",
                    "with --jsonl: replace the contents of an existing file; with -o, --csv, --html: replace an existing "
                    "file that is not an ea_iid result or report",
                    ""});
  f.shard_opt = app.add_option("--shard", f.shard,
                               "assess only share K (0 to N-1) of N of the items (files x blocks), balanced by "
                               "samples, for job arrays (Slurm: --shard $SLURM_ARRAY_TASK_ID/N); join the shares' "
                               "JSONL files with 'ea_iid merge'")
                    ->type_name("K/N");
  app.add_flag("--keep-short", o.keep_short, "with --blocks: also assess the last block when it is shorter");
  f.jsonl_opt = app.add_option("--jsonl", f.jsonl, "write one JSON object per assessment, one per line ('-': stdout)")
                    ->type_name("PATH");
  app.add_flag("--append", o.jsonl_append, "with --jsonl: add lines to an existing file (without it a non-empty file is refused)");

  app.add_flag("--resume", o.resume,
               "with --jsonl (and -o DIR/): keep the items an earlier run of the same command completed (same file, "
               "block, samples' SHA-256, seed and result-changing options), assess only the rest and append them; a "
               "cut-off last line is dropped and redone; without --seed the earlier run's seed is reused");
}

void add_restart_options(CLI::App& app, Flags& f) {
  f.restart_opt = app.add_option("--restart", f.restart,
                                 "restart tests (SP 800-90B 3.1.4) of each FILE, a 1000 x 1000 row data set (row i "
                                 "= restart i), for the entropy claim H_I: sanity check, the non-IID estimates of rows "
                                 "and of columns (NIST ea_restart's default -n; --track iid: the IID tests, NIST's -i), "
                                 "validation min(H_r, H_c) >= H_I/2 (also: ea_iid restart H_I FILE...)")
                      ->type_name("H_I");
  f.cutoff_opt = app.add_option("--restart-cutoff", f.cutoff,
                                "how X_cutoff is found: exact (default; the quantile of the largest count) or "
                                "simulation (NIST's rule, seeded from --seed)")
                     ->check(CLI::IsMember({"exact", "simulation"}))
                     ->type_name("exact|simulation");
  f.simulations_opt = app.add_option("--restart-simulations", f.simulations,
                                     "rounds of the cutoff simulation, 1000-1000000000 (default 5000000, NIST's -s)")
                          ->type_name("N");
}

// Each option's one line in --help.
std::map<std::string, std::string> brief_lines() {
  return {
      {"files", "sample files, a sample per byte ('-': standard input); or NIST's FILE BITS"},
      {"--bits", "bits per sample, 1-8, of every file (default: inferred)"},
      {"-l", "assess only samples [INDEX*COUNT, INDEX*COUNT+COUNT)"},
      {"--allow-stream", "also read FIFOs and character devices (to their end, or -l's)"},
      {"--sample-format", "u8 (default), u16le, u16be, u32le, u32be or text (an integer a line)"},
      {"--select-bits", "symbols of the bits of MASK, or auto[:B]: the mask that keeps the most"},
      {"--bin", "symbols by order-preserving equal-count bins, 2^B of them"},
      {"--write-symbols", "also write the symbols assessed, one byte each"},
      {"--non-iid", "the non-IID track (SP 800-90B 6.3), as NIST ea_non_iid"},
      {"--track", "auto (default): the IID tests, then non-IID estimates unless IID"},
      {"--iterations", "permutations (default 10000; any other count: an exploratory run)"},
      {"--all-tests", "run the compression test even after another test failed"},
      {"--until-decided", "no permutation tests once chi-square or LRS failed (verdict decided)"},
      {"--restart", "restart tests (3.1.4) of 1000 x 1000 samples for the entropy claim H_I"},
      {"--restart-cutoff", "X_cutoff: exact (default) or NIST's simulation"},
      {"--restart-simulations", "rounds of the cutoff simulation (default 5000000; NIST's -s)"},
      {"-v", "more output; -v -v -v: every value, as NIST's highest level"},
      {"--format", "text (default) or nist: NIST ea_iid's text at its level (-q, -v, ...)"},
      {"-o", "JSON: the result (a batch: one document; -o DIR/: a file per item)"},
      {"--exit-code", "exit 1 when the data is not judged IID"},
      {"--strict", "for CI: exit 0 only for an IID verdict of a compliant assessment"},
      {"--log-level", "diagnostics on stderr: trace, debug, info (default), ..., off"},
      {"--jobs", "assessments in flight at once, 1-64 (default: 8 per GPU, else 1)"},
      {"--csv", "one CSV row per item"},
      {"--html", "a self-contained HTML report of the batch"},
      {"--shard", "assess only share K of N of the items (job arrays; ea_iid merge)"},
      {"--append", "with --jsonl: add lines to an existing file"},
      {"--force", "replace an existing --jsonl file, or an -o/--csv/--html file not ours"},
      {"--resume", "with --jsonl or -o DIR/: assess only what an earlier run left"},
      {"-q", "quiet: nothing on stdout (errors on stderr; --format nist: NIST's -q)"},
      {"--blocks", "assess every consecutive block of COUNT samples of each file"},
      {"--keep-short", "with --blocks: also assess a shorter last block"},
      {"--jsonl", "one JSON line per assessment ('-': standard output)"},
      {"--seed", "64-bit seed of the shuffles (default: from the OS, printed at -v)"},
      {"--prng", "generator of the shuffles (default philox; see --list-prngs)"},
      {"--shuffle", "bucket (default) or fisher-yates: SP 800-90B 5.1's literal shuffle"},
      {"--device", "where the permutation tests run (auto: the GPU if usable)"},
      {"--threads", "CPU threads (default: all cores; a batch divides them among --jobs)"},
  };
}

// --help (about 80 lines: each option's one line below, GPU tuning as a pointer) and
// --help-all (every description in full, the --gpu-tuning keys one per line), in the order a
// CPU user needs them: input and assessment, outputs, batch, engine, GPU tuning last.
HelpText describe() {
  HelpText h;
  h.heading =
      "ea_iid: SP 800-90B IID track (section 5) with the most common value estimate, number for number\n"
      "with NIST ea_iid 1.1.7; permutation tests on the GPU or the CPU.\n"
      "Usage: ea_iid [assess] [OPTIONS] FILE... [bits_per_symbol]   or   ea_iid SUBCOMMAND ... (below)\n"
      "--help: this summary; --help-all: every option in full; --version; --gpu-tuning help: its keys\n";
  h.groups = {
      {"Input", {"files", "--bits", "-l", "--allow-stream"}, ""},
      {"Sample format",
       {"--sample-format", "--select-bits", "--bin", "--write-symbols"},
       "--sample-format u16le|...|text, --select-bits MASK|auto, --bin B, --write-symbols F (--help-all)"},
      {"Assessment", {"-i", "-c", "-a", "-t", "--non-iid", "--track", "--iterations", "--all-tests", "--no-early-exit",
                      "--until-decided"}, ""},
      {"Restart tests",
       {"--restart", "--restart-cutoff", "--restart-simulations"},
       "--restart H_I: restart tests (3.1.4) of the claim H_I; --restart-cutoff, ... (--help-all)"},
      {"Output", {"-v", "-q", "--format", "-o", "--exit-code", "--strict", "--timing", "--log-level"}, ""},
      {"Batch", {"--blocks", "--keep-short", "--jobs", "--jsonl", "--append", "--force", "--resume", "--shard", "--csv", "--html"}, ""},
      {"Permutation engine", {"--seed", "--prng", "--list-prngs", "--shuffle", "--device", "--threads"}, ""},
      {"Engine tuning",
       {"--gpu", "--round-size", "--gpu-tuning", "--cpu-compression", "--verify"},
       "--gpu, --round-size, --gpu-tuning, --cpu-compression, --verify (--help-all; --gpu-tuning help)"},
  };
  h.brief = brief_lines();
  h.more["--gpu-tuning"] = gpu_tuning_key_lines();
  const std::string subcommands =
      "\nSubcommands (the first argument; without one: assess):\n"
      "  restart H_I [options] FILE...        restart tests, as --restart H_I\n"
      "  source NAME SAMPLES [options]        one noise source through SP 800-90B 3.1: JSON and HTML\n"
      "  conditioning KIND N_IN N_OUT NW H_IN [H']  output entropy of a conditioning component (3.1.5)\n"
      "  health-tests H [options] [FILE...]  the RCT and APT cutoffs for H (4.4), run over FILEs\n"
      "  esv DIR --manifest M | esv check DIR an ESV submission package | its findings and rehearsal\n"
      "  merge OUT IN... | calibrate          join --shard shares' JSONL | a generator's false rejections\n"
      "NIST's names (links here: ea_non_iid, ea_restart, ea_conditioning) take NIST's command lines.\n";
  const std::string exit_status =
      "\nExit status: 0 completed, whatever the verdict; 1 not IID (with --exit-code or --strict); 2 an\n"
      "error (usage, input, output, device); with --strict 3 inconclusive, 4 not a compliant assessment\n"
      "(checked first); 5 a degenerate source (one symbol only, errorKind \"degenerate\"), whatever --strict\n"
      "says; 130/143 interrupted. A batch: 2 if an item had another error, else 5 if any was degenerate.\n";
  h.footer_brief = subcommands +
                   "\nExamples:\n"
                   "  ea_iid -v --seed 1 samples.bin 8                one file of 8-bit samples\n"
                   "  ea_iid --strict -q -o result.json samples.bin   CI: exit 0 only for a compliant IID verdict\n" +
                   exit_status;
  h.footer_all =
      subcommands +
      "\nExamples:\n"
      "  ea_iid -v --seed 1 samples.bin                   one file, bit width inferred\n"
      "  ea_iid samples.bin 4                             the reference's form: FILE BITS\n"
      "  ea_iid --strict -q -o result.json samples.bin    CI: exit 0 only for a compliant IID verdict\n"
      "  ea_iid -o results/ samples.bin                   writes results/samples.bin.json\n"
      "  ea_iid --jsonl out.jsonl --bits 8 a.bin b.bin    several files, one JSON line each\n"
      "  ea_iid --blocks 1000000 --jsonl out.jsonl cap.bin  every block of a long capture\n"
      "  head -c 1000000 /dev/hwrng | ea_iid -            samples from standard input\n"
      "  ea_iid --format nist -v -v samples.bin           NIST ea_iid -v -v's text\n"
      "  ea_iid --restart 7.8 restarts.bin 8              restart tests of 1000 restarts x 1000 samples\n"
      "  ea_iid --restart 7.8 --track iid restarts.bin 8  the same for an IID claim (NIST ea_restart -i)\n"
      "  ea_iid source osc1 s.bin --restart-data r.bin --html osc1.html\n"
      "                                                   one source through SP 800-90B 3.1\n" +
      exit_status +
      "With --strict: 0 only for an IID verdict of a compliant assessment; 4 when a result cannot be an\n"
      "SP 800-90B assessment (--iterations other than 10000, fewer than 1000000 samples, a generator not\n"
      "for compliance, chi-square not evaluable) or nothing was assessed.\n";
  return h;
}

// NIST's flags that this parser does not take (ea_iid's and ea_non_iid's are all taken): what
// they are here; and the long spellings of -v and -q, which NIST has none of either.
const std::vector<NistHint>& nist_hints() {
  static const std::vector<NistHint> hints = {
      {"--verbose", "--verbose: unknown option; here, as in NIST's tools: -v (more: -v -v, -v -v -v)"},
      {"--quiet", "--quiet: unknown option; here, as in NIST's tools: -q"},
      {"-s", "-s is NIST ea_restart's simulation count; here: --restart H_I --restart-cutoff simulation "
             "--restart-simulations N"},
      {"-n", "-n is NIST ea_restart's non-IID claim (here: --restart H_I, a non-IID claim by default) and "
             "ea_conditioning's non-vetted component (here: ea_iid conditioning non-vetted ...)"},
      // (and ea_calibrate's own options, typed after ea_iid without its subcommand)
      {"--uniformity", "--uniformity is an option of ea_iid calibrate (ea_calibrate): ea_iid calibrate --uniformity"},
      {"--datasets", "--datasets is an option of ea_iid calibrate (ea_calibrate): ea_iid calibrate --datasets N"},
  };
  return hints;
}

bool looks_like_bits(const std::string& s) {
  bool digits = !s.empty() && s.size() <= 3;
  for (char ch : s) digits = digits && ch >= '0' && ch <= '9';
  struct stat st {};
  return digits && ::stat(s.c_str(), &st) != 0;  // a number that is not a file
}

// A number such as 7.8 that is not a file (an H_I).
bool looks_like_h_i(const std::string& s) {
  char* end = nullptr;
  const double v = s.empty() ? 0 : std::strtod(s.c_str(), &end);
  struct stat st {};
  return end && *end == '\0' && v > 0 && v <= 8 && s.find_first_not_of("0123456789.") == std::string::npos &&
         ::stat(s.c_str(), &st) != 0;
}

// NIST's links (ea_non_iid, ea_restart) take one FILE and its optional bits_per_symbol, as
// NIST's programs do: anything more is refused before any work, never assessed as files.
void check_nist_positionals(const std::vector<std::string>& p) {
  if (p.size() == 1 || (p.size() == 2 && looks_like_bits(p[1]))) return;
  const NistLink* link = find_link(program_name());
  const std::string usage = link ? link_usage(*link) : "";
  // FILE BITS EXTRA...: BITS is a width, the rest is extra.
  const size_t first = p.size() > 2 && looks_like_bits(p[1]) ? 2 : 1;
  std::string extra;
  for (size_t k = first; k < p.size(); ++k) extra += (extra.empty() ? "'" : " '") + p[k] + "'";
  throw Error(ErrorKind::Usage, program_name() + " assesses one FILE; " + extra + (p.size() - first == 1 ? " is" : " are") +
                                    " neither FILE nor bits_per_symbol (1-8)\n" + usage);
}

// The names of a batch (FILE FILE..., after FILE BITS was taken) that name nothing are
// refused before any work, each with what it likely was: a bit width, NIST ea_restart's
// H_I, a typo of a file beside it. A name that exists but fails to load (a folder, an empty
// or unreadable file) stays its item's error row; '-' is standard input.
void check_positionals_exist(const std::vector<std::string>& p) {
  std::string message;
  size_t missing = 0;
  for (const std::string& name : p) {
    struct stat st {};
    if (name == "-" || ::stat(name.c_str(), &st) == 0 || (errno != ENOENT && errno != ENOTDIR)) continue;
    ++missing;
    std::string what = "'" + name + "' is not a file";
    if (looks_like_bits(name)) {
      what += "; with several files give the bit width as --bits " + name;
    } else if (looks_like_h_i(name)) {
      what += "; an entropy claim H_I is given as --restart " + name;
    } else if (const std::string near = near_file_name(name); !near.empty()) {
      what += "; did you mean '" + near + "'?";
    } else {
      what += " (no such file or directory)";
    }
    message += (message.empty() ? "" : "\n") + what;
  }
  if (missing == 0) return;
  throw Error(ErrorKind::Usage, message + "\nnothing was assessed: " + std::to_string(missing) + " of the " +
                                    std::to_string(p.size()) + " names given name no file");
}

}  // namespace

std::string subset_shortened(const SubsetSpec& s, const std::string& path, uint64_t size, const char* verb) {
  const std::string range = "-l " + std::to_string(s.index) + "," + std::to_string(s.count);
  const std::string whole = size < s.count ? "no whole range of " + std::to_string(s.count) + " fits"
                                           : "the last whole range of " + std::to_string(s.count) + ": -l " +
                                                 std::to_string(size / s.count - 1) + "," + std::to_string(s.count);
  return range + ": " + path + " " + verb + " " + std::to_string(size) + " samples: samples " +
         std::to_string(s.index * s.count) + " to " + std::to_string(size - 1) + " are assessed, " +
         std::to_string(size - s.index * s.count) + " of the " + std::to_string(s.count) + " asked for (" + whole + ")";
}

namespace {

// -l INDEX,COUNT against a regular file's size, known before any work: a range that starts
// past the end is refused; one that starts inside and runs past the end is assessed as far as
// the file goes, as NIST's tools do (its golden output of normal.bin -l 2,400000), and said
// so on standard error (never silently). Streams and missing files: the loader.
void check_subset_fits(const SubsetSpec& s, const std::string& path) {
  struct stat st {};
  if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  const uint64_t size = static_cast<uint64_t>(st.st_size);  // one sample per byte
  const bool overflow = (s.index > 0 && s.count > UINT64_MAX / s.index) || s.count > UINT64_MAX - s.index * s.count;
  if (!overflow && s.index * s.count + s.count <= size) return;
  const std::string range = "-l " + std::to_string(s.index) + "," + std::to_string(s.count);
  if (!overflow && s.index * s.count < size) {
    logger().warn("{}", subset_shortened(s, path, size, "holds"));
    return;
  }
  std::string why = overflow ? "its end overflows 64 bits"
                             : "samples " + std::to_string(s.index * s.count) + " to " +
                                   std::to_string(s.index * s.count + s.count - 1) + " lie past its end";
  why += "; " + path + " holds " + std::to_string(size) + " samples";
  why += size < s.count ? ", fewer than " + std::to_string(s.count)
                        : " (the last whole range of " + std::to_string(s.count) + ": -l " + std::to_string(size / s.count - 1) +
                              "," + std::to_string(s.count) + ")";
  throw Error(ErrorKind::Usage, range + ": " + why);
}

// The files, and the reference's form FILE BITS (BITS a number and not a file).
void apply_input(Flags& f, Options& o) {
  const auto& p = f.positionals;
  if (o.nist_compat) check_nist_positionals(p);
  // FILE BITS H_I: NIST ea_restart's command line given to ea_iid.
  if (p.size() == 3 && looks_like_bits(p[1]) && looks_like_h_i(p[2])) {
    throw Error(ErrorKind::Usage, "'" + p[0] + " " + p[1] + " " + p[2] + "' is NIST ea_restart's FILE BITS H_I; here: " +
                                      "--restart " + p[2] + " " + p[0] + " " + p[1] + " (or ea_iid restart " + p[2] + " " +
                                      p[0] + " " + p[1] + ")");
  }
  if (f.positionals.size() == 2 && looks_like_bits(f.positionals[1])) {
    f.bits = f.positionals[1];
    f.positionals.pop_back();
  }
  // Several names: each must name something before any work (a misplaced width, a typo).
  if (f.positionals.size() > 1) check_positionals_exist(f.positionals);
  o.files = f.positionals;
  o.file = f.positionals.front();
  if (f.bits_opt->count()) {
    if (!f.bits.empty()) throw Error(ErrorKind::Usage, "give the bit width either as --bits or after the file, not both");
    f.bits = std::to_string(apply_bits_option(f.bits_all));
  }
  if (!f.bits.empty()) {
    bool digits = f.bits.size() <= 3;
    for (char ch : f.bits) digits = digits && ch >= '0' && ch <= '9';
    const int b = digits ? std::stoi(f.bits) : -1;
    if (b < static_cast<int>(kBitsRange.min) || b > static_cast<int>(kBitsRange.max)) {
      throw Error(ErrorKind::Usage, "bits per symbol must be between 1 and 8, got '" + f.bits + "'" +
                                        (b > 8 && b <= 32 ? wide_bits_hint(b) : std::string()));
    }
    o.settings.width = b;
  }
  if (f.l->count()) {
    o.subset = parse_subset(f.subset);
    for (const auto& file : o.files) check_subset_fits(*o.subset, file);
  }
}

void apply_batch(const Flags& f, Options& o) {
  if (f.jobs_opt->count()) o.jobs = static_cast<int>(parse_unsigned(f.jobs, "--jobs", 1, 64));
  if (f.blocks_opt->count()) o.blocks = parse_unsigned(f.blocks, "--blocks", 1, kMaxSamples);
  if (f.jsonl_opt->count()) o.jsonl_path = f.jsonl;
  if (f.shard_opt->count()) {
    const size_t slash = f.shard.find('/');
    if (slash == std::string::npos) throw Error(ErrorKind::Usage, "--shard: '" + f.shard + "' is not K/N");
    const uint64_t n = parse_unsigned(f.shard.substr(slash + 1), "--shard N", 1, 1000000);
    const uint64_t k = parse_unsigned(f.shard.substr(0, slash), "--shard K", 0, n - 1);
    o.shard = std::make_pair(k, n);
  }
  if (o.jsonl_append && !o.jsonl_path) throw Error(ErrorKind::Usage, "--append applies to --jsonl, which is not given");
  if (o.jsonl_append && o.jsonl_force) throw Error(ErrorKind::Usage, "--append and --force exclude each other");
  if (o.blocks && f.l->count()) {
    throw Error(ErrorKind::Usage, "-l and --blocks exclude each other: -l assesses one part of a file, --blocks every part");
  }
}

void apply_restart(const Flags& f, Options& o) {
  if (!f.restart_opt->count()) {
    if (f.cutoff_opt->count() || f.simulations_opt->count()) {
      throw Error(ErrorKind::Usage, std::string(f.cutoff_opt->count() ? "--restart-cutoff" : "--restart-simulations") +
                                        " applies to --restart H_I, which is not given");
    }
    return;
  }
  RestartSpec spec;
  spec.h_i = parse_real<double>(f.restart, program_name() == "ea_restart" ? "H_I" : "--restart");  // its range: check_settings
  spec.cutoff = f.cutoff == "simulation" ? CutoffMethod::Simulation : CutoffMethod::Exact;
  if (f.simulations_opt->count()) {
    spec.simulations = parse_unsigned(f.simulations, "--restart-simulations", 1000, 1000000000);
    if (spec.cutoff != CutoffMethod::Simulation) {
      throw Error(ErrorKind::Usage, "--restart-simulations applies to --restart-cutoff simulation");
    }
    if (spec.simulations < 5000000) {
      o.warnings.push_back("--restart-simulations " + std::to_string(spec.simulations) + ": fewer rounds than NIST's "
                           "least (5000000, which ea_restart -s requires): X_cutoff varies from seed to seed and a "
                           "sound source can fail the sanity check; the exact cutoff (the default) does not vary");
    }
  }
  if (o.subset || o.blocks) {
    throw Error(ErrorKind::Usage, std::string("--restart reads a whole file of 1,000,000 samples; ") +
                                      (o.subset ? "-l" : "--blocks") + " does not apply");
  }
  if (f.i) {  // NIST ea_restart's -i is the claim; ea_iid's the initial estimate, the default
    throw Error(ErrorKind::Usage, "--restart: -i is NIST ea_restart's IID claim; here: --track iid (ea_iid's -i, the "
                                  "initial entropy estimate, is the default and does not apply)");
  }
  if (o.resume) throw Error(ErrorKind::Usage, "--restart: --resume does not apply to restart tests yet");
  o.settings.restart = spec;
}

void apply_track(const Flags& f, Options& o) {
  // Given, it must be one of them: an empty value is refused, never taken as the default.
  if (f.track_opt->count()) o.settings.track = track_setting(f.track, cli_setting_names());
  if (f.non_iid && !f.track.empty() && f.track != "non-iid") {
    throw Error(ErrorKind::Usage, std::string(o.nist_compat ? "ea_non_iid runs the non-IID track: --track " + f.track +
                                                                  " does not apply"
                                                            : "--non-iid and --track " + f.track + " exclude each other"));
  }
  if (f.non_iid) o.settings.track = TrackChoice::NonIid;
}

// What the command line gave, for the rules (settings_rules.hpp).
SettingsGiven given_of(const Flags& f, const Options& o) {
  SettingsGiven g;
  g.track = f.non_iid || f.track_opt->count() > 0;
  g.bits = o.settings.width != 0;
  g.iterations = f.engine.iterations_opt->count() > 0;
  g.threads = f.engine.threads_opt->count() > 0;
  g.restart = f.restart_opt->count() > 0;
  g.prng = o.settings.prng != PrngId::Philox;
  g.shuffle = o.settings.shuffle != ShuffleChoice::Bucket;
  g.initial = f.i;
  g.conditioned = f.c;
  g.all_bits = f.a;
  g.truncate_bitstring = f.t;
  g.no_early_exit = f.no_early_exit;
  g.all_tests = o.settings.all_tests;
  g.until_decided = o.settings.until_decided;
  g.select_bits = f.sample.select_opt->count() > 0;
  g.bin = f.sample.bin_opt->count() > 0;
  g.gpus = f.engine.gpu_opt->count() > 0;
  g.round_size = f.engine.round_opt->count() > 0;
  g.tuning = f.engine.tuning_opt->count() > 0;
  return g;
}

// Checks every value and fills `o`; Settings is complete afterwards but for the seed and
// threads the run resolves once (cli/run.cpp resolve_settings).
void apply(Flags& f, Options& o) {
  const OutputFiles files = apply_output_group(f.outputs);
  o.json_path = files.json;
  o.csv_path = files.csv;
  o.html_path = files.html;
  o.jsonl_force = files.force;
  o.quiet = files.quiet;
  apply_input(f, o);
  const EngineChoice engine = apply_engine_options(f.engine, o.settings, Program::EaIid);
  o.seed = engine.seed;
  o.threads = engine.threads.value_or(0);
  o.settings.early_exit = !f.no_early_exit;
  o.format = f.format == "nist" ? TextFormat::Nist : TextFormat::Text;
  apply_batch(f, o);
  o.settings.initial_entropy = !f.c;
  o.settings.truncate_bitstring = f.t;
  if (o.jsonl_force && !o.jsonl_path && !o.json_path && !o.csv_path && !o.html_path && !f.sample.write_opt->count()) {
    throw Error(ErrorKind::Usage, "--force applies to --jsonl, -o, --csv, --html or --write-symbols, and none is given");
  }
  apply_restart(f, o);
  apply_track(f, o);
  SettingsGiven sample_given;
  apply_sample_options(f.sample, o.settings, sample_given);
  o.warnings.insert(o.warnings.end(), f.sample.warnings.begin(), f.sample.warnings.end());
  if (o.blocks && o.settings.sample_input.format == SampleFormat::Text) {
    throw Error(ErrorKind::Usage, "--blocks cuts files of fixed-size samples; a text capture's samples are lines: read a "
                                  "part with -l INDEX,COUNT, or convert it to u16le/u32le");
  }
  if (f.sample.write_opt->count()) {
    if (f.sample.write_symbols.empty()) throw Error(ErrorKind::Usage, "--write-symbols: the file name is empty");
    if (o.batch() || o.settings.restart) {
      throw Error(ErrorKind::Usage, std::string("--write-symbols writes the symbols of one assessed file; ") +
                                        (o.settings.restart ? "--restart" : "a batch") + " does not apply");
    }
    o.write_symbols = output_name(f.sample.write_symbols);
  }
  Settings checked = o.settings;  // the threads as given (main() resolves the default)
  if (engine.threads) checked.threads = *engine.threads;
  check_settings(checked, given_of(f, o), cli_setting_names(f.non_iid));
  // After every option is known (-o is read above).
  if (o.resume && !o.jsonl_path && !(o.json_path && o.batch())) {
    throw Error(ErrorKind::Usage, "--resume needs --jsonl PATH or -o DIR/ (the results it continues)");
  }
  if (o.resume && (o.jsonl_append || o.jsonl_force)) {
    throw Error(ErrorKind::Usage, "--resume appends to the --jsonl file itself; --append and --force do not apply");
  }
}

const char kAppDescription[] =
    "ea_iid: SP 800-90B IID track (section 5) with the most common value estimate, number for number with NIST "
    "ea_iid 1.1.7; permutation tests on the GPU or the CPU.";

void add_all_options(CLI::App& app, Flags& f, Options& o) {
  add_input_options(app, f, o);
  add_assessment_options(app, f, o);
  add_engine_options(app, f.engine, Program::EaIid);
  // (the seed is logged at -v by this command alone: cli/run.cpp)
  f.engine.seed_opt->description("64-bit seed (decimal or 0x hex) of the shuffles (default: drawn from the OS, "
                                 "recorded in the JSON, printed at -v)");
  add_output_options(app, f, o);
  add_restart_options(app, f);
  add_batch_options(app, f, o);
  app.set_help_all_flag("--help-all", "every option in full, the --gpu-tuning keys included");
}

}  // namespace

bool option_takes_value(const std::string& name) {
  CLI::App app{kAppDescription, "ea_iid"};
  Flags f;
  Options o;
  add_all_options(app, f, o);
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->check_name(name)) return opt->get_type_size() != 0;
  }
  return false;
}

SubsetSpec parse_subset(const std::string& text) {
  auto digits = [](const std::string& s, uint64_t& out) {
    if (s.empty() || s.size() > 20) return false;
    uint64_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      const uint64_t d = static_cast<uint64_t>(c - '0');
      if (v > (UINT64_MAX - d) / 10) return false;
      v = v * 10 + d;
    }
    out = v;
    return true;
  };
  const auto comma = text.find(',');
  SubsetSpec s;
  if (comma == std::string::npos || !digits(text.substr(0, comma), s.index) || !digits(text.substr(comma + 1), s.count) ||
      s.count == 0) {
    throw Error(ErrorKind::Usage, "-l expects INDEX,COUNT (two non-negative integers, COUNT > 0), got '" + text + "'");
  }
  return s;
}

ParseStatus parse_options(int argc, char** argv, Options& o) {
  o.command_line = join_command_line(argc, argv);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0) {
      // Run as ea_non_iid or ea_restart: that name first.
      const std::string& name = program_name();
      std::cout << version_lines(name != "ea_iid" ? name + ": " : "");
      return ParseStatus::Exit0;
    }
    if (std::strcmp(argv[i], "--list-prngs") == 0) {
      print_prng_list(std::cout);
      return ParseStatus::Exit0;
    }
  }
  if (print_gpu_tuning_help(argc, argv)) return ParseStatus::Exit0;
  CLI::App app{kAppDescription, "ea_iid"};
  Flags f;
  add_all_options(app, f, o);
  // NIST's spellings named with ours: for ea_iid itself (the links take NIST's command lines).
  const std::vector<NistHint> no_hints;
  const std::vector<NistHint>& hints = program_name() == "ea_iid" ? nist_hints() : no_hints;
  if (const std::string hint = nist_flag_message(app, argc, argv, "ea_iid", hints); !hint.empty()) {
    throw Error(ErrorKind::Usage, hint);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << render_help(app, describe(), false);
    return ParseStatus::Exit0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << render_help(app, describe(), true);
    return ParseStatus::Exit0;
  } catch (const CLI::ParseError& e) {
    throw Error(ErrorKind::Usage, parse_error_message(app, e, "ea_iid", hints));
  }
  apply(f, o);
  // -o /dev/stdout (or a link to /proc/self/fd/1) is -o - (cli/output.hpp).
  for (auto* p : {&o.json_path, &o.jsonl_path, &o.csv_path, &o.html_path}) {
    if (*p) **p = output_name(**p);
  }
  return ParseStatus::Run;
}

}  // namespace ea::cli
