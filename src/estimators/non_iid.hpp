// The non-IID track (SP 800-90B section 6.3): the ten min-entropy estimators, each one
// function over a span of symbols, computed as NIST ea_non_iid 1.1.8 computes them
// (docs/validation.md names where that departs from the text of SP 800-90B).
//
// Every estimator returns an Estimate: its min-entropy per symbol of its input (per bit for
// the bitstring), whether it could be evaluated, and its intermediate values in NIST's
// order with NIST's labels, so that the report layer prints NIST's -v -v text and our JSON
// from the same numbers. Nothing here prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/interrupt.hpp"

namespace ea {

enum class NonIidEstimator : int {
  MostCommon,   // 6.3.1
  Collision,    // 6.3.2 (binary input only)
  Markov,       // 6.3.3 (binary input only)
  Compression,  // 6.3.4 (binary input only)
  TTuple,       // 6.3.5
  Lrs,          // 6.3.6
  MultiMcw,     // 6.3.7
  Lag,          // 6.3.8
  MultiMmc,     // 6.3.9
  Lz78y,        // 6.3.10
};
constexpr int kNonIidEstimators = 10;

// NIST's name in its -v -v lines ("Most Common Value Estimate", "MultiMCW Prediction
// Estimate"), our JSON key ("mostCommonValue"), and the section of SP 800-90B ("6.3.1").
const char* estimator_nist_name(NonIidEstimator e);
const char* estimator_key(NonIidEstimator e);
const char* estimator_section(NonIidEstimator e);

// One intermediate value, as NIST prints it after "<Literal|Bitstring> <name>: ".
struct EstimateLine {
  enum class Kind {
    Integer,     // "%ld"
    Real,        // "%.17g"
    LongReal,    // "%.22Lg" (the t-tuple and LRS estimates compute in long double)
    Note,        // the label alone ("Found p.")
  };
  std::string label;
  Kind kind = Kind::Real;
  long double value = 0;
};

struct Estimate {
  NonIidEstimator which = NonIidEstimator::MostCommon;
  // false: the data cannot give this estimate (too few samples, no repeated string): it
  // does not take part in the minimum, and `reason` says why.
  bool evaluated = false;
  double entropy = 0;  // -log2 of the probability bound, per symbol of its input
  std::vector<EstimateLine> lines;
  std::string reason;
  // A line NIST prints without the label prefix (a warning, "t-Tuple estimate failed").
  std::string unlabelled;
  double seconds = 0;  // its computing time (t-tuple and LRS: the time of both)
};

// Binary estimators take bits as bytes (0 or 1; Markov and collision read any non-zero
// byte as 1, compression the lowest bit, as the reference does). `k` is the alphabet size
// of the symbols (2 for bits). `interrupt`: the caller's cancel flag (common/interrupt.hpp),
// looked at every 65,536 steps or so; once it is set the estimate throws Error{Interrupted}.
Estimate most_common_value_estimate(const uint8_t* s, size_t n, int k, Interrupt interrupt = nullptr);
Estimate collision_estimate(const uint8_t* bits, size_t n, Interrupt interrupt = nullptr);
Estimate markov_estimate(const uint8_t* bits, size_t n, Interrupt interrupt = nullptr);
// `threads`: how many threads its search may keep busy (the result is the same for any).
Estimate compression_estimate(const uint8_t* bits, size_t n, Interrupt interrupt = nullptr, int threads = 1);
// The counts the t-tuple and LRS estimates read, for t = 1 .. v (index 0 unused): the
// largest count of a t-tuple and the number of pairs of equal t-tuples (the sum of
// C(count, 2) over distinct t-tuples), v the longest repeated substring's length.
struct TupleCounts {
  // Given: from the LCPs of a SuffixLcpSource (the GPU's, cuda/api/gpu_suffixes.hpp).
  enum class Path { Windows, WindowsAndTies, SuffixArray, Given };
  Path path = Path::SuffixArray;  // how the suffix order and LCPs were found
  uint64_t v = 0;
  std::vector<uint64_t> most;
  std::vector<uint64_t> pairs;
};
// The LCPs of the sorted suffixes of s[0 .. n) in suffix order (lcp[r]: the LCP of the
// suffixes of ranks r - 1 and r; lcp[0] = 0), as another engine gives them: a value of
// kLongLcp or more is kLongLcp in `lcp` and the value itself the next of `long_lcps`.
constexpr uint8_t kLongLcp = 255;
struct SuffixLcps {
  std::vector<uint8_t> lcp;
  std::vector<uint32_t> long_lcps;  // in rank order
};
// Where the LCPs may come from instead of this layer's own sort (the pipeline passes the
// GPU's): SuffixLcps of s[0 .. n), or nullopt to leave them to the CPU.
using SuffixLcpSource = std::function<std::optional<SuffixLcps>(const uint8_t* s, size_t n, Interrupt interrupt)>;
// The reference formulation of a SuffixLcps: libdivsufsort's suffix array and its LCPs
// (stats/suffix_array.hpp), what another engine's must equal.
SuffixLcps suffix_lcps(const uint8_t* s, size_t n);
// The counts from given LCPs (Path::Given): the levels up to 16 / b symbols from the tuples
// counted directly, the others from the LCP intervals, as tuple_counts does.
TupleCounts tuple_counts_from_lcps(const uint8_t* s, size_t n, const SuffixLcps& lcps, Interrupt interrupt = nullptr);
// One suffix order and LCP for both: the source's where it gives them (Path::Given), else
// 64-bit keys of a suffix's first symbols and its start, radix-sorted (Path::Windows), the
// suffixes alike there ordered on their next windows (Path::WindowsAndTies), unless the data
// is so repetitive that libdivsufsort's suffix array is quicker; `suffix_array` forces the
// latter (the reference of the tests).
TupleCounts tuple_counts(const uint8_t* s, size_t n, bool suffix_array = false, Interrupt interrupt = nullptr,
                         const SuffixLcpSource& source = {});
// The t-tuple and LRS estimates from tuple_counts(). Returns {t-tuple, LRS}.
std::pair<Estimate, Estimate> tuple_estimates(const uint8_t* s, size_t n, bool suffix_array = false,
                                              Interrupt interrupt = nullptr, const SuffixLcpSource& source = {});
Estimate multi_mcw_estimate(const uint8_t* s, size_t n, int k, Interrupt interrupt = nullptr);
Estimate lag_estimate(const uint8_t* s, size_t n, int k, Interrupt interrupt = nullptr);
// Where the binary predictors' per-step states may come from instead of this layer's
// passes (the pipeline passes the GPU's, cuda/api/gpu_predictors.hpp); false leaves them to
// the CPU. MultiMMC: every order's `found` and `right` bits of n bits, as
// multi_mmc_order_bits gives them (non_iid_mmc_bits.hpp). LZ78Y: bit t - 17 of `hits` set
// where step t's prediction was made and right (t = 17 .. n - 1).
using MmcBitsSource = std::function<bool(const uint8_t* bits, size_t n, std::vector<uint64_t>& found,
                                         std::vector<uint64_t>& right, Interrupt interrupt)>;
using Lz78yBitsSource =
    std::function<bool(const uint8_t* bits, size_t n, std::vector<uint64_t>& hits, Interrupt interrupt)>;
// The counts another engine may give the estimates (each empty: the CPU's).
struct CountSources {
  SuffixLcpSource lcps;      // the t-tuple and LRS estimates
  MmcBitsSource mmc_bits;    // MultiMMC on bits (k = 2)
  Lz78yBitsSource lz78y_bits;  // LZ78Y on bits (k = 2)
  bool any() const { return lcps || mmc_bits || lz78y_bits; }
};
// `bits`: with k = 2, the source of the per-step states (none or false: the CPU's passes).
Estimate multi_mmc_estimate(const uint8_t* s, size_t n, int k, Interrupt interrupt = nullptr,
                            const MmcBitsSource& bits = {});
Estimate lz78y_estimate(const uint8_t* s, size_t n, int k, Interrupt interrupt = nullptr,
                        const Lz78yBitsSource& bits = {});
// LZ78Y's counts from the steps' hits as an Lz78yBitsSource gives them (n >= 18).
Estimate lz78y_from_hits(const std::vector<uint64_t>& hits, size_t n, int k);

// The predictors' common bound (SP 800-90B 6.3.7-6.3.10 step "min-entropy"): from the
// number of predictions N, the correct ones C and the longest run of correct ones
// (`longest_run`, the reference's r is longest_run + 1), with an alphabet of k symbols.
// Appends its lines (C, r, N, P_global, P_global', P_local) to `e` and sets e.entropy.
void prediction_estimate(Estimate& e, uint64_t correct, uint64_t predictions, uint64_t longest_run, int k);

// The reference's bisection for a decreasing function f on [low, high] where f(p) = target
// (utils.h in NIST's code): at most 1076 halvings; `fail` when the target leaves the bracket.
// ahead(lb, p, hb) is called before each f(p), p the midpoint of the bracket [lb, hb]: a
// caller may evaluate f there and at the next midpoints at once (the search is unchanged).
template <class F, class Ahead>
double decreasing_root(F f, double target, double low, double high, double fail, Ahead ahead);
template <class F>
double decreasing_root(F f, double target, double low, double high, double fail);

// Equal within 4 units in the last place, or DBL_EPSILON relative, or DBL_MIN absolute.
bool close_enough(double a, double b);

}  // namespace ea

