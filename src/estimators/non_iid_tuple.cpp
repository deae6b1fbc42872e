// The t-tuple and LRS estimates (SP 800-90B 6.3.5, 6.3.6) from one suffix array and its LCP
// array: every repeated t-tuple is an LCP interval, so one pass over the intervals gives,
// for every t, the largest count of a t-tuple (Q[t]) and the number of pairs of equal
// t-tuples (the sum of C(count, 2)), exactly as integers; the estimates then follow the
// reference in long double.
#include <cmath>
#include <utility>

#include "estimators/non_iid.hpp"
#include "stats/suffix_array.hpp"

namespace ea {

namespace {

constexpr long double kZalphaL = 2.575829303548900384158L;
constexpr uint64_t kTupleCutoff = 35;  // t-tuple: tuples seen at least 35 times

struct TupleCounts {
  uint64_t v = 0;                 // the longest repeated substring's length
  std::vector<uint64_t> most;     // most[t]: the largest count of a t-tuple, t = 1..v
  std::vector<uint64_t> pairs;    // pairs[t]: sum over distinct t-tuples of C(count, 2)
};

// Bottom-up walk of the LCP intervals: an interval of c suffixes with LCP value l whose
// enclosing interval has LCP value lp is one t-tuple occurring c times for each t in (lp, l].
TupleCounts tuple_counts(const uint8_t* s, size_t n) {
  TupleCounts out;
  const SuffixArrays a = suffix_arrays(s, n);
  uint64_t v = 0;
  for (int32_t h : a.plcp) v = std::max<uint64_t>(v, static_cast<uint64_t>(h));
  out.v = v;
  out.most.assign(v + 2, 1);
  std::vector<uint64_t> best(v + 2, 0);
  std::vector<uint64_t> diff(v + 2, 0);  // pairs by a difference array over t (mod 2^64)
  struct Open {
    uint64_t lcp;
    uint64_t lb;
  };
  std::vector<Open> stack{{0, 0}};
  auto close = [&](const Open& top, uint64_t rb, uint64_t parent) {
    const uint64_t c = rb - top.lb + 1;
    best[top.lcp] = std::max(best[top.lcp], c);
    const uint64_t p = c * (c - 1) / 2;
    diff[parent + 1] += p;
    diff[top.lcp + 1] -= p;
  };
  for (uint64_t r = 1; r <= n; ++r) {
    const uint64_t h = r < n ? static_cast<uint64_t>(a.plcp[static_cast<size_t>(a.sa[r])]) : 0;
    uint64_t lb = r - 1;
    while (h < stack.back().lcp) {
      const Open top = stack.back();
      stack.pop_back();
      close(top, r - 1, std::max(h, stack.back().lcp));
      lb = top.lb;
    }
    if (h > stack.back().lcp) stack.push_back({h, lb});
  }
  out.pairs.assign(v + 2, 0);
  uint64_t running = 0;
  for (uint64_t t = 1; t <= v; ++t) {
    running += diff[t];
    out.pairs[t] = running;
  }
  uint64_t m = 1;
  for (uint64_t t = v; t >= 1; --t) {
    m = std::max(m, best[t]);
    out.most[t] = m;
  }
  return out;
}

void put(Estimate& e, const char* label, EstimateLine::Kind kind, long double value) {
  e.lines.push_back({label, kind, value});
}

long double upper_bound(long double p_max, size_t n) {
  const long double pu = p_max + kZalphaL * sqrtl(p_max * (1.0L - p_max) / static_cast<long double>(n - 1));
  return pu > 1.0L ? 1.0L : pu;
}

}  // namespace

std::pair<Estimate, Estimate> tuple_estimates(const uint8_t* s, size_t n) {
  Estimate tt, lrs;
  tt.which = NonIidEstimator::TTuple;
  lrs.which = NonIidEstimator::Lrs;
  if (n < 2) {
    tt.reason = lrs.reason = "fewer than 2 samples";
    return {tt, lrs};
  }
  const TupleCounts c = tuple_counts(s, n);
  if (c.v == 0) {  // the reference stops on an assertion here
    tt.reason = lrs.reason = "no symbol is repeated";
    return {tt, lrs};
  }
  uint64_t u = c.v + 1;  // the first t whose most common t-tuple is seen fewer than 35 times
  for (uint64_t t = 1; t <= c.v; ++t) {
    if (c.most[t] < kTupleCutoff) {
      u = t;
      break;
    }
  }
  long double p_max = -1;
  for (uint64_t i = 1; i < u; ++i) {
    const long double p = static_cast<long double>(c.most[i]) / static_cast<long double>(n - i + 1);
    const long double cand = powl(p, 1.0L / static_cast<long double>(i));
    if (cand > p_max) p_max = cand;
  }
  if (p_max > 0) {
    const long double pu = upper_bound(p_max, n);
    tt.entropy = static_cast<double>(-log2l(pu));
    tt.evaluated = true;
    put(tt, "t", EstimateLine::Kind::Integer, static_cast<long double>(u - 1));
    put(tt, "p-hat_max", EstimateLine::Kind::LongReal, p_max);
    put(tt, "p_u", EstimateLine::Kind::LongReal, pu);
    put(tt, "min entropy", EstimateLine::Kind::Real, tt.entropy);
  } else {
    tt.reason = "no string is repeated 35 times";
    tt.unlabelled = "t-Tuple Estimate: No strings are repeated 35 times. t-Tuple estimate failed.";
  }
  if (c.v < u) {
    lrs.reason = "the longest repeated string is shorter than the t-tuple's (v < u)";
    lrs.unlabelled = "LRS Estimate: v<u. Can't Run LRS Test.";
    return {tt, lrs};
  }
  long double lrs_max = 0;
  for (uint64_t w = u; w <= c.v; ++w) {
    const uint64_t pairs = ((n - w) * (n - w + 1)) / 2;
    const long double p = static_cast<long double>(c.pairs[w]) / static_cast<long double>(pairs);
    const long double cand = powl(p, 1.0L / static_cast<long double>(w));
    if (lrs_max < cand) lrs_max = cand;
  }
  const long double pu = upper_bound(lrs_max, n);
  lrs.entropy = static_cast<double>(-log2l(pu));
  lrs.evaluated = true;
  put(lrs, "u", EstimateLine::Kind::Integer, static_cast<long double>(u));
  put(lrs, "v", EstimateLine::Kind::Integer, static_cast<long double>(c.v));
  put(lrs, "p-hat", EstimateLine::Kind::LongReal, lrs_max);
  put(lrs, "p_u", EstimateLine::Kind::LongReal, pu);
  put(lrs, "min entropy", EstimateLine::Kind::Real, lrs.entropy);
  return {tt, lrs};
}

}  // namespace ea
