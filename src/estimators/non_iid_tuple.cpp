// The t-tuple and LRS estimates (SP 800-90B 6.3.5, 6.3.6) from one suffix array and its LCP
// array: every repeated t-tuple is an LCP interval, so one pass over the intervals gives,
// for every t, the largest count of a t-tuple (Q[t]) and the number of pairs of equal
// t-tuples (the sum of C(count, 2)), exactly as integers; the estimates then follow the
// reference in long double.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <optional>
#include <utility>

#include "common/error.hpp"
#include "common/huge_pages.hpp"
#include "estimators/non_iid.hpp"
#include "stats/suffix_array.hpp"

namespace ea {

namespace {

constexpr long double kZalphaL = 2.575829303548900384158L;
constexpr uint64_t kTupleCutoff = 35;  // t-tuple: tuples seen at least 35 times

// Bottom-up walk of the LCP intervals of ranks lo .. hi, from the LCP of each suffix with the
// one before it in sorted order (lcp(r), r = lo + 1 .. hi; lcp(hi) is 0 at the end of the
// ranks; no interval above m crosses lo or hi): an interval of c suffixes with LCP value
// l > m whose enclosing interval has LCP value lp is one t-tuple occurring c times for each t
// in (max(lp, m), l]: best[l] = the largest such c, and its C(c, 2) pairs go into the
// difference array over t, diff (mod 2^64). The one owner of the walk: walk_intervals (all
// ranks, m = 0) and walk_above (chunks of ranks, the levels above m) call it.
template <class Lcp>
void walk_range(size_t lo, size_t hi, uint64_t m, Lcp lcp, uint64_t* best, uint64_t* diff, Interrupt interrupt) {
  struct Open {
    uint64_t lcp, lb;
  };
  std::vector<Open> stack{{0, lo}};
  for (size_t r = lo + 1; r <= hi; ++r) {
    throw_if_interrupted_at(interrupt, r);
    const uint64_t h = lcp(r);
    uint64_t lb = r - 1;
    while (h < stack.back().lcp) {
      const Open top = stack.back();
      stack.pop_back();
      if (top.lcp > m) {  // (the levels up to m are counted elsewhere)
        const uint64_t parent = std::max({h, stack.back().lcp, m}), count = r - top.lb;
        best[top.lcp] = std::max(best[top.lcp], count);
        diff[parent + 1] += count * (count - 1) / 2;
        diff[top.lcp + 1] -= count * (count - 1) / 2;
      }
      lb = top.lb;
    }
    if (h > stack.back().lcp) stack.push_back({h, lb});
  }
}

// Every t's largest count and pairs from the LCPs of all n ranks (v the largest): walk_range
// over ranks 0 .. n with m = 0.
template <class Lcp>
TupleCounts walk_intervals(size_t n, uint64_t v, Lcp lcp, Interrupt interrupt) {
  TupleCounts out;
  out.v = v;
  out.most.assign(v + 2, 1);
  std::vector<uint64_t> best(v + 2, 0), diff(v + 2, 0);
  walk_range(0, n, 0, [&lcp, n](uint64_t r) -> uint64_t { return r < n ? lcp(r) : 0; }, best.data(), diff.data(),
             interrupt);
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

// An allocator whose vectors leave new elements uninitialised (a resize writes nothing): the
// sort keys' 64 MB for 8,000,000 suffixes are then first touched by the tasks that fill them,
// not zeroed by one thread first; and on huge pages (common/huge_pages.hpp).
template <class T>
struct DefaultInit : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInit<U>;
  };
  DefaultInit() = default;
  template <class U>
  DefaultInit(const DefaultInit<U>&) noexcept {}
  T* allocate(size_t count) { return static_cast<T*>(allocate_random_access(count * sizeof(T))); }
  void deallocate(T* p, size_t) noexcept { std::free(p); }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) {
      ::new (static_cast<void*>(p)) U;
    } else {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  }
};
using Keys = std::vector<uint64_t, DefaultInit<uint64_t>>;

