#include "stats/host_statistics.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace ea {

namespace {

#define EA_AVX2 __attribute__((target("avx2,popcnt,bmi")))

// RunCounter's result over a sequence of bits given a bit at a time (the first and the
// last few) or 64 at a time (bit t of a word is the t-th element).
struct BitRuns {
  uint64_t len = 0, ups = 0, runs = 0, longest = 1;
  uint64_t cur = 0;   // length of the run in progress
  uint64_t last = 0;  // its bit

  void push_bit(uint64_t b) {
    if (len == 0 || b != last) {
      ++runs;
      longest = std::max(longest, cur);
      cur = 1;
    } else {
      ++cur;
    }
    ups += b;
    last = b;
    ++len;
  }

  // After at least one push_bit().
  EA_AVX2 EA_FORCEINLINE void push_word(uint64_t w) {
    const uint64_t c = w ^ ((w << 1) | last);  // bit t: element t starts a run
    ups += static_cast<uint64_t>(__builtin_popcountll(w));
    len += 64;
    last = w >> 63;
    if (c == 0) {
      cur += 64;
      return;
    }
    runs += static_cast<uint64_t>(__builtin_popcountll(c));
    const uint32_t t0 = static_cast<uint32_t>(__builtin_ctzll(c));
    const uint32_t t1 = 63u - static_cast<uint32_t>(__builtin_clzll(c));
    longest = std::max(longest, cur + t0);
    cur = 64 - t1;
    if (t1 > t0 + longest) inner(c, t0, t1);
  }

  // The runs that start and end inside a word: between the changes t0 < t1, a run of
  // `longest` or more elements is `longest` - 1 or more zeros in a row in c.
  EA_AVX2 EA_FORCEINLINE void inner(uint64_t c, uint32_t t0, uint32_t t1) {
    const uint64_t inside = (t1 - t0 - 1 == 0) ? 0 : ((~uint64_t{0} >> (64 - (t1 - t0 - 1))) << (t0 + 1));
    uint64_t z = ~c & inside;
    uint64_t need = longest - 1;  // more zeros than that: a longer run
    uint64_t s = 1;
    while (need > 0 && z) {
      const uint64_t sh = std::min(s, need);
      z &= z >> sh;
      need -= sh;
      s *= 2;
    }
    if (!z) return;
    uint64_t x = c & (c - 1);
    uint32_t p = t0;
    while (x) {
      const uint32_t q = static_cast<uint32_t>(__builtin_ctzll(x));
      longest = std::max<uint64_t>(longest, q - p);
      p = q;
      x &= x - 1;
    }
  }

  RunStats result() const {
    const uint64_t downs = len - ups;
    return RunStats{runs, std::max(longest, len ? cur : uint64_t{1}), ups > downs ? ups : downs};
  }
};

// 64 bits of x[i] <= x[i+1] for i = e .. e+63.
EA_AVX2 EA_FORCEINLINE uint64_t up_bits(const uint8_t* x, size_t e) {
  const __m256i p0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + e));
  const __m256i c0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + e + 1));
  const __m256i p1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + e + 32));
  const __m256i c1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + e + 33));
  const uint32_t lo = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(p0, c0), c0)));
  const uint32_t hi = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(p1, c1), c1)));
  return static_cast<uint64_t>(lo) | (static_cast<uint64_t>(hi) << 32);
}

// 64 bits of x[i] >= t for i = e .. e+63.
EA_AVX2 EA_FORCEINLINE uint64_t at_least_bits(const uint8_t* x, size_t e, __m256i t) {
  const __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + e));
  const __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + e + 32));
  const uint32_t lo = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(v0, t), v0)));
  const uint32_t hi = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(v1, t), v1)));
  return static_cast<uint64_t>(lo) | (static_cast<uint64_t>(hi) << 32);
}

uint32_t median_threshold(double median) { return MedianAcc(median).threshold; }

