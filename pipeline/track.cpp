#include "track.hpp"

#include <chrono>
#include <future>
#include <system_error>

#include "gpu_backends.hpp"

namespace ea {

namespace {

using clock = std::chrono::steady_clock;

double seconds_from(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

// The estimates started beside the permutation tests, and their time.
struct Early {
  struct Timed {
    NonIidEstimates estimates;
    double seconds = 0;
  };
  std::future<Timed> run;
};

// auto and iid: the IID tests; on auto, the estimates after a "not IID" verdict, beside the
// permutation tests where the overlap policy allows.
Assessment iid_track(const Dataset& d, const Settings& s, const Hooks& hooks, DeviceSlot& slot,
                     const std::string& label) {
  Early early;
  Hooks h = hooks;
  const bool auto_track = s.track == TrackChoice::Auto;
  if (auto_track && overlap_estimates(s, slot)) {
    h.tested = [&](const Assessment& a) {
      if (hooks.tested) hooks.tested(a);
      if (!decided_not_iid(a) || gpu_count() == 0) return;  // (no GPU after all: the CPU ran them)
      try {
        early.run = std::async(std::launch::async, [&d, &s, &slot, &hooks] {
          const auto n0 = clock::now();
          Early::Timed t{estimates_stage(d, s, slot, hooks.interrupt)};
          t.seconds = seconds_from(n0);
          return t;
        });
      } catch (const std::system_error&) {
        return;  // no thread to spare: they follow the permutation tests
      }
      if (hooks.note) {
        hooks.note(label + ": not IID (" + a.failed_families().front() +
                   "); the non-IID estimates run beside the permutation tests");
      }
    };
  }
  const auto a0 = clock::now();
  Assessment a = assess(d, s, h, slot);
  if (early.run.valid()) {
    Early::Timed t = early.run.get();  // (a verdict decided by chi-square or LRS stays "not IID")
    a.non_iid = std::move(t.estimates);
    a.timings.non_iid = t.seconds;
    a.timings.total = seconds_from(a0);
  } else if (auto_track && needs_estimates(a, EstimatesRule::NotIid)) {
    if (hooks.note) hooks.note(label + ": not IID; the non-IID estimates follow");
    const auto n0 = clock::now();
    a.non_iid = estimates_stage(d, s, slot, hooks.interrupt);
    a.timings.non_iid = seconds_from(n0);
    a.timings.total += a.timings.non_iid;
  }
  return a;
}

}  // namespace

bool needs_estimates(const Assessment& a, EstimatesRule rule) {
  switch (rule) {
    case EstimatesRule::NotIid:
      return a.verdict() == Verdict::NotIid && !a.exploratory();
    case EstimatesRule::UnlessIid:
      return a.verdict() != Verdict::Iid;
  }
  return false;
}

bool overlap_estimates(const Settings& s, const DeviceSlot& slot) {
  return s.device != DeviceChoice::Cpu && slot.has_gpus() && !s.until_decided;
}

bool decided_not_iid(const Assessment& so_far) {
  return !so_far.exploratory() && (so_far.chi_square_failed() || !so_far.lrs.passed());
}

NonIidEstimates estimates_stage(const Dataset& d, const Settings& s, const DeviceSlot& slot, Interrupt interrupt) {
  return non_iid_estimates(d, s.initial_entropy, s.truncate_bitstring, slot.cpu_threads(s), interrupt,
                           slot.count_sources(s));
}

NonIidAssessment non_iid_stage(const Dataset& d, const Settings& s, const DeviceSlot& slot, Interrupt interrupt) {
  return assess_non_iid(d, s, slot.cpu_threads(s), interrupt, slot.count_sources(s));
}

ItemValue assess_track(const Dataset& d, const Settings& s, const Hooks& hooks, DeviceSlot& slot, DeviceSlot& columns,
                       const std::string& label) {
  switch (track_of(s)) {
    case Track::Restart:
      return assess_restart(d, s, hooks, slot, columns);
    case Track::NonIid:
      return non_iid_stage(d, s, slot, hooks.interrupt);
    case Track::Iid:
      break;
  }
  return iid_track(d, s, hooks, slot, label);
}

}  // namespace ea