// LSD radix sort of keys[0 .. m) on their bits lo .. hi - 1, 8 bits a pass (the digits'
// counts from one read; a pass where every key has the same digit is skipped); tmp: m keys.
void lsd_sort(uint64_t* keys, uint64_t* tmp, size_t m, int lo, int hi) {
  if (m < 2) return;
  const int passes = (hi - lo + 7) / 8;
  uint32_t count[8][256] = {};
  for (size_t i = 0; i < m; ++i) {
    const uint64_t k = keys[i] >> lo;
    for (int d = 0; d < passes; ++d) ++count[d][(k >> (8 * d)) & 0xff];
  }
  uint64_t *src = keys, *dst = tmp;
  for (int d = 0; d < passes; ++d) {
    const int shift = lo + 8 * d;
    if (count[d][(src[0] >> shift) & 0xff] == m) continue;
    uint32_t sum = 0;
    for (uint32_t& c : count[d]) {
      const uint32_t x = c;
      c = sum;
      sum += x;
    }
    for (size_t i = 0; i < m; ++i) dst[count[d][(src[i] >> shift) & 0xff]++] = src[i];
    std::swap(src, dst);
  }
  if (src != keys) std::copy(src, src + m, keys);
}

// Keys ordered on their bits lo .. used - 1 (the bits above are 0; used - lo >= 8; the order
// of keys alike there is the input order), on the free threads of the caller's team: one
// MSD pass on the top 8 bits (per-chunk counts, then each chunk scattered to its places, a
// task per chunk), then each digit's keys by lsd_sort (in cache for a million keys or so; a
// task per 16 digits). The result is the same for any thread count.
void sort_keys(Keys& keys, int lo, int used) {
  constexpr size_t kChunks = 16, kDigits = 256, kGroup = 16;
  const size_t n = keys.size();
  Keys out(n);  // (not zeroed: every place is written)
  if (n < (size_t{1} << 16) || n >= (size_t{1} << 32)) {
    lsd_sort(keys.data(), out.data(), n, lo, used);
    return;
  }
  const int shift = used - 8;
  std::vector<uint32_t> at(kChunks * kDigits, 0);  // [chunk][digit]: counts, then places
  auto chunk = [n](size_t c) { return n * c / kChunks; };
  for (size_t c = 0; c < kChunks; ++c) {
#pragma omp task default(none) firstprivate(c) shared(keys, at, chunk, shift)
    for (size_t i = chunk(c); i < chunk(c + 1); ++i) ++at[c * kDigits + ((keys[i] >> shift) & 0xff)];
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
    for (size_t i = chunk(c); i < chunk(c + 1); ++i) out[at[c * kDigits + ((keys[i] >> shift) & 0xff)]++] = keys[i];
  }
#pragma omp taskwait
  for (size_t g = 0; g < kDigits; g += kGroup) {
#pragma omp task default(none) firstprivate(g) shared(out, keys, start, lo, shift)
    for (size_t d = g; d < g + kGroup; ++d) lsd_sort(out.data() + start[d], keys.data() + start[d], start[d + 1] - start[d], lo, shift);
  }
#pragma omp taskwait
  keys.swap(out);
}

// The symbols packed b bits each, the first at the most significant end of word 0, zeros
// past the end: window(x) is symbols x .. x + w - 1 (w = 64 / b) as a `used`-bit number, the
// first symbol highest (a sort key's window is its top `width` symbols).
class PackedText {
 public:
  PackedText(const uint8_t* s, size_t n, int b, int used) : b_(b), used_(used), words_((n * b + 63) / 64 + 2, 0) {
    for (size_t i = 0; i < n; ++i) {
      const size_t bit = i * static_cast<size_t>(b);
      const int sh = static_cast<int>(bit & 63);
      const uint64_t v = s[i];
      // (a symbol of b bits at bit offset sh: its high part in word bit / 64)
      if (sh + b <= 64) {
        words_[bit >> 6] |= v << (64 - sh - b);
      } else {
        words_[bit >> 6] |= v >> (sh + b - 64);
        words_[(bit >> 6) + 1] |= v << (128 - sh - b);
      }
    }
  }
  uint64_t window(size_t x) const {
    const size_t bit = x * static_cast<size_t>(b_);
    const int sh = static_cast<int>(bit & 63);
    const uint64_t* w = words_.data() + (bit >> 6);
    const uint64_t top = sh == 0 ? w[0] : (w[0] << sh) | (w[1] >> (64 - sh));
    return used_ == 64 ? top : top >> (64 - used_);
  }

