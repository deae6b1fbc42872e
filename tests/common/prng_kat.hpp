// The known-answer lines of tests/kat/prngs.txt and their evaluation, shared by the CPU
// test (tests/unit/test_prngs.cpp) and the GPU test (tests/gpu/test_gpu_kat.cu), which
// runs kat_eval() in a kernel.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "permutation/shuffle.hpp"
#include "rng/generators.hpp"

namespace ea::kat {

struct Line {
  std::string kind, gen;
  std::vector<uint64_t> in, out;
};

inline std::vector<Line> read_lines(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open " + path);
  std::vector<Line> lines;
  std::string text;
  while (std::getline(f, text)) {
    if (text.empty() || text[0] == '#') continue;
    std::istringstream ss(text);
    Line l;
    ss >> l.kind;
    if (l.kind != "sobol-dir") ss >> l.gen;
    bool after = false;
    for (std::string w; ss >> w;) {
      if (w == ":") {
        after = true;
        continue;
      }
      (after ? l.out : l.in).push_back(std::stoull(w, nullptr, 0));
    }
    lines.push_back(l);
  }
  return lines;
}

// Generators and kinds that kat_eval() computes from an explicit state.
enum Gen : int { kSplitMix, kXoshiro, kXorwow, kMrg31, kMrg32, kXor128, kXorshift5, kCiXorSeq, kUnknownGen };
enum Kind : int { kRaw, kJump, kDraw, kFy10, kUnknownKind };

inline int gen_code(const std::string& g) {
  const char* names[] = {"splitmix64", "xoshiro256ss", "xorwow", "mrg31k3p", "mrg32k3a", "xor128", "xorshift5", "ci-xor-seq"};
  for (int i = 0; i < kUnknownGen; ++i)
    if (g == names[i]) return i;
  return kUnknownGen;
}
inline int kind_code(const std::string& k) {
  if (k == "raw") return kRaw;
  if (k == "jump") return kJump;
  if (k == "draw") return kDraw;
  if (k == "fy10") return kFy10;
  return kUnknownKind;
}

namespace detail {
template <class G>
EA_HD void draws_and_shuffles(G& g, int kind, uint64_t* out, int n_out) {
  if (kind == kDraw) {
    for (int i = 0; i < n_out; ++i) out[i] = g.bounded(static_cast<uint32_t>(9 - i));
  } else {  // kFy10: two compounded shuffles of 0..9
    uint8_t a[10];
    for (int i = 0; i < 10; ++i) a[i] = static_cast<uint8_t>(i);
    for (int r = 0; r < n_out / 10; ++r) {
      fisher_yates(a, 10, 1, g);
      for (int i = 0; i < 10; ++i) out[10 * r + i] = a[i];
    }
  }
}
}  // namespace detail

// Outputs of one line from its state `in`; returns false for an unsupported combination.
EA_HD inline bool kat_eval(int gen, int kind, const uint64_t* in, uint64_t* out, int n_out) {
  switch (gen) {
    case kSplitMix: {
      SplitMix64 g{in[0]};
      for (int i = 0; i < n_out; ++i) out[i] = g.next();
      return kind == kRaw;
    }
    case kXoshiro: {
      Xoshiro256ss g{{in[0], in[1], in[2], in[3]}};
      if (kind == kJump) {
        g.jump();
        for (int i = 0; i < 4 && i < n_out; ++i) out[i] = g.s[i];
      } else if (kind == kRaw) {
        for (int i = 0; i < n_out; ++i) out[i] = g.next64();
      } else {
        detail::draws_and_shuffles(g, kind, out, n_out);
      }
      return true;
    }
    case kXorwow: {
      Xorwow g;
      for (int k = 0; k < 5; ++k) g.v[k] = static_cast<uint32_t>(in[k]);
      g.d = static_cast<uint32_t>(in[5]);
      for (int i = 0; i < n_out; ++i) out[i] = g.next();
      return kind == kRaw;
    }
    case kMrg31: {
      Mrg31k3p g;
      for (int k = 0; k < 3; ++k) {
        g.g1[k] = static_cast<uint32_t>(in[k]);
        g.g2[k] = static_cast<uint32_t>(in[3 + k]);
      }
      for (int i = 0; i < n_out; ++i) out[i] = g.next_z();
      return kind == kRaw;
    }
    case kMrg32: {
      Mrg32k3a g;
      for (int k = 0; k < 6; ++k) g.c[k] = static_cast<uint32_t>(in[k]);
      for (int i = 0; i < n_out; ++i) out[i] = g.next_z();
      return kind == kRaw;
    }
    case kXor128: {
      Xor128 g{static_cast<uint32_t>(in[0]), static_cast<uint32_t>(in[1]), static_cast<uint32_t>(in[2]),
               static_cast<uint32_t>(in[3])};
      for (int i = 0; i < n_out; ++i) out[i] = g.next();
      return kind == kRaw;
    }
    case kXorshift5: {
      Xorshift5 g{static_cast<uint32_t>(in[0]), static_cast<uint32_t>(in[1]), static_cast<uint32_t>(in[2]),
                  static_cast<uint32_t>(in[3]), static_cast<uint32_t>(in[4])};
      for (int i = 0; i < n_out; ++i) out[i] = g.next();
      return kind == kRaw;
    }
    case kCiXorSeq: {
      CiXorLane l = CiXorLane::defaults();
      for (int i = 0; i < n_out; ++i) out[i] = l.next_sequential();
      return kind == kRaw;
    }
    default: return false;
  }
}

}  // namespace ea::kat
