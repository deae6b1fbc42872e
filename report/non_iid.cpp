// The non-IID track's reports: NIST ea_non_iid's text at its verbosity levels 1-3 (what
// `ea_non_iid` and --format nist print), our text, and the JSON (NIST's fields plus ours).
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "report.hpp"

namespace ea {

using nlohmann::ordered_json;

namespace {

using E = NonIidEstimator;

const EstimateLine* find(const Estimate& e, const char* label) {
  for (const auto& l : e.lines) {
    if (l.label == label) return &l;
  }
  return nullptr;
}
long double value(const Estimate& e, const char* label) {
  const EstimateLine* l = find(e, label);
  return l ? l->value : NAN;
}

// "%.17g" / "%.22Lg" / "%ld" as the reference prints each kind.
std::string format_value(const EstimateLine& l) {
  char buf[64];
  switch (l.kind) {
    case EstimateLine::Kind::Integer: std::snprintf(buf, sizeof buf, "%" PRId64, static_cast<int64_t>(l.value)); break;
    case EstimateLine::Kind::LongReal: std::snprintf(buf, sizeof buf, "%.22Lg", l.value); break;
    case EstimateLine::Kind::Real: std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(l.value)); break;
    case EstimateLine::Kind::Note: buf[0] = 0; break;
  }
  return buf;
}

const char* input_label(bool bitstring) { return bitstring ? "Bitstring" : "Literal"; }

// NIST's level 3: every intermediate value on a line of its own.
void print_level3(std::FILE* f, const Estimate& e, bool bitstring) {
  if (!e.unlabelled.empty()) std::fprintf(f, "%s\n", e.unlabelled.c_str());
  for (const auto& l : e.lines) {
    if (l.kind == EstimateLine::Kind::Note) {
      std::fprintf(f, "%s %s: %s\n", input_label(bitstring), estimator_nist_name(e.which), l.label.c_str());
    } else {
      std::fprintf(f, "%s %s: %s = %s\n", input_label(bitstring), estimator_nist_name(e.which), l.label.c_str(),
                   format_value(l).c_str());
    }
  }
}

// NIST's level 2: one line per estimate.
void print_level2(std::FILE* f, const Estimate& e, bool bitstring) {
  const char* in = input_label(bitstring);
  if (!e.unlabelled.empty()) std::fprintf(f, "%s\n", e.unlabelled.c_str());
  if (!e.evaluated) return;
  switch (e.which) {
    case E::MostCommon:
      std::fprintf(f, "%s MCV Estimate: mode = %" PRId64 ", p-hat = %.17g, p_u = %.17g\n", in,
                   static_cast<int64_t>(value(e, "Mode count")), static_cast<double>(value(e, "p-hat")),
                   static_cast<double>(value(e, "p_u")));
      break;
    case E::Collision:
    case E::Compression:
      std::fprintf(f, "%s %s: X-bar = %.17g, sigma-hat = %.17g, p = %.17g\n", in, estimator_nist_name(e.which),
                   static_cast<double>(value(e, "X-bar")), static_cast<double>(value(e, "sigma-hat")),
                   static_cast<double>(value(e, "p")));
      break;
    case E::Markov:
      std::fprintf(f,
                   "%s Markov Estimate: P_0 = %.17g, P_1 = %.17g, P_0,0 = %.17g, P_0,1 = %.17g, P_1,0 = %.17g, "
                   "P_1,1 = %.17g, p_max = %.17g\n",
                   in, static_cast<double>(value(e, "P_0")), static_cast<double>(value(e, "P_1")),
                   static_cast<double>(value(e, "P_{0,0}")), static_cast<double>(value(e, "P_{0,1}")),
                   static_cast<double>(value(e, "P_{1,0}")), static_cast<double>(value(e, "P_{1,1}")),
                   static_cast<double>(value(e, "p-hat_max")));
      break;
    case E::TTuple:
      std::fprintf(f, "%s t-Tuple Estimate: t = %" PRId64 ", p-hat_max = %.22Lg, p_u = %.22Lg\n", in,
                   static_cast<int64_t>(value(e, "t")), value(e, "p-hat_max"), value(e, "p_u"));
      break;
    case E::Lrs:
      std::fprintf(f, "%s LRS Estimate: u = %" PRId64 ", v = %" PRId64 ", p-hat = %.17Lg, p_u = %.17Lg\n", in,
                   static_cast<int64_t>(value(e, "u")), static_cast<int64_t>(value(e, "v")), value(e, "p-hat"),
                   value(e, "p_u"));
      break;
    default: {
      const char* name = estimator_nist_name(e.which);
      const long double n = value(e, "N"), c = value(e, "C"), r = value(e, "r");
      const double pg = static_cast<double>(value(e, "P_global'"));
      if (find(e, "P_local")) {
        std::fprintf(f, "%s %s: N = %" PRId64 ", Pglobal' = %.17g (C = %" PRId64 ") Plocal = %.17g (r = %" PRId64 ")\n",
                     in, name, static_cast<int64_t>(n), pg, static_cast<int64_t>(c),
                     static_cast<double>(value(e, "P_local")), static_cast<int64_t>(r));
      } else {
        std::fprintf(f, "%s %s: N = %" PRId64 ", Pglobal' = %.17g (C = %" PRId64 ") Plocal can't affect result (r = %" PRId64
                        ")\n",
                     in, name, static_cast<int64_t>(n), pg, static_cast<int64_t>(c), static_cast<int64_t>(r));
      }
    }
  }
}

// The reference's summary line after each estimate at level 2 ("\tLag Prediction Test
// Estimate (bit string) = 0.998402 / 1 bit(s)"); ea_restart's say " (Rows)" or " (Cols)"
// instead (`suffix`).
void print_summary_line(std::FILE* f, const Estimate& e, const char* suffix, bool bitstring, int width) {
  static const char* const kNames[] = {"Most Common Value Estimate",
                                       "Collision Test Estimate",
                                       "Markov Test Estimate",
                                       "Compression Test Estimate",
                                       "T-Tuple Test Estimate",
                                       "LRS Test Estimate",
                                       "Multi Most Common in Window (MultiMCW) Prediction Test Estimate",
                                       "Lag Prediction Test Estimate",
                                       "Multi Markov Model with Counting (MultiMMC) Prediction Test Estimate",
                                       "LZ78Y Prediction Test Estimate"};
  if (!e.evaluated) return;
  const int w = e.which == E::Collision || e.which == E::Markov || e.which == E::Compression ? 1 : width;
  std::fprintf(f, "\t%s%s = %f / %d bit(s)\n", kNames[static_cast<int>(e.which)], suffix, e.entropy, bitstring ? 1 : w);
}

void print_level2_summary(std::FILE* f, const Estimate& e, bool bitstring, int width) {
  print_summary_line(f, e, bitstring ? " (bit string)" : "", bitstring, width);
}

void print_opening(std::FILE* f, const NonIidAssessment& a) {
  if (a.subset) {
    std::fprintf(f, "Opening file: '%s' (SHA-256 hash %s), reading block %" PRIu64 " of size %" PRIu64 "\n",
                 a.path.c_str(), a.sha256.c_str(), a.subset->index, a.subset->count);
  } else {
    std::fprintf(f, "Opening file: '%s' (SHA-256 hash %s)\n", a.path.c_str(), a.sha256.c_str());
  }
  std::fputs(mapping_line(a.mapping).c_str(), f);
  // NIST's loader says it while reading, before the count.
  if (a.narrower_than_given) std::fprintf(f, "Warning: Symbols appear to be narrower than described.\n");
  std::fprintf(f, "Loaded %" PRIu64 " samples of %d distinct %d-bit-wide symbols\n", a.samples, a.alphabet, a.width);
}

}  // namespace

