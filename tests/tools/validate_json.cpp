// Validates JSON documents against a JSON Schema with the library's validator
// (report/schema.hpp: the subset docs/ea_iid.schema.json uses; the record reader checks rows
// with the same code). Arguments after the schema are files or folders (searched
// recursively for *.json and *.jsonl; a .jsonl file is one document per line). Files that are not JSON at all are skipped and counted (tests also write
// non-JSON files with these names on purpose). Exit 0 when every document is valid, 1
// otherwise (each error printed with its file, line and JSON pointer), 2 on bad usage.
//
// usage: validate_json SCHEMA PATH...
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "schema.hpp"

namespace fs = std::filesystem;
using nlohmann::ordered_json;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: validate_json SCHEMA PATH...\n";
    return 2;
  }
  const ea::SchemaValidator validator(ordered_json::parse(std::ifstream(argv[1])));
  std::vector<fs::path> files;
  for (int i = 2; i < argc; ++i) {
    const fs::path p = argv[i];
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied)) {
        const auto ext = e.path().extension();
        // The link's own type first: the safety tests leave links that loop or dangle, and
        // following one would throw (ELOOP).
        if (e.symlink_status().type() != fs::file_type::regular) continue;
        if (ext == ".json" || ext == ".jsonl") files.push_back(e.path());
      }
    } else {
      files.push_back(p);
    }
  }
  size_t documents = 0, invalid = 0, skipped = 0;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream whole;
    whole << in.rdbuf();
    std::vector<std::pair<size_t, std::string>> docs;  // (line, text)
    if (f.extension() == ".jsonl") {
      std::istringstream lines(whole.str());
      size_t n = 0;
      for (std::string line; std::getline(lines, line);) {
        ++n;
        if (!line.empty()) docs.emplace_back(n, line);
      }
    } else {
      docs.emplace_back(0, whole.str());
    }
    for (const auto& [line, text] : docs) {
      const ordered_json doc = ordered_json::parse(text, nullptr, false);
      if (doc.is_discarded() || !doc.is_object()) {
        ++skipped;
        continue;
      }
      ++documents;
      const auto errors = validator.check(doc);
      if (errors.empty()) continue;
      ++invalid;
      for (const auto& e : errors) {
        std::cout << f.string() << (line ? ":" + std::to_string(line) : "") << ": " << (e.pointer.empty() ? "/" : e.pointer)
                  << ": " << e.what << "\n";
      }
    }
  }
  std::cout << "validate_json: " << documents << " documents in " << files.size() << " files, " << invalid
            << " invalid; " << skipped << " files or lines that are not JSON objects skipped\n";
  return invalid ? 1 : 0;
}
