// The t-tuple and LRS estimates (SP 800-90B 6.3.5, 6.3.6) from one suffix array and its LCP
// array: every repeated t-tuple is an LCP interval, so one pass over the intervals gives,
// for every t, the largest count of a t-tuple (Q[t]) and the number of pairs of equal
// t-tuples (the sum of C(count, 2)), exactly as integers; the estimates then follow the
// reference in long double.
#include <algorithm>
#include <cmath>
#include <optional>
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

// Bottom-up walk of the LCP intervals, from the LCP of each suffix with the one before it in
// sorted order (lcp(r), r = 1..n-1; v the largest): an interval of c suffixes with LCP value l
// whose enclosing interval has LCP value lp is one t-tuple occurring c times for each t in
// (lp, l].
template <class Lcp>
TupleCounts walk_intervals(size_t n, uint64_t v, Lcp lcp, Interrupt interrupt) {
  TupleCounts out;
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
    throw_if_interrupted_at(interrupt, r);
    const uint64_t h = r < n ? lcp(r) : 0;
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

// LSD radix sort of 64-bit keys, 16 bits a pass (passes where every key has the same digit
// are skipped).
void radix_sort(std::vector<uint64_t>& keys) {
  std::vector<uint64_t> tmp(keys.size());
  std::vector<size_t> count(65536);
  for (int shift = 0; shift < 64; shift += 16) {
    std::fill(count.begin(), count.end(), 0);
    for (uint64_t k : keys) ++count[(k >> shift) & 0xFFFF];
    if (count[(keys[0] >> shift) & 0xFFFF] == keys.size()) continue;
    size_t sum = 0;
    for (auto& c : count) {
      const size_t x = c;
      c = sum;
      sum += x;
    }
    for (uint64_t k : keys) tmp[count[(k >> shift) & 0xFFFF]++] = k;
    keys.swap(tmp);
  }
}

// The same order for many keys, on the free threads of the caller's team: one MSD pass on
// the top 16 of the key's `used` low bits (per-chunk counts, then each chunk scattered to its
// places, a task per chunk), then each digit's keys sorted (a task per 256 digits). Sorted
// keys are one array whatever the split, so the result is radix_sort's for any thread count.
void sort_keys(std::vector<uint64_t>& keys, int used) {
  constexpr size_t kChunks = 16, kDigits = size_t{1} << 16, kGroup = 256;
  const size_t n = keys.size();
  if (n < (size_t{1} << 16) || n >= (size_t{1} << 32)) {
    radix_sort(keys);
    return;
  }
  const int shift = used - 16;
  std::vector<uint32_t> at(kChunks * kDigits, 0);  // [chunk][digit]: counts, then places
  std::vector<uint64_t> out(n);
  auto chunk = [n](size_t c) { return n * c / kChunks; };
  for (size_t c = 0; c < kChunks; ++c) {
#pragma omp task default(none) firstprivate(c) shared(keys, at, chunk, shift)
    for (size_t i = chunk(c); i < chunk(c + 1); ++i) ++at[c * kDigits + (keys[i] >> shift)];
  }
#pragma omp taskwait
  std::vector<uint32_t> start(kDigits + 1, 0);
  uint32_t sum = 0;
  for (size_t d = 0; d < kDigits; ++d) {
    start[d] = sum;
    for (size_t c = 0; c < kChunks; ++c) {
      const uint32_t x = at[c * kDigits + d];
      at[c * kDigits + d] = sum;
      sum += x;
    }
  }
  start[kDigits] = sum;
  for (size_t c = 0; c < kChunks; ++c) {
#pragma omp task default(none) firstprivate(c) shared(keys, at, out, chunk, shift)
    for (size_t i = chunk(c); i < chunk(c + 1); ++i) out[at[c * kDigits + (keys[i] >> shift)]++] = keys[i];
  }
#pragma omp taskwait
  for (size_t g = 0; g < kDigits; g += kGroup) {
#pragma omp task default(none) firstprivate(g) shared(out, start)
    for (size_t d = g; d < g + kGroup; ++d) std::sort(out.begin() + start[d], out.begin() + start[d + 1]);
  }
#pragma omp taskwait
  keys.swap(out);
}

// The suffixes' order and LCPs from their first W symbols (b bits each, W = 64 / b) alone:
// exact whenever no two suffixes share W symbols, which is checked (else nullopt: the
// caller builds the suffix array). One radix sort and one pass in order, instead of
// libdivsufsort and the random accesses of the LCP arrays: what bitstrings of data that is
// not heavily repetitive take (truerand_8bit's 8,000,000 bits: longest repeat 43).
std::optional<TupleCounts> tuple_counts_by_windows(const uint8_t* s, size_t n, Interrupt interrupt) {
  uint8_t top = 0;
  for (size_t i = 0; i < n; ++i) top = std::max(top, s[i]);
  int b = 1;
  while ((1u << b) <= top) ++b;
  const size_t w = static_cast<size_t>(64 / b);
  if (n <= w) return std::nullopt;
  const int used = static_cast<int>(w) * b;  // the key's low `used` bits hold the window
  const uint64_t mask = used == 64 ? ~uint64_t{0} : (uint64_t{1} << used) - 1;
  // Full windows (positions 0 .. n - w), then the w - 1 shorter suffixes at the end, each
  // zero-padded: a shorter suffix sorts before a longer one with the same first symbols.
  const size_t full = n - w + 1;
  std::vector<uint64_t> keys(full);
  uint64_t k = 0;
  for (size_t j = 0; j < w; ++j) k = (k << b) | s[j];
  keys[0] = k;
  for (size_t i = 1; i < full; ++i) {
    k = ((k << b) | s[i + w - 1]) & mask;
    keys[i] = k;
  }
  {
    // Repetitive data (a repeat of w symbols among the first 2^20 windows) goes to the suffix
    // array at once, before the whole sort: the check below would refuse it anyway.
    std::vector<uint64_t> head(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(full, 1u << 20)));
    sort_keys(head, used);
    if (std::adjacent_find(head.begin(), head.end()) != head.end()) return std::nullopt;
  }
  throw_if_interrupted(interrupt);
  sort_keys(keys, used);
  throw_if_interrupted(interrupt);
  std::vector<std::pair<uint64_t, uint8_t>> tails;  // (padded key, length)
  for (size_t i = full; i < n; ++i) {
    uint64_t t = 0;
    for (size_t j = i; j < n; ++j) t = (t << b) | s[j];
    tails.emplace_back(t << (b * static_cast<int>(w - (n - i))), static_cast<uint8_t>(n - i));
  }
  std::sort(tails.begin(), tails.end());
  // Merged order: keys[] with the tails inserted before equal keys.
  std::vector<uint64_t> key(n);
  std::vector<uint8_t> len(n);
  size_t a = 0, c = 0;
  for (size_t r = 0; r < n; ++r) {
    if (c < tails.size() && (a == full || tails[c].first <= keys[a])) {
      key[r] = tails[c].first;
      len[r] = tails[c++].second;
    } else {
      key[r] = keys[a++];
      len[r] = static_cast<uint8_t>(w);
    }
  }
  keys.clear();
  keys.shrink_to_fit();
  std::vector<uint8_t> lcp(n, 0);
  uint64_t v = 0;
  throw_if_interrupted(interrupt);
  for (size_t r = 1; r < n; ++r) {
    const uint64_t x = key[r - 1] ^ key[r];
    uint64_t h = x == 0 ? w : static_cast<uint64_t>((__builtin_clzll(x) - (64 - used)) / b);
    h = std::min<uint64_t>(h, std::min(len[r - 1], len[r]));
    if (h >= w) return std::nullopt;  // two suffixes share w symbols: the windows cannot order them
    lcp[r] = static_cast<uint8_t>(h);
    v = std::max(v, h);
  }
  return walk_intervals(n, v, [&lcp](uint64_t r) { return static_cast<uint64_t>(lcp[r]); }, interrupt);
}