void print_nist_non_iid(std::FILE* f, const NonIidAssessment& a, int level) {
  const NonIidEstimates& x = a.estimates;
  if (level > 1) print_opening(f, a);
  if (level <= 1 && a.narrower_than_given) std::fprintf(f, "Warning: Symbols appear to be narrower than described.\n");
  if (level > 1 && x.has_bitstring()) std::fprintf(f, "Number of Binary Symbols: %" PRIu64 "\n", x.bits);
  if (a.samples < kMinSamples) std::fprintf(f, "\n*** Warning: data contains less than %" PRIu64 " samples ***\n\n", kMinSamples);
  if (level > 1 && a.alphabet < (1 << a.width)) std::fprintf(f, "\nSymbols have been translated.\n");
  const bool headers = level == 1 || level == 2;
  auto one = [&](int e, bool bitstring) {
    const auto& slot = bitstring ? x.bitstring[static_cast<size_t>(e)] : x.literal[static_cast<size_t>(e)];
    if (!slot) return;
    if (level == 3) {
      print_level3(f, *slot, bitstring);
    } else if (level == 2) {
      print_level2(f, *slot, bitstring);
      if (e != 4 && e != 5) print_level2_summary(f, *slot, bitstring, a.width);
    } else if (!slot->unlabelled.empty() && (e != 4 || level > 1)) {
      std::fprintf(f, "%s\n", slot->unlabelled.c_str());  // warnings print at every level
    }
  };
  for (int e = 0; e < kNonIidEstimators; ++e) {
    if (headers && e == 0) std::fprintf(f, "\nRunning non-IID tests...\n\nRunning Most Common Value Estimate...\n");
    if (headers && e == 1) std::fprintf(f, "\nRunning Entropic Statistic Estimates (bit strings only)...\n");
    if (headers && e == 4) std::fprintf(f, "\nRunning Tuple Estimates...\n");
    if (headers && e == 6) std::fprintf(f, "\nRunning Predictor Estimates...\n");
    if (e == 5) continue;  // printed with the t-tuple: one call makes both
    if (e == 4) {
      // Each input's t-tuple and LRS lines come together; at level 2 the reference's
      // summary lines follow: t-tuple bitstring, [literal block], t-tuple literal, LRS both.
      one(4, true);
      one(5, true);
      if (level == 2 && x.bitstring[4]) print_level2_summary(f, *x.bitstring[4], true, a.width);
      one(4, false);
      one(5, false);
      if (level == 2) {
        if (x.literal[4]) print_level2_summary(f, *x.literal[4], false, a.width);
        if (x.bitstring[5]) print_level2_summary(f, *x.bitstring[5], true, a.width);
        if (x.literal[5]) print_level2_summary(f, *x.literal[5], false, a.width);
      }
      continue;
    }
    one(e, true);
    one(e, false);
  }
  if (headers) {
    if (x.initial_entropy) {
      std::fprintf(f, "\nH_original: %f\n", x.h_original);
      if (a.alphabet > 2) {
        std::fprintf(f, "H_bitstring: %f\n", x.h_bitstring);
        std::fprintf(f, "min(H_original, %d X H_bitstring): %f\n", a.width,
                     std::min(x.h_original, a.width * x.h_bitstring));
      }
    } else {
      std::fprintf(f, "\nh': %f\n", x.h_bitstring);
    }
  } else if (level > 2) {
    if (x.has_bitstring()) {
      std::fprintf(f, "H_bitstring = %.17g\n", x.h_bitstring);
      std::fprintf(f, "H_bitstring Per Symbol = %.17g\n", x.h_bitstring * a.width);
    }
    if (x.initial_entropy) std::fprintf(f, "H_original = %.17g\n", x.h_original);
    std::fprintf(f, "Assessed min entropy: %.17g\n", x.h_assessed);
  }
}

