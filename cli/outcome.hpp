// How a run ended, and the one function that turns it into the process's exit status.
#pragma once

#include <csignal>

namespace ea::cli {

enum class Outcome {
  Completed,    // every assessment completed and each verdict is IID (or --exit-code is off)
  NotIid,       // completed, and some verdict is "not IID" or "inconclusive"
  Error,        // bad input, usage, an output that cannot be written, a device failure
  Interrupted,  // SIGINT/SIGTERM
};

// 0, 1 (only with --exit-code), 2, or 128 + the signal (130 for SIGINT, 143 for SIGTERM).
inline int exit_status(Outcome r, bool exit_code_option, int signal_number) {
  switch (r) {
    case Outcome::Completed: return 0;
    case Outcome::NotIid: return exit_code_option ? 1 : 0;
    case Outcome::Error: return 2;
    case Outcome::Interrupted: return 128 + (signal_number == SIGTERM ? SIGTERM : SIGINT);
  }
  return 2;
}

}  // namespace ea::cli
