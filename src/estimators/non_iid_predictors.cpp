// The four predictor estimates (SP 800-90B 6.3.7 to 6.3.10) as NIST ea_non_iid 1.1.8
// computes them: the same sub-predictors, tie rules, scoreboards, dictionary caps and first
// predicted index, so that C (correct predictions), N and the longest run are the
// reference's; prediction_estimate (non_iid_entropic.cpp) turns them into the bound.
// docs/validation.md lists where the reference departs from the text (MultiMMC's run kept
// over a missing prediction, its cascade of context lookups).
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <immintrin.h>
#include <memory>
#include <type_traits>
#include <utility>

#include "common/huge_pages.hpp"
#include "estimators/non_iid.hpp"
#include "estimators/non_iid_mmc_bits.hpp"

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
  e.reason = std::string("too few samples (at least ") + std::to_string(need) + " are needed)";
  e.unlabelled = std::string("\t*** Warning: not enough samples to run ") + name + " test (need more than " +
                 std::to_string(need) + ") ***";
  return e;
}

}  // namespace

namespace {

constexpr size_t kWindows[4] = {63, 255, 1023, 4095};

// MultiMCW on bits: every window is odd, so its mode is its majority (never a tie) and each
// window's prediction at step t is a sliding count. The four windows' (active, right) bits
// per step (bit t - 63) then go through MultiMMC's scoreboard (the same rule: the most right
// predictions so far, ties to the later predictor; the winner's prediction always counts).
Estimate multi_mcw_bits(const uint8_t* s, size_t n, Interrupt interrupt) {
  const size_t first = kWindows[0], words = (n - first + 63) / 64;
  std::vector<uint64_t> found(16 * words, 0), right(16 * words, 0);
  for (size_t j = 0; j < 4; ++j) {
    const size_t w = kWindows[j];
    uint64_t* f = &found[j * words];
    uint64_t* r = &right[j * words];
    size_t ones = 0;
    for (size_t i = 0; i < w; ++i) ones += s[i] & 1u;
    uint64_t f_word = 0, r_word = 0;
    for (size_t t = w; t < n; ++t) {  // window j predicts from t = w on: the mode of s[t - w .. t - 1]
      throw_if_interrupted_at(interrupt, t);
      const size_t y = s[t] & 1u, i = t - first;
      const size_t mode = 2 * ones > w ? 1 : 0;
      f_word |= uint64_t{1} << (i & 63);
      r_word |= static_cast<uint64_t>(mode == y) << (i & 63);
      if ((i & 63) == 63) {
        f[i >> 6] = f_word;
        r[i >> 6] = r_word;
        f_word = r_word = 0;
      }
      ones = ones + y - (s[t - w] & 1u);
    }
    if (((n - first) & 63) != 0) {
      f[(n - first) >> 6] = f_word;
      r[(n - first) >> 6] = r_word;
    }
  }
  const MmcCounts c = multi_mmc_scoreboard(found, right, words, interrupt);
  Estimate e;
  e.which = NonIidEstimator::MultiMcw;
  prediction_estimate(e, c.correct, n - first, c.longest, 2);
  return e;
}

}  // namespace

