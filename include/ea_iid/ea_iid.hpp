// ea_iid as a library: SP 800-90B assessments of samples in memory or in files, in the
// process, with the results the command line writes (docs/library.md). Only standard C++
// types cross this header; one Assessor keeps its devices (GPU contexts, buffers) across
// calls. The library reads no environment and prints nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(EA_IID_BUILDING)
#define EA_IID_API __attribute__((visibility("default")))
#else
#define EA_IID_API
#endif

namespace ea_iid {

// "0.2.0 (commit ..., cpu|cuda)".
EA_IID_API std::string version();

// What an assessment computes and where it runs: the command line's options of the same
// names (README). Defaults are the command line's.
struct Options {
  std::string track = "auto";       // auto (IID tests, then the non-IID estimates if not IID), iid, non-iid
  int bits = 0;                     // bits per sample, 1-8; 0: inferred from the data
  std::optional<uint64_t> seed;     // the shuffles' seed; none: drawn from the OS (the result records it)
  std::string prng = "philox";      // --prng
  std::string shuffle = "bucket";   // --shuffle: bucket or fisher-yates (SP 800-90B 5.1's literal shuffle)
  uint32_t iterations = 10000;      // --iterations (other counts: exploratory)
  bool conditioned = false;         // -c (default -i)
  bool truncate_bitstring = false;  // -t
  bool early_exit = true;           // false: --no-early-exit
  bool all_tests = false;           // --all-tests
  bool until_decided = false;       // --until-decided
  std::string device = "auto";      // auto, cpu, gpu
  std::vector<int> gpus{0};         // --gpu
  int threads = 0;                  // CPU threads; 0: every core
  std::optional<double> restart;    // --restart H_I: restart tests of 1000 x 1000 samples for this claim
  // How samples are stored and made symbols (docs/sample-formats.md): --sample-format (u8,
  // u16le, u16be, u32le, u32be, text), --select-bits (a mask, "auto" or "auto:B"; "": none),
  // --bin B (1-8; 0: none). Files, and the bytes assess() takes, are read in this format.
  std::string sample_format = "u8";
  std::string select_bits;
  int bin = 0;
  std::string command_line = "ea_iid library";  // the record's "commandline"
  // The fields the caller gave, by key ("bits", "iterations", "track", ...: the Python
  // module's keywords). Empty: a field counts as given when it differs from its default. A
  // field given where it changes nothing is refused, as on the command line (iterations=10000
  // with track="non-iid", bits=0).
  std::vector<std::string> given;
};

// One assessment's result. `json` is the record `ea_iid -o` writes for the same input and
// options (docs/json.md); the other fields repeat what callers check most.
struct Result {
  std::string json;
  std::string label;        // the file, or the label given to samples in memory
  std::string verdict;      // IID, not IID, inconclusive, non-IID estimate, restart passed/failed, skipped, error
  double min_entropy = 0;   // bits per sample; NaN where none was assessed
  bool for_compliance = false;
  uint64_t seed = 0;        // the user seed the run used
  std::string error_kind;   // an error's kind (input, degenerate, device, ...); "" otherwise
  std::string error_message;
};

// An assessment that could not be made (assess, assess_file): the command line's message and
// its errorKind ("usage", "input", "degenerate", "device", "interrupted", ...).
class EA_IID_API Error : public std::runtime_error {
 public:
  Error(std::string kind, const std::string& message) : std::runtime_error(message), kind_(std::move(kind)) {}
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

// One source of a manifest (assess_manifest).
struct SourceResult {
  std::string json;          // the source's line of `ea_iid source --manifest --jsonl`: its record and "run"
  std::string name;          // primaryNoiseSource
  std::string result;        // passed, FAILED (a step failed), untested (no restart data), error
  double entropy = 0;        // the entropy that stands (flow.claimed); NaN for an error
  std::string unit;          // "per sample", or per the conditioning's output ("per 256-bit output")
  bool for_compliance = false;
  std::string error_kind;    // an error's kind; "" otherwise
  std::string error_message;
};

// The continuous health tests (SP 800-90B 4.4; `ea_iid health-tests`): the command line's
// options of the same names, under its rules (seed, device and gpus apply to simulate alone,
// threads to simulate or files, sample_format, select_bits and bin to files).
struct HealthOptions {
  double h = 0;                      // H: the claimed min-entropy per sample (> 0, at most the bits)
  std::string alpha = "2^-20";       // each test's false-positive rate: "2^-N" or a decimal
  int bits = 0;                      // bits per sample, 1-8 (1: a binary source); 0: not given
  uint64_t simulate = 0;             // the Monte Carlo check's samples (0: none; at least 1e9 for a check)
  std::optional<uint64_t> seed;      // with simulate; none: drawn from the OS (the record has it)
  std::string device = "auto";       // with simulate: auto, cpu, gpu
  std::vector<int> gpus{0};          // with simulate: one GPU's index
  int threads = 0;                   // CPU threads; 0: every core (the result does not depend on it)
  std::string sample_format = "u8";  // how the files are read (Options' fields of the same names)
  std::string select_bits;
  int bin = 0;
  std::string command_line = "ea_iid library";  // the record's "commandline"
  std::vector<std::string> given;    // as Options::given
};

// The health tests' result (health_tests).
struct HealthResult {
  std::string json;     // the record `ea_iid health-tests ... -o` writes (type HealthTests, docs/json.md)
  bool failed = false;  // either test failed on some file
};

// A conditioning component's output entropy (SP 800-90B 3.1.5; `ea_iid conditioning`), under
// its rules: h_prime or conditioned (one of them) for a non-vetted component, neither for a
// vetted one; conditioned_iid and bits only with conditioned. The numbers h_in and h_prime
// are text, read as NIST's ea_conditioning reads its arguments (strtold rounded toward zero).
struct ConditioningOptions {
  std::string kind = "vetted";   // "vetted" (3.1.5.1) or "non-vetted" (3.1.5.2)
  int64_t n_in = 0;              // input bits per conditioned output (1 to 2^24)
  int64_t n_out = 0;             // output bits (1 to n_in)
  int64_t nw = 0;                // narrowest internal width (1 to 2^24)
  std::string h_in;              // entropy of the n_in input bits, e.g. "800" or "0.5"
  std::string h_prime;           // non-vetted: h', entropy per bit of the output ("": not given)
  std::string conditioned;       // non-vetted: h' from this file of conditioned output ("": none)
  bool conditioned_iid = false;  // with conditioned: h' from its MCV estimate alone (NIST's -c iid)
  std::optional<int> bits;       // with conditioned: its bits per sample, 1-8 (none: inferred)
  std::string command_line = "ea_iid library";  // the record's "commandline"
};

// A conditioning component's result (conditioning).
struct ConditioningResult {
  std::string json;  // the record `ea_iid conditioning ... -o` writes (type Conditioning, docs/json.md)
  double h_out = 0;  // the entropy credited to the output, in bits
};

// One input of assess_many: a file (path), or samples in memory (a label names them): bytes
// (as assess), or values wider than a byte (as assess_values) when `values` is not empty.
struct Input {
  std::string path;
  std::vector<uint8_t> samples;  // used when path and values are empty
  std::vector<uint32_t> values;  // used when path is empty and this is not
  std::string label = "samples";
};

class EA_IID_API Assessor {
 public:
  Assessor();
  ~Assessor();
  Assessor(const Assessor&) = delete;
  Assessor& operator=(const Assessor&) = delete;

