// One set of rules (pipeline/settings_rules.hpp) at every front door: each row of
// tests/tools/settings-refusals.json is refused by the command line (ea_iid), by `ea_iid
// source` and `ea_iid source --manifest` (where they can express the row) and by the C++ API
// (ea_iid::Assessor's assess and assess_manifest) as a usage error whose message holds the
// row's words and names each setting by that door's own name. Python walks the same table
// (tests/python/test_settings_refusals.py).
#include <doctest/doctest.h>

#include <fstream>
#include <unistd.h>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../cli/cli_helpers.hpp"
#include "ea_iid/ea_iid.hpp"

namespace {

using nlohmann::json;

json table() {
  std::ifstream in(EA_REFUSALS_TABLE);
  REQUIRE(in.good());
  return json::parse(in)["rows"];
}

// The command line's flag of each setting of the table, and how a value is written.
const std::map<std::string, std::string>& cli_flags() {
  static const std::map<std::string, std::string> flags = {
      {"track", "--track"},          {"iterations", "--iterations"}, {"prng", "--prng"}, {"shuffle", "--shuffle"},
      {"all_tests", "--all-tests"},  {"until_decided", "--until-decided"}, {"early_exit", "--no-early-exit"},
      {"restart", "--restart"},      {"conditioned", "-c"},          {"truncate_bitstring", "-t"},
      {"bits", "--bits"},            {"threads", "--threads"},       {"gpus", "--gpu"},
      {"device", "--device"},        {"seed", "--seed"},             {"sample_format", "--sample-format"},
      {"select_bits", "--select-bits"}, {"bin", "--bin"}};
  return flags;
}

std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ",") + value_text(x);
    return s;
  }
  return v.dump();
}

// The row as command-line arguments; false where `source` cannot express it.
bool cli_args(const json& settings, bool source, std::string& args) {
  for (const auto& [key, v] : settings.items()) {
    const std::string& flag = cli_flags().at(key);
    if (v.is_boolean()) {  // a flag that is its value (--all-tests, --no-early-exit, -c, -t)
      if (source && key != "until_decided") return false;
      args += " " + flag;
    } else {
      if (source && key == "restart") return false;  // source's H_I comes from its steps
      args += " " + flag + " '" + value_text(v) + "'";
    }
  }
  return true;
}

void check_message(const json& row, const std::string& message, bool cli) {
  for (const auto& w : row["words"]) CHECK_MESSAGE(message.find(w.get<std::string>()) != std::string::npos, w);
  for (const auto& n : row["names"]) {
    const std::string name = cli ? cli_flags().at(n.get<std::string>()) : n.get<std::string>();
    CHECK_MESSAGE(message.find(name) != std::string::npos, name);
  }
}

ea_iid::Options api_options(const json& settings) {
  ea_iid::Options o;
  o.device = "cpu";
  for (const auto& [key, v] : settings.items()) {
    o.given.push_back(key);  // what the row gives, as the command line's flags and Python's keywords
    if (key == "track") o.track = v.get<std::string>();
    else if (key == "iterations") o.iterations = v.get<uint32_t>();
    else if (key == "prng") o.prng = v.get<std::string>();
    else if (key == "shuffle") o.shuffle = v.get<std::string>();
    else if (key == "all_tests") o.all_tests = v.get<bool>();
    else if (key == "until_decided") o.until_decided = v.get<bool>();
    else if (key == "early_exit") o.early_exit = v.get<bool>();
    else if (key == "restart") o.restart = v.get<double>();
    else if (key == "conditioned") o.conditioned = v.get<bool>();
    else if (key == "truncate_bitstring") o.truncate_bitstring = v.get<bool>();
    else if (key == "bits") o.bits = v.get<int>();
    else if (key == "threads") o.threads = v.get<int>();
    else if (key == "gpus") o.gpus = v.get<std::vector<int>>();
    else if (key == "device") o.device = v.get<std::string>();
    else if (key == "sample_format") o.sample_format = v.get<std::string>();
    else if (key == "select_bits") o.select_bits = v.get<std::string>();
    else if (key == "bin") o.bin = v.get<int>();
    else FAIL("no API field for " << key);
  }
  return o;
}

const std::string kSampleFile = std::string(EA_TEST_DATA_DIR) + "/samples/rand8_short.bin";

// The manifest's field of each setting a manifest gives per source (but the track: iidClaim).
const std::map<std::string, std::string>& manifest_fields() {
  static const std::map<std::string, std::string> fields = {{"bits", "bitsPerSample"},
                                                            {"sample_format", "sampleFormat"},
                                                            {"select_bits", "selectBits"},
                                                            {"bin", "binBits"}};
  return fields;
}