 private:
  int b_, used_;
  std::vector<uint64_t> words_;
};

// Thrown when the suffixes that share their first symbols take more comparisons than a
// suffix array would.
struct TooRepetitive {};

// Two suffixes p < q of n symbols (a window: w symbols, `used` bits, b bits a symbol) whose
// first `from` symbols are equal, compared a window at a time: {their LCP, q's suffix sorts
// first}. Each window compared takes one of `budget` (TooRepetitive once none is left).
struct SuffixCompare {
  const PackedText& text;
  size_t n, w;
  int used, b;
  size_t budget;

  std::pair<uint64_t, bool> operator()(size_t p, size_t q, size_t from) {
    for (size_t k = from;; k += w) {
      if (budget == 0) throw TooRepetitive{};
      --budget;
      const size_t a = p + k, c = q + k;
      if (c >= n) return {k, true};  // q's suffix has ended: a prefix of p's
      const uint64_t wa = text.window(a), wc = text.window(c);
      const size_t lc = std::min(w, n - c);  // (q's suffix is the shorter)
      if (wa == wc && lc == w) continue;
      const size_t h = wa == wc ? w : static_cast<size_t>((__builtin_clzll(wa ^ wc) - (64 - used)) / b);
      if (h < lc) return {k + h, wc < wa};
      return {k + lc, true};  // q's suffix ends in this window, a prefix of p's
    }
  }
};

// The layout of a sort key: the first `width` symbols of a suffix (b bits each) above its
// start (`pos_bits` bits), so that the sorted keys order the suffixes on their first
// `width` symbols and give each one's start.
struct KeyLayout {
  int b, pos_bits;
  size_t width;
  uint64_t window(uint64_t key) const { return key >> pos_bits; }
  uint32_t start(uint64_t key) const { return static_cast<uint32_t>(key & ((uint64_t{1} << pos_bits) - 1)); }
};

// Suffixes that share their first symbols put in suffix order, with the LCPs of consecutive
// ones: sorted on their next window (its padded symbols and how many are real), those still
// alike then on the window after, and so on (two suffixes by SuffixCompare). Every window
// read takes one of cmp's budget; TooRepetitive past it or past 4,096 windows deep.
struct TieOrder {
  SuffixCompare cmp;
  std::vector<uint64_t> lcps;  // appended in order
  struct Next {
    uint64_t win;
    size_t len;
    uint32_t pos;
  };
  std::vector<Next> arena;  // each level's windows, the deeper levels above

  void order(uint32_t* first, size_t g, size_t from, int depth) {
    if (g == 2) {
      const uint32_t p = std::min(first[0], first[1]), q = std::max(first[0], first[1]);
      const auto [lcp, q_first] = cmp(p, q, from);
      first[0] = q_first ? q : p;
      first[1] = q_first ? p : q;
      lcps.push_back(lcp);
      return;
    }
    const size_t w = cmp.w, base = arena.size();
    if (depth > 4096 || cmp.budget < g) throw TooRepetitive{};
    cmp.budget -= g;
    arena.resize(base + g);
    for (size_t i = 0; i < g; ++i) {
      const size_t a = first[i] + from, len = a >= cmp.n ? 0 : std::min(w, cmp.n - a);
      arena[base + i] = Next{len == 0 ? 0 : cmp.text.window(a), len, first[i]};
    }
    std::sort(arena.begin() + static_cast<std::ptrdiff_t>(base), arena.end(),
              [](const Next& x, const Next& y) { return x.win != y.win ? x.win < y.win : x.len < y.len; });
    for (size_t i = 0; i < g; ++i) first[i] = arena[base + i].pos;
    for (size_t i = 0, j = 0; i < g; i = j) {
      const Next at = arena[base + i];
      for (j = i + 1; j < g && at.len == w && arena[base + j].win == at.win && arena[base + j].len == w;) ++j;
      if (i > 0) {
        const Next& prev = arena[base + i - 1];
        const uint64_t x = prev.win ^ at.win;
        const size_t h = x == 0 ? w : static_cast<size_t>((__builtin_clzll(x) - (64 - cmp.used)) / cmp.b);
        lcps.push_back(from + std::min(h, std::min(prev.len, at.len)));
      }
      if (j - i >= 2) order(first + i, j - i, from + w, depth + 1);
    }
    arena.resize(base);
  }
};

