// The per-source report (ea_iid source): our text, the JSON (every step's own record inside
// it), and one self-contained HTML page a lab can attach to a submission.
#include <cfenv>
#include <cinttypes>
#include <cmath>
#include <cstdlib>

#include "files.hpp"
#include "report.hpp"
#include "settings_rules.hpp"

namespace ea {

using nlohmann::ordered_json;

namespace {

std::string fixed(double v, const char* f = "%.6f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v + 0.0);
  return buf;
}

ordered_json or_null(const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); }

const char* verdict_word(Verdict v) { return v == Verdict::Iid ? "IID" : v == Verdict::NotIid ? "not IID" : "inconclusive"; }

std::string claimed_unit(const SourceAssessment& a) {
  return a.spec.conditioning.empty() ? "bits per sample"
                                     : "bits per " + std::to_string(a.spec.conditioning.back().n_out) + "-bit output";
}

// A long double in its shortest form that reads back as the same value: the user's "0.9"
// for --h-prime 0.9, not NIST's 22 digits of the nearest long double (0.8999999999999999999783).
// h' was read rounded toward zero (as NIST's ea_conditioning reads it), so it is read back
// the same way: 0.3 is the long double just below 0.3, which a nearest read of "0.3" misses.
std::string shortest_text(long double v) {
  char buf[64];
  const int mode = std::fegetround();  // (printf rounds by the mode too: print, then read back)
  std::string out;
  for (int digits = 1; digits <= 21 && out.empty(); ++digits) {
    std::snprintf(buf, sizeof buf, "%.*Lg", digits, v);
    std::fesetround(FE_TOWARDZERO);
    if (std::strtold(buf, nullptr) == v) out = buf;
    std::fesetround(mode);
  }
  return out.empty() ? format_conditioning_number(v) : out;
}

std::string claimed_text(const SourceAssessment& a) {
  return a.spec.conditioning.empty() ? fixed(a.h_validated) : format_conditioning_number(a.claimed());
}

// flow.conditioning: one object per component of the chain, in sequence order.
ordered_json chain_json(const SourceAssessment& a) {
  if (a.spec.conditioning.empty()) return nullptr;
  ordered_json chain = ordered_json::array();
  for (size_t k = 0; k < a.spec.conditioning.size(); ++k) {
    const SourceConditioning& c = a.spec.conditioning[k];
    const ConditioningStep& step = a.conditioning.at(k);
    ordered_json cj = {{"sequencePosition", k + 1}, {"vetted", c.vetted}, {"nIn", c.n_in}, {"nOut", c.n_out},
                       {"nw", c.nw}, {"hIn", static_cast<double>(step.h_in)},
                       {"hInText", format_conditioning_number(step.h_in)}};
    cj["hOut"] = cj["hOutText"] = nullptr;
    if (step.assessed) {
      cj["hOut"] = static_cast<double>(step.assessed->result.h_out);
      cj["hOutText"] = format_conditioning_number(step.assessed->result.h_out);
    }
    chain.push_back(cj);
  }
  return chain;
}

// healthTests: the cutoffs of ea_iid health-tests for the entropy that stands (null: none).
ordered_json health_section_json(const SourceAssessment& a) {
  if (!a.health) return nullptr;
  ordered_json j;
  j["hFrom"] = a.health_from_h_i ? "hI" : "hValidated";
  const ordered_json cutoffs = health_cutoffs_json(*a.health);
  for (auto it = cutoffs.begin(); it != cutoffs.end(); ++it) j[it.key()] = *it;
  return j;
}

}  // namespace