EA_AVX2 RunStats directional_avx2(const uint8_t* x, size_t n) {
  BitRuns r;
  if (n < 2) return RunCounter().result();
  const size_t len = n - 1;  // element e: x[e] <= x[e+1]
  r.push_bit(x[0] <= x[1] ? 1u : 0u);
  size_t e = 1;
  for (; e + 64 <= len; e += 64) r.push_word(up_bits(x, e));
  for (; e < len; ++e) r.push_bit(x[e] <= x[e + 1] ? 1u : 0u);
  return r.result();
}

EA_AVX2 RunStats median_avx2(const uint8_t* x, size_t n, uint32_t threshold) {
  BitRuns r;
  if (n == 0) return RunCounter().result();
  if (threshold > 255) {
    // No sample reaches the threshold: one run of n downs.
    r.push_bit(0);
    r.cur = n;
    r.len = n;
    return r.result();
  }
  const __m256i t = _mm256_set1_epi8(static_cast<char>(threshold));
  r.push_bit(x[0] >= threshold ? 1u : 0u);
  size_t e = 1;
  for (; e + 64 <= n; e += 64) r.push_word(at_least_bits(x, e, t));
  for (; e < n; ++e) r.push_bit(x[e] >= threshold ? 1u : 0u);
  return r.result();
}

// The running sums of bytes 0..7 in 8 int32 lanes.
EA_AVX2 EA_FORCEINLINE __m256i prefix8(__m128i bytes) {
  __m256i v = _mm256_cvtepu8_epi32(bytes);
  v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
  v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
  const __m256i carry = _mm256_permute2x128_si256(_mm256_shuffle_epi32(v, 0xff), _mm256_setzero_si256(), 0x08);
  return _mm256_add_epi32(v, carry);
}

// The candidates |S_i - (i+1) mean| of 8 samples into best: v holds their partial sums (S_i =
// base + v), idx their i + 1.
EA_AVX2 EA_FORCEINLINE void excursion_eight(__m256i v, __m256d idx_lo, __m256d idx_hi, __m256d base, __m256d mean,
                                            __m256d& best) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d s_lo = _mm256_add_pd(base, _mm256_cvtepi32_pd(_mm256_castsi256_si128(v)));
  const __m256d s_hi = _mm256_add_pd(base, _mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1)));
  const __m256d d_lo = _mm256_sub_pd(s_lo, _mm256_mul_pd(idx_lo, mean));
  const __m256d d_hi = _mm256_sub_pd(s_hi, _mm256_mul_pd(idx_hi, mean));
  best = _mm256_max_pd(best, _mm256_max_pd(_mm256_andnot_pd(sign, d_lo), _mm256_andnot_pd(sign, d_hi)));
}

