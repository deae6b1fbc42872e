// Wide captures: sample formats, the symbol rules (mask, bins, the mask search).
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <string>

#include <unistd.h>

#include "common/error.hpp"
#include "io/samples.hpp"
#include "io/select_bits.hpp"

using namespace ea;

namespace {
std::string temp_bytes(const std::string& name, const std::string& bytes) {
  // (the process id in the name: ctest runs each case as its own process, side by side)
  std::string path = std::string(EA_TEST_TMP_DIR) + "/" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}
LoadOptions with(SampleFormat f, SymbolRule rule = {}) {
  LoadOptions o;
  o.sample_input.format = f;
  o.sample_input.rule = rule;
  return o;
}
SymbolRule mask_rule(uint32_t m) {
  SymbolRule r;
  r.kind = SymbolRule::Kind::Mask;
  r.mask = m;
  return r;
}
}  // namespace

TEST_CASE("sample formats decode little- and big-endian words") {
  const std::string b = std::string("\x01\x02\x03\x04", 4);
  const auto* p = reinterpret_cast<const uint8_t*>(b.data());
  CHECK(decode_samples(p, 4, SampleFormat::U16LE) == std::vector<uint32_t>{0x0201, 0x0403});
  CHECK(decode_samples(p, 4, SampleFormat::U16BE) == std::vector<uint32_t>{0x0102, 0x0304});
  CHECK(decode_samples(p, 4, SampleFormat::U32LE) == std::vector<uint32_t>{0x04030201});
  CHECK(decode_samples(p, 4, SampleFormat::U32BE) == std::vector<uint32_t>{0x01020304});
  CHECK(sample_format_from_name("u16be") == SampleFormat::U16BE);
  CHECK_FALSE(sample_format_from_name("u12"));
}

TEST_CASE("text samples: decimal and 0x-hex a line, errors name the line") {
  const std::string t = "1\n 0x1f \r\n4294967295\n7";
  CHECK(parse_text_samples(reinterpret_cast<const uint8_t*>(t.data()), t.size(), "f") ==
        std::vector<uint32_t>{1, 31, 4294967295u, 7});
  const std::string bad = "1\n2\nx3\n";
  CHECK_THROWS_WITH_AS(parse_text_samples(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), "f.txt"),
                       doctest::Contains("f.txt: line 3: 'x3' is not an unsigned integer"), Error);
  const std::string big = "4294967296\n";
  CHECK_THROWS_WITH_AS(parse_text_samples(reinterpret_cast<const uint8_t*>(big.data()), big.size(), "f"),
                       doctest::Contains("line 1"), Error);
  const std::string empty_line = "1\n\n2\n";
  CHECK_THROWS_WITH_AS(parse_text_samples(reinterpret_cast<const uint8_t*>(empty_line.data()), empty_line.size(), "f"),
                       doctest::Contains("line 2: empty line"), Error);
}

TEST_CASE("a wide file: a ragged length, a value above 8 bits without a rule, and a mask") {
  const std::string ragged = temp_bytes("ragged.u16", std::string("\x01\x00\x02\x00\x03", 5));
  CHECK_THROWS_WITH_AS(load_dataset(ragged, with(SampleFormat::U16LE)),
                       doctest::Contains("5 bytes, not a whole number of 2-byte u16le samples (1 byte left over at offset 4)"),
                       Error);
  const std::string wide = temp_bytes("wide.u16", std::string("\x01\x00\x02\x01\x03\x00", 6));
  CHECK_THROWS_WITH_AS(load_dataset(wide, with(SampleFormat::U16LE)), doctest::Contains("sample 1 is 258, wider than"),
                       Error);
  Dataset d = load_dataset(wide, with(SampleFormat::U16LE, mask_rule(0x0103)));
  // 0x0001 -> 01, 0x0102 -> bits 1, 8 of 0x103's {0, 1, 8} -> 0b110, 0x0003 -> 0b011
  CHECK(d.raw == std::vector<uint8_t>{1, 6, 3});
  CHECK(d.mapping.capture_max == 0x0102);
  CHECK(d.mapping.capture_bits == 9);
  CHECK(d.mapping.mask == 0x0103);
  CHECK(sample_input_text(d.mapping.input) == "u16le, select-bits 0x0103");
}

