// A conditioning component's output entropy through the C++ API (Assessor::conditioning): the
// numbers read as the command line reads them, h_out in the record and the result, h' from a
// file of conditioned output, and the command line's rules worded with the fields' names.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ea_iid/ea_iid.hpp"

namespace {

using nlohmann::json;

std::pair<std::string, std::string> conditioning_refusal(ea_iid::Assessor& a, const ea_iid::ConditioningOptions& o) {
  try {
    (void)a.conditioning(o);
  } catch (const ea_iid::Error& e) {
    return {e.kind(), e.what()};
  }
  return {"", ""};
}

ea_iid::ConditioningOptions component(const char* kind, uint32_t n_in, uint32_t n_out, uint32_t nw, const char* h_in) {
  ea_iid::ConditioningOptions o;
  o.kind = kind;
  o.n_in = n_in;
  o.n_out = n_out;
  o.nw = nw;
  o.h_in = h_in;
  return o;
}

}  // namespace

TEST_CASE("assess conditioning: h_out of a vetted and a non-vetted component, h' from a file") {
  ea_iid::Assessor a;
  // Non-vetted, h_in far above n_out: h_out = min(Output_Entropy, 0.999 n_out, h' n_out) = 0.9 x 256.
  ea_iid::ConditioningOptions o = component("non-vetted", 1024, 256, 256, "800");
  o.h_prime = "0.9";
  const ea_iid::ConditioningResult r = a.conditioning(o);
  CHECK(r.h_out == doctest::Approx(230.4));
  const json d = json::parse(r.json);
  CHECK(d["type"] == "Conditioning");
  CHECK(d["testCases"][0]["h_out"].get<double>() == r.h_out);
  CHECK(d["testCases"][0]["h_p"].get<double>() == doctest::Approx(0.9));
  // Vetted, h_in below n_out: about h_in.
  const ea_iid::ConditioningResult v = a.conditioning(component("vetted", 1024, 256, 256, "100"));
  CHECK(v.h_out == doctest::Approx(100).epsilon(1e-6));
  CHECK(v.h_out <= 100);
  // h' from a file of conditioned output: its bitstring estimates, at most 1 a bit.
  ea_iid::ConditioningOptions f = component("non-vetted", 64, 32, 64, "64");
  f.conditioned = std::string(EA_TEST_DATA_DIR) + "/samples/truerand_1bit.bin";
  const json fd = json::parse(a.conditioning(f).json);
  CHECK(fd["filename"] == f.conditioned);
  CHECK(fd["testCases"][0]["h_p"].get<double>() > 0.5);
  CHECK(fd["testCases"][0]["h_p"].get<double>() <= 1);
}

TEST_CASE("assess conditioning: the command line's rules, named by the fields") {
  ea_iid::Assessor a;
  ea_iid::ConditioningOptions o = component("vetted", 1024, 256, 256, "0.5");
  o.h_prime = "0.9";
  CHECK(conditioning_refusal(a, o) == std::pair<std::string, std::string>{"usage", "h_prime applies to a non-vetted component"});
  o = component("non-vetted", 1024, 256, 256, "800");
  CHECK(conditioning_refusal(a, o).second == "a non-vetted component needs h_prime or conditioned for h'");
  o.conditioned_iid = true;
  o.h_prime = "0.9";
  CHECK(conditioning_refusal(a, o).second == "conditioned_iid applies to conditioned");
  o.conditioned_iid = false;
  o.bits = 9;
  o.conditioned = "c.bin";
  CHECK(conditioning_refusal(a, o).second == "h_prime and conditioned: give one (h' is given, or comes from the file)");
  o.h_prime.clear();
  CHECK(conditioning_refusal(a, o).second == "bits: 9 is out of range (1 to 8)");
  o = component("approved", 1024, 256, 256, "800");
  CHECK(conditioning_refusal(a, o).first == "usage");
  o = component("vetted", 1024, 256, 256, "0,5");
  CHECK(conditioning_refusal(a, o).first == "usage");
  CHECK(conditioning_refusal(a, o).second.find("h_in") != std::string::npos);
  o = component("non-vetted", 64, 32, 64, "64");
  o.conditioned = "/nonexistent/cond.bin";
  CHECK(conditioning_refusal(a, o).first == "input");
}