// 6.3.7: four most-common-in-window predictors (windows 63, 255, 1023, 4095); the one with
// the most correct predictions so far predicts. A window's mode is its most frequent value,
// ties to the one seen last. Bits take multi_mcw_bits.
Estimate multi_mcw_estimate(const uint8_t* s, size_t n, int k, Interrupt interrupt) {
  if (n < 4096) return too_short(NonIidEstimator::MultiMcw, "multiMCW", 4096);
  if (k == 2) return multi_mcw_bits(s, n, interrupt);
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
    throw_if_interrupted_at(interrupt, t);
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

namespace {
// One step of the lag predictors: each lag d (1..lags) whose sample before[d] equals y
// scores; returns the largest (score << 8 | d) among them (0: none matched). 64-bit keys:
// a score may pass 2^24 (a bitstring of 2^25 bits and more).
__attribute__((optimize("O3"), target_clones("avx2", "default"))) uint64_t lag_step(const uint8_t* before, uint8_t y, uint64_t* board, uint32_t lags) {
  uint64_t best = 0;
  for (uint32_t d = 1; d <= lags; ++d) {  // branch-free, so that it vectorizes
    const uint64_t match = static_cast<uint64_t>(before[d] == y);
    board[d] += match;
    const uint64_t key = ((board[d] << 8) | d) * match;
    best = std::max(best, key);
  }
  return best;
}
// Bits, 64 steps at a time: each lag's matches in the block as one mask (the block's bits
// against the bits d before them), every lag's score advanced by its popcount, and the
// steps replayed one by one only for the lags that can reach the winner's score within the
// block (score + matches in the block >= the highest score): a lag that cannot is never
// the largest matching lag with the highest score, so it changes no winner. `packed`: the
// bits, 64 a word. Returns the first step not done (early where the interrupt is set).
// (popcnt where the CPU has it: the baseline build called libgcc's software popcount, 25%
// of the time. Nothing here may throw: GCC's dispatcher of a clone in this file is taken
// for nothrow, and an exception through it ends the process.)
__attribute__((target_clones("popcnt", "default"))) size_t lag_blocks_core(const uint64_t* packed, size_t n, size_t t0,
                                                                       std::array<uint64_t, 129>& board, size_t& winner,
                                                                       uint64_t& high, Score& score, Interrupt interrupt) {
  auto window = [packed](size_t p) {  // bits p .. p + 63 (bit j: sample p + j)
    const size_t w = p >> 6, o = p & 63;
    return o == 0 ? packed[w] : (packed[w] >> o) | (packed[w + 1] << (64 - o));
  };
  std::array<uint64_t, 129> mask{};
  std::array<int, 128> candidates{};
  size_t t = t0;
  for (size_t block = 0; t + 64 <= n; t += 64, ++block) {
    if (block % (kInterruptStride / 64) == 0 && interrupt_requested(interrupt)) break;  // every 65,536 steps
    const uint64_t here = window(t);
    int count = 0;
    for (int d = 1; d <= 128; ++d) {
      mask[d] = ~(window(t - static_cast<size_t>(d)) ^ here);
      const uint64_t reach = board[d] + static_cast<uint64_t>(__builtin_popcountll(mask[d]));
      if (reach >= high) candidates[count++] = d;
      if (reach < high) board[d] = reach;  // never a winner in this block: its score at the end
    }
    for (int j = 0; j < 64; ++j) {
      if ((mask[winner] >> j) & 1u) {
        score.hit();
      } else {
        score.miss();
      }
      uint64_t best = 0;
      for (int c = 0; c < count; ++c) {
        const int d = candidates[c];
        const uint64_t match = (mask[d] >> j) & 1u;
        board[d] += match;
        best = std::max(best, ((board[d] << 8) | static_cast<uint64_t>(d)) * match);
      }
      if (best != 0 && (best >> 8) >= high) {
        high = best >> 8;
        winner = best & 0xFF;
      }
    }
  }
  return t;
}

size_t lag_blocks(const uint8_t* s, size_t n, size_t t0, std::array<uint64_t, 129>& board, size_t& winner,
                  uint64_t& high, Score& score, Interrupt interrupt) {
  std::vector<uint64_t> packed(n / 64 + 2, 0);
  for (size_t i = 0; i < n; ++i) packed[i >> 6] |= static_cast<uint64_t>(s[i] & 1u) << (i & 63);
  const size_t t = lag_blocks_core(packed.data(), n, t0, board, winner, high, score, interrupt);
  throw_if_interrupted(interrupt);
  return t;
}

}  // namespace

// 6.3.8: 128 lag predictors (the value d samples back); the one with the most correct
// predictions so far predicts, ties to the larger lag.
Estimate lag_estimate(const uint8_t* s, size_t n, int k, Interrupt interrupt) {
  constexpr size_t kLags = 128;
  Estimate e;
  e.which = NonIidEstimator::Lag;
  if (n < 3) {
    e.reason = "too few samples (at least 3 are needed)";
    return e;
  }
  Score score;
  // The scoreboard: the winner always holds the highest score, so after a step's increments
  // the new winner is the largest matching lag with the highest score among the matching
  // ones, when that score reaches the winner's (the reference's live >= comparison, lag by
  // lag, ends the same way). A lag's score and index packed into one key make that one max.
  std::array<uint64_t, kLags + 1> board{};
  // The samples reversed, so that the 128 samples before t lie in ascending order
  // (rev[n - 1 - t + d] = s[t - d]): the step's loop over lags then vectorizes.
  std::vector<uint8_t> rev(s, s + n);
  std::reverse(rev.begin(), rev.end());
  size_t winner = 1;
  uint64_t high = 0;
  auto step = [&](size_t t) {
    const uint8_t y = s[t];
    if (s[t - winner] == y) {
      score.hit();
    } else {
      score.miss();
    }
    const uint64_t best = lag_step(rev.data() + (n - 1 - t), y, board.data(), static_cast<uint32_t>(std::min(kLags, t)));
    if (best != 0 && (best >> 8) >= high) {
      high = best >> 8;
      winner = best & 0xFF;
    }
  };
  size_t t = 1;
  if (k == 2) {
    // The warm-up steps (fewer than 128 samples before t) one at a time, never past the
    // samples: below 128 samples the blocks below do nothing.
    for (; t < std::min(kLags, n); ++t) step(t);
    t = lag_blocks(s, n, t, board, winner, high, score, interrupt);
  }
  for (; t < n; ++t) {
    throw_if_interrupted_at(interrupt, t);
    step(t);
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
// Up to 3 next values inline; past that a table of all 256.
struct Follow {
  std::array<uint8_t, 3> ys{};
  std::array<uint32_t, 3> cs{};
  uint8_t used = 0;
  uint8_t best = 0;
  uint32_t best_count = 0;
  std::unique_ptr<std::array<uint32_t, 256>> dense;
};

// Contexts of one length to their Follow: open addressing with linear probing, grown at half
// full unless told otherwise (no allocation per context). A slot's tag (one byte: 0 empty,
// else 0x80 and the hash's top 7 bits) is probed first, in a table of its own (a 256K-slot
// map's tags fit the L2 cache): a context not there is nearly always turned away there, and a
// context found takes one read of its slot, its key beside its Follow. A Follow* stays valid
// until the next insertion.
class ContextMap {
 public:
  // `size`: the slots to start with (a power of two; a map sized for its largest number of
  // contexts never grows). Slots are built as contexts are added: untouched memory stays
  // unwritten, and large maps are on huge pages (common/huge_pages.hpp).
  // `tenths`: the load, in tenths of the slots, above which it grows (5: half full; a lookup
  // that misses probes about (1 + 1 / (1 - load)^2) / 2 tags), 1 to 9 (at 10 a full map would
  // have no empty slot to end a probe).
  explicit ContextMap(size_t size = 1024, uint32_t tenths = 5) : tenths_(std::clamp<uint32_t>(tenths, 1, 9)) {
    resize(size);
  }
  ContextMap(const ContextMap&) = delete;
  ContextMap& operator=(const ContextMap&) = delete;
  ContextMap(ContextMap&& o) noexcept  // (the map moved from may only be destroyed)
      : slots_(std::move(o.slots_)), tags_(std::move(o.tags_)), count_(std::exchange(o.count_, 0)),
        mask_(std::exchange(o.mask_, 0)), tenths_(o.tenths_) {}
  ~ContextMap() { destroy_slots(); }
  Follow* find(const Context& c) {
    const size_t h = ContextHash{}(c);
    const uint8_t tag = tag_of(h);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const uint8_t t = tags_[i];
      if (t == 0) return nullptr;
      if (t == tag && slots_[i].key == c) return &slots_[i].val;
    }
  }
  Follow* get_or_create(const Context& c) {
    if (Follow* f = find(c)) return f;
    if (10 * (count_ + 1) > tenths_ * tags_.size()) resize(2 * tags_.size());
    const size_t h = ContextHash{}(c);
    size_t i = h & mask_;
    while (tags_[i] != 0) i = (i + 1) & mask_;
    ::new (static_cast<void*>(&slots_[i])) Slot{c, Follow{}};
    tags_[i] = tag_of(h);
    ++count_;
    return &slots_[i].val;
  }

 private:
  struct Slot {
    Context key;
    Follow val;
  };
  struct Release {  // raw slot storage (allocate_random_access), without building a slot
    void operator()(Slot* p) const { std::free(static_cast<void*>(p)); }
  };
  static Slot* raw_slots(size_t size) { return static_cast<Slot*>(allocate_random_access(size * sizeof(Slot))); }
  using Slots = std::unique_ptr<Slot[], Release>;
  static uint8_t tag_of(size_t h) { return static_cast<uint8_t>(0x80u | (static_cast<uint64_t>(h) >> 57)); }
  static_assert(std::is_nothrow_move_constructible_v<Slot>, "resize moves slots into raw storage");
  static_assert(alignof(Slot) <= alignof(std::max_align_t), "slots in malloc's memory");
  // The slots' destructors (the storage stays, as do the tags that named them).
  void destroy_slots() noexcept {
    if (!slots_) return;
    for (size_t j = 0; j < tags_.size(); ++j) {
      if (tags_[j] != 0) slots_[j].~Slot();
    }
  }
  void resize(size_t size) {
    Slots slots(raw_slots(size));
    std::vector<uint8_t> tags(size, 0);
    const size_t mask = size - 1;
    for (size_t j = 0; j < tags_.size(); ++j) {
      if (tags_[j] == 0) continue;
      size_t i = ContextHash{}(slots_[j].key) & mask;
      while (tags[i] != 0) i = (i + 1) & mask;
      ::new (static_cast<void*>(&slots[i])) Slot(std::move(slots_[j]));
      tags[i] = tags_[j];
    }
    destroy_slots();
    slots_ = std::move(slots);
    tags_.swap(tags);
    mask_ = mask;
  }
  Slots slots_;
  std::vector<uint8_t> tags_;
  size_t count_ = 0, mask_ = 0;
  uint32_t tenths_ = 5;
};

// The contexts of lengths 1 to 16 of any alphabet: a hash map per length.
class GeneralTables {
 public:
  using Ref = Follow*;
  using Cursor = History;  // the symbols before a step, for find_at
  void push(uint8_t v) { h_.push(v); }
  void restart() { h_ = History{}; }
  static void advance(Cursor& c, uint8_t v) { c.push(v); }
  Ref find_at(int m, const Cursor& c) { return dict_[static_cast<size_t>(m)].find(c.last(m)); }
  Ref get_or_create_at(int m, const Cursor& c) { return dict_[static_cast<size_t>(m)].get_or_create(c.last(m)); }
  static bool never_full(const uint8_t*, size_t, uint64_t) { return false; }  // (not worked out)
  Ref find(int m) { return dict_[static_cast<size_t>(m)].find(h_.last(m)); }
  Ref get_or_create(int m) { return dict_[static_cast<size_t>(m)].get_or_create(h_.last(m)); }
  static uint8_t best(Ref r) { return r->best; }
  static uint32_t best_count(Ref r) { return r->best_count; }
  static uint32_t* pair(Ref r, uint8_t y) {
    if (r->dense) return (*r->dense)[y] ? &(*r->dense)[y] : nullptr;
    for (uint8_t i = 0; i < r->used; ++i) {
      if (r->ys[i] == y) return &r->cs[i];
    }
    return nullptr;
  }
  static void bump(Ref r, uint32_t* c, uint8_t y) {
    ++*c;
    if (*c > r->best_count || (*c == r->best_count && y > r->best)) {
      r->best = y;
      r->best_count = *c;
    }
  }
  static void add(Ref r, uint8_t y) {
    if (!r->dense && r->used == r->ys.size()) {
      r->dense = std::make_unique<std::array<uint32_t, 256>>();
      r->dense->fill(0);
      for (uint8_t i = 0; i < r->used; ++i) (*r->dense)[r->ys[i]] = r->cs[i];
    }
    if (r->dense) {
      bump(r, &(*r->dense)[y], y);
    } else {
      r->ys[r->used] = y;
      r->cs[r->used] = 0;
      bump(r, &r->cs[r->used++], y);
    }
  }

 private:
  History h_;
  std::array<ContextMap, 17> dict_;
};

// The contexts of lengths 1 to 16 of bits: two counts per context in a dense table per
// length (the last m bits index it), the 16 tables one after another in one array (length m
// from offset(m), in counts: lz78y_bits_avx512 reads all 16 by one gather); a context exists
// once one of its counts is non-zero. Each table (of at least 32 counts: lengths 1-4 padded)
// is followed by a gap of 32 counts, 128 bytes, so that no two tables share a cache line
// however the array is aligned: lz78y_full's tasks, a length each on its own core, would
// otherwise write shared lines at every step (the GPU machine's 16-thread --non-iid runs took
// 0.03-0.05 s longer with the tables packed, session 40).
class BinaryTables {
 public:
  using Ref = uint32_t*;
  BinaryTables() : t_(offset(17), 0) {}
  // The sum over lengths i < m of max(2 << i, 32) + 32.
  static constexpr uint32_t offset(int m) {
    const auto u = static_cast<uint32_t>(m);
    return m <= 5 ? 64u * (u - 1) : (2u << u) + 32u * u + 32u;
  }
  uint32_t* counts() { return t_.data(); }
  using Cursor = uint32_t;  // the bits before a step, for find_at
  void push(uint8_t v) { h_ = (h_ << 1) | (v & 1u); }
  void restart() { h_ = 0; }
  static void advance(Cursor& c, uint8_t v) { c = (c << 1) | (v & 1u); }
  Ref get_or_create_at(int m, Cursor c) { return &t_[offset(m) + 2 * (c & ((1u << m) - 1))]; }
  Ref find_at(int m, Cursor c) {
    Ref r = get_or_create_at(m, c);
    return (r[0] | r[1]) ? r : nullptr;
  }
  // Whether LZ78Y's contexts of n bits (lengths 1-16, steps 16 .. n - 1) are at most `cap`
  // in all, so that its dictionary never refuses one: each length's context at a step is the
  // low bits of the 16 bits before it, so they are counted from the set of those.
  static bool never_full(const uint8_t* s, size_t n, uint64_t cap) {
    std::vector<uint64_t> seen(1024, 0);  // the 16-bit contexts (65,536 bits)
    uint32_t v = 0;
    for (size_t i = 0; i + 1 < n; ++i) {  // (the last step's contexts too: never looked up again)
      v = ((v << 1) | (s[i] & 1u)) & 0xffffu;
      if (i >= 15) seen[v >> 6] |= uint64_t{1} << (v & 63);
    }
    uint64_t total = 0;
    for (int m = 1; m <= 16; ++m) {
      std::vector<uint64_t> shorter(((size_t{1} << m) + 63) / 64, 0);
      for (uint32_t w = 0; w < 65536; ++w) {
        const uint32_t x = w & ((1u << m) - 1);
        if ((seen[w >> 6] >> (w & 63)) & 1) shorter[x >> 6] |= uint64_t{1} << (x & 63);
      }
      for (uint64_t word : shorter) total += static_cast<uint64_t>(__builtin_popcountll(word));
    }
    return total <= cap;
  }
  Ref find(int m) {
    Ref r = get_or_create(m);
    return (r[0] | r[1]) ? r : nullptr;
  }
  Ref get_or_create(int m) { return get_or_create_at(m, h_); }
  static uint8_t best(Ref r) { return r[0] > r[1] ? 0 : 1; }  // ties to the larger value
  static uint32_t best_count(Ref r) { return std::max(r[0], r[1]); }
  static uint32_t* pair(Ref r, uint8_t y) { return r[y & 1] ? &r[y & 1] : nullptr; }
  static void bump(Ref, uint32_t* c, uint8_t) { ++*c; }
  static void add(Ref r, uint8_t y) { ++r[y & 1]; }

 private:
  uint32_t h_ = 0;
  std::vector<uint32_t> t_;
};

template <class Tables>
void bump_or_add(typename Tables::Ref r, uint8_t y) {
  if (uint32_t* c = Tables::pair(r, y)) {
    Tables::bump(r, c, y);
  } else {
    Tables::add(r, y);
  }
}

// 6.3.9 over any alphabet, order by order. Order d's step needs only its own table and
// whether order d - 1 was looked up and found at that step (the cascade), so the orders run
// as a pipeline of OpenMP tasks over chunks of kMmcChunk steps, task (d, c) after (d - 1, c)
// and (d, c - 1): the caller's free threads take the orders side by side. Each order's bits
// (found, right) then go through the scoreboard of the bit path (non_iid_mmc_bits.cpp).
constexpr size_t kMmcChunk = 4096;  // steps per task (a multiple of 64: a task owns its words)
constexpr uint64_t kMmcMaxEntries = 100000;
// MultiMMC's maps may fill to 4/5: an order at the cap then takes 131,072 slots, not 262,144
// (6.3 MB instead of 12.6 MB of 48-byte slots, each one first touched as zeroed huge pages).
// On the 2-core machine the literal MultiMMC went from 0.24-0.36 s to 0.21-0.23 s for
// truerand_8bit and from 0.43-0.52 s to 0.35-0.39 s for GetTickCount_8bit (session 37).
// LZ78Y's maps stay half full: most of its lookups miss, and at 4/5 its literal estimate of
// truerand_4bit took 0.34-0.38 s instead of 0.23-0.25 s.
constexpr uint32_t kMmcLoadTenths = 8;

struct MmcOrder {
  explicit MmcOrder(size_t slots) : map(slots, kMmcLoadTenths) {}
  ContextMap map;
  uint64_t used = 0;  // (context, next value) pairs counted against the cap
};

// The slots of order d's map (contexts of d + 1 symbols, k values): room for all it can hold
// (at most k^(d + 1) contexts, and the cap), so that it never grows: growing moved each
// context about once more and wrote twice the memory (the orders that fill up to the cap
// took most of truerand_8bit's MultiMMC).
size_t mmc_slots(int d, uint32_t k, size_t n) {
  uint64_t most = 1;
  for (int i = 0; i <= d && most <= kMmcMaxEntries; ++i) most *= k;
  // (contexts: at most one a step, n - d - 1 steps, and at most the cap's pairs)
  most = std::min<uint64_t>({most, kMmcMaxEntries, n - static_cast<size_t>(d) - 1});
  size_t slots = 1024;
  while (10 * most > kMmcLoadTenths * slots) slots *= 2;  // (so that it never grows)
  return slots;
}

Context context_before(const uint8_t* s, size_t t, int m) {  // s[t - m .. t - 1]
  History h;
  for (size_t i = t - static_cast<size_t>(m); i < t; ++i) h.push(s[i]);
  return h.last(m);
}

// Order d's steps of chunk c: `alive` holds order d - 1's found bits (unused for d = 0).
void mmc_order_chunk(const uint8_t* s, size_t n, int d, size_t c, MmcOrder& o, const uint64_t* alive,
                     uint64_t* found, uint64_t* right) {
  using T = GeneralTables;
  const size_t first = std::max<size_t>(2 + c * kMmcChunk, static_cast<size_t>(d) + 2);
  const size_t last = std::min(n, 2 + (c + 1) * kMmcChunk);
  History h;  // s[t - d - 1 .. t - 1], pushed along
  for (size_t i = first - static_cast<size_t>(d) - 1; i < first; ++i) h.push(s[i]);
  for (size_t t = first; t < last; h.push(s[t]), ++t) {
    const size_t i = t - 2;
    const uint64_t bit = uint64_t{1} << (i & 63);
    const uint8_t y = s[t];
    const Context ctx = h.last(d + 1);
    if (d == 0 || (alive[i >> 6] & bit) != 0) {
      if (Follow* r = o.map.find(ctx)) {
        found[i >> 6] |= bit;
        if (T::best(r) == y) right[i >> 6] |= bit;
        if (uint32_t* count = T::pair(r, y)) {
          T::bump(r, count, y);
        } else if (o.used < kMmcMaxEntries) {
          T::add(r, y);
          ++o.used;
        }
        continue;
      }
    }
    if (o.used < kMmcMaxEntries) {  // not looked up, or not found
      bump_or_add<T>(o.map.get_or_create(ctx), y);
      ++o.used;
    }
  }
}

}  // namespace

void multi_mmc_symbol_states(const uint8_t* s, size_t n, std::vector<uint64_t>& found, std::vector<uint64_t>& right,
                             Interrupt interrupt) {
  constexpr int kOrders = 16;
  const size_t steps = n - 2, words = (steps + 63) / 64, chunks = (steps + kMmcChunk - 1) / kMmcChunk;
  const int orders = static_cast<int>(std::min<size_t>(kOrders, steps));
  found.assign(kOrders * words, 0);
  right.assign(kOrders * words, 0);
  const uint32_t k = 1u + *std::max_element(s, s + n);
  std::vector<MmcOrder> order;
  order.reserve(static_cast<size_t>(orders));
  for (int d = 0; d < orders; ++d) order.emplace_back(mmc_slots(d, k, n));
  for (int d = 0; d < orders; ++d) {  // the context that starts at the first sample
    Follow* r = order[static_cast<size_t>(d)].map.get_or_create(context_before(s, static_cast<size_t>(d) + 1, d + 1));
    GeneralTables::add(r, s[d + 1]);
    order[static_cast<size_t>(d)].used = 1;
  }
  std::vector<char> done(static_cast<size_t>(orders) * chunks);  // dependence tokens
  char* tok = done.data();
  char serial[kOrders] = {};  // order d's tasks one after another
  (void)serial;
  char none = 0;
  std::array<std::exception_ptr, kOrders> failures;  // each written by its order's tasks, in turn
  // The dependent tasks' parent is an explicit task of their own: libgomp frees an explicit
  // task's table of dependences when it ends, but kept the one of a pool thread's implicit
  // task (the caller runs in an `omp parallel for`), which LeakSanitizer reported in about
  // half of the --non-iid runs of cli/sample-format-blocks (session 26).
#pragma omp task default(shared)
  {
  for (size_t c = 0; c < chunks; ++c) {
    for (int d = 0; d < orders; ++d) {
      const size_t below = d == 0 ? 0 : static_cast<size_t>(d - 1) * chunks + c, here = static_cast<size_t>(d) * chunks + c;
      char* in = d == 0 ? &none : tok + below;
      (void)in;  // (read by the depend clause alone, which GCC 12 does not count as a use)
#pragma omp task default(none) firstprivate(c, d, in, here) shared(s, n, order, found, right, words, failures, interrupt, serial, tok) depend(in : in[0:1]) depend(out : tok[here:1]) depend(inout : serial[d])
      {
        try {
          if (!failures[static_cast<size_t>(d)] && !interrupt_requested(interrupt)) {
            const uint64_t* alive = d == 0 ? nullptr : &found[static_cast<size_t>(d - 1) * words];
            mmc_order_chunk(s, n, d, c, order[static_cast<size_t>(d)], alive, &found[static_cast<size_t>(d) * words],
                            &right[static_cast<size_t>(d) * words]);
          }
        } catch (...) {
          failures[static_cast<size_t>(d)] = std::current_exception();
        }
      }
    }
  }
#pragma omp taskwait
  }
#pragma omp taskwait
  throw_if_interrupted(interrupt);
  for (const auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }
}

namespace {

constexpr int kLzLengths = 16;
constexpr size_t kLzSpan = 16384;  // steps a task of lz78y_full takes at once

// best[t] = the largest of key[j * kLzSpan + t], j = 0 .. 15, t < m (keys below 2^63).
void lz_best_keys(const uint64_t* key, size_t m, uint64_t* best) {
  for (size_t t = 0; t < m; ++t) {
    uint64_t b = 0;
    for (size_t j = 0; j < kLzLengths; ++j) b = std::max(b, key[j * kLzSpan + t]);
    best[t] = b;
  }
}
// The same, 4 steps at a time by AVX2's signed 64-bit compare.
__attribute__((target("avx2"))) void lz_best_keys_avx2(const uint64_t* key, size_t m, uint64_t* best) {
  size_t t = 0;
  for (; t + 4 <= m; t += 4) {
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(key + t));
    for (size_t j = 1; j < kLzLengths; ++j) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(key + j * kLzSpan + t));
      b = _mm256_blendv_epi8(b, v, _mm256_cmpgt_epi64(v, b));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(best + t), b);
  }
  if (t < m) lz_best_keys(key + t, m - t, best + t);
}

