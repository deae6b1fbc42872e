// ea_calibrate --uniformity: the engine's permutations checked for uniformity, for every
// generator (src/permutation/uniformity.hpp; docs/prngs.md, "Uniformity"). A JSON line per
// check on standard output; exit status 1 when a check fails (but for a generator whose
// --list-prngs entry flags it: sobol), 2 on an error.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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
    const auto id = parse_prng(name);
    if (!id) throw Error(ErrorKind::Usage, "--prng: unknown generator '" + name + "' (all, " + prng_names() + ")");
    out.push_back(*id);
  }
  return out;
}

bool parse_uniformity(int argc, char** argv, UniformityPlan& plan) {
  UniformityOptions o;
  CLI::App app{
      "ea_calibrate --uniformity: the engine's permutations checked for uniformity, per generator: every "
      "order of 4 to 8 samples (chi-square over all n! orders) and where marked samples of a long row go "
      "(docs/prngs.md, Uniformity). The CPU's permutations; the GPU's are the same (the parity tests)"};
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
  plan.seed = cli::parse_unsigned(o.seed, "--seed", 0, UINT64_MAX / 2);
  plan.draws = cli::parse_unsigned(o.draws, "--draws", 1, 1000000000000ull);
  plan.marginal_draws = cli::parse_unsigned(o.marginal_draws, "--marginal-draws", 1, 100000000);
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
  known_flag(j, c.prng);
  j["seconds"] = seconds;
  return j;
}

// Writes the check's line; returns whether it passed or failed as its generator's flag says.
bool emit(const nlohmann::ordered_json& j) {
  std::cout << j.dump() << "\n";
  std::cout.flush();
  if (!std::cout) throw Error(ErrorKind::Output, "standard output: write failed");
  return j["passed"].get<bool>() || j.contains("knownFlag");
}

}  // namespace

cli::Outcome cli::uniformity_command(int argc, char** argv) {
  UniformityPlan plan;
  if (!parse_uniformity(argc, argv, plan)) return cli::Outcome{};
  int checks = 0, failures = 0;
  auto timed = [](auto&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = f();
    return std::make_pair(std::move(r), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  auto tally = [&](bool passed) {
    ++checks;
    failures += passed ? 0 : 1;
  };
  for (PrngId id : plan.prngs) {
    for (OrderRule rule : {OrderRule::Engine, OrderRule::SmallBuckets}) {
      if (!order_rule_applies(id, rule, plan.shuffle)) continue;
      for (int n = 4; n <= 8; ++n) {
        auto [c, s] =
            timed([&] { return order_check(id, rule, plan.shuffle, n, plan.draws, plan.seed, plan.threads); });
        tally(emit(order_json(c, s)));
      }
    }
    auto [m, s] = timed(
        [&] { return marginal_check(id, plan.shuffle, plan.samples, plan.marginal_draws, plan.seed, plan.threads); });
    tally(emit(marginal_json(m, s)));
    std::fprintf(stderr, "ea_calibrate --uniformity: %s done, %d checks, %d failed (not counting known flags)\n",
                 prng_info(id).name, checks, failures);
  }
  cli::Outcome out;
  out.not_iid = failures > 0;  // exit status 1 (the mains ask for --exit-code's rule)
  return out;
}
