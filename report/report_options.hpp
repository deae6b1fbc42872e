// What a report needs besides the result: the run's facts and the reader's choices. Plain
// library values (cli/ fills them from its options; the C++ API and Python from theirs).
#pragma once

#include <cstdio>
#include <string>

#include "result.hpp"

namespace ea {

struct ReportOptions {
  std::string started;       // the run's start, UTC, YYYYMMDDhhmmss (JSON "dateTimeStamp")
  std::string command_line;  // JSON "commandline", the HTML page's heading
  std::string first_file;    // the file an error before any item belongs to
  Track track = Track::Iid;  // of the run (errors and skipped rows carry it)
  // Text only.
  int verbose = 0;           // -v count
  bool nist_format = false;  // --format nist: NIST's own text, line for line
  int nist_level = -1;       // --format nist, or run as ea_non_iid or ea_restart: NIST's verbosity level
                             // (1 + -v count; 0: -q); -1: not
  bool quiet = false;        // no text at all
  bool timing = false;       // --timing lines
  bool head_shown = false;   // print_text_head already printed the estimates and chi-square and LRS
  // NIST's own stderr lines (its Cephes "igamc: UNDERFLOW") at --format nist: NIST prints
  // them on its standard error, so its standard output never holds them. Null: at the top
  // of the text (also where our -v -v -v prints it, as the golden files have it).
  std::FILE* nist_stderr = nullptr;
};

// The start of a run as JSON's dateTimeStamp (UTC, YYYYMMDDhhmmss).
std::string timestamp_now();

}  // namespace ea
