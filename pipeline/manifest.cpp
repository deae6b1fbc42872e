#include "manifest.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cfenv>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "conditioning/conditioning.hpp"
#include "estimators/restart.hpp"
#include "io/near_name.hpp"
#include "settings_rules.hpp"

namespace ea {

namespace {

using nlohmann::json;
// The document read again with long double numbers: h' as `ea_iid source --h-prime` and NIST's
// ea_conditioning read it (strtold rounded toward zero, parse_conditioning_number), not the
// nearest double.
using exact_json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, long double>;

exact_json read_toward_zero(const std::string& text) {
  const int mode = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  exact_json j = exact_json::parse(text, nullptr, false);
  std::fesetround(mode);
  return j;
}

// The fields a source may have: ours, then NIST's registration fields that are recorded
// for the registration but not used by the assessment (docs/manifest.md).
const std::vector<std::string> kSourceFields = {
    "primaryNoiseSource", "rawNoisePath", "restartTestPath", "bitsPerSample", "iidClaim", "hminEstimate",
    "conditioningComponent", "numberOfRestarts", "samplesPerRestart", "physical", "additionalNoiseSources", "numberOfOEs",
    "sampleFormat", "selectBits", "binBits"};
const std::vector<std::string> kComponentFields = {
    "sequencePosition", "vetted", "minNin", "nOut", "nw", "hPrime", "unvettedConditionedPaths", "bijectiveClaim",
    "description", "validationNumber", "minHin", "hOut"};

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw Error(ErrorKind::Usage, where + ": " + what); }

std::string shown(const json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// One JSON object read field by field, under a prefix ("PATH: sources[2] (x): " and
// "conditioningComponent[0]."): every message names the field; unknown fields are refused.
class Fields {
 public:
  Fields(const json& j, std::string where, std::string prefix, const std::vector<std::string>& known)
      : j_(j), where_(std::move(where)), prefix_(std::move(prefix)) {
    if (!j.is_object()) fail(where_ + (prefix_.empty() ? "" : ": " + prefix_.substr(0, prefix_.size() - 1)),
                             "expected an object, got " + shown(j));
    for (const auto& [key, value] : j.items()) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      const std::string near = nearest_name(key, known);  // ("iidclaim": iidClaim)
      bad(key, "unknown field" + (near.empty() ? std::string() : "; did you mean " + near + "?"));
    }
  }
  [[noreturn]] void bad(const std::string& key, const std::string& what) const { fail(where_ + ": " + prefix_ + key, what); }
  const json* get(const std::string& key) const {
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  std::optional<std::string> text(const std::string& key) const {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_string()) bad(key, "expected a string, got " + shown(*v));
    return v->get<std::string>();
  }
  std::optional<bool> flag(const std::string& key) const {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) bad(key, "expected true or false, got " + shown(*v));
    return v->get<bool>();
  }
  std::optional<int64_t> integer(const std::string& key, int64_t lo, int64_t hi) const {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_number_integer()) bad(key, "expected an integer, got " + shown(*v));
    const bool fits = v->is_number_unsigned()
                          ? v->get<uint64_t>() <= static_cast<uint64_t>(hi) && static_cast<int64_t>(v->get<uint64_t>()) >= lo
                          : v->get<int64_t>() >= lo && v->get<int64_t>() <= hi;
    if (!fits) {
      bad(key, "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " + shown(*v));
    }
    return v->get<int64_t>();
  }
  // A number in (lo, hi] (lo_open) or [lo, hi].
  std::optional<double> number(const std::string& key, double lo, double hi, bool lo_open) const {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_number()) bad(key, "expected a number, got " + shown(*v));
    const double x = v->get<double>();
    if (!std::isfinite(x) || (lo_open ? !(x > lo) : !(x >= lo)) || !(x <= hi)) {
      std::ostringstream range;
      range << (lo_open ? "greater than " : "at least ") << lo << " and at most " << hi;
      bad(key, "expected a number " + range.str() + ", got " + shown(*v));
    }
    return x;
  }
  template <class T>
  T required(const std::optional<T>& v, const std::string& key) const {
    if (!v) bad(key, "missing (required)");
    return *v;
  }

 private:
  const json& j_;
  std::string where_, prefix_;
};

