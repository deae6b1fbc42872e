// The result model: one type for what came of one item, whatever its track. Every report
// (JSON record, NIST and our text, summary row, CSV, HTML) and the exit status are made
// from an ItemResult (report/); nothing else carries a result. A new kind of result is a
// new alternative of `value` and a new Track (docs/design.md, "Adding a result kind").
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "assess.hpp"
#include "common/error.hpp"
#include "non_iid.hpp"
#include "restart.hpp"

namespace ea {

// What an item computes: decided by its settings alone, before it runs (so that a skipped
// or failed item still knows its track).
enum class Track { Iid, Restart, NonIid };
const char* track_name(Track t);  // "IID", "Restart", "Non-IID": the JSON's "type"
Track track_of(const Settings& s);

// What an assessed item holds, by its track (Iid: Assessment; Restart: RestartAssessment;
// NonIid: NonIidAssessment).
using ItemValue = std::variant<std::monostate, Assessment, RestartAssessment, NonIidAssessment>;

struct ItemResult {
  enum class Status { Assessed, Skipped, Failed, Interrupted };
  Status status = Status::Interrupted;
  Track track = Track::Iid;
  // Assessed: the result of its track (Iid: Assessment; Restart: RestartAssessment; NonIid:
  // NonIidAssessment).
  ItemValue value;
  std::string message;                         // Skipped: why; Failed: the error
  ErrorKind error_kind = ErrorKind::Internal;  // Failed
  Remedy remedy = Remedy::None;                // Skipped, Failed: what the user can do (cli/ words it)
  std::string sha256;  // of the bytes read (also for Failed, when the error came after reading)
  double seconds = 0;

  bool assessed() const { return status == Status::Assessed; }
  const Assessment* iid() const { return std::get_if<Assessment>(&value); }
  const RestartAssessment* restart() const { return std::get_if<RestartAssessment>(&value); }
  const NonIidAssessment* non_iid() const { return std::get_if<NonIidAssessment>(&value); }
  // Of an assessed result: its verdict (the IID tests' alone: has_verdict() is false and
  // verdict() throws for the others), its check (the restart tests' pass/fail: has_check()),
  // whether it can stand as an SP 800-90B
  // assessment, the permutations it ran, and its warnings as (label, text).
  bool has_verdict() const { return iid() != nullptr; }
  Verdict verdict() const;
  bool has_check() const { return restart() != nullptr; }
  Check check() const;
  bool for_compliance() const;
  uint64_t permutations_run() const;
  std::vector<std::pair<std::string, std::string>> warnings() const;
};

}  // namespace ea
