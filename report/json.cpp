#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>

#include "common/error.hpp"
#include "gpu_tuning_keys.hpp"
#include "report.hpp"
#include "version.hpp"

namespace ea {

using nlohmann::ordered_json;

std::string timestamp_now() {
  char buf[32];
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M%S", &tm);
  return buf;
}

bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 4;
    if (n == 4 || (n == 1 && c < 0xC2) || i + n >= s.size() + (n ? 0 : 1)) return false;
    uint32_t cp = n == 0 ? c : n == 1 ? (c & 0x1Fu) : n == 2 ? (c & 0x0Fu) : (c & 0x07u);
    for (size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3Fu);
    }
    if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

ordered_json json_envelope(const ReportOptions& o, const std::string& filename, const std::string& sha256,
                           int error_level, const std::string* error_message, const char* type) {
  ordered_json j;
  j["dateTimeStamp"] = o.started;
  j["filename"] = filename;
  if (!valid_utf8(filename)) {
    // JSON text is UTF-8: "filename" shows the name with U+FFFD for the bytes that are not,
    // and this field keeps every byte (hexadecimal), so resume and merge find the file.
    static const char* const kHex = "0123456789abcdef";
    std::string hex;
    for (unsigned char c : filename) {
      hex += kHex[c >> 4];
      hex += kHex[c & 15];
    }
    j["filenameBytes"] = hex;
  }
  j["commandline"] = o.command_line;
  j["sha256"] = sha256;
  j["errorLevel"] = error_level;
  if (error_message) j["errorMessage"] = *error_message;
  j["type"] = type;  // the track: "IID", "Restart" or "Non-IID" (NIST's ea_iid writes "IID", ea_non_iid "")
  j["toolVersion"] = std::string(kVersion) + " (commit " + kGitCommit + ", " + kBuildDevice + ")";
  j["build"] = {{"version", kVersion},     {"commit", kGitCommit},
                {"device", kBuildDevice},  {"buildType", kBuildType},
                {"reference", std::string(type) == "Non-IID"        ? "NIST ea_non_iid 1.1.8"
                              : std::string(type) == "Restart"      ? "NIST ea_restart 1.1.8"
                              : std::string(type) == "Conditioning" ? "NIST ea_conditioning 1.1.8"
                                                                    : kReferenceVersion}};
  return j;
}

namespace {

ordered_json base(const ReportOptions& o, const std::string& filename) {
  return json_envelope(o, filename, "", 0, nullptr, track_name(o.track));
}

const char* error_kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::Usage: return "usage";
    case ErrorKind::Input: return "input";
    case ErrorKind::Output: return "output";
    case ErrorKind::Device: return "device";
    case ErrorKind::Interrupted: return "interrupted";
    case ErrorKind::Degenerate: return "degenerate";
    default: return "internal";
  }
}

ordered_json chi_json(const ChiSquareResult& r) {
  ordered_json j;
  j["T"] = r.statistic;
  j["df"] = r.df;
  j["evaluable"] = r.evaluable;
  if (r.evaluable) {
    j["pValue"] = r.p_value;
  } else {
    j["pValue"] = nullptr;
  }
  j["result"] = r.evaluable ? (r.passed() ? "passed" : "failed") : "not evaluated: not enough samples";
  return j;
}

ordered_json mcv_json(const McvEstimate& m) {
  return ordered_json{{"samples", m.samples}, {"mode", m.mode}, {"pHat", m.p_hat}, {"pU", m.p_u},
                      {"minEntropy", m.entropy}};
}

}  // namespace

ordered_json error_json(const ReportOptions& o, const std::string& message, ErrorKind kind,
                        const std::string& sha256, const std::string* filename, int64_t block) {
  ordered_json j = base(o, filename ? *filename : o.first_file);
  j["sha256"] = sha256;
  j["errorLevel"] = -1;
  j["errorMessage"] = message;
  j["errorKind"] = error_kind_name(kind);
  j["type"] = track_name(o.track);
  j["IID"] = o.track != Track::NonIid;
  j["schemaVersion"] = kSchemaVersion;
  if (block >= 0) j["input"] = {{"path", filename ? *filename : o.first_file}, {"block", block}};
  return j;
}

ordered_json skipped_json(const ReportOptions& o, const std::string& path, int64_t block,
                          const std::string& reason) {
  ordered_json j = base(o, path);
  j["IID"] = true;
  j["schemaVersion"] = kSchemaVersion;
  j["skipped"] = reason;
  j["type"] = track_name(o.track);
  if (o.track == Track::NonIid) j["IID"] = false;
  j["input"] = {{"path", path}, {"block", block}};
  return j;
}

