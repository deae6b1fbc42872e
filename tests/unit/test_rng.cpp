// Philox4x32-10 known answers, the permutation stream layout, Lemire's bounded draw and
// the uniformity of the Fisher-Yates shuffle.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "estimators/estimators.hpp"
#include "permutation/shuffle.hpp"
#include "rng/bounded.hpp"
#include "rng/philox_stream.hpp"

using namespace ea;

namespace {
std::vector<std::vector<std::string>> kat_rows(const std::string& kind) {
  std::ifstream in(EA_TEST_KAT_DIR "/philox4x32_10.txt");
  REQUIRE(in.good());
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string first;
    if (!(ss >> first) || first != kind) continue;
    std::vector<std::string> row;
    for (std::string w; ss >> w;) row.push_back(w);
    rows.push_back(row);
  }
  return rows;
}
uint32_t hex(const std::string& s) { return static_cast<uint32_t>(std::stoul(s, nullptr, 16)); }
}  // namespace

TEST_CASE("Philox4x32-10 matches Random123's known-answer vectors") {
  auto rows = kat_rows("kat");
  REQUIRE(rows.size() == 3);
  for (const auto& r : rows) {
    philox4x32_ctr_t c = {{hex(r[0]), hex(r[1]), hex(r[2]), hex(r[3])}};
    philox4x32_key_t k = {{hex(r[4]), hex(r[5])}};
    philox4x32_ctr_t out = philox4x32_R(10, c, k);
    for (int i = 0; i < 4; ++i) CHECK(out.v[i] == hex(r[6 + i]));
  }
}

TEST_CASE("permutation streams follow cuRAND's curand_init(seed, j, 0) layout") {
  auto rows = kat_rows("stream");
  REQUIRE(rows.size() == 2);
  for (const auto& r : rows) {
    PhiloxStream s(std::stoull(r[0]), std::stoull(r[1]));
    for (int i = 0; i < 4; ++i) CHECK(s.next() == static_cast<uint32_t>(std::stoul(r[2 + i])));
  }
}

TEST_CASE("Fisher-Yates of 0..9 from (seed, j) matches the known shuffles") {
  auto rows = kat_rows("shuffle");
  REQUIRE(rows.size() == 2);
  for (const auto& r : rows) {
    std::vector<uint8_t> a(10);
    for (int i = 0; i < 10; ++i) a[i] = static_cast<uint8_t>(i);
    PhiloxStream s(std::stoull(r[0]), std::stoull(r[1]));
    fisher_yates(a.data(), a.size(), 1, s);
    for (int i = 0; i < 10; ++i) CHECK(a[i] == std::stoi(r[2 + i]));
  }
}

namespace {
// A word source that replays fixed words, to exercise the rejection branch.
struct Replay {
  std::vector<uint32_t> words;
  size_t pos = 0;
  uint32_t next() { return words.at(pos++); }
};
}  // namespace

TEST_CASE("Lemire's bounded draw rejects the biased low products") {
  // s = 3: threshold (2^32 - 3) mod 3 = 1. Word 0 gives m = 0, low 0 < 1: rejected.
  Replay r{{0u, 0x80000000u}};
  CHECK(bounded_inclusive(r, 2) == 1);  // 0x80000000 * 3 >> 32 = 1
  CHECK(r.pos == 2);
  Replay top{{0xFFFFFFFFu}};
  CHECK(bounded_inclusive(top, 9) == 9);
}

TEST_CASE("the pipelined (GPU) and blocked (CPU) Fisher-Yates give exactly the plain shuffle") {
  for (size_t n : {1u, 2u, 3u, 7u, 8u, 9u, 15u, 16u, 17u, 31u, 33u, 64u, 100u, 1000u, 4099u}) {
    for (uint64_t j = 0; j < 20; ++j) {
      std::vector<uint8_t> plain(n), piped(n), strided(3 * n, 0);
      for (size_t i = 0; i < n; ++i) plain[i] = piped[i] = strided[3 * i + 1] = static_cast<uint8_t>(i * 7 + i / 256);
      std::vector<uint8_t> blocked = plain;
      std::vector<uint32_t> targets(kShuffleBlock);
      PhiloxStream a(99, j), b(99, j), c(99, j), d(99, j);
      fisher_yates(plain.data(), n, 1, a);
      fisher_yates_pipelined<8>(piped.data(), n, 1, b);
      fisher_yates_pipelined<3>(strided.data() + 1, n, 3, c);
      fisher_yates_blocked(blocked.data(), n, d, targets.data());
      CHECK(blocked == plain);
      CAPTURE(n);
      CAPTURE(j);
      CHECK(piped == plain);
      bool same = true;
      for (size_t i = 0; i < n; ++i) same = same && strided[3 * i + 1] == plain[i];
      CHECK(same);
      CHECK(a.next() == b.next());  // the same words were consumed
    }
  }
  // Small alphabets make equal values and colliding positions frequent.
  std::vector<uint8_t> plain(5000), piped(5000);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = piped[i] = static_cast<uint8_t>(i % 3);
  PhiloxStream a(5, 5), b(5, 5);
  fisher_yates(plain.data(), plain.size(), 1, a);
  fisher_yates_pipelined<16>(piped.data(), piped.size(), 1, b);
  CHECK(piped == plain);
}