// The row as a manifest of one source (the settings a manifest gives per source: track
// non-iid as iidClaim false, bits as bitsPerSample, the sample format and rule as
// sampleFormat, selectBits, binBits) and the rest; false where the manifest door cannot
// express the row (as `ea_iid source`, and a track other than non-iid).
bool manifest_of(const json& settings, json& doc, json& rest) {
  json src = {{"primaryNoiseSource", "refusal"}, {"rawNoisePath", kSampleFile}};
  rest = json::object();
  for (const auto& [key, v] : settings.items()) {
    if (key == "track") {
      if (v != "non-iid") return false;
      src["iidClaim"] = false;
    } else if (manifest_fields().count(key)) {
      src[manifest_fields().at(key)] = v;
    } else if (key == "restart" || (v.is_boolean() && key != "until_decided")) {
      return false;  // source's H_I comes from its steps; -c, -t, --all-tests, --no-early-exit: not source's
    } else {
      rest[key] = v;
    }
  }
  doc = {{"sources", json::array({src})}};
  return true;
}

std::string manifest_file(const json& doc) {
  static int made = 0;
  // Not .json: ctest schema/outputs validates every .json of the tests' folder as an ea_iid output.
  const std::string path =
      cli_test::tmp("refusal-manifest-" + std::to_string(::getpid()) + "-" + std::to_string(++made) + ".manifest");
  std::ofstream(path) << doc.dump();
  return path;
}

// The manifest door's names: the manifest's fields for what it gives per source.
void check_manifest_message(const json& row, const std::string& message, bool cli) {
  for (const auto& w : row["words"]) CHECK_MESSAGE(message.find(w.get<std::string>()) != std::string::npos, w);
  for (const auto& n : row["names"]) {
    const std::string key = n.get<std::string>();
    const std::string name = key == "track"                 ? "iidClaim"
                             : manifest_fields().count(key) ? manifest_fields().at(key)
                             : cli                          ? cli_flags().at(key)
                                                            : key;
    CHECK_MESSAGE(message.find(name) != std::string::npos, name);
  }
}

}  // namespace

TEST_CASE("the command line refuses every row of the settings table (exit 2)") {
  for (const auto& row : table()) {
    std::string args;
    REQUIRE(cli_args(row["settings"], false, args));
    CAPTURE(args);
    const cli_test::Result r = cli_test::run("-q" + args + " " + kSampleFile);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    check_message(row, r.err, true);
  }
}

TEST_CASE("ea_iid source refuses every row of the settings table it can express (exit 2)") {
  int expressed = 0;
  for (const auto& row : table()) {
    std::string args;
    if (!cli_args(row["settings"], true, args)) continue;
    ++expressed;
    CAPTURE(args);
    const cli_test::Result r = cli_test::run("source refusal " + kSampleFile + " -q" + args);
    CHECK(r.code == 2);
    check_message(row, r.err, true);
  }
  CHECK(expressed >= 8);
}

TEST_CASE("the C++ API refuses every row of the settings table (Error kind usage)") {
  ea_iid::Assessor assessor;
  std::vector<uint8_t> samples(1000);
  for (size_t i = 0; i < samples.size(); ++i) samples[i] = static_cast<uint8_t>(i * 37 + i / 7);
  for (const auto& row : table()) {
    CAPTURE(row["rule"].get<std::string>());
    const ea_iid::Options o = api_options(row["settings"]);
    std::string kind, message;
    try {
      assessor.assess(samples.data(), samples.size(), o);
    } catch (const ea_iid::Error& e) {
      kind = e.kind();
      message = e.what();
    }
    CAPTURE(message);
    CHECK(kind == "usage");
    check_message(row, message, false);
  }
}

TEST_CASE("ea_iid source --manifest refuses every row of the settings table it can express (exit 2)") {
  int expressed = 0;
  for (const auto& row : table()) {
    json doc, rest;
    if (!manifest_of(row["settings"], doc, rest)) continue;
    ++expressed;
    std::string args;
    REQUIRE(cli_args(rest, true, args));
    CAPTURE(doc.dump());
    CAPTURE(args);
    const cli_test::Result r = cli_test::run("source --manifest " + manifest_file(doc) + " -q" + args);
    CHECK(r.code == 2);
    check_manifest_message(row, r.err, true);
  }
  CHECK(expressed >= 8);
}

TEST_CASE("the C++ API's assess_manifest refuses every row of the settings table it can express (Error kind usage)") {
  ea_iid::Assessor assessor;
  int expressed = 0;
  for (const auto& row : table()) {
    json doc, rest;
    if (!manifest_of(row["settings"], doc, rest)) continue;
    ++expressed;
    CAPTURE(row["rule"].get<std::string>());
    ea_iid::Options o = api_options(rest);
    std::string kind, message;
    try {
      assessor.assess_manifest(manifest_file(doc), o);
    } catch (const ea_iid::Error& e) {
      kind = e.kind();
      message = e.what();
    }
    CAPTURE(message);
    CHECK(kind == "usage");
    check_manifest_message(row, message, false);
  }
  CHECK(expressed >= 8);
}
