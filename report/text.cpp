#include <algorithm>
#include <cinttypes>

#include "report.hpp"

namespace ea {

namespace {

const char* pass_fail(bool p) { return p ? "Passed" : "Failed"; }

void chi_line(std::FILE* f, const char* name, const ChiSquareResult& r) {
  std::fprintf(f, "Chi square %s: T = %.17g\n", name, r.statistic);
  std::fprintf(f, "Chi square %s: df = %ld\n", name, r.df);
  if (r.evaluable) {
    std::fprintf(f, "Chi square %s: P-value = %.17g\n", name, r.p_value);
  } else {
    std::fprintf(f, "Chi square %s: cannot be evaluated: not enough samples\n", name);
  }
}

const char* chi_status(const Assessment& a) {
  if (a.chi_square_failed()) return "Failed";
  if (!a.chi_square_evaluable()) return "cannot be evaluated: not enough samples";
  return "Passed";
}

void mcv_lines(std::FILE* f, const char* kind, const McvEstimate& m) {
  std::fprintf(f, "%s Most Common Value Estimate: Mode count = %" PRIu64 "\n", kind, m.mode);
  std::fprintf(f, "%s Most Common Value Estimate: p-hat = %.17g\n", kind, m.p_hat);
  std::fprintf(f, "%s Most Common Value Estimate: p_u = %.17g\n", kind, m.p_u);
  std::fprintf(f, "%s Most Common Value Estimate: min entropy = %.17g\n", kind, m.entropy);
}

bool shown_as_failed(const Assessment& a, int t) { return a.permutation.ran[t] && !a.permutation.test_passed(t); }

// Why a test has no counters: compression once another test failed (unless --all-tests),
// every test under --until-decided. NIST always runs all 19, so its table has no such row.
std::string not_run_text(const Assessment& a, int t) {
  const std::string note = a.permutation.compression_note;
  if (t == kNumFastTests && note.rfind("skipped: ", 0) == 0) return "not run: " + note.substr(9);
  if (t == kNumFastTests && note.rfind("not run", 0) == 0) return note;
  return a.settings.until_decided ? "not run (--until-decided)" : "not run";
}

// NIST's table of counters ("*" marks a failed test), and what follows it. A test that did
// not run says so on its row, where NIST prints its counters (never as counts of 0, which
// would read as a pass; docs/validation.md).
void counter_table(std::FILE* f, const Assessment& a) {
  std::fprintf(f, "\n\n                statistic  C[i][0]  C[i][1]  C[i][2]\n");
  std::fprintf(f, "----------------------------------------------------\n");
  for (int t = 0; t < kNumTests; ++t) {
    const auto& c = a.permutation.counters[t];
    if (!a.permutation.ran[t]) {
      std::fprintf(f, "%25s  %s\n", test_name(t), not_run_text(a, t).c_str());
      continue;
    }
    if (shown_as_failed(a, t)) {
      std::fprintf(f, "%24s*", test_name(t));
    } else {
      std::fprintf(f, "%25s", test_name(t));
    }
    std::fprintf(f, "%8u%8u%8u\n", c.c[0], c.c[1], c.c[2]);
  }
  std::fprintf(f, "(* denotes failed test)\n\n");
}

void unpermuted_lines(std::FILE* f, const Assessment& a) {
  for (int t = 0; t < kNumTests; ++t) {
    std::fprintf(f, "Permutation testing: Unpermuted result %s = %.22Lg\n", test_name(t),
                 static_cast<long double>(a.original.v[t]));
  }
}

}  // namespace

void nist_chi_square_lines(std::FILE* f, const Assessment& a) {
  chi_line(f, "independence", a.independence);
  chi_line(f, "goodness of fit", a.goodness_of_fit);
}

void nist_lrs_lines(std::FILE* f, const Assessment& a) {
  std::fprintf(f, "Literal Longest Repeated Substring results: P_col = %.22Lg\n", a.lrs.p_col);
  if (!a.lrs.trivially_passed) {
    std::fprintf(f, "Literal Longest Repeated Substring results: W = %" PRIu64 "\n", a.lrs.w);
    std::fprintf(f, "Literal Longest Repeated Substring results: Pr(X >= 1) = %.22Lg\n", a.lrs.pr_x_ge_1);
  }
}

void nist_permutation_block(std::FILE* f, const Assessment& a) {
  unpermuted_lines(f, a);
  counter_table(f, a);
}

void nist_mcv_lines(std::FILE* f, const McvEstimate& m) { mcv_lines(f, "Literal", m); }

void nist_mcv_line_v(std::FILE* f, const char* kind, const McvEstimate& m) {
  std::fprintf(f, "%s MCV Estimate: mode = %" PRIu64 ", p-hat = %.17g, p_u = %.17g\n", kind, m.mode, m.p_hat, m.p_u);
}

void nist_chi_square_lines_v(std::FILE* f, const Assessment& a) {
  for (const auto& [name, r] : {std::pair<const char*, const ChiSquareResult&>{"independence", a.independence},
                                std::pair<const char*, const ChiSquareResult&>{"goodness of fit", a.goodness_of_fit}}) {
    std::fprintf(f, "Chi square %s\n\tscore = %f\n\tdegrees of freedom = %ld\n\tp-value = %f\n\n", name, r.statistic, r.df,
                 r.p_value);
  }
}

void nist_lrs_lines_v(std::FILE* f, const Assessment& a) {
  std::fprintf(f, "Literal Longest Repeated Substring results\n\tP_col: %Lf\n", a.lrs.p_col);
  if (!a.lrs.trivially_passed) {
    std::fprintf(f, "\tLength of LRS: %" PRIu64 "\n\tPr(X >= 1): %Lf\n", a.lrs.w, a.lrs.pr_x_ge_1);
  }
}

void nist_permutation_block_v(std::FILE* f, const Assessment& a) {
  std::fprintf(f, "Beginning initial tests...\n\nInitial test results\n");
  for (int t = 0; t < kNumTests; ++t) std::fprintf(f, "%23s: %g\n", test_name(t), a.original.v[t]);
  std::fprintf(f, "\nBeginning permutation tests... these may take some time\n");
  counter_table(f, a);
}

namespace {

// The lines before the estimates. NIST prints the file and what was read at its -v and above
// (`header`), the narrower-symbols warning (its reader's, between the two header lines) and
// the short-data warning at every level; ours prints the header and no short-data warning
// (the compliance notes say it).
bool underflowed(const Assessment& a) { return a.independence.underflow || a.goodness_of_fit.underflow; }

void opening_lines(std::FILE* f, const Assessment& a, bool nist, bool header = true) {
  if (!nist && underflowed(a)) std::fprintf(f, "igamc: UNDERFLOW\n");  // NIST's: print_text
  if (header) {
    std::fprintf(f, "Opening file: '%s' (SHA-256 hash %s)", a.path.c_str(), a.sha256.c_str());
    if (a.subset) {
      std::fprintf(f, ", reading block %" PRIu64 " of size %" PRIu64, a.subset->index, a.subset->count);
    }
    std::fprintf(f, "\n");
    std::fputs(mapping_line(a.mapping).c_str(), f);
  }
  if (a.narrower_than_given) std::fprintf(f, "Warning: Symbols appear to be narrower than described.\n");
  if (header) {
    std::fprintf(f, "Loaded %" PRIu64 " samples of %d distinct %d-bit-wide symbols\n", a.samples, a.alphabet, a.width);
    if (a.h_bitstring) std::fprintf(f, "Number of Binary samples: %" PRIu64 "\n", a.bitstring_bits);
  }
  if (nist && a.samples < kMinSamples) {
    std::fprintf(f, "\n*** Warning: data contains less than %" PRIu64 " samples ***\n\n", kMinSamples);
  }
  if (header && a.translated) std::fprintf(f, nist ? "\nSamples have been translated\n" : "Samples have been translated\n");
}

// NIST ea_iid's H_original, H_bitstring and min(...) lines (or h') at its default and -v levels.
void nist_entropy_lines(std::FILE* f, const Assessment& a) {
  if (a.settings.initial_entropy) {
    std::fprintf(f, "H_original: %f\n", a.h_original ? a.h_original->entropy : 0.0);
    if (a.h_bitstring) {
      std::fprintf(f, "H_bitstring: %f\n", a.h_bitstring->entropy);
      std::fprintf(f, "min(H_original, %d X H_bitstring): %f\n", a.width, a.h_assessed);
    }
  } else {
    std::fprintf(f, "h': %f\n", a.h_bitstring ? a.h_bitstring->entropy : 0.0);
  }
}

// NIST ea_iid without -v (its verbose level 1): the entropy lines and a line per family of tests.
void print_nist_default(std::FILE* f, const Assessment& a) {
  opening_lines(f, a, true, false);
  std::fprintf(f, "Calculating baseline statistics...\n");
  nist_entropy_lines(f, a);
  std::fprintf(f, "** %s chi square tests\n\n", a.chi_square_passed() ? "Passed" : "Failed");
  std::fprintf(f, "** %s length of longest repeated substring test\n\n", pass_fail(a.lrs.passed()));
  std::fprintf(f, "** %s IID permutation tests\n\n", pass_fail(a.permutation.passed()));
}

// NIST ea_iid -v (its verbose level 2), line for line (progress aside).
void print_nist_v(std::FILE* f, const Assessment& a) {
  opening_lines(f, a, true);
  std::fprintf(f, "Calculating baseline statistics...\n");
  std::fprintf(f, "\tRaw Mean: %f\n\tMedian: %f\n\tBinary: %s\n\n", a.base.mean, a.base.median,
               a.binary ? "true" : "false");
  if (a.h_original) nist_mcv_line_v(f, "Literal", *a.h_original);
  if (a.h_bitstring) nist_mcv_line_v(f, "Bitstring", *a.h_bitstring);
  nist_entropy_lines(f, a);
  nist_chi_square_lines_v(f, a);
  std::fprintf(f, "** %s chi square tests\n\n", a.chi_square_passed() ? "Passed" : "Failed");
  nist_lrs_lines_v(f, a);
  std::fprintf(f, "** %s length of longest repeated substring test\n\n", pass_fail(a.lrs.passed()));
  nist_permutation_block_v(f, a);
  std::fprintf(f, "** %s IID permutation tests\n\n", pass_fail(a.permutation.passed()));
}

// The lines of NIST ea_iid -v -v -v, with the same labels and formats, plus counters. With
// `nist_level` 3 or 4 (--format nist -v -v, -v -v -v), NIST's output at that level line for
// line: its warning lines and its table instead of our counter lines, and at level 3 (only:
// its most_common prints at levels 2 and 3) the MCV lines.
void print_reference_lines(std::FILE* f, const Assessment& a, int nist_level) {
  const bool nist = nist_level > 0;
  opening_lines(f, a, nist);
  std::fprintf(f, "Raw Mean = %.17g\n", a.base.mean);
  std::fprintf(f, "Median = %.17g\n", a.base.median);
  std::fprintf(f, "Binary = %s\n", a.binary ? "true" : "false");
  if (nist_level == 3 && a.h_original) mcv_lines(f, "Literal", *a.h_original);
  if (nist_level == 3 && a.h_bitstring) mcv_lines(f, "Bitstring", *a.h_bitstring);
  if (a.h_bitstring) {
    std::fprintf(f, "H_bitstring = %.17g\n", a.h_bitstring->entropy);
    std::fprintf(f, "H_bitstring Per Symbol = %.17g\n", a.h_bitstring->entropy * a.width);
  }
  if (a.h_original) std::fprintf(f, "H_original = %.17g\n", a.h_original->entropy);
  std::fprintf(f, "Assessed min entropy: %.17g\n", a.h_assessed);
  nist_chi_square_lines(f, a);
  std::fprintf(f, "Chi square tests: %s\n", chi_status(a));
  nist_lrs_lines(f, a);
  std::fprintf(f, "Length of longest repeated substring test: %s\n", pass_fail(a.lrs.passed()));
  if (nist) {
    nist_permutation_block(f, a);
    std::fprintf(f, "IID permutation tests: %s\n", pass_fail(a.permutation.passed()));
    return;
  }
  unpermuted_lines(f, a);
  std::fprintf(f, "Permutation testing: seed = %" PRIu64 " (from --seed %" PRIu64 " and the samples)\n", a.seed,
               a.settings.seed);
  std::fprintf(f, "Permutation testing: compression test on %s\n", a.compression_device.c_str());
  for (int t = 0; t < kNumTests; ++t) {
    const auto& c = a.permutation.counters[t];
    if (!a.permutation.ran[t]) {
      std::fprintf(f, "Permutation testing: counters %s: not run\n", test_name(t));
    } else {
      std::fprintf(f, "Permutation testing: counters %s: C0 = %u, C1 = %u, C2 = %u (%s)\n", test_name(t), c.c[0],
                   c.c[1], c.c[2], pass_fail(a.permutation.test_passed(t)));
    }
  }
  std::fprintf(f, "IID permutation tests: %s\n", a.permutation.passed() ? "Passed" : "Failed");
}

// Our text, in parts: the input and its estimates; chi-square and LRS; the permutation
// tests (their table at -v); the times (--timing); the verdict and the compliance notes.
void our_estimate_lines(std::FILE* f, const Assessment& a, const ReportOptions& o) {
  std::fprintf(f, "%s: %" PRIu64 " samples, %d-bit, %d distinct symbols", a.path.c_str(), a.samples, a.width,
               a.alphabet);
  if (a.subset) std::fprintf(f, " (block %" PRIu64 " of %" PRIu64 " samples)", a.subset->index, a.subset->count);
  std::fprintf(f, "\n");
  std::fputs(mapping_line(a.mapping).c_str(), f);
  if (o.verbose >= 1) {
    std::fprintf(f, "SHA-256: %s\n", a.sha256.c_str());
    std::fprintf(f, "Mean %.6f, median %.6f%s\n", a.base.mean, a.base.median, a.binary ? ", binary" : "");
  }
  if (a.h_original) std::fprintf(f, "H_original: %f\n", a.h_original->entropy);
  if (o.verbose >= 1) {
    // The estimates behind them, with NIST -v's label and formats.
    if (a.h_original) {
      std::fprintf(f, "Literal MCV Estimate: mode = %" PRIu64 ", p-hat = %.17g, p_u = %.17g\n", a.h_original->mode,
                   a.h_original->p_hat, a.h_original->p_u);
    }
    if (a.h_bitstring) {
      std::fprintf(f, "Bitstring MCV Estimate: mode = %" PRIu64 ", p-hat = %.17g, p_u = %.17g\n", a.h_bitstring->mode,
                   a.h_bitstring->p_hat, a.h_bitstring->p_u);
    }
  }
  if (a.h_bitstring) std::fprintf(f, "H_bitstring: %f\n", a.h_bitstring->entropy);
  if (a.settings.initial_entropy && a.h_bitstring) {
    std::fprintf(f, "min(H_original, %d X H_bitstring): %f\n", a.width, a.h_assessed);
  } else if (!a.settings.initial_entropy) {
    std::fprintf(f, "h': %f\n", a.h_bitstring ? a.h_bitstring->entropy : 0.0);
  }
}

void our_test_lines(std::FILE* f, const Assessment& a, const ReportOptions& o) {
  if (o.verbose >= 1) {
    auto chi = [&](const char* name, const ChiSquareResult& r) {
      if (r.evaluable) {
        std::fprintf(f, "Chi-square %s: T = %.4f, df = %ld, p-value = %.6f (%s)\n", name, r.statistic, r.df, r.p_value,
                     pass_fail(r.passed()));
      } else {
        std::fprintf(f, "Chi-square %s: cannot be evaluated: not enough samples (df = %ld)\n", name, r.df);
      }
    };
    chi("independence", a.independence);
    chi("goodness of fit", a.goodness_of_fit);
  }
  std::fprintf(f, "Chi-square tests: %s\n", chi_status(a));
  if (o.verbose >= 1 && !a.lrs.trivially_passed) {
    std::fprintf(f, "LRS: P_col = %.6Lg, W = %" PRIu64 ", Pr(X >= 1) = %.6Lg\n", a.lrs.p_col, a.lrs.w, a.lrs.pr_x_ge_1);
  }
  std::fprintf(f, "Longest repeated substring test: %s\n", pass_fail(a.lrs.passed()));
}

void our_permutation_lines(std::FILE* f, const Assessment& a, const ReportOptions& o) {
  if (o.verbose >= 1) {
    const PrngInfo& p = prng_info(a.settings.prng);
    std::fprintf(f, "Permutation tests on %s%s, PRNG %s (--prng %s), seed %" PRIu64 " (from --seed %" PRIu64 ")\n",
                 a.device.c_str(), a.verified ? " (verified on the CPU)" : "", p.full_name, p.name, a.seed,
                 a.settings.seed);
    if (!a.shuffle.empty()) std::fprintf(f, "Shuffle: %s\n", a.shuffle.c_str());
    std::fprintf(f, "Compression test on %s\n", a.compression_device.c_str());
    std::fprintf(f, "  %-22s %24s %7s %7s %7s  %s\n", "statistic", "unpermuted", "C0", "C1", "C2", "result");
    for (int t = 0; t < kNumTests; ++t) {
      const auto& c = a.permutation.counters[t];
      std::fprintf(f, "  %-22s %24.17g", test_name(t), a.original.v[t]);
      if (a.permutation.ran[t]) {
        std::fprintf(f, " %7u %7u %7u  %s\n", c.c[0], c.c[1], c.c[2],
                     a.permutation.test_passed(t) ? "passed" : "FAILED");
      } else {
        std::fprintf(f, " %7s %7s %7s  not run\n", "-", "-", "-");
      }
    }
    std::fprintf(f, "  %u permutations for the statistical tests, %u for compression\n",
                 a.permutation.fast_permutations, a.permutation.compression_permutations);
  }
  if (!a.permutation.note.empty()) {
    std::fprintf(f, "Permutation tests: %s\n", a.permutation.note.c_str());
    return;
  }
  // "Failed: the failed tests" (up to 4 named, then +N), then the compression test's note.
  std::string failed;
  int named = 0, more = 0;
  for (int t = 0; t < kNumTests; ++t) {
    if (!shown_as_failed(a, t)) continue;
    if (named < 4) {
      failed += (named++ ? ", " : ": ") + std::string(test_name(t));
    } else {
      ++more;
    }
  }
  if (more) failed += ", +" + std::to_string(more);
  std::fprintf(f, "Permutation tests: %s%s", a.permutation.passed() ? "Passed" : "Failed", failed.c_str());
  if (!a.permutation.compression_note.empty())
    std::fprintf(f, "%scompression test %s", failed.empty() ? " (" : "; ", a.permutation.compression_note.c_str());
  std::fprintf(f, "%s\n", !a.permutation.compression_note.empty() && failed.empty() ? ")" : "");
}

void timing_lines(std::FILE* f, const Assessment& a) {
  const auto& t = a.timings;
  std::fprintf(f,
               "Timing: estimates %.3f s, chi-square %.3f s, LRS %.3f s, GPU set-up %.3f s, permutation tests %.3f s "
               "(device busy %.3f s), compression %.3f s, total %.3f s\n",
               t.estimates, t.chi_square, t.lrs, t.device_setup, t.permutation, t.device_busy, t.compression, t.total);
  if (!t.device_profile.empty()) std::fprintf(f, "Timing: %s\n", t.device_profile.c_str());
}

void verdict_lines(std::FILE* f, const Assessment& a, const ReportOptions& o) {
  Verdict v = a.verdict();
  std::fprintf(f, "Verdict: %s", verdict_name(v));
  if (v == Verdict::NotIid) {
    std::fprintf(f, " (failed:");
    auto fam = a.failed_families();
    for (size_t i = 0; i < fam.size(); ++i) std::fprintf(f, "%s %s", i ? "," : "", fam[i].c_str());
    std::fprintf(f, ")");
  } else if (v == Verdict::Inconclusive) {
    std::fprintf(f, " (no test failed, but not every test could be evaluated)");
  }
  if (v == Verdict::Iid) {
    std::fprintf(f, "; assessed min-entropy %.6f bits per sample\n", a.h_assessed);
  } else if (a.exploratory()) {
    // No advice from an exploratory run: it is not an SP 800-90B assessment either way.
    std::fprintf(f, "; exploratory run (--iterations %u), not an SP 800-90B assessment\n", a.settings.iterations);
  } else if (a.non_iid) {
    std::fprintf(f, "; the non-IID track's estimates follow (the IID-track estimate %.6f does not apply)\n",
                 a.h_assessed);
    print_non_iid_estimates(f, *a.non_iid, a.width, o);
    std::fprintf(f, "Assessed min-entropy: %.6f bits per sample (non-IID track)\n", a.min_entropy());
  } else {
    std::fprintf(f, "; the IID-track estimate (%.6f bits per sample) does not apply: use the non-IID track "
                    "(--non-iid)\n",
                 a.h_assessed);
  }
  for (const auto& why : a.compliance_issues()) std::fprintf(f, "NOT FOR COMPLIANCE: %s\n", why.c_str());
}

}  // namespace

bool warning_in_nist_text(const std::string& warning) {
  return warning == "Symbols appear to be narrower than described." ||
         warning.rfind("data contains less than ", 0) == 0;
}

void print_text_head(std::FILE* f, const Assessment& a, const ReportOptions& o) {
  our_estimate_lines(f, a, o);
  our_test_lines(f, a, o);
}

void print_text(std::FILE* f, const Assessment& a, const ReportOptions& o) {
  if (o.nist_level >= 0) {
    // NIST's text alone, at NIST's level (0: -q, 1: none, 2: -v, 3: -v -v, 4: -v -v -v).
    // Its Cephes line goes where NIST's goes (its standard error), so that the standard
    // output has NIST's lines in NIST's order (report_options.hpp).
    if (underflowed(a)) std::fprintf(o.nist_stderr ? o.nist_stderr : f, "igamc: UNDERFLOW\n");
    if (o.nist_level >= 3) {
      print_reference_lines(f, a, std::min(o.nist_level, 4));
    } else if (o.nist_level == 2) {
      print_nist_v(f, a);
    } else if (o.nist_level == 1) {
      print_nist_default(f, a);
    } else {
      opening_lines(f, a, true, false);  // -q: its warnings only
    }
    return;
  }
  if (o.quiet) return;
  if (o.verbose >= 3) {
    print_reference_lines(f, a, 0);
  } else {
    if (!o.head_shown) print_text_head(f, a, o);
    our_permutation_lines(f, a, o);
  }
  if (o.timing) timing_lines(f, a);
  verdict_lines(f, a, o);
}

}  // namespace ea
