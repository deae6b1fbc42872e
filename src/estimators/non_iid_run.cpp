// The non-IID track's estimates of one data set: which estimators run on what (NIST
// ea_non_iid 1.1.8's rules), each one a task, and the minima.
#include <omp.h>

#include <algorithm>
#include <functional>
#include <iterator>

#include "estimators/non_iid.hpp"

namespace ea {

std::vector<uint8_t> bitstring_of(const Dataset& d, uint64_t max_bits) {
  const uint64_t width = static_cast<uint64_t>(d.width);
  uint64_t total = static_cast<uint64_t>(d.size()) * width;
  if (max_bits != 0 && total > max_bits) total = max_bits;
  std::vector<uint8_t> bits(total);
  for (uint64_t i = 0; i < total; ++i) {
    bits[i] = static_cast<uint8_t>((d.raw[i / width] >> (width - 1 - i % width)) & 1u);
  }
  return bits;
}

namespace {

using E = NonIidEstimator;

// One estimator on one input; t-tuple and LRS come from one call.
struct Task {
  bool bitstring;
  E which;
};

// `spare`: a compression estimate's share of the threads the run has beyond one a task. Its
// search takes them where there are 3 or more (binary data on 16 cores, H200: truerand_1bit
// 0.13 -> 0.08 s, ringOsc-nist 0.17-0.19 -> 0.09-0.10 s); fewer, and its helpers would only
// slow the other tasks (run34c-f).
void run_task(const Task& t, const std::vector<uint8_t>& s, int k, NonIidEstimates& out, Interrupt interrupt,
              const CountSources& sources, int spare) {
  auto& slot = t.bitstring ? out.bitstring : out.literal;
  const double start = omp_get_wtime();
  struct Stamp {  // the task's time on its estimate(s), however it ends
    std::array<std::optional<Estimate>, kNonIidEstimators>& slot;
    const Task& t;
    double start;
    ~Stamp() {
      const double s = omp_get_wtime() - start;
      if (slot[static_cast<size_t>(t.which)]) slot[static_cast<size_t>(t.which)]->seconds = s;
      // The LRS estimate shares the t-tuple's suffix array: its time is counted there.
    }
  } stamp{slot, t, start};
  const uint8_t* p = s.data();
  const size_t n = s.size();
  switch (t.which) {
    case E::MostCommon: slot[0] = most_common_value_estimate(p, n, k, interrupt); break;
    case E::Collision: slot[1] = collision_estimate(p, n, interrupt); break;
    case E::Markov: slot[2] = markov_estimate(p, n, interrupt); break;
    case E::Compression: slot[3] = compression_estimate(p, n, interrupt, spare >= 3 ? 1 + spare : 1); break;
    case E::TTuple: {
      auto both = tuple_estimates(p, n, false, interrupt, sources.lcps);
      slot[4] = std::move(both.first);
      slot[5] = std::move(both.second);
      break;
    }
    case E::Lrs: break;  // with the t-tuple
    case E::MultiMcw: slot[6] = multi_mcw_estimate(p, n, k, interrupt); break;
    case E::Lag: slot[7] = lag_estimate(p, n, k, interrupt); break;
    case E::MultiMmc: slot[8] = multi_mmc_estimate(p, n, k, interrupt, sources.mmc_bits); break;
    case E::Lz78y: slot[9] = lz78y_estimate(p, n, k, interrupt, sources.lz78y_bits); break;
  }
}

}  // namespace

namespace {

// One data set's part of a run: which inputs it has, and its results.
struct Part {
  const Dataset* d;
  bool bitstring;  // the bitstring estimates (and `bits` holds it)
  bool literal;    // the literal estimates
  std::vector<uint8_t> bits;
  NonIidEstimates out;
};

// The minima of one data set, in the reference's order (std::min keeps the first of equal
// values).
void set_minima(Part& p) {
  NonIidEstimates& out = p.out;
  const Dataset& d = *p.d;
  out.h_original = d.width;
  out.h_bitstring = 1.0;
  std::optional<std::pair<E, bool>> low_bit, low_lit;
  for (int e = 0; e < kNonIidEstimators; ++e) {
    const auto& b = out.bitstring[static_cast<size_t>(e)];
    if (b && b->evaluated && b->entropy < out.h_bitstring) {
      out.h_bitstring = b->entropy;
      low_bit = std::make_pair(static_cast<E>(e), true);
    }
    const auto& l = out.literal[static_cast<size_t>(e)];
    if (l && l->evaluated && l->entropy < out.h_original) {
      out.h_original = l->entropy;
      low_lit = std::make_pair(static_cast<E>(e), false);
    }
  }
  out.h_assessed = d.width;
  if (p.bitstring && out.h_bitstring * d.width < out.h_assessed) {
    out.h_assessed = out.h_bitstring * d.width;
    out.lowest = low_bit;
  }
  if (p.literal && out.h_original < out.h_assessed) {
    out.h_assessed = out.h_original;
    out.lowest = low_lit;
  }
}

// Runs every estimate of every part as one pool of tasks on up to `threads` threads. Once
// `interrupt` is set, the running tasks stop at their next check, none starts, and
// Error{Interrupted} is thrown.
void run_parts(std::vector<Part>& parts, int threads, Interrupt interrupt, const CountSources& sources = {}) {
  // The slowest first, so that a few threads finish together; with another engine's counts
  // (a GPU, which may first need its context) the t-tuple and the predictors it counts first.
  const E cpu_order[] = {E::MultiMmc, E::Lz78y, E::TTuple, E::MultiMcw, E::Lag,
                         E::Compression, E::Collision, E::Markov, E::MostCommon};
  const E given_order[] = {E::TTuple, E::MultiMmc, E::Lz78y, E::MultiMcw, E::Lag,
                           E::Compression, E::Collision, E::Markov, E::MostCommon};
  const E* order = sources.any() ? given_order : cpu_order;
  struct Job {
    size_t part;
    Task task;
  };
  std::vector<Job> jobs;
  for (const E* w = order; w != order + std::size(cpu_order); ++w) {
    const E which = *w;
    const bool binary_only = which == E::Collision || which == E::Markov || which == E::Compression;
    for (size_t k = 0; k < parts.size(); ++k) {
      const Part& p = parts[k];
      if (p.bitstring) jobs.push_back({k, {true, which}});
      if (p.literal && (!binary_only || p.d->alphabet == 2)) jobs.push_back({k, {false, which}});
    }
  }
  const auto searches = std::count_if(jobs.begin(), jobs.end(), [](const Job& j) { return j.task.which == E::Compression; });
  const int spare = (threads - static_cast<int>(jobs.size())) / static_cast<int>(std::max<std::ptrdiff_t>(1, searches));
  std::vector<std::exception_ptr> failures(jobs.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, std::min<int>(threads, static_cast<int>(jobs.size()))))
  for (size_t i = 0; i < jobs.size(); ++i) {
    Part& p = parts[jobs[i].part];
    const Task& t = jobs[i].task;
    try {
      throw_if_interrupted(interrupt);
      run_task(t, t.bitstring ? p.bits : p.d->symbols, t.bitstring ? 2 : p.d->alphabet, p.out, interrupt, sources, spare);
    } catch (...) {
      failures[i] = std::current_exception();
    }
  }
  throw_if_interrupted(interrupt);  // (whatever failed beside it: the run is stopped)
  for (const auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }
  for (Part& p : parts) set_minima(p);
}

}  // namespace

