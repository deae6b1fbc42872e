// The C++ API (include/ea_iid/ea_iid.hpp) over the engine and the report layer: the same
// items, settings and records as the command line, without its printing.
#include "ea_iid/ea_iid.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <cmath>
#include <limits>
#include <random>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "conditioning.hpp"
#include "files.hpp"
#include "lab.hpp"
#include "manifest.hpp"
#include "manifest_run.hpp"
#include "record.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "settings_rules.hpp"
#include "version.hpp"

namespace ea_iid {

std::string version() { return std::string(ea::kVersion) + " (commit " + ea::kGitCommit + ", " + ea::kBuildDevice + ")"; }

namespace {

uint64_t os_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ static_cast<uint64_t>(rd());
}

// What `o` gives: the fields listed in o.given, else those that differ from their defaults
// (so that iterations=10000 is the same as not giving it).
// Whether `o` gives the field `key`: listed in o.given, or (o.given empty) `differs` from its default.
template <class O>
bool gives(const O& o, const char* key, bool differs) {
  return o.given.empty() ? differs : std::find(o.given.begin(), o.given.end(), key) != o.given.end();
}

ea::SettingsGiven given_of(const Options& o) {
  const Options d;
  ea::SettingsGiven g;
  const auto given = [&](const char* key, bool differs) { return gives(o, key, differs); };
  g.track = given("track", o.track != d.track);
  g.bits = given("bits", o.bits != d.bits);
  g.iterations = given("iterations", o.iterations != d.iterations);
  g.threads = given("threads", o.threads != d.threads);
  g.restart = o.restart.has_value();
  g.prng = given("prng", o.prng != d.prng);
  g.shuffle = given("shuffle", o.shuffle != d.shuffle);
  g.conditioned = o.conditioned;
  g.truncate_bitstring = o.truncate_bitstring;
  g.no_early_exit = !o.early_exit;
  g.all_tests = o.all_tests;
  g.until_decided = o.until_decided;
  g.select_bits = given("select_bits", o.select_bits != d.select_bits);
  g.bin = given("bin", o.bin != d.bin);
  g.gpus = given("gpus", o.gpus != d.gpus);
  return g;
}

// sample_format, select_bits and bin as one setting (their ranges and exclusion are
// check_settings' rules, as for the command line's flags).
template <class O>
ea::SampleInput sample_input_of(const O& o, const ea::SettingNames& names) {
  ea::SampleInput in;
  in.format = ea::sample_format_setting(o.sample_format, names);
  if (!o.select_bits.empty()) {
    in.rule = ea::select_bits_rule(o.select_bits, names("select_bits", ""));
  } else if (gives(o, "bin", o.bin != 0)) {  // bin=0 given: refused by the range
    in.rule.kind = ea::SymbolRule::Kind::Bin;
    in.rule.bits = o.bin;
  }
  return in;
}

// The Settings that `o`'s fields fill, not yet checked (the one mapping of the API's fields,
// for one assessment and for a manifest run alike; the named choices' parsers throw ea::Error).
ea::Settings filled_settings(const Options& o, const ea::SettingNames& names) {
  ea::Settings s;
  s.track = ea::track_setting(o.track, names);
  s.width = o.bits;
  s.prng = ea::prng_setting(o.prng, names);
  s.shuffle = ea::shuffle_setting(o.shuffle, names);
  s.iterations = o.iterations;
  s.initial_entropy = !o.conditioned;
  s.truncate_bitstring = o.truncate_bitstring;
  s.early_exit = o.early_exit;
  s.all_tests = o.all_tests;
  s.until_decided = o.until_decided;
  s.device = ea::device_setting(o.device, names);
  s.gpus = o.gpus;
  s.threads = o.threads;
  if (o.restart) s.restart = ea::RestartSpec{*o.restart};
  s.sample_input = sample_input_of(o, names);
  return s;
}

// `message` with the advice of its remedy in this API's words (its options' names).
std::string worded(const std::string& message, ea::Remedy remedy) {
  switch (remedy) {
    case ea::Remedy::MapSamples:
      return message + "; make samples symbols with select_bits=MASK (or \"auto\", the search for the best mask) or bin=B";
    case ea::Remedy::MixedWidths: return message + "; give bits, or test them apart";
    default: return message;
  }
}

// The last steps of every call's settings here: the GPUs asked for are there (Error "device"),
// threads 0 becomes every core, and a seed not given is drawn from the OS where the run draws
// random numbers.
ea::Settings finished(ea::Settings s, const ea::SettingNames& names, int threads, const std::optional<uint64_t>& seed) {
  try {
    ea::require_gpus(s, names);
  } catch (const ea::Error& e) {
    throw Error("device", e.what());
  }
  if (threads == 0) s.threads = omp_get_max_threads();
  s.seed = seed ? *seed : ea::draws_random_numbers(s) ? os_seed() : 0;
  return s;
}

// The checked Settings of `o`: the command line's rules (pipeline/settings_rules.hpp), each
// setting named by its field here (and its Python keyword).
ea::Settings settings_of(const Options& o) {
  const ea::SettingNames names = ea::keyword_name;
  ea::Settings s;
  try {
    s = filled_settings(o, names);
    ea::check_settings(s, given_of(o), names);
  } catch (const ea::Error& e) {
    throw Error("usage", e.what());
  }
  return finished(std::move(s), names, o.threads, o.seed);
}

Result result_of(const ea::ItemResult& r, const ea::Item& it, const ea::Settings& s, const ea::ReportOptions& ro) {
  const ea::Record record = ea::record_of(r, it.path, it.block, ro);
  Result out;
  out.json = ea::dump_json(record.json);
  out.label = it.path;
  out.verdict = ea::verdict_of(record.json);
  out.seed = s.seed;
  out.min_entropy = std::numeric_limits<double>::quiet_NaN();
  if (r.assessed()) {
    out.for_compliance = r.for_compliance();
    if (const auto* a = r.iid()) out.min_entropy = a->min_entropy();
    if (const auto* n = r.non_iid()) out.min_entropy = n->estimates.h_assessed;
    if (const auto* rs = r.restart()) {
      if (rs->tested() && rs->failures().empty()) out.min_entropy = rs->result();  // min(H_r, H_c, H_I) stands
    }
  } else if (r.status == ea::ItemResult::Status::Failed) {
    out.error_kind = record.json.value("errorKind", std::string("internal"));
    out.error_message = worded(r.message, r.remedy);
  } else if (r.status == ea::ItemResult::Status::Skipped) {
    out.error_message = r.message;
  }
  return out;
}

}  // namespace