// lz78y_full on bits with a step's 16 lengths side by side, in one thread: one gather of
// their contexts' counts of 0 and one of 1, the step's prediction (the largest count, ties to
// the longer context, then to 1), then one scatter of the next bit's counts (the lengths'
// tables never share a place). The same counts and predictions as lz78y_full's tasks (the
// unit test runs every path: bit_paths()). Taken wherever the CPU has AVX-512 (counts below
// 2^32): on the 2-core machine truerand_8bit's bitstring took 0.195 s of one thread against
// 0.525 s by the tasks on one thread and 0.369 s on two (`bench_non_iid`, session 40); on the
// GPU machine's 16 cores the estimate took 0.24-0.25 s against 0.31-0.32 s by 16 tasks, with
// 1 to 2 s less CPU in all (run40g).
// The largest of v's 16 unsigned lanes.
__attribute__((target("avx512f"))) inline uint32_t largest_u32(__m512i v) {
  const __m256i h = _mm256_max_epu32(_mm512_maskz_extracti64x4_epi64(0xff, v, 0), _mm512_maskz_extracti64x4_epi64(0xff, v, 1));
  __m128i q = _mm_max_epu32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
  q = _mm_max_epu32(q, _mm_shuffle_epi32(q, 0x4e));
  q = _mm_max_epu32(q, _mm_shuffle_epi32(q, 0xb1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(q));
}
__attribute__((target("avx512f"))) void lz78y_bits_avx512(uint32_t* table, const uint8_t* s, size_t t0, size_t t1,
                                                           Score& score, uint64_t& lead, Interrupt interrupt,
                                                           bool grow) {
  alignas(64) uint32_t base[16], mask[16];
  for (int m = 1; m <= 16; ++m) {
    base[m - 1] = BinaryTables::offset(m);
    mask[m - 1] = (1u << m) - 1;
  }
  const __m512i vbase = _mm512_load_si512(base), vmask = _mm512_load_si512(mask), one = _mm512_set1_epi32(1);
  const __m512i zero = _mm512_setzero_si512();
  int* counts = reinterpret_cast<int*>(table);
  const __mmask16 added = grow ? 0xffff : 0;  // contexts counted though not known
  uint32_t c = 0;                               // the bits before step t (lz78y_full's cursor)
  for (size_t i = t0 - kLzLengths; i < t0; ++i) c = (c << 1) | (s[i] & 1u);
  uint64_t correct = score.correct, run = score.run, longest = score.longest, first = lead, unbroken = 1;
  for (size_t t = t0; t < t1; ++t) {
    throw_if_interrupted_at(interrupt, t);
    const uint32_t y = s[t] & 1u;
    // (intrinsics whose GCC 12 forms start from an undefined vector, which -Wmaybe-uninitialized
    // reports, are avoided: the shift by one is an addition, the gathers are masked)
    const __m512i low = _mm512_and_si512(_mm512_set1_epi32(static_cast<int>(c)), vmask);
    const __m512i at0 = _mm512_add_epi32(vbase, _mm512_add_epi32(low, low));
    const __m512i at1 = _mm512_add_epi32(at0, one);
    const __m512i r0 = _mm512_mask_i32gather_epi32(zero, 0xffff, at0, counts, 4);
    const __m512i r1 = _mm512_mask_i32gather_epi32(zero, 0xffff, at1, counts, 4);
    const __m512i either = _mm512_or_si512(r0, r1);
    const __mmask16 known = _mm512_test_epi32_mask(either, either);
    const __m512i best = _mm512_maskz_max_epu32(known, r0, r1);  // (0 where unknown)
    const uint32_t most = largest_u32(best);
    // The longest context with that count (some lane holds `most`; where none is known, every
    // lane holds 0 and the step is a miss).
    const uint32_t with = _mm512_cmpeq_epi32_mask(best, _mm512_set1_epi32(static_cast<int>(most)));
    const int lane = 31 - __builtin_clz(with);
    const uint32_t ones = static_cast<uint32_t>(_mm512_cmpgt_epu32_mask(r0, r1)) ^ 0xffffu;  // lanes predicting 1
    const uint64_t hit = (most != 0) & (((ones >> lane) & 1u) == y);
    correct += hit;
    run = (run + 1) & (0 - hit);  // (score.hit() / miss() without a branch)
    longest = std::max(longest, run);
    unbroken &= hit;
    first += unbroken;
    _mm512_mask_i32scatter_epi32(counts, known | added, y ? at1 : at0, _mm512_add_epi32(y ? r1 : r0, one), 4);
    c = (c << 1) | y;
  }
  score.correct = correct;
  score.run = run;
  score.longest = longest;
  lead = first;
}

// The same steps without vectors (lz78y_bits_spans' loop and the one-thread loop where the
// CPU has no AVX-512, or where bit_paths() says so: the tests run it beside the others): each
// length's context gives a key (its largest count, its length, its prediction: ties to 1),
// the largest key predicts (the most counts, ties to the longer context), and the next bit is
// counted where the context is known (or with `grow`), all without a branch: the step's 16
// comparisons are not predictable, and the form with branches took 0.502 s of one thread for
// truerand_8bit's bitstring against the tasks' 0.635 s (bench_non_iid, session 56).
void lz78y_bits_scalar(uint32_t* table, const uint8_t* s, size_t t0, size_t t1, Score& score, uint64_t& lead,
                       Interrupt interrupt, bool grow) {
  uint32_t c = 0;
  for (size_t i = t0 - kLzLengths; i < t0; ++i) c = (c << 1) | (s[i] & 1u);
  uint64_t correct = score.correct, run = score.run, longest = score.longest, first = lead, unbroken = 1;
  const uint32_t unknown_add = grow ? 1u : 0u;
  for (size_t t = t0; t < t1; ++t) {
    throw_if_interrupted_at(interrupt, t);
    const uint32_t y = s[t] & 1u;
    uint64_t most = 0;  // the largest (count << 6 | length << 1 | prediction)
#pragma GCC unroll 16
    for (int m = kLzLengths; m >= 1; --m) {
      uint32_t* r = table + BinaryTables::offset(m) + 2 * (c & ((1u << m) - 1));
      const uint32_t r0 = r[0], r1 = r[1];
      const uint64_t key = uint64_t{std::max(r0, r1)} << 6 | static_cast<uint64_t>(m) << 1 | (r0 > r1 ? 0u : 1u);
      most = std::max(most, key);
      r[y] += static_cast<uint32_t>((r0 | r1) != 0) | unknown_add;
    }
    const uint64_t hit = static_cast<uint64_t>((most >> 6) != 0) & static_cast<uint64_t>((most & 1u) == y);
    correct += hit;
    run = (run + 1) & (0 - hit);
    longest = std::max(longest, run);
    unbroken &= hit;
    first += unbroken;
    c = (c << 1) | y;
  }
  score.correct = correct;
  score.run = run;
  score.longest = longest;
  lead = first;
}

// LZ78Y's bits from step t0 on (once no context is added any more, or with `grow` where every
// one is: lz78y_full) in `spans` pieces side by side, each an OpenMP task from the tables as
// they are at its first step: those are the tables at t0 plus the counts of (context, next
// bit) of the spans before (every context's with `grow`, else only the contexts known at t0:
// no other one is ever counted: the tables stay the single pass's. The unit tests cannot see
// that rule: a step's largest count is always its length-1 context's, and a full dictionary
// implies that all four pairs of bits came before t0, so a context first counted after t0
// stays below it and never predicts). A span's counts come from one histogram of (the 16 bits
// before a step, its bit), folded into the 16 lengths. The spans' scores are then joined in
// order (a run of hits may cross spans). The same counts and hits as one pass; `tables` is
// left as it was at t0 (no caller reads it after).
using LzSpanLoop = void (*)(uint32_t*, const uint8_t*, size_t, size_t, Score&, uint64_t&, Interrupt, bool);
void lz78y_bits_spans(BinaryTables& tables, const uint8_t* s, size_t n, size_t t0, Score& score, Interrupt interrupt,
                      bool grow, int spans, LzSpanLoop loop) {
  std::vector<size_t> at(static_cast<size_t>(spans) + 1);
  for (size_t k = 0; k <= static_cast<size_t>(spans); ++k) at[k] = t0 + (n - t0) * k / static_cast<size_t>(spans);
  const size_t size = BinaryTables::offset(17);
  std::vector<std::vector<uint32_t>> start(static_cast<size_t>(spans));
  // (allocated here: the tasks below throw nothing)
  std::vector<std::vector<uint32_t>> hist(static_cast<size_t>(spans) - 1, std::vector<uint32_t>(size_t{2} << 16, 0));
  for (size_t k = 0; k + 1 < static_cast<size_t>(spans); ++k) {
#pragma omp task default(none) firstprivate(k) shared(hist, at, s)
    {
      std::vector<uint32_t>& h = hist[k];
      uint32_t c = 0;
      for (size_t i = at[k] - kLzLengths; i < at[k]; ++i) c = (c << 1) | (s[i] & 1u);
      for (size_t t = at[k]; t < at[k + 1]; ++t) {
        const uint32_t y = s[t] & 1u;
        ++h[2 * (c & 0xffffu) + y];
        c = (c << 1) | y;
      }
    }
  }
#pragma omp taskwait
  throw_if_interrupted(interrupt);
  start[0].assign(tables.counts(), tables.counts() + size);
  std::vector<uint32_t> fold(size_t{2} << 16);
  for (size_t k = 1; k < static_cast<size_t>(spans); ++k) {
    start[k] = start[k - 1];
    std::copy(hist[k - 1].begin(), hist[k - 1].end(), fold.begin());
    for (int m = kLzLengths; m >= 1; --m) {  // fold holds length m's counts (2 per context)
      uint32_t* to = start[k].data() + BinaryTables::offset(m);
      const uint32_t* known = tables.counts() + BinaryTables::offset(m);  // (the tables at t0)
      for (size_t x = 0; x < (size_t{2} << m); x += 2) {
        if (grow || (known[x] | known[x + 1])) {
          to[x] += fold[x];
          to[x + 1] += fold[x + 1];
        }
      }
      const size_t half = size_t{1} << m;  // length m - 1: the contexts without their oldest bit
      for (size_t x = 0; x < half; ++x) fold[x] += fold[x + half];
    }
  }
  std::vector<Score> part(static_cast<size_t>(spans));
  std::vector<uint64_t> lead(static_cast<size_t>(spans), 0);
  std::vector<std::exception_ptr> failure(static_cast<size_t>(spans));
  for (size_t k = 0; k < static_cast<size_t>(spans); ++k) {
#pragma omp task default(none) firstprivate(k, loop, grow, interrupt) shared(start, part, lead, failure, at, s)
    try {
      loop(start[k].data(), s, at[k], at[k + 1], part[k], lead[k], interrupt, grow);
    } catch (...) {
      failure[k] = std::current_exception();
    }
  }
#pragma omp taskwait
  for (const auto& f : failure) {
    if (f) std::rethrow_exception(f);
  }
  for (size_t k = 0; k < static_cast<size_t>(spans); ++k) {
    score.correct += part[k].correct;
    if (lead[k] == at[k + 1] - at[k]) {  // every step a hit: the run goes on
      score.run += lead[k];
      score.longest = std::max(score.longest, score.run);
    } else {
      score.longest = std::max({score.longest, score.run + lead[k], part[k].longest});
      score.run = part[k].run;
    }
  }
}

std::atomic<int> lz78y_forced_spans{0};  // set_lz78y_spans

// How many spans LZ78Y's bits take from step t0 on: half the threads of the team the
// estimate runs in (the other estimates' tasks end on the rest, and their threads then take
// spans), none in teams below 8 threads (a batch's worker has 2: the spans' extra work, a
// fifth more, would only take cores from its other estimates) or with fewer than 2^18 steps
// a span. (Measured with the AVX-512 loop on 16 cores, session 53; the loop without vectors
// takes about as long a step, bench_non_iid, session 57.)
int lz78y_spans(size_t steps) {
  const int forced = lz78y_forced_spans.load(std::memory_order_relaxed);
  if (forced > 0) return static_cast<int>(std::min<size_t>(static_cast<size_t>(forced), std::max<size_t>(steps, 1)));
  const int team = omp_get_num_threads();
  if (team < 8) return 1;
  const size_t most = std::max<size_t>(steps >> 18, 1);
  return static_cast<int>(std::min<size_t>({static_cast<size_t>(team / 2), 16, most}));
}

// LZ78Y from step t0 on where the lengths no longer share anything: once its dictionary is
// full (no context is added any more: each length's table changes only by its own contexts'
// counts), or with `grow` where it never fills (Tables::never_full: a context not found is
// always added). Bits take spans of time side by side (lz78y_spans, lz78y_bits_spans) or one
// loop in one thread (the AVX-512 loop where the CPU has it, else lz78y_bits_scalar); other
// alphabets (and bits where bit_paths() is `tasks`) run the 16 lengths side by side, a task
// each over pieces of kLzSpan steps.
// Each step's candidate of each length is kept as a key (best count, length, predicted
// value), the largest being the reference's prediction (the most frequent next value, ties
// to the longer context); then the span's steps are scored in order.
template <class Tables>
void lz78y_full(Tables& tables, const uint8_t* s, size_t n, size_t t0, Score& score, Interrupt interrupt,
                bool grow = false) {
  if constexpr (std::is_same_v<Tables, BinaryTables>) {
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    const BitPaths paths = bit_paths();
    const bool vector = avx512 && paths == BitPaths::fastest && n < (size_t{1} << 32);
    const LzSpanLoop loop = vector ? &lz78y_bits_avx512 : &lz78y_bits_scalar;
    const int spans = t0 < n && paths != BitPaths::tasks ? lz78y_spans(n - t0) : 1;
    if (spans > 1) {
      lz78y_bits_spans(tables, s, n, t0, score, interrupt, grow, spans, loop);
      return;
    }
    if (paths != BitPaths::tasks) {
      uint64_t lead = 0;
      loop(tables.counts(), s, t0, n, score, lead, interrupt, grow);
      return;
    }
  }
  std::vector<uint64_t> key(2 * kLzLengths * kLzSpan), best(kLzSpan);  // two spans' keys
  static const bool avx2 = __builtin_cpu_supports("avx2");
  std::array<std::exception_ptr, kLzLengths> failure;
  Tables* tp = &tables;
  // Span `a`'s 16 tasks, writing key half `half` (a length's tasks run one span after another:
  // the caller waits for a span's tasks before it starts the next span's).
  auto start = [&](size_t a, size_t half) {
    const size_t b = std::min(n, a + kLzSpan);
    uint64_t* kp = key.data() + half * kLzLengths * kLzSpan;
    for (int j = 1; j <= kLzLengths; ++j) {
#pragma omp task default(none) firstprivate(a, b, j, tp, kp, s, grow) shared(failure)
      try {
        typename Tables::Cursor c{};
        for (size_t i = a - kLzLengths; i < a; ++i) Tables::advance(c, s[i]);
        uint64_t* out = kp + static_cast<size_t>(j - 1) * kLzSpan;
        for (size_t t = a; t < b; ++t) {
          uint64_t k = 0;
          if (typename Tables::Ref r = tp->find_at(j, c)) {
            k = uint64_t{Tables::best_count(r)} << 13 | uint64_t(j) << 8 | Tables::best(r);
            bump_or_add<Tables>(r, s[t]);
          } else if (grow) {
            Tables::add(tp->get_or_create_at(j, c), s[t]);
          }
          out[t - a] = k;
          Tables::advance(c, s[t]);
        }
      } catch (...) {
        failure[static_cast<size_t>(j - 1)] = std::current_exception();
      }
    }
  };
  // Span a's steps scored in order while the tasks of the span after it run.
  start(t0, 0);
#pragma omp taskwait
  for (size_t a = t0, half = 0; a < n; a += kLzSpan, half ^= 1) {
    for (const auto& f : failure) {
      if (f) std::rethrow_exception(f);
    }
    throw_if_interrupted(interrupt);
    if (a + kLzSpan < n) start(a + kLzSpan, half ^ 1);
    const size_t b = std::min(n, a + kLzSpan);
    (avx2 ? lz_best_keys_avx2 : lz_best_keys)(key.data() + half * kLzLengths * kLzSpan, b - a, best.data());
    for (size_t t = a; t < b; ++t) {
      if (best[t - a] != 0 && static_cast<uint8_t>(best[t - a]) == s[t]) {
        score.hit();
      } else {
        score.miss();
      }
    }
#pragma omp taskwait
  }
}

// 6.3.10 over a kind of table: step by step while contexts are added, then lz78y_full (from
// the first step where the dictionary never fills).
template <class Tables>
Estimate lz78y_with(const uint8_t* s, size_t n, int k, Interrupt interrupt) {
  constexpr int kLengths = kLzLengths;
  constexpr uint64_t kMaxContexts = 65536;
  auto tables = std::make_unique<Tables>();
  for (int i = 0; i < kLengths; ++i) tables->push(s[i]);
  for (int j = 1; j <= kLengths; ++j) Tables::add(tables->get_or_create(j), s[kLengths]);
  uint64_t size = kLengths;
  tables->push(s[kLengths]);
  Score score;
  size_t steps_end = n;  // the steps left to the loop below
  if (Tables::never_full(s, n, kMaxContexts)) {
    lz78y_full(*tables, s, n, kLengths + 1, score, interrupt, true);
    steps_end = kLengths + 1;
  }
  for (size_t t = kLengths + 1; t < steps_end; ++t) {
    throw_if_interrupted_at(interrupt, t);
    if (size >= kMaxContexts) {
      lz78y_full(*tables, s, n, t, score, interrupt);
      break;
    }
    const uint8_t y = s[t];
    bool have = false;
    uint32_t most = 0;
    uint8_t prediction = 0;
    for (int j = kLengths; j >= 1; --j) {
      if (typename Tables::Ref r = tables->find(j)) {
        if (Tables::best_count(r) > most) {  // ties to the longer context
          most = Tables::best_count(r);
          prediction = Tables::best(r);
          have = true;
        }
        bump_or_add<Tables>(r, y);
      } else if (size < kMaxContexts) {
        Tables::add(tables->get_or_create(j), y);
        ++size;
      }
    }
    if (have && prediction == y) {
      score.hit();
    } else {
      score.miss();
    }
    tables->push(y);
  }
  Estimate e;
  e.which = NonIidEstimator::Lz78y;
  prediction_estimate(e, score.correct, n - 17, score.longest, k);
  return e;
}

}  // namespace

