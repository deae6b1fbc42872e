// Every field of Settings, classified once: what it changes, the option that sets it, its
// name in the API and Python, and where a result's JSON record holds it. --resume compares a
// kept row with this run through this list alone; a test counts Settings' fields and fails
// when one is not listed here. Its rules (ranges, exclusions): settings_rules.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "assess.hpp"

namespace ea {

enum class SettingEffect {
  Result,  // changes counters, estimates or verdicts: a row made otherwise cannot be kept
  Input,   // how the samples are read (a changed reading shows in the row's SHA-256 and size)
  Speed,   // where and how fast it runs, never what it computes
};

struct SettingField {
  const char* field;   // the member of Settings
  const char* option;  // the option that sets it
  // Its name in the C++ API's Options and Python's keywords, and the key of its rules
  // (settings_rules.hpp); null: neither takes it.
  const char* key;
  // The command line's flag that names it in a message (settings_rules.hpp's SettingNames).
  const char* flag;
  SettingEffect effect;
  // Result fields: the record's path (dotted) and the value this run would write there, as
  // text (a JSON string's contents, else the JSON dump); "" where any value matches (bits
  // inferred). Null `record`: the record does not hold it (then `why` says how it is kept apart).
  const char* record;
  std::string (*value)(const Settings&);
  const char* why;
  // The record's value may differ between the items of one run (the bit width, inferred
  // per file): merge does not compare it across rows.
  bool per_item = false;
  // Where a non-IID record (--non-iid) holds it; null: the non-IID track does not use it.
  const char* non_iid_record = nullptr;
  // What a record without that key holds (written before the setting existed); null: none.
  const char* absent = nullptr;
  // The record path of a row of this kind (null: it does not hold this setting).
  const char* record_in(bool non_iid_row) const { return non_iid_row ? non_iid_record : record; }
};

// A result field in a message about its recorded values: the record's key, then the option
// ("permutation.earlyExit (--no-early-exit)"): the values are the record's, whose sense an
// option may invert (--no-early-exit records earlyExit false).
std::string setting_in_record(const SettingField& f, const char* path);

const std::vector<SettingField>& settings_fields();

// The number of members of an aggregate (Settings), counted at compile time.
namespace detail {
struct AnyField {
  template <class T>
  operator T() const;  // never defined: unevaluated only
};
template <class T, class... A>
constexpr auto braces(int) -> decltype(T{std::declval<A>()...}, true) {
  return true;
}
template <class T, class... A>
constexpr bool braces(...) {
  return false;
}
template <class T, class... A>
constexpr size_t count_fields() {
  if constexpr (braces<T, A..., AnyField>(0)) {
    return count_fields<T, A..., AnyField>();
  } else {
    return sizeof...(A);
  }
}
}  // namespace detail

constexpr size_t kSettingsMembers = detail::count_fields<Settings>();

}  // namespace ea