// One call at a time (call_mutex, held for the whole call); each call has a cancel flag of
// its own, installed at its start, so that cancel() stops the call in progress, from its
// first step (copying samples) to its last, and never one that has not begun.
struct Assessor::Impl {
  ea::Engine engine;
  std::mutex call_mutex;
  std::mutex token_mutex;
  std::shared_ptr<std::atomic<bool>> token;  // the call in progress's, or null

  struct Call {
    Impl& impl;
    std::unique_lock<std::mutex> lock;
    std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
    explicit Call(Impl& i) : impl(i), lock(i.call_mutex) {
      std::lock_guard<std::mutex> g(impl.token_mutex);
      impl.token = cancelled;
    }
    ~Call() {
      std::lock_guard<std::mutex> g(impl.token_mutex);
      impl.token.reset();
    }
  };

  void cancel() {
    std::lock_guard<std::mutex> g(token_mutex);
    if (token) token->store(true);
  }

  // Runs `items`; throws Error("interrupted") when cancelled before every item was delivered.
  // `s`: settings_of(o).
  void run(const Call& call, std::vector<ea::Item> items, const Options& o, const ea::Settings& s, int jobs,
           const std::function<void(size_t, const Result&)>& on_item) {
    ea::ReportOptions ro;
    ro.started = ea::timestamp_now();
    ro.command_line = o.command_line;
    ro.quiet = true;
    ro.track = ea::track_of(s);
    if (!items.empty()) ro.first_file = items.front().path;
    size_t delivered = 0;
    ea::RunObserver obs;
    obs.finished = [&](size_t k, const ea::Item& it, ea::ItemResult& r) {
      if (r.status == ea::ItemResult::Status::Interrupted) return;
      ++delivered;
      on_item(k, result_of(r, it, s, ro));
    };
    jobs = std::max(1, jobs);
    const ea::RunPlan plan{jobs, std::max(1, s.threads / jobs)};
    const ea::RunSummary sum = engine.run(items, s, plan, *call.cancelled, obs);
    if (sum.interrupted && delivered < items.size()) throw Error("interrupted", "cancelled");
    if (!sum.stopped_by.empty()) throw Error("internal", sum.stopped_by);
  }

