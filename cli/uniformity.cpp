// ea_calibrate --uniformity: the engine's permutations checked for uniformity, for every
// generator (src/permutation/uniformity.hpp; docs/prngs.md, "Uniformity"). A JSON line per
// check on standard output; exit status 1 when a check fails (but for a generator whose
// --list-prngs entry flags it: sobol), 2 on an error.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "help.hpp"
#include "commands.hpp"
#include "common/error.hpp"
#include "options.hpp"
#include "permutation/uniformity.hpp"
#include "rng/prng.hpp"

using namespace ea;

namespace {

struct UniformityOptions {
  std::string prng = "all", seed = "1", draws = "10000000", marginal_draws = "10000", samples = "1000000", threads,
              shuffle = "bucket";
  bool uniformity = false;
};

struct UniformityPlan {
  std::vector<PrngId> prngs;
  uint64_t seed = 1, draws = 0, marginal_draws = 0, samples = 0;
  int threads = 1;
  ShuffleChoice shuffle = ShuffleChoice::Bucket;
};

std::vector<PrngId> parse_prngs(const std::string& list) {
  std::vector<PrngId> out;
  if (list == "all") {
    for (const auto& p : prng_table()) out.push_back(p.id);
    return out;
  }
  for (size_t pos = 0; pos <= list.size();) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    const std::string name = list.substr(pos, comma - pos);
    pos = comma + 1;
    if (name.empty()) throw Error(ErrorKind::Usage, "--prng: an empty generator name in '" + list + "'");
    const auto id = parse_prng(name);
    if (!id) throw Error(ErrorKind::Usage, "--prng: unknown generator '" + name + "' (all, " + prng_names() + ")");
    if (std::find(out.begin(), out.end(), *id) == out.end()) out.push_back(*id);
  }
  return out;
}

bool parse_uniformity(int argc, char** argv, UniformityPlan& plan) {
  UniformityOptions o;
  CLI::App app{
      "ea_calibrate --uniformity: the engine's permutations checked for uniformity, per generator: every "
      "order of 4 to 8 samples (chi-square over all n! orders) and where marked samples of a long row go "
      "(docs/prngs.md, Uniformity). The CPU's permutations; the GPU's are the same (the parity tests)"};
  ea::cli::wrap_help(app);
  app.add_flag("--uniformity", o.uniformity, "run the uniformity checks instead of the calibration");
  app.add_option("--prng", o.prng, "generators, comma-separated, or all (default all): " + prng_names());
  app.add_option("--seed", o.seed,
                 "the first seed (draw d is permutation d mod 10,240 under seed + d div 10,240; default 1)");
  app.add_option("--draws", o.draws, "permutations per order check (default 10000000)");
  app.add_option("--marginal-draws", o.marginal_draws, "permutations of the long row (default 10000)");
  app.add_option("--samples", o.samples, "samples of the long row (default 1000000)");
  app.add_option("--threads", o.threads, "CPU threads (default: every core)");
  app.add_option("--shuffle", o.shuffle,
                 "bucket (default; the engine's) or fisher-yates (--shuffle fisher-yates of ea_iid)");
  // The calibration's options exist, but not here: said so, rather than "unknown option".
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i], name = a.substr(0, a.find('='));
    for (const char* other : {"--datasets", "--bits", "--jobs", "--fast-only", "--max-seconds", "--device", "--gpu",
                              "--round-size", "--gpu-tuning", "--iterations"}) {
      if (name == other) {
        throw Error(ErrorKind::Usage, name +
                                          " does not apply with --uniformity (its checks count the CPU's "
                                          "permutations; options: ea_calibrate --uniformity --help)");
      }
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return false;
  } catch (const CLI::ParseError& e) {
    throw Error(ErrorKind::Usage, cli::parse_error_message(app, e, "ea_calibrate --uniformity"));
  }
  if (!o.uniformity) {
    throw Error(ErrorKind::Usage, "--uniformity=false: leave --uniformity out to run the calibration");
  }
  plan.prngs = parse_prngs(o.prng);
  plan.seed = cli::parse_unsigned(o.seed, "--seed", 0, UINT64_MAX, true);
  // (at least 5 draws for each order of 8 samples, and for each tenth of the long row)
  plan.draws = cli::parse_unsigned(o.draws, "--draws", order_min_draws(8), 1000000000000ull);
  plan.marginal_draws = cli::parse_unsigned(o.marginal_draws, "--marginal-draws", kMarginalMinDraws, 100000000);
  plan.samples = cli::parse_unsigned(o.samples, "--samples", 1000, 100000000);
  plan.threads = o.threads.empty() ? omp_get_max_threads()
                                   : static_cast<int>(cli::parse_unsigned(o.threads, "--threads", 1, 4096));
  const auto choice = parse_shuffle_choice(o.shuffle);
  if (!choice) throw Error(ErrorKind::Usage, "--shuffle: '" + o.shuffle + "' is neither bucket nor fisher-yates");
  plan.shuffle = *choice;
  return true;
}

