// Each statistic on small sequences worked out by hand (SP 800-90B section 5.1).
#include <bzlib.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <vector>

#include "permutation/permutation.hpp"
#include "stats/compression.hpp"
#include "stats/fused.hpp"
#include "stats/host_statistics.hpp"
#include "stats/pieces.hpp"
#include "stats/statistics.hpp"

using namespace ea;

namespace {
ByteView view(const std::vector<uint8_t>& v) { return byte_view(v.data(), v.size()); }
}  // namespace

TEST_CASE("excursion: largest deviation of the running sum from (i+1)*mean") {
  std::vector<uint8_t> x = {1, 2, 3, 0};  // sums 1,3,6,6 vs 1.5,3,4.5,6
  CHECK(excursion(view(x), 1.5) == 1.5);
  std::vector<uint8_t> y = {4, 0, 0, 0};  // mean 1: sums 4,4,4,4 vs 1,2,3,4
  CHECK(excursion(view(y), 1.0) == 3.0);
}

TEST_CASE("directional runs: d_i = +1 when x_i <= x_{i+1}") {
  std::vector<uint8_t> x = {1, 2, 2, 1, 0, 3};  // + + - - +
  RunStats r = directional_runs(view(x));
  CHECK(r.runs == 3);
  CHECK(r.longest == 2);
  CHECK(r.majority == 3);
  std::vector<uint8_t> flat = {5, 5, 5, 5};  // + + +
  r = directional_runs(view(flat));
  CHECK(r.runs == 1);
  CHECK(r.longest == 3);
  CHECK(r.majority == 3);
  std::vector<uint8_t> one = {7};  // empty direction sequence: the reference's 0 runs, longest 1
  r = directional_runs(view(one));
  CHECK(r.runs == 0);
  CHECK(r.longest == 1);
}

TEST_CASE("median runs: x_i >= median, including a half-integer median") {
  std::vector<uint8_t> x = {0, 3, 3, 1, 2};  // median 2: - + + - +
  RunStats r = median_runs(view(x), 2.0);
  CHECK(r.runs == 4);
  CHECK(r.longest == 2);
  r = median_runs(view(x), 1.5);  // - + + - +  (1 < 1.5, 2 >= 1.5)
  CHECK(r.runs == 4);
  r = median_runs(view(x), 2.5);  // - + + - -
  CHECK(r.runs == 3);
  CHECK(r.longest == 2);
}

TEST_CASE("collisions: windows end at the first repeat, a window reaching the end is not counted") {
  std::vector<uint8_t> x = {0, 1, 0, 2, 3, 2, 1, 1, 4, 5};  // [0 1 0] [2 3 2] [1 1] [4 5 -> end]
  CollisionStats c = collisions(view(x));
  CHECK(c.maximum == 3);
  CHECK(c.average == doctest::Approx(8.0 / 3.0));
  std::vector<uint8_t> none = {0, 1, 2, 3};
  c = collisions(view(none));
  CHECK(c.maximum == 0);
  CHECK(c.average == 0.0);
  std::vector<uint8_t> high = {255, 128, 255};  // values above 31 use other words of the set
  c = collisions(view(high));
  CHECK(c.maximum == 3);
}

TEST_CASE("periodicity and covariance per lag") {
  std::vector<uint8_t> x = {1, 2, 1, 2, 1};
  LagStats l = lagged(view(x), view(x), kLagMask);
  CHECK(l.periodicity[0] == 0);  // lag 1
  CHECK(l.covariance[0] == 8);   // 2+2+2+2
  CHECK(l.periodicity[1] == 3);  // lag 2
  CHECK(l.covariance[1] == 6);   // 1+4+1
  CHECK(l.periodicity[2] == 0);  // lag 8 > n
  CHECK(l.covariance[4] == 0);
  // Covariance on other values than periodicity (raw values of translated symbols).
  std::vector<uint8_t> raw = {10, 20, 10, 20, 10};
  l = lagged(view(x), view(raw), kLagMask);
  CHECK(l.periodicity[1] == 3);
  CHECK(l.covariance[0] == 800);
}

TEST_CASE("conversions I and II with a partial last block") {
  std::vector<uint8_t> bits = {1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 1};
  ConversionOneView<ByteView> c1{view(bits)};
  ConversionTwoView<ByteView> c2{view(bits)};
  REQUIRE(c1.size() == 2);
  REQUIRE(c2.size() == 2);
  CHECK(c1[0] == 4);
  CHECK(c1[1] == 2);          // the partial block counts what it has
  CHECK(c2[0] == 0xD1);       // 11010001
  CHECK(c2[1] == 0xA0);       // 101 padded with zeros at the low end
}