// A path of the manifest, taken from its folder, that names an existing file.
std::string input_path(const Fields& f, const std::string& key, const std::string& given, const std::string& folder) {
  if (given.empty()) f.bad(key, "an empty path");
  const std::string path = given[0] == '/' || folder.empty() ? given : folder + "/" + given;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) f.bad(key, path + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) f.bad(key, path + " is a folder, not a file");
  return path;
}

std::string source_where(size_t k, const json& s) {
  std::string w = "sources[" + std::to_string(k) + "]";
  const json* name = s.is_object() && s.contains("primaryNoiseSource") ? &s["primaryNoiseSource"] : nullptr;
  return w + (name && name->is_string() ? " (" + name->get<std::string>() + ")" : " (no primaryNoiseSource)");
}

std::string checked_name(const Fields& f) {
  const std::string name = f.required(f.text("primaryNoiseSource"), "primaryNoiseSource");
  if (name.empty() || name.size() > 64) {
    f.bad("primaryNoiseSource", "expected 1 to 64 characters (ESV's limit), got " + std::to_string(name.size()));
  }
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) f.bad("primaryNoiseSource", "a control character in the name");
  }
  return name;
}

// bitsPerSample by the rules of every front door (settings_rules.hpp: "bitsPerSample: 9 is out
// of range (1 to 8)").
int checked_bits(int bits, const std::string& where) {
  Settings s;
  s.width = bits;
  SettingsGiven given;
  given.bits = true;
  check_settings(s, given, [&where](const std::string& key, const std::string&) {
    return where + ": " + (key == "bits" ? "bitsPerSample" : key);
  });
  return bits;
}

// numberOfRestarts and samplesPerRestart: ea_iid's restart tests take 1,000 x 1,000 samples.
void check_restart_shape(const Fields& f, ManifestRegistration& r) {
  for (const char* key : {"numberOfRestarts", "samplesPerRestart"}) {
    const auto n = f.integer(key, 1, INT64_MAX);
    if (n && *n != 1000) f.bad(key, std::to_string(*n) + ": the restart tests (SP 800-90B 3.1.4) take 1000 restarts of 1000 samples");
    (key[0] == 'n' ? r.restarts : r.samples_per_restart) = n;
  }
}

void check_restart_file(const Fields& f, const std::string& path, SampleFormat format) {
  struct stat st {};
  const uint64_t bytes = kRestartDataSize * static_cast<uint64_t>(sample_bytes(format));
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && bytes > 0 && static_cast<uint64_t>(st.st_size) != bytes) {
    f.bad("restartTestPath", path + ": a restart data set holds exactly 1000000 samples (1,000 restarts of 1,000 samples" +
                                    (bytes == kRestartDataSize ? std::string()
                                                               : ", " + std::to_string(bytes) + " bytes as " +
                                                                     sample_format_name(format)) +
                                    "); this file has " + std::to_string(st.st_size) + " bytes");
  }
}

