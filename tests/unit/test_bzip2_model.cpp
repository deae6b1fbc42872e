// The bzip2 size model (src/stats/bzip2_model.hpp, used by the GPU compression test, and its
// CPU form src/stats/bzip2_cpu.hpp)
// against libbz2 itself: equal sizes on decimal text of every width, on block boundaries,
// and on input with long runs, periodic blocks and tiny blocks.
#include <bzlib.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "stats/bzip2_model.hpp"
#include "stats/bzip2_cpu.hpp"
#include "stats/bzip2_size.hpp"
#include "stats/decimal_bwt.hpp"
#include "stats/compression.hpp"
#include "stats/token_bwt.hpp"

namespace {

uint64_t libbz2_size(const std::vector<uint8_t>& in, int level) {
  unsigned int dest = static_cast<unsigned int>(in.size() + in.size() / 50 + 700);
  std::vector<char> out(dest);
  std::vector<char> src(in.begin(), in.end());
  const int rc = BZ2_bzBuffToBuffCompress(out.data(), &dest, src.data(), static_cast<unsigned int>(src.size()),
                                          level, 0, 0);
  REQUIRE(rc == BZ_OK);
  return dest;
}

std::vector<uint8_t> decimal(const std::vector<uint8_t>& samples) { return ea::decimal_text_bytes(samples); }

std::vector<uint8_t> random_samples(std::mt19937_64& rng, size_t n, int bits, int bias = 0) {
  std::vector<uint8_t> s(n);
  for (auto& x : s) {
    x = static_cast<uint8_t>(rng() & ((1u << bits) - 1));
    if (bias && rng() % 100 < static_cast<unsigned>(bias)) x = 0;
  }
  return s;
}

}  // namespace

TEST_CASE("bzip2 model: decimal text of 1-8 bit samples, one and several blocks, equals libbz2") {
  std::mt19937_64 rng(20261122);
  for (int bits : {1, 2, 4, 8}) {
    for (size_t n : {size_t{1}, size_t{7}, size_t{1000}, size_t{40000}, size_t{90000}}) {
      for (int level : {1, 5}) {
        const auto text = decimal(random_samples(rng, n, bits));
        INFO("bits " << bits << ", samples " << n << ", level " << level);
        CHECK(ea::bz::modelled_size(text.data(), text.size(), level) == libbz2_size(text, level));
      }
    }
  }
  // Biased data (long zero runs in the transform) and a single repeated value.
  for (int bias : {50, 90, 99}) {
    const auto text = decimal(random_samples(rng, 60000, 8, bias));
    INFO("bias " << bias);
    CHECK(ea::bz::modelled_size(text.data(), text.size(), 1) == libbz2_size(text, 1));
  }
  const auto zeros = decimal(std::vector<uint8_t>(120000, 0));  // "0 0 0 ...": periodic blocks
  CHECK(ea::bz::modelled_size(zeros.data(), zeros.size(), 1) == libbz2_size(zeros, 1));
}

TEST_CASE("bzip2 model: byte input with runs of 4-600 equal bytes equals libbz2") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 12; ++trial) {
    std::vector<uint8_t> in;
    const size_t target = 20000 + 30000 * static_cast<size_t>(trial % 4);
    while (in.size() < target) {
      const auto b = static_cast<uint8_t>(rng() % (trial % 2 ? 256 : 4));
      const size_t run = rng() % 3 == 0 ? 1 + rng() % 600 : 1 + rng() % 3;
      in.insert(in.end(), run, b);
    }
    INFO("trial " << trial);
    CHECK(ea::bz::modelled_size(in.data(), in.size(), 1) == libbz2_size(in, 1));
  }
  const std::vector<uint8_t> one{42};
  CHECK(ea::bz::modelled_size(one.data(), 1, 9) == libbz2_size(one, 9));
}

TEST_CASE("bzip2 model: block cuts of decimal text are slices of the input") {
  std::mt19937_64 rng(3);
  for (int bits : {1, 3, 8}) {
    const auto text = decimal(random_samples(rng, 70000 + static_cast<size_t>(bits) * 1111, bits));
    const uint32_t limit = 9973;
    const auto blocks = ea::bz::split_rle1_blocks(text.data(), text.size(), limit);
    size_t begin = 0;
    for (const auto& b : blocks) {
      const size_t end = ea::bz::slice_block_end(text.data(), text.size(), begin, limit);
      REQUIRE(end - begin == b.size());
      CHECK(std::equal(b.begin(), b.end(), text.begin() + static_cast<std::ptrdiff_t>(begin)));
      begin = end;
    }
    CHECK(begin == text.size());
  }
}

