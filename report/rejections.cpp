#include "rejections.hpp"

#include "permutation/counters.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace ea {

using nlohmann::ordered_json;

double binomial_upper_tail(uint64_t n, uint64_t k, double p) {
  if (k == 0) return 1.0;
  if (k > n || p <= 0) return 0.0;
  if (p >= 1) return 1.0;
  // The terms from k up, in logs; past the mode they fall geometrically, so the sum stops
  // once they no longer change it.
  const double nd = static_cast<double>(n), lp = std::log(p), lq = std::log1p(-p);
  const double lgn = std::lgamma(nd + 1);
  double sum = 0;
  for (uint64_t j = k; j <= n; ++j) {
    const double jd = static_cast<double>(j);
    const double term = std::exp(lgn - std::lgamma(jd + 1) - std::lgamma(nd - jd + 1) + jd * lp + (nd - jd) * lq);
    sum += term;
    if (jd > nd * p && term < sum * 1e-17) break;
  }
  return std::min(1.0, sum);
}

namespace {

constexpr double kChiSquareAlpha = 0.001, kLrsAlpha = 0.001;

bool is_iid_result(const ordered_json& r) {
  return r.value("type", std::string()) != "Restart" && r.value("type", std::string()) != "Non-IID" &&
         !r.contains("skipped") && r.value("errorLevel", 0) == 0 && r.contains("verdict") && r.contains("permutation");
}

std::string formatted(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// The file's entry of `out`, made at its first item.
FileRejections& file_of(Rejections& out, std::map<std::string, size_t>& index, const ordered_json& r) {
  const std::string name = r.contains("filename") && r["filename"].is_string() ? r["filename"].get<std::string>() : "";
  const auto [it, made] = index.emplace(name, out.files.size());
  if (made) {
    out.files.emplace_back();
    out.files.back().file = name;
  }
  return out.files[it->second];
}

// Each file's rate, expectation and p-value from its items' summed rates (held in `expected`).
void finish_files(Rejections& out) {
  for (auto& f : out.files) {
    const double rate_sum = f.expected;
    f.item_rate = std::min(1.0, rate_sum / static_cast<double>(f.items));
    f.expected = std::min(rate_sum, static_cast<double>(f.items));
    f.p_value = binomial_upper_tail(f.items, f.rejected, f.item_rate);
  }
}

}  // namespace

std::string expectation_text(double e) { return formatted(e >= 10 ? "%.1f" : "%.2g", e); }

std::string p_value_text(double p) {
  if (p < 1e-12) return "p < 1e-12";
  return "p = " + formatted(p >= 0.01 ? "%.2f" : "%.2g", p);
}

std::optional<Rejections> count_rejections(const std::vector<ordered_json>& rows) {
  Rejections out;
  std::map<std::string, size_t> file_index;
  double rate_sum = 0;
  for (const auto& r : rows) {
    if (!is_iid_result(r)) continue;
    const auto& perm = r["permutation"];
    const auto& tests = perm["tests"];
    const uint32_t n = perm["iterations"].get<uint32_t>();
    const auto& threshold = perm["decisionThreshold"];
    const uint32_t t = threshold.is_number_unsigned() && threshold.get<uint64_t>() <= n ? threshold.get<uint32_t>()
                                                                                       : decision_threshold(n);
    if (out.items == 0) {
      out.iterations = n;
      out.threshold = t;
      out.tests.resize(3 + tests.size());
      out.tests[0].name = "chi-square independence";
      out.tests[1].name = "chi-square goodness of fit";
      out.tests[2].name = "longest repeated substring";
      for (size_t k = 0; k < tests.size(); ++k) out.tests[3 + k].name = tests[k]["name"].get<std::string>();
    } else if (n != out.iterations || t != out.threshold) {
      out.mixed = true;
    }
    if (out.tests.size() != 3 + tests.size()) continue;  // not the same tests: never in one run
    ++out.items;
    const bool rejected = r["verdict"]["result"].get<std::string>() == "not IID";
    if (rejected) ++out.rejected;
    const double perm_rate = permutation_false_rejection_rate(n, t);
    const double item_rate = 2 * kChiSquareAlpha + kLrsAlpha + perm_rate * static_cast<double>(tests.size());
    rate_sum += item_rate;
    FileRejections& file = file_of(out, file_index, r);
    ++file.items;
    if (rejected) ++file.rejected;
    file.expected += item_rate;  // the sum for now (finish_files)
    file.blocks = file.blocks && r.contains("input") && r["input"].contains("block");
    auto count = [](TestRejections& x, bool rejected, double rate) {
      ++x.tested;
      if (rejected) ++x.rejected;
      x.expected += rate;
    };
    const auto& chi = r["chiSquare"];
    const char* chi_keys[2] = {"independence", "goodnessOfFit"};
    for (int k = 0; k < 2; ++k) {
      const auto& c = chi[chi_keys[k]];
      if (c["evaluable"].is_boolean() && c["evaluable"].get<bool>()) {
        count(out.tests[static_cast<size_t>(k)], c["result"].is_string() && c["result"].get<std::string>() == "failed",
              kChiSquareAlpha);
      }
    }
    const auto& lrs = r["longestRepeatedSubstring"]["passed"];
    count(out.tests[2], lrs.is_boolean() && !lrs.get<bool>(), kLrsAlpha);
    for (size_t k = 0; k < tests.size(); ++k) {
      const auto& ran = tests[k]["ran"];
      const auto& result = tests[k]["result"];
      if (ran.is_boolean() && ran.get<bool>()) {
        count(out.tests[3 + k], result.is_string() && result.get<std::string>() == "failed", perm_rate);
      }
    }
  }
  if (out.items == 0) return std::nullopt;
  out.item_rate = std::min(1.0, rate_sum / static_cast<double>(out.items));
  out.expected = std::min(rate_sum, static_cast<double>(out.items));
  out.p_value = binomial_upper_tail(out.items, out.rejected, out.item_rate);
  for (auto& x : out.tests) {
    x.rate = x.tested ? x.expected / static_cast<double>(x.tested) : 0;
    x.p_value = binomial_upper_tail(x.tested, x.rejected, x.rate);
  }
  finish_files(out);
  return out;
}

std::string file_rejections_sentence(const FileRejections& f) {
  const std::string unit = f.blocks ? "block" : "item";
  const std::string these = "this file's " + unit + (f.items == 1 ? " is" : "s are");
  std::string s = std::to_string(f.rejected) + " of " + std::to_string(f.items) + " " + unit + (f.items == 1 ? "" : "s") +
                  " not IID; at most " + expectation_text(f.expected) + " expected by chance for IID data; " +
                  p_value_text(f.p_value) + ": ";
  s += f.more_than_chance() ? "more than chance explains (" + these + " likely not IID)" : these + " consistent with IID";
  return s;
}

std::string rejections_sentence(const Rejections& r) {
  if (r.files.size() == 1) return file_rejections_sentence(r.files.front());
  return "In total, " + std::to_string(r.files.size()) + " files: " + std::to_string(r.rejected) + " of " +
         std::to_string(r.items) + " items not IID; at most " + expectation_text(r.expected) +
         " expected by chance were every file IID; each file is judged on its own count (the files need not share a "
         "source)";
}

std::string test_rejections_line(const TestRejections& t, bool judged) {
  return t.name + ": " + std::to_string(t.rejected) + " of " + std::to_string(t.tested) + " (at most " +
         expectation_text(t.expected) + " expected" + (judged ? ", " + p_value_text(t.p_value) : std::string()) + ")";
}

ordered_json rejections_json(const Rejections& r) {
  ordered_json j;
  j["items"] = r.items;
  j["notIid"] = r.rejected;
  j["iterations"] = r.iterations;
  j["decisionThreshold"] = r.threshold;
  j["mixedIterations"] = r.mixed;
  j["itemRate"] = r.item_rate;
  j["expected"] = r.expected;
  j["pValue"] = r.p_value;
  j["moreThanChance"] = r.more_than_chance();
  j["alpha"] = kRejectionAlpha;
  j["sentence"] = rejections_sentence(r);
  ordered_json tests = ordered_json::array();
  for (const auto& t : r.tests) {
    tests.push_back({{"name", t.name}, {"tested", t.tested}, {"rejected", t.rejected}, {"rate", t.rate},
                     {"expected", t.expected}, {"pValue", t.p_value}});
  }
  j["tests"] = tests;
  ordered_json files = ordered_json::array();
  for (const auto& f : r.files) {
    files.push_back({{"file", f.file}, {"items", f.items}, {"notIid", f.rejected}, {"itemRate", f.item_rate},
                     {"expected", f.expected}, {"pValue", f.p_value}, {"moreThanChance", f.more_than_chance()},
                     {"sentence", file_rejections_sentence(f)}});
  }
  j["files"] = files;
  return j;
}

}  // namespace ea
