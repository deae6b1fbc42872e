#include "gpu_tuning.hpp"

#include <cctype>
#include <cstdlib>

#include "common/error.hpp"
#include "gpu_tuning_keys.hpp"
#include "options.hpp"

namespace ea::cli {


std::string gpu_tuning_help() {
  const GpuTuning d;
  std::string s = "GPU speed and memory, KEY=VALUE,... (every value gives the same results): memory-share (share of the "
                  "free device memory, 0-1, default 0.85)";
  for (const GpuTuningKey& k : gpu_tuning_keys()) s += "; " + std::string(k.name) + " (" + k.help + ", default " + gpu_tuning_value(k, d) + ")";
  return s;
}

void parse_gpu_tuning(const std::string& text, GpuTuning& t) {
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    pos = comma + 1;
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(ErrorKind::Usage, "--gpu-tuning: '" + item + "' is not KEY=VALUE (keys: see --help)");
    }
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    const std::string option = "--gpu-tuning " + key;
    if (key == "memory-share") {
      char* end = nullptr;
      const double v = value.empty() ? 0 : std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(v > 0 && v <= 1)) {
        throw Error(ErrorKind::Usage, option + ": '" + value + "' is not a fraction in (0, 1]");
      }
      t.memory_share = v;
      continue;
    }
    const GpuTuningKey* found = nullptr;
    for (const GpuTuningKey& k : gpu_tuning_keys()) found = key == k.name ? &k : found;
    if (!found) {
      std::string keys = "memory-share";
      for (const GpuTuningKey& k : gpu_tuning_keys()) keys += std::string(", ") + k.name;
      throw Error(ErrorKind::Usage, "--gpu-tuning: unknown key '" + key + "' (keys: " + keys + ")");
    }
    const uint64_t v = parse_unsigned(value, option, found->min, found->max);
    if (key == "lookahead" && v != 0 && v != 2 && v != 4 && v != 8) {
      throw Error(ErrorKind::Usage, option + ": " + value + " is not 0, 2, 4 or 8");
    }
    if (found->u64) t.*found->u64 = v;
    if (found->u32) t.*found->u32 = static_cast<uint32_t>(v);
    if (found->flag) t.*found->flag = v != 0;
  }
}

}  // namespace ea::cli
