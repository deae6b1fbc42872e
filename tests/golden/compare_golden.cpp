// Compares ea_iid -v -v -v output with a NIST ea_iid 1.1.7 -v -v -v golden file.
//
// usage: compare_golden GOLDEN OURS [--rel 1e-9] [--pabs 1e-6]
//
// Every labelled value of GOLDEN ("Label = value" or "Label: value"; the "Loaded ..."
// line gives samples, distinct symbols and bits per symbol; "Opening file" gives the
// SHA-256) must appear in OURS under the same label. Numbers agree to a relative
// tolerance, P-values and Pr(X >= 1) to an absolute one, words exactly. Prints
// "N passed, M failed" and exits 0 only when M is 0.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Label -> value, in file order.
std::vector<std::pair<std::string, std::string>> parse(const char* path, bool& ok) {
  std::ifstream in(path);
  ok = in.good();
  std::vector<std::pair<std::string, std::string>> out;
  static const std::regex loaded(R"(Loaded (\d+) samples of (\d+) distinct (\d+)-bit-wide symbols)");
  static const std::regex hash(R"(SHA-256 hash ([0-9a-f]{64}))");
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    std::smatch m;
    if (std::regex_search(line, m, loaded)) {
      out.emplace_back("samples", m[1]);
      out.emplace_back("distinct symbols", m[2]);
      out.emplace_back("bits per symbol", m[3]);
      continue;
    }
    if (line.rfind("Opening file", 0) == 0) {
      if (std::regex_search(line, m, hash)) out.emplace_back("sha256", m[1]);
      continue;
    }
    size_t at = line.rfind(" = ");
    size_t skip = 3;
    if (at == std::string::npos) {
      at = line.rfind(": ");
      skip = 2;
    }
    if (at == std::string::npos) continue;
    out.emplace_back(trim(line.substr(0, at)), trim(line.substr(at + skip)));
  }
  return out;
}

bool number(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0';
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  double rel = 1e-9, pabs = 1e-6;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rel" && i + 1 < argc) {
      rel = std::atof(argv[++i]);
    } else if (a == "--pabs" && i + 1 < argc) {
      pabs = std::atof(argv[++i]);
    } else {
      files.push_back(a);
    }
  }
  if (files.size() != 2) {
    std::fprintf(stderr, "usage: compare_golden GOLDEN OURS [--rel 1e-9] [--pabs 1e-6]\n");
    return 2;
  }
  bool ok_ref = false, ok_ours = false;
  auto ref = parse(files[0].c_str(), ok_ref);
  auto ours_list = parse(files[1].c_str(), ok_ours);
  if (!ok_ref || !ok_ours || ref.empty()) {
    std::fprintf(stderr, "compare_golden: cannot read %s\n", (!ok_ref || ref.empty() ? files[0] : files[1]).c_str());
    return 2;
  }
  std::map<std::string, std::string> ours;
  for (auto& kv : ours_list) ours[kv.first] = kv.second;  // the last occurrence wins
  std::map<std::string, std::string> want_map;
  for (auto& kv : ref) want_map[kv.first] = kv.second;
  int passed = 0, failed = 0;
  for (const auto& [key, want] : want_map) {
    auto it = ours.find(key);
    if (it == ours.end()) {
      std::printf("MISSING  '%s' (reference %s)\n", key.c_str(), want.c_str());
      ++failed;
      continue;
    }
    const std::string& got = it->second;
    double w = 0, g = 0;
    bool good;
    if (number(want, w) && number(got, g)) {
      bool probability = key.find("P-value") != std::string::npos || key.find("Pr(X") != std::string::npos;
      good = probability ? std::fabs(w - g) <= pabs
                         : (w == g || std::fabs(w - g) <= rel * std::fmax(std::fabs(w), std::fabs(g)));
    } else {
      good = want == got;
    }
    if (good) {
      ++passed;
    } else {
      std::printf("DIFFERS  '%s': reference %s, ours %s\n", key.c_str(), want.c_str(), got.c_str());
      ++failed;
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
