#include "source.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>

#include "common/error.hpp"
#include "track.hpp"

namespace ea {

namespace {

// One file through the engine with `s`; its result, or its error thrown.
ItemResult run_one(Engine& engine, const std::string& path, const Settings& s, const std::atomic<bool>& interrupt,
                   const RunObserver& watch) {
  std::vector<Item> items = expand_items({path}, std::nullopt, std::nullopt, false);
  std::optional<ItemResult> got;
  RunObserver obs;
  obs.progress = watch.progress;
  obs.finished = [&](size_t, const Item&, ItemResult& r) { got = std::move(r); };
  RunPlan plan;
  plan.jobs = 1;
  const RunSummary sum = engine.run(items, s, plan, interrupt, obs);
  if (sum.interrupted || !got || got->status == ItemResult::Status::Interrupted) {
    throw Error(ErrorKind::Interrupted, "interrupted");
  }
  if (got->status == ItemResult::Status::Failed) throw Error(got->error_kind, got->message, got->remedy);
  return std::move(*got);
}

// 3.1.3: the sequential data set's track and H_assessed (its IID run, and the non-IID
// estimates when the track is non-IID and that run did not make them).
void sequential_step(Engine& engine, SourceAssessment& a, const std::atomic<bool>& interrupt, const RunObserver& watch,
                     const std::function<void(const std::string&)>& say) {
  a.sequential = run_one(engine, a.spec.samples, a.settings, interrupt, watch);
  if (const Assessment* seq = a.sequential.iid()) {
    static_cast<InputFacts&>(a) = *seq;
    a.verdict = seq->verdict();
    a.iid = *a.verdict == Verdict::Iid;
    a.h_assessed = seq->min_entropy();
    if (seq->non_iid) {
      if (seq->non_iid->initial_entropy) a.h_original = seq->non_iid->h_original;
      if (seq->non_iid->has_bitstring()) a.h_bitstring = seq->non_iid->h_bitstring;
    } else {
      if (seq->h_original) a.h_original = seq->h_original->entropy;
      if (seq->h_bitstring) a.h_bitstring = seq->h_bitstring->entropy;
    }
    if (needs_estimates(*seq, EstimatesRule::UnlessIid) && !seq->non_iid) {
      // Not the IID track, and no estimates yet: the non-IID track's own run gives H_I.
      say(a.spec.samples + ": not IID without the non-IID estimates (" + verdict_name(*a.verdict) +
          "): the non-IID estimates (6.3)");
      Settings ns = a.settings;
      ns.track = TrackChoice::NonIid;
      a.estimates = run_one(engine, a.spec.samples, ns, interrupt, watch);
    }
  }
  if (const NonIidAssessment* est = a.estimates ? a.estimates->non_iid() : a.sequential.non_iid()) {
    const NonIidAssessment& n = *est;
    static_cast<InputFacts&>(a) = n;
    a.h_assessed = n.min_entropy();
    a.h_original = n.estimates.h_original;
    a.h_bitstring.reset();
    if (n.estimates.has_bitstring()) a.h_bitstring = n.estimates.h_bitstring;
  }
}

// 3.1.5, component by component: h_in of the first from the validated entropy per sample
// (h_validated x n_in / bits), of each later one from the previous output's rate (h_out x
// n_in / n_out of the previous), each at most n_in; a component with no entropy before it is
// not computed, nor are those after it.
void conditioning_steps(SourceAssessment& a, const Settings& settings, const std::atomic<bool>& interrupt,
                        const std::function<void(const std::string&)>& say) {
  // The entropy before the component, per so many bits (in this order of operations: the
  // one-component numbers stay those of ea_iid conditioning with h_in given the same way).
  long double entropy = a.h_validated;
  long double per_bits = a.width;
  for (size_t k = 0; k < a.spec.conditioning.size(); ++k) {
    const SourceConditioning& c = a.spec.conditioning[k];
    ConditioningStep step;
    step.h_in = std::min(static_cast<long double>(c.n_in), entropy * c.n_in / per_bits);
    ConditioningInput in;
    in.vetted = c.vetted;
    in.n_in = c.n_in;
    in.n_out = c.n_out;
    in.nw = c.nw;
    in.h_in = step.h_in;
    if (c.h_prime) in.h_prime = *c.h_prime;
    const size_t n = a.spec.conditioning.size();
    const std::string which = n > 1 ? " " + std::to_string(k + 1) + " of " + std::to_string(n) : "";
    say(std::string("the ") + (c.vetted ? "vetted" : "non-vetted") + " conditioning component" + which + " (3.1.5)");
    if (step.h_in > 0) step.assessed = assess_conditioning(in, c.conditioned, c.conditioned_iid, settings, &interrupt);
    entropy = step.assessed ? step.assessed->result.h_out : 0.0L;
    per_bits = c.n_out;
    a.conditioning.push_back(std::move(step));
  }
}

// 4.4: the health tests' cutoffs for the entropy that stands (H_I when the restart tests
// failed), as ea_iid health-tests computes them for that H and the data's bits per sample.
void health_step(SourceAssessment& a, const std::function<void(const std::string&)>& say) {
  a.health_from_h_i = !(a.h_validated > 0);
  const double h = a.health_from_h_i ? a.h_i : a.h_validated;
  if (!(h > 0) || -std::log2(a.spec.health_alpha) / h >= kMaxRctCutoff) return;
  Settings hs;
  hs.width = a.width;
  hs.health = HealthSpec{h, a.spec.health_alpha};
  say("the health tests' cutoffs for " + std::to_string(h) + " bits per sample (4.4)");
  a.health = assess_health(hs);
}

}  // namespace

void check_health_alpha(double alpha, const std::string& name) {
  if (!(alpha > 0) || !(alpha < 1) || !std::isnormal(alpha)) {
    std::ostringstream v;
    v << alpha;
    throw Error(ErrorKind::Usage, name + ": '" + v.str() + "' is not a false-positive rate greater than 0 and less than 1");
  }
}

std::vector<std::string> SourceAssessment::failures() const {
  std::vector<std::string> f;
  if (restart) {
    for (const auto& x : restart->restart()->failures()) f.push_back("restart tests: " + x);
    if (f.empty() && restart->check() != Check::Passed) f.push_back("restart tests: inconclusive");
  }
  return f;
}

std::vector<std::string> SourceAssessment::compliance_issues() const {
  std::vector<std::string> why;
  if (!sequential.for_compliance()) {
    std::string w = "the sequential data set's assessment is not for compliance";
    if (const Assessment* a = sequential.iid()) {
      const auto issues = a->compliance_issues();
      for (size_t k = 0; k < issues.size(); ++k) w += (k ? "; " : ": ") + issues[k];
    } else if (const NonIidAssessment* n = sequential.non_iid()) {
      const auto issues = n->compliance_issues();
      for (size_t k = 0; k < issues.size(); ++k) w += (k ? "; " : ": ") + issues[k];
    }
    why.push_back(w);
  }
  if (!restart) why.push_back("no restart data: SP 800-90B 3.1.4 requires the restart tests");
  if (restart && !restart->for_compliance()) {
    // Why, as the sequential data set's says it: the rows' reasons (else the columns').
    std::string w = "the restart tests' assessments are not for compliance";
    const RestartAssessment* r = restart->restart();
    const Assessment* a = !r ? nullptr
                          : r->rows && !r->rows->for_compliance() ? &*r->rows
                          : r->columns                            ? &*r->columns
                                                                  : nullptr;
    if (a) {
      const auto issues = a->compliance_issues();
      for (size_t k = 0; k < issues.size(); ++k) w += (k ? "; " : ": ") + issues[k];
    }
    why.push_back(w);
  }
  return why;
}

long double SourceAssessment::claimed() const {
  if (conditioning.empty()) return h_validated;
  const ConditioningStep& last = conditioning.back();
  return last.assessed ? last.assessed->result.h_out : 0.0L;
}

SourceAssessment assess_source(Engine& engine, const SourceSpec& spec, const Settings& settings,
                               const std::atomic<bool>& interrupt, const RunObserver& watch) {
  const auto start = std::chrono::steady_clock::now();
  auto say = [&](const std::string& s) {
    if (watch.note) watch.note(s);
  };
  if (spec.h_submitter && !(*spec.h_submitter > 0 && *spec.h_submitter <= 8)) {
    throw Error(ErrorKind::Usage, "the submitter's estimate must be greater than 0 and at most 8 bits per sample");
  }
  check_health_alpha(spec.health_alpha, "the health tests' alpha");
  for (const SourceConditioning& c : spec.conditioning) {  // bad sizes fail before any step runs
    ConditioningInput probe;
    probe.vetted = true;
    probe.n_in = c.n_in;
    probe.n_out = c.n_out;
    probe.nw = c.nw;
    probe.h_in = probe.n_in;
    check_conditioning_input(probe);
  }
  if (spec.restart_data) {  // a restart file that cannot serve fails now, not after the first step
    struct stat st {};
    if (::stat(spec.restart_data->c_str(), &st) != 0) {
      throw Error(ErrorKind::Input, *spec.restart_data + ": " + std::strerror(errno));
    }
    const uint64_t bytes = kRestartDataSize * static_cast<uint64_t>(sample_bytes(settings.sample_input.format));
    if (S_ISREG(st.st_mode) && bytes > 0 && static_cast<uint64_t>(st.st_size) != bytes) {
      throw Error(ErrorKind::Input, *spec.restart_data + ": a restart data set holds exactly 1000000 samples (1,000 restarts of "
                                                          "1,000 samples" +
                                        (bytes == kRestartDataSize ? std::string()
                                                                   : std::string(", ") + std::to_string(bytes) + " bytes as " +
                                                                         sample_format_name(settings.sample_input.format)) +
                                        "); this file has " + std::to_string(st.st_size) + " bytes");
    }
  }
  SourceAssessment a;
  a.spec = spec;
  a.settings = settings;
  a.settings.restart.reset();
  say(spec.samples + (settings.track == TrackChoice::NonIid ? ": the non-IID estimates (3.1.3, 6.3)"
                      : settings.track == TrackChoice::Iid  ? ": the IID tests (3.1.3, section 5)"
                                                            : ": the IID tests, then the non-IID estimates if it is not IID (3.1.3)"));
  sequential_step(engine, a, interrupt, watch, say);
  a.h_i = spec.h_submitter ? std::min(a.h_assessed, *spec.h_submitter) : a.h_assessed;
  a.h_validated = a.h_i;
  const int width = a.width;
  if (spec.restart_data) {
    if (!(a.h_i > 0)) throw Error(ErrorKind::Input, spec.samples + ": H_I is 0: there is no entropy claim to test");
    Settings rs = settings;
    rs.restart = RestartSpec{};
    rs.restart->h_i = a.h_i;
    rs.track = a.iid ? TrackChoice::Iid : TrackChoice::NonIid;
    rs.width = width;
    rs.sample_input = resolved_input(a.mapping);  // the sequential data's mask or bins
    say(*spec.restart_data + ": the restart tests of H_I = " + std::to_string(a.h_i) + " for " +
        (a.iid ? "an IID" : "a non-IID") + " claim (3.1.4)");
    a.restart = run_one(engine, *spec.restart_data, rs, interrupt, watch);
    const RestartAssessment& r = *a.restart->restart();
    a.h_validated = a.restart->check() == Check::Passed ? r.result() : 0.0;
  }
  health_step(a, say);
  conditioning_steps(a, settings, interrupt, say);
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return a;
}

}  // namespace ea