TEST_CASE("bzip2 model: packed move-to-front places + zero-run coding (<= 16 symbols) equal the list version") {
  std::mt19937_64 rng(11);
  for (int in_use = 1; in_use <= 16; ++in_use) {
    std::vector<uint8_t> seq_of(256, 0), last(5000);
    for (int v = 0; v < 256; ++v) seq_of[v] = static_cast<uint8_t>(v % in_use);
    for (auto& c : last) c = static_cast<uint8_t>(rng() % 3 == 0 ? last.front() : rng() % in_use);
    std::vector<uint16_t> a(last.size() + 1), b(last.size() + 1);
    int32_t fa[ea::bz::kMaxAlpha], fb[ea::bz::kMaxAlpha];
    const int32_t na = ea::bz::mtf_encode(last.data(), 5000, seq_of.data(), in_use, a.data(), fa);
    std::vector<uint8_t> places(last.size());
    uint64_t order = ea::bz::packed_identity(in_use);
    ea::bz::packed_places(last.data(), 5000, seq_of.data(), order, places.data());
    const int32_t nb = ea::bz::zero_run_code(places.data(), 5000, in_use, b.data(), fb);
    INFO("symbols in use: " << in_use);
    REQUIRE(na == nb);
    CHECK(std::equal(a.begin(), a.begin() + na, b.begin()));
    CHECK(std::equal(fa, fa + in_use + 2, fb));
  }
}

TEST_CASE("bzip2 model: the table chosen from packed lengths equals best_table's (ties, lengths 0-17)") {
  std::mt19937_64 rng(5);
  uint8_t len[ea::bz::kMaxTables][ea::bz::kMaxAlpha];
  uint64_t packed[ea::bz::kMaxAlpha];
  std::vector<uint16_t> v(ea::bz::kGroupSize);
  int differ = 0, ties = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int tables = 2 + static_cast<int>(rng() % 5), alpha = 3 + static_cast<int>(rng() % 256);
    // Long codes everywhere in some trials (the largest sums), few distinct lengths in
    // others (ties between tables).
    const int top = trial % 3 == 0 ? 17 : trial % 3 == 1 ? 2 : 15;
    for (int t = 0; t < tables; ++t)
      for (int a = 0; a < alpha; ++a) len[t][a] = static_cast<uint8_t>(trial % 7 == 0 ? top : rng() % (top + 1));
    for (int a = 0; a < alpha; ++a) packed[a] = ea::bz::packed_lengths(len, tables, a);
    const int count = 1 + static_cast<int>(rng() % ea::bz::kGroupSize);
    for (auto& x : v) x = static_cast<uint16_t>(rng() % alpha);
    const int want = ea::bz::best_table(v.data(), count, len, tables);
    const int got = ea::bz::best_table_packed(v.data(), count, packed, tables);
    differ += want != got;
    // The chosen table's field of the packed sum is the group's bits under it (the GPU's
    // data bits).
    uint64_t sum = 0;
    uint32_t chosen = 0;
    for (int i = 0; i < count; ++i) sum += packed[v[i]], chosen += len[got][v[i]];
    differ += ea::bz::table_cost(sum, got) != chosen;
    uint32_t c0 = 0, c1 = 0;
    for (int i = 0; i < count; ++i) c0 += len[0][v[i]], c1 += len[1][v[i]];
    ties += c0 == c1;
  }
  CHECK(differ == 0);
  CHECK(ties > 1000);  // the first-table-on-a-tie rule was exercised
}