// A generator known to fail (--list-prngs' uniformity flag, e.g. sobol): the flag, so that its
// failures are expected ones (they do not set the exit status).
void known_flag(nlohmann::ordered_json& j, PrngId id) {
  const char* flag = prng_info(id).uniformity_flag;
  if (*flag != '\0') j["knownFlag"] = flag;
}

nlohmann::ordered_json order_json(const OrderCheck& c, double seconds) {
  const uint64_t orders = c.counts.size();
  const bool ok = order_check_passed(c);
  nlohmann::ordered_json j;
  j["check"] = "orders";
  j["prng"] = prng_info(c.prng).name;
  j["rule"] = c.rule == OrderRule::Engine ? "engine" : "small-buckets";
  j["shuffle"] = c.shuffle;
  j["n"] = c.n;
  j["draws"] = c.draws;
  j["seed"] = std::to_string(c.seed);
  j["orders"] = orders;
  j["seen"] = c.seen;
  j["chiSquare"] = c.chi_square;
  j["df"] = c.df;
  j["p"] = c.p;
  j["passed"] = ok;
  if (!ok) j["failure"] = order_check_failure(c);
  known_flag(j, c.prng);
  j["seconds"] = seconds;
  return j;
}

nlohmann::ordered_json marginal_json(const MarginalCheck& c, double seconds) {
  const bool ok = marginal_check_passed(c);
  nlohmann::ordered_json j;
  j["check"] = "marginals";
  j["prng"] = prng_info(c.prng).name;
  j["rule"] = "engine";
  j["shuffle"] = c.shuffle;
  j["n"] = c.n;
  j["draws"] = c.draws;
  j["seed"] = std::to_string(c.seed);
  j["marked"] = c.tracked;
  j["bins"] = c.bins;
  j["chiSquare"] = c.chi_square;
  j["df"] = c.df;
  j["p"] = c.p;
  j["worstP"] = c.worst_p;
  j["worstFrom"] = c.worst_from;
  j["passed"] = ok;
  if (!ok) j["failure"] = marginal_check_failure(c);
  known_flag(j, c.prng);
  j["seconds"] = seconds;
  return j;
}

// What the checks came to: all, failed, failed as their generator's flag says.
struct UniformityTally {
  int checks = 0, failed = 0, flagged = 0;
};

// Writes the check's line and counts it.
void emit(const nlohmann::ordered_json& j, UniformityTally& t) {
  std::cout << j.dump() << "\n";
  std::cout.flush();
  if (!std::cout) throw Error(ErrorKind::Output, "standard output: write failed");
  ++t.checks;
  if (!j["passed"].get<bool>()) ++(j.contains("knownFlag") ? t.flagged : t.failed);
}

}  // namespace

cli::Outcome cli::uniformity_command(int argc, char** argv) {
  UniformityPlan plan;
  if (!parse_uniformity(argc, argv, plan)) return cli::Outcome{};
  UniformityTally all;
  auto timed = [](auto&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = f();
    return std::make_pair(std::move(r), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  for (PrngId id : plan.prngs) {
    UniformityTally one;
    for (OrderRule rule : {OrderRule::Engine, OrderRule::SmallBuckets}) {
      if (!order_rule_applies(id, rule, plan.shuffle)) continue;
      for (int n = 4; n <= 8; ++n) {
        auto [c, s] =
            timed([&] { return order_check(id, rule, plan.shuffle, n, plan.draws, plan.seed, plan.threads); });
        emit(order_json(c, s), one);
      }
    }
    auto [m, s] = timed(
        [&] { return marginal_check(id, plan.shuffle, plan.samples, plan.marginal_draws, plan.seed, plan.threads); });
    emit(marginal_json(m, s), one);
    std::fprintf(stderr, "ea_calibrate --uniformity: %s: %d checks, %d failed%s\n", prng_info(id).name, one.checks,
                 one.failed + one.flagged, one.flagged ? " (as --list-prngs flags it)" : "");
    all.checks += one.checks, all.failed += one.failed, all.flagged += one.flagged;
  }
  const std::string flagged =
      all.flagged ? std::to_string(all.flagged) + " failures of generators --list-prngs flags" : std::string();
  if (all.failed > 0) {
    std::fprintf(stderr, "ea_calibrate --uniformity: %d checks, %d FAILED%s\n", all.checks, all.failed,
                 flagged.empty() ? "" : (" (and " + flagged + ")").c_str());
  } else {
    std::fprintf(stderr, "ea_calibrate --uniformity: %d checks, all passed%s\n", all.checks,
                 flagged.empty() ? "" : (" but " + flagged).c_str());
  }
  cli::Outcome out;
  out.not_iid = all.failed > 0;  // exit status 1 (the mains ask for --exit-code's rule)
  return out;
}
