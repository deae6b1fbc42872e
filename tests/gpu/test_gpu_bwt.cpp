// The GPU Burrows-Wheeler transform alone (cuda/bzip2/bwt.cu) against libdivsufsort on the
// host (ea::bz::rotation_bwt): decimal text of varied data, cut into bzip2's blocks and into
// small blocks, in one call. Exit 77 (skipped) without a usable GPU.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "gpu_backends.hpp"
#include "gpu_bwt.hpp"
#include "stats/bzip2_model.hpp"
#include "stats/bzip2_size.hpp"
#include "stats/compression.hpp"

namespace {

// Blocks of `text`: bzip2's cuts at block size 5, or pieces of at most `piece` characters.
std::vector<uint32_t> cuts(const std::vector<uint8_t>& text, uint32_t piece) {
  std::vector<uint32_t> lens;
  if (piece == 0) {
    for (const auto& b : ea::bz::split_rle1_blocks(text.data(), text.size(), ea::bz::block_limit(5))) {
      lens.push_back(static_cast<uint32_t>(b.size()));
    }
    return lens;
  }
  for (size_t at = 0; at < text.size(); at += piece) lens.push_back(static_cast<uint32_t>(std::min<size_t>(piece, text.size() - at)));
  return lens;
}

}  // namespace

int main() {
  if (ea::gpu_count() == 0) {
    std::printf("gpu_bwt: no usable GPU, skipped\n");
    return 77;
  }
  std::mt19937 rng(20261123);
  struct Case {
    std::string name;
    std::vector<uint8_t> samples;
  };
  std::vector<Case> cases;
  auto random_samples = [&](size_t n, int bits) {
    std::vector<uint8_t> s(n);
    for (auto& v : s) v = static_cast<uint8_t>(rng() & ((1u << bits) - 1));
    return s;
  };
  cases.push_back({"8-bit random", random_samples(300000, 8)});
  cases.push_back({"1-bit random", random_samples(400000, 1)});
  cases.push_back({"4-bit random", random_samples(200000, 4)});
  cases.push_back({"all symbols equal (0)", std::vector<uint8_t>(250000, 0)});
  cases.push_back({"all symbols equal (255)", std::vector<uint8_t>(120000, 255)});
  {
    std::vector<uint8_t> runs;
    while (runs.size() < 300000) runs.insert(runs.end(), 1 + rng() % 40, static_cast<uint8_t>(rng() % 3 * 100));
    cases.push_back({"long runs", runs});
  }
  {
    std::vector<uint8_t> periodic(300000);
    for (size_t i = 0; i < periodic.size(); ++i) periodic[i] = static_cast<uint8_t>((i % 7) * 37);
    cases.push_back({"periodic (period 7)", periodic});
  }
  {
    std::vector<uint8_t> periodic(200000);
    for (size_t i = 0; i < periodic.size(); ++i) periodic[i] = static_cast<uint8_t>(i % 2);
    cases.push_back({"periodic 1-bit (0 1 0 1 ...)", periodic});
  }
  cases.push_back({"one sample", {42}});
  // Texts of one kind of character (pass 0's radix 1) and of 5 and 9 kinds (2- and 3-bit).
  cases.push_back({"one sample, one digit", {7}});
  cases.push_back({"one sample of equal digits", {111}});
  cases.push_back({"2-bit random", random_samples(60000, 2)});
  cases.push_back({"3-bit random", random_samples(60000, 3)});
  // Small blocks by numbers: at most 2,048 blocks of 7 and 40 characters (numbers wrapped
  // at both ends, blocks of one space).
  cases.push_back({"8-bit random, small", random_samples(2000, 8)});
  int failures = 0, checked = 0;
  for (const auto& c : cases) {
    const std::vector<uint8_t> text = ea::decimal_text_bytes(c.samples);
    for (uint32_t piece : {0u, 1u, 5u, 7u, 40u, 4097u}) {
      if (piece == 1 && text.size() > 5000) continue;  // one-character blocks: small texts only
      if ((piece == 7 || piece == 40) && text.size() > 20000) continue;
      const std::vector<uint32_t> lens = cuts(text, piece);
      std::vector<uint8_t> got;
      bool by_numbers = false;
      try {
        got = ea::gpu_bwt(text, lens, 0, &by_numbers);
      } catch (const ea::Error& e) {
        std::printf("FAIL %s (blocks of %u): %s\n", c.name.c_str(), piece, e.what());
        ++failures;
        continue;
      }
      size_t at = 0;
      bool same = got.size() == text.size();
      for (size_t b = 0; same && b < lens.size(); ++b) {
        const std::vector<uint8_t> want = ea::bz::rotation_bwt(text.data() + at, lens[b]);
        same = std::equal(want.begin(), want.end(), got.begin() + static_cast<long>(at));
        if (!same) std::printf("FAIL %s: block %zu of %zu differs\n", c.name.c_str(), b, lens.size());
        at += lens[b];
      }
      // Where every block has a space (and there are at most 2,048), the transform by numbers
      // must have made them.
      bool numbers_expected = lens.size() <= 2048;
      for (size_t b = 0, from = 0; b < lens.size(); from += lens[b], ++b) {
        numbers_expected = numbers_expected && std::find(text.begin() + static_cast<long>(from),
                                                         text.begin() + static_cast<long>(from + lens[b]),
                                                         ' ') != text.begin() + static_cast<long>(from + lens[b]);
      }
      if (numbers_expected && !by_numbers) {
        std::printf("FAIL %s: the transform by numbers was not used\n", c.name.c_str());
        same = false;
      }
      ++checked;
      failures += same ? 0 : 1;
      std::printf("%s %s: %zu characters, %zu blocks (%s, by %s)\n", same ? "ok  " : "FAIL", c.name.c_str(), text.size(),
                  lens.size(), piece ? ("pieces of " + std::to_string(piece)).c_str() : "bzip2 block cuts",
                  by_numbers ? "numbers" : "characters");
    }
  }
  std::printf("gpu_bwt: %d of %d checks failed\n", failures, checked);
  return failures ? 1 : 0;
}