#include "estimators/non_iid_root.hpp"

#include <array>
#include <optional>

#include "io/samples.hpp"

namespace ea {

// All the estimates of one data set, as NIST ea_non_iid makes them: on the literal symbols
// with -i (collision, Markov and compression only when there are two symbols), on the
// bitstring (each sample's `width` bits, most significant first) when there are more than
// two symbols or with -c; -t keeps the bitstring's first 1,000,000 bits.
struct NonIidEstimates {
  bool initial_entropy = true;   // -i (literal estimates); false: -c, the bitstring alone
  bool truncated = false;        // -t
  uint64_t bits = 0;             // the bitstring's length (0: no bitstring estimates)
  std::array<std::optional<Estimate>, kNonIidEstimators> literal, bitstring;  // the ones run
  double h_original = 0;   // min(width, literal estimates); with -i
  double h_bitstring = 1;  // min(1, bitstring estimates); with a bitstring
  double h_assessed = 0;   // min(width, H_original, width x H_bitstring)
  bool has_bitstring() const { return bits > 0; }
  // The estimate that sets h_assessed (and whether on the bitstring); none when the width does.
  std::optional<std::pair<NonIidEstimator, bool>> lowest;
};
constexpr uint64_t kTruncatedBits = 1000000;

// Runs the estimates of `d` on up to `threads` threads (each estimator, literal and
// bitstring, is one task). The same numbers for any thread count. `interrupt` set: every
// task stops within its next check and Error{Interrupted} is thrown (no estimates).
// `sources`: counts from another engine (the t-tuple and LRS estimates' LCPs, the binary
// predictors' states), none: the CPU's; with any, those tasks start first.
NonIidEstimates non_iid_estimates(const Dataset& d, bool initial_entropy, bool truncate_bitstring, int threads,
                                  Interrupt interrupt = nullptr, const CountSources& sources = {});

// The literal estimates alone (no bitstring, as with -i on any alphabet) of several data
// sets, all their estimates one pool of tasks on up to `threads` threads: what NIST
// ea_restart -n computes for the row and the column data sets. h_original = h_assessed =
// min(width, literal estimates); bits = 0.
std::vector<NonIidEstimates> literal_estimates(const std::vector<const Dataset*>& sets, int threads,
                                               Interrupt interrupt = nullptr);

// The bitstring of `d`: `width` bits per sample, most significant first, at most `max_bits`
// of them (0: all).
std::vector<uint8_t> bitstring_of(const Dataset& d, uint64_t max_bits);

}  // namespace ea