// (libdivsufsort's suffix array takes no interrupt: it is looked at before and after it)
TupleCounts tuple_counts(const uint8_t* s, size_t n, bool suffix_array, Interrupt interrupt) {
  if (!suffix_array) {
    if (auto fast = tuple_counts_by_windows(s, n, interrupt)) return std::move(*fast);
  }
  throw_if_interrupted(interrupt);
  const SuffixArrays a = suffix_arrays(s, n);
  throw_if_interrupted(interrupt);
  uint64_t v = 0;
  for (int32_t h : a.plcp) v = std::max<uint64_t>(v, static_cast<uint64_t>(h));
  return walk_intervals(
      n, v, [&a](uint64_t r) { return static_cast<uint64_t>(a.plcp[static_cast<size_t>(a.sa[r])]); }, interrupt);
}

void put(Estimate& e, const char* label, EstimateLine::Kind kind, long double value) {
  e.lines.push_back({label, kind, value});
}

long double upper_bound(long double p_max, size_t n) {
  const long double pu = p_max + kZalphaL * sqrtl(p_max * (1.0L - p_max) / static_cast<long double>(n - 1));
  return pu > 1.0L ? 1.0L : pu;
}

}  // namespace

std::pair<Estimate, Estimate> tuple_estimates(const uint8_t* s, size_t n, bool suffix_array, Interrupt interrupt) {
  Estimate tt, lrs;
  tt.which = NonIidEstimator::TTuple;
  lrs.which = NonIidEstimator::Lrs;
  if (n < 2) {
    tt.reason = lrs.reason = "fewer than 2 samples";
    return {tt, lrs};
  }
  const TupleCounts c = tuple_counts(s, n, suffix_array, interrupt);
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
    tt.entropy = static_cast<double>(-log2l(pu)) + 0.0;  // (0, not -0)
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
  lrs.entropy = static_cast<double>(-log2l(pu)) + 0.0;  // (0, not -0)
  lrs.evaluated = true;
  put(lrs, "u", EstimateLine::Kind::Integer, static_cast<long double>(u));
  put(lrs, "v", EstimateLine::Kind::Integer, static_cast<long double>(c.v));
  put(lrs, "p-hat", EstimateLine::Kind::LongReal, lrs_max);
  put(lrs, "p_u", EstimateLine::Kind::LongReal, pu);
  put(lrs, "min entropy", EstimateLine::Kind::Real, lrs.entropy);
  return {tt, lrs};
}

}  // namespace ea
