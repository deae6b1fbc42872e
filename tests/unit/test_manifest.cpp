// The manifest of sources (pipeline/manifest.cpp): a good one read whole, and each kind of
// error named by its source (index and name) and field.
#include <doctest/doctest.h>

#include <string>

#include "common/error.hpp"
#include "conditioning/conditioning.hpp"
#include "manifest.hpp"

using namespace ea;

namespace {

const std::string kFolder = std::string(EA_TEST_DATA_DIR) + "/samples";

// The error message of parsing `text`, or "" when it parses.
std::string manifest_error(const std::string& text) {
  try {
    parse_manifest(text, "m.json", kFolder);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    return e.what();
  }
  return "";
}

std::string one(const std::string& fields) {
  return R"({"sources": [{"primaryNoiseSource": "a", "rawNoisePath": "rand8_short.bin"}, {"primaryNoiseSource": "b", )" +
         fields + "}]}";
}

}  // namespace

TEST_CASE("manifest: every field read, paths from the manifest's folder, components in position order") {
  const Manifest m = parse_manifest(R"({"sources": [
    {"primaryNoiseSource": "ring osc/1", "rawNoisePath": "rand8_short.bin", "restartTestPath": "truerand_1bit.bin",
     "bitsPerSample": 8, "iidClaim": true, "hminEstimate": 7.5, "numberOfRestarts": 1000, "samplesPerRestart": 1000,
     "physical": true, "additionalNoiseSources": false, "numberOfOEs": 2,
     "conditioningComponent": [{"sequencePosition": 1, "vetted": false, "minNin": 64, "nOut": 32, "nw": 64,
                                "unvettedConditionedPaths": "rand1_short.bin", "bijectiveClaim": false,
                                "description": "xor", "minHin": 1, "hOut": 30}]},
    {"primaryNoiseSource": "b", "rawNoisePath": "/dev/null", "iidClaim": false}]})",
                                    "m.json", kFolder);
  REQUIRE(m.sources.size() == 2);
  CHECK(m.digest.size() == 64);
  const ManifestSource& a = m.sources[0];
  CHECK(a.spec.name == "ring osc/1");
  CHECK(a.stem == "ring_osc_1");
  CHECK(a.spec.samples == kFolder + "/rand8_short.bin");
  CHECK(*a.spec.restart_data == kFolder + "/truerand_1bit.bin");
  CHECK(*a.bits == 8);
  CHECK(a.track() == TrackChoice::Auto);
  CHECK(*a.spec.h_submitter == 7.5);
  REQUIRE(a.spec.conditioning.size() == 1);
  CHECK_FALSE(a.spec.conditioning[0].vetted);
  CHECK(a.spec.conditioning[0].n_in == 64);
  CHECK(*a.spec.conditioning[0].conditioned == kFolder + "/rand1_short.bin");
  // h' as --h-prime reads it (NIST's strtold toward zero), not the nearest double.
  const Manifest h = parse_manifest(R"({"sources": [{"primaryNoiseSource": "a", "rawNoisePath": "rand8_short.bin",
    "conditioningComponent": [{"sequencePosition": 1, "vetted": false, "minNin": 64, "nOut": 32, "nw": 64, "hPrime": 0.9}]}]})",
                                    "m.json", kFolder);
  CHECK(*h.sources[0].spec.conditioning.at(0).h_prime == parse_conditioning_number("0.9", "--h-prime"));
  CHECK(*h.sources[0].spec.conditioning.at(0).h_prime != static_cast<long double>(0.9));
  CHECK(m.sources[1].spec.samples == "/dev/null");  // an absolute path as given
  CHECK(m.sources[1].track() == TrackChoice::NonIid);
}