ordered_json source_json(const SourceAssessment& a, const ReportOptions& o) {
  ordered_json j = json_envelope(o, a.spec.samples, a.sha256, 0, nullptr, "Source");
  j["schemaVersion"] = kSchemaVersion;
  j["source"] = a.spec.name;
  // None where no step draws random numbers (--track non-iid): a seed nothing used.
  j["userSeed"] = draws_random_numbers(a.settings) ? ordered_json(std::to_string(a.settings.seed)) : ordered_json(nullptr);
  ordered_json files = ordered_json::array();
  files.push_back({{"role", "sequential"}, {"path", a.path}, {"sha256", a.sha256}, {"samples", a.samples}});
  if (!a.mapping.input.is_default()) files.back()["symbols"] = mapping_json(a.mapping)["summary"];
  if (a.restart) {
    const RestartAssessment& r = *a.restart->restart();
    files.push_back({{"role", "restart"}, {"path", r.path}, {"sha256", r.sha256}, {"samples", r.samples}});
    if (!r.mapping.input.is_default()) files.back()["symbols"] = mapping_json(r.mapping)["summary"];
  }
  for (size_t k = 0; k < a.conditioning.size(); ++k) {
    if (!a.conditioning[k].assessed || !a.conditioning[k].assessed->conditioned) continue;
    const NonIidAssessment& c = *a.conditioning[k].assessed->conditioned;
    files.push_back({{"role", "conditioned"}, {"path", c.path}, {"sha256", c.sha256}, {"samples", c.samples},
                     {"sequencePosition", k + 1}});
  }
  j["files"] = files;
  ordered_json flow;
  flow["bitsPerSample"] = a.width;
  flow["trackChoice"] = track_choice_name(a.settings.track);
  flow["verdict"] = a.verdict ? ordered_json(verdict_word(*a.verdict)) : ordered_json(nullptr);
  flow["track"] = a.iid ? "IID" : "non-IID";
  flow["hOriginal"] = or_null(a.h_original);
  flow["hBitstring"] = or_null(a.h_bitstring);
  flow["hAssessed"] = a.h_assessed;
  flow["hSubmitter"] = a.spec.h_submitter ? ordered_json(*a.spec.h_submitter) : ordered_json(nullptr);
  flow["hI"] = a.h_i;
  if (a.restart) {
    const RestartAssessment& r = *a.restart->restart();
    flow["restart"] = {{"claim", restart_claim_name(r.claim)},
                       {"sanityCheck", r.sanity_passed() ? "passed" : "failed"},
                       {"xMax", r.counts.x_max()},
                       {"xCutoff", r.x_cutoff},
                       {"hR", r.tested() ? ordered_json(r.h_r) : ordered_json(nullptr)},
                       {"hC", r.tested() ? ordered_json(r.h_c) : ordered_json(nullptr)},
                       {"validation", r.tested() ? ordered_json(r.validation_passed() ? "passed" : "failed") : ordered_json(nullptr)},
                       {"result", check_name(a.restart->check())}};
  } else {
    flow["restart"] = nullptr;
  }
  flow["hValidated"] = a.h_validated;
  flow["conditioning"] = chain_json(a);
  flow["claimed"] = static_cast<double>(a.claimed());
  flow["claimedText"] = claimed_text(a);
  flow["claimedUnit"] = claimed_unit(a);
  j["flow"] = flow;
  j["healthTests"] = health_section_json(a);
  j["passed"] = a.passed();
  j["failed"] = a.failures();
  j["forCompliance"] = a.compliance_issues().empty();
  j["complianceNotes"] = a.compliance_issues();
  ordered_json steps;
  steps["sequential"] = result_json(a.sequential, a.spec.samples, -1, o);
  steps["estimates"] = a.estimates ? result_json(*a.estimates, a.spec.samples, -1, o) : ordered_json(nullptr);
  steps["restart"] = a.restart ? result_json(*a.restart, *a.spec.restart_data, -1, o) : ordered_json(nullptr);
  ordered_json conditioning = a.conditioning.empty() ? ordered_json(nullptr) : ordered_json::array();
  for (const ConditioningStep& step : a.conditioning) {
    conditioning.push_back(step.assessed ? conditioning_json(*step.assessed, o) : ordered_json(nullptr));
  }
  steps["conditioning"] = conditioning;
  j["steps"] = steps;
  j["timings"] = {{"total", a.seconds}};
  return j;
}