TEST_CASE("binary data: runs on Conversion I, collisions on Conversion II, median runs on the bits") {
  // 24 bits: blocks 11110000 (4, 0xF0), 11111111 (8, 0xFF), 00000001 (1, 0x01)
  std::vector<uint8_t> bits = {1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1};
  uint8_t table[256] = {0, 1};
  StatParams p{13.0 / 24.0, 0.5, true, 2};
  StatVector sv{};
  CpuScratch scratch;
  cpu_statistics(bits.data(), bits.size(), table, p, kAllFastTests, sv, scratch);
  CHECK(sv.v[int(TestId::kNumDirectionalRuns)] == 2);     // conv I 4,8,1: + -
  CHECK(sv.v[int(TestId::kNumIncreasesDecreases)] == 1);
  CHECK(sv.v[int(TestId::kNumRunsMedian)] == 5);          // 1111 0000 11111111 0000000 1
  CHECK(sv.v[int(TestId::kLenRunsMedian)] == 8);
  CHECK(sv.v[int(TestId::kMaxCollision)] == 0);           // 0xF0 0xFF 0x01: no repeat
  CHECK(sv.v[int(TestId::kCovariance1)] == 4 * 8 + 8 * 1);
  CHECK(sv.v[int(TestId::kCovariance2)] == 4 * 1);
  CHECK(sv.v[int(TestId::kPeriodicity1)] == 0);
}

TEST_CASE("compute_statistics leaves tests outside the mask untouched") {
  std::vector<uint8_t> x = {3, 1, 2, 0, 3, 1};
  uint8_t table[256];
  for (int i = 0; i < 256; ++i) table[i] = static_cast<uint8_t>(i);
  StatParams p{10.0 / 6.0, 1.5, false, 4};
  StatVector sv;
  for (double& v : sv.v) v = -7;
  CpuScratch scratch;
  cpu_statistics(x.data(), x.size(), table, p, bit(TestId::kMaxCollision), sv, scratch);
  CHECK(sv.v[int(TestId::kMaxCollision)] == 5);  // 3 1 2 0 3
  CHECK(sv.v[int(TestId::kExcursion)] == -7);
  CHECK(sv.v[int(TestId::kCovariance1)] == -7);
}

TEST_CASE("compression: the chunked libbz2 stream gives BZ2_bzBuffToBuffCompress's length") {
  // The statistic streams its text through BZ2_bzCompress in 64 KiB pieces (64-bit lengths);
  // the reference compresses the whole text in one BZ2_bzBuffToBuffCompress call.
  std::mt19937_64 rng(12);
  std::array<uint8_t, 256> identity{};
  for (int v = 0; v < 256; ++v) identity[v] = static_cast<uint8_t>(v);
  ea::Compressor c;
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{1000}, size_t{16384}, size_t{16385}, size_t{300000}}) {
    for (int width : {1, 8}) {
      std::vector<uint8_t> x(n);
      for (auto& v : x) v = static_cast<uint8_t>(rng() & ((1u << width) - 1));
      std::string text;
      ea::decimal_text(x.data(), n, identity.data(), text);
      std::vector<char> out(text.size() + text.size() / 100 + 600);
      unsigned int len = static_cast<unsigned int>(out.size());
      REQUIRE(BZ2_bzBuffToBuffCompress(out.data(), &len, text.data(), static_cast<unsigned int>(text.size()), 5, 0, 0) ==
              BZ_OK);
      CAPTURE(n);
      CAPTURE(width);
      CHECK(c.compressed_length(x.data(), n, identity.data()) == len);
    }
  }
}

// n values below `alphabet`, a quarter of them repeating the one before, so that pieces
// often cut inside a run.
static std::vector<uint8_t> values_with_runs(size_t n, uint32_t alphabet, std::mt19937_64& rng) {
  std::vector<uint8_t> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = (i > 0 && rng() % 4 == 0) ? x[i - 1] : static_cast<uint8_t>(rng() % alphabet);
  return x;
}