std::string mapping_line(const SampleMapping& m) {
  if (m.input.is_default()) return "";
  const int bits = sample_format_bits(m.input.format);
  std::string t = std::string("Samples: ") + sample_format_name(m.input.format) + ", " + std::to_string(m.capture_bits) +
                  " bits in use (largest " + std::to_string(m.capture_max) + ", varying bits " +
                  mask_text(m.varying, bits) + "); symbols: ";
  char score[64] = "";
  switch (m.input.rule.kind) {
    case SymbolRule::Kind::None: t += "the values as they are"; break;
    case SymbolRule::Kind::Mask: t += "select-bits " + mask_text(m.mask, bits); break;
    case SymbolRule::Kind::Auto:
      if (m.search) std::snprintf(score, sizeof score, ", score %.6f bits per sample", m.search->score);
      t += "select-bits auto:" + std::to_string(m.input.rule.bits) + " chose " + mask_text(m.mask, bits) + " (" +
           std::to_string(m.search ? m.search->scored : 0) + " of " + std::to_string(m.search ? m.search->candidates : 0) +
           " masks scored" + score + ")";
      break;
    case SymbolRule::Kind::Bin: {
      t += "bin " + std::to_string(m.input.rule.bits) + " (" + std::to_string(m.bin_lower.size()) + " bins, lowest values";
      for (size_t i = 0; i < m.bin_lower.size() && i < 8; ++i) t += " " + std::to_string(m.bin_lower[i]);
      if (m.bin_lower.size() > 8) t += " ...";
      t += m.input.rule.edges.empty() ? ")" : "; edges given)";
      break;
    }
  }
  return t + "\n";
}

ordered_json mapping_json(const SampleMapping& m) {
  if (m.input.is_default()) return nullptr;
  const int bits = sample_format_bits(m.input.format);
  ordered_json j;
  std::string summary = mapping_line(m);
  summary = summary.substr(9, summary.size() - 10);  // without "Samples: " and the newline
  j["summary"] = summary;
  j["format"] = sample_format_name(m.input.format);
  j["captureMax"] = m.capture_max;
  j["captureBits"] = m.capture_bits;
  j["varyingBits"] = mask_text(m.varying, bits);
  switch (m.input.rule.kind) {
    case SymbolRule::Kind::None: j["rule"] = "none"; break;
    case SymbolRule::Kind::Mask: j["rule"] = "select-bits"; break;
    case SymbolRule::Kind::Auto: j["rule"] = "select-bits auto"; break;
    case SymbolRule::Kind::Bin: j["rule"] = "bin"; break;
  }
  if (m.input.rule.kind == SymbolRule::Kind::Mask || m.input.rule.kind == SymbolRule::Kind::Auto) {
    j["mask"] = mask_text(m.mask, bits);
  }
  if (m.input.rule.kind == SymbolRule::Kind::Bin) {
    j["bins"] = 1 << m.input.rule.bits;
    j["binLower"] = m.bin_lower;  // the lowest capture value of each bin
    j["edgesGiven"] = !m.input.rule.edges.empty();
  }
  if (m.search) {
    ordered_json best = ordered_json::array();
    for (const auto& [mask, score] : m.search->best) best.push_back({{"mask", mask_text(mask, bits)}, {"score", score}});
    j["search"] = {{"method", m.search->method},       {"maxBits", m.input.rule.bits},
                   {"candidates", m.search->candidates}, {"scored", m.search->scored},
                   {"samplesScored", m.search->samples_scored}, {"score", m.search->score},
                   {"best", best}};
  }
  return j;
}

ordered_json input_facts_json(const InputFacts& a, int64_t block, const std::vector<std::string>& warnings) {
  ordered_json input;
  input["path"] = a.path;
  if (block >= 0) input["block"] = block;
  input["samples"] = a.samples;
  input["bitsPerSymbol"] = a.width;
  input["alphabetSize"] = a.alphabet;
  input["translated"] = a.translated;
  input["subset"] = a.subset ? ordered_json{{"index", a.subset->index}, {"count", a.subset->count}} : ordered_json(nullptr);
  input["warnings"] = warnings;
  input["sampleRule"] = sample_input_text(a.mapping.input);
  input["mapping"] = mapping_json(a.mapping);
  return input;
}