// Runs of sorted keys with one window ("ties") put in suffix order, in place (TieOrder, past
// their first `width` symbols), in 16 pieces split between runs, a task each on the free
// threads of the caller's team. Returns the LCPs of consecutive keys within the runs, run
// after run in key order (all >= width), or nullopt where that would take longer than a
// suffix array (a piece of m keys reading more than 4m + 2^16 windows).
std::optional<std::vector<uint64_t>> order_ties(Keys& keys, const KeyLayout& k, const PackedText& text,
                                                size_t n, int used, Interrupt interrupt) {
  constexpr size_t kPieces = 16;
  std::vector<size_t> cut(kPieces + 1, keys.size());
  for (size_t c = 0; c < kPieces; ++c) {
    size_t at = keys.size() * c / kPieces;
    while (at > 0 && at < keys.size() && k.window(keys[at]) == k.window(keys[at - 1])) ++at;
    cut[c] = std::max(at, c > 0 ? cut[c - 1] : 0);
  }
  std::vector<std::vector<uint64_t>> lcps(kPieces);
  std::vector<char> failed(kPieces, 0);
  std::vector<std::exception_ptr> error(kPieces);
  std::atomic<bool> stop{false};  // a piece failed: the others stop at their next run
  for (size_t c = 0; c < kPieces; ++c) {
#pragma omp task default(none) firstprivate(c) shared(keys, k, text, n, used, interrupt, cut, lcps, failed, error, stop)
    try {
      const size_t m = cut[c + 1] - cut[c];
      TieOrder tie{SuffixCompare{text, n, static_cast<size_t>(used / k.b), used, k.b, 4 * m + (size_t{1} << 16)}, {}, {}};
      tie.lcps.reserve(m);  // (at most one a key: no regrowth's copies and fresh pages)
      std::vector<uint32_t> pos;
      for (size_t i = cut[c], e = 0, look = i; i < cut[c + 1] && !stop.load(std::memory_order_relaxed); i = e) {
        if (i >= look) {
          throw_if_interrupted(interrupt);
          look = i + 65536;
        }
        const uint64_t win = k.window(keys[i]);
        for (e = i + 1; e < cut[c + 1] && k.window(keys[e]) == win;) ++e;
        if (e - i < 2) continue;
        pos.resize(e - i);
        for (size_t r = i; r < e; ++r) pos[r - i] = k.start(keys[r]);
        tie.order(pos.data(), pos.size(), k.width, 0);
        for (size_t r = i; r < e; ++r) keys[r] = win << k.pos_bits | pos[r - i];
      }
      lcps[c] = std::move(tie.lcps);
    } catch (const TooRepetitive&) {
      failed[c] = 1;
      stop = true;
    } catch (...) {
      error[c] = std::current_exception();
      stop = true;
    }
  }
#pragma omp taskwait
  for (const auto& e : error) {
    if (e) std::rethrow_exception(e);
  }
  if (std::find(failed.begin(), failed.end(), 1) != failed.end()) return std::nullopt;
  size_t total = 0;
  for (const auto& l : lcps) total += l.size();
  std::vector<uint64_t> all;
  all.reserve(total);
  for (auto& l : lcps) {
    all.insert(all.end(), l.begin(), l.end());
    l = {};
  }
  return all;
}

// The sort keys of the suffixes with `width` symbols (starts 0 .. n - width) sorted, or
// nullopt for data so repetitive (more than half of the first 2^20 windows tied) that
// the suffix array is quicker.
std::optional<Keys> sorted_keys(const PackedText& text, size_t n, const KeyLayout& k, int used,
                                                 Interrupt interrupt) {
  const size_t full = n - k.width + 1;
  const int key_bits = static_cast<int>(k.width) * k.b + k.pos_bits;
  const int drop = used - static_cast<int>(k.width) * k.b;  // (window() holds `used` bits)
  Keys keys(full);  // (not zeroed: the tasks write every key)
  constexpr size_t kPieces = 16;  // (tasks)
  for (size_t c = 0; c < kPieces; ++c) {
#pragma omp task default(none) firstprivate(c, full, drop) shared(keys, text, k)
    for (size_t i = full * c / kPieces; i < full * (c + 1) / kPieces; ++i) keys[i] = (text.window(i) >> drop) << k.pos_bits | i;
  }
#pragma omp taskwait
  Keys head(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(full, 1u << 20)));
  sort_keys(head, k.pos_bits, key_bits);
  size_t tied = 0;
  for (size_t i = 1; i < head.size(); ++i) tied += k.window(head[i]) == k.window(head[i - 1]);
  if (tied > head.size() / 2) return std::nullopt;
  if (head.size() == full) return head;  // (the head was every window)
  head = {};
  throw_if_interrupted(interrupt);
  sort_keys(keys, k.pos_bits, key_bits);
  throw_if_interrupted(interrupt);
  return keys;
}

