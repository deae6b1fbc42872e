// The rules of the settings, in one place: ranges, exclusions, settings given where they
// change nothing, and whether a run draws random numbers (needs a seed). Every front door
// (ea_iid's options, `ea_iid source`, the C++ API and Python through it) fills a Settings,
// says which settings it was given and how it names them, and calls check_settings once:
// so one setting is refused the same way, for the same reason, wherever it is given.
// docs/design.md "Adding a setting" says where a new rule goes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "assess.hpp"

namespace ea {

// The ranges of the numbers a front door takes (its parser may refuse first, with the same
// range; check_settings checks them again for the doors that take typed values).
struct SettingRange {
  uint64_t min, max;
};
constexpr SettingRange kBitsRange{1, 8};
constexpr SettingRange kIterationsRange{1, 100000000};
constexpr SettingRange kThreadsRange{1, 4096};
constexpr SettingRange kGpuIndexRange{0, 1023};
constexpr size_t kMaxGpuEntries = 64;
constexpr double kMaxEntropyClaim = 8;  // H_I (--restart), H (health-tests), bits per sample
// --alpha as 2^-N: N in this range (2^-1022 is the least normal double).
constexpr SettingRange kAlphaExponentRange{1, 1022};
// health-tests --simulate N: the Monte Carlo check's samples.
constexpr SettingRange kSimulateRange{1, uint64_t{1} << 44};

// Which settings a front door was given: the command line's flags, the API's and Python's
// fields that differ from their defaults (so that `iterations=10000` equals not giving it).
// A setting given where it changes nothing is refused, never ignored.
struct SettingsGiven {
  bool track = false, bits = false, iterations = false, threads = false, restart = false;
  bool prng = false;                                  // a generator other than philox
  bool shuffle = false;                               // a shuffle other than bucket (fisher-yates)
  bool initial = false, conditioned = false;          // -i, -c (conditioned=true)
  bool all_bits = false, truncate_bitstring = false;  // -a, -t
  bool no_early_exit = false;                         // --no-early-exit, early_exit=false
  bool all_tests = false;
  bool until_decided = false;         // turned on: --until-decided, until_decided=true
  bool permutation_counters = false;  // turned off (`ea_iid source --permutation-counters`)
  bool alpha = false;                 // the health tests' false-positive rate (--alpha)
  bool select_bits = false, bin = false;  // --select-bits, --bin (one SampleInput rule)
  bool gpus = false;                      // --gpu (the API's and Python's gpus other than [0])
  bool round_size = false, tuning = false;  // --round-size, --gpu-tuning (the command line only)
  // The health tests' (check_health): --seed, --device and --sample-format given, and whether
  // sample files are (their FILEs: the options of how samples are read apply to them alone).
  bool seed = false, device = false, sample_format = false, inputs = false;
  bool simulate = false;  // the Monte Carlo check's samples given (0 too: out of range)
};

// How a front door names a setting in its messages. `key` is the setting's key, the C++
// API's and Python's name of it (settings_fields(): `key`; the command line's spellings of
// defaults: "initial" -i, "all_bits" -a, "permutation_counters"). With `value` "": the
// setting's name ("--iterations", "iterations"); otherwise the setting as given with that
// value ("--no-early-exit" / "early_exit=false", "--track non-iid" / "track=\"non-iid\"").
using SettingNames = std::function<std::string(const std::string& key, const std::string& value)>;

// The API's and Python's names: the key itself; with a value, key=value (text quoted).
std::string keyword_name(const std::string& key, const std::string& value);

// What a width of 9 to 32 bits (a wide capture's) says after "out of range (1 to 8)": how such a
// capture is read and made symbols.
std::string wide_bits_hint(int64_t bits);

// The named choices, parsed with one message each ("NAME: 'x' is not a track; expected ...").
TrackChoice track_setting(const std::string& text, const SettingNames& names);
DeviceChoice device_setting(const std::string& text, const SettingNames& names);
SampleFormat sample_format_setting(const std::string& text, const SettingNames& names);
PrngId prng_setting(const std::string& text, const SettingNames& names);
ShuffleChoice shuffle_setting(const std::string& text, const SettingNames& names);
// The health tests' false-positive rate as written: 2^-N (N in kAlphaExponentRange) or a
// decimal ("1e-6"); its range (0, 1) is check_settings' rule.
double alpha_setting(const std::string& text, const SettingNames& names);

// Checks `s` (as the front door filled it, defaults included) and what was `given` against
// every rule: ranges, exclusions (-i/-c, -a/-t, until_decided/all_tests, restart with -c or
// -t), the IID tests' settings where no IID test runs (the non-IID track, restart tests for a
// non-IID claim, the health tests), the health tests' H (at most the bits per sample, 8 when
// not given) and alpha (in (0, 1)). Throws Error{Usage} naming each setting by `names`.
void check_settings(const Settings& s, const SettingsGiven& given, const SettingNames& names);

// Whether a run of `s` draws random numbers, so needs a seed: the IID tests' shuffles (the
// iid and auto tracks, restart tests for an IID claim) and the restart cutoff's simulation.
// The non-IID track, restart tests for a non-IID claim with the exact cutoff and the health
// tests without their Monte Carlo check (--simulate) draw none:
// without a seed given they record none (0 where a record needs a number).
bool draws_random_numbers(const Settings& s);

}  // namespace ea