TEST_CASE("statistics in pieces (issue 17 item 2's scheme) equal the one-pass statistics for every cut") {
  std::mt19937_64 rng(20261123);
  size_t cases = 0, recomputed = 0, pieces = 0;
  for (uint32_t alphabet : {2u, 4u, 17u, 256u}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{100}, size_t{1000}, size_t{10007}}) {
      const std::vector<uint8_t> x = values_with_runs(n, alphabet, rng);
      const ByteView v = view(x);
      double mean = 0;
      for (uint8_t b : x) mean += b;
      mean = n ? mean / static_cast<double>(n) : 0.0;
      const double median = (alphabet - 1) / 2.0;
      const RunStats dir = directional_runs(v), med = median_runs(v, median);
      const LagStats lags = lagged(v, v, kAllFastTests);
      const CollisionStats col = collisions(v);
      const double exc = excursion(v, mean);
      std::vector<std::vector<size_t>> cuts;
      for (size_t p : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{64}}) cuts.push_back(even_bounds(n, p));
      for (int r = 0; r < 4; ++r) {  // random cuts, empty pieces included
        std::vector<size_t> b = {0, n};
        for (int k = 0; k < 5; ++k) b.push_back(n ? rng() % (n + 1) : 0);
        std::sort(b.begin(), b.end());
        cuts.push_back(b);
      }
      for (const auto& b : cuts) {
        CAPTURE(alphabet);
        CAPTURE(n);
        CAPTURE(b.size() - 1);
        ++cases;
        const RunStats d = directional_runs_in_pieces(v, b), m = median_runs_in_pieces(v, median, b);
        CHECK(d.runs == dir.runs);
        CHECK(d.longest == dir.longest);
        CHECK(d.majority == dir.majority);
        CHECK(m.runs == med.runs);
        CHECK(m.longest == med.longest);
        CHECK(m.majority == med.majority);
        const LagStats l = lags_in_pieces(v, v, b);
        for (int k = 0; k < kNumLags; ++k) {
          CHECK(l.periodicity[k] == lags.periodicity[k]);
          CHECK(l.covariance[k] == lags.covariance[k]);
        }
        CHECK(excursion_in_pieces(v, mean, b) == exc);  // the same doubles, exactly
        // The GPU block's collision summaries (collision_guess, collision_combine_bounds) over
        // the same cut, empty pieces included.
        const uint32_t count = static_cast<uint32_t>(b.size() - 1);
        std::vector<CollisionGuess> g(count);
        for (uint32_t k = 0; k < count; ++k) collision_guess(v, b[k], b[k + 1], g[k]);
        const CollisionTotals c = collision_combine_bounds(v, g.data(), count, [&b](uint32_t k) { return b[k]; });
        CHECK(c.stats().average == col.average);
        CHECK(c.stats().maximum == col.maximum);
        recomputed += c.recomputed;
        pieces += count;
      }
    }
  }
  MESSAGE(cases << " cuts; collision windows recomputed after a wrong guess: " << recomputed << " (over "
                << pieces << " pieces)");
  CHECK(cases > 100);
}

TEST_CASE("collisions from fixed-size guesses (the GPU block's summaries) equal the one-pass collisions") {
  std::mt19937_64 rng(20261124);
  uint64_t cases = 0, recomputed = 0, long_recompute = 0;
  for (uint32_t alphabet : {2u, 3u, 17u, 256u}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{100}, size_t{1000}, size_t{20011}}) {
      const std::vector<uint8_t> x = values_with_runs(n, alphabet, rng);
      const ByteView v = view(x);
      const CollisionStats want = collisions(v);
      for (uint32_t pieces : {1u, 2u, 3u, 8u, 256u, 1000u}) {
        CAPTURE(alphabet);
        CAPTURE(n);
        CAPTURE(pieces);
        std::vector<CollisionGuess> g(pieces);
        for (uint32_t k = 0; k < pieces; ++k) collision_guess(v, even_bound(n, k, pieces), even_bound(n, k + 1, pieces), g[k]);
        const CollisionTotals t = collision_combine(v, g.data(), pieces);
        const CollisionStats got = t.stats();
        CHECK(got.average == want.average);
        CHECK(got.maximum == want.maximum);
        ++cases;
        recomputed += t.recomputed;
        // Pieces longer than kGuessWindows windows whose true start missed every recorded
        // start are recomputed to their end: count the cases where that happened.
        long_recompute += t.recomputed > 2 * pieces ? 1 : 0;
      }
    }
  }
  MESSAGE(cases << " cuts; windows recomputed: " << recomputed << "; cuts with more than 2 per piece: " << long_recompute);
  CHECK(cases == 4 * 7 * 6);
}

