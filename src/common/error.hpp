// Errors thrown by the library. They are never printed here: the CLI turns them into
// one message on stderr and an exit code.
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
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace ea