const char* estimator_test_case_desc(NonIidEstimator e) {
  static const char* const kDesc[] = {"Most Common Value",
                                      "Collision Test (for bit strings only)",
                                      "Markov Test (for bit strings only)",
                                      "Compression Test (for bit strings only)",
                                      "T-Tuple Test",
                                      "LRS Test",
                                      "Multi Most Common in Window Test",
                                      "Lag Prediction Test",
                                      "Multi Markov Model with Counting Test (MultiMMC)",
                                      "LZ78Y Test"};
  return kDesc[static_cast<int>(e)];
}

void print_nist_restart_estimates(std::FILE* f, const NonIidEstimates& rows, const NonIidEstimates& cols, int width,
                                  int level) {
  // Each estimate's own lines: one line at level 2, its values at level 3, none otherwise.
  auto lines = [&](const Estimate& e) {
    if (level == 3) {
      print_level3(f, e, false);
    } else if (level == 2) {
      print_level2(f, e, false);
    } else if (!e.unlabelled.empty() && e.which == E::Lrs) {
      std::fprintf(f, "%s\n", e.unlabelled.c_str());  // the reference prints LRS's v < u at every level
    }
  };
  auto one = [&](int e, const NonIidEstimates& x, const char* suffix) {
    const auto& slot = x.literal[static_cast<size_t>(e)];
    if (!slot) return;
    lines(*slot);
    if (level >= 2) print_summary_line(f, *slot, suffix, false, width);
  };
  const bool binary = rows.literal[1].has_value();
  if (level == 1 || level == 2) std::fprintf(f, "Calculating baseline statistics...\n");
  for (int e = 0; e < kNonIidEstimators; ++e) {
    if (level >= 1 && e == 0) std::fprintf(f, "\nRunning non-IID tests...\n\nRunning Most Common Value Estimate...\n");
    if (level >= 1 && e == 1 && binary) std::fprintf(f, "\nRunning Entropic Statistic Estimates (bit strings only)...\n");
    if (level >= 1 && e == 4) std::fprintf(f, "\nRunning Tuple Estimates...\n");
    if (level >= 1 && e == 6) std::fprintf(f, "\nRunning Predictor Estimates...\n");
    if (e == 5) continue;
    if (e == 4) {
      // One call makes a data set's t-tuple and LRS: their lines come together, rows then
      // columns, and the four summary lines after them.
      for (const NonIidEstimates* x : {&rows, &cols}) {
        for (int t : {4, 5}) {
          if (x->literal[static_cast<size_t>(t)]) lines(*x->literal[static_cast<size_t>(t)]);
        }
      }
      if (level >= 2) {
        for (int t : {4, 5}) {
          const auto& a = rows.literal[static_cast<size_t>(t)];
          const auto& b = cols.literal[static_cast<size_t>(t)];
          if (a) print_summary_line(f, *a, " (Rows)", false, width);
          if (b) print_summary_line(f, *b, " (Cols)", false, width);
        }
      }
      continue;
    }
    one(e, rows, " (Rows)");
    one(e, cols, " (Cols)");
  }
}

