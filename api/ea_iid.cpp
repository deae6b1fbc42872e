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

// What `o` gives: the fields that differ from their defaults (so that iterations=10000 is
// the same as not giving it).
ea::SettingsGiven given_of(const Options& o) {
  const Options d;
  ea::SettingsGiven g;
  g.track = o.track != d.track;
  g.bits = o.bits != d.bits;
  g.iterations = o.iterations != d.iterations;
  g.threads = o.threads != d.threads;
  g.restart = o.restart.has_value();
  g.prng = o.prng != d.prng;
  g.conditioned = o.conditioned;
  g.truncate_bitstring = o.truncate_bitstring;
  g.no_early_exit = !o.early_exit;
  g.all_tests = o.all_tests;
  g.until_decided = o.until_decided;
  return g;
}

// The checked Settings of `o`: the command line's rules (pipeline/settings_rules.hpp), each
// setting named by its field here (and its Python keyword).
ea::Settings settings_of(const Options& o) {
  const ea::SettingNames names = ea::keyword_name;
  ea::Settings s;
  try {
    s.track = ea::track_setting(o.track, names);
    s.width = o.bits;
    s.prng = ea::prng_setting(o.prng, names);
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
    ea::check_settings(s, given_of(o), names);
  } catch (const ea::Error& e) {
    throw Error("usage", e.what());
  }
  if (o.threads == 0) s.threads = omp_get_max_threads();
  s.seed = o.seed ? *o.seed : ea::draws_random_numbers(s) ? os_seed() : 0;
  return s;
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
    out.error_message = r.message;
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
  void run(const Call& call, std::vector<ea::Item> items, const Options& o, int jobs,
           const std::function<void(size_t, const Result&)>& on_item) {
    const ea::Settings s = settings_of(o);
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

  Result one(const Call& call, ea::Item item, const Options& o) {
    Result out;
    bool got = false;
    run(call, {std::move(item)}, o, 1, [&](size_t, const Result& r) {
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

ea::Item memory_item(std::vector<uint8_t> samples, const std::string& label, int bits) {
  ea::Item it;
  it.path = label;
  it.weight = samples.size();
  // The item's data set is made once (the run's one load of it): the samples move into it.
  auto data = std::make_shared<std::vector<uint8_t>>(std::move(samples));
  it.generate = [data, bits, label] {
    const std::string sha256 = ea::to_hex(ea::sha256(data->data(), data->size()));
    ea::Dataset d;
    try {
      d = ea::make_dataset(std::move(*data), bits);
    } catch (const ea::Error& e) {
      throw ea::Error(e.kind(), label + ": " + e.what());
    }
    // As a file's: the samples' SHA-256, and one symbol only is a degenerate source.
    d.sha256 = sha256;
    if (d.alphabet <= 1) {
      throw ea::Error(ea::ErrorKind::Degenerate, label + ": symbol alphabet consists of 1 symbol; no entropy awarded");
    }
    d.path = label;
    return d;
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
  if (count == 0) throw Error("input", label + ": no samples");
  return impl_->one(call, memory_item(std::vector<uint8_t>(samples, samples + count), label, options.bits), options);
}

Result Assessor::assess_file(const std::string& path, const Options& options) {
  const Impl::Call call(*impl_);
  return impl_->one(call, file_item(path), options);
}

void Assessor::assess_many(std::vector<Input> inputs, const Options& options, int jobs,
                           const std::function<void(size_t, const Result&)>& on_item) {
  const Impl::Call call(*impl_);
  std::vector<ea::Item> items;
  for (Input& in : inputs) {  // samples move into their items (one copy of each in all)
    items.push_back(in.path.empty() ? memory_item(std::move(in.samples), in.label, options.bits) : file_item(in.path));
  }
  impl_->run(call, std::move(items), options, jobs, on_item);
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

// The options a manifest run takes (seed, prng, iterations, until_decided, device, gpus,
// threads): the others are refused, naming the manifest's field where it gives the setting.
void refuse_per_source(const Options& o) {
  const Options d;
  const std::pair<bool, const char*> refused[] = {
      {o.track != d.track, "track: given per source in a manifest: its field iidClaim (false: the non-IID track)"},
      {o.bits != d.bits, "bits: given per source in a manifest: its field bitsPerSample"},
      {o.restart.has_value(), "restart: a manifest gives each source's restart data (restartTestPath); H_I comes from its steps"},
      {o.conditioned, "conditioned=true does not apply to a manifest's sources (ea_iid source takes no -c)"},
      {o.truncate_bitstring, "truncate_bitstring=true does not apply to a manifest's sources (ea_iid source takes no -t)"},
      {o.all_tests, "all_tests=true does not apply to a manifest's sources (ea_iid source takes no --all-tests)"},
      {!o.early_exit, "early_exit=false does not apply to a manifest's sources (ea_iid source takes no --no-early-exit)"}};
  for (const auto& [given, message] : refused) {
    if (given) throw Error("usage", message);
  }
}

// The manifest run's settings from `o`, checked by the rules every front door uses (as
// `ea_iid source --manifest` checks them), each setting named by its keyword.
ea::Settings manifest_settings(const Options& o, const ea::Manifest& m) {
  const ea::SettingNames names = ea::keyword_name;
  ea::Settings s;
  try {
    s.prng = ea::prng_setting(o.prng, names);
    s.iterations = o.iterations;
    s.device = ea::device_setting(o.device, names);
    s.gpus = o.gpus;
    s.threads = o.threads;
    ea::SettingsGiven g;
    const ea::SettingsGiven all = given_of(o);
    g.iterations = all.iterations;
    g.threads = all.threads;
    g.prng = all.prng;
    g.until_decided = all.until_decided;
    ea::check_manifest_settings(m, s, g, false, names);
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