// For t = 1 .. m (m symbols of b bits in at most 16 bits): the largest count of a t-tuple and
// the pairs of equal t-tuples, from the m-tuples counted directly (16 pieces as tasks, each
// rolling its m-tuple along its symbols; each t's counts then summed from the next one's,
// plus the suffix of exactly t symbols).
void count_short_tuples(const uint8_t* s, size_t n, int b, uint64_t m, TupleCounts& out, Interrupt interrupt) {
  constexpr size_t kPieces = 16;
  const int bits = static_cast<int>(m) * b;
  const size_t tuples = n - m + 1;
  const uint32_t mask = (uint32_t{1} << bits) - 1;
  std::vector<std::vector<uint32_t>> part(kPieces, std::vector<uint32_t>(size_t{1} << bits, 0));
  for (size_t c = 0; c < kPieces; ++c) {
#pragma omp task default(none) firstprivate(c, b, m, mask, tuples) shared(part, s)
    {
      const size_t from = tuples * c / kPieces, to = tuples * (c + 1) / kPieces;
      uint32_t roll = 0;  // symbols i - m + 1 .. i, the last lowest
      for (size_t i = from; i + 1 < from + m; ++i) roll = (roll << b | s[i]) & mask;
      for (size_t i = from; i < to; ++i) {
        roll = (roll << b | s[i + m - 1]) & mask;
        ++part[c][roll];
      }
    }
  }
#pragma omp taskwait
  throw_if_interrupted(interrupt);
  std::vector<uint64_t> cnt(size_t{1} << bits, 0), shorter;
  for (const auto& p : part) {
    for (size_t x = 0; x < cnt.size(); ++x) cnt[x] += p[x];
  }
  for (uint64_t t = m;; --t) {
    uint64_t most = 0, pairs = 0;
    for (uint64_t c : cnt) {
      most = std::max(most, c);
      pairs += c * (c - 1) / 2;  // (0 for c = 0)
    }
    out.most[t] = most;
    out.pairs[t] = pairs;
    if (t == 1) break;
    shorter.assign(cnt.size() >> b, 0);
    for (size_t x = 0; x < cnt.size(); ++x) shorter[x >> b] += cnt[x];
    uint32_t last = 0;  // the suffix of t - 1 symbols
    for (size_t i = n - (t - 1); i < n; ++i) last = last << b | s[i];
    shorter[last] += 1;
    cnt.swap(shorter);
  }
}

