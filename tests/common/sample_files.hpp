// The GPU tests' sample files (tests/gpu/test_gpu_suffixes.cpp, test_gpu_predictors.cpp): a
// file's bytes (empty where it cannot be read) and the bitstring of its samples (`width`
// bits each, most significant first).
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace ea::test {

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), {});
}

inline std::vector<uint8_t> bits_of(const std::vector<uint8_t>& s, int width) {
  std::vector<uint8_t> bits;
  bits.reserve(s.size() * static_cast<size_t>(width));
  for (uint8_t x : s)
    for (int i = width - 1; i >= 0; --i) bits.push_back(static_cast<uint8_t>((x >> i) & 1));
  return bits;
}

}  // namespace ea::test
