// The conditioning component's reports: NIST ea_conditioning's text (what the
// ea_conditioning link and --format nist print), our text, and the JSON (NIST's fields plus
// ours).
#include <cinttypes>

#include "report.hpp"

namespace ea {

using nlohmann::ordered_json;

namespace {

std::string long_number(long double v) { return format_conditioning_number(v); }

}  // namespace

void print_nist_conditioning(std::FILE* f, const ConditioningAssessment& a, bool quiet) {
  const ConditioningResult& r = a.result;
  const ConditioningInput& in = r.input;
  if (!quiet) {
    std::fprintf(f, "n_in = %" PRIu32 "\nn_out = %" PRIu32 "\nnw = %" PRIu32 "\nh_in = %s\n", in.n_in, in.n_out, r.nw,
                 long_number(in.h_in).c_str());
    if (!in.vetted) std::fprintf(f, "h' = %s\n", long_number(in.h_prime).c_str());
  }
  for (long p : r.precisions) std::fprintf(f, "Attempting to compute entropy with %ld bits of precision.\n", p);
  if (quiet) return;
  std::fprintf(f, "Output_Entropy(*) = %s", long_number(r.output_entropy).c_str());
  if (r.close_n_out) std::fprintf(f, "; Close to n_out (epsilon = 2^(-%s))", long_number(r.epsilon_n_out).c_str());
  if (r.close_h_in) std::fprintf(f, "; Close to h_in (epsilon = 2^(-%s))", long_number(r.epsilon_h_in).c_str());
  if (r.close_nw) std::fprintf(f, "; Close to nw (epsilon = 2^(-%s))", long_number(r.epsilon_nw).c_str());
  std::fprintf(f, "\n");
  if (in.vetted) {
    std::fprintf(f, "(Vetted) h_out = %s\n", long_number(r.h_out).c_str());
    if (r.near_full) {
      std::fprintf(f, "epsilon = 2^(-%s)", long_number(r.epsilon_n_out).c_str());
      if (r.full_entropy_candidate) {
        std::fprintf(f,
                     ": FIPS 140-3 IG D.K Resolution 19 Full Entropy if the conditioning component security strength "
                     "is >= %" PRIu32,
                     in.n_out);
      }
      std::fprintf(f, "\n");
    }
  } else {
    std::fprintf(f, "0.999 * n_out = %s\n", long_number(r.bound_n_out).c_str());
    std::fprintf(f, "h' * n_out = %s\n", long_number(r.bound_h_prime).c_str());
    std::fprintf(f, "(Non-vetted) h_out = %s\n", long_number(r.h_out).c_str());
  }
}

void print_conditioning_text(std::FILE* f, const ConditioningAssessment& a, const ReportOptions& o) {
  if (o.nist_level >= 0 || o.nist_format) {
    print_nist_conditioning(f, a, o.nist_level == 0 || (o.nist_level < 0 && o.quiet));
    return;
  }
  if (o.quiet) return;
  const ConditioningResult& r = a.result;
  const ConditioningInput& in = r.input;
  std::fprintf(f, "Conditioning component (SP 800-90B 3.1.5), %s: n_in %" PRIu32 ", n_out %" PRIu32 ", nw %" PRIu32,
               in.vetted ? "vetted" : "non-vetted", in.n_in, in.n_out, in.nw);
  if (r.nw != in.nw) std::fprintf(f, " (%" PRIu32 " used: at most n_in)", r.nw);
  std::fprintf(f, ", h_in %s\n", long_number(in.h_in).c_str());
  if (a.conditioned) {
    const NonIidAssessment& c = *a.conditioned;
    std::fprintf(f, "h' from %s: %" PRIu64 " samples, %d-bit (%s)\n", c.path.c_str(), c.samples, c.width,
                 a.conditioned_iid ? "IID claim: the bitstring's MCV estimate" : "non-IID: the bitstring's estimates, -c");
    if (o.verbose >= 1) print_non_iid_estimates(f, c.estimates, c.width, o);
  }
  if (!in.vetted) std::fprintf(f, "h': %s bits per bit\n", long_number(in.h_prime).c_str());
  std::fprintf(f, "Output_Entropy(n_in, n_out, nw, h_in) = %s", long_number(r.output_entropy).c_str());
  const std::pair<bool, const char*> close[] = {{r.close_n_out, "n_out"}, {r.close_h_in, "h_in"}, {r.close_nw, "nw"}};
  const long double eps[] = {r.epsilon_n_out, r.epsilon_h_in, r.epsilon_nw};
  for (int k = 0; k < 3; ++k) {
    if (close[k].first) std::fprintf(f, "; within 2^-%s of %s", long_number(eps[k]).c_str(), close[k].second);
  }
  std::fprintf(f, "\n");
  if (o.verbose >= 1) {
    std::fprintf(f, "MPFR precision:");
    for (long p : r.precisions) std::fprintf(f, " %ld", p);
    std::fprintf(f, " bits\n");
  }
  if (!in.vetted) {
    std::fprintf(f, "0.999 x n_out = %s\nh' x n_out = %s\n", long_number(r.bound_n_out).c_str(), long_number(r.bound_h_prime).c_str());
  } else if (r.near_full) {
    std::fprintf(f, "Output_Entropy > 0.999 x n_out: epsilon = 2^-%s%s\n", long_number(r.epsilon_n_out).c_str(),
                 r.full_entropy_candidate
                     ? " and h_in >= n_out + 64: full entropy (FIPS 140-3 IG D.K resolution 19) if the component's "
                       "security strength is at least n_out"
                     : "");
  }
  std::fprintf(f, "h_out: %s bits of min-entropy per %" PRIu32 "-bit output (%s)\n", long_number(r.h_out).c_str(), in.n_out,
               in.vetted ? "vetted: Output_Entropy" : "non-vetted: min(Output_Entropy, 0.999 x n_out, h' x n_out)");
  if (o.timing) std::fprintf(f, "Timing: %.3f s\n", a.seconds);
}

ordered_json conditioning_json(const ConditioningAssessment& a, const ReportOptions& o) {
  const ConditioningResult& r = a.result;
  const ConditioningInput& in = r.input;
  ordered_json j = json_envelope(o, a.conditioned ? a.conditioned->path : "", a.conditioned ? a.conditioned->sha256 : "", 0,
                                 nullptr, "Conditioning");
  j["IID"] = false;  // NIST's field (always false in ea_conditioning's JSON)
  ordered_json tc;   // NIST's one test case, its keys in its (alphabetical) order
  tc["h_in"] = static_cast<double>(in.h_in);
  tc["h_out"] = static_cast<double>(r.h_out);
  if (!in.vetted) tc["h_p"] = static_cast<double>(in.h_prime);
  tc["n_in"] = static_cast<double>(in.n_in);
  tc["n_out"] = static_cast<double>(in.n_out);
  tc["nw"] = static_cast<double>(r.nw);
  tc["testCaseDesc"] = "Overall";
  j["testCases"] = ordered_json::array({tc});
  j["schemaVersion"] = kSchemaVersion;
  ordered_json c;
  c["vetted"] = in.vetted;
  c["nIn"] = in.n_in;
  c["nOut"] = in.n_out;
  c["nw"] = in.nw;
  c["nwUsed"] = r.nw;
  // Long doubles as NIST prints them (22 significant digits, truncated), and as numbers.
  auto both = [&c](const char* key, long double v) {
    c[key] = static_cast<double>(v);
    c[std::string(key) + "Text"] = long_number(v);
  };
  both("hIn", in.h_in);
  if (in.vetted) {
    c["hPrime"] = nullptr;
    c["hPrimeText"] = nullptr;
  } else {
    both("hPrime", in.h_prime);
  }
  c["hPrimeSource"] = in.vetted ? ordered_json(nullptr)
                      : a.conditioned ? ordered_json(a.conditioned_iid ? "file, IID (MCV estimate)" : "file, non-IID (-c)")
                                      : ordered_json("given");
  c["precisions"] = r.precisions;
  both("outputEntropy", r.output_entropy);
  ordered_json eps;
  eps["nOut"] = long_number(r.epsilon_n_out);
  eps["hIn"] = long_number(r.epsilon_h_in);
  eps["nw"] = long_number(r.epsilon_nw);
  c["epsilonExponents"] = eps;  // -log2(1 - Output_Entropy / max) for each max
  ordered_json close = ordered_json::array();
  if (r.close_n_out) close.push_back("n_out");
  if (r.close_h_in) close.push_back("h_in");
  if (r.close_nw) close.push_back("nw");
  c["closeTo"] = close;
  if (in.vetted) {
    c["boundNOut"] = nullptr;
    c["boundHPrime"] = nullptr;
  } else {
    c["boundNOut"] = long_number(r.bound_n_out);
    c["boundHPrime"] = long_number(r.bound_h_prime);
  }
  c["fullEntropyCandidate"] = r.full_entropy_candidate;
  both("hOut", r.h_out);
  j["conditioning"] = c;
  j["conditioned"] = a.conditioned ? non_iid_json(*a.conditioned, o, -1) : ordered_json(nullptr);
  j["timings"] = {{"total", a.seconds}};
  return j;
}

}  // namespace ea