// The excursion: max over i of |S_i - (i+1) mean|, S_i = raw[0] + ... + raw[i]. S_i is kept
// as base (a double, exact) plus an int32 part below 2^31 (reset every kSpan samples), so
// double(S_i) = base + double(part) exactly. 16 samples a step: the running sum's dependency
// is one addition a step.
EA_AVX2 double excursion_avx2(const uint8_t* raw, size_t n, double mean) {
  constexpr size_t kSpan = size_t{1} << 20;  // 255 * 2^20 < 2^31
  const __m256d vmean = _mm256_set1_pd(mean);
  const __m256d four = _mm256_set1_pd(4.0), eight = _mm256_set1_pd(8.0), sixteen = _mm256_set1_pd(16.0);
  const __m256i last = _mm256_set1_epi32(7);
  __m256d best = _mm256_setzero_pd(), best2 = _mm256_setzero_pd();
  double base = 0.0;
  uint64_t running = 0;  // the integer sum so far, for the tail
  size_t i = 0;
  while (i + 8 <= n) {
    const size_t end = std::min(n, i + kSpan);
    const __m256d vbase = _mm256_set1_pd(base);
    __m256d idx_lo = _mm256_setr_pd(static_cast<double>(i + 1), static_cast<double>(i + 2), static_cast<double>(i + 3),
                                    static_cast<double>(i + 4));
    __m256d idx_hi = _mm256_add_pd(idx_lo, four);
    __m256i acc = _mm256_setzero_si256();
    for (; i + 16 <= end; i += 16) {
      const __m256i p1 = prefix8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(raw + i)));
      const __m256i p2 = prefix8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(raw + i + 8)));
      const __m256i t1 = _mm256_permutevar8x32_epi32(p1, last);
      const __m256i t2 = _mm256_permutevar8x32_epi32(p2, last);
      const __m256i v1 = _mm256_add_epi32(p1, acc);
      const __m256i v2 = _mm256_add_epi32(_mm256_add_epi32(p2, t1), acc);
      acc = _mm256_add_epi32(acc, _mm256_add_epi32(t1, t2));
      excursion_eight(v1, idx_lo, idx_hi, vbase, vmean, best);
      excursion_eight(v2, _mm256_add_pd(idx_lo, eight), _mm256_add_pd(idx_hi, eight), vbase, vmean, best2);
      idx_lo = _mm256_add_pd(idx_lo, sixteen);
      idx_hi = _mm256_add_pd(idx_hi, sixteen);
    }
    if (i + 8 <= end) {
      const __m256i v = _mm256_add_epi32(prefix8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(raw + i))), acc);
      acc = _mm256_permutevar8x32_epi32(v, last);
      excursion_eight(v, idx_lo, idx_hi, vbase, vmean, best);
      i += 8;
    }
    const uint32_t part = static_cast<uint32_t>(_mm256_extract_epi32(acc, 0));
    running += part;
    base = static_cast<double>(running);
  }
  best = _mm256_max_pd(best, best2);
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, best);
  double m = std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
  for (; i < n; ++i) {
    running += raw[i];
    double d = static_cast<double>(running) - static_cast<double>(i + 1) * mean;
    if (d < 0) d = -d;
    m = d > m ? d : m;
  }
  return m;
}

// Horizontal sum of 4 uint64 lanes.
EA_AVX2 EA_FORCEINLINE uint64_t hsum64(__m256i v) {
  alignas(32) uint64_t l[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(l), v);
  return l[0] + l[1] + l[2] + l[3];
}

// The five lags' sums in one pass: x_i == x_{i+p} counted in byte counters (flushed to
// 64 bits before they can wrap), raw products summed through 16-bit multiply-adds into
// int32 lanes (flushed likewise).
EA_AVX2 LagStats lagged_avx2(const uint8_t* sym, const uint8_t* raw, size_t n) {
  LagStats r;
  for (int k = 0; k < kNumLags; ++k) r.periodicity[k] = r.covariance[k] = 0;
  constexpr size_t kMaxLag = 32;
  const size_t stop = n > kMaxLag ? n - kMaxLag : 0;  // vector steps take i + 31 + 32 < n
  __m256i per64[kNumLags], cov64[kNumLags];
  for (int k = 0; k < kNumLags; ++k) per64[k] = cov64[k] = _mm256_setzero_si256();
  const __m256i zero = _mm256_setzero_si256();
  size_t i = 0;
  while (i + 32 <= stop) {
    // At most 255 steps per flush of the byte counters (and far below the int32 limit).
    const size_t end = std::min(stop, i + 32 * 255);
    __m256i per8[kNumLags], cov32[kNumLags];
    for (int k = 0; k < kNumLags; ++k) per8[k] = cov32[k] = zero;
    for (; i + 32 <= end; i += 32) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sym + i));
      const __m256i ra = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(raw + i));
      const __m256i ra_lo = _mm256_cvtepu8_epi16(_mm256_castsi256_si128(ra));
      const __m256i ra_hi = _mm256_cvtepu8_epi16(_mm256_extracti128_si256(ra, 1));
      for (int k = 0; k < kNumLags; ++k) {
        const size_t p = lag(k);
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sym + i + p));
        per8[k] = _mm256_sub_epi8(per8[k], _mm256_cmpeq_epi8(a, b));
        const __m256i rb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(raw + i + p));
        const __m256i lo = _mm256_madd_epi16(ra_lo, _mm256_cvtepu8_epi16(_mm256_castsi256_si128(rb)));
        const __m256i hi = _mm256_madd_epi16(ra_hi, _mm256_cvtepu8_epi16(_mm256_extracti128_si256(rb, 1)));
        cov32[k] = _mm256_add_epi32(cov32[k], _mm256_add_epi32(lo, hi));
      }
    }
    for (int k = 0; k < kNumLags; ++k) {
      per64[k] = _mm256_add_epi64(per64[k], _mm256_sad_epu8(per8[k], zero));
      cov64[k] = _mm256_add_epi64(cov64[k], _mm256_cvtepu32_epi64(_mm256_castsi256_si128(cov32[k])));
      cov64[k] = _mm256_add_epi64(cov64[k], _mm256_cvtepu32_epi64(_mm256_extracti128_si256(cov32[k], 1)));
    }
  }
  for (int k = 0; k < kNumLags; ++k) {
    const size_t p = lag(k);
    uint64_t per = hsum64(per64[k]), cov = hsum64(cov64[k]);
    for (size_t t = i; t + p < n; ++t) {
      per += sym[t] == sym[t + p] ? 1u : 0u;
      cov += static_cast<uint64_t>(raw[t]) * raw[t + p];
    }
    r.periodicity[k] = per;
    r.covariance[k] = cov;
  }
  return r;
}

