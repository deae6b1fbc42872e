// The CLI's words for what the library reports as data: an error's Remedy becomes advice
// that names this program's options. Nothing below cli/ names a flag in an error.
#pragma once

#include <string>

#include "common/error.hpp"

namespace ea::cli {

// `message` with the remedy's advice ("; pass --allow-stream ...") appended.
std::string worded(const std::string& message, Remedy remedy);
inline std::string worded(const Error& e) { return worded(e.what(), e.remedy()); }

}  // namespace ea::cli