  Result one(const Call& call, ea::Item item, const Options& o, const ea::Settings& s) {
    Result out;
    bool got = false;
    run(call, {std::move(item)}, o, s, 1, [&](size_t, const Result& r) {
      out = r;
      got = true;
    });
    if (!got) throw Error("interrupted", "cancelled");
    if (!out.error_kind.empty()) throw Error(out.error_kind, out.error_message);
    return out;
  }
};

Assessor::Assessor() : impl_(std::make_unique<Impl>()) {}
Assessor::~Assessor() = default;

namespace {

// As load_dataset makes a file's: the symbols' data set, with the SHA-256 of the samples as
// given and the mapping that made the symbols; one symbol only is a degenerate source.
ea::Dataset memory_dataset(std::vector<uint8_t> symbols, ea::SampleMapping mapping, int width, const std::string& label,
                           const std::string& sha256) {
  ea::Dataset d;
  try {
    d = ea::make_dataset(std::move(symbols), width);
  } catch (const ea::Error& e) {
    throw ea::Error(e.kind(), label + ": " + e.what());
  }
  d.sha256 = sha256;
  if (d.alphabet <= 1) {
    throw ea::Error(ea::ErrorKind::Degenerate, label + ": symbol alphabet consists of 1 symbol; no entropy awarded");
  }
  d.path = label;
  d.mapping = std::move(mapping);
  return d;
}

// Bytes in memory (assess): the samples one per byte, or (another format, or a rule) the
// bytes of a file of the settings' format, read as load_dataset reads one.
ea::Item memory_item(std::vector<uint8_t> samples, const std::string& label, const ea::Settings& s) {
  ea::Item it;
  it.path = label;
  it.weight = samples.size();
  // The item's data set is made once (the run's one load of it): the samples move into it.
  auto data = std::make_shared<std::vector<uint8_t>>(std::move(samples));
  it.generate = [data, label, width = s.width, in = s.sample_input, threads = s.threads] {
    const std::string sha256 = ea::to_hex(ea::sha256(data->data(), data->size()));
    ea::SampleMapping mapping;
    mapping.input = in;
    if (in.is_default()) return memory_dataset(std::move(*data), mapping, width, label, sha256);
    const std::vector<uint32_t> values = ea::decode_capture(data->data(), data->size(), in.format, label);
    std::vector<uint8_t>().swap(*data);
    std::vector<uint8_t> symbols = ea::map_samples(values, in, label, mapping, threads);
    return memory_dataset(std::move(symbols), std::move(mapping), width, label, sha256);
  };
  return it;
}

// assess_values takes the layouts of values wider than a byte only: its SHA-256 is of them.
void check_values_format(const ea::Settings& s) {
  const ea::SampleFormat f = s.sample_input.format;
  if (f == ea::SampleFormat::U8 || f == ea::SampleFormat::Text) {
    throw Error("usage", std::string("sample_format: \"") + ea::sample_format_name(f) +
                             "\" does not apply to values in memory (assess_values): give u16le, u16be, u32le or u32be, "
                             "the layout in which a file would hold them (the record's SHA-256 is of that layout); "
                             "samples of one byte go to assess");
  }
}

// The SHA-256 of `values` stored in `format` (u16/u32, either byte order), each checked to fit it.
std::string values_sha256(const std::vector<uint32_t>& values, ea::SampleFormat format, const std::string& label) {
  const int bytes = ea::sample_bytes(format);
  const bool big = format == ea::SampleFormat::U16BE || format == ea::SampleFormat::U32BE;
  const uint64_t top = bytes == 2 ? 0xffffu : 0xffffffffu;
  ea::Sha256 h;
  std::vector<uint8_t> chunk;
  chunk.reserve(size_t{1} << 16);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t v = values[i];
    if (v > top) {
      throw ea::Error(ea::ErrorKind::Input, label + ": sample " + std::to_string(i) + " is " + std::to_string(v) +
                                                ", wider than the " + std::to_string(8 * bytes) + " bits of a " +
                                                ea::sample_format_name(format) +
                                                " sample");
    }
    for (int b = 0; b < bytes; ++b) {
      const int shift = 8 * (big ? bytes - 1 - b : b);
      chunk.push_back(static_cast<uint8_t>(v >> shift));
    }
    if (chunk.size() >= (size_t{1} << 16) - 4) {
      h.update(chunk.data(), chunk.size());
      chunk.clear();
    }
  }
  h.update(chunk.data(), chunk.size());
  return ea::to_hex(h.finish());
}

