// Compares ea_iid -v -v -v output with a NIST ea_iid 1.1.7 -v -v -v golden file.
//
// usage: compare_golden GOLDEN OURS [--rel 1e-9] [--pabs 1e-6] [--lines [--restart]]
//
// --restart (with --lines; NIST ea_restart -i -v -v -v): the "Opening file" line compares
// the SHA-256 only (NIST's file had another name), X_cutoff may differ by 1 (NIST's
// unseeded simulation), and the second permutation block's unpermuted statistics are
// compared by label only (NIST computes them on the rows again, not on the columns).
//
// --lines (NIST's -v and -v -v layouts, --format nist): the files must have the same lines
// in the same order: equal once every number is masked, and every number equal to the
// tolerances above or to the last digit printed. The rows of the counter table are random:
// only their test names are compared.
//
// Every labelled value of GOLDEN ("Label = value" or "Label: value"; the "Loaded ..."
// line gives samples, distinct symbols and bits per symbol; "Opening file" gives the
// SHA-256) must appear in OURS under the same label. Numbers agree to a relative
// tolerance, P-values and Pr(X >= 1) to an absolute one, words exactly. Prints
// "N passed, M failed" and exits 0 only when M is 0.
#include <cmath>
#include <cstdio>
#include <algorithm>
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

std::vector<std::string> read_lines(const std::string& path, bool& ok) {
  std::ifstream in(path);
  ok = in.good();
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The numbers of a line, and the line with each replaced by '#'.
std::string mask_numbers(const std::string& line, std::vector<std::string>& numbers) {
  static const std::regex num(R"([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)");
  std::string masked;
  size_t at = 0;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), num); it != std::sregex_iterator(); ++it) {
    masked += line.substr(at, static_cast<size_t>(it->position()) - at) + "#";
    numbers.push_back(it->str());
    at = static_cast<size_t>(it->position() + it->length());
  }
  return masked + line.substr(at);
}

// One unit of the last decimal printed ("0.049333" -> 1e-6), 0 for exponent forms.
double last_digit(const std::string& s) {
  const size_t dot = s.find('.');
  if (dot == std::string::npos || s.find_first_of("eE") != std::string::npos) return s.find_first_of("eE") == std::string::npos ? 1 : 0;
  return std::pow(10.0, -static_cast<double>(s.size() - dot - 1));
}

int compare_lines(const std::string& golden, const std::string& ours_path, double rel, double pabs, bool restart) {
  bool ok_ref = false, ok_ours = false;
  const auto want = read_lines(golden, ok_ref), got = read_lines(ours_path, ok_ours);
  if (!ok_ref || !ok_ours || want.empty()) {
    std::fprintf(stderr, "compare_golden: cannot read %s\n", (!ok_ref || want.empty() ? golden : ours_path).c_str());
    return 2;
  }
  int passed = 0, failed = 0;
  bool in_table = false;
  int tables_done = 0;
  const size_t n = std::max(want.size(), got.size());
  for (size_t i = 0; i < n; ++i) {
    const std::string w = i < want.size() ? want[i] : "<missing>", g = i < got.size() ? got[i] : "<missing>";
    bool good;
    std::vector<std::string> wn0, gn0;
    if (restart && w.rfind("Opening file:", 0) == 0) {
      static const std::regex hash(R"(SHA-256 hash ([0-9a-f]{64}))");
      std::smatch a, b;
      good = std::regex_search(w, a, hash) && std::regex_search(g, b, hash) && a[1] == b[1];
    } else if (restart && tables_done == 1 && w.rfind("Permutation testing: Unpermuted result", 0) == 0) {
      good = mask_numbers(w, wn0) == mask_numbers(g, gn0);
    } else if (restart && w.find("X_cutoff: ") != std::string::npos) {
      good = mask_numbers(w, wn0) == mask_numbers(g, gn0) && wn0.size() == gn0.size();
      for (size_t k = 0; good && k < wn0.size(); ++k) {
        const bool cutoff = k + 1 == wn0.size();  // "ALPHA: a, X_cutoff: x": the last number
        good = cutoff ? std::fabs(std::atof(wn0[k].c_str()) - std::atof(gn0[k].c_str())) <= 1 : wn0[k] == gn0[k];
      }
    } else if (in_table && w != "(* denotes failed test)" && w.find("---") == std::string::npos) {
      // A counter row: the test's name only (counters and failure marks are random).
      auto name = [](const std::string& row) {
        std::string t = trim(row);
        return t.substr(0, t.find_first_of(" *"));
      };
      good = name(w) == name(g);
    } else {
      std::vector<std::string> wn, gn;
      good = mask_numbers(w, wn) == mask_numbers(g, gn) && wn.size() == gn.size();
      const bool probability = w.find("P-value") != std::string::npos || w.find("p-value") != std::string::npos ||
                               w.find("Pr(X") != std::string::npos;
      for (size_t k = 0; good && k < wn.size(); ++k) {
        double a = 0, b = 0;
        if (wn[k] == gn[k]) continue;
        if (!number(wn[k], a) || !number(gn[k], b)) {
          good = false;
          break;
        }
        const double d = std::fabs(a - b);
        good = d <= rel * std::fmax(std::fabs(a), std::fabs(b)) || (probability && d <= pabs) ||
               d <= 1.01 * std::fmax(last_digit(wn[k]), last_digit(gn[k])) * (wn[k].find('.') != std::string::npos);
      }
    }
    if (w.find("statistic  C[i][0]") != std::string::npos) in_table = true;
    if (w == "(* denotes failed test)") {
      in_table = false;
      ++tables_done;
    }
    if (good) {
      ++passed;
    } else {
      std::printf("line %zu differs:\n  reference: %s\n  ours:      %s\n", i + 1, w.c_str(), g.c_str());
      ++failed;
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  double rel = 1e-9, pabs = 1e-6;
  bool lines = false, restart = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--lines") {
      lines = true;
    } else if (a == "--restart") {
      restart = true;
    } else if (a == "--rel" && i + 1 < argc) {
      rel = std::atof(argv[++i]);
    } else if (a == "--pabs" && i + 1 < argc) {
      pabs = std::atof(argv[++i]);
    } else {
      files.push_back(a);
    }
  }
  if (files.size() != 2) {
    std::fprintf(stderr, "usage: compare_golden GOLDEN OURS [--rel 1e-9] [--pabs 1e-6] [--lines [--restart]]\n");
    return 2;
  }
  if (lines) return compare_lines(files[0], files[1], rel, pabs, restart);
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
