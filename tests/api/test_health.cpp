// The health tests through the C++ API (Assessor::health_tests): the command line's cutoffs
// and rules with HealthOptions' `given` empty (a field counts as given when it differs from
// its default) and listed, threads 0 (every core), a drawn seed recorded, the device error
// kind where no GPU is usable, and cancel() from another thread stopping a simulation.
#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "ea_iid/ea_iid.hpp"

namespace {

using nlohmann::json;

// The call's error kind and message ("" when it returns).
std::pair<std::string, std::string> refusal(ea_iid::Assessor& a, const ea_iid::HealthOptions& o,
                                            const std::vector<std::string>& files = {}) {
  try {
    (void)a.health_tests(o, files);
  } catch (const ea_iid::Error& e) {
    return {e.kind(), e.what()};
  }
  return {"", ""};
}

}  // namespace

TEST_CASE("assess health_tests: the cutoffs, given fields and the rules of health-tests") {
  ea_iid::Assessor a;
  ea_iid::HealthOptions o;
  o.h = 1;
  const json d = json::parse(a.health_tests(o).json);
  CHECK(d["type"] == "HealthTests");
  CHECK(d["rct"]["cutoff"] == 21);  // SP 800-90B Table 2 at H = 1, alpha 2^-20
  CHECK(d["apt"]["cutoff"] == 311);
  CHECK(d["simulation"].is_null());
  // given empty: the default alpha is not "given"; another one is, and it is used.
  o.alpha = "2^-30";
  CHECK(json::parse(a.health_tests(o).json)["rct"]["cutoff"] == 31);
  // seed without simulate: refused with the field's name (given empty: it has a value).
  o.seed = 7;
  auto [kind, message] = refusal(a, o);
  CHECK(kind == "usage");
  CHECK(message == "seed applies to simulate, which is not given");
  // the default device listed as given is refused too, as --device auto is without --simulate.
  ea_iid::HealthOptions listed;
  listed.h = 1;
  listed.given = {"device"};
  std::tie(kind, message) = refusal(a, listed);
  CHECK(message == "device applies to simulate, which is not given");
  listed.given = {"simulate"};  // simulate 0 given: out of range
  std::tie(kind, message) = refusal(a, listed);
  CHECK(kind == "usage");
  CHECK(message.find("simulate: 0 is out of range (1 to") == 0);
  // A seeded simulation on the CPU at threads 0 (every core); without a seed one is drawn.
  ea_iid::HealthOptions sim;
  sim.h = 1;
  sim.bits = 1;
  sim.alpha = "2^-8";
  sim.simulate = 300000;
  sim.device = "cpu";
  sim.seed = 5;
  const json s = json::parse(a.health_tests(sim).json)["simulation"];
  CHECK(s["samples"] == 300032);
  CHECK(s["seed"] == "5");
  CHECK(s["rct"]["within"] == true);
  sim.seed.reset();
  const json drawn = json::parse(a.health_tests(sim).json)["simulation"];
  CHECK(drawn["seed"].get<std::string>() != "");
  // --device gpu: the GPU's simulation, or where none is usable the error kind "device".
  sim.device = "gpu";
  std::tie(kind, message) = refusal(a, sim);
  if (!kind.empty()) CHECK(kind == "device");
  // A binary file beside a 4-bit one: refused, the remedy in this API's words, not the CLI's.
  ea_iid::HealthOptions mixed;
  mixed.h = 1;
  const std::string samples = std::string(EA_TEST_DATA_DIR) + "/samples/";
  std::tie(kind, message) = refusal(a, mixed, {samples + "truerand_1bit.bin", samples + "truerand_4bit.bin"});
  CHECK(kind == "usage");
  CHECK(message.find("a binary source's cutoffs differ from another's; give bits, or test them apart") !=
        std::string::npos);
  CHECK(message.find("--") == std::string::npos);
}

TEST_CASE("assess health_tests: cancel() from another thread stops a simulation") {
  ea_iid::Assessor a;
  ea_iid::HealthOptions o;
  o.h = 1;
  o.bits = 1;
  o.simulate = uint64_t{1} << 44;  // hours on a CPU
  o.device = "cpu";
  o.threads = 1;
  o.seed = 1;
  auto run = std::async(std::launch::async, [&] { return refusal(a, o); });
  // (a call that has not begun is not affected: cancel until it ends)
  while (run.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) a.cancel();
  const auto [kind, message] = run.get();
  CHECK(kind == "interrupted");
  ea_iid::HealthOptions next;  // the next call runs normally
  next.h = 1;
  CHECK(json::parse(a.health_tests(next).json)["rct"]["cutoff"] == 21);
}
