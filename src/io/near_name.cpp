#include "io/near_name.hpp"

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <vector>

namespace ea {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string nearest_name(const std::string& typed, const std::vector<std::string>& names) {
  const auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::string near;
  size_t best = 3;
  for (const std::string& name : names) {
    const size_t d = std::min(edit_distance(typed, name), edit_distance(lower(typed), lower(name)));
    if (d < best) {
      best = d;
      near = name;
    }
  }
  if (!near.empty()) return near;
  // An abbreviation: the one name that shares all but the last two characters of `typed`, and
  // at least 4, as its start ("vali", "validationNo": validationNumber).
  const std::string t = lower(typed);
  size_t longest = 0;
  for (const std::string& name : names) {
    const std::string l = lower(name);
    size_t common = 0;
    while (common < t.size() && common < l.size() && t[common] == l[common]) ++common;
    if (common < 4 || common + 2 < t.size() || common == l.size()) continue;
    if (common > longest) {
      longest = common;
      near = name;
    } else if (common == longest) {
      near.clear();  // two names as near: none
    }
  }
  return near;
}

std::string near_file_name(const std::string& missing) {
  const size_t slash = missing.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : missing.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? missing : missing.substr(slash + 1);
  if (base.size() < 4) return "";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return "";
  std::string best;
  size_t best_distance = 3, seen = 0;
  while (const dirent* e = ::readdir(d)) {
    if (++seen > 10000) break;  // a huge folder: no suggestion rather than a long scan
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const size_t distance = edit_distance(base, name);
    if (distance < best_distance) best_distance = distance, best = name;
  }
  ::closedir(d);
  return best.empty() ? "" : (slash == std::string::npos ? "" : dir) + best;
}

}  // namespace ea