TEST_CASE("bzip2 model: move-to-front by segments (signatures composed in order) equals one pass") {
  std::mt19937_64 rng(29);
  for (int trial = 0; trial < 40; ++trial) {
    const int in_use = 1 + static_cast<int>(rng() % 16);
    const int32_t len = 1 + static_cast<int32_t>(rng() % 20000);
    std::vector<uint8_t> seq_of(256, 0), last(static_cast<size_t>(len));
    for (int v = 0; v < 256; ++v) seq_of[v] = static_cast<uint8_t>(v % in_use);
    for (auto& c : last) c = static_cast<uint8_t>(rng() % 4 == 0 ? 0 : rng() % in_use);
    const int32_t seg = 1 + static_cast<int32_t>(rng() % 3000);
    // Signatures in "parallel", starts composed in order, places coded per segment.
    std::vector<uint8_t> places(last.size());
    uint64_t start = ea::bz::packed_identity(in_use);
    std::vector<ea::bz::MtfEffect> effects;
    for (int32_t s0 = 0; s0 < len; s0 += seg) {
      const int32_t s1 = std::min(len, s0 + seg);
      uint64_t sig = ea::bz::packed_identity(in_use);
      uint32_t seen = 0;
      for (int32_t i = s0; i < s1; ++i) {
        seen |= 1u << seq_of[last[i]];
        ea::bz::packed_move_to_front(sig, seq_of[last[i]]);
      }
      uint64_t order = start;
      for (int32_t i = s0; i < s1; ++i) places[i] = static_cast<uint8_t>(ea::bz::packed_move_to_front(order, seq_of[last[i]]));
      start = ea::bz::packed_compose(sig, seen, start, in_use);
      REQUIRE(start == order);  // the composed list is the list the segment ends with
      effects.push_back({sig, seen});
    }
    // The GPU's scan: the effect of segments 0..k applied to the identity is the list after
    // segment k, whatever the grouping of the composition (tree-shaped as a warp scan).
    ea::bz::MtfEffect all{ea::bz::packed_identity(in_use), 0};
    for (const auto& e : effects) all = ea::bz::then_segment(all, e, in_use);
    CHECK(all.sig == start);
    if (effects.size() >= 3) {
      const size_t cut = 1 + static_cast<size_t>(trial) % (effects.size() - 2);
      ea::bz::MtfEffect left{ea::bz::packed_identity(in_use), 0}, right = left;
      for (size_t k = 0; k < cut; ++k) left = ea::bz::then_segment(left, effects[k], in_use);
      for (size_t k = cut; k < effects.size(); ++k) right = ea::bz::then_segment(right, effects[k], in_use);
      CHECK(ea::bz::then_segment(left, right, in_use).sig == start);
    }
    std::vector<uint16_t> a(last.size() + 1), b(last.size() + 1);
    int32_t fa[ea::bz::kMaxAlpha], fb[ea::bz::kMaxAlpha];
    const int32_t na = ea::bz::mtf_encode(last.data(), len, seq_of.data(), in_use, a.data(), fa);
    const int32_t nb = ea::bz::zero_run_code(places.data(), len, in_use, b.data(), fb);
    INFO("trial " << trial << ": " << in_use << " symbols, " << len << " values, segments of " << seg);
    REQUIRE(na == nb);
    CHECK(std::equal(a.begin(), a.begin() + na, b.begin()));
    CHECK(std::equal(fa, fa + in_use + 2, fb));
  }
}