// Values wider than a byte (assess_values): mapped by the settings' rule; the SHA-256 is of
// the values in the settings' format (check_values_format first).
ea::Item values_item(std::vector<uint32_t> values, const std::string& label, const ea::Settings& s) {
  ea::Item it;
  it.path = label;
  it.weight = values.size();
  auto data = std::make_shared<std::vector<uint32_t>>(std::move(values));
  it.generate = [data, label, width = s.width, in = s.sample_input, threads = s.threads] {
    const std::string sha256 = values_sha256(*data, in.format, label);
    ea::SampleMapping mapping;
    std::vector<uint8_t> symbols = ea::map_samples(*data, in, label, mapping, threads);
    std::vector<uint32_t>().swap(*data);
    return memory_dataset(std::move(symbols), std::move(mapping), width, label, sha256);
  };
  return it;
}

ea::Item file_item(const std::string& path) {
  std::vector<ea::Item> items = ea::expand_items({path}, std::nullopt, std::nullopt, false);
  return items.front();
}

}  // namespace

Result Assessor::assess(const uint8_t* samples, size_t count, const Options& options, const std::string& label) {
  const Impl::Call call(*impl_);
  const ea::Settings s = settings_of(options);
  if (count == 0) throw Error("input", label + ": no samples");
  return impl_->one(call, memory_item(std::vector<uint8_t>(samples, samples + count), label, s), options, s);
}

Result Assessor::assess_values(const uint32_t* values, size_t count, const Options& options, const std::string& label) {
  const Impl::Call call(*impl_);
  const ea::Settings s = settings_of(options);
  check_values_format(s);
  if (count == 0) throw Error("input", label + ": no samples");
  return impl_->one(call, values_item(std::vector<uint32_t>(values, values + count), label, s), options, s);
}

Result Assessor::assess_file(const std::string& path, const Options& options) {
  const Impl::Call call(*impl_);
  const ea::Settings s = settings_of(options);
  return impl_->one(call, file_item(path), options, s);
}

void Assessor::assess_many(std::vector<Input> inputs, const Options& options, int jobs,
                           const std::function<void(size_t, const Result&)>& on_item) {
  const Impl::Call call(*impl_);
  const ea::Settings s = settings_of(options);
  std::vector<ea::Item> items;
  for (Input& in : inputs) {  // samples move into their items (one copy of each in all)
    if (!in.path.empty()) {
      items.push_back(file_item(in.path));
    } else if (!in.values.empty()) {
      check_values_format(s);
      items.push_back(values_item(std::move(in.values), in.label, s));
    } else {
      items.push_back(memory_item(std::move(in.samples), in.label, s));
    }
  }
  impl_->run(call, std::move(items), options, s, jobs, on_item);
}

