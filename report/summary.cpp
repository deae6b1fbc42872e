#include "summary.hpp"

#include <algorithm>
#include <cstring>

#include "files.hpp"
#include "rows.hpp"

namespace ea {


std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

void print_summary(std::FILE* f, const std::vector<Row>& rows) {
  constexpr int kColumns = 13;
  const char* head[kColumns] = {"file",     "block", "samples",     "width",        "H_original", "H_bitstring", "H_assessed",
                                "chi-square", "LRS", "permutation", "failed tests", "verdict",    "seconds"};
  size_t w[kColumns];
  for (int c = 0; c < kColumns; ++c) w[c] = std::strlen(head[c]);
  auto cells = [](const Row& r) {
    return std::vector<const std::string*>{&r.file, &r.block, &r.samples, &r.width,  &r.h_original, &r.h_bitstring, &r.h_assessed,
                                           &r.chi,  &r.lrs,   &r.perm,    &r.failed, &r.verdict,    &r.seconds};
  };
  for (const auto& r : rows) {
    auto c = cells(r);
    for (int k = 0; k < kColumns; ++k) w[k] = std::max(w[k], c[k]->size());
  }
  auto line = [&](const std::vector<const std::string*>& c) {
    for (int k = 0; k < kColumns; ++k) {
      std::fprintf(f, "%-*s%s", static_cast<int>(w[k]), c[k]->c_str(), k == kColumns - 1 ? "\n" : "  ");
    }
  };
  std::vector<std::string> head_text(head, head + kColumns);
  std::vector<const std::string*> head_cells;
  for (const auto& h : head_text) head_cells.push_back(&h);
  line(head_cells);
  for (const auto& r : rows) line(cells(r));
}

void print_rejections(std::FILE* f, const Rejections& r) {
  if (r.files.size() == 1) {
    std::fprintf(f, "Rejections: %s\n", rejections_sentence(r).c_str());
  } else {
    // Each file on its own count (a file of one item has its verdict in the table), then
    // the total, which judges no file.
    constexpr size_t kShown = 20;
    std::fprintf(f, "Rejections, each file against its own chance bound:\n");
    size_t shown = 0, single = 0;
    for (const auto& x : r.files) {
      if (x.items < 2) {
        ++single;
      } else if (shown++ < kShown) {
        std::fprintf(f, "  %s: %s\n", x.file.c_str(), file_rejections_sentence(x).c_str());
      }
    }
    if (shown > kShown) std::fprintf(f, "  (%zu more files: the HTML report and the batch JSON list each)\n", shown - kShown);
    if (single > 0) std::fprintf(f, "  (%zu file%s of one item: the verdict in the table)\n", single, single == 1 ? "" : "s");
    std::fprintf(f, "  %s\n", rejections_sentence(r).c_str());
  }
  if (r.iterations != 10000 || r.mixed) {
    std::fprintf(f, "  %s: each permutation test rejects IID data with probability up to %.4g (SP 800-90B's 10,000 "
                 "permutations and threshold 5: %.4g)\n",
                 r.mixed ? "mixed --iterations" : ("--iterations " + std::to_string(r.iterations) + ", threshold " +
                                                   std::to_string(r.threshold)).c_str(),
                 permutation_false_rejection_rate(r.iterations, r.threshold), permutation_false_rejection_rate(10000, 5));
  }
  const bool pooled = r.files.size() > 1;
  for (const auto& t : r.tests) {
    if (t.rejected > 0) std::fprintf(f, "  %s%s\n", pooled ? "all files, " : "", test_rejections_line(t, !pooled).c_str());
  }
}

std::string with_expected_by_chance(const std::string& counts, const std::optional<Rejections>& r) {
  if (!r) return counts;
  const std::string tail = " (at most " + expectation_text(r->expected) + " expected by chance for IID data)";
  const std::string key = " not IID";
  const size_t at = counts.find(key);
  if (at != std::string::npos) return counts.substr(0, at + key.size()) + tail + counts.substr(at + key.size());
  // No item was "not IID": say so where the IID count is.
  const size_t iid = counts.find(" IID");
  if (iid != std::string::npos) return counts.substr(0, iid + 4) + ", 0 not IID" + tail + counts.substr(iid + 4);
  return counts;
}

// The summary row of a JSONL line (ea_iid merge).
Row row_of_json(const nlohmann::ordered_json& j) {
  auto str = [](const nlohmann::ordered_json& v, const char* f) {
    return v.is_null() ? std::string("-") : fmt(f, v.get<double>());
  };
  const auto& in = j.contains("input") ? j["input"] : nlohmann::ordered_json::object();
  Row row{j.value("filename", std::string("-")),
          in.contains("block") ? std::to_string(in["block"].get<int64_t>()) : "-",
          "-", "-", "-", "-", "-", "-", "-", "-", "-", "", "-"};
  if (j.value("type", std::string()) == "Restart" && j.contains("restart")) {
    const auto& rs = j["restart"];
    const auto& rows = j["rows"];
    if (!rows.is_null()) {
      row.samples = std::to_string(rows["input"].value("samples", uint64_t{0}));
      row.width = std::to_string(rows["input"].value("bitsPerSymbol", 0));
      if (j["verdict"]["result"] == "passed") row.h_assessed = str(rs["result"], "%.6f");
      const auto& tc = j["testCases"][0];
      row.chi = rows::chi_square_result(j);
      row.lrs = tc["passedLongestRepeatedSubstringTest"].get<bool>() ? "passed" : "failed";
      row.perm = tc["passedIidPermutationTests"].get<bool>() ? "passed" : "failed";
    } else if (in.contains("samples")) {  // a non-IID claim (no IID tests), or a failed sanity check
      row.samples = std::to_string(in.value("samples", uint64_t{0}));
      row.width = std::to_string(in.value("bitsPerSymbol", 0));
      if (j["verdict"]["result"] == "passed") row.h_assessed = str(rs["result"], "%.6f");
      row.chi = row.lrs = row.perm = "not run";
    }
    std::string failed;
    for (const auto& f : j["verdict"]["failed"]) failed += (failed.empty() ? "" : ",") + f.get<std::string>();
    row.failed = failed.empty() ? "-" : failed;
    row.verdict = "restart " + j["verdict"]["result"].get<std::string>();
    row.seconds = str(j["timings"]["total"], "%.2f");
  } else if (j.value("type", std::string()) == "Non-IID" && j.contains("nonIid")) {
    const auto& x = j["nonIid"];
    row.samples = std::to_string(in.value("samples", uint64_t{0}));
    row.width = std::to_string(in.value("bitsPerSymbol", 0));
    row.h_original = x["hOriginal"].is_null() ? "-" : str(x["hOriginal"], "%.6f");
    row.h_bitstring = x["hBitstring"].is_null() ? "-" : str(x["hBitstring"], "%.6f");
    row.h_assessed = str(j["assessedMinEntropy"], "%.6f");
    row.chi = row.lrs = row.perm = "not run";
    row.failed = "-";
    const auto& low = x["lowest"];
    row.verdict = low.is_null() ? "non-IID estimate"
                                : "non-IID estimate (" + low["input"].get<std::string>() + " " +
                                      low["estimator"].get<std::string>() + ")";
    row.seconds = str(j["timings"]["total"], "%.2f");
  } else if (j.contains("skipped")) {
    row.verdict = "skipped: " + j["skipped"].get<std::string>();
  } else if (j.value("errorLevel", 0) != 0) {
    row.verdict = (rows::text(j, "errorKind") == "degenerate" ? "degenerate: " : "error: ") + rows::text(j, "errorMessage");
  } else {
    row.samples = std::to_string(in.value("samples", uint64_t{0}));
    row.width = std::to_string(in.value("bitsPerSymbol", 0));
    row.h_original = j["estimates"]["hOriginal"].is_null() ? "-" : str(j["estimates"]["hOriginal"]["minEntropy"], "%.6f");
    row.h_bitstring =
        j["estimates"]["hBitstring"].is_null() ? "-" : str(j["estimates"]["hBitstring"]["minEntropy"], "%.6f");
    const auto& tc = j["testCases"][0];
    row.chi = rows::chi_square_result(j);
    row.lrs = tc["passedLongestRepeatedSubstringTest"].get<bool>() ? "passed" : "failed";
    row.perm = j["permutation"]["passed"].get<bool>() ? "passed" : "failed";
    row.verdict = j["verdict"]["result"].get<std::string>();
    row.seconds = str(j["timings"]["total"], "%.2f");
    row.h_assessed = str(j["assessedMinEntropy"], "%.6f");
    // At most a few names: more are counted (the list is in the JSON, CSV and HTML).
    const auto names = failed_tests(j);
    std::string failed;
    for (const auto& t : names) failed += (failed.empty() ? "" : ",") + t;
    if (failed.size() > 32) failed = std::to_string(names.size()) + " tests";
    row.failed = failed.empty() ? "-" : failed;
  }
  return row;
}

}  // namespace ea
