// Many results read together: how many items each IID test rejected, against how many an
// IID source gives by chance at the run's permutations and threshold, with a binomial
// p-value and a plain sentence. Made from the items' JSON records, so a batch, its resumed
// rows and a merge of shares are interpreted the same way (summary, JSON, CSV, HTML).
//
// The chance rates are computed from the rules, not assumed:
// - a permutation test with N permutations and threshold t rejects when C0+C1 <= t or
//   C1+C2 <= t; for exchangeable (IID) data the original's rank among the N+1 values is
//   uniform, so each side has probability at most (t+1)/(N+1) (exactly, for a statistic
//   without ties), the test at most 2(t+1)/(N+1): 12/10001 = 0.0012 at SP 800-90B's 10,000;
// - each chi-square test rejects when its p-value is below 0.001, LRS when Pr(X >= 1) is
//   below 0.001: 0.001 each (asymptotic);
// - an item is rejected when any test is: at most the sum of the rates of every test (the
//   union bound), whatever the tests' dependence. The item count's p-value uses that bound,
//   so it never overstates the evidence against IID.
// Each file is judged on its own count against its own bound: the files of one run need not
// come from one source, so the count of all of them together is a total, never a verdict on
// "the source" (a clean file pooled with a broken one would read as one source failing).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "permutation/counters.hpp"  // permutation_false_rejection_rate

namespace ea {

// P(X >= k) for X ~ Binomial(n, p).
double binomial_upper_tail(uint64_t n, uint64_t k, double p);

// The p-value below which the sentences call a count more than chance.
constexpr double kRejectionAlpha = 0.01;

struct TestRejections {
  std::string name;           // "chi-square independence", ..., the permutation tests' names
  uint64_t tested = 0;        // items where it ran (and could be evaluated)
  uint64_t rejected = 0;
  double rate = 0;            // its chance rate per item, at most
  double expected = 0;        // tested x rate
  double p_value = 1;         // P(at least `rejected` | IID), with `rate`
};

// One file's items (its blocks, or its one item) against chance.
struct FileRejections {
  std::string file;           // the rows' "filename"
  bool blocks = true;         // every item of it a block (--blocks): "blocks", else "items"
  uint64_t items = 0;         // its IID-track results
  uint64_t rejected = 0;      // of them "not IID"
  double item_rate = 0;       // an item's chance of "not IID", at most (the mean of its items')
  double expected = 0;        // at most this many by chance: its own bound
  double p_value = 1;         // P(at least `rejected` | IID), with `item_rate`
  bool more_than_chance() const { return p_value < kRejectionAlpha; }
};

struct Rejections {
  uint64_t items = 0;         // IID-track results read (errors, skips, non-IID and restart rows aside)
  uint64_t rejected = 0;      // of them "not IID"
  uint32_t iterations = 0, threshold = 0;  // the permutation rule (the first item's; see mixed)
  bool mixed = false;         // items with different --iterations: rates per item, counts summed
  double item_rate = 0;       // an item's chance of "not IID", at most
  double expected = 0;        // items x item_rate
  double p_value = 1;
  std::vector<TestRejections> tests;  // chi-square (2), LRS, the 19 permutation tests
  std::vector<FileRejections> files;  // per file, in the order of the rows
  // The pooled count's test (every item of every file IID); with several files read `files`.
  bool more_than_chance() const { return p_value < kRejectionAlpha; }
};

// Nothing when no row is an IID-track result.
std::optional<Rejections> count_rejections(const std::vector<nlohmann::ordered_json>& rows);

// One file: "9 of 256 blocks not IID; at most 6.6 expected by chance for IID data; p = 0.24:
// this file's blocks are consistent with IID" (or "more than chance explains: this file's
// blocks are likely not IID").
std::string file_rejections_sentence(const FileRejections& f);
// The run's sentence: its one file's (file_rejections_sentence), or with several files the
// total only: "In total, 3 files: 550 of 1000 items not IID; at most 192 expected by chance
// were every file IID; each file is judged on its own count (they need not share a source)".
std::string rejections_sentence(const Rejections& r);
// The per-test line: "excursion: 2 of 256 (at most 0.31 expected, p = 0.04)"; without the
// p-value (`judged` false) for a total over several files, which judges none of them.
std::string test_rejections_line(const TestRejections& t, bool judged = true);
nlohmann::ordered_json rejections_json(const Rejections& r);

// An expected count: "25.8", "6.6", "0.31".
std::string expectation_text(double e);
// "p = 0.24", "p = 0.0012", "p < 1e-12".
std::string p_value_text(double p);

}  // namespace ea
