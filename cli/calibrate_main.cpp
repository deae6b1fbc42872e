// ea_calibrate: the false-rejection rate of the permutation tests with a shuffling
// generator. It draws independent IID data sets from OpenSSL's RAND_bytes (a CSPRNG that is
// none of the shuffling generators), runs the 18 statistical permutation tests (and, with
// --compression, the compression test) on each, and reports the share of data sets the
// tests reject with a Wilson 95% interval. scripts/calibrate-prngs.sh runs it for every
// generator; docs/prngs.md has the results.
#include <openssl/rand.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "assess.hpp"
#include "common/error.hpp"
#include "stats/compression.hpp"

using namespace ea;

namespace {

struct Options {
  std::string prng = "philox";
  uint32_t datasets = 1000;
  uint64_t samples = 1000000;
  int bits = 8;
  uint64_t seed = 1;
  std::string device = "gpu";
  int gpu_id = 0;
  int jobs = 8;
  int threads = 1;
  uint32_t round_size = 256;
  bool compression = false;
  double max_seconds = 0;  // 0: no limit
};

struct Tally {
  uint32_t done = 0, rejected = 0;
  uint64_t permutations = 0;
  uint32_t per_test[kNumTests] = {};
};

// One data set: true when the permutation tests reject it.
bool run_one(const Options& o, PrngId prng, uint64_t index, DeviceSlot& slot, Tally& t) {
  std::vector<uint8_t> bytes(o.samples);
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    throw Error(ErrorKind::Internal, "RAND_bytes failed");
  }
  if (o.bits < 8) {
    for (auto& b : bytes) b = static_cast<uint8_t>(b & ((1u << o.bits) - 1u));
  }
  const Dataset d = make_dataset(std::move(bytes), o.bits);
  const Baseline base = baseline(d);
  PermutationData pd;
  pd.symbols = d.symbols.data();
  pd.n = d.size();
  pd.raw_of = d.raw_of.data();
  pd.params = StatParams{base.mean, base.median, d.binary(), static_cast<uint32_t>(d.alphabet)};
  const StreamSet streams(prng, derive_seed(o.seed, index), 10000);
  pd.streams = streams.view();
  {
    CpuScratch scratch;
    cpu_statistics(pd.symbols, pd.n, pd.raw_of, pd.params, kAllFastTests, pd.original, scratch);
  }
  if (o.compression) {
    Compressor c;
    pd.original.v[kNumFastTests] = static_cast<double>(c.compressed_length(pd.symbols, pd.n, pd.raw_of));
  }
  auto cpu = make_cpu_backend(pd, o.threads);
  // The job's GPU backend, made once and rebound to every data set.
  PermutationBackend* gpu = nullptr;
  if (o.device == "gpu") {
    gpu = &slot.bind(pd, o.gpu_id, o.round_size);
  }
  DriverConfig dc;
  dc.skip_compression = !o.compression;
  const PermutationOutcome r = run_permutation_tests(gpu ? *gpu : *cpu, *cpu, dc);
  const bool rejected = o.compression ? !r.passed() : !r.fast_tests_passed();
  t.permutations += r.fast_permutations;
  for (int k = 0; k < kNumTests; ++k) t.per_test[k] += r.test_failed(k) ? 1 : 0;
  return rejected;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"ea_calibrate: false-rejection rate of the permutation tests on CSPRNG data, per shuffling generator"};
  app.add_option("--prng", o.prng, "shuffling generator(s), comma-separated (" + prng_names() + ")");
  app.add_option("--datasets", o.datasets, "independent IID data sets (default 1000)");
  app.add_option("--samples", o.samples, "samples per data set (default 1000000)");
  app.add_option("--bits", o.bits, "bits per sample, 1-8 (default 8)")->check(CLI::Range(1, 8));
  app.add_option("--seed", o.seed, "seed from which each data set's shuffle seed is derived");
  app.add_option("--device", o.device, "gpu or cpu")->check(CLI::IsMember({"gpu", "cpu"}));
  app.add_option("--gpu", o.gpu_id, "GPU index");
  app.add_option("--jobs", o.jobs, "data sets in flight at once (GPU: one CUDA stream each)")->check(CLI::Range(1, 256));
  app.add_option("--threads", o.threads, "CPU threads per data set")->check(CLI::Range(1, 1024));
  app.add_option("--round-size", o.round_size, "GPU permutations per round (default 256: most IID data sets are decided within a few hundred)")->check(CLI::Range(32u, 100000u));
  app.add_flag("--compression", o.compression, "also run the compression test (CPU)");
  app.add_option("--max-seconds", o.max_seconds,
                 "start no new data set after this many seconds; the result then counts fewer data sets. "
                 "The data sets in flight still finish (about 45 s more with --jobs 64 on an H100), and "
                 "the rows are printed only at the end: leave that margin under any outer time limit");
  CLI11_PARSE(app, argc, argv);
  // Several generators (--prng a,b,...) share one process, so that their data sets keep
  // one CUDA context busy together (kernels of different processes take turns on a GPU).
  std::vector<PrngId> prngs;
  std::vector<std::string> names;
  for (size_t pos = 0; pos <= o.prng.size();) {
    const size_t comma = std::min(o.prng.find(',', pos), o.prng.size());
    const std::string name = o.prng.substr(pos, comma - pos);
    const auto id = parse_prng(name);
    if (!id) {
      std::fprintf(stderr, "ea_calibrate: unknown --prng '%s' (%s)\n", name.c_str(), prng_names().c_str());
      return 2;
    }
    prngs.push_back(*id);
    names.push_back(name);
    pos = comma + 1;
  }
  const uint64_t items = static_cast<uint64_t>(o.datasets) * prngs.size();
  const auto t0 = std::chrono::steady_clock::now();
  std::atomic<uint64_t> next{0};
  std::mutex m;
  std::vector<Tally> totals(prngs.size());
  uint32_t done_all = 0;
  std::string failure;
  std::vector<std::thread> workers;
  for (int w = 0; w < o.jobs; ++w) {
    workers.emplace_back([&] {
      try {
        DeviceSlot slot;
        slot.memory_share = 0.85 / o.jobs;
        // Item k: data set k / P of generator k % P (generators interleaved).
        for (uint64_t k; (k = next++) < items;) {
          if (o.max_seconds > 0 &&
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > o.max_seconds) {
            break;
          }
          const size_t g = k % prngs.size();
          Tally t;
          const bool rejected = run_one(o, prngs[g], k / prngs.size(), slot, t);
          std::lock_guard<std::mutex> lock(m);
          Tally& total = totals[g];
          ++total.done;
          total.rejected += rejected ? 1 : 0;
          total.permutations += t.permutations;
          for (int i = 0; i < kNumTests; ++i) total.per_test[i] += t.per_test[i];
          if (++done_all % std::max<uint64_t>(1, items / 10) == 0) {
            uint32_t rejected_all = 0;
            for (const auto& x : totals) rejected_all += x.rejected;
            std::fprintf(stderr, "ea_calibrate %s %d-bit: %u/%" PRIu64 " data sets, %u rejected, %.0f s\n",
                         o.prng.c_str(), o.bits, done_all, items, rejected_all,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
          }
        }
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(m);
        if (failure.empty()) failure = e.what();
        next = items;
      }
    });
  }
  for (auto& w : workers) w.join();
  if (!failure.empty()) {
    std::fprintf(stderr, "ea_calibrate: %s\n", failure.c_str());
    return 2;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (size_t g = 0; g < prngs.size(); ++g) {
    const Tally& total = totals[g];
    // Wilson score interval, 95%.
    const double n = total.done, p = n > 0 ? total.rejected / n : 0, z = 1.959963984540054;
    const double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
    const double half = z / (1 + z * z / n) * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n));
    nlohmann::ordered_json j;
    j["prng"] = names[g];
    j["bits"] = o.bits;
    j["samples"] = o.samples;
    j["datasets"] = total.done;
    j["rejected"] = total.rejected;
    j["rate"] = p;
    j["wilson95"] = {std::max(0.0, centre - half), std::min(1.0, centre + half)};
    j["compression"] = o.compression;
    j["seed"] = o.seed;
    j["device"] = o.device;
    j["permutations"] = total.permutations;
    nlohmann::ordered_json per = nlohmann::ordered_json::object();
    for (int k = 0; k < kNumTests; ++k)
      if (total.per_test[k]) per[test_name(k)] = total.per_test[k];
    j["failedTests"] = per;
    j["seconds"] = seconds;  // of the whole run (generators run interleaved)
    std::cout << j.dump() << std::endl;
  }
  return 0;
}