// collisions(). The window that starts at s ends at e(s), the first position where a value
// of [s, n) occurs the second time: e(s) = min(next(s), e(s + 1)), where next(t) is the
// next position of x[t]'s value after t. Samples are below 256, so e(s) <= s + 256 where
// it exists, and e over a block of positions follows from a backward sweep that starts 257
// positions past the block. Per block: e by that sweep (a table of next positions and a
// running minimum), then the windows that start in the block, one step each: no branch per
// sample (on samples of few values, whose windows are short, the branch of a sample-by-sample
// pass mispredicts often).
constexpr uint32_t kCollisionBlock = 4096;
constexpr uint32_t kNone = 0xffffffffu;

EA_AVX2 CollisionStats collisions_bytes(const uint8_t* x, size_t n) {
  alignas(32) uint32_t e[kCollisionBlock];
  uint64_t sum = 0, count = 0;
  uint32_t maximum = 0;
  uint32_t s = 0;  // start of the current window
  const uint32_t size = static_cast<uint32_t>(n);
  for (uint32_t b = 0; b < size && s < size; b += kCollisionBlock) {
    const uint32_t bend = size - b < kCollisionBlock ? size : b + kCollisionBlock;
    if (s >= bend) continue;
    const uint32_t sweep = size - bend < 257 ? size : bend + 257;
    uint32_t nextpos[256];
    for (uint32_t& v : nextpos) v = kNone;
    uint32_t carry = kNone;  // e(bend)
    for (uint32_t j = sweep; j-- > bend;) {
      const uint32_t v = x[j];
      carry = nextpos[v] < carry ? nextpos[v] : carry;
      nextpos[v] = j;
    }
    for (uint32_t j = bend; j-- > b;) {
      const uint32_t v = x[j];
      carry = nextpos[v] < carry ? nextpos[v] : carry;
      nextpos[v] = j;
      e[j - b] = carry;
    }
    while (s < bend) {
      const uint32_t end = e[s - b];
      if (end == kNone) {
        s = size;  // the last window reaches the end: not counted
        break;
      }
      const uint32_t len = end - s + 1;
      sum += len;
      ++count;
      maximum = len > maximum ? len : maximum;
      s = end + 1;
    }
  }
  CollisionStats c;
  c.average = count ? static_cast<double>(sum) / static_cast<double>(count) : 0.0;
  c.maximum = maximum;
  return c;
}

}  // namespace

bool host_statistics_available() {
  static const bool available =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi");
  return available;
}

