#include "permutation/parts.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "common/error.hpp"

namespace ea {

PartsBackend::PartsBackend(std::vector<PermutationBackend*> parts, const char* kind) : parts_(std::move(parts)) {
  if (parts_.empty()) throw Error(ErrorKind::Internal, std::string(kind) + " needs at least one part");
}

TestMask PartsBackend::supported() const {
  TestMask m = kAllTests;
  for (auto* p : parts_) m &= p->supported();
  return m;
}

uint32_t PartsBackend::round_size(uint32_t round, TestMask mask) const {
  uint64_t s = 0;
  for (auto* p : parts_) s += p->round_size(round, mask);
  return static_cast<uint32_t>(std::min<uint64_t>(s, UINT32_MAX));
}

bool PartsBackend::rebind(const PermutationData& data) {
  for (auto* p : parts_)
    if (!p->rebind(data)) return false;
  return true;
}

double PartsBackend::busy_seconds() const {
  double s = 0;
  for (auto* p : parts_) s = std::max(s, p->busy_seconds());
  return s;
}

std::string PartsBackend::profile() const {
  std::string s;
  for (size_t k = 0; k < parts_.size(); ++k) {
    std::string one = parts_[k]->profile();
    if (one.rfind("part ", 0) == 0) one = "[" + one + "]";  // (a part of parts: its own list)
    const std::string note = part_note(k);
    one += (one.empty() || note.empty() ? "" : ", ") + note;
    if (!one.empty()) s += (s.empty() ? "" : "; ") + ("part " + std::to_string(k) + ": " + one);
  }
  return s;
}

std::string PartsBackend::joined_names() const {
  std::string s;
  for (size_t k = 0; k < parts_.size(); ++k) s += (k ? " + " : "") + parts_[k]->name();
  return s;
}

}  // namespace ea