TEST_CASE("-l INDEX,COUNT counts samples of the format, not bytes") {
  std::string bytes;
  for (int i = 0; i < 10; ++i) bytes += std::string{static_cast<char>(0), static_cast<char>(i)};  // u16be i
  const std::string path = temp_bytes("ten.u16be", bytes);
  LoadOptions o = with(SampleFormat::U16BE);
  o.subset = SubsetSpec{1, 4};
  Dataset d = load_dataset(path, o);
  CHECK(d.raw == std::vector<uint8_t>{4, 5, 6, 7});
  o.subset = SubsetSpec{3, 4};
  CHECK_THROWS_WITH_AS(load_dataset(path, o), doctest::Contains("starts at sample 12, past the end of the file (10 samples)"),
                       Error);
  const std::string text = temp_bytes("ten.txt", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n");
  LoadOptions t = with(SampleFormat::Text);
  t.subset = SubsetSpec{2, 3};
  CHECK(load_dataset(text, t).raw == std::vector<uint8_t>{6, 7, 8});
}

TEST_CASE("mask rules: range checks name the flag") {
  CHECK_THROWS_WITH_AS(check_symbol_rule(mask_rule(0x1ff), SampleFormat::U16LE, "--select-bits"),
                       doctest::Contains("--select-bits: the mask 0x01ff keeps 9 bits"), Error);
  CHECK_THROWS_WITH_AS(check_symbol_rule(mask_rule(0x10000), SampleFormat::U16LE, "--select-bits"),
                       doctest::Contains("bits above the 16 of a u16le sample"), Error);
  CHECK(select_bits_rule("auto:4", "--select-bits").bits == 4);
  CHECK(select_bits_rule("0b1010", "--select-bits").mask == 10);
  CHECK_THROWS_WITH_AS(select_bits_rule("auto:9", "--select-bits"), doctest::Contains("from 1 to 8"), Error);
  CHECK_THROWS_WITH_AS(select_bits_rule("0xfffg", "--select-bits"), doctest::Contains("neither a mask"), Error);
}

TEST_CASE("equal-count bins keep the order and never split a value") {
  std::vector<uint32_t> v;
  for (uint32_t x = 0; x < 100; ++x) v.push_back(x * 7);  // 100 distinct values
  const std::vector<uint32_t> lower = equal_count_bins(v, 2);  // 4 bins of 25
  CHECK(lower == std::vector<uint32_t>{0, 25 * 7, 50 * 7, 75 * 7});
  // A heavy value stays whole; the bins after it share the samples left (13, 14, 13).
  std::vector<uint32_t> h(60, 5);
  for (uint32_t x = 0; x < 40; ++x) h.push_back(10 + x);
  CHECK(equal_count_bins(h, 2) == std::vector<uint32_t>{5, 10, 23, 37});
  // Edges made on other data: a value below the first bin's lowest goes to the first bin.
  SampleInput given;
  given.rule.kind = SymbolRule::Kind::Bin;
  given.rule.bits = 2;
  given.rule.edges = {10, 20, 30};
  SampleMapping m;
  CHECK(map_samples({5, 10, 25, 99}, given, "f", m) == std::vector<uint8_t>{0, 0, 1, 2});
  // Fewer distinct values than bins: one bin each.
  CHECK(equal_count_bins({9, 3, 3, 9, 4}, 3) == std::vector<uint32_t>{3, 4, 9});
}

namespace {
// 12 bits: bit 0 toggles, bit 3 is the previous sample's bit 2 or bit 4 (1 three times in
// four, and predictable), bit 6 is 1 nine times in ten, bit 9 is always set, the other 8 bits are uniform: the best 8-bit mask is those 8
// (0xdb6).
std::vector<uint32_t> twelve_bit(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<uint32_t> v(n);
  uint32_t last = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = g();
    uint32_t x = static_cast<uint32_t>(r) & 0xdb6u;
    x |= static_cast<uint32_t>(i & 1);
    x |= (((last >> 2) | (last >> 4)) & 1u) << 3;
    last = x;
    x |= ((r >> 40) % 10 != 0 ? 1u : 0u) << 6;
    x |= 1u << 9;
    v[i] = x;
  }
  return v;
}
}  // namespace

TEST_CASE("the mask search finds the known best mask, for any thread count, pinned to the plain score") {
  const std::vector<uint32_t> v = twelve_bit(200000, 7);
  uint32_t all_or = 0, all_and = ~0u;
  for (uint32_t x : v) all_or |= x, all_and &= x;
  const uint32_t varying = all_or & ~all_and;
  CHECK(varying == 0xdff);
  CHECK(active_bits(v, varying) == 0xdff);
  std::vector<uint32_t> dup(v);
  for (uint32_t& x : dup) x = (x & ~8u) | ((~x >> 2 & 1u) << 3);  // bit 3 the complement of bit 2
  CHECK(active_bits(dup, varying) == 0xdfb);  // the lower bit of the pair goes
  const MaskSearch one = search_mask(v, varying, 8, 1);
  const MaskSearch two = search_mask(v, varying, 8, 2);
  REQUIRE_FALSE(one.best.empty());
  CHECK(one.best.front().first == 0xdb6u);
  CHECK(one.best == two.best);
  CHECK(one.scored == two.scored);
  CHECK(one.candidates == 165);  // C(11, 8)
  CHECK(one.scored < one.candidates);
  CHECK(one.score == mask_score(v, 0xdb6u));
  // With fewer bits asked, the masks of that many bits.
  const MaskSearch four = search_mask(v, varying, 4, 2);
  CHECK(__builtin_popcount(four.best.front().first) == 4);
  CHECK((four.best.front().first & ~0xdb6u) == 0);
}