namespace {

// Step 3: each component of the chain, h_in from what stands before it.
void print_chain_text(std::FILE* f, const SourceAssessment& a) {
  const size_t n = a.spec.conditioning.size();
  for (size_t k = 0; k < n; ++k) {
    const SourceConditioning& c = a.spec.conditioning[k];
    const ConditioningStep& step = a.conditioning.at(k);
    const ConditioningAssessment* prev = k && a.conditioning[k - 1].assessed ? &*a.conditioning[k - 1].assessed : nullptr;
    const std::string before = k == 0 ? fixed(a.h_validated)
                               : prev ? format_conditioning_number(prev->result.h_out)
                                      : std::string("0");
    const uint32_t per = k == 0 ? static_cast<uint32_t>(a.width) : a.spec.conditioning[k - 1].n_out;
    std::fprintf(f, "3%s. %s conditioning component: n_in %" PRIu32 ", n_out %" PRIu32 ", nw %" PRIu32
                    ", h_in = %s x %" PRIu32 " / %" PRIu32 " = %s\n",
                 n > 1 ? ("." + std::to_string(k + 1)).c_str() : "", c.vetted ? "vetted" : "non-vetted", c.n_in, c.n_out,
                 c.nw, before.c_str(), c.n_in, per, format_conditioning_number(step.h_in).c_str());
    if (step.assessed) {
      const ConditioningResult& r = step.assessed->result;
      std::fprintf(f, "   Output_Entropy %s", format_conditioning_number(r.output_entropy).c_str());
      if (!c.vetted) std::fprintf(f, "; h' %s", shortest_text(r.input.h_prime).c_str());
      std::fprintf(f, "; h_out %s\n", format_conditioning_number(r.h_out).c_str());
    } else {
      std::fprintf(f, "   not computed: no entropy stands before it\n");
    }
  }
}

// The health tests' cutoffs for the entropy that stands (4.4).
void print_health_step_text(std::FILE* f, const SourceAssessment& a) {
  if (!a.health) return;
  const HealthCutoffs& c = a.health->cutoffs;
  std::fprintf(f, "Health tests (4.4), alpha = %s, for %s bits per sample (%s):\n", health_alpha_text(c.alpha).c_str(),
               fixed(c.h).c_str(), a.health_from_h_i ? "H_I: the restart tests failed" : "the entropy that stands");
  std::fprintf(f, "   Repetition Count Test C = %" PRIu64 " (false positive per sample %s); Adaptive Proportion Test W = %" PRIu32
                  ", C = %" PRIu64 "%s (per window %s; with the window's first sample counted %s, C = %" PRIu64
                  " keeps it at most alpha)\n",
               c.rct.cutoff, health_probability_text(c.rct.false_positive).c_str(), c.apt.window, c.apt.cutoff,
               c.apt.can_fail() ? "" : ", cannot fail", health_probability_text(c.apt.false_positive).c_str(),
               health_probability_text(c.apt.false_positive_first_counted).c_str(), c.apt.cutoff_corrected);
  for (const std::string& n : a.health->notes) std::fprintf(f, "   Note: %s\n", n.c_str());
}

}  // namespace

void print_source_text(std::FILE* f, const SourceAssessment& a, const ReportOptions& o) {
  if (o.quiet) return;
  std::fprintf(f, "Noise source %s (SP 800-90B 3.1)", a.spec.name.c_str());
  if (draws_random_numbers(a.settings)) std::fprintf(f, ", seed %" PRIu64, a.settings.seed);
  std::fprintf(f, "\n");
  std::fprintf(f, "1. %s: %" PRIu64 " samples, %d-bit, SHA-256 %s\n", a.path.c_str(), a.samples, a.width,
               a.sha256.c_str());
  if (!a.mapping.input.is_default()) std::fprintf(f, "   %s", mapping_line(a.mapping).c_str());
  if (a.verdict) {
    std::string failed;  // which families failed ("chi-square", "permutation", ...)
    if (const Assessment* seq = a.sequential.iid()) {
      for (const auto& fam : seq->failed_families()) failed += (failed.empty() ? " (failed: " : ", ") + fam;
    }
    if (!failed.empty()) failed += ")";
    std::fprintf(f, "   IID tests: %s%s, so the %s track", verdict_word(*a.verdict), failed.c_str(), a.iid ? "IID" : "non-IID");
  } else {
    std::fprintf(f, "   the non-IID track (--track non-iid: no IID tests)");
  }
  if (a.h_original) std::fprintf(f, "; H_original %s", fixed(*a.h_original).c_str());
  if (a.h_bitstring) std::fprintf(f, "; H_bitstring %s per bit", fixed(*a.h_bitstring).c_str());
  std::fprintf(f, "\n   H_I = min(H_original, %d x H_bitstring%s) = %s bits per sample\n", a.width,
               a.spec.h_submitter ? (", H_submitter " + fixed(*a.spec.h_submitter)).c_str() : "", fixed(a.h_i).c_str());
  if (a.restart) {
    const RestartAssessment& r = *a.restart->restart();
    std::fprintf(f, "2. %s: restart tests of H_I for %s claim, SHA-256 %s\n", r.path.c_str(),
                 r.claim == RestartClaim::Iid ? "an IID" : "a non-IID", r.sha256.c_str());
    std::fprintf(f, "   sanity check: X_max %d, X_cutoff %d: %s", r.counts.x_max(), r.x_cutoff,
                 r.sanity_passed() ? "passed" : "FAILED");
    if (r.tested()) {
      std::fprintf(f, "; H_r %s, H_c %s; validation %s", fixed(r.h_r).c_str(), fixed(r.h_c).c_str(),
                   r.validation_passed() ? "passed" : "FAILED");
    }
    std::fprintf(f, "\n   restart tests %s: %s bits per sample stand\n", check_name(a.restart->check()),
                 fixed(a.h_validated).c_str());
  } else {
    std::fprintf(f, "2. no restart data: H_I stands untested (SP 800-90B 3.1.4 requires the restart tests)\n");
  }
  print_chain_text(f, a);
  print_health_step_text(f, a);
  std::fprintf(f, "Result: %s; %s %s", !a.passed() ? "FAILED" : a.restart ? "passed" : "untested (no restart tests)",
               claimed_text(a).c_str(), claimed_unit(a).c_str());
  for (const auto& x : a.failures()) std::fprintf(f, "; %s", x.c_str());
  std::fprintf(f, "\n");
  for (const auto& why : a.compliance_issues()) std::fprintf(f, "NOT FOR COMPLIANCE: %s\n", why.c_str());
  if (o.timing) std::fprintf(f, "Timing: %.3f s\n", a.seconds);
}

}  // namespace ea