namespace {

// NIST's test case of one assessment, with hAssessed always right.
ordered_json test_case_json(const Assessment& a) {
  ordered_json tc;
  tc["testCaseDesc"] = "";
  // As NIST writes them: both always, with its placeholders where an estimate was not made
  // (hOriginal = the bit width under -c, hBitstring = 1.0 for binary data under -i);
  // "estimates" has null there.
  tc["hOriginal"] = a.h_original ? a.h_original->entropy : static_cast<double>(a.width);
  tc["hBitstring"] = a.h_bitstring ? a.h_bitstring->entropy : 1.0;
  // The min-entropy that counts: after a "not IID" verdict the non-IID track's (a script
  // reading NIST's field gets the assessed value, not the IID track's, which does not apply).
  tc["hAssessed"] = a.min_entropy();
  const McvEstimate& main_mcv = a.h_original ? *a.h_original : *a.h_bitstring;
  tc["mcvEstimateMode"] = main_mcv.mode;
  tc["mcvEstimatePHat"] = main_mcv.p_hat;
  tc["mcvEstimatePU"] = main_mcv.p_u;
  tc["mean"] = a.base.mean;
  tc["median"] = a.base.median;
  tc["binary"] = a.binary;
  tc["passedChiSquareTests"] = a.chi_square_passed();
  tc["passedLongestRepeatedSubstringTest"] = a.lrs.passed();
  tc["passedIidPermutationTests"] = a.permutation.passed();
  ordered_json results = ordered_json::array();
  for (int i = 0; i < 3; ++i) {
    ordered_json r;
    r["iteration"] = i;
    for (int t = 0; t < kNumTests; ++t) {
      // A test that was not run (compression after another failure) is null, never 0.
      r[test_json_key(t)] = a.permutation.ran[t] ? ordered_json(a.permutation.counters[t].c[i]) : ordered_json(nullptr);
    }
    results.push_back(r);
  }
  tc["permutationTestResults"] = results;

  return tc;
}

ordered_json input_json(const Assessment& a, int64_t block) {
  ordered_json input = input_facts_json(a, block, a.warnings);
  ordered_json counts = ordered_json::array();
  for (const auto& [value, count] : a.value_counts) counts.push_back({value, count});
  input["valueCounts"] = counts;  // [value, count] pairs
  return input;
}

ordered_json estimates_json(const Assessment& a) {
  ordered_json est;
  est["mode"] = a.settings.initial_entropy ? "initial (-i)" : "conditioned (-c)";
  est["bitstringTruncated"] = a.settings.truncate_bitstring;  // -t
  est["hOriginal"] = a.h_original ? mcv_json(*a.h_original) : ordered_json(nullptr);
  est["hBitstring"] = a.h_bitstring ? mcv_json(*a.h_bitstring) : ordered_json(nullptr);
  if (a.h_bitstring) est["hBitstringPerSymbol"] = a.h_bitstring->entropy * a.width;
  return est;
}

ordered_json permutation_json(const Assessment& a) {
  ordered_json perm;
  // Decimal strings: JSON numbers above 2^53 lose digits in jq and JavaScript.
  perm["userSeed"] = std::to_string(a.settings.seed);
  perm["seed"] = std::to_string(a.seed);
  const PrngInfo& p = prng_info(a.settings.prng);
  perm["prng"] = p.name;
  perm["prngName"] = p.full_name;
  perm["prngStreams"] = p.streams;
  perm["prngForCompliance"] = p.compliance;
  perm["shuffleChoice"] = shuffle_choice_name(a.settings.shuffle);
  perm["shuffle"] = a.shuffle;
  perm["device"] = a.device;
  perm["compressionDevice"] = a.compression_device;
  perm["verified"] = a.verified;
  perm["iterations"] = a.settings.iterations;
  perm["earlyExit"] = a.settings.early_exit;
  perm["decisionThreshold"] = a.permutation.threshold;
  perm["allTests"] = a.settings.all_tests;
  perm["untilDecided"] = a.settings.until_decided;
  perm["note"] = a.permutation.note;  // why no permutation test ran ("" when they did)
  perm["threads"] = a.settings.threads;
  perm["workerThreads"] = a.worker_threads;
  perm["gpuTuning"] = gpu_tuning_json(a.settings.tuning);
  perm["permutationsRun"] = a.permutation.fast_permutations;
  perm["compressionPermutationsRun"] = a.permutation.compression_permutations;
  perm["compressionRun"] = a.permutation.compression_run;
  perm["compressionNote"] = a.permutation.compression_note;
  perm["passed"] = a.permutation.passed();
  ordered_json tests = ordered_json::array();
  for (int t = 0; t < kNumTests; ++t) {
    const auto& c = a.permutation.counters[t];
    ordered_json e;
    e["name"] = test_name(t);
    e["unpermuted"] = a.original.v[t];
    e["ran"] = a.permutation.ran[t];
    e["C0"] = c.c[0];
    e["C1"] = c.c[1];
    e["C2"] = c.c[2];
    e["result"] = !a.permutation.ran[t] ? "not run" : (a.permutation.test_passed(t) ? "passed" : "failed");
    tests.push_back(e);
  }
  perm["tests"] = tests;
  return perm;
}

}  // namespace

