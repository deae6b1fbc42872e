// The four predictor estimates (SP 800-90B 6.3.7 to 6.3.10) as NIST ea_non_iid 1.1.8
// computes them: the same sub-predictors, tie rules, scoreboards, dictionary caps and first
// predicted index, so that C (correct predictions), N and the longest run are the
// reference's; prediction_estimate (non_iid_entropic.cpp) turns them into the bound.
// docs/validation.md lists where the reference departs from the text (MultiMMC's run kept
// over a missing prediction, its cascade of context lookups).
#include <array>
#include <cstring>
#include <unordered_map>

#include "estimators/non_iid.hpp"

namespace ea {

namespace {

// The count of correct predictions and the longest run of them.
struct Score {
  uint64_t correct = 0, run = 0, longest = 0;
  void hit() {
    ++correct;
    ++run;
    longest = std::max(longest, run);
  }
  void miss() { run = 0; }
};

Estimate too_short(NonIidEstimator which, const char* name, int need) {
  Estimate e;
  e.which = which;
  e.reason = std::string("too few samples (more than ") + std::to_string(need) + " are needed)";
  e.unlabelled = std::string("\t*** Warning: not enough samples to run ") + name + " test (need more than " +
                 std::to_string(need) + ") ***";
  return e;
}

}  // namespace

// 6.3.7: four most-common-in-window predictors (windows 63, 255, 1023, 4095); the one with
// the most correct predictions so far predicts. A window's mode is its most frequent value,
// ties to the one seen last.
Estimate multi_mcw_estimate(const uint8_t* s, size_t n, int k) {
  constexpr size_t kWindows[4] = {63, 255, 1023, 4095};
  if (n < 4096) return too_short(NonIidEstimator::MultiMcw, "multiMCW", 4096);
  struct Window {
    size_t w;
    std::vector<uint32_t> count;
    std::vector<size_t> last;  // the latest position each value was added at
    int mode = 0;
    void rescan(int k) {
      int best = 0;
      for (int v = 1; v < k; ++v) {
        if (count[v] > count[best] || (count[v] == count[best] && last[v] > last[best])) best = v;
      }
      mode = best;
    }
  };
  std::array<Window, 4> win;
  for (int j = 0; j < 4; ++j) {
    Window& x = win[j];
    x.w = kWindows[j];
    x.count.assign(static_cast<size_t>(k), 0);
    x.last.assign(static_cast<size_t>(k), 0);
    for (size_t i = 0; i < x.w; ++i) {
      ++x.count[s[i]];
      x.last[s[i]] = i;
    }
    x.rescan(k);
  }
  Score score;
  std::array<uint64_t, 4> board{};
  int winner = 0;
  for (size_t t = 63; t < n; ++t) {
    if (win[winner].mode == s[t]) {
      score.hit();
    } else {
      score.miss();
    }
    for (int j = 0; j < 4; ++j) {
      if (t >= win[j].w && win[j].mode == s[t]) {
        ++board[j];
        if (board[j] >= board[winner]) winner = j;
      }
    }
    for (int j = 0; j < 4; ++j) {  // the windows of t + 1
      Window& x = win[j];
      if (t < x.w) continue;
      const uint8_t out = s[t - x.w], in = s[t];
      --x.count[out];
      ++x.count[in];
      x.last[in] = t;
      if (out == x.mode) {
        x.rescan(k);
      } else if (x.count[in] >= x.count[x.mode]) {
        x.mode = in;
      }
    }
  }
  Estimate e;
  e.which = NonIidEstimator::MultiMcw;
  prediction_estimate(e, score.correct, n - 63, score.longest, k);
  return e;
}

// 6.3.8: 128 lag predictors (the value d samples back); the one with the most correct
// predictions so far predicts, ties to the larger lag.
Estimate lag_estimate(const uint8_t* s, size_t n, int k) {
  constexpr size_t kLags = 128;
  Estimate e;
  e.which = NonIidEstimator::Lag;
  if (n < 3) {
    e.reason = "too few samples (at least 3 are needed)";
    return e;
  }
  Score score;
  std::array<uint64_t, kLags + 1> board{};
  size_t winner = 1;
  for (size_t t = 1; t < n; ++t) {
    if (s[t - winner] == s[t]) {
      score.hit();
    } else {
      score.miss();
    }
    const size_t lags = std::min(kLags, t);
    for (size_t d = 1; d <= lags; ++d) {
      if (s[t - d] == s[t]) {
        ++board[d];
        if (board[d] >= board[winner]) winner = d;
      }
    }
  }
  prediction_estimate(e, score.correct, n - 1, score.longest, k);
  return e;
}

namespace {

// A context of up to 16 symbols: the last 16 symbols as 128 bits (the newest in the low
// byte of `lo`), masked to a length.
struct Context {
  uint64_t hi = 0, lo = 0;
  bool operator==(const Context& o) const { return hi == o.hi && lo == o.lo; }
};
struct History {
  Context c;
  void push(uint8_t v) {
    c.hi = (c.hi << 8) | (c.lo >> 56);
    c.lo = (c.lo << 8) | v;
  }
  Context last(int m) const {  // the last m symbols (1 <= m <= 16)
    Context x;
    x.lo = m >= 8 ? c.lo : (c.lo & ((uint64_t{1} << (8 * m)) - 1));
    x.hi = m <= 8 ? 0 : m == 16 ? c.hi : (c.hi & ((uint64_t{1} << (8 * (m - 8))) - 1));
    return x;
  }
};
struct ContextHash {
  size_t operator()(const Context& x) const {
    uint64_t h = x.lo * 0x9E3779B97F4A7C15ull ^ (x.hi + 0x632BE59BD9B4E019ull + (x.lo >> 29));
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// The next-value counts of one context: its most frequent next value (ties to the largest).
struct Follow {
  std::vector<std::pair<uint8_t, uint32_t>> counts;
  uint8_t best = 0;
  uint32_t best_count = 0;
  uint32_t* find(uint8_t y) {
    for (auto& p : counts) {
      if (p.first == y) return &p.second;
    }
    return nullptr;
  }
  void bump(uint32_t* c, uint8_t y) {
    ++*c;
    if (*c > best_count || (*c == best_count && y > best)) {
      best = y;
      best_count = *c;
    }
  }
  void add(uint8_t y) {
    counts.emplace_back(y, 0);
    bump(&counts.back().second, y);
  }
};
using Dictionary = std::unordered_map<Context, Follow, ContextHash>;

}  // namespace

// 6.3.9: Markov models of orders 1 to 16 counting what follows each context (at most
// 100,000 (context, next value) pairs per order); the model with the most correct
// predictions so far predicts.
Estimate multi_mmc_estimate(const uint8_t* s, size_t n, int k) {
  constexpr int kOrders = 16;
  constexpr uint64_t kMaxEntries = 100000;
  if (n < 3) return too_short(NonIidEstimator::MultiMmc, "multiMMC", 3);
  std::array<Dictionary, kOrders> dict;
  std::array<uint64_t, kOrders> entries{};
  History h;
  const size_t predictions = n - 2;
  for (int d = 0; d < kOrders && static_cast<size_t>(d) < predictions; ++d) {
    History first;
    for (int i = 0; i <= d; ++i) first.push(s[i]);
    dict[static_cast<size_t>(d)][first.last(d + 1)].add(s[d + 1]);
    entries[static_cast<size_t>(d)] = 1;
  }
  h.push(s[0]);
  h.push(s[1]);
  Score score;
  std::array<uint64_t, kOrders> board{};
  int winner = 0;
  for (size_t t = 2; t < n; ++t) {
    const int counted = winner;  // the predictor whose prediction counts at t
    const uint8_t y = s[t];
    bool found = false;
    const int top = static_cast<int>(std::min<size_t>(kOrders - 1, t - 2));
    for (int d = 0; d <= top; ++d) {
      Dictionary& dd = dict[static_cast<size_t>(d)];
      const Context c = h.last(d + 1);
      // Once an order misses, the higher ones are not looked up (the reference's cascade).
      Follow* f = nullptr;
      if (d == 0 || found) {
        auto it = dd.find(c);
        found = it != dd.end();
        if (found) f = &it->second;
      }
      if (found) {
        if (f->best == y) {
          ++board[static_cast<size_t>(d)];
          if (board[static_cast<size_t>(d)] >= board[static_cast<size_t>(winner)]) winner = d;
          if (d == counted) score.hit();
        } else if (d == counted) {
          score.miss();
        }
        if (uint32_t* cnt = f->find(y)) {
          f->bump(cnt, y);
        } else if (entries[static_cast<size_t>(d)] < kMaxEntries) {
          f->add(y);
          ++entries[static_cast<size_t>(d)];
        }
      } else if (entries[static_cast<size_t>(d)] < kMaxEntries) {
        Follow& g = dd[c];
        if (uint32_t* cnt = g.find(y)) {
          g.bump(cnt, y);
        } else {
          g.add(y);
        }
        ++entries[static_cast<size_t>(d)];
      }
    }
    h.push(y);
  }
  Estimate e;
  e.which = NonIidEstimator::MultiMmc;
  prediction_estimate(e, score.correct, predictions, score.longest, k);
  return e;
}

// 6.3.10: an LZ78-like dictionary of contexts of lengths 1 to 16 (at most 65,536 contexts
// in all); the longest context with the most frequent next value predicts.
Estimate lz78y_estimate(const uint8_t* s, size_t n, int k) {
  constexpr int kLengths = 16;
  constexpr uint64_t kMaxContexts = 65536;
  if (n < 18) return too_short(NonIidEstimator::Lz78y, "LZ78Y", 18);
  std::array<Dictionary, kLengths + 1> dict;
  History h;
  for (int i = 0; i < kLengths; ++i) h.push(s[i]);
  for (int j = 1; j <= kLengths; ++j) dict[static_cast<size_t>(j)][h.last(j)].add(s[kLengths]);
  uint64_t size = kLengths;
  h.push(s[kLengths]);
  Score score;
  for (size_t t = kLengths + 1; t < n; ++t) {
    const uint8_t y = s[t];
    bool have = false;
    uint32_t most = 0;
    uint8_t prediction = 0;
    for (int j = kLengths; j >= 1; --j) {
      Dictionary& dj = dict[static_cast<size_t>(j)];
      const Context c = h.last(j);
      auto it = dj.find(c);
      if (it != dj.end()) {
        Follow& f = it->second;
        if (f.best_count > most) {  // ties to the longer context
          most = f.best_count;
          prediction = f.best;
          have = true;
        }
        if (uint32_t* cnt = f.find(y)) {
          f.bump(cnt, y);
        } else {
          f.add(y);
        }
      } else if (size < kMaxContexts) {
        dj[c].add(y);
        ++size;
      }
    }
    if (have && prediction == y) {
      score.hit();
    } else {
      score.miss();
    }
    h.push(y);
  }
  Estimate e;
  e.which = NonIidEstimator::Lz78y;
  prediction_estimate(e, score.correct, n - 17, score.longest, k);
  return e;
}

}  // namespace ea
