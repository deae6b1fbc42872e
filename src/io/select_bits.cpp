#include "io/select_bits.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace ea {

namespace {

int bit_count(uint32_t v) {
  int n = 0;
  for (; v != 0; v &= v - 1) ++n;
  return n;
}

// The bits of `packed` placed at the set bits of `mask`, in order (the inverse of pack_bits).
uint32_t spread_bits(uint32_t packed, uint32_t mask) {
  uint32_t out = 0;
  int at = 0;
  for (uint32_t m = mask; m != 0; m &= m - 1) {
    if ((packed >> at) & 1u) out |= m & (~m + 1);
    ++at;
  }
  return out;
}

// -log2 of the 99% upper confidence bound of a probability estimated from `hits` of `n`.
double bound_entropy(uint64_t hits, uint64_t n) {
  if (n < 2) return 0;
  const double p = static_cast<double>(hits) / static_cast<double>(n);
  const double pu = std::min(1.0, p + 2.576 * std::sqrt(p * (1 - p) / static_cast<double>(n - 1)));
  return -std::log2(pu);
}

// The score of symbols s(i) = symbol(i): the lower of the most common value's estimate
// and an online first-order predictor's (each symbol predicted as the most frequent
// successor, so far, of the symbol before it; a tie keeps the one that got there first).
struct Scorer {
  std::vector<uint32_t> pairs = std::vector<uint32_t>(256 * 256);
  std::array<uint64_t, 256> counts{};
  std::array<int, 256> guess{};

  template <class Symbol>
  double score(size_t n, Symbol symbol) {
    if (n < 2) return 0;
    std::fill(pairs.begin(), pairs.end(), 0);
    counts.fill(0);
    guess.fill(-1);
    uint32_t prev = symbol(0);
    ++counts[prev];
    uint64_t correct = 0;
    for (size_t i = 1; i < n; ++i) {
      const uint32_t s = symbol(i);
      ++counts[s];
      correct += guess[prev] == static_cast<int>(s);
      uint32_t* row = &pairs[prev * 256];
      if (++row[s] > (guess[prev] < 0 ? 0 : row[guess[prev]]) && guess[prev] != static_cast<int>(s)) {
        guess[prev] = static_cast<int>(s);
      }
      prev = s;
    }
    const uint64_t most = *std::max_element(counts.begin(), counts.end());
    return std::min(bound_entropy(most, n), bound_entropy(correct, n - 1));
  }
};

// A bit's own predictability: the 99% bound of how often an online predictor guesses it
// from its 8 previous values (the value that followed that history most often so far;
// a tie guesses 0), in bits. A counter's bit or a slowly changing bit scores near 0,
// though half its values are 1.
double history_entropy(const std::vector<uint32_t>& values, int bit) {
  constexpr int kHistory = 8;
  if (values.size() <= kHistory + 1) return 1;
  std::array<std::array<uint64_t, 2>, 256> next{};
  uint32_t h = 0;
  uint64_t correct = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t b = (values[i] >> bit) & 1u;
    if (i >= kHistory) {
      correct += (next[h][1] > next[h][0] ? 1u : 0u) == b;
      ++next[h][b];
    }
    h = ((h << 1) | b) & 0xffu;
  }
  return std::min(1.0, bound_entropy(correct, values.size() - kHistory));
}

// The sum of the history entropies of the bits of `mask` (a heuristic cap, not a bound).
double history_cap(const std::array<double, 32>& h, uint32_t mask) {
  double sum = 0;
  for (int b = 0; b < 32; ++b) {
    if ((mask >> b) & 1u) sum += h[b];
  }
  return sum;
}

std::array<double, 32> history_entropies(const std::vector<uint32_t>& values, uint32_t bits, int threads) {
  std::array<double, 32> h{};
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(dynamic, 1)
  for (int b = 0; b < 32; ++b) {
    if ((bits >> b) & 1u) h[b] = history_entropy(values, b);
  }
  return h;
}

uint64_t choose(int n, int k) {
  uint64_t c = 1;
  for (int i = 1; i <= k; ++i) c = c * static_cast<uint64_t>(n - k + i) / static_cast<uint64_t>(i);
  return c;
}

// Keeps the best few (mask, score), best first; ties to the smaller mask.
void keep_best(std::vector<std::pair<uint32_t, double>>& best, uint32_t mask, double score) {
  best.emplace_back(mask, score);
  std::sort(best.begin(), best.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (best.size() > 5) best.resize(5);
}

}  // namespace

double mask_score(const std::vector<uint32_t>& values, uint32_t mask) {
  Scorer s;
  const double joint = s.score(values.size(), [&](size_t i) { return pack_bits(values[i], mask); });
  return std::min(joint, history_cap(history_entropies(values, mask, 1), mask));
}

uint32_t active_bits(const std::vector<uint32_t>& values, uint32_t varying) {
  uint32_t active = varying;
  for (int j = 31; j >= 0; --j) {
    if (!((active >> j) & 1u)) continue;
    const uint32_t lower = active & ((uint32_t{1} << j) - 1);
    if (lower == 0) continue;
    uint32_t any = 0, all = ~uint32_t{0};
    for (uint32_t v : values) {
      const uint32_t e = v ^ (((v >> j) & 1u) ? ~uint32_t{0} : 0);
      any |= e, all &= e;
    }
    active &= ~(lower & ~(any & ~all));  // drop the lower bits that never vary against bit j
  }
  return active;
}