// 6.3.9: Markov models of orders 1 to 16 counting what follows each context (at most
// 100,000 (context, next value) pairs per order); the model with the most correct
// predictions so far predicts. Bits take the orders one by one (non_iid_mmc_bits.cpp),
// other alphabets a hash map per order, step by step.
Estimate multi_mmc_estimate(const uint8_t* s, size_t n, int k, Interrupt interrupt, const MmcBitsSource& bits) {
  if (n < 3) return too_short(NonIidEstimator::MultiMmc, "multiMMC", 3);
  // Order by order: bits in independent passes (non_iid_mmc_bits.cpp) or another engine's,
  // others as a pipeline.
  MmcCounts c;
  std::vector<uint64_t> found, right;
  if (k == 2 && bits && bits(s, n, found, right, interrupt)) {
    c = multi_mmc_scoreboard(found, right, (n - 2 + 63) / 64, interrupt);
  } else if (k == 2) {
    c = multi_mmc_bits(s, n, interrupt);
  } else {
    multi_mmc_symbol_states(s, n, found, right, interrupt);
    c = multi_mmc_scoreboard(found, right, (n - 2 + 63) / 64, interrupt);
  }
  Estimate e;
  e.which = NonIidEstimator::MultiMmc;
  prediction_estimate(e, c.correct, n - 2, c.longest, k);
  return e;
}

