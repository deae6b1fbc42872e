// How a run ended, and the one function that turns it into the process's exit status.
#pragma once

#include <csignal>

namespace ea::cli {

// The outcome of a run (one assessment or a batch): how it ended and, when it completed,
// what its verdicts were.
struct Outcome {
  enum class End { Completed, Error, Interrupted };
  End end = End::Completed;
  bool not_iid = false;        // some verdict is "not IID", or some check failed (restart tests, a source)
  bool inconclusive = false;   // some verdict or check is "inconclusive"
  bool not_compliant = false;  // some result cannot be an SP 800-90B assessment
  bool nothing_assessed = false;  // no item was assessed (all skipped, an empty share): never a pass
  bool degenerate = false;  // some item's samples hold one value only (ErrorKind::Degenerate), and no other error

  static Outcome error() { return Outcome{End::Error}; }
  static Outcome degenerate_source() {
    Outcome o;
    o.degenerate = true;
    return o;
  }
  static Outcome interrupted() { return Outcome{End::Interrupted}; }
  // Adds the verdicts of another completed assessment.
  void add(bool is_not_iid, bool is_inconclusive, bool is_not_compliant) {
    not_iid = not_iid || is_not_iid;
    inconclusive = inconclusive || is_inconclusive;
    not_compliant = not_compliant || is_not_compliant;
  }
};

// What the user asked of the exit status.
struct ExitPolicy {
  bool exit_code = false;  // --exit-code: 1 unless every verdict is IID
  bool strict = false;     // --strict: 0 only for compliant IID verdicts (implies --exit-code)
};

// The exit status, in order of precedence:
//   128 + signal  interrupted (130 SIGINT, 143 SIGTERM)
//   2             an error (bad input, usage, an output that cannot be written, a device failure)
//   5             a degenerate source: the samples of an item hold one value only (all zeros, a
//                 stuck source), and no other error; whatever --exit-code or --strict say
//   4             --strict: some result cannot be a compliant assessment (exploratory
//                 --iterations, fewer than 1,000,000 samples, a generator not for compliance,
//                 chi-square not evaluable), or nothing was assessed at all
//   1             --exit-code or --strict: some verdict is not IID or some check (the restart
//                 tests) failed (without --strict also inconclusive, or nothing assessed)
//   3             --strict: some verdict is inconclusive
//   0             otherwise
inline int exit_status(const Outcome& r, ExitPolicy p, int signal_number) {
  if (r.end == Outcome::End::Interrupted) return 128 + (signal_number == SIGTERM ? SIGTERM : SIGINT);
  if (r.end == Outcome::End::Error) return 2;
  if (r.degenerate) return 5;
  if (p.strict) {
    if (r.not_compliant || r.nothing_assessed) return 4;
    if (r.not_iid) return 1;
    if (r.inconclusive) return 3;
    return 0;
  }
  if (p.exit_code && (r.not_iid || r.inconclusive || r.nothing_assessed)) return 1;
  return 0;
}

}  // namespace ea::cli