double host_excursion(const uint8_t* raw, size_t n, double mean) { return excursion_avx2(raw, n, mean); }
RunStats host_directional_runs(const uint8_t* sym, size_t n) { return directional_avx2(sym, n); }
RunStats host_median_runs(const uint8_t* sym, size_t n, double median) {
  return median_avx2(sym, n, median_threshold(median));
}
LagStats host_lagged(const uint8_t* sym, const uint8_t* raw, size_t n) { return lagged_avx2(sym, raw, n); }
CollisionStats host_collisions(const uint8_t* sym, size_t n) { return collisions_bytes(sym, n); }

void host_statistics_bytes(const uint8_t* sym, const uint8_t* raw, size_t n, const StatParams& params, TestMask mask,
                           StatVector& out) {
  host_statistics_parts(HostStatInputs{raw, sym, n, sym, raw, n, sym, n}, params.mean, params.median, mask, out);
}

void host_statistics_parts(const HostStatInputs& in, double mean, double median, TestMask mask, StatVector& out) {
  if (mask & bit(TestId::kExcursion)) {
    out.v[static_cast<int>(TestId::kExcursion)] = excursion_avx2(in.raw, in.n, mean);
  }
  if (mask & kDirectionalMask) {
    const RunStats d = directional_avx2(in.runs, in.runs_n);
    out.v[static_cast<int>(TestId::kNumDirectionalRuns)] = static_cast<double>(d.runs);
    out.v[static_cast<int>(TestId::kLenDirectionalRuns)] = static_cast<double>(d.longest);
    out.v[static_cast<int>(TestId::kNumIncreasesDecreases)] = static_cast<double>(d.majority);
  }
  if (mask & kMedianMask) {
    const RunStats m = median_avx2(in.sym, in.n, median_threshold(median));
    out.v[static_cast<int>(TestId::kNumRunsMedian)] = static_cast<double>(m.runs);
    out.v[static_cast<int>(TestId::kLenRunsMedian)] = static_cast<double>(m.longest);
  }
  if (mask & kCollisionMask) {
    const CollisionStats c = collisions_bytes(in.collisions, in.collisions_n);
    out.v[static_cast<int>(TestId::kAvgCollision)] = c.average;
    out.v[static_cast<int>(TestId::kMaxCollision)] = static_cast<double>(c.maximum);
  }
  if (mask & kLagMask) {
    const LagStats l = lagged_avx2(in.runs, in.lag_values, in.runs_n);
    for (int k = 0; k < kNumLags; ++k) {
      const int pt = static_cast<int>(TestId::kPeriodicity1) + k;
      const int ct = static_cast<int>(TestId::kCovariance1) + k;
      if (mask & bit(pt)) out.v[pt] = static_cast<double>(l.periodicity[k]);
      if (mask & bit(ct)) out.v[ct] = static_cast<double>(l.covariance[k]);
    }
  }
}

void host_conversions(const uint8_t* bits, size_t n, uint8_t* conv1, uint8_t* conv2) {
  const size_t full = n / 8;
  for (size_t b = 0; b < full; ++b) {
    uint64_t x;
    std::memcpy(&x, bits + 8 * b, 8);
    x &= 0x0101010101010101ull;  // bit k of the block in bit 8k
    conv1[b] = static_cast<uint8_t>(__builtin_popcountll(x));
    // The product gathers bit 8k into bit 63 - k: the block as a byte, first bit highest.
    conv2[b] = static_cast<uint8_t>((x * 0x8040201008040201ull) >> 56);
  }
  if (full * 8 < n) {
    const ByteView v = byte_view(bits, n);
    conv1[full] = static_cast<uint8_t>(ConversionOneView<ByteView>{v}[full]);
    conv2[full] = static_cast<uint8_t>(ConversionTwoView<ByteView>{v}[full]);
  }
}

}  // namespace ea

#undef EA_AVX2  // (this source's alone: a unity batch compiles several sources as one)
