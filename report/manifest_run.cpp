#include "manifest_run.hpp"
#include "runner.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <memory>
#include <mutex>
#include <thread>

#include "common/error.hpp"
#include "common/numbers.hpp"
#include "record.hpp"
#include "report.hpp"
#include "settings_fields.hpp"
#include "source.hpp"

namespace ea {

using nlohmann::ordered_json;

Settings manifest_source_settings(const ManifestSource& m, const Settings& base, bool permutation_counters) {
  Settings s = base;
  if (m.bits) s.width = *m.bits;
  if (m.sample_input) s.sample_input = *m.sample_input;
  s.track = m.track();
  s.until_decided = s.track == TrackChoice::Auto && !permutation_counters;
  return s;
}

SettingNames manifest_setting_names(const SettingNames& door) {
  return [door](const std::string& key, const std::string& value) -> std::string {
    if (key == "track") return value == "non-iid" ? "iidClaim false (every source of the manifest)" : "iidClaim";
    if (key == "bits") return "bitsPerSample";
    return door(key, value);
  };
}

void check_manifest_settings(const Manifest& m, const Settings& base, const SettingsGiven& given,
                             bool permutation_counters, const SettingNames& names) {
  const bool any_iid_tests = std::any_of(m.sources.begin(), m.sources.end(),
                                         [](const ManifestSource& x) { return x.track() == TrackChoice::Auto; });
  Settings probe = base;
  probe.track = any_iid_tests ? TrackChoice::Auto : TrackChoice::NonIid;
  probe.until_decided = probe.track == TrackChoice::Auto && !permutation_counters;
  SettingsGiven g = given;
  g.track = false;  // per source: the manifest's iidClaim
  g.bits = false;   // per source: bitsPerSample, checked by the manifest's reader
  check_settings(probe, g, manifest_setting_names(names));
  require_gpus(probe, names);
}

std::vector<size_t> manifest_share(const Manifest& m, uint64_t k, uint64_t n) {
  std::vector<Item> items;
  for (const ManifestSource& s : m.sources) {
    Item it;
    it.path = s.spec.samples;
    for (const std::string* p : {&s.spec.samples, s.spec.restart_data ? &*s.spec.restart_data : nullptr}) {
      struct stat st {};
      if (p && ::stat(p->c_str(), &st) == 0) it.weight += static_cast<uint64_t>(st.st_size);
    }
    it.weight = std::max<uint64_t>(it.weight, 1);
    items.push_back(std::move(it));
  }
  return share_of(items, k, n);
}

ordered_json manifest_run_json(const Manifest& m, size_t k, const std::optional<uint64_t>& seed,
                               const std::optional<Shard>& shard, const std::optional<std::string>& page) {
  const ManifestSource& src = m.sources[k];
  return {{"item", k},
          {"items", m.sources.size()},
          {"list", m.digest},
          {"userSeed", seed ? ordered_json(std::to_string(*seed)) : ordered_json(nullptr)},
          {"shard", shard ? ordered_json{{"index", shard->first}, {"count", shard->second}} : ordered_json(nullptr)},
          {"source", src.spec.name},
          {"iidClaim", src.iid_claim ? ordered_json(*src.iid_claim) : ordered_json(nullptr)},
          {"page", page ? ordered_json(*page) : ordered_json(nullptr)}};
}

namespace {

// One source through assess_source on `engine`: its record, an error record when it could not
// be assessed, none when `interrupt` stopped it.
std::optional<ordered_json> assess_one(Engine& engine, const Manifest& m, size_t k, const Settings& s, ReportOptions ro,
                                       const std::atomic<bool>& interrupt, const ManifestHooks& hooks) {
  const ManifestSource& src = m.sources[k];
  ro.first_file = src.spec.samples;
  ro.track = s.track == TrackChoice::NonIid ? Track::NonIid : Track::Iid;
  if (hooks.started) hooks.started(k);
  const RunObserver watch = hooks.watch ? hooks.watch(k) : RunObserver{};
  try {
    const SourceAssessment a = assess_source(engine, src.spec, s, interrupt, watch);
    if (interrupt.load()) return std::nullopt;
    return source_json(a, ro);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted || interrupt.load()) return std::nullopt;
    if (e.kind() == ErrorKind::Output) throw;
    const std::string message = hooks.failed ? hooks.failed(k, e) : std::string(e.what());
    return error_json(ro, message, e.kind(), "", &src.spec.samples);
  }
}

// What the workers of a run with --jobs share: the next source to take, and each one's record
// until the calling thread delivers it.
struct Pool {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::optional<ordered_json>> records;
  std::vector<bool> settled;
  size_t next = 0;
  int running = 0;
  bool stop = false;
  std::exception_ptr failure;
};

void work(Pool& p, Engine& engine, const Manifest& m, const std::vector<size_t>& todo,
          const std::vector<Settings>& settings, const ReportOptions& ro, const std::atomic<bool>& interrupt,
          const ManifestHooks& hooks) {
  while (true) {
    size_t i = 0;
    {
      std::lock_guard<std::mutex> lock(p.mu);
      if (p.stop || interrupt.load() || p.next >= todo.size()) break;
      i = p.next++;
    }
    std::optional<ordered_json> record;
    std::exception_ptr failure;
    try {
      record = assess_one(engine, m, todo[i], settings[todo[i]], ro, interrupt, hooks);
      if (hooks.ended) hooks.ended(todo[i]);
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(p.mu);
    if (failure && !p.failure) p.failure = failure;
    p.stop = p.stop || failure != nullptr;
    p.records[i] = std::move(record);
    p.settled[i] = true;
    p.cv.notify_all();
  }
  std::lock_guard<std::mutex> lock(p.mu);
  --p.running;
  p.cv.notify_all();
}

// The records in the order of `todo`, as they are settled; stops at the first source that no
// worker took (the run was stopped).
void deliver(Pool& p, const std::vector<size_t>& todo, const ManifestHooks& hooks, ManifestSummary& sum) {
  for (size_t i = 0; i < todo.size(); ++i) {
    std::optional<ordered_json> record;
    {
      std::unique_lock<std::mutex> lock(p.mu);
      p.cv.wait(lock, [&] { return p.settled[i] || p.running == 0; });
      if (!p.settled[i]) return;
      record = std::move(p.records[i]);
    }
    if (!record) continue;  // interrupted while it ran
    hooks.finished(todo[i], std::move(*record));
    ++sum.finished;
  }
}

}  // namespace

ManifestSummary run_manifest_sources(Engine& engine, int jobs, const Manifest& m, const std::vector<size_t>& todo,
                                     const std::vector<Settings>& settings, const ReportOptions& ro,
                                     const std::atomic<bool>& interrupt, const ManifestHooks& hooks) {
  ManifestSummary sum;
  // One path for every --jobs: `jobs` workers take the sources in the order of `todo`, and the
  // calling thread delivers their records in that order (with one worker, as one loop would).
  jobs = static_cast<int>(std::min<size_t>(std::max(1, jobs), std::max<size_t>(todo.size(), 1)));
  Pool p;
  p.records.resize(todo.size());
  p.settled.assign(todo.size(), false);
  p.running = jobs;
  std::vector<std::unique_ptr<Engine>> own;
  for (int w = 1; w < jobs; ++w) own.push_back(std::make_unique<Engine>());
  std::vector<std::thread> workers;
  for (int w = 0; w < jobs; ++w) {
    Engine& e = w == 0 ? engine : *own[static_cast<size_t>(w - 1)];
    workers.emplace_back([&p, &e, &m, &todo, &settings, &ro, &interrupt, &hooks] {
      work(p, e, m, todo, settings, ro, interrupt, hooks);
    });
  }
  std::exception_ptr failure;
  try {
    deliver(p, todo, hooks, sum);
  } catch (...) {  // `finished` threw: no new source starts; the running ones end first
    failure = std::current_exception();
    std::lock_guard<std::mutex> lock(p.mu);
    p.stop = true;
  }
  for (std::thread& t : workers) t.join();
  if (!failure) failure = p.failure;
  if (failure) std::rethrow_exception(failure);
  sum.interrupted = sum.finished < todo.size();
  return sum;
}

}  // namespace ea

