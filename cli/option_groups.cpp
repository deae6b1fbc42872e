#include "option_groups.hpp"

#include <algorithm>
#include <cstring>
#include <iostream>

#include "common/error.hpp"
#include "gpu_tuning.hpp"
#include "help.hpp"
#include "logging.hpp"
#include "options.hpp"
#include "output.hpp"
#include "settings_fields.hpp"
#include "version.hpp"

namespace ea::cli {

void add_engine_options(CLI::App& app, EngineOptionText& t, Program p) {
  const bool iid = p == Program::EaIid;
  t.seed_opt = app.add_option("--seed", t.seed,
                              iid ? "64-bit seed (decimal or 0x hex) of the shuffles (default: drawn from the OS, recorded in the JSON)"
                                  : "the --seed of every assessment (each data set's shuffles get their own seed from "
                                    "it and the samples, as in ea_iid; default 1). The data sets themselves are new "
                                    "from OpenSSL's RAND_bytes every run: rates differ from run to run")
                   ->type_name("S");
  app.add_option("--prng", t.prng,
                 iid ? "generator of the shuffles: " + prng_names() + " (default philox; see --list-prngs)"
                     : "shuffling generator(s), comma-separated (" + prng_names() + ")")
      ->type_name(iid ? "NAME" : "NAME,...");
  app.add_option("--shuffle", t.shuffle,
                 "how the permutations are made: bucket (default; the bucket shuffle, docs/bucket-shuffle.md, for "
                 "non-binary data over 1,024 samples with philox, xoshiro256ss, xorwow, mrg31k3p and mrg32k3a, "
                 "Fisher-Yates for the rest) or fisher-yates (SP 800-90B 5.1's literal Fisher-Yates for every "
                 "permutation; other counters; on long rows slower on the GPU, faster on a CPU)")
      ->type_name("NAME");
  // (the value is checked with the other settings: device_setting's words name the choices)
  t.device = "auto";
  app.add_option("--device", t.device,
                 iid ? "where the permutation tests run: auto (default: the GPU if usable), cpu or gpu (which also sorts "
                       "the t-tuple and LRS estimates' suffixes and counts the MultiMMC and LZ78Y predictions of binary "
                       "inputs); with cpu, --gpu, --round-size and --gpu-tuning are refused (they would change nothing)"
                     : "where the data sets' permutation tests run: auto (default: the GPU if usable, else the CPU "
                       "cores), cpu or gpu; with cpu, --gpu, --round-size and --gpu-tuning are refused")
      ->type_name("auto|cpu|gpu");
  t.gpu_opt = app.add_option("--gpu", t.gpu,
                             iid ? "GPUs: an index, indexes such as 0,1 (one assessment's rounds are split across "
                                   "them; a batch keeps each busy), or all"
                                 : "GPUs: an index, indexes such as 0,1, or all (the jobs are spread over them)")
                  ->type_name("ID|ID,ID,...|all");
  t.round_opt = app.add_option("--round-size", t.round_size,
                               "GPU permutations per round, 1-1048576 (default: from free memory)")
                    ->type_name("N");
  t.tuning_opt = app.add_option("--gpu-tuning", t.tuning,
                                "GPU speed and memory (every value gives the same results; the keys: --gpu-tuning "
                                "help)")
                     ->type_name("KEY=VALUE,...");
  t.threads_opt = app.add_option("--threads", t.threads,
                                 iid ? "CPU threads, 1-4096 (default: all cores, or OMP_NUM_THREADS; a batch divides "
                                       "them among its --jobs)"
                                     : "CPU threads per data set, 1-4096 (default: the cores divided among the jobs)")
                      ->type_name("N");
  t.iterations_opt = app.add_option("--iterations", t.iterations,
                                    "permutations, 1-100000000 (default 10000; other counts make an exploratory run "
                                    "with the decision rule scaled, not an SP 800-90B assessment)")
                         ->type_name("N");
  if (iid) {
    app.add_flag("--cpu-compression", t.cpu_compression,
                 "run the compression test with libbz2 itself on the CPU cores, as NIST's code does: the same "
                 "counters, slower (by default an exact bzip2 size model runs it, on the GPU where there is one, else "
                 "on the CPU cores; its length of each data set's unshuffled data must equal libbz2's first)");
    app.add_flag("--verify", t.verify,
                 "recompute some GPU permutations of every round on the CPU; any difference is an error");
  }
  for (const char* name : {"--seed", "--prng", "--shuffle", "--device", "--gpu", "--round-size", "--gpu-tuning", "--threads",
                           "--iterations", "--cpu-compression", "--verify"}) {
    for (CLI::Option* opt : app.get_options()) {
      if (opt->check_name(name)) opt->group("Permutation engine");
    }
  }
}

SettingNames cli_setting_names(bool non_iid_flag) {
  return [non_iid_flag](const std::string& key, const std::string& value) -> std::string {
    if (key == "initial") return "-i";
    if (key == "all_bits") return "-a";
    if (key == "permutation_counters") return "--permutation-counters";
    if (key == "select_bits") return value.empty() ? "--select-bits" : "--select-bits " + value;
    if (key == "bin") return value.empty() ? "--bin" : "--bin " + value;
    if (key == "round_size") return "--round-size";
    if (key == "tuning") return "--gpu-tuning";
    if (key == "files") return "FILEs";  // (the health tests' sample files)
    // The links' own names (cli/links.cpp): NIST's flags and positionals.
    const std::string& program = program_name();
    if (program == "ea_restart" && key == "restart") return "H_I";
    if (program == "ea_restart" && key == "track") return value == "iid" ? "-i" : value.empty() ? "-i|-n" : "-n";
    if (program == "ea_non_iid" && key == "track" && value == "non-iid") return "ea_non_iid";
    if (key == "track" && value == "non-iid" && non_iid_flag) return "--non-iid";
    std::string flag = "--" + key;
    for (const SettingField& f : settings_fields()) {
      if (f.key && key == f.key) flag = f.flag;
    }
    // A flag that is its value (-c, -t, --no-early-exit, --all-tests): the flag alone.
    return value.empty() || value == "true" || value == "false" ? flag : flag + " " + value;
  };
}

EngineChoice apply_engine_options(const EngineOptionText& t, Settings& s, Program p) {
  EngineChoice c;
  if (t.seed_opt->count()) c.seed = parse_unsigned(t.seed, "--seed", 0, UINT64_MAX, true);
  if (t.threads_opt->count()) {
    c.threads = static_cast<int>(parse_unsigned(t.threads, "--threads", kThreadsRange.min, kThreadsRange.max));
  }
  if (t.gpu_opt->count()) s.gpus = parse_gpu_list(t.gpu, "--gpu");
  if (t.tuning_opt->count()) parse_gpu_tuning(t.tuning, s.tuning);
  if (t.round_opt->count()) {
    s.tuning.round_size = static_cast<uint32_t>(parse_unsigned(t.round_size, "--round-size", 1, 1u << 20));
  }
  if (t.iterations_opt->count()) {
    s.iterations =
        static_cast<uint32_t>(parse_unsigned(t.iterations, "--iterations", kIterationsRange.min, kIterationsRange.max));
  }
  s.device = device_setting(t.device, cli_setting_names());
  s.gpu_compression = !t.cpu_compression;
  s.verify = t.verify;
  if (p == Program::EaIid) s.prng = prng_setting(t.prng, cli_setting_names());
  s.shuffle = shuffle_setting(t.shuffle, cli_setting_names());
  return c;
}

void add_output_group(CLI::App& app, OutputOptionText& t, unsigned which, const OutputDescriptions& d) {
  auto text = [](const std::string& given, const char* fallback) { return given.empty() ? std::string(fallback) : given; };
  if (which & kOutputJson) {
    t.json_opt = app.add_option("-o,--output", t.json, text(d.json, "write the result as JSON to FILE ('-': standard output)"))
                     ->type_name("FILE.json");
  }
  if (which & kOutputCsv) {
    t.csv_opt = app.add_option("--csv", t.csv, text(d.csv, "write one CSV row per item to PATH (docs/report.md)"))
                    ->type_name("PATH");
  }
  if (which & kOutputHtml) {
    t.html_opt = app.add_option("--html", t.html, text(d.html, "write a self-contained HTML report to PATH"))->type_name("PATH");
  }
  if (which & kOutputForce) {
    t.force_opt = app.add_flag("--force", t.force, text(d.force, "replace an existing output that is not an ea_iid result or report"));
  }
  if (which & kOutputQuiet) app.add_flag("-q", t.quiet, text(d.quiet, "nothing on standard output"));
}

OutputFiles apply_output_group(const OutputOptionText& t) {
  OutputFiles f;
  if (t.json_opt && t.json_opt->count()) f.json = output_name(t.json);
  if (t.csv_opt && t.csv_opt->count()) f.csv = output_name(t.csv);
  if (t.html_opt && t.html_opt->count()) f.html = output_name(t.html);
  f.force = t.force;
  f.quiet = t.quiet;
  return f;
}

void add_sample_options(CLI::App& app, SampleOptionText& t, bool write_symbols) {
  t.format_opt = app.add_option("--sample-format", t.format,
                                "how samples are stored: u8 (default: one byte each, as NIST's tools), u16le, u16be, "
                                "u32le, u32be, or text (one decimal or 0x-hex integer a line)")
                     ->type_name("FORMAT");
  t.select_opt = app.add_option("--select-bits", t.select_bits,
                                "make each sample a symbol of the bits of MASK (decimal, 0x-hex or 0b-binary; 1-8 bits, "
                                "packed in order, lowest first), or of the mask of at most B bits (default 8) that keeps "
                                "the most min-entropy (auto[:B], the search recorded)")
                     ->type_name("MASK|auto");
  t.bin_opt = app.add_option("--bin", t.bin, "make each sample a symbol by order-preserving equal-count bins, 2^B of them "
                                             "(B 1-8; the bins' lowest values recorded)")
                  ->type_name("B");
  if (write_symbols) {
    t.write_opt = app.add_option("--write-symbols", t.write_symbols,
                                 "also write the symbols assessed, one byte each (what NIST's tools and ESV take)")
                      ->type_name("FILE");
  }
  for (CLI::Option* opt : {t.format_opt, t.select_opt, t.bin_opt, t.write_opt}) {
    if (opt) opt->group("Sample format");
  }
}

void apply_sample_options(const SampleOptionText& t, Settings& s, SettingsGiven& given) {
  if (t.format_opt->count()) s.sample_input.format = sample_format_setting(t.format, cli_setting_names());
  given.select_bits = t.select_opt->count() > 0;
  given.bin = t.bin_opt->count() > 0;
  if (given.select_bits) {
    s.sample_input.rule = select_bits_rule(t.select_bits, "--select-bits");
    // A decimal mask is legal and easily meant as a count or a bit's number ("--select-bits 8"
    // is bit 3 alone: 1-bit symbols): said, with the masks such a reading would need.
    const std::string& v = t.select_bits;
    if (s.sample_input.rule.kind == SymbolRule::Kind::Mask && !v.empty() &&
        v.find_first_not_of("0123456789") == std::string::npos && s.sample_input.rule.mask < 32) {
      const uint32_t m = s.sample_input.rule.mask;
      char low[24], bit[24], got[24];
      std::snprintf(got, sizeof got, "0x%x", m);
      std::snprintf(low, sizeof low, "0x%llx", (1ull << m) - 1);
      std::snprintf(bit, sizeof bit, "0x%llx", 1ull << m);
      t.warnings.push_back(fmt::format(
          "--select-bits {}: the decimal mask {} ({} bit{} kept); for the low {} bits give {}, for bit {} alone {}", v, got,
          __builtin_popcount(m), __builtin_popcount(m) == 1 ? "" : "s", m, low, m, bit));
    }
  }
  if (given.bin && !given.select_bits) {
    s.sample_input.rule = SymbolRule{};
    s.sample_input.rule.kind = SymbolRule::Kind::Bin;
    s.sample_input.rule.bits = static_cast<int>(parse_unsigned(t.bin, "--bin", 1, 8));
  }
}

CLI::Option* add_bits_option(CLI::App& app, std::string& text, const std::string& description) {
  return app.add_option("--bits", text, description)->type_name("N");
}

int apply_bits_option(const std::string& text, bool wide_hint) {
  try {
    return static_cast<int>(parse_unsigned(text, "--bits", kBitsRange.min, kBitsRange.max));
  } catch (const Error&) {
    const bool digits = !text.empty() && text.size() <= 2 && text.find_first_not_of("0123456789") == std::string::npos;
    if (!wide_hint || !digits || std::stoi(text) <= static_cast<int>(kBitsRange.max) || std::stoi(text) > 32) throw;
    throw Error(ErrorKind::Usage, "--bits: " + text + " is out of range (1 to 8)" + wide_bits_hint(std::stoi(text)));
  }
}

int parse_subcommand(CLI::App& app, std::vector<char*>& args, const std::string& help_command,
                     const std::vector<NistHint>& hints) {
  for (size_t i = 1; i < args.size() && std::strcmp(args[i], "--") != 0; ++i) {
    if (std::strcmp(args[i], "--version") == 0) {
      std::cout << version_lines("");
      return 0;
    }
    // (ea_iid's --help-all: a subcommand's --help holds every option in full already)
    if (std::strcmp(args[i], "--help-all") == 0) {
      std::cout << app.help();
      return 0;
    }
  }
  // --gpu-tuning help, as ea_iid's, where the subcommand takes --gpu-tuning
  const std::vector<CLI::Option*> options = app.get_options();  // (a copy: one vector's begin and end)
  const bool tuning =
      std::any_of(options.begin(), options.end(), [](const CLI::Option* o) { return o->check_name("--gpu-tuning"); });
  if (tuning && print_gpu_tuning_help(static_cast<int>(args.size()), args.data())) return 0;
  const std::string hint = nist_flag_message(app, static_cast<int>(args.size()), args.data(), help_command, hints);
  if (!hint.empty()) throw Error(ErrorKind::Usage, hint);
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    throw Error(ErrorKind::Usage, parse_error_message(app, e, help_command));
  }
  return -1;
}

}  // namespace ea::cli