// One conditioning component; `at` is "conditioningComponent[K].".
SourceConditioning component_of(const json& c, const exact_json& exact, const std::string& where, const std::string& at,
                                const std::string& folder, int64_t& position) {
  const Fields f(c, where, at, kComponentFields);
  position = f.required(f.integer("sequencePosition", 1, INT64_MAX), "sequencePosition");
  SourceConditioning s;
  s.vetted = f.required(f.flag("vetted"), "vetted");
  s.n_in = static_cast<uint32_t>(f.required(f.integer("minNin", 1, UINT32_MAX), "minNin"));
  s.n_out = static_cast<uint32_t>(f.required(f.integer("nOut", 1, UINT32_MAX), "nOut"));
  s.nw = static_cast<uint32_t>(f.required(f.integer("nw", 1, UINT32_MAX), "nw"));
  if (s.n_out > s.n_in) f.bad("nOut", std::to_string(s.n_out) + " is more than minNin " + std::to_string(s.n_in));
  s.description = f.text("description");
  s.validation_number = f.text("validationNumber");
  f.number("minHin", 0, 1e300, false);
  f.number("hOut", 0, 1e300, false);
  s.bijective = f.flag("bijectiveClaim");
  const auto h_prime = f.number("hPrime", 0, 1, true);
  const auto conditioned = f.text("unvettedConditionedPaths");
  if (s.vetted) {
    for (const char* key : {"hPrime", "unvettedConditionedPaths", "bijectiveClaim"}) {
      if (f.get(key)) f.bad(key, "applies to a non-vetted component (\"vetted\": false)");
    }
    return s;
  }
  if (s.validation_number) {
    f.bad("validationNumber", "applies to a vetted component (\"vetted\": true): a non-vetted one has no ACVTS validation");
  }
  if (h_prime.has_value() == conditioned.has_value()) {
    f.bad(h_prime ? "unvettedConditionedPaths" : "hPrime",
          "a non-vetted component needs h': hPrime or unvettedConditionedPaths (one of them)");
  }
  if (h_prime) s.h_prime = exact.at("hPrime").get<long double>();
  if (conditioned) s.conditioned = input_path(f, "unvettedConditionedPaths", *conditioned, folder);
  return s;
}

// conditioningComponent: its components in sequencePosition order (1..n, each once).
std::vector<SourceConditioning> chain_of(const Fields& f, const exact_json& exact, const std::string& where,
                                         const std::string& folder) {
  std::vector<SourceConditioning> chain;
  const json* list = f.get("conditioningComponent");
  if (!list) return chain;
  if (!list->is_array()) f.bad("conditioningComponent", "expected an array, got " + shown(*list));
  std::map<int64_t, SourceConditioning> by_position;
  for (size_t k = 0; k < list->size(); ++k) {
    const std::string at = "conditioningComponent[" + std::to_string(k) + "].";
    int64_t position = 0;
    SourceConditioning c = component_of((*list)[k], exact.at("conditioningComponent").at(k), where, at, folder, position);
    if (position > static_cast<int64_t>(list->size()) || !by_position.emplace(position, c).second) {
      fail(where + ": " + at + "sequencePosition",
           std::to_string(position) + ": the " + std::to_string(list->size()) + " components take the positions 1.." +
               std::to_string(list->size()) + ", each once");
    }
  }
  for (auto& [position, c] : by_position) chain.push_back(std::move(c));
  return chain;
}

// sampleFormat, selectBits and binBits: how the source's captures become symbols, by the
// rules of every front door (settings_rules.hpp), named by these fields.
std::optional<SampleInput> sample_input_of(const Fields& f, const std::string& where) {
  const auto format = f.text("sampleFormat");
  const auto select = f.text("selectBits");
  const auto bin = f.integer("binBits", INT32_MIN, INT32_MAX);
  if (!format && !select && !bin) return std::nullopt;
  SampleInput in;
  auto names = [&where](const std::string& key, const std::string&) {
    return where + ": " + (key == "select_bits" ? "selectBits" : key == "bin" ? "binBits"
                           : key == "sample_format"                  ? "sampleFormat"
                                                                     : key);
  };
  if (format) in.format = sample_format_setting(*format, names);
  SettingsGiven given;
  given.select_bits = select.has_value();
  given.bin = bin.has_value();
  if (select) in.rule = select_bits_rule(*select, names("select_bits", ""));
  if (bin && !select) {
    in.rule.kind = SymbolRule::Kind::Bin;
    in.rule.bits = static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(*bin, 9)));
    if (*bin < 1 || *bin > 8) f.bad("binBits", std::to_string(*bin) + " is out of range (1 to 8)");
  }
  Settings s;
  s.sample_input = in;
  check_settings(s, given, names);
  return in;
}