// The raw values of `sym` through `table`, and their mean.
static std::vector<uint8_t> raw_values(const std::vector<uint8_t>& sym, const uint8_t* table, double& mean) {
  std::vector<uint8_t> raw(sym.size());
  mean = 0;
  for (size_t i = 0; i < sym.size(); ++i) {
    raw[i] = table[sym[i]];
    mean += raw[i];
  }
  mean /= static_cast<double>(sym.size());
  return raw;
}

// Checks every statistic of `got` against `want`; the number that differ.
static int statistics_differ(const StatVector& got, const StatVector& want) {
  int differ = 0;
  for (int t = 0; t < kNumFastTests; ++t) {
    CAPTURE(t);
    CHECK(got.v[t] == want.v[t]);
    differ += got.v[t] == want.v[t] ? 0 : 1;
  }
  return differ;
}

TEST_CASE("the fused one-pass pieces (the GPU block's 16-byte reads) equal compute_statistics for every cut and "
          "alignment") {
  std::mt19937_64 rng(20261125);
  uint64_t cases = 0, differences = 0;
  for (uint32_t alphabet : {3u, 16u, 200u, 256u}) {
    for (size_t n : {size_t{2}, size_t{3}, size_t{15}, size_t{16}, size_t{17}, size_t{33}, size_t{48}, size_t{49},
                     size_t{100}, size_t{1000}, size_t{4099}, size_t{20011}}) {
      const std::vector<uint8_t> sym = values_with_runs(n, alphabet, rng);
      // The raw values: the symbols themselves, or a table that is not the identity.
      for (bool identity : {true, false}) {
        uint8_t table[256];
        for (int v = 0; v < 256; ++v) table[v] = identity ? static_cast<uint8_t>(v) : static_cast<uint8_t>((v * 7 + 3) & 0xff);
        double mean = 0;
        const std::vector<uint8_t> raw = raw_values(sym, table, mean);
        std::vector<uint8_t> sorted = sym;
        std::sort(sorted.begin(), sorted.end());
        const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
        const StatParams params{mean, median, false, alphabet};
        StatVector want{};
        compute_statistics(view(sym), view(raw), view(sym), view(sym), params, kAllFastTests, want);
        for (size_t offset : {size_t{0}, size_t{1}, size_t{7}, size_t{15}}) {
          // The row `offset` bytes into a buffer, other bytes around it (read and ignored).
          std::vector<uint8_t> buffer(offset + n + kFusedRowPad + 16);
          for (uint8_t& b : buffer) b = static_cast<uint8_t>(rng());
          std::copy(sym.begin(), sym.end(), buffer.begin() + static_cast<ptrdiff_t>(offset));
          const FusedRow row{buffer.data(), offset, n};
          for (uint32_t pieces : {1u, 2u, 3u, 7u, 64u, 256u, 1000u}) {
            CAPTURE(alphabet);
            CAPTURE(n);
            CAPTURE(identity);
            CAPTURE(offset);
            CAPTURE(pieces);
            differences += statistics_differ(fused_statistics(row, pieces, table, params), want);
            ++cases;
          }
        }
      }
    }
  }
  MESSAGE(cases << " rows x cuts x alignments; differences: " << differences);
  CHECK(cases == 4 * 12 * 2 * 4 * 7);
}

TEST_CASE("the fused pieces of a packed binary row (the resident kernel's statistics) equal compute_statistics") {
  std::mt19937_64 rng(20261126);
  uint64_t cases = 0, differences = 0;
  for (size_t n : {size_t{1}, size_t{2}, size_t{7}, size_t{8}, size_t{9}, size_t{100}, size_t{127}, size_t{128},
                   size_t{129}, size_t{257}, size_t{1000}, size_t{4099}, size_t{20011}, size_t{65537}}) {
    const std::vector<uint8_t> sym = values_with_runs(n, 2, rng);
    // Packed as the resident shuffle keeps it: a bit per sample, 4-word chunks, zeros after n.
    std::vector<uint32_t> words((n + 127) / 128 * 4, 0);
    for (size_t p = 0; p < n; ++p) words[p / 32] |= static_cast<uint32_t>(sym[p]) << (p % 32);
    const PackedBits row{words.data(), n};
    for (int raws = 0; raws < 2; ++raws) {
      uint8_t table[256] = {};
      table[0] = raws ? 7 : 0;
      table[1] = raws ? 200 : 1;
      double mean = 0;
      const std::vector<uint8_t> raw = raw_values(sym, table, mean);
      const StatParams params{mean, 0.5, true, 2};
      const ConversionTwoView<ByteView> c2{view(sym)};
      StatVector want{};
      compute_statistics(view(sym), view(raw), PopcountView<ConversionTwoView<ByteView>>{c2}, c2, params, kAllFastTests,
                         want);
      for (uint32_t pieces : {1u, 2u, 3u, 7u, 64u, 256u, 512u, 1000u}) {
        CAPTURE(n);
        CAPTURE(raws);
        CAPTURE(pieces);
        differences += statistics_differ(fused_binary_statistics(row, pieces, table, params), want);
        ++cases;
      }
    }
  }
  MESSAGE(cases << " rows x cuts; differences: " << differences);
  CHECK(cases == 14 * 2 * 8);
}

