// The lab summary of a manifest run (ea_iid source --manifest): one line per source, made
// from its per-source record (source_json, or an error record), so sources kept by --resume
// are reported like new ones. Our text table, a CSV and a self-contained HTML page that
// links each source's own page.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ea {

struct LabRow {
  std::string name;               // the source's name (primaryNoiseSource)
  nlohmann::ordered_json record;  // its record: type "Source", or an error record
  std::string page;               // its own HTML page, as the lab page links it ("": none)
  std::optional<bool> iid_claim;  // the manifest's iidClaim
};

// One source's line, in words.
struct LabLine {
  std::string name;
  std::string track;     // "IID", "non-IID" ("" for an error)
  std::string verdict;   // the IID tests' verdict, "not run" (non-IID track), "" for an error
  std::string entropy;   // the entropy that stands (flow.claimed, 6 decimals), "" for an error
  std::string unit;      // "per sample", "per 32-bit output"
  std::string h_i;       // H_I, the raw noise's entropy per sample (flow.hI, 6 decimals), "" for an error
  std::string result;    // "passed", "FAILED", "untested" (no restart data), "error"
  std::string failed;    // which step failed (or the error), "; "-separated; "" when none
  std::string note;      // iidClaim true but not IID: the claim was not confirmed
  bool for_compliance = false;
  std::string compliance_note;  // not for compliance: the first of its complianceNotes ("" when none)
};

// The run the lab page tells of, as each source's page does (the tool's version is this build's).
struct LabRun {
  std::string started;          // YYYYMMDDhhmmss, UTC
  std::optional<uint64_t> seed;  // none: no source draws random numbers
};
LabLine lab_line(const LabRow& row);

// The lab page's link to a source's page `page` (-o DIR/NAME.html as the run named it): relative
// to the folder of the lab page `html`; "" without a page, or when the lab page is not a file
// ("" or "-"). Relative names are taken from the working folder.
std::string lab_page_link(const std::string& page, const std::string& html);

// "4 sources: 2 passed, 1 FAILED, 1 untested, 0 errors".
std::string lab_counts(const std::vector<LabRow>& rows);
// The text table (a header, one line per source, the counts).
std::string lab_text(const std::vector<LabRow>& rows);
// CSV: source, track, iid_tests, h_i_bits_per_sample, h_validated_bits_per_sample, entropy,
// unit, result, failed, note, for_compliance, compliance_note, sha256, seed.
std::string lab_csv(const std::vector<LabRow>& rows);
// One HTML page (no script, no external resource): the run (tool, date, command, seed) and the
// table, each name linking its page.
std::string lab_html(const std::vector<LabRow>& rows, const std::string& command_line, const LabRun& run);

}  // namespace ea
