// The C++ API's assess_manifest against `ea_iid source --manifest --jsonl`: the same rows (but
// for when, how and by which build they were made), in manifest order, with --jobs 2 too; a
// source that cannot be assessed is its error result; a manifest that is not valid throws
// Error("usage") naming the source and field, before any work.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../cli/cli_helpers.hpp"
#include "ea_iid/ea_iid.hpp"

namespace {

using nlohmann::json;

// What differs between two runs of the same assessments (and builds of the same code).
json stable(const json& j) {
  if (j.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : j.items()) {
      if (k != "dateTimeStamp" && k != "commandline" && k != "timings" && k != "toolVersion" && k != "build") {
        out[k] = stable(v);
      }
    }
    return out;
  }
  if (j.is_array()) {
    json out = json::array();
    for (const auto& v : j) out.push_back(stable(v));
    return out;
  }
  return j;
}

std::string write_manifest(const std::string& name, const std::string& text) {
  // Not .json: ctest schema/outputs validates every .json of the tests' folder as an ea_iid output.
  const std::string path = cli_test::tmp(name + "-" + std::to_string(::getpid()) + ".manifest");
  std::ofstream(path) << text;
  return path;
}

const std::string kData = std::string(EA_TEST_DATA_DIR) + "/samples/";

std::string three_sources() {
  return R"({"sources": [
    {"primaryNoiseSource": "auto-8", "rawNoisePath": ")" + kData + R"(rand8_short.bin"},
    {"primaryNoiseSource": "non-iid-1", "rawNoisePath": ")" + kData + R"(rand1_short.bin", "iidClaim": false,
     "conditioningComponent": [{"sequencePosition": 1, "vetted": true, "minNin": 64, "nOut": 32, "nw": 64}]},
    {"primaryNoiseSource": "auto-4", "rawNoisePath": ")" + kData + R"(rand4_short.bin", "hminEstimate": 3}]})";
}

}  // namespace

TEST_CASE("assess_manifest gives the rows of ea_iid source --manifest --jsonl, in manifest order") {
  const std::string manifest = write_manifest("api-manifest", three_sources());
  const std::string jsonl = cli_test::tmp("api-manifest-" + std::to_string(::getpid()) + ".jsonl");
  std::remove(jsonl.c_str());
  const cli_test::Result r =
      cli_test::run("source --manifest " + manifest + " --seed 7 --iterations 100 --device cpu -q --jsonl " + jsonl);
  REQUIRE(r.code == 0);
  std::vector<json> rows;
  std::ifstream in(jsonl);
  for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
  REQUIRE(rows.size() == 3);
  ea_iid::Options o;  // (the device as the command line's: a GPU machine's rows name the device they ran on)
  o.seed = 7;
  o.iterations = 100;
  o.device = "cpu";
  ea_iid::Assessor assessor;
  for (int jobs : {1, 2}) {
    CAPTURE(jobs);
    std::vector<size_t> order;
    const std::vector<ea_iid::SourceResult> got =
        assessor.assess_manifest(manifest, o, jobs, [&order](size_t k, const ea_iid::SourceResult&) { order.push_back(k); });
    REQUIRE(got.size() == 3);
    CHECK(order == std::vector<size_t>{0, 1, 2});
    for (size_t k = 0; k < 3; ++k) {
      CAPTURE(k);
      CHECK(stable(json::parse(got[k].json)) == stable(rows[k]));
      CHECK(got[k].name == rows[k]["source"]);
      CHECK(got[k].error_kind.empty());
      CHECK(std::isfinite(got[k].entropy));
    }
    CHECK(got[1].unit == "per 32-bit output");
  }
}

