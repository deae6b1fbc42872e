// The GPU's suffix order and LCPs (cuda/suffix_lcps.cu) against libdivsufsort's
// (ea::suffix_lcps): every LCP equal, long ones included, for texts of 1 to 8 bits a symbol,
// random and repetitive (runs, periods, a copied third, all symbols equal, random blocks of 2
// to 7 bits repeated), short and about
// powers of two, and the bitstrings and symbols of the sample files (not with --small); then the t-tuple and
// LRS counts through the GPU equal the suffix array's. Exit 77 (skipped) without a GPU.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "estimators/non_iid.hpp"
#include "gpu_backends.hpp"
#include "../common/sample_files.hpp"
#include "gpu_suffixes.hpp"

namespace {

int failures = 0, checks = 0;

void check_text(const std::string& what, const std::vector<uint8_t>& s) {
  ++checks;
  const auto gpu = ea::gpu_suffix_lcps(s.data(), s.size(), 0);
  if (!gpu) {
    std::printf("FAIL %s (n = %zu): the GPU declined\n", what.c_str(), s.size());
    ++failures;
    return;
  }
  const ea::SuffixLcps ref = ea::suffix_lcps(s.data(), s.size());
  size_t first = s.size();
  for (size_t r = 0; r < s.size(); ++r) {
    if (gpu->lcp[r] != ref.lcp[r]) {
      first = r;
      break;
    }
  }
  if (first != s.size() || gpu->long_lcps != ref.long_lcps) {
    std::printf("FAIL %s (n = %zu): LCPs differ (first at rank %zu; %zu / %zu long ones)\n", what.c_str(), s.size(),
                first, gpu->long_lcps.size(), ref.long_lcps.size());
    ++failures;
  }
}

std::vector<uint8_t> random_symbols(std::mt19937& rng, size_t n, int bits) {
  std::vector<uint8_t> s(n);
  for (auto& v : s) v = static_cast<uint8_t>(rng() & ((1u << bits) - 1));
  return s;
}

using ea::test::bits_of;
using ea::test::read_file;

void check_counts(const std::string& what, const std::vector<uint8_t>& s) {
  ++checks;
  const ea::SuffixLcpSource gpu = [](const uint8_t* p, size_t n, ea::Interrupt i) { return ea::gpu_suffix_lcps(p, n, 0, i); };
  const ea::TupleCounts c = ea::tuple_counts(s.data(), s.size(), false, nullptr, gpu);
  const ea::TupleCounts ref = ea::tuple_counts(s.data(), s.size(), true);
  if (c.path != ea::TupleCounts::Path::Given || c.v != ref.v || c.most != ref.most || c.pairs != ref.pairs) {
    std::printf("FAIL %s: the t-tuple and LRS counts through the GPU differ (v %llu / %llu)\n", what.c_str(),
                static_cast<unsigned long long>(c.v), static_cast<unsigned long long>(ref.v));
    ++failures;
  }
}

}  // namespace

// --small: the random texts alone (for compute-sanitizer).
int main(int argc, char** argv) {
  const bool small = argc > 1 && std::string(argv[1]) == "--small";
  if (ea::gpu_count() == 0) {
    std::printf("gpu_suffixes: no usable GPU, skipped\n");
    return 77;
  }
  try {
    std::mt19937 rng(20261130);
    for (int bits = 1; bits <= 8; ++bits) {
      check_text("random, " + std::to_string(bits) + "-bit", random_symbols(rng, 200000, bits));
      for (size_t n : {2, 3, 5, 57, 58, 59, 64, 65, 127, 1000, 4096, 4097})
        check_text("random, " + std::to_string(bits) + "-bit, n " + std::to_string(n), random_symbols(rng, n, bits));
    }
    if (small) {
      std::printf("gpu_suffixes: %d checks, %d failed\n", checks, failures);
      return failures == 0 ? 0 : 1;
    }
    for (uint8_t v : {0, 1, 5, 100, 255}) check_text("all " + std::to_string(v), std::vector<uint8_t>(300000, v));
    for (int bits : {2, 3, 5, 7}) {  // a random block repeated: long LCPs at widths between 1 and 8 bits
      for (size_t block : {3, 64, 999}) {
        const std::vector<uint8_t> b = random_symbols(rng, block, bits);
        std::vector<uint8_t> s(200000);
        for (size_t i = 0; i < s.size(); ++i) s[i] = b[i % block];
        check_text("a random " + std::to_string(bits) + "-bit block of " + std::to_string(block) + " repeated", s);
      }
    }
    for (size_t period : {2, 7, 61, 1000}) {
      std::vector<uint8_t> s(250000);
      for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<uint8_t>(i % period == 0);
      check_text("period " + std::to_string(period), s);
    }
    {
      std::vector<uint8_t> s = random_symbols(rng, 300000, 1);
      std::copy(s.begin(), s.begin() + 100000, s.begin() + 100000);
      check_text("a third of the bits twice", s);
      check_counts("a third of the bits twice", s);
    }
    {
      std::vector<uint8_t> runs;
      while (runs.size() < 400000) runs.insert(runs.end(), 1 + rng() % 300, static_cast<uint8_t>(rng() % 2));
      check_text("runs of bits", runs);
      std::vector<uint8_t> planted = random_symbols(rng, 500000, 1);
      for (int c = 0; c < 60; ++c) {
        const size_t at = rng() % (planted.size() - 800);
        std::copy(planted.begin() + 1000, planted.begin() + 1700, planted.begin() + static_cast<std::ptrdiff_t>(at));
      }
      check_text("60 copies of 700 bits", planted);
      check_counts("60 copies of 700 bits", planted);
    }
    for (const char* name : {"GetTickCount_8bit", "truerand_8bit", "truerand_4bit", "truerand_1bit"}) {
      const std::vector<uint8_t> s = read_file(std::string(EA_TEST_SAMPLES) + "/" + name + ".bin");
      if (s.empty()) {
        std::printf("FAIL %s: cannot read the sample file\n", name);
        ++failures;
        continue;
      }
      const int width = std::string(name).find("1bit") != std::string::npos ? 1
                        : std::string(name).find("4bit") != std::string::npos ? 4 : 8;
      check_text(std::string(name) + " symbols", s);
      if (width > 1) check_text(std::string(name) + " bitstring", bits_of(s, width));
      check_counts(std::string(name) + (width > 1 ? " bitstring" : " symbols"), width > 1 ? bits_of(s, width) : s);
    }
  } catch (const ea::Error& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
  std::printf("gpu_suffixes: %d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
