// Helpers for tests that run the ea_iid executable.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace cli_test {

struct Result {
  int code;
  std::string out, err;
};

// The bundled sample files' folder, with its trailing slash.
inline const std::string kSamples = std::string(EA_TEST_DATA_DIR) + "/samples/";

inline std::string tmp(const std::string& name) { return std::string(EA_TEST_TMP_DIR) + "/" + name; }

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `env_prefix`: e.g. "env OMP_NUM_THREADS=6 " before the executable.
inline Result run_with_env(const std::string& env_prefix, const std::string& args) {
  // ctest runs test cases in parallel processes: file names carry the process id.
  static int calls = 0;
  const std::string tag = std::to_string(::getpid()) + "-" + std::to_string(++calls);
  const std::string out = tmp("cli_stdout-" + tag + ".txt"), err = tmp("cli_stderr-" + tag + ".txt");
  std::string cmd = env_prefix + std::string(EA_IID_EXE) + " " + args + " >" + out + " 2>" + err;
  int status = std::system(cmd.c_str());
  return Result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

inline Result run(const std::string& args) { return run_with_env("", args); }

// A fresh, empty folder of this process for one test case (its name carries the process id:
// ctest runs test cases in parallel processes).
inline std::string scratch(const std::string& name) {
  const std::string d = tmp(std::to_string(::getpid()) + "-" + name);
  if (std::system(("rm -rf '" + d + "' && mkdir -p '" + d + "'").c_str()) != 0) {
    throw std::runtime_error("cannot make the folder " + d);
  }
  return d;
}

inline std::string write_bytes(const std::string& name, const std::string& bytes) {
  const std::string path = tmp(std::to_string(::getpid()) + "-" + name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

}  // namespace cli_test
