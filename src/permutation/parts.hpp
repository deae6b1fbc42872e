// What the backends over several parts share (split.cpp: rounds cut across the parts;
// share.cpp: pieces taken as each part is free): the parts, the tests all of them compute,
// the sum of their round sizes, rebinding every one, the busiest one's device time (they run
// at the same time) and each part's profile line.
#pragma once

#include <string>
#include <vector>

#include "permutation/permutation.hpp"

namespace ea {

class PartsBackend : public PermutationBackend {
 public:
  // `kind` names the backend in the error for an empty list ("a split backend").
  PartsBackend(std::vector<PermutationBackend*> parts, const char* kind);

  TestMask supported() const override;
  uint32_t round_size(uint32_t round, TestMask mask) const override;
  bool rebind(const PermutationData& data) override;
  double busy_seconds() const override;
  // "part k: <its profile>[, <part_note(k)>]" for each part with either, joined by "; ".
  std::string profile() const override;

 protected:
  // The parts' names joined by " + ".
  std::string joined_names() const;
  // What profile() adds to part k's line ("" by default).
  virtual std::string part_note(size_t) const { return ""; }

  std::vector<PermutationBackend*> parts_;
};

}  // namespace ea