TEST_CASE("bzip2 model: move-to-front from the identity with the first uses' places fixed equals the pass from the start") {
  std::mt19937_64 rng(43);
  int fixed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int in_use = 1 + static_cast<int>(rng() % 16);
    const uint32_t len = 1 + static_cast<uint32_t>(rng() % (trial < 1500 ? 12 : 600));
    std::vector<uint8_t> seg(len);
    // Some symbols never used, which ones shuffled.
    std::vector<uint8_t> symbols(static_cast<size_t>(in_use));
    for (int v = 0; v < in_use; ++v) symbols[static_cast<size_t>(v)] = static_cast<uint8_t>(v);
    std::shuffle(symbols.begin(), symbols.end(), rng);
    const int alphabet = 1 + static_cast<int>(rng() % static_cast<uint64_t>(in_use));
    for (auto& c : seg) c = symbols[rng() % static_cast<uint64_t>(alphabet)];
    // A start list reached by moving random symbols to the front.
    uint64_t start = ea::bz::packed_identity(in_use);
    for (int k = static_cast<int>(rng() % 40); k > 0; --k) {
      ea::bz::packed_move_to_front(start, rng() % static_cast<uint64_t>(in_use));
    }
    std::vector<uint8_t> want(len), got(len);
    uint64_t order = start;
    for (uint32_t i = 0; i < len; ++i) want[i] = static_cast<uint8_t>(ea::bz::packed_move_to_front(order, seg[i]));
    // As places_kernel and fix_kernel (cuda/bzip2/coding.cu): the pass from the identity with
    // the zero-run summary of the places after the first, then the first uses fixed and the
    // first place's summary put before the rest's.
    uint64_t from_identity = ea::bz::packed_identity(in_use);
    uint32_t seen = 0;
    ea::bz::FirstUses f;
    ea::bz::ZeroRunSummary rest, whole;
    for (uint32_t i = 0; i < len; ++i) {
      f.note(seen, seg[i], i);
      seen |= 1u << seg[i];
      got[i] = static_cast<uint8_t>(ea::bz::packed_move_to_front(from_identity, seg[i]));
      if (i > 0) rest.add(got[i]);
      whole.add(want[i]);
    }
    rest.close();
    whole.close();
    uint32_t front = 0;
    for (uint32_t k = 0; k < f.count; ++k) {
      const uint8_t place = static_cast<uint8_t>(ea::bz::first_use_place(f, k, start));
      fixed += place != got[f.at[k]];
      got[f.at[k]] = place;
      if (k == 0) front = place;
    }
    ea::bz::ZeroRunSummary head;
    head.add(front);
    head.close();
    const ea::bz::ZeroRunSummary joined = ea::bz::then_summary(head, rest);
    INFO("trial " << trial << ": " << len << " symbols of " << in_use);
    REQUIRE(got == want);
    CHECK(joined.lead == whole.lead);
    CHECK(joined.inner == whole.inner);
    CHECK(joined.trail == whole.trail);
    CHECK(f.count == static_cast<uint32_t>(__builtin_popcount(seen)));
  }
  CHECK(fixed > 1000);  // the start list mattered
}

