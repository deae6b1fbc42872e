// The continuous health tests' cutoffs of a source (SP 800-90B 4.4; ea_iid health-tests H):
// a result without a data set. It is no ItemResult alternative (no file to load, hash, resume
// or merge; no verdict), as the conditioning component's h_out from numbers is none:
// docs/design.md "Adding a result kind". Running the tests over samples (issue 46) will be.
#pragma once

#include <string>
#include <vector>

#include "assess.hpp"
#include "health/health.hpp"

namespace ea {

struct HealthAssessment {
  // As checked by check_settings: `health` (H, alpha) and `width` (the bits per sample; 0:
  // not given, a source taken as non-binary; 1: binary, the APT's window of 1024).
  Settings settings;
  HealthCutoffs cutoffs;
  // What the numbers do not say: alpha outside SP 800-90B 4.4's recommended 2^-40..2^-20, an
  // APT cutoff above its window (the test cannot fail), bits not given.
  std::vector<std::string> notes;
};

// The cutoffs of s.health for a source of s.width bits. Throws Error{Usage} without s.health
// or for values check_settings refuses (front doors call it first, naming their settings).
HealthAssessment assess_health(const Settings& s);

}  // namespace ea