TEST_CASE("the mask search: the greedy path, used past 16 active bits, finds a planted mask too") {
  std::mt19937_64 g(11);
  std::vector<uint32_t> v(50000);
  for (size_t i = 0; i < v.size(); ++i) {
    // 6 uniform bits at 0x00f0_0300 and 18 counter bits (predictable) elsewhere.
    const uint32_t counter = static_cast<uint32_t>(i) & 0x3ffff;
    const uint32_t spread = (counter & 0xff) | ((counter >> 8 & 0x3) << 10) | ((counter >> 10) << 24);
    v[i] = (static_cast<uint32_t>(g()) & 0x00f00300u) | spread;
  }
  uint32_t all_or = 0, all_and = ~0u;
  for (uint32_t x : v) all_or |= x, all_and &= x;
  const MaskSearch s = search_mask(v, all_or & ~all_and, 6, 2);
  CHECK(s.method.rfind("greedy", 0) == 0);
  CHECK(s.best.front().first == 0x00f00300u);
}

TEST_CASE("--select-bits auto and --bin through the loader record what they did") {
  const std::vector<uint32_t> v = twelve_bit(20000, 3);
  std::string bytes;
  for (uint32_t x : v) bytes += std::string{static_cast<char>(x & 0xff), static_cast<char>(x >> 8)};
  const std::string path = temp_bytes("twelve.u16le", bytes);
  SymbolRule a;
  a.kind = SymbolRule::Kind::Auto;
  a.bits = 8;
  Dataset d = load_dataset(path, with(SampleFormat::U16LE, a));
  CHECK(d.mapping.mask == 0xdb6u);
  REQUIRE(d.mapping.search);
  for (size_t i = 0; i < v.size(); ++i) REQUIRE(d.raw[i] == pack_bits(v[i], 0xdb6u));
  SymbolRule b;
  b.kind = SymbolRule::Kind::Bin;
  b.bits = 3;
  Dataset e = load_dataset(path, with(SampleFormat::U16LE, b));
  CHECK(e.mapping.bin_lower.size() == 8);
  CHECK(e.alphabet == 8);
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i] > v[i - 1]) REQUIRE(e.raw[i] >= e.raw[i - 1]);  // order kept
  }
}

TEST_CASE("a 16-bit capture read as bytes is told by its even and odd bytes' varying bits") {
  std::mt19937 gen(5);
  std::string twelve, eight;
  for (int i = 0; i < 5000; ++i) {
    const uint32_t v = gen() & 0x0fff;  // 12-bit samples, u16le: the high byte varies in 4 bits
    twelve += static_cast<char>(v & 0xff);
    twelve += static_cast<char>(v >> 8);
    eight += static_cast<char>(gen() & 0xff);
    eight += static_cast<char>(gen() & 0xff);
  }
  const Dataset d = load_dataset(temp_bytes("twelve-as-bytes.bin", twelve), LoadOptions{});
  CHECK(d.mapping.varying_even == 0xff);
  CHECK(d.mapping.varying_odd == 0x0f);
  CHECK(wide_capture_hint(d.mapping, d.size()).find("vary in 8 and 4 bits (0xff and 0x0f): the file may hold 16-bit") !=
        std::string::npos);
  // 8-bit samples, and the same 12-bit capture read as u16le: no hint.
  const Dataset e = load_dataset(temp_bytes("eight.bin", eight), LoadOptions{});
  CHECK(wide_capture_hint(e.mapping, e.size()).empty());
  const Dataset w = load_dataset(temp_bytes("twelve.u16le", twelve), with(SampleFormat::U16LE, mask_rule(0x00ff)));
  CHECK(wide_capture_hint(w.mapping, w.size()).empty());
  // 4-bit samples vary in 4 bits at both offsets, a stray 0xff among them too.
  std::string four;
  for (int i = 0; i < 5000; ++i) four += static_cast<char>(gen() & 0x0f);
  four[1001] = static_cast<char>(0xff);
  const Dataset f = load_dataset(temp_bytes("four.bin", four), LoadOptions{});
  CHECK(wide_capture_hint(f.mapping, f.size()).empty());
}