TEST_CASE("manifest: a conditioning chain in sequencePosition order, whatever the array's order") {
  const Manifest m = parse_manifest(R"({"sources": [{"primaryNoiseSource": "a", "rawNoisePath": "rand8_short.bin",
    "conditioningComponent": [{"sequencePosition": 2, "vetted": true, "minNin": 256, "nOut": 128, "nw": 128},
                              {"sequencePosition": 1, "vetted": false, "minNin": 64, "nOut": 32, "nw": 64, "hPrime": 0.5}]}]})",
                                    "m.json", kFolder);
  const auto& chain = m.sources.at(0).spec.conditioning;
  REQUIRE(chain.size() == 2);
  CHECK_FALSE(chain[0].vetted);
  CHECK(chain[0].n_in == 64);
  CHECK(chain[1].vetted);
  CHECK(chain[1].n_in == 256);
  CHECK(chain[1].n_out == 128);
}

TEST_CASE("manifest: errors name the source by index and name, and the field") {
  CHECK(manifest_error("{").find("m.json: not a JSON document") == 0);
  CHECK(manifest_error("[]").find("m.json: expected an object") == 0);
  CHECK(manifest_error(R"({"sources": []})").find("m.json: sources: expected an array of at least one source") == 0);
  CHECK(manifest_error(R"({"sources": [], "x": 1})").find("m.json: x: unknown field") == 0);
  CHECK(manifest_error(one(R"("rawNoisePath": "rand8_short.bin", "colour": 1)")) == "m.json: sources[1] (b): colour: unknown field");
  // A misspelt field: the nearest known one, letter case aside.
  CHECK(manifest_error(one(R"("rawNoisePath": "rand8_short.bin", "iidclaim": true)")) ==
        "m.json: sources[1] (b): iidclaim: unknown field; did you mean iidClaim?");
  CHECK(manifest_error(R"({"source": []})").find("m.json: source: unknown field; did you mean sources?") == 0);
  CHECK(manifest_error(one(R"("bitsPerSample": 8)")) == "m.json: sources[1] (b): rawNoisePath: missing (required)");
  CHECK(manifest_error(R"({"sources": [{"rawNoisePath": "rand8_short.bin"}]})") ==
        "m.json: sources[0] (no primaryNoiseSource): primaryNoiseSource: missing (required)");
  CHECK(manifest_error(one(R"("rawNoisePath": "nope.bin")")) ==
        "m.json: sources[1] (b): rawNoisePath: " + kFolder + "/nope.bin: No such file or directory");
  CHECK(manifest_error(one(R"("rawNoisePath": "rand8_short.bin", "restartTestPath": "rand1_short.bin")"))
            .find("m.json: sources[1] (b): restartTestPath: " + kFolder + "/rand1_short.bin: a restart data set holds exactly") == 0);
  CHECK(manifest_error(one(R"("rawNoisePath": "rand8_short.bin", "bitsPerSample": "8")")) ==
        "m.json: sources[1] (b): bitsPerSample: expected an integer, got \"8\"");
  CHECK(manifest_error(one(R"("rawNoisePath": "rand8_short.bin", "bitsPerSample": 9)")) ==
        "m.json: sources[1] (b): bitsPerSample: 9 is out of range (1 to 8): symbols have at most 8 bits; a capture of 9-bit "
        "samples is read in its sample format (u16le, ...) and made symbols by a mask or bins (docs/sample-formats.md)");  // the rules' words (settings_rules.hpp)
  CHECK(manifest_error(one(R"("rawNoisePath": "rand8_short.bin", "iidClaim": 1)")) ==
        "m.json: sources[1] (b): iidClaim: expected true or false, got 1");
  CHECK(manifest_error(one(R"("rawNoisePath": "rand8_short.bin", "bitsPerSample": 1, "hminEstimate": 2)")) ==
        "m.json: sources[1] (b): hminEstimate: expected a number greater than 0 and at most 1, got 2");
  CHECK(manifest_error(one(R"("rawNoisePath": "rand8_short.bin", "numberOfRestarts": 500)"))
            .find("m.json: sources[1] (b): numberOfRestarts: 500: the restart tests") == 0);
  CHECK(manifest_error(R"({"sources": [{"primaryNoiseSource": "a", "rawNoisePath": "rand8_short.bin"},
                                 {"primaryNoiseSource": "a", "rawNoisePath": "rand8_short.bin"}]})") ==
        "m.json: sources[1] (a): primaryNoiseSource: the name of sources[0] (a) too; names must differ");
  CHECK(manifest_error(R"({"sources": [{"primaryNoiseSource": "a b", "rawNoisePath": "rand8_short.bin"},
                                 {"primaryNoiseSource": "a/b", "rawNoisePath": "rand8_short.bin"}]})")
            .find("m.json: sources[1] (a/b): primaryNoiseSource: its file name a_b is sources[0] (a b)'s too") == 0);
  CHECK(manifest_error(R"({"sources": [{"rawNoisePath": "rand8_short.bin", "primaryNoiseSource": ")" + std::string(65, 'x') + "\"}]}")
            .find("primaryNoiseSource: expected 1 to 64 characters (ESV's limit), got 65") != std::string::npos);
}