TEST_CASE("bzip2 model: zero-run coding in segments (summaries, offsets, values from each offset) equals one pass") {
  std::mt19937_64 rng(37);
  CHECK(ea::bz::zero_run_digits(0) == 0);  // (a place right after a non-zero one: no digits)
  CHECK(ea::bz::zero_run_digits(1) == 1);
  // The digit count and each digit are put_zero_run's (the GPU's values kernel writes digit k
  // of a run from zero_run_digit alone); runs up to 2^21 and some near 2^31.
  std::vector<uint32_t> runs;
  for (uint32_t z = 1; z < (1u << 21); ++z) runs.push_back(z);
  for (uint32_t z : {0x7fffffffu, 0x80000000u, 0xfffffffdu, 0xfffffffeu}) runs.push_back(z);
  std::vector<uint16_t> out(40);
  uint32_t wrong = 0, first_wrong = 0;  // (one check at the end: millions of digits)
  for (uint32_t z : runs) {
    int32_t w = 0, freq[2] = {0, 0};
    ea::bz::put_zero_run(z, out.data(), w, freq);
    bool same = static_cast<uint32_t>(w) == ea::bz::zero_run_digits(z);
    for (int32_t k = 0; same && k < w; ++k) {
      same = out[static_cast<size_t>(k)] == ea::bz::zero_run_digit(z, static_cast<uint32_t>(k));
    }
    if (!same && wrong++ == 0) first_wrong = z;
  }
  CHECK(first_wrong == 0);
  REQUIRE(wrong == 0);
  int trials_with_empty_segments = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int in_use = 1 + static_cast<int>(rng() % 16);
    const uint32_t len = 1 + static_cast<uint32_t>(rng() % 30000);
    // Places with zero runs of every length, some longer than several segments.
    std::vector<uint8_t> places(len, 0);
    const uint32_t zero_share = static_cast<uint32_t>(rng() % 100);
    for (uint32_t i = 0; i < len;) {
      if (rng() % 100 < zero_share) {
        i += static_cast<uint32_t>(rng() % (trial % 3 == 0 ? 3000 : 40));  // a run of zeros
      } else {
        places[i++] = static_cast<uint8_t>(in_use > 1 ? 1 + rng() % static_cast<uint64_t>(in_use - 1) : 0);
      }
    }
    const uint32_t seg = trial < 4 ? static_cast<uint32_t>(1 + trial) : 1 + static_cast<uint32_t>(rng() % 2500);
    const uint32_t segments = (len + seg - 1) / seg;
    std::vector<uint32_t> lead(segments), inner(segments), trail(segments), out_at(segments), carry_at(segments);
    for (uint32_t k = 0; k < segments; ++k) {
      ea::bz::ZeroRunSummary s;
      for (uint32_t i = k * seg; i < std::min(len, (k + 1) * seg); ++i) s.add(places[i]);
      s.close();
      lead[k] = s.lead;
      inner[k] = s.inner;
      trail[k] = s.trail;
      if (s.inner == 0) ++trials_with_empty_segments;
    }
    uint32_t pending = 0;
    const uint32_t body = ea::bz::zero_run_offsets(lead.data(), inner.data(), trail.data(), segments, out_at.data(),
                                                   carry_at.data(), pending);
    // The GPU's scan: the summary of segments 0..k-1, combined in a tree, gives the offsets.
    std::vector<ea::bz::ZeroRunSummary> summaries(segments);
    for (uint32_t k = 0; k < segments; ++k) summaries[k] = {lead[k], inner[k], trail[k]};
    std::vector<ea::bz::ZeroRunSummary> prefix(segments + 1);
    for (uint32_t k = 0; k < segments; ++k) prefix[k + 1] = ea::bz::then_summary(prefix[k], summaries[k]);
    bool scan_agrees = true;
    for (uint32_t k = 0; k <= segments; ++k) {
      uint32_t o = 0, c = 0;
      ea::bz::offsets_after(prefix[k], o, c);
      scan_agrees = scan_agrees && o == (k < segments ? out_at[k] : body) && c == (k < segments ? carry_at[k] : pending);
    }
    CHECK(scan_agrees);
    if (segments >= 3) {  // another grouping: (0..m-1) then (m..end)
      const uint32_t m = 1 + static_cast<uint32_t>(trial) % (segments - 2);
      ea::bz::ZeroRunSummary right;
      for (uint32_t k = m; k < segments; ++k) right = ea::bz::then_summary(right, summaries[k]);
      uint32_t o = 0, c = 0;
      ea::bz::offsets_after(ea::bz::then_summary(prefix[m], right), o, c);
      CHECK(o == body);
      CHECK(c == pending);
    }
    std::vector<uint16_t> a(len + 1), b(len + 1, 0xffff);
    int32_t fa[ea::bz::kMaxAlpha], fb[ea::bz::kMaxAlpha] = {};
    auto count = [&fb](uint16_t v) { ++fb[v]; };
    const int32_t na = ea::bz::zero_run_code(places.data(), static_cast<int32_t>(len), in_use, a.data(), fa);
    bool ends_agree = true;
    for (uint32_t k = 0; k < segments; ++k) {  // in reverse would do as well: each from its own offset
      int32_t w = static_cast<int32_t>(out_at[k]);
      const uint32_t n = std::min(len, (k + 1) * seg) - k * seg;
      const uint32_t left = ea::bz::zero_run_values(places.data() + k * seg, n, carry_at[k], b.data(), w, count);
      const uint32_t next_at = k + 1 < segments ? out_at[k + 1] : body;
      const uint32_t next_carry = k + 1 < segments ? carry_at[k + 1] : pending;
      ends_agree = ends_agree && static_cast<uint32_t>(w) == next_at && left == next_carry;
    }
    int32_t w = static_cast<int32_t>(body);
    ea::bz::zero_run_finish(pending, in_use, b.data(), w, count);
    INFO("trial " << trial << ": " << len << " places, segments of " << seg << ", " << in_use << " symbols");
    CHECK(ends_agree);
    REQUIRE(w == na);
    CHECK(std::equal(a.begin(), a.begin() + na, b.begin()));
    CHECK(std::equal(fa, fa + in_use + 2, fb));
  }
  CHECK(trials_with_empty_segments > 20);  // segments with no non-zero place were covered
}

