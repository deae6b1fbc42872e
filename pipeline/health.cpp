#include "health.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "common/error.hpp"
#include "gpu_health.hpp"
#include "io/samples.hpp"

namespace ea {

namespace {

std::string alpha_text(double alpha) {
  int e = 0;
  if (std::frexp(alpha, &e) == 0.5) return "2^" + std::to_string(e - 1);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", alpha);
  return buf;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

Dataset load_file(const std::string& path, const Settings& s, const std::atomic<bool>* interrupt) {
  LoadOptions lo;
  lo.width = s.width;
  lo.allow_stream = s.allow_stream;
  lo.sample_input = s.sample_input;
  lo.threads = s.threads;
  lo.interrupt = interrupt;
  lo.allow_one_symbol = true;  // a stuck source: the RCT and the APT fail on it, as they should
  return load_dataset(path, lo);
}

HealthFileScan scan_file(const Dataset& d, const HealthCutoffs& c) {
  HealthFileScan f;
  static_cast<InputFacts&>(f) = input_facts(d);
  // The translated symbols: equal exactly where the samples are.
  f.rct = scan_rct(d.symbols.data(), d.symbols.size(), c.rct.cutoff);
  f.apt = scan_apt(d.symbols.data(), d.symbols.size(), c.apt.window, c.apt.cutoff);
  return f;
}

// A stuck file (one value) waiting for the cutoffs: its facts and length, not its samples.
struct StuckFile {
  InputFacts facts;
  size_t n = 0;
};

// Its scan: the symbols are n zeros (one value, rank 0), read from anonymous pages, which
// reading does not make resident, so a waiting file costs no memory.
HealthFileScan scan_stuck(const StuckFile& w, const HealthCutoffs& c) {
  HealthFileScan f;
  static_cast<InputFacts&>(f) = w.facts;
  void* p = w.n ? ::mmap(nullptr, w.n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : nullptr;
  if (p == MAP_FAILED) throw Error(ErrorKind::Internal, "no address space for the scan of " + w.facts.path);
  const uint8_t* zeros = static_cast<const uint8_t*>(p);
  f.rct = scan_rct(zeros, w.n, c.rct.cutoff);
  f.apt = scan_apt(zeros, w.n, c.apt.window, c.apt.cutoff);
  if (p) ::munmap(p, w.n);
  return f;
}

// Without the bits per sample given, the FILEs' symbols say whether the source is binary
// (SP 800-90B 4.4.2: the APT's window is 1024 for binary data, 512 else): the first file's,
// and every later file must be of the same kind; H within their bits.
// The bits of a file's symbols as its rule makes them (a mask's bits, 2^B bins), else as its
// values need (u8 data: NIST's inference).
int symbol_bits(const Dataset& d) {
  const SymbolRule& rule = d.mapping.input.rule;
  if (rule.kind == SymbolRule::Kind::Mask || rule.kind == SymbolRule::Kind::Auto) {
    return __builtin_popcount(d.mapping.mask);
  }
  if (rule.kind == SymbolRule::Kind::Bin) return rule.bits;
  return d.width;
}

void check_file_width(const HealthAssessment& a, const std::string& path, int width, const std::string& first_path,
                      int first) {
  if ((width == 1) != (first == 1)) {
    throw Error(ErrorKind::Usage, path + " holds " + std::to_string(width) + "-bit symbols where " + first_path +
                                      " holds " + std::to_string(first) + "-bit ones: a binary source's cutoffs differ "
                                      "from another's",
                Remedy::MixedWidths);
  }
  if (a.settings.health->h > width) {
    throw Error(ErrorKind::Usage, "H = " + number(a.settings.health->h) + " is more than the " + std::to_string(width) +
                                      " bits per sample of " + path + "'s symbols");
  }
}

void add_notes(HealthAssessment& a, bool width_from_files) {
  const double alpha = a.settings.health->alpha;
  if (alpha < kAlphaLeast || alpha > kAlphaMost) {
    a.notes.push_back("alpha = " + alpha_text(alpha) +
                      " is outside SP 800-90B 4.4's recommended range 2^-40 <= alpha <= 2^-20");
  }
  if (!a.cutoffs.apt.can_fail()) {
    a.notes.push_back("the Adaptive Proportion Test cannot fail: even " + std::to_string(a.cutoffs.apt.window) + " of " +
                      std::to_string(a.cutoffs.apt.window) + " equal samples are likelier than alpha at H = " +
                      number(a.settings.health->h));
  }
  if (a.settings.width == 0) {
    a.notes.push_back("the bits per sample not given: the source is taken as non-binary (the APT's window of 512; a "
                      "binary source's is 1024)");
  } else if (width_from_files) {
    a.notes.push_back(a.settings.width == 1
                          ? "the bits per sample not given: the FILEs' symbols are 1-bit, so the source is binary (the "
                            "APT's window of 1024)"
                          : "the bits per sample not given: the FILEs' symbols are up to " +
                                std::to_string(a.settings.width) + "-bit, so the source is non-binary (the APT's "
                                "window of 512)");
  }
}

// The Monte Carlo check on the device s.device picks (assess_health).
void simulate(HealthAssessment& a, const Settings& s, const std::atomic<bool>* interrupt,
              const std::function<void(const std::string&)>& note) {
  HealthSimulationSpec spec;
  spec.samples = s.health->simulate;
  spec.seed = s.seed;
  spec.threads = s.threads;
  spec.interrupt = interrupt;
  if (s.device != DeviceChoice::Cpu) {
    try {
      GpuHealthSimulation g = simulate_health_on_gpu(a.cutoffs, s.width, spec, s.gpus.empty() ? 0 : s.gpus.front());
      a.simulation = std::move(g.simulation);
      a.simulation_device = "gpu";
      a.simulation_gpu = std::move(g.device);
      return;
    } catch (const Error& e) {
      if (s.device == DeviceChoice::Gpu || e.kind() != ErrorKind::Device) throw;
      if (note) note(std::string("the Monte Carlo check runs on the CPU: ") + e.what());
    }
  }
  a.simulation = simulate_health(a.cutoffs, s.width, spec);
  a.simulation_device = "cpu";
}

}  // namespace

bool HealthAssessment::failed() const {
  for (const HealthFileScan& f : files) {
    if (f.failed()) return true;
  }
  return false;
}

HealthAssessment assess_health(const Settings& s, const std::vector<std::string>& files,
                               const std::atomic<bool>* interrupt,
                               const std::function<void(const std::string&)>& note) {
  if (!s.health) throw Error(ErrorKind::Usage, "the health tests' cutoffs need a claimed min-entropy H");
  HealthAssessment a;
  a.settings = s;
  a.cutoffs = health_cutoffs(s.health->h, s.health->alpha, s.width == 1);
  // Without --bits the first file whose symbols tell their width decides the cutoffs; stuck
  // files (one value: no width to tell) before it wait, read once (a stream cannot be read
  // twice) and kept as their facts and lengths.
  int first_width = 0;
  std::string first_path;
  std::vector<StuckFile> waiting;
  for (size_t k = 0; k < files.size(); ++k) {
    Dataset d = load_file(files[k], s, interrupt);
    if (const std::string hint = wide_capture_hint(d.mapping, d.size()); !hint.empty()) {
      a.notes.push_back(files[k] + ": " + hint);
    }
    if (s.width == 0 && d.alphabet > 1) {
      const int width = symbol_bits(d);
      if (first_width == 0) first_width = width, first_path = files[k];
      check_file_width(a, files[k], width, first_path, first_width);
      a.cutoffs = health_cutoffs(s.health->h, s.health->alpha, first_width == 1);
      a.settings.width = std::max(a.settings.width, width);
    }
    if (s.width == 0 && first_width == 0) {
      waiting.push_back(StuckFile{input_facts(d), d.symbols.size()});
      continue;
    }
    for (const StuckFile& w : waiting) a.files.push_back(scan_stuck(w, a.cutoffs));
    waiting.clear();
    a.files.push_back(scan_file(d, a.cutoffs));
  }
  for (const StuckFile& w : waiting) a.files.push_back(scan_stuck(w, a.cutoffs));  // every file stuck
  add_notes(a, s.width == 0 && a.settings.width > 0);
  if (s.health->simulate > 0) simulate(a, a.settings, interrupt, note);
  return a;
}

}  // namespace ea