TEST_CASE("manifest: conditioning components' errors name the component and its field") {
  const std::string comp = R"("rawNoisePath": "rand8_short.bin", "conditioningComponent": )";
  CHECK(manifest_error(one(comp + R"({"vetted": true})")) ==
        "m.json: sources[1] (b): conditioningComponent: expected an array, got {\"vetted\":true}");
  CHECK(manifest_error(one(comp + R"([{"sequencePosition": 1, "vetted": true, "minNin": 512, "nOut": 256}])")) ==
        "m.json: sources[1] (b): conditioningComponent[0].nw: missing (required)");
  CHECK(manifest_error(one(comp + R"([{"sequencePosition": 2, "vetted": true, "minNin": 512, "nOut": 256, "nw": 256}])")) ==
        "m.json: sources[1] (b): conditioningComponent[0].sequencePosition: 2: the 1 components take the positions 1..1, "
        "each once");
  CHECK(manifest_error(one(comp + R"([{"sequencePosition": 1, "vetted": true, "minNin": 512, "nOut": 256, "nw": 256},
                                {"sequencePosition": 1, "vetted": true, "minNin": 512, "nOut": 256, "nw": 256}])"))
            .find("conditioningComponent[1].sequencePosition: 1: the 2 components take the positions 1..2") != std::string::npos);
  CHECK(manifest_error(one(comp + R"([{"sequencePosition": 1, "vetted": true, "minNin": 512, "nOut": 256, "nw": 256, "hPrime": 0.5}])")) ==
        "m.json: sources[1] (b): conditioningComponent[0].hPrime: applies to a non-vetted component (\"vetted\": false)");
  CHECK(manifest_error(one(comp + R"([{"sequencePosition": 1, "vetted": false, "minNin": 512, "nOut": 256, "nw": 256, "hPrime": 0.5,
                                  "validationNumber": "A1"}])")) ==
        "m.json: sources[1] (b): conditioningComponent[0].validationNumber: applies to a vetted component (\"vetted\": true): "
        "a non-vetted one has no ACVTS validation");
  CHECK(manifest_error(one(comp + R"([{"sequencePosition": 1, "vetted": false, "minNin": 512, "nOut": 256, "nw": 256}])")) ==
        "m.json: sources[1] (b): conditioningComponent[0].hPrime: a non-vetted component needs h': hPrime or "
        "unvettedConditionedPaths (one of them)");
  CHECK(manifest_error(one(comp + R"([{"sequencePosition": 1, "vetted": false, "minNin": 512, "nOut": 256, "nw": 256, "hPrime": 1.5}])")) ==
        "m.json: sources[1] (b): conditioningComponent[0].hPrime: expected a number greater than 0 and at most 1, got 1.5");
  CHECK(manifest_error(one(comp + R"([{"sequencePosition": 1, "vetted": true, "minNin": 256, "nOut": 512, "nw": 256}])")) ==
        "m.json: sources[1] (b): conditioningComponent[0].nOut: 512 is more than minNin 256");
}