// 6.3.10: an LZ78-like dictionary of contexts of lengths 1 to 16 (at most 65,536 contexts
// in all); the longest context with the most frequent next value predicts.
Estimate lz78y_estimate(const uint8_t* s, size_t n, int k, Interrupt interrupt, const Lz78yBitsSource& bits) {
  if (n < 18) return too_short(NonIidEstimator::Lz78y, "LZ78Y", 18);
  std::vector<uint64_t> hits;
  if (k == 2 && bits && bits(s, n, hits, interrupt)) return lz78y_from_hits(hits, n, k);
  return k == 2 ? lz78y_with<BinaryTables>(s, n, k, interrupt) : lz78y_with<GeneralTables>(s, n, k, interrupt);
}

namespace {

// The longest run of ones in x (its bits shifted onto themselves until none is left).
int longest_ones(uint64_t x) {
  int k = 0;
  for (; x != 0; ++k) x &= x >> 1;
  return k;
}

}  // namespace

void set_lz78y_spans(int spans) { lz78y_forced_spans.store(spans, std::memory_order_relaxed); }

Estimate lz78y_from_hits(const std::vector<uint64_t>& hits, size_t n, int k) {
  const size_t steps = n - 17;
  Score score;
  for (size_t w = 0; w * 64 < steps; ++w) {
    const int v = static_cast<int>(std::min<size_t>(64, steps - w * 64));  // its steps
    const uint64_t all = v == 64 ? ~uint64_t{0} : (uint64_t{1} << v) - 1;
    const uint64_t x = hits.at(w) & all;
    score.correct += static_cast<uint64_t>(__builtin_popcountll(x));
    if (x == all) {  // a run through the word
      score.run += static_cast<uint64_t>(v);
      score.longest = std::max(score.longest, score.run);
      continue;
    }
    score.run += static_cast<uint64_t>(__builtin_ctzll(~x));  // the run that goes on into it
    score.longest = std::max({score.longest, score.run, static_cast<uint64_t>(longest_ones(x))});
    score.run = static_cast<uint64_t>(__builtin_clzll(~(x << (64 - v))));  // the run it leaves open
  }
  Estimate e;
  e.which = NonIidEstimator::Lz78y;
  prediction_estimate(e, score.correct, n - 17, score.longest, k);
  return e;
}

}  // namespace ea