namespace {

std::string kind_name(ea::ErrorKind k) {
  switch (k) {
    case ea::ErrorKind::Usage: return "usage";
    case ea::ErrorKind::Input: return "input";
    case ea::ErrorKind::Output: return "output";
    case ea::ErrorKind::Device: return "device";
    case ea::ErrorKind::Interrupted: return "interrupted";
    case ea::ErrorKind::Degenerate: return "degenerate";
    default: return "internal";
  }
}

// The options a manifest run takes (seed, prng, shuffle, iterations, until_decided, device, gpus,
// threads): the others are refused, naming the manifest's field where it gives the setting.
void refuse_per_source(const Options& o) {
  const Options d;
  const auto given = [&](const char* key, bool differs) { return gives(o, key, differs); };
  const std::pair<bool, const char*> refused[] = {
      {given("track", o.track != d.track), "track: given per source in a manifest: its field iidClaim (false: the non-IID track)"},
      {given("bits", o.bits != d.bits), "bits: given per source in a manifest: its field bitsPerSample"},
      {given("sample_format", o.sample_format != d.sample_format),
       "sample_format: given per source in a manifest: its field sampleFormat"},
      {given("select_bits", o.select_bits != d.select_bits), "select_bits: given per source in a manifest: its field selectBits"},
      {given("bin", o.bin != d.bin), "bin: given per source in a manifest: its field binBits"},
      {o.restart.has_value(), "restart: a manifest gives each source's restart data (restartTestPath); H_I comes from its steps"},
      {given("conditioned", o.conditioned), "conditioned does not apply to a manifest's sources (ea_iid source takes no -c)"},
      {given("truncate_bitstring", o.truncate_bitstring),
       "truncate_bitstring does not apply to a manifest's sources (ea_iid source takes no -t)"},
      {given("all_tests", o.all_tests), "all_tests does not apply to a manifest's sources (ea_iid source takes no --all-tests)"},
      {given("early_exit", !o.early_exit),
       "early_exit does not apply to a manifest's sources (ea_iid source takes no --no-early-exit)"}};
  for (const auto& [given, message] : refused) {
    if (given) throw Error("usage", message);
  }
}

// The manifest run's settings from `o` (refuse_per_source has refused the fields a manifest
// gives per source), filled by the one mapping of the API's fields and checked by the rules
// every front door uses (as `ea_iid source --manifest` checks them), named by keyword.
ea::Settings manifest_settings(const Options& o, const ea::Manifest& m) {
  const ea::SettingNames names = ea::keyword_name;
  ea::Settings s;
  try {
    s = filled_settings(o, names);
    ea::check_manifest_settings(m, s, given_of(o), false, names);
  } catch (const ea::Error& e) {
    throw Error("usage", e.what());
  }
  if (o.threads == 0) s.threads = omp_get_max_threads();
  return s;
}

SourceResult source_result_of(const ea::ManifestSource& src, const nlohmann::ordered_json& row) {
  SourceResult out;
  out.json = ea::dump_json(row);
  out.name = src.spec.name;
  nlohmann::ordered_json record = row;
  record.erase("run");
  const ea::LabLine l = ea::lab_line(ea::LabRow{src.spec.name, record, "", src.iid_claim});
  out.result = l.result;
  out.unit = l.unit;
  out.for_compliance = l.for_compliance;
  out.entropy = std::numeric_limits<double>::quiet_NaN();
  const auto flow = row.find("flow");
  if (flow != row.end() && flow->is_object() && flow->contains("claimed") && (*flow)["claimed"].is_number()) {
    out.entropy = (*flow)["claimed"].get<double>();
  }
  if (row.value("errorLevel", 0) != 0) {
    out.error_kind = row.value("errorKind", std::string("internal"));
    out.error_message = row.value("errorMessage", std::string());
  }
  return out;
}

}  // namespace

