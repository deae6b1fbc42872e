// A manifest run (ea_iid source --manifest, ea_iid::Assessor::assess_manifest, Python's
// assess_manifest): each source's settings and place in the run, the sources of a share
// (--shard K/N), the sources run J at a time (--jobs) with their records delivered in manifest
// order, and the rows of a run's shares read back and checked for `ea_iid merge`. The front
// doors only map names and write what they get (docs/manifest.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/interrupt.hpp"
#include "manifest.hpp"
#include "report_options.hpp"
#include "runner.hpp"
#include "settings_rules.hpp"

namespace ea {

using Shard = std::pair<uint64_t, uint64_t>;  // --shard K/N: (K, N)

// A source's settings: the run's `base`, with its bits per sample and its track (iidClaim
// false: the non-IID track, as --track non-iid), exactly as `ea_iid source` makes them
// (until_decided unless `permutation_counters`, on the auto track).
Settings manifest_source_settings(const ManifestSource& m, const Settings& base, bool permutation_counters);

// The run-wide settings `base` checked by the one set of rules (check_settings) as `ea_iid
// source` checks them: on the auto track when some source runs the IID tests, else on the
// non-IID track (then iterations, prng, until_decided, ... are refused naming "iidClaim
// false"). `names` is the front door's; the manifest's own names (iidClaim, bitsPerSample)
// replace it for the settings a manifest gives per source.
void check_manifest_settings(const Manifest& m, const Settings& base, const SettingsGiven& given,
                             bool permutation_counters, const SettingNames& names);
SettingNames manifest_setting_names(const SettingNames& door);

// Share k of n of the sources: a contiguous run of them, balanced by the bytes of their files
// (share_of in pipeline/runner.hpp, as the batch's --shard). Every run of one manifest computes
// the same shares; together they hold every source once, in order.
std::vector<size_t> manifest_share(const Manifest& m, uint64_t k, uint64_t n);

// A row's "run": its place, the manifest's digest, the run's seed (null when no source draws
// random numbers) and its share (null without --shard); then what `ea_iid merge` needs for the
// lab summary the whole run gives: the source's name, its iidClaim (null when the manifest has
// none) and its page (-o DIR/NAME.html as the run named it; null without -o).
nlohmann::ordered_json manifest_run_json(const Manifest& m, size_t k, const std::optional<uint64_t>& seed,
                                         const std::optional<Shard>& shard,
                                         const std::optional<std::string>& page = std::nullopt);

// What a front door sees of a manifest run. `started`, `watch` and `failed` run on the thread
// that runs the source (a worker, also with one job); `finished` on the calling thread, in the
// order of `todo`.
struct ManifestHooks {
  std::function<void(size_t k)> started;
  std::function<RunObserver(size_t k)> watch;  // assess_source's observer for source k
  // The message an error record gets for a source that could not be assessed (default: what()).
  std::function<std::string(size_t k, const Error& e)> failed;
  std::function<void(size_t k, nlohmann::ordered_json record)> finished;  // its record, without "run"
  // On the worker, when source k's assessment ended (a record, an error, interrupted), before
  // its record waits for its turn to be delivered (the progress of --jobs).
  std::function<void(size_t k)> ended;
};

struct ManifestSummary {
  size_t finished = 0;       // records delivered
  bool interrupted = false;  // `interrupt` stopped the run before every source of `todo` was delivered
};

// Runs the sources `todo` (indexes into m.sources, in order) through assess_source with
// `settings[k]`, `jobs` at a time on worker threads (one path for every `jobs`, 1 included): the
// first worker on `engine`, each other on an Engine of its own (each with its own device slot).
// Each source's record (source_json, or an error record, errorLevel -1, for a source that could
// not be assessed) goes to hooks.finished on the calling thread in the order of `todo`, whatever
// order they end in, so a run with --jobs J gives the rows --jobs 1 gives (a worker may start
// the next source while the calling thread delivers the one before).
// `interrupt`: no new source starts, the running ones stop (no record), and the ones that
// ended are still delivered. An exception other than a source's Error (memory, a `finished`
// that throws) stops the run: the running sources end, then it propagates.
ManifestSummary run_manifest_sources(Engine& engine, int jobs, const Manifest& m, const std::vector<size_t>& todo,
                                     const std::vector<Settings>& settings, const ReportOptions& ro,
                                     const std::atomic<bool>& interrupt, const ManifestHooks& hooks);

// ---- ea_iid merge of a manifest run's shares.

// Whether the JSONL files (files[1..]; files[0] is merge's output) hold rows of a manifest
// run (a line of type "Source"). Reads regular files only (a FIFO is left to merge to refuse).
bool holds_source_rows(const std::vector<std::string>& files);

// The rows of every share, by source, checked to come from one run: one manifest (run.list),
// one seed (run.userSeed, null when the run drew no random numbers), one number of sources
// and of shares, and the same result-changing settings on each track (settings_fields, as
// --resume compares them); each source once, and every source there. Throws Error{Input}
// "merge: FILE:LINE: ..." (a line cut off, a row of another run, a source twice or missing);
// Error{Interrupted} before the next line once `interrupt` is set.
struct SourceShares {
  std::map<size_t, nlohmann::ordered_json> rows;  // by source
  uint64_t shares = 1;
};
SourceShares read_source_shares(const std::vector<std::string>& files, Interrupt interrupt = nullptr);

}  // namespace ea
