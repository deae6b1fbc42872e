// Internal to report/esv_check.cpp and report/esv_files.cpp: the findings of one file of one
// source, and the origins' names they share.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "esv_check.hpp"

namespace ea::esv {

inline constexpr const char* kSn = "schema 38490704";
inline constexpr const char* kS18 = "schema 4b69a04c";
inline constexpr const char* kBoth = "schemas 38490704 and 4b69a04c";
inline constexpr const char* kProtocol = "protocol";
inline constexpr const char* kPackage = "package";
inline constexpr const char* kRegistration = "registration.json";

class Sink {
 public:
  Sink(std::string source, std::string file, std::vector<EsvFinding>* out)
      : source_(std::move(source)), file_(std::move(file)), out_(out) {}
  void add(EsvSeverity s, std::string field, std::string message, std::string rule, std::string origin) {
    out_->push_back({source_, file_, std::move(field), std::move(rule), std::move(origin), std::move(message), s});
  }
  void error(std::string field, std::string message, std::string rule, std::string origin) {
    add(EsvSeverity::Error, std::move(field), std::move(message), std::move(rule), std::move(origin));
  }
  void warning(std::string field, std::string message, std::string rule, std::string origin) {
    add(EsvSeverity::Warning, std::move(field), std::move(message), std::move(rule), std::move(origin));
  }
  void note(std::string field, std::string message, std::string rule, std::string origin) {
    add(EsvSeverity::Note, std::move(field), std::move(message), std::move(rule), std::move(origin));
  }
  Sink for_file(std::string file) const { return Sink(source_, std::move(file), out_); }

 private:
  std::string source_, file_;
  std::vector<EsvFinding>* out_;
};

// report/esv_files.cpp: a JSON file's document, or nullopt with a finding (a missing file
// only when `required`).
std::optional<nlohmann::ordered_json> read_json(const std::filesystem::path& path, Sink& sink, bool required = true);
// True when `p` (made canonical, links followed) lies inside `root` (canonical).
bool inside(const std::filesystem::path& root, const std::filesystem::path& p);
// A path of run.json (relative to the source's folder; an absolute one must still point into
// the package): the file, or nullopt with a finding; `missing` is the severity of a file that
// does not exist (a warning for a document the lab adds).
std::optional<std::filesystem::path> package_file(const std::filesystem::path& root, const std::filesystem::path& folder,
                                                  const nlohmann::ordered_json& value, const std::string& field,
                                                  Sink& sink, EsvSeverity missing = EsvSeverity::Error);

// What the file checks need from a registration.
struct Claim {
  int bits = 0;                     // bitsPerSample when an integer 1..8, else 0 (values not checked)
  int64_t oes = 1;                  // numberOfOEs
  std::vector<int64_t> non_vetted;  // the non-vetted components' sequencePositions, in order
};

// report/esv_data.cpp: run.json (an array of one object) and the files it names: the data
// files' sizes and values, the conditioned files' count and order, the supporting documents.
// Without a usable run.json, the layout's fixed names (rawNoise.bin, ...) are checked.
void check_run_file(const std::filesystem::path& root, const std::filesystem::path& folder,
                    const std::optional<nlohmann::ordered_json>& run, const Claim& claim, Sink& sink);

}  // namespace ea::esv
