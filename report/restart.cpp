// The restart tests' reports: our text, NIST ea_restart's -v -v -v text (--format nist),
// and the JSON (NIST's restart fields plus ours).
#include <cinttypes>

#include "report.hpp"

namespace ea {

using nlohmann::ordered_json;

namespace {

const char* passed_failed(bool p) { return p ? "Passed" : "Failed"; }

const char* cutoff_name(CutoffMethod m) { return m == CutoffMethod::Exact ? "exact" : "simulation"; }

// NIST ea_restart's validation lines, both claims (from its -v level up).
void print_nist_restart_validation(std::FILE* f, const RestartAssessment& r, int level) {
  if (level < 1) return;
  std::fprintf(f, "\nH_r: %f\nH_c: %f\nH_I: %f\n\n", r.h_r, r.h_c, r.h_i);
  if (!r.validation_passed()) {
    std::fprintf(f, "*** min(H_r, H_c) < H_I/2, Validation Testing Failed ***\n");
    return;
  }
  std::fprintf(f, "Validation Test Passed...\n\n");
  std::fprintf(f, "min(H_r, H_c, H_I): %f\n\n", r.result());
}

// NIST ea_restart -n (a non-IID claim) at its verbosity `level` after the sanity check.
void print_nist_restart_non_iid(std::FILE* f, const RestartAssessment& r, int level) {
  print_nist_restart_estimates(f, *r.row_estimates, *r.column_estimates, r.width, level);
  print_nist_restart_validation(f, r, level);
}

// NIST ea_restart -i (an IID claim) after the sanity check, at its verbosity `level`: each
// family's lines for the rows then the columns, then one line for both (levels 1-2 "** ...",
// 3 and more "...: Passed"); the level-3 MCV values at level 3 only.
void print_nist_restart_iid(std::FILE* f, const RestartAssessment& r, int level) {
  const Assessment& rows = *r.rows;
  const Assessment& cols = *r.columns;
  const bool chi = rows.chi_square_passed() && cols.chi_square_passed();
  const bool lrs = rows.lrs.passed() && cols.lrs.passed();
  const bool perm = rows.permutation.passed() && cols.permutation.passed();
  auto family = [&](const char* short_name, const char* long_name, bool passed) {
    if (level == 1 || level == 2) {
      std::fprintf(f, "** %s %s\n\n", passed_failed(passed), short_name);
    } else if (level > 2) {
      std::fprintf(f, "%s: %s\n", long_name, passed_failed(passed));
    }
  };
  if (level == 1 || level == 2) std::fprintf(f, "Calculating baseline statistics...\n");
  if (level > 0) std::fprintf(f, "\nRunning IID tests...\n\nRunning Most Common Value Estimate...\n");
  for (const Assessment* a : {&rows, &cols}) {
    if (level == 2) nist_mcv_line_v(f, "Literal", *a->h_original);
    if (level == 3) nist_mcv_lines(f, *a->h_original);
    if (level > 1) {
      std::fprintf(f, "\tMost Common Value Estimate (%s) = %f / %d bit(s)\n", a == &rows ? "Rows" : "Cols",
                   a->h_original->entropy, r.width);
    }
  }
  for (const Assessment* a : {&rows, &cols}) {
    if (level == 2) nist_chi_square_lines_v(f, *a);
    if (level > 2) nist_chi_square_lines(f, *a);
  }
  family("chi square tests", "Chi square tests", chi);
  for (const Assessment* a : {&rows, &cols}) {
    if (level == 2) nist_lrs_lines_v(f, *a);
    if (level > 2) nist_lrs_lines(f, *a);
  }
  family("length of longest repeated substring test", "Length of longest repeated substring test", lrs);
  for (const Assessment* a : {&rows, &cols}) {
    if (level == 2) nist_permutation_block_v(f, *a);
    if (level > 2) nist_permutation_block(f, *a);
  }
  family("IID permutation tests", "IID permutation tests", perm);
  print_nist_restart_validation(f, r, level);
}

// NIST ea_restart's text at its verbosity `level` (0 with -q, 1 + the -v count), line for
// line (for -i only the columns' permutation block differs by design: NIST repeats the rows
// there, docs/validation.md).
void print_nist_restart(std::FILE* f, const RestartAssessment& r, int level) {
  if (level > 1) {
    std::fprintf(f, "Opening file: '%s' (SHA-256 hash %s)\n", r.path.c_str(), r.sha256.c_str());
    std::fputs(mapping_line(r.mapping).c_str(), f);
  }
  // NIST's reader prints this at every level.
  if (r.narrower_than_given) std::fprintf(f, "Warning: Symbols appear to be narrower than described.\n");
  if (level > 1) {
    std::fprintf(f, "Loaded %" PRIu64 " samples made up of %d distinct %d-bit-wide symbols.\n", r.samples, r.alphabet,
                 r.width);
    if (r.translated) std::fprintf(f, "\nSymbols have been translated.\n\n");
  }
  std::fprintf(f, "H_I: %f\n", r.h_i);  // at every level, -q included
  if (level > 0) {
    std::fprintf(f, "ALPHA: %.17g, X_cutoff: %d\n", r.alpha, r.x_cutoff);
    std::fprintf(f, "X_max: %d\n", r.counts.x_max());
  }
  if (!r.sanity_passed()) {
    if (level > 0) std::fprintf(f, "\n*** Restart Sanity Check Failed ***\n");
    return;
  }
  if (level > 1) std::fprintf(f, "\nRestart Sanity Check Passed...\n");
  if (r.claim == RestartClaim::NonIid) {
    print_nist_restart_non_iid(f, r, level);
    return;
  }
  print_nist_restart_iid(f, r, level);
}

// One data set's IID tests in a line.
void part_line(std::FILE* f, const char* name, const Assessment& a, double h, const ReportOptions& o) {
  std::fprintf(f, "%s: MCV %f; chi-square %s, LRS %s, permutation tests %s", name, h,
               a.chi_square_failed() ? "failed" : a.chi_square_evaluable() ? "passed" : "not evaluable",
               a.lrs.passed() ? "passed" : "failed", a.permutation.passed() ? "passed" : "failed");
  std::fprintf(f, " (seed %" PRIu64 ", %u permutations, %s)\n", a.seed, a.permutation.fast_permutations,
               a.device.c_str());
  if (o.verbose >= 1) {
    for (int t = 0; t < kNumTests; ++t) {
      const auto& c = a.permutation.counters[t];
      if (!a.permutation.ran[t]) continue;
      if (o.verbose < 2 && a.permutation.test_passed(t)) continue;  // -v: the failed ones
      std::fprintf(f, "  %-22s %24.17g %7u %7u %7u  %s\n", test_name(t), a.original.v[t], c.c[0], c.c[1], c.c[2],
                   a.permutation.test_passed(t) ? "passed" : "FAILED");
    }
  }
}

// A non-IID claim's estimates: a line per estimator with the rows' and the columns' values.
void non_iid_parts(std::FILE* f, const RestartAssessment& r, const ReportOptions& o) {
  const NonIidEstimates& rows = *r.row_estimates;
  const NonIidEstimates& cols = *r.column_estimates;
  estimate_table_line(f, "non-IID estimate (bits per sample)", "rows", "columns");
  for (int e = 0; e < kNonIidEstimators; ++e) {
    const auto which = static_cast<NonIidEstimator>(e);
    const auto& a = rows.literal[static_cast<size_t>(e)];
    const auto& b = cols.literal[static_cast<size_t>(e)];
    if (!a && !b) continue;
    estimate_table_line(f, std::string(estimator_nist_name(which)) + " (" + estimator_section(which) + ")", estimate_cell(a),
                        estimate_cell(b));
    for (const auto* est : {&a, &b}) {
      if (*est && !(*est)->evaluated && o.verbose >= 1) {
        std::fprintf(f, "    %s not evaluated: %s\n", est == &a ? "rows" : "columns", (*est)->reason.c_str());
      }
    }
  }
  auto lowest = [](const NonIidEstimates& x) -> std::string {
    return x.lowest ? std::string(" (") + estimator_nist_name(x.lowest->first) + ")" : " (the bits per sample)";
  };
  std::fprintf(f, "H_r: %f%s\nH_c: %f%s\n", r.h_r, lowest(rows).c_str(), r.h_c, lowest(cols).c_str());
}

}  // namespace

void print_restart_text(std::FILE* f, const RestartAssessment& r, const ReportOptions& o) {
  if (o.quiet) return;
  if (o.nist_level >= 0) {  // run as ea_restart
    print_nist_restart(f, r, o.nist_level);
    return;
  }
  // --format nist: an IID claim at NIST's -v -v -v (what it always printed); a non-IID claim
  // at NIST's level of as many -v (-v -v -v: our -v -v -v text after NIST's -v -v).
  if (o.nist_format || o.verbose >= 3) {
    print_nist_restart(f, r, r.claim == RestartClaim::Iid ? 4 : std::min(3, 1 + o.verbose));
    if (o.nist_format) return;
  } else {
    std::fprintf(f, "%s: %" PRIu64 " samples, %d-bit, %d distinct symbols: 1000 restarts x 1000 samples\n",
                 r.path.c_str(), r.samples, r.width, r.alphabet);
    std::fputs(mapping_line(r.mapping).c_str(), f);
    if (o.verbose >= 1) std::fprintf(f, "SHA-256: %s\n", r.sha256.c_str());
    std::fprintf(f, "H_I: %f (%s claim)\n", r.h_i, restart_claim_name(r.claim));
    std::fprintf(f, "Sanity check: X_max %d (rows %d, columns %d), X_cutoff %d (alpha %.17g, %s", r.counts.x_max(),
                 r.counts.x_r, r.counts.x_c, r.x_cutoff, r.alpha, cutoff_name(r.cutoff_method));
    if (r.cutoff_method == CutoffMethod::Simulation) {
      std::fprintf(f, ", %" PRIu64 " rounds, seed %" PRIu64, r.cutoff_simulations, r.cutoff_seed);
    }
    std::fprintf(f, "): %s\n", r.sanity_passed() ? "passed" : "FAILED");
    if (r.tested()) {
      if (r.rows) {
        part_line(f, "Rows", *r.rows, r.h_r, o);
        part_line(f, "Columns", *r.columns, r.h_c, o);
      } else {
        non_iid_parts(f, r, o);
      }
      std::fprintf(f, "Validation: min(H_r, H_c) = %f %s H_I/2 = %f: %s\n", std::min(r.h_r, r.h_c),
                   r.validation_passed() ? ">=" : "<", r.h_i / 2, r.validation_passed() ? "passed" : "FAILED");
      if (r.validation_passed()) std::fprintf(f, "min(H_r, H_c, H_I): %f\n", r.result());
    }
  }
  if (o.timing) std::fprintf(f, "Timing: total %.3f s\n", r.seconds);
  std::fprintf(f, "Verdict: restart tests %s", check_name(r.check()));
  const auto failed = r.failures();
  if (!failed.empty()) {
    std::fprintf(f, " (failed:");
    for (size_t k = 0; k < failed.size(); ++k) std::fprintf(f, "%s %s", k ? "," : "", failed[k].c_str());
    std::fprintf(f, ")");
  }
  if (r.check() == Check::Passed) std::fprintf(f, "; min(H_r, H_c, H_I) = %f bits per sample", r.result());
  if (!r.for_compliance()) std::fprintf(f, " [NOT FOR COMPLIANCE]");
  std::fprintf(f, "\n");
}

namespace {

// NIST ea_restart -n's test cases: each estimator that ran, with H of the rows and of the
// columns; "Overall" only when the validation passed.
ordered_json non_iid_test_cases(const RestartAssessment& r) {
  ordered_json tcs = ordered_json::array();
  for (int e = 0; e < kNonIidEstimators; ++e) {
    const auto& a = r.row_estimates->literal[static_cast<size_t>(e)];
    const auto& b = r.column_estimates->literal[static_cast<size_t>(e)];
    if (!a || !b) continue;
    ordered_json tc;
    const bool binary_only = e >= 1 && e <= 3;
    tc["dataWordSize"] = binary_only ? 1.0 : static_cast<double>(r.width);
    if (b->evaluated) tc["h_c"] = b->entropy;
    if (a->evaluated) tc["h_r"] = a->entropy;
    tc["testCaseDesc"] = estimator_test_case_desc(static_cast<NonIidEstimator>(e));
    tcs.push_back(tc);
  }
  if (r.validation_passed()) {  // NIST writes "Overall" only then
    ordered_json tc;
    tc["h_c"] = r.h_c;
    tc["h_i"] = r.h_i;
    tc["h_r"] = r.h_r;
    tc["testCaseDesc"] = "Overall";
    tcs.push_back(tc);
  }
  return tcs;
}

}  // namespace

ordered_json restart_json(const RestartAssessment& r, const ReportOptions& o) {
  // NIST ea_restart: -1 with its message when the sanity check or the validation fails.
  std::string message;
  if (!r.sanity_passed()) {
    message = "Restart Sanity Check Failed.";
  } else if (!r.validation_passed()) {
    message = "min(H_r, H_c) < H_I/2, Validation Testing Failed.";
  }
  ordered_json j = json_envelope(o, r.path, r.sha256, message.empty() ? 0 : -1, message.empty() ? nullptr : &message,
                                 track_name(Track::Restart));
  j["IID"] = r.claim == RestartClaim::Iid;  // NIST's field: false for -n
  ordered_json tcs = ordered_json::array();
  if (r.row_estimates) tcs = non_iid_test_cases(r);
  if (r.rows) {
    ordered_json tc;
    tc["testCaseDesc"] = "Overall";
    tc["h_r"] = r.h_r;
    tc["h_c"] = r.h_c;
    tc["h_i"] = r.h_i;
    tc["mean"] = r.rows->base.mean;
    tc["median"] = r.rows->base.median;
    tc["passedChiSquareTests"] = r.rows->chi_square_passed() && r.columns->chi_square_passed();
    tc["passedLongestRepeatedSubstringTest"] = r.rows->lrs.passed() && r.columns->lrs.passed();
    tc["passedIidPermutationTests"] = r.rows->permutation.passed() && r.columns->permutation.passed();
    ordered_json results = ordered_json::array();
    for (const Assessment* a : {&*r.rows, &*r.columns}) {
      for (int i = 0; i < 3; ++i) {
        ordered_json row;
        row["iteration"] = i;
        for (int t = 0; t < kNumTests; ++t) {
          row[test_json_key(t)] = a->permutation.ran[t] ? ordered_json(a->permutation.counters[t].c[i]) : ordered_json(nullptr);
        }
        results.push_back(row);
      }
    }
    tc["permutationTestResults"] = results;  // rows' C0, C1, C2, then the columns'
    tcs.push_back(tc);
  }
  j["testCases"] = tcs;
  j["schemaVersion"] = kSchemaVersion;
  const Check c = r.check();
  j["verdict"] = {{"passed", c == Check::Passed}, {"result", check_name(c)}, {"failed", r.failures()}};
  j["forCompliance"] = r.for_compliance();
  j["trackChoice"] = track_choice_name(r.settings.track);
  j["input"] = input_facts_json(r, -1, {});
  ordered_json rs;
  rs["claim"] = restart_claim_name(r.claim);
  rs["hI"] = r.h_i;
  rs["restarts"] = kRestarts;
  rs["samplesPerRestart"] = kRestartSamples;
  rs["alpha"] = r.alpha;
  rs["xCutoff"] = r.x_cutoff;
  rs["cutoffMethod"] = cutoff_name(r.cutoff_method);
  if (r.cutoff_method == CutoffMethod::Simulation) {
    rs["cutoffSimulations"] = r.cutoff_simulations;
    rs["cutoffSeed"] = std::to_string(r.cutoff_seed);
  } else {
    rs["cutoffSimulations"] = nullptr;
    rs["cutoffSeed"] = nullptr;
  }
  rs["xR"] = r.counts.x_r;
  rs["xC"] = r.counts.x_c;
  rs["xMax"] = r.counts.x_max();
  rs["sanityCheck"] = r.sanity_passed() ? "passed" : "failed";
  if (r.tested()) {
    rs["hR"] = r.h_r;
    rs["hC"] = r.h_c;
    rs["validation"] = r.validation_passed() ? "passed" : "failed";
    rs["result"] = r.result();
  } else {
    rs["hR"] = rs["hC"] = rs["validation"] = rs["result"] = nullptr;
  }
  j["restart"] = rs;
  j["rows"] = r.rows ? assessment_json(*r.rows, o) : ordered_json(nullptr);
  j["columns"] = r.columns ? assessment_json(*r.columns, o) : ordered_json(nullptr);
  // A non-IID claim: each data set's literal estimates, as the "nonIid" object of a
  // --non-iid record.
  j["rowEstimates"] = r.row_estimates ? non_iid_estimates_json(*r.row_estimates, r.width) : ordered_json(nullptr);
  j["columnEstimates"] = r.column_estimates ? non_iid_estimates_json(*r.column_estimates, r.width) : ordered_json(nullptr);
  j["timings"] = {{"total", r.seconds}};
  return j;
}

}  // namespace ea