// walk_range for the levels above m: the ranks cut into 64 chunks, each starting at a rank
// whose LCP is at most m (no interval above m crosses one), walked as tasks; an interval's
// pairs count for t in (max(lp, m), l]. lcp[r] == kTied takes the next of `ties`.
// Returns false (nothing done) where v is too large for a table a chunk or n below 65,536.
bool walk_above(const std::vector<uint8_t>& lcp, uint8_t tied, const std::vector<uint64_t>& ties, size_t n, uint64_t m,
                TupleCounts& out, Interrupt interrupt) {
  constexpr size_t kChunks = 64;
  const uint64_t v = out.v;
  if (v > 4096 || n < kChunks * 1024) return false;
  if (v <= m) return true;  // (no level above m)
  std::vector<size_t> cut(kChunks + 1, n), tie_at(kChunks + 1, 0);
  for (size_t c = 0, r = 0, tied_seen = 0; c < kChunks; ++c) {
    size_t want = std::max(r, n * c / kChunks);
    for (; r < want; ++r) tied_seen += lcp[r] == tied;
    while (r < n && (lcp[r] == tied || lcp[r] > m)) tied_seen += lcp[r++] == tied;
    cut[c] = r;
    tie_at[c] = tied_seen;
  }
  std::vector<std::vector<uint64_t>> best(kChunks), diff(kChunks);
  std::vector<std::exception_ptr> error(kChunks);
  for (size_t c = 0; c < kChunks; ++c) {
#pragma omp task default(none) firstprivate(c, tied, m, v, n) shared(lcp, ties, cut, tie_at, best, diff, error, interrupt)
    try {
      best[c].assign(v + 2, 0);
      diff[c].assign(v + 2, 0);
      size_t next = tie_at[c];
      auto at = [&](size_t r) -> uint64_t { return r >= n ? 0 : lcp[r] == tied ? ties[next++] : lcp[r]; };
      if (cut[c] < n) walk_range(cut[c], cut[c + 1], m, at, best[c].data(), diff[c].data(), interrupt);
    } catch (...) {
      error[c] = std::current_exception();
    }
  }
#pragma omp taskwait
  for (const auto& e : error) {
    if (e) std::rethrow_exception(e);
  }
  uint64_t running = 0, most = 1;
  std::vector<uint64_t> top(v + 2, 0);
  for (size_t c = 0; c < kChunks; ++c) {
    for (uint64_t t = m + 1; t <= v; ++t) top[t] = std::max(top[t], best[c][t]);
  }
  for (uint64_t t = m + 1; t <= v; ++t) {
    for (size_t c = 0; c < kChunks; ++c) running += diff[c][t];
    out.pairs[t] = running;
  }
  for (uint64_t t = v; t > m; --t) {
    most = std::max(most, top[t]);
    out.most[t] = most;
  }
  return true;
}

// The bits of the largest of s[0 .. n) (at least 1).
int symbol_bits(const uint8_t* s, size_t n) {
  uint8_t top = 0;
  for (size_t i = 0; i < n; ++i) top = std::max(top, s[i]);
  int b = 1;
  while ((1u << b) <= top) ++b;
  return b;
}

// The counts from the LCPs in suffix order (lcp[r] == tied takes the next of `ties`; v the
// largest): the levels up to m = min(v, 16 / b) from the m-tuples, those above by walk_above,
// or every level by walk_intervals where walk_above declines.
TupleCounts counts_from_lcps(const uint8_t* s, size_t n, int b, const std::vector<uint8_t>& lcp, uint8_t tied,
                             const std::vector<uint64_t>& ties, uint64_t v, Interrupt interrupt) {
  TupleCounts out;
  const uint64_t m = std::min<uint64_t>(v, static_cast<uint64_t>(16 / b));  // (levels counted directly)
  out.v = v;
  out.most.assign(v + 2, 1);
  out.pairs.assign(v + 2, 0);
  if (m >= 1 && walk_above(lcp, tied, ties, n, m, out, interrupt)) {
    count_short_tuples(s, n, b, m, out, interrupt);
  } else {
    size_t next = 0;  // (walk_intervals reads lcp(r) once for each r, in order)
    auto at = [&](uint64_t r) -> uint64_t { return lcp[r] == tied ? ties[next++] : lcp[r]; };
    out = walk_intervals(n, v, at, interrupt);
  }
  return out;
}