namespace {

// Every mask of `w` of the `n` compressed bits, scored in the order of their cap (the lower
// of the most-common-value estimate, from the histogram, and the bits' history sum: the
// score is at most this), in blocks while a block's first cap reaches the best score.
MaskSearch exhaustive(const std::vector<uint32_t>& values, uint32_t active, int n, int w, int threads) {
  const std::array<double, 32> h = history_entropies(values, active, threads);
  std::vector<uint32_t> c(values.size());
  std::vector<uint64_t> hist(size_t{1} << n);
  for (size_t i = 0; i < values.size(); ++i) ++hist[c[i] = pack_bits(values[i], active)];
  std::vector<uint32_t> masks;
  for (uint32_t m = (uint32_t{1} << w) - 1; m < (uint32_t{1} << n);) {
    masks.push_back(m);
    const uint32_t t = m | (m - 1);  // the next integer with the same number of bits set
    m = (t + 1) | (((~t & (t + 1)) - 1) >> (__builtin_ctz(m) + 1));
  }
  std::vector<double> bound(masks.size());
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(dynamic, 16)
  for (size_t k = 0; k < masks.size(); ++k) {
    std::array<uint64_t, 256> agg{};
    for (size_t x = 0; x < hist.size(); ++x) agg[pack_bits(static_cast<uint32_t>(x), masks[k])] += hist[x];
    bound[k] = std::min(bound_entropy(*std::max_element(agg.begin(), agg.end()), values.size()),
                        history_cap(h, spread_bits(masks[k], active)));
  }
  std::vector<size_t> order(masks.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bound[a] > bound[b]; });
  MaskSearch r;
  r.candidates = masks.size();
  double best = -1;
  std::vector<double> score(masks.size(), -1);
  constexpr size_t kBlock = 32;  // fixed, so that what is scored does not depend on threads
  for (size_t at = 0; at < order.size() && bound[order[at]] >= best; at += kBlock) {
    const size_t end = std::min(order.size(), at + kBlock);
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(dynamic, 1)
    for (size_t q = at; q < end; ++q) {
      std::vector<uint8_t> lut(hist.size());
      for (size_t x = 0; x < lut.size(); ++x) lut[x] = static_cast<uint8_t>(pack_bits(static_cast<uint32_t>(x), masks[order[q]]));
      Scorer s;
      const double joint = s.score(c.size(), [&](size_t i) { return uint32_t{lut[c[i]]}; });
      score[order[q]] = std::min(joint, history_cap(h, spread_bits(masks[order[q]], active)));
    }
    for (size_t q = at; q < end; ++q) best = std::max(best, score[order[q]]);
  }
  for (size_t k = 0; k < masks.size(); ++k) {
    if (score[k] < 0) continue;
    ++r.scored;
    keep_best(r.best, spread_bits(masks[k], active), score[k]);
  }
  r.method = "exhaustive: every mask of " + std::to_string(w) + " of the " + std::to_string(n) +
             " active bits, scored in the order of a cap of the score (the most-common-value estimate and the bits' history "
             "entropies), each skipped whose cap is below the best score";
  return r;
}

// Adds the best bit `w` times, then swaps a kept bit for a left one while the score rises.
MaskSearch greedy(const std::vector<uint32_t>& values, uint32_t active, int w, int threads) {
  MaskSearch r;
  std::vector<uint32_t> bits;
  for (uint32_t a = active; a != 0; a &= a - 1) bits.push_back(a & (~a + 1));
  auto best_of = [&](const std::vector<uint32_t>& cand, double& score) {
    std::vector<double> s(cand.size());
#pragma omp parallel for num_threads(std::max(1, threads)) schedule(dynamic, 1)
    for (size_t k = 0; k < cand.size(); ++k) s[k] = mask_score(values, cand[k]);
    r.candidates += cand.size(), r.scored += cand.size();
    size_t at = 0;
    for (size_t k = 1; k < cand.size(); ++k) {
      if (s[k] > s[at] || (s[k] == s[at] && cand[k] < cand[at])) at = k;
    }
    score = s[at];
    return cand[at];
  };
  uint32_t mask = 0;
  double score = 0;
  for (int step = 0; step < w; ++step) {
    std::vector<uint32_t> cand;
    for (uint32_t b : bits) {
      if (!(mask & b)) cand.push_back(mask | b);
    }
    mask = best_of(cand, score);
  }
  for (int round = 0; round < 8; ++round) {
    std::vector<uint32_t> cand;
    for (uint32_t in : bits) {
      for (uint32_t out : bits) {
        if ((mask & in) && !(mask & out)) cand.push_back((mask & ~in) | out);
      }
    }
    double s = 0;
    const uint32_t m = cand.empty() ? mask : best_of(cand, s);
    if (cand.empty() || !(s > score)) break;
    mask = m, score = s;
  }
  keep_best(r.best, mask, score);
  r.method = "greedy: " + std::to_string(w) + " of the " + std::to_string(bits.size()) +
             " active bits added one at a time, then swapped while the score rose (too many masks to score each)";
  return r;
}

}  // namespace

MaskSearch search_mask(const std::vector<uint32_t>& values, uint32_t varying, int bits, int threads) {
  const uint32_t active = active_bits(values, varying);
  const int n = bit_count(active);
  const int w = std::min(bits, n);
  MaskSearch r;
  if (n == 0) {
    r.method = "none: no bit varies";
  } else if (w == n) {
    r.candidates = r.scored = 1;
    keep_best(r.best, active, mask_score(values, active));
    r.method = "all " + std::to_string(n) + " active bits (no more than the " + std::to_string(bits) + " asked)";
  } else if (n <= 16 && choose(n, w) <= kExhaustiveMasks) {
    r = exhaustive(values, active, n, w, threads);
  } else {
    r = greedy(values, active, w, threads);
  }
  r.samples_scored = values.size();
  r.score = r.best.empty() ? 0 : r.best.front().second;
  return r;
}

}  // namespace ea