namespace ea {

namespace {

std::string esc(const ordered_json& v) {
  if (v.is_null()) return "&ndash;";
  if (v.is_string()) return html_text(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", v.get<double>());
  return buf;
}

std::string row(const std::string& name, const std::string& value) {
  return "<tr><th>" + html_text(name) + "</th><td>" + value + "</td></tr>\n";
}

std::string sha_cell(const ordered_json& v) { return "<code>" + esc(v) + "</code>"; }

// A number the record holds as NIST's text (22 digits), in its shortest form (shortest_text).
std::string shortest_of(const ordered_json& nist_text) {
  if (!nist_text.is_string()) return esc(nist_text);
  const std::string t = nist_text.get<std::string>();
  char* end = nullptr;
  const long double v = std::strtold(t.c_str(), &end);
  return end && *end == '\0' && !t.empty() ? html_text(shortest_text(v)) : esc(nist_text);
}

// The result's words by its state: passed or failed, and whether every step can stand as an
// SP 800-90B assessment (a failure the rules produced is a result too, never a pass).
std::string compliance_words(bool passed, const ordered_json& notes) {
  if (notes.empty()) {
    return passed ? "<p>Every step can stand as an SP 800-90B assessment.</p>\n"
                  : "<p>Every step ran as SP 800-90B requires: the failure above is the assessment's result, and "
                    "no entropy claim stands.</p>\n";
  }
  std::string h = std::string("<p class=\"fail\">Not for compliance") + (passed ? "" : " (and failed, above)") + ":</p><ul>\n";
  for (const auto& x : notes) h += "<li>" + esc(x) + "</li>\n";
  return h + "</ul>\n";
}

// The record section: which JSON file holds every step's full record.
std::string record_section(const std::string& json_path) {
  std::string h = "<section id=\"record\"><h2>Record</h2><p>";
  if (json_path.empty()) {
    h += "No JSON report was written with this page (<code>-o FILE.json</code> writes one: every step's full record, "
         "NIST's fields and ours).";
  } else {
    h += "The JSON report " + (json_path == "-" ? std::string("written to standard output") : "<code>" + html_text(json_path) + "</code>") +
         ", written with this page, holds every step's full record (NIST's fields and ours: every statistic, p-value, "
         "counter and estimate).";
  }
  return h + "</p></section>\n";
}

std::string sequential_section(const ordered_json& r) {
  const ordered_json& flow = r["flow"];
  std::string h;
  // Step 1: the sequential data set.
  const ordered_json& seq = r["steps"]["sequential"];
  h += "<section id=\"sequential\"><h2>1. Sequential data set: track and initial entropy (3.1.1-3.1.3)</h2><table>\n";
  h += row("IID tests (section 5)", flow["verdict"].is_null() ? std::string("not run (--track non-iid): the non-IID track")
                                                              : esc(flow["verdict"]) + ", so the " + esc(flow["track"]) + " track");
  h += row("bits per sample", esc(flow["bitsPerSample"]));
  h += row("H_original (bits per sample)", esc(flow["hOriginal"]));
  h += row("H_bitstring (bits per bit)", esc(flow["hBitstring"]));
  h += row("min(H_original, bits × H_bitstring)", esc(flow["hAssessed"]));
  h += row("H_submitter", esc(flow["hSubmitter"]));
  h += row("H_I", "<b>" + esc(flow["hI"]) + "</b>");
  if (seq.contains("chiSquare")) {
    const auto& cs = seq["chiSquare"];
    for (const char* k : {"independence", "goodnessOfFit"}) {
      if (!cs.contains(k)) continue;
      h += row(std::string("chi-square ") + k, esc(cs[k].value("result", ordered_json())) + ": statistic " +
                                                   esc(cs[k].value("T", ordered_json())) + ", df " +
                                                   esc(cs[k].value("df", ordered_json())) + ", p-value " +
                                                   esc(cs[k].value("pValue", ordered_json())));
    }
  }
  if (seq.contains("longestRepeatedSubstring")) {
    h += row("LRS test", seq["longestRepeatedSubstring"].value("passed", false) ? "passed" : "<b>failed</b>");
  }
  // Permutation tests that did not run (--until-decided, source's default, once chi-square or
  // LRS decided the verdict) say so: never "failed" for tests that never ran.
  const bool perm_ran = seq.contains("permutation") && seq["permutation"].value("note", std::string()).empty();
  if (seq.contains("permutation")) {
    const ordered_json& p = seq["permutation"];
    std::string failed;
    for (const auto& t : p["tests"]) {
      if (t.value("result", std::string()) == "failed") failed += (failed.empty() ? "" : ", ") + esc(t["name"]);
    }
    std::string cell = !perm_ran                       ? esc(p["note"])
                       : p.value("passed", false)      ? std::string("passed")
                       : failed.empty()                ? "not passed: " + esc(p.value("compressionNote", ordered_json("")))
                                                       : "<b>failed</b>: " + failed;
    h += row("permutation tests", cell + "; seed " + esc(p["seed"]));
  }
  h += "</table>\n";
  if (perm_ran && seq["permutation"].contains("tests")) h += ranks_figure(seq) + "\n";
  const ordered_json& est = r["steps"]["estimates"].is_null() ? seq : r["steps"]["estimates"];
  if (est.contains("nonIid") && !est["nonIid"].is_null() && est["nonIid"].contains("estimators")) {
    h += "<h3>Non-IID estimates (6.3)</h3>\n" + estimates_figure(est["nonIid"], flow["bitsPerSample"].get<int>()) + "\n";
  }
  h += "</section>\n";
  return h;
}

std::string restart_section(const ordered_json& r) {
  const ordered_json& flow = r["flow"];
  std::string h;
  // Step 2: restart tests.
  h += "<section id=\"restart\"><h2>2. Restart tests (3.1.4)</h2>\n";
  if (flow["restart"].is_null()) {
    h += "<p class=\"fail\">No restart data: SP 800-90B requires the restart tests; H_I stands untested.</p>\n";
  } else {
    const ordered_json& rs = flow["restart"];
    const ordered_json& rr = r["steps"]["restart"];
    h += "<table>\n" + row("claim", esc(rs["claim"])) + row("H_I tested", esc(flow["hI"])) +
         row("sanity check (3.1.4.3)", esc(rs["sanityCheck"]) + ": X_max " + esc(rs["xMax"]) + ", X_cutoff " + esc(rs["xCutoff"])) +
         row("H_r (rows)", esc(rs["hR"])) + row("H_c (columns)", esc(rs["hC"])) +
         row("validation min(H_r, H_c) ≥ H_I/2", esc(rs["validation"])) + row("restart tests", esc(rs["result"])) +
         row("entropy that stands: min(H_r, H_c, H_I)", "<b>" + esc(flow["hValidated"]) + "</b>") + "</table>\n";
    for (const char* k : {"rowEstimates", "columnEstimates"}) {
      if (rr.contains(k) && !rr[k].is_null()) {
        h += std::string("<h3>") + (k[0] == 'r' ? "Row" : "Column") + " data set's non-IID estimates</h3>\n" +
             estimates_figure(rr[k], flow["bitsPerSample"].get<int>()) + "\n";
      }
    }
  }
  h += "</section>\n";
  return h;
}

// flow.conditioning or steps.conditioning as an array in sequence order (a record written
// before chains held one object: a chain of one).
ordered_json as_chain(const ordered_json& v) { return v.is_object() ? ordered_json::array({v}) : v; }

std::string conditioning_section(const ordered_json& r) {
  const ordered_json chain = as_chain(r["flow"]["conditioning"]);
  const ordered_json steps = as_chain(r["steps"]["conditioning"]);
  std::string h = std::string("<section id=\"conditioning\"><h2>3. Conditioning ") +
                  (chain.is_array() && chain.size() > 1 ? "chain" : "component") + " (3.1.5)</h2>\n";
  if (!chain.is_array()) return h + "<p>None: the entropy that stands is the noise source's per sample.</p>\n</section>\n";
  for (size_t k = 0; k < chain.size(); ++k) {
    const ordered_json& c = chain[k];
    if (chain.size() > 1) {
      h += "<h3>Component " + std::to_string(k + 1) + " of " + std::to_string(chain.size()) + "</h3>\n";
    }
    h += "<table>\n" + row("component", c["vetted"].get<bool>() ? "vetted (3.1.5.1)" : "non-vetted (3.1.5.2)") +
         row("n_in, n_out, nw", esc(c["nIn"]) + ", " + esc(c["nOut"]) + ", " + esc(c["nw"])) +
         row(k == 0 ? "h_in = entropy per sample × n_in / bits" : "h_in = previous h_out × n_in / previous n_out",
             esc(c["hInText"]));
    const ordered_json step = steps.is_array() && k < steps.size() ? steps[k] : ordered_json(nullptr);
    if (step.is_object()) {
      const ordered_json& cc = step["conditioning"];
      h += row("Output_Entropy", esc(cc["outputEntropyText"])) + row("h'", shortest_of(cc["hPrimeText"])) +
           row("MPFR precision (bits)", esc(cc["precisions"][0]) + (cc["precisions"].size() > 1 ? " and more" : ""));
    }
    h += row("h_out", "<b>" + esc(c["hOutText"]) + "</b>") + "</table>\n";
  }
  return h + "</section>\n";
}

// Step 4: the health tests' cutoffs (a record made before them has no healthTests: no section).
std::string health_section(const ordered_json& r) {
  if (!r.contains("healthTests")) return "";
  const ordered_json& t = r["healthTests"];
  std::string h = "<section id=\"health\"><h2>4. Health tests (4.4)</h2>\n";
  if (t.is_null()) return h + "<p>None: no entropy stands to compute their cutoffs for.</p>\n</section>\n";
  auto rate = [](const ordered_json& p) { return html_text(health_probability_text(p.get<double>())); };
  const ordered_json& rct = t["rct"];
  const ordered_json& apt = t["apt"];
  const std::string alpha = health_alpha_text(t["alpha"].get<double>());
  h += "<table>\n" +
       row("H (bits per sample)", esc(t["h"]) + (t["hFrom"] == "hI" ? " (H_I: the restart tests failed)" : " (the entropy that stands)")) +
       row("alpha", html_text(alpha)) +
       row("Repetition Count Test (4.4.1)", "cutoff C = " + esc(rct["cutoff"]) + "; false positive per sample " + rate(rct["falsePositive"])) +
       row("Adaptive Proportion Test (4.4.2)", "window W = " + esc(apt["window"]) + ", cutoff C = " + esc(apt["cutoff"]) +
                                                   (apt["canFail"].get<bool>() ? "" : " (cannot fail)") + "; false positive per window " +
                                                   rate(apt["falsePositive"])) +
       row("APT, the window's first sample counted", "false positive per window " + rate(apt["falsePositiveFirstCounted"]) +
                                                         "; the cutoff that keeps it at most alpha: " + esc(apt["cutoffCorrected"])) +
       "</table>\n";
  for (const auto& n : t["notes"]) h += "<p>Note: " + esc(n) + "</p>\n";
  h += "<p>Over captures of the source, with failures and offsets: <code>ea_iid health-tests " + t["h"].dump() + " --bits " +
       t["bits"].dump() + " --alpha " + html_text(alpha) + " FILE...</code></p>\n";
  return h + "</section>\n";
}

}  // namespace

std::string source_html(const ordered_json& r, const std::string& json_path) {
  const ordered_json& flow = r["flow"];
  const bool passed = r["passed"].get<bool>();
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>SP 800-90B assessment: " +
      esc(r["source"]) +
      "</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse;margin:.5em 0}"
      "th,td{border:1px solid #bbb;padding:3px 8px;font-size:13px;text-align:left;vertical-align:top}th{background:#f3f3f3}"
      "code{font-size:12px;word-break:break-all}.pass{color:#060}.fail{color:#b00;font-weight:bold}"
      "section{margin-top:1.5em;page-break-inside:avoid}h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #999}"
      "details{margin:.5em 0}"
      // Printed (--pdf, a browser's print): A4; a section may break across pages, a table row,
      // a figure or a heading never does (a heading stays with what follows); colours kept.
      "@page{size:A4;margin:14mm 12mm}@media print{body{margin:0;max-width:none}"
      "section{page-break-inside:auto;break-inside:auto}tr,svg{page-break-inside:avoid;break-inside:avoid}"
      "h2,h3{page-break-after:avoid;break-after:avoid}*{-webkit-print-color-adjust:exact;print-color-adjust:exact}"
      "details{display:block}summary{display:none}}</style></head><body>\n";
  h += "<h1>SP 800-90B entropy assessment of the noise source " + esc(r["source"]) + "</h1>\n";
  h += "<section id=\"run\"><h2>Run</h2><table>\n";
  h += row("tool", esc(r["build"]["version"]) + " (commit " + esc(r["build"]["commit"]) + ", " + esc(r["build"]["device"]) +
                       ", " + esc(r["build"]["buildType"]) + ")");
  h += row("reference", "NIST SP800-90B_EntropyAssessment 1.1.7 (ea_iid), 1.1.8 (ea_non_iid, ea_restart, ea_conditioning)");
  const std::string t = r["dateTimeStamp"].get<std::string>();  // YYYYMMDDhhmmss
  h += row("date", t.size() == 14 ? t.substr(0, 4) + "-" + t.substr(4, 2) + "-" + t.substr(6, 2) + " " + t.substr(8, 2) + ":" +
                                        t.substr(10, 2) + ":" + t.substr(12, 2) + " UTC"
                                  : esc(r["dateTimeStamp"]));
  h += row("command", "<code>" + esc(r["commandline"]) + "</code>");
  h += row("seed", r["userSeed"].is_null() ? std::string("none (no step draws random numbers)")
                                           : esc(r["userSeed"]) + " (repeat the run with <code>--seed " +
                                                 esc(r["userSeed"]) + "</code>)");
  h += "</table></section>\n";
  h += "<section id=\"files\"><h2>Files</h2><table><tr><th>role</th><th>file</th><th>samples</th><th>SHA-256</th></tr>\n";
  for (const auto& f : r["files"]) {
    std::string role = esc(f["role"]);
    if (f.contains("sequencePosition")) role += " (component " + esc(f["sequencePosition"]) + ")";
    h += "<tr><td>" + role + "</td><td>" + esc(f["path"]) +
         (f.contains("symbols") ? "<br><span class=\"muted\">" + esc(f["symbols"]) + "</span>" : std::string()) +
         "</td><td>" + esc(f["samples"]) + "</td><td>" + sha_cell(f["sha256"]) + "</td></tr>\n";
  }
  h += "</table></section>\n";
  const bool tested = !flow["restart"].is_null();
  h += "<section id=\"result\"><h2>Result</h2><p class=\"" + std::string(passed && tested ? "pass" : "fail") + "\">" +
       (!passed ? "FAILED" : tested ? "Passed" : "Untested (no restart tests)") + ": " + esc(flow["claimedText"]) + " " +
       esc(flow["claimedUnit"]) + "</p>\n";
  for (const auto& x : r["failed"]) h += "<p class=\"fail\">" + esc(x) + "</p>\n";
  h += compliance_words(passed, r["complianceNotes"]);
  h += "</section>\n";
  h += sequential_section(r) + restart_section(r) + conditioning_section(r) + health_section(r);
  h += record_section(json_path);
  h += "</body></html>\n";
  return h;
}

}  // namespace ea