namespace {

// One estimate in our JSON: its min-entropy, and its intermediate values under NIST's labels.
ordered_json estimate_json(const std::optional<Estimate>& e) {
  if (!e) return nullptr;
  ordered_json j;
  j["evaluated"] = e->evaluated;
  j["minEntropy"] = e->evaluated ? ordered_json(e->entropy) : ordered_json(nullptr);
  if (!e->evaluated) j["reason"] = e->reason;
  ordered_json values = ordered_json::object();
  std::vector<std::string> notes;
  for (const auto& l : e->lines) {
    if (l.kind == EstimateLine::Kind::Note) {
      notes.push_back(l.label);
    } else if (l.kind == EstimateLine::Kind::Integer) {
      values[l.label] = static_cast<int64_t>(l.value);
    } else {
      values[l.label] = static_cast<double>(l.value);
    }
  }
  j["values"] = values;
  j["notes"] = notes;
  return j;
}

// NIST ea_non_iid's eleven test cases, its keys in its (alphabetical) order.
ordered_json nist_test_cases(const NonIidAssessment& a) {
  const NonIidEstimates& x = a.estimates;
  ordered_json cases = ordered_json::array();
  for (int e = 0; e < kNonIidEstimators; ++e) {
    const auto& b = x.bitstring[static_cast<size_t>(e)];
    const auto& l = x.literal[static_cast<size_t>(e)];
    ordered_json tc = ordered_json::object();
    const bool use_b = b && b->evaluated, use_l = l && l->evaluated;
    if (e == 4 || e == 5) {
      if (use_b) tc[e == 4 ? "binTTupleRes" : "binLrsRes"] = b->entropy;
      if (e == 5 && use_l) tc["lrsRes"] = l->entropy;
    } else {
      if (use_b) tc["hBitstring"] = b->entropy;
      if (use_l) tc["hOriginal"] = l->entropy;
    }
    if (e == 0) {  // from the last MCV run: the literal one with -i
      const auto& last = l ? l : b;
      if (last && last->evaluated) {
        tc["mcvEstimateMode"] = static_cast<double>(value(*last, "Mode count"));
        tc["mcvEstimatePHat"] = static_cast<double>(value(*last, "p-hat"));
        tc["mcvEstimatePU"] = static_cast<double>(value(*last, "p_u"));
      }
    }
    if (e == 4 && use_l) tc["tTupleRes"] = l->entropy;
    tc["testCaseDesc"] = estimator_test_case_desc(static_cast<NonIidEstimator>(e));
    cases.push_back(tc);
  }
  ordered_json overall;
  overall["dataWordSize"] = static_cast<double>(a.width);
  overall["hAssessed"] = x.h_assessed;
  if (x.has_bitstring()) overall["hBitstring"] = x.h_bitstring;
  if (x.initial_entropy) overall["hOriginal"] = x.h_original;
  overall["testCaseDesc"] = "Overall";
  cases.push_back(overall);
  return cases;
}

}  // namespace