// The LCP of each suffix with the one before it in suffix order (lcp[r], r >= 1; `tied` where
// their first `width` symbols are alike), from the sorted keys of the full windows and the
// width - 1 shorter suffixes at the end (zero-padded windows: a shorter suffix sorts before
// a longer one with the same first symbols), merged before equal full windows. In 16 pieces
// of ranks as tasks: tail c has rank place[c] + c, place[c] the first key whose window is not
// below its own. Returns the largest LCP below `width`.
uint64_t merged_lcps(const Keys& keys, const KeyLayout& k, const PackedText& text, size_t n, int used,
                     uint8_t tied, std::vector<uint8_t>& lcp, Interrupt interrupt) {
  constexpr size_t kPieces = 16;
  const size_t full = n - k.width + 1;
  const int drop = used - static_cast<int>(k.width) * k.b;
  std::vector<std::pair<uint64_t, uint8_t>> tails;  // (padded window, length)
  for (size_t i = full; i < n; ++i) tails.emplace_back(text.window(i) >> drop, static_cast<uint8_t>(n - i));
  std::sort(tails.begin(), tails.end());
  std::vector<size_t> rank_of_tail(tails.size());
  for (size_t c = 0; c < tails.size(); ++c) {
    const auto at = std::partition_point(keys.begin(), keys.end(),
                                         [&](uint64_t key) { return k.window(key) < tails[c].first; });
    rank_of_tail[c] = static_cast<size_t>(at - keys.begin()) + c;
  }
  // (window, length) of merged rank r: tail c where rank_of_tail[c] == r, else the key after
  // the tails ranked below r.
  auto at_rank = [&](size_t r, size_t& key, size_t& tail) {
    tail = static_cast<size_t>(std::lower_bound(rank_of_tail.begin(), rank_of_tail.end(), r) - rank_of_tail.begin());
    key = r - tail;
  };
  std::vector<uint64_t> most(kPieces, 0);
  std::vector<std::exception_ptr> error(kPieces);
  for (size_t p = 0; p < kPieces; ++p) {
#pragma omp task default(none) firstprivate(p, tied) shared(keys, k, tails, rank_of_tail, at_rank, lcp, most, error, n, interrupt)
    try {
      const size_t r0 = std::max<size_t>(1, n * p / kPieces), r1 = n * (p + 1) / kPieces;
      if (r0 < r1) {
        size_t a = 0, c = 0;
        at_rank(r0 - 1, a, c);
        auto next = [&](uint64_t& win, uint64_t& len) {
          if (c < tails.size() && rank_of_tail[c] == a + c) {
            win = tails[c].first;
            len = tails[c++].second;
          } else {
            win = k.window(keys[a++]);
            len = k.width;
          }
        };
        uint64_t prev_win = 0, prev_len = 0, top = 0;
        next(prev_win, prev_len);
        for (size_t r = r0; r < r1; ++r) {
          throw_if_interrupted_at(interrupt, r);
          uint64_t win = 0, len = 0;
          next(win, len);
          const uint64_t x = prev_win ^ win;
          uint64_t h = x == 0 ? k.width : static_cast<uint64_t>((__builtin_clzll(x) - (64 - (k.width * k.b))) / k.b);
          h = std::min<uint64_t>(h, std::min(prev_len, len));
          lcp[r] = h >= k.width ? tied : static_cast<uint8_t>(h);
          if (h < k.width) top = std::max(top, h);
          prev_win = win;
          prev_len = len;
        }
        most[p] = top;
      }
    } catch (...) {
      error[p] = std::current_exception();
    }
  }
#pragma omp taskwait
  for (const auto& e : error) {
    if (e) std::rethrow_exception(e);
  }
  return *std::max_element(most.begin(), most.end());
}

// The suffixes' order and LCPs from their first `width` symbols (b bits each, and the
// suffix's start, in a 64-bit key: one radix sort), the suffixes that share those compared
// on (order_ties), then one pass in order: instead of libdivsufsort and the random accesses
// of the LCP arrays. Nullopt for data so repetitive that the caller's suffix array is quicker.
std::optional<TupleCounts> tuple_counts_by_windows(const uint8_t* s, size_t n, Interrupt interrupt) {
  const int b = symbol_bits(s, n);
  KeyLayout k{b, 1, 0};
  while ((size_t{1} << k.pos_bits) < n) ++k.pos_bits;
  k.width = static_cast<size_t>((64 - k.pos_bits) / b);
  if (n >= (size_t{1} << 32) || k.width < 2 || n <= k.width) return std::nullopt;
  const int used = 64 / b * b;  // PackedText's windows (64 / b symbols), for the comparisons
  const PackedText text(s, n, b, used);
  auto keys = sorted_keys(text, n, k, used, interrupt);
  if (!keys) return std::nullopt;
  const auto ties = order_ties(*keys, k, text, n, used, interrupt);
  if (!ties) return std::nullopt;
  constexpr uint8_t kTied = 0xff;  // lcp[r] of two full windows alike: the next of *ties
  std::vector<uint8_t> lcp(n, 0);
  uint64_t v = merged_lcps(*keys, k, text, n, used, kTied, lcp, interrupt);
  if (!ties->empty()) v = std::max(v, *std::max_element(ties->begin(), ties->end()));
  keys.reset();
  TupleCounts out = counts_from_lcps(s, n, b, lcp, kTied, *ties, v, interrupt);
  out.path = ties->empty() ? TupleCounts::Path::Windows : TupleCounts::Path::WindowsAndTies;
  return out;
}

}  // namespace