  // Samples, one per byte; with a sample_format other than u8, the bytes a file of that
  // format holds (`count` bytes), read as assess_file reads it. Throws Error (bad options,
  // input, degenerate data, a device failure, cancel()).
  Result assess(const uint8_t* samples, size_t count, const Options& options = {}, const std::string& label = "samples");
  // Samples wider than a byte (an ADC's codes, counter deltas), made symbols by the options'
  // select_bits or bin. options.sample_format must be u16le, u16be, u32le or u32be: each value
  // must fit its width, and the record's SHA-256 is of the values stored in that layout (so it
  // equals the SHA-256 of the same samples written to a file of that format).
  Result assess_values(const uint32_t* values, size_t count, const Options& options,
                       const std::string& label = "samples");
  Result assess_file(const std::string& path, const Options& options = {});
  // Several inputs, `jobs` at once; on_item(index, result) for each as results come, in input
  // order, on the calling thread. An input's error is its Result (verdict "error"). Options
  // errors throw.
  void assess_many(std::vector<Input> inputs, const Options& options, int jobs,
                   const std::function<void(size_t, const Result&)>& on_item);
  // Every source of a manifest (docs/manifest.md: {"sources": [{"primaryNoiseSource": ...,
  // "rawNoisePath": ...}, ...]}) through the flow of `ea_iid source`, `jobs` sources at once:
  // one result per source, in manifest order, each `json` the line `ea_iid source --manifest
  // --jsonl` writes for it (its record and "run"). on_source(index, result), when given, gets
  // each as it is delivered (in order, on the calling thread). A source that cannot be assessed
  // is its result (verdict "error"). Options: seed, prng, shuffle, iterations, until_decided, device,
  // gpus, threads, command_line; the settings a manifest gives per source (track: iidClaim,
  // bits: bitsPerSample, restart: restartTestPath) and those `ea_iid source` does not take
  // (conditioned, truncate_bitstring, all_tests, early_exit) throw Error("usage"), as a
  // manifest that is not valid does (naming the source and field) and the rules refuse.
  std::vector<SourceResult> assess_manifest(const std::string& path, const Options& options = {}, int jobs = 1,
                                            const std::function<void(size_t, const SourceResult&)>& on_source = {});
  // The Repetition Count Test's and the Adaptive Proportion Test's cutoffs for options.h, both
  // tests run over the samples of `files`, and with options.simulate their Monte Carlo check.
  // Throws Error: "usage" (a refused setting), "input" or "degenerate" (a file), "device",
  // "interrupted" (cancel()).
  HealthResult health_tests(const HealthOptions& options, const std::vector<std::string>& files = {});
  // A conditioning component's output entropy, with h' given or from a file of its conditioned
  // output. Throws Error: "usage" (a refused setting or number), "input" or "degenerate" (the
  // file), "interrupted" (cancel()).
  ConditioningResult conditioning(const ConditioningOptions& options);
  // From any thread: the call in progress (from its first step) stops between rounds and
  // throws Error("interrupted") unless every result was already delivered; a call that has
  // not begun is not affected. Calls on one Assessor from several threads run one at a time.
  void cancel();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The shuffling generators: a JSON array of {name, fullName, streams, forCompliance, caveat}.
EA_IID_API std::string list_prngs_json();

}  // namespace ea_iid