ordered_json non_iid_estimates_json(const NonIidEstimates& x, int width) {
  ordered_json j;
  j["mode"] = x.initial_entropy ? "initial (-i)" : "conditioned (-c)";
  j["bitstringTruncated"] = x.truncated;
  j["bitstringLength"] = x.bits;
  j["hOriginal"] = x.initial_entropy ? ordered_json(x.h_original) : ordered_json(nullptr);
  j["hBitstring"] = x.has_bitstring() ? ordered_json(x.h_bitstring) : ordered_json(nullptr);
  j["hBitstringPerSymbol"] = x.has_bitstring() ? ordered_json(x.h_bitstring * width) : ordered_json(nullptr);
  j["hAssessed"] = x.h_assessed;
  if (x.lowest) {
    j["lowest"] = {{"estimator", estimator_key(x.lowest->first)}, {"input", x.lowest->second ? "bitstring" : "literal"}};
  } else {
    j["lowest"] = nullptr;
  }
  ordered_json list = ordered_json::array();
  for (int e = 0; e < kNonIidEstimators; ++e) {
    const auto which = static_cast<NonIidEstimator>(e);
    list.push_back({{"estimator", estimator_key(which)},
                    {"section", estimator_section(which)},
                    {"literal", estimate_json(x.literal[static_cast<size_t>(e)])},
                    {"bitstring", estimate_json(x.bitstring[static_cast<size_t>(e)])}});
  }
  j["estimators"] = list;
  return j;
}

ordered_json non_iid_json(const NonIidAssessment& a, const ReportOptions& o, int64_t block) {
  ordered_json j = json_envelope(o, a.path, a.sha256, 0, nullptr, track_name(Track::NonIid));
  j["IID"] = false;  // the reference's field: ea_non_iid writes false
  j["testCases"] = nist_test_cases(a);
  j["schemaVersion"] = kSchemaVersion;
  j["assessedMinEntropy"] = a.estimates.h_assessed;
  j["forCompliance"] = a.for_compliance();
  j["complianceNotes"] = a.compliance_issues();
  j["input"] = input_facts_json(a, block, a.warnings);
  j["trackChoice"] = track_choice_name(a.settings.track);
  j["nonIid"] = non_iid_estimates_json(a.estimates, a.width);
  ordered_json per = ordered_json::object();  // each estimator's computing time, literal + bitstring
  for (int e = 0; e < kNonIidEstimators; ++e) {
    double t = 0;
    for (const auto* slot : {&a.estimates.literal[static_cast<size_t>(e)], &a.estimates.bitstring[static_cast<size_t>(e)]}) {
      if (*slot) t += (*slot)->seconds;
    }
    per[estimator_key(static_cast<NonIidEstimator>(e))] = t;
  }
  j["timings"] = {{"estimators", per}, {"total", a.seconds}};
  return j;
}

std::string estimate_cell(const std::optional<Estimate>& est) {
  if (!est) return "";
  if (!est->evaluated) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", est->entropy + 0.0);  // + 0.0: no "-0.000000"
  return buf;
}

void estimate_table_line(std::FILE* f, const std::string& name, const std::string& literal, const std::string& bitstring) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "  %-38s %12s %12s", name.c_str(), literal.c_str(), bitstring.c_str());
  std::string line = buf;
  line.erase(line.find_last_not_of(' ') + 1);
  std::fprintf(f, "%s\n", line.c_str());
}