TEST_CASE("bzip2 model: the selectors' move-to-front bits in pieces (last uses combined) equal one pass") {
  std::mt19937_64 rng(41);
  uint8_t len[ea::bz::kMaxTables][ea::bz::kMaxAlpha] = {};
  for (int trial = 0; trial < 400; ++trial) {
    const int tables = 2 + static_cast<int>(rng() % 5);
    const int32_t n = 1 + static_cast<int32_t>(rng() % (trial < 200 ? 40 : 6000));
    // Selectors with long stretches of one table and some tables never used.
    std::vector<uint8_t> sel(static_cast<size_t>(n));
    const int used = 1 + static_cast<int>(rng() % static_cast<uint64_t>(tables));
    for (int32_t i = 0; i < n; ++i) {
      sel[i] = (i > 0 && rng() % 4 != 0) ? sel[i - 1] : static_cast<uint8_t>(rng() % static_cast<uint64_t>(used));
    }
    const uint64_t want = ea::bz::block_side_bits(sel.data(), n, len, tables, 3, 1) -
                          ea::bz::side_bits_but_selectors(len, tables, 3, 1);
    // Pieces cut at random places, each from the uses of all before it (a warp's scan).
    const int pieces = 1 + static_cast<int>(rng() % 40);
    std::vector<int32_t> cut = {0, n};
    for (int k = 1; k < pieces; ++k) cut.push_back(static_cast<int32_t>(rng() % static_cast<uint64_t>(n + 1)));
    std::sort(cut.begin(), cut.end());
    ea::bz::SelectorUse before = ea::bz::no_selector_use();
    uint64_t got = 0;
    for (size_t k = 0; k + 1 < cut.size(); ++k) {
      got += ea::bz::selector_bits(sel.data(), cut[k], cut[k + 1], before, tables);
      before = ea::bz::then_use(before, ea::bz::selector_use(sel.data(), cut[k], cut[k + 1]));
    }
    INFO("trial " << trial << ": " << n << " selectors, " << tables << " tables, " << pieces << " pieces");
    REQUIRE(got == want);
  }
}

TEST_CASE("bzip2 model: the transform by numbers (token_bwt) equals the suffix sort's on cut decimal text") {
  std::mt19937_64 rng(29);
  int compared = 0, wrapped_long = 0, starts_at_space = 0, ends_at_space = 0, fast_compared = 0;
  ea::bz::DecimalBwt decimal;  // one object for every block: its storage is reused
  auto check = [&](const std::vector<uint8_t>& text, size_t from, size_t to) {
    const std::vector<uint8_t> want = ea::bz::rotation_bwt(text.data() + from, to - from);
    const std::vector<uint8_t> got = ea::bz::token_bwt(text.data() + from, to - from);
    // The CPU's fast path (DecimalBwt): the same transform wherever the block has 2 spaces.
    std::vector<uint8_t> fast(to - from);
    const bool done = decimal.transform(text.data() + from, to - from, fast.data());
    CHECK(done == (std::count(text.begin() + static_cast<std::ptrdiff_t>(from),
                              text.begin() + static_cast<std::ptrdiff_t>(to), ' ') >= 2));
    if (done) {
      INFO("DecimalBwt, block [" << from << ", " << to << ") of " << text.size());
      REQUIRE(fast == want);
      ++fast_compared;
    }
    if (std::find(text.begin() + static_cast<std::ptrdiff_t>(from), text.begin() + static_cast<std::ptrdiff_t>(to),
                  ' ') == text.begin() + static_cast<std::ptrdiff_t>(to)) {
      CHECK(got.empty());  // one number: no tokens
      return;
    }
    INFO("block [" << from << ", " << to << ") of " << text.size());
    REQUIRE(got == want);
    ++compared;
    starts_at_space += text[from] == ' ';
    ends_at_space += text[to - 1] == ' ';
    // A wrap token longer than any number (the block's end and start joined).
    size_t head = 0, tail = 0;
    while (from + head < to && text[from + head] != ' ') ++head;
    while (tail < to - from && text[to - 1 - tail] != ' ') ++tail;
    wrapped_long += head + tail > 3;
  };
  std::vector<std::vector<uint8_t>> samples;
  for (int bits : {1, 4, 8}) {
    std::vector<uint8_t> s(20000);
    for (auto& x : s) x = static_cast<uint8_t>(rng() & ((1u << bits) - 1));
    samples.push_back(s);
  }
  samples.push_back(std::vector<uint8_t>(5000, 7));    // one number repeated: periodic
  samples.push_back(std::vector<uint8_t>(5000, 200));
  {
    std::vector<uint8_t> alt(6000);
    for (size_t i = 0; i < alt.size(); ++i) alt[i] = static_cast<uint8_t>(i % 2 ? 10 : 1);  // "1 10 1 10"
    samples.push_back(alt);
    std::vector<uint8_t> runs;
    while (runs.size() < 8000) runs.insert(runs.end(), 1 + rng() % 30, static_cast<uint8_t>(rng() % 3 * 100));
    samples.push_back(runs);
  }
  samples.push_back({42});
  samples.push_back({0, 255});
  {
    // Numbers that are prefixes of each other: the wrapped token's tails of 4-6 digits
    // share their first 3 digits with each other and with inner numbers ("111" + "111").
    const uint8_t prefixes[] = {1, 11, 111, 0, 10, 100, 110, 101, 112, 12};
    std::vector<uint8_t> p(6000);
    for (auto& x : p) x = prefixes[rng() % (rng() % 2 ? 3 : 10)];
    samples.push_back(p);
  }
  for (const auto& s : samples) {
    const std::vector<uint8_t> text = ea::decimal_text_bytes(s);
    check(text, 0, text.size());
    for (int cut = 0; cut < 40; ++cut) {  // blocks starting and ending anywhere
      const size_t from = rng() % text.size();
      const size_t to = from + 1 + rng() % std::min<size_t>(text.size() - from, cut % 4 == 0 ? 12 : 3000);
      check(text, from, to);
    }
  }
  // Tiny blocks of a few numbers: the wrapped token and its code among the inner ones (equal
  // to one, between two, below or above all) in every arrangement.
  for (int trial = 0; trial < 5000; ++trial) {
    std::vector<uint8_t> few(1 + rng() % 8);
    for (auto& x : few) x = static_cast<uint8_t>(rng() % 2 ? rng() % 2 : rng() % 256);
    const std::vector<uint8_t> t = ea::decimal_text_bytes(few);
    const size_t a = rng() % t.size();
    check(t, a, a + 1 + rng() % (t.size() - a));
  }
  // bzip2's own cuts of a long text (blocks of 499,981 characters).
  std::vector<uint8_t> big(300000);
  for (auto& x : big) x = static_cast<uint8_t>(rng());
  const std::vector<uint8_t> text = ea::decimal_text_bytes(big);
  size_t from = 0;
  for (const auto& b : ea::bz::split_rle1_blocks(text.data(), text.size(), ea::bz::block_limit(5))) {
    check(text, from, from + b.size());
    from += b.size();
  }
  CHECK(compared > 3000);
  CHECK(fast_compared > 1500);
  CHECK(wrapped_long > 10);
  CHECK(starts_at_space > 10);
  CHECK(ends_at_space > 10);
}