namespace ea {

namespace {

// What the rows of one manifest run share, set by the first row read.
struct OneRun {
  std::optional<std::string> list, seed, settings_from;
  std::optional<uint64_t> items, shares;
  std::map<std::string, std::string> settings;  // "option (track)" -> the recorded value
  std::set<uint64_t> seen_shares;
};

[[noreturn]] void refuse_row(const std::string& where, const std::string& what) {
  throw Error(ErrorKind::Input, "merge: " + where + ": " + what);
}

// The same value as the first row's, or refused.
void same(std::optional<std::string>& first, const std::string& now, const std::string& what, const std::string& where) {
  if (first && *first != now) refuse_row(where, what + " " + now + " differs from the first line's " + *first + "; rows of one run only");
  first = now;
}

// A row (read by read_record) against the run: a source's row or an error row, of the same
// manifest, seed, number of sources and of shares.
size_t check_source_run(const Record& row, const std::string& where, OneRun& one) {
  if (!row.run || (row.kind != Record::Kind::Source && row.kind != Record::Kind::Error)) {
    refuse_row(where, "not a row of ea_iid source --manifest --jsonl");
  }
  if (!row.run->list) refuse_row(where, "run.list: expected the manifest's SHA-256");
  same(one.list, *row.run->list, "the manifest's SHA-256 (run.list)", where);
  const ordered_json& seed = row.json["run"]["userSeed"];
  if (seed.is_string()) {
    try {
      parse_integer(seed.get<std::string>(), "run.userSeed", 0, UINT64_MAX);
    } catch (const Error& e) {
      refuse_row(where, e.what());
    }
  }
  same(one.seed, seed.is_null() ? "null" : seed.get<std::string>(), "the seed (run.userSeed)", where);
  const uint64_t shares = row.run->shares(), index = row.run->shard ? row.run->shard->first : 0;
  std::optional<std::string> n = one.items ? std::optional<std::string>(std::to_string(*one.items)) : std::nullopt;
  same(n, std::to_string(row.run->items), "the number of sources (run.items)", where);
  std::optional<std::string> s = one.shares ? std::optional<std::string>(std::to_string(*one.shares)) : std::nullopt;
  same(s, std::to_string(shares), "the number of shares", where);
  one.items = row.run->items;
  one.shares = shares;
  one.seen_shares.insert(index);
  return row.run->item;
}

// A source's result-changing settings (its sequential step's, as --resume compares them)
// against the other rows of its track.
void check_source_settings(const ordered_json& row, const std::string& where, OneRun& one) {
  if (!row.contains("type") || row["type"] != "Source") return;  // an error row records no assessment
  const bool non_iid = recorded_text(row, "flow.trackChoice") == track_choice_name(TrackChoice::NonIid);
  for (const SettingField& f : settings_fields()) {
    const char* path = f.record_in(non_iid);
    if (f.effect != SettingEffect::Result || !path || f.per_item) continue;
    const std::string now = recorded_setting(row, f, std::string("steps.sequential.") + path);
    const auto [it, fresh] = one.settings.emplace(std::string(f.option) + (non_iid ? " (non-IID track)" : ""), now);
    if (!fresh && it->second != now) {
      refuse_row(where, setting_in_record(f, path) + " is " + now + " where " + one.settings_from.value_or("the first line") +
                            " has " + it->second + "; rows of one run only");
    }
  }
  if (!one.settings_from) one.settings_from = where;
}

// Every source has its row (else which are missing, and from which shares).
void check_every_source(const SourceShares& sh, const OneRun& one) {
  if (!one.items) throw Error(ErrorKind::Input, "merge: the inputs hold no lines");
  if (sh.rows.size() == *one.items) return;
  std::string missing, absent;
  int shown = 0;
  for (size_t i = 0; i < *one.items && shown < 5; ++i) {
    if (!sh.rows.count(i)) missing += (shown++ ? ", " : "") + std::to_string(i);
  }
  for (uint64_t k = 0; k < *one.shares; ++k) {
    if (!one.seen_shares.count(k)) absent += (absent.empty() ? "" : ", ") + std::to_string(k);
  }
  throw Error(ErrorKind::Input, "merge: " + std::to_string(*one.items - sh.rows.size()) + " of " + std::to_string(*one.items) +
                                    " sources have no line (sources " + missing + (shown == 5 ? ", ..." : "") + ")" +
                                    (absent.empty() ? "" : "; no line from share(s) " + absent + " of " + std::to_string(*one.shares)));
}

std::string file_text(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Error(ErrorKind::Input, "merge: " + path + ": cannot open: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw Error(ErrorKind::Input, "merge: " + path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  if (!in) throw Error(ErrorKind::Input, "merge: " + path + ": cannot be read");
  return all.str();
}

}  // namespace

bool holds_source_rows(const std::vector<std::string>& files) {
  for (size_t f = 1; f < files.size(); ++f) {
    // Only regular files are read: opening a FIFO would wait for a writer (merge refuses it).
    struct stat st {};
    if (::stat(files[f].c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    std::ifstream in(files[f], std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
      if (line.find("\"Source\"") == std::string::npos) continue;  // a batch's rows are not parsed twice
      const ordered_json row = ordered_json::parse(line, nullptr, false);
      if (row.is_object() && row.contains("type") && row["type"] == "Source") return true;
    }
  }
  return false;
}

SourceShares read_source_shares(const std::vector<std::string>& files, Interrupt interrupt) {
  SourceShares sh;
  OneRun one;
  std::map<size_t, std::string> where_of;
  for (size_t f = 1; f < files.size(); ++f) {
    const std::string text = file_text(files[f]);
    size_t begin = 0, line = 0;
    while (begin < text.size()) {
      throw_if_interrupted(interrupt);
      const size_t end = text.find('\n', begin);
      const std::string where = files[f] + ":" + std::to_string(++line);
      if (end == std::string::npos) {
        refuse_row(files[f], "the last line is incomplete (a share that was cut off); run that share again (--resume)");
      }
      Record row;
      try {
        row = read_record(ordered_json::parse(text.substr(begin, end - begin), nullptr, false), where);
      } catch (const Error& e) {
        throw Error(ErrorKind::Input, std::string("merge: ") + e.what());
      }
      begin = end + 1;
      const size_t k = check_source_run(row, where, one);
      check_source_settings(row.json, where, one);
      check_row_shuffle(row, "merge: " + where + ": ");
      if (const auto [at, fresh] = where_of.emplace(k, where); !fresh) {
        refuse_row(where, "source " + std::to_string(k) + " is in " + at->second + " too; each share once");
      }
      sh.rows.emplace(k, std::move(row.json));
    }
  }
  check_every_source(sh, one);
  sh.shares = *one.shares;
  return sh;
}

}  // namespace ea