SuffixLcps suffix_lcps(const uint8_t* s, size_t n) {
  const SuffixArrays a = suffix_arrays(s, n);
  SuffixLcps out;
  out.lcp.resize(n);
  for (size_t r = 0; r < n; ++r) {
    const auto l = static_cast<uint32_t>(a.plcp[static_cast<size_t>(a.sa[r])]);
    out.lcp[r] = static_cast<uint8_t>(std::min<uint32_t>(l, kLongLcp));
    if (l >= kLongLcp) out.long_lcps.push_back(l);
  }
  return out;
}

TupleCounts tuple_counts_from_lcps(const uint8_t* s, size_t n, const SuffixLcps& l, Interrupt interrupt) {
  if (l.lcp.size() != n) throw Error(ErrorKind::Internal, "tuple_counts_from_lcps: the LCPs are not one a suffix");
  uint64_t v = 0;
  size_t escapes = 0;
  for (uint8_t x : l.lcp) {
    v = std::max<uint64_t>(v, x == kLongLcp ? 0 : x);
    escapes += x == kLongLcp;
  }
  if (escapes != l.long_lcps.size() || (n > 0 && l.lcp[0] != 0)) {
    throw Error(ErrorKind::Internal, "tuple_counts_from_lcps: the long LCPs do not match their escapes");
  }
  std::vector<uint64_t> ties(l.long_lcps.begin(), l.long_lcps.end());
  for (uint64_t x : ties) {
    if (x < kLongLcp) throw Error(ErrorKind::Internal, "tuple_counts_from_lcps: a long LCP below 255");
    v = std::max(v, x);
  }
  TupleCounts out = counts_from_lcps(s, n, symbol_bits(s, n), l.lcp, kLongLcp, ties, v, interrupt);
  out.path = TupleCounts::Path::Given;
  return out;
}

TupleCounts tuple_counts(const uint8_t* s, size_t n, bool suffix_array, Interrupt interrupt,
                         const SuffixLcpSource& source) {
  if (!suffix_array && source && n >= 2) {
    if (auto given = source(s, n, interrupt)) return tuple_counts_from_lcps(s, n, *given, interrupt);
  }
  if (!suffix_array) {
    if (auto fast = tuple_counts_by_windows(s, n, interrupt)) return std::move(*fast);
  }
  // (libdivsufsort's suffix array takes no interrupt: it is looked at before and after it)
  throw_if_interrupted(interrupt);
  SuffixArrays a = suffix_arrays(s, n);
  throw_if_interrupted(interrupt);
  // The LCPs in suffix order, in place of the suffix array (one gather: its random reads are
  // independent of each other here, not behind walk_intervals' branches).
  uint64_t v = 0;
  for (size_t r = 0; r < n; ++r) {
    a.sa[r] = a.plcp[static_cast<size_t>(a.sa[r])];
    v = std::max<uint64_t>(v, static_cast<uint64_t>(a.sa[r]));
  }
  TupleCounts out = walk_intervals(n, v, [&a](uint64_t r) { return static_cast<uint64_t>(a.sa[r]); }, interrupt);
  out.path = TupleCounts::Path::SuffixArray;
  return out;
}

namespace {

void put(Estimate& e, const char* label, EstimateLine::Kind kind, long double value) {
  e.lines.push_back({label, kind, value});
}

long double upper_bound(long double p_max, size_t n) {
  const long double pu = p_max + kZalphaL * sqrtl(p_max * (1.0L - p_max) / static_cast<long double>(n - 1));
  return pu > 1.0L ? 1.0L : pu;
}

}  // namespace

std::pair<Estimate, Estimate> tuple_estimates(const uint8_t* s, size_t n, bool suffix_array, Interrupt interrupt,
                                              const SuffixLcpSource& source) {
  Estimate tt, lrs;
  tt.which = NonIidEstimator::TTuple;
  lrs.which = NonIidEstimator::Lrs;
  if (n < 2) {
    tt.reason = lrs.reason = "fewer than 2 samples";
    return {tt, lrs};
  }
  const TupleCounts c = tuple_counts(s, n, suffix_array, interrupt, source);
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