TEST_CASE("the host's AVX2 statistics equal compute_statistics (lengths, alphabets, runs, masks, raw tables)") {
  if (!host_statistics_available()) return;
  std::mt19937_64 rng(31);
  const size_t lengths[] = {0, 1, 2, 3, 8, 9, 31, 33, 63, 64, 65, 66, 127, 128, 129, 200, 1000, 4099, 100003};
  for (size_t n : lengths) {
    for (uint32_t alphabet : {2u, 3u, 16u, 256u}) {
      for (int shape = 0; shape < 4; ++shape) {
        std::vector<uint8_t> sym(n);
        for (size_t i = 0; i < n; ++i) {
          uint32_t v = static_cast<uint32_t>(rng() % alphabet);
          if (shape == 1) v = static_cast<uint32_t>((i / 97) % alphabet);                          // long runs
          if (shape == 2) v = static_cast<uint32_t>(i * alphabet / (n ? n : 1));                   // sorted
          if (shape == 3 && (i / 150) % 2) v = static_cast<uint32_t>(alphabet - 1 - (i % 2));  // stretches
          sym[i] = static_cast<uint8_t>(v);
        }
        std::vector<uint8_t> table(256), raw(n);
        for (uint32_t v = 0; v < 256; ++v) table[v] = static_cast<uint8_t>(shape % 2 ? v : 255 - v);
        for (size_t i = 0; i < n; ++i) raw[i] = table[sym[i]];
        double sum = 0;
        for (uint8_t r : raw) sum += r;
        for (double median : {0.0, 0.5, 1.0, alphabet / 2.0 - 0.5, alphabet / 2.0, 255.5, 300.0}) {
          StatParams params{n ? sum / static_cast<double>(n) : 0.0, median, false, alphabet};
          for (TestMask mask : {kAllFastTests, static_cast<TestMask>(rng() & kAllFastTests)}) {
            StatVector want, got;
            for (int t = 0; t < kNumTests; ++t) want.v[t] = got.v[t] = -1.0;
            compute_statistics(view(sym), view(raw), view(sym), view(sym), params, mask, want);
            host_statistics_bytes(sym.data(), raw.data(), n, params, mask, got);
            for (int t = 0; t < kNumTests; ++t) {
              CAPTURE(n);
              CAPTURE(alphabet);
              CAPTURE(shape);
              CAPTURE(median);
              CAPTURE(t);
              CHECK(got.v[t] == want.v[t]);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("the host's AVX2 excursion past 2^20 samples (where its int32 partial sums restart)") {
  if (!host_statistics_available()) return;
  std::mt19937_64 rng(7);
  const size_t n = (size_t{1} << 21) + 13;
  std::vector<uint8_t> raw(n);
  for (auto& r : raw) r = static_cast<uint8_t>(rng() % 251);
  for (double mean : {125.0, 124.99, 127.3}) CHECK(host_excursion(raw.data(), n, mean) == excursion(view(raw), mean));
}

TEST_CASE("the host's collisions (suffix minima of next positions, in blocks) equal collisions()") {
  if (!host_statistics_available()) return;
  std::mt19937_64 rng(17);
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{9}, size_t{300}, size_t{4095}, size_t{4096},
                   size_t{4097}, size_t{4096 + 257}, size_t{4096 + 258}, size_t{70000}}) {
    for (uint32_t alphabet : {1u, 2u, 7u, 200u, 256u}) {
      std::vector<uint8_t> x(n);
      for (auto& v : x) v = static_cast<uint8_t>(rng() % alphabet);
      // Permutations of 0..255 in a row: windows of 257, the longest possible.
      if (alphabet == 200) {
        for (size_t i = 0; i < n; ++i) x[i] = static_cast<uint8_t>((i % 256) ^ ((i / 256) % 7));
      }
      const CollisionStats want = collisions(view(x)), got = host_collisions(x.data(), n);
      CAPTURE(n);
      CAPTURE(alphabet);
      CHECK(got.average == want.average);
      CHECK(got.maximum == want.maximum);
    }
  }
}

TEST_CASE("cpu_statistics on binary data (host conversions and passes) equals compute_statistics on the views") {
  std::mt19937_64 rng(5);
  for (size_t n : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{63}, size_t{64}, size_t{65}, size_t{1000},
                   size_t{100003}}) {
    for (int shape = 0; shape < 3; ++shape) {
      std::vector<uint8_t> bits(n);
      for (size_t i = 0; i < n; ++i) {
        bits[i] = static_cast<uint8_t>(rng() & 1);
        if (shape == 1) bits[i] = static_cast<uint8_t>((i / 37) & 1);
        if (shape == 2 && (i / 500) % 2) bits[i] = 1;
      }
      for (int t = 0; t < 2; ++t) {
        uint8_t table[256] = {};
        table[0] = t ? 3 : 0;
        table[1] = t ? 200 : 1;
        double sum = 0;
        for (uint8_t b : bits) sum += table[b];
        const StatParams params{sum / static_cast<double>(n), 0.5, true, 2};
        for (TestMask mask : {kAllFastTests, static_cast<TestMask>(rng() & kAllFastTests)}) {
          std::vector<uint8_t> c1(ConversionOneView<ByteView>{view(bits)}.size()), c2(c1.size());
          for (size_t b = 0; b < c1.size(); ++b) {
            c1[b] = static_cast<uint8_t>(ConversionOneView<ByteView>{view(bits)}[b]);
            c2[b] = static_cast<uint8_t>(ConversionTwoView<ByteView>{view(bits)}[b]);
          }
          StatVector want, got;
          for (int k = 0; k < kNumTests; ++k) want.v[k] = got.v[k] = -1.0;
          compute_statistics(view(bits), MappedView<ByteView>{view(bits), table}, view(c1), view(c2), params, mask,
                             want);
          CpuScratch scratch;
          cpu_statistics(bits.data(), n, table, params, mask, got, scratch);
          for (int k = 0; k < kNumTests; ++k) {
            CAPTURE(n);
            CAPTURE(shape);
            CAPTURE(t);
            CAPTURE(k);
            CHECK(got.v[k] == want.v[k]);
          }
        }
      }
    }
  }
}

// The CPU backend's statistics of non-binary data as it calls them (cpu_statistics: raw values
// materialised through the table where it is not the identity, then the AVX2 passes where the
// CPU has them) against compute_statistics on the views, the reference (docs/design.md).
TEST_CASE("cpu_statistics on non-binary data (raw tables, masks) equals compute_statistics on the views") {
  std::mt19937_64 rng(41);
  uint64_t cases = 0;
  for (size_t n : {size_t{2}, size_t{3}, size_t{33}, size_t{64}, size_t{65}, size_t{1000}, size_t{4099}, size_t{100003}}) {
    for (uint32_t alphabet : {3u, 16u, 200u, 256u}) {
      const std::vector<uint8_t> sym = values_with_runs(n, alphabet, rng);
      for (int t = 0; t < 2; ++t) {
        uint8_t table[256];
        for (int v = 0; v < 256; ++v) table[v] = t ? static_cast<uint8_t>((v * 7 + 3) & 0xff) : static_cast<uint8_t>(v);
        double mean = 0;
        raw_values(sym, table, mean);
        std::vector<uint8_t> sorted = sym;
        std::sort(sorted.begin(), sorted.end());
        const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
        const StatParams params{mean, median, false, alphabet};
        for (TestMask mask : {kAllFastTests, static_cast<TestMask>(rng() & kAllFastTests)}) {
          StatVector want, got;
          for (int k = 0; k < kNumTests; ++k) want.v[k] = got.v[k] = -1.0;
          compute_statistics(view(sym), MappedView<ByteView>{view(sym), table}, view(sym), view(sym), params, mask, want);
          CpuScratch scratch;
          cpu_statistics(sym.data(), n, table, params, mask, got, scratch);
          CAPTURE(n);
          CAPTURE(alphabet);
          CAPTURE(t);
          CAPTURE(mask);
          for (int k = 0; k < kNumTests; ++k) {
            CAPTURE(k);
            CHECK(got.v[k] == want.v[k]);
          }
          ++cases;
        }
      }
    }
  }
  CHECK(cases == 8 * 4 * 2 * 2);
}