ManifestSource source_of(const json& s, const exact_json& exact, size_t k, const std::string& path,
                         const std::string& folder) {
  const std::string where = path + ": " + source_where(k, s);
  const Fields f(s, where, "", kSourceFields);
  ManifestSource m;
  m.index = k;
  m.spec.name = checked_name(f);
  m.spec.samples = input_path(f, "rawNoisePath", f.required(f.text("rawNoisePath"), "rawNoisePath"), folder);
  m.sample_input = sample_input_of(f, where);
  if (const auto r = f.text("restartTestPath")) {
    m.spec.restart_data = input_path(f, "restartTestPath", *r, folder);
    check_restart_file(f, *m.spec.restart_data, m.sample_input ? m.sample_input->format : SampleFormat::U8);
  }
  if (const auto b = f.integer("bitsPerSample", INT32_MIN, INT32_MAX)) m.bits = checked_bits(static_cast<int>(*b), where);
  m.iid_claim = f.flag("iidClaim");
  m.spec.h_submitter = f.number("hminEstimate", 0, m.bits ? *m.bits : 8, true);
  check_restart_shape(f, m.registration);
  m.registration.physical = f.flag("physical");
  m.registration.additional_noise_sources = f.flag("additionalNoiseSources");
  m.registration.oes = f.integer("numberOfOEs", 1, INT64_MAX);
  m.spec.conditioning = chain_of(f, exact, where, folder);
  m.stem = manifest_stem(m.spec.name);
  return m;
}

// Two sources of one name, or whose names give one file name (letter case aside).
void check_unique(const std::vector<ManifestSource>& sources, const std::string& path) {
  std::map<std::string, const ManifestSource*> names, stems;
  for (const ManifestSource& s : sources) {
    if (auto [at, fresh] = names.emplace(s.spec.name, &s); !fresh) {
      fail(path + ": " + s.where() + ": primaryNoiseSource", "the name of " + at->second->where() + " too; names must differ");
    }
    std::string folded = s.stem;  // one file name on a file system that ignores case (macOS, Windows)
    std::transform(folded.begin(), folded.end(), folded.begin(), [](unsigned char c) { return std::tolower(c); });
    if (auto [at, fresh] = stems.emplace(folded, &s); !fresh) {
      fail(path + ": " + s.where() + ": primaryNoiseSource",
           "its file name " + s.stem + " is " + at->second->where() + "'s too (" + at->second->stem +
               "; names differ only in letter case or in characters that file names replace by '_', and a "
               "file system that ignores case holds one of them)");
    }
  }
}

}  // namespace

std::string ManifestSource::where() const { return "sources[" + std::to_string(index) + "] (" + spec.name + ")"; }

std::string manifest_stem(const std::string& name) {
  std::string stem;
  for (char c : name) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    stem += plain ? c : '_';
  }
  return !stem.empty() && stem[0] == '.' ? "_" + stem : stem;
}

Manifest parse_manifest(const std::string& text, const std::string& path, const std::string& folder) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    fail(path, std::string("not a JSON document: ") + e.what());
  }
  const Fields top(doc, path, "", {"sources"});
  const json* sources = top.get("sources");
  if (!sources) top.bad("sources", "missing (required): the document is {\"sources\": [{...}, ...]}");
  if (!sources->is_array() || sources->empty()) top.bad("sources", "expected an array of at least one source, got " + shown(*sources));
  Manifest m;
  m.path = path;
  m.digest = to_hex(sha256(text));
  const exact_json exact = read_toward_zero(text);
  for (size_t k = 0; k < sources->size(); ++k) {
    m.sources.push_back(source_of((*sources)[k], exact.at("sources").at(k), k, path, folder));
  }
  check_unique(m.sources, path);
  return m;
}

Manifest read_manifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::Input, "the manifest " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(ErrorKind::Input, "the manifest " + path + ": cannot be read");
  return parse_manifest(text.str(), path, std::filesystem::path(path).parent_path().string());
}

}  // namespace ea