TEST_CASE("assess_manifest takes every run-wide option as ea_iid source --manifest takes its flag") {
  // seed, prng, iterations, until_decided, device and threads: the rows record each (the API
  // fills them by the one mapping its single assessments use, api/ea_iid.cpp filled_settings).
  const std::string manifest = write_manifest("api-manifest-options", R"({"sources": [
    {"primaryNoiseSource": "auto-8", "rawNoisePath": ")" + kData + R"(rand8_short.bin"},
    {"primaryNoiseSource": "non-iid-1", "rawNoisePath": ")" + kData + R"(rand1_short.bin", "iidClaim": false}]})");
  const std::string jsonl = cli_test::tmp("api-manifest-options-" + std::to_string(::getpid()) + ".jsonl");
  std::remove(jsonl.c_str());
  const cli_test::Result r = cli_test::run("source --manifest " + manifest + " --seed 3 --prng xoshiro256ss --iterations 50 " +
                                           "--until-decided --threads 1 --device cpu -q --jsonl " + jsonl);
  REQUIRE(r.code == 0);
  std::vector<json> rows;
  std::ifstream in(jsonl);
  for (std::string line; std::getline(in, line);) rows.push_back(json::parse(line));
  REQUIRE(rows.size() == 2);
  const json& permutation = rows[0]["steps"]["sequential"]["permutation"];
  CHECK(permutation["prng"] == "xoshiro256ss");
  CHECK(permutation["iterations"] == 50);
  CHECK(permutation["threads"] == 1);
  ea_iid::Options o;
  o.seed = 3;
  o.prng = "xoshiro256ss";
  o.iterations = 50;
  o.until_decided = true;
  o.threads = 1;
  o.device = "cpu";
  ea_iid::Assessor assessor;
  const std::vector<ea_iid::SourceResult> got = assessor.assess_manifest(manifest, o);
  REQUIRE(got.size() == 2);
  for (size_t k = 0; k < 2; ++k) {
    CAPTURE(k);
    CHECK(stable(json::parse(got[k].json)) == stable(rows[k]));
  }
}

TEST_CASE("assess_manifest: a source that cannot be assessed is its error result; a bad manifest throws usage") {
  const std::string empty = cli_test::tmp("api-manifest-empty-" + std::to_string(::getpid()) + ".bin");
  std::ofstream(empty).close();
  const std::string manifest = write_manifest(
      "api-manifest-error", R"({"sources": [{"primaryNoiseSource": "empty", "rawNoisePath": ")" + empty + R"(", "iidClaim": false},
      {"primaryNoiseSource": "fine", "rawNoisePath": ")" + kData + R"(rand1_short.bin", "iidClaim": false}]})");
  ea_iid::Assessor assessor;
  ea_iid::Options o;
  o.device = "cpu";
  const std::vector<ea_iid::SourceResult> got = assessor.assess_manifest(manifest, o);
  REQUIRE(got.size() == 2);
  CHECK(got[0].result == "error");
  CHECK(!got[0].error_kind.empty());
  CHECK(json::parse(got[0].json)["errorLevel"] == -1);
  CHECK(got[1].result != "error");
  CHECK(json::parse(got[1].json)["run"]["userSeed"].is_null());  // no source draws random numbers

  const std::string bad = write_manifest(
      "api-manifest-bad", R"({"sources": [{"primaryNoiseSource": "b", "rawNoisePath": ")" + kData + R"(rand1_short.bin",
      "iidClaim": "yes"}]})");
  std::string kind, message;
  try {
    assessor.assess_manifest(bad, o);
  } catch (const ea_iid::Error& e) {
    kind = e.kind();
    message = e.what();
  }
  CHECK(kind == "usage");
  CHECK(message.find("sources[0] (b): iidClaim: expected true or false") != std::string::npos);
  o.track = "non-iid";
  kind.clear();
  try {
    assessor.assess_manifest(manifest, o);
  } catch (const ea_iid::Error& e) {
    kind = e.kind();
    message = e.what();
  }
  CHECK(kind == "usage");
  CHECK(message.find("its field iidClaim") != std::string::npos);
}
