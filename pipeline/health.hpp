// The continuous health tests' cutoffs of a source (SP 800-90B 4.4; ea_iid health-tests H),
// the tests run with them over the samples of files, and their Monte Carlo check: one result,
// no ItemResult alternative (no verdict; its files are read, hashed and scanned in one run, not
// resumed or merged one by one), as the conditioning component's h_out from numbers is none:
// docs/design.md "Adding a result kind".
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "assess.hpp"
#include "health/health.hpp"
#include "health/scan.hpp"
#include "health/simulate.hpp"

namespace ea {

// Both tests run over one file's symbols (health/scan.hpp) with the assessment's cutoffs; its
// InputFacts: path, sha256, samples, width (the bits per symbol, given or inferred) and the
// mapping of its samples to symbols (--sample-format, --select-bits, --bin).
struct HealthFileScan : InputFacts {
  RctScan rct;
  AptScan apt;
  bool failed() const { return rct.failures > 0 || apt.failures > 0; }
};

struct HealthAssessment {
  // As checked by check_settings: `health` (H, alpha) and `width` (the bits per sample; 0:
  // not given, a source taken as non-binary; 1: binary, the APT's window of 1024). Without
  // the bits given, FILEs set `width` (the widest file's symbols) and with it whether the
  // source is binary.
  Settings settings;
  HealthCutoffs cutoffs;
  // What the numbers do not say: alpha outside SP 800-90B 4.4's recommended 2^-40..2^-20, an
  // APT cutoff above its window (the test cannot fail), bits not given.
  std::vector<std::string> notes;
  std::vector<HealthFileScan> files;          // in the order given
  std::optional<HealthSimulation> simulation;  // with s.health->simulate
  // Where the simulation ran: "cpu", or "gpu" with simulation_gpu naming it ("GPU 0: ...").
  std::string simulation_device;
  std::string simulation_gpu;
  // Whether either test failed on some file.
  bool failed() const;
};

// The cutoffs of s.health for a source of s.width bits (0 with `files`: the files' symbols'
// bits, every file binary or none: Error{Usage} else, or when H is above them); each file of
// `files` read with s.width (0: inferred) and s.sample_input (its own mapping: an auto mask or bins found on
// each file) and scanned; the Monte Carlo check when s.health->simulate > 0, from s.seed:
// on GPU s.gpus[0] unless s.device is Cpu (Auto: on the CPU's s.threads threads when no GPU
// is usable, `note` saying why; Gpu: that is Error{Device}), with the same counts on either
// (health/simulate.hpp: independent Philox runs). Throws Error{Usage} without s.health or
// for values check_settings refuses (front doors call it first, naming their settings), the
// loader's Error{Input} or Error{Degenerate} naming a file, Error{Device}, Error{Interrupted}
// (checked while reading and between the simulation's chunks or launches).
HealthAssessment assess_health(const Settings& s, const std::vector<std::string>& files = {},
                               const std::atomic<bool>* interrupt = nullptr,
                               const std::function<void(const std::string&)>& note = {});

}  // namespace ea
