#include "settings_fields.hpp"

#include "result.hpp"

namespace ea {

namespace {

std::string yes_no(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string setting_in_record(const SettingField& f, const char* path) {
  return std::string(path) + " (" + f.option + ")";
}

const std::vector<SettingField>& settings_fields() {
  using E = SettingEffect;
  static const std::vector<SettingField> fields = {
      {"track", "--non-iid, --track", "track", "--track", E::Result, "trackChoice",
       [](const Settings& s) { return std::string(track_choice_name(s.track)); }, "", false, "trackChoice"},
      {"initial_entropy", "-i/-c", "conditioned", "-c", E::Result, "estimates.mode",
       [](const Settings& s) { return std::string(s.initial_entropy ? "initial (-i)" : "conditioned (-c)"); }, "", false,
       "nonIid.mode"},
      {"truncate_bitstring", "-a/-t", "truncate_bitstring", "-t", E::Result, "estimates.bitstringTruncated",
       [](const Settings& s) { return yes_no(s.truncate_bitstring); }, "", false, "nonIid.bitstringTruncated"},
      {"seed", "--seed", "seed", "--seed", E::Result, "permutation.userSeed", [](const Settings& s) { return std::to_string(s.seed); }, ""},
      {"prng", "--prng", "prng", "--prng", E::Result, "permutation.prng", [](const Settings& s) { return std::string(prng_info(s.prng).name); },
       ""},
      {"shuffle", "--shuffle", "shuffle", "--shuffle", E::Result, "permutation.shuffleChoice",
       [](const Settings& s) { return std::string(shuffle_choice_name(s.shuffle)); }, "", false, nullptr, "bucket"},
      {"iterations", "--iterations", "iterations", "--iterations", E::Result, "permutation.iterations",
       [](const Settings& s) { return std::to_string(s.iterations); }, ""},
      {"early_exit", "--no-early-exit", "early_exit", "--no-early-exit", E::Result, "permutation.earlyExit",
       [](const Settings& s) { return yes_no(s.early_exit); }, ""},
      {"all_tests", "--all-tests", "all_tests", "--all-tests", E::Result, "permutation.allTests", [](const Settings& s) { return yes_no(s.all_tests); },
       ""},
      {"until_decided", "--until-decided", "until_decided", "--until-decided", E::Result, "permutation.untilDecided",
       [](const Settings& s) { return yes_no(s.until_decided); }, ""},
      {"compression_test", "ea_calibrate --fast-only", nullptr, "--fast-only", E::Result, nullptr, nullptr,
       "ea_calibrate only, which keeps no rows to resume"},
      {"width", "bits_per_symbol/--bits", "bits", "--bits", E::Result, "input.bitsPerSymbol",
       [](const Settings& s) { return s.width ? std::to_string(s.width) : std::string(); }, "", true, "input.bitsPerSymbol"},
      {"sample_input", "--sample-format, --select-bits, --bin", "sample_format", "--sample-format", E::Result, "input.sampleRule",
       [](const Settings& s) { return sample_input_text(s.sample_input); }, "", false, "input.sampleRule", "u8"},
      {"allow_stream", "--allow-stream", nullptr, "--allow-stream", E::Input, nullptr, nullptr, "how a stream is read; --resume reads regular files"},
      {"threads", "--threads", "threads", "--threads", E::Speed, nullptr, nullptr, ""},
      {"device", "--device", "device", "--device", E::Speed, nullptr, nullptr, ""},
      {"gpus", "--gpu", "gpus", "--gpu", E::Speed, nullptr, nullptr, ""},
      {"verify", "--verify", nullptr, "--verify", E::Speed, nullptr, nullptr, "checks GPU rounds; an error, never another result"},
      {"gpu_compression", "--cpu-compression", nullptr, "--cpu-compression", E::Speed, nullptr, nullptr, ""},
      {"tuning", "--round-size, --gpu-tuning", nullptr, "--gpu-tuning", E::Speed, nullptr, nullptr, ""},
      {"restart", "--restart", "restart", "--restart", E::Result, nullptr, nullptr,
       "restart rows are never kept by --resume (they are assessed again)"},
      {"health", "ea_iid health-tests H, --alpha, --simulate", "health_tests", "health-tests H", E::Result, nullptr, nullptr,
       "the health tests are no item: their files and simulation are one HealthTests document, no row of them is kept, "
       "resumed or merged"},
  };
  return fields;
}

}  // namespace ea