NonIidEstimates non_iid_estimates(const Dataset& d, bool initial_entropy, bool truncate_bitstring, int threads,
                                  Interrupt interrupt, const CountSources& sources) {
  std::vector<Part> parts(1);
  Part& p = parts[0];
  p.d = &d;
  p.bitstring = d.alphabet > 2 || !initial_entropy;
  p.literal = initial_entropy;
  p.out.initial_entropy = initial_entropy;
  p.out.truncated = truncate_bitstring;
  if (p.bitstring) {
    p.bits = bitstring_of(d, truncate_bitstring ? kTruncatedBits : 0);
    p.out.bits = p.bits.size();
  }
  run_parts(parts, threads, interrupt, sources);
  return std::move(parts[0].out);
}

std::vector<NonIidEstimates> literal_estimates(const std::vector<const Dataset*>& sets, int threads,
                                               Interrupt interrupt) {
  std::vector<Part> parts(sets.size());
  for (size_t k = 0; k < sets.size(); ++k) {
    parts[k].d = sets[k];
    parts[k].bitstring = false;
    parts[k].literal = true;
  }
  run_parts(parts, threads, interrupt);
  std::vector<NonIidEstimates> out;
  for (Part& p : parts) out.push_back(std::move(p.out));
  return out;
}

}  // namespace ea
