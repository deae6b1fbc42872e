#include "gpu_tuning.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "common/error.hpp"
#include "common/numbers.hpp"
#include "gpu_tuning_keys.hpp"
#include "help.hpp"
#include "options.hpp"

namespace ea::cli {


std::vector<std::string> gpu_tuning_key_lines() {
  const GpuTuning d;
  std::vector<std::string> lines = {"memory-share: share of the free device memory, a fraction in (0, 1] (default 0.85)"};
  for (const GpuTuningKey& k : gpu_tuning_keys()) {
    // (a flag's help starts with "0 or 1"; an integer key's range follows its default; the
    // default and range stay on one line of the wrapped help)
    const std::string g(1, kGlue);
    const std::string range = k.flag ? "" : ";" + g + std::to_string(k.min) + g + "to" + g + std::to_string(k.max);
    lines.push_back(std::string(k.name) + ": " + k.help + " (default" + g + gpu_tuning_value(k, d) + range + ")");
  }
  return lines;
}

bool print_gpu_tuning_help(int argc, char** argv) {
  bool asked = false;
  for (int i = 1; i < argc && !asked; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    asked = a == "--gpu-tuning=help" || (a == "--gpu-tuning" && i + 1 < argc && std::string(argv[i + 1]) == "help");
  }
  if (!asked) return false;
  std::printf("--gpu-tuning KEY=VALUE,...: GPU speed and memory (every value gives the same results)\n");
  for (const std::string& line : gpu_tuning_key_lines()) std::printf("  %s\n", wrap_text(line, 4, kHelpWidth, 2).c_str());
  return true;
}

void parse_gpu_tuning(const std::string& text, GpuTuning& t) {
  size_t pos = 0;
  std::vector<std::string> given;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) {
      throw Error(ErrorKind::Usage, "--gpu-tuning '" + text + "': an empty item (a comma too many?)");
    }
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(ErrorKind::Usage, "--gpu-tuning: '" + item + "' is not KEY=VALUE (keys: --gpu-tuning help)");
    }
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    const std::string option = "--gpu-tuning " + key;
    if (std::find(given.begin(), given.end(), key) != given.end()) {
      throw Error(ErrorKind::Usage, option + " is given twice ('" + text + "'): give each key once");
    }
    given.push_back(key);
    if (key == "memory-share") {
      const double v = parse_real<double>(value, option);
      if (!(v > 0 && v <= 1)) {
        throw Error(ErrorKind::Usage, option + ": '" + value + "' is not a fraction in (0, 1]");
      }
      t.memory_share = v;
      continue;
    }
    const GpuTuningKey* found = nullptr;
    for (const GpuTuningKey& k : gpu_tuning_keys()) found = key == k.name ? &k : found;
    if (!found) {
      std::vector<std::string> names = {"memory-share"};
      for (const GpuTuningKey& k : gpu_tuning_keys()) names.emplace_back(k.name);
      const std::vector<std::string> near = nearest_names(key, names);
      std::string keys;
      for (const std::string& n : names) keys += (keys.empty() ? "" : ", ") + n;
      throw Error(ErrorKind::Usage, "--gpu-tuning: unknown key '" + key + "'" +
                                        (near.empty() ? "" : "; did you mean " + near.front() + "?") + " (keys: " + keys +
                                        "; --gpu-tuning help)");
    }
    const uint64_t v = parse_unsigned(value, option, found->min, found->max);
    if (found->u64) t.*found->u64 = v;
    if (found->u32) t.*found->u32 = static_cast<uint32_t>(v);
    if (found->flag) t.*found->flag = v != 0;
  }
}

}  // namespace ea::cli
