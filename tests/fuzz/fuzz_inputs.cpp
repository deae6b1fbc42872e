// Fuzz target for what a user controls: the sample reader (file bytes, width, -l) and the
// option parser (argv). One entry point, LLVMFuzzerTestOneInput, serves libFuzzer (built
// with clang and -DEA_IID_LIBFUZZER=ON) and the deterministic driver below (any compiler;
// CI builds it with -fsanitize=address,undefined): random inputs from a printed seed for a
// bounded time, so that any failure can be replayed with the same --seed.
//
// Properties checked beyond "no crash, no sanitizer report":
// - the reader either throws ea::Error or returns a dataset whose samples are exactly
//   the bytes of the requested range, whose SHA-256 is that of the whole file, and whose
//   symbols are a bijective, order-keeping translation of the samples;
// - the parser either throws ea::Error{Usage} or returns options within their ranges;
// - parse_unsigned accepts exactly the canonical decimal (or 0x hex) numbers in range;
// - the ten non-IID estimators (literal and bitstring, -i/-c, -a/-t) and the IID track's
//   unpermuted statistics, chi-square and LRS tests on small data sets of 1-8 bits: every
//   evaluated estimate is a finite bound in [0, bits] with its probabilities in [0, 1], the
//   assessed min-entropy in [0, width], every p-value in [0, 1], and (every 4th data set)
//   the CPU's bzip2 size model's length of the compression test's text equal to libbz2's;
// - the row reader (resume and merge: read_record, read_jsonl_rows) either refuses a row
//   with ea::Error{Input} or accepts one from which the summary row, the verdict tally, the
//   CSV and the HTML are made without any exception: rows are real ones (an IID assessment,
//   a not-IID one, an error, a skipped item), damaged field by field or byte by byte.
#include <openssl/evp.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <atomic>

#include "common/error.hpp"
#include "estimators/estimators.hpp"
#include "estimators/non_iid.hpp"
#include "permutation/permutation.hpp"
#include "files.hpp"
#include "io/samples.hpp"
#include "options.hpp"
#include "record.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "stats/bzip2_cpu.hpp"
#include "stats/compression.hpp"

namespace {

// How often each path ended each way (printed by the driver: the inputs must reach past
// the error checks, not only into them).
struct Counts {
  uint64_t read_ok = 0, read_error = 0, parse_ok = 0, parse_error = 0, number_ok = 0, number_error = 0;
  uint64_t row_ok = 0, row_refused = 0;
  uint64_t estimates = 0, estimates_refused = 0;
} tally;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz: property violated: %s\n", what.c_str());
  std::abort();
}

std::string hex_sha256(const uint8_t* p, size_t n) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(p, n, md, &len, EVP_sha256(), nullptr);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out += digits[md[i] >> 4];
    out += digits[md[i] & 15];
  }
  return out;
}

const std::string& scratch_file() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/ea_iid_fuzz_" + std::to_string(::getpid()) + ".bin";
  }();
  return path;
}

// data[0]: width (0-9: 0 infers, 9 is invalid); data[1]: subset mode; then the file.
void fuzz_reader(const uint8_t* data, size_t size) {
  if (size < 4) return;
  const int width = data[0] % 10;
  const int mode = data[1] % 4;
  const uint64_t index = data[2] % 8, count = 1 + data[3] * (mode == 3 ? 97 : 1);
  const uint8_t* body = data + 4;
  const size_t n = size - 4;
  {
    std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(body), static_cast<std::streamsize>(n));
    if (!out) fail("cannot write the scratch file");
  }
  ea::LoadOptions opt;
  opt.width = width;
  if (mode >= 2) opt.subset = ea::SubsetSpec{index, count};
  try {
    ea::Dataset d = ea::load_dataset(scratch_file(), opt);
    uint64_t begin = 0, len = n;
    if (opt.subset) {
      begin = index * count;
      len = std::min<uint64_t>(count, n - begin);
    }
    if (begin >= n || len == 0) fail("a dataset past the end of the file");
    if (d.raw.size() != len || std::memcmp(d.raw.data(), body + begin, len) != 0) fail("samples differ from the file");
    if (d.sha256 != hex_sha256(body, n)) fail("sha256 is not that of the file");
    if (d.alphabet < 2 || d.width < 1 || d.width > 8) fail("alphabet or width out of range");
    if (width >= 1 && width <= 8 && d.width != width) fail("width not the one given");
    for (size_t i = 0; i < d.size(); ++i) {
      if (d.raw_of[d.symbols[i]] != d.raw[i]) fail("translation is not a bijection");
      if (d.symbols[i] >= d.alphabet) fail("symbol outside the alphabet");
      if (d.raw[i] >> d.width) fail("sample wider than the width");
    }
    for (int k = 1; k < d.alphabet; ++k) {
      if (d.raw_of[k - 1] >= d.raw_of[k]) fail("translation does not keep the order");
    }
    ++tally.read_ok;
  } catch (const ea::Error& e) {
    ++tally.read_error;
    if (e.kind() == ea::ErrorKind::Degenerate) {
      // Only samples of one value are a degenerate source.
      const uint64_t begin = opt.subset ? index * count : 0;
      const uint64_t len = opt.subset ? std::min<uint64_t>(count, n - std::min<uint64_t>(begin, n)) : n;
      if (begin >= n || len == 0) fail(std::string("degenerate, but nothing was read: ") + e.what());
      for (uint64_t i = 1; i < len; ++i) {
        if (body[begin + i] != body[begin]) fail(std::string("degenerate, but the samples differ: ") + e.what());
      }
    } else if (e.kind() != ea::ErrorKind::Input && e.kind() != ea::ErrorKind::Usage) {
      fail(std::string("unexpected error kind: ") + e.what());
    }
  }
}

