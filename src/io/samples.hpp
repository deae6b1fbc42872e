// Reading a sample file the way the reference tool does (one sample per byte).
#pragma once

#include <sys/types.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/sample_format.hpp"

namespace ea {

// The most samples one assessment can take: the suffix array of the LRS test
// (libdivsufsort's saidx_t) indexes with 32-bit signed integers.
constexpr uint64_t kMaxSamples = 2147483647;
// The most samples read from a stream (a pipe, a device) without a range: a stream that
// never ends (/dev/zero) is refused after 256 MiB, not after buffering 2 GiB. A range
// (SubsetSpec) reads up to kMaxSamples.
constexpr uint64_t kMaxStreamSamples = uint64_t{1} << 28;

// The -l INDEX,COUNT option: samples [INDEX*COUNT, INDEX*COUNT + COUNT) of the file.
struct SubsetSpec {
  uint64_t index = 0;
  uint64_t count = 0;
};



// What identifies one version of a regular file: a reader compares it before and after
// reading, so that a file rewritten meanwhile is an error, never a silent mix.
struct FileFingerprint {
  dev_t dev = 0;
  ino_t ino = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  std::string sha256;  // of the whole file (empty until hashed)
  bool operator==(const FileFingerprint& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime_ns == o.mtime_ns && ctime_ns == o.ctime_ns;
  }
};

// Reads a regular file once, hashing it (SHA-256), and returns its fingerprint; the
// batch's --blocks uses it so that each block reads only its own bytes. Throws Error{Input}.
FileFingerprint fingerprint_file(const std::string& path, const std::atomic<bool>* interrupt = nullptr);

// The file name that means standard input ("-"): read like a stream (no --allow-stream
// needed: the user asked for it), the shell's descriptor left as it was.
inline constexpr const char* kStdinPath = "-";

struct LoadOptions {
  int width = 0;                      // 0: inferred from the data
  std::optional<SubsetSpec> subset;   // -l / --blocks
  // Also read FIFOs, character devices and sockets (to their end, or to the end of the
  // -l subset); without it they are refused, never waited on.
  bool allow_stream = false;
  // Checked while reading (also while waiting on a stream): true throws Error{Interrupted}.
  const std::atomic<bool>* interrupt = nullptr;
  // The file's fingerprint, hashed earlier (fingerprint_file): only the subset is read,
  // and the file must still match it before and after.
  const FileFingerprint* known = nullptr;
  // Set to the SHA-256 of what was read as soon as it is known, so that an error about
  // the samples (too wide, one symbol) can still name the bytes it was about.
  std::string* sha256_read = nullptr;
  // How the samples are stored and made symbols (u8 as they are: NIST's reading).
  SampleInput sample_input;
  int threads = 1;  // for --select-bits auto's search (its result does not depend on it)
  // One value throughout is read (a Dataset of one symbol) instead of Error{Degenerate}: the
  // health tests scan a stuck source's samples, which is what their RCT is for.
  bool allow_one_symbol = false;
};

struct Dataset {
  std::string path;
  std::string sha256;             // of the whole file (or of the stream's bytes read), as read
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
  SampleMapping mapping;          // the capture's format and the rule that made `raw`

  size_t size() const { return raw.size(); }
  bool binary() const { return alphabet == 2; }
};

// The facts of an input that every result records (a base of each result kind, copied
// once from the data set by input_facts; the arrays are not kept).
struct InputFacts {
  std::string path, sha256;   // sha256: of the whole file (or the stream's bytes read)
  uint64_t samples = 0;
  int width = 0, alphabet = 0;
  bool binary = false, translated = false, narrower_than_given = false;
  std::optional<SubsetSpec> subset;
  SampleMapping mapping;      // the capture's format and the rule that made the symbols
};
InputFacts input_facts(const Dataset& d);

// Reads `path` once, hashing exactly the bytes read. Throws Error{Input} naming the file
// and the problem (missing, directory, not a regular file without allow_stream, empty,
// block past the end, more than kMaxSamples samples, changed while read, data wider than
// the width given, a single symbol), Error{Usage} for a width outside 1-8, or
// Error{Interrupted}.
Dataset load_dataset(const std::string& path, const LoadOptions& options);
Dataset load_dataset(const std::string& path, int width, const std::optional<SubsetSpec>& subset);

// Builds a dataset from samples in memory (tests, and the loader itself).
Dataset make_dataset(std::vector<uint8_t> samples, int width);

// "a FIFO (named pipe)", "a character device", "a folder", ... for messages about a path
// that is not a regular file.
std::string file_type_name(mode_t mode);

// SHA-256 of a file, lowercase hex (OpenSSL libcrypto).
std::string sha256_file(const std::string& path);

}  // namespace ea
