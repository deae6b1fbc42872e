#include "restart.hpp"


#include <algorithm>
#include <chrono>
#include <exception>
#include <future>

#include "common/error.hpp"
#include "common/sha256.hpp"

namespace ea {

RestartClaim restart_claim(const Settings& s) {
  return s.track == TrackChoice::Iid ? RestartClaim::Iid : RestartClaim::NonIid;
}

const char* restart_claim_name(RestartClaim c) { return c == RestartClaim::Iid ? "IID" : "non-IID"; }

std::vector<std::string> RestartAssessment::failures() const {
  std::vector<std::string> f;
  if (!sanity_passed()) {
    f.push_back("sanity check");
    return f;
  }
  if (rows) {
    for (const auto& family : rows->failed_families()) f.push_back("rows: " + family);
  }
  if (columns) {
    for (const auto& family : columns->failed_families()) f.push_back("columns: " + family);
  }
  if (!validation_passed()) f.push_back("validation");
  return f;
}

Check RestartAssessment::check() const {
  if (!failures().empty()) return Check::Failed;
  if (claim == RestartClaim::NonIid) return Check::Passed;  // sanity check and validation passed
  if (!rows || !columns || rows->verdict() != Verdict::Iid || columns->verdict() != Verdict::Iid) {
    return Check::Inconclusive;
  }
  return Check::Passed;
}

bool RestartAssessment::for_compliance() const {
  return (!rows || rows->for_compliance()) && (!columns || columns->for_compliance());
}

uint64_t restart_cutoff_seed(uint64_t user_seed) {
  return SeedDerivation("ea_iid restart cutoff v1").u64(user_seed).finish();
}

RestartAssessment assess_restart(const Dataset& d, const Settings& settings, const Hooks& hooks, DeviceSlot& slot,
                                 DeviceSlot& column_slot) {
  const auto start = std::chrono::steady_clock::now();
  if (!settings.restart) throw Error(ErrorKind::Internal, "assess_restart without a restart spec");
  const RestartSpec& spec = *settings.restart;
  if (d.size() != kRestartDataSize) {
    throw Error(ErrorKind::Input, d.path + ": a restart data set holds exactly " + std::to_string(kRestartDataSize) +
                                      " samples (1,000 restarts of 1,000 samples, row i = restart i); this one holds " +
                                      std::to_string(d.size()));
  }
  if (!(spec.h_i > 0) || spec.h_i > d.width) {
    throw Error(ErrorKind::Usage, "the entropy claim " + std::to_string(spec.h_i) + ": H_I must be greater than 0 and at most " +
                                      std::to_string(d.width) + " (the bits per sample)");
  }
  RestartAssessment r;
  set_input_facts(r, d);
  r.settings = settings;
  r.h_i = spec.h_i;
  r.claim = restart_claim(settings);
  r.alpha = restart_alpha();
  r.cutoff_method = spec.cutoff;
  if (spec.cutoff == CutoffMethod::Exact) {
    r.x_cutoff = restart_cutoff_exact(spec.h_i, r.alpha, hooks.interrupt);
  } else {
    r.cutoff_simulations = spec.simulations;
    r.cutoff_seed = restart_cutoff_seed(settings.seed);
    r.x_cutoff = restart_cutoff_simulated(spec.h_i, r.alpha, spec.simulations, r.cutoff_seed, slot.cpu_threads(settings),
                                          hooks.interrupt);
  }
  r.counts = restart_counts(d.raw);
  throw_if_interrupted(hooks.interrupt);
  if (!r.sanity_passed()) {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;  // NIST's ea_restart stops here too
  }
  Dataset cols = make_dataset(restart_columns(d.raw), d.width);
  cols.path = d.path + " (columns)";
  cols.sha256 = d.sha256;
  if (r.claim == RestartClaim::NonIid) {
    // Both data sets' literal estimates, one pool of tasks on this worker's CPU threads.
    auto both = literal_estimates({&d, &cols}, slot.cpu_threads(settings), hooks.interrupt);
    r.row_estimates = std::move(both[0]);
    r.column_estimates = std::move(both[1]);
    r.h_r = r.row_estimates->h_original;
    r.h_c = r.column_estimates->h_original;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }

  // The IID tests of both data sets at once: each an assessment of its own (its seed from
  // the user's seed and its own samples).
  Settings each = settings;
  each.restart.reset();
  each.initial_entropy = true;
  // Half of this worker's CPU threads each for the statistical tests; all of them for the
  // compression test (DeviceSlot::compression_threads: on a 2-core machine the columns' compression
  // test of truerand_1bit ran 205 permutations on one thread for 50 s after the rows were
  // done).
  const int all = slot.cpu_threads(settings), half = std::max(1, all / 2);
  struct Share {
    DeviceSlot& slot;
    int threads, compression;
    ~Share() {
      slot.set_cpu_threads(threads);
      slot.set_compression_threads(compression);
    }
  } rows_share{slot, slot.cpu_threads_set(), slot.compression_threads_set()},
      columns_share{column_slot, column_slot.cpu_threads_set(), column_slot.compression_threads_set()};
  for (DeviceSlot* s : {&slot, &column_slot}) {
    s->set_cpu_threads(half);
    s->set_compression_threads(all);
  }
  Hooks column_hooks;
  column_hooks.interrupt = hooks.interrupt;
  column_hooks.note = hooks.note;
  auto column_run = std::async(std::launch::async, [&] { return assess(cols, each, column_hooks, column_slot); });
  std::exception_ptr error;
  try {
    r.rows = assess(d, each, hooks, slot);
  } catch (...) {
    error = std::current_exception();
  }
  try {
    r.columns = column_run.get();
  } catch (...) {
    if (!error) error = std::current_exception();
  }
  if (error) std::rethrow_exception(error);
  r.h_r = std::min<double>(d.width, r.rows->h_original->entropy);
  r.h_c = std::min<double>(d.width, r.columns->h_original->entropy);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace ea
