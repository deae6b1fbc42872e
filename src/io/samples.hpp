// Reading a sample file the way the reference tool does (one sample per byte).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ea {

// The -l INDEX,COUNT option: samples [INDEX*COUNT, INDEX*COUNT + COUNT) of the file.
struct SubsetSpec {
  uint64_t index = 0;
  uint64_t count = 0;
};

// Parses "INDEX,COUNT" (decimal, COUNT > 0); throws Error{Usage} with the offending text.
SubsetSpec parse_subset(const std::string& text);

struct Dataset {
  std::string path;
  std::string sha256;             // of the whole file, as the reference reports it
  uint64_t file_size = 0;
  std::optional<SubsetSpec> subset;

  std::vector<uint8_t> raw;       // samples as read (already within `width` bits)
  std::vector<uint8_t> symbols;   // translated: rank of each value among those present
  std::array<uint8_t, 256> raw_of{};  // symbol -> raw value
  int width = 0;                  // bits per symbol, 1..8
  bool width_given = false;
  bool narrower_than_given = false;  // data needs fewer bits than the width given
  int alphabet = 0;               // number of distinct values (k)
  bool translated = false;        // k < 2^width (the reference's "have been translated")
  uint8_t max_raw = 0;

  size_t size() const { return raw.size(); }
  bool binary() const { return alphabet == 2; }
};

// Reads `path`. width == 0 infers the width from the data. Throws Error{Input} naming the
// file and the problem (missing, directory, unreadable, empty, block past the end, data
// wider than the width given, a single symbol), or Error{Usage} for a width outside 1-8.
Dataset load_dataset(const std::string& path, int width, const std::optional<SubsetSpec>& subset);

// Builds a dataset from samples in memory (tests, and the loader itself).
Dataset make_dataset(std::vector<uint8_t> samples, int width);

// SHA-256 of a file, lowercase hex (OpenSSL libcrypto).
std::string sha256_file(const std::string& path);

}  // namespace ea
