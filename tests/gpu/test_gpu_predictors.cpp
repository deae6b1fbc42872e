// The GPU's MultiMMC and LZ78Y states on bits (cuda/bit_predictors.cu) against the CPU's:
// every order's found / right bits equal multi_mmc_order_bits', and LZ78Y's counts from the
// GPU's hits (lz78y_from_hits) equal lz78y_estimate's, for random bits (order 16's cap of
// 100,000 pairs and LZ78Y's 65,536 contexts reached), runs, periods, all equal, 18 to 300
// bits, and the bitstrings of the sample files (not with --small); then both estimates
// through the sources the pipeline passes. Exit 77 (skipped) without a GPU.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "estimators/non_iid.hpp"
#include "estimators/non_iid_mmc_bits.hpp"
#include "gpu_backends.hpp"
#include "../common/sample_files.hpp"
#include "gpu_predictors.hpp"
#include "../common/lz78y_bits_reference.hpp"

namespace {

int failures = 0, checks = 0;

void fail(const std::string& what, size_t n, const char* why) {
  std::printf("FAIL %s (n = %zu): %s\n", what.c_str(), n, why);
  ++failures;
}

bool same_lines(const ea::Estimate& a, const ea::Estimate& b) {
  if (a.lines.size() != b.lines.size() || a.entropy != b.entropy) return false;
  for (size_t i = 0; i < a.lines.size(); ++i)
    if (a.lines[i].value != b.lines[i].value) return false;
  return true;
}

void check_bits(const std::string& what, const std::vector<uint8_t>& s) {
  const size_t n = s.size();
  ++checks;
  std::vector<uint64_t> found, right;
  if (!ea::gpu_mmc_bit_states(s.data(), n, 0, found, right)) return fail(what, n, "the GPU declined MultiMMC");
  const size_t words = (n - 2 + 63) / 64;
  for (int d = 0; d < 16; ++d) {
    std::vector<uint64_t> f(words, 0), r(words, 0);
    ea::multi_mmc_order_bits(s.data(), n, d, f.data(), r.data());
    if (!std::equal(f.begin(), f.end(), found.begin() + static_cast<std::ptrdiff_t>(d * words)) ||
        !std::equal(r.begin(), r.end(), right.begin() + static_cast<std::ptrdiff_t>(d * words))) {
      fail(what + ", MultiMMC order " + std::to_string(d + 1), n, "found / right bits differ");
      break;
    }
  }
  ++checks;
  std::vector<uint64_t> hits;
  if (!ea::gpu_lz78y_bit_hits(s.data(), n, 0, hits)) return fail(what, n, "the GPU declined LZ78Y");
  if (hits != ea::test::lz78y_bits_reference_hits(s)) fail(what + ", LZ78Y", n, "hits differ from the step-by-step reference's");
  if (!same_lines(ea::lz78y_from_hits(hits, n, 2), ea::lz78y_estimate(s.data(), n, 2)))
    fail(what + ", LZ78Y", n, "counts differ");
}

// Both estimates through the pipeline's kind of source.
void check_sources(const std::string& what, const std::vector<uint8_t>& s) {
  ++checks;
  const ea::MmcBitsSource mmc = [](const uint8_t* p, size_t n, std::vector<uint64_t>& f, std::vector<uint64_t>& r,
                                   ea::Interrupt i) { return ea::gpu_mmc_bit_states(p, n, 0, f, r, i); };
  const ea::Lz78yBitsSource lz = [](const uint8_t* p, size_t n, std::vector<uint64_t>& h, ea::Interrupt i) {
    return ea::gpu_lz78y_bit_hits(p, n, 0, h, i);
  };
  const size_t n = s.size();
  if (!same_lines(ea::multi_mmc_estimate(s.data(), n, 2, nullptr, mmc), ea::multi_mmc_estimate(s.data(), n, 2)) ||
      !same_lines(ea::lz78y_estimate(s.data(), n, 2, nullptr, lz), ea::lz78y_estimate(s.data(), n, 2)))
    fail(what + ", estimates through the sources", n, "differ");
}

std::vector<uint8_t> random_bits(std::mt19937& rng, size_t n, uint32_t one_in = 2) {
  std::vector<uint8_t> s(n);
  for (auto& v : s) v = static_cast<uint8_t>(rng() % one_in == 0);
  return s;
}

using ea::test::bits_of;
using ea::test::read_file;

int sample_files() {
  for (const char* name : {"GetTickCount_8bit", "truerand_8bit", "truerand_4bit", "truerand_1bit", "ringOsc-nist"}) {
    const std::vector<uint8_t> s = read_file(std::string(EA_TEST_SAMPLES) + "/" + name + ".bin");
    if (s.empty()) {
      fail(name, 0, "cannot read the sample file");
      continue;
    }
    const std::string n = name;
    const int width = n.find("1bit") != std::string::npos || n == "ringOsc-nist" ? 1 : n.find("4bit") != std::string::npos ? 4 : 8;
    const std::vector<uint8_t> bits = width > 1 ? bits_of(s, width) : s;
    check_bits(n + " bits", bits);
    check_sources(n + " bits", bits);
  }
  return 0;
}

}  // namespace

// --small: the random and short inputs alone (for compute-sanitizer; 250,000 random bits
// reach both caps there).
int main(int argc, char** argv) {
  const bool small = argc > 1 && std::string(argv[1]) == "--small";
  if (ea::gpu_count() == 0) {
    std::printf("gpu_predictors: no usable GPU, skipped\n");
    return 77;
  }
  try {
    std::mt19937 rng(20261130);
    for (size_t n = 18; n <= 300; n += (n < 80 ? 1 : 13)) check_bits("random", random_bits(rng, n, 2 + n % 3));
    check_bits("random, 70,001", random_bits(rng, 70001));
    check_bits("random, 250,000 (both caps reached)", random_bits(rng, 250000));
    if (!small) {
      std::vector<uint8_t> s = random_bits(rng, 300000);  // both caps reached
      const auto runs = random_bits(rng, 100000, 9);
      s.insert(s.end(), runs.begin(), runs.end());
      check_bits("300,000 random then 100,000 biased", s);
      check_sources("300,000 random then 100,000 biased", s);
      for (uint8_t v : {0, 1}) check_bits("all " + std::to_string(v), std::vector<uint8_t>(200000, v));
      for (size_t period : {2, 7, 97, 1000}) {
        std::vector<uint8_t> p(250000);
        for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<uint8_t>(i % period == 0);
        check_bits("period " + std::to_string(period), p);
      }
      std::vector<uint8_t> runs2;
      while (runs2.size() < 400000) runs2.insert(runs2.end(), 1 + rng() % 300, static_cast<uint8_t>(rng() % 2));
      check_bits("runs of bits", runs2);
      sample_files();
    }
  } catch (const ea::Error& e) {
    std::printf("FAIL: %s\n", e.what());
    ++failures;
  }
  std::printf("gpu_predictors: %d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