// The bytes split at NUL into arguments.
void fuzz_options(const uint8_t* data, size_t size) {
  std::vector<std::string> args{"ea_iid"};
  std::string cur;
  for (size_t i = 0; i < size && args.size() < 24; ++i) {
    if (data[i] == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (!cur.empty()) args.push_back(cur);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  ea::cli::Options o;
  // --help, --version and --list-prngs print to std::cout: keep the driver's output clean.
  std::ostringstream sink;
  std::streambuf* old = std::cout.rdbuf(sink.rdbuf());
  try {
    if (ea::cli::parse_options(static_cast<int>(args.size()), argv.data(), o) == ea::cli::ParseStatus::Run) {
      if (o.files.empty() || o.file != o.files.front()) fail("no file after a successful parse");
      if (o.settings.width < 0 || o.settings.width > 8 || o.settings.iterations < 1 || o.settings.iterations > 100000000) fail("option out of range");
      if (o.jobs < 0 || o.jobs > 64 || o.threads < 0 || o.threads > 4096) fail("option out of range");
      if (o.blocks && (*o.blocks < 1 || *o.blocks > ea::kMaxSamples)) fail("--blocks out of range");
      if (o.blocks && o.subset) fail("-l and --blocks both accepted");
      if (o.subset && o.subset->count == 0) fail("-l with COUNT 0 accepted");
      ++tally.parse_ok;
    }
  } catch (const ea::Error& e) {
    ++tally.parse_error;
    if (e.kind() != ea::ErrorKind::Usage) fail(std::string("parser threw a non-usage error: ") + e.what());
  }
  std::cout.rdbuf(old);
}

void fuzz_number(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const uint64_t v = ea::cli::parse_unsigned(text, "--n", 1, 1000000, true);
    if (v < 1 || v > 1000000) fail("parse_unsigned out of range");
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const uint64_t again = std::strtoull(text.c_str() + (hex ? 2 : 0), nullptr, hex ? 16 : 10);
    if (again != v) fail("parse_unsigned disagrees with strtoull on '" + text + "'");
    for (size_t i = hex ? 2 : 0; i < text.size(); ++i) {
      if (!std::isxdigit(static_cast<unsigned char>(text[i])) || (!hex && !std::isdigit(static_cast<unsigned char>(text[i])))) {
        fail("parse_unsigned accepted '" + text + "'");
      }
    }
    ++tally.number_ok;
  } catch (const ea::Error& e) {
    ++tally.number_error;
    if (e.kind() != ea::ErrorKind::Usage) fail("parse_unsigned threw a non-usage error");
  }
}

// Real rows to damage: results of small generated data sets (IID-looking bytes, a ramp
// that is not IID, an input error) and a skipped block, as result_json writes them.
const std::vector<nlohmann::ordered_json>& template_rows() {
  static const std::vector<nlohmann::ordered_json> rows = [] {
    std::vector<ea::Item> items(3);
    for (size_t k = 0; k < items.size(); ++k) {
      items[k].path = "generated " + std::to_string(k);
      items[k].generate = [k] {
        if (k == 2) throw ea::Error(ea::ErrorKind::Input, "cannot be made");
        std::vector<uint8_t> b(2000);
        std::mt19937 rng(1);
        for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(k == 0 ? rng() : i / 5);
        return ea::make_dataset(std::move(b), 8);
      };
    }
    ea::Item skipped;
    skipped.path = "short.bin";
    skipped.block = 1;
    skipped.skipped = "short block";
    items.push_back(skipped);
    ea::Settings s;
    s.seed = 1;
    s.iterations = 30;
    s.device = ea::DeviceChoice::Cpu;
    s.threads = 1;
    ea::ReportOptions o;
    o.started = "20261125000000";
    std::vector<nlohmann::ordered_json> out;
    ea::RunObserver obs;
    obs.finished = [&](size_t, const ea::Item& it, ea::ItemResult& r) {
      out.push_back(ea::result_json(r, it.path, it.block, o));
      // (generated data has no file digest: a row of a file has one)
      if (out.back().contains("sha256") && out.back()["sha256"] == "") out.back()["sha256"] = std::string(64, 'c');
      out.back()["run"] = {{"item", out.size() - 1}, {"items", 4}, {"list", std::string(64, 'a')}, {"userSeed", "1"}, {"shard", nullptr}};
      out.back() = nlohmann::ordered_json::parse(out.back().dump());  // as a JSONL line reads back
    };
    std::atomic<bool> stop{false};
    ea::run_items(items, s, 1, stop, obs);
    // Undamaged, every template is a row the reader accepts (else no damaged one could be).
    for (const auto& row : out) {
      try {
        (void)ea::read_record(row, "template");
      } catch (const ea::Error& e) {
        fail(std::string("a template row is refused undamaged: ") + e.what());
      }
    }
    return out;
  }();
  return rows;
}

// A random leaf or object of `j`, by the bytes of `data`.
nlohmann::ordered_json* pick_node(nlohmann::ordered_json& j, const uint8_t*& data, const uint8_t* end) {
  nlohmann::ordered_json* at = &j;
  while (data < end && (at->is_object() || at->is_array()) && !at->empty() && *data % 4 != 0) {
    const size_t k = static_cast<size_t>(data[0]) % at->size();
    ++data;
    auto it = at->begin();
    std::advance(it, static_cast<std::ptrdiff_t>(k));
    at = &*it;
  }
  if (data < end) ++data;
  return at;
}

// Everything downstream of the reader, on an accepted row: none of it may throw.
void use_row(const ea::Record& r) {
  ea::Tally t;
  t.add(r);
  (void)ea::csv_report({r.json});
  (void)ea::html_report({r.json}, "fuzz");
  if (r.result() && !r.verdict) fail("an accepted result row without a verdict");
}

// data[0]: the template; then edits, each (kind, path bytes..., value byte): another type's
// value, a removed field, or another value of the same type.
void fuzz_rows(const uint8_t* data, size_t size) {
  if (size < 2) return;
  const auto& rows = template_rows();
  nlohmann::ordered_json j = rows[data[0] % rows.size()];
  const uint8_t* p = data + 1;
  const uint8_t* end = data + size;
  const bool bytes = (data[0] & 0x80) != 0;
  if (!bytes) {
    for (int edits = 0; p < end && edits < 4; ++edits) {
      const uint8_t kind = *p++;
      nlohmann::ordered_json* node = pick_node(j, p, end);
      const uint8_t v = p < end ? *p++ : 0;
      switch (kind % 11) {
        case 9:
        case 10:  // another value of the same type: often still a valid row (the reader's cross-field checks and the reports)
          if (node->is_string() && !node->get_ref<std::string&>().empty()) {
            auto& str = node->get_ref<std::string&>();
            str[v % str.size()] = static_cast<char>(v % 2 ? '0' + v % 10 : 'a' + v % 6);
          } else if (node->is_number_unsigned()) {
            *node = static_cast<uint64_t>(v);
          } else if (node->is_number_integer()) {
            *node = static_cast<int>(v) - 128;
          } else if (node->is_number_float()) {
            *node = node->get<double>() * (v / 128.0);
          } else if (node->is_boolean()) {
            *node = !node->get<bool>();
          }
          break;
        case 0: *node = nullptr; break;
        case 1: *node = (v & 1) != 0; break;
        case 2: *node = static_cast<int>(v) - 128; break;
        case 3: *node = static_cast<uint64_t>(v) * 1000003u; break;
        case 4: *node = v * 1e300; break;
        case 5: *node = std::string(v % 5, static_cast<char>('0' + v % 40)); break;
        case 6: *node = nlohmann::ordered_json::array(); break;
        case 7: *node = nlohmann::ordered_json::object(); break;
        default:
          if (node->is_object() && !node->empty()) node->erase(node->begin());
          break;
      }
    }
    try {
      const ea::Record r = ea::read_record(j, "fuzz:1");
      ++tally.row_ok;
      use_row(r);
    } catch (const ea::Error& e) {
      ++tally.row_refused;
      if (e.kind() != ea::ErrorKind::Input) fail("the row reader threw a non-input error");
    } catch (const std::exception& e) {
      fail(std::string("an accepted row broke a report: ") + e.what() + "\n" + j.dump());
    }
    return;
  }
  // Bytes of a JSONL file: two rows, damaged in place.
  std::string text = rows[0].dump() + "\n" + rows[1].dump() + "\n";
  for (; p + 1 < end; p += 2) text[(static_cast<size_t>(p[0]) << 4 | p[1]) % text.size()] = static_cast<char>(p[1]);
  { std::ofstream(scratch_file(), std::ios::binary) << text; }
  try {
    const ea::JsonlRows read = ea::read_jsonl_rows(scratch_file());
    ++tally.row_ok;
    for (const auto& r : read.rows) use_row(r);
  } catch (const ea::Error& e) {
    ++tally.row_refused;
    if (e.kind() != ea::ErrorKind::Input) fail("the JSONL reader threw a non-input error");
  } catch (const std::exception& e) {
    fail(std::string("an accepted JSONL file broke a report: ") + e.what());
  }
}


// One estimate's bound: finite, in [0, most], with its probabilities in [0, 1].
void check_estimate(const ea::Estimate& e, double most, const char* where) {
  if (!e.evaluated) {
    if (e.reason.empty()) fail(std::string(ea::estimator_key(e.which)) + " (" + where + "): not evaluated without a reason");
    return;
  }
  if (!std::isfinite(e.entropy) || e.entropy < 0 || e.entropy > most + 1e-12) {
    fail(std::string(ea::estimator_key(e.which)) + " (" + where + "): min-entropy " + std::to_string(e.entropy) +
         " outside [0, " + std::to_string(most) + "]");
  }
  for (const auto& l : e.lines) {
    if (l.label.rfind("P_global", 0) != 0 && l.label != "P_local") continue;
    if (!(l.value >= 0 && l.value <= 1)) fail(std::string(ea::estimator_key(e.which)) + " (" + where + "): " + l.label + " outside [0, 1]");
  }
}

// data[0]: the width (0 infers it); data[1]: bit 0 -c (the bitstring only), bit 1 -t; then
// the samples, masked to the width.
void fuzz_estimators(const uint8_t* data, size_t size) {
  if (size < 3) return;
  const int width = data[0] % 9;
  const bool initial = (data[1] & 1) == 0, truncate = (data[1] & 2) != 0;
  std::vector<uint8_t> s(data + 2, data + size);
  if (width > 0) {
    for (auto& b : s) b = static_cast<uint8_t>(b & ((1u << width) - 1));
  }
  ea::Dataset d;
  try {
    d = ea::make_dataset(std::move(s), width);
  } catch (const ea::Error&) {
    ++tally.estimates_refused;
    return;
  }
  if (d.alphabet < 2) {  // the loader refuses a single symbol before any estimate
    ++tally.estimates_refused;
    return;
  }
  const ea::NonIidEstimates est = ea::non_iid_estimates(d, initial, truncate, 1);
  for (const auto& e : est.literal) {
    if (e) check_estimate(*e, d.width, "literal");
  }
  for (const auto& e : est.bitstring) {
    if (e) check_estimate(*e, 1.0, "bitstring");
  }
  if (!(est.h_assessed >= 0 && est.h_assessed <= d.width)) fail("the assessed min-entropy is outside [0, width]");
  // The IID track's unpermuted side.
  for (const auto& c : {ea::chi_square_independence(d.symbols, d.alphabet), ea::chi_square_goodness_of_fit(d.symbols, d.alphabet)}) {
    if (c.evaluable && !(c.p_value >= 0 && c.p_value <= 1)) {
      fail("a chi-square p-value outside [0, 1]: T " + std::to_string(c.statistic) + ", df " + std::to_string(c.df) +
           ", p " + std::to_string(c.p_value) + " (" + std::to_string(d.size()) + " samples of " +
           std::to_string(d.alphabet) + " symbols)");
    }
  }
  const ea::LrsResult lrs = ea::longest_repeated_substring(d.symbols, d.alphabet);
  if (!(lrs.pr_x_ge_1 >= 0 && lrs.pr_x_ge_1 <= 1)) fail("the LRS probability is outside [0, 1]");
  const ea::Baseline base = ea::baseline(d);
  const ea::StatParams params{base.mean, base.median, d.binary(), static_cast<uint32_t>(d.alphabet)};
  ea::StatVector stats{};
  ea::CpuScratch scratch;
  ea::cpu_statistics(d.symbols.data(), d.size(), d.raw_of.data(), params, ea::kAllTests, stats, scratch);
  // The compression statistic: the CPU's bzip2 size model gives libbz2's length (every 4th
  // data set: libbz2's 4.5 MB of tables a call under the sanitizers took 40% of the inputs
  // of CI's 30 s, session 42).
  if (tally.estimates++ % 4 != 0) return;
  ea::Compressor libbz2;
  ea::Bzip2SizeModel model;
  const uint64_t want = libbz2.compressed_length(d.symbols.data(), d.size(), d.raw_of.data());
  const uint64_t got = model.compressed_length(d.symbols.data(), d.size(), d.raw_of.data());
  if (got != want) {
    fail("the bzip2 size model gives " + std::to_string(got) + " bytes where libbz2 gives " + std::to_string(want) +
         " (" + std::to_string(d.size()) + " samples)");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  switch (data[0] % 5) {
    case 0: fuzz_reader(data + 1, size - 1); break;
    case 1: fuzz_options(data + 1, size - 1); break;
    case 2: fuzz_number(data + 1, size - 1); break;
    case 3: fuzz_rows(data + 1, size - 1); break;
    default: fuzz_estimators(data + 1, size - 1); break;
  }
  return 0;
}

#ifndef EA_IID_LIBFUZZER
namespace {

// Structured random inputs: mostly near-valid, so that the deep paths are reached.
std::vector<uint8_t> make_input(std::mt19937_64& rng) {
  auto pick = [&](uint64_t n) { return static_cast<uint64_t>(rng() % n); };
  std::vector<uint8_t> in;
  const int target = static_cast<int>(pick(5));
  in.push_back(static_cast<uint8_t>(target));
  if (target == 4) {  // estimators: a width, -c/-t, then 1-300 samples (structured or random)
    in.push_back(static_cast<uint8_t>(pick(9)));
    in.push_back(static_cast<uint8_t>(pick(4)));
    const size_t n = 1 + pick(pick(4) == 0 ? 300 : 140);
    const int kind = static_cast<int>(pick(4));
    const uint32_t period = 1 + static_cast<uint32_t>(pick(9));
    uint8_t v = static_cast<uint8_t>(rng());
    for (size_t i = 0; i < n; ++i) {
      const auto b = static_cast<uint8_t>(rng());
      if (kind == 0) v = b;                                       // uniform
      if (kind == 1 && pick(5) == 0) v = b;                       // runs
      if (kind == 2) v = static_cast<uint8_t>(i % period);        // periodic
      if (kind == 3) v = static_cast<uint8_t>(pick(10) ? 0 : b);  // mostly one symbol
      in.push_back(v);
    }
    return in;
  }
  if (target == 3) {  // rows: a template, then edits or byte damage
    const size_t n = 1 + pick(24);
    for (size_t i = 0; i < n; ++i) in.push_back(static_cast<uint8_t>(rng()));
    return in;
  }
  if (target == 0) {
    for (int i = 0; i < 4; ++i) in.push_back(static_cast<uint8_t>(rng()));
    const size_t n = pick(4) == 0 ? pick(8) : pick(6000);
    const int kind = static_cast<int>(pick(5));
    const uint8_t mask = static_cast<uint8_t>((1u << (1 + pick(8))) - 1);
    for (size_t i = 0; i < n; ++i) {
      uint8_t b = static_cast<uint8_t>(rng());
      if (kind == 0) b = 7;                          // one symbol
      if (kind == 1) b = static_cast<uint8_t>(b & 1);  // binary
      if (kind == 2) b &= mask;                      // narrow
      if (kind == 3) b = static_cast<uint8_t>(i % 3 == 0 ? 200 : b & 3);
      in.push_back(b);
    }
    return in;
  }
  static const std::vector<std::string> words = {
      "-i", "-c", "-a", "-t", "-v", "-q", "-l", "-o", "--seed", "--prng", "--threads", "--device", "--gpu",
      "--round-size", "--all-tests", "--no-early-exit", "--exit-code", "--iterations", "--timing", "--log-level",
      "--cpu-compression", "--verify", "--bits", "--blocks", "--jobs", "--keep-short", "--jsonl", "--append",
      "--force", "--allow-stream", "--bitz", "-", "--", "--seed=", "--iterations=", "x.bin", "8", "9", "0", "1",
      "-1", "0x10", "-0x10", "18446744073709551615", "18446744073709551616", "99999999999999999999999", "",
      "1,100", "5", "x,3", "2,0", "philox", "sobol", "nope", "cpu", "gpu", "auto", " 8", "4294967297", "abc",
      "--help", "--version", "--list-prngs", "--strict", "--format", "nist", "text", "--resume", "--shard", "0/3",
      "3/3", "1/0", "/", "--csv", "--html", "--gpu-tuning", "lookahead=2", "lookahead=3", "memory-share=0.5",
      "memory-share=1e9", "round=", "profile=1,bz-chars=0", "=5", "merge", "warm-up=0", "0,0", "0,,1", "all",
      "--restart", "7.8", "0.5", "nan", "--restart-cutoff", "simulation", "exact", "--restart-simulations", "1000",
      "--non-iid", "--track", "iid", "non-iid", "auto", "source", "conditioning", "restart", "calibrate", "assess",
      "vetted", "non-vetted", "--restart-data", "--conditioning", "--n-in", "--n-out", "--nw", "--h-prime",
      "--conditioned", "--h-submitter", "--until-decided", "0x1p3", "1e-320", " 7.8", "7.8 ", "07", "1e3", "-0"};
  const int nargs = static_cast<int>(pick(8));
  for (int a = 0; a < nargs; ++a) {
    std::string w = words[pick(words.size())];
    if (target == 2 || pick(6) == 0) {
      w.clear();
      const size_t len = pick(24);
      static const char alphabet[] = "0123456789xXaAfF-+ .,eE";
      for (size_t i = 0; i < len; ++i) {
        w.push_back(pick(8) ? alphabet[pick(sizeof alphabet - 1)] : static_cast<char>(1 + pick(255)));
      }
    }
    if (target == 2) {
      in.insert(in.end(), w.begin(), w.end());
      return in;
    }
    in.insert(in.end(), w.begin(), w.end());
    in.push_back(0);
  }
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 0;
  double seconds = 10;
  uint64_t runs = UINT64_MAX;
  bool seeded = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--seed") {
      seed = std::strtoull(argv[i + 1], nullptr, 10);
      seeded = true;
    } else if (a == "--seconds") {
      seconds = std::strtod(argv[i + 1], nullptr);
    } else if (a == "--runs") {
      runs = std::strtoull(argv[i + 1], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: fuzz_inputs [--seed S] [--seconds T] [--runs N]\n");
      return 2;
    }
  }
  if (!seeded) seed = std::random_device{}();
  std::printf("fuzz_inputs: seed %" PRIu64 " (replay: fuzz_inputs --seed %" PRIu64 "), up to %.0f s\n", seed, seed,
              seconds);
  std::fflush(stdout);
  std::mt19937_64 rng(seed);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t done = 0;
  while (done < runs && std::chrono::steady_clock::now() < end) {
    const std::vector<uint8_t> in = make_input(rng);
    LLVMFuzzerTestOneInput(in.data(), in.size());
    ++done;
  }
  std::remove(scratch_file().c_str());
  std::printf("fuzz_inputs: %" PRIu64 " inputs, no failure (seed %" PRIu64 "); reader %" PRIu64 " datasets / %" PRIu64
              " errors, parser %" PRIu64 " runs / %" PRIu64 " usage errors, numbers %" PRIu64 " accepted / %" PRIu64
              " refused, rows %" PRIu64 " accepted / %" PRIu64 " refused, estimates %" PRIu64 " data sets / %" PRIu64 " refused\n",
              done, seed, tally.read_ok, tally.read_error, tally.parse_ok, tally.parse_error, tally.number_ok,
              tally.number_error, tally.row_ok, tally.row_refused, tally.estimates, tally.estimates_refused);
  return 0;
}
#endif