TEST_CASE("bzip2 model: DecimalBwt refuses what is not decimal text of numbers of at most 3 digits") {
  ea::bz::DecimalBwt decimal;
  auto refused = [&](const std::string& block) {
    std::vector<uint8_t> out(block.size());
    return !decimal.transform(reinterpret_cast<const uint8_t*>(block.data()), block.size(), out.data());
  };
  CHECK(refused("12 3a 4"));     // a byte that is neither a digit nor a space
  CHECK(refused("5 1234 6"));    // an inner token of 4 digits
  CHECK(refused("1234 5 678"));  // a wrapped token of 7 digits
  CHECK(refused("123"));         // no space
  CHECK(refused("12 34"));       // one space: one token
  CHECK_FALSE(refused("12 34 5"));
  CHECK_FALSE(refused("123 4 567"));  // a wrapped token of 6 digits
}

TEST_CASE("bzip2 model: the CPU's size model equals libbz2 on samples' decimal text") {
  std::mt19937_64 rng(20261201);
  ea::Compressor libbz2;
  ea::Bzip2SizeModel model;  // one object for every call: its storage is reused
  uint8_t identity[256], scaled[256], shuffled[256];
  for (int v = 0; v < 256; ++v) identity[v] = scaled[v] = shuffled[v] = static_cast<uint8_t>(v);
  for (int v = 0; v < 64; ++v) scaled[v] = static_cast<uint8_t>(4 * v + 3);  // 6-bit symbols as 3..255
  std::shuffle(shuffled, shuffled + 256, rng);
  int compared = 0;
  auto check = [&](const std::vector<uint8_t>& x, const uint8_t* table) {
    INFO("samples " << x.size());
    REQUIRE(model.compressed_length(x.data(), x.size(), table) == libbz2.compressed_length(x.data(), x.size(), table));
    ++compared;
  };
  for (int bits : {1, 2, 4, 6, 8}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{1000}, size_t{90000}, size_t{300000}}) {
      std::vector<uint8_t> x(n);
      for (auto& v : x) v = static_cast<uint8_t>(rng() & ((1u << bits) - 1));
      check(x, bits == 6 ? scaled : bits == 8 ? shuffled : identity);
    }
  }
  // Many blocks, cut at every kind of place (inside a number, at its space; the wrapped
  // token of 2-6 digits): 4 to 7 blocks each, numbers of 1-3 digits in changing mixes.
  for (int trial = 0; trial < 8; ++trial) {
    std::vector<uint8_t> x(700000 + rng() % 200000);
    const int bits = trial % 2 ? 8 : 4;
    for (auto& v : x) v = static_cast<uint8_t>(rng() & ((1u << bits) - 1));
    check(x, trial % 4 == 3 ? shuffled : identity);
  }
  for (int bias : {50, 90, 99, 100}) {  // long zero runs in the transform; 100: one number only
    std::vector<uint8_t> x(200000);
    for (auto& v : x) v = rng() % 100 < static_cast<unsigned>(bias) ? 7 : static_cast<uint8_t>(rng());
    check(x, identity);
  }
  std::vector<uint8_t> periodic(150000);
  for (size_t i = 0; i < periodic.size(); ++i) periodic[i] = static_cast<uint8_t>(i % 3 ? 1 : 111);
  check(periodic, identity);
  CHECK(compared == 48);
}