void print_non_iid_estimates(std::FILE* f, const NonIidEstimates& x, int width, const ReportOptions& o) {
  estimate_table_line(f, "estimate (bits)", x.initial_entropy ? "per sample" : "", x.has_bitstring() ? "per bit" : "");
  for (int e = 0; e < kNonIidEstimators; ++e) {
    const auto which = static_cast<NonIidEstimator>(e);
    const auto& l = x.literal[static_cast<size_t>(e)];
    const auto& b = x.bitstring[static_cast<size_t>(e)];
    const std::string name = std::string(estimator_nist_name(which)) + " (" + estimator_section(which) + ")";
    estimate_table_line(f, name, estimate_cell(l), estimate_cell(b));
    for (const auto* est : {&l, &b}) {
      if (*est && !(*est)->evaluated && o.verbose >= 1) {
        std::fprintf(f, "    %s not evaluated: %s\n", est == &l ? "literal" : "bitstring", (*est)->reason.c_str());
      }
    }
  }
  if (x.initial_entropy) std::fprintf(f, "H_original: %.6f bits per sample\n", x.h_original);
  if (x.has_bitstring()) {
    std::fprintf(f, "H_bitstring: %.6f bits per bit (%d x H_bitstring = %.6f)\n", x.h_bitstring, width,
                 x.h_bitstring * width);
  }
  std::fprintf(f, "Non-IID min-entropy: %.6f bits per sample", x.h_assessed + 0.0);
  if (x.lowest) {
    std::fprintf(f, " (set by the %s %s, %s)\n", x.lowest->second ? "bitstring" : "literal",
                 estimator_nist_name(x.lowest->first), estimator_section(x.lowest->first));
  } else {
    std::fprintf(f, " (the bits per sample: no estimate is lower)\n");
  }
  // -v: each estimate's values as NIST's -v line; -v -v: every intermediate value on a line
  // of its own, as NIST's -v -v lines (-v -v -v prints NIST's whole text first instead).
  if (o.verbose >= 1 && o.verbose < 3) {
    for (int e = 0; e < kNonIidEstimators; ++e) {
      for (const bool bits : {true, false}) {
        const auto& slot = bits ? x.bitstring[static_cast<size_t>(e)] : x.literal[static_cast<size_t>(e)];
        if (!slot || !slot->evaluated) continue;
        if (o.verbose >= 2) {
          print_level3(f, *slot, bits);
        } else {
          print_level2(f, *slot, bits);
        }
      }
    }
  }
  if (o.timing) {
    std::fprintf(f, "Timing: each non-IID estimate (literal/bitstring):");
    for (int e = 0; e < kNonIidEstimators; ++e) {
      const auto& l = x.literal[static_cast<size_t>(e)];
      const auto& b = x.bitstring[static_cast<size_t>(e)];
      std::fprintf(f, "%s %s %.3f/%.3f s", e ? "," : "", estimator_key(static_cast<NonIidEstimator>(e)),
                   l ? l->seconds : 0.0, b ? b->seconds : 0.0);
    }
    std::fprintf(f, "\n");
  }
}

// Our text for --non-iid: the input, the estimates, what cannot stand for compliance.
void print_non_iid_text(std::FILE* f, const NonIidAssessment& a, const ReportOptions& o) {
  if (o.quiet) return;
  if (o.nist_level >= 0) {
    print_nist_non_iid(f, a, o.nist_level);
    return;
  }
  if (o.nist_format || o.verbose >= 3) {
    print_nist_non_iid(f, a, o.verbose >= 2 ? 3 : 2);
    if (o.nist_format) return;
  }
  const NonIidEstimates& x = a.estimates;
  std::string range;
  if (a.subset) {
    range = " (samples " + std::to_string(a.subset->index * a.subset->count) + " to " +
            std::to_string(a.subset->index * a.subset->count + a.samples - 1) + " of the file" +
            (a.samples < a.subset->count ? ", cut short by its end" : "") + ")";
  }
  std::fprintf(f, "%s: %" PRIu64 " samples%s, %d-bit, %d distinct symbols: non-IID track (SP 800-90B 6.3)%s\n",
               a.path.c_str(), a.samples, range.c_str(), a.width, a.alphabet,
               x.initial_entropy ? "" : ", conditioned (-c): the bitstring only");
  std::fputs(mapping_line(a.mapping).c_str(), f);
  print_non_iid_estimates(f, x, a.width, o);
  if (o.timing) std::fprintf(f, "Timing: %.3f s in all\n", a.seconds);
  for (const auto& why : a.compliance_issues()) std::fprintf(f, "NOT FOR COMPLIANCE: %s\n", why.c_str());
}

}  // namespace ea