std::vector<SourceResult> Assessor::assess_manifest(const std::string& path, const Options& options, int jobs,
                                                    const std::function<void(size_t, const SourceResult&)>& on_source) {
  const Impl::Call call(*impl_);
  refuse_per_source(options);
  ea::Manifest m;
  try {
    m = ea::read_manifest(path);
  } catch (const ea::Error& e) {
    throw Error(kind_name(e.kind()), e.what());
  }
  const ea::Settings base = manifest_settings(options, m);
  std::vector<ea::Settings> settings;
  for (const ea::ManifestSource& src : m.sources) settings.push_back(ea::manifest_source_settings(src, base, false));
  const bool draws = std::any_of(settings.begin(), settings.end(), ea::draws_random_numbers);
  const std::optional<uint64_t> seed = draws ? std::optional<uint64_t>(options.seed ? *options.seed : os_seed()) : std::nullopt;
  for (ea::Settings& s : settings) s.seed = seed ? *seed : options.seed.value_or(0);
  ea::ReportOptions ro;
  ro.started = ea::timestamp_now();
  ro.command_line = options.command_line;
  ro.quiet = true;
  std::vector<size_t> todo(m.sources.size());
  for (size_t k = 0; k < todo.size(); ++k) todo[k] = k;
  std::vector<SourceResult> out;
  ea::ManifestHooks hooks;
  hooks.finished = [&](size_t k, nlohmann::ordered_json record) {
    record["run"] = ea::manifest_run_json(m, k, seed, std::nullopt);
    out.push_back(source_result_of(m.sources[k], record));
    if (on_source) on_source(k, out.back());
  };
  ea::ManifestSummary sum;
  try {
    sum = ea::run_manifest_sources(impl_->engine, jobs, m, todo, settings, ro, *call.cancelled, hooks);
  } catch (const ea::Error& e) {
    throw Error(kind_name(e.kind()), e.what());
  }
  if (sum.interrupted) throw Error("interrupted", "cancelled");
  return out;
}

void Assessor::cancel() { impl_->cancel(); }

std::string list_prngs_json() {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ea::PrngInfo& p : ea::prng_table()) {
    list.push_back({{"name", p.name},
                    {"fullName", p.full_name},
                    {"streams", p.streams},
                    {"forCompliance", p.compliance},
                    {"caveat", p.caveat}});
  }
  return list.dump();
}

}  // namespace ea_iid