ordered_json assessment_json(const Assessment& a, const ReportOptions& o, int64_t block) {
  ordered_json j = json_envelope(o, a.path, "", 0, nullptr, track_name(Track::Iid));  // also a restart's rows, columns
  j["sha256"] = a.sha256;
  j["IID"] = true;  // the reference's field: the kind of tool, not the verdict (see "verdict")

  j["testCases"] = ordered_json::array({test_case_json(a)});

  // Additions of this tool.
  j["schemaVersion"] = kSchemaVersion;
  const Verdict v = a.verdict();
  j["verdict"] = {{"iid", v == Verdict::Iid}, {"result", verdict_name(v)}, {"failedFamilies", a.failed_families()}};
  j["assessedMinEntropy"] = a.min_entropy();  // the non-IID estimate's where one was made
  j["trackChoice"] = track_choice_name(a.settings.track);
  j["nonIid"] = a.non_iid ? non_iid_estimates_json(*a.non_iid, a.width) : ordered_json(nullptr);
  j["forCompliance"] = a.for_compliance();
  j["complianceNotes"] = a.compliance_issues();
  j["exploratory"] = a.exploratory();
  j["input"] = input_json(a, block);
  j["estimates"] = estimates_json(a);
  j["chiSquare"] = {{"independence", chi_json(a.independence)}, {"goodnessOfFit", chi_json(a.goodness_of_fit)}};
  ordered_json lrs;
  lrs["pCol"] = static_cast<double>(a.lrs.p_col);
  lrs["W"] = a.lrs.w;
  lrs["prXGe1"] = static_cast<double>(a.lrs.pr_x_ge_1);
  lrs["passed"] = a.lrs.passed();
  j["longestRepeatedSubstring"] = lrs;
  j["permutation"] = permutation_json(a);
  const auto& t = a.timings;
  j["timings"] = {{"estimates", t.estimates},     {"chiSquare", t.chi_square},     {"lrs", t.lrs},
                  {"deviceSetup", t.device_setup}, {"permutation", t.permutation}, {"deviceBusy", t.device_busy},
                  {"deviceProfile", t.device_profile},
                  {"compression", t.compression}, {"nonIid", t.non_iid}, {"total", t.total}};
  return j;
}

// "first-round" -> "firstRound": the JSON's style.
static std::string camel(const char* key) {
  std::string s;
  for (const char* c = key; *c; ++c) {
    if (*c == '-' && c[1]) {
      s.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(*++c))));
    } else {
      s.push_back(*c);
    }
  }
  return s;
}

nlohmann::ordered_json gpu_tuning_json(const GpuTuning& t) {
  nlohmann::ordered_json j;
  j["memoryShare"] = t.memory_share;
  for (const GpuTuningKey& k : gpu_tuning_keys()) {
    if (k.flag) {
      j[camel(k.name)] = t.*k.flag;
    } else {
      j[camel(k.name)] = k.u64 ? t.*k.u64 : t.*k.u32;
    }
  }
  return j;
}


std::string dump_json(const ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

ordered_json result_json(const ItemResult& r, const std::string& path, int64_t block, const ReportOptions& o) {
  switch (r.status) {
    case ItemResult::Status::Skipped: return skipped_json(o, path, block, r.message);
    case ItemResult::Status::Assessed:
      if (const RestartAssessment* rs = r.restart()) return restart_json(*rs, o);
      if (const NonIidAssessment* n = r.non_iid()) return non_iid_json(*n, o, block);
      return assessment_json(*r.iid(), o, block);
    default: return error_json(o, r.message, r.error_kind, r.sha256, &path, block);
  }
}

void print_result_text(std::FILE* out, const ItemResult& r, const ReportOptions& o) {
  if (const RestartAssessment* rs = r.restart()) print_restart_text(out, *rs, o);
  if (const Assessment* a = r.iid()) print_text(out, *a, o);
  if (const NonIidAssessment* n = r.non_iid()) print_non_iid_text(out, *n, o);
}

}  // namespace ea
