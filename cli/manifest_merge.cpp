// ea_iid merge of a manifest run's shares (ea_iid source --manifest --shard K/N --jsonl): the
// rows checked and put in manifest order by report/manifest_run.hpp, written with the lab
// summary over every source (docs/manifest.md); and the exit outcome of a manifest run's rows.
#include <cstdio>

#include "common/error.hpp"
#include "common/interrupt.hpp"
#include "lab.hpp"
#include "manifest_command.hpp"
#include "manifest_run.hpp"
#include "output.hpp"
#include "report.hpp"

namespace ea::cli {

Outcome lab_outcome(const std::vector<LabRow>& rows) {
  Outcome out;
  bool error = false, degenerate = false;
  for (const LabRow& row : rows) {
    const LabLine l = lab_line(row);
    if (l.result == "error") {
      (row.record.value("errorKind", std::string()) == "degenerate" ? degenerate : error) = true;
      continue;
    }
    out.add(l.result == "FAILED", false, !l.for_compliance);
  }
  if (error) return Outcome::error();
  out.degenerate = degenerate;
  return out;
}

namespace {

// A row's lab line as the whole run gave it: the source's name, its iidClaim and its page from
// the row's "run" (checked by read_source_shares; rows of older runs lack them).
LabRow merged_lab_row(size_t k, const nlohmann::ordered_json& row, const std::string& html) {
  const nlohmann::ordered_json& run = row["run"];
  nlohmann::ordered_json record = row;
  record.erase("run");
  const auto text = [&run](const char* key) {
    return run.contains(key) && run[key].is_string() ? std::optional<std::string>(run[key].get<std::string>()) : std::nullopt;
  };
  const std::string name =
      text("source").value_or(record.value("source", record.value("filename", std::string("source ") + std::to_string(k))));
  const std::optional<bool> claim =
      run.contains("iidClaim") && run["iidClaim"].is_boolean() ? std::optional<bool>(run["iidClaim"].get<bool>()) : std::nullopt;
  return LabRow{name, std::move(record), lab_page_link(text("page").value_or(""), html), claim};
}

}  // namespace

Outcome merge_source_shares(const std::vector<std::pair<std::string, std::string>>& outputs,
                            const std::vector<std::string>& files, bool quiet, const InputSet& inputs,
                            const std::atomic<bool>* interrupt) {
  const SourceShares sh = read_source_shares(files, interrupt);
  std::string html;  // --html's path: the lab rows link their pages relative to it
  for (const auto& [option, path] : outputs) {
    if (option == "--html") html = path;
  }
  std::string text;
  std::vector<LabRow> lab;
  for (const auto& [k, row] : sh.rows) {
    text += dump_json(row) + "\n";
    lab.push_back(merged_lab_row(k, row, html));
  }
  const nlohmann::ordered_json& first = sh.rows.begin()->second;
  const std::optional<uint64_t> seed =
      first["run"]["userSeed"].is_string() ? std::optional<uint64_t>(std::stoull(first["run"]["userSeed"].get<std::string>()))  // digits, checked
                                           : std::nullopt;
  const std::string command = first.value("commandline", std::string());
  OutputsInOrder ordered(outputs, inputs, interrupt);  // each file whole or not written
  ordered.write("merge", [&text] { return text; });
  for (const auto& [option, path] : outputs) {
    if (option == "--csv") ordered.write(option, [&lab] { return lab_csv(lab); });
    if (option == "--html") {
      ordered.write(option, [&] { return lab_html(lab, command, LabRun{first.value("dateTimeStamp", std::string()), seed}); });
    }
  }
  if (!quiet) {
    write_text(stdout, lab_text(lab) + std::to_string(lab.size()) + " sources from " + std::to_string(sh.shares) + " shares\n",
               "standard output");
    flush_checked(stdout, "standard output");
  }
  return lab_outcome(lab);
}

}  // namespace ea::cli