namespace ea_iid {

namespace {

// The checked Settings of the health tests' options (check_settings' rules, as the command
// line's health-tests flags; `files`: whether sample files are given).
ea::Settings health_settings_of(const HealthOptions& o, bool files) {
  // (the claim is the field `h`, the health tests' setting elsewhere)
  const ea::SettingNames names = [](const std::string& key, const std::string& value) {
    return ea::keyword_name(key == "health_tests" ? "h" : key, value);
  };
  const HealthOptions d;
  const auto given = [&](const char* key, bool differs) { return gives(o, key, differs); };
  ea::Settings s;
  try {
    s.health = ea::HealthSpec{o.h, ea::alpha_setting(o.alpha, names)};
    s.health->simulate = o.simulate;
    s.width = o.bits;
    s.device = ea::device_setting(o.device, names);
    s.gpus = o.gpus;
    s.threads = o.threads;
    s.sample_input = sample_input_of(o, names);
    ea::SettingsGiven g;
    g.alpha = given("alpha", o.alpha != d.alpha);
    g.bits = given("bits", o.bits != d.bits);
    g.threads = given("threads", o.threads != d.threads);
    g.gpus = given("gpus", o.gpus != d.gpus);
    g.seed = o.seed.has_value();
    g.simulate = given("simulate", o.simulate != d.simulate);
    g.device = given("device", o.device != d.device);
    g.sample_format = given("sample_format", o.sample_format != d.sample_format);
    g.select_bits = given("select_bits", !o.select_bits.empty());
    g.bin = given("bin", o.bin != d.bin);
    g.inputs = files;
    ea::check_settings(s, g, names);
  } catch (const ea::Error& e) {
    throw Error("usage", e.what());
  }
  return finished(std::move(s), names, o.threads, o.seed);
}

}  // namespace

HealthResult Assessor::health_tests(const HealthOptions& options, const std::vector<std::string>& files) {
  const ea::Settings s = health_settings_of(options, !files.empty());
  const Impl::Call call(*impl_);
  ea::ReportOptions ro;
  ro.started = ea::timestamp_now();
  ro.command_line = options.command_line;
  ro.quiet = true;
  ea::HealthAssessment a;
  try {
    a = ea::assess_health(s, files, call.cancelled.get());
  } catch (const ea::Error& e) {
    throw Error(call.cancelled->load() ? "interrupted" : kind_name(e.kind()), worded(e.what(), e.remedy()));
  }
  if (call.cancelled->load()) throw Error("interrupted", "cancelled");
  HealthResult r;
  r.json = ea::dump_json(ea::health_json(a, ro));
  r.failed = a.failed();
  return r;
}

namespace {

// The checked input of a conditioning call (check_conditioning_settings' rules, as the command
// line's; each setting named by its field, a file by the field alone).
ea::ConditioningInput conditioning_input(const ConditioningOptions& o) {
  const ea::SettingNames names = [](const std::string& key, const std::string& value) {
    return value == "FILE" ? key : ea::keyword_name(key, value);
  };
  ea::ConditioningInput in;
  try {
    if (o.kind != "vetted" && o.kind != "non-vetted") {
      throw ea::Error(ea::ErrorKind::Usage, "kind: '" + o.kind + "' is not a kind of component; expected vetted or non-vetted");
    }
    in.vetted = o.kind == "vetted";
    ea::ConditioningGiven g;
    g.h_prime = !o.h_prime.empty();
    g.conditioned = !o.conditioned.empty();
    g.conditioned_iid = o.conditioned_iid;
    g.bits = o.bits.has_value();
    ea::check_conditioning_settings(in.vetted, g, names);
    if (g.bits && (*o.bits < 1 || *o.bits > 8)) {
      throw ea::Error(ea::ErrorKind::Usage, "bits: " + std::to_string(*o.bits) + " is out of range (1 to 8)");
    }
    ea::check_conditioning_bits(o.n_in, "n_in");
    ea::check_conditioning_bits(o.n_out, "n_out");
    ea::check_conditioning_bits(o.nw, "nw");
    in.n_in = static_cast<uint32_t>(o.n_in);
    in.n_out = static_cast<uint32_t>(o.n_out);
    in.nw = static_cast<uint32_t>(o.nw);
    in.h_in = ea::parse_conditioning_number(o.h_in, "h_in");
    if (g.h_prime) in.h_prime = ea::parse_conditioning_number(o.h_prime, "h_prime");
    if (!g.conditioned) ea::check_conditioning_input(in);  // (with a file: before it is read, in the pipeline)
  } catch (const ea::Error& e) {
    throw Error("usage", e.what());
  }
  return in;
}

}  // namespace

ConditioningResult Assessor::conditioning(const ConditioningOptions& options) {
  const ea::ConditioningInput in = conditioning_input(options);
  ea::Settings s;
  s.width = options.bits.value_or(0);
  s.threads = 0;  // (as the command line: the conditioned file's estimates on every core)
  const Impl::Call call(*impl_);
  ea::ReportOptions ro;
  ro.track = ea::Track::Iid;
  ro.started = ea::timestamp_now();
  ro.command_line = options.command_line;
  ro.quiet = true;
  std::optional<std::string> file;
  if (!options.conditioned.empty()) file = options.conditioned;
  ea::ConditioningAssessment a;
  try {
    a = ea::assess_conditioning(in, file, options.conditioned_iid, s, call.cancelled.get());
  } catch (const ea::Error& e) {
    throw Error(call.cancelled->load() ? "interrupted" : kind_name(e.kind()), worded(e.what(), e.remedy()));
  }
  if (call.cancelled->load()) throw Error("interrupted", "cancelled");
  ConditioningResult r;
  r.json = ea::dump_json(ea::conditioning_json(a, ro));
  r.h_out = static_cast<double>(a.result.h_out);
  return r;
}

}  // namespace ea_iid
