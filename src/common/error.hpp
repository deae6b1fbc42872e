// Errors thrown by the library: a kind, a message that states the problem, and a Remedy.
// They are never printed here: the CLI turns them into one message on stderr (with the
// remedy in its own words) and an exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace ea {

enum class ErrorKind {
  Usage,     // bad command line
  Input,     // the sample file cannot be used
  Output,    // an output (JSON, JSONL, stdout) cannot be written safely or at all
  Device,    // GPU or driver failure: never a verdict
  Internal,  // a bug or resource failure
  Interrupted,  // stopped on request (SIGINT/SIGTERM): no result
  Degenerate,   // the samples hold one value only (a stuck source): no entropy, nothing to assess
};

// What the user can do about an error, as data: the library's messages state the problem
// without naming options; cli/ (cli/messages.hpp) words the remedy with its flags.
enum class Remedy {
  None,
  AllowStream,  // the input is a FIFO or device: it can be read to its end if asked
  SplitInput,   // too many samples for one assessment: assess it in parts
  KeepShort,    // a short last block was skipped: it can be assessed too
  StreamRange,  // a stream longer than is read without a range: give a range, or a file
  MapSamples,   // a sample wider than a symbol's 8 bits: select bits of it, or bin it
  MixedWidths,  // binary and wider files in one health-test run: give the width, or test them apart
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, Remedy remedy = Remedy::None)
      : std::runtime_error(message), kind_(kind), remedy_(remedy) {}
  ErrorKind kind() const noexcept { return kind_; }
  Remedy remedy() const noexcept { return remedy_; }

 private:
  ErrorKind kind_;
  Remedy remedy_;
};

}  // namespace ea
