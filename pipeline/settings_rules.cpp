#include "settings_rules.hpp"

#include <cmath>
#include <sstream>
#include <utility>

#include "common/error.hpp"
#include "common/numbers.hpp"
#include "io/near_name.hpp"
#include "restart.hpp"
#include "rng/prng.hpp"

namespace ea {

namespace {

[[noreturn]] void refuse(const std::string& message) { throw Error(ErrorKind::Usage, message); }

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

std::string wide_bits_hint(int64_t bits) {
  return ": symbols have at most 8 bits; a capture of " + std::to_string(bits) +
         "-bit samples is read in its sample format (u16le, ...) and made symbols by a mask or bins "
         "(docs/sample-formats.md)";
}

namespace {

void check_range(bool given, int64_t v, SettingRange r, const std::string& name) {
  if (given && (v < 0 || static_cast<uint64_t>(v) < r.min || static_cast<uint64_t>(v) > r.max)) {
    refuse(name + ": " + std::to_string(v) + " is out of range (" + std::to_string(r.min) + " to " + std::to_string(r.max) + ")");
  }
}

void check_ranges(const Settings& s, const SettingsGiven& given, const SettingNames& names) {
  if (given.bits && s.width > static_cast<int64_t>(kBitsRange.max) && s.width <= 32) {
    refuse(names("bits", "") + ": " + std::to_string(s.width) + " is out of range (1 to 8)" + wide_bits_hint(s.width));
  }
  check_range(given.bits, s.width, kBitsRange, names("bits", ""));
  check_range(given.iterations, s.iterations, kIterationsRange, names("iterations", ""));
  check_range(given.threads, s.threads, kThreadsRange, names("threads", ""));
  if (s.gpus.empty()) refuse(names("gpus", "") + ": no GPU listed");
  if (s.gpus.size() > kMaxGpuEntries) refuse(names("gpus", "") + ": at most " + std::to_string(kMaxGpuEntries) + " GPUs");
  for (int g : s.gpus) check_range(true, g, kGpuIndexRange, names("gpus", ""));
  if (s.restart) {
    const double h = s.restart->h_i;
    const std::string claim = "H_I must be a number greater than 0 and at most " + number_text(kMaxEntropyClaim);
    const std::string given_h = names("restart", "") + ": '" + number_text(h) + "'";
    if (!(h > 0) || h > kMaxEntropyClaim) refuse(given_h + ": " + claim);
    if (!std::isnormal(h)) refuse(given_h + " is too small to be a normal number; " + claim);
  }
}

void check_exclusions(const SettingsGiven& given, const SettingNames& names) {
  auto exclusive = [&](bool a, bool b, const std::string& key_a, const std::string& key_b, const std::string& why) {
    if (a && b) refuse(key_a + " and " + key_b + " exclude each other" + why);
  };
  exclusive(given.initial, given.conditioned, names("initial", ""), names("conditioned", "true"), "");
  exclusive(given.all_bits, given.truncate_bitstring, names("all_bits", ""), names("truncate_bitstring", "true"), "");
  exclusive(given.until_decided, given.all_tests, names("until_decided", "true"), names("all_tests", "true"),
            " (one skips tests, the other runs them all)");
  exclusive(given.until_decided, given.permutation_counters, names("until_decided", "true"),
            names("permutation_counters", ""),
            " (one skips the permutation tests of a decided verdict, the other runs them)");
}

void check_restart(const Settings& s, const SettingsGiven& given, const SettingNames& names) {
  if (!s.restart || !(given.conditioned || given.truncate_bitstring)) return;
  const std::string which = given.conditioned && given.truncate_bitstring
                                ? names("conditioned", "true") + " and " + names("truncate_bitstring", "true") + " do"
                            : given.conditioned ? names("conditioned", "true") + " does"
                                                : names("truncate_bitstring", "true") + " does";
  refuse(names("restart", "") + ": " + which + " not apply (the restart tests estimate the literal samples)");
}

// The permutation tests' settings where no IID test runs change nothing: refused, not ignored.
void check_iid_only(const Settings& s, const SettingsGiven& given, const SettingNames& names) {
  std::string no_iid_tests;
  if (s.health) {
    no_iid_tests = names("health_tests", "");
  } else if (s.restart && restart_claim(s) == RestartClaim::NonIid) {
    no_iid_tests = names("restart", "") + " for a non-IID claim" +
                   (given.track ? "" : " (the default; " + names("track", "iid") + " makes an IID claim)");
  } else if (!s.restart && s.track == TrackChoice::NonIid) {
    no_iid_tests = names("track", "non-iid");
  }
  if (no_iid_tests.empty()) return;
  const std::pair<bool, std::string> unused[] = {{given.iterations, names("iterations", "")},
                                                 {given.prng, names("prng", "")},
                                                 {given.shuffle, names("shuffle", "")},
                                                 {given.round_size, names("round_size", "")},
                                                 {given.no_early_exit, names("early_exit", "false")},
                                                 {given.all_tests, names("all_tests", "true")},
                                                 {given.until_decided, names("until_decided", "true")},
                                                 {given.permutation_counters, names("permutation_counters", "")}};
  for (const auto& [was_given, name] : unused) {
    if (was_given) refuse(name + " applies to the IID tests, which " + no_iid_tests + " does not run");
  }
}

// How samples become symbols (--sample-format, --select-bits, --bin): the rule's own range
// against the format; one rule at a time; a rule found on data (auto, bins without edges)
// only where that data is the sequential data set (not the restart tests alone).
void check_sample_input(const Settings& s, const SettingsGiven& given, const SettingNames& names) {
  const SymbolRule& rule = s.sample_input.rule;
  if (given.select_bits && given.bin) refuse(names("select_bits", "") + " and " + names("bin", "") + " exclude each other");
  check_range(given.bin && rule.kind == SymbolRule::Kind::Bin, rule.bits, kBitsRange, names("bin", ""));
  const std::string flag = rule.kind == SymbolRule::Kind::Bin ? names("bin", "") : names("select_bits", "");
  check_symbol_rule(rule, s.sample_input.format, flag);
  // A rule that fixes the symbols' width (a mask's bits, 2^B bins) and another width given.
  const int ruled = rule.kind == SymbolRule::Kind::Mask  ? __builtin_popcount(rule.mask)
                    : rule.kind == SymbolRule::Kind::Bin ? rule.bits
                                                         : 0;
  if (given.bits && ruled > 0 && s.width != ruled) {
    refuse(names("bits", std::to_string(s.width)) + " and " + flag + ": the rule makes " + std::to_string(ruled) +
           "-bit symbols; give " + names("bits", std::to_string(ruled)) + " or leave " + names("bits", "") + " out");
  }
  const bool found_on_data = rule.kind == SymbolRule::Kind::Auto || (rule.kind == SymbolRule::Kind::Bin && rule.edges.empty());
  if (s.restart && found_on_data) {
    refuse(flag + (rule.kind == SymbolRule::Kind::Auto ? " auto" : "") + " with " + names("restart", "") +
           ": the restart data must be mapped as the sequential data set was; give the mask that run found (" +
           names("select_bits", "") + " MASK), or assess the source with `ea_iid source`, which does so");
  }
}

// The health tests' options that apply to the Monte Carlo check alone (seed, device, gpus: one
// GPU), to it or the sample files (threads), and to the sample files alone (how samples are read).
void check_health_inputs(const Settings& s, const SettingsGiven& given, const SettingNames& names) {
  const bool simulate = s.health->simulate > 0;
  const std::pair<bool, const char*> simulation_only[] = {{given.seed, "seed"}, {given.device, "device"}, {given.gpus, "gpus"}};
  for (const auto& [was_given, key] : simulation_only) {
    if (was_given && !simulate) refuse(names(key, "") + " applies to " + names("simulate", "") + ", which is not given");
  }
  if (given.gpus && s.gpus.size() != 1) {
    std::string list;
    for (const int g : s.gpus) list += (list.empty() ? "" : ",") + std::to_string(g);
    refuse(names("gpus", list) + ": the simulation runs on one GPU; give its index");
  }
  if (given.threads && !simulate && !given.inputs) {
    refuse(names("threads", "") + " applies to " + names("simulate", "") + " and to " + names("files", "") +
           ", neither of which is given");
  }
  const std::pair<bool, const char*> sample_options[] = {
      {given.sample_format, "sample_format"}, {given.select_bits, "select_bits"}, {given.bin, "bin"}};
  for (const auto& [was_given, key] : sample_options) {
    if (was_given && !given.inputs) refuse(names(key, "") + " applies to the samples of " + names("files", "") + ", none of which is given");
  }
}

// The health tests (health-tests H, --alpha): H at most the bits per sample, alpha in (0, 1),
// neither the restart tests nor the estimates' settings beside them (check_iid_only refuses
// the IID tests' settings), alpha only with them.
void check_health(const Settings& s, const SettingsGiven& given, const SettingNames& names) {
  if (!s.health) {
    if (given.alpha) refuse(names("alpha", "") + " applies to " + names("health_tests", "") + " (the health tests' cutoffs)");
    return;
  }
  const double h = s.health->h, alpha = s.health->alpha;
  const double most = s.width > 0 ? s.width : kMaxEntropyClaim;
  const std::string claim = "H must be a number greater than 0 and at most " + number_text(most) + " bits per sample" +
                            (s.width > 0 ? " (" + names("bits", std::to_string(s.width)) + ")" : "");
  if (!(h > 0) || h > most || !std::isnormal(h)) refuse(names("health_tests", "") + ": '" + number_text(h) + "': " + claim);
  if (!(alpha > 0) || !(alpha < 1) || !std::isnormal(alpha)) {
    refuse(names("alpha", "") + ": '" + number_text(alpha) + "' is not a false-positive rate greater than 0 and less than 1");
  }
  if (-std::log2(alpha) / h >= 0x1p53) {
    refuse(names("health_tests", "") + ": '" + number_text(h) + "' with " + names("alpha", "") + " " + number_text(alpha) +
           ": the Repetition Count Test's cutoff would exceed 2^53 samples");
  }
  if ((given.simulate || s.health->simulate > 0) &&
      (s.health->simulate < kSimulateRange.min || s.health->simulate > kSimulateRange.max)) {
    refuse(names("simulate", "") + ": " + std::to_string(s.health->simulate) + " is out of range (" +
           std::to_string(kSimulateRange.min) + " to " + std::to_string(kSimulateRange.max) + " samples)");
  }
  if (s.restart) refuse(names("health_tests", "") + " and " + names("restart", "") + " exclude each other");
  check_health_inputs(s, given, names);
  const std::pair<bool, std::string> unused[] = {{given.track, names("track", "")},
                                                 {given.initial, names("initial", "")},
                                                 {given.conditioned, names("conditioned", "true")},
                                                 {given.all_bits, names("all_bits", "")},
                                                 {given.truncate_bitstring, names("truncate_bitstring", "true")}};
  for (const auto& [was_given, name] : unused) {
    if (was_given) refuse(name + " applies to the entropy estimates, which " + names("health_tests", "") + " does not run");
  }
}

}  // namespace

double alpha_setting(const std::string& text, const SettingNames& names) {
  const std::string what = names("alpha", "");
  if (text.rfind("2^-", 0) == 0) {
    if (decimal_real_syntax(text.substr(3)) && text.find_first_of(".eE", 3) != std::string::npos) {
      const double n = parse_real<double>(text.substr(3), what + " 2^-N: N");
      if (n == std::floor(n) && n >= kAlphaExponentRange.min && n <= kAlphaExponentRange.max) {
        return std::ldexp(1.0, -static_cast<int>(n));  // 2^-20.0, 2^-2e1: whole
      }
      refuse(what + ": '" + text + "': N of 2^-N is a whole number (" + std::to_string(kAlphaExponentRange.min) + " to " +
             std::to_string(kAlphaExponentRange.max) + "); give another rate as a decimal (such as 1e-6)");
    }
    const uint64_t n = parse_integer(text.substr(3), what + " 2^-N: N", kAlphaExponentRange.min, kAlphaExponentRange.max);
    return std::ldexp(1.0, -static_cast<int>(n));
  }
  if (text.find('^') != std::string::npos || !decimal_real_syntax(text)) {
    refuse(what + ": '" + text + "' is neither 2^-N (such as 2^-20) nor a decimal (such as 1e-6)");
  }
  return parse_real<double>(text, what);
}

std::string keyword_name(const std::string& key, const std::string& value) {
  if (value.empty()) return key;
  const bool bare = value == "true" || value == "false" || value.find_first_not_of("0123456789.") == std::string::npos;
  return key + "=" + (bare ? value : "\"" + value + "\"");
}

TrackChoice track_setting(const std::string& text, const SettingNames& names) {
  if (text == "auto") return TrackChoice::Auto;
  if (text == "iid") return TrackChoice::Iid;
  if (text == "non-iid") return TrackChoice::NonIid;
  refuse(names("track", "") + ": '" + text + "' is not a track; expected auto, iid or non-iid");
}

SampleFormat sample_format_setting(const std::string& text, const SettingNames& names) {
  if (const auto f = sample_format_from_name(text)) return *f;
  refuse(names("sample_format", "") + ": '" + text + "' is not a sample format; expected u8, u16le, u16be, u32le, u32be "
                                                     "or text");
}

DeviceChoice device_setting(const std::string& text, const SettingNames& names) {
  if (text == "auto") return DeviceChoice::Auto;
  if (text == "cpu") return DeviceChoice::Cpu;
  if (text == "gpu") return DeviceChoice::Gpu;
  refuse(names("device", "") + ": '" + text + "' is not a device; expected auto, cpu or gpu");
}

PrngId prng_setting(const std::string& text, const SettingNames& names) {
  if (const auto id = parse_prng(text)) return *id;
  // (the nearest generator, 1 or 2 edits away: "philx" is philox)
  std::vector<std::string> generators;
  std::istringstream list(prng_names());
  for (std::string name; std::getline(list >> std::ws, name, ',');) generators.push_back(name);
  const std::string near = nearest_name(text, generators);
  refuse("unknown " + names("prng", "") + " '" + text + "'" + (near.empty() ? "" : "; did you mean " + near + "?") +
         "; choose one of: " + prng_names());
}

ShuffleChoice shuffle_setting(const std::string& text, const SettingNames& names) {
  if (const auto c = parse_shuffle_choice(text)) return *c;
  refuse(names("shuffle", "") + ": '" + text + "' is not a shuffle; expected bucket or fisher-yates");
}

// The GPUs and their tuning change nothing where no GPU is used (--device cpu).
void check_device(const Settings& s, const SettingsGiven& given, const SettingNames& names) {
  if (s.device != DeviceChoice::Cpu) return;
  const std::pair<bool, const char*> gpu_settings[] = {{given.gpus, "gpus"}, {given.round_size, "round_size"},
                                                       {given.tuning, "tuning"}};
  for (const auto& [given_it, key] : gpu_settings) {
    if (given_it) {
      refuse(names(key, "") + " changes nothing with " + names("device", "cpu") + " (no GPU is used): drop it, or use " +
             names("device", "auto"));
    }
  }
}

void check_settings(const Settings& s, const SettingsGiven& given, const SettingNames& names) {
  check_ranges(s, given, names);
  check_exclusions(given, names);
  check_restart(s, given, names);
  check_iid_only(s, given, names);
  check_health(s, given, names);
  check_sample_input(s, given, names);
  check_device(s, given, names);
}

bool draws_random_numbers(const Settings& s) {
  if (s.health) return s.health->simulate > 0;
  if (s.restart) return restart_claim(s) == RestartClaim::Iid || s.restart->cutoff == CutoffMethod::Simulation;
  return s.track != TrackChoice::NonIid;
}

}  // namespace ea