TEST_CASE("bzip2 model: the CPU's move-to-front by last uses and its Huffman passes by group counts equal the model's") {
  std::mt19937_64 rng(1201);
  int compared = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const int in_use = 1 + trial % 16;
    const size_t len = trial % 50 == 0 ? rng() % 4 : 1 + rng() % 40000;
    // Symbol runs (zero places), a few favourite symbols, or uniform.
    std::vector<uint8_t> last(len);
    uint8_t seq_of[256];
    for (int b = 0; b < 256; ++b) seq_of[b] = static_cast<uint8_t>(b % in_use);
    const int style = trial % 3;
    for (size_t i = 0; i < len; ++i) {
      last[i] = style == 0 && i > 0 && rng() % 3 ? last[i - 1]
                : style == 1                       ? static_cast<uint8_t>(rng() % 2 ? 0 : rng() % in_use)
                                                   : static_cast<uint8_t>(rng() % in_use);
    }
    std::vector<uint8_t> want(len), got(len);
    uint64_t order = ea::bz::packed_identity(in_use);
    ea::bz::packed_places(last.data(), static_cast<int32_t>(len), seq_of, order, want.data());
    ea::bz::mtf_places(last.data(), static_cast<int32_t>(len), seq_of, in_use, got.data());
    INFO("symbols " << in_use << ", length " << len);
    REQUIRE(got == want);
    std::vector<uint16_t> mtfv(len + 1);
    int32_t freq[ea::bz::kMaxAlpha];
    const int32_t n_mtf = ea::bz::zero_run_code(want.data(), static_cast<int32_t>(len), in_use, mtfv.data(), freq);
    std::vector<uint8_t> selectors(static_cast<size_t>(n_mtf) / ea::bz::kGroupSize + 1);
    ea::bz::TableState st;
    ea::bz::GroupScratch groups;
    const int ranges = 1 + trial % 3;
    CHECK(ea::bz::block_bits_grouped(mtfv.data(), n_mtf, freq, in_use, ranges, groups) ==
          ea::bz::block_bits_from_mtf(mtfv.data(), n_mtf, freq, in_use, ranges, selectors.data(), st));
    ++compared;
  }
  CHECK(compared == 600);
}

TEST_CASE("bzip2 model: small blocks' rotations compared directly equal the suffix sort's transform") {
  std::mt19937_64 rng(64);
  int compared = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const size_t len = 1 + rng() % ea::bz::kDirectRotations;
    std::vector<uint8_t> block(len);
    const int kinds = 1 + static_cast<int>(rng() % 4);          // few symbols: many equal prefixes
    const size_t period = 1 + rng() % (trial % 3 == 0 ? 3 : len);  // periodic blocks: equal rotations
    for (size_t i = 0; i < len; ++i) block[i] = i < period ? static_cast<uint8_t>('0' + rng() % kinds) : block[i - period];
    INFO("block of " << len);
    REQUIRE(ea::bz::rotation_bwt(block.data(), len) == ea::bz::suffix_sort_bwt(block.data(), len));
    ++compared;
  }
  CHECK(compared == 4000);
}
